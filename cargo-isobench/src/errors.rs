//! Errors that stop a command, each with the path it concerns and an exit code.

use std::fmt::Write as _;
use std::path::PathBuf;

use isobench_core::adapter::NameClash;
use isobench_core::report::Rejection;
use isobench_core::schema::SchemaError;
use isobench_core::testfiles::RuleError;

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
    /// Two outputs of one run are the same file.
    #[error("`{second}` and `{first}` both name `{}`", .path.display())]
    OutputTwice {
        /// The file.
        path: PathBuf,
        /// The flag that named it first.
        first: String,
        /// The flag that named it again.
        second: String,
    },
    /// A conversion request that cannot be planned.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// An output that cannot be written as asked.
    #[error(transparent)]
    Output(#[from] OutputError),
    /// An adapter table file that cannot be used (boxed, as the larger area errors are,
    /// to keep `Result<_, CliError>` small on the paths that succeed).
    #[error(transparent)]
    Table(Box<TableError>),
    /// A `--set` that cannot be read.
    #[error(transparent)]
    Assign(Box<AssignError>),
    /// A plugin that `plugin new` cannot scaffold.
    #[error(transparent)]
    Scaffold(#[from] ScaffoldError),
    /// Trust records that cannot be read or kept, or a configuration to trust not found.
    #[error(transparent)]
    Trust(#[from] TrustError),
    /// A `validate` that cannot run.
    #[error(transparent)]
    Validate(#[from] ValidateError),
    /// A Parquet input read as something else.
    #[error(transparent)]
    ParquetInput(#[from] ParquetInputError),
    /// An `hf:` input that is malformed or not in the cache.
    #[error(transparent)]
    Hf(Box<HfError>),
    /// A configuration file that cannot be used.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// `--from auto` that cannot pick a format.
    #[error(transparent)]
    Detect(#[from] DetectError),
    /// `mine`, `enrich` or `timings` asked for something they cannot do.
    #[error(transparent)]
    Mine(#[from] MineError),
    /// A usage error told by an area's own typed error (a repository or a plugin that
    /// cannot be used), carried as its message and hint.
    #[error("{message}")]
    Usage {
        /// What is wrong.
        message: String,
        /// What to do.
        hint: Option<String>,
    },
    /// A `diff` that cannot compare the datasets.
    #[error(transparent)]
    Diff(Box<DiffError>),
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

impl From<TableError> for CliError {
    fn from(e: TableError) -> Self {
        Self::Table(Box::new(e))
    }
}

impl From<AssignError> for CliError {
    fn from(e: AssignError) -> Self {
        Self::Assign(Box::new(e))
    }
}

impl From<DiffError> for CliError {
    fn from(e: DiffError) -> Self {
        Self::Diff(Box::new(e))
    }
}

impl From<HfError> for CliError {
    fn from(e: HfError) -> Self {
        Self::Hf(Box::new(e))
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
            Self::UnknownFormat { .. }
            | Self::OutputExists(_)
            | Self::OutputIsInput(_)
            | Self::OutputTwice { .. }
            | Self::Plan(_)
            | Self::Output(_)
            | Self::Table(_)
            | Self::Assign(_)
            | Self::Scaffold(_)
            | Self::Trust(_)
            | Self::Validate(_)
            | Self::ParquetInput(_)
            | Self::Hf(_)
            | Self::Config(_)
            | Self::Detect(_)
            | Self::Mine(_)
            | Self::Usage { .. } => exit::USAGE,
            Self::Read { .. } | Self::Write { .. } => exit::IO,
            Self::Diff(e) => e.exit_code(),
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
            Self::OutputTwice { .. } => Some("give each output a file of its own".into()),
            Self::Plan(e) => e.hint(),
            Self::Output(e) => e.hint(),
            Self::Table(e) => Some(e.hint().to_owned()),
            Self::Assign(e) => Some(e.hint()),
            Self::Scaffold(e) => Some(e.hint().to_owned()),
            Self::Trust(e) => Some(e.hint()),
            Self::Validate(e) => e.hint(),
            Self::ParquetInput(e) => Some(e.hint().to_owned()),
            Self::Hf(e) => Some(e.hint()),
            Self::Config(e) => Some(e.hint().to_owned()),
            Self::Detect(e) => Some(e.hint()),
            Self::Mine(e) => e.hint(),
            Self::Diff(e) => Some(e.hint()),
            Self::Usage { hint, .. } | Self::Record(_, hint) | Self::Rejected { hint, .. } => {
                hint.clone()
            }
            Self::Read { .. } | Self::Write { .. } => None,
        }
    }

    /// The usage error an area's own typed error becomes where that type lives in the
    /// area's module (a repository's `RepoError`, a plugin's `PluginError`): its message
    /// and hint. This module names no area module, so that none depends back on it.
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

/// An output that cannot be written as asked: a usage error, nothing written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OutputError {
    /// A `.parquet` output for records that are only written as JSON Lines.
    #[error("`{}`: this output is written as JSON Lines, not Parquet", .0.display())]
    JsonLinesOnly(PathBuf),
    /// A format whose records cannot be laid out in columns: why.
    #[error("{0}")]
    Columns(String),
}

impl OutputError {
    /// What to do.
    pub fn hint(&self) -> Option<String> {
        match self {
            Self::JsonLinesOnly(_) => Some("give it a `.jsonl` name".into()),
            Self::Columns(_) => None,
        }
    }
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

impl TableError {
    /// What to do.
    pub fn hint(&self) -> &'static str {
        match self {
            Self::Invalid { .. } => "see docs/adapters.md for the keys a table file takes",
            Self::NameClash(_) => "rename the format in one of the two",
            Self::NotATable { .. } => {
                "a table is a TOML file (a regular file of at most 1 MiB); `[[adapters]]` names one inside the configuration's directory, `--adapter PATH` any other"
            }
        }
    }
}

/// A `--set FIELD=VALUE` that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AssignError {
    /// No `=` in the assignment.
    #[error("`--set {0}` has no `=`")]
    NoEquals(String),
    /// A field that is neither canonical nor `extensions.KEY`.
    #[error("`--set`: `{0}` is not a canonical field")]
    UnknownField(String),
    /// A value whose template cannot be read.
    #[error("`--set {set}`: {fault}")]
    Template {
        /// The assignment as given.
        set: String,
        /// What is wrong with its template.
        fault: TemplateFault,
        /// The placeholders a template may use.
        placeholders: &'static [&'static str],
    },
    /// A value of another shape than the field holds (`foo` for a test list).
    #[error("`--set {field}={value}`: `{value}` is not {wanted}, which `{field}` holds")]
    WrongShape {
        /// The field.
        field: String,
        /// The value as given.
        value: String,
        /// What the field holds ("a JSON list of strings").
        wanted: &'static str,
        /// An example of a value of that shape.
        example: &'static str,
    },
}

/// What is wrong with a `--set` template.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TemplateFault {
    /// A `}` that is neither doubled nor the end of a placeholder.
    #[error("a `}}` closes no placeholder")]
    StrayClose,
    /// A `{` with no `}` after it.
    #[error("a `{{` is never closed")]
    Unclosed,
    /// A placeholder (its text between the braces) naming no field.
    #[error("unknown placeholder `{{{0}}}`")]
    UnknownPlaceholder(String),
    /// A modifier that is neither `lower` nor a positive count.
    #[error("unknown modifier `:{modifier}` in `{{{placeholder}}}`")]
    UnknownModifier {
        /// The modifier, after the `:`.
        modifier: String,
        /// The placeholder's text between the braces.
        placeholder: String,
    },
}

impl AssignError {
    /// What to do.
    pub fn hint(&self) -> String {
        match self {
            Self::NoEquals(_) => "write `--set FIELD=VALUE`".into(),
            Self::UnknownField(_) => "use a canonical v1 field name (`head_commit`) or `extensions.KEY` (`extensions.image_name`)".into(),
            Self::WrongShape { field, example, .. } => {
                format!("give it as JSON, quoted for the shell: `--set {field}='{example}'`")
            }
            Self::Template { placeholders, .. } => {
                let names: Vec<String> = placeholders.iter().map(|p| format!("`{{{p}}}`")).collect();
                format!(
                    "placeholders are {}, each optionally ending in `:lower` or `:N`; write `{{{{` and `}}}}` for literal braces",
                    names.join(", ")
                )
            }
        }
    }
}

/// A plugin that `plugin new` cannot scaffold: nothing written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ScaffoldError {
    /// A name that is not lowercase letters, digits and single dashes.
    #[error("`{0}` is not a usable adapter name")]
    BadName(String),
    /// The plugin's directory exists.
    #[error("`{}` already exists", .0.display())]
    DirectoryExists(PathBuf),
}

impl ScaffoldError {
    /// What to do.
    pub fn hint(&self) -> &'static str {
        match self {
            Self::BadName(_) => {
                "lowercase letters, digits and single dashes, starting with a letter (`my-bench`)"
            }
            Self::DirectoryExists(_) => {
                "choose another directory with `--path DIR`, or remove that one first"
            }
        }
    }
}

/// Trust records that cannot be read or kept, or a configuration to trust not found.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TrustError {
    /// A store that is not the JSON the commands write.
    #[error("invalid trust records `{}`: {source}", file.display())]
    InvalidStore {
        /// The store.
        file: PathBuf,
        /// Why it does not parse.
        source: serde_json::Error,
    },
    /// No directory to keep the store in.
    #[error("no state directory to keep trust records in: no home directory is known")]
    NoStateDir {
        /// The environment variable that names one.
        env: &'static str,
    },
    /// No configuration file in a directory or above it.
    #[error("no `{file_name}` in `{}` or above", dir.display())]
    NoConfig {
        /// Where the search started.
        dir: PathBuf,
        /// The configuration's file name.
        file_name: &'static str,
    },
}

