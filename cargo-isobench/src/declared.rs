//! Adapters with no code: a format declared by its field table in a TOML file, loaded
//! with `--adapter PATH.toml` or `[[adapters]] path = "..."` in `isobench.toml`.
//!
//! ```toml
//! name = "swe-bench-extra"
//! description = "nebius/SWE-bench-extra rows"
//!
//! [[fields]]
//! key = "instance_id"
//! to = "instance_id"
//! required = true
//! consumer = { evidence = "the harness loads a task by its id", non_empty = true }
//!
//! [[fields]]
//! key = "FAIL_TO_PASS"
//! to = "extensions.fail_to_pass"
//! type = "list"          # encoding = "array" (default), "json", "json-spaced", "python-repr"
//! ```
//!
//! The keys are those of [`isobench_core::table::Table`] and
//! [`isobench_core::table::Field`]. A file runs no code, so it needs no trust; it cannot
//! declare hooks. An error names the file, line and column.

use std::path::{Path, PathBuf};

use isobench_core::adapter::NameClash;
use isobench_core::table::{Table, TableAdapter};
use isobench_core::{Registered, Registry};
use serde::Deserialize;

use crate::errors::{AreaError, CliError};

/// The largest table file read.
pub const MAX_TABLE_BYTES: u64 = 1 << 20;

/// Registers the adapter of every table file named with `--adapter` (relative to `cwd`)
/// or by `[[adapters]]` in the configuration (already relative to it), which must lie
/// inside `config_dir`, the configuration's directory.
pub fn register_all(
    registry: &mut Registry,
    flags: &[PathBuf],
    configured: &[PathBuf],
    config_dir: Option<&Path>,
    cwd: &Path,
) -> Result<(), CliError> {
    let named = flags.iter().map(|p| (cwd.join(p), None));
    let found = configured.iter().map(|p| (p.clone(), config_dir));
    for (path, within) in named.chain(found) {
        let adapter = load_in(&path, within, registry)?;
        registry.register(adapter).map_err(TableError::NameClash)?;
    }
    Ok(())
}

/// The adapter a table file declares (one that extends no format).
pub fn load(path: &Path) -> Result<TableAdapter, CliError> {
    let (text, table) = read(path, None)?;
    adapter_of(path, &text, table)
}

/// The adapter of `table`, read from `path` as `text`, which extends no format.
fn adapter_of(path: &Path, text: &str, table: Table) -> Result<TableAdapter, CliError> {
    if let Some(base) = &table.extends {
        return Err(invalid(
            path,
            text,
            None,
            &format!("`extends = \"{base}\"` needs the registry of formats to extend"),
        ));
    }
    let origin = path.display().to_string();
    TableAdapter::new(table, ())
        .map(|adapter| adapter.with_origin(origin))
        .map_err(|e| invalid(path, text, None, &e.to_string()))
}

/// The adapter a table file declares, extending a format of `registry` when it says
/// `extends = "FORMAT"`; see [`read_table`] for `within`.
pub fn load_in(
    path: &Path,
    within: Option<&Path>,
    registry: &Registry,
) -> Result<Registered, CliError> {
    let (text, table) = read(path, within)?;
    let Some(base_name) = table.extends.clone() else {
        return Ok(adapter_of(path, &text, table)?.into());
    };
    let Some(base) = registry.get(&base_name) else {
        let at = text.find("extends");
        return Err(invalid(
            path,
            &text,
            at,
            &format!(
                "`extends = \"{base_name}\"`: no such format (`cargo isobench adapters` lists them)"
            ),
        ));
    };
    let entry_at = |index: usize| field_entry_at(&text, index);
    match base.extended(table) {
        Some(Ok(adapter)) => Ok(adapter),
        Some(Err(e)) => Err(invalid(
            path,
            &text,
            e.field.as_ref().and_then(|(index, _)| entry_at(*index)),
            &e.to_string(),
        )),
        None => Err(invalid(
            path,
            &text,
            text.find("extends"),
            &format!("`extends = \"{base_name}\"`: that format is not declared by a field table"),
        )),
    }
}

/// The text of the table file at `path`, and the table it declares; see [`read_table`]
/// for `within`.
fn read(path: &Path, within: Option<&Path>) -> Result<(String, Table), CliError> {
    let text = read_table(path, within)?;
    let table = parse(&text, path)?;
    Ok((text, table))
}

