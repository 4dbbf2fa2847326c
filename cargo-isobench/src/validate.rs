//! `cargo isobench validate`: every problem of every record, with file, line, instance
//! id and JSON pointer.

use std::fmt::Write as _;
use std::io::Write;

use isobench_core::schema::SchemaValidator;
use isobench_core::validate::validate_record;
use isobench_core::{Notes, Profile, Registry};
use serde_json::Value;

use crate::cli::ValidateArgs;
use crate::errors::CliError;
use crate::input::{self, Item};
use crate::{exit, find};

/// Runs `validate`.
pub fn run(registry: &Registry, args: &ValidateArgs) -> Result<i32, CliError> {
    let adapter = find(registry, &args.format)?;
    let profile = Profile::from(args.profile);
    let canonical = adapter.info().name == "canonical";
    let view = if canonical {
        None
    } else {
        Some(
            SchemaValidator::new(adapter.schema())
                .map_err(|e| CliError::usage(e.to_string(), None))?,
        )
    };
    let (mut records, mut invalid, mut problems) = (0u64, 0u64, 0u64);
    let mut out = std::io::stdout().lock();
    for source in crate::hf::sources(&args.paths)? {
        let file = source.display();
        input::for_each_item(&source, |Item { line, record, .. }| {
            records += 1;
            let found: Vec<(String, String)> = match record {
                Err(bad) => vec![(String::new(), bad.message)],
                Ok(value) => {
                    let id = value
                        .get("instance_id")
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    let mut found: Vec<(String, String)> = if let Some(view) = &view {
                        view.problems(&value)
                            .into_iter()
                            .map(|p| (p.pointer, p.message))
                            .collect()
                    } else {
                        validate_record(&value, profile)
                            .into_iter()
                            .map(|p| (p.pointer, p.message))
                            .collect()
                    };
                    if found.is_empty()
                        && let Value::Object(map) = value
                        && let Err(e) = adapter.import(map, &mut Notes::new())
                    {
                        found.push((e.pointer, e.message));
                    }
                    found
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
                writeln!(out, "{file}:{line}:{at} {message}").map_err(|e| CliError::Write {
                    path: "-".into(),
                    source: e,
                })?;
            }
            Ok(true)
        })?;
    }
    eprintln!(
        "{records} record(s) checked against `{}`{}: {} valid, {invalid} invalid ({problems} problem(s))",
        adapter.info().name,
        if canonical {
            format!(" ({profile})")
        } else {
            String::new()
        },
        records - invalid
    );
    Ok(if invalid == 0 && records > 0 {
        exit::OK
    } else {
        exit::RECORDS
    })
}