impl TrustError {
    /// What to do.
    pub fn hint(&self) -> String {
        match self {
            Self::InvalidStore { .. } => "the file is written by `cargo isobench trust` and `cargo isobench plugin build`: move it away, then trust and build again what you use".into(),
            Self::NoStateDir { env } => format!("set `{env}` to a directory of your own"),
            Self::NoConfig { .. } => "name it: `cargo isobench trust PATH`".into(),
        }
    }
}

/// A `validate` that cannot run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ValidateError {
    /// No files given.
    #[error("`validate` needs the files to check")]
    NoInputs,
    /// A format whose schema does not compile.
    #[error(transparent)]
    Schema(#[from] SchemaError),
}

impl ValidateError {
    /// What to do.
    pub fn hint(&self) -> Option<String> {
        match self {
            Self::NoInputs => Some("give them with `-i PATH` (repeatable) or as arguments".into()),
            Self::Schema(_) => None,
        }
    }
}

/// What `mine`, `enrich` and `timings` cannot do as asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MineError {
    /// `mine` without `--head` or `--range`.
    #[error("nothing to mine")]
    NothingToMine,
    /// `--base` with several heads or a range.
    #[error("`--base` goes with a single `--head`")]
    BaseWithoutSingleHead,
    /// A `--repo-name` that is not `OWNER/NAME`.
    #[error("`--repo-name {0}` is not `OWNER/NAME`")]
    RepoName(String),
    /// No `--repo-name`, and no `origin` remote to take it from.
    #[error("the `owner/name` of `{}` is unknown (no `origin` remote with a GitHub-style URL)", .0.display())]
    UnknownOwnerName(PathBuf),
    /// A `--range` that is not `A..B`.
    #[error("`--range {0}` is not `A..B`")]
    Range(String),
    /// An unknown `--preset`.
    #[error("unknown `--preset {given}`")]
    Preset {
        /// The preset given.
        given: String,
        /// The presets there are.
        names: Vec<&'static str>,
    },
    /// `enrich` with nothing to enrich from.
    #[error("nothing to enrich from")]
    NothingToEnrich,
    /// `timings` without a base log or a head log.
    #[error("timings need at least one base log and one head log")]
    TimingLogs,
}

