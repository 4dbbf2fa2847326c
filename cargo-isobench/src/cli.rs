//! The command line, as clap parses it.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use serde::Deserialize;

/// What `--version` prints after the name: the package's version, and the commit and its
/// date when built from a git checkout of this repository (see `build.rs`).
pub const VERSION: &str = env!("ISOBENCH_VERSION");

/// A format's name, as `--from`, `--to` and `--format` take it: any name (a declared
/// table's or a plugin's format is known only once it is loaded, and a name no adapter has
/// is the session's error, with the names it has), with the built-in formats' names (and
/// `auto` where the flag takes it) as the values shell completions offer.
#[derive(Clone, Copy, Debug)]
pub struct FormatName {
    auto: bool,
}

impl FormatName {
    /// A flag that takes `auto` too.
    const OR_AUTO: Self = Self { auto: true };
    /// A flag that needs a format.
    const ONLY: Self = Self { auto: false };
}

impl clap::builder::TypedValueParser for FormatName {
    type Value = String;

    fn parse_ref(
        &self,
        command: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(command, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        let auto = self
            .auto
            .then(|| clap::builder::PossibleValue::new("auto").help("told from the records"));
        let builtin = isobench_adapters::BUILTIN
            .iter()
            .map(|name| clap::builder::PossibleValue::new(*name));
        Some(Box::new(auto.into_iter().chain(builtin)))
    }
}

// The outer `cargo` layer: cargo runs a subcommand as `cargo-isobench isobench ...`.
// `run` adds the `isobench` when the binary is run directly, so this layer's own help and
// version are never what a user sees.
/// Convert coding-agent benchmark datasets through the ISO-Bench canonical schema.
#[derive(Debug, Parser)]
#[command(name = "cargo", bin_name = "cargo", version = VERSION, styles = clap::builder::Styles::plain())]
pub enum Cargo {
    /// Convert coding-agent benchmark datasets through the ISO-Bench canonical schema.
    Isobench(Isobench),
}

/// Convert coding-agent benchmark datasets (SWE-bench, SWE-smith, `MiniSandbox`, SWE-Perf,
/// GSO, ...) through the ISO-Bench canonical schema, losslessly where the target can hold
/// the data, and saying exactly what it could not carry where it cannot.
#[derive(Debug, Args)]
#[command(version = VERSION, after_help = EXIT_CODES)]
pub struct Isobench {
    /// Read this configuration instead of the nearest `isobench.toml`.
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Load a native plugin (a `cdylib` built with `isobench-plugin-sdk`); repeatable.
    #[arg(long = "plugin", global = true, value_name = "PATH")]
    pub plugins: Vec<PathBuf>,
    /// Load an adapter declared by a field table in a TOML file; repeatable.
    #[arg(long = "adapter", global = true, value_name = "PATH.toml")]
    pub adapters: Vec<PathBuf>,
    /// The most bytes one record (a JSON Lines line, a JSON array's element, a record
    /// folder's files) may take: a longer one stops the reading with an error, a record
    /// folder past it is that record's error (a bound on what one record may cost).
    /// Takes `K`, `M`, `G` suffixes (powers of 1024).
    #[arg(long, global = true, value_name = "BYTES", default_value = "256M", value_parser = parse_bytes)]
    pub max_record_bytes: u64,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// A byte count: digits, then optionally `K`, `M` or `G` (powers of 1024).
fn parse_bytes(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let (digits, shift) = match text.as_bytes().last() {
        Some(b'k' | b'K') => (&text[..text.len() - 1], 10),
        Some(b'm' | b'M') => (&text[..text.len() - 1], 20),
        Some(b'g' | b'G') => (&text[..text.len() - 1], 30),
        _ => (text, 0),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("`{text}` is not a byte count (e.g. `4096`, `64M`, `1G`)"))?;
    n.checked_mul(1 << shift)
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("`{text}` is not a byte count between 1 and 2^64"))
}

const EXIT_CODES: &str = "Exit codes:
  0  every record was converted (or is valid); `diff`: the datasets hold the same records
  1  some records were invalid or rejected, or an input held none; `diff`: they differ
  2  usage or configuration error: nothing was converted
  3  an input could not be read or the output could not be written
  4  `diff`: a record could not be compared";

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
    /// Find, build and create adapter plugins.
    #[command(subcommand)]
    Plugin(PluginCommand),
    /// Trust the plugins an `isobench.toml` names; list or revoke trust.
    ///
    /// The `[[plugins]]` of an `isobench.toml` found from the current directory upwards load
    /// libraries or run programs only once you trust the file, and until its text changes.
    Trust(TrustArgs),
    /// Mine canonical records from the commits of a git repository.
    Mine(MineArgs),
    /// Complete records from local repositories (`--repos`) and timing logs (`--timings`).
    Enrich(EnrichArgs),
    /// Read timing logs into `duration_changes` and `human_performance`.
    Timings(TimingsArgs),
    /// Compare two datasets record by record (by `instance_id`), field by field.
    ///
    /// Both are imported to the canonical record first, so two revisions of a benchmark
    /// compare whatever their formats and file types: each v1 field and each key of
    /// `extensions` is one field. A table goes to stdout, or with `--json` one JSON object.
    #[command(after_help = DIFF_EXIT_CODES)]
    Diff(DiffArgs),
    /// Print a shell completion script for `cargo-isobench` on stdout.
    Completions(CompletionsArgs),
    /// Print the manual page (roff) on stdout, or write one page per command to a directory.
    Man(ManArgs),
}

