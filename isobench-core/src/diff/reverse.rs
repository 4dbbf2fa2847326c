//! Exact reversal of a diff: the raw line indices rewritten line by line.

use super::paths::{decode, exchange, strip_component};
use super::raw::{
    self, BINARY_FILES, COPY_FROM, COPY_TO, DELETED_FILE, DIFF_GIT, INDEX, Item, Line, NEW_FILE,
    NEW_MODE, OLD_MODE, RENAME_FROM, RENAME_NEW, RENAME_OLD, RENAME_TO, RawFile,
};
use super::{DiffError, LineKind};

/// See [`super::reverse`](fn@super::reverse).
pub(super) fn diff(diff: &str) -> Result<String, DiffError> {
    let raw = raw::parse(diff)?;
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
    use crate::diff::{LineKind, parse, reverse};

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

    // ---- git ground truth ------------------------------------------------------------

    mod git_truth {
        use crate::diff::reverse;
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
}