impl MineError {
    /// What to do.
    pub fn hint(&self) -> Option<String> {
        let hint = match self {
            Self::NothingToMine => "give `--head REV` (repeatable) or `--range A..B`",
            Self::BaseWithoutSingleHead => {
                "a range's commits are each mined against their first parent"
            }
            Self::RepoName(_) | Self::Range(_) => return None,
            Self::UnknownOwnerName(_) => "give it with `--repo-name OWNER/NAME`",
            Self::Preset { names, .. } => {
                return Some(format!("the presets are `{}`", names.join("`, `")));
            }
            Self::NothingToEnrich => {
                "give `--repos DIR`, `--timings DIR`, `--python X.Y`, or a `[repos]` table in `isobench.toml`"
            }
            Self::TimingLogs => {
                "give `--base PATH --head PATH`, or a directory with `base*` and `head*` entries"
            }
        };
        Some(hint.to_owned())
    }
}

/// A Parquet input read as something it is not.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParquetInputError {
    /// Parquet bytes in an input read as JSON: the input as named (`-` for stdin).
    #[error("`{0}` looks like a Parquet file (it starts with `PAR1`), not JSON")]
    ReadAsJson(String),
}

impl ParquetInputError {
    /// What to do.
    pub fn hint(&self) -> &'static str {
        match self {
            Self::ReadAsJson(input) if input == "-" => {
                "Parquet is not read from stdin: save it to a file named `NAME.parquet` and give that to `-i`"
            }
            Self::ReadAsJson(_) => {
                "name the file (or a link to it) `NAME.parquet` so that it is read as Parquet"
            }
        }
    }
}

