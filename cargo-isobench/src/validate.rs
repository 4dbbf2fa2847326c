//! `cargo isobench validate`: every problem of every record, with file, line, instance
//! id and JSON pointer: the format's schema, its import, and what its own consumer
//! requires (its contract, the check `convert` makes of what it writes).

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fmt::Write as _;
use std::io::Write;

use isobench_core::schema::{SchemaError, SchemaValidator};
use isobench_core::validate::validate_record;
use isobench_core::{Notes, Profile, Registered, Registry};
use serde_json::{Map, Value};

use crate::cli::ValidateArgs;
use crate::errors::{AreaError, CliError};
use crate::exit;
use crate::formats::find;
use crate::input::{self, Item};

/// Problem lines printed before the rest are only counted.
const SHOWN: u64 = 20;
/// Records kept to tell which format they match, when they do not match the one given.
const SAMPLE: usize = 16;

/// Runs `validate`.
pub fn run(registry: &Registry, args: &ValidateArgs) -> Result<i32, CliError> {
    // `auto`: told from the records, once the inputs are known.
    let named = (!crate::detect::is_auto(&args.format))
        .then(|| find(registry, &args.format))
        .transpose()?;
    let paths: Vec<_> = args.inputs.iter().chain(&args.paths).cloned().collect();
    if paths.is_empty() {
        return Err(ValidateError::NoInputs.into());
    }
    let sources = crate::input::hf::sources(&paths)?;
    let adapter = match named {
        Some(adapter) => adapter,
        None => crate::detect::detect(registry, &sources)?,
    };
    let profile = Profile::from(args.profile);
    let canonical = adapter.info().name == "canonical";
    let validator = Validator::new(adapter, profile)?;
    let (mut records, mut invalid, mut problems) = (0u64, 0u64, 0u64);
    let mut sample: Vec<Map<String, Value>> = Vec::new();
    // Where each instance id was first seen: a harness keys records by it, so a second
    // record with the same id replaces the first there without a word.
    let mut first_seen: HashMap<String, (String, u64)> = HashMap::new();
    let mut repeats = 0u64;
    let mut out = std::io::stdout().lock();
    for source in sources {
        let file = source.display();
        input::for_each_item(&source, |Item { line, record, .. }| {
            records += 1;
            let found: Vec<(String, String)> = match record {
                Err(bad) => vec![(String::new(), bad.message)],
                Ok(value) => {
                    if sample.len() < SAMPLE
                        && let Value::Object(map) = &value
                    {
                        sample.push(map.clone());
                    }
                    let id = value
                        .get("instance_id")
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    if let Some(id) = &id {
                        match first_seen.entry(id.clone()) {
                            Entry::Occupied(first) => {
                                repeats += 1;
                                let (first_file, first_line) = first.get();
                                let first = if *first_file == file {
                                    format!("line {first_line}")
                                } else {
                                    format!("{first_file}:{first_line}")
                                };
                                if repeats <= SHOWN {
                                    crate::terminal::say!(
                                        "warning: {file}:{line}: instance_id {id:?} repeats {first} (a harness keys records by instance_id and keeps one of them)"
                                    );
                                }
                            }
                            Entry::Vacant(slot) => {
                                slot.insert((file.clone(), line));
                            }
                        }
                    }
                    validator
                        .problems(value)
                        .into_iter()
                        .map(|(pointer, message)| {
                            let mut at = id
                                .as_ref()
                                .map_or_else(String::new, |id| format!(" record `{id}`:"));
                            if !pointer.is_empty() {
                                let _ = write!(at, " `{pointer}`:");
                            }
                            (at, message)
                        })
                        .collect()
                }
            };
            if !found.is_empty() {
                invalid += 1;
            }
            for (at, message) in found {
                problems += 1;
                if problems > SHOWN {
                    continue;
                }
                writeln!(
                    out,
                    "{}",
                    crate::terminal::shown(&format!("{file}:{line}:{at} {message}"))
                )
                .map_err(|e| CliError::Write {
                    path: "-".into(),
                    source: e,
                })?;
            }
            Ok(true)
        })?;
    }
    if problems > SHOWN {
        crate::terminal::say!("... and {} more problem(s), not shown", problems - SHOWN);
    }
    crate::terminal::say!(
        "{records} record(s) checked against `{}`{}: {} valid, {invalid} invalid ({problems} problem(s))",
        adapter.info().name,
        if canonical {
            format!(" ({profile})")
        } else {
            String::new()
        },
        records - invalid
    );
    if repeats > 0 {
        crate::terminal::say!(
            "{repeats} record(s) repeat an earlier record's instance_id: valid each on its own, but a harness keeps one record per id"
        );
    }
    if invalid > 0
        && let Ok(other) = crate::detect::choose(registry, &sample)
        && other.info().name != adapter.info().name
    {
        crate::terminal::say!(
            "hint: the records read as `{0}`: check them with `--format {0}`",
            other.info().name
        );
    }
    Ok(if invalid == 0 && records > 0 {
        exit::OK
    } else {
        exit::RECORDS
    })
}

