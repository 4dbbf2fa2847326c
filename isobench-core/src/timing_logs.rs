//! Measurement logs turned into per-test timing samples, one `duration_changes` entry per
//! `efficiency_test`.
//!
//! Three kinds of log are read:
//!
//! * GSO-style script output: `Execution time: <seconds>s` lines (GSO's harness parses them
//!   with the pattern `Execution time:\s+([\d\.]+)s`); the log names no test, so the caller
//!   says which test it belongs to;
//! * `pytest --durations=N` output: lines `<seconds>s call <nodeid>` (setup and teardown
//!   phases are not the test's own time and are skipped);
//! * pytest-json-report files (SWE-Perf's source): `tests[].nodeid` with
//!   `tests[].call.duration`.

use serde_json::Value;

use crate::timing::TestTimings;

/// What went wrong reading a log or matching it to a record.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TimingLogError {
    /// The log holds no timing line of any known kind.
    #[error(
        "no timings found (expected `Execution time: <sec>s` lines, `pytest --durations` lines or a pytest-json-report file)"
    )]
    NoTimings,
    /// A pytest-json-report file without the expected shape.
    #[error("not a pytest-json-report file: {0}")]
    BadJsonReport(String),
    /// Tests in the logs that the record's `efficiency_test` does not list.
    #[error("the logs time tests the record's `efficiency_test` does not list: {}", .0.join(", "))]
    UnknownTests(Vec<String>),
    /// Tests of `efficiency_test` missing from the base or head logs.
    #[error("`efficiency_test` lists tests with no {side} timing in the logs: {}", tests.join(", "))]
    MissingTests {
        /// `base` or `head`.
        side: &'static str,
        /// The tests.
        tests: Vec<String>,
    },
    /// An unnamed (`Execution time`) log given to a record with several tests and no
    /// test index.
    #[error(
        "`Execution time` lines name no test and the record has {0} efficiency tests: name the log `test<i>...` after the test's index"
    )]
    Unattributed(usize),
}

/// The kind of a log, as detected from its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogKind {
    /// `Execution time: <sec>s` lines.
    ExecutionTime,
    /// `pytest --durations` lines.
    PytestDurations,
    /// A pytest-json-report file.
    PytestJsonReport,
}

impl LogKind {
    /// A short name for reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ExecutionTime => "execution-time",
            Self::PytestDurations => "pytest-durations",
            Self::PytestJsonReport => "pytest-json-report",
        }
    }
}

/// The samples one log gives: named tests (pytest) or unnamed samples (`Execution time`).
#[derive(Debug, Clone, PartialEq)]
pub enum LogSamples {
    /// Samples of one test the log does not name, in order.
    Unnamed(Vec<f64>),
    /// `(nodeid, seconds)` pairs, in order.
    Named(Vec<(String, f64)>),
}

/// Every `Execution time: <seconds>s` value in `text`, in order.
pub fn execution_times(text: &str) -> Vec<f64> {
    const KEY: &str = "Execution time:";
    let mut out = Vec::new();
    for line in text.lines() {
        let mut rest = line;
        while let Some(i) = rest.find(KEY) {
            rest = &rest[i + KEY.len()..];
            let trimmed = rest.trim_start();
            if trimmed.len() == rest.len() {
                continue; // the pattern needs at least one blank
            }
            let number_len = trimmed
                .bytes()
                .take_while(|b| b.is_ascii_digit() || *b == b'.')
                .count();
            let (number, after) = trimmed.split_at(number_len);
            if after.starts_with('s')
                && let Ok(value) = number.parse::<f64>()
                && value.is_finite()
            {
                out.push(value);
            }
        }
    }
    out
}

/// Every `<seconds>s call <nodeid>` line of `pytest --durations` output, in order.
pub fn pytest_durations(text: &str) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let (Some(time), Some(phase), Some(node)) = (words.next(), words.next(), words.next())
        else {
            continue;
        };
        if phase != "call" || words.next().is_some() {
            continue;
        }
        let Some(Ok(seconds)) = time.strip_suffix('s').map(str::parse::<f64>) else {
            continue;
        };
        if seconds.is_finite() && seconds >= 0.0 {
            out.push((node.to_owned(), seconds));
        }
    }
    out
}

