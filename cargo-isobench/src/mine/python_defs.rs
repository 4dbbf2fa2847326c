//! The Python definitions holding given lines, found from the line scan of
//! [`super::python_ranges`] without parsing: the names tree-sitter's parse gives, where the
//! scan can tell them.
//!
//! In valid Python a statement's enclosing definitions are the statements above it with
//! less indentation that open a block: the block structure is the indentation. The scan
//! finds every statement (strings, brackets and continued lines followed), its
//! indentation, whether it opens a block (its logical line ends with `:`), and which
//! statements are `def`, `async def`, `class` and decorators. A line of a statement (its
//! first line or a continuation) belongs to that statement: to its definition when it is
//! one (a decorator to the definition below it), else to the definitions around it. A
//! blank line between two statements belongs to the nodes holding both: the definitions
//! around the statement after it, or the definition a decorator above it decorates.
//!
//! Where that reading could differ from tree-sitter's, the answer is `None` and the caller
//! parses: a source that is not UTF-8, holds a lone carriage return or a form feed, leaves
//! a string or bracket open or closes one never opened, whose
//! indentation does not form blocks (an indented line after a statement that opens none, a
//! block opened and left empty, a dedent to a level never opened), a decorator not followed
//! by a definition, a definition whose header is not `def name(` or `class name(`/`:` with
//! an ASCII name; and a comment line outside statements whose neighbours are named
//! differently, and a blank line next to such a comment (tree-sitter attaches the comment,
//! and the blank lines before it, to one of them by rules of its own).
//!
//! A syntax error the scan does not see (a statement written inside a call's brackets)
//! leaves the lines named by the indentation around them, where tree-sitter's recovery
//! from the error may name none.

use super::python_ranges::{Kind, Scan, Statement, scan};

/// A definition a statement makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Def {
    Function,
    Class,
}

/// A statement's place in the block structure.
#[derive(Debug, Clone, Copy)]
struct Node {
    /// The statement whose block holds this one.
    parent: Option<usize>,
    /// The definition this statement makes, and the bytes of its name.
    def: Option<(Def, usize, usize)>,
    /// For a decorator, the statement it decorates (a definition); else the statement.
    target: usize,
}

/// The definition (and its name's bytes) a statement starting at `line` makes; `Err` when
/// it starts with `def` or `class` (or `async def`) but is not read with certainty.
fn definition(source: &[u8], line: usize) -> Result<Option<(Def, usize, usize)>, ()> {
    let word_end = |from: usize| {
        from + source[from..]
            .iter()
            .position(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
            .unwrap_or(source.len() - from)
    };
    let blanks = |from: usize| {
        from + source[from..]
            .iter()
            .position(|c| !matches!(c, b' ' | b'\t'))
            .unwrap_or(source.len() - from)
    };
    let mut at = blanks(line);
    let mut word = &source[at..word_end(at)];
    if word == b"async" {
        let next = blanks(at + word.len());
        let following = &source[next..word_end(next)];
        if following != b"def" {
            return Ok(None);
        }
        if next == at + word.len() {
            return Err(());
        }
        at = next;
        word = following;
    }
    let def = match word {
        b"def" => Def::Function,
        b"class" => Def::Class,
        _ => return Ok(None),
    };
    let name = blanks(at + word.len());
    let name_end = word_end(name);
    let after = source.get(blanks(name_end)).copied();
    let opens = match def {
        Def::Function => after == Some(b'('),
        Def::Class => matches!(after, Some(b'(' | b':')),
    };
    if name == at + word.len() || name_end == name || source[name].is_ascii_digit() || !opens {
        return Err(());
    }
    Ok(Some((def, name, name_end)))
}

/// The block structure of the statements; `None` where indentation does not form blocks.
fn structure(source: &[u8], statements: &[Statement]) -> Option<Vec<Node>> {
    let mut nodes: Vec<Node> = Vec::with_capacity(statements.len());
    // The open blocks: their indentation and the statement opening them.
    let mut blocks: Vec<(usize, Option<usize>)> = vec![(0, None)];
    for (i, s) in statements.iter().enumerate() {
        match i.checked_sub(1).map(|p| &statements[p]) {
            Some(p) if p.colon => {
                if s.indent <= p.indent {
                    return None;
                }
                blocks.push((s.indent, Some(i - 1)));
            }
            _ => {
                while blocks.last().is_some_and(|b| b.0 > s.indent) {
                    blocks.pop();
                }
                if blocks.last().is_none_or(|b| b.0 != s.indent) {
                    return None;
                }
            }
        }
        let def = definition(source, s.start).ok()?;
        nodes.push(Node {
            parent: blocks.last().and_then(|b| b.1),
            def,
            target: i,
        });
    }
    if statements.last().is_some_and(|s| s.colon) {
        return None;
    }
    // A decorator decorates the next statement, a definition or a decorator, at its level.
    for i in (0..statements.len()).rev() {
        if statements[i].kind == Kind::Decorator {
            let next = statements.get(i + 1)?;
            if next.indent != statements[i].indent
                || (next.kind != Kind::Decorator && nodes[i + 1].def.is_none())
            {
                return None;
            }
            nodes[i].target = nodes[i + 1].target;
        }
    }
    Some(nodes)
}

/// A qualified definition name and the qualified name of the innermost test.
pub type Named = (String, Option<String>);

/// The name of the definitions enclosing a line, from the innermost statement whose node
/// holds it (`from`, itself a definition or not) outwards, as tree-sitter's walk names it:
/// functions always, classes once a function is inside them.
fn name(source: &[u8], nodes: &[Node], from: Option<usize>) -> Option<Named> {
    let mut names: Vec<&[u8]> = Vec::new();
    let mut test_at = None;
    let mut at = from;
    while let Some(i) = at {
        if let Some((def, start, end)) = nodes[i].def {
            let word = &source[start..end];
            match def {
                Def::Function => {
                    if test_at.is_none() && word.starts_with(b"test") {
                        test_at = Some(names.len());
                    }
                    names.push(word);
                }
                Def::Class if !names.is_empty() => names.push(word),
                Def::Class => {}
            }
        }
        at = nodes[i].parent;
    }
    if names.is_empty() {
        return None;
    }
    let join = |names: &[&[u8]]| {
        names
            .iter()
            .rev()
            .map(|n| String::from_utf8_lossy(n))
            .collect::<Vec<_>>()
            .join(".")
    };
    Some((join(&names), test_at.map(|i| join(&names[i..]))))
}

/// What the scan makes of a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Answer {
    /// The line's definition (`None`: outside any).
    Told(Option<Named>),
    /// The scan cannot tell: the line is for the parser.
    Unsure,
}

