//! The parts of a Python source that hold given lines' definitions, found without parsing.
//!
//! A scan of the source's lines (strings, comments, brackets and continued lines followed
//! as Python's tokenizer follows them) finds the lines that start a statement. The
//! top-level statements cut the file into blocks: a block runs from one top-level
//! statement to the next, decorators staying with what they decorate and `else`,
//! `elif`, `except` and `finally` with the statement they continue. A class's block is cut
//! the same way at its body's indentation. Parsing the blocks (and class headers) that
//! hold the lines, with tree-sitter's included ranges, gives those lines the same tree as
//! a parse of the whole file: each block is a whole statement, as it is in the file.
//!
//! The scan is conservative: a line it is unsure of (one starting with a string, a
//! bracket or a digit) never starts a block, which only makes the block bigger. A file
//! whose parsed blocks hold a syntax error is parsed whole by the caller.

use tree_sitter::{Point, Range};

/// What the first word of a statement's line makes of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// `@decorator`: the statement belongs to the definition below.
    Decorator,
    /// `class`.
    Class,
    /// `else`, `elif`, `except`, `finally`: the rest of the statement above.
    Continuation,
    /// Any other line starting with a letter or `_`.
    Other,
    /// A line starting otherwise (a string, a bracket, a digit, a non-ASCII character):
    /// never the start of a block.
    Opaque,
}

/// A line that starts a statement: not inside a string, brackets or a continued line,
/// neither blank nor a comment.
#[derive(Debug, Clone, Copy)]
pub(super) struct Statement {
    /// The byte offset of the line's start.
    pub(super) start: usize,
    /// The 0-based row.
    pub(super) row: usize,
    /// The indentation as tree-sitter's Python scanner counts it (a tab is 8 columns; a
    /// form feed or carriage return starts the count again).
    pub(super) indent: usize,
    pub(super) kind: Kind,
    /// The 0-based row of the statement's last line (its logical line's end).
    pub(super) end_row: usize,
    /// Whether the logical line ends with `:` (comments aside): a block follows.
    pub(super) colon: bool,
}

impl Statement {
    fn point(&self) -> Point {
        Point::new(self.row, 0)
    }
}

