//! The `diff` attribute of a path, read as git reads it from the `.gitattributes` files of
//! the commit being mined (the root's and those of each directory above the path, a deeper
//! file and a later line winning) and from the repository's `info/attributes`, which wins
//! over both.

use std::collections::HashMap;
use std::path::Path;

use git2::{ObjectType, Tree};

/// What the `diff` attribute says of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffAttr {
    /// Not set by any line.
    Unspecified,
    /// `diff`: a text file with the default driver.
    Set,
    /// `-diff` or `binary`: the file is diffed as binary.
    Unset,
    /// `diff=NAME`: the driver called `NAME`.
    Driver(String),
}

/// One line of an attributes file that says something of `diff`.
#[derive(Debug, Clone)]
struct Rule {
    pattern: Vec<u8>,
    /// The pattern holds a `/` (other than a trailing one): matched against the path from
    /// the file's directory, else against the path's last component.
    anchored: bool,
    value: DiffAttr,
}

/// The rules of one attributes file, with the directory (`""` or `dir/`) it is in.
#[derive(Debug, Clone)]
struct RuleFile {
    dir: String,
    rules: Vec<Rule>,
}

/// The attributes of the paths of one commit.
pub struct Attributes<'r> {
    tree: Tree<'r>,
    repo: &'r git2::Repository,
    /// The repository's `info/attributes` (highest priority).
    info: Option<RuleFile>,
    /// The file `core.attributesFile` names (lowest priority).
    global: Option<RuleFile>,
    /// `.gitattributes` by directory (`""` for the root, else `dir/`).
    files: HashMap<String, Option<RuleFile>>,
}

impl std::fmt::Debug for Attributes<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Attributes")
            .field("tree", &self.tree.id())
            .finish_non_exhaustive()
    }
}

impl<'r> Attributes<'r> {
    /// The attributes of the paths of `tree`.
    pub fn new(repo: &'r git2::Repository, tree: Tree<'r>) -> Self {
        let info = std::fs::read(repo.path().join("info").join("attributes"))
            .ok()
            .map(|text| parse(&text, ""));
        let global = repo
            .config()
            .and_then(|c| c.get_path("core.attributesFile"))
            .ok()
            .and_then(|path| crate::small_file::read(&path).ok())
            .map(|text| parse(&text, ""));
        Self {
            tree,
            repo,
            info,
            global,
            files: HashMap::new(),
        }
    }

    /// The `diff` attribute of `path` (a path from the root, `/`-separated).
    pub fn diff(&mut self, path: &str) -> DiffAttr {
        if let Some(value) = self.info.as_ref().and_then(|f| f.lookup(path)) {
            return value;
        }
        let mut dirs = vec![String::new()];
        let mut end = 0;
        while let Some(i) = path[end..].find('/') {
            end += i + 1;
            dirs.push(path[..end].to_owned());
        }
        for dir in dirs.iter().rev() {
            if !self.files.contains_key(dir) {
                let file = self.read(dir);
                self.files.insert(dir.clone(), file);
            }
            if let Some(value) = self.files[dir].as_ref().and_then(|f| f.lookup(path)) {
                return value;
            }
        }
        self.global
            .as_ref()
            .and_then(|f| f.lookup(path))
            .unwrap_or(DiffAttr::Unspecified)
    }

    fn read(&self, dir: &str) -> Option<RuleFile> {
        let entry = self
            .tree
            .get_path(Path::new(&format!("{dir}.gitattributes")))
            .ok()?;
        if entry.kind() != Some(ObjectType::Blob) {
            return None;
        }
        let blob = self.repo.find_blob(entry.id()).ok()?;
        Some(parse(blob.content(), dir))
    }
}

impl RuleFile {
    /// The value the last matching line gives `path`, if a line matches.
    fn lookup(&self, path: &str) -> Option<DiffAttr> {
        let relative = path.strip_prefix(self.dir.as_str())?.as_bytes();
        let name = relative.rsplit(|&b| b == b'/').next().unwrap_or(relative);
        self.rules.iter().rev().find_map(|rule| {
            let subject = if rule.anchored { relative } else { name };
            wildmatch(&rule.pattern, subject, rule.anchored).then(|| rule.value.clone())
        })
    }
}

/// The lines of an attributes file that set, unset or name `diff`.
fn parse(text: &[u8], dir: &str) -> RuleFile {
    let mut rules = Vec::new();
    for line in text.split(|&b| b == b'\n') {
        let line = String::from_utf8_lossy(line);
        let line = line.trim_start_matches([' ', '\t']);
        if line.is_empty() || line.starts_with('#') || line.starts_with("[attr]") {
            continue;
        }
        let (pattern, rest) = split_pattern(line);
        // A negative pattern is refused by git; one naming a directory never names a file.
        if pattern.is_empty() || pattern.starts_with(b"!") || pattern.ends_with(b"/") {
            continue;
        }
        let mut value = None;
        for attr in rest.split([' ', '\t', '\r']).filter(|a| !a.is_empty()) {
            match attr {
                "diff" => value = Some(DiffAttr::Set),
                "-diff" | "binary" => value = Some(DiffAttr::Unset),
                "!diff" => value = Some(DiffAttr::Unspecified),
                _ => {
                    if let Some(name) = attr.strip_prefix("diff=") {
                        value = Some(DiffAttr::Driver(name.to_owned()));
                    }
                }
            }
        }
        let Some(value) = value else { continue };
        let (anchored, pattern) = match pattern.strip_prefix(b"/") {
            Some(rest) => (true, rest.to_vec()),
            None => (pattern.contains(&b'/'), pattern),
        };
        rules.push(Rule {
            pattern,
            anchored,
            value,
        });
    }
    RuleFile {
        dir: dir.to_owned(),
        rules,
    }
}