/// The `(nodeid, call.duration)` of every test of a pytest-json-report document that has
/// a `call` phase.
pub fn pytest_json_report(report: &Value) -> Result<Vec<(String, f64)>, TimingLogError> {
    let tests = report
        .get("tests")
        .and_then(Value::as_array)
        .ok_or_else(|| TimingLogError::BadJsonReport("no `tests` array".into()))?;
    let mut out = Vec::with_capacity(tests.len());
    for (i, test) in tests.iter().enumerate() {
        let node = test.get("nodeid").and_then(Value::as_str).ok_or_else(|| {
            TimingLogError::BadJsonReport(format!("`tests[{i}]` has no `nodeid`"))
        })?;
        if let Some(duration) = test
            .get("call")
            .and_then(|c| c.get("duration"))
            .and_then(Value::as_f64)
        {
            if duration < 0.0 {
                return Err(TimingLogError::BadJsonReport(format!(
                    "`tests[{i}].call.duration` is {duration}, a negative duration"
                )));
            }
            out.push((node.to_owned(), duration));
        }
    }
    Ok(out)
}

/// Reads a log of any known kind, detected from its content.
pub fn parse_log(text: &str) -> Result<(LogKind, LogSamples), TimingLogError> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('{')
        && let Ok(value) = serde_json::from_str::<Value>(trimmed)
    {
        let named = pytest_json_report(&value)?;
        if named.is_empty() {
            return Err(TimingLogError::NoTimings);
        }
        return Ok((LogKind::PytestJsonReport, LogSamples::Named(named)));
    }
    let times = execution_times(text);
    if !times.is_empty() {
        return Ok((LogKind::ExecutionTime, LogSamples::Unnamed(times)));
    }
    let named = pytest_durations(text);
    if !named.is_empty() {
        return Ok((LogKind::PytestDurations, LogSamples::Named(named)));
    }
    Err(TimingLogError::NoTimings)
}

/// Samples gathered for one side (base or head), keyed by test, in first-seen order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SideSamples {
    tests: Vec<(String, Vec<f64>)>,
}

impl SideSamples {
    /// Adds one sample of `test`.
    pub fn push(&mut self, test: &str, seconds: f64) {
        match self.tests.iter_mut().find(|(t, _)| t == test) {
            Some((_, samples)) => samples.push(seconds),
            None => self.tests.push((test.to_owned(), vec![seconds])),
        }
    }

    /// The tests, in first-seen order.
    pub fn tests(&self) -> impl Iterator<Item = &str> {
        self.tests.iter().map(|(t, _)| t.as_str())
    }

    /// The samples of `test`.
    pub fn get(&self, test: &str) -> Option<&[f64]> {
        self.tests
            .iter()
            .find(|(t, _)| t == test)
            .map(|(_, s)| s.as_slice())
    }

    /// Whether nothing was gathered.
    pub fn is_empty(&self) -> bool {
        self.tests.is_empty()
    }
}

/// Adds a parsed log's samples to `side`; unnamed samples go to `unnamed_test`, which the
/// caller chooses (the only efficiency test, or the one the log's file name gives).
pub fn add_samples(
    side: &mut SideSamples,
    samples: &LogSamples,
    unnamed_test: Option<&str>,
    test_count: usize,
) -> Result<(), TimingLogError> {
    match samples {
        LogSamples::Named(pairs) => {
            for (test, seconds) in pairs {
                side.push(test, *seconds);
            }
        }
        LogSamples::Unnamed(values) => {
            let test = unnamed_test.ok_or(TimingLogError::Unattributed(test_count))?;
            for seconds in values {
                side.push(test, *seconds);
            }
        }
    }
    Ok(())
}

