//! What a conversion is asked to do, and the checked plan it runs from.
//!
//! A [`ConvertRequest`] is the request as given: the two formats and a [`ConvertOptions`],
//! which the command line parses from its flags and a library caller gives by name
//! ([`crate::keywords`]; the Python bindings). [`ConvertRequest::plan`] checks it once and resolves it into a
//! [`ConvertPlan`]: the inputs as files (`hf:` ids found in the cache), the formats by their
//! adapters' names (`auto` told from the records), where rejected records go, the shard,
//! the `--set` assignments, the number of jobs. [`crate::pipeline::run`] takes only a plan.

use std::path::{Path, PathBuf};

use isobench_core::codec::JsonStyle;
use isobench_core::registry::Registered;
use isobench_core::{Profile, Registry};

use crate::assign::{self, Assignment};
use crate::cli::{ConvertArgs, ConvertOptions, OnError, OutcomeArgs, StyleArg};
use crate::errors::{AreaError, CliError};
use crate::input::Input;
use crate::mine::enrich::EnrichConfig;
use crate::parquet::{ParquetCompression, ParquetOptions, RowGroups, is_parquet};

/// A conversion as asked for, not yet checked: the two formats, the options as the
/// command line or a library caller gave them, and what only a command adds.
#[derive(Debug, Clone)]
pub struct ConvertRequest {
    /// `--from`: a format's name or alias, or `auto`.
    pub from: String,
    /// `--to`.
    pub to: String,
    /// Every other option of `convert`.
    pub options: ConvertOptions,
    /// Paths given without `-i` (refused).
    pub stray_inputs: Vec<PathBuf>,
    /// Enrichment (`--repos`, or the `enrich` command's).
    pub enrich: Option<EnrichConfig>,
    /// Print no summary on stderr (a library caller takes the report instead).
    pub quiet: bool,
}

impl ConvertRequest {
    /// A request to convert `from` to `to` with `options`.
    pub fn new(from: impl Into<String>, to: impl Into<String>, options: ConvertOptions) -> Self {
        Self {
            from: from.into(),
            to: to.into(),
            options,
            stray_inputs: Vec::new(),
            enrich: None,
            quiet: false,
        }
    }

    /// The request `convert`'s flags make; `enrich`: what `--repos` (with the
    /// configuration) gives.
    pub fn from_args(args: &ConvertArgs, enrich: Option<EnrichConfig>) -> Self {
        Self {
            stray_inputs: args.stray_inputs.clone(),
            enrich,
            ..Self::new(&args.from, &args.to, args.options.clone())
        }
    }