const DIFF_EXIT_CODES: &str = "Exit codes:
  0  both datasets hold the same records, field for field
  1  they differ
  2  usage or configuration error
  3  an input could not be read
  4  a record could not be compared: unreadable, refused by its format, without an
     `instance_id`, or repeating one already read from the same side";

/// `diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The first dataset (the old revision): a file as `convert -i` takes it (`.jsonl`,
    /// `.json`, `.parquet`, `.gz`/`.zst` looked through, `-` for stdin) or
    /// `hf:OWNER/NAME[@REVISION][:SPLIT]`.
    #[arg(value_name = "A")]
    pub a: PathBuf,
    /// The second dataset (the new revision), as A.
    #[arg(value_name = "B")]
    pub b: PathBuf,
    /// Format of both datasets, or `auto`: told from each one's first records.
    #[arg(long, value_name = "FMT", default_value = "auto", value_parser = FormatName::OR_AUTO, hide_possible_values = true)]
    pub from: String,
    /// Format of A, instead of `--from`.
    #[arg(long, value_name = "FMT", value_parser = FormatName::OR_AUTO, hide_possible_values = true)]
    pub from_a: Option<String>,
    /// Format of B, instead of `--from`.
    #[arg(long, value_name = "FMT", value_parser = FormatName::OR_AUTO, hide_possible_values = true)]
    pub from_b: Option<String>,
    /// Leave a canonical field out of the comparison (`version`, `extensions.source`, or
    /// `extensions` for every extension); repeatable.
    #[arg(long = "ignore", value_name = "FIELD")]
    pub ignore: Vec<String>,
    /// Print the whole comparison as one JSON object on stdout instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Records listed by name in each part of the table (added, removed, changed).
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub show: usize,
}

/// The shells `completions` writes for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Shell {
    /// Bash.
    Bash,
    /// Zsh.
    Zsh,
    /// Fish.
    Fish,
    /// Elvish.
    Elvish,
    /// `PowerShell`.
    Powershell,
}

/// `completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: Shell,
}

/// `man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write `cargo-isobench.1` and one page per subcommand (`cargo-isobench-convert.1`,
    /// ...) into this directory instead of printing the main page.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Replace pages that exist in `--dir`.
    #[arg(long, requires = "dir")]
    pub overwrite: bool,
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
    /// The style of the input: each record's separators (`{"a": 1}` or `{"a":1}`) and escaping
    /// (`\u00e9` as Python's `json.dumps` writes by default, or `é`), those of the first
    /// record where it shows none; compact when no record shows any.
    Auto,
    /// `{"a":1}`.
    Compact,
    /// `{"a": 1}`, as Python's `json.dumps` writes.
    Spaced,
}

