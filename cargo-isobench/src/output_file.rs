//! The one way a file is written: every output of the tool (records, Parquet, the
//! rejects file, the `--report`, the trust records) goes through [`OutputFile`].
//!
//! A destination is treated as hostile ground, since it may sit in a checkout someone else
//! prepared:
//!
//! - the data goes to a temporary file created exclusively (`O_EXCL`) under an
//!   unpredictable name in the destination's directory, so no file planted there (a
//!   symbolic link to a file outside, say) is ever opened for writing; once complete and
//!   synced, it is renamed over the destination;
//! - the destination is looked at itself, never through a symbolic link: a link, like any
//!   existing file, is replaced only with `--overwrite` (and then the link is replaced, not
//!   what it points to); without `--overwrite` the rename refuses to replace a file that
//!   appeared meanwhile;
//! - a device or named pipe named directly (`/dev/null`, a FIFO) is written in place, and
//!   the process's own streams (`/dev/stdout`, `/dev/stderr`, `/dev/fd/N`,
//!   `/proc/self/fd/N`) through the descriptor it holds (see [`own_stream`]);
//! - [`check_distinct`] refuses, before anything is read, an output that is an input or
//!   another output of the same run.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, Once, PoisonError};

use tempfile::TempPath;

use crate::errors::{AreaError, CliError};
use crate::input::Input;

/// A file being written: a temporary file until [`OutputFile::commit`], or a device or
/// pipe written in place.
#[derive(Debug)]
pub struct OutputFile {
    file: File,
    /// The temporary file, removed when dropped uncommitted; `None` for a device or pipe.
    temp: Option<TempPath>,
    dest: PathBuf,
    overwrite: bool,
}