    /// Checks the request and resolves it into a plan. Errors come in the order the
    /// command line has always reported them: formats, `--set`, inputs, rejects,
    /// `--parquet-compression`, output against inputs, missing files, `--from auto`,
    /// `--shard`.
    pub fn plan(self, registry: &Registry) -> Result<ConvertPlan, CliError> {
        if !self.stray_inputs.is_empty() {
            return Err(PlanError::StrayInputs(self.stray_inputs).into());
        }
        let auto = crate::detect::is_auto(&self.from);
        let from = if auto {
            None
        } else {
            Some(
                crate::formats::find(registry, &self.from)?
                    .info()
                    .name
                    .clone(),
            )
        };
        let target = crate::formats::find(registry, &self.to)?;
        let to = target.info().name.clone();
        // Every option, so that one left unresolved does not compile.
        let ConvertOptions {
            inputs,
            output,
            profile,
            outcome:
                OutcomeArgs {
                    on_error,
                    rejects,
                    report,
                },
            overwrite,
            limit,
            dry_run,
            set,
            replace,
            allow_incomplete,
            json_style,
            jobs,
            shard,
            parquet_compression,
            task_org,
        } = self.options;
        let task_org = task_org.map(checked_task_org).transpose()?;
        let source = from.as_deref().and_then(|from| registry.get(from));
        let assignments = assignments(&set, &replace, target, source)?;
        let inputs: Vec<Input> = if inputs.is_empty() {
            vec![Input::Stdin]
        } else {
            crate::input::hf::sources(&inputs)?
        };
        if inputs.iter().filter(|s| **s == Input::Stdin).count() > 1 {
            return Err(PlanError::StdinTwice.into());
        }
        let output = output.filter(|p| p.as_os_str() != "-");
        // A folder per record: the output is a directory, which rejects and the report
        // stay out of.
        let directory = output
            .as_deref()
            .filter(|out| target.info().folder.is_some() || names_directory(out));
        let errors = match (on_error, rejects, &output) {
            (OnError::Skip, Some(path), _) => ErrorPolicy::Skip {
                rejects: Some(path),
            },
            (OnError::Skip, None, Some(out)) => ErrorPolicy::Skip {
                rejects: Some(beside(out, ".rejects.jsonl")),
            },
            (OnError::Skip, None, None) => return Err(PlanError::RejectsNeeded.into()),
            (OnError::Fail, Some(_), _) => return Err(PlanError::RejectsWithoutSkip.into()),
            (OnError::Fail, None, _) => ErrorPolicy::Fail,
        };
        let parquet_compression =
            parquet_compression_of(parquet_compression.as_deref(), output.as_deref())?;
        let mut written: Vec<(&str, &Path)> = Vec::new();
        if let Some(out) = &output {
            written.push(("-o", out));
        }
        if let Some(rejects) = errors.rejects() {
            written.push(("--rejects", rejects));
        }
        if let Some(report) = &report {
            written.push(("--report", report));
        }
        if let Some(root) = directory {
            check_outside(root, &written[1..])?;
        }
        crate::output_file::check_distinct(&written, &inputs)?;
        if output.is_none() {
            crate::output_file::check_stdout_distinct(&inputs)?;
        }
        let mut inputs = inputs;
        for input in &mut inputs {
            if let Input::File(p) = input {
                if p.is_dir() {
                    *input = crate::input::folder_input(p, source, registry)?;
                } else {
                    crate::input::check_input_file(p)?;
                }
            }
        }
        check_outside_inputs(&inputs, &written)?;
        let from = match from {
            Some(from) => from,
            None => crate::detect::detect(registry, &inputs)?
                .info()
                .name
                .clone(),
        };
        let shard = match &shard {
            Some(spec) => Some(Shard::parse(spec, &inputs)?),
            None => None,
        };
        Ok(ConvertPlan {
            inputs,
            from,
            to,
            output,
            errors,
            assignments,
            shard,
            parquet: ParquetOptions {
                compression: parquet_compression,
                row_groups: RowGroups::default(),
            },
            enrich: self.enrich,
            quiet: self.quiet,
            profile: profile.into(),
            json_style: fixed_style(json_style),
            jobs: jobs
                .unwrap_or_else(default_jobs)
                .clamp(1, crate::cli::MAX_JOBS),
            report,
            overwrite,
            limit,
            dry_run,
            allow_incomplete,
            task_org,
            pass_through: true,
        })
    }

    /// Checks a request for records the caller holds in memory
    /// ([`crate::pipeline::BatchConverter`]): its formats, `--set`, error policy and the
    /// rest; its inputs, output, report, limit, shard and Parquet compression are not
    /// used. `auto` is refused:
    /// nothing is read ahead. Rejected records go back to the caller, or to `rejects`.
    pub fn plan_records(self, registry: &Registry) -> Result<ConvertPlan, CliError> {
        if crate::detect::is_auto(&self.from) {
            return Err(PlanError::AutoInMemory.into());
        }
        let source = crate::formats::find(registry, &self.from)?;
        let from = source.info().name.clone();
        let target = crate::formats::find(registry, &self.to)?;
        let to = target.info().name.clone();
        // Every option, so that one left unresolved does not compile; those named `_`
        // are not used for records in memory.
        let ConvertOptions {
            inputs: _,
            output: _,
            profile,
            outcome:
                OutcomeArgs {
                    on_error,
                    rejects,
                    report: _,
                },
            overwrite,
            limit: _,
            dry_run,
            set,
            replace,
            allow_incomplete,
            json_style,
            jobs,
            shard: _,
            parquet_compression: _,
            task_org,
        } = self.options;
        let task_org = task_org.map(checked_task_org).transpose()?;
        let assignments = assignments(&set, &replace, target, Some(source))?;
        let errors = match (on_error, rejects) {
            (OnError::Fail, Some(_)) => return Err(PlanError::RejectsWithoutSkip.into()),
            (OnError::Fail, None) => ErrorPolicy::Fail,
            (OnError::Skip, rejects) => ErrorPolicy::Skip { rejects },
        };
        Ok(ConvertPlan {
            inputs: Vec::new(),
            from,
            to,
            output: None,
            errors,
            assignments,
            shard: None,
            parquet: ParquetOptions::default(),
            enrich: self.enrich,
            quiet: true,
            profile: profile.into(),
            json_style: fixed_style(json_style),
            jobs: jobs
                .unwrap_or_else(default_jobs)
                .clamp(1, crate::cli::MAX_JOBS),
            report: None,
            overwrite,
            limit: None,
            dry_run,
            allow_incomplete,
            task_org,
            pass_through: true,
        })
    }
}

