//! Writing records: JSONL or a JSON array (plain, `.gz` or `.zst` by extension), or
//! Parquet, to stdout or to a file written through [`OutputFile`] (a temporary file
//! created exclusively next to it, renamed into place once complete).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;

use isobench_core::codec::JsonStyle;
use serde_json::{Map, Value};

use crate::errors::CliError;
use crate::input::{Compression, Layout};
use crate::output_file::OutputError;
use crate::output_file::OutputFile;
use crate::parquet::ParquetOptions;

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
    /// A file (see [`OutputFile`]: a temporary file renamed into place, or a device or
    /// pipe written in place).
    File {
        out: Encoder,
        file: OutputFile,
    },
    /// A Parquet file, written a row group at a time.
    Parquet {
        out: Box<crate::parquet::ParquetWriter>,
        file: OutputFile,
    },
    Discard,
}

/// A file output, compressed or not.
enum Encoder {
    Plain(BufWriter<SyncingFile>),
    Gzip(flate2::write::GzEncoder<BufWriter<SyncingFile>>),
    Zstd(zstd::stream::write::Encoder<'static, BufWriter<SyncingFile>>),
}

/// The output buffer: small writes gather there, a batch of records (about a megabyte,
/// see [`RecordWriter::write_lines`]) goes past it, uncopied.
const WRITE_BUFFER: usize = 128 << 10;

/// How much is written to a file between two syncs in the background.
const SYNC_EVERY: u64 = 16 << 20;

/// A file whose data, as it is written, is synced to disk in the background every
/// [`SYNC_EVERY`] bytes, so that the sync before the rename has little left to wait
/// for: the disk works while records are converted, not after.
struct SyncingFile {
    file: File,
    unsynced: u64,
    syncer: Option<Syncer>,
}

/// The background syncs: a thread syncing a handle of the file each time it is asked.
struct Syncer {
    ask: mpsc::SyncSender<()>,
    thread: std::thread::JoinHandle<io::Result<()>>,
}

impl SyncingFile {
    /// `file`, synced in the background when `background` (and the handle can be
    /// cloned; otherwise only at the end).
    fn new(file: File, background: bool) -> Self {
        let syncer = background
            .then(|| file.try_clone().ok())
            .flatten()
            .map(|handle| {
                // One request waiting at most: a sync asked while one runs covers both.
                let (ask, asked) = mpsc::sync_channel::<()>(1);
                let thread = std::thread::spawn(move || {
                    for () in asked {
                        handle.sync_data()?;
                    }
                    Ok(())
                });
                Syncer { ask, thread }
            });
        Self {
            file,
            unsynced: 0,
            syncer,
        }
    }

    /// Ends the background syncs and syncs the rest: the whole file is then on disk.
    /// A failed background sync is an error here (the kernel may not report it twice).
    fn sync(self) -> io::Result<()> {
        if let Some(Syncer { ask, thread }) = self.syncer {
            drop(ask);
            thread
                .join()
                .map_err(|_| io::Error::other("the thread syncing the output panicked"))??;
        }
        self.file.sync_all()
    }
}

impl Write for SyncingFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let written = self.file.write(buf)?;
        self.unsynced += written as u64;
        if self.unsynced >= SYNC_EVERY {
            self.unsynced = 0;
            if let Some(syncer) = &self.syncer {
                // Full: a sync is already asked for. Gone: it failed, which `sync` reports.
                let _ = syncer.ask.try_send(());
            }
        }
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

impl std::fmt::Debug for Encoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Plain(_) => "Plain",
            Self::Gzip(_) => "Gzip",
            Self::Zstd(_) => "Zstd",
        })
    }
}

impl Encoder {
    /// An encoder writing `file`, synced in the background as it grows when
    /// `background` (see [`SyncingFile`]).
    fn new(file: File, compression: Compression, background: bool) -> io::Result<Self> {
        let out = BufWriter::with_capacity(WRITE_BUFFER, SyncingFile::new(file, background));
        Ok(match compression {
            Compression::None => Self::Plain(out),
            Compression::Gzip => Self::Gzip(flate2::write::GzEncoder::new(
                out,
                flate2::Compression::default(),
            )),
            Compression::Zstd => Self::Zstd(zstd::stream::write::Encoder::new(out, 3)?),
        })
    }

