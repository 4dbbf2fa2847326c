//! Validation of canonical records: the profile's JSON Schema, plus the checks no JSON
//! Schema can express.

use serde_json::{Number, Value};

use crate::record::CanonicalRecord;
#[cfg(feature = "schema-validation")]
use crate::schema::Profile;

pub use crate::schema::Problem;

/// Validates a canonical record (as JSON) against a profile: the schema first, then the
/// semantic checks (one `duration_changes` entry per `efficiency_test`).
#[cfg(feature = "schema-validation")]
pub fn validate_record(record: &Value, profile: Profile) -> Vec<Problem> {
    let mut problems = profile.validator().problems(record);
    problems.extend(semantic_problems(record));
    problems
}

/// The checks beyond the JSON Schema.
pub fn semantic_problems(record: &Value) -> Vec<Problem> {
    let tests = record.get("efficiency_test").and_then(Value::as_array);
    let timings = record.get("duration_changes").and_then(Value::as_array);
    let timings = tests.zip(timings).map(|(t, d)| (t.len(), d.len()));
    let hp = record.get("human_performance").and_then(Value::as_f64);
    problems_of(timings, hp)
}

/// The checks beyond the JSON Schema, of a record before it is JSON: what
/// [`semantic_problems`] finds in [`CanonicalRecord::into_value`] of it, read from its
/// fields rather than looked up by name in a map.
pub fn record_semantic_problems(record: &CanonicalRecord) -> Vec<Problem> {
    let tests = record.efficiency_test.as_deref();
    let timings = record.duration_changes.as_deref();
    let timings = tests.zip(timings).map(|(t, d)| (t.len(), d.len()));
    let hp = record.human_performance.as_ref().and_then(Number::as_f64);
    problems_of(timings, hp)
}

/// The semantic problems of a record with `timings` (the lengths of `efficiency_test`
/// and `duration_changes`, when it has both) and `human_performance` `hp` (when a
/// number).
fn problems_of(timings: Option<(usize, usize)>, hp: Option<f64>) -> Vec<Problem> {
    let mut problems = Vec::new();
    if let Some((tests, timings)) = timings
        && tests != timings
    {
        problems.push(Problem {
            pointer: "/duration_changes".into(),
            message: format!(
                "has {timings} entries but `efficiency_test` has {tests}: `duration_changes[i]` holds the timings of `efficiency_test[i]`, so the lengths must be equal",
            ),
        });
    }
    if let Some(hp) = hp
        && !valid_human_performance(hp)
    {
        problems.push(Problem {
            pointer: "/human_performance".into(),
            message: format!("must be a finite, non-negative number, found {hp}"),
        });
    }
    problems
}

/// The semantic rule for `human_performance`: a finite, non-negative number.
pub fn valid_human_performance(hp: f64) -> bool {
    hp.is_finite() && hp >= 0.0
}

#[cfg(test)]
mod semantic_tests {
    use super::*;
    use crate::record::DurationChange;
    use proptest::prelude::*;

    /// A `human_performance` of any kind a record holds: integers, floats of any sign
    /// and size.
    fn number() -> impl Strategy<Value = Number> {
        prop_oneof![
            any::<i64>().prop_map(Number::from),
            any::<u64>().prop_map(Number::from),
            any::<f64>().prop_filter_map("JSON numbers are finite", Number::from_f64),
            (-2.0f64..2.0).prop_filter_map("JSON numbers are finite", Number::from_f64),
        ]
    }

    proptest! {
        /// The checks read from a record's fields find what the checks of its JSON find,
        /// in the same order with the same words.
        #[test]
        fn a_records_problems_are_those_of_its_json(
            tests in prop::option::of(prop::collection::vec("[a-c]{0,2}", 0..4)),
            timings in prop::option::of(0usize..4),
            human_performance in prop::option::of(number()),
            version in prop::option::of("[0-9.]{0,3}"),
        ) {
            let timing = DurationChange { base: vec![Number::from(1)], head: vec![] };
            let record = CanonicalRecord {
                efficiency_test: tests,
                duration_changes: timings.map(|n| vec![timing; n]),
                human_performance,
                version,
                ..CanonicalRecord::default()
            };
            let from_json = semantic_problems(&record.clone().into_value());
            prop_assert_eq!(record_semantic_problems(&record), from_json);
        }
    }
}

#[cfg(all(test, feature = "schema-validation"))]
mod tests {
    use super::*;
    use serde_json::json;

    fn complete() -> Value {
        json!({
            "repo": "o/r", "instance_id": "o__r-PR-1", "created_at": "2024-01-01T00:00:00Z",
            "base_commit": "a", "head_commit": "b", "patch": "", "test_patch": "",
            "efficiency_test": ["t1"], "duration_changes": [{"base": [1.0], "head": [0.5]}],
            "human_performance": 2.0, "version": "1.0"
        })
    }

    #[test]
    fn a_complete_record_is_strict_valid() {
        assert_eq!(validate_record(&complete(), Profile::Strict), vec![]);
    }

    #[test]
    fn strict_names_missing_fields_and_extra_keys() {
        let mut record = complete();
        let map = record.as_object_mut().unwrap();
        map.remove("head_commit");
        map.insert("extensions".into(), json!({}));
        let problems = validate_record(&record, Profile::Strict);
        let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert!(
            text.iter()
                .any(|p| p.contains("\"head_commit\" is a required property")),
            "{text:?}"
        );
        assert!(text.iter().any(|p| p.contains("extensions")), "{text:?}");
        assert!(validate_record(&record, Profile::Lossless).is_empty());
    }

    #[test]
    fn timings_must_align_with_tests() {
        let mut record = complete();
        record["efficiency_test"] = json!(["t1", "t2"]);
        let problems = validate_record(&record, Profile::Strict);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].pointer, "/duration_changes");
    }

    #[test]
    fn wrong_types_carry_their_pointer() {
        let mut record = complete();
        record["duration_changes"][0]["base"] = json!(["slow"]);
        let problems = validate_record(&record, Profile::Lossless);
        assert_eq!(problems[0].pointer, "/duration_changes/0/base/0");
    }
}
