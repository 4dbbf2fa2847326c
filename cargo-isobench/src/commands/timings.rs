//! `timings`: the timings of one instance's logs, printed as JSON.

use std::io::Write;

use serde_json::Value;

use crate::cli::TimingsArgs;
use crate::commands::MineError;
use crate::errors::CliError;
use crate::exit;
use crate::mine::timings;

/// Runs `timings`: prints `{efficiency_test, duration_changes, human_performance, logs}`.
pub fn run_timings(args: &TimingsArgs) -> Result<i32, CliError> {
    let (files, place) = if let Some(dir) = &args.dir {
        let files = timings::instance_logs(dir)?;
        (files, dir.clone())
    } else {
        (
            timings::LogFiles {
                base: args.base.clone(),
                head: args.head.clone(),
            },
            std::path::PathBuf::from("."),
        )
    };
    if files.base.is_empty() || files.head.is_empty() {
        return Err(MineError::TimingLogs.into());
    }
    let tests = (!args.tests.is_empty()).then_some(args.tests.as_slice());
    let timed = timings::read_timings(&files, tests, &place)?;
    let mut record = isobench_core::CanonicalRecord::default();
    let mut notes = isobench_core::Notes::new();
    timings::attach(&mut record, &timed, &mut notes);
    let logs: Vec<Value> = timed
        .logs
        .iter()
        .map(|(path, side, kind)| {
            serde_json::json!({"path": path.display().to_string(), "side": side, "kind": kind.as_str()})
        })
        .collect();
    let out = serde_json::json!({
        "efficiency_test": timed.efficiency_test,
        "duration_changes": record.duration_changes,
        "human_performance": record.human_performance,
        "logs": logs,
    });
    let mut stdout = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut stdout, &out).map_err(|e| write_error(e.into()))?;
    writeln!(stdout).map_err(write_error)?;
    Ok(exit::OK)
}

fn write_error(e: std::io::Error) -> CliError {
    CliError::Write {
        path: "-".into(),
        source: e,
    }
}
