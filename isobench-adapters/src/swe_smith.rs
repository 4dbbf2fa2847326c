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
//! | `patch` | `patch` | SWE-smith stores the bug-introducing diff; the fix is its reverse (D9, [`diff::reverse`]). Export reverses again; if a diff does not come back byte for byte, the original is kept in `extensions.source.raw.patch` and a warning says so |
//! | `repo` | `repo` + `extensions.mirror_repo` | `repo` is the mirror `swesmith/<owner>__<repo>.<commit8>`: canonical `repo` is the upstream `owner/repo` (see [`MirrorName`]), the mirror is kept verbatim. A `repo` without the mirror shape is kept as it is, with a warning |
//! | `FAIL_TO_PASS`, `PASS_TO_PASS` | `extensions.fail_to_pass`, `extensions.pass_to_pass` | real arrays on export, unless the record came from SWE-smith in another encoding |
//! | `image_name` | `extensions.image_name` | verbatim |
//! | `problem_statement` | `extensions.problem_statement` | verbatim |
//! | `created_at` (early) | `created_at` | the gather time, a naive local time with microseconds: the wall clock is kept, no zone is invented. Written back only to a record that came from SWE-smith: for any other record `created_at` is an event of the repository, not a gather time |
//! | `base_commit` (early) | `extensions.mirror_base_commit` | the *buggy* commit on the mirror branch, not an upstream SHA (formats.md §4, §9.2 pitfall 13), so never canonical `base_commit` |
//!
//! SWE-smith rows never hold `test_patch` (it is the mirror branch's git history, D10),
//! `base_commit`, `head_commit`, `version` or any timing.
//!
//! Exporting a record of another format: `repo` is the record's mirror when it has one;
//! else the mirror is named by SWE-smith's convention from `repo` and `head_commit` (the
//! fixed upstream state a mirror is cut from), with a `derived` note; else it is left
//! out, since the upstream `owner/name` is not a mirror. What SWE-smith's harness needs
//! (the seven columns, `FAIL_TO_PASS` not empty) is the adapter's contract, which the
//! caller checks. SWE-bench's `test_patch`, `base_commit`, `hints_text`, ... have no place
//! here and are reported as dropped.

use std::sync::OnceLock;

use isobench_core::adapter::{AdapterInfo, AdapterRegistration, ExportOptions, ViewAdapter};
use isobench_core::codec::Encoding;
use isobench_core::contract::{Contract, Kind, Requirement};
use isobench_core::diff;
use isobench_core::vocab::{self, Source};
use isobench_core::{CanonicalRecord, Notes, RecordError};
use serde_json::{Map, Value};

use crate::common::{Exporter, Importer, note_dropped, schema_with_contract};

const NAME: &str = "swe-smith";

/// The GitHub organisation holding SWE-smith's published mirrors.
const MIRROR_ORG: &str = "swesmith";

/// The SWE-smith adapter.
#[derive(Debug)]
pub struct SweSmith {
    info: AdapterInfo,
}

impl Default for SweSmith {
    fn default() -> Self {
        Self {
            info: AdapterInfo::new(
                NAME,
                &["swesmith", "smith", "swe_smith"],
                "SWE-smith task instances (bug-introducing `patch`, mirror `repo`; 7-field rows and early 9-field rows with `created_at`/`base_commit`)",
            )
            .fills(&[
                "repo",
                "instance_id",
                "created_at",
                "patch",
                "extensions.problem_statement",
                "extensions.fail_to_pass",
                "extensions.pass_to_pass",
                "extensions.image_name",
                "extensions.mirror_repo",
                "extensions.mirror_base_commit",
            ])
            .contract(contract())
            .carries(&[
                "repo",
                "instance_id",
                "created_at",
                "patch",
                "extensions.problem_statement",
                "extensions.fail_to_pass",
                "extensions.pass_to_pass",
                "extensions.image_name",
                "extensions.mirror_repo",
                "extensions.mirror_base_commit",
            ]),
        }
    }
}

