//! Unified diffs as `git diff` writes them: parsing, exact reversal and splitting by
//! file.
//!
//! SWE-smith and SWE-MiniSandbox store the *bug-introducing* diff, while the canonical
//! record's `patch` is the fix, i.e. its reverse. [`reverse`](fn@reverse) is a real unified-diff
//! reversal that works byte for byte: whatever it does not need to change (line
//! endings, CRLF content, section text after `@@ ... @@`, quoting, text before the
//! first file or after the last hunk) comes out as it went in. It is an involution,
//! `reverse(reverse(d)) == d`. On `git diff A B` output it gives exactly what
//! `git diff B A` gives (`git diff -R` differs only in that it moves the `a/`/`b/`
//! prefixes along with the sides, `--- b/x`; here `a/` stays on the old side).
//!
//! Hunk line counts are checked against their headers, so a truncated patch is an error
//! rather than a silently wrong reversal.
//!
//! ```
//! use isobench_core::diff;
//!
//! let bug = "diff --git a/f.py b/f.py\n\
//!            --- a/f.py\n\
//!            +++ b/f.py\n\
//!            @@ -1,2 +1,2 @@\n \
//!             def f():\n\
//!            -    return 1\n\
//!            +    return 2\n";
//! let fix = diff::reverse(bug)?;
//! assert_eq!(
//!     fix,
//!     "diff --git a/f.py b/f.py\n\
//!      --- a/f.py\n\
//!      +++ b/f.py\n\
//!      @@ -1,2 +1,2 @@\n \
//!       def f():\n\
//!      -    return 2\n\
//!      +    return 1\n"
//! );
//! assert_eq!(diff::reverse(&fix)?, bug);
//! # Ok::<(), diff::DiffError>(())
//! ```

mod parse;
mod paths;
mod raw;
mod reverse;
mod split;

use std::fmt;
use std::ops::Range;

/// Which side of a hunk a line count refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HunkSide {
    /// The old side (the pre-image: context and `-` lines).
    Old,
    /// The new side (the post-image: context and `+` lines).
    New,
}

impl fmt::Display for HunkSide {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Old => "old",
            Self::New => "new",
        })
    }
}

/// Why a diff could not be parsed or reversed. Every variant names the 1-based line of
/// the diff where the problem is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DiffError {
    /// A line starting with `@@` is not a `@@ -l[,s] +l[,s] @@` hunk header.
    #[error("line {line}: hunk header `{header}` is malformed")]
    MalformedHunkHeader {
        /// The header's line.
        line: usize,
        /// The header line (without its line ending).
        header: String,
    },
    /// The hunk ended (next file, unrelated text or end of input) before it had as many
    /// lines as its header says, e.g. because the patch was truncated.
    #[error("line {line}: hunk says {expected} {side} lines but {found} were found")]
    HunkTooShort {
        /// The hunk header's line.
        line: usize,
        /// The side that is short.
        side: HunkSide,
        /// The count in the header.
        expected: usize,
        /// The number of lines actually present.
        found: usize,
    },
    /// A hunk has more lines than its header says.
    #[error(
        "line {line}: hunk starting at line {header_line} says {expected} {side} lines but more were found"
    )]
    HunkTooLong {
        /// The first line beyond the header's count.
        line: usize,
        /// The hunk header's line.
        header_line: usize,
        /// The side that is too long.
        side: HunkSide,
        /// The count in the header.
        expected: usize,
    },
    /// A `\ No newline at end of file` marker that does not follow a diff line.
    #[error("line {line}: `\\ No newline at end of file` marker does not follow a diff line")]
    OrphanMarker {
        /// The marker's line.
        line: usize,
    },
    /// A hunk header that is not preceded by a `---`/`+++` pair of its file.
    #[error("line {line}: hunk header outside of a file diff (no `---`/`+++` lines before it)")]
    HunkOutsideFile {
        /// The header's line.
        line: usize,
    },
    /// A `--- ` file header line without the `+++ ` line that must follow it.
    #[error("line {line}: `---` line is not followed by a `+++` line")]
    MissingPlusLine {
        /// The `---` line.
        line: usize,
    },
    /// An extended header line (`index`, `old mode`, ...) that cannot be understood.
    #[error("line {line}: header line `{text}` is malformed: {reason}")]
    MalformedHeader {
        /// The header line's number.
        line: usize,
        /// The header line (without its line ending).
        text: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A `diff --git` or `Binary files` line whose two paths cannot be told apart
    /// (unquoted paths with spaces, different names and no other header naming them).
    #[error("line {line}: cannot tell the two paths apart in `{text}`")]
    AmbiguousPaths {
        /// The line's number.
        line: usize,
        /// The line (without its line ending).
        text: String,
    },
    /// A `GIT binary patch` block: reversing a literal/delta binary patch needs the blobs.
    #[error("line {line}: binary patch for `{path}` cannot be reversed without the blobs")]
    BinaryPatch {
        /// The `GIT binary patch` line.
        line: usize,
        /// The file's path.
        path: String,
    },
    /// A combined diff (`diff --cc`, `diff --combined`) of a merge commit.
    #[error("line {line}: combined diff `{text}` (of a merge) is not supported")]
    CombinedDiff {
        /// The `diff --cc` line.
        line: usize,
        /// The line (without its line ending).
        text: String,
    },
}

