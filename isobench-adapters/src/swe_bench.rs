//! SWE-bench (full, Lite, Verified): the classic 12 fields, Verified's `difficulty`, and
//! the SWE-bench 5.x fields `image`, `eval_script`, `log_parser`, `eval_type`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use isobench_core::contract::{Known, Under};
use isobench_core::registry::AdapterRegistration;
use isobench_core::table::io::{Exporter, Importer};
use isobench_core::table::{
    Field, FieldType, HookResult, Hooks, ListEncoding, Table, TableAdapter,
};
use isobench_core::vocab;
use isobench_core::{CanonicalRecord, RecordError};

use crate::common::release;

const NAME: &str = "swe-bench";

const INSTANCE: &str = "swebench.harness.constants.SWEbenchInstance";
const SPEC: &str = "swebench.harness.test_spec.make_test_spec";
const GRADING: &str = "swebench.harness.grading.get_eval_tests_report";

/// SWE-bench's fields, and what its harness (4.x, the one the classic rows are for)
/// requires of a row.
pub fn table() -> Table {
    let f = Field::new;
    let specs = Specs::parse(SPECS);
    Table::new(
        NAME,
        &["swebench", "swe-bench-verified", "swe-bench-lite", "verified", "lite"],
        "SWE-bench full, Lite and Verified rows (12 classic fields, `difficulty`, 5.x `image`/`eval_script`/`log_parser`/`eval_type`)",
    )
    .consumer("swebench 4.x harness")
    .fields(vec![
        f("repo", "repo")
            .required()
            .consumer(SPEC)
            .non_empty()
            .known(specs.repos())
            .remedy(UNKNOWN_PAIR),
        f("instance_id", "instance_id").required().consumer(INSTANCE).non_empty(),
        f("base_commit", "base_commit").required().consumer(SPEC).non_empty(),
        f("patch", "patch").required().consumer("the gold patch the harness applies").non_empty(),
        f("test_patch", "test_patch").required().consumer(SPEC),
        f("problem_statement", "extensions.problem_statement").required().consumer(INSTANCE),
        f("hints_text", "extensions.hints_text").consumer(INSTANCE).none_value(""),
        f("created_at", "created_at").kind(FieldType::Timestamp).hook().consumer(INSTANCE),
        // The repository release (`X.Y`), a key of the harness's spec table: a hook, as a
        // derived environment signature is no use there.
        f("version", "version")
            .required()
            .hook()
            .consumer("make_test_spec: MAP_REPO_VERSION_TO_SPECS[repo][version]")
            .non_empty()
            .known(specs.versions())
            .remedy(UNKNOWN_PAIR),
        f("FAIL_TO_PASS", "extensions.fail_to_pass")
            .list(ListEncoding::JsonSpaced)
            .required()
            .consumer(GRADING)
            .non_empty(),
        f("PASS_TO_PASS", "extensions.pass_to_pass")
            .list(ListEncoding::JsonSpaced)
            .required()
            .consumer(SPEC),
        f("environment_setup_commit", "extensions.environment_setup_commit")
            .consumer(SPEC)
            .non_empty(),
        f("difficulty", "extensions.difficulty"),
        // The SWE-bench 5.x fields: written together, never `image` alone.
        f("image", "extensions.image_name").hook(),
        f("eval_script", "extensions.eval_script").hook(),
        f("log_parser", "extensions.log_parser").hook(),
        f("eval_type", "extensions.eval_type").hook(),
    ])
    .carries_also(&["extensions.upstream_version"])
}

/// The `(repo, version)` pairs the 4.x harness has environment specs for.
const SPECS: &str = include_str!("../data/swebench-4.1-specs.txt");

/// What to do with a row whose pair the harness has no specs for.
const UNKNOWN_PAIR: &str = "the SWE-bench 4.x harness has environment specs only for its own repositories and releases (`cargo isobench adapters --json` lists them): evaluate such rows with a harness that adds theirs, or as SWE-bench 5.x rows that carry all four of `image`, `eval_script`, `log_parser` and `eval_type`";

/// The harness's spec table: each repository's releases.
struct Specs(BTreeMap<String, BTreeSet<String>>);