impl OutputFile {
    /// Starts writing `dest`, refusing an existing file (or link) unless `overwrite`.
    pub fn create(dest: &Path, overwrite: bool) -> Result<Self, CliError> {
        let write_err = |source| CliError::Write {
            path: dest.to_owned(),
            source,
        };
        match fs::symlink_metadata(dest) {
            Ok(meta) if meta.file_type().is_symlink() => {
                if let Some(fd) = own_stream(dest) {
                    return Self::own_stream(dest, fd, overwrite).map_err(write_err);
                }
                if !overwrite {
                    return Err(OutputError::Exists(dest.to_owned()).into());
                }
            }
            Ok(meta) if meta.is_dir() => {
                return Err(write_err(io::Error::new(
                    io::ErrorKind::IsADirectory,
                    "is a directory",
                )));
            }
            Ok(meta) if !meta.is_file() => {
                return Self::in_place(dest, overwrite).map_err(write_err);
            }
            Ok(_) if !overwrite => return Err(OutputError::Exists(dest.to_owned()).into()),
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(write_err(e)),
        }
        remove_stale_temps(dest);
        let name = dest
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let prefix = format!(".{name}.isobench-{}-", std::process::id());
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".tmp").rand_bytes(12);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            // As `File::create` makes a file: what the umask leaves of rw-rw-rw-.
            builder.permissions(fs::Permissions::from_mode(0o666));
        }
        // The interruption handler is in place before the file exists, and the list it
        // reads is held until the file's name is on it: an interruption at any moment
        // finds every temporary file that exists.
        remove_temps_on_interrupt();
        let mut live = live_temps();
        let (file, temp) = builder
            .tempfile_in(parent_dir(dest))
            .map_err(write_err)?
            .into_parts();
        live.push(temp.to_path_buf());
        drop(live);
        Ok(Self {
            file,
            temp: Some(temp),
            dest: dest.to_owned(),
            overwrite,
        })
    }

    /// A device or named pipe, opened as it is (nothing there to replace atomically).
    fn in_place(dest: &Path, overwrite: bool) -> io::Result<Self> {
        let file = fs::OpenOptions::new().write(true).open(dest)?;
        Ok(Self {
            file,
            temp: None,
            dest: dest.to_owned(),
            overwrite,
        })
    }

    /// One of the process's own streams (see [`own_stream`]): standard output and error
    /// through the descriptors the process holds, so that they are written as the shell
    /// opened them (`>>` appends, `>` writes from where it is); another descriptor reopened
    /// to append, never to write over what it holds.
    #[cfg(unix)]
    fn own_stream(dest: &Path, fd: u32, overwrite: bool) -> io::Result<Self> {
        use std::os::fd::AsFd;
        let file = match fd {
            1 => File::from(io::stdout().as_fd().try_clone_to_owned()?),
            2 => File::from(io::stderr().as_fd().try_clone_to_owned()?),
            _ => fs::OpenOptions::new().append(true).open(dest)?,
        };
        Ok(Self {
            file,
            temp: None,
            dest: dest.to_owned(),
            overwrite,
        })
    }

    #[cfg(not(unix))]
    fn own_stream(dest: &Path, _fd: u32, overwrite: bool) -> io::Result<Self> {
        Self::in_place(dest, overwrite)
    }

    /// The destination.
    pub fn dest(&self) -> &Path {
        &self.dest
    }

    /// Whether the file is written in place (a device or pipe), not replaced atomically.
    pub fn in_place_of_dest(&self) -> bool {
        self.temp.is_none()
    }

    /// The file the data goes to.
    pub fn file(&self) -> &File {
        &self.file
    }

    /// Another handle of the file the data goes to.
    pub fn try_clone_file(&self) -> io::Result<File> {
        self.file.try_clone()
    }

    /// The file's directory, where a writer may keep its own temporary files.
    pub fn dir(&self) -> &Path {
        parent_dir(&self.dest)
    }

    /// Puts the written data in place: syncs the temporary file and renames it over the
    /// destination (refusing, without `--overwrite`, a file that appeared meanwhile).
    pub fn commit(mut self) -> Result<(), CliError> {
        let write_err = |source| CliError::Write {
            path: self.dest.clone(),
            source,
        };
        let Some(temp) = self.temp.take() else {
            return Ok(());
        };
        let synced = self.file.sync_all();
        let tracked = temp.to_path_buf();
        let done = match synced {
            Err(e) => Err(write_err(e)),
            Ok(()) if self.overwrite => temp.persist(&self.dest).map_err(|e| write_err(e.error)),
            Ok(()) => temp.persist_noclobber(&self.dest).map_err(|e| {
                if e.error.kind() == io::ErrorKind::AlreadyExists {
                    OutputError::Exists(self.dest.clone()).into()
                } else {
                    write_err(e.error)
                }
            }),
        };
        untrack(&tracked);
        done
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        if let Some(temp) = &self.temp {
            untrack(temp);
        }
    }
}

/// Writes `bytes` to `dest` through an [`OutputFile`].
pub fn write_whole(dest: &Path, overwrite: bool, bytes: &[u8]) -> Result<(), CliError> {
    let out = OutputFile::create(dest, overwrite)?;
    (&out.file)
        .write_all(bytes)
        .map_err(|source| CliError::Write {
            path: dest.to_owned(),
            source,
        })?;
    out.commit()
}

