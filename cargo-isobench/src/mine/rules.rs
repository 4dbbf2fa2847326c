//! Pure rules used when mining records from a repository: the pull-request number in a
//! commit message, the mined `instance_id`, commit times as RFC 3339 UTC,
//! and the function names a diff's hunk headers give when no parser knows the language.

use isobench_core::diff::{FileDiff, LineKind};

/// How a commit's subject names its pull request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrForm {
    /// `Merge pull request #N from owner/branch`: GitHub's merge commit, whose second
    /// parent is the pull request's head.
    Merge,
    /// A subject ending in `(#N)`: GitHub's squash (or rebase) commit of pull request N.
    Squash,
}

/// The pull request a commit message names, and the subject form that names it. Only the
/// subject line (the first line) is looked at.
///
/// The two forms mean different things, and a subject may hold both: a squash commit
/// whose pull request's title was itself a merge subject reads `Merge pull request #6360
/// from owner/release (#6361)`. GitHub appends the `(#N)` of the pull request that made
/// the commit, so a trailing `(#N)` wins; `Merge pull request #N` names the commit only
/// when nothing follows it.
pub fn pr_subject(message: &str) -> Option<(u64, PrForm)> {
    let subject = message.lines().next()?.trim();
    if let Some(inner) = subject.strip_suffix(')')
        && let Some(open) = inner.rfind("(#")
    {
        let digits = &inner[open + 2..];
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            return digits
                .parse()
                .ok()
                .filter(|&n| n > 0)
                .map(|n| (n, PrForm::Squash));
        }
    }
    let rest = subject.strip_prefix("Merge pull request #")?;
    let digits: &str = &rest[..rest.bytes().take_while(u8::is_ascii_digit).count()];
    digits
        .parse()
        .ok()
        .filter(|&n| n > 0)
        .map(|n| (n, PrForm::Merge))
}

/// The pull-request number a commit message names (see [`pr_subject`]).
pub fn pr_number(message: &str) -> Option<u64> {
    pr_subject(message).map(|(n, _)| n)
}

/// Whether `message` is GitHub's merge or squash commit of pull request `number`.
pub fn names_pr(message: &str, number: u64) -> bool {
    pr_number(message) == Some(number)
}

/// The mined instance id: `owner__repo-PR-<n>` when the pull request is known, else
/// `owner__repo-<first 7 hex of the commit>`. `repo` is `owner/name`; any further `/` is
/// turned into `__` too.
pub fn instance_id(repo: &str, pr: Option<u64>, commit: &str) -> String {
    let base = repo.replace('/', "__");
    match pr {
        Some(n) => format!("{base}-PR-{n}"),
        None => format!("{base}-{}", commit.get(..7).unwrap_or(commit)),
    }
}

/// The pull-request number at the end of an imported SWE-bench-style id
/// (`owner__repo-<digits>`), if any.
pub fn pr_from_instance_id(instance_id: &str) -> Option<u64> {
    let (_, tail) = instance_id.rsplit_once('-')?;
    if tail.is_empty() || !tail.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    tail.parse().ok()
}

/// A git time (seconds since the epoch, and the zone's offset in minutes) as
/// `(RFC 3339 UTC, RFC 3339 in the commit's own zone)`.
pub fn git_time(seconds: i64, offset_minutes: i32) -> (String, String) {
    let utc = format!("{}Z", wall_clock(seconds));
    let local_secs = seconds + i64::from(offset_minutes) * 60;
    let sign = if offset_minutes < 0 { '-' } else { '+' };
    let abs = offset_minutes.unsigned_abs();
    let local = format!(
        "{}{sign}{:02}:{:02}",
        wall_clock(local_secs),
        abs / 60,
        abs % 60
    );
    (utc, local)
}

fn wall_clock(seconds: i64) -> String {
    let days = seconds.div_euclid(86_400);
    let secs = seconds.rem_euclid(86_400);
    let (year, month, day) = isobench_core::timestamp::civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// The 1-based line numbers a file's hunks remove (old side) and add (new side).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChangedLines {
    /// Lines removed, numbered in the old file.
    pub old: Vec<usize>,
    /// Lines added, numbered in the new file.
    pub new: Vec<usize>,
    /// For pure insertions, the old-side line before which lines were inserted (so that
    /// an insertion inside a function's body counts for that function on the old side).
    pub insert_points: Vec<usize>,
}

/// The lines a file's diff changes, on each side.
pub fn changed_lines(file: &FileDiff) -> ChangedLines {
    let mut out = ChangedLines::default();
    for hunk in &file.hunks {
        let (mut old, mut new) = (hunk.old_start, hunk.new_start);
        for line in &hunk.lines {
            match line.kind {
                LineKind::Context => {
                    old += 1;
                    new += 1;
                }
                LineKind::Removed => {
                    out.old.push(old);
                    old += 1;
                }
                LineKind::Added => {
                    out.new.push(new);
                    out.insert_points.push(old);
                    new += 1;
                }
            }
        }
    }
    out
}

