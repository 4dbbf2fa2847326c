//! The command line, as clap parses it.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// `cargo isobench`: the outer `cargo` layer, which absorbs cargo's `cargo-isobench isobench ...` argv.
#[derive(Debug, Parser)]
#[command(name = "cargo", bin_name = "cargo", version, styles = clap::builder::Styles::plain())]
pub enum Cargo {
    /// Convert coding-agent benchmark datasets through the ISO-Bench canonical schema.
    Isobench(Isobench),
}

/// Convert coding-agent benchmark datasets (SWE-bench, SWE-smith, `MiniSandbox`, SWE-Perf,
/// GSO, ...) through the ISO-Bench canonical schema, losslessly where the target can hold
/// the data, and saying exactly what it could not carry where it cannot.
#[derive(Debug, Args)]
#[command(version, after_help = EXIT_CODES)]
pub struct Isobench {
    /// Read this configuration instead of the nearest `isobench.toml`.
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

const EXIT_CODES: &str = "Exit codes:
  0  every record was converted (or is valid)
  1  some records were invalid or rejected, or an input held none
  2  usage or configuration error: nothing was converted
  3  an input could not be read or the output could not be written";

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Convert records from one format to another.
    Convert(ConvertArgs),
    /// Check records against a format (and, for canonical, a profile).
    Validate(ValidateArgs),
    /// List the adapters with their aliases and what they can and cannot carry.
    Adapters(AdaptersArgs),
    /// Print the JSON Schema of a format's records.
    Schema(SchemaArgs),
}

/// The canonical profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProfileArg {
    /// v1 fields the source can fill, plus `extensions`; required fields it cannot fill are left out and counted.
    Lossless,
    /// Exactly canonical v1; a record that cannot comply is an error.
    Strict,
}

impl From<ProfileArg> for isobench_core::Profile {
    fn from(p: ProfileArg) -> Self {
        match p {
            ProfileArg::Lossless => Self::Lossless,
            ProfileArg::Strict => Self::Strict,
        }
    }
}

/// What to do with a bad record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OnError {
    /// Stop at the first bad record; nothing is written.
    Fail,
    /// Write the bad record, with its reason, to the rejects file and go on.
    Skip,
}

/// The JSON text style of the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StyleArg {
    /// The style of the first input record (`{"a": 1}` or `{"a":1}`); compact when it shows none.
    Auto,
    /// `{"a":1}`.
    Compact,
    /// `{"a": 1}`, as Python's `json.dumps` writes.
    Spaced,
}

/// `convert`.
#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// Format of the input records.
    #[arg(long, value_name = "FMT")]
    pub from: String,
    /// Format to write.
    #[arg(long, value_name = "FMT")]
    pub to: String,
    /// Input file (`.jsonl` lines or `.json` array; `-` for stdin). Repeatable; default stdin.
    #[arg(short, long = "input", value_name = "PATH")]
    pub inputs: Vec<PathBuf>,
    /// Output file (`.jsonl` or `.json`, by extension; `-` for stdout). Default stdout (JSONL).
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// Canonical profile, for `--to canonical` (and how strictly other targets treat fields they expect).
    #[arg(long, value_enum, default_value = "lossless")]
    pub profile: ProfileArg,
    /// On a bad record: stop (`fail`), or set it aside in the rejects file and go on (`skip`).
    #[arg(long, value_enum, default_value = "fail")]
    pub on_error: OnError,
    /// Where `--on-error skip` writes rejected records, verbatim with their reasons (JSONL).
    /// Default: `<output>.rejects.jsonl`.
    #[arg(long, value_name = "PATH")]
    pub rejects: Option<PathBuf>,
    /// Write the conversion report (JSON) to this file.
    #[arg(long, value_name = "PATH")]
    pub report: Option<PathBuf>,
    /// Replace the output (and rejects file) if it exists.
    #[arg(long)]
    pub overwrite: bool,
    /// Read at most N records.
    #[arg(long, value_name = "N")]
    pub limit: Option<u64>,
    /// Convert and report, but write no output.
    #[arg(long)]
    pub dry_run: bool,
    /// Set a canonical field on every record before export (`FIELD=VALUE`; `extensions.KEY=VALUE`
    /// for the shared vocabulary). VALUE is read as JSON when it parses, else as a string.
    #[arg(long = "set", value_name = "FIELD=VALUE")]
    pub set: Vec<String>,
    /// JSON text style of the output.
    #[arg(long, value_enum, default_value = "auto")]
    pub json_style: StyleArg,
}

/// `validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Format the records should follow.
    #[arg(long, value_name = "FMT")]
    pub format: String,
    /// Canonical profile (for `--format canonical`).
    #[arg(long, value_enum, default_value = "lossless")]
    pub profile: ProfileArg,
    /// Files to check (`-` for stdin).
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<PathBuf>,
}

/// `adapters`.
#[derive(Debug, Args)]
pub struct AdaptersArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// `schema`.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// The format.
    #[arg(value_name = "FMT")]
    pub format: String,
    /// Canonical profile (for `canonical`).
    #[arg(long, value_enum, default_value = "lossless")]
    pub profile: ProfileArg,
}
