//! The error that ends a command, and the one way an area's error gives its hint.
//!
//! Each area keeps its own error type beside its code (the plan's [`PlanError`] in
//! `pipeline/plan.rs`, a plugin's `PluginError` in `plugin/error.rs`, a repository's
//! `RepoError` in `mine/repo.rs`, ...): a type that implements [`AreaError`] gives its
//! message (`Display`), its hint and its exit code, and becomes a [`CliError`] with `?`,
//! keeping its type ([`CliError::area`] finds it again). This module names no area
//! module, so that none depends back on it.
//!
//! [`PlanError`]: crate::pipeline::plan::PlanError

use std::fmt::Write as _;
use std::path::PathBuf;

use isobench_core::report::Rejection;

use crate::exit;

/// An error of one area of the command line: its message is its `Display`.
pub trait AreaError: std::error::Error + Send + Sync + 'static {
    /// What to do: the `hint:` line printed after the error, if any.
    fn hint(&self) -> Option<String>;

    /// The exit code the command ends with: a usage error unless the area says otherwise.
    fn exit_code(&self) -> i32 {
        exit::USAGE
    }
}

/// An error that ends a command.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CliError {
    /// A format name no adapter answers to.
    #[error("unknown format `{name}`")]
    UnknownFormat {
        /// The name given.
        name: String,
        /// The formats available.
        known: Vec<String>,
        /// Plugins the run did not load, one of which may have been the format.
        skipped: Vec<String>,
    },
    /// An area's own error (a plan, an output, an input, a configuration, a plugin, a
    /// repository, ...), boxed with its type.
    #[error("{0}")]
    Area(Box<dyn AreaError>),
    /// An input could not be read.
    #[error("cannot read `{}`: {}", path.display(), reason(source))]
    Read {
        /// The input.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// An output could not be written.
    #[error("cannot write `{}`: {source}", path.display())]
    Write {
        /// The output.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A record was rejected and `--on-error fail` stops the run: where, and why.
    #[error("{}", describe(.rejection))]
    Rejected {
        /// The record's file, line, `instance_id`, JSON pointer and message.
        rejection: Box<isobench_core::report::Rejection>,
        /// What to do.
        hint: Option<String>,
    },
}

impl<E: AreaError> From<E> for CliError {
    fn from(e: E) -> Self {
        Self::Area(Box::new(e))
    }
}

/// An I/O error in words, the same for a missing file wherever it is found missing.
fn reason(e: &std::io::Error) -> String {
    if e.kind() == std::io::ErrorKind::NotFound {
        "no such file".to_owned()
    } else {
        e.to_string()
    }
}

/// File types, which `-o`'s extension chooses, mistaken for formats.
const FILE_TYPES: [&str; 6] = ["parquet", "jsonl", "json", "gz", "zst", "csv"];

impl CliError {
    /// The exit code this error ends the command with.
    pub fn exit_code(&self) -> i32 {
        match self {
            Self::UnknownFormat { .. } => exit::USAGE,
            Self::Area(e) => e.exit_code(),
            Self::Read { .. } | Self::Write { .. } => exit::IO,
            Self::Rejected { .. } => exit::RECORDS,
        }
    }

    /// The `hint:` line printed after the error, if any.
    pub fn hint(&self) -> Option<String> {
        match self {
            Self::UnknownFormat {
                name,
                known,
                skipped,
            } => {
                let known = known.join(", ");
                let mut hint = if FILE_TYPES.contains(&name.to_ascii_lowercase().as_str()) {
                    format!(
                        "`{name}` is a file type, not a record format: a file's type comes from its extension (`-i in.{name}`, `-o out.{name}`), and `--from`/`--to` name the records' format ({known})"
                    )
                } else {
                    format!(
                        "known formats: {known}; `cargo isobench adapters` lists them with their aliases. A format from a plugin needs the plugin loaded: `--plugin PATH`, `[[plugins]]` in `isobench.toml`, or `cargo isobench plugin build` in its cargo workspace (Multi-SWE-bench: `plugins/multi-swe-bench` of the cargo-isobench repository)"
                    )
                };
                for s in skipped {
                    hint.push_str("\nhint: it may come from a plugin this run did not load: ");
                    hint.push_str(s);
                }
                Some(hint)
            }
            Self::Area(e) => e.hint(),
            Self::Rejected { hint, .. } => hint.clone(),
            Self::Read { .. } | Self::Write { .. } => None,
        }
    }

    /// The area error of type `E` this is, if it is one.
    pub fn area<E: AreaError>(&self) -> Option<&E> {
        match self {
            Self::Area(e) => {
                let e: &(dyn std::error::Error + 'static) = e.as_ref();
                e.downcast_ref()
            }
            _ => None,
        }
    }
}

/// `file:line: record `id`: `pointer`: message`.
pub fn describe(r: &Rejection) -> String {
    let mut text = format!("{}:{}", r.file, r.line);
    if let Some(id) = &r.instance_id {
        let _ = write!(text, ": record `{id}`");
    }
    if !r.pointer.is_empty() {
        let _ = write!(text, ": `{}`", r.pointer);
    }
    text.push_str(": ");
    text.push_str(&r.message);
    text
}

/// Each of `errors` as a command prints it (its message, its hint, its exit code), one
/// after another: the text the areas' snapshots of their messages hold.
#[cfg(test)]
pub(crate) fn said<E: Into<CliError>>(errors: impl IntoIterator<Item = E>) -> String {
    let mut text = String::new();
    for e in errors {
        let e = e.into();
        let _ = writeln!(text, "error: {e}");
        if let Some(hint) = e.hint() {
            let _ = writeln!(text, "hint: {hint}");
        }
        let _ = writeln!(text, "exit: {}\n", e.exit_code());
    }
    text
}
