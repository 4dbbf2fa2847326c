//! Unified diffs as `git diff` writes them: parsing, exact reversal and splitting by
//! file.
//!
//! SWE-smith and SWE-MiniSandbox store the *bug-introducing* diff, while the canonical
//! record's `patch` is the fix, i.e. its reverse. [`reverse`] is a real unified-diff
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
    let raw = parse_raw(diff)?;
    let preamble_bytes = raw
        .lines
        .get(raw.preamble_end)
        .map_or(diff.len(), |l| l.start);
    let files = raw
        .files
        .iter()
        .map(|f| build_file(diff, &raw.lines, f))
        .collect();
    Ok(Patch {
        preamble: diff.get(..preamble_bytes).unwrap_or_default().to_owned(),
        files,
    })
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
    let raw = parse_raw(diff)?;
    let mut repl: Vec<Option<String>> = vec![None; raw.lines.len()];
    for file in &raw.files {
        reverse_file(&raw.lines, file, &mut repl)?;
    }
    let mut out = String::with_capacity(diff.len() + 16);
    for (line, new) in raw.lines.iter().zip(&repl) {
        out.push_str(new.as_deref().unwrap_or(line.body));
        out.push_str(line.eol);
    }
    Ok(out)
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
    let patch = parse(diff)?;
    let mut selected = String::new();
    let mut rest = String::new();
    for file in &patch.files {
        let hit = [&file.old_path, &file.new_path]
            .into_iter()
            .flatten()
            .any(|p| is_selected(p));
        if hit {
            selected.push_str(file.text());
        } else {
            rest.push_str(file.text());
        }
    }
    Ok((selected, rest))
}

// ---------------------------------------------------------------------------------------
// Lines

/// One line of the input: `body` without its `\n`, `eol` the `\n` or "" (last line).
#[derive(Debug, Clone, Copy)]
struct Line<'a> {
    body: &'a str,
    eol: &'a str,
    start: usize,
}

impl<'a> Line<'a> {
    /// The body without a trailing `\r`.
    fn content(&self) -> &'a str {
        self.body.strip_suffix('\r').unwrap_or(self.body)
    }

    /// The body's trailing `\r`, if any.
    fn cr(&self) -> &'static str {
        if self.body.ends_with('\r') { "\r" } else { "" }
    }
}

fn split_lines(s: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    for piece in s.split_inclusive('\n') {
        let (body, eol) = match piece.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (piece, ""),
        };
        out.push(Line { body, eol, start });
        start += piece.len();
    }
    out
}

// ---------------------------------------------------------------------------------------
// Raw parse: line indices of everything reversal needs

const OLD_MODE: &str = "old mode ";
const NEW_MODE: &str = "new mode ";
const DELETED_FILE: &str = "deleted file mode ";
const NEW_FILE: &str = "new file mode ";
const COPY_FROM: &str = "copy from ";
const COPY_TO: &str = "copy to ";
const RENAME_OLD: &str = "rename old ";
const RENAME_NEW: &str = "rename new ";
const RENAME_FROM: &str = "rename from ";
const RENAME_TO: &str = "rename to ";
const SIMILARITY: &str = "similarity index ";
const DISSIMILARITY: &str = "dissimilarity index ";
const INDEX: &str = "index ";
const DIFF_GIT: &str = "diff --git ";
const BINARY_FILES: &str = "Binary files ";
const GIT_BINARY: &str = "GIT binary patch";

/// A header line's index and its label (`rename from `, ...).
type LabeledLine = Option<(usize, &'static str)>;

/// Line indices of a git extended header's lines.
#[derive(Debug, Default)]
struct Headers {
    old_mode: Option<usize>,
    new_mode: Option<usize>,
    deleted_file: Option<usize>,
    new_file: Option<usize>,
    copy_from: Option<usize>,
    copy_to: Option<usize>,
    rename_old: Option<usize>,
    rename_new: Option<usize>,
    rename_from: Option<usize>,
    rename_to: Option<usize>,
    similarity: Option<usize>,
    dissimilarity: Option<usize>,
    index: Option<usize>,
}

impl Headers {
    fn slot(&mut self, content: &str) -> Option<&mut Option<usize>> {
        let slot = if content.starts_with(OLD_MODE) {
            &mut self.old_mode
        } else if content.starts_with(NEW_MODE) {
            &mut self.new_mode
        } else if content.starts_with(DELETED_FILE) {
            &mut self.deleted_file
        } else if content.starts_with(NEW_FILE) {
            &mut self.new_file
        } else if content.starts_with(COPY_FROM) {
            &mut self.copy_from
        } else if content.starts_with(COPY_TO) {
            &mut self.copy_to
        } else if content.starts_with(RENAME_OLD) {
            &mut self.rename_old
        } else if content.starts_with(RENAME_NEW) {
            &mut self.rename_new
        } else if content.starts_with(RENAME_FROM) {
            &mut self.rename_from
        } else if content.starts_with(RENAME_TO) {
            &mut self.rename_to
        } else if content.starts_with(SIMILARITY) {
            &mut self.similarity
        } else if content.starts_with(DISSIMILARITY) {
            &mut self.dissimilarity
        } else if content.starts_with(INDEX) {
            &mut self.index
        } else {
            return None;
        };
        Some(slot)
    }

    /// The (from, to) lines naming a rename's or copy's source and destination.
    fn rename_or_copy(&self) -> (LabeledLine, LabeledLine) {
        let from = self
            .rename_from
            .map(|i| (i, RENAME_FROM))
            .or(self.rename_old.map(|i| (i, RENAME_OLD)))
            .or(self.copy_from.map(|i| (i, COPY_FROM)));
        let to = self
            .rename_to
            .map(|i| (i, RENAME_TO))
            .or(self.rename_new.map(|i| (i, RENAME_NEW)))
            .or(self.copy_to.map(|i| (i, COPY_TO)));
        (from, to)
    }
}

#[derive(Debug, Clone, Copy)]
struct Item {
    kind: LineKind,
    line: usize,
    marker: Option<usize>,
}

#[derive(Debug)]
struct RawHunk<'a> {
    header: usize,
    end: usize,
    old_range: &'a str,
    new_range: &'a str,
    /// Everything after the second `@@` (section text, `\r`).
    rest: &'a str,
    old_start: usize,
    old_len: usize,
    new_start: usize,
    new_len: usize,
    items: Vec<Item>,
}

#[derive(Debug, Default)]
struct RawFile<'a> {
    start: usize,
    end: usize,
    git_line: Option<usize>,
    /// The two tokens of the `diff --git` line.
    git_tokens: Option<(&'a str, &'a str)>,
    headers: Headers,
    minus: Option<usize>,
    plus: Option<usize>,
    binary_files: Option<usize>,
    /// The two tokens of the `Binary files X and Y differ` line.
    binary_tokens: Option<(&'a str, &'a str)>,
    git_binary: Option<usize>,
    hunks: Vec<RawHunk<'a>>,
}

#[derive(Debug)]
struct Raw<'a> {
    lines: Vec<Line<'a>>,
    preamble_end: usize,
    files: Vec<RawFile<'a>>,
}

struct Parser<'a> {
    lines: Vec<Line<'a>>,
}

fn parse_raw(diff: &str) -> Result<Raw<'_>, DiffError> {
    let parser = Parser {
        lines: split_lines(diff),
    };
    let n = parser.lines.len();
    let mut i = 0;
    while i < n && !parser.is_file_start(i) {
        if parser.starts(i, "@@ -") {
            return Err(DiffError::HunkOutsideFile { line: i + 1 });
        }
        i += 1;
    }
    let preamble_end = i;
    let mut files = Vec::new();
    while i < n {
        let mut file = parser.parse_file(i)?;
        parser.resolve_tokens(&mut file)?;
        i = file.end;
        files.push(file);
    }
    Ok(Raw {
        lines: parser.lines,
        preamble_end,
        files,
    })
}

impl<'a> Parser<'a> {
    fn starts(&self, i: usize, prefix: &str) -> bool {
        self.lines
            .get(i)
            .is_some_and(|l| l.body.starts_with(prefix))
    }

