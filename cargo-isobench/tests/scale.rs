//! Data at scale: the parallel pipeline keeps the input order, `--shard` parts cover every
//! record once, and compressed inputs and outputs round-trip.

mod common;

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::Output;

use serde_json::Value;

use common::TestContext;

fn sample_lines() -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/data/swe-bench-verified.sample.jsonl");
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

/// `n` records made from the samples, each with a unique id, and sizes that vary widely
/// (a padded problem statement of pseudo-random length), so that batches finish out of order.
fn varied_records(n: usize, max_pad: u64) -> Vec<String> {
    let samples = sample_lines();
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    (0..n)
        .map(|i| {
            let mut record: serde_json::Map<String, Value> =
                serde_json::from_str(&samples[i % samples.len()]).unwrap();
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let pad = usize::try_from(state % max_pad).unwrap();
            record.insert("instance_id".into(), format!("owner__repo-{i}").into());
            record.insert(
                "problem_statement".into(),
                format!("record {i} {}", "x".repeat(pad)).into(),
            );
            serde_json::to_string(&record).unwrap()
        })
        .collect()
}

/// `convert --from FROM --to TO ARGS` run in the scratch directory.
fn convert_between(context: &TestContext, from: &str, to: &str, args: &[&str]) -> Output {
    context
        .command()
        .args(["convert", "--from", from, "--to", to])
        .args(args)
        .output()
        .unwrap()
}

fn convert(context: &TestContext, args: &[&str]) -> Output {
    let out = convert_between(context, "swe-bench", "canonical", args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn ids(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["instance_id"].as_str().unwrap().to_owned()
        })
        .collect()
}

fn expected_ids(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("owner__repo-{i}")).collect()
}

#[test]
fn two_jobs_keep_the_input_order() {
    let context = TestContext::new();
    let n = 300;
    fs::write(
        context.path("in.jsonl"),
        varied_records(n, 200_000).join("\n") + "\n",
    )
    .unwrap();
    convert(
        &context,
        &["-i", "in.jsonl", "-o", "two.jsonl", "--jobs", "2"],
    );
    convert(
        &context,
        &["-i", "in.jsonl", "-o", "one.jsonl", "--jobs", "1"],
    );
    let two = fs::read_to_string(context.path("two.jsonl")).unwrap();
    let one = fs::read_to_string(context.path("one.jsonl")).unwrap();
    assert_eq!(ids(&two), expected_ids(n));
    assert_eq!(two, one, "the output does not depend on the number of jobs");
}

#[test]
fn shards_cover_every_record_exactly_once_in_order() {
    let context = TestContext::new();
    let records = varied_records(50, 2_000);
    // Two inputs, so that parts span a file boundary; a blank line is not a record.
    fs::write(context.path("a.jsonl"), records[..23].join("\n") + "\n\n").unwrap();
    fs::write(context.path("b.jsonl"), records[23..].join("\n")).unwrap();
    for n in [1usize, 3, 7, 64] {
        let mut all = Vec::new();
        let mut sizes = Vec::new();
        for k in 1..=n {
            let shard = format!("{k}/{n}");
            let out = convert(
                &context,
                &[
                    "-i", "a.jsonl", "-i", "b.jsonl", "--shard", &shard, "--jobs", "2",
                ],
            );
            let got = ids(&String::from_utf8(out.stdout).unwrap());
            sizes.push(got.len());
            all.extend(got);
        }
        assert_eq!(all, expected_ids(50), "{n} shards, concatenated in order");
        let (min, max) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
        assert!(max - min <= 1, "{n} shards are near-equal: {sizes:?}");
    }
}

