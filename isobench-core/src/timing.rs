//! Timing data and the performance metrics derived from it.
//!
//! Two layouts of the same measurements meet here:
//!
//! * the canonical (ISO-Bench) layout is *per test*: `efficiency_test[i]` names a test and
//!   `duration_changes[i]` is a [`TestTimings`] holding every base and head sample of it;
//! * SWE-Perf stores *runs by test*: one JSON object per repeated run, keyed by pytest node
//!   id, each value `{"base": <seconds>, "head": <seconds>}`.
//!
//! [`transpose_runs`] and [`untranspose`] convert between the two; [`speedup`] computes the
//! canonical `human_performance` and [`sweperf_improvement`] reproduces SWE-Perf's published
//! one (IQR outlier filter, then the largest relative slow-down of the base samples that keeps
//! a one-sided Mann–Whitney U test significant). The statistical pieces
//! ([`percentile_linear`], [`iqr_filter`], [`mann_whitney_u_greater`], [`erfc`],
//! [`normal_sf`]) are public so they can be tested and reused on their own.
//!
//! Nothing here does I/O or panics on input: malformed data becomes a [`TimingError`] or a
//! `None`.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::f64::consts::{FRAC_1_SQRT_2, FRAC_2_SQRT_PI, PI};
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// The JSON pointer prefix under which timing errors are reported.
const DURATION_CHANGES: &str = "/duration_changes";

/// The IQR multiplier SWE-Perf uses for its outlier filter: values outside
/// `[Q1 − 1·IQR, Q3 + 1·IQR]` are dropped.
pub const SWEPERF_IQR_FACTOR: f64 = 1.0;

/// The significance level of SWE-Perf's metric: a slow-down `x` still counts while the
/// one-sided Mann–Whitney p-value is strictly below this.
pub const SWEPERF_ALPHA: f64 = 0.1;

/// SWE-Perf's metric tries `x = i / SWEPERF_STEPS` for `i = 0, 1, …, SWEPERF_STEPS`
/// (a grid of 0.001 from 0 to 1 inclusive).
pub const SWEPERF_STEPS: u32 = 1000;

/// Above this many cells (`n1 · n2`) the exact null distribution of U is not built (it would
/// cost memory proportional to the product) and the normal approximation is used instead.
/// With `method='auto'` the exact distribution is only wanted when one sample has at most 8
/// values, so this only matters when the other one has more than 250 000.
const EXACT_MAX_CELLS: usize = 2_000_000;

/// All base and head durations (in seconds) measured for one efficiency test.
///
/// This is the shape of one canonical `duration_changes` item:
/// `{"base": [1.02, 0.98], "head": [0.51, 0.49]}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TestTimings {
    /// Durations measured on the base commit, in seconds.
    pub base: Vec<f64>,
    /// Durations measured on the head commit, in seconds.
    pub head: Vec<f64>,
}

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

/// Converts a count to `f64`. Counts here are sample counts far below 2^53, so the
/// conversion is exact.
#[allow(clippy::cast_precision_loss)]
fn count_f64(n: usize) -> f64 {
    n as f64
}

/// Arithmetic mean; `None` for an empty list or a non-finite result.
fn mean(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let m = values.iter().sum::<f64>() / count_f64(values.len());
    m.is_finite().then_some(m)
}

/// The canonical ISO-Bench `human_performance`: the speedup of head over base.
///
/// For one test it is `mean(base) / mean(head)`; for several tests it is the geometric mean
/// of the per-test ratios (computed through logarithms, so it cannot overflow).
///
/// Returns `None` when there are no tests, when any base or head list is empty, or when a
/// mean is zero, negative or not finite (a ratio of such means is not a speedup).
pub fn speedup(per_test: &[TestTimings]) -> Option<f64> {
    let mut ratios = Vec::with_capacity(per_test.len());
    for timings in per_test {
        let base = mean(&timings.base)?;
        let head = mean(&timings.head)?;
        if base <= 0.0 || head <= 0.0 {
            return None;
        }
        let ratio = base / head;
        if !ratio.is_finite() || ratio <= 0.0 {
            return None;
        }
        ratios.push(ratio);
    }
    match ratios.as_slice() {
        [] => None,
        [single] => Some(*single),
        many => {
            let log_mean = many.iter().map(|r| r.ln()).sum::<f64>() / count_f64(many.len());
            let gm = log_mean.exp();
            (gm.is_finite() && gm > 0.0).then_some(gm)
        }
    }
}

/// Linear interpolation between `a` and `b` at `t ∈ [0, 1]`, evaluated from the nearer end
/// (`a + (b − a)·t` below one half, `b − (b − a)·(1 − t)` from one half on), which is how
/// numpy's default percentile interpolates.
fn lerp(a: f64, b: f64, t: f64) -> f64 {
    let diff = b - a;
    if t >= 0.5 {
        b - diff * (1.0 - t)
    } else {
        a + diff * t
    }
}

/// The `q`-quantile (`q ∈ [0, 1]`) of already sorted, non-empty, finite data, with numpy's
/// default (`'linear'`) definition: virtual index `h = (n − 1)·q`, then interpolation between
/// the order statistics at `⌊h⌋` and `⌊h⌋ + 1`.
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "h is in [0, n - 1] and finite, so its floor is a valid index"
)]
fn quantile_sorted(sorted: &[f64], q: f64) -> f64 {
    let last = sorted.len().saturating_sub(1);
    let h = count_f64(last) * q;
    let floor = h.floor();
    let lo = (floor.max(0.0) as usize).min(last);
    let hi = (lo + 1).min(last);
    let a = sorted.get(lo).copied().unwrap_or(f64::NAN);
    let b = sorted.get(hi).copied().unwrap_or(f64::NAN);
    lerp(a, b, h - floor)
}

/// Sorts a copy of finite data in ascending order.
fn sorted_copy(values: &[f64]) -> Vec<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted
}

/// The `q`-th percentile (`q ∈ [0, 100]`) of `values`, as `numpy.percentile(values, q)`
/// computes it with its default linear interpolation.
///
/// With the values sorted as `v₀ ≤ … ≤ v_{n−1}`, the virtual index is `h = (n − 1)·q/100`
/// and the result is `v_⌊h⌋ + (h − ⌊h⌋)·(v_{⌊h⌋+1} − v_⌊h⌋)`.
///
/// Returns `None` for an empty list, a `q` outside `[0, 100]` (or NaN), or any non-finite
/// value.
pub fn percentile_linear(values: &[f64], q: f64) -> Option<f64> {
    if values.is_empty() || !(0.0..=100.0).contains(&q) || values.iter().any(|v| !v.is_finite()) {
        return None;
    }
    Some(quantile_sorted(&sorted_copy(values), q / 100.0))
}