/// What checks records against a format.
#[derive(Debug)]
pub struct Validator<'r> {
    adapter: &'r Registered,
    /// The format's schema; `None` for canonical, which has its own validation.
    view: Option<SchemaValidator>,
    profile: Profile,
}

impl<'r> Validator<'r> {
    /// Checks records against `adapter`'s format (and `profile`, for canonical).
    pub fn new(adapter: &'r Registered, profile: Profile) -> Result<Self, CliError> {
        let view = if adapter.info().name == "canonical" {
            None
        } else {
            Some(SchemaValidator::new(adapter.schema(profile)).map_err(ValidateError::Schema)?)
        };
        Ok(Self {
            adapter,
            view,
            profile,
        })
    }

    /// Every problem of one record, as (JSON pointer, message).
    pub fn problems(&self, value: Value) -> Vec<(String, String)> {
        record_problems(self.adapter, self.view.as_ref(), self.profile, value)
    }
}

/// Every problem of one record, as (JSON pointer, message): the schema (or canonical's
/// own validation), the import, then what the format's consumer requires that the schema
/// cannot say (an empty list, a string that is not JSON).
fn record_problems(
    adapter: &Registered,
    view: Option<&SchemaValidator>,
    profile: Profile,
    value: Value,
) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = match view {
        Some(view) => view
            .problems(&value)
            .into_iter()
            .map(|p| (p.pointer, p.message))
            .collect(),
        None => validate_record(&value, profile)
            .into_iter()
            .map(|p| (p.pointer, p.message))
            .collect(),
    };
    let Value::Object(map) = value else {
        return found;
    };
    let contract = &adapter.info().contract;
    for unmet in contract.check(&map, &|_| None) {
        let pointer = unmet.requirement.pointer();
        // Said already, at this key or at an object holding it.
        let said = found.iter().any(|(p, _)| {
            *p == pointer || (!p.is_empty() && pointer.starts_with(&format!("{p}/")))
        });
        if !said {
            found.push((
                pointer,
                format!(
                    "{} would reject it: {} (needed by {})",
                    adapter.info().name,
                    unmet.describe(),
                    unmet.requirement.evidence
                ),
            ));
        }
    }
    // A key the table requires of an import only may be left out of a written record.
    let import_only: Vec<String> = adapter.table().map_or_else(Vec::new, |table| {
        table
            .fields
            .iter()
            .filter(|f| f.import_only && !map.contains_key(&f.key))
            .map(|f| format!("/{}", isobench_core::error::pointer_token(&f.key)))
            .collect()
    });
    if found.is_empty()
        && let Err(e) = adapter.import(map, &mut Notes::new())
        && !import_only.contains(&e.pointer)
    {
        found.push((e.pointer, e.message));
    }
    found
}

/// A `validate` that cannot run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ValidateError {
    /// No files given.
    #[error("`validate` needs the files to check")]
    NoInputs,
    /// A format whose schema does not compile.
    #[error(transparent)]
    Schema(#[from] SchemaError),
}

impl AreaError for ValidateError {
    fn hint(&self) -> Option<String> {
        match self {
            Self::NoInputs => Some("give them with `-i PATH` (repeatable) or as arguments".into()),
            Self::Schema(_) => None,
        }
    }
}

#[cfg(test)]
mod error_messages {
    use super::*;
    use crate::errors::{CliError, said};

    #[test]
    fn validate_errors_say_what_they_always_said() {
        let errors = vec![CliError::from(ValidateError::NoInputs)];
        insta::assert_snapshot!(said(errors));
    }
}
