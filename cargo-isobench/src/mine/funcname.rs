//! The function context of a hunk header (`@@ -3,5 +3,5 @@ class A:`), found as git finds
//! it: the nearest line above the hunk, in the old file, that the file's diff driver takes
//! for a function line, cut to 80 bytes, with trailing white space trimmed; and the header
//! line then cut before the first byte that is not part of valid UTF-8.
//!
//! A driver is git's default (a line starting with a letter, `_` or `$`), one of git's
//! built-in language drivers, or an `xfuncname` pattern from the repository's configuration.

use std::sync::{Arc, OnceLock};

use regex::bytes::{Regex, RegexBuilder};

/// How many bytes of a function line a hunk header keeps.
const FUNC_LINE_BYTES: usize = 80;

/// Finds function lines.
#[derive(Debug, Clone)]
pub enum Driver {
    /// git's default: a line that starts with a letter, `_` or `$`.
    Default,
    /// A list of patterns, tried in order; the first that matches decides (a negated one
    /// says the line is not a function line).
    Patterns(Arc<Patterns>),
}

/// The patterns of a driver.
#[derive(Debug)]
pub struct Patterns {
    rules: Vec<(bool, Regex)>,
}

/// The built-in drivers this module knows, by the name a `diff=NAME` attribute gives.
/// The patterns are POSIX extended expressions written for the `regex` crate; each
/// is held to `git`'s answer by `tests/mine_funcname.rs`.
const BUILT_IN: &[(&str, &str)] = &[
    ("python", "^[ \t]*((class|(async[ \t]+)?def)[ \t].*)$"),
    (
        "golang",
        "^[ \t]*(func[ \t]*.*(\\{[ \t]*)?)\n^[ \t]*(type[ \t].*(struct|interface)[ \t]*(\\{[ \t]*)?)",
    ),
    ("ruby", "^[ \t]*((class|module|def)[ \t].*)$"),
    (
        "rust",
        "^[\t ]*((pub(\\([^\\)]+\\))?[\t ]+)?((async|const|unsafe|extern([\t ]+\"[^\"]+\"))[\t ]+)?(struct|enum|union|mod|trait|fn|impl|macro_rules!)[< \t]+[^;]*)$",
    ),
];

/// The built-in driver a file's extension takes when `--language-drivers` is on and no
/// attribute names one.
const BY_EXTENSION: &[(&str, &str)] = &[
    ("py", "python"),
    ("pyi", "python"),
    ("go", "golang"),
    ("rb", "ruby"),
    ("rs", "rust"),
];

/// A pattern that does not compile.
#[derive(Debug, thiserror::Error)]
#[error("diff driver pattern `{pattern}`: {source}")]
pub struct PatternError {
    /// The pattern.
    pub pattern: String,
    /// Why it does not compile.
    pub source: regex::Error,
}

impl Patterns {
    /// Compiles an `xfuncname` value: one pattern a line, a line starting with `!` negated.
    pub fn new(xfuncname: &str) -> Result<Self, PatternError> {
        let mut rules = Vec::new();
        for line in xfuncname.split('\n') {
            let (negate, pattern) = match line.strip_prefix('!') {
                Some(rest) => (true, rest),
                None => (false, line),
            };
            let regex = RegexBuilder::new(pattern)
                .unicode(false)
                .build()
                .map_err(|source| PatternError {
                    pattern: line.to_owned(),
                    source,
                })?;
            rules.push((negate, regex));
        }
        Ok(Self { rules })
    }

    /// The function text of `line` (its newline removed), or `None`.
    fn find<'a>(&self, line: &'a [u8]) -> Option<&'a [u8]> {
        for (negate, regex) in &self.rules {
            if let Some(caps) = regex.captures(line) {
                if *negate {
                    return None;
                }
                let whole = caps.get(0).expect("a match has group 0");
                return Some(caps.get(1).unwrap_or(whole).as_bytes());
            }
        }
        None
    }
}

impl Driver {
    /// The built-in driver called `name`, if this module has it (its patterns compiled
    /// once for the process).
    pub fn built_in(name: &str) -> Option<Self> {
        static COMPILED: OnceLock<Vec<Arc<Patterns>>> = OnceLock::new();
        let compiled = COMPILED.get_or_init(|| {
            BUILT_IN
                .iter()
                .map(|(_, pattern)| {
                    Arc::new(Patterns::new(pattern).expect("the built-in patterns compile"))
                })
                .collect()
        });
        let index = BUILT_IN.iter().position(|(n, _)| *n == name)?;
        Some(Self::Patterns(Arc::clone(&compiled[index])))
    }

    /// The name of the built-in driver for `path`'s extension, if any.
    pub fn language_of(path: &str) -> Option<&'static str> {
        let name = path.rsplit('/').next().unwrap_or(path);
        let (_, ext) = name.rsplit_once('.')?;
        BY_EXTENSION
            .iter()
            .find(|(e, _)| *e == ext)
            .map(|(_, driver)| *driver)
    }

    /// The function text `line` (with its newline, if any) gives, cut to 80 bytes and
    /// trimmed, or `None` when it is not a function line.
    pub fn function_text<'a>(&self, line: &'a [u8]) -> Option<&'a [u8]> {
        let text = match self {
            Self::Default => {
                let first = *line.first()?;
                if !(first.is_ascii_alphabetic() || first == b'_' || first == b'$') {
                    return None;
                }
                line
            }
            Self::Patterns(patterns) => {
                let mut body = line.strip_suffix(b"\n").unwrap_or(line);
                if line.ends_with(b"\n") {
                    body = body.strip_suffix(b"\r").unwrap_or(body);
                }
                patterns.find(body)?
            }
        };
        let cut = &text[..text.len().min(FUNC_LINE_BYTES)];
        let end = cut
            .iter()
            .rposition(|&b| !is_c_space(b))
            .map_or(0, |i| i + 1);
        Some(&cut[..end])
    }
}

