//! Harbor task folders (Harbor 0.26.0), written: a folder per record, named after its
//! `instance_id`, that `harbor lint` passes under its default rules and Harbor's task
//! loader loads.
//!
//! A record of this format is a folder: each key is a file's path in it
//! ([`isobench_core::adapter::FolderLayout`]), and the output writes it as one.
//!
//! | file | what it holds |
//! |---|---|
//! | `task.toml` | `[task].name` (`<org>/<instance_id>`), the image (`[environment].docker_image`), a separate verifier that gets the agent's `/testbed` as an artifact, and where the record came from (`[metadata.isobench]`) |
//! | `instruction.md` | `extensions.problem_statement`, as it is |
//! | `solution/solve.sh`, `solution/gold.patch` | applies the gold patch in `/testbed` |
//! | `tests/test.sh` | runs the benchmark's own evaluation and grading at a pinned version, and always writes `/logs/verifier/reward.json` |
//! | `tests/grade.py` | the calls into the benchmark's own package that `test.sh` makes |
//! | `tests/config.json` | the source row: the record as its benchmark's own row |
//!
//! Which benchmark a record is graded as:
//!
//! - SWE-bench 5.x (a record with all of `image`, `eval_script`, `log_parser` and
//!   `eval_type`): the row's own image and eval script; graded by swebench 5.0.2's
//!   `make_test_spec` and `get_eval_report`;
//! - SWE-bench 4.x (Verified, Lite, full): SWE-bench's evaluation image of the instance
//!   (the record's `extensions.image_name` when it has one); the eval script made at run
//!   time by swebench 4.1.0's `make_test_spec`, graded by its `get_eval_report`;
//! - any other benchmark (SWE-smith, SWE-Perf, GSO, `MiniSandbox`, ...) is refused, with
//!   the reason: its own grader is not set up in the verifier by this export.
//!
//! Read back (`--from harbor -i DIR/`), a task folder this tool wrote is its source row:
//! `tests/config.json` is imported as the `swe-bench` format imports the row, so that
//! the canonical record is the one the row gives, and `--to swe-bench` writes the row
//! back. The other files are made from the row and are not read: one changed or added
//! since the folder was written is reported as dropped. A folder without
//! `tests/config.json`, or whose `task.toml` has no `[metadata.isobench]` (one another
//! tool wrote), is refused, with the file it lacks.

use std::sync::OnceLock;

use isobench_core::adapter::{ExportOptions, FolderLayout, without_nulls};
use isobench_core::contract::Contract;
use isobench_core::registry::AdapterRegistration;
use isobench_core::table::io::{Exporter, Importer};
use isobench_core::table::{Field, HookResult, Hooks, Table, TableAdapter};
use isobench_core::vocab::{self, Source};
use isobench_core::{CanonicalRecord, Notes, RecordError, ViewAdapter};
use serde_json::{Map, Value, json};

use crate::common::swe_bench_image;

const NAME: &str = "harbor";

/// The org of `[task].name` (`org/name`), Harbor's package name.
pub const DEFAULT_ORG: &str = "isobench";

/// The swebench release that grades a SWE-bench 4.x row (that of the specs table the
/// `swe-bench` format checks rows against).
pub const SWEBENCH_4: &str = "4.1.0";

/// The swebench release that grades a SWE-bench 5.x row (that of the 5.x values the
/// `swe-bench` format checks rows against).
pub const SWEBENCH_5: &str = "5.0.2";

/// Where an exported record's folder name is.
const NAME_POINTER: &str = "/task.toml/metadata/isobench/instance_id";

/// The files written with the run bit.
const EXECUTABLE: [&str; 2] = ["tests/test.sh", "solution/solve.sh"];

