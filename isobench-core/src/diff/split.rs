//! Splitting a whole-commit diff by file.

use super::DiffError;

/// See [`super::split_files`].
pub(super) fn files<F: Fn(&str) -> bool>(
    diff: &str,
    is_selected: F,
) -> Result<(String, String), DiffError> {
    let patch = super::parse(diff)?;
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

#[cfg(test)]
mod tests {
    use crate::diff::split_files;

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
}
