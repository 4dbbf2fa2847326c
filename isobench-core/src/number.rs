//! JSON numbers as their text: a number read keeps the text it was written with
//! (`18446744073709551616`, `5e-05`, `1.10`, `-0.0`), so that one passing through is
//! written back byte for byte, but for one spelling: an exponent is written `e` with
//! its sign (`1E5` and `1e5` are written `1e+5`; Python, JavaScript and Go write
//! exponents so already). Where a value is needed, it is taken only when it is exact;
//! two numbers are compared by the value their text denotes.

use serde_json::Number;

/// `n` as an `i64` that writes back as `n`'s own text (`7`, not `7.0`, `1e1` or `-0`).
pub fn exact_i64(n: &Number) -> Option<i64> {
    n.as_i64().filter(|i| i.to_string() == n.as_str())
}

/// `n` as a finite `f64` whose shortest text, as [`Number::from_f64`] writes it, is `n`'s
/// own (`0.5`, not `0.50` or `5e-1`): stored as a float and read back, it is unchanged.
pub fn exact_f64(n: &Number) -> Option<f64> {
    let value = n.as_f64()?;
    Number::from_f64(value)
        .filter(|shortest| shortest.as_str() == n.as_str())
        .map(|_| value)
}

/// The value `n`'s text denotes, written one way: equal for equal values, whatever the
/// spelling (`1.10` and `1.1e0` give the same; `0`, `-0` and `0.0` too), unequal for
/// any two different values however close (no rounding to a float).
pub fn value_key(n: &Number) -> String {
    let text = n.as_str();
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], &unsigned[at + 1..]),
        None => (unsigned, "0"),
    };
    // JSON's grammar bounds the exponent's digits only by the text's length: read it
    // as a wide integer, saturating (no JSON number has ten million digits of
    // mantissa for a saturated exponent to confuse).
    let exponent: i128 = exponent
        .trim_start_matches('+')
        .parse()
        .unwrap_or_else(|_| {
            if exponent.starts_with('-') {
                i128::MIN / 2
            } else {
                i128::MAX / 2
            }
        });
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: String = whole.chars().chain(fraction.chars()).collect();
    let leading = digits.len() - digits.trim_start_matches('0').len();
    let significant = digits.trim_matches('0');
    if significant.is_empty() {
        return "0".to_owned();
    }
    // The value is 0.<significant> * 10^point.
    let point = exponent + whole.len() as i128 - leading as i128;
    format!("{}0.{significant}e{point}", if negative { "-" } else { "" })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn number(text: &str) -> Number {
        text.parse().expect("a JSON number")
    }

    #[test]
    fn a_number_keeps_its_text() {
        for text in [
            "18446744073709551616",
            "-123456789012345678901234567890",
            "5e-05",
            "1e+16",
            "1.10",
            "-0.0",
            "-0",
            "1e+400",
        ] {
            let value: serde_json::Value = serde_json::from_str(text).expect("JSON");
            assert_eq!(value.to_string(), text);
        }
        for (text, written) in [("1E5", "1e+5"), ("2e5", "2e+5"), ("3E-5", "3e-5")] {
            let value: serde_json::Value = serde_json::from_str(text).expect("JSON");
            assert_eq!(value.to_string(), written);
        }
    }

    #[test]
    fn exact_values_only() {
        assert_eq!(exact_i64(&number("42")), Some(42));
        assert_eq!(exact_i64(&number("-0")), None);
        assert_eq!(exact_i64(&number("1e1")), None);
        assert_eq!(exact_i64(&number("18446744073709551616")), None);
        assert_eq!(exact_f64(&number("0.5")), Some(0.5));
        assert_eq!(exact_f64(&number("0.50")), None);
        assert_eq!(exact_f64(&number("5e-05")), None);
        assert_eq!(exact_f64(&number("1e+400")), None);
        assert_eq!(exact_f64(&number("0.1")), Some(0.1));
    }

    #[test]
    fn values_compare_by_value() {
        let same = [
            ("1.10", "1.1"),
            ("1.1e0", "11e-1"),
            ("0", "-0.0"),
            ("100", "1E2"),
            ("0.00500", "5e-3"),
        ];
        for (a, b) in same {
            assert_eq!(value_key(&number(a)), value_key(&number(b)), "{a} = {b}");
        }
        let different = [
            ("1", "-1"),
            ("18446744073709551616", "18446744073709551617"),
            ("0.1", "0.10000000000000001"),
            ("1e2", "1e3"),
        ];
        for (a, b) in different {
            assert_ne!(value_key(&number(a)), value_key(&number(b)), "{a} != {b}");
        }
    }

    proptest! {
        /// The key agrees with exact decimal arithmetic on integers scaled by a power
        /// of ten, written every way JSON allows.
        #[test]
        fn equal_values_have_equal_keys(m in any::<i64>(), shift in 0usize..6, exp in -30i32..30) {
            // m * 10^exp, written with an integer mantissa, and with the point moved
            // `shift` digits left, a trailing zero and the exponent raised to match.
            let plain = format!("{m}e{exp}");
            let digits = m.unsigned_abs().to_string();
            let sign = if m < 0 { "-" } else { "" };
            let padded = format!("{digits:0>width$}", width = shift + 1);
            let (int, frac) = padded.split_at(padded.len() - shift);
            let moved = format!("{sign}{int}.{frac}0E{}", exp + i32::try_from(shift).expect("small"));
            prop_assert_eq!(value_key(&number(&plain)), value_key(&number(&moved)));
            let other = format!("{}e{exp}", m.wrapping_add(1));
            prop_assert_ne!(value_key(&number(&plain)), value_key(&number(&other)));
        }
    }
}
