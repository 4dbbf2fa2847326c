//! SWE-Perf's *runs by test* layout and the canonical *per test* layout: conversion both
//! ways, with every gap and malformed value reported.

use std::collections::{HashMap, HashSet};
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use super::TestTimings;

/// The JSON pointer prefix under which timing errors are reported.
const DURATION_CHANGES: &str = "/duration_changes";

/// Which side(s) of a measurement a [`Gap`] or an error concerns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The duration on the base commit.
    Base,
    /// The duration on the head commit.
    Head,
    /// Both durations (the run has no entry for the test, or an entry with neither key).
    Both,
}

impl Side {
    /// The lowercase name used in JSON (`"base"`, `"head"`, `"both"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Base => "base",
            Side::Head => "head",
            Side::Both => "both",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A sample that a SWE-Perf run did not provide.
///
/// Missing data is never padded or invented: the run simply contributes no sample for the
/// missing side(s) of that test, and the gap is recorded here so it can be reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gap {
    /// Index of the run in the SWE-Perf `duration_changes` array.
    pub run: usize,
    /// The test id (pytest node id).
    pub test: String,
    /// Which side is missing; [`Side::Both`] when the run has no usable entry for the test.
    pub side: Side,
}

/// The result of [`transpose_runs`]: per-test samples plus everything that could not be
/// carried by the per-test layout.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Transposed {
    /// One item per requested test, in the order of the `tests` argument.
    pub per_test: Vec<TestTimings>,
    /// Samples missing from runs, in run order and then test order.
    pub gaps: Vec<Gap>,
    /// Tests present in some run but absent from `tests`, in order of first appearance.
    /// Their samples are not carried (and not validated).
    pub extra_tests: Vec<String>,
    /// JSON pointers of members of a test entry other than `base` and `head`; they are
    /// ignored.
    pub ignored_fields: Vec<String>,
}

/// Why timing data could not be converted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TimingError {
    /// A SWE-Perf run is not a JSON object.
    #[error("{pointer}: run {run} must be an object keyed by test id, found {found}")]
    RunNotObject {
        /// Index of the run.
        run: usize,
        /// JSON pointer of the run, e.g. `/duration_changes/3`.
        pointer: String,
        /// Description of what was found instead.
        found: String,
    },
    /// A test entry in a SWE-Perf run is not a JSON object.
    #[error(
        "{pointer}: the entry of test `{test}` in run {run} must be an object \
         with \"base\" and \"head\", found {found}"
    )]
    EntryNotObject {
        /// Index of the run.
        run: usize,
        /// The test id.
        test: String,
        /// JSON pointer of the entry, e.g. `/duration_changes/3/tests~1test_a.py::test_x`.
        pointer: String,
        /// Description of what was found instead.
        found: String,
    },
    /// A duration in a SWE-Perf run is not a finite number.
    #[error(
        "{pointer}: the {side} duration of test `{test}` in run {run} must be a finite \
         number of seconds, found {found}"
    )]
    NotANumber {
        /// Index of the run.
        run: usize,
        /// The test id.
        test: String,
        /// The side holding the bad value ([`Side::Base`] or [`Side::Head`]).
        side: Side,
        /// JSON pointer of the value, e.g. `/duration_changes/3/test_a/base`.
        pointer: String,
        /// Description of what was found instead.
        found: String,
    },
    /// A per-test sample is NaN or infinite, so it cannot be written as JSON.
    #[error(
        "{pointer}: sample {sample} of the {side} durations of test `{test}` is {value}, \
         not a finite number"
    )]
    NonFiniteSample {
        /// The test id.
        test: String,
        /// [`Side::Base`] or [`Side::Head`].
        side: Side,
        /// Index of the sample within its list.
        sample: usize,
        /// The offending value, rendered as text (`NaN`, `inf`, `-inf`).
        value: String,
        /// JSON pointer in the canonical layout, e.g. `/duration_changes/0/head/4`.
        pointer: String,
    },
    /// The same test id appears twice in the list of tests.
    #[error("{pointer}: test `{test}` is listed twice (first at index {first})")]
    DuplicateTest {
        /// The repeated test id.
        test: String,
        /// Index of its first occurrence.
        first: usize,
        /// JSON pointer of the repeated occurrence, e.g. `/efficiency_test/4`.
        pointer: String,
    },
    /// A test has different numbers of base and head samples, so runs cannot be rebuilt
    /// (run `i` would need sample `i` of both sides).
    #[error(
        "{pointer}: test `{test}` has {base} base and {head} head samples; runs-by-test \
         needs equal counts"
    )]
    UnequalSampleCounts {
        /// The test id.
        test: String,
        /// Number of base samples.
        base: usize,
        /// Number of head samples.
        head: usize,
        /// JSON pointer of the canonical item, e.g. `/duration_changes/2`.
        pointer: String,
    },
    /// The per-test timings and the test ids have different lengths.
    #[error("{pointer}: {per_test} timing items for {tests} tests; the lengths must match")]
    LengthMismatch {
        /// Number of test ids.
        tests: usize,
        /// Number of timing items.
        per_test: usize,
        /// Always `/duration_changes`.
        pointer: String,
    },
}

