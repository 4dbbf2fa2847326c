//! Writing records: JSONL or a JSON array (plain, `.gz` or `.zst` by extension), to stdout
//! or to a file replaced atomically (a temporary file next to it, renamed into place once
//! complete).

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, Once, PoisonError, mpsc};

use isobench_core::codec::JsonStyle;
use serde_json::{Map, Value};

use crate::errors::{CliError, OutputError};
use crate::input::{Compression, Layout};

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
        out: Encoder,
        temp: PathBuf,
        dest: PathBuf,
    },
    /// A file that is not a regular one (`/dev/null`, a named pipe): written in place,
    /// since renaming over it would replace the device or pipe with a plain file.
    Special {
        out: Encoder,
        dest: PathBuf,
    },
    /// A Parquet file, written a row group at a time.
    Parquet {
        out: Box<crate::parquet::ParquetWriter>,
        temp: PathBuf,
        dest: PathBuf,
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

/// The temporary files of the outputs being written, removed if the process is
/// interrupted (`SIGINT`, `SIGTERM`, `SIGHUP`) as they are when a run fails.
static LIVE_TEMPS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn live_temps() -> MutexGuard<'static, Vec<PathBuf>> {
    LIVE_TEMPS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Notes a temporary file to remove on interruption.
fn track(temp: &Path) {
    remove_temps_on_interrupt();
    live_temps().push(temp.to_owned());
}

/// The temporary file was renamed into place or removed.
fn untrack(temp: &Path) {
    live_temps().retain(|t| t != temp);
}

/// Once per process: a thread that waits for an interrupting signal, removes the
/// temporary files being written, then ends the process as the signal would have.
#[cfg(unix)]
fn remove_temps_on_interrupt() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        std::thread::spawn(move || {
            if let Some(signal) = signals.forever().next() {
                // Held until the end: no new temporary file starts meanwhile.
                let temps = live_temps();
                for temp in temps.iter() {
                    let _ = fs::remove_file(temp);
                }
                let _ = signal_hook::low_level::emulate_default_handler(signal);
                std::process::exit(128 + signal);
            }
        });
    });
}

/// Elsewhere, an interrupted run leaves its temporary file to the next run (see
/// [`remove_stale_temps`]).
#[cfg(not(unix))]
fn remove_temps_on_interrupt() {}

/// The temporary file an output is written to before the rename.
pub fn temp_path(dest: &Path) -> PathBuf {
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    dest.with_file_name(format!(".{name}.isobench-{}.tmp", std::process::id()))
}

