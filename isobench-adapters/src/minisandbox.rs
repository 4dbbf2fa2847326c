//! The SWE-MiniSandbox custom-dataset format (`lblankl/SWE-MiniSandbox`,
//! `docs/guide/data/custom-dataset.md`): SWE-smith-shaped rows that SWE-MiniSandbox runs
//! through its SWE-smith pipeline, with the optional `test_patch`, `base_commit`,
//! `python_version` and `version`.
//!
//! # Mapping
//!
//! | SWE-MiniSandbox | canonical | rule |
//! |---|---|---|
//! | `instance_id` | `instance_id` | verbatim |
//! | `patch` | `patch` | the reversed golden patch (bug-introducing); the fix is its reverse (D9), exactly as for SWE-smith |
//! | `repo` | `repo` (+ `extensions.mirror_repo`) | a SWE-smith mirror name gives the upstream `owner/repo` and is kept in `extensions.mirror_repo` (the rule of the `swe-smith` adapter); a plain `owner/name` is canonical `repo` as it is |
//! | `FAIL_TO_PASS`, `PASS_TO_PASS` | `extensions.fail_to_pass`, `extensions.pass_to_pass` | always real arrays on export: SWE-MiniSandbox iterates a string character by character. A string on import is decoded with a warning and, for the round trip only, written back as it came |
//! | `image_name` | `extensions.image_name` | verbatim. The loader needs it (venv cache key, spec lookup), so the contract requires it; a SWE-bench record gets SWE-bench's own evaluation image |
//! | `problem_statement` | `extensions.problem_statement` | verbatim (SWE-MiniSandbox defaults it to `""`) |
//! | `test_patch` | `test_patch` | optional; applied forward, before the reversed `patch` |
//! | `base_commit` | `base_commit` or `extensions.mirror_base_commit` | optional; the commit checked out before the patches are applied, i.e. the buggy state. It is a commit of the repository named in `repo`: with a plain `owner/name` that is an upstream SHA, so canonical `base_commit` (for a SWE-bench record, the commit the fix applies to carries over directly); with a mirror name it is a commit of the mirror, whose history was re-initialised, so `extensions.mirror_base_commit`. Never invented: absent, SWE-MiniSandbox checks out `instance_id` (the mirror branch) |
//! | `python_version` | `extensions.python_version` | optional, verbatim (documented, though SWE-MiniSandbox's code takes the version from the image's spec) |
//! | `version` | `version` | optional; the repository release. On export, `extensions.upstream_version` is preferred when canonical `version` holds a derived signature |

use std::sync::OnceLock;

use isobench_core::adapter::{AdapterInfo, AdapterRegistration, ExportOptions, ViewAdapter};
use isobench_core::contract::{Contract, Kind, Requirement};
use isobench_core::vocab;
use isobench_core::{CanonicalRecord, Notes, RecordError};
use serde_json::{Map, Value};

use crate::common::{
    Exporter, Importer, SWE_BENCH_IMAGE_RULE, note_dropped, release, schema_with_contract,
    swe_bench_image,
};
use crate::swe_smith::{
    MirrorName, export_bug_patch, export_task_head, import_array_list, import_bug_patch,
    import_repo,
};

/// The adapter's name (also the `format` of the `source` block its imports write).
pub(crate) const NAME: &str = "minisandbox";

/// What SWE-MiniSandbox's loader and sandbox index directly in a record.
fn contract() -> Contract {
    const BATCH: &str = "sweagent/run/batch_instances.py: SimpleBatchInstance";
    const SANDBOX: &str = "swesandbox/sandbox_deployment.py: reset_swesmith_tests, reward";
    let req = Requirement::new;
    Contract::new(
        "SWE-MiniSandbox's SWE-smith pipeline",
        vec![
            req("instance_id", Kind::String, "instance_id", BATCH).non_empty(),
            req(
                "patch",
                Kind::String,
                "patch",
                "swe_sbenv.py: pre_check (applied in reverse)",
            )
            .non_empty(),
            req(
                "FAIL_TO_PASS",
                Kind::List,
                "extensions.fail_to_pass",
                SANDBOX,
            )
            .non_empty(),
            req(
                "PASS_TO_PASS",
                Kind::List,
                "extensions.pass_to_pass",
                SANDBOX,
            ),
            req("image_name", Kind::String, "extensions.image_name", BATCH)
                .non_empty()
                .remedy(crate::swe_smith::IMAGE_TEMPLATE),
            req(
                "repo",
                Kind::String,
                "repo",
                "GithubRepoRetryConfig(github_url=repo)",
            )
            .non_empty(),
        ],
    )
}

/// The SWE-MiniSandbox custom-dataset adapter.
#[derive(Debug)]
pub struct MiniSandbox {
    info: AdapterInfo,
}