/// What the scan reads of a whole source, kept to answer for any of its lines: the
/// statements, the comment rows, the block structure and the number of rows.
#[derive(Debug)]
pub(super) struct Structure {
    statements: Vec<Statement>,
    comment_rows: Vec<usize>,
    nodes: Vec<Node>,
    rows: usize,
}

impl Structure {
    /// The structure of `source`; `None` when it is not read with certainty.
    pub(super) fn of(source: &[u8]) -> Option<Self> {
        if simdutf8::basic::from_utf8(source).is_err()
            || memchr::memchr(b'\x0c', source).is_some()
            || memchr::memchr_iter(b'\r', source).any(|i| source.get(i + 1) != Some(&b'\n'))
        {
            return None;
        }
        let Scan {
            statements,
            comment_rows,
            balanced,
        } = scan(source);
        if !balanced {
            return None;
        }
        let nodes = structure(source, &statements)?;
        let rows = memchr::memchr_iter(b'\n', source).count() + 1;
        Some(Self {
            statements,
            comment_rows,
            nodes,
            rows,
        })
    }
}

/// The definition enclosing each 1-based line of `lines` in the Python `source`, named
/// with its enclosing test, as [`super::functions`] names it from a tree-sitter parse:
/// `None` for the whole source when its structure is not read with certainty (see the
/// module's documentation), else for each line its name, or [`Answer::Unsure`] where the
/// scan cannot tell.
#[cfg(test)]
pub(super) fn each_line(source: &[u8], lines: &[usize]) -> Option<Vec<Answer>> {
    Some(answers(source, &Structure::of(source)?, lines))
}

/// For each 1-based line of `lines` of `source`, whose structure is `read`, its name, or
/// [`Answer::Unsure`] where the scan cannot tell.
pub(super) fn answers(source: &[u8], read: &Structure, lines: &[usize]) -> Vec<Answer> {
    let Structure {
        statements,
        comment_rows,
        nodes,
        rows,
    } = read;
    let (nodes, rows) = (nodes.as_slice(), *rows);
    // The innermost statement whose node holds a statement's lines.
    let own = |i: usize| Some(nodes[i].target);
    lines
        .iter()
        .map(|&line| {
            let Some(row) = line.checked_sub(1).filter(|&r| r < rows) else {
                return Answer::Told(None);
            };
            let after = statements.partition_point(|s| s.row <= row);
            let before = after.checked_sub(1);
            if let Some(p) = before
                && row <= statements[p].end_row
            {
                return Answer::Told(name(source, nodes, own(p)));
            }
            // Between statements `before` and `after`: what holds both.
            let around = nodes.get(after).and_then(|n| n.parent);
            let between = match before {
                Some(p) if statements[p].kind == Kind::Decorator => own(p),
                _ => around,
            };
            // The rows between the two statements.
            let gap = (
                before.map_or(0, |p| statements[p].end_row + 1),
                statements.get(after).map_or(rows, |n| n.row),
            );
            let first_comment = comment_rows.partition_point(|&r| r < gap.0);
            if comment_rows.get(first_comment).is_none_or(|&r| r >= gap.1) {
                return Answer::Told(name(source, nodes, between));
            }
            // Comment lines: tree-sitter puts each in one of the nodes from the statement
            // before (and those holding it) out to those holding the statement after, and
            // a blank line next to them may go with them; when all name the same, that is
            // the name.
            let previous = before.and_then(own);
            let named = name(source, nodes, between);
            if name(source, nodes, previous) == named {
                Answer::Told(named)
            } else {
                Answer::Unsure
            }
        })
        .collect()
}
