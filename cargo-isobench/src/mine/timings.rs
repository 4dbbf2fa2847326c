//! Measurement logs read from files and attached to records.
//!
//! The layout `enrich --timings DIR` reads: `DIR/<instance_id>/` holds the logs of one
//! record; every entry whose name starts with `base` belongs to the base run(s), every
//! entry starting with `head` to the head run(s). An entry is a log file or a directory
//! of log files (read in name order). Each file is one log; its kind is detected from its
//! content. An `Execution time` log names no test: it belongs to `efficiency_test[i]` when
//! its file name holds `test<i>`, or to the record's only efficiency test.

use std::fs;
use std::path::{Path, PathBuf};

use isobench_core::timing::{TestTimings, speedup};
use isobench_core::timing_logs::{
    LogKind, SideSamples, TimingLogError, add_samples, match_tests, parse_log,
};
use isobench_core::{CanonicalRecord, DurationChange, Notes, vocab};
use serde_json::{Number, Value};

/// A log that could not be read or used.
#[derive(Debug, thiserror::Error)]
pub enum TimingsError {
    /// A file or directory could not be read.
    #[error("cannot read `{}`: {source}", path.display())]
    Read {
        /// The path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A log's content.
    #[error("`{}`: {error}", path.display())]
    Log {
        /// The log (or the instance directory, for matching errors).
        path: PathBuf,
        /// What is wrong.
        error: TimingLogError,
    },
    /// The timings give no speedup (a zero or empty mean).
    #[error("`{}`: the timings give no speedup (a mean is zero or a side is empty)", .0.display())]
    NoSpeedup(PathBuf),
}

impl crate::errors::AreaError for TimingsError {
    fn hint(&self) -> Option<String> {
        Some("see docs/mining.md for the `--timings DIR` layout for the logs read".to_owned())
    }

