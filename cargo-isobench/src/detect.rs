//! `--from auto`: the input format, guessed from the first records.
//!
//! A format is a candidate when its import accepts every sampled record (the test
//! [`crate::formats::formats_accepting`] applies after a failed import). Candidates are
//! ranked by how well the records' keys match the format's JSON Schema: fewest keys the
//! schema does not declare, then most required fields (the more specific format), then
//! most declared keys present. A unique best is the format; a tie is an error naming the
//! tied formats; no candidate is an error naming the closest format and what it misses.

use std::fmt::Write as _;

use isobench_core::adapter::ViewAdapter;
use isobench_core::{Profile, Registered, Registry};
use serde_json::{Map, Value};

use crate::errors::{AreaError, CliError};
use crate::formats::formats_accepting;
use crate::input::{self, Input};

/// The value of `--from` that asks for detection.
pub const AUTO: &str = "auto";
/// Records sampled.
pub const SAMPLE: usize = 16;

/// Whether `--from` asks for detection.
pub fn is_auto(from: &str) -> bool {
    from.eq_ignore_ascii_case(AUTO)
}

/// How a format's schema matches a set of records.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Fit {
    name: String,
    /// Records the import accepts.
    accepted: usize,
    /// Keys of the records the schema does not declare (when it declares properties).
    undeclared: Vec<String>,
    /// Required fields of the schema some record lacks.
    missing: Vec<String>,
    /// Required fields of the schema.
    required: usize,
    /// Declared keys the records have.
    declared: usize,
}

impl Fit {
    fn of(adapter: &dyn ViewAdapter, records: &[Map<String, Value>], accepted: usize) -> Self {
        let schema = adapter.schema(Profile::Lossless);
        let properties = schema.get("properties").and_then(Value::as_object);
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut undeclared = Vec::new();
        let mut missing = Vec::new();
        let mut declared = 0;
        for record in records {
            for key in record.keys() {
                match properties {
                    Some(props) if !props.contains_key(key) && !undeclared.contains(key) => {
                        undeclared.push(key.clone());
                    }
                    Some(props) if props.contains_key(key) => declared += 1,
                    _ => {}
                }
            }
            for field in &required {
                if !record.contains_key(*field) && !missing.iter().any(|m| m == field) {
                    missing.push((*field).to_owned());
                }
            }
        }
        Self {
            name: adapter.info().name.clone(),
            accepted,
            undeclared,
            missing,
            required: required.len(),
            declared,
        }
    }

    /// The ranking key: smaller is better. Fewest undeclared keys, then fewest required
    /// fields lacking (a format whose consumer the records satisfy fits better), then the
    /// most required fields, then the most declared keys the records have.
    fn rank(
        &self,
    ) -> (
        usize,
        usize,
        std::cmp::Reverse<usize>,
        std::cmp::Reverse<usize>,
    ) {
        (
            self.undeclared.len(),
            self.missing.len(),
            std::cmp::Reverse(self.required),
            std::cmp::Reverse(self.declared),
        )
    }
}

/// Whether `record`'s keys fit `other`'s schema better than `from`'s: fewer keys the
/// schema does not declare, or as many and fewer of its required fields lacking. A
/// record refused by the format it was read as, whose keys fit that format at least as
/// well, was refused for its values, not for being of another format.
pub fn fits_better(
    other: &dyn ViewAdapter,
    from: &dyn ViewAdapter,
    record: &Map<String, Value>,
) -> bool {
    let structure = |adapter: &dyn ViewAdapter| {
        let fit = Fit::of(adapter, std::slice::from_ref(record), 0);
        (fit.undeclared.len(), fit.missing.len())
    };
    structure(other) < structure(from)
}