/// `convert`.
#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// Format of the input records, or `auto`: told from the first records' fields (an error
    /// names the candidates when several fit).
    #[arg(long, value_name = "FMT", default_value = "auto", value_parser = FormatName::OR_AUTO, hide_possible_values = true)]
    pub from: String,
    /// Format to write.
    #[arg(long, value_name = "FMT", value_parser = FormatName::ONLY, hide_possible_values = true)]
    pub to: String,
    /// Everything else a conversion takes, as a library caller gives it too.
    #[command(flatten)]
    pub options: ConvertOptions,
    /// Paths given without `-i`: refused with a hint (inputs are named with `-i`).
    #[arg(hide = true, value_name = "PATH")]
    pub stray_inputs: Vec<PathBuf>,
    /// Enrich records from local repositories: `DIR/OWNER/NAME` or `DIR/OWNER/NAME.git`
    /// (and the `[repos]` table of `isobench.toml`).
    #[arg(long, value_name = "DIR")]
    pub repos: Option<PathBuf>,
    /// Enrich records from timing logs: `DIR/<instance_id>/base*` and
    /// `DIR/<instance_id>/head*`, as `enrich --timings` reads them (see docs/mining.md).
    #[arg(long, value_name = "DIR")]
    pub timings: Option<PathBuf>,
}

/// The options of a conversion besides its two formats: `convert`'s flags, and the
/// keyword arguments of the Python package's `convert` (a field's name is the keyword,
/// its flag is the name with dashes). Written once here: the command line parses it, a
/// library caller gives it by name ([`crate::keywords`]), and the plan reads it.
// One bool a switch of the command line.
#[allow(clippy::struct_excessive_bools)]
#[derive(Debug, Clone, PartialEq, Eq, Args, Deserialize)]
pub struct ConvertOptions {
    /// Input file (`.jsonl` lines, `.json` array or `.parquet`; `.gz`/`.zst` looked through;
    /// `-` for stdin), or `hf:OWNER/NAME[@REVISION][:SPLIT]`: a dataset's files in the local
    /// Hugging Face cache (`$HF_HUB_CACHE`, `$HF_HOME/hub`, `~/.cache/huggingface/hub`), or
    /// a directory of record folders (or one) for a format whose records are folders
    /// (`--from harbor`). Repeatable; default stdin.
    #[arg(short, long = "input", value_name = "PATH")]
    pub inputs: Vec<PathBuf>,
    /// Output file (`.jsonl`, `.json` or `.parquet`, by extension; `-` for stdout). Default
    /// stdout (JSONL). Parquet columns are typed from the `--to` format's schema.
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// Canonical profile, for `--to canonical` (and how strictly other targets treat fields they expect).
    #[arg(long, value_enum, default_value = "lossless")]
    #[serde(deserialize_with = "crate::keywords::value_enum")]
    pub profile: ProfileArg,
    /// What happens to bad records, and the report.
    #[command(flatten)]
    #[serde(flatten)]
    pub outcome: OutcomeArgs,
    /// Replace the output (and rejects file) if it exists.
    #[arg(long)]
    pub overwrite: bool,
    /// Read at most N records.
    #[arg(long, value_name = "N")]
    pub limit: Option<u64>,
    /// Convert and report, but write no output.
    #[arg(long)]
    pub dry_run: bool,
    /// Fill a canonical field where a record has no value for it, before export
    /// (`FIELD=VALUE`; `extensions.KEY=VALUE` for the shared vocabulary); a record's own value
    /// is kept. VALUE is read as JSON when it parses, else as a string; a string may name
    /// fields of each record: `{instance_id}`, `{repo}`, `{owner}`, `{name}`, `{base_commit}`,
    /// `{head_commit}`, `{version}`, `{created_at}`, `{api}`, each optionally `:lower` or `:N`
    /// (first N characters).
    #[arg(long = "set", value_name = "FIELD=VALUE")]
    pub set: Vec<String>,
    /// Write a canonical field over every record's own value, as `--set` gives it: each value
    /// replaced is counted in the report and kept in the record's `extensions.source.replaced`.
    #[arg(long = "replace", value_name = "FIELD=VALUE")]
    pub replace: Vec<String>,
    /// Write records that lack what the target's own harness requires (its contract, listed
    /// by `cargo isobench adapters`), and count them as incomplete in the summary and report,
    /// instead of refusing them.
    #[arg(long)]
    pub allow_incomplete: bool,
    /// JSON text style of the output.
    #[arg(long, value_enum, default_value = "auto")]
    #[serde(deserialize_with = "crate::keywords::value_enum")]
    pub json_style: StyleArg,
    /// Threads converting records (the output keeps the input order), 1 to 256. Default:
    /// one per core.
    #[arg(long, value_name = "N", value_parser = jobs)]
    pub jobs: Option<usize>,
    /// Convert only part K of N of the inputs (contiguous, near-equal ranges of records in
    /// input order), so that N runs on N machines, concatenated in order, give the whole.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Compression of a Parquet output's pages: `zstd` (level 1, the default), `zstd:N`
    /// (N from 1 to 22), `snappy`, `gzip` (level 6), `gzip:N` (N from 0 to 9), `lz4` (the
    /// `LZ4_RAW` codec) or `none`. Only with a `.parquet` output.
    #[arg(long, value_name = "CODEC")]
    pub parquet_compression: Option<String>,
    /// The org of a Harbor task's package name, `[task].name = "ORG/NAME"` (`--to harbor`):
    /// letters, digits, `.`, `_` and `-`. Default: `isobench`.
    #[arg(long, value_name = "ORG")]
    pub task_org: Option<String>,
}

