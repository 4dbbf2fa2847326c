//! What a conversion is asked to do, and the checked plan it runs from.
//!
//! A [`ConvertRequest`] is the request as given, in plain values: the command line's flags
//! (`From<&ConvertArgs>`) or a caller of the library (the Python bindings fill one
//! directly). [`ConvertRequest::plan`] checks it once and resolves it into a
//! [`ConvertPlan`]: the inputs as files (`hf:` ids found in the cache), the formats by their
//! adapters' names (`auto` told from the records), where rejected records go, the shard,
//! the `--set` assignments, the number of jobs. [`crate::pipeline::run`] takes only a plan.

use std::path::{Path, PathBuf};

use isobench_core::codec::JsonStyle;
use isobench_core::{Profile, Registry};

use crate::assign::{self, Assignment};
use crate::cli::{ConvertArgs, OnError, StyleArg};
use crate::errors::{CliError, PlanError};
use crate::input::Input;
use crate::mine::enrich::EnrichConfig;

/// A conversion as asked for, not yet checked. Field names follow `convert`'s flags.
// One bool a switch of the command line.
#[allow(clippy::struct_excessive_bools)]
#[derive(Debug, Clone)]
pub struct ConvertRequest {
    /// `--from`: a format's name or alias, or `auto`.
    pub from: String,
    /// `--to`.
    pub to: String,
    /// `-i`: files, `-` for stdin, `hf:` ids. Empty: stdin.
    pub inputs: Vec<PathBuf>,
    /// Paths given without `-i` (refused).
    pub stray_inputs: Vec<PathBuf>,
    /// `-o`; `None` or `-` for stdout.
    pub output: Option<PathBuf>,
    /// `--profile`.
    pub profile: Profile,
    /// `--on-error`.
    pub on_error: OnError,
    /// `--rejects`.
    pub rejects: Option<PathBuf>,
    /// `--report`.
    pub report: Option<PathBuf>,
    /// `--overwrite`.
    pub overwrite: bool,
    /// `--limit`.
    pub limit: Option<u64>,
    /// `--dry-run`.
    pub dry_run: bool,
    /// `--set FIELD=VALUE`, as given.
    pub set: Vec<String>,
    /// `--allow-incomplete`.
    pub allow_incomplete: bool,
    /// `--json-style`: `None` for `auto`.
    pub json_style: Option<JsonStyle>,
    /// `--jobs`; `None`: one per core.
    pub jobs: Option<usize>,
    /// `--shard K/N`, as given.
    pub shard: Option<String>,
    /// Enrichment (`--repos`, or the `enrich` command's).
    pub enrich: Option<EnrichConfig>,
    /// Print no summary on stderr (a library caller takes the report instead).
    pub quiet: bool,
}

impl ConvertRequest {
    /// A request to convert `from` to `to`, everything else as the flags' defaults.
    pub fn new(from: impl Into<String>, to: impl Into<String>) -> Self {
        Self {
            from: from.into(),
            to: to.into(),
            inputs: Vec::new(),
            stray_inputs: Vec::new(),
            output: None,
            profile: Profile::Lossless,
            on_error: OnError::Fail,
            rejects: None,
            report: None,
            overwrite: false,
            limit: None,
            dry_run: false,
            set: Vec::new(),
            allow_incomplete: false,
            json_style: None,
            jobs: None,
            shard: None,
            enrich: None,
            quiet: false,
        }
    }