impl TimingError {
    /// The JSON pointer locating the problem.
    pub fn pointer(&self) -> &str {
        match self {
            TimingError::RunNotObject { pointer, .. }
            | TimingError::EntryNotObject { pointer, .. }
            | TimingError::NotANumber { pointer, .. }
            | TimingError::NonFiniteSample { pointer, .. }
            | TimingError::DuplicateTest { pointer, .. }
            | TimingError::UnequalSampleCounts { pointer, .. }
            | TimingError::LengthMismatch { pointer, .. } => pointer,
        }
    }
}

/// Escapes one JSON pointer reference token (RFC 6901): `~` becomes `~0`, `/` becomes `~1`.
fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// A short description of a JSON value for error messages.
fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => {
            const MAX: usize = 40;
            if s.chars().count() > MAX {
                let head: String = s.chars().take(MAX).collect();
                format!("the string {head:?}…")
            } else {
                format!("the string {s:?}")
            }
        }
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

/// Maps each test id to its index, rejecting duplicates.
fn index_tests(tests: &[String]) -> Result<HashMap<&str, usize>, TimingError> {
    let mut index = HashMap::with_capacity(tests.len());
    for (i, test) in tests.iter().enumerate() {
        if let Some(&first) = index.get(test.as_str()) {
            return Err(TimingError::DuplicateTest {
                test: test.clone(),
                first,
                pointer: format!("/efficiency_test/{i}"),
            });
        }
        index.insert(test.as_str(), i);
    }
    Ok(index)
}

