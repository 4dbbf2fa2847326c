//! Which files of a diff are test files.
//!
//! The default rules: a path component `tests`, a file name `test_*.py`,
//! a file name `*_test.py`. More rules can be configured. Every classification says which
//! rule matched.
//!
//! A rule is written `dir:NAME` (a directory component equal to NAME), `name:GLOB` (the
//! file name matches GLOB, where `*` stands for any run of characters), or `path:GLOB`
//! (the whole path matches GLOB; `**` crosses directories, `*` does not).

use crate::diff::{self, DiffError};

/// One named rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestRule {
    /// The rule as written, e.g. `name:test_*.py`; also its name in reports.
    pub name: String,
    matcher: Matcher,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Matcher {
    Dir(String),
    Name(Vec<String>),
    Path(Vec<String>),
}

/// A rule that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("test-file rule `{pattern}`: {reason}")]
pub struct RuleError {
    /// The rule as written.
    pub pattern: String,
    /// What is wrong with it.
    pub reason: String,
}

impl TestRule {
    /// Reads a rule (`dir:tests`, `name:test_*.py`, `path:docs/**`).
    pub fn parse(pattern: &str) -> Result<Self, RuleError> {
        let err = |reason: &str| RuleError {
            pattern: pattern.to_owned(),
            reason: reason.to_owned(),
        };
        let (kind, body) = pattern
            .split_once(':')
            .ok_or_else(|| err("expected `dir:NAME`, `name:GLOB` or `path:GLOB`"))?;
        if body.is_empty() {
            return Err(err("the pattern after `:` is empty"));
        }
        let matcher = match kind {
            "dir" if body.contains(['/', '*']) => {
                return Err(err("a `dir:` rule names one directory, without `/` or `*`"));
            }
            "dir" => Matcher::Dir(body.to_owned()),
            "name" if body.contains('/') => {
                return Err(err("a `name:` rule matches a file name, without `/`"));
            }
            "name" => Matcher::Name(body.split('*').map(str::to_owned).collect()),
            "path" => Matcher::Path(body.split('/').map(str::to_owned).collect()),
            _ => return Err(err("the kind must be `dir`, `name` or `path`")),
        };
        Ok(Self {
            name: pattern.to_owned(),
            matcher,
        })
    }

    /// Whether `path` (slash-separated, relative to the repository) matches.
    pub fn matches(&self, path: &str) -> bool {
        let components: Vec<&str> = path.split('/').collect();
        match &self.matcher {
            Matcher::Dir(dir) => components[..components.len().saturating_sub(1)]
                .iter()
                .any(|c| c == dir),
            Matcher::Name(parts) => components.last().is_some_and(|name| glob(parts, name)),
            Matcher::Path(segments) => path_glob(segments, &components),
        }
    }
}

/// `*`-separated literal parts against a text.
fn glob(parts: &[String], text: &str) -> bool {
    let Some((first, rest)) = parts.split_first() else {
        return text.is_empty();
    };
    let Some(mut remaining) = text.strip_prefix(first.as_str()) else {
        return false;
    };
    if rest.is_empty() {
        return remaining.is_empty();
    }
    let (last, middle) = rest.split_last().expect("rest is not empty");
    for part in middle {
        match remaining.find(part.as_str()) {
            Some(i) => remaining = &remaining[i + part.len()..],
            None => return false,
        }
    }
    remaining.len() >= last.len() && remaining.ends_with(last.as_str())
}

fn path_glob(segments: &[String], components: &[&str]) -> bool {
    match segments.split_first() {
        None => components.is_empty(),
        Some((seg, rest)) if seg == "**" => {
            (0..=components.len()).any(|skip| path_glob(rest, &components[skip..]))
        }
        Some((seg, rest)) => {
            let parts: Vec<String> = seg.split('*').map(str::to_owned).collect();
            components
                .split_first()
                .is_some_and(|(c, tail)| glob(&parts, c) && path_glob(rest, tail))
        }
    }
}

/// An ordered set of rules; the first that matches names the classification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestFileRules {
    rules: Vec<TestRule>,
}

/// The default rules: `dir:tests`, `name:test_*.py`, `name:*_test.py`.
const SEED: [&str; 3] = ["dir:tests", "name:test_*.py", "name:*_test.py"];

/// Common rules of other ecosystems, added by [`TestFileRules::extended`].
const EXTENDED: [&str; 9] = [
    "dir:test",
    "dir:testing",
    "name:conftest.py",
    "name:*_test.go",
    "name:*Test.java",
    "name:*.spec.ts",
    "name:*.test.ts",
    "name:*.test.js",
    "name:*.spec.js",
];

/// What `mine` adds to the default rules when none are configured.
const MINING: [&str; 2] = ["dir:testing", "name:conftest.py"];

