//! The text git writes around a diff's hunks: the `diff --git` header, a rename's and a
//! mode change's lines, `index`, the `---`/`+++` names (quoted as git quotes them), and
//! each line of the diff as libgit2 reports it.

use std::fmt::Write as _;

use git2::Oid;

use super::renames;

/// One line of git's diff text.
#[derive(Debug)]
pub struct Line<'a> {
    /// libgit2's origin: `F` file header, `H` hunk header, `+`, `-`, ` `, `B` binary, ...
    pub origin: char,
    /// The text (without the `+`/`-`/` ` prefix).
    pub content: &'a [u8],
    /// `(old_start, old_lines, new_start, new_lines)` of a hunk header.
    pub hunk: Option<(usize, usize, usize, usize)>,
    /// The line's number on the old side.
    pub old_lineno: Option<u32>,
    /// The line's number on the new side.
    pub new_lineno: Option<u32>,
}

/// A file's header as git writes it up to its `index` line, and the names its
/// `---`/`+++` (or `Binary files`) line gives the two sides.
pub(super) struct GitHeader {
    pub(super) header: String,
    pub(super) a: String,
    pub(super) b: String,
}

/// The `diff --git` line, and a rename's mode and similarity lines.
pub(super) fn git_header_start(
    old: Option<&Side>,
    new: Option<&Side>,
    similarity: Option<u64>,
) -> String {
    let either = new.or(old).expect("a file has a side");
    let (old_raw, new_raw) = (&old.unwrap_or(either).raw, &new.unwrap_or(either).raw);
    let (old_mode, new_mode) = (old.map_or(0, |s| s.mode), new.map_or(0, |s| s.mode));
    let mut header = format!(
        "diff --git {} {}\n",
        quote_path("a/", old_raw),
        quote_path("b/", new_raw)
    );
    let unchanged = old.map(|s| s.id) == new.map(|s| s.id);
    if (similarity.is_some() || unchanged) && old_mode != new_mode {
        let _ = write!(header, "old mode {old_mode:o}\nnew mode {new_mode:o}\n");
    }
    if let Some(score) = similarity {
        let _ = write!(
            header,
            "similarity index {}%\nrename from {}\nrename to {}\n",
            renames::percent(score),
            quote_path("", old_raw),
            quote_path("", new_raw)
        );
    }
    header
}

/// git's header of a file whose blobs differ, up to its `index` line; `None` when the
/// blobs are the same.
pub(super) fn git_header(
    old: Option<&Side>,
    new: Option<&Side>,
    similarity: Option<u64>,
) -> Option<GitHeader> {
    let (old_id, new_id) = (old.map(|s| s.id), new.map(|s| s.id));
    if old_id == new_id {
        return None;
    }
    let mut header = git_header_start(old, new, similarity);
    let (old_mode, new_mode) = (old.map_or(0, |s| s.mode), new.map_or(0, |s| s.mode));
    let short = |id: Option<Oid>| match id {
        Some(id) => id.to_string()[..7].to_owned(),
        None => "0000000".to_owned(),
    };
    if old_mode == new_mode {
        let _ = writeln!(
            header,
            "index {}..{} {new_mode:o}",
            short(old_id),
            short(new_id)
        );
    } else {
        if similarity.is_none() {
            match (old_mode, new_mode) {
                (0, mode) => {
                    let _ = writeln!(header, "new file mode {mode:o}");
                }
                (mode, 0) => {
                    let _ = writeln!(header, "deleted file mode {mode:o}");
                }
                (from, to) => {
                    let _ = write!(header, "old mode {from:o}\nnew mode {to:o}\n");
                }
            }
        }
        let _ = writeln!(header, "index {}..{}", short(old_id), short(new_id));
    }
    let name = |prefix: &str, side: Option<&Side>| match side {
        Some(side) => quote_path(prefix, &side.raw),
        None => "/dev/null".to_owned(),
    };
    Some(GitHeader {
        header,
        a: name("a/", old),
        b: name("b/", new),
    })
}

/// One side of a file in a diff.
pub(super) struct Side {
    pub(super) path: String,
    pub(super) raw: Vec<u8>,
    pub(super) id: Oid,
    pub(super) mode: u32,
}