    fn content(&self, i: usize) -> &'a str {
        self.lines.get(i).map_or("", Line::content)
    }

    fn is_file_start(&self, i: usize) -> bool {
        self.starts(i, DIFF_GIT)
            || self.starts(i, "diff --cc ")
            || self.starts(i, "diff --combined ")
            || (self.starts(i, "--- ") && self.starts(i + 1, "+++ ") && self.starts(i + 2, "@@ -"))
    }

    fn parse_file(&self, start: usize) -> Result<RawFile<'a>, DiffError> {
        let n = self.lines.len();
        let first = self.content(start);
        if first.starts_with("diff --cc ") || first.starts_with("diff --combined ") {
            return Err(DiffError::CombinedDiff {
                line: start + 1,
                text: first.to_owned(),
            });
        }
        let mut file = RawFile {
            start,
            ..RawFile::default()
        };
        let mut i = start;
        let git = first.starts_with(DIFF_GIT);
        if git {
            file.git_line = Some(start);
            i += 1;
            while i < n {
                let content = self.content(i);
                let Some(slot) = file.headers.slot(content) else {
                    break;
                };
                if slot.is_some() {
                    return Err(DiffError::MalformedHeader {
                        line: i + 1,
                        text: content.to_owned(),
                        reason: "this kind of header line appears twice for the same file",
                    });
                }
                *slot = Some(i);
                i += 1;
            }
        }
        if self.starts(i, "--- ") {
            if !self.starts(i + 1, "+++ ") {
                return Err(DiffError::MissingPlusLine { line: i + 1 });
            }
            file.minus = Some(i);
            file.plus = Some(i + 1);
            i += 2;
            while self.starts(i, "@@") {
                let hunk = self.parse_hunk(i)?;
                i = hunk.end;
                file.hunks.push(hunk);
            }
        } else if git && self.starts(i, BINARY_FILES) {
            file.binary_files = Some(i);
            i += 1;
        } else if git && self.starts(i, GIT_BINARY) {
            file.git_binary = Some(i);
            i += 1;
            while i < n && !self.is_file_start(i) {
                i += 1;
            }
            file.end = i;
            return Ok(file);
        }
        while i < n && !self.is_file_start(i) {
            if self.starts(i, "@@ -") {
                return Err(DiffError::HunkOutsideFile { line: i + 1 });
            }
            i += 1;
        }
        file.end = i;
        Ok(file)
    }

    fn parse_hunk(&self, at: usize) -> Result<RawHunk<'a>, DiffError> {
        let body = self.lines.get(at).map_or("", |l| l.body);
        let malformed = || DiffError::MalformedHunkHeader {
            line: at + 1,
            header: self.content(at).to_owned(),
        };
        let after = body.strip_prefix("@@ -").ok_or_else(malformed)?;
        let (old_start, old_len, old_range, after) = parse_range(after).ok_or_else(malformed)?;
        let after = after.strip_prefix(" +").ok_or_else(malformed)?;
        let (new_start, new_len, new_range, after) = parse_range(after).ok_or_else(malformed)?;
        let rest = after.strip_prefix(" @@").ok_or_else(malformed)?;

        let (mut old_left, mut new_left) = (old_len, new_len);
        let short = |old_left: usize, new_left: usize| {
            if old_left > 0 {
                DiffError::HunkTooShort {
                    line: at + 1,
                    side: HunkSide::Old,
                    expected: old_len,
                    found: old_len - old_left,
                }
            } else {
                DiffError::HunkTooShort {
                    line: at + 1,
                    side: HunkSide::New,
                    expected: new_len,
                    found: new_len - new_left,
                }
            }
        };
        let long = |line: usize, side: HunkSide| DiffError::HunkTooLong {
            line: line + 1,
            header_line: at + 1,
            side,
            expected: match side {
                HunkSide::Old => old_len,
                HunkSide::New => new_len,
            },
        };
        let mut items: Vec<Item> = Vec::new();
        let mut i = at + 1;
        while old_left > 0 || new_left > 0 {
            let Some(line) = self.lines.get(i) else {
                return Err(short(old_left, new_left));
            };
            let kind = match line.body.as_bytes().first() {
                None | Some(b' ') => LineKind::Context,
                Some(b'-') => LineKind::Removed,
                Some(b'+') => LineKind::Added,
                Some(b'\\') => {
                    match items.last_mut() {
                        Some(last) if last.marker.is_none() => last.marker = Some(i),
                        _ => return Err(DiffError::OrphanMarker { line: i + 1 }),
                    }
                    i += 1;
                    continue;
                }
                Some(_) => return Err(short(old_left, new_left)),
            };
            match kind {
                LineKind::Context => {
                    if old_left == 0 {
                        return Err(long(i, HunkSide::Old));
                    }
                    if new_left == 0 {
                        return Err(long(i, HunkSide::New));
                    }
                    old_left -= 1;
                    new_left -= 1;
                }
                LineKind::Removed => {
                    if old_left == 0 {
                        return Err(long(i, HunkSide::Old));
                    }
                    old_left -= 1;
                }
                LineKind::Added => {
                    if new_left == 0 {
                        return Err(long(i, HunkSide::New));
                    }
                    new_left -= 1;
                }
            }
            items.push(Item {
                kind,
                line: i,
                marker: None,
            });
            i += 1;
        }
        // A marker after the hunk's last line belongs to it.
        if self.starts(i, "\\")
            && let Some(last) = items.last_mut()
            && last.marker.is_none()
        {
            last.marker = Some(i);
            i += 1;
        }
        // A line has one marker at most: a second one follows no diff line.
        if self.starts(i, "\\") {
            return Err(DiffError::OrphanMarker { line: i + 1 });
        }
        // A diff line right after the counted lines means the header undercounts.
        if let Some(next) = self.lines.get(i) {
            let b = next.body;
            if !self.is_file_start(i) && b != "-- " {
                if b.starts_with('+') {
                    return Err(long(i, HunkSide::New));
                }
                if b.starts_with(['-', ' ']) {
                    return Err(long(i, HunkSide::Old));
                }
            }
        }
        Ok(RawHunk {
            header: at,
            end: i,
            old_range,
            new_range,
            rest,
            old_start,
            old_len,
            new_start,
            new_len,
            items,
        })
    }

    /// Splits the `diff --git` and `Binary files` lines into their two paths.
    fn resolve_tokens(&self, file: &mut RawFile<'a>) -> Result<(), DiffError> {
        if let Some(g) = file.git_line {
            let content = self.content(g);
            let rest = content.get(DIFF_GIT.len()..).unwrap_or_default();
            let known = self.known_names(file);
            let by_known = |a: &str, b: &str| {
                known
                    .as_ref()
                    .is_some_and(|(old, new)| token_names(a, old) && token_names(b, new))
            };
            let by_equal =
                |a: &str, b: &str| strip_component(&decode(a)) == strip_component(&decode(b));
            let split = split_pair(rest, " ", &[&by_known, &by_equal]).ok_or_else(|| {
                DiffError::AmbiguousPaths {
                    line: g + 1,
                    text: content.to_owned(),
                }
            })?;
            file.git_tokens = rest.get(..split).zip(rest.get(split + 1..));
            // git writes each path either fully quoted, or unquoted without surrounding
            // spaces and without a quote or control character (those make git quote the
            // path); any other token cannot be told apart from its neighbour once the two
            // are swapped.
            let well_formed = |t: &str| {
                if t.starts_with('"') {
                    matches!(unquote_prefix(t), Some((_, len)) if len == t.len())
                } else {
                    !t.is_empty()
                        && t.trim() == t
                        && !t.contains(|c: char| c == '"' || c.is_control())
                }
            };
            if file
                .git_tokens
                .is_some_and(|(a, b)| !(well_formed(a) && well_formed(b)))
            {
                return Err(DiffError::AmbiguousPaths {
                    line: g + 1,
                    text: content.to_owned(),
                });
            }
        }
        if let Some(b) = file.binary_files {
            let content = self.content(b);
            if content != "Binary files differ" {
                let mid = content
                    .strip_prefix(BINARY_FILES)
                    .and_then(|r| r.strip_suffix(" differ"))
                    .ok_or_else(|| DiffError::MalformedHeader {
                        line: b + 1,
                        text: content.to_owned(),
                        reason: "expected `Binary files <old> and <new> differ`",
                    })?;
                let git = file.git_tokens.map(|(a, b)| {
                    (
                        strip_component(&decode(a)).to_owned(),
                        strip_component(&decode(b)).to_owned(),
                    )
                });
                let side = |tok: &str, name: &str| {
                    is_dev_null(tok) || strip_component(&decode(tok)) == name
                };
                let by_git = |a: &str, b: &str| {
                    git.as_ref()
                        .is_some_and(|(old, new)| side(a, old) && side(b, new))
                };
                let split = split_pair(mid, " and ", &[&by_git]).ok_or_else(|| {
                    DiffError::AmbiguousPaths {
                        line: b + 1,
                        text: content.to_owned(),
                    }
                })?;
                file.binary_tokens = mid.get(..split).zip(mid.get(split + " and ".len()..));
            }
        }
        Ok(())
    }

    /// The old and new names given by other header lines, to split `diff --git`.
    fn known_names(&self, file: &RawFile<'a>) -> Option<(String, String)> {
        if let (Some((from, from_label)), Some((to, to_label))) = file.headers.rename_or_copy() {
            let from = decode(self.content(from).get(from_label.len()..)?);
            let to = decode(self.content(to).get(to_label.len()..)?);
            return Some((from, to));
        }
        let old = label_path(self.content(file.minus?).get(4..)?)?;
        let new = label_path(self.content(file.plus?).get(4..)?)?;
        Some((
            strip_component(&old).to_owned(),
            strip_component(&new).to_owned(),
        ))
    }
}