impl Specs {
    /// Reads the table from its text: a line per repository, then its releases, `#`
    /// starting a comment line.
    fn parse(text: &str) -> Self {
        let pairs = text
            .lines()
            .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
            .filter_map(|line| {
                let mut words = line.split_whitespace();
                Some((words.next()?.to_owned(), words.map(str::to_owned).collect()))
            });
        Self(pairs.collect())
    }

    /// The repositories, which a 5.x row (with its four 5.x fields) need not be of.
    fn repos(&self) -> Known {
        Known {
            values: self.0.keys().cloned().collect(),
            ..group_5x()
        }
    }

    /// The releases of each repository.
    fn versions(&self) -> Known {
        Known {
            under: Some(Under {
                key: "repo".to_owned(),
                values: self.0.clone(),
            }),
            ..group_5x()
        }
    }
}

/// The lookup is skipped only for a row with the whole 5.x group: both swebench 4.1 (which
/// looks the pair up) and 5.0 (which reads every key of the group) reject a row with
/// only part of it.
fn group_5x() -> Known {
    Known {
        unless: Some("eval_script".to_owned()),
        unless_with: FIELDS_5X
            .iter()
            .map(|(key, _)| (*key).to_owned())
            .filter(|key| key != "eval_script")
            .collect(),
        ..Known::default()
    }
}

/// The SWE-bench 5.x fields and where they live in `extensions`.
const FIELDS_5X: [(&str, &str); 4] = [
    ("image", vocab::IMAGE_NAME),
    ("eval_script", vocab::EVAL_SCRIPT),
    ("log_parser", vocab::LOG_PARSER),
    ("eval_type", vocab::EVAL_TYPE),
];

/// What SWE-bench 5.x's harness accepts in a row's 5.x fields, as
/// `data/swebench-5-values.txt` declares it (and a test compares with the swebench 5 it
/// finds installed): a row with other values is one the harness rejects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Accepted5x {
    /// The values of `swebench.harness.constants.EvalType`.
    pub eval_types: Vec<String>,
    /// The names in `swebench.harness.log_parsers.PARSER_REGISTRY`.
    pub log_parsers: Vec<String>,
    /// The line an `eval_script` prints before its tests' output (`START_TEST_OUTPUT`).
    pub start_marker: String,
    /// The line it prints after (`END_TEST_OUTPUT`).
    pub end_marker: String,
}

/// The declaration [`Accepted5x`] is read from.
const VALUES_5X: &str = include_str!("../data/swebench-5-values.txt");

impl Accepted5x {
    /// The values declared in `data/swebench-5-values.txt`.
    pub fn declared() -> Self {
        let mut accepted = Self {
            eval_types: Vec::new(),
            log_parsers: Vec::new(),
            start_marker: String::new(),
            end_marker: String::new(),
        };
        for line in VALUES_5X.lines().filter(|l| !l.starts_with('#')) {
            let Some((key, rest)) = line.split_once(' ') else {
                continue;
            };
            let words = || rest.split_whitespace().map(str::to_owned).collect();
            match key {
                "eval_type" => accepted.eval_types = words(),
                "log_parser" => accepted.log_parsers = words(),
                "start_marker" => rest.clone_into(&mut accepted.start_marker),
                "end_marker" => rest.clone_into(&mut accepted.end_marker),
                _ => {}
            }
        }
        accepted
    }

