//! The modules of every crate of the workspace form layers: no module (a file, down to
//! the nested ones: `input::items`, `pipeline::sink::json`) reaches, through the paths
//! its code and tests name (`crate::`, `super::`, a child module's name), a module that
//! reaches it back. A name a module re-exports (`pub use child::Name`) counts as the
//! module it comes from.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The source folders of the workspace's crates, from the workspace root.
const CRATES: [&str; 7] = [
    "isobench-core/src",
    "isobench-adapters/src",
    "cargo-isobench/src",
    "plugins/sdk/src",
    "plugins/multi-swe-bench/src",
    "plugins/test-plugin/src",
    "python/src",
];

/// One source file: its module path (`input::items`; empty for the crate root) and text.
struct Source {
    module: Vec<String>,
    text: String,
}

/// Every `.rs` file under `dir` (the crate's `src`), with its module path.
fn sources(src: &Path, dir: &Path, out: &mut Vec<Source>) {
    for entry in std::fs::read_dir(dir).expect("the sources") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            sources(src, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path.strip_prefix(src).expect("under src");
            let mut module: Vec<String> = relative
                .components()
                .map(|c| {
                    c.as_os_str()
                        .to_string_lossy()
                        .trim_end_matches(".rs")
                        .to_owned()
                })
                .collect();
            if matches!(
                module.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                module.pop();
            }
            // A binary's own root is another crate's root: kept apart from `lib.rs`.
            if relative == Path::new("main.rs") || relative.starts_with("bin") {
                continue;
            }
            out.push(Source {
                module,
                text: std::fs::read_to_string(&path).expect("UTF-8 source"),
            });
        }
    }
}

/// The words of a path starting at `text` (`a::b::{c, d}` gives `a`, `b`).
fn path_at(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut rest = text;
    loop {
        let word: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if word.is_empty() {
            break;
        }
        rest = &rest[word.len()..];
        words.push(word);
        match rest.strip_prefix("::") {
            Some(more) => rest = more,
            None => break,
        }
    }
    words
}