/// A parsed diff: the text before the first file and one [`FileDiff`] per file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Patch {
    /// Text before the first file's header (e.g. a commit message), verbatim.
    pub preamble: String,
    /// The files, in the diff's order.
    pub files: Vec<FileDiff>,
}

impl Patch {
    /// The path of every file ([`FileDiff::path`]), in the diff's order.
    pub fn paths(&self) -> Vec<&str> {
        self.files.iter().filter_map(FileDiff::path).collect()
    }
}

/// One file's section of a diff.
///
/// Paths are given without their `a/` / `b/` prefix (the first path component is
/// dropped, as `git apply -p1` does) and with git's C-style quoting undone.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(
    clippy::struct_excessive_bools,
    reason = "these flags are independent facts about a file diff"
)]
pub struct FileDiff {
    /// The old path; `None` when the file is created (`/dev/null`).
    pub old_path: Option<String>,
    /// The new path; `None` when the file is deleted (`/dev/null`).
    pub new_path: Option<String>,
    /// The file is created (`new file mode`, or `--- /dev/null`).
    pub is_new: bool,
    /// The file is deleted (`deleted file mode`, or `+++ /dev/null`).
    pub is_deleted: bool,
    /// The file is renamed (`rename from` / `rename to`).
    pub is_rename: bool,
    /// The file is copied (`copy from` / `copy to`).
    pub is_copy: bool,
    /// The file is binary (`Binary files ... differ` or `GIT binary patch`).
    pub is_binary: bool,
    /// The old mode (`old mode`, `deleted file mode` or the mode on the `index` line).
    pub old_mode: Option<String>,
    /// The new mode (`new mode`, `new file mode` or the mode on the `index` line).
    pub new_mode: Option<String>,
    /// The hunks, in order.
    pub hunks: Vec<Hunk>,
    /// The 1-based line of the diff where this file's section starts.
    pub line: usize,
    /// The byte range of this file's section in the parsed diff: from its `diff --git`
    /// line (or `---` line for a plain unified diff) up to the next file's.
    pub range: Range<usize>,
    text: String,
}

impl FileDiff {
    /// This file's exact section of the original diff (see [`FileDiff::range`]),
    /// including any text between its last hunk and the next file.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The new path, or the old path if the file is deleted.
    pub fn path(&self) -> Option<&str> {
        self.new_path.as_deref().or(self.old_path.as_deref())
    }
}

/// One hunk: `@@ -old_start,old_len +new_start,new_len @@ section`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    /// First line of the old range (an omitted count means 1).
    pub old_start: usize,
    /// Number of old-side lines (context and removed).
    pub old_len: usize,
    /// First line of the new range.
    pub new_start: usize,
    /// Number of new-side lines (context and added).
    pub new_len: usize,
    /// The section text after the second `@@` (usually the enclosing function), without
    /// the separating space and line ending; empty if none.
    pub section: String,
    /// The 1-based line of the diff holding the hunk header.
    pub line: usize,
    /// The hunk's lines, in order.
    pub lines: Vec<HunkLine>,
}

/// What a line inside a hunk is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LineKind {
    /// A context line (` `, or an empty line some tools write for an empty context line).
    Context,
    /// A removed line (`-`).
    Removed,
    /// An added line (`+`).
    Added,
}

