//! A folder per record, for a format whose records are folders of files (Harbor's task
//! folders): a worker lays each exported record out as its files, every name and path
//! checked ([`TaskFolder::of`]), and writes them into a temporary sibling of the record's
//! folder; the sink renames each into place, in input order, so that a folder is whole
//! or not at all.
//!
//! The output directory is treated as hostile ground, as a file output is
//! (`output_file.rs`):
//!
//! - a folder is built in a temporary sibling, created under an unpredictable name that
//!   starts with a dot, and renamed into place once every file is written and synced; a
//!   failure (a full disk, an interruption) removes the temporary folder, so no folder is
//!   ever half written;
//! - a record's folder name and its files' paths are checked before anything is
//!   written: one component each for the name, no `..`, `.`, empty component, absolute
//!   path, backslash, NUL or control character; so nothing is written outside the output
//!   directory, and nothing through a link planted in it (the files go into the fresh
//!   temporary folder, and the rename replaces a planted link rather than following it,
//!   and only with `--overwrite`);
//! - an existing folder (or link, or file) of the record's name is kept unless
//!   `--overwrite`;
//! - two records whose names differ only in case would be one folder on a
//!   case-insensitive file system: the second is refused, as is a name that differs only
//!   in case from an entry the directory already holds, and two files of one folder whose
//!   paths differ only in case.

use std::collections::HashMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use isobench_core::adapter::FolderLayout;
use isobench_core::codec::JsonStyle;
use serde_json::{Map, Value};

use super::encoder::{Encoder, HeldValues, Sink};
use crate::errors::{AreaError, CliError};
use crate::exit;
use crate::output_file::{forget_temp, tracked_temp};

/// One file of a task folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::pipeline) struct FolderFile {
    /// Its path in the folder, `/`-separated, each component checked.
    pub(in crate::pipeline) path: String,
    /// Its bytes.
    pub(in crate::pipeline) bytes: Vec<u8>,
    /// Whether it is written with the run bit.
    pub(in crate::pipeline) executable: bool,
}

/// A record laid out as a folder: its name and its files, every path checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::pipeline) struct TaskFolder {
    /// The folder's name, one checked component.
    pub(in crate::pipeline) name: String,
    /// Its files, in the record's key order.
    pub(in crate::pipeline) files: Vec<FolderFile>,
}

impl TaskFolder {
    /// `record` laid out by `layout`, or why it cannot be.
    pub(in crate::pipeline) fn of(
        record: &Map<String, Value>,
        layout: &FolderLayout,
    ) -> Result<Self, FolderError> {
        let name = layout
            .name_of(record)
            .ok_or_else(|| FolderError::NoName {
                pointer: layout.name.clone(),
            })?
            .to_owned();
        if let Some(problem) = component_problem(&name) {
            return Err(FolderError::BadName { name, problem });
        }
        let bad_path = |path: &str, problem: String| FolderError::BadPath {
            folder: name.clone(),
            path: path.to_owned(),
            problem,
        };
        let mut files = Vec::with_capacity(record.len());
        // Each file's path and each directory above it, folded, with the path as given:
        // two that fold alike are one entry on a case-insensitive file system.
        let mut taken: HashMap<String, (String, bool)> = HashMap::new();
        for (path, value) in record {
            if path.is_empty() || path.starts_with('/') {
                return Err(bad_path(path, "is not a relative path".into()));
            }
            let components: Vec<&str> = path.split('/').collect();
            for component in &components {
                if let Some(problem) = component_problem(component) {
                    return Err(bad_path(path, format!("`{component}` {problem}")));
                }
            }
            for depth in 1..=components.len() {
                let prefix = components[..depth].join("/");
                let is_dir = depth < components.len();
                match taken.get(&prefix.to_lowercase()) {
                    Some((earlier, earlier_dir))
                        if is_dir && *earlier_dir && *earlier == prefix => {}
                    Some((earlier, _)) => {
                        return Err(bad_path(
                            path,
                            format!(
                                "collides with `{earlier}` (a file and a directory, or names that differ only in case)"
                            ),
                        ));
                    }
                    None => {
                        taken.insert(prefix.to_lowercase(), (prefix, is_dir));
                    }
                }
            }
            let Some(bytes) = content(path, value).map_err(|problem| bad_path(path, problem))?
            else {
                continue;
            };
            files.push(FolderFile {
                executable: layout.is_executable(path),
                path: path.clone(),
                bytes,
            });
        }
        Ok(Self { name, files })
    }
}

