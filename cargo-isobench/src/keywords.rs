//! Options given by name instead of by flag: a library caller (the Python package) passes
//! a command's options as a map from each field's name (`on_error`, `allow_incomplete`) to
//! its value, and gets the same struct the command line parses, with the command line's
//! defaults, value names and checks. Nothing here names an option: the names, defaults and
//! choices are read from the clap declaration of the struct.

use clap::builder::ArgAction;
use clap::{Args, Command, FromArgMatches, ValueEnum};
use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

/// An option map that does not make the struct.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeywordError {
    /// A name that is no option of the command (for Python, a `TypeError`).
    #[error("unexpected keyword argument `{0}`")]
    Unknown(String),
    /// A value outside an option's choices (a usage error).
    #[error("`{name}={given}` is not one of {choices}")]
    Choice {
        /// The option.
        name: String,
        /// The value given.
        given: String,
        /// The values it takes, comma-separated.
        choices: String,
    },
    /// A value of the wrong type, or a required option missing (for Python, a `TypeError`).
    #[error("{0}")]
    Invalid(String),
}

/// One option of a struct, as its clap declaration has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keyword {
    /// The field's name: the keyword.
    pub name: String,
    /// The default value the flag has, as the command line would print it (`None`: none,
    /// or `false`/empty for a switch or a repeatable flag).
    pub default: Option<String>,
    /// The values it takes, for a choice.
    pub choices: Vec<String>,
    /// Whether it is a switch (`--overwrite`): given, it is `true`.
    pub switch: bool,
}

/// The options of `T`, in declaration order (those a flattened group brings included;
/// hidden ones left out).
pub fn keywords<T: Args>() -> Vec<Keyword> {
    command::<T>()
        .get_arguments()
        .filter(|arg| !arg.is_hide_set())
        .map(|arg| Keyword {
            name: arg.get_id().to_string(),
            default: arg
                .get_default_values()
                .first()
                .filter(|_| !matches!(arg.get_action(), ArgAction::SetTrue))
                .map(|v| v.to_string_lossy().into_owned()),
            // A switch's `true`/`false` are no choice: it takes a bool.
            choices: arg
                .get_possible_values()
                .iter()
                .filter(|_| arg.get_action().takes_values())
                .filter(|v| !v.is_hide_set())
                .map(|v| v.get_name().to_owned())
                .collect(),
            switch: matches!(arg.get_action(), ArgAction::SetTrue),
        })
        .collect()
}

/// `T` as the command line has it when no flag is given. Panics if `T` has a required
/// option (a programming error: only structs without one have defaults).
pub fn defaults<T: Args + FromArgMatches>() -> T {
    let matches = command::<T>()
        .try_get_matches_from(["defaults"])
        .expect("a struct with defaults has no required option");
    T::from_arg_matches(&matches).expect("clap's own matches make the struct")
}

/// `T` from options by name: the names must be `T`'s options, a choice one of its values;
/// an option not given takes the command line's default. `null` is an option not given.
///
/// # Errors
/// An unknown name, a value outside the choices, a value of the wrong type.
pub fn from_keywords<T: Args + DeserializeOwned>(
    given: Map<String, Value>,
) -> Result<T, KeywordError> {
    let options = keywords::<T>();
    let mut map = Map::new();
    for arg in command::<T>().get_arguments().filter(|a| !a.is_hide_set()) {
        let value = match arg.get_action() {
            ArgAction::SetTrue => Value::Bool(false),
            ArgAction::Append => Value::Array(Vec::new()),
            _ => arg.get_default_values().first().map_or(Value::Null, |v| {
                Value::String(v.to_string_lossy().into_owned())
            }),
        };
        map.insert(arg.get_id().to_string(), value);
    }
    for (name, value) in given {
        let Some(option) = options.iter().find(|o| o.name == name) else {
            return Err(KeywordError::Unknown(name));
        };
        if value.is_null() {
            continue;
        }
        if !option.choices.is_empty() {
            let fits = value
                .as_str()
                .is_some_and(|v| option.choices.iter().any(|c| c == v));
            if !fits {
                return Err(KeywordError::Choice {
                    given: value
                        .as_str()
                        .map_or_else(|| value.to_string(), str::to_owned),
                    name,
                    choices: option.choices.join(", "),
                });
            }
        }
        map.insert(name, value);
    }
    serde_json::from_value(Value::Object(map)).map_err(|e| KeywordError::Invalid(e.to_string()))
}

/// The value of the choice `name` (a clap value enum) called `given`, by the names its flag
/// takes.
///
/// # Errors
/// A name that is none of them.
pub fn choice<T: ValueEnum>(name: &str, given: &str) -> Result<T, KeywordError> {
    T::from_str(given, false).map_err(|_| KeywordError::Choice {
        name: name.to_owned(),
        given: given.to_owned(),
        choices: T::value_variants()
            .iter()
            .filter_map(ValueEnum::to_possible_value)
            .filter(|v| !v.is_hide_set())
            .map(|v| v.get_name().to_owned())
            .collect::<Vec<_>>()
            .join(", "),
    })
}