/// Drops outliers with an interquartile-range rule: keeps the values `v` (in their original
/// order) with `Q1 − k·IQR ≤ v ≤ Q3 + k·IQR`, where `Q1`/`Q3` are the 25th/75th
/// [`percentile_linear`] and `IQR = Q3 − Q1`. SWE-Perf uses `k =` [`SWEPERF_IQR_FACTOR`].
///
/// An empty list stays empty. If any value is NaN or infinite the quartiles are undefined and
/// the result is empty (with NaN, numpy's quartiles are NaN and every comparison fails the
/// same way). A NaN `k` also keeps nothing.
pub fn iqr_filter(values: &[f64], k: f64) -> Vec<f64> {
    if values.is_empty() || values.iter().any(|v| !v.is_finite()) {
        return Vec::new();
    }
    let sorted = sorted_copy(values);
    let q1 = quantile_sorted(&sorted, 0.25);
    let q3 = quantile_sorted(&sorted, 0.75);
    let iqr = q3 - q1;
    let lower = q1 - k * iqr;
    let upper = q3 + k * iqr;
    values
        .iter()
        .copied()
        .filter(|&v| lower <= v && v <= upper)
        .collect()
}

/// How a Mann–Whitney p-value was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MannWhitneyMethod {
    /// From the exact null distribution of U (small samples without ties).
    Exact,
    /// From the normal approximation with tie and continuity corrections.
    Asymptotic,
}

/// The result of a one-sided Mann–Whitney U test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MannWhitney {
    /// `U₁ = R₁ − n₁(n₁+1)/2`, the statistic of the first sample (`R₁` is its rank sum, with
    /// midranks for ties). It is a multiple of one half.
    pub u: f64,
    /// The p-value for the alternative "the first sample is stochastically greater".
    pub p_value: f64,
    /// Which computation produced `p_value`.
    pub method: MannWhitneyMethod,
}

/// Exact null distribution of U for given sample sizes, prepared for p-value look-ups.
#[derive(Debug, Clone)]
struct ExactNull {
    /// `n1 · n2`, the largest value of U.
    cells: usize,
    /// `pmf[u] = (#arrangements with U = u) / C(n1 + n2, n1)`.
    pmf: Vec<f64>,
    /// Running sums of `pmf`, accumulated from `u = 0` upwards.
    cdf: Vec<f64>,
}

/// Number of arrangements of `n1` x-values and `n2` y-values (all distinct) giving each
/// U = 0, 1, …, n1·n2, where U counts the (x, y) pairs with x > y.
///
/// These are the coefficients of the Gaussian binomial `[n1+n2 choose m]_q` with
/// `m = min(n1, n2)`, built from `[n+j choose j] = [n+j−1 choose j−1]·(1 − q^{n+j})/(1 − q^j)`
/// for `j = 1..=m` (`n = max(n1, n2)`): multiplying by `1 − q^{n+j}` is a shifted
/// subtraction and the (exact) division by `1 − q^j` is the recurrence `Q[k] = P[k] + Q[k−j]`.
/// All arithmetic is exact integer arithmetic; `None` on overflow or above
/// [`EXACT_MAX_CELLS`].
fn exact_u_counts(n1: usize, n2: usize) -> Option<Vec<i128>> {
    let (m, n) = (n1.min(n2), n1.max(n2));
    let cells = m.checked_mul(n)?;
    if cells > EXACT_MAX_CELLS {
        return None;
    }
    let mut poly: Vec<i128> = vec![1];
    for j in 1..=m {
        let shift = n + j;
        let len = j * n + 1;
        let mut next = vec![0_i128; len];
        for k in 0..len {
            let plus = poly.get(k).copied().unwrap_or(0);
            let minus = k
                .checked_sub(shift)
                .and_then(|i| poly.get(i).copied())
                .unwrap_or(0);
            let mut v = plus.checked_sub(minus)?;
            if let Some(prev) = k.checked_sub(j).and_then(|i| next.get(i).copied()) {
                v = v.checked_add(prev)?;
            }
            next[k] = v;
        }
        poly = next;
    }
    Some(poly)
}

impl ExactNull {
    #[allow(
        clippy::cast_precision_loss,
        reason = "counts above 2^53 are rounded to the nearest f64, like scipy's float pmf"
    )]
    fn new(n1: usize, n2: usize) -> Option<Self> {
        let counts = exact_u_counts(n1, n2)?;
        let total = counts
            .iter()
            .try_fold(0_i128, |acc, &c| acc.checked_add(c))?;
        if total <= 0 {
            return None;
        }
        let total = total as f64;
        let pmf: Vec<f64> = counts.iter().map(|&c| c as f64 / total).collect();
        let mut running = 0.0;
        let cdf = pmf
            .iter()
            .map(|&p| {
                running += p;
                running
            })
            .collect();
        Some(ExactNull {
            cells: counts.len() - 1,
            pmf,
            cdf,
        })
    }

    /// `P(U ≥ u)`. Like scipy, the sum runs over the smaller tail using the symmetry
    /// `P(U = k) = P(U = n1·n2 − k)`: `P(U ≥ u) = P(U ≤ n1·n2 − u)` when `u` is at or above
    /// the middle, else `1 − P(U ≤ u) + P(U = u)`.
    fn sf(&self, u: usize) -> f64 {
        let Some(complement) = self.cells.checked_sub(u) else {
            return 0.0;
        };
        let p = if u < complement {
            1.0 - self.cdf.get(u).copied().unwrap_or(1.0) + self.pmf.get(u).copied().unwrap_or(0.0)
        } else {
            self.cdf.get(complement).copied().unwrap_or(0.0)
        };
        p.clamp(0.0, 1.0)
    }
}

/// Lazily built exact null distribution, reused while the sample sizes stay the same.
#[derive(Debug, Default)]
struct ExactCache {
    sizes: Option<(usize, usize)>,
    null: Option<ExactNull>,
}

impl ExactCache {
    fn get(&mut self, n1: usize, n2: usize) -> Option<&ExactNull> {
        let key = (n1.min(n2), n1.max(n2));
        if self.sizes != Some(key) {
            self.null = ExactNull::new(n1, n2);
            self.sizes = Some(key);
        }
        self.null.as_ref()
    }
}

