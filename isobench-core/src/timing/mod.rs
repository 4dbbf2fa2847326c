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

mod layout;
mod metrics;
mod stats;

use serde::{Deserialize, Serialize};

pub use layout::{Gap, Side, TimingError, Transposed, transpose_runs, untranspose};
pub use metrics::{
    SWEPERF_ALPHA, SWEPERF_IQR_FACTOR, SWEPERF_STEPS, speedup, sweperf_improvement,
    sweperf_test_improvement,
};
pub use stats::{
    MannWhitney, MannWhitneyMethod, erfc, iqr_filter, mann_whitney_u_greater, normal_sf,
    percentile_linear,
};

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

#[cfg(test)]
#[allow(
    clippy::float_cmp,
    reason = "exact comparisons are deliberate where the value is exactly representable"
)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    pub(super) fn close(actual: f64, expected: f64, rel: f64) -> bool {
        (actual - expected).abs() <= rel * expected.abs().max(f64::MIN_POSITIVE)
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

    proptest! {
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
    }
}