/// Why `component` cannot be a file or folder name, if it cannot.
fn component_problem(component: &str) -> Option<String> {
    let problem = if component.is_empty() {
        "is empty"
    } else if component == "." || component == ".." {
        "names a directory itself or its parent"
    } else if component.contains(['/', '\\']) {
        "holds a path separator"
    } else if component.contains('\0') {
        "holds a NUL character"
    } else if component.chars().any(char::is_control) {
        "holds a control character"
    } else if component.len() > 255 {
        "is longer than a file name can be (255 bytes)"
    } else {
        return None;
    };
    Some(problem.to_owned())
}

/// The bytes of the file at `path` holding `value`: a string's text; an object's or
/// array's JSON (`.json`) or TOML (`.toml`); nothing for `null` (the record has no such
/// file).
fn content(path: &str, value: &Value) -> Result<Option<Vec<u8>>, String> {
    let extension = |wanted: &str| {
        Path::new(path)
            .extension()
            .is_some_and(|ext| ext.eq_ignore_ascii_case(wanted))
    };
    Ok(Some(match value {
        Value::Null => return Ok(None),
        Value::String(text) => text.as_bytes().to_vec(),
        Value::Object(_) | Value::Array(_) if extension("json") => {
            let mut bytes = serde_json::to_vec_pretty(value).expect("a JSON value serialises");
            bytes.push(b'\n');
            bytes
        }
        Value::Object(_) if extension("toml") => toml::to_string(&toml_value(value)?)
            .map_err(|e| format!("cannot be written as TOML: {e}"))?
            .into_bytes(),
        _ => {
            return Err(
                "holds a value that is not a file's content (a text, or an object for a `.json` or `.toml` file)"
                    .to_owned(),
            );
        }
    }))
}

/// `value` as TOML: an integer as TOML's 64-bit integer, any other number as its float
/// (the value, not the text: `1.10` is written `1.1`), a table's null entry left out
/// (TOML has no null).
fn toml_value(value: &Value) -> Result<toml::Value, String> {
    Ok(match value {
        Value::Null => return Err("cannot be written as TOML: a list holds a null".to_owned()),
        Value::Bool(b) => toml::Value::Boolean(*b),
        Value::Number(n) => {
            let integer = !n.as_str().contains(['.', 'e']);
            match (integer, n.as_i64(), n.as_f64()) {
                (true, Some(integer), _) => toml::Value::Integer(integer),
                (false, _, Some(float)) => toml::Value::Float(float),
                _ => {
                    return Err(format!(
                        "cannot be written as TOML: the number {n} is beyond its 64-bit integers and floats"
                    ));
                }
            }
        }
        Value::String(text) => toml::Value::String(text.clone()),
        Value::Array(items) => {
            toml::Value::Array(items.iter().map(toml_value).collect::<Result<_, _>>()?)
        }
        Value::Object(map) => toml::Value::Table(
            map.iter()
                .filter(|(_, item)| !item.is_null())
                .map(|(key, item)| Ok((key.clone(), toml_value(item)?)))
                .collect::<Result<_, String>>()?,
        ),
    })
}

/// A batch's records, each written as its folder into a temporary sibling of where it
/// goes, or the reason it cannot be.
pub(in crate::pipeline) type Folders = Vec<Result<Built, CliError>>;

/// A record's folder, written whole into a temporary sibling of where it goes (by a
/// worker), waiting for the sink to put it in place; removed if dropped before.
pub(in crate::pipeline) struct Built {
    name: String,
    /// The temporary folder; `None` under `--dry-run`, or once put in place.
    temp: Option<tempfile::TempDir>,
}