/// The one-sided ("greater") Mann–Whitney U test of `x` against `y`, reproducing
/// `scipy.stats.mannwhitneyu(x, y, alternative='greater')` with its defaults
/// (`use_continuity=True`, `method='auto'`).
///
/// * `U₁ = R₁ − n₁(n₁+1)/2`, where `R₁` is the sum of the ranks of `x` in the pooled sample,
///   tied values getting the mean of the ranks they span.
/// * `'auto'` picks the **exact** method when `min(n₁, n₂) ≤ 8` and there are no ties:
///   `p = P(U ≥ U₁)` under the null distribution of U (every one of the `C(n₁+n₂, n₁)`
///   arrangements equally likely).
/// * Otherwise the **asymptotic** method: with `n = n₁ + n₂` and `Σ(t³ − t)` over the sizes
///   `t` of the tie groups, `σ = √(n₁n₂/12 · ((n+1) − Σ(t³−t)/(n(n−1))))`,
///   `z = (U₁ − n₁n₂/2 − 0.5)/σ` and `p = 1 − Φ(z) = ` [`normal_sf`]`(z)`. When every value
///   is tied, `σ = 0`, `z = −∞` and `p = 1`.
///
/// `p` is clamped to `[0, 1]`. In the (unrealistic) case that the exact distribution would
/// need more than two million cells (`n₁·n₂`), the asymptotic method is used instead and
/// reported as such.
///
/// Returns `None` if either sample is empty or contains a NaN or infinite value (scipy
/// rejects those inputs).
pub fn mann_whitney_u_greater(x: &[f64], y: &[f64]) -> Option<MannWhitney> {
    if x.is_empty() || y.is_empty() || x.iter().chain(y).any(|v| !v.is_finite()) {
        return None;
    }
    Some(mwu_greater(x, y, &mut ExactCache::default()))
}

/// Rank statistics of a pooled sample: twice `U₁` (an integer) and the tie summary.
struct RankSummary {
    twice_u1: u128,
    tie_term: f64,
    has_ties: bool,
}

/// Pools `x` and `y`, assigns midranks and returns `2·U₁` and `Σ(t³ − t)`.
/// Inputs must be finite and non-empty.
#[allow(
    clippy::float_cmp,
    clippy::many_single_char_names,
    reason = "a tie is exact equality of two measurements, as in scipy's rankdata; \
              names follow the textbook notation"
)]
fn rank_summary(x: &[f64], y: &[f64]) -> RankSummary {
    let mut pooled: Vec<(f64, bool)> = x
        .iter()
        .map(|&v| (v, true))
        .chain(y.iter().map(|&v| (v, false)))
        .collect();
    // Finite values always compare; -0.0 and 0.0 compare equal and so tie, as in numpy.
    pooled.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(Ordering::Equal));

    // Twice the rank sum of x: a group spanning sorted positions i..j (ranks i+1..=j) has
    // midrank (i + 1 + j)/2.
    let mut twice_r1: u128 = 0;
    let mut tie_term = 0.0;
    let mut has_ties = false;
    let mut i = 0;
    while i < pooled.len() {
        let value = pooled[i].0;
        let mut j = i + 1;
        while j < pooled.len() && pooled[j].0 == value {
            j += 1;
        }
        let from_x = pooled[i..j].iter().filter(|(_, is_x)| *is_x).count();
        twice_r1 += (i as u128 + 1 + j as u128) * from_x as u128;
        let t = j - i;
        if t > 1 {
            has_ties = true;
            let t = count_f64(t);
            tie_term += t * t * t - t;
        }
        i = j;
    }
    let n1 = x.len() as u128;
    RankSummary {
        // R1 ≥ 1 + 2 + … + n1, so this cannot underflow.
        twice_u1: twice_r1.saturating_sub(n1 * (n1 + 1)),
        tie_term,
        has_ties,
    }
}

/// [`mann_whitney_u_greater`] for validated input, reusing `cache` for the exact null
/// distribution.
#[allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::many_single_char_names,
    reason = "2·U₁ ≤ 2·n1·n2, far below 2^53 for any sample that fits in memory; \
              names follow the textbook notation"
)]
fn mwu_greater(x: &[f64], y: &[f64], cache: &mut ExactCache) -> MannWhitney {
    let (n1, n2) = (x.len(), y.len());
    let ranks = rank_summary(x, y);
    let u = ranks.twice_u1 as f64 / 2.0;

    let wants_exact = (n1 <= 8 || n2 <= 8) && !ranks.has_ties;
    if wants_exact {
        // Without ties all ranks are integers, so 2·U₁ is even.
        let u_int = (ranks.twice_u1 / 2) as usize;
        if let Some(null) = cache.get(n1, n2) {
            return MannWhitney {
                u,
                p_value: null.sf(u_int),
                method: MannWhitneyMethod::Exact,
            };
        }
    }

    let n = n1 + n2;
    let cells = count_f64(n1) * count_f64(n2);
    let mu = cells / 2.0;
    let variance =
        cells / 12.0 * (count_f64(n + 1) - ranks.tie_term / (count_f64(n) * count_f64(n - 1)));
    let sigma = variance.sqrt();
    let z = (u - mu - 0.5) / sigma;
    let p = normal_sf(z);
    MannWhitney {
        u,
        p_value: if p.is_nan() { p } else { p.clamp(0.0, 1.0) },
        method: MannWhitneyMethod::Asymptotic,
    }
}

/// The complementary error function `erfc(x) = 1 − erf(x) = (2/√π)∫ₓ^∞ e^{−t²} dt`.
///
/// Evaluated from the definitions; the relative error stays below 1e-14 wherever the
/// result is a normal float (checked against 90-digit reference values in the tests, and
/// against glibc's `erfc` on a 0.01 grid over [−8, 26.6]); subnormal results (x above
/// about 26.6) lose precision gradually:
///
/// * `x < 0`: `erfc(x) = 2 − erfc(−x)`;
/// * `0 ≤ x < 1.5`: `1 − erf(x)`, with `erf(x) = (2/√π) e^{−x²} Σₖ 2ᵏ x^{2k+1} / (1·3·…·(2k+1))`
///   (a series of positive terms, so no cancellation; the final `1 − erf` loses at most a
///   factor 30 in relative precision at `x = 1.5`);
/// * `x ≥ 1.5`: Legendre's continued fraction for the upper incomplete gamma function,
///   `erfc(x) = Γ(½, x²)/√π`, evaluated with the modified Lentz algorithm;
/// * `erfc(+∞) = 0`, `erfc(−∞) = 2`, `erfc(NaN) = NaN`; results below the smallest
///   subnormal (x beyond about 27.3) are 0.
pub fn erfc(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x < 0.0 {
        return 2.0 - erfc_nonnegative(-x);
    }
    erfc_nonnegative(x)
}

fn erfc_nonnegative(x: f64) -> f64 {
    if x < 1.5 {
        1.0 - erf_series(x)
    } else if x < 40.0 {
        erfc_continued_fraction(x)
    } else {
        0.0
    }
}

/// `erf(x)` for moderate `x ≥ 0` from the series of positive terms
/// `erf(x) = (2/√π) e^{−x²} Σₖ 2ᵏ x^{2k+1} / (2k+1)!!`.
fn erf_series(x: f64) -> f64 {
    let x2 = x * x;
    let mut term = x;
    let mut sum = x;
    for k in 1..=200_u32 {
        term *= 2.0 * x2 / f64::from(2 * k + 1);
        sum += term;
        if term <= sum * 1e-17 {
            break;
        }
    }
    FRAC_2_SQRT_PI * (-x2).exp() * sum
}