/// A dataset as an `hf:` input names it: what the command that fetches it needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HfDataset {
    /// `OWNER/NAME` (or `NAME`).
    pub repo: String,
    /// The revision asked for, if any.
    pub revision: Option<String>,
}

impl HfDataset {
    /// The command that fetches the dataset into the cache.
    fn download_hint(&self) -> String {
        let revision = self
            .revision
            .as_ref()
            .map(|r| format!(" --revision {r}"))
            .unwrap_or_default();
        format!(
            "fetch it with `huggingface-cli download --repo-type dataset {}{revision}` (or `hf download`), or point `HF_HUB_CACHE` at the cache that holds it",
            self.repo
        )
    }
}

/// An `hf:OWNER/NAME[@REVISION][:SPLIT]` input that is malformed or not in the cache.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HfError {
    /// An input that is not `hf:OWNER/NAME[@REVISION][:SPLIT]`.
    #[error("`{input}`: {fault}")]
    Malformed {
        /// The input as given.
        input: String,
        /// Which part is wrong.
        fault: HfSyntax,
    },
    /// No directory for the dataset in the cache.
    #[error("dataset `{}` is not in the Hugging Face cache (looked for `{}`)", .dataset.repo, .dir.display())]
    NoDataset {
        /// The dataset.
        dataset: HfDataset,
        /// The directory looked for.
        dir: PathBuf,
    },
    /// A revision that is neither a ref nor a snapshot of the dataset.
    #[error(
        "revision `{revision}` of dataset `{}` is not in the Hugging Face cache (looked for `{}` and `{}`)",
        .dataset.repo,
        .ref_file.display(),
        .snapshot.display()
    )]
    NoRevision {
        /// The dataset.
        dataset: HfDataset,
        /// The revision looked for (`main` when none was given).
        revision: String,
        /// The ref file looked for.
        ref_file: PathBuf,
        /// The snapshot directory looked for.
        snapshot: PathBuf,
        /// The refs the cache holds for the dataset.
        refs: Vec<String>,
        /// The snapshots the cache holds for the dataset.
        snapshots: Vec<String>,
    },
    /// A ref naming a commit whose snapshot is missing.
    #[error(
        "`{}` names commit `{commit}`, whose snapshot `{}` is not in the cache",
        .ref_file.display(),
        .snapshot.display()
    )]
    NoSnapshot {
        /// The dataset.
        dataset: HfDataset,
        /// The ref file.
        ref_file: PathBuf,
        /// The commit it names.
        commit: String,
        /// The snapshot directory looked for.
        snapshot: PathBuf,
    },
    /// A snapshot with no data files.
    #[error(
        "snapshot `{}` of dataset `{}` holds no data files (`.parquet`, `.jsonl`, `.json`)",
        .snapshot.display(),
        .dataset.repo
    )]
    NoDataFiles {
        /// The dataset.
        dataset: HfDataset,
        /// The snapshot directory.
        snapshot: PathBuf,
    },
    /// A split none of the snapshot's files belong to.
    #[error(
        "dataset `{}` has no `{split}` split in the cache (looked in `{}`)",
        .dataset.repo,
        .snapshot.display()
    )]
    NoSplit {
        /// The dataset.
        dataset: HfDataset,
        /// The split asked for.
        split: String,
        /// The snapshot directory.
        snapshot: PathBuf,
        /// The splits the snapshot's files belong to.
        found: Vec<String>,
    },
    /// A data file whose link into the cache's blobs leads nowhere.
    #[error(
        "`{}` in the Hugging Face cache points to a missing file: the download is incomplete",
        .path.display()
    )]
    MissingFile {
        /// The dataset.
        dataset: HfDataset,
        /// The file.
        path: PathBuf,
    },
}

/// The part of an `hf:` input that is wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HfSyntax {
    /// The dataset is not `OWNER/NAME` or `NAME`.
    #[error("the dataset is not `OWNER/NAME`")]
    Dataset,
    /// The revision is empty or not a plain name.
    #[error("the revision after `@` is empty or not a plain name")]
    Revision,
    /// The split is empty or not a plain name.
    #[error("the split after `:` is empty or not a plain name")]
    Split,
}

