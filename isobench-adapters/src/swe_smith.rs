//! SWE-smith task instances (`SWE-bench/SWE-smith` and the per-language
//! `SWE-smith-{py,go,rs,...}` datasets): the current 7-field rows
//! (`instance_id, patch, FAIL_TO_PASS, PASS_TO_PASS, image_name, repo, problem_statement`)
//! and the early 9-field rows (plus `created_at`, `base_commit`).
//!
//! # Mapping
//!
//! | SWE-smith | canonical | rule |
//! |---|---|---|
//! | `instance_id` | `instance_id` | verbatim (images and branches are named after it) |
//! | `patch` | `patch` | SWE-smith stores the bug-introducing diff; the fix is its reverse ([`isobench_core::diff::reverse`]). Export reverses again; if a diff does not come back byte for byte, the original is kept in `extensions.source.raw.patch` and a warning says so |
//! | `repo` | `repo` + `extensions.mirror_repo` | `repo` is the mirror `swesmith/<owner>__<repo>.<commit8>`: canonical `repo` is the upstream `owner/repo` (see `smith_family::MirrorName`), the mirror is kept verbatim. A `repo` without the mirror shape is kept as it is, with a warning |
//! | `FAIL_TO_PASS`, `PASS_TO_PASS` | `extensions.fail_to_pass`, `extensions.pass_to_pass` | real arrays on export, unless the record came from SWE-smith in another encoding |
//! | `image_name` | `extensions.image_name` | verbatim |
//! | `problem_statement` | `extensions.problem_statement` | verbatim |
//! | `created_at` (early) | `created_at` | the gather time, a naive local time with microseconds: the wall clock is kept, no zone is invented. Written back only to a record that came from SWE-smith: for any other record `created_at` is an event of the repository, not a gather time |
//! | `base_commit` (early) | `extensions.mirror_base_commit` | the *buggy* commit on the mirror branch, not an upstream SHA (formats.md §4, §9.2 pitfall 13), so never canonical `base_commit` |
//!
//! SWE-smith rows never hold `test_patch` (it is the mirror branch's git history),
//! `base_commit`, `head_commit`, `version` or any timing.
//!
//! Exporting a record of another format: `repo` is the record's mirror when it has one;
//! else the mirror is named by SWE-smith's convention from `repo` and `head_commit` (the
//! fixed upstream state a mirror is cut from), with a `derived` note; else it is left
//! out, since the upstream `owner/name` is not a mirror. What SWE-smith's harness needs
//! (the seven columns, `FAIL_TO_PASS` not empty, a `repo` naming a profile its registry
//! holds: [`crate::SmithProfiles`]) is the adapter's contract, which the caller checks. A
//! record without `image_name` whose mirror is a registered profile gets that profile's
//! image, with a `derived` note. SWE-bench's `test_patch`, `base_commit`, `hints_text`, ... have no place
//! here and are reported as dropped.

use isobench_core::CanonicalRecord;
use isobench_core::registry::AdapterRegistration;
use isobench_core::table::io::{Exporter, Importer};
use isobench_core::table::{
    Field, FieldType, HookResult, Hooks, ListEncoding, Table, TableAdapter,
};
use isobench_core::vocab;

use crate::smith_family::{
    MIRROR_REPO_RULE, MirrorName, SWE_SMITH, TEST_LISTS, import_bug_patch, import_repo,
    mirror_name_for, write_bug_patch,
};
use crate::smith_profiles::{RELEASE, SmithProfiles};

const COLUMNS: &str = "SWE-smith dataset columns (`gather.py`, the HF card)";

/// What to do with a record whose `repo` names no profile SWE-smith registers, beside
/// `--set`.
const REGISTERED_MIRROR: &str = "nothing, for a task of a repository snapshot SWE-smith has no profile for: \
     its harness evaluates only those its registry holds (swesmith 0.0.9's; `cargo isobench adapters --json` \
     lists their mirrors, `swesmith/<owner>__<repo>.<commit8>`), so convert such a task to a target that \
     builds its environment from the record, such as `swe-bench`";

/// What to do with a record without `image_name`, beside `--set`.
const PROFILE_IMAGE: &str = "its profile's image, written without being asked once `repo` names a \
     profile SWE-smith registers (`RepoProfile.image_name`)";
const GRADING: &str = "swesmith.harness.grading.get_eval_tests_report";

/// SWE-smith's fields, in the order of the published (current) rows, and what its harness
/// requires of a task instance: the seven dataset columns.
pub fn table() -> Table {
    let f = Field::new;
    Table::new(
        SWE_SMITH,
        &["swesmith", "smith", "swe_smith"],
        "SWE-smith task instances (bug-introducing `patch`, mirror `repo`; 7-field rows and early 9-field rows with `created_at`/`base_commit`)",
    )
    .consumer("swesmith harness")
    .fields(vec![
        f("instance_id", "instance_id").required().consumer(COLUMNS).non_empty(),
        // The bug-introducing diff: the fix reversed.
        f("patch", "patch")
            .required()
            .hook()
            .consumer("swesmith.harness.utils: the bug patch, reverted for gold runs")
            .non_empty(),
        // Hooks, so that the lists never pass through as text: a string read is written
        // back as a string only to a record from SWE-smith.
        f("FAIL_TO_PASS", "extensions.fail_to_pass")
            .list(ListEncoding::Array)
            .required()
            .hook()
            .consumer(GRADING)
            .non_empty(),
        f("PASS_TO_PASS", "extensions.pass_to_pass")
            .list(ListEncoding::Array)
            .required()
            .hook()
            .consumer(GRADING),
        // The record's image; its profile's when it has none (the hooks).
        f("image_name", "extensions.image_name")
            .consumer(COLUMNS)
            .non_empty()
            .remedy(PROFILE_IMAGE),
        // The mirror; canonical `repo` is the upstream repository it names. The harness
        // finds the task's profile by it.
        f("repo", "extensions.mirror_repo")
            .required()
            .hook()
            .consumer("swesmith.profiles.registry.get_from_inst: the mirror `swesmith/<owner>__<repo>.<commit8>` of a registered profile")
            .non_empty()
            .known(SmithProfiles::read_once().known())
            .remedy(REGISTERED_MIRROR),
        f("problem_statement", "extensions.problem_statement").consumer(COLUMNS),
        // Early rows: the gather time, written back only to a record from SWE-smith.
        f("created_at", "created_at").kind(FieldType::Timestamp).hook(),
        // Early rows: the buggy commit on the mirror branch.
        f("base_commit", "extensions.mirror_base_commit").hook(),
    ])
    .fills_also(&["repo"])
    .carries_also(&["repo"])
}