/// Converts SWE-Perf's runs-by-test `duration_changes` (already JSON-decoded) into per-test
/// sample lists, in the order of `tests`.
///
/// Each run must be an object keyed by test id whose values are objects
/// `{"base": <seconds>, "head": <seconds>}`. Sample `k` of a test's base list comes from the
/// `k`-th run that has a base value for that test (likewise for head).
///
/// Missing data is never padded: a run without an entry for a test, an entry with only
/// `base` or only `head`, and an empty run `{}` contribute no sample for the missing side(s);
/// each omission is recorded as a [`Gap`]. Tests that appear in runs but not in `tests` are
/// listed in [`Transposed::extra_tests`] (their values are dropped, not validated); members of
/// an entry other than `base`/`head` are listed in [`Transposed::ignored_fields`].
///
/// # Errors
///
/// * [`TimingError::DuplicateTest`] if `tests` repeats an id;
/// * [`TimingError::RunNotObject`] if a run is not an object;
/// * [`TimingError::EntryNotObject`] if a requested test's entry is not an object;
/// * [`TimingError::NotANumber`] if a `base`/`head` value is not a number (a string, `null`,
///   …), with the pointer `/duration_changes/<run>/<test>/<side>` (test id escaped per
///   RFC 6901).
pub fn transpose_runs(runs: &[Value], tests: &[String]) -> Result<Transposed, TimingError> {
    let index = index_tests(tests)?;
    let mut out = Transposed {
        per_test: vec![TestTimings::default(); tests.len()],
        ..Transposed::default()
    };
    let mut seen_extra: HashSet<&str> = HashSet::new();

    for (run, value) in runs.iter().enumerate() {
        let Value::Object(map) = value else {
            return Err(TimingError::RunNotObject {
                run,
                pointer: format!("{DURATION_CHANGES}/{run}"),
                found: describe(value),
            });
        };
        for (test, timings) in tests.iter().zip(out.per_test.iter_mut()) {
            let entry_pointer = format!("{DURATION_CHANGES}/{run}/{}", escape_token(test));
            let entry = match map.get(test) {
                None => {
                    out.gaps.push(Gap {
                        run,
                        test: test.clone(),
                        side: Side::Both,
                    });
                    continue;
                }
                Some(Value::Object(entry)) => entry,
                Some(other) => {
                    return Err(TimingError::EntryNotObject {
                        run,
                        test: test.clone(),
                        pointer: entry_pointer,
                        found: describe(other),
                    });
                }
            };
            let base = read_seconds(entry, Side::Base, run, test, &entry_pointer)?;
            let head = read_seconds(entry, Side::Head, run, test, &entry_pointer)?;
            let missing = match (base, head) {
                (Some(b), Some(h)) => {
                    timings.base.push(b);
                    timings.head.push(h);
                    None
                }
                (Some(b), None) => {
                    timings.base.push(b);
                    Some(Side::Head)
                }
                (None, Some(h)) => {
                    timings.head.push(h);
                    Some(Side::Base)
                }
                (None, None) => Some(Side::Both),
            };
            if let Some(side) = missing {
                out.gaps.push(Gap {
                    run,
                    test: test.clone(),
                    side,
                });
            }
            for key in entry.keys() {
                if key != "base" && key != "head" {
                    out.ignored_fields
                        .push(format!("{entry_pointer}/{}", escape_token(key)));
                }
            }
        }
        for key in map.keys() {
            if !index.contains_key(key.as_str()) && seen_extra.insert(key.as_str()) {
                out.extra_tests.push(key.clone());
            }
        }
    }
    Ok(out)
}

/// Reads `entry[side]` as a finite number of seconds; `Ok(None)` when the key is absent.
fn read_seconds(
    entry: &Map<String, Value>,
    side: Side,
    run: usize,
    test: &str,
    entry_pointer: &str,
) -> Result<Option<f64>, TimingError> {
    let Some(value) = entry.get(side.as_str()) else {
        return Ok(None);
    };
    match value.as_f64() {
        Some(seconds) if value.is_number() && seconds.is_finite() => Ok(Some(seconds)),
        _ => Err(TimingError::NotANumber {
            run,
            test: test.to_owned(),
            side,
            pointer: format!("{entry_pointer}/{side}"),
            found: describe(value),
        }),
    }
}

