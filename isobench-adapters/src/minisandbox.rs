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
//! | `patch` | `patch` | the reversed golden patch (bug-introducing); the fix is its reverse, exactly as for SWE-smith |
//! | `repo` | `repo` (+ `extensions.mirror_repo`) | a SWE-smith mirror name gives the upstream `owner/repo` and is kept in `extensions.mirror_repo` (the rule of the `swe-smith` adapter); a plain `owner/name` is canonical `repo` as it is |
//! | `FAIL_TO_PASS`, `PASS_TO_PASS` | `extensions.fail_to_pass`, `extensions.pass_to_pass` | always real arrays on export: SWE-MiniSandbox iterates a string character by character. A string on import is decoded with a warning and, for the round trip only, written back as it came |
//! | `image_name` | `extensions.image_name` | verbatim. The loader needs it (venv cache key, spec lookup), so the contract requires it; a SWE-bench record gets SWE-bench's own evaluation image |
//! | `problem_statement` | `extensions.problem_statement` | verbatim (SWE-MiniSandbox defaults it to `""`) |
//! | `test_patch` | `test_patch` | optional; applied forward, before the reversed `patch` |
//! | `base_commit` | `base_commit` or `extensions.mirror_base_commit` | optional; the commit checked out before the patches are applied, i.e. the buggy state. It is a commit of the repository named in `repo`: with a plain `owner/name` that is an upstream SHA, so canonical `base_commit` (for a SWE-bench record, the commit the fix applies to carries over directly); with a mirror name it is a commit of the mirror, whose history was re-initialised, so `extensions.mirror_base_commit`. Never invented: absent, SWE-MiniSandbox checks out `instance_id` (the mirror branch) |
//! | `python_version` | `extensions.python_version` | optional, verbatim (documented, though SWE-MiniSandbox's code takes the version from the image's spec) |
//! | `version` | `version` | optional; the repository release. On export, `extensions.upstream_version` is preferred when canonical `version` holds a derived signature |

use isobench_core::CanonicalRecord;
use isobench_core::registry::AdapterRegistration;
use isobench_core::table::io::{Exporter, Importer};
use isobench_core::table::{Field, HookResult, Hooks, ListEncoding, Table, TableAdapter};
use isobench_core::vocab;

use crate::common::{SWE_BENCH_IMAGE_RULE, release, swe_bench_image};
use crate::smith_family::{
    IMAGE_TEMPLATE, MINISANDBOX, MIRROR_REPO_RULE, MirrorName, TEST_LISTS, import_array_list,
    import_bug_patch, import_repo, write_bug_patch,
};

const BATCH: &str = "sweagent/run/batch_instances.py: SimpleBatchInstance";
const SANDBOX: &str = "swesandbox/sandbox_deployment.py: reset_swesmith_tests, reward";

/// SWE-MiniSandbox's fields, in the order of the custom-dataset documentation, and what
/// its loader and sandbox index directly in a record.
pub fn table() -> Table {
    let f = Field::new;
    Table::new(
        MINISANDBOX,
        &["swe-minisandbox", "mini-sandbox", "minisandbox-custom"],
        "SWE-MiniSandbox custom dataset (SWE-smith pipeline: bug-introducing `patch`, list F2P/P2P, optional `test_patch`, `base_commit`, `python_version`, `version`)",
    )
    .consumer("SWE-MiniSandbox's SWE-smith pipeline")
    .fields(vec![
        f("instance_id", "instance_id").required().consumer(BATCH).non_empty(),
        // The bug-introducing diff: the fix reversed.
        f("patch", "patch")
            .required()
            .hook()
            .consumer("swe_sbenv.py: pre_check (applied in reverse)")
            .non_empty(),
        // Hooks: a string (which MiniSandbox iterates character by character) is warned of.
        f("FAIL_TO_PASS", "extensions.fail_to_pass")
            .list(ListEncoding::Array)
            .required()
            .hook()
            .consumer(SANDBOX)
            .non_empty(),
        f("PASS_TO_PASS", "extensions.pass_to_pass")
            .list(ListEncoding::Array)
            .required()
            .hook()
            .consumer(SANDBOX),
        // A SWE-bench record gets SWE-bench's own evaluation image.
        f("image_name", "extensions.image_name")
            .hook()
            .consumer(BATCH)
            .non_empty()
            .remedy(IMAGE_TEMPLATE),
        // A SWE-smith mirror name or a plain `owner/name`.
        f("repo", "repo")
            .required()
            .hook()
            .consumer("GithubRepoRetryConfig(github_url=repo)")
            .non_empty(),
        f("problem_statement", "extensions.problem_statement"),
        f("test_patch", "test_patch"),
        // A commit of the repository `repo` names: of the mirror, or upstream.
        f("base_commit", "base_commit").hook(),
        f("python_version", "extensions.python_version"),
        // The release, preferred over a derived environment signature.
        f("version", "version").hook(),
    ])
    .fills_also(&["extensions.mirror_repo", "extensions.mirror_base_commit"])
    .carries_also(&[
        "extensions.mirror_repo",
        "extensions.mirror_base_commit",
        "extensions.upstream_version",
    ])
}

/// What SWE-MiniSandbox's table cannot say: the reversed patch, mirror names and the
/// commit that goes with them, lists that must be arrays, the image of a SWE-bench
/// record, and the release.
#[derive(Debug)]
struct MiniSandboxHooks;

impl Hooks for MiniSandboxHooks {
    fn import(&self, r: &mut Importer<'_, '_>, c: &mut CanonicalRecord) -> HookResult {
        let repo = r.required_string("repo")?;
        let mirror = import_repo(r, c, repo, true);
        c.patch = Some(import_bug_patch(r)?);
        for (key, list) in TEST_LISTS {
            let items = import_array_list(r, key, "MiniSandbox")?;
            c.set_ext(list, items);
        }
        if let Some(image) = r.string("image_name")? {
            c.set_ext(vocab::IMAGE_NAME, image);
        }
        c.version = r.string("version")?;
        match r.string("base_commit")? {
            Some(base) if mirror => c.set_ext(vocab::MIRROR_BASE_COMMIT, base),
            base => c.base_commit = base,
        }
        Ok(())
    }

    fn export(&self, c: &CanonicalRecord, w: &mut Exporter<'_, '_, '_>) -> HookResult {
        write_bug_patch(w)?;
        for (key, list) in TEST_LISTS {
            w.list(key, c.ext_list(list), ListEncoding::Array.into());
        }
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
        if !w.same_format()
            && c.ext_str(vocab::MIRROR_REPO)
                .is_some_and(|m| c.repo.as_deref() != Some(m))
        {
            w.notes.derived("repo", MIRROR_REPO_RULE);
        }
        w.string("repo", repo);
        if repo.is_some_and(|repo| MirrorName::parse(repo).is_some()) {
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
        // MiniSandbox's `version` is a cache-path component and, for SWE-bench data, the
        // release key of the harness's spec table: the release is preferred over a
        // derived environment signature.
        let version = release(w);
        w.string("version", version);
        Ok(())
    }
}

/// The SWE-MiniSandbox adapter.
pub fn adapter() -> TableAdapter {
    TableAdapter::new(table(), MiniSandboxHooks).expect("SWE-MiniSandbox's table is valid")
}

inventory::submit! {
    AdapterRegistration { make: || adapter().into() }
}