/// What SWE-smith's table cannot say: the reversed patch, the mirror name, and the notes
/// on `created_at`, `base_commit` and the absent `test_patch`.
#[derive(Debug)]
struct SweSmithHooks;

impl Hooks for SweSmithHooks {
    fn import(&self, r: &mut Importer<'_, '_>, c: &mut CanonicalRecord) -> HookResult {
        let repo = r.required_string("repo")?;
        import_repo(r, c, repo, false);
        c.patch = Some(import_bug_patch(r)?);
        for (key, list) in TEST_LISTS {
            let items = r.required_list(key)?;
            c.set_ext(list, items);
        }
        c.created_at = r.timestamp("created_at", str::to_owned)?;
        r.notes.warn(
            "test_patch",
            "not a SWE-smith field: the tests live in the mirror branch's git history (the reverse of its \
             last commit, \"Remove F2P Tests\"); `--repos DIR` with the mirror at hand recovers it",
        );
        if let Some(base) = r.string("base_commit")? {
            r.notes.warn(
                "base_commit",
                "SWE-smith's `base_commit` is the buggy commit on the mirror branch, not an upstream SHA; it is \
                 kept in `extensions.mirror_base_commit`",
            );
            c.set_ext(vocab::MIRROR_BASE_COMMIT, base);
        }
        Ok(())
    }

    fn export(&self, c: &CanonicalRecord, w: &mut Exporter<'_, '_, '_>) -> HookResult {
        write_bug_patch(w)?;
        for (key, list) in TEST_LISTS {
            w.list(key, c.ext_list(list), ListEncoding::Array.into());
        }
        if let Some(mirror) = export_repo(w, c) {
            export_image(w, c, &mirror);
        }
        if w.same_format() {
            w.timestamp("created_at", c.created_at.as_deref(), str::to_owned);
        } else if c.created_at.is_some() {
            w.notes.dropped(
                "created_at",
                "SWE-smith's `created_at` is the time a task was gathered, not an event of the repository; the record's is not written",
            );
        }
        w.string("base_commit", c.ext_str(vocab::MIRROR_BASE_COMMIT));
        Ok(())
    }
}

/// Writes `repo`: the mirror, by the rules in the module documentation, and returns it;
/// nothing when the record cannot name one (the contract then asks for
/// `extensions.mirror_repo`).
fn export_repo(w: &mut Exporter<'_, '_, '_>, c: &CanonicalRecord) -> Option<String> {
    if let Some(mirror) = c.ext_str(vocab::MIRROR_REPO) {
        if !w.same_format() && c.repo.as_deref() != Some(mirror) {
            w.notes.derived("repo", MIRROR_REPO_RULE);
        }
        w.put("repo", mirror);
        return Some(mirror.to_owned());
    }
    let repo = c.repo.as_deref()?;
    if w.same_format() || MirrorName::parse(repo).is_some() {
        w.put("repo", repo);
        return Some(repo.to_owned());
    }
    if let Some(mirror) = c
        .head_commit
        .as_deref()
        .and_then(|head| mirror_name_for(repo, head))
    {
        w.notes.derived(
            "repo",
            "SWE-smith mirror `swesmith/<owner>__<repo>.<commit8>` named from `repo` and the first 8 \
             characters of `head_commit` (the fixed upstream state a mirror is cut from; \
             `RepoProfile.mirror_name`)",
        );
        w.put("repo", mirror.as_str());
        return Some(mirror);
    }
    w.notes.dropped(
        "repo",
        "SWE-smith's `repo` is the mirror `swesmith/<owner>__<repo>.<commit8>`, which the record cannot name \
         (no `extensions.mirror_repo`, no `head_commit`); the upstream `owner/name` is not a mirror and is not written",
    );
    None
}

/// Writes the image of the profile `mirror` names, for a record without `image_name`:
/// SWE-smith's harness runs a task in its profile's image. Nothing when no registered
/// profile has that mirror (the contract then refuses the record).
fn export_image(w: &mut Exporter<'_, '_, '_>, c: &CanonicalRecord, mirror: &str) {
    if c.has("extensions.image_name") {
        return;
    }
    let Some(profile) = SmithProfiles::read_once().find(mirror) else {
        return;
    };
    w.notes.derived(
        "image_name",
        format!("the image of the mirror's profile in {RELEASE} (`RepoProfile.image_name`)"),
    );
    w.put("image_name", profile.image());
}

/// The SWE-smith adapter.
pub fn adapter() -> TableAdapter {
    TableAdapter::new(table(), SweSmithHooks).expect("SWE-smith's table is valid")
}

inventory::submit! {
    AdapterRegistration { make: || adapter().into() }
}