/// The remedy for a record without `image_name`: SWE-smith's own naming
/// (`RepoProfile.image_name`) as a `--set` template.
pub(crate) const IMAGE_TEMPLATE: &str = "a per-record template after SWE-smith's naming, \
     `--set 'extensions.image_name=swebench/swesmith.x86_64.{owner:lower}_1776_{name:lower}.{head_commit:8}'`";

/// What SWE-smith's harness requires of a task instance: the seven dataset columns.
fn contract() -> Contract {
    const COLUMNS: &str = "SWE-smith dataset columns (`gather.py`, the HF card)";
    const GRADING: &str = "swesmith.harness.grading.get_eval_tests_report";
    let req = Requirement::new;
    Contract::new(
        "swesmith harness",
        vec![
            req("instance_id", Kind::String, "instance_id", COLUMNS).non_empty(),
            req("patch", Kind::String, "patch", "swesmith.harness.utils: the bug patch, reverted for gold runs").non_empty(),
            req("FAIL_TO_PASS", Kind::List, "extensions.fail_to_pass", GRADING).non_empty(),
            req("PASS_TO_PASS", Kind::List, "extensions.pass_to_pass", GRADING),
            req("image_name", Kind::String, "extensions.image_name", COLUMNS)
                .non_empty()
                .remedy(IMAGE_TEMPLATE),
            req(
                "repo",
                Kind::String,
                "extensions.mirror_repo",
                "swesmith.profiles.registry.get_from_inst: the mirror `swesmith/<owner>__<repo>.<commit8>`",
            )
            .non_empty(),
            req("problem_statement", Kind::String, "extensions.problem_statement", COLUMNS),
        ],
    )
}

/// A SWE-smith mirror repository name, `[<org>/]<owner>__<repo>.<commit8>`, taken apart.
///
/// The published rows say `swesmith/<owner>__<repo>.<commit8>`; SWE-smith's own task
/// docs and SWE-MiniSandbox's repo cache use the name without the organisation
/// (`pylint-dev__astroid.b114f6b5`), and SWE-smith can mirror into another organisation,
/// so the organisation is optional and not checked. The rule: drop `<org>/`, split off
/// the last `.`-part (8 hex characters: the upstream commit the mirror was cut from),
/// split the rest into owner and repository at the first `__` (a GitHub owner cannot
/// contain `__`; a repository name may contain `.`, `_` or `-`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MirrorName<'a> {
    /// The GitHub organisation, when the name has one.
    pub org: Option<&'a str>,
    /// The upstream owner.
    pub owner: &'a str,
    /// The upstream repository name.
    pub repo: &'a str,
    /// The first 8 hex characters of the upstream commit the mirror was cut from.
    pub commit: &'a str,
}

impl<'a> MirrorName<'a> {
    /// Parses a mirror name; `None` when `name` does not have the mirror shape.
    pub fn parse(name: &'a str) -> Option<Self> {
        let (org, rest) = match name.split_once('/') {
            Some((org, rest)) => (Some(org), rest),
            None => (None, name),
        };
        if org.is_some_and(str::is_empty) || rest.contains('/') {
            return None;
        }
        let (base, commit) = rest.rsplit_once('.')?;
        if commit.len() != 8 || !commit.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let (owner, repo) = base.split_once("__")?;
        if owner.is_empty() || repo.is_empty() {
            return None;
        }
        Some(Self {
            org,
            owner,
            repo,
            commit,
        })
    }

    /// The upstream repository, `owner/repo`.
    pub fn upstream(&self) -> String {
        format!("{}/{}", self.owner, self.repo)
    }
}