impl Drop for Built {
    fn drop(&mut self) {
        if let Some(temp) = self.temp.take() {
            let path = temp.path().to_owned();
            drop(temp);
            forget_temp(&path);
        }
    }
}

/// Puts into `record` the values the reader held outside it, each at its path.
fn put_held(record: &mut Map<String, Value>, held: &HeldValues<'_>) -> Result<(), FolderError> {
    let placed: Vec<(Vec<String>, Value)> = held
        .placed(record)
        .into_iter()
        .map(|p| {
            let value = serde_json::from_slice(p.text).map_err(|e| FolderError::BadPath {
                folder: String::new(),
                path: p.path.join("/"),
                problem: format!("holds a value that is not JSON: {e}"),
            })?;
            Ok((p.path.to_vec(), value))
        })
        .collect::<Result<_, FolderError>>()?;
    for (path, value) in placed {
        insert_at(record, &path, value);
    }
    Ok(())
}

/// Puts `value` at `path` in `object`; nowhere if an object on the way is missing.
fn insert_at(object: &mut Map<String, Value>, path: &[String], value: Value) {
    match path {
        [key] => {
            object.insert(key.clone(), value);
        }
        [parent, rest @ ..] => {
            if let Some(Value::Object(inner)) = object.get_mut(parent) {
                insert_at(inner, rest, value);
            }
        }
        [] => {}
    }
}

/// Lays out each record as its folder and writes it into a temporary sibling of where it
/// goes, so that the workers write (and sync) folders side by side and the sink only
/// renames them into place, in input order.
pub(in crate::pipeline) struct FoldersEncoder<'l> {
    layout: &'l FolderLayout,
    /// The output directory; `None` under `--dry-run`.
    root: Option<PathBuf>,
    folders: Folders,
}

impl FoldersEncoder<'_> {
    /// `folder`, written into a fresh temporary sibling of its place in the output
    /// directory (not written under `--dry-run`).
    fn build(&self, folder: TaskFolder) -> Result<Built, CliError> {
        let Some(root) = &self.root else {
            return Ok(Built {
                name: folder.name,
                temp: None,
            });
        };
        let write_err = |source| CliError::Write {
            path: root.join(&folder.name),
            source,
        };
        let prefix = temp_prefix(&folder.name);
        let temp = tracked_temp(
            || temp_builder(&prefix, ".tmp").tempdir_in(root),
            |dir| dir.path().to_owned(),
        )
        .map_err(write_err)?;
        let built = Built {
            name: folder.name.clone(),
            temp: Some(temp),
        };
        let dir = built.temp.as_ref().expect("just made").path();
        write_files(dir, &folder)?;
        Ok(built)
    }
}

impl Encoder for FoldersEncoder<'_> {
    type Batch = Folders;

    fn begin(&mut self, _input_bytes: usize) {
        self.folders = Vec::new();
    }

    fn record(
        &mut self,
        mut record: Map<String, Value>,
        held: Option<&HeldValues<'_>>,
        _style: JsonStyle,
    ) {
        let folder = match held {
            Some(held) => {
                put_held(&mut record, held).and_then(|()| TaskFolder::of(&record, self.layout))
            }
            None => TaskFolder::of(&record, self.layout),
        };
        let built = folder
            .map_err(CliError::from)
            .and_then(|folder| self.build(folder));
        self.folders.push(built);
    }

    fn finish(&mut self) -> Folders {
        std::mem::take(&mut self.folders)
    }
}

/// Writes each record's folder into the output directory (or nowhere, under
/// `--dry-run`, the folders laid out and checked all the same).
pub(in crate::pipeline) struct FoldersSink<'l> {
    layout: &'l FolderLayout,
    /// The output directory; `None` under `--dry-run`.
    root: Option<PathBuf>,
    overwrite: bool,
    /// The names of the folders written by this run and of the entries the directory
    /// held before it, folded (lower case), with the name as it is.
    written: HashMap<String, String>,
    before: HashMap<String, String>,
}

