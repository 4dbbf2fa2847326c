//! GSO (`gso-bench/gso`): exactly the 15 keys GSO's loader accepts (`docs/formats.md` §2).
//!
//! GSO builds each row with `GSOInstance(**row)`, a dataclass: an unknown key or a missing
//! one (other than `arch` and `instance_image_tag`) raises. So the view writes exactly
//! those keys, and every key but those two is required on import and on export.
//!
//! How the fields map:
//!
//! * `opt_commit` is canonical `head_commit`; `api` is canonical `api`; `tests` (whole
//!   Python scripts printing `Execution time: <s>s`) is canonical `efficiency_test`, with
//!   `extensions.efficiency_test_kind = "python_script"`.
//! * `base_commit` may be `<opt_commit>^` (no explicit base). Canonical `base_commit`
//!   holds a commit, not an unresolved parent reference, so that form is kept in
//!   `extensions.base_commit_unresolved` and canonical `base_commit` is left out.
//! * `hints_text` is a copy of `gt_commit_message` in GSO: when the two are equal only
//!   canonical `gt_commit_message` is kept; a different `hints_text` goes to
//!   `extensions.hints_text`. Export writes `extensions.hints_text` if present, else the
//!   commit message (GSO's convention, a `derived` note).
//! * `gt_diff` is split into canonical `patch`/`test_patch` with the default test-file
//!   rules and kept whole in `extensions.gt_diff`. Export writes the kept diff while
//!   its split still equals the record's `patch`/`test_patch`, else `patch` followed by
//!   `test_patch` (a `derived` note).
//! * `created_at` is the committer's local time without a zone: canonical keeps the
//!   wall-clock time and invents no zone; export writes `YYYY-MM-DD HH:MM:SS` (a UTC time
//!   as its UTC wall clock, with a warning).
//! * GSO has no `version`: when the Python version can be read from the install commands
//!   (e.g. `uv venv --python 3.9`), canonical `version` is the environment signature
//!   `python==<v>;arch=<arch>;image=<tag>;install_sha=<8 hex>`, with `install_sha` the
//!   first 8 hex digits of the SHA-256 of the install commands joined by `\n`, and GSO's
//!   defaults (`x86_64`, `latest`) for an absent `arch` or `instance_image_tag`.
//! * `prob_script`, `arch` and `instance_image_tag` live in `extensions`. `prob_script` is
//!   never derived: GSO makes it from `tests[0]` with Python's `ast.unparse`, which cannot
//!   be reproduced faithfully here. `arch` and `instance_image_tag` are written only when
//!   present (leaving them out keeps GSO's defaults).

use isobench_core::codec;
use isobench_core::contract::{Kind, Requirement};
use isobench_core::registry::AdapterRegistration;
use isobench_core::table::io::{Exporter, Importer};
use isobench_core::table::{
    Field, FieldType, HookResult, Hooks, ListEncoding, Table, TableAdapter,
};
use isobench_core::testfiles::{self, TestFileRules};
use isobench_core::timestamp::{self, Timestamp};
use isobench_core::vocab;
use isobench_core::{CanonicalRecord, Notes, RecordError};
use serde_json::Value;

const NAME: &str = "gso";

/// GSO's dataclass defaults for the two optional keys.
const DEFAULT_ARCH: &str = "x86_64";
const DEFAULT_IMAGE_TAG: &str = "latest";

/// The rule behind the split of `gt_diff`.
const SPLIT_RULE: &str = "split from GSO's `gt_diff` by the default test-file rules (a `tests/` path component, `test_*.py`, `*_test.py`); the whole diff is kept in `extensions.gt_diff`";

const INSTANCE: &str = "gso.data.dataset.GSOInstance";