/// SWE-smith's name for the mirror of `upstream` (`owner/name`) cut at `commit`:
/// `swesmith/<owner>__<name>.<commit8>` (`RepoProfile.mirror_name`). `None` when
/// `upstream` is not `owner/name` or `commit` is not at least 8 hex characters.
pub(crate) fn mirror_name_for(upstream: &str, commit: &str) -> Option<String> {
    let (owner, name) = upstream.split_once('/')?;
    if owner.is_empty() || name.is_empty() || name.contains('/') {
        return None;
    }
    let prefix = commit.get(..8)?;
    if !prefix.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    Some(format!("{MIRROR_ORG}/{owner}__{name}.{prefix}"))
}

/// Whether `repo` looks like a plain GitHub `owner/name`.
fn is_owner_name(repo: &str) -> bool {
    repo.split_once('/')
        .is_some_and(|(owner, name)| !owner.is_empty() && !name.is_empty() && !name.contains('/'))
}

/// Reads a `repo` that may be a SWE-smith mirror name into `record`: a mirror gives the
/// upstream `owner/repo` as canonical `repo` (with a `derived` note) and is kept in
/// `extensions.mirror_repo`; anything else stays as it is. `plain_is_normal` says whether
/// a plain `owner/name` is an expected value (SWE-MiniSandbox) or deserves a warning
/// (SWE-smith). Returns whether `repo` was a mirror name.
pub(crate) fn import_repo(
    importer: &mut Importer<'_, '_>,
    record: &mut CanonicalRecord,
    repo: String,
    plain_is_normal: bool,
) -> bool {
    if let Some(mirror) = MirrorName::parse(&repo) {
        record.repo = Some(mirror.upstream());
        importer.notes.derived(
            "repo",
            "upstream `owner/repo` from the SWE-smith mirror name `[<org>/]<owner>__<repo>.<commit8>`: \
             the organisation dropped, the last `.`-part (upstream commit prefix) split off, owner and \
             repository split at the first `__`; the mirror is kept in `extensions.mirror_repo`",
        );
        record.set_ext(vocab::MIRROR_REPO, repo);
        return true;
    }
    if !(plain_is_normal && is_owner_name(&repo)) {
        importer.notes.warn(
            "repo",
            format!(
                "`{repo}` is not a SWE-smith mirror name (`swesmith/<owner>__<repo>.<commit8>`){}; kept as it is",
                if plain_is_normal { " nor an `owner/name`" } else { "" }
            ),
        );
    }
    record.repo = Some(repo);
    false
}

/// Reads the bug-introducing `patch` of a SWE-smith or SWE-MiniSandbox record and returns the
/// fix (its reverse, D9). When reversing the fix does not give back the original byte for
/// byte, the original is kept for the round trip, with a warning.
pub(crate) fn import_bug_patch(importer: &mut Importer<'_, '_>) -> Result<String, RecordError> {
    let bug = importer.required_string("patch")?;
    let fix = diff::reverse(&bug).map_err(|e| {
        RecordError::invalid(
            "/patch",
            format!("the bug-introducing diff cannot be reversed into the fix: {e}"),
        )
    })?;
    if diff::reverse(&fix).ok().as_deref() != Some(bug.as_str()) {
        importer.notes.warn(
            "patch",
            "reversing the fix does not give back the original diff byte for byte; the original is kept in `extensions.source.raw.patch`",
        );
        importer.keep_raw("patch", Value::String(bug));
    }
    Ok(fix)
}

/// The formats whose kept raw `patch` is a bug-introducing diff.
const BUG_PATCH_FORMATS: [&str; 2] = [NAME, crate::minisandbox::NAME];

/// Writes the keys SWE-smith rows and `MiniSandbox` records begin with: `instance_id`, the
/// bug-introducing `patch`, and the test lists as real arrays.
pub(crate) fn export_task_head(
    w: &mut Exporter<'_, '_, '_>,
    c: &CanonicalRecord,
    bug_patch: Option<&str>,
) {
    w.string("instance_id", c.instance_id.as_deref());
    w.string("patch", bug_patch);
    w.list(
        "FAIL_TO_PASS",
        c.ext_list(vocab::FAIL_TO_PASS),
        Encoding::Native,
    );
    w.list(
        "PASS_TO_PASS",
        c.ext_list(vocab::PASS_TO_PASS),
        Encoding::Native,
    );
}