    /// Ends the compressed stream and flushes; the file, to sync.
    fn finish(self) -> io::Result<SyncingFile> {
        let out = match self {
            Self::Plain(out) => out,
            Self::Gzip(enc) => enc.finish()?,
            Self::Zstd(enc) => enc.finish()?,
        };
        out.into_inner().map_err(io::IntoInnerError::into_error)
    }
}

impl Write for Encoder {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Self::Plain(out) => out.write(buf),
            Self::Gzip(out) => out.write(buf),
            Self::Zstd(out) => out.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Self::Plain(out) => out.write_all(buf),
            Self::Gzip(out) => out.write_all(buf),
            Self::Zstd(out) => out.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Self::Plain(out) => out.flush(),
            Self::Gzip(out) => out.flush(),
            Self::Zstd(out) => out.flush(),
        }
    }
}

impl RecordWriter {
    /// Writes to stdout (`None`) or to `path`, refusing to replace an existing file
    /// unless `overwrite`.
    pub fn create(
        path: Option<&Path>,
        overwrite: bool,
        style: JsonStyle,
    ) -> Result<Self, CliError> {
        Self::create_with_schema(path, overwrite, style, None, ParquetOptions::default())
    }

    /// As [`Self::create`]; a `.parquet` output takes its column types from `schema`, the
    /// JSON Schema of the records written (without one, Parquet is refused), and is
    /// written as `parquet` says.
    pub fn create_with_schema(
        path: Option<&Path>,
        overwrite: bool,
        style: JsonStyle,
        schema: Option<&Value>,
        parquet: ParquetOptions,
    ) -> Result<Self, CliError> {
        let Some(dest) = path else {
            return Ok(Self {
                sink: Sink::Stdout(BufWriter::with_capacity(WRITE_BUFFER, io::stdout())),
                layout: Layout::JsonLines,
                style,
                count: 0,
            });
        };
        let write_err = |e| CliError::Write {
            path: dest.to_owned(),
            source: e,
        };
        let is_parquet = crate::parquet::is_parquet(dest);
        if is_parquet && schema.is_none() {
            return Err(OutputError::JsonLinesOnly(dest.to_owned()).into());
        }
        if is_parquet && !crate::parquet::BUILT {
            return Err(crate::parquet::not_built(dest));
        }
        let file = OutputFile::create(dest, overwrite)?;
        if let Some(schema) = schema.filter(|_| is_parquet) {
            if file.in_place_of_dest() {
                return Err(write_err(io::Error::other(
                    "a Parquet output needs a regular file (its footer is written last)",
                )));
            }
            let handle = file.try_clone_file().map_err(write_err)?;
            let out =
                crate::parquet::ParquetWriter::new(handle, file.dir().to_owned(), schema, parquet)
                    .map_err(write_err)?;
            return Ok(Self {
                sink: Sink::Parquet {
                    out: Box::new(out),
                    file,
                },
                layout: Layout::JsonLines,
                style,
                count: 0,
            });
        }
        let handle = file.try_clone_file().map_err(write_err)?;
        let background = !file.in_place_of_dest();
        let out = Encoder::new(handle, Compression::of(dest), background).map_err(write_err)?;
        Ok(Self {
            sink: Sink::File { out, file },
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

    /// Where the records go (`-` for stdout).
    pub fn dest(&self) -> PathBuf {
        self.path()
    }

    fn path(&self) -> PathBuf {
        match &self.sink {
            Sink::File { file, .. } | Sink::Parquet { file, .. } => file.dest().to_owned(),
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
            Sink::Parquet { out, .. } => {
                out.note_style(style);
                out.write(record.clone())
            }
        };
        result.map_err(|e| CliError::Write {
            path: self.path(),
            source: e,
        })
    }

    /// Empty rows of the output's columns when it is Parquet: records converted into them
    /// apart go to [`Self::write_rows`].
    #[cfg_attr(not(feature = "parquet"), allow(unreachable_code))] // no Parquet sink then
    pub fn column_rows(&self) -> Option<crate::parquet::ColumnRows> {
        match &self.sink {
            Sink::Parquet { out, .. } => Some(out.empty_rows()),
            _ => None,
        }
    }

    /// Writes rows of records converted into [`Self::column_rows`], in order.
    pub fn write_rows(&mut self, rows: crate::parquet::RowsBatch) -> Result<(), CliError> {
        let result = match &mut self.sink {
            Sink::Parquet { out, .. } => out.write_batch(rows),
            _ => Err(io::Error::other(
                "rows of columns go to a Parquet output only",
            )),
        };
        result.map_err(|e| CliError::Write {
            path: self.path(),
            source: e,
        })
    }

    /// Writes records already serialised back to back into `text`, each followed by a
    /// line end; `ends` gives where each record ends (before its line end). JSON Lines
    /// go out as they are, in one write.
    pub fn write_lines(&mut self, text: &[u8], ends: &[usize]) -> Result<(), CliError> {
        let lines = self.layout == Layout::JsonLines;
        let result = match &mut self.sink {
            Sink::Discard => Ok(()),
            Sink::Stdout(out) if lines => out.write_all(text),
            Sink::File { out, .. } if lines => out.write_all(text),
            _ => {
                let mut start = 0;
                for &end in ends {
                    self.write_raw(&text[start..end])?;
                    start = end + 1;
                }
                return Ok(());
            }
        };
        self.count += ends.len() as u64;
        result.map_err(|e| CliError::Write {
            path: self.path(),
            source: e,
        })
    }

    /// How records are laid out in the output: JSON Lines, or one JSON array (a Parquet
    /// output takes rows: see [`Self::column_rows`]).
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Writes `records` elements of a JSON array already serialised into `text`, each
    /// but the last followed by a comma and a line end; what comes before the first
    /// (the array's opening, or a comma after the elements written before) is added.
    pub fn write_array_part(&mut self, text: &[u8], records: usize) -> Result<(), CliError> {
        if records == 0 {
            return Ok(());
        }
        let first = self.count == 0;
        self.count += records as u64;
        let before: &[u8] = if first { b"[\n" } else { b",\n" };
        let result = match &mut self.sink {
            Sink::Discard => Ok(()),
            Sink::Stdout(out) => out.write_all(before).and_then(|()| out.write_all(text)),
            Sink::File { out, .. } => out.write_all(before).and_then(|()| out.write_all(text)),
            Sink::Parquet { .. } => Err(io::Error::other(
                "elements of a JSON array go to a JSON output only",
            )),
        };
        result.map_err(|e| CliError::Write {
            path: self.path(),
            source: e,
        })
    }

    /// Whether what is written reaches the destination as it goes (stdout, a device or a
    /// pipe), rather than as a whole file put in place at the end.
    pub fn streams(&self) -> bool {
        match &self.sink {
            Sink::Stdout(_) => true,
            Sink::File { file, .. } | Sink::Parquet { file, .. } => file.in_place_of_dest(),
            Sink::Discard => false,
        }
    }

    /// Writes one record already serialised (without a line end).
    pub fn write_raw(&mut self, record: &[u8]) -> Result<(), CliError> {
        let (layout, first) = (self.layout, self.count == 0);
        self.count += 1;
        let result = match &mut self.sink {
            Sink::Discard => return Ok(()),
            Sink::Stdout(out) => write_raw_one(out, record, layout, first),
            Sink::File { out, .. } => write_raw_one(out, record, layout, first),
            Sink::Parquet { out, .. } => {
                if let Some(style) = crate::input::style_of(record) {
                    out.note_style(style);
                }
                serde_json::from_slice(record)
                    .map_err(io::Error::other)
                    .and_then(|map| out.write(map))
            }
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
            Sink::File { mut out, file } => {
                let in_place = file.in_place_of_dest();
                close(&mut out, layout, empty)
                    .and_then(|()| out.finish())
                    .and_then(|synced| if in_place { Ok(()) } else { synced.sync() })
                    .map_err(err)?;
                file.commit()
            }
            Sink::Parquet { out, file } => {
                out.finish().map_err(err)?;
                file.commit()
            }
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

fn write_raw_one(
    out: &mut impl Write,
    record: &[u8],
    layout: Layout,
    first: bool,
) -> io::Result<()> {
    if layout == Layout::JsonArray {
        out.write_all(if first { b"[\n" } else { b",\n" })?;
    }
    out.write_all(record)?;
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