    /// Logs that cannot be read as timings are records that cannot be made.
    fn exit_code(&self) -> i32 {
        crate::exit::RECORDS
    }
}

/// Timings read from logs.
#[derive(Debug, Clone)]
pub struct Timed {
    /// The tests, in `duration_changes` order.
    pub efficiency_test: Vec<String>,
    /// Per-test samples.
    pub per_test: Vec<TestTimings>,
    /// `mean(base)/mean(head)`, geometric mean over tests.
    pub human_performance: f64,
    /// Every log read, with its side and kind.
    pub logs: Vec<(PathBuf, &'static str, LogKind)>,
    /// Whether `efficiency_test` was taken from the logs.
    pub tests_from_logs: bool,
}

/// The files of one side given on the command line or found in an instance directory.
#[derive(Debug, Clone, Default)]
pub struct LogFiles {
    /// Base-run logs.
    pub base: Vec<PathBuf>,
    /// Head-run logs.
    pub head: Vec<PathBuf>,
}

/// The logs of an instance directory (see the module documentation).
pub fn instance_logs(dir: &Path) -> Result<LogFiles, TimingsError> {
    let read = |path: &Path| {
        fs::read_dir(path).map_err(|e| TimingsError::Read {
            path: path.to_owned(),
            source: e,
        })
    };
    let mut entries: Vec<PathBuf> = read(dir)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    let mut files = LogFiles::default();
    for entry in entries {
        let name = entry
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let side = if name.starts_with("base") {
            &mut files.base
        } else if name.starts_with("head") {
            &mut files.head
        } else {
            continue;
        };
        if entry.is_dir() {
            let mut inner: Vec<PathBuf> = read(&entry)?
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .collect();
            inner.sort();
            side.extend(inner);
        } else {
            side.push(entry);
        }
    }
    Ok(files)
}

/// The test index a file name gives (`test3.log`, `base.test3.txt`): the digits after
/// the last `test`.
fn index_in_name(path: &Path) -> Option<usize> {
    let name = path.file_name()?.to_string_lossy();
    let at = name.rfind("test")?;
    let digits: String = name[at + 4..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// Reads the logs and pairs them with `efficiency_test` (taken from the logs when `None`).
/// `place` names the instance (its directory) in matching errors.
pub fn read_timings(
    files: &LogFiles,
    efficiency_test: Option<&[String]>,
    place: &Path,
) -> Result<Timed, TimingsError> {
    let mut sides = [SideSamples::default(), SideSamples::default()];
    let mut logs = Vec::new();
    for (i, (side, paths)) in [("base", &files.base), ("head", &files.head)]
        .into_iter()
        .enumerate()
    {
        for path in paths {
            let text = fs::read_to_string(path).map_err(|e| TimingsError::Read {
                path: path.clone(),
                source: e,
            })?;
            let (kind, samples) = parse_log(&text).map_err(|error| TimingsError::Log {
                path: path.clone(),
                error,
            })?;
            let tests = efficiency_test.unwrap_or_default();
            let unnamed = match (index_in_name(path), tests) {
                (Some(i), tests) => tests.get(i).map(String::as_str),
                (None, [only]) => Some(only.as_str()),
                _ => None,
            };
            add_samples(&mut sides[i], &samples, unnamed, tests.len()).map_err(|error| {
                TimingsError::Log {
                    path: path.clone(),
                    error,
                }
            })?;
            logs.push((path.clone(), side, kind));
        }
    }
    let [base, head] = sides;
    let (tests, from_logs) = if let Some(tests) = efficiency_test {
        (tests.to_vec(), false)
    } else {
        let mut tests: Vec<String> = Vec::new();
        for t in base.tests().chain(head.tests()) {
            if !tests.iter().any(|x| x == t) {
                tests.push(t.to_owned());
            }
        }
        (tests, true)
    };
    if tests.is_empty() {
        return Err(TimingsError::Log {
            path: place.to_owned(),
            error: TimingLogError::NoTimings,
        });
    }
    let per_test = match_tests(&tests, &base, &head).map_err(|error| TimingsError::Log {
        path: place.to_owned(),
        error,
    })?;
    let human_performance =
        speedup(&per_test).ok_or_else(|| TimingsError::NoSpeedup(place.to_owned()))?;
    Ok(Timed {
        efficiency_test: tests,
        per_test,
        human_performance,
        logs,
        tests_from_logs: from_logs,
    })
}

/// Sets `efficiency_test` (when taken from the logs), `duration_changes` and
/// `human_performance` on `record`, with notes.
pub fn attach(record: &mut CanonicalRecord, timed: &Timed, notes: &mut Notes) {
    if timed.tests_from_logs {
        record.efficiency_test = Some(timed.efficiency_test.clone());
        record.set_ext(
            isobench_core::vocab::EFFICIENCY_TEST_KIND,
            if timed.logs.iter().any(|l| l.2 == LogKind::ExecutionTime) {
                "python_script"
            } else {
                "pytest_nodeid"
            },
        );
        notes.derived(
            "efficiency_test",
            "the tests the timing logs name, in first-seen order",
        );
    }
    let changes: Vec<DurationChange> = timed
        .per_test
        .iter()
        .map(|t| DurationChange::from_f64(&t.base, &t.head))
        .collect();
    if record.duration_changes.as_ref() != Some(&changes) {
        forget_kept_metric(record);
    }
    record.duration_changes = Some(changes);
    notes.derived(
        "duration_changes",
        format!("from {} timing log(s) ({})", timed.logs.len(), kinds(timed)),
    );
    record.human_performance = Number::from_f64(timed.human_performance);
    notes.derived(
        "human_performance",
        "speedup: mean(base)/mean(head), geometric mean over the tests",
    );
}

/// Drops the source's own `human_performance` that an import kept to write back
/// (SWE-Perf's metric, `extensions.source.raw`): it was computed from the timings the
/// record came with, and describes no others.
fn forget_kept_metric(record: &mut CanonicalRecord) {
    if let Some(Value::Object(source)) = record.extensions.get_mut(vocab::SOURCE)
        && let Some(Value::Object(raw)) = source.get_mut("raw")
    {
        raw.shift_remove("human_performance");
        if raw.is_empty() {
            source.shift_remove("raw");
        }
    }
}

fn kinds(timed: &Timed) -> String {
    let mut kinds: Vec<&str> = timed.logs.iter().map(|l| l.2.as_str()).collect();
    kinds.sort_unstable();
    kinds.dedup();
    kinds.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_index_from_file_names() {
        assert_eq!(index_in_name(Path::new("base/test3.log")), Some(3));
        assert_eq!(index_in_name(Path::new("head.test12.txt")), Some(12));
        assert_eq!(index_in_name(Path::new("base.log")), None);
    }
}