/// The keys `GSOInstance` accepts, in the dataclass's (and the card's) order: every key
/// but `arch` and `instance_image_tag` is required, and no other key is
/// accepted.
pub fn table() -> Table {
    let f = Field::new;
    Table::new(
        NAME,
        &["gso-bench"],
        "GSO instances (exactly the 15 keys of GSO's `GSOInstance`; `tests` are Python scripts)",
    )
    .consumer("gsobench harness")
    .closed()
    .fields(vec![
        f("instance_id", "instance_id").required().consumer(INSTANCE).non_empty(),
        f("repo", "repo").required().consumer(INSTANCE).non_empty(),
        // `<opt_commit>^` is kept in `extensions.base_commit_unresolved`.
        f("base_commit", "base_commit")
            .required()
            .hook()
            .consumer("GSOInstance; install_repo_script")
            .non_empty(),
        f("opt_commit", "head_commit")
            .required()
            .consumer("GSOInstance; reset_repo_commands")
            .non_empty()
            .remedy("`--repos DIR` (a SWE-bench record's merge commit, found from its pull-request number)"),
        f("api", "api").required().consumer(INSTANCE),
        // Never derived: GSO makes it from `tests[0]` with Python's `ast.unparse`.
        f("prob_script", "extensions.prob_script").required().consumer(
            "GSOInstance (GSO makes it from `tests[0]` with Python's `ast.unparse`, which cannot be reproduced here)",
        ),
        // Whole Python scripts, never pytest node ids.
        f("tests", "efficiency_test")
            .list(ListEncoding::Array)
            .required()
            .hook()
            .consumer("gso.harness.grading.metrics.parse_times")
            .non_empty(),
        // A copy of `gt_commit_message`, kept only when it differs.
        f("hints_text", "extensions.hints_text").required().hook().consumer(INSTANCE),
        f("setup_commands", "setup_commands")
            .list(ListEncoding::Array)
            .required()
            .consumer(INSTANCE),
        f("install_commands", "install_commands")
            .list(ListEncoding::Array)
            .required()
            .consumer("GSOInstance.install_repo_script"),
        // The committer's local time, `YYYY-MM-DD HH:MM:SS`.
        f("created_at", "created_at")
            .kind(FieldType::Timestamp)
            .required()
            .hook()
            .consumer(INSTANCE),
        f("gt_commit_message", "gt_commit_message")
            .required()
            .hook()
            .consumer(INSTANCE),
        // Split into `patch`/`test_patch` by the default test-file rules, kept whole.
        f("gt_diff", "extensions.gt_diff").required().hook(),
        f("arch", "extensions.arch"),
        f("instance_image_tag", "extensions.instance_image_tag"),
    ])
    .requires(vec![
        Requirement::new(
            "gt_diff",
            Kind::String,
            "patch",
            "GSOInstance; the expert diff the harness applies",
        )
        .non_empty(),
    ])
    .fills_also(&[
        "patch",
        "test_patch",
        "version",
        "extensions.base_commit_unresolved",
        "extensions.efficiency_test_kind",
    ])
    // `version`: a signature derived from GSO's own fields is made again, anything else
    // is noted as dropped by the hooks.
    .carries_also(&[
        "patch",
        "test_patch",
        "version",
        "extensions.base_commit_unresolved",
        "extensions.efficiency_test_kind",
    ])
}

/// What GSO's table cannot say: `^` commits, `hints_text` as a copy, the split of
/// `gt_diff`, the timestamp style, `tests` as scripts, the environment signature, and
/// the warning for keys GSO's loader rejects.
#[derive(Debug)]
struct GsoHooks {
    /// The table's keys.
    keys: Vec<String>,
}

impl Hooks for GsoHooks {
    fn import(&self, r: &mut Importer<'_, '_>, c: &mut CanonicalRecord) -> HookResult {
        let unknown: Vec<String> = r
            .keys()
            .filter(|k| !self.keys.iter().any(|known| known == k))
            .map(str::to_owned)
            .collect();
        for key in unknown {
            let detail = format!(
                "`{key}` is not a GSO key (GSO's loader rejects it): kept in `extensions.source.extra`, and left out when written as GSO"
            );
            r.notes.warn(key, detail);
        }
        let base = r.required_string("base_commit")?;
        if base.ends_with('^') {
            let detail = format!(
                "GSO gives `{base}`, the parent of a commit, not a commit id; kept in `extensions.base_commit_unresolved` (resolve it with the repository: `git rev-parse {base}`)"
            );
            r.notes.warn("base_commit", detail);
            c.set_ext(vocab::BASE_COMMIT_UNRESOLVED, base);
        } else {
            c.base_commit = Some(base);
        }
        let tests = r.required_list("tests")?;
        if tests.is_empty() {
            return Err(RecordError::invalid(
                "/tests",
                "is empty: a GSO instance has at least one performance-test script",
            ));
        }
        c.efficiency_test = Some(tests);
        c.set_ext(vocab::EFFICIENCY_TEST_KIND, "python_script");
        let hints = r.required_string("hints_text")?;
        c.created_at = r.timestamp("created_at", render_created_at)?;
        let message = r.required_string("gt_commit_message")?;
        if hints != message {
            c.set_ext(vocab::HINTS_TEXT, hints);
        }
        c.gt_commit_message = Some(message);
        let diff = r.required_string("gt_diff")?;
        split_gt_diff(r.notes, c, &diff);
        c.set_ext(vocab::GT_DIFF, diff);
        match env_signature(c) {
            Some((signature, rule)) => {
                c.version = Some(signature);
                r.notes.derived("version", rule);
            }
            None => r.notes.warn(
                "version",
                "GSO has no version, and no Python version can be read from `install_commands` to derive the environment signature",
            ),
        }
        Ok(())
    }

