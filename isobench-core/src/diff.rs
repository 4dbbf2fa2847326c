//! Unified diffs as `git diff` writes them: parsing, exact reversal and splitting by
//! file.
//!
//! SWE-smith and SWE-MiniSandbox store the *bug-introducing* diff, while the canonical
//! record's `patch` is the fix, i.e. its reverse. [`reverse`] is a real unified-diff
//! reversal that works byte for byte: whatever it does not need to change (line
//! endings, CRLF content, section text after `@@ ... @@`, quoting, text before the
//! first file or after the last hunk) comes out as it went in. It is an involution,
//! `reverse(reverse(d)) == d`, and on `git diff` output it gives what `git diff -R` gives.
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

    /// The (from, to) lines naming a rename or copy source and destination.
    fn from_to(&self) -> (Option<(usize, &'static str)>, Option<(usize, &'static str)>) {
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
        if self.starts(i, "\\") {
            if let Some(last) = items.last_mut() {
                if last.marker.is_none() {
                    last.marker = Some(i);
                    i += 1;
                }
            }
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
        if let (Some((from, from_label)), Some((to, to_label))) = file.headers.from_to() {
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

/// Splits `rest` into two path tokens around `sep`; returns the separator's offset.
///
/// A quoted first token ends at its closing quote; a quoted last token starts at its
/// opening quote. Otherwise a unique separator is used, and with several candidates the
/// first one accepted by the earliest acceptor.
fn split_pair(rest: &str, sep: &str, accept: &[&dyn Fn(&str, &str) -> bool]) -> Option<usize> {
    if let Some((_, len)) = unquote_prefix(rest) {
        if rest.get(len..).is_some_and(|t| t.starts_with(sep)) {
            return Some(len);
        }
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
    let (from, to) = h.from_to();
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
            // Labels stay where they are, values swap.
            (Some(a), Some(b)) => {
                set(a, format!("{la}{}{}", value(b, lb), cr(a)));
                set(b, format!("{lb}{}{}", value(a, la), cr(b)));
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
        let (old, new) = hashes
            .split_once("..")
            .ok_or_else(|| DiffError::MalformedHeader {
                line: i + 1,
                text: text.to_owned(),
                reason: "expected `index <old>..<new>[ <mode>]`",
            })?;
        set(i, format!("{INDEX}{new}..{old}{mode}{}", cr(i)));
    }
    if let (Some(m), Some(p)) = (f.minus, f.plus) {
        let old = content(m).get(4..).unwrap_or_default();
        let new = content(p).get(4..).unwrap_or_default();
        let (old, new) = exchange(old, new);
        set(m, format!("--- {old}{}", cr(m)));
        set(p, format!("+++ {new}{}", cr(p)));
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
