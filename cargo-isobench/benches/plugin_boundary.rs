//! The cost of the plugin boundary: the same adapter (`examples/custom-adapter`) built
//! in, as a native plugin, and as a Python program (`plugins/python/example_adapter.py`,
//! the same mapping), converting the same records `custom-adapter -> canonical ->
//! custom-adapter`. Prints records/s and MB/s of input for each.
//!
//! `cargo bench -p cargo-isobench --bench plugin_boundary`
#![allow(clippy::cast_precision_loss)] // throughput figures

use std::fmt::Write as _;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cargo_isobench::input;

use cargo_isobench::plugin::{native, program};
use isobench_core::adapter::{ExportOptions, ViewAdapter};
use isobench_core::codec::JsonStyle;
use isobench_core::passthrough::{self, Held, Route};
use isobench_core::{Notes, Registered};
use serde_json::{Map, Value, json};

const WORKSPACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// Records shaped like real ones: a patch of a few KiB, an issue text, test lists.
fn records(n: usize) -> Vec<Map<String, Value>> {
    (0..n)
        .map(|i| {
            let patch: String = (0..60).fold(String::new(), |mut p, l| {
                let _ = writeln!(p, "+    let value_{l} = compute({i}, {l}); // line {l} of the change");
                p
            });
            json!({
                "task_id": format!("octo__widgets-{i}"),
                "repository": "octo/widgets",
                "base_sha": format!("{i:040x}"),
                "gold_patch": format!("diff --git a/src/w.rs b/src/w.rs\n--- a/src/w.rs\n+++ b/src/w.rs\n@@ -1,0 +1,60 @@\n{patch}"),
                "test_patch": "diff --git a/tests/w.rs b/tests/w.rs\n+#[test] fn empty() {}\n",
                "issue": "Widgets crash on empty input.\n\nSteps to reproduce: call `w(\"\")`.\n".repeat(4),
                "fail_to_pass": (0..5).map(|t| format!("tests::w::case_{t}")).collect::<Vec<_>>(),
                "pass_to_pass": (0..40).map(|t| format!("tests::w::other_{t}")).collect::<Vec<_>>(),
                "difficulty_score": i % 5,
            })
            .as_object()
            .cloned()
            .expect("an object")
        })
        .collect()
}

fn build_native() -> PathBuf {
    let target = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/plugin-bench");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut child = Command::new(cargo)
        .current_dir(WORKSPACE)
        .args([
            "build",
            "--release",
            "-p",
            "custom-adapter",
            "--message-format=json-render-diagnostics",
            "--target-dir",
        ])
        .arg(&target)
        .env_remove("CARGO_TARGET_DIR")
        .stdout(Stdio::piped())
        .spawn()
        .expect("cargo runs");
    let stdout = child.stdout.take().expect("piped");
    let mut lib = None;
    for message in cargo_metadata::Message::parse_stream(BufReader::new(stdout)) {
        if let Ok(cargo_metadata::Message::CompilerArtifact(a)) = message
            && a.target.is_kind(cargo_metadata::TargetKind::CDyLib)
        {
            lib = a
                .filenames
                .iter()
                .find(|f| f.as_str().ends_with(std::env::consts::DLL_EXTENSION))
                .map(|f| f.clone().into_std_path_buf());
        }
    }
    assert!(child.wait().expect("cargo ends").success());
    lib.expect("cargo built the cdylib")
}

fn run(adapter: &dyn ViewAdapter, records: &[Map<String, Value>]) -> Duration {
    let options = ExportOptions::default();
    let mut notes = Notes::new();
    let start = Instant::now();
    for record in records {
        notes.clear();
        let canonical = adapter.import(record.clone(), &mut notes).expect("imports");
        let back = adapter
            .export(&canonical, &options, &mut notes)
            .expect("exports");
        assert_eq!(&back, record);
    }
    start.elapsed()
}