/// A checked conversion: everything [`crate::pipeline::run`] needs, resolved.
#[derive(Debug, Clone)]
#[allow(clippy::struct_excessive_bools)] // independent flags, each an option resolved
pub struct ConvertPlan {
    /// The inputs, in order (`hf:` ids resolved to their files).
    pub inputs: Vec<Input>,
    /// The adapter reading the records (its name; `auto` resolved).
    pub from: String,
    /// The adapter writing them (its name).
    pub to: String,
    /// The output file; `None` for stdout.
    pub output: Option<PathBuf>,
    /// What happens to a bad record (`--on-error` with its rejects file resolved).
    pub errors: ErrorPolicy,
    /// `--set`, parsed.
    pub assignments: Vec<Assignment>,
    /// The part of the inputs to convert.
    pub shard: Option<Shard>,
    /// How a Parquet output is written: its pages' codec (`--parquet-compression`, else
    /// the default) and where its row groups end.
    pub parquet: ParquetOptions,
    /// Enrichment from local repositories and timing logs.
    pub enrich: Option<EnrichConfig>,
    /// Print no summary on stderr.
    pub quiet: bool,
    /// The canonical profile (`--profile`).
    pub profile: Profile,
    /// A fixed JSON style of the output; `None`: that of the first record
    /// (`--json-style`).
    pub json_style: Option<JsonStyle>,
    /// Threads converting records (1 to [`crate::cli::MAX_JOBS`]; `--jobs`, else one per core).
    pub jobs: usize,
    /// Where the report is written as JSON (`--report`).
    pub report: Option<PathBuf>,
    /// Replace the output, rejects and report files if they exist (`--overwrite`).
    pub overwrite: bool,
    /// Read at most this many records (`--limit`).
    pub limit: Option<u64>,
    /// Convert and report, but write no output (`--dry-run`).
    pub dry_run: bool,
    /// Write records the target's contract finds lacking, counted as incomplete
    /// (`--allow-incomplete`).
    pub allow_incomplete: bool,
    /// The org of a Harbor task's package name (`--task-org`); `None`: the default.
    pub task_org: Option<String>,
    /// Values the conversion only moves go from input to output unread, where they
    /// can (see [`isobench_core::passthrough`]); `false` reads and writes every value,
    /// which gives the same output, slower: what the pass-through is checked against.
    pub pass_through: bool,
}

impl ConvertPlan {
    /// The canonical profile.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// A fixed JSON style of the output; `None`: that of the first record.
    pub fn json_style(&self) -> Option<JsonStyle> {
        self.json_style
    }

    /// Threads converting records (1 to [`crate::cli::MAX_JOBS`]; `--jobs`, else one per core).
    pub fn jobs(&self) -> usize {
        self.jobs
    }
}

/// The style `--json-style` fixes; `None`: that of the first record.
fn fixed_style(style: StyleArg) -> Option<JsonStyle> {
    match style {
        StyleArg::Auto => None,
        StyleArg::Compact => Some(JsonStyle::Compact),
        StyleArg::Spaced => Some(JsonStyle::Spaced),
    }
}

/// What happens to a bad record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorPolicy {
    /// Stop at the first; nothing is written.
    Fail,
    /// Set it aside, with its reason, and go on.
    Skip {
        /// The rejects file (JSON Lines); always one for files. `None`: the records
        /// converted in memory go back to the caller with the others.
        rejects: Option<PathBuf>,
    },
}

