//! GSO (`gso-bench/gso`): exactly the 15 keys GSO's loader accepts (`docs/formats.md` §2).
//!
//! GSO builds each row with `GSOInstance(**row)`, a dataclass: an unknown key or a missing
//! one (other than `arch` and `instance_image_tag`) raises. So the view writes exactly
//! those keys, and every key but those two is required on import and on export (D11, D12).
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
//! * `gt_diff` is split into canonical `patch`/`test_patch` with the seed's test-file
//!   rules (D8) and kept whole in `extensions.gt_diff`. Export writes the kept diff while
//!   its split still equals the record's `patch`/`test_patch`, else `patch` followed by
//!   `test_patch` (a `derived` note).
//! * `created_at` is the committer's local time without a zone: canonical keeps the
//!   wall-clock time and invents no zone; export writes `YYYY-MM-DD HH:MM:SS` (a UTC time
//!   as its UTC wall clock, with a warning).
//! * GSO has no `version`: when the Python version can be read from the install commands
//!   (e.g. `uv venv --python 3.9`), canonical `version` is the seed's environment signature
//!   (D6), `python==<v>;arch=<arch>;image=<tag>;install_sha=<8 hex>`, with `install_sha` the
//!   first 8 hex digits of the SHA-256 of the install commands joined by `\n`, and GSO's
//!   defaults (`x86_64`, `latest`) for an absent `arch` or `instance_image_tag`.
//! * `prob_script`, `arch` and `instance_image_tag` live in `extensions`. `prob_script` is
//!   never derived: GSO makes it from `tests[0]` with Python's `ast.unparse`, which cannot
//!   be reproduced faithfully here. `arch` and `instance_image_tag` are written only when
//!   present (leaving them out keeps GSO's defaults).

use std::sync::OnceLock;

use isobench_core::adapter::{AdapterInfo, AdapterRegistration, ExportOptions, ViewAdapter};
use isobench_core::codec::{self, Encoding};
use isobench_core::contract::{Contract, Kind, Requirement};
use isobench_core::testfiles::{self, TestFileRules};
use isobench_core::timestamp::{self, Timestamp};
use isobench_core::vocab;
use isobench_core::{CanonicalRecord, Notes, RecordError};
use serde_json::{Map, Value};

use crate::common::{Exporter, Importer, schema_with_contract};

const NAME: &str = "gso";

/// The keys `GSOInstance` accepts, in the dataclass's (and the card's) order.
const KEYS: [&str; 15] = [
    "instance_id",
    "repo",
    "base_commit",
    "opt_commit",
    "api",
    "prob_script",
    "tests",
    "hints_text",
    "setup_commands",
    "install_commands",
    "created_at",
    "gt_commit_message",
    "gt_diff",
    "arch",
    "instance_image_tag",
];

/// GSO's dataclass defaults for the two optional keys.
const DEFAULT_ARCH: &str = "x86_64";
const DEFAULT_IMAGE_TAG: &str = "latest";

/// The rule behind the split of `gt_diff`.
const SPLIT_RULE: &str = "split from GSO's `gt_diff` by the seed's test-file rules (D8: a `tests/` path component, `test_*.py`, `*_test.py`); the whole diff is kept in `extensions.gt_diff`";

/// The GSO adapter.
#[derive(Debug)]
pub struct Gso {
    info: AdapterInfo,
}

impl Default for Gso {
    fn default() -> Self {
        Self {
            info: AdapterInfo::new(
                NAME,
                &["gso-bench"],
                "GSO instances (exactly the 15 keys of GSO's `GSOInstance`; `tests` are Python scripts)",
            )
            .fills(&[
                "repo",
                "instance_id",
                "created_at",
                "base_commit",
                "head_commit",
                "patch",
                "test_patch",
                "efficiency_test",
                "version",
                "setup_commands",
                "install_commands",
                "api",
                "gt_commit_message",
                "extensions.prob_script",
                "extensions.hints_text",
                "extensions.gt_diff",
                "extensions.arch",
                "extensions.instance_image_tag",
                "extensions.base_commit_unresolved",
                "extensions.efficiency_test_kind",
            ])
            .contract(contract())
            .carries(&[
                "repo",
                "instance_id",
                "created_at",
                "base_commit",
                "head_commit",
                "patch",
                "test_patch",
                "efficiency_test",
                "setup_commands",
                "install_commands",
                "api",
                "gt_commit_message",
                "extensions.prob_script",
                "extensions.hints_text",
                "extensions.gt_diff",
                "extensions.arch",
                "extensions.instance_image_tag",
                "extensions.base_commit_unresolved",
                "extensions.efficiency_test_kind",
            ]),
        }
    }
}

impl ViewAdapter for Gso {
    fn info(&self) -> &AdapterInfo {
        &self.info
    }

    fn schema(&self) -> &Value {
        static SCHEMA: OnceLock<Value> = OnceLock::new();
        SCHEMA.get_or_init(|| {
            schema_with_contract(
                include_str!("../schemas/gso.schema.json"),
                &self.info.contract,
            )
        })
    }