/// `erfc(x)` for `x ≥ 1.5` from `Γ(a, z) = e^{−z} z^a / (z + 1 − a − 1·(1−a)/(z + 3 − a −
/// 2·(2−a)/(z + 5 − a − …)))` with `a = ½`, `z = x²` and `erfc(x) = Γ(½, x²)/√π`.
#[allow(
    clippy::many_single_char_names,
    reason = "names follow the usual notation of Lentz's algorithm"
)]
fn erfc_continued_fraction(x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let z = x * x;
    let a = 0.5;
    // Modified Lentz: h = b0 + a1/(b1 + a2/(b2 + …)) evaluated as 1/(b0 + …) directly.
    let mut b = z + 1.0 - a;
    let mut c = 1.0 / TINY;
    let mut d = 1.0 / b;
    let mut h = d;
    for i in 1..=1000_u32 {
        let fi = f64::from(i);
        let an = -fi * (fi - a);
        b += 2.0;
        d = an * d + b;
        if d.abs() < TINY {
            d = TINY;
        }
        c = b + an / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        let delta = d * c;
        h *= delta;
        if (delta - 1.0).abs() <= f64::EPSILON {
            break;
        }
    }
    // z^a = x for a = ½. x² is rounded; its rounding error (exact through a fused
    // multiply-add) is folded back in so that e^{−x²} stays accurate for large x.
    let z_error = x.mul_add(x, -z);
    (-z).exp() * (-z_error).exp() * x * h / PI.sqrt()
}

/// The survival function of the standard normal distribution,
/// `1 − Φ(z) = ½·erfc(z/√2)`.
pub fn normal_sf(z: f64) -> f64 {
    0.5 * erfc(z * FRAC_1_SQRT_2)
}

/// SWE-Perf's improvement score `x_t` of one test (see [`sweperf_improvement`]).
///
/// The base and head samples are filtered separately with [`iqr_filter`]
/// (`k =` [`SWEPERF_IQR_FACTOR`]); then for `x = i/1000`, `i = 0, 1, …, 1000`, the base
/// samples are scaled by `1 − x` and tested with [`mann_whitney_u_greater`] against the head
/// samples; `x_t` is the last `x` whose p-value is below [`SWEPERF_ALPHA`], stopping at the
/// first `x` that is not (0 if already `x = 0` is not significant).
///
/// A side without samples (before or after filtering) gives 0: nothing can be significant
/// (scipy would reject the empty sample). A single sample on *both* sides can never be
/// significant (p = ½); note that one sample against ten or more distinct, smaller ones can
/// be (exact p = 1/(n₂+1) < 0.1), exactly as in scipy.
///
/// Returns `None` if any sample is NaN or infinite.
pub fn sweperf_test_improvement(timings: &TestTimings) -> Option<f64> {
    if timings
        .base
        .iter()
        .chain(&timings.head)
        .any(|v| !v.is_finite())
    {
        return None;
    }
    let base = iqr_filter(&timings.base, SWEPERF_IQR_FACTOR);
    let head = iqr_filter(&timings.head, SWEPERF_IQR_FACTOR);
    if base.is_empty() || head.is_empty() {
        return Some(0.0);
    }
    let mut cache = ExactCache::default();
    let mut scaled = vec![0.0; base.len()];
    let mut best = 0.0;
    for i in 0..=SWEPERF_STEPS {
        let x = f64::from(i) / f64::from(SWEPERF_STEPS);
        for (s, &b) in scaled.iter_mut().zip(&base) {
            *s = b * (1.0 - x);
        }
        if mwu_greater(&scaled, &head, &mut cache).p_value < SWEPERF_ALPHA {
            best = x;
        } else {
            break;
        }
    }
    Some(best)
}

