//! Where an input's bytes come from: stdin or a file, plain or compressed (`.gz`,
//! `.zst`, decoded as a stream), and the error when they cannot be read.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

use crate::errors::CliError;

/// Where records come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// Standard input.
    Stdin,
    /// A file.
    File(PathBuf),
    /// A directory of record folders, or one record folder, of a format whose records
    /// are folders.
    Folders {
        /// The directory.
        path: PathBuf,
        /// The file every record folder of the format holds (`task.toml`).
        name_file: String,
    },
}

impl Input {
    /// `-` is stdin; anything else a path.
    pub fn parse(arg: &Path) -> Self {
        if arg.as_os_str() == "-" {
            Self::Stdin
        } else {
            Self::File(arg.to_owned())
        }
    }

    /// The name used in messages.
    pub fn display(&self) -> String {
        match self {
            Self::Stdin => "-".into(),
            Self::File(p) | Self::Folders { path: p, .. } => p.display().to_string(),
        }
    }
}

/// How a file is compressed, by its last extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Not compressed.
    None,
    /// `.gz`.
    Gzip,
    /// `.zst`.
    Zstd,
}

impl Compression {
    /// The compression a path's last extension names.
    pub fn of(path: &Path) -> Self {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("gz") => Self::Gzip,
            Some("zst" | "zstd") => Self::Zstd,
            _ => Self::None,
        }
    }
}

/// Opens an input, decompressing it when its extension says so.
pub fn open(source: &Input) -> io::Result<Box<dyn Read + Send>> {
    match source {
        Input::Stdin => Ok(Box::new(io::stdin())),
        Input::Folders { path, .. } => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "`{}` is a directory of record folders, not a stream",
                path.display()
            ),
        )),
        Input::File(p) => {
            let file = File::open(p)?;
            Ok(match Compression::of(p) {
                Compression::None => Box::new(file),
                Compression::Gzip => {
                    let mut file = BufReader::with_capacity(BUFFER, file);
                    refuse_plain_as_gzip(&mut file)?;
                    Box::new(flate2::read::MultiGzDecoder::new(file))
                }
                Compression::Zstd => Box::new(zstd::stream::read::Decoder::new(file)?),
            })
        }
    }
}

/// A file named `.gz` must start as gzip data does (the decoder would read other bytes as
/// an empty stream); an empty file is an empty input.
fn refuse_plain_as_gzip(file: &mut impl io::BufRead) -> io::Result<()> {
    let head = file.fill_buf()?;
    if head.is_empty() || head.starts_with(&[0x1f, 0x8b]) {
        return Ok(());
    }
    Err(io::Error::other(
        "the name ends in `.gz` but the file is not gzip data (it does not start with the gzip magic bytes 1f 8b): rename it without `.gz`, or compress it",
    ))
}

/// The size of the read buffer.
pub(super) const BUFFER: usize = 1 << 20;

/// An input that cannot be read; for a compressed file, a decoding error says the data
/// is damaged or cut short.
pub(super) fn read_error(path: &Path, e: io::Error) -> CliError {
    let damaged = matches!(
        e.kind(),
        io::ErrorKind::UnexpectedEof | io::ErrorKind::InvalidData | io::ErrorKind::InvalidInput
    );
    let source = match Compression::of(path) {
        Compression::Gzip if damaged => io::Error::new(
            e.kind(),
            format!("{e}: the gzip data ends early or is damaged (a truncated download?)"),
        ),
        Compression::Zstd if damaged => io::Error::new(
            e.kind(),
            format!("{e}: the zstd data ends early or is damaged (a truncated download?)"),
        ),
        _ => e,
    };
    CliError::Read {
        path: path.to_owned(),
        source,
    }
}
