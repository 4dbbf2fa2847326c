//! Text from a file, as it may reach a terminal. A value a file holds (an `instance_id`, a
//! mined path, a key, a plugin's message) can hold control characters: an escape sequence
//! would set the terminal's title, clear the screen or fake a line of the output. Every
//! message that can repeat such a value is passed through [`shown`] before it is printed.

use std::borrow::Cow;
use std::fmt::Write as _;

/// `eprintln!` for a message that may hold a value from a file: the formatted text goes
/// through [`shown`] first. Every line the tool writes on stderr is said with it, but the
/// progress line's own cursor codes.
macro_rules! say {
    ($($arg:tt)*) => {
        eprintln!("{}", $crate::terminal::shown(&format!($($arg)*)))
    };
}
pub(crate) use say;

/// The most bytes one line of a message may take: a value longer than that (a 10 MB key) is
/// cut, with how much was left out.
pub const MAX_LINE_BYTES: usize = 4096;

/// Whether `c` is escaped: a control character other than a line end or a tab (C0, DEL,
/// C1), or one that reorders the text around it (bidirectional overrides and isolates).
fn escaped(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with each escaped character written as `\u{..}`, and each line longer than
/// [`MAX_LINE_BYTES`] cut there, followed by `... (N bytes more)`.
pub fn shown(text: &str) -> Cow<'_, str> {
    if !text.chars().any(escaped) && text.split('\n').all(|l| l.len() <= MAX_LINE_BYTES) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len().min(1 << 16));
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let mut written = 0;
        for (at, c) in line.char_indices() {
            if written >= MAX_LINE_BYTES {
                let _ = write!(out, "... ({} bytes more)", line.len() - at);
                break;
            }
            let before = out.len();
            if escaped(c) {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            } else {
                out.push(c);
            }
            written += out.len() - before;
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_shown_as_it_is() {
        assert!(matches!(shown("a\tb\nc é"), Cow::Borrowed("a\tb\nc é")));
    }

    #[test]
    fn control_characters_are_escaped_and_long_lines_cut() {
        assert_eq!(
            shown("id \x1b]0;x\x07 \r\u{202e}"),
            "id \\u{1b}]0;x\\u{7} \\u{d}\\u{202e}"
        );
        let long = format!("k{}\nend", "x".repeat(10 << 20));
        let cut = shown(&long);
        assert!(cut.len() < MAX_LINE_BYTES + 64, "{}", cut.len());
        assert!(cut.ends_with(&format!(
            "... ({} bytes more)\nend",
            (10 << 20) + 1 - MAX_LINE_BYTES
        )));
    }

    /// Every line the tool writes on stderr goes through [`say`] (or [`shown`]): no
    /// module prints with `eprintln!` or `eprint!` but this one and the progress line.
    #[test]
    fn stderr_is_written_only_through_shown() {
        fn walk(dir: &std::path::Path, found: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    walk(&path, found);
                    continue;
                }
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                let rust = path.extension().is_some_and(|e| e == "rs");
                if !rust || name == "terminal.rs" || name == "progress.rs" {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                let lines: Vec<&str> = text.lines().collect();
                for (i, line) in lines.iter().enumerate() {
                    let raw = ["eprintln!(", "eprint!("].iter().any(|m| line.contains(m));
                    // The call and its first arguments, as rustfmt lays them out.
                    let call = lines[i..lines.len().min(i + 3)].concat();
                    if raw && !call.contains("terminal::shown") {
                        found.push(format!("{}:{}: {}", path.display(), i + 1, line.trim()));
                    }
                }
            }
        }
        let mut found = Vec::new();
        walk(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut found,
        );
        assert!(
            found.is_empty(),
            "printed without `say!`:\n{}",
            found.join("\n")
        );
    }

    proptest::proptest! {
        #[test]
        fn nothing_shown_holds_a_control_character_or_a_long_line(text in ".{0,64}", repeat in 0usize..200) {
            let text = text.repeat(repeat);
            let out = shown(&text);
            proptest::prop_assert!(!out.chars().any(escaped));
            proptest::prop_assert!(out.split('\n').all(|l| l.len() <= MAX_LINE_BYTES + 40));
        }
    }
}