/// The test files of SWE-bench's published records: a directory `tests`, `test`,
/// `testing` or `e2e`, or a file named `test_*.py`, `*_test.py`, `conftest.py`, `tests.py`.
const SWE_BENCH: [&str; 8] = [
    "dir:tests",
    "dir:test",
    "dir:testing",
    "dir:e2e",
    "name:test_*.py",
    "name:*_test.py",
    "name:conftest.py",
    "name:tests.py",
];

impl TestFileRules {
    /// `mine`'s rules when none are configured: the default ones, then `dir:testing` and
    /// `name:conftest.py` (pytest's own layout and its fixtures files).
    pub fn mining_default() -> Self {
        Self::from_patterns(&[&SEED[..], &MINING[..]].concat()).expect("the mining rules are valid")
    }

    /// The default rules: `dir:tests`, `name:test_*.py`, `name:*_test.py`.
    pub fn seed_default() -> Self {
        Self::from_patterns(&SEED).expect("the seed rules are valid")
    }

    /// The default rules, then `test/`, `testing/`, `conftest.py`, and the usual test-file
    /// names of Go, Java, TypeScript and JavaScript.
    pub fn extended() -> Self {
        Self::from_patterns(&[&SEED[..], &EXTENDED[..]].concat())
            .expect("the extended rules are valid")
    }

    /// Rules from their written form, in order.
    pub fn from_patterns<S: AsRef<str>>(patterns: &[S]) -> Result<Self, RuleError> {
        let rules = patterns
            .iter()
            .map(|p| TestRule::parse(p.as_ref()))
            .collect::<Result<_, _>>()?;
        Ok(Self { rules })
    }

    /// The rules, in order.
    pub fn rules(&self) -> &[TestRule] {
        &self.rules
    }

    /// The first rule `path` matches; `None` means it is not a test file.
    pub fn classify(&self, path: &str) -> Option<&TestRule> {
        self.rules.iter().find(|r| r.matches(path))
    }
}

/// Where a preset puts a file of a diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement<'r> {
    /// In `test_patch`, by this rule.
    Test(&'r TestRule),
    /// In `patch`.
    Source,
    /// In neither (documentation, changelogs, authors: not code the preset keeps).
    LeftOut,
}

/// How a whole-commit diff becomes `patch` and `test_patch`: the test-file rules, which
/// other files are kept, and whether `index` header lines stay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitPreset {
    /// The preset's name (`default`, `swe-bench`).
    pub name: &'static str,
    /// The test-file rules.
    pub rules: TestFileRules,
    /// The extensions (without the dot) a non-test file must have to be kept in `patch`;
    /// `None` keeps every file.
    pub source_extensions: Option<&'static [&'static str]>,
    /// File names kept in `patch` whatever their extension (with `source_extensions`):
    /// `setup.cfg`, whose change to a dependency belongs to the fix. Their headers keep
    /// their `index` lines, as the published record holding one does.
    pub source_names: &'static [&'static str],
    /// Whether `index <old>..<new>` header lines are kept.
    pub index_lines: bool,
}

impl SplitPreset {
    /// The names [`SplitPreset::named`] knows.
    pub const NAMES: [&'static str; 2] = ["default", "swe-bench"];

    /// Every file kept, split by `rules`, headers as git writes them.
    pub fn with_rules(rules: TestFileRules) -> Self {
        Self {
            name: "default",
            rules,
            source_extensions: None,
            source_names: &[],
            index_lines: true,
        }
    }

    /// SWE-bench's published choices: its test files (a directory `tests`, `test`, `testing` or
    /// `e2e`; a file `test_*.py`, `*_test.py`, `conftest.py`, `tests.py`) in `test_patch`
    /// whatever their type, the other `.py` files and `setup.cfg` (where a fix adds the
    /// dependency it needs) in `patch`, every other file (docs, changelogs, `AUTHORS`, other
    /// configuration) left out, and no `index` lines.
    pub fn swe_bench() -> Self {
        Self {
            name: "swe-bench",
            rules: TestFileRules::from_patterns(&SWE_BENCH).expect("the SWE-bench rules are valid"),
            source_extensions: Some(&["py"]),
            source_names: &["setup.cfg"],
            index_lines: false,
        }
    }

    /// The preset called `name`, with `rules` for `default`.
    pub fn named(name: &str, rules: TestFileRules) -> Option<Self> {
        match name {
            "default" => Some(Self::with_rules(rules)),
            "swe-bench" => Some(Self::swe_bench()),
            _ => None,
        }
    }

    /// Where the file with these paths goes; a renamed file is a test file when either of
    /// its paths is, and is kept when either path has a kept extension.
    pub fn place(&self, old_path: Option<&str>, new_path: Option<&str>) -> Placement<'_> {
        let paths = [new_path, old_path];
        if let Some(rule) = paths
            .into_iter()
            .flatten()
            .find_map(|p| self.rules.classify(p))
        {
            return Placement::Test(rule);
        }
        let Some(extensions) = self.source_extensions else {
            return Placement::Source;
        };
        let kept = paths.into_iter().flatten().any(|p| {
            let name = p.rsplit('/').next().unwrap_or(p);
            self.source_names.contains(&name)
                || name
                    .rsplit_once('.')
                    .is_some_and(|(stem, ext)| !stem.is_empty() && extensions.contains(&ext))
        });
        if kept {
            Placement::Source
        } else {
            Placement::LeftOut
        }
    }

