//! General statistics, independent of any dataset: numpy's linear percentile, the IQR
//! outlier filter, a one-sided Mann–Whitney U test (exact or asymptotic, as scipy chooses)
//! and the complementary error function it rests on.

use std::cmp::Ordering;
use std::f64::consts::{FRAC_1_SQRT_2, FRAC_2_SQRT_PI, PI};

use serde::{Deserialize, Serialize};

/// Above this many cells (`n1 · n2`) the exact null distribution of U is not built (it would
/// cost memory proportional to the product) and the normal approximation is used instead.
/// With `method='auto'` the exact distribution is only wanted when one sample has at most 8
/// values, so this only matters when the other one has more than 250 000.
const EXACT_MAX_CELLS: usize = 2_000_000;

/// Converts a count to `f64`. Counts here are sample counts far below 2^53, so the
/// conversion is exact.
#[allow(clippy::cast_precision_loss)]
pub(super) fn count_f64(n: usize) -> f64 {
    n as f64
}

/// Arithmetic mean; `None` for an empty list or a non-finite result.
pub(super) fn mean(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let m = values.iter().sum::<f64>() / count_f64(values.len());
    m.is_finite().then_some(m)
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
/// [`percentile_linear`] and `IQR = Q3 − Q1`. SWE-Perf uses `k =` [`SWEPERF_IQR_FACTOR`](super::SWEPERF_IQR_FACTOR).
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
pub(super) struct ExactCache {
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
pub(super) fn mwu_greater(x: &[f64], y: &[f64], cache: &mut ExactCache) -> MannWhitney {
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

#[cfg(test)]
#[allow(
    clippy::float_cmp,
    reason = "exact comparisons are deliberate where the value is exactly representable"
)]
mod tests {
    use super::*;
    use crate::timing::tests::close;
    use proptest::prelude::*;

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

    proptest! {
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
