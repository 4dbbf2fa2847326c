//! Mining and enrichment from git: records mined from commits, the enrichment of
//! records from their repositories and timing logs, and the `--repos` and `--timings`
//! enrichment of `convert`. The commands that run them are in [`crate::commands`].

mod attributes;
pub mod blobs;
mod changed;
pub mod commit;
pub mod enrich;
pub mod funcname;
pub mod functions;
mod git_text;
pub mod heads;
mod python_defs;
mod python_ranges;
mod renames;
pub mod repo;
pub mod rules;
pub mod timings;

use crate::config::Config;
pub use enrich::{EnrichConfig, Enricher};

/// The enrichment `convert --repos DIR --timings DIR` asks for (`None` without either).
pub fn convert_enrichment(
    config: &Config,
    repos: Option<&std::path::Path>,
    timings: Option<&std::path::Path>,
) -> Option<EnrichConfig> {
    (repos.is_some() || timings.is_some()).then(|| EnrichConfig {
        repos_dir: repos.map(std::path::Path::to_owned),
        mapped: config.repos.clone(),
        use_map: repos.is_some(),
        timings: timings.map(std::path::Path::to_owned),
        env: None,
    })
}