/// Removes the temporary files that earlier runs writing `dest` left behind when they
/// were killed: those whose process is gone. Where processes cannot be looked up (no
/// `/proc`), nothing is removed.
pub fn remove_stale_temps(dest: &Path) {
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return;
    }
    let Some(name) = dest.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return;
    };
    let prefix = format!(".{name}.isobench-");
    let dir = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(pid) = file_name
            .to_str()
            .and_then(|n| n.strip_prefix(&prefix))
            .and_then(|rest| rest.strip_suffix(".tmp"))
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !proc.join(pid.to_string()).exists() {
            let _ = fs::remove_file(entry.path());
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
        Self::create_with_schema(path, overwrite, style, None)
    }

    /// As [`Self::create`]; a `.parquet` output takes its column types from `schema`, the
    /// JSON Schema of the records written (without one, Parquet is refused).
    pub fn create_with_schema(
        path: Option<&Path>,
        overwrite: bool,
        style: JsonStyle,
        schema: Option<&Value>,
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
        if fs::metadata(dest).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
            return Self::special(dest, style).map_err(write_err);
        }
        if dest.exists() && !overwrite {
            return Err(CliError::OutputExists(dest.to_owned()));
        }
        remove_stale_temps(dest);
        let temp = temp_path(dest);
        if crate::parquet::is_parquet(dest) {
            if !crate::parquet::BUILT {
                return Err(crate::parquet::not_built(dest));
            }
            let Some(schema) = schema else {
                return Err(OutputError::JsonLinesOnly(dest.to_owned()).into());
            };
            let file = File::create(&temp).map_err(write_err)?;
            track(&temp);
            let spool = temp.with_extension("spool");
            let out = match crate::parquet::ParquetWriter::new(file, spool, schema) {
                Ok(out) => out,
                Err(e) => {
                    let _ = fs::remove_file(&temp);
                    untrack(&temp);
                    return Err(write_err(e));
                }
            };
            return Ok(Self {
                sink: Sink::Parquet {
                    out: Box::new(out),
                    temp,
                    dest: dest.to_owned(),
                },
                layout: Layout::JsonLines,
                style,
                count: 0,
            });
        }
        let file = File::create(&temp).map_err(write_err)?;
        track(&temp);
        let out = match Encoder::new(file, Compression::of(dest), true) {
            Ok(out) => out,
            Err(e) => {
                let _ = fs::remove_file(&temp);
                untrack(&temp);
                return Err(write_err(e));
            }
        };
        Ok(Self {
            sink: Sink::File {
                out,
                temp,
                dest: dest.to_owned(),
            },
            layout: Layout::from_extension(dest).unwrap_or(Layout::JsonLines),
            style,
            count: 0,
        })
    }

    /// Writes into a device or named pipe as it is: nothing there to replace atomically.
    fn special(dest: &Path, style: JsonStyle) -> io::Result<Self> {
        if crate::parquet::is_parquet(dest) {
            return Err(io::Error::other(
                "a Parquet output needs a regular file (its footer is written last)",
            ));
        }
        let file = fs::OpenOptions::new().write(true).open(dest)?;
        Ok(Self {
            sink: Sink::Special {
                out: Encoder::new(file, Compression::of(dest), false)?,
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
            Sink::File { dest, .. } | Sink::Special { dest, .. } | Sink::Parquet { dest, .. } => {
                dest.clone()
            }
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
            Sink::File { out, .. } | Sink::Special { out, .. } => {
                write_one(out, record, style, layout, first)
            }
            Sink::Parquet { out, .. } => {
                out.note_style(style);
                out.write(record.clone(), 0)
            }
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
            Sink::File { out, .. } | Sink::Special { out, .. } if lines => out.write_all(text),
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

    /// Writes one record already serialised (without a line end).
    pub fn write_raw(&mut self, record: &[u8]) -> Result<(), CliError> {
        let (layout, first) = (self.layout, self.count == 0);
        self.count += 1;
        let result = match &mut self.sink {
            Sink::Discard => return Ok(()),
            Sink::Stdout(out) => write_raw_one(out, record, layout, first),
            Sink::File { out, .. } | Sink::Special { out, .. } => {
                write_raw_one(out, record, layout, first)
            }
            Sink::Parquet { out, .. } => {
                if let Some(style) = crate::input::style_of(record) {
                    out.note_style(style);
                }
                serde_json::from_slice(record)
                    .map_err(io::Error::other)
                    .and_then(|map| out.write(map, record.len()))
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
            Sink::File {
                mut out,
                temp,
                dest,
            } => {
                let done = close(&mut out, layout, empty)
                    .and_then(|()| out.finish())
                    .and_then(SyncingFile::sync)
                    .and_then(|()| fs::rename(&temp, &dest));
                if done.is_err() {
                    let _ = fs::remove_file(&temp);
                }
                untrack(&temp);
                done.map_err(err)
            }
            Sink::Special { mut out, .. } => close(&mut out, layout, empty)
                .and_then(|()| out.finish())
                .map(drop)
                .map_err(err),
            Sink::Parquet { out, temp, dest } => {
                let done = out
                    .finish()
                    .and_then(|file| file.sync_all())
                    .and_then(|()| fs::rename(&temp, &dest));
                if done.is_err() {
                    let _ = fs::remove_file(&temp);
                }
                untrack(&temp);
                done.map_err(err)
            }
        }
    }
}

impl Drop for RecordWriter {
    /// An output not finished is abandoned: its temporary file is removed and the
    /// destination is left as it was.
    fn drop(&mut self) {
        if let Sink::File { temp, .. } | Sink::Parquet { temp, .. } = &self.sink {
            let _ = fs::remove_file(temp);
            untrack(temp);
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