/// The whole job of `convert --from <adapter> --to canonical` on JSON Lines, as
/// `convert` does it on one thread: read each line, import it, export it as canonical
/// (lossless, validated), write the line.
fn convert_lines(adapter: &Registered, canonical: &Registered, lines: &[Vec<u8>]) -> Duration {
    let options = ExportOptions::default();
    let mut notes = Notes::new();
    let mut out = Vec::with_capacity(lines.iter().map(Vec::len).sum::<usize>() * 2);
    // As `convert` reads lines: the strings the adapter moves unread and canonical
    // writes unread are held as they were read, outside the record, and an adapter that
    // reads the text (a plugin written by hand) gets the line checked, not parsed, and
    // nothing held.
    let routes = passthrough::routes(adapter.places(), canonical.places(), false);
    let routes_of = input::Routes {
        routes: &routes,
        style: JsonStyle::Compact,
    };
    let mut held = Held::default();
    let start = Instant::now();
    for line in lines {
        notes.clear();
        held.clear();
        let imported = if let Some(import) = adapter.text_import() {
            input::check_record(line, true).expect("a JSON object");
            import(line, &mut notes)
        } else {
            match input::parse_record_holding(line, true, routes_of, &mut held) {
                Ok(Value::Object(map)) => {
                    adapter.import_holding(map, &held.keys(&routes), &mut notes)
                }
                _ => panic!("a JSON object"),
            }
        }
        .expect("imports");
        let order = canonical.held_order(&imported);
        let written = canonical
            .export_owned(imported, &options, &mut notes)
            .expect("exports");
        let texts: Vec<(Route<'_>, &[u8])> = (routes.iter().enumerate())
            .filter_map(|(i, route)| Some((*route, held.text(line, i)?)))
            .collect();
        passthrough::write_object_holding(
            JsonStyle::Compact,
            &mut out,
            &written,
            &canonical.place_held(&order, &written, &texts),
        );
        out.push(b'\n');
    }
    let elapsed = start.elapsed();
    assert!(out.len() > lines.len());
    elapsed
}

fn report_convert(
    label: &str,
    adapter: &Registered,
    canonical: &Registered,
    lines: &[Vec<u8>],
    rounds: u32,
) -> f64 {
    convert_lines(adapter, canonical, &lines[..lines.len().min(50)]); // warm up
    let best = (0..rounds)
        .map(|_| convert_lines(adapter, canonical, lines))
        .min()
        .expect("rounds > 0");
    let secs = best.as_secs_f64();
    let bytes: usize = lines.iter().map(|l| l.len() + 1).sum();
    let per_s = lines.len() as f64 / secs;
    println!(
        "{label:<28} {per_s:>10.0} records/s  {:>8.1} MB/s  ({} records in {secs:.3} s)",
        bytes as f64 / secs / 1e6,
        lines.len()
    );
    per_s
}

fn report(
    label: &str,
    adapter: &dyn ViewAdapter,
    records: &[Map<String, Value>],
    bytes: usize,
    rounds: u32,
) -> f64 {
    run(adapter, &records[..records.len().min(50)]); // warm up
    let best = (0..rounds)
        .map(|_| run(adapter, records))
        .min()
        .expect("rounds > 0");
    let secs = best.as_secs_f64();
    let (per_s, mb_s) = (records.len() as f64 / secs, bytes as f64 / secs / 1e6);
    println!(
        "{label:<28} {:>10.0} records/s  {mb_s:>8.1} MB/s  ({} records in {secs:.3} s)",
        per_s,
        records.len()
    );
    per_s
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let records = records(5_000);
    let bytes: usize = records
        .iter()
        .map(|r| serde_json::to_vec(r).expect("serialises").len() + 1)
        .sum();
    println!(
        "input: {} records, {:.1} MB; each record imported then exported (best of 5)",
        records.len(),
        bytes as f64 / 1e6
    );

    let builtin = Registered::from(custom_adapter::adapter());
    let lib = build_native();
    let plugin = native::load(&lib).expect("the plugin loads");

    isobench_adapters::link();
    let registry = isobench_core::Registry::builtin();
    let canonical = registry
        .get("canonical")
        .expect("the canonical adapter is built in");
    let lines: Vec<Vec<u8>> = records
        .iter()
        .map(|r| serde_json::to_vec(r).expect("serialises"))
        .collect();
    println!("\nconvert --from custom-adapter --to canonical (parse, import, export, write):");
    let b = report_convert("built in", &builtin, canonical, &lines, 5);
    let n = report_convert("native plugin (cdylib)", &plugin, canonical, &lines, 5);
    println!("native plugin / built in: {:.2}x the time", b / n);

    println!("\nadapter calls only (import then export, no parsing or writing):");
    let b = report("built in", builtin.adapter(), &records, bytes, 5);
    let n = report(
        "native plugin (cdylib)",
        plugin.adapter(),
        &records,
        bytes,
        5,
    );
    println!("native plugin / built in: {:.2}x the time", b / n);

    let script = Path::new(WORKSPACE).join("plugins/python/example_adapter.py");
    let command = vec!["python3".to_owned(), script.display().to_string()];
    match program::start(&command, program::DEFAULT_TIMEOUT) {
        Ok(python) => {
            let small = &records[..1_000];
            let small_bytes: usize = small
                .iter()
                .map(|r| serde_json::to_vec(r).expect("serialises").len() + 1)
                .sum();
            let p = report(
                "Python program (JSON Lines)",
                python.adapter(),
                small,
                small_bytes,
                3,
            );
            println!("Python program / built in: {:.1}x the time", b / p);
        }
        Err(e) => println!("Python program: skipped ({e})"),
    }
}