impl Default for ConvertOptions {
    /// The options the command line has when none is given.
    fn default() -> Self {
        crate::keywords::defaults()
    }
}

/// What happens to a bad record, and where the report goes: `convert` and `enrich`.
#[derive(Debug, Clone, PartialEq, Eq, Args, Deserialize)]
pub struct OutcomeArgs {
    /// On a bad record: stop (`fail`), or set it aside in the rejects file and go on (`skip`).
    #[arg(long, value_enum, default_value = "fail")]
    #[serde(deserialize_with = "crate::keywords::value_enum")]
    pub on_error: OnError,
    /// Where `--on-error skip` writes rejected records, verbatim with their reasons (JSONL).
    /// Default: `<output>.rejects.jsonl`.
    #[arg(long, value_name = "PATH")]
    pub rejects: Option<PathBuf>,
    /// Write the conversion report (JSON) to this file.
    #[arg(long, value_name = "PATH")]
    pub report: Option<PathBuf>,
}

/// The `version` environment signature a record is given: `mine` and `enrich`.
#[derive(Debug, Clone, PartialEq, Eq, Args, Deserialize)]
pub struct EnvArgs {
    /// Python version of the `version` environment signature (which hashes the record's
    /// `install_commands`); without it no `version` is made.
    #[arg(long, value_name = "X.Y")]
    pub python: Option<String>,
    /// Architecture for the `version` signature.
    #[arg(long, value_name = "ARCH", default_value = "x86_64")]
    pub arch: String,
    /// Image tag for the `version` signature.
    #[arg(long, value_name = "TAG", default_value = "latest")]
    pub image: String,
}