    fn export(&self, c: &CanonicalRecord, w: &mut Exporter<'_, '_, '_>) -> HookResult {
        check_tests_are_scripts(c)?;
        // A signature derived from GSO's own fields is not lost.
        if c.version.is_some() && c.version != env_signature(c).map(|(signature, _)| signature) {
            w.notes
                .dropped("version", format!("{NAME} has no field for it"));
        }
        let base = c
            .base_commit
            .as_deref()
            .or_else(|| c.ext_str(vocab::BASE_COMMIT_UNRESOLVED));
        w.string("base_commit", base);
        w.list(
            "tests",
            c.efficiency_test.clone(),
            ListEncoding::Array.into(),
        );
        export_hints(w);
        export_created_at(w);
        w.string("gt_commit_message", c.gt_commit_message.as_deref());
        export_gt_diff(w);
        Ok(())
    }
}

/// The GSO adapter.
pub fn adapter() -> TableAdapter {
    let table = table();
    let keys = table.fields.iter().map(|f| f.key.clone()).collect();
    TableAdapter::new(table, GsoHooks { keys }).expect("GSO's table is valid")
}

inventory::submit! {
    AdapterRegistration { make: || adapter().into() }
}

// ---------------------------------------------------------------- import

/// Splits `gt_diff` into canonical `patch`/`test_patch` by the default test-file rules.
fn split_gt_diff(notes: &mut Notes, c: &mut CanonicalRecord, diff: &str) {
    match testfiles::split_patch(diff, &TestFileRules::seed_default()) {
        Ok(split) => {
            const SHOWN: usize = 5;
            let tests: Vec<String> = split
                .classified
                .iter()
                .filter_map(|(path, rule)| Some(format!("`{path}` ({})", rule.as_deref()?)))
                .collect();
            let which = match tests.len() {
                0 => "no test file".to_owned(),
                n if n <= SHOWN => format!("test files: {}", tests.join(", ")),
                n => format!(
                    "test files: {} and {} more",
                    tests[..SHOWN].join(", "),
                    n - SHOWN
                ),
            };
            let rule = format!("{SPLIT_RULE}; {which}");
            c.patch = Some(split.patch);
            c.test_patch = Some(split.test_patch);
            notes.derived("patch", rule.clone());
            notes.derived("test_patch", rule);
        }
        Err(error) => {
            let detail = format!(
                "`gt_diff` could not be split into files ({error}); it is kept whole in `extensions.gt_diff`"
            );
            notes.warn("gt_diff", detail);
        }
    }
}