#[test]
fn a_bad_shard_is_a_usage_error() {
    let context = TestContext::new();
    fs::write(context.path("a.jsonl"), sample_lines().join("\n")).unwrap();
    for bad in ["0/3", "4/3", "3", "a/b"] {
        let out = convert_between(
            &context,
            "swe-bench",
            "canonical",
            &["-i", "a.jsonl", "--shard", bad],
        );
        assert_eq!(out.status.code(), Some(2), "--shard {bad}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("K/N"));
    }
}

#[test]
fn gzip_and_zstd_round_trip() {
    let context = TestContext::new();
    let records = varied_records(40, 50_000);
    fs::write(context.path("in.jsonl"), records.join("\n") + "\n").unwrap();
    convert(&context, &["-i", "in.jsonl", "-o", "plain.jsonl"]);
    let plain = fs::read(context.path("plain.jsonl")).unwrap();
    for ext in ["gz", "zst"] {
        let packed = format!("out.jsonl.{ext}");
        convert(&context, &["-i", "in.jsonl", "-o", &packed]);
        let bytes = fs::read(context.path(&packed)).unwrap();
        let magic: &[u8] = if ext == "gz" {
            &[0x1f, 0x8b]
        } else {
            &[0x28, 0xb5, 0x2f, 0xfd]
        };
        assert!(bytes.starts_with(magic), "{packed} is compressed");
        assert!(bytes.len() < plain.len());
        // Read back (canonical to canonical) through the compressed file.
        let back = convert_between(&context, "canonical", "canonical", &["-i", &packed]);
        assert!(
            back.status.success(),
            "{}",
            String::from_utf8_lossy(&back.stderr)
        );
        assert_eq!(
            back.stdout, plain,
            "{packed} reads back as the plain output"
        );
        // A compressed input gives the same output as the plain one.
        let text = (records.join("\n") + "\n").into_bytes();
        let input = format!("in.jsonl.{ext}");
        let compressed = if ext == "gz" {
            let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            enc.write_all(&text).unwrap();
            enc.finish().unwrap()
        } else {
            zstd::encode_all(&text[..], 1).unwrap()
        };
        fs::write(context.path(&input), compressed).unwrap();
        let out = convert(&context, &["-i", &input]);
        assert_eq!(out.stdout, plain, "{input} converts as the plain input");
    }
}

/// Repeated `instance_id`s are found however many ids came before, in the same input or
/// an earlier one, and each warning names the first record with that id. 12,000 ids go
/// through several merges of the id table: one repeat hits an id merged long ago, one an
/// id seen a few hundred records before.
#[test]
fn repeated_ids_are_reported_with_their_first_line() {
    let context = TestContext::new();
    let record = |id: &str| format!("{{\"repo\":\"o/r\",\"instance_id\":\"{id}\"}}\n");
    let mut a = String::new();
    for i in 0..12_000 {
        let id = match i {
            9_000 => "i-5".to_owned(),
            11_000 => "i-10500".to_owned(),
            i => format!("i-{i}"),
        };
        a.push_str(&record(&id));
    }
    fs::write(context.path("a.jsonl"), a).unwrap();
    let b = (0..100).fold(String::new(), |b, i| {
        b + &record(&if i == 50 {
            "i-7".to_owned()
        } else {
            format!("j-{i}")
        })
    });
    fs::write(context.path("b.jsonl"), b).unwrap();
    let args = ["-i", "a.jsonl", "-i", "b.jsonl", "-o", "out.jsonl"];
    let args = [&args[..], &["--report", "report.json", "--jobs", "2"]].concat();
    let out = convert_between(&context, "canonical", "canonical", &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let report: Value =
        serde_json::from_str(&fs::read_to_string(context.path("report.json")).unwrap()).unwrap();
    assert_eq!(
        report["written"], 12_100,
        "repeats are written all the same"
    );
    assert_eq!(report["warning_count"], 3);
    let warnings: Vec<(String, u64, String, String)> = report["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            (
                w["file"].as_str().unwrap().to_owned(),
                w["line"].as_u64().unwrap(),
                w["instance_id"].as_str().unwrap().to_owned(),
                w["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let repeat = |file: &str, line, id: &str, first: &str| {
        (
            file.to_owned(),
            line,
            id.to_owned(),
            format!("repeats {first} (both records are written)"),
        )
    };
    assert_eq!(
        warnings,
        [
            repeat("a.jsonl", 9_001, "i-5", "line 6"),
            repeat("a.jsonl", 11_001, "i-10500", "line 10501"),
            repeat("b.jsonl", 51, "i-7", "a.jsonl:8"),
        ]
    );
    assert!(
        stderr.contains("warning: a.jsonl:9001: instance_id \"i-5\" repeats line 6"),
        "{stderr}"
    );
}
