//! The first pass over a diff: line indices of everything that parsing into the public
//! view and reversal need, with hunk counts checked against their headers.

use super::paths::{
    decode, is_dev_null, label_path, split_pair, strip_component, token_names, unquote_prefix,
};
use super::{DiffError, HunkSide, LineKind};

// ---------------------------------------------------------------------------------------
// Lines

/// One line of the input: `body` without its `\n`, `eol` the `\n` or "" (last line).
#[derive(Debug, Clone, Copy)]
pub(super) struct Line<'a> {
    pub(super) body: &'a str,
    pub(super) eol: &'a str,
    pub(super) start: usize,
}

impl<'a> Line<'a> {
    /// The body without a trailing `\r`.
    pub(super) fn content(&self) -> &'a str {
        self.body.strip_suffix('\r').unwrap_or(self.body)
    }

    /// The body's trailing `\r`, if any.
    pub(super) fn cr(&self) -> &'static str {
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

pub(super) const OLD_MODE: &str = "old mode ";
pub(super) const NEW_MODE: &str = "new mode ";
pub(super) const DELETED_FILE: &str = "deleted file mode ";
pub(super) const NEW_FILE: &str = "new file mode ";
pub(super) const COPY_FROM: &str = "copy from ";
pub(super) const COPY_TO: &str = "copy to ";
pub(super) const RENAME_OLD: &str = "rename old ";
pub(super) const RENAME_NEW: &str = "rename new ";
pub(super) const RENAME_FROM: &str = "rename from ";
pub(super) const RENAME_TO: &str = "rename to ";
pub(super) const SIMILARITY: &str = "similarity index ";
pub(super) const DISSIMILARITY: &str = "dissimilarity index ";
pub(super) const INDEX: &str = "index ";
pub(super) const DIFF_GIT: &str = "diff --git ";
pub(super) const BINARY_FILES: &str = "Binary files ";
pub(super) const GIT_BINARY: &str = "GIT binary patch";

/// A header line's index and its label (`rename from `, ...).
pub(super) type LabeledLine = Option<(usize, &'static str)>;

/// Line indices of a git extended header's lines.
#[derive(Debug, Default)]
pub(super) struct Headers {
    pub(super) old_mode: Option<usize>,
    pub(super) new_mode: Option<usize>,
    pub(super) deleted_file: Option<usize>,
    pub(super) new_file: Option<usize>,
    pub(super) copy_from: Option<usize>,
    pub(super) copy_to: Option<usize>,
    pub(super) rename_old: Option<usize>,
    pub(super) rename_new: Option<usize>,
    pub(super) rename_from: Option<usize>,
    pub(super) rename_to: Option<usize>,
    pub(super) similarity: Option<usize>,
    pub(super) dissimilarity: Option<usize>,
    pub(super) index: Option<usize>,
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
    pub(super) fn rename_or_copy(&self) -> (LabeledLine, LabeledLine) {
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
pub(super) struct Item {
    pub(super) kind: LineKind,
    pub(super) line: usize,
    pub(super) marker: Option<usize>,
}

#[derive(Debug)]
pub(super) struct RawHunk<'a> {
    pub(super) header: usize,
    pub(super) end: usize,
    pub(super) old_range: &'a str,
    pub(super) new_range: &'a str,
    /// Everything after the second `@@` (section text, `\r`).
    pub(super) rest: &'a str,
    pub(super) old_start: usize,
    pub(super) old_len: usize,
    pub(super) new_start: usize,
    pub(super) new_len: usize,
    pub(super) items: Vec<Item>,
}

#[derive(Debug, Default)]
pub(super) struct RawFile<'a> {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) git_line: Option<usize>,
    /// The two tokens of the `diff --git` line.
    pub(super) git_tokens: Option<(&'a str, &'a str)>,
    pub(super) headers: Headers,
    pub(super) minus: Option<usize>,
    pub(super) plus: Option<usize>,
    pub(super) binary_files: Option<usize>,
    /// The two tokens of the `Binary files X and Y differ` line.
    pub(super) binary_tokens: Option<(&'a str, &'a str)>,
    pub(super) git_binary: Option<usize>,
    pub(super) hunks: Vec<RawHunk<'a>>,
}

#[derive(Debug)]
pub(super) struct Raw<'a> {
    pub(super) lines: Vec<Line<'a>>,
    pub(super) preamble_end: usize,
    pub(super) files: Vec<RawFile<'a>>,
}

struct Parser<'a> {
    lines: Vec<Line<'a>>,
}

pub(super) fn parse(diff: &str) -> Result<Raw<'_>, DiffError> {
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