/// Parses `l[,s]` at the start of `s`: (start, len, the range's text, the remainder).
fn parse_range(s: &str) -> Option<(usize, usize, &str, &str)> {
    let digits = |t: &str| t.bytes().take_while(u8::is_ascii_digit).count();
    let d1 = digits(s);
    if d1 == 0 {
        return None;
    }
    let start = s.get(..d1)?.parse().ok()?;
    let mut end = d1;
    let mut len = 1;
    if let Some(after) = s.get(d1..).and_then(|t| t.strip_prefix(',')) {
        let d2 = digits(after);
        if d2 == 0 {
            return None;
        }
        len = after.get(..d2)?.parse().ok()?;
        end = d1 + 1 + d2;
    }
    Some((start, len, s.get(..end)?, s.get(end..)?))
}

// ---------------------------------------------------------------------------------------
// Paths

/// Decodes a C-style quoted string (git's path quoting) at the start of `s`, returning
/// the decoded text and the quoted token's byte length, quotes included.
fn unquote_prefix(s: &str) -> Option<(String, usize)> {
    let bytes = s.as_bytes();
    if bytes.first() != Some(&b'"') {
        return None;
    }
    let mut out = Vec::new();
    let mut i = 1;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'"' => {
                let text = String::from_utf8(out)
                    .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
                return Some((text, i + 1));
            }
            b'\\' => {
                let esc = *bytes.get(i + 1)?;
                i += 2;
                let value = match esc {
                    b'a' => 7,
                    b'b' => 8,
                    b't' => b'\t',
                    b'n' => b'\n',
                    b'v' => 11,
                    b'f' => 12,
                    b'r' => b'\r',
                    b'"' | b'\\' => esc,
                    b'0'..=b'3' => {
                        let d1 = *bytes.get(i)?;
                        let d2 = *bytes.get(i + 1)?;
                        if !(b'0'..=b'7').contains(&d1) || !(b'0'..=b'7').contains(&d2) {
                            return None;
                        }
                        i += 2;
                        (esc - b'0') * 64 + (d1 - b'0') * 8 + (d2 - b'0')
                    }
                    _ => return None,
                };
                out.push(value);
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    None
}

/// A path token with git's quoting undone (unquoted tokens are returned as they are).
fn decode(token: &str) -> String {
    match unquote_prefix(token) {
        Some((text, len)) if len == token.len() => text,
        _ => token.to_owned(),
    }
}

/// Drops the first path component (`a/`, `b/`), as `git apply -p1` does.
fn strip_component(name: &str) -> &str {
    name.split_once('/').map_or(name, |(_, rest)| rest)
}

/// Does the (prefixed or not) path token name `name`?
fn token_names(token: &str, name: &str) -> bool {
    let decoded = decode(token);
    decoded == name || strip_component(&decoded) == name
}

fn is_dev_null(label: &str) -> bool {
    label == "/dev/null" || label.starts_with("/dev/null\t")
}

/// The path named by the text after `--- ` / `+++ ` (quoting undone, a tab-separated
/// timestamp dropped); `None` for `/dev/null`.
fn label_path(label: &str) -> Option<String> {
    if is_dev_null(label) {
        return None;
    }
    Some(match unquote_prefix(label) {
        Some((text, _)) => text,
        None => label.split('\t').next().unwrap_or(label).to_owned(),
    })
}

/// Whether two path tokens are a plausible (old, new) pair.
type Acceptor<'f> = &'f dyn Fn(&str, &str) -> bool;

/// Splits `rest` into two path tokens around `sep`; returns the separator's offset.
///
/// A quoted first token ends at its closing quote; a quoted last token starts at its
/// opening quote. Otherwise a unique separator is used, and with several candidates the
/// first one accepted by the earliest acceptor.
fn split_pair(rest: &str, sep: &str, accept: &[Acceptor<'_>]) -> Option<usize> {
    if let Some((_, len)) = unquote_prefix(rest)
        && rest.get(len..).is_some_and(|t| t.starts_with(sep))
    {
        return Some(len);
    }
    let candidates: Vec<usize> = rest.match_indices(sep).map(|(p, _)| p).collect();
    let halves = |p: usize| rest.get(..p).zip(rest.get(p + sep.len()..));
    if rest.ends_with('"') {
        let quoted_tail = candidates.iter().copied().find(|&p| {
            halves(p).is_some_and(
                |(_, tail)| matches!(unquote_prefix(tail), Some((_, len)) if len == tail.len()),
            )
        });
        if quoted_tail.is_some() {
            return quoted_tail;
        }
    }
    if let [only] = candidates.as_slice() {
        return Some(*only);
    }
    accept.iter().find_map(|acc| {
        candidates
            .iter()
            .copied()
            .find(|&p| halves(p).is_some_and(|(a, b)| acc(a, b)))
    })
}

fn has_ab_prefix(token: &str) -> bool {
    let t = token.strip_prefix('"').unwrap_or(token);
    t.starts_with("a/") || t.starts_with("b/")
}

fn swap_ab_prefix(token: &str) -> String {
    let (quote, t) = match token.strip_prefix('"') {
        Some(t) => ("\"", t),
        None => ("", token),
    };
    if let Some(r) = t.strip_prefix("a/") {
        format!("{quote}b/{r}")
    } else if let Some(r) = t.strip_prefix("b/") {
        format!("{quote}a/{r}")
    } else {
        token.to_owned()
    }
}

/// The (old, new) path labels of the reversed diff. When every label is `/dev/null` or
/// has an `a/`/`b/` prefix, the prefixes stay on their sides (`a/` old, `b/` new);
/// otherwise (no or custom prefixes) the labels are exchanged verbatim.
fn exchange(old: &str, new: &str) -> (String, String) {
    let prefixed = [old, new]
        .iter()
        .all(|t| is_dev_null(t) || has_ab_prefix(t));
    if prefixed {
        (swap_ab_prefix(new), swap_ab_prefix(old))
    } else {
        (new.to_owned(), old.to_owned())
    }
}

// ---------------------------------------------------------------------------------------
// Building the public view

fn value_of<'a>(lines: &[Line<'a>], i: Option<usize>, label: &str) -> Option<&'a str> {
    lines.get(i?)?.content().get(label.len()..)
}

