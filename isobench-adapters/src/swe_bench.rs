//! SWE-bench (full, Lite, Verified): the classic 12 fields, Verified's `difficulty`, and
//! the SWE-bench 5.x fields `image`, `eval_script`, `log_parser`, `eval_type`.

use std::sync::OnceLock;

use isobench_core::adapter::{AdapterInfo, AdapterRegistration, ExportOptions, ViewAdapter};
use isobench_core::codec::Encoding;
use isobench_core::contract::{Contract, Kind, Requirement};
use isobench_core::vocab;
use isobench_core::{CanonicalRecord, Notes, RecordError};
use serde_json::{Map, Value};

use crate::common::{Exporter, Importer, note_dropped, release, schema_with_contract};

const NAME: &str = "swe-bench";

/// The SWE-bench adapter.
#[derive(Debug)]
pub struct SweBench {
    info: AdapterInfo,
}

impl Default for SweBench {
    fn default() -> Self {
        Self {
            info: AdapterInfo::new(
                NAME,
                &["swebench", "swe-bench-verified", "swe-bench-lite", "verified", "lite"],
                "SWE-bench full, Lite and Verified rows (12 classic fields, `difficulty`, 5.x `image`/`eval_script`/`log_parser`/`eval_type`)",
            )
            .fills(&[
                "repo",
                "instance_id",
                "created_at",
                "base_commit",
                "patch",
                "test_patch",
                "version",
                "extensions.problem_statement",
                "extensions.hints_text",
                "extensions.fail_to_pass",
                "extensions.pass_to_pass",
                "extensions.environment_setup_commit",
                "extensions.difficulty",
                "extensions.image_name",
                "extensions.eval_script",
                "extensions.log_parser",
                "extensions.eval_type",
            ])
            .contract(contract())
            .carries(&[
                "repo",
                "instance_id",
                "created_at",
                "base_commit",
                "patch",
                "test_patch",
                "version",
                "extensions.problem_statement",
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
            ]),
        }
    }
}

/// What SWE-bench's harness (4.x, the one the classic rows are for) requires of a row.
fn contract() -> Contract {
    const INSTANCE: &str = "swebench.harness.constants.SWEbenchInstance";
    const SPEC: &str = "swebench.harness.test_spec.make_test_spec";
    const GRADING: &str = "swebench.harness.grading.get_eval_tests_report";
    let req = Requirement::new;
    Contract::new(
        "swebench 4.x harness",
        vec![
            req("repo", Kind::String, "repo", SPEC).non_empty(),
            req("instance_id", Kind::String, "instance_id", INSTANCE).non_empty(),
            req("base_commit", Kind::String, "base_commit", SPEC).non_empty(),
            req(
                "patch",
                Kind::String,
                "patch",
                "the gold patch the harness applies",
            )
            .non_empty(),
            req("test_patch", Kind::String, "test_patch", SPEC),
            req(
                "problem_statement",
                Kind::String,
                "extensions.problem_statement",
                INSTANCE,
            ),
            req(
                "hints_text",
                Kind::String,
                "extensions.hints_text",
                INSTANCE,
            )
            .none_value(""),
            req("created_at", Kind::String, "created_at", INSTANCE),
            req(
                "version",
                Kind::String,
                "extensions.upstream_version",
                "make_test_spec: MAP_REPO_VERSION_TO_SPECS[repo][version]",
            )
            .non_empty(),
            req(
                "FAIL_TO_PASS",
                Kind::ListOrEncoded,
                "extensions.fail_to_pass",
                GRADING,
            )
            .non_empty(),
            req(
                "PASS_TO_PASS",
                Kind::ListOrEncoded,
                "extensions.pass_to_pass",
                SPEC,
            ),
            req(
                "environment_setup_commit",
                Kind::String,
                "extensions.environment_setup_commit",
                SPEC,
            )
            .non_empty(),
        ],
    )
}

/// The SWE-bench 5.x fields and where they live in `extensions`.
const FIELDS_5X: [(&str, &str); 4] = [
    ("image", vocab::IMAGE_NAME),
    ("eval_script", vocab::EVAL_SCRIPT),
    ("log_parser", vocab::LOG_PARSER),
    ("eval_type", vocab::EVAL_TYPE),
];

impl ViewAdapter for SweBench {
    fn info(&self) -> &AdapterInfo {
        &self.info
    }

    fn schema(&self) -> &Value {
        static SCHEMA: OnceLock<Value> = OnceLock::new();
        SCHEMA.get_or_init(|| {
            schema_with_contract(
                include_str!("../schemas/swe-bench.schema.json"),
                &self.info.contract,
            )
        })
    }