/// The Python version an install command sets up: `--python 3.9`, `--python=3.9`,
/// `-p 3.9` (of a `venv`/`virtualenv` command), `python=3.9` (conda), or an interpreter
/// named `python3.9`.
fn python_version(command: &str) -> Option<String> {
    fn version(text: &str) -> Option<String> {
        let text = text.strip_prefix("python").unwrap_or(text);
        let valid = !text.is_empty()
            && text.split('.').count() <= 3
            && text
                .split('.')
                .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()));
        valid.then(|| text.to_owned())
    }
    let is_venv = command.contains("venv");
    let words: Vec<&str> = command.split_whitespace().collect();
    for (i, word) in words.iter().enumerate() {
        let next = words.get(i + 1).copied();
        let found = match *word {
            "--python" => next.and_then(version),
            "-p" if is_venv => next.and_then(version),
            _ => word
                .strip_prefix("--python=")
                .or_else(|| word.strip_prefix("python=="))
                .or_else(|| word.strip_prefix("python="))
                .and_then(version)
                .or_else(|| {
                    word.strip_prefix("python")
                        .filter(|v| v.contains('.'))
                        .and_then(version)
                }),
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

/// The environment signature and the rule that made it, when the Python
/// version can be read from the install commands.
fn env_signature(c: &CanonicalRecord) -> Option<(String, String)> {
    let install = c.install_commands.as_ref()?;
    let (command, python) = install
        .iter()
        .find_map(|command| python_version(command).map(|v| (command, v)))?;
    let arch = c.ext_str(vocab::ARCH);
    let tag = c.ext_str(vocab::INSTANCE_IMAGE_TAG);
    let signature = isobench_core::envsig::environment_signature(
        &python,
        arch.unwrap_or(DEFAULT_ARCH),
        tag.unwrap_or(DEFAULT_IMAGE_TAG),
        install,
    );
    let mut defaults = Vec::new();
    if arch.is_none() {
        defaults.push(format!("arch = GSO's default `{DEFAULT_ARCH}`"));
    }
    if tag.is_none() {
        defaults.push(format!("image = GSO's default tag `{DEFAULT_IMAGE_TAG}`"));
    }
    let defaults = if defaults.is_empty() {
        String::new()
    } else {
        format!("; {}", defaults.join(", "))
    };
    let rule = format!(
        "environment signature `python==<v>;arch=<arch>;image=<instance_image_tag>;install_sha=<first 8 hex of sha256 of install_commands joined by \"\\n\">`, python {python} read from `{}`{defaults}",
        codec::shorten(command, 60)
    );
    Some((signature, rule))
}

// ---------------------------------------------------------------- export

/// Whether a test looks like a pytest node id (`path/to/test_x.py::test_y`) rather than
/// a script.
fn looks_like_nodeid(test: &str) -> bool {
    !test.contains(char::is_whitespace)
        && test.split_once("::").is_some_and(|(path, name)| {
            let extension = std::path::Path::new(path).extension();
            extension.is_some_and(|e| e.eq_ignore_ascii_case("py")) && !name.is_empty()
        })
}

/// GSO's `tests` are whole Python scripts: a record holding pytest node ids cannot be
/// carried, whatever else it has.
fn check_tests_are_scripts(c: &CanonicalRecord) -> Result<(), RecordError> {
    let nodeids = c.ext_str(vocab::EFFICIENCY_TEST_KIND) == Some("pytest_nodeid")
        || c.efficiency_test
            .as_ref()
            .is_some_and(|tests| tests.iter().any(|t| looks_like_nodeid(t)));
    if !nodeids {
        return Ok(());
    }
    Err(RecordError::cannot_carry(
        "/efficiency_test",
        "GSO `tests` are Python scripts, the record holds pytest node ids",
    )
    .with_hint("GSO runs each test as a whole Python script timing itself (`Execution time: <s>s`); pytest node ids cannot run there"))
}

fn export_hints(w: &mut Exporter<'_, '_, '_>) {
    let c = w.record;
    if let Some(hints) = c.ext_str(vocab::HINTS_TEXT) {
        w.put("hints_text", hints);
        return;
    }
    let Some(message) = c.gt_commit_message.as_deref() else {
        return;
    };
    w.put("hints_text", message);
    if !w.same_format() {
        w.notes.derived(
            "hints_text",
            "GSO's convention: `hints_text` is a copy of `gt_commit_message` (the full commit message)",
        );
    }
}

/// `YYYY-MM-DD HH:MM:SS`, the source's own text when it still denotes the record's time.
fn export_created_at(w: &mut Exporter<'_, '_, '_>) {
    let Some(created_at) = w.record.created_at.as_deref() else {
        return;
    };
    let restored = matches!(w.raw("created_at"), Some(Value::String(raw)) if timestamp::normalize(raw).0 == created_at);
    if !restored {
        match Timestamp::parse(created_at) {
            Some(ts) if ts.utc => w.notes.warn(
                "created_at",
                "written as its UTC wall clock: GSO's `created_at` has no zone (its own rows hold the committer's local time)",
            ),
            Some(_) => {}
            None => w.notes.warn(
                "created_at",
                format!(
                    "`{}` is not a date-time; written verbatim although GSO writes `YYYY-MM-DD HH:MM:SS`",
                    codec::shorten(created_at, 40)
                ),
            ),
        }
        if Timestamp::parse(created_at).is_some() && created_at.get(19..20) == Some(".") {
            w.notes.warn(
                "created_at",
                "fractional seconds dropped: GSO writes whole seconds",
            );
        }
    }
    w.timestamp("created_at", Some(created_at), render_created_at);
}

/// GSO's `created_at` form, `YYYY-MM-DD HH:MM:SS`, of a canonical timestamp (a value that
/// is not a timestamp stays as it is).
fn render_created_at(value: &str) -> String {
    Timestamp::parse(value).map_or_else(|| value.to_owned(), |ts| ts.to_space_separated())
}

/// Concatenates two diffs, making sure the first ends with a newline.
fn join_diffs(patch: &str, test_patch: &str) -> String {
    let mut out = String::with_capacity(patch.len() + test_patch.len() + 1);
    out.push_str(patch);
    if !out.is_empty() && !out.ends_with('\n') && !test_patch.is_empty() {
        out.push('\n');
    }
    out.push_str(test_patch);
    out
}

/// The kept `gt_diff` while its split equals the record's `patch`/`test_patch`; else
/// `patch` followed by `test_patch`.
fn export_gt_diff(w: &mut Exporter<'_, '_, '_>) {
    let c = w.record;
    let kept = c.ext_str(vocab::GT_DIFF);
    if let Some(diff) = kept {
        let consistent = match testfiles::split_patch(diff, &TestFileRules::seed_default()) {
            Ok(split) => {
                c.patch.as_ref().is_none_or(|p| *p == split.patch)
                    && c.test_patch.as_ref().is_none_or(|t| *t == split.test_patch)
            }
            Err(_) => c.patch.is_none() && c.test_patch.is_none(),
        };
        if consistent || c.patch.is_none() {
            if !consistent {
                w.notes.warn(
                    "gt_diff",
                    "`extensions.gt_diff` written although `test_patch` no longer matches it: the record has no `patch` to rebuild the diff from",
                );
            }
            w.put("gt_diff", diff);
            return;
        }
    }
    let Some(patch) = c.patch.as_deref() else {
        return;
    };
    let test_patch = c.test_patch.as_deref().unwrap_or_default();
    w.put("gt_diff", join_diffs(patch, test_patch));
    w.notes.derived(
        "gt_diff",
        if kept.is_some() {
            "`patch` followed by `test_patch`: the kept `extensions.gt_diff` no longer splits into the record's `patch`/`test_patch` (file order may differ from `git diff`)"
        } else {
            "`patch` followed by `test_patch` (GSO's `gt_diff` is the whole commit diff; file order may differ from `git diff`)"
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_versions_are_read_from_common_install_commands() {
        for (command, expected) in [
            ("uv venv --python 3.9", Some("3.9")),
            ("uv venv --python=3.11.4", Some("3.11.4")),
            ("virtualenv -p python3.8 .venv", Some("3.8")),
            ("conda create -y -n env python=3.10", Some("3.10")),
            ("python3.12 -m venv .venv", Some("3.12")),
            ("uv pip install -e .", None),
            ("pip install python-dateutil", None),
            ("tar -p 3.9", None),
        ] {
            assert_eq!(python_version(command).as_deref(), expected, "{command}");
        }
    }

    #[test]
    fn node_ids_and_scripts_are_told_apart() {
        assert!(looks_like_nodeid("tests/test_x.py::test_y"));
        assert!(looks_like_nodeid("tests/test_x.py::TestA::test_y[1-2]"));
        assert!(!looks_like_nodeid(
            "import numpy as np\nx = np.arange(10)[::2]\n"
        ));
        assert!(!looks_like_nodeid("x[::2]"));
    }

    #[test]
    fn diffs_join_on_a_line_boundary() {
        assert_eq!(join_diffs("a\n", "b\n"), "a\nb\n");
        assert_eq!(join_diffs("a", "b\n"), "a\nb\n");
        assert_eq!(join_diffs("", "b\n"), "b\n");
        assert_eq!(join_diffs("a", ""), "a");
    }
}