/// Pairs base and head samples with `efficiency_test` (`duration_changes[i]` belongs
/// to `efficiency_test[i]`). Every listed test needs samples on both sides, and the logs
/// may time no other test (extra tests are an error, not silently dropped).
pub fn match_tests(
    efficiency_test: &[String],
    base: &SideSamples,
    head: &SideSamples,
) -> Result<Vec<TestTimings>, TimingLogError> {
    let unknown: Vec<String> = base
        .tests()
        .chain(head.tests())
        .filter(|t| !efficiency_test.iter().any(|e| e == t))
        .fold(Vec::new(), |mut acc, t| {
            if !acc.iter().any(|a: &String| a == t) {
                acc.push(t.to_owned());
            }
            acc
        });
    if !unknown.is_empty() {
        return Err(TimingLogError::UnknownTests(unknown));
    }
    for (side, samples) in [("base", base), ("head", head)] {
        let missing: Vec<String> = efficiency_test
            .iter()
            .filter(|t| samples.get(t).is_none_or(<[f64]>::is_empty))
            .cloned()
            .collect();
        if !missing.is_empty() {
            return Err(TimingLogError::MissingTests {
                side,
                tests: missing,
            });
        }
    }
    Ok(efficiency_test
        .iter()
        .map(|t| TestTimings {
            base: base.get(t).unwrap_or_default().to_vec(),
            head: head.get(t).unwrap_or_default().to_vec(),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn execution_time_lines() {
        let log = "warming up\nExecution time: 0.123456s\nExecution time: 2.5s\nExecution time:3.0s\nExecution time: abc\nnoise Execution time: 1s tail\n";
        // `Execution time:3.0s` has no blank (GSO's pattern needs one) and `abc` no number.
        assert_eq!(execution_times(log), vec![0.123_456, 2.5, 1.0]);
        assert_eq!(
            parse_log(log).unwrap(),
            (
                LogKind::ExecutionTime,
                LogSamples::Unnamed(vec![0.123_456, 2.5, 1.0])
            )
        );
    }

    #[test]
    fn pytest_durations_lines() {
        let log = "============ slowest 3 durations ============\n0.52s call     tests/test_a.py::test_sort[big]\n0.10s setup    tests/test_a.py::test_sort[big]\n0.01s call     tests/test_b.py::test_x\n\n(1 durations < 0.005s hidden.  Use -vv to show these durations.)\n=== 2 passed in 0.70s ===\n";
        assert_eq!(
            pytest_durations(log),
            vec![
                ("tests/test_a.py::test_sort[big]".to_owned(), 0.52),
                ("tests/test_b.py::test_x".to_owned(), 0.01)
            ]
        );
        assert_eq!(parse_log(log).unwrap().0, LogKind::PytestDurations);
    }

    #[test]
    fn json_report() {
        let report = serde_json::json!({"tests": [
            {"nodeid": "t.py::a", "outcome": "passed", "setup": {"duration": 0.1}, "call": {"duration": 0.25}},
            {"nodeid": "t.py::b", "outcome": "skipped", "setup": {"duration": 0.1}}
        ]});
        assert_eq!(
            pytest_json_report(&report).unwrap(),
            vec![("t.py::a".to_owned(), 0.25)]
        );
        assert!(matches!(
            pytest_json_report(&serde_json::json!({"x": 1})),
            Err(TimingLogError::BadJsonReport(_))
        ));
        let negative =
            serde_json::json!({"tests": [{"nodeid": "t.py::a", "call": {"duration": -0.5}}]});
        assert_eq!(
            pytest_json_report(&negative),
            Err(TimingLogError::BadJsonReport(
                "`tests[0].call.duration` is -0.5, a negative duration".into()
            ))
        );
    }

    #[test]
    fn no_timings_is_an_error() {
        assert_eq!(
            parse_log("collected 3 items\n3 passed\n"),
            Err(TimingLogError::NoTimings)
        );
    }

    #[test]
    fn matching_to_efficiency_test() {
        let tests = vec!["a".to_owned(), "b".to_owned()];
        let mut base = SideSamples::default();
        let mut head = SideSamples::default();
        for (t, b, h) in [("b", 4.0, 1.0), ("a", 2.0, 1.0), ("a", 2.2, 1.1)] {
            base.push(t, b);
            head.push(t, h);
        }
        let matched = match_tests(&tests, &base, &head).unwrap();
        assert_eq!(matched[0].base, vec![2.0, 2.2]);
        assert_eq!(matched[1].head, vec![1.0]);
        head.push("c", 1.0);
        assert_eq!(
            match_tests(&tests, &base, &head),
            Err(TimingLogError::UnknownTests(vec!["c".into()]))
        );
        let mut base_only_a = SideSamples::default();
        base_only_a.push("a", 1.0);
        assert!(matches!(
            match_tests(&tests, &base_only_a, &base),
            Err(TimingLogError::MissingTests { side: "base", .. })
        ));
        let mut side = SideSamples::default();
        assert_eq!(
            add_samples(&mut side, &LogSamples::Unnamed(vec![1.0]), None, 2),
            Err(TimingLogError::Unattributed(2))
        );
    }
}
