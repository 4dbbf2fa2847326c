//! The performance metrics of a record: the canonical speedup and SWE-Perf's published
//! improvement score.

use super::TestTimings;
use super::stats::{ExactCache, count_f64, iqr_filter, mean, mwu_greater};

/// The IQR multiplier SWE-Perf uses for its outlier filter: values outside
/// `[Q1 − 1·IQR, Q3 + 1·IQR]` are dropped.
pub const SWEPERF_IQR_FACTOR: f64 = 1.0;

/// The significance level of SWE-Perf's metric: a slow-down `x` still counts while the
/// one-sided Mann–Whitney p-value is strictly below this.
pub const SWEPERF_ALPHA: f64 = 0.1;

/// SWE-Perf's metric tries `x = i / SWEPERF_STEPS` for `i = 0, 1, …, SWEPERF_STEPS`
/// (a grid of 0.001 from 0 to 1 inclusive).
pub const SWEPERF_STEPS: u32 = 1000;

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

/// SWE-Perf's improvement score `x_t` of one test (see [`sweperf_improvement`]).
///
/// The base and head samples are filtered separately with [`iqr_filter`]
/// (`k =` [`SWEPERF_IQR_FACTOR`]); then for `x = i/1000`, `i = 0, 1, …, 1000`, the base
/// samples are scaled by `1 − x` and tested with [`mann_whitney_u_greater`](super::mann_whitney_u_greater) against the head
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
    use crate::timing::mann_whitney_u_greater;
    use crate::timing::tests::close;

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
}
