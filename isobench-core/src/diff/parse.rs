//! The public view of a parsed diff ([`Patch`], [`FileDiff`], [`Hunk`]), built from the
//! raw line indices.

use super::paths::{decode, is_dev_null, label_path, strip_component};
use super::raw::{self, DELETED_FILE, INDEX, Line, NEW_FILE, NEW_MODE, OLD_MODE, RawFile, RawHunk};
use super::{DiffError, FileDiff, Hunk, HunkLine, Patch};

/// See [`super::parse`](fn@super::parse).
pub(super) fn patch(diff: &str) -> Result<Patch, DiffError> {
    let raw = raw::parse(diff)?;
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
#[cfg(test)]
mod tests {
    use crate::diff::{LineKind, parse};

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
}