impl<'l> FoldersSink<'l> {
    /// A sink writing into `root` (created if missing); `None`: nothing written.
    pub(super) fn new(
        layout: &'l FolderLayout,
        root: Option<&Path>,
        overwrite: bool,
    ) -> Result<Self, CliError> {
        let mut before = HashMap::new();
        // `DIR/` without its slash: with it, the directory's own entry is not looked at,
        // but what a link there points to.
        let root = root.map(|root| {
            let text = root.as_os_str().to_string_lossy();
            let trimmed = text.trim_end_matches(std::path::is_separator);
            if trimmed.is_empty() {
                root.to_owned()
            } else {
                PathBuf::from(trimmed)
            }
        });
        if let Some(root) = root.as_deref() {
            let write_err = |source| CliError::Write {
                path: root.to_owned(),
                source,
            };
            match fs::symlink_metadata(root) {
                Ok(meta) if meta.file_type().is_symlink() => {
                    return Err(FolderError::RootIsLink(root.to_owned()).into());
                }
                Ok(meta) if !meta.is_dir() => {
                    return Err(FolderError::RootNotDirectory(root.to_owned()).into());
                }
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    fs::create_dir_all(root).map_err(write_err)?;
                }
                Err(e) => return Err(write_err(e)),
            }
            for entry in fs::read_dir(root).map_err(write_err)? {
                let name = entry.map_err(write_err)?.file_name();
                let name = name.to_string_lossy().into_owned();
                if is_stale_temp(&name) {
                    // A folder a killed run was writing: its own, so removed, a link as
                    // a link.
                    remove_entry(&root.join(&name));
                    continue;
                }
                before.insert(name.to_lowercase(), name);
            }
        }
        Ok(Self {
            layout,
            root,
            overwrite,
            written: HashMap::new(),
            before,
        })
    }

    /// Refuses a folder whose name this run wrote already, or that differs only in case
    /// from an entry of the directory; notes it written.
    fn claim(&mut self, name: &str) -> Result<(), FolderError> {
        let folded = name.to_lowercase();
        if let Some(earlier) = self.written.get(&folded) {
            return Err(FolderError::Collision {
                name: name.to_owned(),
                earlier: earlier.clone(),
                in_run: true,
            });
        }
        if let Some(existing) = self.before.get(&folded)
            && existing != name
        {
            return Err(FolderError::Collision {
                name: name.to_owned(),
                earlier: existing.clone(),
                in_run: false,
            });
        }
        self.written.insert(folded, name.to_owned());
        Ok(())
    }
}

impl<'l> Sink for FoldersSink<'l> {
    type Encoder = FoldersEncoder<'l>;

    fn encoder(&self) -> FoldersEncoder<'l> {
        FoldersEncoder {
            layout: self.layout,
            root: self.root.clone(),
            folders: Vec::new(),
        }
    }

    fn write(&mut self, folders: Folders) -> Result<(), CliError> {
        for built in folders {
            let mut built = built?;
            self.claim(&built.name)?;
            if let (Some(root), Some(temp)) = (&self.root, built.temp.as_ref()) {
                put_in_place(root, &built.name, temp.path(), self.overwrite)?;
                // Renamed into place: nothing of it is left to remove.
                let temp = built.temp.take().expect("present");
                let path = temp.keep();
                forget_temp(&path);
            }
        }
        Ok(())
    }

    fn finish(self) -> Result<(), CliError> {
        Ok(())
    }
}

