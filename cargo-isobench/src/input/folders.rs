//! The folder reader: records that are folders of files (Harbor's task folders), read
//! from a directory given to `-i`.
//!
//! The directory is either one record folder (it holds the format's name file, such as
//! `task.toml`) or a directory of them: each entry one record, read in the order of the
//! entries' names so that a run gives the same output whatever order the file system
//! lists them in; entries whose names start with a dot (the temporary folders a folder
//! output builds) are left out. Items are numbered from 1 by that order.
//!
//! A record is the map a folder output writes from: each key a file's `/`-separated path
//! in the folder; a `.toml` file's value its table, a `.json` file's its JSON value, any
//! other file's its text. The folder is read as untrusted ground, as a folder output
//! treats its directory (`pipeline/sink/folders.rs`):
//!
//! - only directories and regular files are read: a symbolic link (wherever it points),
//!   a named pipe, a socket or a device in a record folder makes the record an error
//!   naming it, and a record folder that is itself a link is not followed; a file is read
//!   only if what was opened is the file that was looked at, so a link swapped in
//!   meanwhile is not followed either;
//! - every file, and the record's files together, are bounded by `--max-record-bytes`,
//!   read no further than the bound; a folder holds at most [`MAX_FILES`] files, nested
//!   at most [`MAX_DEPTH`] directories deep;
//! - a file's path must be UTF-8, and a text file UTF-8: otherwise the record is an
//!   error naming the file.
//!
//! A record that cannot be read is that record's error (a reject under `--on-error
//! skip`), never the end of the run; a directory that cannot be listed is.

use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use isobench_core::adapter::FolderLayout;
use isobench_core::registry::{Registered, Registry};
use serde_json::{Map, Value};

use super::bad_input::BadInput;
use super::items::{Batch, Batching, Item, RawItem, RecordReader, Window};
use super::source::Input;
use crate::errors::{AreaError, CliError};

/// The most files one record folder may hold.
pub const MAX_FILES: usize = 10_000;

/// The most directories a record folder's files may be nested in.
pub const MAX_DEPTH: usize = 32;

/// Record folders per batch handed to the pipeline.
const FOLDER_BATCH: usize = 16;

/// The records of a directory of record folders, or of one record folder.
#[derive(Debug)]
pub struct RecordFolders {
    /// The directory given to `-i`.
    root: PathBuf,
    /// The file every record folder of the format holds.
    name_file: String,
}

impl RecordFolders {
    /// Reads `root`, a record folder or a directory of them, of a format whose folders
    /// all hold `name_file`.
    pub fn new(root: PathBuf, name_file: String) -> Self {
        Self { root, name_file }
    }

    /// The record folders, in order: `root` itself when it holds the name file, else its
    /// entries whose names do not start with a dot, sorted by name.
    fn folders(&self) -> Result<Vec<PathBuf>, CliError> {
        let read_err = |source| CliError::Read {
            path: self.root.clone(),
            source,
        };
        if fs::symlink_metadata(self.root.join(&self.name_file)).is_ok() {
            return Ok(vec![self.root.clone()]);
        }
        let mut names = Vec::new();
        for entry in fs::read_dir(&self.root).map_err(read_err)? {
            let name = entry.map_err(read_err)?.file_name();
            if !name.as_encoded_bytes().starts_with(b".") {
                names.push(name);
            }
        }
        names.sort();
        Ok(names.into_iter().map(|name| self.root.join(name)).collect())
    }

    /// Calls `each` for every record folder, in order, with its number and record, until
    /// `each` returns `false`.
    fn read(
        &self,
        each: &mut dyn FnMut(u64, Result<Value, BadInput>) -> Result<bool, CliError>,
    ) -> Result<(), CliError> {
        let limit = super::lines::max_record_bytes();
        for (line, folder) in (1u64..).zip(self.folders()?) {
            let record = read_folder(&folder, limit, &mut 0).map(Value::Object);
            if !each(line, record)? {
                break;
            }
        }
        Ok(())
    }
}