/// Harbor's task folder, as a table: a field per file, each written by the hook, as
/// every file is made from several fields of the record; read back, the hook reads the
/// source row (`tests/config.json`) only.
pub fn table() -> Table {
    let f = Field::new;
    Table::new(
        NAME,
        &["harbor-task", "task-folder"],
        "Harbor 0.26 task folders (`-o DIR/`): SWE-bench 4.x and 5.x records, graded by swebench's own harness; read back (`-i DIR/`) from the source row of the folders this tool wrote",
    )
    .consumer("harbor 0.26.0 task loader and `harbor lint`")
    .fields(vec![
        f("task.toml", "").hook(),
        f("instruction.md", "")
            .hook()
            .required()
            .consumer("harbor.models.task.task.Task: instruction.md, not empty (`harbor lint`)")
            .non_empty(),
        f("environment/Dockerfile", "").hook(),
        f("solution/solve.sh", "").hook(),
        f("solution/gold.patch", "").hook(),
        f("tests/test.sh", "").hook(),
        f("tests/grade.py", "").hook(),
        f("tests/config.json", "").hook(),
    ])
    // The hook reads these too (the source row holds them), so the conversion never holds
    // them outside the record.
    .carries_also(&[
        "patch",
        "extensions.problem_statement",
        "instance_id",
        "repo",
        "base_commit",
        "version",
        "created_at",
        "test_patch",
        "extensions.hints_text",
        "extensions.fail_to_pass",
        "extensions.pass_to_pass",
        "extensions.environment_setup_commit",
        "extensions.difficulty",
        "extensions.image_name",
        "extensions.eval_script",
        "extensions.log_parser",
        "extensions.eval_type",
        "extensions.upstream_version",
    ])
    .folder(FolderLayout {
        name: NAME_POINTER.to_owned(),
        executable: EXECUTABLE.iter().map(|&p| p.to_owned()).collect(),
    })
}

/// The benchmark whose own harness grades a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Benchmark {
    /// A SWE-bench 5.x row: everything as data.
    SweBench5,
    /// A SWE-bench 4.x row: the harness's spec table makes the eval script.
    SweBench4,
}

impl Benchmark {
    /// The benchmark `c` is graded as, or why it cannot be exported.
    fn of(c: &CanonicalRecord) -> Result<Self, RecordError> {
        let fields_5x = [
            vocab::IMAGE_NAME,
            vocab::EVAL_SCRIPT,
            vocab::LOG_PARSER,
            vocab::EVAL_TYPE,
        ];
        let format = Source::format_of(&c.extensions).unwrap_or("canonical");
        let refuse = |benchmark: &str, grader: &str| {
            Err(RecordError::invalid(
                "",
                format!(
                    "a {benchmark} record is not exported as a Harbor task: its verifier would have to run {grader}, which this export does not set up"
                ),
            )
            .with_hint(
                "Harbor task folders are written for SWE-bench 4.x and 5.x records (see `docs/task-folders.md`)",
            ))
        };
        match format {
            "swe-smith" => refuse(
                "SWE-smith",
                "swesmith's own harness on the task's mirror branch",
            ),
            "minisandbox" => refuse("MiniSandbox", "MiniSandbox's own harness"),
            "swe-perf" => refuse(
                "SWE-Perf",
                "SWE-Perf's repeated timing runs against the base commit",
            ),
            "gso" => refuse("GSO", "GSO's performance harness"),
            _ if fields_5x.iter().all(|k| c.ext_str(k).is_some()) => Ok(Self::SweBench5),
            _ if c.ext_str(vocab::MIRROR_REPO).is_some() => refuse(
                "SWE-smith",
                "swesmith's own harness on the task's mirror branch",
            ),
            _ => Ok(Self::SweBench4),
        }
    }

    /// The swebench release that grades it.
    fn swebench(self) -> &'static str {
        match self {
            Self::SweBench5 => SWEBENCH_5,
            Self::SweBench4 => SWEBENCH_4,
        }
    }

    /// What it is called in `[metadata.isobench]`.
    fn name(self) -> &'static str {
        match self {
            Self::SweBench5 => "swe-bench 5.x",
            Self::SweBench4 => "swe-bench 4.x",
        }
    }

    /// The benchmark a task folder's `task.toml` says it was written for, or why the
    /// folder is not one this tool wrote.
    fn written(task: Option<&Value>) -> Result<Self, RecordError> {
        let Some(task) = task else {
            return Err(
                RecordError::missing("/task.toml", "the task folder has no `task.toml`")
                    .with_hint(OTHER_TOOL_REMEDY),
            );
        };
        let Some(isobench) = task.pointer("/metadata/isobench") else {
            return Err(RecordError::missing(
                "/task.toml/metadata/isobench",
                "`task.toml` has no `[metadata.isobench]`: the task folder was not written by cargo-isobench, and only folders it wrote are read (their source row is what is read)",
            )
            .with_hint(OTHER_TOOL_REMEDY));
        };
        let benchmark = isobench.get("benchmark").and_then(Value::as_str);
        [Self::SweBench4, Self::SweBench5]
            .into_iter()
            .find(|b| Some(b.name()) == benchmark)
            .ok_or_else(|| {
                RecordError::invalid(
                    "/task.toml/metadata/isobench/benchmark",
                    format!(
                        "`[metadata.isobench].benchmark` is {}, and task folders are read for `swe-bench 4.x` and `swe-bench 5.x`",
                        benchmark.map_or_else(|| "missing".to_owned(), |b| format!("`{b}`"))
                    ),
                )
                .with_hint(REWRITE_REMEDY)
            })
    }
}