/// The bug-introducing diff to write for `record`: the reverse of its fix (D9), or the
/// original diff a SWE-smith or SWE-MiniSandbox import kept when it still reverses to the
/// record's fix. `None` when the record has no `patch`.
pub(crate) fn export_bug_patch(record: &CanonicalRecord) -> Result<Option<String>, RecordError> {
    let Some(fix) = record.patch.as_deref() else {
        return Ok(None);
    };
    let kept = Source::format_of(&record.extensions)
        .filter(|format| BUG_PATCH_FORMATS.contains(format))
        .and_then(|_| {
            record
                .extensions
                .get(vocab::SOURCE)?
                .get("raw")?
                .get("patch")?
                .as_str()
        });
    if let Some(kept) = kept
        && diff::reverse(kept).is_ok_and(|reversed| reversed == fix)
    {
        return Ok(Some(kept.to_owned()));
    }
    diff::reverse(fix).map(Some).map_err(|e| {
        RecordError::invalid(
            "/patch",
            format!("the fix cannot be reversed into the bug-introducing diff: {e}"),
        )
    })
}

/// Reads a list the format wants as a real array: any encoding is accepted (and
/// remembered, for the round trip), but a string gets a warning.
pub(crate) fn import_array_list(
    importer: &mut Importer<'_, '_>,
    key: &str,
    format: &str,
) -> Result<Vec<String>, RecordError> {
    let Some(value) = importer.value(key) else {
        return Err(importer.missing(key));
    };
    let decoded = isobench_core::codec::decode_list(&value, &format!("/{key}"))?;
    if decoded.encoding != Encoding::Native {
        importer.notes.warn(
            key,
            format!(
                "a string holding a list, where {format} expects a real array (a string is iterated character by character); decoded, and written back as it came",
            ),
        );
    }
    importer.remember_encoding(key, decoded.encoding, decoded.reproducible, value);
    Ok(decoded.items)
}

impl SweSmith {
    /// Writes `repo`: the mirror, by the rules in the module documentation; nothing when
    /// the record cannot name one (the contract then asks for `extensions.mirror_repo`).
    fn export_repo(w: &mut Exporter<'_, '_, '_>, c: &CanonicalRecord) {
        if let Some(mirror) = c.ext_str(vocab::MIRROR_REPO) {
            w.put("repo", mirror);
            return;
        }
        let Some(repo) = c.repo.as_deref() else {
            return;
        };
        if w.same_format() || MirrorName::parse(repo).is_some() {
            w.put("repo", repo);
            return;
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
            w.put("repo", mirror);
            return;
        }
        w.notes.dropped(
            "repo",
            "SWE-smith's `repo` is the mirror `swesmith/<owner>__<repo>.<commit8>`, which the record cannot name \
             (no `extensions.mirror_repo`, no `head_commit`); the upstream `owner/name` is not a mirror and is not written",
        );
    }
}

impl ViewAdapter for SweSmith {
    fn info(&self) -> &AdapterInfo {
        &self.info
    }

    fn schema(&self) -> &Value {
        static SCHEMA: OnceLock<Value> = OnceLock::new();
        SCHEMA.get_or_init(|| {
            schema_with_contract(
                include_str!("../schemas/swe-smith.schema.json"),
                &self.info.contract,
            )
        })
    }

    fn verbatim_imports(&self) -> &[(String, String)] {
        static PAIRS: OnceLock<Vec<(String, String)>> = OnceLock::new();
        crate::common::owned_pairs(
            &PAIRS,
            &[("problem_statement", "extensions.problem_statement")],
        )
    }

