//! `enrich`: `convert --from FMT --to canonical` with the enrichment from repositories,
//! timing logs and an environment.

use crate::cli::{ConvertOptions, EnrichArgs};
use crate::commands::MineError;
use crate::errors::CliError;
use crate::mine::EnrichConfig;
use crate::pipeline::{self, ConvertRequest};
use crate::session::Session;

/// Runs `enrich`: `convert --from FMT --to canonical` with the enrichment.
pub fn run_enrich(session: &Session, args: &EnrichArgs) -> Result<i32, CliError> {
    if args.repos.is_none()
        && args.timings.is_none()
        && args.env.python.is_none()
        && session.config.repos.is_empty()
    {
        return Err(MineError::NothingToEnrich.into());
    }
    let enrich = EnrichConfig {
        repos_dir: args.repos.clone(),
        mapped: session.config.repos.clone(),
        use_map: !session.config.repos.is_empty(),
        timings: args.timings.clone(),
        env: args
            .env
            .python
            .clone()
            .map(|python| (python, args.env.arch.clone(), args.env.image.clone())),
    };
    let options = ConvertOptions {
        inputs: args.inputs.clone(),
        output: args.output.clone(),
        outcome: args.outcome.clone(),
        overwrite: args.overwrite,
        ..ConvertOptions::default()
    };
    let request = ConvertRequest {
        enrich: Some(enrich),
        ..ConvertRequest::new(&args.from, "canonical", options)
    };
    let plan = request.plan(&session.registry)?;
    pipeline::run(&session.registry, &plan)
}
