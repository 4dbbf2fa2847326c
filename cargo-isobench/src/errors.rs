//! Errors that stop a command, each with the path it concerns and an exit code.

use std::fmt::Write as _;
use std::path::PathBuf;

use isobench_core::report::Rejection;

use crate::exit;

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
    /// The output exists and `--overwrite` was not given.
    #[error("`{}` already exists", .0.display())]
    OutputExists(PathBuf),
    /// The output is one of the inputs.
    #[error("the output `{}` is also an input", .0.display())]
    OutputIsInput(PathBuf),
    /// A conversion request that cannot be planned.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// A usage error with its own message.
    #[error("{message}")]
    Usage {
        /// What is wrong.
        message: String,
        /// What to do.
        hint: Option<String>,
    },
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
    /// A record failed and `--on-error fail` stops the run.
    #[error("{0}")]
    Record(String, Option<String>),
    /// A record was rejected and `--on-error fail` stops the run: where, and why.
    #[error("{}", describe(.rejection))]
    Rejected {
        /// The record's file, line, `instance_id`, JSON pointer and message.
        rejection: Box<isobench_core::report::Rejection>,
        /// What to do.
        hint: Option<String>,
    },
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
            Self::UnknownFormat { .. }
            | Self::OutputExists(_)
            | Self::OutputIsInput(_)
            | Self::Plan(_)
            | Self::Usage { .. } => exit::USAGE,
            Self::Read { .. } | Self::Write { .. } => exit::IO,
            Self::Record(..) | Self::Rejected { .. } => exit::RECORDS,
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
            Self::OutputExists(_) => Some("pass `--overwrite` to replace it".into()),
            Self::OutputIsInput(_) => Some("write to another file, then move it into place".into()),
            Self::Plan(e) => e.hint(),
            Self::Usage { hint, .. } | Self::Record(_, hint) | Self::Rejected { hint, .. } => {
                hint.clone()
            }
            Self::Read { .. } | Self::Write { .. } => None,
        }
    }

    /// A usage error.
    pub fn usage(message: impl Into<String>, hint: Option<&str>) -> Self {
        Self::Usage {
            message: message.into(),
            hint: hint.map(str::to_owned),
        }
    }
}

/// A request that cannot be planned: a usage error, nothing converted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PlanError {
    /// Paths given without `-i`.
    #[error("`convert` takes its inputs with `-i`, not as bare arguments (`{}`)", .0[0].display())]
    StrayInputs(Vec<PathBuf>),
    /// `-` twice among the inputs.
    #[error("stdin (`-`) is given as an input more than once")]
    StdinTwice,
    /// `--on-error skip` with stdout as output and no `--rejects`.
    #[error("`--on-error skip` needs a rejects file when the output is stdout")]
    RejectsNeeded,
    /// `--rejects` without `--on-error skip`.
    #[error("`--rejects` is only used with `--on-error skip`")]
    RejectsWithoutSkip,
    /// A `--shard` that is not `K/N` with 1 <= K <= N.
    #[error("`--shard {0}` is not `K/N` with 1 <= K <= N")]
    BadShard(String),
    /// `--shard` with stdin among the inputs.
    #[error("`--shard` cannot split stdin: every shard must read the same inputs")]
    ShardOfStdin,
    /// `auto` for records held in memory.
    #[error(
        "`auto` needs files to read ahead: records converted in memory need their format named"
    )]
    AutoInMemory,
}

impl PlanError {
    /// What to do.
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            Self::StrayInputs(paths) => {
                let given: Vec<String> = paths
                    .iter()
                    .map(|p| format!("-i {}", p.display()))
                    .collect();
                format!("write `{}`", given.join(" "))
            }
            Self::StdinTwice => return None,
            Self::RejectsNeeded => "add `--rejects PATH`".into(),
            Self::RejectsWithoutSkip => "add `--on-error skip`, or drop `--rejects`".into(),
            Self::BadShard(_) => "e.g. `--shard 2/8` converts the second of eight parts".into(),
            Self::ShardOfStdin => "give the input files with `-i`".into(),
            Self::AutoInMemory => "name the format (`cargo isobench adapters` lists them)".into(),
        })
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