/// C's `isspace` in the C locale.
fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

/// The function contexts of one file's hunks, found in order as git finds them: each
/// search goes up from the line above the hunk to the line above the previous hunk, and
/// a hunk whose search finds nothing keeps the previous hunk's context.
#[derive(Debug)]
pub struct ContextFinder<C> {
    driver: Driver,
    old: C,
    /// Where each line of `old` starts, as far as the searches have needed, and its
    /// length as the last entry once `whole`.
    starts: Vec<usize>,
    /// Whether `starts` holds every line.
    whole: bool,
    /// Where the previous search stopped (the line above the previous hunk).
    searched_to: Option<usize>,
    current: Vec<u8>,
}

impl<C: AsRef<[u8]>> ContextFinder<C> {
    /// A finder over the old file `old` (empty for an added file).
    pub fn new(driver: Driver, old: C) -> Self {
        Self {
            driver,
            old,
            starts: vec![0],
            whole: false,
            searched_to: None,
            current: Vec::new(),
        }
    }

    /// Finds line starts until `starts` holds `n` of them or every line.
    fn find_starts(&mut self, n: usize) {
        let bytes = self.old.as_ref();
        while self.starts.len() < n && !self.whole {
            let from = *self.starts.last().expect("the first line starts at 0");
            if let Some(i) = memchr::memchr(b'\n', &bytes[from..]) {
                self.starts.push(from + i + 1);
            } else {
                if from != bytes.len() {
                    self.starts.push(bytes.len());
                }
                self.whole = true;
            }
        }
    }

    /// The context of the next hunk, whose header gives `old_start` and `old_lines`.
    pub fn next(&mut self, old_start: usize, old_lines: usize) -> &[u8] {
        // The hunk's first old line, counted from 0.
        let first = if old_lines == 0 {
            old_start
        } else {
            old_start.saturating_sub(1)
        };
        // The lines above the hunk's first are searched.
        self.find_starts(first + 1);
        let bytes = self.old.as_ref();
        let count = if self.whole {
            self.starts.len() - 1
        } else {
            usize::MAX
        };
        let stop = self.searched_to;
        let mut line = first;
        while line > 0 {
            line -= 1;
            if stop == Some(line) || line >= count {
                break;
            }
            let text = &bytes[self.starts[line]..self.starts[line + 1]];
            if let Some(found) = self.driver.function_text(text) {
                self.current.clear();
                self.current.extend_from_slice(found);
                break;
            }
        }
        self.searched_to = first.checked_sub(1);
        &self.current
    }
}

/// The hunk header git writes: `@@ -a,b +c,d @@`, a blank and the context when there is
/// one, cut before the first byte that does not begin valid UTF-8, and a newline.
pub fn hunk_header(ranges: &[u8], context: &[u8]) -> Vec<u8> {
    let mut line = Vec::with_capacity(ranges.len() + context.len() + 2);
    line.extend_from_slice(ranges);
    if !context.is_empty() {
        line.push(b' ');
        line.extend_from_slice(context);
    }
    let valid = match std::str::from_utf8(&line) {
        Ok(_) => line.len(),
        Err(e) => e.valid_up_to(),
    };
    line.truncate(valid);
    line.push(b'\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_driver_takes_a_line_that_starts_an_identifier() {
        let d = Driver::Default;
        assert_eq!(d.function_text(b"def f():  \n"), Some(&b"def f():"[..]));
        assert_eq!(d.function_text(b"  def f():\n"), None);
        assert_eq!(d.function_text(b"$x\n"), Some(&b"$x"[..]));
        assert_eq!(d.function_text(b"\n"), None);
    }

    #[test]
    fn python_takes_indented_definitions_and_group_one() {
        let d = Driver::built_in("python").expect("python");
        assert_eq!(
            d.function_text(b"    async def f(x):\r\n"),
            Some(&b"async def f(x):"[..])
        );
        assert_eq!(d.function_text(b"x = 1\n"), None);
        assert_eq!(d.function_text(b"class A:\n"), Some(&b"class A:"[..]));
    }

    #[test]
    fn a_context_is_cut_at_80_bytes_then_trimmed() {
        let mut line = vec![b'y'; 78];
        line.extend_from_slice(" \u{e9}tail\n".as_bytes());
        let text = Driver::Default
            .function_text(&line)
            .expect("a function line");
        assert_eq!(text.len(), 80);
        // The cut falls inside `é`: the header keeps the blank and drops the half.
        let header = hunk_header(b"@@ -3,4 +3,4 @@", text);
        let mut expected = b"@@ -3,4 +3,4 @@ ".to_vec();
        expected.extend_from_slice(&[b'y'; 78]);
        expected.extend_from_slice(b" \n");
        assert_eq!(header, expected);
    }

    #[test]
    fn a_latin_1_context_is_cut_at_its_first_non_utf8_byte() {
        assert_eq!(
            hunk_header(b"@@ -3 +3 @@", b"caf\xe9 fn"),
            b"@@ -3 +3 @@ caf\n"
        );
    }

    #[test]
    fn a_search_stops_at_the_previous_hunk_and_keeps_its_context() {
        let old = b"def a():\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
        let mut finder = ContextFinder::new(Driver::Default, old);
        assert_eq!(finder.next(2, 3), b"def a():");
        // Lines 1..=5 hold no function line; the previous context stays.
        assert_eq!(finder.next(8, 3), b"def a():");
        let mut finder = ContextFinder::new(Driver::Default, old);
        // The first hunk's search found nothing (it starts at line 1).
        assert_eq!(finder.next(1, 3), b"");
    }
}