impl RecordReader for RecordFolders {
    fn for_each_item(
        &mut self,
        each: &mut dyn FnMut(Item<'_>) -> Result<bool, CliError>,
    ) -> Result<(), CliError> {
        self.read(&mut |line, record| {
            each(Item {
                line,
                raw: &[],
                record,
            })
        })
    }

    fn read_batches(
        &mut self,
        Batching { index, .. }: Batching<'_>,
        window: &mut Window,
        emit: &mut dyn FnMut(Batch) -> bool,
    ) -> Result<(), CliError> {
        let new_batch = || Batch {
            source: index,
            ..Batch::default()
        };
        let mut batch = new_batch();
        let mut open = true;
        let limit = super::lines::max_record_bytes();
        for (line, folder) in (1u64..).zip(self.folders()?) {
            match window.admit() {
                None => break,
                Some(false) => continue,
                Some(true) => {}
            }
            let mut bytes = 0u64;
            let record = read_folder(&folder, limit, &mut bytes).map(Value::Object);
            batch.bytes += bytes;
            batch.items.push(RawItem {
                line,
                range: 0..0,
                complete: true,
                parsed: Some(record),
                folder: Some(folder.display().to_string()),
            });
            if batch.items.len() >= FOLDER_BATCH {
                open = emit(std::mem::replace(&mut batch, new_batch()));
                if !open {
                    break;
                }
            }
        }
        if open && !batch.items.is_empty() {
            emit(batch);
        }
        Ok(())
    }

    fn count_items(&mut self) -> Result<u64, CliError> {
        Ok(self.folders()?.len() as u64)
    }
}

/// A file of a record folder that cannot be read into the record.
fn bad(path: &Path, problem: &str, hint: &str) -> BadInput {
    BadInput {
        message: format!("`{}` {problem}", path.display()),
        value: None,
        hint: Some(hint.to_owned()),
        text: None,
    }
}

/// The record `folder` holds: each file at its `/`-separated path, read by its
/// extension. `bytes` counts the bytes read; together they may take at most `limit`.
pub fn read_folder(
    folder: &Path,
    limit: u64,
    bytes: &mut u64,
) -> Result<Map<String, Value>, BadInput> {
    let meta = fs::symlink_metadata(folder).map_err(|e| {
        bad(
            folder,
            &format!("cannot be read: {e}"),
            "check that the folder is there and readable",
        )
    })?;
    if meta.file_type().is_symlink() {
        return Err(bad(
            folder,
            "is a symbolic link, which is not followed",
            "give the folder the link points to, or copy it in place of the link",
        ));
    }
    if !meta.is_dir() {
        return Err(bad(
            folder,
            "is not a record folder (a directory of the record's files)",
            "keep only record folders in the directory given to `-i`",
        ));
    }
    let mut files = Vec::new();
    list_files(folder, "", 0, &mut files)?;
    let mut record = Map::new();
    for (key, path) in files {
        let budget = limit.saturating_sub(*bytes);
        let content = read_bounded(&path, budget)?;
        *bytes += content.len() as u64;
        let value = value_of(&key, &path, content)?;
        record.insert(key, value);
    }
    Ok(record)
}

/// Adds to `files` the regular files under `dir` (at `prefix` in the folder), sorted by
/// path, with their paths in the folder; refuses anything else.
fn list_files(
    dir: &Path,
    prefix: &str,
    depth: usize,
    files: &mut Vec<(String, PathBuf)>,
) -> Result<(), BadInput> {
    let unreadable = |e: io::Error| {
        bad(
            dir,
            &format!("cannot be read: {e}"),
            "check that the folder is readable",
        )
    };
    if depth > MAX_DEPTH {
        return Err(bad(
            dir,
            &format!(
                "is nested deeper than {MAX_DEPTH} directories, the most a record folder may be"
            ),
            "a record folder's files are the record's fields: flatten the folder",
        ));
    }
    let mut entries = Vec::new();
    for entry in fs::read_dir(dir).map_err(unreadable)? {
        entries.push(entry.map_err(unreadable)?.file_name());
    }
    entries.sort();
    for name in entries {
        let path = dir.join(&name);
        let Some(name) = name.to_str() else {
            return Err(bad(
                &path,
                "has a name that is not UTF-8, which no record key can be",
                "rename the file",
            ));
        };
        let key = if prefix.is_empty() {
            name.to_owned()
        } else {
            format!("{prefix}/{name}")
        };
        let meta = fs::symlink_metadata(&path).map_err(|e| {
            bad(
                &path,
                &format!("cannot be read: {e}"),
                "check that the file is readable",
            )
        })?;
        let kind = meta.file_type();
        if kind.is_symlink() {
            return Err(bad(
                &path,
                "is a symbolic link: links in a record folder are not followed",
                "put the file itself in the folder in place of the link",
            ));
        } else if kind.is_dir() {
            list_files(&path, &key, depth + 1, files)?;
        } else if kind.is_file() {
            if files.len() >= MAX_FILES {
                return Err(bad(
                    dir,
                    &format!(
                        "takes its record past {MAX_FILES} files, the most a record folder may hold"
                    ),
                    "a record folder's files are the record's fields: remove the files that are not",
                ));
            }
            files.push((key, path));
        } else {
            return Err(bad(
                &path,
                "is not a regular file (a named pipe, socket or device)",
                "a record folder holds regular files and directories only",
            ));
        }
    }
    Ok(())
}

/// The bytes of the regular file at `path`, at most `limit` of them; refused when the
/// file holds more, or is not, once open, the regular file that was listed.
fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, BadInput> {
    let unreadable = |e: io::Error| {
        bad(
            path,
            &format!("cannot be read: {e}"),
            "check that the file is readable",
        )
    };
    let listed = fs::symlink_metadata(path).map_err(unreadable)?;
    let file = File::open(path).map_err(unreadable)?;
    let opened = file.metadata().map_err(unreadable)?;
    if !listed.is_file() || !opened.is_file() || !same_file(&listed, &opened) {
        return Err(bad(
            path,
            "changed while it was read (it is no longer the regular file that was listed)",
            "read the folder again once nothing is writing to it",
        ));
    }
    let mut content = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut content)
        .map_err(unreadable)?;
    if content.len() as u64 > limit {
        return Err(bad(
            path,
            &format!(
                "takes its record past {} bytes, the most one record may take",
                super::lines::max_record_bytes()
            ),
            "raise the bound with `--max-record-bytes BYTES` if the record is meant to be this large",
        ));
    }
    Ok(content)
}