fn build_file(diff: &str, lines: &[Line<'_>], f: &RawFile<'_>) -> FileDiff {
    let start_byte = lines.get(f.start).map_or(diff.len(), |l| l.start);
    let end_byte = lines.get(f.end).map_or(diff.len(), |l| l.start);
    let h = &f.headers;
    let minus = value_of(lines, f.minus, "--- ");
    let plus = value_of(lines, f.plus, "+++ ");
    let is_new = h.new_file.is_some()
        || minus.is_some_and(is_dev_null)
        || f.binary_tokens.is_some_and(|(a, _)| is_dev_null(a));
    let is_deleted = h.deleted_file.is_some()
        || plus.is_some_and(is_dev_null)
        || f.binary_tokens.is_some_and(|(_, b)| is_dev_null(b));
    let (from, to) = h.rename_or_copy();
    let from = from
        .and_then(|(i, label)| value_of(lines, Some(i), label))
        .map(decode);
    let to = to
        .and_then(|(i, label)| value_of(lines, Some(i), label))
        .map(decode);
    let token_path = |t: &str| {
        if is_dev_null(t) {
            None
        } else {
            Some(strip_component(&decode(t)).to_owned())
        }
    };
    let label = |l: &str| label_path(l).map(|p| strip_component(&p).to_owned());
    let old_path = if is_new {
        None
    } else {
        from.or_else(|| minus.and_then(label))
            .or_else(|| f.binary_tokens.and_then(|(a, _)| token_path(a)))
            .or_else(|| f.git_tokens.and_then(|(a, _)| token_path(a)))
    };
    let new_path = if is_deleted {
        None
    } else {
        to.or_else(|| plus.and_then(label))
            .or_else(|| f.binary_tokens.and_then(|(_, b)| token_path(b)))
            .or_else(|| f.git_tokens.and_then(|(_, b)| token_path(b)))
    };
    let index_mode = value_of(lines, h.index, INDEX)
        .and_then(|v| v.split_once(' '))
        .map(|(_, mode)| mode.to_owned());
    let old_mode = value_of(lines, h.old_mode, OLD_MODE)
        .or_else(|| value_of(lines, h.deleted_file, DELETED_FILE))
        .map(str::to_owned)
        .or_else(|| index_mode.clone());
    let new_mode = value_of(lines, h.new_mode, NEW_MODE)
        .or_else(|| value_of(lines, h.new_file, NEW_FILE))
        .map(str::to_owned)
        .or(index_mode);
    let hunks = f.hunks.iter().map(|hunk| build_hunk(lines, hunk)).collect();
    FileDiff {
        old_path,
        new_path,
        is_new,
        is_deleted,
        is_rename: h.rename_from.is_some()
            || h.rename_to.is_some()
            || h.rename_old.is_some()
            || h.rename_new.is_some(),
        is_copy: h.copy_from.is_some() || h.copy_to.is_some(),
        is_binary: f.binary_files.is_some() || f.git_binary.is_some(),
        old_mode,
        new_mode,
        hunks,
        line: f.start + 1,
        range: start_byte..end_byte,
        text: diff
            .get(start_byte..end_byte)
            .unwrap_or_default()
            .to_owned(),
    }
}

fn build_hunk(lines: &[Line<'_>], h: &RawHunk<'_>) -> Hunk {
    let rest = h.rest.strip_suffix('\r').unwrap_or(h.rest);
    Hunk {
        old_start: h.old_start,
        old_len: h.old_len,
        new_start: h.new_start,
        new_len: h.new_len,
        section: rest.strip_prefix(' ').unwrap_or(rest).to_owned(),
        line: h.header + 1,
        lines: h
            .items
            .iter()
            .map(|item| {
                let body = lines.get(item.line).map_or("", |l| l.body);
                HunkLine {
                    kind: item.kind,
                    content: body.get(1..).unwrap_or_default().to_owned(),
                    no_newline_at_eof: item.marker.is_some(),
                }
            })
            .collect(),
    }
}

// ---------------------------------------------------------------------------------------
// Reversal

fn reverse_file(
    lines: &[Line<'_>],
    f: &RawFile<'_>,
    repl: &mut [Option<String>],
) -> Result<(), DiffError> {
    let content = |i: usize| lines.get(i).map_or("", Line::content);
    let cr = |i: usize| lines.get(i).map_or("", Line::cr);
    let mut set = |i: usize, text: String| {
        if let Some(slot) = repl.get_mut(i) {
            *slot = Some(text);
        }
    };
    if let Some(g) = f.git_binary {
        let path = f
            .git_tokens
            .map_or_else(String::new, |(_, b)| strip_component(&decode(b)).to_owned());
        return Err(DiffError::BinaryPatch { line: g + 1, path });
    }
    if let (Some(g), Some((a, b))) = (f.git_line, f.git_tokens) {
        let (a, b) = exchange(a, b);
        set(g, format!("{DIFF_GIT}{a} {b}{}", cr(g)));
    }
    let h = &f.headers;
    for (a, la, b, lb) in [
        (h.old_mode, OLD_MODE, h.new_mode, NEW_MODE),
        (h.new_file, NEW_FILE, h.deleted_file, DELETED_FILE),
        (h.rename_from, RENAME_FROM, h.rename_to, RENAME_TO),
        (h.rename_old, RENAME_OLD, h.rename_new, RENAME_NEW),
        (h.copy_from, COPY_FROM, h.copy_to, COPY_TO),
    ] {
        let value = |i: usize, label: &str| content(i).get(label.len()..).unwrap_or_default();
        match (a, b) {
            // Labels stay where they are, values swap (each with its trailing `\r`, so
            // that a value ending in `\r` itself comes back whole).
            (Some(a), Some(b)) => {
                set(a, format!("{la}{}{}", value(b, lb), cr(b)));
                set(b, format!("{lb}{}{}", value(a, la), cr(a)));
            }
            // A lone line changes its label.
            (Some(a), None) => set(a, format!("{lb}{}{}", value(a, la), cr(a))),
            (None, Some(b)) => set(b, format!("{la}{}{}", value(b, lb), cr(b))),
            (None, None) => {}
        }
    }
    if let Some(i) = h.index {
        let text = content(i);
        let value = text.get(INDEX.len()..).unwrap_or_default();
        let (hashes, mode) = value.split_once(' ').map_or((value, ""), |(h, _)| {
            (h, value.get(h.len()..).unwrap_or_default())
        });
        let is_hash = |h: &str| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit());
        let (old, new) = hashes
            .split_once("..")
            .filter(|(old, new)| is_hash(old) && is_hash(new))
            .ok_or_else(|| DiffError::MalformedHeader {
                line: i + 1,
                text: text.to_owned(),
                reason: "expected `index <old>..<new>[ <mode>]` with hexadecimal object ids",
            })?;
        set(i, format!("{INDEX}{new}..{old}{mode}{}", cr(i)));
    }
    if let (Some(m), Some(p)) = (f.minus, f.plus) {
        let old = content(m).get(4..).unwrap_or_default();
        let new = content(p).get(4..).unwrap_or_default();
        let (old, new) = exchange(old, new);
        // Each label keeps its trailing `\r`, as the header values above.
        set(m, format!("--- {old}{}", cr(p)));
        set(p, format!("+++ {new}{}", cr(m)));
    }
    if let (Some(i), Some((a, b))) = (f.binary_files, f.binary_tokens) {
        let (a, b) = exchange(a, b);
        set(i, format!("{BINARY_FILES}{a} and {b} differ{}", cr(i)));
    }
    for hunk in &f.hunks {
        set(
            hunk.header,
            format!("@@ -{} +{} @@{}", hunk.new_range, hunk.old_range, hunk.rest),
        );
        let mut pos = hunk.header + 1;
        for (item, kind) in reversed_items(&hunk.items) {
            let body = lines.get(item.line).map_or("", |l| l.body);
            let text = match kind {
                LineKind::Context => body.to_owned(),
                LineKind::Removed => format!("-{}", body.get(1..).unwrap_or_default()),
                LineKind::Added => format!("+{}", body.get(1..).unwrap_or_default()),
            };
            set(pos, text);
            pos += 1;
            if let Some(m) = item.marker {
                set(pos, lines.get(m).map_or("", |l| l.body).to_owned());
                pos += 1;
            }
        }
    }
    Ok(())
}

/// The items of a reversed hunk body, in output order, with their new kinds.
fn reversed_items(items: &[Item]) -> Vec<(Item, LineKind)> {
    let mut out = Vec::with_capacity(items.len());
    let mut i = 0;
    while let Some(item) = items.get(i) {
        if item.kind == LineKind::Context {
            out.push((*item, LineKind::Context));
            i += 1;
            continue;
        }
        let len = items
            .get(i..)
            .unwrap_or_default()
            .iter()
            .take_while(|it| it.kind != LineKind::Context)
            .count();
        reverse_run(items.get(i..i + len).unwrap_or_default(), &mut out);
        i += len;
    }
    out
}

/// Reverses one run of changes (no context lines).
///
/// The output's `-` lines are the run's `+` lines in order, and vice versa; only where
/// they interleave is chosen here. A run that starts with `-` and ends with `+` is cut
/// into blocks `-X +Y` (at every `+` followed by `-`), each becoming `-Y +X`; git's
/// output has a single block. Any other run (starting with `+` or ending with `-`,
/// which includes runs of one kind) is mirrored: its sign pattern is read back to
/// front with the signs swapped. Both maps are involutions and each keeps its own kind
/// of run, so `reverse` is an involution.
fn reverse_run(run: &[Item], out: &mut Vec<(Item, LineKind)>) {
    let kinds: Vec<LineKind> = run.iter().map(|it| it.kind).collect();
    let proper =
        kinds.first() == Some(&LineKind::Removed) && kinds.last() == Some(&LineKind::Added);
    let mut pattern: Vec<LineKind> = Vec::with_capacity(kinds.len());
    if proper {
        let mut block_start = 0;
        for (k, kind) in kinds.iter().enumerate() {
            let at_end = k + 1 == kinds.len();
            let cut = at_end
                || (*kind == LineKind::Added && kinds.get(k + 1) == Some(&LineKind::Removed));
            if cut {
                let block = kinds.get(block_start..=k).unwrap_or_default();
                let removed = block.iter().filter(|k| **k == LineKind::Removed).count();
                let added = block.len() - removed;
                pattern.extend(std::iter::repeat_n(LineKind::Removed, added));
                pattern.extend(std::iter::repeat_n(LineKind::Added, removed));
                block_start = k + 1;
            }
        }
    } else {
        pattern.extend(kinds.iter().rev().map(|k| match k {
            LineKind::Removed => LineKind::Added,
            LineKind::Added => LineKind::Removed,
            LineKind::Context => LineKind::Context,
        }));
    }
    let mut old_added = run.iter().filter(|it| it.kind == LineKind::Added);
    let mut old_removed = run.iter().filter(|it| it.kind == LineKind::Removed);
    for kind in pattern {
        let source = match kind {
            LineKind::Removed => old_added.next(),
            _ => old_removed.next(),
        };
        if let Some(item) = source {
            out.push((*item, kind));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reverses `d`, checks the result against `expected`, and checks that reversing the
    /// result gives `d` back.
    fn check(d: &str, expected: &str) {
        let r = reverse(d).unwrap();
        assert_eq!(r, expected, "reverse of:\n{d}");
        assert_eq!(reverse(&r).unwrap(), d, "reverse(reverse(d)) != d");
        parse(d).unwrap();
        parse(&r).unwrap();
    }

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
    fn text_without_files_is_kept() {
        check(
            "just some words\n\nno diff here",
            "just some words\n\nno diff here",
        );
    }

    #[test]
    fn modification_with_two_hunks_and_omitted_counts() {
        let d = concat!(
            "diff --git a/src/lib.py b/src/lib.py\n",
            "index 1234567..89abcde 100644\n",
            "--- a/src/lib.py\n",
            "+++ b/src/lib.py\n",
            "@@ -1,4 +1,5 @@ import os\n",
            " a\n",
            "-b\n",
            "+B\n",
            "+B2\n",
            " c\n",
            " d\n",
            "@@ -10 +11 @@ def f():\n",
            "-x\n",
            "+y\n",
        );
        let r = concat!(
            "diff --git a/src/lib.py b/src/lib.py\n",
            "index 89abcde..1234567 100644\n",
            "--- a/src/lib.py\n",
            "+++ b/src/lib.py\n",
            "@@ -1,5 +1,4 @@ import os\n",
            " a\n",
            "-B\n",
            "-B2\n",
            "+b\n",
            " c\n",
            " d\n",
            "@@ -11 +10 @@ def f():\n",
            "-y\n",
            "+x\n",
        );
        check(d, r);
    }

    #[test]
    fn mixed_omitted_and_explicit_counts_keep_their_form() {
        let d = concat!(
            "--- a/f\n",
            "+++ b/f\n",
            "@@ -3 +3,2 @@\n",
            " k\n",
            "+n\n",
            "@@ -9,1 +10,0 @@\n",
            "-z\n",
        );
        let r = concat!(
            "--- a/f\n",
            "+++ b/f\n",
            "@@ -3,2 +3 @@\n",
            " k\n",
            "-n\n",
            "@@ -10,0 +9,1 @@\n",
            "+z\n",
        );
        check(d, r);
    }

    #[test]
    fn new_file_becomes_deleted_file() {
        let d = concat!(
            "diff --git a/new.txt b/new.txt\n",
            "new file mode 100644\n",
            "index 0000000..3b18e51\n",
            "--- /dev/null\n",
            "+++ b/new.txt\n",
            "@@ -0,0 +1,3 @@\n",
            "+one\n",
            "+two\n",
            "+three\n",
        );
        let r = concat!(
            "diff --git a/new.txt b/new.txt\n",
            "deleted file mode 100644\n",
            "index 3b18e51..0000000\n",
            "--- a/new.txt\n",
            "+++ /dev/null\n",
            "@@ -1,3 +0,0 @@\n",
            "-one\n",
            "-two\n",
            "-three\n",
        );
        check(d, r);
        let p = parse(d).unwrap();
        let f = &p.files[0];
        assert!(f.is_new && !f.is_deleted);
        assert_eq!(
            (f.old_path.as_deref(), f.new_path.as_deref()),
            (None, Some("new.txt"))
        );
        assert_eq!(f.new_mode.as_deref(), Some("100644"));
        let p = parse(r).unwrap();
        let f = &p.files[0];
        assert!(f.is_deleted && !f.is_new);
        assert_eq!(
            (f.old_path.as_deref(), f.new_path.as_deref()),
            (Some("new.txt"), None)
        );
        assert_eq!(f.path(), Some("new.txt"));
    }

    #[test]
    fn empty_new_file_without_hunks() {
        let d = concat!(
            "diff --git a/empty b/empty\n",
            "new file mode 100644\n",
            "index 0000000..e69de29\n",
            "diff --git a/x b/x\n",
            "deleted file mode 100755\n",
            "index e69de29..0000000\n",
        );
        let r = concat!(
            "diff --git a/empty b/empty\n",
            "deleted file mode 100644\n",
            "index e69de29..0000000\n",
            "diff --git a/x b/x\n",
            "new file mode 100755\n",
            "index 0000000..e69de29\n",
        );
        check(d, r);
        let p = parse(d).unwrap();
        assert_eq!(p.paths(), vec!["empty", "x"]);
        assert!(p.files[0].is_new && p.files[0].new_path.as_deref() == Some("empty"));
        assert!(p.files[1].is_deleted && p.files[1].old_path.as_deref() == Some("x"));
    }

    #[test]
    fn rename_with_mode_change_and_edits() {
        let d = concat!(
            "diff --git a/old/name.py b/new/name.py\n",
            "old mode 100644\n",
            "new mode 100755\n",
            "similarity index 90%\n",
            "rename from old/name.py\n",
            "rename to new/name.py\n",
            "index 1111111..2222222\n",
            "--- a/old/name.py\n",
            "+++ b/new/name.py\n",
            "@@ -2,3 +2,3 @@ class A:\n",
            "     x = 1\n",
            "-    y = 2\n",
            "+    y = 3\n",
            "     z = 4\n",
        );
        let r = concat!(
            "diff --git a/new/name.py b/old/name.py\n",
            "old mode 100755\n",
            "new mode 100644\n",
            "similarity index 90%\n",
            "rename from new/name.py\n",
            "rename to old/name.py\n",
            "index 2222222..1111111\n",
            "--- a/new/name.py\n",
            "+++ b/old/name.py\n",
            "@@ -2,3 +2,3 @@ class A:\n",
            "     x = 1\n",
            "-    y = 3\n",
            "+    y = 2\n",
            "     z = 4\n",
        );
        check(d, r);
        let f = &parse(d).unwrap().files[0];
        assert!(f.is_rename && !f.is_copy && !f.is_new && !f.is_deleted);
        assert_eq!(f.old_path.as_deref(), Some("old/name.py"));
        assert_eq!(f.new_path.as_deref(), Some("new/name.py"));
        assert_eq!(f.old_mode.as_deref(), Some("100644"));
        assert_eq!(f.new_mode.as_deref(), Some("100755"));
        assert_eq!(f.hunks[0].section, "class A:");
    }

    #[test]
    fn pure_rename_copy_and_mode_change() {
        let d = concat!(
            "diff --git a/a.txt b/b.txt\n",
            "similarity index 100%\n",
            "rename from a.txt\n",
            "rename to b.txt\n",
            "diff --git a/c.txt b/d.txt\n",
            "similarity index 95%\n",
            "copy from c.txt\n",
            "copy to d.txt\n",
            "index 0123456..789abcd 100644\n",
            "--- a/c.txt\n",
            "+++ b/d.txt\n",
            "@@ -1 +1 @@\n",
            "-c\n",
            "+d\n",
            "diff --git a/run.sh b/run.sh\n",
            "old mode 100644\n",
            "new mode 100755\n",
            "diff --git a/s b/s\n",
            "dissimilarity index 70%\n",
            "index abc..def 120000\n",
            "--- a/s\n",
            "+++ b/s\n",
            "@@ -1 +1 @@\n",
            "-t\n",
            "\\ No newline at end of file\n",
            "+u\n",
            "\\ No newline at end of file\n",
        );
        let r = concat!(
            "diff --git a/b.txt b/a.txt\n",
            "similarity index 100%\n",
            "rename from b.txt\n",
            "rename to a.txt\n",
            "diff --git a/d.txt b/c.txt\n",
            "similarity index 95%\n",
            "copy from d.txt\n",
            "copy to c.txt\n",
            "index 789abcd..0123456 100644\n",
            "--- a/d.txt\n",
            "+++ b/c.txt\n",
            "@@ -1 +1 @@\n",
            "-d\n",
            "+c\n",
            "diff --git a/run.sh b/run.sh\n",
            "old mode 100755\n",
            "new mode 100644\n",
            "diff --git a/s b/s\n",
            "dissimilarity index 70%\n",
            "index def..abc 120000\n",
            "--- a/s\n",
            "+++ b/s\n",
            "@@ -1 +1 @@\n",
            "-u\n",
            "\\ No newline at end of file\n",
            "+t\n",
            "\\ No newline at end of file\n",
        );
        check(d, r);
        let p = parse(d).unwrap();
        assert_eq!(p.paths(), vec!["b.txt", "d.txt", "run.sh", "s"]);
        assert!(p.files[0].is_rename && p.files[0].hunks.is_empty());
        assert!(p.files[1].is_copy && !p.files[1].is_rename);
        assert_eq!(p.files[1].old_path.as_deref(), Some("c.txt"));
        assert_eq!(p.files[2].new_mode.as_deref(), Some("100755"));
        assert_eq!(p.files[3].old_mode.as_deref(), Some("120000"));
        assert!(
            p.files[3].hunks[0]
                .lines
                .iter()
                .all(|l| l.no_newline_at_eof)
        );
    }

    #[test]
    fn no_newline_markers_move_with_their_lines() {
        let d = concat!(
            "diff --git a/n b/n\n",
            "--- a/n\n",
            "+++ b/n\n",
            "@@ -1,2 +1,2 @@\n",
            " keep\n",
            "-old\n",
            "\\ No newline at end of file\n",
            "+new\n",
            "diff --git a/m b/m\n",
            "--- a/m\n",
            "+++ b/m\n",
            "@@ -1 +1,2 @@\n",
            "-last\n",
            "\\ No newline at end of file\n",
            "+last\n",
            "+more\n",
            "\\ No newline at end of file\n",
        );
        let r = concat!(
            "diff --git a/n b/n\n",
            "--- a/n\n",
            "+++ b/n\n",
            "@@ -1,2 +1,2 @@\n",
            " keep\n",
            "-new\n",
            "+old\n",
            "\\ No newline at end of file\n",
            "diff --git a/m b/m\n",
            "--- a/m\n",
            "+++ b/m\n",
            "@@ -1,2 +1 @@\n",
            "-last\n",
            "-more\n",
            "\\ No newline at end of file\n",
            "+last\n",
            "\\ No newline at end of file\n",
        );
        check(d, r);
        let f = &parse(d).unwrap().files[0];
        let flags: Vec<bool> = f.hunks[0]
            .lines
            .iter()
            .map(|l| l.no_newline_at_eof)
            .collect();
        assert_eq!(flags, [false, true, false]);
    }

    #[test]
    fn marker_on_a_context_line() {
        let d = concat!(
            "--- a/f\n",
            "+++ b/f\n",
            "@@ -1,2 +1,2 @@\n",
            "-a\n",
            "+b\n",
            " end\n",
            "\\ No newline at end of file\n",
        );
        let r = concat!(
            "--- a/f\n",
            "+++ b/f\n",
            "@@ -1,2 +1,2 @@\n",
            "-b\n",
            "+a\n",
            " end\n",
            "\\ No newline at end of file\n",
        );
        check(d, r);
    }

    #[test]
    fn interleaved_runs_are_reversed_block_by_block() {
        let head = "--- a/f\n+++ b/f\n";
        // `-a +b -c +d`: blocks (-a +b) and (-c +d).
        check(
            &format!("{head}@@ -1,2 +1,2 @@\n-a\n+b\n-c\n+d\n"),
            &format!("{head}@@ -1,2 +1,2 @@\n-b\n+a\n-d\n+c\n"),
        );
        // Uneven blocks keep their shape.
        check(
            &format!("{head}@@ -1,3 +1,3 @@\n-a\n-b\n+P\n-c\n+Q\n+R\n"),
            &format!("{head}@@ -1,3 +1,3 @@\n-P\n+a\n+b\n-Q\n-R\n+c\n"),
        );
        // A run starting with `+` is mirrored: the pattern `+-` stays `+-`.
        check(
            &format!("{head}@@ -1 +1 @@\n+a\n-b\n"),
            &format!("{head}@@ -1 +1 @@\n+b\n-a\n"),
        );
        // A run ending with `-`: `-a +b -c` (pattern `-+-`) mirrors to `+-+`.
        check(
            &format!("{head}@@ -1,2 +1 @@\n-a\n+b\n-c\n"),
            &format!("{head}@@ -1 +1,2 @@\n+a\n-b\n+c\n"),
        );
        // Runs are separated by context; each is handled on its own.
        check(
            &format!("{head}@@ -1,3 +1,3 @@\n-a\n+A\n k\n+B\n-b\n"),
            &format!("{head}@@ -1,3 +1,3 @@\n-A\n+a\n k\n+b\n-B\n"),
        );
    }

    #[test]
    fn binary_files_line_swaps_paths() {
        let d = concat!(
            "diff --git a/img.png b/img.png\n",
            "index 1111111..2222222 100644\n",
            "Binary files a/img.png and b/img.png differ\n",
            "diff --git a/new.bin b/new.bin\n",
            "new file mode 100644\n",
            "index 0000000..3333333\n",
            "Binary files /dev/null and b/new.bin differ\n",
        );
        let r = concat!(
            "diff --git a/img.png b/img.png\n",
            "index 2222222..1111111 100644\n",
            "Binary files a/img.png and b/img.png differ\n",
            "diff --git a/new.bin b/new.bin\n",
            "deleted file mode 100644\n",
            "index 3333333..0000000\n",
            "Binary files a/new.bin and /dev/null differ\n",
        );
        check(d, r);
        let p = parse(d).unwrap();
        assert!(p.files.iter().all(|f| f.is_binary));
        assert_eq!(p.paths(), vec!["img.png", "new.bin"]);
        assert!(p.files[1].is_new);
    }

    #[test]
    fn git_binary_patch_cannot_be_reversed() {
        let d = concat!(
            "diff --git a/x.png b/x.png\n",
            "index 1111111..2222222 100644\n",
            "GIT binary patch\n",
            "literal 5\n",
            "McmZQzWMXFo0000G01E&B\n",
            "\n",
            "literal 3\n",
            "KcmZQzU|;|M00aO5\n",
            "\n",
        );
        let err = reverse(d).unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 3: binary patch for `x.png` cannot be reversed without the blobs"
        );
        let p = parse(d).unwrap();
        assert!(p.files[0].is_binary);
        assert_eq!(p.files[0].text(), d);
    }

    #[test]
    fn quoted_paths_and_paths_with_spaces() {
        let d = concat!(
            "diff --git \"a/with space\\t.txt\" b/plain.txt\n",
            "similarity index 80%\n",
            "rename from \"with space\\t.txt\"\n",
            "rename to plain.txt\n",
            "--- \"a/with space\\t.txt\"\t\n",
            "+++ b/plain.txt\n",
            "@@ -1 +1 @@\n",
            "-x\n",
            "+y\n",
            "diff --git a/my file.txt b/my file.txt\n",
            "--- a/my file.txt\t\n",
            "+++ b/my file.txt\t\n",
            "@@ -1 +1 @@\n",
            "-p\n",
            "+q\n",
            "diff --git \"a/h\\303\\251llo.txt\" \"b/h\\303\\251llo.txt\"\n",
            "new file mode 100644\n",
            "--- /dev/null\n",
            "+++ \"b/h\\303\\251llo.txt\"\n",
            "@@ -0,0 +1 @@\n",
            "+h\n",
        );
        let r = concat!(
            "diff --git a/plain.txt \"b/with space\\t.txt\"\n",
            "similarity index 80%\n",
            "rename from plain.txt\n",
            "rename to \"with space\\t.txt\"\n",
            "--- a/plain.txt\n",
            "+++ \"b/with space\\t.txt\"\t\n",
            "@@ -1 +1 @@\n",
            "-y\n",
            "+x\n",
            "diff --git a/my file.txt b/my file.txt\n",
            "--- a/my file.txt\t\n",
            "+++ b/my file.txt\t\n",
            "@@ -1 +1 @@\n",
            "-q\n",
            "+p\n",
            "diff --git \"a/h\\303\\251llo.txt\" \"b/h\\303\\251llo.txt\"\n",
            "deleted file mode 100644\n",
            "--- \"a/h\\303\\251llo.txt\"\n",
            "+++ /dev/null\n",
            "@@ -1 +0,0 @@\n",
            "-h\n",
        );
        check(d, r);
        let p = parse(d).unwrap();
        assert_eq!(p.files[0].old_path.as_deref(), Some("with space\t.txt"));
        assert_eq!(p.files[0].new_path.as_deref(), Some("plain.txt"));
        assert_eq!(p.files[1].old_path.as_deref(), Some("my file.txt"));
        assert_eq!(p.files[2].new_path.as_deref(), Some("héllo.txt"));
    }

    #[test]
    fn ambiguous_paths_are_an_error() {
        // Different unquoted names with spaces and nothing else naming them.
        let d = "diff --git a/x y b/z b/w\nold mode 100644\nnew mode 100755\n";
        assert_eq!(
            reverse(d).unwrap_err().to_string(),
            "line 1: cannot tell the two paths apart in `diff --git a/x y b/z b/w`"
        );
        // git quotes a path holding a quote; an unquoted one holding it is not git's.
        let d = "diff --git a/x\" \"b/x\nold mode 100644\nnew mode 100755\n";
        assert_eq!(
            reverse(d).unwrap_err().to_string(),
            "line 1: cannot tell the two paths apart in `diff --git a/x\" \"b/x`"
        );
    }

    #[test]
    fn crlf_content_is_kept() {
        let d = concat!(
            "diff --git a/w.txt b/w.txt\n",
            "--- a/w.txt\n",
            "+++ b/w.txt\n",
            "@@ -1,3 +1,3 @@\n",
            " one\r\n",
            "-two\r\n",
            "+2\r\n",
            " three\r\n",
        );
        let r = concat!(
            "diff --git a/w.txt b/w.txt\n",
            "--- a/w.txt\n",
            "+++ b/w.txt\n",
            "@@ -1,3 +1,3 @@\n",
            " one\r\n",
            "-2\r\n",
            "+two\r\n",
            " three\r\n",
        );
        check(d, r);
        let line = &parse(d).unwrap().files[0].hunks[0].lines[1];
        assert_eq!(
            (line.kind, line.content.as_str()),
            (LineKind::Removed, "two\r")
        );
    }

    #[test]
    fn whole_diff_in_crlf() {
        let d = concat!(
            "diff --git a/f b/g\r\n",
            "similarity index 90%\r\n",
            "rename from f\r\n",
            "rename to g\r\n",
            "index 1..2 100644\r\n",
            "--- a/f\r\n",
            "+++ b/g\r\n",
            "@@ -1 +1 @@ sec\r\n",
            "-a\r\n",
            "+b\r\n",
        );
        let r = concat!(
            "diff --git a/g b/f\r\n",
            "similarity index 90%\r\n",
            "rename from g\r\n",
            "rename to f\r\n",
            "index 2..1 100644\r\n",
            "--- a/g\r\n",
            "+++ b/f\r\n",
            "@@ -1 +1 @@ sec\r\n",
            "-b\r\n",
            "+a\r\n",
        );
        check(d, r);
        let f = &parse(d).unwrap().files[0];
        assert_eq!(
            (f.old_path.as_deref(), f.new_path.as_deref()),
            (Some("f"), Some("g"))
        );
        assert_eq!(f.hunks[0].section, "sec");
    }

    #[test]
    fn empty_context_lines_count_as_context() {
        let d = concat!(
            "--- a/f\n",
            "+++ b/f\n",
            "@@ -1,4 +1,4 @@\n",
            " a\n",
            "\n",
            "-b\n",
            "+c\n",
            "\n",
        );
        let r = concat!(
            "--- a/f\n",
            "+++ b/f\n",
            "@@ -1,4 +1,4 @@\n",
            " a\n",
            "\n",
            "-c\n",
            "+b\n",
            "\n",
        );
        check(d, r);
        let lines = &parse(d).unwrap().files[0].hunks[0].lines;
        assert_eq!(lines[1].kind, LineKind::Context);
        assert_eq!(lines[1].content, "");
    }

    #[test]
    fn preamble_and_trailing_text_are_kept() {
        let d = concat!(
            "From 1234 Mon Sep 17 00:00:00 2001\n",
            "Subject: [PATCH] fix\n",
            "\n",
            "---\n",
            " f | 2 +-\n",
            "\n",
            "diff --git a/f b/f\n",
            "index 1..2 100644\n",
            "--- a/f\n",
            "+++ b/f\n",
            "@@ -1 +1 @@\n",
            "-a\n",
            "+b\n",
            "-- \n",
            "2.40.0\n",
            "\n",
        );
        let r = concat!(
            "From 1234 Mon Sep 17 00:00:00 2001\n",
            "Subject: [PATCH] fix\n",
            "\n",
            "---\n",
            " f | 2 +-\n",
            "\n",
            "diff --git a/f b/f\n",
            "index 2..1 100644\n",
            "--- a/f\n",
            "+++ b/f\n",
            "@@ -1 +1 @@\n",
            "-b\n",
            "+a\n",
            "-- \n",
            "2.40.0\n",
            "\n",
        );
        check(d, r);
        let p = parse(d).unwrap();
        assert_eq!(
            p.preamble,
            "From 1234 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] fix\n\n---\n f | 2 +-\n\n"
        );
        assert!(p.files[0].text().ends_with("+b\n-- \n2.40.0\n\n"));
        assert_eq!(&d[p.files[0].range.clone()], p.files[0].text());
        assert_eq!(p.files[0].line, 7);
    }

    #[test]
    fn missing_final_newline() {
        let d = "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b";
        check(d, "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-b\n+a");
    }

    #[test]
    fn plain_unified_diff_with_timestamps() {
        let d = concat!(
            "--- a/f.txt\t2024-01-01 00:00:00.000000000 +0000\n",
            "+++ b/f.txt\t2024-01-02 00:00:00.000000000 +0000\n",
            "@@ -1 +1 @@\n",
            "-a\n",
            "+b\n",
            "--- f2.txt\n",
            "+++ f2.txt\n",
            "@@ -1 +1 @@\n",
            "-c\n",
            "+d\n",
        );
        let r = concat!(
            "--- a/f.txt\t2024-01-02 00:00:00.000000000 +0000\n",
            "+++ b/f.txt\t2024-01-01 00:00:00.000000000 +0000\n",
            "@@ -1 +1 @@\n",
            "-b\n",
            "+a\n",
            "--- f2.txt\n",
            "+++ f2.txt\n",
            "@@ -1 +1 @@\n",
            "-d\n",
            "+c\n",
        );
        check(d, r);
        assert_eq!(parse(d).unwrap().paths(), vec!["f.txt", "f2.txt"]);
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

    #[test]
    fn parse_exposes_hunks() {
        let d = concat!(
            "diff --git a/f.py b/f.py\n",
            "index 1..2 100644\n",
            "--- a/f.py\n",
            "+++ b/f.py\n",
            "@@ -3,2 +3,3 @@ def g():\n",
            " a\n",
            "-b\n",
            "+c\n",
            "+d\n",
            "@@ -0,0 +1 @@\n",
            "+top\n",
        );
        let p = parse(d).unwrap();
        assert!(p.preamble.is_empty());
        let f = &p.files[0];
        assert_eq!(f.old_mode.as_deref(), Some("100644"));
        assert_eq!(f.text(), d);
        assert_eq!(f.range, 0..d.len());
        let h = &f.hunks[0];
        assert_eq!(
            (h.old_start, h.old_len, h.new_start, h.new_len),
            (3, 2, 3, 3)
        );
        assert_eq!((h.section.as_str(), h.line), ("def g():", 5));
        let kinds: Vec<LineKind> = h.lines.iter().map(|l| l.kind).collect();
        assert_eq!(
            kinds,
            [
                LineKind::Context,
                LineKind::Removed,
                LineKind::Added,
                LineKind::Added
            ]
        );
        assert_eq!(h.lines[3].content, "d");
        let h = &f.hunks[1];
        assert_eq!(
            (h.old_start, h.old_len, h.new_start, h.new_len),
            (0, 0, 1, 1)
        );
        assert_eq!(h.section, "");
    }

    #[test]
    fn split_files_keeps_exact_sections() {
        let src = "diff --git a/src/m.py b/src/m.py\n--- a/src/m.py\n+++ b/src/m.py\n@@ -1 +1 @@\n-a\n+b\n";
        let test = "diff --git a/tests/test_m.py b/tests/test_m.py\nnew file mode 100644\n--- /dev/null\n+++ b/tests/test_m.py\n@@ -0,0 +1 @@\n+x\n\n";
        let readme = "diff --git a/README b/README\nindex 1..2 100644\n--- a/README\n+++ b/README\n@@ -1 +1 @@\n-r\n+s\n";
        let moved = "diff --git a/tests/old.py b/lib/new.py\nsimilarity index 100%\nrename from tests/old.py\nrename to lib/new.py\n";
        let d = format!("{src}{test}{readme}{moved}");
        let (sel, rest) = split_files(&d, |p| p.starts_with("tests/")).unwrap();
        assert_eq!(sel, format!("{test}{moved}"));
        assert_eq!(rest, format!("{src}{readme}"));
        let (sel, rest) = split_files(&d, |_| false).unwrap();
        assert_eq!((sel.as_str(), rest.as_str()), ("", d.as_str()));
        // The preamble goes to neither part.
        let (sel, rest) = split_files(&format!("intro\n{src}"), |_| true).unwrap();
        assert_eq!((sel.as_str(), rest.as_str()), (src, ""));
    }

    // ---- git ground truth ------------------------------------------------------------

    mod git_truth {
        use super::super::reverse;
        use std::collections::BTreeMap;
        use std::fmt::Write as _;
        use std::path::{Path, PathBuf};
        use std::process::Command;

        fn git_available() -> bool {
            Command::new("git")
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        }

        fn git(dir: &Path, args: &[&str]) -> String {
            let out = Command::new("git")
                .args([
                    "-c",
                    "user.name=t",
                    "-c",
                    "user.email=t@t",
                    "-c",
                    "core.autocrlf=false",
                    "-c",
                    "core.filemode=true",
                    "-c",
                    "core.quotepath=true",
                    "-c",
                    "diff.noprefix=false",
                    "-c",
                    "diff.mnemonicPrefix=false",
                    "-c",
                    "diff.renames=true",
                    "-c",
                    "commit.gpgsign=false",
                    "-c",
                    "init.defaultBranch=main",
                ])
                .args(args)
                .current_dir(dir)
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .env("HOME", dir)
                .output()
                .expect("run git");
            assert!(
                out.status.success(),
                "git {args:?} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8(out.stdout).expect("git output is UTF-8")
        }

        fn write(root: &Path, rel: &str, bytes: &[u8]) {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, bytes).unwrap();
        }

        #[cfg(unix)]
        fn set_exec(root: &Path, rel: &str, exec: bool) {
            use std::os::unix::fs::PermissionsExt;
            let mode = if exec { 0o755 } else { 0o644 };
            std::fs::set_permissions(root.join(rel), std::fs::Permissions::from_mode(mode))
                .unwrap();
        }

        #[cfg(not(unix))]
        fn set_exec(_: &Path, _: &str, _: bool) {}

        /// Every file under `root` (but `.git`): relative path -> (bytes, executable).
        fn snapshot(root: &Path) -> BTreeMap<String, (Vec<u8>, bool)> {
            fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, (Vec<u8>, bool)>) {
                for entry in std::fs::read_dir(dir).unwrap() {
                    let path: PathBuf = entry.unwrap().path();
                    if path.file_name().is_some_and(|n| n == ".git") {
                        continue;
                    }
                    if path.is_dir() {
                        walk(root, &path, out);
                    } else {
                        let rel = path
                            .strip_prefix(root)
                            .unwrap()
                            .to_string_lossy()
                            .into_owned();
                        #[cfg(unix)]
                        let exec = {
                            use std::os::unix::fs::PermissionsExt;
                            std::fs::metadata(&path).unwrap().permissions().mode() & 0o111 != 0
                        };
                        #[cfg(not(unix))]
                        let exec = false;
                        out.insert(rel, (std::fs::read(&path).unwrap(), exec));
                    }
                }
            }
            let mut out = BTreeMap::new();
            walk(root, root, &mut out);
            out
        }

        fn numbered(prefix: &str, n: usize) -> String {
            (1..=n).fold(String::new(), |mut out, i| {
                writeln!(out, "{prefix} {i}").unwrap();
                out
            })
        }

        #[test]
        fn reverse_matches_git_apply_and_git_diff_r() {
            if !git_available() {
                eprintln!("skipped: git not found");
                return;
            }
            let tmp = tempfile::tempdir().unwrap();
            let repo = tmp.path().join("repo");
            std::fs::create_dir(&repo).unwrap();
            git(&repo, &["init", "-q"]);

            // The original tree.
            write(&repo, "mod.txt", numbered("line", 40).as_bytes());
            write(&repo, "gone.txt", b"bye\nbye\n");
            let py = (1..=12).fold(String::new(), |mut out, i| {
                writeln!(out, "def f{i}():\n    return {i}").unwrap();
                out
            });
            write(&repo, "old_name.py", py.as_bytes());
            write(&repo, "script.sh", b"#!/bin/sh\necho hi\n");
            write(&repo, "tool.sh", b"#!/bin/sh\necho tool\n");
            write(&repo, "nonl.txt", b"a\nb\nc");
            write(&repo, "addnl.txt", b"x\ny");
            write(&repo, "dropnl.txt", b"p\nq\n");
            write(&repo, "crlf.txt", b"one\r\ntwo\r\nthree\r\n");
            write(&repo, "with space.txt", b"s\n");
            write(&repo, "h\u{e9}llo.txt", b"h\n");
            write(&repo, "sub/deep/keep.txt", numbered("keep", 8).as_bytes());
            git(&repo, &["add", "-A"]);
            git(&repo, &["commit", "-q", "-m", "base"]);
            let before = snapshot(&repo);

            // The change.
            let mut m: Vec<String> = (1..=40).map(|i| format!("line {i}")).collect();
            m[2] = "LINE 3".into();
            m.insert(30, "inserted".into());
            m.remove(36);
            write(&repo, "mod.txt", (m.join("\n") + "\n").as_bytes());
            std::fs::remove_file(repo.join("gone.txt")).unwrap();
            write(&repo, "new.txt", b"hello\nworld\n");
            write(&repo, "empty.txt", b"");
            std::fs::remove_file(repo.join("old_name.py")).unwrap();
            write(
                &repo,
                "pkg/new_name.py",
                py.replace("return 7", "return 70").as_bytes(),
            );
            set_exec(&repo, "script.sh", true);
            write(&repo, "tool.sh", b"#!/bin/sh\necho TOOL\n");
            set_exec(&repo, "tool.sh", true);
            write(&repo, "nonl.txt", b"a\nb\nC");
            write(&repo, "addnl.txt", b"x\ny\n");
            write(&repo, "dropnl.txt", b"p\nq");
            write(&repo, "crlf.txt", b"one\r\n2\r\nthree\r\n");
            write(&repo, "with space.txt", b"S\n");
            write(&repo, "h\u{e9}llo.txt", b"H\n");
            write(
                &repo,
                "sub/deep/keep.txt",
                numbered("keep", 8).replace("keep 5", "KEEP 5").as_bytes(),
            );
            git(&repo, &["add", "-A"]);
            let after = snapshot(&repo);

            let d = git(
                &repo,
                &["diff", "--no-color", "--no-ext-diff", "-M", "HEAD"],
            );
            // Sanity: the diff has the constructs this test is about.
            for needle in [
                "new file mode 100644",
                "deleted file mode 100644",
                "rename from old_name.py",
                "old mode 100644",
                "\\ No newline at end of file",
                "\r\n",
                "\"a/h\\303\\251llo.txt\"",
                "--- a/with space.txt\t",
                "@@ -1,3 +1,3 @@",
            ] {
                assert!(d.contains(needle), "git diff lacks {needle:?}:\n{d}");
            }
            let rev = reverse(&d).unwrap();
            assert_eq!(reverse(&rev).unwrap(), d);

            // (a) git accepts the reversal, and it restores the original tree exactly.
            let patch = tmp.path().join("rev.patch");
            std::fs::write(&patch, &rev).unwrap();
            let patch = patch.to_str().unwrap();
            git(&repo, &["apply", "--check", patch]);
            git(&repo, &["apply", patch]);
            assert_eq!(
                snapshot(&repo),
                before,
                "applying reverse(d) did not restore the tree"
            );
            // ... and the forward diff takes it back.
            let fwd = tmp.path().join("fwd.patch");
            std::fs::write(&fwd, &d).unwrap();
            git(&repo, &["apply", fwd.to_str().unwrap()]);
            assert_eq!(snapshot(&repo), after);

            // (b) git's own reversal, `git diff -R`. Its only difference in convention:
            // it keeps each side's prefix with the side (`diff --git b/f a/f`,
            // `--- b/f`, `+++ a/f`), while `reverse` keeps `a/` on the old side and `b/`
            // on the new side, as every dataset patch has it; so the prefixes of git's
            // header lines are swapped back before comparing. Everything else (header
            // order, index hashes, modes, hunk ranges and order, the section text after
            // `@@`, no-newline markers, CRLF) must be byte-identical. The files are laid
            // out so that each hunk's function line lies outside the changes, since git
            // looks it up in the pre-image, which -R changes.
            let git_rev = git(
                &repo,
                &["diff", "--no-color", "--no-ext-diff", "-M", "-R", "HEAD"],
            );
            assert_eq!(
                rev,
                swap_r_prefixes(&git_rev),
                "ours:\n{rev}\ngit's:\n{git_rev}"
            );

            // (c) The reverse diff of two commits, with git's usual prefixes: identical.
            git(&repo, &["commit", "-q", "-m", "change"]);
            let git_back = git(
                &repo,
                &[
                    "diff",
                    "--no-color",
                    "--no-ext-diff",
                    "-M",
                    "HEAD",
                    "HEAD~1",
                ],
            );
            assert_eq!(rev, git_back);
        }

        /// Swaps the `a/` and `b/` prefixes on the header lines of `git diff -R` output.
        fn swap_r_prefixes(d: &str) -> String {
            let mut out = String::new();
            for line in d.split_inclusive('\n') {
                let header = [
                    "diff --git ",
                    "--- b/",
                    "+++ a/",
                    "--- \"b/",
                    "+++ \"a/",
                    "Binary files ",
                ]
                .iter()
                .any(|p| line.starts_with(p));
                if !header {
                    out.push_str(line);
                    continue;
                }
                let mut rest = line;
                while let Some(c) = rest.chars().next() {
                    let swapped = [
                        (" a/", " b/"),
                        (" b/", " a/"),
                        (" \"a/", " \"b/"),
                        (" \"b/", " \"a/"),
                    ]
                    .iter()
                    .find(|(from, _)| rest.starts_with(from));
                    if let Some((from, to)) = swapped {
                        out.push_str(to);
                        rest = &rest[from.len()..];
                    } else {
                        out.push(c);
                        rest = &rest[c.len_utf8()..];
                    }
                }
            }
            out
        }

        #[test]
        fn binary_files_match_git_diff_r() {
            if !git_available() {
                eprintln!("skipped: git not found");
                return;
            }
            let tmp = tempfile::tempdir().unwrap();
            let repo = tmp.path();
            git(repo, &["init", "-q"]);
            write(repo, "blob.bin", b"\x00\x01\x02binary\x00");
            write(repo, "gone.bin", b"\x00gone");
            git(repo, &["add", "-A"]);
            git(repo, &["commit", "-q", "-m", "base"]);
            write(repo, "blob.bin", b"\x00\x01\x03binary!\x00");
            write(repo, "new.bin", b"\x00new");
            std::fs::remove_file(repo.join("gone.bin")).unwrap();
            git(repo, &["add", "-A"]);
            let d = git(repo, &["diff", "--no-color", "--no-ext-diff", "HEAD"]);
            assert!(
                d.contains("Binary files /dev/null and b/new.bin differ"),
                "{d}"
            );
            let rev = reverse(&d).unwrap();
            assert!(
                rev.contains("Binary files a/new.bin and /dev/null differ"),
                "{rev}"
            );
            let git_rev = git(repo, &["diff", "--no-color", "--no-ext-diff", "-R", "HEAD"]);
            assert_eq!(rev, swap_r_prefixes(&git_rev));
            assert_eq!(reverse(&rev).unwrap(), d);
            // With --binary git writes literal blobs, which cannot be reversed.
            let d = git(
                repo,
                &["diff", "--no-color", "--no-ext-diff", "--binary", "HEAD"],
            );
            let err = reverse(&d).unwrap_err().to_string();
            assert!(
                err.contains("cannot be reversed without the blobs"),
                "{err}"
            );
        }
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