    fn verbatim_exports(&self) -> &[String] {
        static FIELDS: OnceLock<Vec<String>> = OnceLock::new();
        crate::common::owned(&FIELDS, &["extensions.problem_statement"])
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
        import_repo(&mut r, &mut c, repo, false);
        c.patch = Some(import_bug_patch(&mut r)?);
        let f2p = r.required_list("FAIL_TO_PASS")?;
        c.set_ext(vocab::FAIL_TO_PASS, f2p);
        let p2p = r.required_list("PASS_TO_PASS")?;
        c.set_ext(vocab::PASS_TO_PASS, p2p);
        if let Some(image) = r.string("image_name")? {
            c.set_ext(vocab::IMAGE_NAME, image);
        }
        if let Some(problem) = r.string("problem_statement")? {
            c.set_ext(vocab::PROBLEM_STATEMENT, problem);
        }
        c.created_at = r.timestamp("created_at", str::to_owned)?;
        r.notes.warn(
            "test_patch",
            "not a SWE-smith field: the tests live in the mirror branch's git history (D10: the reverse of its \
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
        // Keys in the order of the published (current) rows; a record from SWE-smith gets
        // its own order back in `finish`.
        export_task_head(&mut w, c, bug_patch.as_deref());
        w.string("image_name", c.ext_str(vocab::IMAGE_NAME));
        Self::export_repo(&mut w, c);
        w.string("problem_statement", c.ext_str(vocab::PROBLEM_STATEMENT));
        if w.same_format() {
            w.timestamp("created_at", c.created_at.as_deref(), str::to_owned);
        } else if c.created_at.is_some() {
            w.notes.dropped(
                "created_at",
                "SWE-smith's `created_at` is the time a task was gathered, not an event of the repository; the record's is not written",
            );
        }
        w.string("base_commit", c.ext_str(vocab::MIRROR_BASE_COMMIT));
        Ok(w.finish())
    }
}

inventory::submit! {
    AdapterRegistration { make: || Box::new(SweSmith::default()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirror_names_parse_with_or_without_the_organisation() {
        let m = MirrorName::parse("swesmith/pandas-dev__pandas.95280573").unwrap();
        assert_eq!(
            (m.org, m.owner, m.repo, m.commit),
            (Some("swesmith"), "pandas-dev", "pandas", "95280573")
        );
        assert_eq!(m.upstream(), "pandas-dev/pandas");
        let m = MirrorName::parse("pylint-dev__astroid.b114f6b5").unwrap();
        assert_eq!(
            (m.org, m.upstream()),
            (None, "pylint-dev/astroid".to_owned())
        );
        // Dots and double underscores in the repository name stay in it.
        let m = MirrorName::parse("swesmith/owner__socket.io__x.0123abcd").unwrap();
        assert_eq!(m.upstream(), "owner/socket.io__x");
    }

    #[test]
    fn other_names_are_not_mirrors() {
        for name in [
            "pandas-dev/pandas",
            "swesmith/pandas-dev__pandas",
            "swesmith/pandas-dev__pandas.9528057",
            "swesmith/pandas-dev__pandas.9528057g",
            "swesmith/pandas.95280573",
            "swesmith/__pandas.95280573",
            "a/b/c__d.95280573",
            "/c__d.95280573",
            "",
        ] {
            assert_eq!(MirrorName::parse(name), None, "{name}");
        }
    }

    #[test]
    fn mirror_names_are_derived_only_from_owner_name_and_a_hex_commit() {
        assert_eq!(
            mirror_name_for("octo/widgets", "0123456789abcdef0123456789abcdef01234567").as_deref(),
            Some("swesmith/octo__widgets.01234567")
        );
        assert_eq!(mirror_name_for("octo/widgets", "0123456"), None);
        assert_eq!(mirror_name_for("octo/widgets", "zzzzzzzzzz"), None);
        assert_eq!(mirror_name_for("widgets", "0123456789"), None);
        // A multi-byte character at the cut does not panic.
        assert_eq!(mirror_name_for("octo/widgets", "0123456é9"), None);
    }
}