    /// Whether the header of the file at `path` keeps its `index` lines.
    pub fn index_lines_of(&self, path: &str) -> bool {
        let name = path.rsplit('/').next().unwrap_or(path);
        self.index_lines || self.source_names.contains(&name)
    }

    /// Splits a whole-commit diff.
    pub fn split(&self, diff: &str) -> Result<SplitPatch, DiffError> {
        let parsed = diff::parse(diff)?;
        let mut split = SplitPatch {
            patch: String::new(),
            test_patch: String::new(),
            classified: Vec::with_capacity(parsed.files.len()),
            left_out: Vec::new(),
        };
        for file in &parsed.files {
            let path = file.path().unwrap_or_default().to_owned();
            let index_lines = self.index_lines_of(&path);
            let part = match self.place(file.old_path.as_deref(), file.new_path.as_deref()) {
                Placement::LeftOut => {
                    split.left_out.push(path);
                    continue;
                }
                Placement::Test(rule) => {
                    split.classified.push((path, Some(rule.name.clone())));
                    &mut split.test_patch
                }
                Placement::Source => {
                    split.classified.push((path, None));
                    &mut split.patch
                }
            };
            if index_lines {
                part.push_str(file.text());
            } else {
                push_without_index_lines(part, file.text());
            }
        }
        Ok(split)
    }
}

/// Appends a file's section of a diff to `out`, without the `index` lines of its header.
pub fn push_without_index_lines(out: &mut String, section: &str) {
    let mut rest = section;
    while let Some(end) = rest.find('\n') {
        let line = &rest[..=end];
        if line.starts_with("--- ") || line.starts_with("@@") || line.starts_with("Binary files ") {
            break;
        }
        if !line.starts_with("index ") {
            out.push_str(line);
        }
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
}

/// A diff split into its non-test and test parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitPatch {
    /// The non-test files' sections, in their original order.
    pub patch: String,
    /// The test files' sections, in their original order.
    pub test_patch: String,
    /// Every file kept, with the rule that made it a test file (`None`: not a test file).
    pub classified: Vec<(String, Option<String>)>,
    /// The files the preset left out of both parts.
    pub left_out: Vec<String>,
}