/// SWE-Perf's published `human_performance`: the mean over the tests of
/// [`sweperf_test_improvement`], i.e. for each test the largest fraction `x` (on a grid of
/// 0.001) by which the IQR-filtered base durations can be shrunk while a one-sided
/// Mann–Whitney test still finds them greater than the IQR-filtered head durations at
/// p < 0.1.
///
/// Every test counts in the mean, including tests whose score is 0 for lack of samples.
/// Returns `None` when there are no tests or any sample is NaN or infinite.
pub fn sweperf_improvement(per_test: &[TestTimings]) -> Option<f64> {
    if per_test.is_empty() {
        return None;
    }
    let mut sum = 0.0;
    for timings in per_test {
        sum += sweperf_test_improvement(timings)?;
    }
    Some(sum / count_f64(per_test.len()))
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

    fn close(actual: f64, expected: f64, rel: f64) -> bool {
        (actual - expected).abs() <= rel * expected.abs().max(f64::MIN_POSITIVE)
    }

    fn ids(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| (*s).to_owned()).collect()
    }

    // ---------------------------------------------------------------- erfc

    /// Reference values computed with 90 significant digits from the Maclaurin series
    /// erf(x) = 2/√π Σ (−1)ⁿ x^{2n+1}/(n!(2n+1)) (π from Machin's formula), independently of
    /// this module; erfc(1) and erfc(3) agree with the published values.
    #[allow(
        clippy::excessive_precision,
        reason = "the reference digits are kept as computed, beyond f64 precision"
    )]
    const ERFC_REFERENCE: &[(f64, f64)] = &[
        (0.0, 1.0),
        (0.1, 8.875_370_839_817_151_077_967_249_3e-1),
        (0.25, 7.236_736_098_317_630_670_149_317_3e-1),
        (0.5, 4.795_001_221_869_534_623_172_533_5e-1),
        (1.0, 1.572_992_070_502_851_306_587_793_6e-1),
        (1.5, 3.389_485_352_468_927_293_302_373_8e-2),
        (2.0, 4.677_734_981_047_265_837_930_743_6e-3),
        (3.0, 2.209_049_699_858_544_137_277_613_0e-5),
        (4.0, 1.541_725_790_028_001_885_215_967_3e-8),
        (5.0, 1.537_459_794_428_034_850_188_343_5e-12),
        (6.0, 2.151_973_671_249_891_311_659_335_0e-17),
        (-1.0, 1.842_700_792_949_714_869_341_220_6),
    ];

    #[test]
    fn erfc_matches_high_precision_reference() {
        for &(x, expected) in ERFC_REFERENCE {
            let got = erfc(x);
            assert!(
                close(got, expected, 1e-13),
                "erfc({x}) = {got:e}, expected {expected:e}, rel err {:e}",
                (got - expected).abs() / expected
            );
        }
        assert_eq!(erfc(0.0).to_bits(), 1.0_f64.to_bits());
    }

    #[test]
    fn erfc_limits_and_continuity() {
        assert_eq!(erfc(f64::INFINITY).to_bits(), 0.0_f64.to_bits());
        assert!(close(erfc(f64::NEG_INFINITY), 2.0, 0.0));
        assert!(erfc(f64::NAN).is_nan());
        assert!(erfc(30.0) >= 0.0 && erfc(30.0) < 1e-300);
        // The two algorithms meet at x = 1.5; there must be no visible step.
        let below = erfc(1.5 - 1e-12);
        let at = erfc(1.5);
        assert!(
            below > at && (below - at) / at < 1e-10,
            "{below:e} vs {at:e}"
        );
        // Monotonically decreasing on a grid.
        let mut previous = erfc(-6.0);
        for i in -599..=600 {
            let v = erfc(f64::from(i) / 100.0);
            assert!(
                v <= previous,
                "erfc not decreasing at {}",
                f64::from(i) / 100.0
            );
            previous = v;
        }
        // Symmetry erfc(−x) + erfc(x) = 2.
        for x in [0.3, 1.2, 2.5, 4.0] {
            assert!(close(erfc(-x) + erfc(x), 2.0, 1e-15));
        }
    }

    #[test]
    fn normal_sf_known_values() {
        // Φ(0) = ½; 1 − Φ(1.959963984540054) = 0.025; 1 − Φ(−1) = Φ(1) = 0.8413447460685429.
        assert!(close(normal_sf(0.0), 0.5, 1e-15));
        assert!(close(normal_sf(1.959_963_984_540_054), 0.025, 1e-12));
        assert!(close(normal_sf(-1.0), 0.841_344_746_068_542_9, 1e-14));
        assert!(close(normal_sf(f64::NEG_INFINITY), 1.0, 0.0));
        assert_eq!(normal_sf(f64::INFINITY).to_bits(), 0.0_f64.to_bits());
    }

    // ---------------------------------------------------------- percentile

    #[test]
    fn percentile_matches_numpy_linear_definition() {
        // [1, 2, 3, 4]: h = 3q/100. q=25: h=0.75 → 1 + 0.75·1 = 1.75; q=50: h=1.5 → 2.5;
        // q=75: h=2.25 → 3 + 0.25·1 = 3.25; q=0 → 1; q=100 → 4.
        let v = [4.0, 1.0, 3.0, 2.0];
        assert_eq!(percentile_linear(&v, 25.0), Some(1.75));
        assert_eq!(percentile_linear(&v, 50.0), Some(2.5));
        assert_eq!(percentile_linear(&v, 75.0), Some(3.25));
        assert_eq!(percentile_linear(&v, 0.0), Some(1.0));
        assert_eq!(percentile_linear(&v, 100.0), Some(4.0));
        // 1..=10: q=25 → h = 2.25 → 3.25; q=75 → h = 6.75 → 7.75.
        let ten: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(percentile_linear(&ten, 25.0), Some(3.25));
        assert_eq!(percentile_linear(&ten, 75.0), Some(7.75));
        // [10, 20, 40]: q=25 → h = 0.5 → 10 + 0.5·10 = 15; q=90 → h = 1.8 → 20 + 0.8·20 = 36.
        assert_eq!(percentile_linear(&[40.0, 10.0, 20.0], 25.0), Some(15.0));
        let p90 = percentile_linear(&[40.0, 10.0, 20.0], 90.0).unwrap();
        assert!(close(p90, 36.0, 1e-15), "{p90}");
        // One value: every percentile is that value.
        assert_eq!(percentile_linear(&[7.5], 25.0), Some(7.5));
        assert_eq!(percentile_linear(&[7.5], 75.0), Some(7.5));
    }

    #[test]
    fn percentile_rejects_bad_input() {
        assert_eq!(percentile_linear(&[], 50.0), None);
        assert_eq!(percentile_linear(&[1.0], -1.0), None);
        assert_eq!(percentile_linear(&[1.0], 100.5), None);
        assert_eq!(percentile_linear(&[1.0], f64::NAN), None);
        assert_eq!(percentile_linear(&[1.0, f64::NAN], 50.0), None);
        assert_eq!(percentile_linear(&[1.0, f64::INFINITY], 50.0), None);
    }

    // ---------------------------------------------------------------- IQR

    #[test]
    fn iqr_filter_drops_outliers_and_keeps_bounds() {
        // [1, 2, 3, 4, 100]: Q1 = v[1] = 2, Q3 = v[3] = 4, IQR = 2, bounds [0, 6].
        assert_eq!(
            iqr_filter(&[3.0, 100.0, 1.0, 2.0, 4.0], 1.0),
            vec![3.0, 1.0, 2.0, 4.0]
        );
        // [0, 2, 3, 4, 6]: same quartiles, bounds [0, 6] inclusive: nothing dropped.
        assert_eq!(
            iqr_filter(&[0.0, 2.0, 3.0, 4.0, 6.0], 1.0),
            vec![0.0, 2.0, 3.0, 4.0, 6.0]
        );
        // Just outside both bounds: both ends dropped.
        assert_eq!(
            iqr_filter(&[-0.5, 2.0, 3.0, 4.0, 6.5], 1.0),
            vec![2.0, 3.0, 4.0]
        );
        // 1..=10: Q1 = 3.25, Q3 = 7.75, IQR = 4.5, bounds [−1.25, 12.25]: all kept.
        let ten: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(iqr_filter(&ten, 1.0), ten);
        // With k = 1.5 the classic Tukey fences: [1,2,3,4,7] → Q1 2, Q3 4, fences [−1, 7].
        assert_eq!(
            iqr_filter(&[1.0, 2.0, 3.0, 4.0, 7.0], 1.5),
            vec![1.0, 2.0, 3.0, 4.0, 7.0]
        );
        assert_eq!(
            iqr_filter(&[1.0, 2.0, 3.0, 4.0, 7.0], 1.0),
            vec![1.0, 2.0, 3.0, 4.0]
        );
        assert!(iqr_filter(&[], 1.0).is_empty());
        assert_eq!(iqr_filter(&[5.0], 1.0), vec![5.0]);
        assert!(iqr_filter(&[1.0, f64::NAN], 1.0).is_empty());
    }

    // ------------------------------------------------------- Mann–Whitney

    #[test]
    fn mann_whitney_exact_textbook_cases() {
        // x entirely below y: ranks of x are 1, 2, 3, R1 = 6, U1 = 6 − 3·4/2 = 0, and
        // P(U ≥ 0) = 1.
        let r = mann_whitney_u_greater(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]).unwrap();
        assert_eq!(r.method, MannWhitneyMethod::Exact);
        assert_eq!(r.u, 0.0);
        assert!(close(r.p_value, 1.0, 1e-15), "{}", r.p_value);
        // x entirely above y: R1 = 4 + 5 + 6 = 15, U1 = 9 = n1·n2, and only 1 of the
        // C(6, 3) = 20 arrangements reaches it: p = 1/20.
        let r = mann_whitney_u_greater(&[4.0, 5.0, 6.0], &[1.0, 2.0, 3.0]).unwrap();
        assert_eq!(r.method, MannWhitneyMethod::Exact);
        assert_eq!(r.u, 9.0);
        assert!(close(r.p_value, 0.05, 1e-15), "{}", r.p_value);
        // Males [19, 22, 16, 29, 24] vs females [20, 11, 17, 12] (Shier 2004): pooled order
        // 11f 12f 16m 17f 19m 20f 22m 24m 29m, male ranks 3+5+7+8+9 = 32, U1 = 32 − 15 = 17.
        // P(U ≥ 17) = P(U ≤ 3) by symmetry (n1·n2 = 20); the arrangements with U ≤ 3 are the
        // partitions of 0, 1, 2, 3 into at most 4 parts ≤ 5: 1 + 1 + 2 + 3 = 7 of
        // C(9, 4) = 126, so p = 7/126 = 1/18.
        let r = mann_whitney_u_greater(&[19.0, 22.0, 16.0, 29.0, 24.0], &[20.0, 11.0, 17.0, 12.0])
            .unwrap();
        assert_eq!(r.method, MannWhitneyMethod::Exact);
        assert_eq!(r.u, 17.0);
        assert!(close(r.p_value, 1.0 / 18.0, 1e-14), "{}", r.p_value);
        // One value against one: U1 = 1, P(U ≥ 1) = 1/2.
        let r = mann_whitney_u_greater(&[2.0], &[1.0]).unwrap();
        assert!(close(r.p_value, 0.5, 1e-15));
        // One value above ten smaller ones: U1 = 10, p = 1/C(11, 1) = 1/11.
        let ten: Vec<f64> = (1..=10).map(f64::from).collect();
        let r = mann_whitney_u_greater(&[11.0], &ten).unwrap();
        assert_eq!(r.method, MannWhitneyMethod::Exact);
        assert!(close(r.p_value, 1.0 / 11.0, 1e-14), "{}", r.p_value);
    }

    #[test]
    fn mann_whitney_asymptotic_with_ties_by_hand() {
        // x = [3, 4, 4, 5], y = [1, 2, 4]. Pooled and sorted: 1y 2y 3x 4x 4x 4y 5x.
        // Ranks: 1, 2, 3, then the three 4s share ranks 4, 5, 6 → midrank 5, then 7.
        // R1 = 3 + 5 + 5 + 7 = 20, U1 = 20 − 4·5/2 = 10. There is a tie → asymptotic.
        // n1 = 4, n2 = 3, n = 7, μ = 12/2 = 6, one tie group of t = 3: Σ(t³ − t) = 24.
        // σ² = 12/12 · (8 − 24/(7·6)) = 8 − 4/7 = 52/7, σ = √(52/7) = 2.7255405754769875…
        // z = (10 − 6 − 0.5)/σ = 3.5·√(7/52) = √(85.75/52) = √1.6490384615384615
        //   = 1.2841489249843498
        // p = ½·erfc(z/√2) ≈ 0.0995, just below 0.1 (with Python's math.erfc:
        // 0.5*math.erfc(3.5/math.sqrt(52/7)/math.sqrt(2)) = 0.09954492607410229).
        let r = mann_whitney_u_greater(&[3.0, 4.0, 4.0, 5.0], &[1.0, 2.0, 4.0]).unwrap();
        assert_eq!(r.method, MannWhitneyMethod::Asymptotic);
        assert_eq!(r.u, 10.0);
        let z = 3.5 / (52.0_f64 / 7.0).sqrt();
        assert!(close(z, 1.284_148_924_984_349_8, 1e-15), "{z}");
        assert!(
            close(r.p_value, 0.099_544_926_074_102_29, 1e-12),
            "{}",
            r.p_value
        );
    }

    #[test]
    fn mann_whitney_asymptotic_without_ties_by_hand() {
        // x = 11..=20, y = 1..=10: both samples have 10 values → asymptotic although there
        // are no ties. U1 = 100 (every x above every y), μ = 50,
        // σ² = 100/12 · 21 = 175, z = 49.5/√175 = 3.7418483,
        // p = ½·erfc(z/√2); Python: 0.5*math.erfc(49.5/math.sqrt(175)/math.sqrt(2))
        // = 9.13358955547752e-05.
        let x: Vec<f64> = (11..=20).map(f64::from).collect();
        let y: Vec<f64> = (1..=10).map(f64::from).collect();
        let r = mann_whitney_u_greater(&x, &y).unwrap();
        assert_eq!(r.method, MannWhitneyMethod::Asymptotic);
        assert_eq!(r.u, 100.0);
        assert!(
            close(r.p_value, 9.133_589_555_477_52e-5, 1e-12),
            "{:e}",
            r.p_value
        );
        // All values tied: σ = 0, numerator −0.5 → z = −∞ → p = 1.
        let r = mann_whitney_u_greater(&[1.0; 12], &[1.0; 12]).unwrap();
        assert_eq!(r.method, MannWhitneyMethod::Asymptotic);
        assert_eq!(r.u, 72.0);
        assert!(close(r.p_value, 1.0, 0.0));
    }

    #[test]
    fn mann_whitney_rejects_bad_input() {
        assert!(mann_whitney_u_greater(&[], &[1.0]).is_none());
        assert!(mann_whitney_u_greater(&[1.0], &[]).is_none());
        assert!(mann_whitney_u_greater(&[f64::NAN], &[1.0]).is_none());
        assert!(mann_whitney_u_greater(&[1.0], &[f64::INFINITY]).is_none());
    }

    #[test]
    fn exact_distribution_matches_brute_force_enumeration() {
        // Enumerate every choice of which of the n1 + n2 sorted positions hold x and count
        // U = #(x, y) pairs with x above y.
        for n1 in 1..=5_usize {
            for n2 in 1..=6_usize {
                let n = n1 + n2;
                let mut brute = vec![0_i128; n1 * n2 + 1];
                for mask in 0_u32..(1 << n) {
                    if mask.count_ones() as usize != n1 {
                        continue;
                    }
                    let mut ys_below = 0;
                    let mut u = 0;
                    for pos in 0..n {
                        if mask & (1 << pos) == 0 {
                            ys_below += 1;
                        } else {
                            u += ys_below;
                        }
                    }
                    brute[u] += 1;
                }
                assert_eq!(exact_u_counts(n1, n2).unwrap(), brute, "n1={n1} n2={n2}");
                assert_eq!(exact_u_counts(n2, n1).unwrap(), brute, "n1={n2} n2={n1}");
            }
        }
        // Total is C(n1 + n2, n1): C(28, 8) = 3 108 105.
        let total: i128 = exact_u_counts(8, 20).unwrap().iter().sum();
        assert_eq!(total, 3_108_105);
    }

    #[test]
    fn exact_distribution_refuses_huge_sizes() {
        assert!(exact_u_counts(8, 1_000_000).is_none());
        assert!(exact_u_counts(usize::MAX, 2).is_none());
        // 8 × 300 000 cells is above the limit: falls back to the asymptotic method
        // instead of failing.
        let x: Vec<f64> = (0..8).map(|i| 1e9 + f64::from(i)).collect();
        let y: Vec<f64> = (0..300_000).map(f64::from).collect();
        let r = mann_whitney_u_greater(&x, &y).unwrap();
        assert_eq!(r.method, MannWhitneyMethod::Asymptotic);
    }

    // ------------------------------------------------------------ speedup

    #[test]
    fn speedup_one_and_two_tests() {
        // mean([2, 4]) / mean([1, 2]) = 3 / 1.5 = 2.
        let one = TestTimings {
            base: vec![2.0, 4.0],
            head: vec![1.0, 2.0],
        };
        assert_eq!(speedup(std::slice::from_ref(&one)), Some(2.0));
        // Ratios 2 and 8 (= 8/1): geometric mean √16 = 4.
        let two = TestTimings {
            base: vec![8.0],
            head: vec![1.0],
        };
        let gm = speedup(&[one.clone(), two]).unwrap();
        assert!(close(gm, 4.0, 1e-15), "{gm}");
        // Ratios 2 and 0.5 cancel out: 1.
        let slower = TestTimings {
            base: vec![1.0, 1.0],
            head: vec![2.0, 2.0],
        };
        assert!(close(speedup(&[one.clone(), slower]).unwrap(), 1.0, 1e-15));
    }

    #[test]
    fn speedup_none_cases() {
        let ok = TestTimings {
            base: vec![1.0],
            head: vec![1.0],
        };
        assert_eq!(speedup(&[]), None);
        let empty_head = TestTimings {
            base: vec![1.0],
            head: vec![],
        };
        assert_eq!(speedup(&[ok.clone(), empty_head]), None);
        let zero = TestTimings {
            base: vec![1.0],
            head: vec![0.0, 0.0],
        };
        assert_eq!(speedup(&[zero]), None);
        let nan = TestTimings {
            base: vec![f64::NAN],
            head: vec![1.0],
        };
        assert_eq!(speedup(&[nan]), None);
        let overflow = TestTimings {
            base: vec![1e300],
            head: vec![1e-300],
        };
        assert_eq!(speedup(&[overflow]), None);
        assert_eq!(speedup(&[ok]), Some(1.0));
    }

    // ------------------------------------------------------------- SWE-Perf

    /// 20 distinct values `start, start + step, …`.
    fn ramp(start: f64, step: f64) -> Vec<f64> {
        (0..20).map(|i| start + step * f64::from(i)).collect()
    }

    #[test]
    fn sweperf_clear_speedup_is_near_one_half() {
        // base ≈ 1.000..1.019, head ≈ 0.500..0.519, 20 samples each, no outliers (evenly
        // spaced, so the IQR filter keeps everything).
        //
        // Bound: base·(1 − x) is significantly greater than head only while the scaled base
        // sits clearly above head. The medians are 1.0095 and 0.5095; they cross at
        // 1 − x = 0.5095/1.0095, x ≈ 0.4953, where U1 ≈ n1·n2/2 = 200 and p ≈ 0.5. p < 0.1
        // needs z > 1.2816, i.e. U1 ≥ 200 + 0.5 + 1.2816·√(400·41/12) ≈ 248.9, so x_t is a
        // little below 0.4953 — but well above 0.45, where every scaled base value
        // (≥ 0.55) exceeds every head value (≤ 0.519) and p ≈ 1e-8.
        let t = TestTimings {
            base: ramp(1.0, 0.001),
            head: ramp(0.5, 0.001),
        };
        let x = sweperf_test_improvement(&t).unwrap();
        assert!(x > 0.45 && x < 0.4953, "x_t = {x}");
        // x is on the 0.001 grid.
        assert!((x * 1000.0 - (x * 1000.0).round()).abs() < 1e-9);
        // Consistency with the definition: significant at x_t, not at x_t + 0.001.
        let scaled = |x: f64| t.base.iter().map(|b| b * (1.0 - x)).collect::<Vec<_>>();
        assert!(mann_whitney_u_greater(&scaled(x), &t.head).unwrap().p_value < 0.1);
        let next = (x * 1000.0).round() / 1000.0 + 0.001;
        assert!(
            mann_whitney_u_greater(&scaled(next), &t.head)
                .unwrap()
                .p_value
                >= 0.1
        );
        assert_eq!(sweperf_improvement(std::slice::from_ref(&t)), Some(x));
    }

    #[test]
    fn sweperf_identical_distributions_score_zero() {
        // Same 20 values on both sides: U1 = 200 = μ with every value tied in pairs, so
        // z < 0 and p > 0.5 already at x = 0.
        let v = ramp(1.0, 0.01);
        let t = TestTimings {
            base: v.clone(),
            head: v,
        };
        assert_eq!(sweperf_test_improvement(&t), Some(0.0));
        assert_eq!(sweperf_improvement(&[t]), Some(0.0));
    }

    #[test]
    fn sweperf_mean_over_tests_and_edge_cases() {
        let fast = TestTimings {
            base: ramp(1.0, 0.001),
            head: ramp(0.5, 0.001),
        };
        let same = TestTimings {
            base: ramp(1.0, 0.01),
            head: ramp(1.0, 0.01),
        };
        let x_fast = sweperf_test_improvement(&fast).unwrap();
        let mean = sweperf_improvement(&[fast, same]).unwrap();
        assert!(close(mean, x_fast / 2.0, 1e-15));

        assert_eq!(sweperf_improvement(&[]), None);
        // One sample per side: exact p = 1/2 at best.
        let single = TestTimings {
            base: vec![10.0],
            head: vec![1.0],
        };
        assert_eq!(sweperf_test_improvement(&single), Some(0.0));
        // No samples on one side.
        let empty = TestTimings {
            base: vec![],
            head: vec![1.0],
        };
        assert_eq!(sweperf_test_improvement(&empty), Some(0.0));
        let nan = TestTimings {
            base: vec![f64::NAN],
            head: vec![1.0],
        };
        assert_eq!(sweperf_improvement(&[nan]), None);
    }

    #[test]
    fn sweperf_single_base_sample_against_many_heads_follows_scipy() {
        // One base value 2.0 against ten distinct head values 0.1..1.0: exact method
        // (n1 = 1 ≤ 8, no ties), p = P(U ≥ 10) = 1/11 < 0.1 while 2(1 − x) > 1.0, i.e.
        // x < 0.5. At x = 0.5 the base value ties with the head value 1.0 → asymptotic:
        // U1 = 9.5, μ = 5, Σ(t³−t) = 6, σ² = 10/12·(12 − 6/110) = 9.9545…, z = 4/3.1551 = 1.2678
        // → p = 0.10244 ≥ 0.1. So x_t = 0.499.
        let head: Vec<f64> = (1..=10).map(|i| f64::from(i) / 10.0).collect();
        let t = TestTimings {
            base: vec![2.0],
            head,
        };
        assert_eq!(sweperf_test_improvement(&t), Some(0.499));
    }

    #[test]
    fn sweperf_iqr_filter_is_applied_per_side() {
        // A single wild base outlier (100 s) must not change the result: it is filtered.
        let mut base = ramp(1.0, 0.001);
        let clean = TestTimings {
            base: base.clone(),
            head: ramp(0.5, 0.001),
        };
        base[7] = 100.0;
        let dirty = TestTimings {
            base,
            head: ramp(0.5, 0.001),
        };
        // With the outlier removed only 19 base values remain; the score stays close.
        let a = sweperf_test_improvement(&clean).unwrap();
        let b = sweperf_test_improvement(&dirty).unwrap();
        assert!((a - b).abs() < 0.01, "{a} vs {b}");
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

    // ------------------------------------------------- optional scipy check

    /// Deterministic pseudo-random samples (a 64-bit LCG), rounded to `decimals` places so
    /// that some cases contain ties.
    fn lcg_samples(state: &mut u64, n: usize, centre: f64, spread: f64, decimals: i32) -> Vec<f64> {
        let scale = 10_f64.powi(decimals);
        (0..n)
            .map(|_| {
                *state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let unit = f64::from(u32::try_from(*state >> 40).unwrap_or(0)) / 16_777_216.0;
                ((centre + spread * (unit - 0.5)) * scale).round() / scale
            })
            .collect()
    }

    /// Compares against scipy/numpy when a Python with them is available (`python3`, or the
    /// interpreter named by `ISOBENCH_PYTHON`). Skipped otherwise: every must-pass value in
    /// this module is verified independently above.
    #[test]
    fn cross_check_against_scipy_when_available() {
        const SCRIPT: &str = r"
import json, sys
import numpy as np
from scipy.stats import mannwhitneyu
def iqr(v):
    a = np.array(v, dtype=float); q1 = np.percentile(a, 25); q3 = np.percentile(a, 75); i = q3 - q1
    return a[(a >= q1 - 1 * i) & (a <= q3 + 1 * i)]
def improvement(b, h):
    b = iqr(b); h = iqr(h); best = 0.0
    for i in range(1001):
        x = i / 1000
        if mannwhitneyu(b * (1 - x), h, alternative='greater').pvalue < 0.1: best = x
        else: break
    return best
out = []
for x, y in json.loads(sys.argv[1]):
    r = mannwhitneyu(x, y, alternative='greater')
    out.append([float(np.percentile(x, 25)), float(np.percentile(x, 75)), float(r.statistic),
                float(r.pvalue), improvement(x, y)])
print(json.dumps(out))
";
        let python = std::env::var("ISOBENCH_PYTHON").unwrap_or_else(|_| "python3".to_owned());
        let mut state = 0x5eed_u64;
        let mut cases = Vec::new();
        for &(n1, n2, head_centre, decimals) in &[
            (3, 3, 0.5, 6),
            (5, 4, 0.9, 6),
            (8, 20, 0.7, 6),
            (20, 20, 0.5, 6),
            (20, 20, 0.95, 6),
            (20, 20, 0.8, 2),
            (12, 7, 0.6, 2),
            (1, 15, 0.5, 6),
            (20, 19, 1.0, 3),
        ] {
            let x = lcg_samples(&mut state, n1, 1.0, 0.2, decimals);
            let y = lcg_samples(&mut state, n2, head_centre, 0.2, decimals);
            cases.push((x, y));
        }
        let arg = serde_json::to_string(&cases).unwrap();
        let output = std::process::Command::new(&python)
            .args(["-c", SCRIPT, &arg])
            .output();
        let output = match output {
            Ok(o) if o.status.success() => o,
            _ => {
                eprintln!(
                    "skipping scipy cross-check: `{python}` with numpy and scipy is not \
                     available (set ISOBENCH_PYTHON to an interpreter that has them)"
                );
                return;
            }
        };
        let expected: Vec<[f64; 5]> = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(expected.len(), cases.len());
        for ((x, y), [p25, p75, u, p, imp]) in cases.iter().zip(expected) {
            assert_eq!(percentile_linear(x, 25.0), Some(p25), "{x:?}");
            assert_eq!(percentile_linear(x, 75.0), Some(p75), "{x:?}");
            let r = mann_whitney_u_greater(x, y).unwrap();
            assert_eq!(r.u, u, "{x:?} {y:?}");
            assert!(
                close(r.p_value, p, 1e-12),
                "{} vs scipy {p}: {x:?} {y:?}",
                r.p_value
            );
            let t = TestTimings {
                base: x.clone(),
                head: y.clone(),
            };
            assert_eq!(sweperf_test_improvement(&t), Some(imp), "{x:?} {y:?}");
        }
        eprintln!(
            "scipy cross-check: {} cases agree with `{python}`",
            cases.len()
        );
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

        #[test]
        fn statistics_never_panic(
            x in prop::collection::vec(prop::num::f64::ANY, 0..12),
            y in prop::collection::vec(prop::num::f64::ANY, 0..12),
            q in prop::num::f64::ANY,
        ) {
            let _ = percentile_linear(&x, q);
            let _ = iqr_filter(&x, q);
            let _ = erfc(q);
            let _ = normal_sf(q);
            if let Some(r) = mann_whitney_u_greater(&x, &y) {
                prop_assert!((0.0..=1.0).contains(&r.p_value));
            }
            let t = TestTimings { base: x, head: y };
            let _ = speedup(std::slice::from_ref(&t));
            if let Some(v) = sweperf_improvement(&[t]) {
                prop_assert!((0.0..=1.0).contains(&v));
            }
        }

        #[test]
        fn exact_and_asymptotic_p_values_agree_roughly(
            x in prop::collection::hash_set(0_u32..10_000, 8),
            y in prop::collection::hash_set(10_000_u32..20_000, 4..8),
            shift in 0_u32..20_000,
        ) {
            // Small samples without ties (8 against 4 to 7) use the exact distribution; its
            // p-value should be close to the continuity-corrected normal approximation.
            let x: Vec<f64> = x.into_iter().map(|v| f64::from(v + shift) + 0.5).collect();
            let y: Vec<f64> = y.into_iter().map(f64::from).collect();
            let r = mann_whitney_u_greater(&x, &y).unwrap();
            prop_assert_eq!(r.method, MannWhitneyMethod::Exact);
            let (n1, n2) = (count_f64(x.len()), count_f64(y.len()));
            let sigma = (n1 * n2 * (n1 + n2 + 1.0) / 12.0).sqrt();
            let approx = normal_sf((r.u - n1 * n2 / 2.0 - 0.5) / sigma);
            prop_assert!((r.p_value - approx).abs() < 0.05, "{} vs {}", r.p_value, approx);
        }

        #[test]
        fn erfc_is_accurate_against_its_own_reflection(x in 0.0..6.0_f64) {
            // erfc(−x) = 2 − erfc(x) must hold to rounding.
            prop_assert!((erfc(-x) - (2.0 - erfc(x))).abs() <= 4.0 * f64::EPSILON);
        }
    }
}