/// Whether two metadata are of one file.
#[cfg(unix)]
fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

/// Whether two metadata are of one file, as far as can be told.
#[cfg(not(unix))]
fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    a.len() == b.len() && a.modified().ok() == b.modified().ok()
}

/// The value of the file `key` (at `path`) holding `content`: a `.toml` file's table, a
/// `.json` file's JSON value, any other file's text.
fn value_of(key: &str, path: &Path, content: Vec<u8>) -> Result<Value, BadInput> {
    let text = String::from_utf8(content).map_err(|e| {
        bad(
            path,
            &format!(
                "is not UTF-8 text (invalid bytes at offset {}), and a record's files are text",
                e.utf8_error().valid_up_to()
            ),
            "convert the file to UTF-8, or take it out of the folder",
        )
    })?;
    let extension = |wanted: &str| {
        Path::new(key)
            .extension()
            .is_some_and(|ext| ext.eq_ignore_ascii_case(wanted))
    };
    if extension("json") {
        return serde_json::from_str(&text).map_err(|e| {
            bad(
                path,
                &format!("is not JSON: {e}"),
                "a `.json` file of a record folder is read as JSON: fix the file",
            )
        });
    }
    if extension("toml") {
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            bad(
                path,
                &format!("is not TOML: {}", e.message()),
                "a `.toml` file of a record folder is read as TOML: fix the file",
            )
        })?;
        return json_of_toml(toml::Value::Table(table)).map_err(|problem| {
            bad(
                path,
                &problem,
                "a `.toml` file of a record folder is read as JSON values: write the number as one",
            )
        });
    }
    Ok(Value::String(text))
}

/// A TOML value as JSON: a date or time as its text; a float that JSON cannot hold
/// (`nan`, `inf`) refused.
fn json_of_toml(value: toml::Value) -> Result<Value, String> {
    Ok(match value {
        toml::Value::String(text) => Value::String(text),
        toml::Value::Integer(integer) => Value::from(integer),
        toml::Value::Float(float) => serde_json::Number::from_f64(float)
            .map(Value::Number)
            .ok_or_else(|| format!("holds the float {float}, which JSON has no number for"))?,
        toml::Value::Boolean(b) => Value::Bool(b),
        toml::Value::Datetime(datetime) => Value::String(datetime.to_string()),
        toml::Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(json_of_toml)
                .collect::<Result<_, _>>()?,
        ),
        toml::Value::Table(table) => Value::Object(
            table
                .into_iter()
                .map(|(key, item)| Ok((key, json_of_toml(item)?)))
                .collect::<Result<_, String>>()?,
        ),
    })
}