fn kind_of(line: &[u8]) -> Kind {
    match line.first() {
        Some(b'@') => Kind::Decorator,
        Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {
            let end = line
                .iter()
                .position(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
                .unwrap_or(line.len());
            match &line[..end] {
                b"class" => Kind::Class,
                b"else" | b"elif" | b"except" | b"finally" => Kind::Continuation,
                _ => Kind::Other,
            }
        }
        _ => Kind::Opaque,
    }
}

/// The index just past a line break at `i` (`\n` or `\r\n`), if one is there.
fn past_line_break(source: &[u8], i: usize) -> Option<usize> {
    match source.get(i..) {
        Some([b'\n', ..]) => Some(i + 1),
        Some([b'\r', b'\n', ..]) => Some(i + 2),
        _ => None,
    }
}

/// The index just past the string literal whose opening quote is at `i`, counting the
/// line breaks inside it into `row`. A one-quote string ends at its quote or, unclosed, at
/// the end of its line; a backslash escapes the next character (in raw strings too, as
/// far as where the literal ends is concerned).
/// Also whether the literal is closed.
fn skip_string(source: &[u8], i: usize, row: &mut usize) -> (usize, bool) {
    let quote = source[i];
    let triple = source.get(i + 1) == Some(&quote) && source.get(i + 2) == Some(&quote);
    let mut j = if triple { i + 3 } else { i + 1 };
    while j < source.len() {
        // Only a backslash, a line break or the quote can end or continue the literal.
        match memchr::memchr3(quote, b'\\', b'\n', &source[j..]) {
            Some(n) => j += n,
            None => break,
        }
        match source[j] {
            b'\\' => {
                if let Some(next) = past_line_break(source, j + 1) {
                    *row += 1;
                    j = next;
                } else {
                    j += 2;
                }
                continue;
            }
            b'\n' if triple => *row += 1,
            b'\n' => return (j, false),
            c if c == quote
                && (!triple
                    || (source.get(j + 1) == Some(&quote)
                        && source.get(j + 2) == Some(&quote))) =>
            {
                return (j + if triple { 3 } else { 1 }, true);
            }
            _ => {}
        }
        j += 1;
    }
    (source.len(), false)
}

/// Every line of `source` that starts a statement, in order.
fn statements(source: &[u8]) -> Vec<Statement> {
    scan(source).statements
}

/// What a scan of a Python source finds.
pub(super) struct Scan {
    /// The lines that start a statement, in order.
    pub(super) statements: Vec<Statement>,
    /// The rows holding a comment (outside strings), in order.
    pub(super) comment_rows: Vec<usize>,
    /// Whether every string and bracket is closed, every bracket closed was opened, and
    /// the last line does not continue.
    pub(super) balanced: bool,
}

/// The bytes the rest of a line is looked at for: a line break, a comment, a backslash, a
/// quote, a bracket.
const SPECIAL: [bool; 256] = {
    let mut special = [false; 256];
    let bytes = b"\n#\\\"'([{)]}";
    let mut k = 0;
    while k < bytes.len() {
        special[bytes[k] as usize] = true;
        k += 1;
    }
    special
};

/// The statements and comment rows of `source`.
pub(super) fn scan(source: &[u8]) -> Scan {
    let mut found: Vec<Statement> = Vec::new();
    let mut comment_rows = Vec::new();
    let (mut i, mut row, mut depth) = (0, 0, 0usize);
    let mut continued = false;
    // Whether the last statement's logical line is still going on, and the last byte of
    // it that is neither blank nor in a comment.
    let (mut open, mut last) = (false, 0u8);
    // No string left open, no bracket closed that was not opened.
    let mut balanced = true;
    while i < source.len() {
        // The start of a line, outside any string.
        let start = i;
        let mut indent = 0;
        while let Some(&c) = source.get(i) {
            match c {
                b' ' => indent += 1,
                b'\t' => indent += 8,
                b'\x0c' | b'\r' if past_line_break(source, i).is_none() => indent = 0,
                _ => break,
            }
            i += 1;
        }
        let code =
            past_line_break(source, i).is_none() && source.get(i).is_some_and(|&c| c != b'#');
        if code && depth == 0 && !continued {
            found.push(Statement {
                start,
                row,
                indent,
                kind: kind_of(&source[i..]),
                end_row: row,
                colon: false,
            });
            open = true;
        }
        continued = false;
        // The rest of the line, with any string that runs on past it.
        while i < source.len() && source[i] != b'\n' {
            // A run of bytes that mean nothing to the scan: only its last one that is not
            // blank counts.
            let run = source[i..]
                .iter()
                .position(|&c| SPECIAL[usize::from(c)])
                .map_or(source.len(), |n| i + n);
            if run > i {
                if let Some(&c) = source[i..run]
                    .iter()
                    .rev()
                    .find(|c| !c.is_ascii_whitespace())
                {
                    last = c;
                }
                i = run;
                continue;
            }
            match source[i] {
                b'#' => {
                    if comment_rows.last() != Some(&row) {
                        comment_rows.push(row);
                    }
                    i = memchr::memchr(b'\n', &source[i..]).map_or(source.len(), |n| i + n);
                    continue;
                }
                b'\\' => {
                    if let Some(next) = past_line_break(source, i + 1) {
                        // A continued line: the next line starts no statement.
                        continued = true;
                        i = next - 1;
                        continue;
                    }
                }
                b'"' | b'\'' => {
                    last = source[i];
                    let closed;
                    (i, closed) = skip_string(source, i, &mut row);
                    balanced &= closed;
                    continue;
                }
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => {
                    balanced &= depth > 0;
                    depth = depth.saturating_sub(1);
                }
                _ => {}
            }
            if !source[i].is_ascii_whitespace() {
                last = source[i];
            }
            i += 1;
        }
        if open && let Some(statement) = found.last_mut() {
            statement.end_row = row;
            if depth == 0 && !continued {
                statement.colon = last == b':';
                open = false;
            }
        }
        if i < source.len() {
            i += 1;
            row += 1;
        }
    }
    Scan {
        statements: found,
        comment_rows,
        balanced: balanced && !open,
    }
}

/// The indexes (into `statements`) of those at `indent` that start a block: not a
/// continuation of the statement above, not a definition under a decorator, not opaque.
fn block_starts(statements: &[Statement], indent: usize) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut decorated = false;
    for (i, s) in statements.iter().enumerate() {
        if s.indent != indent {
            continue;
        }
        if !decorated && !matches!(s.kind, Kind::Continuation | Kind::Opaque) {
            starts.push(i);
        }
        decorated = s.kind == Kind::Decorator;
    }
    starts
}