/// `validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Format the records should follow, or `auto`: told from the first records' fields, as
    /// `convert --from auto` tells it.
    #[arg(long, value_name = "FMT", value_parser = FormatName::OR_AUTO, hide_possible_values = true)]
    pub format: String,
    /// Canonical profile (for `--format canonical`).
    #[arg(long, value_enum, default_value = "lossless")]
    pub profile: ProfileArg,
    /// A file to check (`-` for stdin), as `convert` takes it. Repeatable.
    #[arg(short, long = "input", value_name = "PATH")]
    pub inputs: Vec<PathBuf>,
    /// More files to check.
    #[arg(value_name = "PATH")]
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
    #[arg(value_name = "FMT", value_parser = FormatName::ONLY, hide_possible_values = true)]
    pub format: String,
    /// Canonical profile (for `canonical`).
    #[arg(long, value_enum, default_value = "lossless")]
    pub profile: ProfileArg,
}

/// `mine`; the Python package's `mine` gives the same fields by name.
#[allow(clippy::struct_excessive_bools)]
#[derive(Debug, Clone, PartialEq, Eq, Args, Deserialize)]
pub struct MineArgs {
    /// The repository (work tree or bare).
    #[arg(long, value_name = "PATH")]
    pub repo: PathBuf,
    /// `owner/name` of the repository. Default: from the `origin` remote's URL.
    #[arg(long, value_name = "OWNER/NAME")]
    pub repo_name: Option<String>,
    /// A commit to mine (repeatable).
    #[arg(long, value_name = "REV")]
    pub head: Vec<String>,
    /// The base of `--head` (default: its first parent). Only with a single `--head`.
    #[arg(long, value_name = "REV")]
    pub base: Option<String>,
    /// Mine every commit of a range, oldest first (repeatable).
    #[arg(long, value_name = "A..B")]
    pub range: Vec<String>,
    /// How the diff is split: `default` (every file; test files by the `[test-files]`
    /// rules) or `swe-bench` (SWE-bench's published choices: its test files, other `.py`
    /// files, nothing else, no `index` lines).
    #[arg(long, value_name = "NAME", default_value = "default")]
    pub preset: String,
    /// Hunk headers by git's built-in language drivers (`python` for `.py`, `golang`,
    /// `rust`, `ruby`) for files whose `.gitattributes` name no driver, as GitHub writes
    /// them. `--preset swe-bench` turns it on.
    #[arg(long)]
    pub language_drivers: bool,
    /// Keep only commits whose non-test part is not empty.
    #[arg(long)]
    pub only_source: bool,
    /// Keep only commits that touch both code and tests: their `patch` (files the preset
    /// puts there) and their `test_patch` are both not empty.
    #[arg(long)]
    pub code_and_tests: bool,
    /// Keep only commits changing at most N files.
    #[arg(long, value_name = "N")]
    pub max_files: Option<usize>,
    /// Keep only commits touching a path under PREFIX (repeatable).
    #[arg(long = "path", value_name = "PREFIX")]
    pub paths: Vec<String>,
    /// The `version` environment signature.
    #[command(flatten)]
    #[serde(flatten)]
    pub env: EnvArgs,
    /// An install command (repeatable, in order): `install_commands` and the signature's hash.
    #[arg(long = "install", value_name = "CMD")]
    pub install: Vec<String>,
    /// Output file (JSONL; `-` for stdout). Default stdout.
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// Replace the output if it exists.
    #[arg(long)]
    pub overwrite: bool,
    /// Threads mining commits (the output keeps the commit order), 1 to 256. Default: one
    /// per core.
    #[arg(long, value_name = "N", value_parser = jobs)]
    pub jobs: Option<usize>,
}

/// `enrich`.
#[derive(Debug, Args)]
pub struct EnrichArgs {
    /// Format of the input records (they are written as canonical, lossless).
    #[arg(long, value_name = "FMT", default_value = "canonical", value_parser = FormatName::ONLY, hide_possible_values = true)]
    pub from: String,
    /// Input file (`-` for stdin). Repeatable; default stdin.
    #[arg(short, long = "input", value_name = "PATH")]
    pub inputs: Vec<PathBuf>,
    /// Output file (`-` for stdout). Default stdout (JSONL).
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// Local repositories: `DIR/OWNER/NAME` or `DIR/OWNER/NAME.git` (and `[repos]` of `isobench.toml`).
    #[arg(long, value_name = "DIR")]
    pub repos: Option<PathBuf>,
    /// Timing logs: `DIR/<instance_id>/base*` and `DIR/<instance_id>/head*` (see docs/mining.md).
    #[arg(long, value_name = "DIR")]
    pub timings: Option<PathBuf>,
    /// The `version` environment signature, given to records that have no `version`.
    #[command(flatten)]
    pub env: EnvArgs,
    /// What happens to bad records, and the report.
    #[command(flatten)]
    pub outcome: OutcomeArgs,
    /// Replace the output if it exists.
    #[arg(long)]
    pub overwrite: bool,
}