/// The pattern of a line (a `"..."` one unquoted) and the rest.
fn split_pattern(line: &str) -> (Vec<u8>, &str) {
    if let Some(quoted) = line.strip_prefix('"') {
        let mut out = Vec::new();
        let bytes = quoted.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'"' => return (out, &quoted[i + 1..]),
                b'\\' if i + 1 < bytes.len() => {
                    i += 1;
                    let octal = bytes[i..]
                        .iter()
                        .take(3)
                        .take_while(|b| (b'0'..=b'7').contains(b));
                    if octal.clone().count() == 3 {
                        let v = octal.fold(0u32, |v, d| v * 8 + u32::from(d - b'0'));
                        out.push(u8::try_from(v & 0xff).expect("masked to a byte"));
                        i += 3;
                        continue;
                    }
                    out.push(match bytes[i] {
                        b'n' => b'\n',
                        b't' => b'\t',
                        other => other,
                    });
                }
                other => out.push(other),
            }
            i += 1;
        }
        return (Vec::new(), "");
    }
    let end = line.find([' ', '\t']).unwrap_or(line.len());
    (line.as_bytes()[..end].to_vec(), &line[end..])
}

/// git's wildcard match: `?`, `*`, `[...]` and `\` escapes; with `pathname`, `*` and `?`
/// do not match `/` and `**` between slashes matches any number of directories.
fn wildmatch(pattern: &[u8], text: &[u8], pathname: bool) -> bool {
    let Some((&p, rest)) = pattern.split_first() else {
        return text.is_empty();
    };
    match p {
        b'*' => {
            let double = rest.first() == Some(&b'*');
            if pathname && double {
                let after = &rest[1..];
                // `**/` matches no directory or any number of them; a trailing `**`
                // matches everything.
                if after.is_empty() {
                    return true;
                }
                if let Some(after_slash) = after.strip_prefix(b"/") {
                    if wildmatch(after_slash, text, pathname) {
                        return true;
                    }
                    return text.iter().enumerate().any(|(i, &b)| {
                        b == b'/' && wildmatch(after_slash, &text[i + 1..], pathname)
                    });
                }
            }
            let rest = if double { &rest[1..] } else { rest };
            let any_slash = !pathname || double;
            for i in 0..=text.len() {
                if wildmatch(rest, &text[i..], pathname) {
                    return true;
                }
                if i < text.len() && text[i] == b'/' && !any_slash {
                    return false;
                }
            }
            false
        }
        b'?' => match text.split_first() {
            Some((&t, text_rest)) if !(pathname && t == b'/') => {
                wildmatch(rest, text_rest, pathname)
            }
            _ => false,
        },
        b'[' => {
            let Some((&t, text_rest)) = text.split_first() else {
                return false;
            };
            match class(rest, t) {
                Some((matched, after)) => {
                    matched && !(pathname && t == b'/') && wildmatch(after, text_rest, pathname)
                }
                // An unclosed `[` is a literal.
                None => t == b'[' && wildmatch(rest, text_rest, pathname),
            }
        }
        b'\\' if !rest.is_empty() => {
            text.first() == Some(&rest[0]) && wildmatch(&rest[1..], &text[1..], pathname)
        }
        _ => text.first() == Some(&p) && wildmatch(rest, &text[1..], pathname),
    }
}

/// Whether byte `t` is in the class that starts at `pattern` (after its `[`), and the
/// pattern after the class's `]`; `None` when the class is not closed.
fn class(pattern: &[u8], t: u8) -> Option<(bool, &[u8])> {
    let (negated, mut i) = match pattern.first() {
        Some(b'!' | b'^') => (true, 1),
        _ => (false, 0),
    };
    let mut matched = false;
    let mut first = true;
    loop {
        let &c = pattern.get(i)?;
        if c == b']' && !first {
            return Some((matched != negated, &pattern[i + 1..]));
        }
        first = false;
        let c = if c == b'\\' {
            i += 1;
            *pattern.get(i)?
        } else {
            c
        };
        if pattern.get(i + 1) == Some(&b'-') && pattern.get(i + 2).is_some_and(|&e| e != b']') {
            let end = pattern[i + 2];
            matched |= (c..=end).contains(&t);
            i += 3;
        } else {
            matched |= c == t;
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_match_as_git_matches_them() {
        assert!(wildmatch(b"*.py", b"a.py", false));
        assert!(wildmatch(b"*.py", b"dir/a.py", false));
        assert!(!wildmatch(b"*.py", b"dir/a.py", true));
        assert!(wildmatch(b"docs/**", b"docs/a/b.md", true));
        assert!(wildmatch(b"**/x.py", b"x.py", true));
        assert!(wildmatch(b"a/**/x.py", b"a/b/c/x.py", true));
        assert!(wildmatch(b"[a-c]?.txt", b"bx.txt", false));
        assert!(!wildmatch(b"[!a-c]?.txt", b"bx.txt", false));
    }

    #[test]
    fn a_later_line_and_a_named_driver_win() {
        let file = parse(
            b"*.py diff=python\n# note\nsetup.py -diff\n*.dat binary\n",
            "",
        );
        assert_eq!(
            file.lookup("pkg/a.py"),
            Some(DiffAttr::Driver("python".into()))
        );
        assert_eq!(file.lookup("setup.py"), Some(DiffAttr::Unset));
        assert_eq!(file.lookup("x/y.dat"), Some(DiffAttr::Unset));
        assert_eq!(file.lookup("README"), None);
        let nested = parse(b"/only.py diff\n", "sub/");
        assert_eq!(nested.lookup("sub/only.py"), Some(DiffAttr::Set));
        assert_eq!(nested.lookup("sub/x/only.py"), None);
        assert_eq!(nested.lookup("only.py"), None);
    }
}