    /// The request `convert`'s flags make; `enrich`: what `--repos` (with the
    /// configuration) gives.
    pub fn from_args(args: &ConvertArgs, enrich: Option<EnrichConfig>) -> Self {
        Self {
            inputs: args.inputs.clone(),
            stray_inputs: args.stray_inputs.clone(),
            output: args.output.clone(),
            profile: args.profile.into(),
            on_error: args.on_error,
            rejects: args.rejects.clone(),
            report: args.report.clone(),
            overwrite: args.overwrite,
            limit: args.limit,
            dry_run: args.dry_run,
            set: args.set.clone(),
            allow_incomplete: args.allow_incomplete,
            json_style: match args.json_style {
                StyleArg::Auto => None,
                StyleArg::Compact => Some(JsonStyle::Compact),
                StyleArg::Spaced => Some(JsonStyle::Spaced),
            },
            jobs: args.jobs,
            shard: args.shard.clone(),
            enrich,
            ..Self::new(&args.from, &args.to)
        }
    }

    /// Checks the request and resolves it into a plan. Errors come in the order the
    /// command line has always reported them: formats, `--set`, inputs, rejects, output
    /// against inputs, missing files, `--from auto`, `--shard`.
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
        let to = crate::formats::find(registry, &self.to)?
            .info()
            .name
            .clone();
        let assignments = assign::parse_all(&self.set)?;
        let inputs: Vec<Input> = if self.inputs.is_empty() {
            vec![Input::Stdin]
        } else {
            crate::input::hf::sources(&self.inputs)?
        };
        if inputs.iter().filter(|s| **s == Input::Stdin).count() > 1 {
            return Err(PlanError::StdinTwice.into());
        }
        let output = self.output.filter(|p| p.as_os_str() != "-");
        let errors = match (self.on_error, self.rejects, &output) {
            (OnError::Skip, Some(path), _) => ErrorPolicy::Skip {
                rejects: Some(path),
            },
            (OnError::Skip, None, Some(out)) => ErrorPolicy::Skip {
                rejects: Some(PathBuf::from(format!("{}.rejects.jsonl", out.display()))),
            },
            (OnError::Skip, None, None) => return Err(PlanError::RejectsNeeded.into()),
            (OnError::Fail, Some(_), _) => return Err(PlanError::RejectsWithoutSkip.into()),
            (OnError::Fail, None, _) => ErrorPolicy::Fail,
        };
        let mut written: Vec<(&str, &Path)> = Vec::new();
        if let Some(out) = &output {
            written.push(("-o", out));
        }
        if let Some(rejects) = errors.rejects() {
            written.push(("--rejects", rejects));
        }
        if let Some(report) = &self.report {
            written.push(("--report", report));
        }
        crate::output_file::check_distinct(&written, &inputs)?;
        for source in &inputs {
            if let Input::File(p) = source {
                crate::input::check_input_file(p)?;
            }
        }
        let from = match from {
            Some(from) => from,
            None => crate::detect::detect(registry, &inputs)?
                .info()
                .name
                .clone(),
        };
        let shard = match &self.shard {
            Some(spec) => Some(Shard::parse(spec, &inputs)?),
            None => None,
        };
        Ok(ConvertPlan {
            inputs,
            from,
            to,
            output,
            profile: self.profile,
            errors,
            report: self.report,
            overwrite: self.overwrite,
            limit: self.limit,
            dry_run: self.dry_run,
            assignments,
            allow_incomplete: self.allow_incomplete,
            json_style: self.json_style,
            jobs: self.jobs.unwrap_or_else(default_jobs).max(1),
            shard,
            enrich: self.enrich,
            quiet: self.quiet,
        })
    }

    /// Checks a request for records the caller holds in memory
    /// ([`crate::pipeline::BatchConverter`]): its formats, `--set`, error policy and the
    /// rest; its inputs, output, report, limit and shard are not used. `auto` is refused:
    /// nothing is read ahead. Rejected records go back to the caller, or to `rejects`.
    pub fn plan_records(self, registry: &Registry) -> Result<ConvertPlan, CliError> {
        if crate::detect::is_auto(&self.from) {
            return Err(PlanError::AutoInMemory.into());
        }
        let from = crate::formats::find(registry, &self.from)?
            .info()
            .name
            .clone();
        let to = crate::formats::find(registry, &self.to)?
            .info()
            .name
            .clone();
        let assignments = assign::parse_all(&self.set)?;
        let errors = match (self.on_error, self.rejects) {
            (OnError::Fail, Some(_)) => return Err(PlanError::RejectsWithoutSkip.into()),
            (OnError::Fail, None) => ErrorPolicy::Fail,
            (OnError::Skip, rejects) => ErrorPolicy::Skip { rejects },
        };
        Ok(ConvertPlan {
            inputs: Vec::new(),
            from,
            to,
            output: None,
            profile: self.profile,
            errors,
            report: None,
            overwrite: self.overwrite,
            limit: None,
            dry_run: self.dry_run,
            assignments,
            allow_incomplete: self.allow_incomplete,
            json_style: self.json_style,
            jobs: self.jobs.unwrap_or_else(default_jobs).max(1),
            shard: None,
            enrich: self.enrich,
            quiet: true,
        })
    }
}

