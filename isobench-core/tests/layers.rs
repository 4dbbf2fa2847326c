//! The modules of `isobench-core` form layers: no module reaches, through `crate::`
//! paths (in its code or its tests, not its comments), a module that reaches it back.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each top-level module of the sources under `src` with the modules it names by a
/// `crate::` path; a name `lib.rs` re-exports counts as the module it comes from.
fn dependencies(files: &[(String, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let mut reexported = BTreeMap::new();
    if let Some((_, lib)) = files.iter().find(|(module, _)| module == "lib") {
        for line in lib.lines() {
            let Some(rest) = line.trim().strip_prefix("pub use ") else {
                continue;
            };
            let Some((module, names)) = rest.trim_end_matches(';').split_once("::") else {
                continue;
            };
            for name in names.trim_matches(['{', '}']).split(',') {
                reexported.insert(name.trim().to_owned(), module.to_owned());
            }
        }
    }
    let mut uses: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, text) in files.iter().filter(|(module, _)| module != "lib") {
        let named = uses.entry(module.clone()).or_default();
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            for (at, _) in line.match_indices("crate::") {
                let name: String = line[at + "crate::".len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                let name = reexported.get(&name).cloned().unwrap_or(name);
                if name != *module {
                    named.insert(name);
                }
            }
        }
    }
    let modules: BTreeSet<String> = uses.keys().cloned().collect();
    for named in uses.values_mut() {
        named.retain(|m| modules.contains(m));
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

/// Every `.rs` file under `dir`, by the top-level module it belongs to.
fn sources(src: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).expect("the sources") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            sources(src, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path.strip_prefix(src).expect("under src");
            let top = relative
                .components()
                .next()
                .expect("a name")
                .as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_owned();
            out.push((top, std::fs::read_to_string(&path).expect("UTF-8 source")));
        }
    }
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &src, &mut files);
    let uses = dependencies(&files);
    assert!(uses.len() > 10, "{uses:?}");
    assert!(uses["table"].contains("adapter"), "{uses:?}");
    assert_eq!(circles(&uses), []);
}

#[test]
fn a_circle_is_found_through_paths_and_re_exports_but_not_comments() {
    let file = |module: &str, text: &str| (module.to_owned(), text.to_owned());
    let files = [
        file("lib", "pub use c::{Thing, Other};\n"),
        file("a", "use crate::b::x;\n"),
        file("b", "fn f() -> crate::Thing { todo() }\n"),
        file("c", "/// See [`crate::a`].\nuse crate::error::E;\n"),
        file("error", ""),
    ];
    let uses = dependencies(&files);
    assert_eq!(circles(&uses), []);
    let mut files = files.to_vec();
    files.push(file("d", ""));
    files[3] = file("c", "// crate::d\nfn g() { crate::a::x() }\n");
    assert_eq!(
        circles(&dependencies(&files)),
        [
            ("a".to_owned(), "b".to_owned()),
            ("a".to_owned(), "c".to_owned()),
            ("b".to_owned(), "c".to_owned())
        ]
    );
}
