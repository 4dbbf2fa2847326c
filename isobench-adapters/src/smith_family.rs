//! What SWE-smith and SWE-MiniSandbox share: SWE-smith's mirror repository names, the
//! bug-introducing `patch` (the fix is its reverse), and the image naming of its
//! harness.

use isobench_core::codec::Encoding;
use isobench_core::diff;
use isobench_core::table::io::{Exporter, Importer};
use isobench_core::vocab::{self, Source};
use isobench_core::{CanonicalRecord, RecordError};
use serde_json::Value;

/// The name of the SWE-smith adapter.
pub(crate) const SWE_SMITH: &str = "swe-smith";

/// The name of the SWE-MiniSandbox adapter.
pub(crate) const MINISANDBOX: &str = "minisandbox";

/// The test lists, and where they live in `extensions`: real arrays in both formats.
pub(crate) const TEST_LISTS: [(&str, &str); 2] = [
    ("FAIL_TO_PASS", vocab::FAIL_TO_PASS),
    ("PASS_TO_PASS", vocab::PASS_TO_PASS),
];

/// The GitHub organisation holding SWE-smith's published mirrors.
const MIRROR_ORG: &str = "swesmith";

/// The remedy for a record without `image_name`: SWE-smith's own naming
/// (`RepoProfile.image_name`) as a `--set` template.
pub(crate) const IMAGE_TEMPLATE: &str = "a per-record template after SWE-smith's naming, \
     `--set 'extensions.image_name=swebench/swesmith.x86_64.{owner:lower}_1776_{name:lower}.{head_commit:8}'`, \
     with `--repos DIR` for records without `head_commit` (SWE-bench's: git finds the merge commit of the pull request)";

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
/// fix (its reverse). When reversing the fix does not give back the original byte for
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
const BUG_PATCH_FORMATS: [&str; 2] = [SWE_SMITH, MINISANDBOX];

/// The bug-introducing diff to write for `record`: the reverse of its fix, or the
/// original diff a SWE-smith or SWE-MiniSandbox import kept when it still reverses to the
/// record's fix. `None` when the record has no `patch`.
/// The rule of a written bug-introducing `patch`, for `derived` notes.
pub(crate) const BUG_PATCH_RULE: &str = "written reversed: this format's `patch` introduces the bug, so it is the \
     reverse of the record's fix";

/// The rule of a `repo` written as the SWE-smith mirror, for `derived` notes.
pub(crate) const MIRROR_REPO_RULE: &str = "written as the SWE-smith mirror the record names \
     (`extensions.mirror_repo`), not as its upstream `repo`";

/// Writes `patch` as the bug-introducing diff, noting the reversal for a record from a
/// format that holds the fix.
pub(crate) fn write_bug_patch(w: &mut Exporter<'_, '_, '_>) -> Result<(), RecordError> {
    let record = w.record;
    let patch = export_bug_patch(record)?;
    let from_fix =
        !Source::format_of(&record.extensions).is_some_and(|f| BUG_PATCH_FORMATS.contains(&f));
    if patch.is_some() && from_fix {
        w.notes.derived("patch", BUG_PATCH_RULE);
    }
    w.string("patch", patch.as_deref());
    Ok(())
}

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