/// The function names the hunk headers of a file's diff give (git's `@@ ... @@ <context>`
/// text), for languages no parser is available for: the identifier before the first `(`
/// of each context, in order, without repeats. A context without a call-like shape gives
/// nothing.
pub fn hunk_header_functions(file: &FileDiff) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for hunk in &file.hunks {
        if let Some(name) = function_in_context(&hunk.section)
            && !names.contains(&name)
        {
            names.push(name);
        }
    }
    names
}

/// The function a hunk-header context line declares: `def name(`, `fn name(`,
/// `func (r *T) Name(`, `public int name(`, `function name(` ... : the identifier right
/// before the first `(` that follows one.
pub fn function_in_context(context: &str) -> Option<String> {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let mut search = context;
    let mut offset = 0;
    while let Some(i) = search.find('(') {
        let before = context[..offset + i].trim_end();
        let start = before
            .char_indices()
            .rev()
            .take_while(|&(_, c)| is_ident(c))
            .last()
            .map(|(j, _)| j);
        if let Some(start) = start {
            let name = &before[start..];
            let keyword = matches!(
                name,
                "if" | "for" | "while" | "switch" | "catch" | "return" | "func" | "function"
            );
            if !keyword && !name.starts_with(|c: char| c.is_ascii_digit()) {
                return Some(name.to_owned());
            }
        }
        offset += i + 1;
        search = &context[offset..];
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use isobench_core::diff;

    #[test]
    fn pr_numbers_from_merge_and_squash_subjects() {
        assert_eq!(
            pr_number("Merge pull request #4521 from alice/fast-sort\n\nSpeed up"),
            Some(4521)
        );
        assert_eq!(pr_number("PERF: faster groupby (#12)"), Some(12));
        assert_eq!(pr_number("Fix (#3) then (#45)"), Some(45));
        assert_eq!(
            pr_subject("Merge pull request #6360 from asottile/release-4.6.8 (#6361)"),
            Some((6361, PrForm::Squash))
        );
        assert_eq!(
            pr_subject("Merge pull request #6360 from asottile/release-4.6.8"),
            Some((6360, PrForm::Merge))
        );
        assert_eq!(
            pr_subject("Merge pull request #7 (#x)"),
            Some((7, PrForm::Merge))
        );
        assert_eq!(pr_number("Refers to #12 in the text"), None);
        assert_eq!(pr_number("Subject\n\nBody mentions (#77)"), None);
        assert_eq!(pr_number("Odd (#12a)"), None);
        assert_eq!(pr_number(""), None);
        assert!(names_pr("Tidy (#9)", 9));
        assert!(!names_pr("Tidy (#9)", 90));
    }

    #[test]
    fn instance_ids_follow_d7() {
        assert_eq!(
            instance_id("octo/widgets", Some(12), "abcdef0123"),
            "octo__widgets-PR-12"
        );
        assert_eq!(
            instance_id("octo/widgets", None, "abcdef0123456789"),
            "octo__widgets-abcdef0"
        );
        assert_eq!(pr_from_instance_id("astropy__astropy-12907"), Some(12907));
        assert_eq!(pr_from_instance_id("numpy__numpy-abc1234"), None);
        assert_eq!(pr_from_instance_id("x"), None);
    }

    #[test]
    fn git_times_become_utc() {
        // 1_700_000_000 is 2023-11-14T22:13:20Z (a well-known epoch landmark).
        assert_eq!(
            git_time(1_700_000_000, 330),
            (
                "2023-11-14T22:13:20Z".to_owned(),
                "2023-11-15T03:43:20+05:30".to_owned()
            )
        );
        assert_eq!(git_time(0, -480).1, "1969-12-31T16:00:00-08:00");
        // 2000-02-29 (leap day): 951_782_400.
        assert_eq!(git_time(951_782_400, 0).0, "2000-02-29T00:00:00Z");
    }

    #[test]
    fn changed_lines_and_hunk_contexts() {
        let text = "diff --git a/m.go b/m.go\n--- a/m.go\n+++ b/m.go\n@@ -3,3 +3,4 @@ func (s *Server) Serve(ctx context.Context) error {\n a\n-b\n+c\n+d\n e\n@@ -20,2 +21,2 @@ static int parse_args(int argc)\n-x\n+y\n z\n";
        let patch = diff::parse(text).unwrap();
        let file = &patch.files[0];
        let lines = changed_lines(file);
        assert_eq!(lines.old, vec![4, 20]);
        assert_eq!(lines.new, vec![4, 5, 21]);
        assert_eq!(hunk_header_functions(file), vec!["Serve", "parse_args"]);
        assert_eq!(function_in_context("class Foo:"), None);
        assert_eq!(
            function_in_context("def method(self, x):").as_deref(),
            Some("method")
        );
        assert_eq!(
            function_in_context("    if (x) { helper(y)").as_deref(),
            Some("helper")
        );
    }
}
