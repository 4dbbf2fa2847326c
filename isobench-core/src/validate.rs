//! Validation of canonical records: the profile's JSON Schema, plus the checks no JSON
//! Schema can express.

use serde_json::Value;

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
    let mut problems = Vec::new();
    let tests = record.get("efficiency_test").and_then(Value::as_array);
    let timings = record.get("duration_changes").and_then(Value::as_array);
    if let (Some(tests), Some(timings)) = (tests, timings)
        && tests.len() != timings.len()
    {
        problems.push(Problem {
            pointer: "/duration_changes".into(),
            message: format!(
                "has {} entries but `efficiency_test` has {}: `duration_changes[i]` holds the timings of `efficiency_test[i]`, so the lengths must be equal",
                timings.len(),
                tests.len()
            ),
        });
    }
    if let Some(hp) = record.get("human_performance").and_then(Value::as_f64)
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