/// Whether `name` is a temporary folder (or an old folder set aside) that a run of this
/// tool left when it was killed: `.NAME.isobench-PID-RANDOM.tmp` (or `.old`) whose process
/// is gone. Where processes cannot be looked up (no `/proc`), none is.
fn is_stale_temp(name: &str) -> bool {
    let proc = Path::new("/proc");
    if !name.starts_with('.') || !proc.join("self").exists() {
        return false;
    }
    let Some(rest) = name
        .strip_suffix(".tmp")
        .or_else(|| name.strip_suffix(".old"))
    else {
        return false;
    };
    let Some((_, tail)) = rest.rsplit_once(".isobench-") else {
        return false;
    };
    let Some((pid, random)) = tail.split_once('-') else {
        return false;
    };
    let Ok(pid) = pid.parse::<u32>() else {
        return false;
    };
    random.len() == 12
        && random.chars().all(|c| c.is_ascii_alphanumeric())
        && pid != std::process::id()
        && !proc.join(pid.to_string()).exists()
}

/// Removes `path`: a directory with what it holds, anything else (a link) as itself.
fn remove_entry(path: &Path) {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => {
            let _ = fs::remove_dir_all(path);
        }
        Ok(_) => {
            let _ = fs::remove_file(path);
        }
        Err(_) => {}
    }
}

/// Puts the folder `name`, written whole in `temp`, in its place in `root`: an existing
/// entry of that name is kept unless `overwrite`.
fn put_in_place(root: &Path, name: &str, temp: &Path, overwrite: bool) -> Result<(), CliError> {
    let dest = root.join(name);
    let existing = match fs::symlink_metadata(&dest) {
        Ok(_) if !overwrite => return Err(FolderError::Exists(dest).into()),
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => {
            return Err(CliError::Write {
                path: dest,
                source: e,
            });
        }
    };
    place(temp, &dest, existing.as_ref())
}

/// The prefix of the temporary siblings of the folder `name`: hidden, named after the
/// process.
fn temp_prefix(name: &str) -> String {
    format!(".{name}.isobench-{}-", std::process::id())
}

/// A builder of temporary directories named `prefix`, then unpredictable, then `suffix`.
fn temp_builder<'a>(prefix: &'a str, suffix: &'a str) -> tempfile::Builder<'a, 'a> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(prefix).suffix(suffix).rand_bytes(12);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // As `create_dir` makes a directory: what the umask leaves of rwxrwxrwx.
        builder.permissions(fs::Permissions::from_mode(0o777));
    }
    builder
}

/// Writes the files of `folder` under `dir` (a fresh directory of this process), each
/// created anew and synced.
fn write_files(dir: &Path, folder: &TaskFolder) -> Result<(), CliError> {
    for file in &folder.files {
        let path = dir.join(&file.path);
        let write_err = |source| CliError::Write {
            path: Path::new(&folder.name).join(&file.path),
            source,
        };
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(write_err)?;
        }
        let mut options = fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            // What the umask leaves of rw-rw-rw-, or rwxrwxrwx for a file run.
            options.mode(if file.executable { 0o777 } else { 0o666 });
        }
        let mut out = options.open(&path).map_err(write_err)?;
        out.write_all(&file.bytes).map_err(write_err)?;
        out.sync_all().map_err(write_err)?;
    }
    Ok(())
}

/// Renames the written folder `temp` to `dest`; `existing`: what `dest` was when the
/// folder was started (present only under `--overwrite`). An existing folder is moved
/// aside, the new one put in its place, then the old one removed; a link or file is
/// removed (a link as a link, never followed).
fn place(temp: &Path, dest: &Path, existing: Option<&fs::Metadata>) -> Result<(), CliError> {
    let write_err = |source| CliError::Write {
        path: dest.to_owned(),
        source,
    };
    let Some(existing) = existing else {
        // A directory that appeared meanwhile is not replaced unless it is empty (the
        // rename fails on one that holds anything).
        return fs::rename(temp, dest).map_err(|e| {
            if fs::symlink_metadata(dest).is_ok() {
                FolderError::Exists(dest.to_owned()).into()
            } else {
                write_err(e)
            }
        });
    };
    if !existing.is_dir() {
        fs::remove_file(dest).map_err(write_err)?;
        return fs::rename(temp, dest).map_err(write_err);
    }
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let parent = dest.parent().unwrap_or(Path::new("."));
    let prefix = temp_prefix(&name);
    let aside = tracked_temp(
        || temp_builder(&prefix, ".old").tempdir_in(parent),
        |dir| dir.path().to_owned(),
    )
    .map_err(write_err)?;
    let aside_path = aside.path().to_owned();
    // The empty directory made for the name is replaced by the old folder.
    let moved = fs::rename(dest, &aside_path).and_then(|()| fs::rename(temp, dest));
    // The old folder (or the empty one, if it was not moved) goes, with what it holds.
    drop(aside);
    forget_temp(&aside_path);
    moved.map_err(write_err)
}

