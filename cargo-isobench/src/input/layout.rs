//! How a JSON input is laid out (JSON Lines or one array), by its name or its first byte.

use std::io::{self, BufRead};
use std::path::Path;

use super::source::{Compression, Input};

/// How a file's records are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One JSON object per line.
    JsonLines,
    /// One JSON array of objects.
    JsonArray,
}

impl Layout {
    /// The layout a path's extension names: `.json` is an array, `.jsonl`/`.ndjson` lines
    /// (an input named `.json` is still read as lines when it does not start with `[`). A compression extension (`.gz`, `.zst`)
    /// is looked through: `x.jsonl.gz` is JSON Lines.
    pub fn from_extension(path: &Path) -> Option<Self> {
        let path = match Compression::of(path) {
            Compression::None => path,
            _ => Path::new(path.file_stem()?),
        };
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "json" => Some(Self::JsonArray),
            "jsonl" | "ndjson" => Some(Self::JsonLines),
            _ => None,
        }
    }
}

/// The layout of an input: JSON Lines when its extension says so, otherwise told by the
/// first byte that is not blank (`[`: an array), so that a `.json` file holding JSON Lines,
/// as some published datasets are, is read as what it holds.
pub(super) fn input_layout(source: &Input, reader: &mut impl BufRead) -> io::Result<Layout> {
    match source {
        Input::File(p) if Layout::from_extension(p) == Some(Layout::JsonLines) => {
            Ok(Layout::JsonLines)
        }
        _ => sniff(reader),
    }
}

fn sniff(reader: &mut impl BufRead) -> io::Result<Layout> {
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(Layout::JsonLines);
        }
        let whole = buf.len();
        let buf = buf.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(buf);
        if let Some(i) = buf.iter().position(|b| !b.is_ascii_whitespace()) {
            return Ok(if buf[i] == b'[' {
                Layout::JsonArray
            } else {
                Layout::JsonLines
            });
        }
        reader.consume(whole);
    }
}