impl ErrorPolicy {
    /// The rejects file, under `Skip`.
    pub fn rejects(&self) -> Option<&PathBuf> {
        match self {
            Self::Fail => None,
            Self::Skip { rejects } => rejects.as_ref(),
        }
    }

    /// The flag's value.
    pub fn on_error(&self) -> OnError {
        match self {
            Self::Fail => OnError::Fail,
            Self::Skip { .. } => OnError::Skip,
        }
    }

    /// Whether a bad record is set aside and the run goes on (`--on-error skip`).
    pub fn skips(&self) -> bool {
        matches!(self, Self::Skip { .. })
    }
}

/// `--shard K/N`: the K-th of N contiguous, near-equal ranges of the inputs' records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// 1-based part.
    pub k: u64,
    /// Number of parts.
    pub n: u64,
}

impl Shard {
    /// Parses `K/N`; a shard cannot split stdin.
    pub fn parse(spec: &str, inputs: &[Input]) -> Result<Self, PlanError> {
        let bad = || PlanError::BadShard(spec.to_owned());
        let (k, n) = spec.split_once('/').ok_or_else(bad)?;
        let (k, n): (u64, u64) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if k == 0 || n == 0 || k > n {
            return Err(bad());
        }
        if inputs.contains(&Input::Stdin) {
            return Err(PlanError::ShardOfStdin);
        }
        Ok(Self { k, n })
    }
}

/// `--parquet-compression`, parsed: given only with a Parquet output (`output`; `None`:
/// stdout), which the default compresses when it is not given.
fn parquet_compression_of(
    given: Option<&str>,
    output: Option<&Path>,
) -> Result<ParquetCompression, PlanError> {
    let Some(given) = given else {
        return Ok(ParquetCompression::default());
    };
    let compression = ParquetCompression::parse(given)
        .ok_or_else(|| PlanError::BadParquetCompression(given.to_owned()))?;
    match output {
        Some(path) if is_parquet(path) => Ok(compression),
        _ => Err(PlanError::ParquetCompressionWithoutParquet(
            output.map_or_else(|| "stdout".to_owned(), |p| format!("`{}`", p.display())),
        )),
    }
}

/// Whether `output` is written as a directory: `DIR/`.
pub(crate) fn names_directory(output: &Path) -> bool {
    output
        .as_os_str()
        .to_string_lossy()
        .ends_with(std::path::is_separator)
}

/// The file beside `output` (a file or a directory) named after it with `suffix`:
/// `out.jsonl.rejects.jsonl`, `tasks.rejects.jsonl` for `tasks/`.
fn beside(output: &Path, suffix: &str) -> PathBuf {
    let text = output.to_string_lossy();
    let trimmed = text.trim_end_matches(std::path::is_separator);
    let base = if trimmed.is_empty() { &*text } else { trimmed };
    PathBuf::from(format!("{base}{suffix}"))
}

/// Whether `path` is `root` or under it, compared as absolute paths, `.` and `..`
/// resolved by their text.
fn is_under(root: &Path, path: &Path) -> bool {
    let absolute = |p: &Path| -> PathBuf {
        let p = std::path::absolute(p).unwrap_or_else(|_| p.to_owned());
        let mut out = PathBuf::new();
        for component in p.components() {
            match component {
                std::path::Component::ParentDir => {
                    out.pop();
                }
                std::path::Component::CurDir => {}
                other => out.push(other),
            }
        }
        out
    };
    absolute(path).starts_with(absolute(root))
}

/// Refuses a rejects file or report (`written`, by flag) inside the output directory
/// `root`.
fn check_outside(root: &Path, written: &[(&str, &Path)]) -> Result<(), CliError> {
    for (flag, path) in written {
        if is_under(root, path) {
            return Err(PlanError::InsideOutput {
                flag: (*flag).to_owned(),
                path: (*path).to_owned(),
                root: root.to_owned(),
            }
            .into());
        }
    }
    Ok(())
}