impl HfError {
    /// What to do.
    pub fn hint(&self) -> String {
        match self {
            Self::Malformed { .. } => "write `hf:OWNER/NAME`, optionally with `@REVISION` and `:SPLIT` (`hf:princeton-nlp/SWE-bench_Lite@main:test`)".into(),
            Self::NoRevision {
                dataset,
                refs,
                snapshots,
                ..
            } => {
                let mut known = Vec::new();
                for (what, names) in [("refs", refs), ("snapshots", snapshots)] {
                    if !names.is_empty() {
                        let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
                        known.push(format!("{what} {}", names.join(", ")));
                    }
                }
                if known.is_empty() {
                    dataset.download_hint()
                } else {
                    format!(
                        "the cache holds {}; or {}",
                        known.join(" and "),
                        dataset.download_hint()
                    )
                }
            }
            Self::NoSplit { dataset, found, .. } => format!(
                "splits found: {}; or, if the split was not downloaded, {}",
                if found.is_empty() {
                    "(none)".to_owned()
                } else {
                    found.join(", ")
                },
                dataset.download_hint()
            ),
            Self::NoDataset { dataset, .. }
            | Self::NoSnapshot { dataset, .. }
            | Self::NoDataFiles { dataset, .. }
            | Self::MissingFile { dataset, .. } => dataset.download_hint(),
        }
    }
}

/// A configuration file (`isobench.toml`) that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A file that is not a valid configuration.
    #[error(
        "invalid configuration `{}{}`: {message}",
        .path.display(),
        .line.map_or_else(String::new, |line| format!(":{line}"))
    )]
    Invalid {
        /// The configuration.
        path: PathBuf,
        /// The 1-based line at fault, when known.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// A `[[plugins]]` entry with both or neither of `path` and `command`.
    #[error(
        "invalid configuration `{}`: `[[plugins]]` entry {entry} needs exactly one of `path` (a native plugin) or `command` (a program plugin)",
        .path.display()
    )]
    PluginEntry {
        /// The configuration.
        path: PathBuf,
        /// The entry's 1-based number.
        entry: usize,
    },
    /// A test-file rule that cannot be read.
    #[error(
        "{}{rule}",
        .path.as_ref().map_or_else(String::new, |p| format!("`{}`: ", p.display()))
    )]
    TestFileRule {
        /// The configuration, when the rules came from one.
        path: Option<PathBuf>,
        /// The rule and what is wrong with it.
        rule: RuleError,
    },
}

impl ConfigError {
    /// What to do.
    pub fn hint(&self) -> &'static str {
        match self {
            Self::Invalid { .. } => "see docs/config.md for the keys it accepts",
            Self::PluginEntry { .. } => {
                "`path = \"target/release/libmy_format.so\"` or `command = [\"python3\", \"my_format.py\"]`"
            }
            Self::TestFileRule { .. } => "rules are `dir:NAME`, `name:GLOB` or `path:GLOB`",
        }
    }
}

/// A `diff` that cannot compare the two datasets: a usage error, or a record that cannot
/// be compared.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DiffError {
    /// Both datasets given as stdin.
    #[error("`diff` can read only one of its two datasets from stdin")]
    BothStdin,
    /// An `--ignore` that names no canonical field.
    #[error("`--ignore {0}`: not a canonical field")]
    UnknownField(String),
    /// An item that is not a JSON record.
    #[error("{file}:{line}: {message}")]
    Unreadable {
        /// The input.
        file: String,
        /// 1-based line (or row).
        line: u64,
        /// Why it is not a record.
        message: String,
    },
    /// A record its format's import refuses.
    #[error("{file}:{line}:{id} {message}")]
    Refused {
        /// The input.
        file: String,
        /// 1-based line (or row).
        line: u64,
        /// ` record `ID`:` and ` `POINTER`:`, where known.
        id: String,
        /// The import's message.
        message: String,
        /// The format it was read as.
        format: String,
    },
    /// A record without an `instance_id`.
    #[error("{file}:{line}: the record has no `instance_id`, by which records are matched")]
    NoId {
        /// The input.
        file: String,
        /// 1-based line (or row).
        line: u64,
    },
    /// An `instance_id` read twice from one side.
    #[error("{file}:{line}: `instance_id` `{id}` repeats the record at {first_file}:{first_line}")]
    Repeated {
        /// The input of the repeat.
        file: String,
        /// Its line.
        line: u64,
        /// The id.
        id: String,
        /// The input of the first record with that id.
        first_file: String,
        /// Its line.
        first_line: u64,
    },
}

impl DiffError {
    /// The exit code: [`exit::USAGE`] for a usage error, [`exit::UNCOMPARABLE`] for a record.
    pub fn exit_code(&self) -> i32 {
        match self {
            Self::BothStdin | Self::UnknownField(_) => exit::USAGE,
            Self::Unreadable { .. }
            | Self::Refused { .. }
            | Self::NoId { .. }
            | Self::Repeated { .. } => exit::UNCOMPARABLE,
        }
    }