    /// [`Accepted5x::declared`], read at its first use.
    fn read_once() -> &'static Self {
        static ACCEPTED: OnceLock<Accepted5x> = OnceLock::new();
        ACCEPTED.get_or_init(Self::declared)
    }

    /// Why swebench 5 would reject the 5.x fields of `c`, when it would.
    fn refusal(&self, c: &CanonicalRecord) -> Option<RecordError> {
        let listed = |names: &[String]| {
            let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
            quoted.join(", ")
        };
        if let Some(given) = c.ext_str(vocab::EVAL_TYPE)
            && !self.eval_types.iter().any(|t| t == given)
        {
            return Some(
                RecordError::invalid(
                    "/eval_type",
                    format!("`eval_type` `{given}` is not one SWE-bench 5.x knows"),
                )
                .with_hint(format!(
                    "swebench 5 takes {} (swebench.harness.constants.EvalType): `--replace extensions.eval_type=VALUE`",
                    listed(&self.eval_types)
                )),
            );
        }
        if let Some(given) = c.ext_str(vocab::LOG_PARSER)
            && !self.log_parsers.iter().any(|p| p == given)
        {
            return Some(
                RecordError::invalid(
                    "/log_parser",
                    format!("`log_parser` `{given}` is not a parser SWE-bench 5.x has"),
                )
                .with_hint(format!(
                    "swebench 5's parsers (swebench.harness.log_parsers.PARSER_REGISTRY) are {}: `--replace extensions.log_parser=VALUE`",
                    listed(&self.log_parsers)
                )),
            );
        }
        let script = c.ext_str(vocab::EVAL_SCRIPT)?;
        let lacking: Vec<String> = [&self.start_marker, &self.end_marker]
            .into_iter()
            .filter(|marker| !script.contains(marker.as_str()))
            .map(|marker| format!("`{marker}`"))
            .collect();
        (!lacking.is_empty()).then(|| {
            RecordError::invalid(
                "/eval_script",
                format!(
                    "`eval_script` never prints {}, which SWE-bench 5.x cuts the test output at",
                    lacking.join(" or ")
                ),
            )
            .with_hint(format!(
                "an `eval_script` echoes `{}` before the test command and `{}` after it (swebench.harness.constants START_TEST_OUTPUT, END_TEST_OUTPUT)",
                self.start_marker, self.end_marker
            ))
        })
    }
}

/// What SWE-bench's table cannot say: `created_at`'s zone, `version` as a release, and
/// the 5.x fields as a group.
#[derive(Debug)]
struct SweBenchHooks;

impl Hooks for SweBenchHooks {
    fn import(&self, from: &mut Importer<'_, '_>, c: &mut CanonicalRecord) -> HookResult {
        c.created_at = from.timestamp("created_at", str::to_owned)?;
        c.version = Some(from.required_string("version")?);
        for (key, ext) in FIELDS_5X {
            if let Some(v) = from.string(key)? {
                c.set_ext(ext, v);
            }
        }
        Ok(())
    }

    fn export(&self, c: &CanonicalRecord, to: &mut Exporter<'_, '_, '_>) -> HookResult {
        to.timestamp("created_at", c.created_at.as_deref(), str::to_owned);
        if c.created_at.is_some()
            && !c.created_at.as_deref().is_some_and(|t| t.ends_with('Z'))
            && !to.same_format()
        {
            to.notes.warn(
                "created_at",
                "written without a time zone: the source had none, and SWE-bench's own rows are UTC (`...Z`)",
            );
        }
        let version = release(to);
        to.string("version", version);
        // `image` is 5.x's per-instance evaluation image: written with the other 5.x
        // fields, never alone from another format's environment image.
        // The 5.x fields go together: a record from another format with only some of them
        // (another format's environment `image` alone, say) has them dropped, and its
        // `(repo, version)` pair is looked up. A SWE-bench row is written back as it was,
        // and the contract judges it.
        let whole = FIELDS_5X.iter().all(|(_, ext)| c.ext_str(ext).is_some());
        // A whole group sends the row down 5.x's path, which reads each value.
        if whole && let Some(refusal) = Accepted5x::read_once().refusal(c) {
            return Err(refusal);
        }
        if to.same_format() || whole {
            for (key, ext) in FIELDS_5X {
                to.string(key, c.ext_str(ext));
            }
        } else {
            let lacking: Vec<String> = FIELDS_5X
                .iter()
                .filter(|(_, ext)| c.ext_str(ext).is_none())
                .map(|(key, _)| format!("`{key}`"))
                .collect();
            for (_, ext) in FIELDS_5X.iter().filter(|(_, ext)| c.ext(ext).is_some()) {
                to.notes.dropped(
                    format!("extensions.{ext}"),
                    format!(
                        "SWE-bench's 5.x fields `image`, `eval_script`, `log_parser` and `eval_type` are written \
                         together, and the record lacks {}",
                        lacking.join(", ")
                    ),
                );
            }
        }
        Ok(())
    }
}

/// The SWE-bench adapter.
pub fn adapter() -> TableAdapter {
    TableAdapter::new(table(), SweBenchHooks).expect("SWE-bench's table is valid")
}

inventory::submit! {
    AdapterRegistration { make: || adapter().into() }
}