/// `timings`.
#[derive(Debug, Args)]
pub struct TimingsArgs {
    /// An instance directory (`base*` and `head*` entries, as `enrich --timings` reads).
    #[arg(value_name = "DIR", conflicts_with_all = ["base", "head"])]
    pub dir: Option<PathBuf>,
    /// A base-run log (repeatable).
    #[arg(long, value_name = "PATH")]
    pub base: Vec<PathBuf>,
    /// A head-run log (repeatable).
    #[arg(long, value_name = "PATH")]
    pub head: Vec<PathBuf>,
    /// The efficiency tests, in order (repeatable). Default: the tests the logs name.
    #[arg(long = "test", value_name = "NAME")]
    pub tests: Vec<String>,
}

/// `trust`.
#[derive(Debug, Args)]
pub struct TrustArgs {
    /// The `isobench.toml` (or a directory holding one). Default: the one found from the
    /// current directory upwards. With `--revoke`, also a workspace whose plugins
    /// `plugin build` recorded.
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,
    /// List what is trusted: configuration files, and the plugins `plugin build` recorded.
    #[arg(long, conflicts_with_all = ["path", "revoke"])]
    pub list: bool,
    /// Forget the trust given to PATH.
    #[arg(long)]
    pub revoke: bool,
}

/// `plugin`.
#[derive(Debug, Subcommand)]
pub enum PluginCommand {
    /// List the plugin packages of the current cargo workspace (`[package.metadata.isobench] plugin = true`).
    List(PluginListArgs),
    /// Build the workspace's plugin packages and record them (with their sha256) in your own
    /// state; later commands in the workspace load them by themselves, while they are as built.
    Build(PluginBuildArgs),
    /// Create a new adapter crate that builds and loads as is.
    New(PluginNewArgs),
}

/// `plugin list`.
#[derive(Debug, Args)]
pub struct PluginListArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// `plugin build`.
#[derive(Debug, Args)]
pub struct PluginBuildArgs {
    /// Build optimised libraries (`cargo build --release`). Without it, the libraries are
    /// debug builds: quicker to build, slower to convert with.
    #[arg(long)]
    pub release: bool,
    /// Build only this plugin package (repeatable). Default: all of them.
    #[arg(short, long = "package", value_name = "NAME")]
    pub packages: Vec<String>,
}

/// `plugin new`.
#[derive(Debug, Args)]
pub struct PluginNewArgs {
    /// The format's name (`my-bench`): the crate's name and the adapter's.
    #[arg(value_name = "NAME")]
    pub name: String,
    /// Directory to create. Default: `./NAME`.
    #[arg(long, value_name = "DIR")]
    pub path: Option<PathBuf>,
    /// Depend on this local checkout of `isobench-plugin-sdk` (its `plugins/sdk` directory).
    /// Default: the SDK of the cargo-isobench checkout the crate is created in, else the
    /// crate published on crates.io.
    #[arg(long, value_name = "DIR")]
    pub sdk_path: Option<PathBuf>,
}

/// The most threads `--jobs` may ask for: each holds buffers of its own, and more threads
/// than this gain nothing on any machine the tool runs on.
pub const MAX_JOBS: usize = 256;

/// `--jobs N`: 1 to [`MAX_JOBS`].
fn jobs(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n @ 1..=MAX_JOBS) => Ok(n),
        _ => Err(format!("expected a number of threads from 1 to {MAX_JOBS}")),
    }
}