/// A block: its statements (a range of indexes), its bytes and its first row.
#[derive(Debug, Clone, Copy)]
struct Block {
    statements: (usize, usize),
    bytes: (usize, usize),
    row: usize,
}

/// The blocks `starts` cut `statements[first..last]` into, over the bytes `from..to`
/// whose first row is `row`: the first block begins at `from` even when the first start
/// comes later.
fn blocks(
    statements: &[Statement],
    starts: &[usize],
    (first, last): (usize, usize),
    (from, to, row): (usize, usize, usize),
) -> Vec<Block> {
    let mut cuts = starts.to_vec();
    if cuts.first() != Some(&first) {
        cuts.insert(0, first);
    }
    cuts.iter()
        .enumerate()
        .map(|(n, &s)| {
            let end = cuts.get(n + 1).copied().unwrap_or(last);
            let (start_byte, start_row) = if n == 0 {
                (from, row)
            } else {
                (statements[s].start, statements[s].row)
            };
            let end_byte = if end < last {
                statements[end].start
            } else {
                to
            };
            Block {
                statements: (s, end),
                bytes: (start_byte, end_byte),
                row: start_row,
            }
        })
        .collect()
}

/// The block holding 0-based `row`.
fn block_at(blocks: &[Block], row: usize) -> Block {
    blocks[blocks.partition_point(|b| b.row <= row).saturating_sub(1)]
}

/// For a top-level block that is a class whose body is cut into member blocks: the end
/// of the class's header (decorators, `class` line, docstring and anything else before
/// the first member) and the members.
fn members(statements: &[Statement], block: Block) -> Option<(usize, Vec<Block>)> {
    let (first, last) = block.statements;
    let header = (first..last).find(|&i| statements[i].kind != Kind::Decorator)?;
    if statements[header].kind != Kind::Class || statements[header].indent != 0 {
        return None;
    }
    let body = &statements[header + 1..last];
    let indent = body.first()?.indent;
    // Every statement of the body is at its indentation or deeper (else the block is not
    // one class, or not valid Python): nothing to cut.
    if indent == 0 || body.iter().any(|s| s.indent < indent) {
        return None;
    }
    let starts: Vec<usize> = block_starts(body, indent)
        .into_iter()
        .map(|i| i + header + 1)
        .collect();
    let first_member = statements[*starts.first()?];
    let members = blocks(
        statements,
        &starts,
        (starts[0], last),
        (first_member.start, block.bytes.1, first_member.row),
    );
    Some((first_member.start, members))
}

/// A class's header end and member blocks.
type Members = (usize, Vec<Block>);