/// The file of a task folder that says what it is.
const TASK_TOML: &str = "task.toml";

/// The file of a task folder that holds its source row.
const CONFIG_JSON: &str = "tests/config.json";

/// [`CONFIG_JSON`] as a JSON pointer into the folder's record.
const CONFIG_POINTER: &str = "/tests~1config.json";

/// The format a task folder's source row is a record of.
const SWE_BENCH: &str = "swe-bench";

/// What to do with a task folder another tool wrote.
const OTHER_TOOL_REMEDY: &str = "convert the benchmark's own rows the folders were made from (`--from swe-bench -i ROWS.jsonl`), or write the folders with `--to harbor` from those rows and read those";

/// What to do with a task folder of this tool's that lost its source row.
const REWRITE_REMEDY: &str = "write the folder again from the rows it was made from (`--from swe-bench -i ROWS.jsonl --to harbor -o DIR/ --overwrite`), or convert those rows directly";

/// The SWE-bench adapter, which writes the source row.
fn swe_bench() -> &'static TableAdapter {
    static ADAPTER: OnceLock<TableAdapter> = OnceLock::new();
    ADAPTER.get_or_init(crate::swe_bench::adapter)
}

/// `c` as a SWE-bench row, refused as SWE-bench's own harness would refuse it.
fn swe_bench_row(c: &CanonicalRecord) -> Result<Map<String, Value>, RecordError> {
    let adapter = swe_bench();
    // What the row drops is no loss of the task folder's: its notes stay here.
    let row = adapter.export(c, &ExportOptions::default(), &mut Notes::new())?;
    let contract: &Contract = &adapter.info().contract;
    let unmet = contract.check(&row, &|_| None);
    if let Some(first) = unmet.first() {
        return Err(RecordError::invalid(
            first.requirement.pointer(),
            contract.refusal("swe-bench", &unmet),
        )
        .with_hint(Contract::remedy(&unmet)));
    }
    Ok(row)
}

/// Whether `name` is a name Harbor takes for a package (`[a-zA-Z0-9][a-zA-Z0-9._-]*`,
/// no `..`): the folder and the task are named after it.
fn is_package_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && !name.contains("..")
}

/// What the table cannot say: the task's configuration, its scripts and the source row.
#[derive(Debug)]
struct HarborHooks;

impl HarborHooks {
    /// Notes as dropped every file of the folder `from` reads that the folder written
    /// from `c`, its record, would not hold as it is (a file changed or added since the
    /// folder was written, a task named with another org than the default): only the
    /// source row is read.
    fn note_unread(&self, from: &mut Importer<'_, '_>, c: &CanonicalRecord) {
        let mut scratch = Notes::new();
        let mut to = Exporter::new(NAME, c, &mut scratch);
        let written = match self.export(c, &mut to) {
            Ok(()) => to.finish(),
            // A record that cannot be written as a task folder is refused as one when
            // it is: here, every file but the row is unread.
            Err(_) => Map::new(),
        };
        let changed: Vec<String> = from
            .keys()
            .filter(|key| *key != CONFIG_JSON)
            .filter(|key| written.get(*key).map(without_nulls) != from.peek(key).map(without_nulls))
            .map(str::to_owned)
            .collect();
        for file in changed {
            let detail = if written.contains_key(&file) {
                "differs from what the source row (`tests/config.json`) gives, and the row is what is read: the change is not kept"
            } else {
                "is not a file of the task folder written from the source row (`tests/config.json`), which is what is read: it is not kept"
            };
            from.notes.dropped(&file, detail);
        }
    }
}