/// Refuses anything written (`written`, by flag) inside a directory read as record
/// folders: a later run would read it as one.
fn check_outside_inputs(inputs: &[Input], written: &[(&str, &Path)]) -> Result<(), CliError> {
    for input in inputs {
        let Input::Folders { path: root, .. } = input else {
            continue;
        };
        for (flag, path) in written {
            if is_under(root, path) {
                return Err(PlanError::InsideInput {
                    flag: (*flag).to_owned(),
                    path: (*path).to_owned(),
                    root: root.clone(),
                }
                .into());
            }
        }
    }
    Ok(())
}

/// `--task-org`, if it is a name Harbor takes for an org.
fn checked_task_org(org: String) -> Result<String, PlanError> {
    let mut chars = org.chars();
    let fits = chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && !org.contains("..");
    if fits {
        Ok(org)
    } else {
        Err(PlanError::BadTaskOrg(org))
    }
}

/// Worker threads by default: one per available core.
fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
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
    /// A `--parquet-compression` that names no codec, or a level out of its range.
    #[error(
        "`--parquet-compression {0}` is not one of {accepted}",
        accepted = crate::parquet::PARQUET_COMPRESSIONS
    )]
    BadParquetCompression(String),
    /// `--parquet-compression` with an output that is not Parquet (named, or `stdout`).
    #[error("`--parquet-compression` applies to a Parquet output only, and the output is {0}")]
    ParquetCompressionWithoutParquet(String),
    /// A rejects file or report inside the output directory of a folder output.
    #[error("`{flag} {}` is inside the output directory `{}`", path.display(), root.display())]
    InsideOutput {
        /// The flag.
        flag: String,
        /// Its path.
        path: PathBuf,
        /// The output directory.
        root: PathBuf,
    },
    /// An output inside a directory read as record folders.
    #[error("`{flag} {}` is inside `{}`, which is read as record folders", path.display(), root.display())]
    InsideInput {
        /// The flag.
        flag: String,
        /// Its path.
        path: PathBuf,
        /// The input directory.
        root: PathBuf,
    },
    /// A `--task-org` Harbor would not take.
    #[error("`--task-org {0}` is not a name Harbor takes for an org")]
    BadTaskOrg(String),
    /// `auto` for records held in memory.
    #[error(
        "`auto` needs files to read ahead: records converted in memory need their format named"
    )]
    AutoInMemory,
}

impl AreaError for PlanError {
    fn hint(&self) -> Option<String> {
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
            Self::InsideOutput { .. } => "put it beside the output directory".into(),
            Self::InsideInput { .. } => "put it beside the input directory".into(),
            Self::BadTaskOrg(_) => {
                "an org starts with a letter or digit, then letters, digits, `.`, `_` and `-`, without `..`".into()
            }
            Self::AutoInMemory => "name the format (`cargo isobench adapters` lists them)".into(),
            Self::BadParquetCompression(_) => {
                "e.g. `--parquet-compression zstd:3` for smaller files, `snappy` for faster writes"
                    .into()
            }
            Self::ParquetCompressionWithoutParquet(_) => {
                "write a `.parquet` file (`-o NAME.parquet`), or drop `--parquet-compression`"
                    .into()
            }
        })
    }
}