    fn verbatim_imports(&self) -> &[(&'static str, &'static str)] {
        &[
            ("patch", "patch"),
            ("test_patch", "test_patch"),
            ("problem_statement", "extensions.problem_statement"),
            ("hints_text", "extensions.hints_text"),
            ("FAIL_TO_PASS", "extensions.fail_to_pass"),
            ("PASS_TO_PASS", "extensions.pass_to_pass"),
        ]
    }

    fn verbatim_exports(&self) -> &[&'static str] {
        &[
            "patch",
            "test_patch",
            "extensions.problem_statement",
            "extensions.hints_text",
        ]
    }

    fn import(
        &self,
        record: Map<String, Value>,
        notes: &mut Notes,
    ) -> Result<CanonicalRecord, RecordError> {
        let mut r = Importer::new(NAME, record, notes);
        let mut c = CanonicalRecord {
            instance_id: Some(r.required_string("instance_id")?),
            repo: Some(r.required_string("repo")?),
            base_commit: Some(r.required_string("base_commit")?),
            patch: Some(r.required_string("patch")?),
            test_patch: Some(r.required_string("test_patch")?),
            version: Some(r.required_string("version")?),
            created_at: r.timestamp("created_at", str::to_owned)?,
            ..CanonicalRecord::default()
        };
        let problem = r.required_string("problem_statement")?;
        c.set_ext(vocab::PROBLEM_STATEMENT, problem);
        let f2p = r.required_list("FAIL_TO_PASS")?;
        c.set_ext(vocab::FAIL_TO_PASS, f2p);
        let p2p = r.required_list("PASS_TO_PASS")?;
        c.set_ext(vocab::PASS_TO_PASS, p2p);
        for (key, ext) in [
            ("hints_text", vocab::HINTS_TEXT),
            ("environment_setup_commit", vocab::ENVIRONMENT_SETUP_COMMIT),
            ("difficulty", vocab::DIFFICULTY),
        ]
        .into_iter()
        .chain(FIELDS_5X)
        {
            if let Some(v) = r.string(key)? {
                c.set_ext(ext, v);
            }
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
        note_dropped(&self.info, c, notes);
        let mut w = Exporter::new(NAME, c, notes);
        w.string("repo", c.repo.as_deref());
        w.string("instance_id", c.instance_id.as_deref());
        w.string("base_commit", c.base_commit.as_deref());
        w.string("patch", c.patch.as_deref());
        w.string("test_patch", c.test_patch.as_deref());
        w.string("problem_statement", c.ext_str(vocab::PROBLEM_STATEMENT));
        w.string("hints_text", c.ext_str(vocab::HINTS_TEXT));
        w.timestamp("created_at", c.created_at.as_deref(), str::to_owned);
        if c.created_at.is_some()
            && !c.created_at.as_deref().is_some_and(|t| t.ends_with('Z'))
            && !w.same_format()
        {
            w.notes.warn(
                "created_at",
                "written without a time zone: the source had none, and SWE-bench's own rows are UTC (`...Z`)",
            );
        }
        // SWE-bench's `version` is the repository release (`X.Y`), a key of the harness's
        // spec table; a derived environment signature is no use there.
        w.string("version", release(c));
        w.list(
            "FAIL_TO_PASS",
            c.ext_list(vocab::FAIL_TO_PASS),
            Encoding::JsonSpaced,
        );
        w.list(
            "PASS_TO_PASS",
            c.ext_list(vocab::PASS_TO_PASS),
            Encoding::JsonSpaced,
        );
        w.string(
            "environment_setup_commit",
            c.ext_str(vocab::ENVIRONMENT_SETUP_COMMIT),
        );
        w.string("difficulty", c.ext_str(vocab::DIFFICULTY));
        // `image` is 5.x's per-instance evaluation image: written with the other 5.x
        // fields, never alone from another format's environment image.
        if w.same_format() || c.ext(vocab::EVAL_SCRIPT).is_some() {
            for (key, ext) in FIELDS_5X {
                w.string(key, c.ext_str(ext));
            }
        } else if c.ext(vocab::IMAGE_NAME).is_some() {
            w.notes.dropped(
                "extensions.image_name",
                "SWE-bench's `image` is the 5.x evaluation image, written only with `eval_script`, `log_parser` and `eval_type`",
            );
        }
        Ok(w.finish())
    }
}

inventory::submit! {
    AdapterRegistration { make: || Box::new(SweBench::default()) }
}