/// The text of a table file: a regular file (after links) of at most [`MAX_TABLE_BYTES`],
/// inside `within` (resolved) when given.
fn read_table(path: &Path, within: Option<&Path>) -> Result<String, CliError> {
    use std::io::Read;
    let refuse = |what: String| {
        CliError::from(TableError::NotATable {
            path: path.to_owned(),
            what,
        })
    };
    let read_err = |source| CliError::Read {
        path: path.to_owned(),
        source,
    };
    let real = std::fs::canonicalize(path).map_err(read_err)?;
    if let Some(dir) = within {
        let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_owned());
        if !real.starts_with(&dir) {
            return Err(refuse(format!(
                "is outside `{}`, the directory of the configuration naming it",
                dir.display()
            )));
        }
    }
    // Looked at before opening: opening a named pipe would wait for a writer.
    if !std::fs::metadata(&real).map_err(read_err)?.is_file() {
        return Err(refuse("is not a regular file".into()));
    }
    let file = std::fs::File::open(&real).map_err(read_err)?;
    let mut text = String::new();
    file.take(MAX_TABLE_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(read_err)?;
    if text.len() as u64 > MAX_TABLE_BYTES {
        return Err(refuse(format!(
            "is larger than {MAX_TABLE_BYTES} bytes, more than any table needs"
        )));
    }
    Ok(text)
}

/// Where the `[[fields]]` entry `index` of `text` starts.
fn field_entry_at(text: &str, index: usize) -> Option<usize> {
    toml::from_str::<Entries>(text)
        .ok()
        .and_then(|entries| entries.fields.get(index).map(|e| e.span().start))
}

/// The table `text` (read from `path`) declares, checked.
pub fn parse(text: &str, path: &Path) -> Result<Table, CliError> {
    let table: Table = toml::from_str(text).map_err(|e| {
        let at = e.span().map(|span| span.start);
        invalid(path, text, at, e.message())
    })?;
    // Where each `[[fields]]` entry starts, to name the line of a field at fault.
    let entry_at = |index: usize| field_entry_at(text, index);
    if let Some(index) = table.fields.iter().position(|f| f.hook) {
        let key = &table.fields[index].key;
        return Err(invalid(
            path,
            text,
            entry_at(index),
            &format!(
                "field `{key}`: `hook = true` needs code, and a table file runs none; write a plugin with a hook, or map the key straight"
            ),
        ));
    }
    if !table.requires.is_empty() || !table.hook_fills.is_empty() || !table.hook_carries.is_empty()
    {
        return Err(invalid(
            path,
            text,
            None,
            "`requires`, `hook_fills` and `hook_carries` describe hooks, and a table file has none: declare each key as a field",
        ));
    }
    // A table that extends another is checked once it is whole.
    if table.extends.is_none() {
        table.check().map_err(|e| {
            let at = e.field.as_ref().and_then(|(index, _)| entry_at(*index));
            invalid(path, text, at, &e.to_string())
        })?;
    }
    Ok(table)
}

/// The `[[fields]]` entries with where each starts.
#[derive(Deserialize)]
struct Entries {
    #[serde(default)]
    fields: Vec<toml::Spanned<toml::Table>>,
}

/// The usage error for a table file, naming its line and column when known.
fn invalid(path: &Path, text: &str, at: Option<usize>, message: &str) -> CliError {
    let at = at.map(|at| {
        let at = at.min(text.len());
        let line = text[..at].matches('\n').count() + 1;
        let column = at - text[..at].rfind('\n').map_or(0, |i| i + 1) + 1;
        (line, column)
    });
    TableError::Invalid {
        path: path.to_owned(),
        at,
        message: message.trim_end().to_owned(),
    }
    .into()
}

/// An adapter table file (`--adapter PATH.toml`, `[[adapters]]`) that cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TableError {
    /// A file that is not a valid table.
    #[error("invalid adapter table `{}{}`: {message}", path.display(), line_column(*at))]
    Invalid {
        /// The table file.
        path: PathBuf,
        /// The 1-based line and column at fault, when known.
        at: Option<(usize, usize)>,
        /// What is wrong.
        message: String,
    },
    /// A table whose format answers to a name another adapter has.
    #[error(transparent)]
    NameClash(#[from] NameClash),
    /// A path given as a table that cannot be one: not a regular file, too large, or (from
    /// `[[adapters]]`) outside the configuration's directory.
    #[error("adapter table `{}` {what}", .path.display())]
    NotATable {
        /// The path.
        path: PathBuf,
        /// Why it is refused.
        what: String,
    },
}

/// `:LINE:COLUMN`, or nothing.
fn line_column(at: Option<(usize, usize)>) -> String {
    at.map_or_else(String::new, |(line, column)| format!(":{line}:{column}"))
}