/// The `--set` and `--replace` assignments, each value read as the target's (else the
/// source's) table declares its field, and none aimed at a key the target writes from
/// another field.
fn assignments(
    set: &[String],
    replace: &[String],
    target: &Registered,
    source: Option<&Registered>,
) -> Result<Vec<Assignment>, CliError> {
    let tables: Vec<_> = [Some(target), source]
        .into_iter()
        .flatten()
        .filter_map(Registered::table)
        .collect();
    let assignments = assign::parse_all(set, replace, &tables)?;
    if let Some(table) = target.table() {
        assign::check_target_keys(&assignments, table)?;
    }
    Ok(assignments)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registry() -> Registry {
        isobench_adapters::link();
        Registry::builtin()
    }

    #[test]
    fn a_request_resolves_aliases_and_defaults() {
        let plan = ConvertRequest::new("swe-bench", "canonical", ConvertOptions::default())
            .plan(&registry())
            .unwrap();
        assert_eq!(plan.inputs, vec![Input::Stdin]);
        assert_eq!(plan.to, "canonical");
        assert_eq!(plan.errors, ErrorPolicy::Fail);
        assert!(plan.jobs() >= 1);
    }

    #[test]
    fn skip_takes_its_rejects_file_beside_the_output() {
        let mut request = ConvertRequest::new("swe-bench", "canonical", ConvertOptions::default());
        request.options.outcome.on_error = OnError::Skip;
        request.options.output = Some("out.jsonl".into());
        let plan = request.plan(&registry()).unwrap();
        assert_eq!(
            plan.errors,
            ErrorPolicy::Skip {
                rejects: Some("out.jsonl.rejects.jsonl".into())
            }
        );
    }

    #[test]
    fn usage_errors_are_typed() {
        let registry = registry();
        let mut request = ConvertRequest::new("swe-bench", "canonical", ConvertOptions::default());
        request.options.outcome.on_error = OnError::Skip;
        assert_eq!(
            request.plan(&registry).unwrap_err().area(),
            Some(&PlanError::RejectsNeeded)
        );
        let mut request = ConvertRequest::new("swe-bench", "canonical", ConvertOptions::default());
        request.options.outcome.rejects = Some("r.jsonl".into());
        assert_eq!(
            request.plan(&registry).unwrap_err().area(),
            Some(&PlanError::RejectsWithoutSkip)
        );
        let mut request = ConvertRequest::new("swe-bench", "canonical", ConvertOptions::default());
        request.options.inputs = vec!["-".into(), "-".into()];
        assert_eq!(
            request.plan(&registry).unwrap_err().area(),
            Some(&PlanError::StdinTwice)
        );
        assert_eq!(
            Shard::parse("3/2", &[]),
            Err(PlanError::BadShard("3/2".into()))
        );
        assert_eq!(
            Shard::parse("1/2", &[Input::Stdin]),
            Err(PlanError::ShardOfStdin)
        );
        assert_eq!(Shard::parse(" 2/ 8", &[]), Ok(Shard { k: 2, n: 8 }));
    }

    #[test]
    fn parquet_compression_is_parsed_for_parquet_outputs_only() {
        let registry = registry();
        let request = |output: Option<&str>, compression: &str| {
            let mut request =
                ConvertRequest::new("swe-bench", "canonical", ConvertOptions::default());
            request.options.output = output.map(PathBuf::from);
            request.options.parquet_compression = Some(compression.to_owned());
            request.plan(&registry)
        };
        let plan = request(Some("out.parquet"), "snappy").unwrap();
        assert_eq!(plan.parquet.compression, ParquetCompression::Snappy);
        let plan = request(Some("out.PARQUET"), "zstd:7").unwrap();
        assert_eq!(plan.parquet.compression, ParquetCompression::Zstd(7));
        let plan = ConvertRequest::new("swe-bench", "canonical", ConvertOptions::default())
            .plan(&registry)
            .unwrap();
        assert_eq!(plan.parquet.compression, ParquetCompression::Zstd(1));
        for bad in ["zstd:23", "gzip:10", "brotli"] {
            assert_eq!(
                request(Some("out.parquet"), bad).unwrap_err().area(),
                Some(&PlanError::BadParquetCompression(bad.into()))
            );
        }
        assert_eq!(
            request(Some("out.jsonl"), "snappy").unwrap_err().area(),
            Some(&PlanError::ParquetCompressionWithoutParquet(
                "`out.jsonl`".into()
            ))
        );
        for stdout in [None, Some("-")] {
            assert_eq!(
                request(stdout, "none").unwrap_err().area(),
                Some(&PlanError::ParquetCompressionWithoutParquet(
                    "stdout".into()
                ))
            );
        }
    }
}

#[cfg(test)]
mod error_messages {
    use super::*;
    use crate::errors::said;

    #[test]
    fn parquet_compression_errors_name_the_option_and_its_values() {
        insta::assert_snapshot!(said([
            PlanError::BadParquetCompression("zstd:23".into()),
            PlanError::ParquetCompressionWithoutParquet("`out.jsonl`".into()),
        ]));
    }

    #[test]
    fn an_output_inside_an_input_directory_is_named_with_it() {
        insta::assert_snapshot!(said([PlanError::InsideInput {
            flag: "-o".into(),
            path: "tasks/rows.jsonl".into(),
            root: "tasks/".into(),
        }]));
    }
}