impl Default for MiniSandbox {
    fn default() -> Self {
        Self {
            info: AdapterInfo::new(
                NAME,
                &["swe-minisandbox", "mini-sandbox", "minisandbox-custom"],
                "SWE-MiniSandbox custom dataset (SWE-smith pipeline: bug-introducing `patch`, list F2P/P2P, optional `test_patch`, `base_commit`, `python_version`, `version`)",
            )
            .fills(&[
                "repo",
                "instance_id",
                "base_commit",
                "patch",
                "test_patch",
                "version",
                "extensions.problem_statement",
                "extensions.fail_to_pass",
                "extensions.pass_to_pass",
                "extensions.image_name",
                "extensions.python_version",
                "extensions.mirror_repo",
                "extensions.mirror_base_commit",
            ])
            .contract(contract())
            .carries(&[
                "repo",
                "instance_id",
                "base_commit",
                "patch",
                "test_patch",
                "version",
                "extensions.problem_statement",
                "extensions.fail_to_pass",
                "extensions.pass_to_pass",
                "extensions.image_name",
                "extensions.python_version",
                "extensions.mirror_repo",
                "extensions.mirror_base_commit",
                "extensions.upstream_version",
            ]),
        }
    }
}

impl ViewAdapter for MiniSandbox {
    fn info(&self) -> &AdapterInfo {
        &self.info
    }

    fn schema(&self) -> &Value {
        static SCHEMA: OnceLock<Value> = OnceLock::new();
        SCHEMA.get_or_init(|| {
            schema_with_contract(
                include_str!("../schemas/minisandbox.schema.json"),
                &self.info.contract,
            )
        })
    }

    fn verbatim_imports(&self) -> &[(String, String)] {
        static PAIRS: OnceLock<Vec<(String, String)>> = OnceLock::new();
        crate::common::owned_pairs(
            &PAIRS,
            &[
                ("problem_statement", "extensions.problem_statement"),
                ("test_patch", "test_patch"),
            ],
        )
    }

    fn verbatim_exports(&self) -> &[String] {
        static FIELDS: OnceLock<Vec<String>> = OnceLock::new();
        crate::common::owned(&FIELDS, &["extensions.problem_statement", "test_patch"])
    }

    fn import(
        &self,
        record: Map<String, Value>,
        notes: &mut Notes,
    ) -> Result<CanonicalRecord, RecordError> {
        let mut r = Importer::new(NAME, record, notes);
        let mut c = CanonicalRecord {
            instance_id: Some(r.required_string("instance_id")?),
            ..CanonicalRecord::default()
        };
        let repo = r.required_string("repo")?;
        let mirror = import_repo(&mut r, &mut c, repo, true);
        c.patch = Some(import_bug_patch(&mut r)?);
        let f2p = import_array_list(&mut r, "FAIL_TO_PASS", "MiniSandbox")?;
        c.set_ext(vocab::FAIL_TO_PASS, f2p);
        let p2p = import_array_list(&mut r, "PASS_TO_PASS", "MiniSandbox")?;
        c.set_ext(vocab::PASS_TO_PASS, p2p);
        for (key, ext) in [
            ("image_name", vocab::IMAGE_NAME),
            ("problem_statement", vocab::PROBLEM_STATEMENT),
            ("python_version", vocab::PYTHON_VERSION),
        ] {
            if let Some(v) = r.string(key)? {
                c.set_ext(ext, v);
            }
        }
        c.test_patch = r.string("test_patch")?;
        c.version = r.string("version")?;
        match r.string("base_commit")? {
            Some(base) if mirror => c.set_ext(vocab::MIRROR_BASE_COMMIT, base),
            base => c.base_commit = base,
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
        let bug_patch = export_bug_patch(c)?;
        let mut w = Exporter::new(NAME, c, notes);
        // Keys in the order of the custom-dataset documentation.
        export_task_head(&mut w, c, bug_patch.as_deref());
        match (c.ext_str(vocab::IMAGE_NAME), swe_bench_image(c)) {
            (Some(image), _) => w.put("image_name", image),
            // MiniSandbox keys its environment cache on the image name; for a SWE-bench
            // instance that is SWE-bench's own image of the instance.
            (None, Some(image)) => {
                w.put("image_name", image);
                w.notes
                    .derived("extensions.image_name", SWE_BENCH_IMAGE_RULE);
            }
            (None, None) => {}
        }
        let repo = c.ext_str(vocab::MIRROR_REPO).or(c.repo.as_deref());
        w.string("repo", repo);
        let mirror = repo.is_some_and(|repo| MirrorName::parse(repo).is_some());
        w.string("problem_statement", c.ext_str(vocab::PROBLEM_STATEMENT));
        w.string("test_patch", c.test_patch.as_deref());
        if mirror {
            w.string("base_commit", c.ext_str(vocab::MIRROR_BASE_COMMIT));
            if c.base_commit.is_some() {
                w.notes.dropped(
                    "base_commit",
                    "`repo` is written as the SWE-smith mirror, whose history was re-initialised: an upstream commit \
                     does not exist there (MiniSandbox checks out `instance_id`, the mirror branch, instead)",
                );
            }
        } else {
            w.string("base_commit", c.base_commit.as_deref());
            if c.ext(vocab::MIRROR_BASE_COMMIT).is_some() {
                w.notes.dropped(
                    "extensions.mirror_base_commit",
                    "a commit of the SWE-smith mirror, but `repo` is written as the upstream repository",
                );
            }
        }
        w.string("python_version", c.ext_str(vocab::PYTHON_VERSION));
        // MiniSandbox's `version` is a cache-path component and, for SWE-bench data, the
        // release key of the harness's spec table: the release is preferred over a
        // derived environment signature.
        w.string("version", release(c));
        Ok(w.finish())
    }
}

inventory::submit! {
    AdapterRegistration { make: || Box::new(MiniSandbox::default()) }
}