/// One line of a hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HunkLine {
    /// Context, removed or added.
    pub kind: LineKind,
    /// The line's text after its one-character prefix, without the diff's `\n`; a `\r`
    /// of CRLF content is kept.
    pub content: String,
    /// The line is followed by `\ No newline at end of file`.
    pub no_newline_at_eof: bool,
}

/// Parses a diff in git's format (plain unified diffs with `---`/`+++` headers are
/// accepted too).
///
/// Text before the first file is kept in [`Patch::preamble`]; text after a file's last
/// hunk belongs to that file's [`FileDiff::text`].
pub fn parse(diff: &str) -> Result<Patch, DiffError> {
    parse::patch(diff)
}

/// Reverses a diff: applying the result undoes the input (what `git apply -R` does).
///
/// Within hunks, `-` and `+` swap and each run of changes is reordered so that its
/// removed lines come before its added lines (git's convention); a
/// `\ No newline at end of file` marker moves with the line it follows. Hunk ranges
/// swap (each keeping its own form, e.g. an omitted `,1`), as do the `---`/`+++` paths
/// (`a/`/`b/` prefixes stay on their sides, `/dev/null` moves), the two paths of
/// `diff --git` and `Binary files ... differ`, `new file mode`/`deleted file mode`, the
/// values of `old mode`/`new mode`, `rename from`/`rename to` and `copy from`/`copy to`,
/// and the hashes of `index`. Everything else is kept byte for byte, and
/// `reverse(reverse(d)) == d`.
///
/// A run of changes that is not in git's order (`-a +b -c +d`) is reversed block by
/// block (`-b +a -d +c`); one that starts with `+` or ends with `-` is mirrored, so the
/// reversal stays an involution for any input.
///
/// # Errors
///
/// Malformed or truncated hunks, `GIT binary patch` blocks (the blobs would be needed),
/// combined diffs, and paths that cannot be told apart.
pub fn reverse(diff: &str) -> Result<String, DiffError> {
    reverse::diff(diff)
}