/// The format of `records`, or why it cannot be told.
pub fn choose<'r>(
    registry: &'r Registry,
    records: &[Map<String, Value>],
) -> Result<&'r Registered, String> {
    if records.is_empty() {
        return Err("the input holds no record to tell the format from".into());
    }
    let mut accepted: Vec<(String, usize)> = registry
        .iter()
        .map(|a| (a.info().name.clone(), 0))
        .collect();
    for record in records {
        for name in formats_accepting(registry, record) {
            if let Some(entry) = accepted.iter_mut().find(|(n, _)| *n == name) {
                entry.1 += 1;
            }
        }
    }
    let fits: Vec<Fit> = registry
        .iter()
        .zip(&accepted)
        .map(|(adapter, (_, n))| Fit::of(adapter.adapter(), records, *n))
        .collect();
    let candidates: Vec<&Fit> = fits
        .iter()
        .filter(|f| f.accepted == records.len())
        .collect();
    let sample = if records.len() == 1 {
        "the first record".to_owned()
    } else {
        format!("the first {} records", records.len())
    };
    let Some(best) = candidates.iter().map(|f| f.rank()).min() else {
        let closest = fits
            .iter()
            .min_by_key(|f| {
                (
                    std::cmp::Reverse(f.accepted),
                    f.missing.len(),
                    f.undeclared.len(),
                )
            })
            .expect("the registry has adapters");
        let mut text = format!(
            "no format accepts {sample}; the closest is `{}`",
            closest.name
        );
        if !closest.missing.is_empty() {
            let _ = write!(text, " (missing {})", quoted(&closest.missing));
        } else if !closest.undeclared.is_empty() {
            let shown = &closest.undeclared[..closest.undeclared.len().min(5)];
            let more = if closest.undeclared.len() > shown.len() {
                format!(" and {} more", closest.undeclared.len() - shown.len())
            } else {
                String::new()
            };
            let _ = write!(text, " (it does not know {}{more})", quoted(shown));
        } else if closest.accepted > 0 {
            let _ = write!(
                text,
                " (it accepts {} of {} records)",
                closest.accepted,
                records.len()
            );
        }
        return Err(text);
    };
    let best: Vec<&&Fit> = candidates.iter().filter(|f| f.rank() == best).collect();
    if let [one] = best.as_slice() {
        return Ok(registry
            .get(&one.name)
            .expect("a candidate is a registered adapter"));
    }
    let names: Vec<String> = best.iter().map(|f| format!("`{}`", f.name)).collect();
    Err(format!(
        "{sample} fit several formats equally well: {}",
        names.join(", ")
    ))
}

fn quoted(fields: &[String]) -> String {
    fields
        .iter()
        .map(|f| format!("`{f}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `--from auto`: reads the first records of the inputs and picks their format; says on
/// stderr which.
pub fn detect<'r>(registry: &'r Registry, sources: &[Input]) -> Result<&'r Registered, CliError> {
    if sources.contains(&Input::Stdin) {
        return Err(DetectError::Stdin.into());
    }
    let mut records = Vec::with_capacity(SAMPLE);
    // The first item that is not a record: what to say when none is.
    let mut first_bad: Option<DetectError> = None;
    for source in sources {
        input::for_each_item(source, |item| {
            match item.record {
                Ok(Value::Object(map)) => records.push(map),
                Ok(_) => {}
                Err(bad) => {
                    first_bad.get_or_insert_with(|| DetectError::NotRecords {
                        file: source.display(),
                        line: item.line,
                        message: bad.message,
                    });
                }
            }
            Ok(records.len() < SAMPLE)
        })?;
        if records.len() >= SAMPLE {
            break;
        }
    }
    if records.is_empty()
        && let Some(bad) = first_bad
    {
        return Err(bad.into());
    }
    match choose(registry, &records) {
        Ok(adapter) => {
            crate::terminal::say!("--from auto: the records read as `{}`", adapter.info().name);
            Ok(adapter)
        }
        Err(why) => Err(DetectError::Undecided {
            why,
            known: registry.names().iter().map(ToString::to_string).collect(),
        }
        .into()),
    }
}

/// `--from auto` that cannot pick a format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DetectError {
    /// Stdin among the inputs: what is read to decide would be gone.
    #[error("`--from auto` cannot read stdin: the records it looks at would be gone")]
    Stdin,
    /// No input item is a JSON record: the first that is not.
    #[error("`--from auto`: the input is not JSON records: {file}:{line}: {message}")]
    NotRecords {
        /// The input it is in.
        file: String,
        /// Its 1-based line (or row).
        line: u64,
        /// Why it is not a record.
        message: String,
    },
    /// No format, or several equally, fit the records read.
    #[error("`--from auto`: {why}")]
    Undecided {
        /// Why no one format was picked.
        why: String,
        /// The formats available.
        known: Vec<String>,
    },
}