/// A task folder that cannot be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FolderError {
    /// The exported record holds no folder name where its layout says.
    #[error("a record holds no folder name at `{pointer}`")]
    NoName {
        /// Where the layout says the name is.
        pointer: String,
    },
    /// The record's folder name is not one name of a directory.
    #[error("the record's folder name `{}` {problem}", name.escape_debug())]
    BadName {
        /// The name.
        name: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A file's path would not stay inside its folder, or cannot be written.
    #[error("`{folder}`: the file `{}` {problem}", path.escape_debug())]
    BadPath {
        /// The folder's name.
        folder: String,
        /// The path.
        path: String,
        /// What is wrong with it.
        problem: String,
    },
    /// The record's folder exists and `--overwrite` was not given.
    #[error("`{}` already exists", .0.display())]
    Exists(PathBuf),
    /// Two folders whose names are the same, or differ only in case.
    #[error("the folder `{name}` collides with `{earlier}`{}", if *in_run { ", written earlier by this run" } else { ", which the output directory holds" })]
    Collision {
        /// The name of the folder refused.
        name: String,
        /// The name it collides with.
        earlier: String,
        /// Whether the other was written by this run (else the directory held it).
        in_run: bool,
    },
    /// The output directory is a symbolic link.
    #[error("the output directory `{}` is a symbolic link", .0.display())]
    RootIsLink(PathBuf),
    /// The output names a file, not a directory.
    #[error("the output `{}` is not a directory", .0.display())]
    RootNotDirectory(PathBuf),
    /// A folder format with no output directory.
    #[error("`--to {0}` writes a folder per record, and no output directory is given")]
    NoDirectory(String),
    /// A directory output for a format of records.
    #[error("`{}` names a directory, and `--to {format}` writes records, not folders", path.display())]
    NotAFolderFormat {
        /// The output.
        path: PathBuf,
        /// The target format.
        format: String,
    },
}

impl AreaError for FolderError {
    fn hint(&self) -> Option<String> {
        Some(match self {
            Self::NoName { .. } | Self::BadPath { .. } => return None,
            Self::BadName { .. } => "a folder is named after the record's `instance_id`: `--replace instance_id=NAME` gives it another".into(),
            Self::Exists(_) => "pass `--overwrite` to replace it".into(),
            Self::Collision { in_run: true, .. } => {
                "on a case-insensitive file system both are one folder: give the records distinct `instance_id`s".into()
            }
            Self::Collision { in_run: false, .. } => {
                "on a case-insensitive file system both are one folder: write into another directory".into()
            }
            Self::RootIsLink(_) => "name the directory the link points to, if it is the one meant".into(),
            Self::RootNotDirectory(_) => "a folder output is a directory: `-o DIR/`".into(),
            Self::NoDirectory(_) => "add `-o DIR/`".into(),
            Self::NotAFolderFormat { .. } => {
                "write the records to a file (`-o NAME.jsonl`), or task folders with `--to harbor`".into()
            }
        })
    }