impl AreaError for TableError {
    fn hint(&self) -> Option<String> {
        Some(match self {
            Self::Invalid { .. } => "see docs/adapters.md for the keys a table file takes",
            Self::NameClash(_) => "rename the format in one of the two",
            Self::NotATable { .. } => {
                "a table is a TOML file (a regular file of at most 1 MiB); `[[adapters]]` names one inside the configuration's directory, `--adapter PATH` any other"
            }
        }.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(text: &str) -> String {
        match parse(text, Path::new("f.toml")) {
            Err(e) if matches!(e.area(), Some(TableError::Invalid { .. })) => e.to_string(),
            other => panic!("expected a usage error, got {other:?}"),
        }
    }

    const HEAD: &str = "name = \"x\"\ndescription = \"d\"\n";

    #[test]
    fn errors_name_the_line_and_column() {
        // A key the table does not know.
        let text = format!("{HEAD}[[fields]]\nkey = \"a\"\nto = \"repo\"\nencodng = \"json\"\n");
        assert_eq!(
            error(&text),
            "invalid adapter table `f.toml:6:1`: unknown field `encodng`, expected one of `key`, `to`, `type`, `encoding`, `required`, `import_only`, `hook`, `consumer`"
        );
        // A value of the wrong kind.
        let text = format!("{HEAD}[[fields]]\nkey = \"a\"\ntype = \"lists\"\n");
        assert!(
            error(&text).starts_with("invalid adapter table `f.toml:5:8`: unknown variant `lists`"),
            "{}",
            error(&text)
        );
        // A table that says something impossible: the field's entry is named.
        let text = format!(
            "{HEAD}[[fields]]\nkey = \"a\"\nto = \"repo\"\n\n[[fields]]\nkey = \"b\"\nto = \"repo\"\n"
        );
        assert_eq!(
            error(&text),
            "invalid adapter table `f.toml:7:1`: field 2 (`b`): `repo` is already the field of `a`"
        );
        let text = format!("{HEAD}[[fields]]\nkey = \"a\"\nto = \"repo\"\nhook = true\n");
        assert!(error(&text).starts_with(
            "invalid adapter table `f.toml:3:1`: field `a`: `hook = true` needs code"
        ));
        assert!(
            error(HEAD).ends_with("`fields` is empty: declare at least one"),
            "{}",
            error(HEAD)
        );
    }

    #[test]
    fn a_consumer_s_known_values_are_declared_as_the_readme_shows() {
        let text = format!(
            "{HEAD}[[fields]]\nkey = \"repo\"\nto = \"repo\"\nconsumer = {{ evidence = \"spec\", known = {{ values = [\"psf/requests\"] }} }}\n\n\
             [[fields]]\nkey = \"version\"\nto = \"version\"\n\
             consumer = {{ evidence = \"spec\", known = {{ under = {{ key = \"repo\", values = {{ \"psf/requests\" = [\"2.0\", \"2.26\"] }} }}, unless = \"eval_script\" }} }}\n"
        );
        let table = parse(&text, Path::new("f.toml")).expect("a valid table");
        let contract = table.contract();
        let check = |record: serde_json::Value| {
            let serde_json::Value::Object(record) = record else {
                unreachable!()
            };
            let unmet = contract.check(&record, &|_| None);
            unmet
                .iter()
                .map(isobench_core::contract::Unmet::describe)
                .collect::<Vec<_>>()
        };
        assert!(check(serde_json::json!({"repo": "psf/requests", "version": "2.26"})).is_empty());
        assert_eq!(
            check(serde_json::json!({"repo": "psf/requests", "version": "2.2"})),
            ["`version` (one it knows for this `repo`, not `2.2`)"]
        );
        assert!(
            check(serde_json::json!({"repo": "psf/requests", "version": "9", "eval_script": "x"}))
                .is_empty()
        );
        // A misspelt entry is named.
        let text = format!(
            "{HEAD}[[fields]]\nkey = \"repo\"\nconsumer = {{ evidence = \"e\", known = {{ value = [\"a\"] }} }}\n"
        );
        assert!(
            error(&text).contains("unknown field `value`"),
            "{}",
            error(&text)
        );
    }
}

#[cfg(test)]
mod error_messages {
    use super::*;
    use crate::errors::{CliError, said};

    #[test]
    fn table_errors_say_what_they_always_said() {
        let errors = vec![
            CliError::from(TableError::Invalid {
                path: "f.toml".into(),
                at: Some((6, 1)),
                message: "bad".into(),
            }),
            CliError::from(TableError::Invalid {
                path: "f.toml".into(),
                at: None,
                message: "bad".into(),
            }),
            CliError::from(TableError::NameClash(NameClash {
                name: "a".into(),
                origin: "x".into(),
                existing: "b".into(),
                existing_origin: "y".into(),
            })),
        ];
        insta::assert_snapshot!(said(errors));
    }
}