/// A checked conversion: everything [`crate::pipeline::run`] needs, resolved.
// One bool a switch of the command line.
#[allow(clippy::struct_excessive_bools)]
#[derive(Debug, Clone)]
pub struct ConvertPlan {
    /// The inputs, in order (`hf:` ids resolved to their files).
    pub inputs: Vec<Input>,
    /// The adapter reading the records (its name; `auto` resolved).
    pub from: String,
    /// The adapter writing them (its name).
    pub to: String,
    /// The output file; `None` for stdout.
    pub output: Option<PathBuf>,
    /// The canonical profile.
    pub profile: Profile,
    /// What happens to a bad record.
    pub errors: ErrorPolicy,
    /// Where the report is written, if anywhere.
    pub report: Option<PathBuf>,
    /// Replace the output (and rejects file).
    pub overwrite: bool,
    /// Read at most this many records.
    pub limit: Option<u64>,
    /// Convert and report, write nothing.
    pub dry_run: bool,
    /// `--set`, parsed.
    pub assignments: Vec<Assignment>,
    /// Write records the target's contract finds lacking, counted as incomplete.
    pub allow_incomplete: bool,
    /// A fixed JSON style of the output; `None`: that of the first record.
    pub json_style: Option<JsonStyle>,
    /// Threads converting records (at least 1).
    pub jobs: usize,
    /// The part of the inputs to convert.
    pub shard: Option<Shard>,
    /// Enrichment from local repositories and timing logs.
    pub enrich: Option<EnrichConfig>,
    /// Print no summary on stderr.
    pub quiet: bool,
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

/// Worker threads by default: one per available core.
fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
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
        let plan = ConvertRequest::new("swe-bench", "canonical")
            .plan(&registry())
            .unwrap();
        assert_eq!(plan.inputs, vec![Input::Stdin]);
        assert_eq!(plan.to, "canonical");
        assert_eq!(plan.errors, ErrorPolicy::Fail);
        assert!(plan.jobs >= 1);
    }

    #[test]
    fn skip_takes_its_rejects_file_beside_the_output() {
        let mut request = ConvertRequest::new("swe-bench", "canonical");
        request.on_error = OnError::Skip;
        request.output = Some("out.jsonl".into());
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
        let mut request = ConvertRequest::new("swe-bench", "canonical");
        request.on_error = OnError::Skip;
        assert!(matches!(
            request.plan(&registry),
            Err(CliError::Plan(PlanError::RejectsNeeded))
        ));
        let mut request = ConvertRequest::new("swe-bench", "canonical");
        request.rejects = Some("r.jsonl".into());
        assert!(matches!(
            request.plan(&registry),
            Err(CliError::Plan(PlanError::RejectsWithoutSkip))
        ));
        let mut request = ConvertRequest::new("swe-bench", "canonical");
        request.inputs = vec!["-".into(), "-".into()];
        assert!(matches!(
            request.plan(&registry),
            Err(CliError::Plan(PlanError::StdinTwice))
        ));
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
}