    fn exit_code(&self) -> i32 {
        match self {
            Self::NoName { .. } | Self::BadName { .. } | Self::BadPath { .. } => exit::RECORDS,
            _ => exit::USAGE,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn layout() -> FolderLayout {
        FolderLayout {
            name: "/task.toml/metadata/id".into(),
            executable: vec!["tests/test.sh".into()],
        }
    }

    fn record(id: &str, files: &[(&str, Value)]) -> Map<String, Value> {
        let mut record = Map::new();
        record.insert("task.toml".into(), json!({"metadata": {"id": id}}));
        for (path, value) in files {
            record.insert((*path).into(), value.clone());
        }
        record
    }

    #[test]
    fn a_record_is_laid_out_as_its_files() {
        let folder = TaskFolder::of(
            &record(
                "a-1",
                &[
                    ("tests/test.sh", json!("#!/bin/bash\n")),
                    ("x", Value::Null),
                ],
            ),
            &layout(),
        )
        .unwrap();
        assert_eq!(folder.name, "a-1");
        assert_eq!(folder.files.len(), 2);
        assert_eq!(folder.files[0].bytes, b"[metadata]\nid = \"a-1\"\n");
        assert!(folder.files[1].executable);
    }

    #[test]
    fn names_and_paths_that_leave_the_folder_are_refused() {
        for id in ["..", ".", "", "a/b", "a\\b", "a\0b", "a\nb"] {
            assert!(
                matches!(
                    TaskFolder::of(&record(id, &[]), &layout()),
                    Err(FolderError::BadName { .. })
                ),
                "{id:?}"
            );
        }
        for path in [
            "../x",
            "/etc/passwd",
            "a//b",
            "a/./b",
            "tests/../../x",
            "a\0",
            "a\\..\\b",
        ] {
            assert!(
                matches!(
                    TaskFolder::of(&record("ok", &[(path, json!("x"))]), &layout()),
                    Err(FolderError::BadPath { .. })
                ),
                "{path:?}"
            );
        }
    }

    /// Components made of what hostile names are made of: dots, separators, NUL, control
    /// characters, letters of both cases.
    fn component() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![
                Just("."),
                Just(".."),
                Just("/"),
                Just("\\"),
                Just("\0"),
                Just("\n"),
                Just("a"),
                Just("A"),
                Just("-"),
                Just("é"),
            ],
            0..6,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        /// Whatever the record holds, a folder that is laid out has a name that is one
        /// normal component, and files whose paths, joined to it, stay under it; no two of
        /// its paths fold to the same name.
        #[test]
        fn a_laid_out_folder_never_leaves_its_directory(
            name in component(),
            paths in prop::collection::vec(
                prop::collection::vec(component(), 1..4).prop_map(|c| c.join("/")),
                0..5,
            ),
        ) {
            let files: Vec<(&str, Value)> = paths.iter().map(|p| (p.as_str(), json!("x"))).collect();
            let Ok(folder) = TaskFolder::of(&record(&name, &files), &layout()) else {
                return Ok(());
            };
            let root = std::path::Path::new("/out");
            let dir = root.join(&folder.name);
            let components: Vec<_> = std::path::Path::new(&folder.name).components().collect();
            prop_assert!(matches!(components[..], [std::path::Component::Normal(_)]));
            prop_assert!(!folder.name.contains('\0'));
            let mut folded = std::collections::HashSet::new();
            for file in &folder.files {
                let path = dir.join(&file.path);
                prop_assert!(path.starts_with(&dir));
                prop_assert!(std::path::Path::new(&file.path)
                    .components()
                    .all(|c| matches!(c, std::path::Component::Normal(_))));
                prop_assert!(folded.insert(file.path.to_lowercase()), "{}", file.path);
            }
        }
    }

    #[test]
    fn paths_that_differ_only_in_case_or_are_file_and_directory_collide() {
        for (a, b) in [
            ("Tests/a", "tests/b"),
            ("README", "readme"),
            ("tests", "tests/x"),
        ] {
            assert!(
                matches!(
                    TaskFolder::of(
                        &record("ok", &[(a, json!("1")), (b, json!("2"))]),
                        &layout()
                    ),
                    Err(FolderError::BadPath { .. })
                ),
                "{a} {b}"
            );
        }
        assert!(
            TaskFolder::of(
                &record("ok", &[("tests/a", json!("1")), ("tests/b", json!("2"))]),
                &layout()
            )
            .is_ok()
        );
    }
}