/// The input a directory given to `-i` is: record folders of `from`, the `--from`
/// format (`None` for `auto`), when its records are folders.
pub fn folder_input(
    path: &Path,
    from: Option<&Registered>,
    registry: &Registry,
) -> Result<Input, CliError> {
    let folder_formats = || {
        registry
            .iter()
            .filter(|f| f.info().folder.is_some())
            .map(|f| f.info().name.clone())
            .collect::<Vec<_>>()
    };
    let Some(from) = from else {
        return Err(FolderInputError::FormatNeeded {
            path: path.to_owned(),
            folder_formats: folder_formats(),
        }
        .into());
    };
    let info = from.info();
    match info.folder.as_ref().and_then(FolderLayout::name_file) {
        Some(name_file) => Ok(Input::Folders {
            path: path.to_owned(),
            name_file,
        }),
        None => Err(FolderInputError::NotAFolderFormat {
            path: path.to_owned(),
            format: info.name.clone(),
            folder_formats: folder_formats(),
        }
        .into()),
    }
}

/// A directory given to `-i` that cannot be read as record folders.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FolderInputError {
    /// A directory for a format whose records are not folders.
    #[error("`{}` is a directory, and `--from {format}` reads records from files, not folders", path.display())]
    NotAFolderFormat {
        /// The directory.
        path: PathBuf,
        /// The `--from` format.
        format: String,
        /// The formats whose records are folders.
        folder_formats: Vec<String>,
    },
    /// A directory with `--from auto`.
    #[error("`{}` is a directory, and the format of record folders is not told from them", path.display())]
    FormatNeeded {
        /// The directory.
        path: PathBuf,
        /// The formats whose records are folders.
        folder_formats: Vec<String>,
    },
}