impl Side {
    pub(super) fn of(file: &git2::DiffFile<'_>) -> Self {
        let raw = file.path_bytes().unwrap_or_default().to_vec();
        Self {
            path: String::from_utf8_lossy(&raw).into_owned(),
            raw,
            id: file.id(),
            mode: u32::from(file.mode()),
        }
    }
}

/// A file's header as git writes it, from libgit2's.
pub(super) struct FileHeaderText {
    pub(super) bytes: Vec<u8>,
    /// Made binary here: the attributes say so and libgit2 wrote a text header.
    pub(super) binary: bool,
}

/// git's header from libgit2's `text`: no `---`/`+++` lines for an `empty` file (git
/// writes none for a file with no hunk); a tab after a name holding a blank, as git
/// writes; and for a file its attributes make binary, `Binary files A and B differ` in
/// place of the `---`/`+++` lines.
pub(super) fn file_header(text: &[u8], empty: bool, attr_binary: bool) -> FileHeaderText {
    let mut bytes = Vec::with_capacity(text.len() + 2);
    let (mut old_name, mut new_name) = (None, None);
    for line in text.split_inclusive(|&b| b == b'\n') {
        let body = line.strip_suffix(b"\n").unwrap_or(line);
        let name = body
            .strip_prefix(b"--- ")
            .map(|n| (true, n))
            .or_else(|| body.strip_prefix(b"+++ ").map(|n| (false, n)));
        let Some((is_old, name)) = name else {
            bytes.extend_from_slice(line);
            continue;
        };
        if is_old {
            old_name = Some(name);
        } else {
            new_name = Some(name);
        }
        if empty || attr_binary {
            continue;
        }
        bytes.extend_from_slice(body);
        if name.contains(&b' ') {
            bytes.push(b'\t');
        }
        bytes.push(b'\n');
    }
    let binary = attr_binary && !empty && old_name.is_some() && new_name.is_some();
    if let (true, Some(a), Some(b)) = (binary, old_name, new_name) {
        bytes.extend_from_slice(b"Binary files ");
        bytes.extend_from_slice(a);
        bytes.extend_from_slice(b" and ");
        bytes.extend_from_slice(b);
        bytes.extend_from_slice(b" differ\n");
    }
    FileHeaderText { bytes, binary }
}

/// The tab git writes after a `---`/`+++` name that holds a blank.
pub(super) fn tab_after(name: &str) -> &'static str {
    if name.contains(' ') { "\t" } else { "" }
}

/// `prefix` and `path` as git writes a name in a header: in double quotes, with C escapes
/// and octal bytes, when the path holds a control character, `"`, `\\` or a byte that is
/// not ASCII (`core.quotePath`'s default).
pub(super) fn quote_path(prefix: &str, path: &[u8]) -> String {
    let needs = path
        .iter()
        .any(|&b| !(0x20..0x7f).contains(&b) || b == b'"' || b == b'\\');
    if !needs {
        return format!("{prefix}{}", String::from_utf8_lossy(path));
    }
    let mut out = format!("\"{prefix}");
    for &b in path {
        match b {
            0x07 => out.push_str("\\a"),
            0x08 => out.push_str("\\b"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            0x0b => out.push_str("\\v"),
            0x0c => out.push_str("\\f"),
            b'\r' => out.push_str("\\r"),
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b if !(0x20..0x7f).contains(&b) => {
                let _ = write!(out, "\\{b:03o}");
            }
            b => out.push(char::from(b)),
        }
    }
    out.push('"');
    out
}

pub(super) fn plain(origin: char, content: &[u8]) -> Line<'_> {
    Line {
        origin,
        content,
        hunk: None,
        old_lineno: None,
        new_lineno: None,
    }
}

pub(super) fn convert<'a>(
    hunk: Option<&git2::DiffHunk<'_>>,
    line: &'a git2::DiffLine<'_>,
) -> Line<'a> {
    let n = |v: u32| v as usize;
    Line {
        origin: line.origin(),
        content: line.content(),
        hunk: hunk.filter(|_| line.origin() == 'H').map(|h| {
            (
                n(h.old_start()),
                n(h.old_lines()),
                n(h.new_start()),
                n(h.new_lines()),
            )
        }),
        old_lineno: line.old_lineno(),
        new_lineno: line.new_lineno(),
    }
}