/// Rebuilds SWE-Perf's runs-by-test layout from per-test samples (the structural inverse of
/// [`transpose_runs`] for complete data).
///
/// Run `i` holds sample `i` of every test that has more than `i` samples, as
/// `{"base": b_i, "head": h_i}`, with tests in the order of `tests`. The number of runs is the
/// largest sample count; a test with fewer samples than that is absent from the trailing runs
/// (which SWE-Perf's format allows), and a test with no samples appears in no run. Where the
/// original gaps were is not known here, so this is only an exact inverse for data without
/// gaps (exact re-export of an original SWE-Perf record is done by keeping the original).
///
/// # Errors
///
/// * [`TimingError::LengthMismatch`] if `per_test` and `tests` differ in length;
/// * [`TimingError::DuplicateTest`] if `tests` repeats an id (runs are keyed by id);
/// * [`TimingError::UnequalSampleCounts`] if a test has different numbers of base and head
///   samples, naming the test and both counts;
/// * [`TimingError::NonFiniteSample`] if a sample is NaN or infinite (JSON cannot hold it).
pub fn untranspose(
    per_test: &[TestTimings],
    tests: &[String],
) -> Result<Vec<Map<String, Value>>, TimingError> {
    if per_test.len() != tests.len() {
        return Err(TimingError::LengthMismatch {
            tests: tests.len(),
            per_test: per_test.len(),
            pointer: DURATION_CHANGES.to_owned(),
        });
    }
    index_tests(tests)?;
    let mut runs_needed = 0;
    for (i, (timings, test)) in per_test.iter().zip(tests).enumerate() {
        if timings.base.len() != timings.head.len() {
            return Err(TimingError::UnequalSampleCounts {
                test: test.clone(),
                base: timings.base.len(),
                head: timings.head.len(),
                pointer: format!("{DURATION_CHANGES}/{i}"),
            });
        }
        for (side, samples) in [(Side::Base, &timings.base), (Side::Head, &timings.head)] {
            if let Some((k, v)) = samples.iter().enumerate().find(|(_, v)| !v.is_finite()) {
                return Err(TimingError::NonFiniteSample {
                    test: test.clone(),
                    side,
                    sample: k,
                    value: v.to_string(),
                    pointer: format!("{DURATION_CHANGES}/{i}/{side}/{k}"),
                });
            }
        }
        runs_needed = runs_needed.max(timings.base.len());
    }

    let mut runs = Vec::with_capacity(runs_needed);
    for r in 0..runs_needed {
        let mut run = Map::new();
        for (timings, test) in per_test.iter().zip(tests) {
            let (Some(&b), Some(&h)) = (timings.base.get(r), timings.head.get(r)) else {
                continue;
            };
            // Both are finite (checked above), so `from_f64` cannot fail.
            let (Some(b), Some(h)) = (Number::from_f64(b), Number::from_f64(h)) else {
                continue;
            };
            let mut entry = Map::new();
            entry.insert("base".to_owned(), Value::Number(b));
            entry.insert("head".to_owned(), Value::Number(h));
            run.insert(test.clone(), Value::Object(entry));
        }
        runs.push(run);
    }
    Ok(runs)
}