impl Hooks for HarborHooks {
    fn import(&self, from: &mut Importer<'_, '_>, c: &mut CanonicalRecord) -> HookResult {
        Benchmark::written(from.peek(TASK_TOML))?;
        let row = match from.peek(CONFIG_JSON) {
            Some(Value::Object(row)) => row.clone(),
            Some(_) => {
                return Err(RecordError::invalid(
                    CONFIG_POINTER,
                    "`tests/config.json` is not a JSON object, and it holds the task's source row",
                )
                .with_hint(REWRITE_REMEDY));
            }
            None => {
                return Err(RecordError::missing(
                    CONFIG_POINTER,
                    "the task folder has no `tests/config.json`: a task folder is read from the source row cargo-isobench writes there, and this one has none (another tool wrote it, or the file was removed)",
                )
                .with_hint(REWRITE_REMEDY));
            }
        };
        // The row as the `swe-bench` format reads it, with its source block: the
        // folder's other files are made from the row, and the record is written back
        // as the row would be.
        let imported = swe_bench()
            .import(row, from.notes)
            .map_err(|e| RecordError {
                pointer: format!("{CONFIG_POINTER}{}", e.pointer),
                message: format!("the source row `tests/config.json`: {}", e.message),
                ..e
            })?;
        let source = Source::of_format(&imported.extensions, SWE_BENCH)
            .expect("a record the swe-bench format imports says it came from it");
        *c = imported;
        self.note_unread(from, c);
        from.read_as(source);
        Ok(())
    }

    fn export(&self, c: &CanonicalRecord, to: &mut Exporter<'_, '_, '_>) -> HookResult {
        let benchmark = Benchmark::of(c)?;
        let id = c.instance_id.as_deref().ok_or_else(|| {
            RecordError::missing(
                "/instance_id",
                "a task folder is named after the record's `instance_id`, which it lacks",
            )
        })?;
        if !is_package_name(id) {
            return Err(RecordError::invalid(
                "/instance_id",
                format!(
                    "`instance_id` {id:?} cannot name a Harbor task: its folder and `[task].name` take letters, digits, `.`, `_` and `-`, starting with a letter or digit, without `..`"
                ),
            )
            .with_hint("`--replace instance_id=NAME` gives the record another"));
        }
        let row = swe_bench_row(c)?;
        let image = match benchmark {
            Benchmark::SweBench5 => c.ext_str(vocab::IMAGE_NAME).map(str::to_owned),
            Benchmark::SweBench4 => c
                .ext_str(vocab::IMAGE_NAME)
                .map(str::to_owned)
                .or_else(|| swe_bench_image(c))
                .or_else(|| Some(sweb_eval_image(id))),
        };
        let source_format = Source::format_of(&c.extensions).unwrap_or("canonical");
        let mut isobench = Map::new();
        isobench.insert("instance_id".into(), id.into());
        isobench.insert("source_format".into(), source_format.into());
        isobench.insert("benchmark".into(), benchmark.name().into());
        isobench.insert(
            "grader".into(),
            format!("swebench=={}", benchmark.swebench()).into(),
        );
        isobench.insert(
            "tool".into(),
            concat!("cargo-isobench ", env!("CARGO_PKG_VERSION")).into(),
        );
        let task = json!({
            "schema_version": "1.4",
            "artifacts": ["/testbed"],
            "task": { "name": format!("{}/{id}", to.options.task_org.as_deref().unwrap_or(DEFAULT_ORG)) },
            "metadata": { "isobench": isobench },
            "verifier": { "environment_mode": "separate", "timeout_sec": 3600.0 },
            "agent": { "timeout_sec": 3600.0 },
            "environment": { "docker_image": image },
        });
        to.put("task.toml", task);
        to.put_some(
            "instruction.md",
            c.ext_str(vocab::PROBLEM_STATEMENT).map(Value::from),
        );
        to.put("solution/solve.sh", SOLVE_SH);
        to.put_some("solution/gold.patch", c.patch.as_deref().map(Value::from));
        to.put("tests/test.sh", test_sh(benchmark.swebench()));
        to.put("tests/grade.py", GRADE_PY);
        to.put("tests/config.json", Value::Object(row));
        Ok(())
    }
}