fn parent_dir(dest: &Path) -> &Path {
    match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// The descriptor of the process's own stream `dest` names, as it is written (not
/// resolved): `/dev/stdout` (1), `/dev/stderr` (2), `/dev/fd/N` and `/proc/self/fd/N`.
/// What they point to (a pipe, a terminal, a file the shell opened) is the user's. Any
/// other link, in `/dev` (`/dev/shm`, `/dev/mqueue`) or elsewhere, is a link like any
/// other: replaced with `--overwrite`, never written through.
fn own_stream(dest: &Path) -> Option<u32> {
    match dest.to_str()? {
        "/dev/stdout" => Some(1),
        "/dev/stderr" => Some(2),
        path => path
            .strip_prefix("/dev/fd/")
            .or_else(|| path.strip_prefix("/proc/self/fd/"))
            .and_then(|n| n.parse().ok()),
    }
}

/// What a path names for the purpose of telling two apart: the directory resolved and the
/// last component as it is (a link is itself, as it is for writing).
fn entry_identity(path: &Path) -> PathBuf {
    let dir = fs::canonicalize(parent_dir(path)).unwrap_or_else(|_| parent_dir(path).to_owned());
    match path.file_name() {
        Some(name) => dir.join(name),
        None => dir,
    }
}

/// The file at `path` (links followed), as device and inode where there are such.
#[cfg(unix)]
fn file_identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn file_identity(path: &Path) -> Option<PathBuf> {
    fs::canonicalize(path).ok()
}

/// Whether writing `output` would touch what `other` names: the same entry, or the same
/// file (through a link or another name).
pub fn same_target(output: &Path, other: &Path) -> bool {
    if entry_identity(output) == entry_identity(other) {
        return true;
    }
    match (file_identity(output), file_identity(other)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// Refuses outputs that are one of the inputs or the same file as another output
/// (`outputs` in order of the flags: `-o`, `--rejects`, `--report`).
pub fn check_distinct(outputs: &[(&str, &Path)], inputs: &[Input]) -> Result<(), CliError> {
    for (i, (flag, output)) in outputs.iter().enumerate() {
        for input in inputs {
            if let Input::File(input) = input
                && same_target(output, input)
            {
                return Err(OutputError::IsInput((*output).to_owned()).into());
            }
        }
        for (other_flag, other) in &outputs[..i] {
            if same_target(output, other) {
                return Err(OutputError::Twice {
                    path: (*output).to_owned(),
                    first: (*other_flag).to_owned(),
                    second: (*flag).to_owned(),
                }
                .into());
            }
        }
    }
    Ok(())
}

/// Refuses writing records to the standard output when it is one of the inputs, as
/// `cat` does ("input file is output file"): `convert -i f >> f` would read what it writes
/// without end, and `convert -i f 1<>f` overwrite what it has yet to read. Standard input
/// read as an input is compared too.
pub fn check_stdout_distinct(inputs: &[Input]) -> Result<(), CliError> {
    let Some(stdout) = file_identity(Path::new("/dev/stdout")) else {
        return Ok(());
    };
    for input in inputs {
        let (shown, path) = match input {
            Input::File(path) => (path.clone(), path.as_path()),
            Input::Stdin => (PathBuf::from("-"), Path::new("/dev/stdin")),
            // A directory is never the standard output.
            Input::Folders { .. } => continue,
        };
        if file_identity(path).is_some_and(|input| input == stdout) {
            return Err(OutputError::StdoutIsInput(shown).into());
        }
    }
    Ok(())
}

/// The temporary files (and task folders) being written, removed if the process is interrupted (`SIGINT`,
/// `SIGTERM`, `SIGHUP`) as they are when a run fails.
static LIVE_TEMPS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn live_temps() -> MutexGuard<'static, Vec<PathBuf>> {
    LIVE_TEMPS.lock().unwrap_or_else(PoisonError::into_inner)
}

fn untrack(temp: &Path) {
    live_temps().retain(|t| t != temp);
}

/// Makes `create` a temporary file or directory that an interruption removes, as the
/// temporary files of [`OutputFile`] are: the handler is in place before it exists, and
/// its path is on the list before anyone else can add to it. Give it back with
/// [`forget_temp`] once it is renamed into place or removed.
pub fn tracked_temp<T>(
    create: impl FnOnce() -> io::Result<T>,
    path_of: impl Fn(&T) -> PathBuf,
) -> io::Result<T> {
    remove_temps_on_interrupt();
    let mut live = live_temps();
    let made = create()?;
    live.push(path_of(&made));
    Ok(made)
}

/// Takes `temp` off the list of temporaries an interruption removes.
pub fn forget_temp(temp: &Path) {
    untrack(temp);
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
                    // A link is removed as a link; a directory (a task folder being
                    // written) with what it holds.
                    match fs::symlink_metadata(temp) {
                        Ok(meta) if meta.is_dir() => {
                            let _ = fs::remove_dir_all(temp);
                        }
                        _ => {
                            let _ = fs::remove_file(temp);
                        }
                    }
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

/// Removes the temporary files that earlier runs writing `dest` left behind when they
/// were killed: those whose process is gone. Where processes cannot be looked up (no
/// `/proc`), nothing is removed. A link is removed as a link, never followed.
pub fn remove_stale_temps(dest: &Path) {
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return;
    }
    let Some(name) = dest.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return;
    };
    let prefix = format!(".{name}.isobench-");
    let Ok(entries) = fs::read_dir(parent_dir(dest)) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(pid) = file_name
            .to_str()
            .and_then(|n| n.strip_prefix(&prefix))
            .and_then(|rest| rest.strip_suffix(".tmp"))
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, _)| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !proc.join(pid.to_string()).exists() {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// An output that cannot be written as asked: a usage error, nothing written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OutputError {
    /// A `.parquet` output for records that are only written as JSON Lines.
    #[error("`{}`: this output is written as JSON Lines, not Parquet", .0.display())]
    JsonLinesOnly(PathBuf),
    /// The output exists and `--overwrite` was not given.
    #[error("`{}` already exists", .0.display())]
    Exists(PathBuf),
    /// The output is one of the inputs.
    #[error("the output `{}` is also an input", .0.display())]
    IsInput(PathBuf),
    /// The standard output, where records are written, is an input.
    #[error("the standard output is the input `{}` (input file is output file)", .0.display())]
    StdoutIsInput(PathBuf),
    /// Two outputs of one run are the same file.
    #[error("`{second}` and `{first}` both name `{}`", .path.display())]
    Twice {
        /// The file.
        path: PathBuf,
        /// The flag that named it first.
        first: String,
        /// The flag that named it again.
        second: String,
    },
    /// A format whose records cannot be laid out in columns: why.
    #[error("{0}")]
    Columns(String),
}

impl AreaError for OutputError {
    fn hint(&self) -> Option<String> {
        match self {
            Self::JsonLinesOnly(_) => Some("give it a `.jsonl` name".into()),
            Self::Exists(_) => Some("pass `--overwrite` to replace it".into()),
            Self::IsInput(_) => Some("write to another file, then move it into place".into()),
            Self::StdoutIsInput(_) => {
                Some("write to another file with `-o`, then move it into place".into())
            }
            Self::Twice { .. } => Some("give each output a file of its own".into()),
            Self::Columns(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_names_are_not_predictable_and_not_reused() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("out.jsonl");
        let a = OutputFile::create(&dest, false).unwrap();
        let b = OutputFile::create(&dest, false).unwrap();
        let (ta, tb) = (a.temp.as_deref().unwrap(), b.temp.as_deref().unwrap());
        assert_ne!(ta, tb);
        let name = ta.file_name().unwrap().to_str().unwrap();
        assert!(
            name.starts_with(&format!(".out.jsonl.isobench-{}-", std::process::id())),
            "{name}"
        );
        drop((a, b));
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_file_that_appears_meanwhile_is_kept_without_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("out.jsonl");
        let out = OutputFile::create(&dest, false).unwrap();
        (&out.file).write_all(b"new\n").unwrap();
        fs::write(&dest, "theirs\n").unwrap();
        assert!(matches!(
            out.commit().unwrap_err().area(),
            Some(OutputError::Exists(_))
        ));
        assert_eq!(fs::read_to_string(&dest).unwrap(), "theirs\n");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}

#[cfg(test)]
mod error_messages {
    use super::*;
    use crate::errors::{CliError, said};

    #[test]
    fn output_errors_say_what_they_always_said() {
        let errors = vec![
            CliError::from(OutputError::JsonLinesOnly("out.parquet".into())),
            CliError::from(OutputError::Columns("why".into())),
            CliError::from(OutputError::Exists("o.jsonl".into())),
            CliError::from(OutputError::IsInput("o.jsonl".into())),
            CliError::from(OutputError::Twice {
                path: "o.jsonl".into(),
                first: "-o".into(),
                second: "--report".into(),
            }),
        ];
        insta::assert_snapshot!(said(errors));
    }
}