    /// What to do.
    pub fn hint(&self) -> String {
        match self {
            Self::BothStdin => "give at least one of them as a file".into(),
            Self::UnknownField(_) => "name a canonical v1 field (`cargo isobench schema canonical` lists them), `extensions.KEY`, or `extensions`".into(),
            Self::Unreadable { .. } => "datasets are JSON Lines (`.jsonl`), a JSON array (`.json`) or Parquet (`.parquet`), plain or `.gz`/`.zst`".into(),
            Self::Refused { format, .. } => format!(
                "the record was read as `{format}`; `cargo isobench validate --format {format}` lists every problem of the file, and `--from-a`/`--from-b` name another format"
            ),
            Self::NoId { .. } => "records are matched by `instance_id`: every record of a compared dataset needs one".into(),
            Self::Repeated { .. } => "records are matched by `instance_id`: it must be unique within each dataset".into(),
        }
    }
}

/// `--from auto` that cannot pick a format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DetectError {
    /// Stdin among the inputs: what is read to decide would be gone.
    #[error("`--from auto` cannot read stdin: the records it looks at would be gone")]
    Stdin,
    /// No input item is a JSON record: the first that is not.
    #[error("`--from auto`: the input is not JSON records: {file}:{line}: {message}")]
    NotRecords {
        /// The input it is in.
        file: String,
        /// Its 1-based line (or row).
        line: u64,
        /// Why it is not a record.
        message: String,
    },
    /// No format, or several equally, fit the records read.
    #[error("`--from auto`: {why}")]
    Undecided {
        /// Why no one format was picked.
        why: String,
        /// The formats available.
        known: Vec<String>,
    },
}