/// SWE-bench's evaluation image of `instance_id` by its key rule, for a record that did
/// not come from SWE-bench (`swebench.harness.test_spec.TestSpec.instance_image_key`).
fn sweb_eval_image(instance_id: &str) -> String {
    let key = instance_id.to_lowercase().replace("__", "_1776_");
    format!("swebench/sweb.eval.x86_64.{key}:latest")
}

/// The solution: the gold patch applied in `/testbed`.
const SOLVE_SH: &str = "#!/bin/bash
# The reference solution: the record's gold patch, applied to the repository.
set -euo pipefail
cd /testbed
git apply --verbose /solution/gold.patch
";

/// The verifier for swebench `version`: the benchmark's own eval script and grading,
/// a reward written whatever happens.
fn test_sh(version: &str) -> String {
    format!(
        r#"#!/bin/bash
# Grades the task with SWE-bench's own harness, swebench=={version}: its eval script
# runs the tests in /testbed (restored from the agent's environment), its log parser
# and report say whether they pass. /logs/verifier/reward.json is always written:
# reward 0 when anything fails before the grade.
set -uo pipefail
mkdir -p /logs/verifier
reward=/logs/verifier/reward.json
rm -f "$reward"
trap '[ -s "$reward" ] || printf "{{\"reward\": 0, \"fail_to_pass\": 0.0, \"pass_to_pass\": 0.0}}\n" > "$reward"' EXIT
python=python3
if [ -x /opt/miniconda3/bin/python3 ]; then python=/opt/miniconda3/bin/python3; fi
grader=/tmp/isobench-grader
"$python" -m venv "$grader" || exit 0
"$grader/bin/python" -m pip install --quiet swebench=={version} || exit 0
"$grader/bin/python" /tests/grade.py script /tests/config.json > /tmp/isobench-eval.sh || exit 0
bash /tmp/isobench-eval.sh > /logs/verifier/test_output.log 2>&1
"$grader/bin/python" /tests/grade.py grade /tests/config.json /logs/verifier/test_output.log "$reward"
"#
    )
}

/// The calls into swebench that `test.sh` makes: the eval script of the row, and the
/// grade of a test log.
const GRADE_PY: &str = r#""""Calls into SWE-bench's own harness for a Harbor verifier.

    grade.py script CONFIG          prints the row's eval script
    grade.py grade CONFIG LOG OUT   writes the reward of the test log LOG to OUT

CONFIG is the SWE-bench row. The reward is 1 when swebench's report says the instance
is resolved, else 0; fail_to_pass and pass_to_pass are swebench's own fractions (0 when
the log holds no test output)."""

import json
import sys

try:  # swebench 5.x
    from swebench.harness.utils import make_test_spec
except ImportError:  # swebench 4.x
    from swebench.harness.test_spec.test_spec import make_test_spec
from swebench.harness.grading import (
    compute_fail_to_pass,
    compute_pass_to_pass,
    get_eval_report,
)


def main(argv):
    with open(argv[2]) as f:
        row = json.load(f)
    spec = make_test_spec(row)
    if argv[1] == "script":
        sys.stdout.write(spec.eval_script)
        return
    log, out = argv[3], argv[4]
    prediction = {
        "instance_id": row["instance_id"],
        "model_name_or_path": "harbor-agent",
        "model_patch": "",
    }
    report = get_eval_report(spec, prediction, log, include_tests_status=True)
    report = report[row["instance_id"]]
    status = report.get("tests_status")
    reward = {
        "reward": 1 if report["resolved"] else 0,
        "fail_to_pass": compute_fail_to_pass(status) if status else 0.0,
        "pass_to_pass": compute_pass_to_pass(status) if status else 0.0,
    }
    with open(out, "w") as f:
        json.dump(reward, f)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv)
"#;

/// The Harbor adapter.
pub fn adapter() -> TableAdapter {
    TableAdapter::new(table(), HarborHooks).expect("Harbor's table is valid")
}

inventory::submit! {
    AdapterRegistration { make: || adapter().into() }
}
