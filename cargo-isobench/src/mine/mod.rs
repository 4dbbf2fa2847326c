//! Mining and enrichment from git: records mined from commits, the enrichment of
//! records from their repositories and timing logs, and the `--repos` enrichment of
//! `convert`. The commands that run them are in [`crate::commands`].

mod attributes;
pub mod blobs;
mod changed;
pub mod commit;
pub mod enrich;
pub mod funcname;
pub mod functions;
pub mod heads;
mod python_defs;
mod python_ranges;
mod renames;
pub mod repo;
pub mod rules;
pub mod timings;

use crate::config::Config;
pub use enrich::{EnrichConfig, Enricher};

/// The enrichment `convert --repos DIR` asks for (`None` without `--repos`).
pub fn convert_enrichment(
    config: &Config,
    repos: Option<&std::path::Path>,
) -> Option<EnrichConfig> {
    repos.map(|dir| EnrichConfig {
        repos_dir: Some(dir.to_owned()),
        mapped: config.repos.clone(),
        use_map: true,
        timings: None,
        env: None,
    })
}
