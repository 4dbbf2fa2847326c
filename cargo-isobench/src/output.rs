//! Writing records: JSONL or a JSON array, to stdout or to a file replaced atomically
//! (a temporary file next to it, renamed into place once complete).

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use isobench_core::codec::JsonStyle;
use serde_json::{Map, Value};

use crate::errors::CliError;
use crate::input::Layout;

/// Where records go.
#[derive(Debug)]
pub struct RecordWriter {
    sink: Sink,
    layout: Layout,
    style: JsonStyle,
    count: u64,
}

#[derive(Debug)]
enum Sink {
    Stdout(BufWriter<io::Stdout>),
    File {
        out: BufWriter<File>,
        temp: PathBuf,
        dest: PathBuf,
    },
    Discard,
}

/// The temporary file an output is written to before the rename.
pub fn temp_path(dest: &Path) -> PathBuf {
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    dest.with_file_name(format!(".{name}.isobench-{}.tmp", std::process::id()))
}

impl RecordWriter {
    /// Writes to stdout (`None`) or to `path`, refusing to replace an existing file
    /// unless `overwrite`.
    pub fn create(
        path: Option<&Path>,
        overwrite: bool,
        style: JsonStyle,
    ) -> Result<Self, CliError> {
        let Some(dest) = path else {
            return Ok(Self {
                sink: Sink::Stdout(BufWriter::with_capacity(1 << 20, io::stdout())),
                layout: Layout::JsonLines,
                style,
                count: 0,
            });
        };
        if dest.exists() && !overwrite {
            return Err(CliError::OutputExists(dest.to_owned()));
        }
        let temp = temp_path(dest);
        let file = File::create(&temp).map_err(|e| CliError::Write {
            path: dest.to_owned(),
            source: e,
        })?;
        Ok(Self {
            sink: Sink::File {
                out: BufWriter::with_capacity(1 << 20, file),
                temp,
                dest: dest.to_owned(),
            },
            layout: Layout::from_extension(dest).unwrap_or(Layout::JsonLines),
            style,
            count: 0,
        })
    }

    /// A writer that writes nothing (`--dry-run`).
    pub fn discard() -> Self {
        Self {
            sink: Sink::Discard,
            layout: Layout::JsonLines,
            style: JsonStyle::Compact,
            count: 0,
        }
    }

    /// The style records are written in.
    pub fn set_style(&mut self, style: JsonStyle) {
        self.style = style;
    }

    fn path(&self) -> PathBuf {
        match &self.sink {
            Sink::File { dest, .. } => dest.clone(),
            _ => PathBuf::from("-"),
        }
    }

    /// Writes one record.
    pub fn write(&mut self, record: &Map<String, Value>) -> Result<(), CliError> {
        let (style, layout, first) = (self.style, self.layout, self.count == 0);
        self.count += 1;
        let result = match &mut self.sink {
            Sink::Discard => return Ok(()),
            Sink::Stdout(out) => write_one(out, record, style, layout, first),
            Sink::File { out, .. } => write_one(out, record, style, layout, first),
        };
        result.map_err(|e| CliError::Write {
            path: self.path(),
            source: e,
        })
    }

    /// Completes the output: closes a JSON array, flushes, syncs and renames the
    /// temporary file into place.
    pub fn finish(mut self) -> Result<(), CliError> {
        let path = self.path();
        let err = |e| CliError::Write {
            path: path.clone(),
            source: e,
        };
        let (layout, empty) = (self.layout, self.count == 0);
        match std::mem::replace(&mut self.sink, Sink::Discard) {
            Sink::Discard => Ok(()),
            Sink::Stdout(mut out) => {
                close(&mut out, layout, empty).map_err(err)?;
                out.flush().map_err(err)
            }
            Sink::File {
                mut out,
                temp,
                dest,
            } => {
                let done = close(&mut out, layout, empty)
                    .and_then(|()| out.flush())
                    .and_then(|()| out.get_ref().sync_all())
                    .and_then(|()| fs::rename(&temp, &dest));
                if done.is_err() {
                    let _ = fs::remove_file(&temp);
                }
                done.map_err(err)
            }
        }
    }
}

impl Drop for RecordWriter {
    /// An output not finished is abandoned: its temporary file is removed and the
    /// destination is left as it was.
    fn drop(&mut self) {
        if let Sink::File { temp, .. } = &self.sink {
            let _ = fs::remove_file(temp);
        }
    }
}

fn write_one(
    out: &mut impl Write,
    record: &Map<String, Value>,
    style: JsonStyle,
    layout: Layout,
    first: bool,
) -> io::Result<()> {
    if layout == Layout::JsonArray {
        out.write_all(if first { b"[\n" } else { b",\n" })?;
    }
    style.write(&mut *out, record)?;
    if layout == Layout::JsonLines {
        out.write_all(b"\n")?;
    }
    Ok(())
}

fn close(out: &mut impl Write, layout: Layout, empty: bool) -> io::Result<()> {
    if layout == Layout::JsonArray {
        out.write_all(if empty { b"[]\n" } else { b"\n]\n" })?;
    }
    Ok(())
}
