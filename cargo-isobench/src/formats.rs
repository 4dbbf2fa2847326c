//! Formats by name, and by the records they accept.

use isobench_core::{Notes, Registered, Registry};
use serde_json::{Map, Value};

use crate::errors::CliError;

/// The adapter answering to `name`.
pub fn find<'r>(registry: &'r Registry, name: &str) -> Result<&'r Registered, CliError> {
    registry.get(name).ok_or_else(|| CliError::UnknownFormat {
        name: name.to_owned(),
        known: registry.names().iter().map(|&n| n.to_owned()).collect(),
        skipped: Vec::new(),
    })
}

/// The formats whose import accepts `record`, for the hint after a failed import.
pub fn formats_accepting(registry: &Registry, record: &Map<String, Value>) -> Vec<String> {
    registry
        .iter()
        .filter(|a| a.import(record.clone(), &mut Notes::new()).is_ok())
        .map(|a| a.info().name.clone())
        .collect()
}