    fn import(
        &self,
        record: Map<String, Value>,
        notes: &mut Notes,
    ) -> Result<CanonicalRecord, RecordError> {
        for key in record.keys().filter(|k| !KEYS.contains(&k.as_str())) {
            notes.warn(
                key.clone(),
                format!("`{key}` is not a GSO key (GSO's loader rejects it); kept verbatim for the round trip"),
            );
        }
        let mut r = Importer::new(NAME, record, notes);
        let mut c = CanonicalRecord {
            instance_id: Some(r.required_string("instance_id")?),
            repo: Some(r.required_string("repo")?),
            ..CanonicalRecord::default()
        };
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
        c.head_commit = Some(r.required_string("opt_commit")?);
        c.api = Some(r.required_string("api")?);
        let prob_script = r.required_string("prob_script")?;
        c.set_ext(vocab::PROB_SCRIPT, prob_script);
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
        c.setup_commands = Some(r.required_list("setup_commands")?);
        c.install_commands = Some(r.required_list("install_commands")?);
        if !r.has("created_at") {
            return Err(r.missing("created_at"));
        }
        c.created_at = r.timestamp("created_at", render_created_at)?;
        let message = r.required_string("gt_commit_message")?;
        if hints != message {
            c.set_ext(vocab::HINTS_TEXT, hints);
        }
        c.gt_commit_message = Some(message);
        let diff = r.required_string("gt_diff")?;
        split_gt_diff(r.notes, &mut c, &diff);
        c.set_ext(vocab::GT_DIFF, diff);
        for (key, ext) in [
            ("arch", vocab::ARCH),
            ("instance_image_tag", vocab::INSTANCE_IMAGE_TAG),
        ] {
            if let Some(value) = r.string(key)? {
                c.set_ext(ext, value);
            }
        }
        match env_signature(&c) {
            Some((signature, rule)) => {
                c.version = Some(signature);
                r.notes.derived("version", rule);
            }
            None => r.notes.warn(
                "version",
                "GSO has no version, and no Python version can be read from `install_commands` to derive the environment signature (D6)",
            ),
        }
        r.finish(&mut c);
        Ok(c)
    }

    fn export(
        &self,
        c: &CanonicalRecord,
        _options: &ExportOptions,
        notes: &mut Notes,
    ) -> Result<Map<String, Value>, RecordError> {
        check_tests_are_scripts(c)?;
        let derived_version = env_signature(c).map(|(signature, _)| signature);
        for field in self.info.dropped_from(c) {
            // A signature derived from GSO's own fields is not lost.
            if field == "version" && c.version == derived_version {
                continue;
            }
            notes.dropped(field, format!("{NAME} has no field for it"));
        }
        let mut w = Exporter::new(NAME, c, notes);
        w.string("instance_id", c.instance_id.as_deref());
        w.string("repo", c.repo.as_deref());
        let base = c
            .base_commit
            .as_deref()
            .or_else(|| c.ext_str(vocab::BASE_COMMIT_UNRESOLVED));
        w.string("base_commit", base);
        w.string("opt_commit", c.head_commit.as_deref());
        w.string("api", c.api.as_deref());
        w.string("prob_script", c.ext_str(vocab::PROB_SCRIPT));
        w.list("tests", c.efficiency_test.clone(), Encoding::Native);
        export_hints(&mut w);
        w.list("setup_commands", c.setup_commands.clone(), Encoding::Native);
        w.list(
            "install_commands",
            c.install_commands.clone(),
            Encoding::Native,
        );
        export_created_at(&mut w);
        w.string("gt_commit_message", c.gt_commit_message.as_deref());
        export_gt_diff(&mut w);
        w.string("arch", c.ext_str(vocab::ARCH));
        w.string("instance_image_tag", c.ext_str(vocab::INSTANCE_IMAGE_TAG));
        Ok(w.finish())
    }
}

inventory::submit! {
    AdapterRegistration { make: || Box::new(Gso::default()) }
}

// ---------------------------------------------------------------- import

/// Splits `gt_diff` into canonical `patch`/`test_patch` (D8).
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

/// The seed's environment signature (D6) and the rule that made it, when the Python
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
        "environment signature (D6) `python==<v>;arch=<arch>;image=<instance_image_tag>;install_sha=<first 8 hex of sha256 of install_commands joined by \"\\n\">`, python {python} read from `{}`{defaults}",
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

/// What GSO's harness requires of a row: `GSOInstance(**row)` takes every field but
/// `arch` and `instance_image_tag` without a default.
fn contract() -> Contract {
    const INSTANCE: &str = "gso.data.dataset.GSOInstance";
    let req = Requirement::new;
    Contract::new(
        "gsobench harness",
        vec![
            req("instance_id", Kind::String, "instance_id", INSTANCE).non_empty(),
            req("repo", Kind::String, "repo", INSTANCE).non_empty(),
            req("base_commit", Kind::String, "base_commit", "GSOInstance; install_repo_script").non_empty(),
            req("opt_commit", Kind::String, "head_commit", "GSOInstance; reset_repo_commands")
                .non_empty()
                .remedy("`--repos DIR` (a SWE-bench record's merge commit, found from its pull-request number)"),
            req("api", Kind::String, "api", INSTANCE),
            req(
                "prob_script",
                Kind::String,
                "extensions.prob_script",
                "GSOInstance (GSO makes it from `tests[0]` with Python's `ast.unparse`, which cannot be reproduced here)",
            ),
            req("tests", Kind::List, "efficiency_test", "gso.harness.grading.metrics.parse_times").non_empty(),
            req("hints_text", Kind::String, "extensions.hints_text", INSTANCE),
            req("setup_commands", Kind::List, "setup_commands", INSTANCE),
            req("install_commands", Kind::List, "install_commands", "GSOInstance.install_repo_script"),
            req("created_at", Kind::String, "created_at", INSTANCE),
            req("gt_commit_message", Kind::String, "gt_commit_message", INSTANCE),
            req("gt_diff", Kind::String, "patch", "GSOInstance; the expert diff the harness applies").non_empty(),
        ],
    )
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