impl AreaError for DetectError {
    fn hint(&self) -> Option<String> {
        Some(match self {
            Self::Stdin => {
                "give the input files with `-i`, or name the format with `--from`".into()
            }
            Self::NotRecords { .. } => "inputs are JSON Lines (`.jsonl`), a JSON array (`.json`) or Parquet (`.parquet`); CSV and other formats are not read".into(),
            Self::Undecided { known, .. } => format!(
                "name the format with `--from` (one of {}); `cargo isobench adapters` lists them",
                known.join(", ")
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use isobench_core::adapter::{AdapterInfo, ExportOptions};
    use isobench_core::{CanonicalRecord, Notes, RecordError};
    use serde_json::json;

    use super::*;

    /// A format declaring the keys `declared`, requiring `required` in its schema, and
    /// importing any record.
    #[derive(Debug)]
    struct Keys {
        info: AdapterInfo,
        schema: Value,
    }

    impl Keys {
        fn boxed(name: &str, declared: &[&str], required: &[&str]) -> Box<dyn ViewAdapter> {
            let properties: Map<String, Value> = declared
                .iter()
                .map(|k| ((*k).to_owned(), json!({})))
                .collect();
            Box::new(Self {
                info: AdapterInfo::new(name, &[], "test"),
                schema: json!({"type": "object", "properties": properties, "required": required}),
            })
        }
    }

    impl ViewAdapter for Keys {
        fn info(&self) -> &AdapterInfo {
            &self.info
        }
        fn schema(&self, _: Profile) -> &Value {
            &self.schema
        }
        fn import(
            &self,
            _: Map<String, Value>,
            _: &mut Notes,
        ) -> Result<CanonicalRecord, RecordError> {
            Ok(CanonicalRecord::default())
        }
        fn export(
            &self,
            _: &CanonicalRecord,
            _: &ExportOptions,
            _: &mut Notes,
        ) -> Result<Map<String, Value>, RecordError> {
            Ok(Map::new())
        }
    }

    fn record(keys: &[&str]) -> Map<String, Value> {
        keys.iter().map(|k| ((*k).to_owned(), json!("x"))).collect()
    }

    #[test]
    fn equal_fits_are_ambiguous() {
        let mut registry = Registry::default();
        registry
            .register(Keys::boxed("left", &["a", "b"], &["a"]))
            .unwrap();
        registry
            .register(Keys::boxed("right", &["a", "b"], &["a"]))
            .unwrap();
        let err = choose(&registry, &[record(&["a", "b"])]).unwrap_err();
        assert_eq!(
            err,
            "the first record fit several formats equally well: `left`, `right`"
        );
    }

    #[test]
    fn a_format_whose_requirements_the_records_meet_fits_better() {
        // `more` requires a field the record lacks; `fewer` requires only what it has.
        let mut registry = Registry::default();
        registry
            .register(Keys::boxed("more", &["a", "b", "c"], &["a", "b", "c"]))
            .unwrap();
        registry
            .register(Keys::boxed("fewer", &["a", "b", "c"], &["a", "b"]))
            .unwrap();
        let chosen = choose(&registry, &[record(&["a", "b"])]).unwrap();
        assert_eq!(chosen.info().name, "fewer");
        // With every requirement met, the format requiring more fits better.
        let chosen = choose(&registry, &[record(&["a", "b", "c"])]).unwrap();
        assert_eq!(chosen.info().name, "more");
    }
}

#[cfg(test)]
mod error_messages {
    use super::*;
    use crate::errors::{CliError, said};

    #[test]
    fn detection_errors_say_what_they_always_said() {
        let errors = vec![
            CliError::from(DetectError::Stdin),
            CliError::from(DetectError::NotRecords {
                file: "t.csv".into(),
                line: 1,
                message: "malformed JSON".into(),
            }),
            CliError::from(DetectError::Undecided {
                why: "why".into(),
                known: vec!["a".into(), "b".into()],
            }),
        ];
        insta::assert_snapshot!(said(errors));
    }
}