/// The byte ranges of `source` to parse so that every 0-based row in `rows` gets the
/// same tree as in a parse of the whole source, in order and merged; `None` when that is
/// the whole source.
pub fn ranges_for_rows(source: &[u8], rows: impl IntoIterator<Item = usize>) -> Option<Vec<Range>> {
    let statements = statements(source);
    let top = blocks(
        &statements,
        &block_starts(&statements, 0),
        (0, statements.len()),
        (0, source.len(), 0),
    );
    let mut spans: Vec<(usize, usize)> = Vec::new();
    // A class's members are cut once for all the rows in it (rows come in order; a row
    // per line of a large class would otherwise cut it again for each).
    let mut cut: Option<(usize, Option<Members>)> = None;
    for row in rows {
        let block = block_at(&top, row);
        if cut
            .as_ref()
            .is_none_or(|(first, _)| *first != block.statements.0)
        {
            cut = Some((block.statements.0, members(&statements, block)));
        }
        match cut.as_ref().and_then(|(_, m)| m.as_ref()) {
            Some((header_end, members)) if row >= members[0].row => {
                spans.push((block.bytes.0, *header_end));
                spans.push(block_at(members, row).bytes);
            }
            _ => spans.push(block.bytes),
        }
    }
    spans.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (start, end) in spans {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    if merged.is_empty() || merged == [(0, source.len())] {
        return None;
    }
    let point_of = |byte: usize| point(source, &statements, byte);
    Some(
        merged
            .into_iter()
            .map(|(start, end)| Range {
                start_byte: start,
                end_byte: end,
                start_point: point_of(start),
                end_point: point_of(end),
            })
            .collect(),
    )
}

/// The point of a block's bound: the start of a statement's line, or either end of the
/// source.
fn point(source: &[u8], statements: &[Statement], byte: usize) -> Point {
    if byte == 0 {
        return Point::new(0, 0);
    }
    if let Ok(i) = statements.binary_search_by_key(&byte, |s| s.start) {
        return statements[i].point();
    }
    let row = memchr::memchr_iter(b'\n', &source[..byte]).count();
    let column = byte - memchr::memrchr(b'\n', &source[..byte]).map_or(0, |i| i + 1);
    Point::new(row, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "\
import os

X = \"\"\"
def fake():
    pass
\"\"\"

@deco
def f():
    return 1

class C:
    \"\"\"Doc.\"\"\"
    def m(self):
        return 2

    @property
    def p(self):
        return (3,
4)

if os.name:
    def g(): pass
else:
    def g(): return \\
1
";

    /// The first rows of the ranges parsed for `rows`, and the row each ends on.
    fn rows_parsed(rows: &[usize]) -> Vec<(usize, usize)> {
        ranges_for_rows(SOURCE.as_bytes(), rows.iter().copied())
            .expect("a part of the source")
            .iter()
            .map(|r| (r.start_point.row, r.end_point.row))
            .collect()
    }

    fn row_of(text: &str) -> usize {
        SOURCE
            .lines()
            .position(|l| l == text)
            .expect("a line of the source")
    }

    #[test]
    fn statements_skip_strings_brackets_and_continued_lines() {
        let starts: Vec<(usize, usize)> = statements(SOURCE.as_bytes())
            .iter()
            .map(|s| (s.row, s.indent))
            .collect();
        let row = row_of;
        assert_eq!(
            starts,
            [
                (row("import os"), 0),
                (row("X = \"\"\""), 0),
                (row("@deco"), 0),
                (row("def f():"), 0),
                (row("    return 1"), 4),
                (row("class C:"), 0),
                (row("    \"\"\"Doc.\"\"\""), 4),
                (row("    def m(self):"), 4),
                (row("        return 2"), 8),
                (row("    @property"), 4),
                (row("    def p(self):"), 4),
                (row("        return (3,"), 8),
                (row("if os.name:"), 0),
                (row("    def g(): pass"), 4),
                (row("else:"), 0),
                (row("    def g(): return \\"), 4),
            ]
        );
    }

    #[test]
    fn a_row_gets_its_top_level_block_or_its_class_member() {
        let row = row_of;
        // A line of a string that looks like a definition is the string's statement.
        assert_eq!(
            rows_parsed(&[row("def fake():")]),
            [(row("X = \"\"\""), row("@deco"))]
        );
        // A decorator and its function are one block.
        assert_eq!(
            rows_parsed(&[row("@deco")]),
            [(row("@deco"), row("class C:"))]
        );
        // In a class: the header (up to the first member) and the member, here adjacent.
        assert_eq!(
            rows_parsed(&[row("        return 2")]),
            [(row("class C:"), row("    @property"))]
        );
        // A continued line inside brackets stays with its member; the header comes along.
        assert_eq!(
            rows_parsed(&[row("4)")]),
            [
                (row("class C:"), row("    def m(self):")),
                (row("    @property"), row("if os.name:"))
            ]
        );
        // The class's docstring is part of its header: the whole class is parsed.
        assert_eq!(
            rows_parsed(&[row("    \"\"\"Doc.\"\"\"")]),
            [(row("class C:"), row("if os.name:"))]
        );
        // `else` continues the `if`; the source's end is the last range's end.
        assert_eq!(
            rows_parsed(&[row("1"), row("import os")]),
            [(0, row("X = \"\"\"")), (row("if os.name:"), row("1") + 1)]
        );
    }

    #[test]
    fn rows_in_every_block_are_the_whole_source() {
        let rows = 0..SOURCE.lines().count();
        assert!(ranges_for_rows(SOURCE.as_bytes(), rows).is_none());
    }
}