impl AreaError for FolderInputError {
    fn hint(&self) -> Option<String> {
        let (Self::NotAFolderFormat { folder_formats, .. }
        | Self::FormatNeeded { folder_formats, .. }) = self;
        let named = folder_formats
            .iter()
            .map(|f| format!("`--from {f}`"))
            .collect::<Vec<_>>()
            .join(" or ");
        Some(match self {
            Self::NotAFolderFormat { .. } if named.is_empty() => {
                "give a file of records to `-i`".to_owned()
            }
            Self::NotAFolderFormat { .. } => {
                format!(
                    "give a file of records to `-i`, or read the folders as task folders with {named}"
                )
            }
            Self::FormatNeeded { .. } => {
                format!("name the folders' format: {named}")
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    /// A file's path in a folder: one to three short components, the last with an
    /// extension read as text.
    fn path() -> impl Strategy<Value = String> {
        (
            prop::collection::vec("[a-zA-Z0-9_][a-zA-Z0-9_.-]{0,3}", 0..3),
            "[a-z]{1,4}",
            prop_oneof![Just(""), Just(".md"), Just(".sh"), Just(".patch")],
        )
            .prop_map(|(dirs, name, ext)| {
                let mut parts = dirs;
                parts.push(format!("{name}{ext}"));
                parts.join("/")
            })
    }

    /// A file's bytes: text of any characters, or any bytes.
    fn content() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            3 => any::<String>().prop_map(String::into_bytes),
            1 => prop::collection::vec(any::<u8>(), 0..64),
        ]
    }

    /// Files whose paths can all be in one folder: none is a directory of another.
    fn files() -> impl Strategy<Value = BTreeMap<String, Vec<u8>>> {
        prop::collection::btree_map(path(), content(), 0..8).prop_map(|mut files| {
            let paths: Vec<String> = files.keys().cloned().collect();
            files.retain(|path, _| {
                !paths
                    .iter()
                    .any(|other| other.starts_with(&format!("{path}/")))
            });
            files
        })
    }

    fn write(dir: &Path, files: &BTreeMap<String, Vec<u8>>) {
        for (path, bytes) in files {
            let at = dir.join(path);
            fs::create_dir_all(at.parent().expect("under the folder")).unwrap();
            fs::write(at, bytes).unwrap();
        }
    }

    proptest! {
        /// Every file of a folder is read as it was written: its path the key, its bytes
        /// the text; a file that is not UTF-8 is the record's error, naming it.
        #[test]
        fn every_file_reads_as_its_bytes(files in files()) {
            let dir = tempfile::tempdir().unwrap();
            let folder = dir.path().join("task");
            fs::create_dir(&folder).unwrap();
            write(&folder, &files);
            let mut bytes = 0;
            let read = read_folder(&folder, u64::MAX, &mut bytes);
            let not_text: Vec<&String> = files
                .iter()
                .filter(|(_, b)| std::str::from_utf8(b).is_err())
                .map(|(p, _)| p)
                .collect();
            match read {
                Ok(record) => {
                    prop_assert!(not_text.is_empty());
                    let read: BTreeMap<String, Vec<u8>> = record
                        .into_iter()
                        .map(|(k, v)| (k, v.as_str().expect("text").as_bytes().to_vec()))
                        .collect();
                    prop_assert_eq!(&read, &files);
                    let total: usize = files.values().map(Vec::len).sum();
                    prop_assert_eq!(bytes, total as u64);
                }
                Err(bad) => {
                    prop_assert!(bad.message.contains("is not UTF-8 text"), "{}", bad.message);
                    let named = not_text
                        .iter()
                        .any(|p| bad.message.contains(&format!("{}`", folder.join(p).display())));
                    prop_assert!(named, "{}", bad.message);
                }
            }
        }
    }

    #[test]
    fn json_and_toml_files_are_read_as_values() {
        let dir = tempfile::tempdir().unwrap();
        let files = BTreeMap::from([
            (
                "task.toml".to_owned(),
                b"[agent]\ntimeout_sec = 3600.0\nn = 3\nok = true\n".to_vec(),
            ),
            (
                "tests/config.json".to_owned(),
                b"{\"a\": [1, 1.10, null]}\n".to_vec(),
            ),
        ]);
        write(dir.path(), &files);
        let record = read_folder(dir.path(), u64::MAX, &mut 0).unwrap();
        let expected: Value = serde_json::from_str(
            r#"{"task.toml":{"agent":{"timeout_sec":3600.0,"n":3,"ok":true}},"tests/config.json":{"a":[1,1.10,null]}}"#,
        )
        .unwrap();
        // Numbers keep their text: `3600.0` and `1.10` as written.
        assert_eq!(Value::Object(record), expected);
    }

    #[cfg(unix)]
    #[test]
    fn what_is_not_a_directory_or_regular_file_is_refused_unopened() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("task");
        fs::create_dir_all(folder.join("tests")).unwrap();
        fs::write(folder.join("task.toml"), "").unwrap();
        // A named pipe would block a reader that opened it.
        let fifo = folder.join("tests/pipe");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let bad = read_folder(&folder, u64::MAX, &mut 0).unwrap_err();
        assert!(bad.message.contains("tests/pipe`"), "{}", bad.message);
        assert!(
            bad.message.contains("not a regular file"),
            "{}",
            bad.message
        );
        fs::remove_file(&fifo).unwrap();
        // A link to a directory, inside the folder or out of it, is not followed.
        for target in [folder.join("tests"), dir.path().to_owned()] {
            let link = folder.join("linked");
            std::os::unix::fs::symlink(&target, &link).unwrap();
            let bad = read_folder(&folder, u64::MAX, &mut 0).unwrap_err();
            assert!(bad.message.contains("linked`"), "{}", bad.message);
            assert!(bad.message.contains("symbolic link"), "{}", bad.message);
            fs::remove_file(&link).unwrap();
        }
        assert!(read_folder(&folder, u64::MAX, &mut 0).is_ok());
    }

    #[test]
    fn a_folder_nested_too_deep_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut deep = dir.path().to_owned();
        for _ in 0..MAX_DEPTH {
            deep.push("d");
        }
        fs::create_dir_all(&deep).unwrap();
        fs::write(deep.join("f.txt"), "at the bound").unwrap();
        assert!(read_folder(dir.path(), u64::MAX, &mut 0).is_ok());
        fs::create_dir(deep.join("d")).unwrap();
        fs::write(deep.join("d/f.txt"), "past it").unwrap();
        let bad = read_folder(dir.path(), u64::MAX, &mut 0).unwrap_err();
        assert!(
            bad.message.contains("is nested deeper than"),
            "{}",
            bad.message
        );
    }

    #[test]
    fn a_record_past_its_bound_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let files = BTreeMap::from([
            ("a.txt".to_owned(), vec![b'a'; 10]),
            ("b.txt".to_owned(), vec![b'b'; 10]),
        ]);
        write(dir.path(), &files);
        assert!(read_folder(dir.path(), 20, &mut 0).is_ok());
        let bad = read_folder(dir.path(), 19, &mut 0).unwrap_err();
        assert!(bad.message.contains("b.txt`"), "{}", bad.message);
    }
}

#[cfg(test)]
mod error_messages {
    use super::*;
    use crate::errors::said;

    #[test]
    fn folder_input_errors_name_the_directory_and_the_formats_of_folders() {
        insta::assert_snapshot!(said([
            CliError::from(FolderInputError::NotAFolderFormat {
                path: "tasks/".into(),
                format: "swe-bench".into(),
                folder_formats: vec!["harbor".into()],
            }),
            CliError::from(FolderInputError::FormatNeeded {
                path: "tasks/".into(),
                folder_formats: vec!["harbor".into()],
            }),
        ]));
    }
}