/// Reads a clap value enum from its command-line name (`deserialize_with`), so that a
/// choice has the names its flag has.
///
/// # Errors
/// A string that names no value.
pub fn value_enum<'de, D: Deserializer<'de>, T: ValueEnum>(d: D) -> Result<T, D::Error> {
    let name = String::deserialize(d)?;
    T::from_str(&name, false).map_err(D::Error::custom)
}

fn command<T: Args>() -> Command {
    T::augment_args(Command::new("options"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{ConvertOptions, MineArgs, OnError, ProfileArg};
    use clap::Parser;
    use serde_json::json;

    /// A command of one struct, to parse flags with.
    #[derive(Debug, Parser)]
    struct Convert {
        #[command(flatten)]
        options: ConvertOptions,
    }

    #[derive(Debug, Parser)]
    struct Mine {
        #[command(flatten)]
        args: MineArgs,
    }

    fn map(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => unreachable!(),
        }
    }

    #[test]
    fn keywords_make_what_the_flags_make() {
        assert_eq!(
            from_keywords::<ConvertOptions>(Map::new()).unwrap(),
            Convert::parse_from(["x"]).options
        );
        let options: ConvertOptions = from_keywords(map(json!({
            "inputs": ["a.jsonl", "b.jsonl"], "output": "o.parquet", "profile": "strict",
            "on_error": "skip", "rejects": "r", "report": "p", "overwrite": true, "limit": 3,
            "dry_run": true, "set": ["version=1"], "allow_incomplete": true,
            "json_style": "spaced", "jobs": 2, "shard": "1/2", "parquet_compression": "snappy",
        })))
        .unwrap();
        let flags = Convert::parse_from([
            "x",
            "-i",
            "a.jsonl",
            "-i",
            "b.jsonl",
            "-o",
            "o.parquet",
            "--profile",
            "strict",
            "--on-error",
            "skip",
            "--rejects",
            "r",
            "--report",
            "p",
            "--overwrite",
            "--limit",
            "3",
            "--dry-run",
            "--set",
            "version=1",
            "--allow-incomplete",
            "--json-style",
            "spaced",
            "--jobs",
            "2",
            "--shard",
            "1/2",
            "--parquet-compression",
            "snappy",
        ])
        .options;
        assert_eq!(options, flags);
        assert_eq!(options.profile, ProfileArg::Strict);
        assert_eq!(options.outcome.on_error, OnError::Skip);
        assert_eq!(
            from_keywords::<MineArgs>(map(json!({"repo": "r", "head": ["h"], "python": "3.9"})))
                .unwrap(),
            Mine::parse_from(["x", "--repo", "r", "--head", "h", "--python", "3.9"]).args
        );
        assert_eq!(
            ConvertOptions::default(),
            Convert::parse_from(["x"]).options
        );
    }

    #[test]
    fn bad_keywords_are_refused_by_name() {
        assert_eq!(
            from_keywords::<ConvertOptions>(map(json!({"on_eror": "skip"}))),
            Err(KeywordError::Unknown("on_eror".into()))
        );
        let e = from_keywords::<ConvertOptions>(map(json!({"profile": "loose"}))).unwrap_err();
        assert_eq!(
            e.to_string(),
            "`profile=loose` is not one of lossless, strict"
        );
        assert_eq!(
            choice::<ProfileArg>("profile", "loose").unwrap_err(),
            e,
            "one message for a choice, given by keyword or alone"
        );
        assert_eq!(
            choice::<ProfileArg>("profile", "strict"),
            Ok(ProfileArg::Strict)
        );
        assert!(matches!(
            from_keywords::<ConvertOptions>(map(json!({"limit": "many"}))),
            Err(KeywordError::Invalid(_))
        ));
        assert!(matches!(
            from_keywords::<MineArgs>(Map::new()),
            Err(KeywordError::Invalid(_))
        ));
        // `null` is an option not given.
        assert_eq!(
            from_keywords::<ConvertOptions>(map(json!({"limit": null, "set": null}))).unwrap(),
            ConvertOptions::default()
        );
    }

    #[test]
    fn the_keywords_are_the_flags() {
        let names: Vec<String> = keywords::<ConvertOptions>()
            .into_iter()
            .map(|k| k.name)
            .collect();
        assert_eq!(
            names,
            [
                "inputs",
                "output",
                "profile",
                "on_error",
                "rejects",
                "report",
                "overwrite",
                "limit",
                "dry_run",
                "set",
                "replace",
                "allow_incomplete",
                "json_style",
                "jobs",
                "shard",
                "parquet_compression",
                "task_org"
            ]
        );
        let profile = keywords::<ConvertOptions>()
            .into_iter()
            .find(|k| k.name == "profile")
            .unwrap();
        assert_eq!(profile.default.as_deref(), Some("lossless"));
        assert_eq!(profile.choices, ["lossless", "strict"]);
    }
}