/// Splits a whole-commit diff by `rules`; a renamed file is a test file when either of
/// its paths is.
pub fn split_patch(diff: &str, rules: &TestFileRules) -> Result<SplitPatch, DiffError> {
    SplitPreset::with_rules(rules.clone()).split(diff)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule_for(rules: &TestFileRules, path: &str) -> Option<String> {
        rules.classify(path).map(|r| r.name.clone())
    }

    #[test]
    fn seed_rules() {
        let rules = TestFileRules::seed_default();
        assert_eq!(
            rule_for(&rules, "astropy/modeling/tests/test_separable.py").as_deref(),
            Some("dir:tests")
        );
        assert_eq!(
            rule_for(&rules, "test_core.py").as_deref(),
            Some("name:test_*.py")
        );
        assert_eq!(
            rule_for(&rules, "pkg/io_test.py").as_deref(),
            Some("name:*_test.py")
        );
        assert_eq!(rule_for(&rules, "src/_pytest/python.py"), None);
        assert_eq!(
            rule_for(&rules, "pkg/tests.py"),
            None,
            "a file named `tests.py` is not a `tests/` directory"
        );
        assert_eq!(
            rule_for(&rules, "pkg/test_data.json"),
            None,
            "`test_*.py` needs the .py"
        );
    }

    #[test]
    fn the_five_verified_files_the_seed_rules_disagree_on() {
        // docs/formats.md §9.2 #8: SWE-bench put these in test_patch; the seed rules do not
        // see them as tests, the extended rules do.
        let seed = TestFileRules::seed_default();
        let extended = TestFileRules::extended();
        for (path, rule) in [
            ("django/test/testcases.py", "dir:test"),
            ("testing/python/integration.py", "dir:testing"),
            ("testing/conftest.py", "dir:testing"),
            ("sphinx/testing/util.py", "dir:testing"),
            ("sympy/testing/quality_unicode.py", "dir:testing"),
        ] {
            assert_eq!(rule_for(&seed, path), None, "{path}");
            assert_eq!(rule_for(&extended, path).as_deref(), Some(rule), "{path}");
        }
        assert_eq!(
            rule_for(&extended, "conftest.py").as_deref(),
            Some("name:conftest.py")
        );
        assert_eq!(
            rule_for(&extended, "web/app.spec.ts").as_deref(),
            Some("name:*.spec.ts")
        );
        assert_eq!(
            rule_for(&extended, "src/main/FooTest.java").as_deref(),
            Some("name:*Test.java")
        );
    }

    #[test]
    fn mining_default_adds_testing_and_conftest() {
        let rules = TestFileRules::mining_default();
        assert_eq!(
            rule_for(&rules, "testing/python/integration.py").as_deref(),
            Some("dir:testing")
        );
        assert_eq!(
            rule_for(&rules, "src/pkg/conftest.py").as_deref(),
            Some("name:conftest.py")
        );
        assert_eq!(rule_for(&rules, "src/_pytest/python.py"), None);
    }

    #[test]
    fn swe_bench_preset_places_files_and_drops_index_lines() {
        let preset = SplitPreset::swe_bench();
        let place = |p: &str| match preset.place(Some(p), Some(p)) {
            Placement::Test(rule) => rule.name.clone(),
            Placement::Source => "patch".into(),
            Placement::LeftOut => "left out".into(),
        };
        assert_eq!(place("src/_pytest/python.py"), "patch");
        assert_eq!(place("testing/conftest.py"), "dir:testing");
        assert_eq!(place("tests/data/expected.json"), "dir:tests");
        assert_eq!(place("changelog/7982.bugfix.rst"), "left out");
        assert_eq!(place("AUTHORS"), "left out");
        assert_eq!(place("docs/conf.py"), "patch");
        assert_eq!(place(".py"), "left out");
        // A fix that adds the dependency it needs (pylint-dev__pylint-4661).
        assert_eq!(place("setup.cfg"), "patch");
        assert_eq!(place("tests/setup.cfg"), "dir:tests");
        assert_eq!(place("setup.cfg.in"), "left out");
        assert!(preset.index_lines_of("setup.cfg") && !preset.index_lines_of("a.py"));
        let source = "diff --git a/lib/a.py b/lib/a.py\nindex 1111111..2222222 100644\n--- a/lib/a.py\n+++ b/lib/a.py\n@@ -1 +1 @@\n-index x\n+index y\n";
        let docs = "diff --git a/AUTHORS b/AUTHORS\nindex 3333333..4444444 100644\n--- a/AUTHORS\n+++ b/AUTHORS\n@@ -1 +1,2 @@\n Ada\n+Bob\n";
        let split = preset.split(&format!("{docs}{source}")).unwrap();
        assert_eq!(
            split.patch,
            "diff --git a/lib/a.py b/lib/a.py\n--- a/lib/a.py\n+++ b/lib/a.py\n@@ -1 +1 @@\n-index x\n+index y\n",
            "the header's `index` line goes, a changed line reading `index` stays"
        );
        assert_eq!(split.test_patch, "");
        assert_eq!(split.left_out, vec!["AUTHORS".to_owned()]);
    }

    #[test]
    fn path_rules_and_errors() {
        let rules = TestFileRules::from_patterns(&["path:benchmarks/**/*.py"]).unwrap();
        assert!(rules.classify("benchmarks/a/b/run.py").is_some());
        assert!(rules.classify("benchmarks/run.py").is_some());
        assert!(rules.classify("src/benchmarks/run.py").is_none());
        for bad in ["tests", "dir:a/b", "name:", "glob:*.py", "name:a/b.py"] {
            let err = TestFileRules::from_patterns(&[bad]).unwrap_err();
            assert_eq!(err.pattern, bad);
        }
    }

    #[test]
    fn split_keeps_each_file_section_exactly() {
        let source = "diff --git a/lib/a.py b/lib/a.py\n--- a/lib/a.py\n+++ b/lib/a.py\n@@ -1 +1 @@\n-x\n+y\n";
        let test = "diff --git a/tests/test_a.py b/tests/test_a.py\n--- a/tests/test_a.py\n+++ b/tests/test_a.py\n@@ -1 +1 @@\n-x\n+y\n";
        let whole = format!("{test}{source}");
        let split = split_patch(&whole, &TestFileRules::seed_default()).unwrap();
        assert_eq!(split.patch, source);
        assert_eq!(split.test_patch, test);
        assert_eq!(
            split.classified,
            vec![
                ("tests/test_a.py".to_owned(), Some("dir:tests".to_owned())),
                ("lib/a.py".to_owned(), None)
            ]
        );
        assert!(split.left_out.is_empty());
    }
}