#[cfg(test)]
#[allow(
    clippy::float_cmp,
    reason = "exact comparisons are deliberate where the value is exactly representable"
)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn ids(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| (*s).to_owned()).collect()
    }

    // ---------------------------------------------------------- transpose

    #[test]
    fn transpose_complete_runs() {
        let runs = vec![
            json!({"t1": {"base": 1.0, "head": 0.5}, "t2": {"base": 2, "head": 1}}),
            json!({"t2": {"base": 2.5, "head": 1.5}, "t1": {"base": 1.1, "head": 0.6}}),
        ];
        let out = transpose_runs(&runs, &ids(&["t1", "t2"])).unwrap();
        assert_eq!(
            out.per_test,
            vec![
                TestTimings {
                    base: vec![1.0, 1.1],
                    head: vec![0.5, 0.6]
                },
                TestTimings {
                    base: vec![2.0, 2.5],
                    head: vec![1.0, 1.5]
                },
            ]
        );
        assert!(out.gaps.is_empty() && out.extra_tests.is_empty());
        assert!(out.ignored_fields.is_empty());
    }

    #[test]
    fn transpose_records_gaps_without_padding() {
        let runs = vec![
            json!({"t1": {"base": 1.0, "head": 0.5}, "t2": {"base": 2.0}}),
            json!({}),
            json!({"t2": {"head": 1.5}, "t1": {"base": 1.1, "head": 0.6}}),
            json!({"t1": {}, "t2": {"base": 2.2, "head": 1.2}}),
        ];
        let out = transpose_runs(&runs, &ids(&["t1", "t2"])).unwrap();
        assert_eq!(out.per_test[0].base, vec![1.0, 1.1]);
        assert_eq!(out.per_test[0].head, vec![0.5, 0.6]);
        assert_eq!(out.per_test[1].base, vec![2.0, 2.2]);
        assert_eq!(out.per_test[1].head, vec![1.5, 1.2]);
        let gap = |run, test: &str, side| Gap {
            run,
            test: test.to_owned(),
            side,
        };
        assert_eq!(
            out.gaps,
            vec![
                gap(0, "t2", Side::Head),
                gap(1, "t1", Side::Both),
                gap(1, "t2", Side::Both),
                gap(2, "t2", Side::Base),
                gap(3, "t1", Side::Both),
            ]
        );
    }

    #[test]
    fn transpose_reports_extra_tests_and_ignored_fields() {
        let runs = vec![
            json!({"t1": {"base": 1.0, "head": 0.5, "note": "x"}, "x/y": {"base": 9}}),
            json!({"t1": {"base": 1.0, "head": 0.5}, "zz": 1, "x/y": {"base": 9}}),
        ];
        let out = transpose_runs(&runs, &ids(&["t1"])).unwrap();
        assert_eq!(out.extra_tests, ids(&["x/y", "zz"]));
        assert_eq!(out.ignored_fields, ids(&["/duration_changes/0/t1/note"]));
        assert_eq!(out.per_test[0].base.len(), 2);
    }

    #[test]
    fn transpose_rejects_non_numbers_with_pointer() {
        let runs = vec![
            json!({"a/b~c": {"base": 1.0, "head": 0.5}}),
            json!({"a/b~c": {"base": "1.0", "head": 0.5}}),
        ];
        let err = transpose_runs(&runs, &ids(&["a/b~c"])).unwrap_err();
        assert_eq!(err.pointer(), "/duration_changes/1/a~1b~0c/base");
        match &err {
            TimingError::NotANumber {
                run, test, side, ..
            } => {
                assert_eq!((*run, test.as_str(), *side), (1, "a/b~c", Side::Base));
            }
            other => panic!("unexpected {other:?}"),
        }
        let msg = err.to_string();
        assert!(msg.contains("/duration_changes/1/a~1b~0c/base"), "{msg}");
        assert!(msg.contains("the string \"1.0\""), "{msg}");

        let runs = vec![json!({"t": {"base": 1.0, "head": null}})];
        let err = transpose_runs(&runs, &ids(&["t"])).unwrap_err();
        assert_eq!(err.pointer(), "/duration_changes/0/t/head");
        assert!(err.to_string().contains("null"));
    }

    #[test]
    fn transpose_rejects_bad_structure() {
        let err = transpose_runs(&[json!({}), json!([1, 2])], &ids(&["t"])).unwrap_err();
        assert!(
            matches!(err, TimingError::RunNotObject { run: 1, .. }),
            "{err:?}"
        );
        assert_eq!(err.pointer(), "/duration_changes/1");

        let err = transpose_runs(&[json!({"t": 3})], &ids(&["t"])).unwrap_err();
        assert!(
            matches!(err, TimingError::EntryNotObject { run: 0, .. }),
            "{err:?}"
        );
        assert_eq!(err.pointer(), "/duration_changes/0/t");

        let err = transpose_runs(&[], &ids(&["t", "u", "t"])).unwrap_err();
        assert!(
            matches!(err, TimingError::DuplicateTest { first: 0, .. }),
            "{err:?}"
        );
        assert_eq!(err.pointer(), "/efficiency_test/2");
    }

    #[test]
    fn transpose_empty_inputs() {
        let out = transpose_runs(&[], &ids(&["t"])).unwrap();
        assert_eq!(out.per_test, vec![TestTimings::default()]);
        assert!(out.gaps.is_empty());
        let out = transpose_runs(&[json!({"t": {"base": 1, "head": 1}})], &[]).unwrap();
        assert!(out.per_test.is_empty());
        assert_eq!(out.extra_tests, ids(&["t"]));
    }

    // -------------------------------------------------------- untranspose

    #[test]
    fn untranspose_rebuilds_runs() {
        let per_test = vec![
            TestTimings {
                base: vec![1.0, 1.1],
                head: vec![0.5, 0.6],
            },
            TestTimings {
                base: vec![2.0],
                head: vec![1.0],
            },
            TestTimings::default(),
        ];
        let runs = untranspose(&per_test, &ids(&["t1", "t2", "t3"])).unwrap();
        let as_json: Vec<Value> = runs.into_iter().map(Value::Object).collect();
        assert_eq!(
            as_json,
            vec![
                json!({"t1": {"base": 1.0, "head": 0.5}, "t2": {"base": 2.0, "head": 1.0}}),
                json!({"t1": {"base": 1.1, "head": 0.6}}),
            ]
        );
        assert!(untranspose(&[], &[]).unwrap().is_empty());
    }

    #[test]
    fn untranspose_errors() {
        let uneven = TestTimings {
            base: vec![1.0, 2.0, 3.0],
            head: vec![1.0],
        };
        let err = untranspose(&[TestTimings::default(), uneven], &ids(&["a", "b"])).unwrap_err();
        assert_eq!(
            err,
            TimingError::UnequalSampleCounts {
                test: "b".to_owned(),
                base: 3,
                head: 1,
                pointer: "/duration_changes/1".to_owned(),
            }
        );
        assert!(err.to_string().contains("3 base and 1 head"));

        let err = untranspose(&[], &ids(&["a"])).unwrap_err();
        assert!(matches!(
            err,
            TimingError::LengthMismatch {
                tests: 1,
                per_test: 0,
                ..
            }
        ));

        let nan = TestTimings {
            base: vec![1.0],
            head: vec![f64::NAN],
        };
        let err = untranspose(&[nan], &ids(&["a"])).unwrap_err();
        assert_eq!(err.pointer(), "/duration_changes/0/head/0");

        let err = untranspose(
            &[TestTimings::default(), TestTimings::default()],
            &ids(&["a", "a"]),
        )
        .unwrap_err();
        assert!(matches!(err, TimingError::DuplicateTest { .. }));
    }

    #[test]
    fn test_timings_serde_shape() {
        let t: TestTimings =
            serde_json::from_value(json!({"base": [1, 2.5], "head": [0.5]})).unwrap();
        assert_eq!(t.base, vec![1.0, 2.5]);
        assert_eq!(
            serde_json::to_value(&t).unwrap(),
            json!({"base": [1.0, 2.5], "head": [0.5]})
        );
        assert_eq!(serde_json::to_value(Side::Both).unwrap(), json!("both"));
    }

    // ------------------------------------------------------------ proptest

    fn test_ids() -> impl Strategy<Value = Vec<String>> {
        prop::collection::hash_set("[a-z~/:._]{1,12}", 0..5).prop_map(|s| s.into_iter().collect())
    }

    fn complete_runs() -> impl Strategy<Value = (Vec<String>, Vec<Map<String, Value>>)> {
        (test_ids(), 0..25_usize).prop_flat_map(|(tests, n_runs)| {
            let n_tests = tests.len();
            prop::collection::vec(
                prop::collection::vec((0.0..1e4_f64, 0.0..1e4_f64), n_tests),
                n_runs,
            )
            .prop_map(move |values| {
                let runs = values
                    .into_iter()
                    .map(|row| {
                        let mut run = Map::new();
                        for (test, (b, h)) in tests.iter().zip(row) {
                            run.insert(test.clone(), json!({"base": b, "head": h}));
                        }
                        run
                    })
                    .collect();
                (tests.clone(), runs)
            })
        })
    }

    proptest! {
        #[test]
        fn untranspose_inverts_transpose_on_complete_runs((tests, runs) in complete_runs()) {
            let values: Vec<Value> = runs.iter().cloned().map(Value::Object).collect();
            let out = transpose_runs(&values, &tests).unwrap();
            prop_assert!(out.gaps.is_empty() || tests.is_empty() || runs.is_empty());
            prop_assert!(out.extra_tests.is_empty());
            let back = untranspose(&out.per_test, &tests).unwrap();
            if tests.is_empty() {
                prop_assert!(back.is_empty());
            } else {
                prop_assert_eq!(back, runs);
            }
        }

        #[test]
        fn transpose_inverts_untranspose(
            tests in test_ids(),
            seed in prop::collection::vec(prop::collection::vec((0.0..1e4_f64, 0.0..1e4_f64), 0..6), 5),
        ) {
            let per_test: Vec<TestTimings> = seed
                .into_iter()
                .take(tests.len())
                .map(|pairs| TestTimings {
                    base: pairs.iter().map(|p| p.0).collect(),
                    head: pairs.iter().map(|p| p.1).collect(),
                })
                .collect();
            let runs = untranspose(&per_test, &tests).unwrap();
            let values: Vec<Value> = runs.into_iter().map(Value::Object).collect();
            let out = transpose_runs(&values, &tests).unwrap();
            prop_assert_eq!(out.per_test, per_test);
        }
    }
}