/// The modules of one crate, each with the modules it names.
fn dependencies(files: &[Source]) -> BTreeMap<String, BTreeSet<String>> {
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| f.module.clone()).collect();
    // What each module re-exports by name: the module the name comes from.
    let mut reexported: BTreeMap<(Vec<String>, String), Vec<String>> = BTreeMap::new();
    for file in files {
        for line in file.text.lines() {
            let Some(rest) = line.strip_prefix("pub use ") else {
                continue;
            };
            let words = path_at(rest);
            let Some(first) = words.first() else {
                continue;
            };
            let mut from = file.module.clone();
            from.push(first.clone());
            if !modules.contains(&from) {
                continue;
            }
            let names = rest.rsplit("::").next().unwrap_or_default();
            for name in names.trim_matches(['{', '}', ';', ' ']).split(',') {
                let name = name.trim().split(" as ").last().unwrap_or_default();
                reexported.insert((file.module.clone(), name.to_owned()), from.clone());
            }
        }
    }
    // The module a path names: its longest prefix that is a module, or what that
    // module re-exports under the next word.
    let resolve = |path: &[String]| -> Option<Vec<String>> {
        let n = (0..=path.len())
            .rev()
            .find(|&n| n > 0 && modules.contains(&path[..n]))?;
        let module = path[..n].to_vec();
        Some(
            path.get(n)
                .and_then(|next| reexported.get(&(module.clone(), next.clone())).cloned())
                .unwrap_or(module),
        )
    };
    let name = |module: &[String]| module.join("::");
    let mut uses: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let named = uses.entry(name(&file.module)).or_default();
        // The inline modules (`mod tests {`) open at each indentation.
        let mut inline: Vec<usize> = Vec::new();
        for line in file.text.lines() {
            let code = line.trim_start();
            let indent = line.len() - code.len();
            while inline
                .last()
                .is_some_and(|&at| indent <= at && !code.is_empty())
            {
                inline.pop();
            }
            if code.starts_with("//") {
                continue;
            }
            if (code.starts_with("mod ") || code.starts_with("pub mod ")) && code.ends_with('{') {
                inline.push(indent);
                continue;
            }
            let mut found = Vec::new();
            for (at, _) in line.match_indices("crate::") {
                // A visibility (`pub(in crate::a)`) names no dependency.
                if (at > 0 && line[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_'))
                    || line[..at].ends_with("(in ")
                {
                    continue;
                }
                found.push(path_at(&line[at + "crate::".len()..]));
            }
            for (at, _) in line.match_indices("super::") {
                // Counted once, from the first of a run of `super::`.
                if line[..at].ends_with("super::")
                    || (at > 0 && line[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_'))
                {
                    continue;
                }
                let mut rest = &line[at..];
                let mut ups: usize = 0;
                while let Some(more) = rest.strip_prefix("super::") {
                    ups += 1;
                    rest = more;
                }
                // Inside an inline module, the first `super` is the file's own module.
                let ups = ups.saturating_sub(inline.len());
                let Some(base) = file.module.len().checked_sub(ups) else {
                    continue;
                };
                let mut path = file.module[..base].to_vec();
                path.extend(path_at(rest));
                found.push(path);
            }
            // `use child::...` of a module the file declares.
            let child_use = code
                .strip_prefix("pub use ")
                .or_else(|| code.strip_prefix("pub(crate) use "))
                .or_else(|| code.strip_prefix("pub(super) use "))
                .or_else(|| code.strip_prefix("use "));
            if let Some(rest) = child_use.filter(|_| inline.is_empty()) {
                let rest = rest.strip_prefix("self::").unwrap_or(rest);
                let mut path = file.module.clone();
                path.extend(path_at(rest));
                found.push(path);
            }
            for path in found {
                if let Some(module) = resolve(&path)
                    && module != file.module
                {
                    named.insert(name(&module));
                }
            }
        }
    }
    uses
}

/// The pairs of modules each of which reaches the other.
fn circles(uses: &BTreeMap<String, BTreeSet<String>>) -> Vec<(String, String)> {
    let reaches = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_owned()];
        while let Some(m) = todo.pop() {
            for next in uses.get(&m).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let mut found = Vec::new();
    for a in uses.keys() {
        let from_a = reaches(a);
        for b in from_a.iter().filter(|b| *b > a) {
            if reaches(b).contains(a) {
                found.push((a.clone(), b.clone()));
            }
        }
    }
    found
}

fn crate_uses(src: &str) -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(src);
    let mut files = Vec::new();
    sources(&src, &src, &mut files);
    dependencies(&files)
}

#[test]
fn no_module_of_any_crate_imports_one_that_imports_it_back() {
    let mut all = BTreeMap::new();
    for src in CRATES {
        let uses = crate_uses(src);
        assert!(!uses.is_empty(), "{src}");
        all.insert(src, circles(&uses));
    }
    // The walk sees the modules it is meant to.
    let cli = crate_uses("cargo-isobench/src");
    assert!(cli["pipeline::job"].contains("pipeline::sink"), "{cli:?}");
    assert!(cli["input::lines"].contains("input::items"), "{cli:?}");
    // The circles left, each through a parent module and its children: in the command
    // line, `cli` names `keywords::value_enum` in its structs' serde attributes while
    // `keywords` reads those structs, and `parquet::absent` calls its parent's
    // `not_built`; in the core, `schema::walk`, `table::adapter` and the `timing`
    // modules use what their parent defines. The list only shrinks: a new circle fails
    // here, and so does one of these gone.
    let left = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
        (pairs.iter())
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect()
    };
    for (src, found) in all {
        let expected = match src {
            "cargo-isobench/src" => left(&[("cli", "keywords"), ("parquet", "parquet::absent")]),
            "isobench-core/src" => left(&[
                ("schema", "schema::walk"),
                ("table", "table::adapter"),
                ("timing", "timing::layout"),
                ("timing", "timing::metrics"),
                ("timing", "timing::stats"),
                ("timing::layout", "timing::metrics"),
                ("timing::layout", "timing::stats"),
                ("timing::metrics", "timing::stats"),
            ]),
            _ => Vec::new(),
        };
        assert_eq!(found, expected, "{src}");
    }
}

#[test]
fn a_circle_is_found_through_children_parents_and_re_exports_but_not_comments() {
    let file = |module: &str, text: &str| Source {
        module: module
            .split("::")
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect(),
        text: text.to_owned(),
    };
    let files = vec![
        file("", "mod a;\nmod b;\n"),
        file("a", "mod items;\nmod reader;\npub use items::Thing;\n"),
        file("a::items", "use crate::b::x;\n"),
        file("a::reader", "use super::Thing;\n"),
        file(
            "b",
            "// crate::a\nfn f() {}\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n",
        ),
    ];
    let uses = dependencies(&files);
    assert!(uses["a::reader"].contains("a::items"), "{uses:?}");
    assert_eq!(circles(&uses), []);
    let mut files = files;
    files[4] = file("b", "fn f() {\n    super::a::reader::g();\n}\n");
    assert_eq!(
        circles(&dependencies(&files)),
        [
            ("a::items".to_owned(), "a::reader".to_owned()),
            ("a::items".to_owned(), "b".to_owned()),
            ("a::reader".to_owned(), "b".to_owned())
        ]
    );
}