impl DetectError {
    /// What to do.
    pub fn hint(&self) -> String {
        match self {
            Self::Stdin => {
                "give the input files with `-i`, or name the format with `--from`".into()
            }
            Self::NotRecords { .. } => "inputs are JSON Lines (`.jsonl`), a JSON array (`.json`) or Parquet (`.parquet`); CSV and other formats are not read".into(),
            Self::Undecided { known, .. } => format!(
                "name the format with `--from` (one of {}); `cargo isobench adapters` lists them",
                known.join(", ")
            ),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `e` as a command's error: its message, its hint, and the usage exit code.
    fn check(e: impl Into<CliError>, message: &str, hint: Option<&str>) {
        let e = e.into();
        assert_eq!(e.to_string(), message);
        assert_eq!(e.hint().as_deref(), hint, "{message}");
        assert_eq!(e.exit_code(), exit::USAGE, "{message}");
    }

    #[test]
    fn output_and_table_errors_say_what_they_always_said() {
        check(
            OutputError::JsonLinesOnly("out.parquet".into()),
            "`out.parquet`: this output is written as JSON Lines, not Parquet",
            Some("give it a `.jsonl` name"),
        );
        check(OutputError::Columns("why".into()), "why", None);
        let table_hint = Some("see docs/adapters.md for the keys a table file takes");
        check(
            TableError::Invalid {
                path: "f.toml".into(),
                at: Some((6, 1)),
                message: "bad".into(),
            },
            "invalid adapter table `f.toml:6:1`: bad",
            table_hint,
        );
        check(
            TableError::Invalid {
                path: "f.toml".into(),
                at: None,
                message: "bad".into(),
            },
            "invalid adapter table `f.toml`: bad",
            table_hint,
        );
        check(
            TableError::NameClash(NameClash {
                name: "a".into(),
                origin: "x".into(),
                existing: "b".into(),
                existing_origin: "y".into(),
            }),
            "adapter `a` from x clashes with `b` from y",
            Some("rename the format in one of the two"),
        );
    }

    #[test]
    fn assignment_errors_say_what_they_always_said() {
        check(
            AssignError::NoEquals("x".into()),
            "`--set x` has no `=`",
            Some("write `--set FIELD=VALUE`"),
        );
        check(
            AssignError::UnknownField("foo".into()),
            "`--set`: `foo` is not a canonical field",
            Some(
                "use a canonical v1 field name (`head_commit`) or `extensions.KEY` (`extensions.image_name`)",
            ),
        );
        let hint = "placeholders are `{a}`, `{b}`, each optionally ending in `:lower` or `:N`; write `{{` and `}}` for literal braces";
        for (set, fault, message) in [
            (
                "f=}",
                TemplateFault::StrayClose,
                "`--set f=}`: a `}` closes no placeholder",
            ),
            (
                "f={",
                TemplateFault::Unclosed,
                "`--set f={`: a `{` is never closed",
            ),
            (
                "f={x:2}",
                TemplateFault::UnknownPlaceholder("x:2".into()),
                "`--set f={x:2}`: unknown placeholder `{x:2}`",
            ),
            (
                "f={a:up}",
                TemplateFault::UnknownModifier {
                    modifier: "up".into(),
                    placeholder: "a:up".into(),
                },
                "`--set f={a:up}`: unknown modifier `:up` in `{a:up}`",
            ),
        ] {
            let e = AssignError::Template {
                set: set.into(),
                fault,
                placeholders: &["a", "b"],
            };
            check(e, message, Some(hint));
        }
    }

    #[test]
    fn plugin_and_validate_errors_say_what_they_always_said() {
        check(
            ScaffoldError::BadName("X".into()),
            "`X` is not a usable adapter name",
            Some(
                "lowercase letters, digits and single dashes, starting with a letter (`my-bench`)",
            ),
        );
        check(
            ScaffoldError::DirectoryExists("d".into()),
            "`d` already exists",
            Some("choose another directory with `--path DIR`, or remove that one first"),
        );
        check(
            TrustError::NoStateDir {
                env: "ISOBENCH_STATE_DIR",
            },
            "no state directory to keep trust records in: no home directory is known",
            Some("set `ISOBENCH_STATE_DIR` to a directory of your own"),
        );
        check(
            TrustError::NoConfig {
                dir: "w".into(),
                file_name: "isobench.toml",
            },
            "no `isobench.toml` in `w` or above",
            Some("name it: `cargo isobench trust PATH`"),
        );
        check(
            ValidateError::NoInputs,
            "`validate` needs the files to check",
            Some("give them with `-i PATH` (repeatable) or as arguments"),
        );
    }

    #[test]
    fn mine_errors_say_what_they_always_said() {
        check(
            MineError::NothingToMine,
            "nothing to mine",
            Some("give `--head REV` (repeatable) or `--range A..B`"),
        );
        check(
            MineError::UnknownOwnerName("r".into()),
            "the `owner/name` of `r` is unknown (no `origin` remote with a GitHub-style URL)",
            Some("give it with `--repo-name OWNER/NAME`"),
        );
        check(
            MineError::Range("a.b".into()),
            "`--range a.b` is not `A..B`",
            None,
        );
        check(
            MineError::Preset {
                given: "x".into(),
                names: vec!["default", "swe-bench"],
            },
            "unknown `--preset x`",
            Some("the presets are `default`, `swe-bench`"),
        );
        check(
            MineError::TimingLogs,
            "timings need at least one base log and one head log",
            Some("give `--base PATH --head PATH`, or a directory with `base*` and `head*` entries"),
        );
    }

    #[test]
    fn input_errors_say_what_they_always_said() {
        check(
            ParquetInputError::ReadAsJson("-".into()),
            "`-` looks like a Parquet file (it starts with `PAR1`), not JSON",
            Some(
                "Parquet is not read from stdin: save it to a file named `NAME.parquet` and give that to `-i`",
            ),
        );
        check(
            ParquetInputError::ReadAsJson("d.jsonl".into()),
            "`d.jsonl` looks like a Parquet file (it starts with `PAR1`), not JSON",
            Some("name the file (or a link to it) `NAME.parquet` so that it is read as Parquet"),
        );
        check(
            HfError::Malformed {
                input: "hf:a/b@".into(),
                fault: HfSyntax::Revision,
            },
            "`hf:a/b@`: the revision after `@` is empty or not a plain name",
            Some(
                "write `hf:OWNER/NAME`, optionally with `@REVISION` and `:SPLIT` (`hf:princeton-nlp/SWE-bench_Lite@main:test`)",
            ),
        );
        let dataset = |revision: Option<&str>| HfDataset {
            repo: "o/n".into(),
            revision: revision.map(str::to_owned),
        };
        let fetch = "fetch it with `huggingface-cli download --repo-type dataset o/n` (or `hf download`), or point `HF_HUB_CACHE` at the cache that holds it";
        let fetch_v2 = "fetch it with `huggingface-cli download --repo-type dataset o/n --revision v2` (or `hf download`), or point `HF_HUB_CACHE` at the cache that holds it";
        check(
            HfError::NoDataset {
                dataset: dataset(None),
                dir: "hub/datasets--o--n".into(),
            },
            "dataset `o/n` is not in the Hugging Face cache (looked for `hub/datasets--o--n`)",
            Some(fetch),
        );
        let no_revision = |refs: &[&str], snapshots: &[&str]| HfError::NoRevision {
            dataset: dataset(Some("v2")),
            revision: "v2".into(),
            ref_file: "d/refs/v2".into(),
            snapshot: "d/snapshots/v2".into(),
            refs: refs.iter().map(ToString::to_string).collect(),
            snapshots: snapshots.iter().map(ToString::to_string).collect(),
        };
        let message = "revision `v2` of dataset `o/n` is not in the Hugging Face cache (looked for `d/refs/v2` and `d/snapshots/v2`)";
        check(no_revision(&[], &[]), message, Some(fetch_v2));
        check(
            no_revision(&["main", "pr/1"], &[]),
            message,
            Some(&format!(
                "the cache holds refs `main`, `pr/1`; or {fetch_v2}"
            )),
        );
        check(
            no_revision(&["main"], &["abc"]),
            message,
            Some(&format!(
                "the cache holds refs `main` and snapshots `abc`; or {fetch_v2}"
            )),
        );
        check(
            HfError::NoSnapshot {
                dataset: dataset(None),
                ref_file: "d/refs/main".into(),
                commit: "abc".into(),
                snapshot: "d/snapshots/abc".into(),
            },
            "`d/refs/main` names commit `abc`, whose snapshot `d/snapshots/abc` is not in the cache",
            Some(fetch),
        );
        check(
            HfError::NoDataFiles {
                dataset: dataset(None),
                snapshot: "s".into(),
            },
            "snapshot `s` of dataset `o/n` holds no data files (`.parquet`, `.jsonl`, `.json`)",
            Some(fetch),
        );
        for (found, listed) in [(vec![], "(none)"), (vec!["dev", "test"], "dev, test")] {
            check(
                HfError::NoSplit {
                    dataset: dataset(None),
                    split: "train".into(),
                    snapshot: "s".into(),
                    found: found.into_iter().map(str::to_owned).collect(),
                },
                "dataset `o/n` has no `train` split in the cache (looked in `s`)",
                Some(&format!(
                    "splits found: {listed}; or, if the split was not downloaded, {fetch}"
                )),
            );
        }
        check(
            HfError::MissingFile {
                dataset: dataset(None),
                path: "s/t.parquet".into(),
            },
            "`s/t.parquet` in the Hugging Face cache points to a missing file: the download is incomplete",
            Some(fetch),
        );
    }

    #[test]
    fn configuration_and_detection_errors_say_what_they_always_said() {
        check(
            ConfigError::Invalid {
                path: "c/isobench.toml".into(),
                line: Some(3),
                message: "bad".into(),
            },
            "invalid configuration `c/isobench.toml:3`: bad",
            Some("see docs/config.md for the keys it accepts"),
        );
        check(
            ConfigError::PluginEntry {
                path: "c/isobench.toml".into(),
                entry: 2,
            },
            "invalid configuration `c/isobench.toml`: `[[plugins]]` entry 2 needs exactly one of `path` (a native plugin) or `command` (a program plugin)",
            Some(
                "`path = \"target/release/libmy_format.so\"` or `command = [\"python3\", \"my_format.py\"]`",
            ),
        );
        let rule = RuleError {
            pattern: "x".into(),
            reason: "why".into(),
        };
        for (path, message) in [
            (None, "test-file rule `x`: why"),
            (
                Some(PathBuf::from("isobench.toml")),
                "`isobench.toml`: test-file rule `x`: why",
            ),
        ] {
            check(
                ConfigError::TestFileRule {
                    path,
                    rule: rule.clone(),
                },
                message,
                Some("rules are `dir:NAME`, `name:GLOB` or `path:GLOB`"),
            );
        }
        check(
            DetectError::Stdin,
            "`--from auto` cannot read stdin: the records it looks at would be gone",
            Some("give the input files with `-i`, or name the format with `--from`"),
        );
        check(
            DetectError::NotRecords {
                file: "t.csv".into(),
                line: 1,
                message: "malformed JSON".into(),
            },
            "`--from auto`: the input is not JSON records: t.csv:1: malformed JSON",
            Some(
                "inputs are JSON Lines (`.jsonl`), a JSON array (`.json`) or Parquet (`.parquet`); CSV and other formats are not read",
            ),
        );
        check(
            DetectError::Undecided {
                why: "why".into(),
                known: vec!["a".into(), "b".into()],
            },
            "`--from auto`: why",
            Some(
                "name the format with `--from` (one of a, b); `cargo isobench adapters` lists them",
            ),
        );
    }
}