/// Splits a whole-commit diff into `(selected, rest)` by file path.
///
/// A file goes to `selected` when `is_selected` accepts its old or its new path (so a
/// rename counts if either side does). Each part is the concatenation of its files'
/// exact sections ([`FileDiff::text`]) in the original order; text before the first
/// file is in neither part.
pub fn split_files<F: Fn(&str) -> bool>(
    diff: &str,
    is_selected: F,
) -> Result<(String, String), DiffError> {
    split::files(diff, is_selected)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_diff() {
        assert_eq!(reverse("").unwrap(), "");
        let p = parse("").unwrap();
        assert!(p.files.is_empty());
        assert_eq!(
            split_files("", |_| true).unwrap(),
            (String::new(), String::new())
        );
    }

    #[test]
    fn errors_name_the_line() {
        let head = "diff --git a/f b/f\n--- a/f\n+++ b/f\n";
        let err = |d: &str| reverse(d).unwrap_err().to_string();
        assert_eq!(
            err(&format!("{head}@@ -1,3 +1,4\n a\n")),
            "line 4: hunk header `@@ -1,3 +1,4` is malformed"
        );
        assert_eq!(
            err(&format!("{head}@@ -1,3 +1,3 @@\n a\n-b\n+c\n")),
            "line 4: hunk says 3 old lines but 2 were found"
        );
        assert_eq!(
            err(&format!(
                "{head}@@ -1,2 +1,3 @@\n a\n-b\n+c\ndiff --git a/g b/g\n"
            )),
            "line 4: hunk says 3 new lines but 2 were found"
        );
        assert_eq!(
            err(&format!("{head}@@ -1,2 +1,2 @@\n a\n-b\n+c\n d\n")),
            "line 8: hunk starting at line 4 says 2 old lines but more were found"
        );
        assert_eq!(
            err(&format!("{head}@@ -1 +1 @@\n-b\n+c\n+d\n")),
            "line 7: hunk starting at line 4 says 1 new lines but more were found"
        );
        assert_eq!(
            err(&format!(
                "{head}@@ -1 +1 @@\n\\ No newline at end of file\n-b\n+c\n"
            )),
            "line 5: `\\ No newline at end of file` marker does not follow a diff line"
        );
        assert_eq!(
            err(&format!(
                "{head}@@ -1 +1 @@\n-b\n+c\n\\ No newline at end of file\n\\ No newline at end of file\n"
            )),
            "line 8: `\\ No newline at end of file` marker does not follow a diff line"
        );
        assert_eq!(
            err("intro\n@@ -1 +1 @@\n-a\n+b\n"),
            "line 2: hunk header outside of a file diff (no `---`/`+++` lines before it)"
        );
        assert_eq!(
            err("diff --git a/f b/f\nindex 1..2 100644\n@@ -1 +1 @@\n-a\n+b\n"),
            "line 3: hunk header outside of a file diff (no `---`/`+++` lines before it)"
        );
        assert_eq!(
            err("diff --git a/f b/f\n--- a/f\n@@ -1 +1 @@\n"),
            "line 2: `---` line is not followed by a `+++` line"
        );
        assert_eq!(
            err("diff --cc f\nindex 1,2..3\n"),
            "line 1: combined diff `diff --cc f` (of a merge) is not supported"
        );
        assert_eq!(
            err("diff --git a/f b/f\nindex 12345\n"),
            "line 2: header line `index 12345` is malformed: expected `index <old>..<new>[ <mode>]` with hexadecimal object ids"
        );
        assert_eq!(
            err("diff --git a/f b/f\nold mode 100644\nold mode 100755\n"),
            "line 3: header line `old mode 100755` is malformed: this kind of header line appears twice for the same file"
        );
        // A truncated patch is an error for parse too.
        assert!(parse(&format!("{head}@@ -1,3 +1,3 @@\n a\n")).is_err());
    }

    // ---- real datasets ------------------------------------------------------------------

    mod real_data {
        use super::super::{parse, reverse};
        use std::path::PathBuf;

        fn shared(rel: &str) -> Option<String> {
            let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../shared/data/real")
                .join(rel);
            let text = std::fs::read_to_string(&path).ok();
            if text.is_none() {
                // CI sets it: there, a test that needs the records fails without them.
                let required = "ISOBENCH_REQUIRE_REAL_DATA";
                assert!(
                    std::env::var_os(required).is_none(),
                    "{} not present, and {required} says the real-data tests must run",
                    path.display()
                );
                eprintln!("skipped: ../shared not present ({})", path.display());
            }
            text
        }

        fn records(text: &str) -> Vec<serde_json::Value> {
            text.lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| serde_json::from_str(l).unwrap())
                .collect()
        }

        #[test]
        fn swesmith_patch_reverses() {
            let Some(text) = shared("swesmith/swesmith_repo_test_fixture.jsonl") else {
                return;
            };
            let rec = &records(&text)[0];
            let p = rec["patch"].as_str().unwrap();
            let r = reverse(p).unwrap();
            assert_eq!(reverse(&r).unwrap(), p);
            assert!(p.contains("\n+        if keyarr.dtype.kind in \"mM\":\n"));
            assert!(
                r.contains("\n-        if keyarr.dtype.kind in \"mM\":\n"),
                "{r}"
            );
            assert!(
                r.contains("\n+        if lib.is_np_dtype(keyarr.dtype, \"mM\") or isinstance(\n")
            );
            assert!(
                r.contains("@@ -6069,7 +6069,9 @@ class Index(IndexOpsMixin, PandasObject):\n")
            );
            let f = &parse(&r).unwrap().files[0];
            assert_eq!(f.path(), Some("pandas/core/indexes/base.py"));
        }

        fn round_trip_all(rel: &str, expected_records: Option<usize>) {
            let Some(text) = shared(rel) else {
                return;
            };
            let recs = records(&text);
            if let Some(n) = expected_records {
                assert_eq!(recs.len(), n, "{rel}");
            }
            let mut checked = 0;
            for rec in &recs {
                for field in ["patch", "test_patch"] {
                    let Some(p) = rec[field].as_str() else {
                        continue;
                    };
                    let id = &rec["instance_id"];
                    let r = reverse(p).unwrap_or_else(|e| panic!("{id} {field}: {e}"));
                    assert_eq!(reverse(&r).unwrap(), p, "{id} {field}");
                    let fwd = parse(p).unwrap();
                    let back = parse(&r).unwrap();
                    assert_eq!(fwd.files.len(), back.files.len());
                    assert!(!fwd.files.is_empty(), "{id} {field}: no files");
                    checked += 1;
                }
            }
            assert!(checked > 0);
        }

        #[test]
        fn swebench_verified_round_trips() {
            round_trip_all("swebench-verified/swebench_verified_test.jsonl", Some(350));
        }

        #[test]
        fn swebench_lite_round_trips() {
            round_trip_all("swebench-lite/swebench_lite_test.jsonl", None);
        }
    }

    // ---- generated diffs ------------------------------------------------------------------

    mod generated {
        use super::super::{LineKind, parse, reverse};
        use proptest::prelude::*;
        use std::fmt::Write as _;

        /// A generated hunk line: kind 0 context, 1 removed, 2 added, 3 empty context
        /// written as an empty line; content; CRLF; followed by a no-newline marker.
        type GenLine = (u8, String, bool, bool);

        #[derive(Debug, Clone)]
        struct GenHunk {
            lines: Vec<GenLine>,
            old_start: usize,
            new_start: usize,
            omit_one: bool,
            section: Option<String>,
        }

        #[derive(Debug, Clone)]
        struct GenFile {
            kind: u8,
            old: (String, bool),
            new: (String, bool),
            hunks: Vec<GenHunk>,
            trailing_blank: bool,
        }

        fn gen_line() -> impl Strategy<Value = GenLine> {
            (
                0u8..4,
                "[a-z +@\\\\\\-é]{0,6}",
                any::<bool>(),
                prop::bool::weighted(0.1),
            )
        }

        fn gen_hunk() -> impl Strategy<Value = GenHunk> {
            (
                prop::collection::vec(gen_line(), 1..10),
                0usize..500,
                0usize..500,
                any::<bool>(),
                prop::option::of("[a-z():]{1,10}"),
            )
                .prop_map(|(lines, old_start, new_start, omit_one, section)| GenHunk {
                    lines,
                    old_start,
                    new_start,
                    omit_one,
                    section,
                })
        }

        fn gen_path() -> impl Strategy<Value = (String, bool)> {
            prop_oneof![
                "[a-z]{1,5}(/[a-z_]{1,6}){0,2}\\.py".prop_map(|p| (p, false)),
                "[a-z]{1,4} [a-z]{1,4}\\.txt".prop_map(|p| (p, false)),
                "t\\\\303\\\\251[a-z]{1,3}( x)?".prop_map(|p| (p, true)),
            ]
        }

        fn gen_file() -> impl Strategy<Value = GenFile> {
            (
                0u8..8,
                gen_path(),
                gen_path(),
                prop::collection::vec(gen_hunk(), 1..4),
                any::<bool>(),
            )
                .prop_map(|(kind, old, new, hunks, trailing_blank)| GenFile {
                    kind,
                    old,
                    new,
                    hunks,
                    trailing_blank,
                })
        }

        fn token(prefix: &str, (path, quoted): &(String, bool)) -> String {
            if *quoted {
                format!("\"{prefix}{path}\"")
            } else {
                format!("{prefix}{path}")
            }
        }

        fn label(prefix: &str, path: &(String, bool)) -> String {
            let t = token(prefix, path);
            if t.contains(' ') { format!("{t}\t") } else { t }
        }

        fn render_hunk(h: &GenHunk, out: &mut String) {
            let old_len = h.lines.iter().filter(|l| l.0 != 2).count();
            let new_len = h.lines.iter().filter(|l| l.0 != 1).count();
            let range = |start: usize, len: usize| {
                if len == 1 && h.omit_one {
                    format!("{start}")
                } else {
                    format!("{start},{len}")
                }
            };
            let section = h
                .section
                .as_ref()
                .map(|s| format!(" {s}"))
                .unwrap_or_default();
            writeln!(
                out,
                "@@ -{} +{} @@{section}",
                range(h.old_start, old_len),
                range(h.new_start, new_len)
            )
            .unwrap();
            for (kind, content, crlf, marker) in &h.lines {
                let cr = if *crlf { "\r" } else { "" };
                match kind {
                    0 => writeln!(out, " {content}{cr}").unwrap(),
                    1 => writeln!(out, "-{content}{cr}").unwrap(),
                    2 => writeln!(out, "+{content}{cr}").unwrap(),
                    _ => out.push('\n'),
                }
                if *marker {
                    out.push_str("\\ No newline at end of file\n");
                }
            }
        }

        fn render(preamble: bool, files: &[GenFile], trailer: bool) -> String {
            let mut out = String::new();
            if preamble {
                out.push_str("Subject: [PATCH] generated\n\n");
            }
            let mut previous_kind = None;
            for f in files {
                // A plain `---`/`+++` diff right after a git section without hunks would
                // (rightly) be read as that section's own file header; write a git one.
                let kind = if f.kind == 6 && previous_kind == Some(7) {
                    0
                } else {
                    f.kind
                };
                previous_kind = Some(kind);
                let (old, new) = (&f.old, &f.new);
                let same = kind != 3;
                let new = if same { old } else { new };
                if kind != 6 {
                    writeln!(out, "diff --git {} {}", token("a/", old), token("b/", new)).unwrap();
                }
                let mut with_hunks = true;
                let (mut minus, mut plus) = (label("a/", old), label("b/", new));
                match kind {
                    1 => {
                        out.push_str("new file mode 100644\nindex 0000000..1a2b3c4\n");
                        minus = "/dev/null".into();
                    }
                    2 => {
                        out.push_str("deleted file mode 100755\nindex 1a2b3c4..0000000\n");
                        plus = "/dev/null".into();
                    }
                    3 => {
                        out.push_str("similarity index 87%\n");
                        writeln!(out, "rename from {}", token("", old)).unwrap();
                        writeln!(out, "rename to {}", token("", new)).unwrap();
                        out.push_str("index 1111111..2222222 100644\n");
                    }
                    4 => out.push_str("old mode 100644\nnew mode 100755\nindex abcdef0..0fedcba\n"),
                    5 => {
                        out.push_str("index 1234567..89abcde 100644\n");
                        let (a, b) = (token("a/", old), token("b/", new));
                        writeln!(out, "Binary files {a} and {b} differ").unwrap();
                        with_hunks = false;
                    }
                    7 => {
                        out.push_str("old mode 100755\nnew mode 100644\n");
                        with_hunks = false;
                    }
                    _ => out.push_str("index 7654321..1234567 100644\n"),
                }
                if with_hunks {
                    writeln!(out, "--- {minus}\n+++ {plus}").unwrap();
                    for h in &f.hunks {
                        render_hunk(h, &mut out);
                    }
                    if f.trailing_blank {
                        out.push('\n');
                    }
                }
            }
            if trailer {
                out.push_str("-- \n2.40.0\n");
            }
            out
        }

        /// One side of a hunk: each line's content and no-newline flag.
        type Image = Vec<(String, bool)>;

        /// The (old image, new image) of a parsed hunk.
        fn images(h: &super::super::Hunk) -> (Image, Image) {
            let side = |skip: LineKind| {
                h.lines
                    .iter()
                    .filter(|l| l.kind != skip)
                    .map(|l| (l.content.clone(), l.no_newline_at_eof))
                    .collect()
            };
            (side(LineKind::Added), side(LineKind::Removed))
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]

            #[test]
            fn reverse_is_an_involution(
                preamble in any::<bool>(),
                files in prop::collection::vec(gen_file(), 1..4),
                trailer in any::<bool>(),
            ) {
                let d = render(preamble, &files, trailer);
                let p = parse(&d).map_err(|e| TestCaseError::fail(format!("{e}\n{d}")))?;
                prop_assert_eq!(p.files.len(), files.len());
                let r = reverse(&d).map_err(|e| TestCaseError::fail(format!("{e}\n{d}")))?;
                prop_assert_eq!(&reverse(&r).unwrap(), &d);
                // The reversal really is the inverse: every hunk's images swap.
                let q = parse(&r).unwrap();
                prop_assert_eq!(q.files.len(), p.files.len());
                for (f, g) in p.files.iter().zip(&q.files) {
                    prop_assert_eq!(&f.old_path, &g.new_path);
                    prop_assert_eq!(&f.new_path, &g.old_path);
                    prop_assert_eq!((f.is_new, f.is_deleted), (g.is_deleted, g.is_new));
                    prop_assert_eq!(f.hunks.len(), g.hunks.len());
                    for (h, k) in f.hunks.iter().zip(&g.hunks) {
                        prop_assert_eq!((h.old_start, h.old_len), (k.new_start, k.new_len));
                        prop_assert_eq!((h.new_start, h.new_len), (k.old_start, k.old_len));
                        prop_assert_eq!(&h.section, &k.section);
                        let (old, new) = images(h);
                        let (old_r, new_r) = images(k);
                        prop_assert_eq!(old, new_r);
                        prop_assert_eq!(new, old_r);
                    }
                }
            }
        }
    }
}
