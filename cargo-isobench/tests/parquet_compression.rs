//! `--parquet-compression`: each codec is what the file's column chunks say, the rows read
//! back are the same whatever the codec, a zstd level is a size traded for time, and the
//! option is refused where it does not apply.

mod common;

use std::fs::{self, File};
use std::path::Path;
use std::process::Output;

use arrow_array::RecordBatch;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::{Compression, GzipLevel, ZstdLevel};
use parquet::file::metadata::{ColumnChunkMetaData, ParquetMetaDataReader};
use serde_json::{Map, Value};

use common::{TestContext, WORKSPACE, stderr};

#[track_caller]
fn ok(out: &Output) {
    assert!(out.status.success(), "failed: {}", stderr(out));
}

/// `n` distinct SWE-bench records made from the samples: each an `instance_id` of its own
/// and a problem statement of words drawn from a small vocabulary (text that compresses,
/// unlike the random bytes that would make every codec equal).
fn records(n: usize) -> String {
    let samples = fs::read_to_string(
        Path::new(WORKSPACE).join("examples/data/swe-bench-verified.sample.jsonl"),
    )
    .unwrap();
    let samples: Vec<Map<String, Value>> = samples
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let words = [
        "the",
        "parser",
        "fails",
        "when",
        "a",
        "test",
        "list",
        "is",
        "empty",
        "and",
        "returns",
        "None",
        "instead",
        "of",
        "raising",
        "ValueError",
        "for",
        "inputs",
        "with",
        "unicode",
    ];
    let mut state: u64 = 31;
    let mut text = String::new();
    for i in 0..n {
        let mut record = samples[i % samples.len()].clone();
        let id = format!("{}-{i}", record["instance_id"].as_str().unwrap());
        record.insert("instance_id".into(), Value::String(id));
        let mut statement = String::new();
        for _ in 0..400 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            statement.push_str(words[usize::try_from(state >> 59).unwrap() % words.len()]);
            statement.push(' ');
        }
        record.insert("problem_statement".into(), Value::String(statement));
        text.push_str(&serde_json::to_string(&record).unwrap());
        text.push('\n');
    }
    text
}

/// `convert --from swe-bench --to swe-bench -i INPUT -o OUTPUT`, then `extra` flags.
fn convert(ctx: &TestContext, input: &str, output: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "swe-bench",
        "-i",
        input,
        "-o",
        output,
    ];
    args.extend_from_slice(extra);
    ctx.run(args)
}

/// The codec of every column chunk of every row group of `path`, and the row group count.
fn codecs(path: &Path) -> (Vec<Compression>, usize) {
    let metadata = ParquetMetaDataReader::new()
        .parse_and_finish(&File::open(path).unwrap())
        .unwrap();
    let codecs = metadata
        .row_groups()
        .iter()
        .flat_map(|group| group.columns().iter().map(ColumnChunkMetaData::compression))
        .collect();
    (codecs, metadata.num_row_groups())
}

/// Every row of `path`, as the Parquet crate reads it.
fn rows(path: &Path) -> Vec<RecordBatch> {
    ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap())
        .unwrap()
        .build()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// Whether `codec` is `want`, the level aside: a file records a codec, not its level.
fn same_codec(codec: Compression, want: Compression) -> bool {
    std::mem::discriminant(&codec) == std::mem::discriminant(&want)
}

#[test]
fn each_codec_is_written_and_reads_back_the_same_rows() {
    let ctx = TestContext::new();
    // One row group (written from memory) and three (through the spool file).
    for (n, groups) in [(5, 1), (1100, 2)] {
        let input = format!("in-{n}.jsonl");
        ctx.write(&input, records(n));
        let default = format!("default-{n}.parquet");
        ok(&convert(&ctx, &input, &default, &[]));
        let want = rows(&ctx.path(&default));
        for (flag, codec) in [
            ("zstd", Compression::ZSTD(ZstdLevel::default())),
            ("zstd:9", Compression::ZSTD(ZstdLevel::default())),
            ("snappy", Compression::SNAPPY),
            ("gzip", Compression::GZIP(GzipLevel::default())),
            ("gzip:1", Compression::GZIP(GzipLevel::default())),
            ("lz4", Compression::LZ4_RAW),
            ("none", Compression::UNCOMPRESSED),
        ] {
            let output = format!("{flag}-{n}.parquet").replace(':', "-");
            ok(&convert(
                &ctx,
                &input,
                &output,
                &["--parquet-compression", flag],
            ));
            let (written, count) = codecs(&ctx.path(&output));
            assert_eq!(count, groups, "{flag}, {n} records");
            assert!(
                !written.is_empty() && written.iter().all(|&c| same_codec(c, codec)),
                "{flag}, {n} records: {written:?}"
            );
            assert_eq!(rows(&ctx.path(&output)), want, "{flag}, {n} records");
            // And back to JSON Lines: the input, byte for byte.
            let back = format!("{output}.jsonl");
            ok(&convert(&ctx, &output, &back, &[]));
            assert!(
                ctx.read(&back) == ctx.read(&input),
                "{flag}, {n} records: JSON Lines -> Parquet -> JSON Lines"
            );
        }
    }
}

#[test]
fn zstd_alone_is_level_1_the_default_and_higher_levels_are_smaller() {
    let ctx = TestContext::new();
    ctx.write("in.jsonl", records(1100));
    for (output, flags) in [
        ("default.parquet", &[][..]),
        ("zstd.parquet", &["--parquet-compression", "zstd"][..]),
        ("zstd-1.parquet", &["--parquet-compression", "zstd:1"][..]),
        ("zstd-3.parquet", &["--parquet-compression", "zstd:3"][..]),
        ("gzip-1.parquet", &["--parquet-compression", "gzip:1"][..]),
        ("gzip-9.parquet", &["--parquet-compression", "gzip:9"][..]),
    ] {
        ok(&convert(&ctx, "in.jsonl", output, flags));
    }
    let bytes = |name: &str| ctx.read_bytes(name);
    // The level is not in the file; the bytes tell it.
    assert!(bytes("zstd.parquet") == bytes("default.parquet"));
    assert!(bytes("zstd-1.parquet") == bytes("default.parquet"));
    let size = |name: &str| bytes(name).len();
    assert!(
        size("zstd-3.parquet") < size("zstd-1.parquet"),
        "zstd:3 {} bytes, zstd:1 {}",
        size("zstd-3.parquet"),
        size("zstd-1.parquet")
    );
    assert!(
        size("gzip-9.parquet") < size("gzip-1.parquet"),
        "gzip:9 {} bytes, gzip:1 {}",
        size("gzip-9.parquet"),
        size("gzip-1.parquet")
    );
}

#[test]
fn a_bad_value_or_an_output_not_parquet_is_a_usage_error() {
    let ctx = TestContext::new();
    ctx.write("in.jsonl", records(2));
    let accepted = "is not one of zstd, zstd:N (N from 1 to 22), snappy, gzip, gzip:N (N from 0 to 9), lz4, none";
    for bad in ["zstd:0", "zstd:23", "gzip:10", "brotli", "Snappy", "lz4:3"] {
        let out = convert(
            &ctx,
            "in.jsonl",
            "out.parquet",
            &["--parquet-compression", bad],
        );
        assert_eq!(out.status.code(), Some(2), "{bad}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("`--parquet-compression {bad}` {accepted}")),
            "{bad}: {}",
            stderr(&out)
        );
        assert!(!ctx.path("out.parquet").exists(), "{bad}");
    }
    let out = convert(
        &ctx,
        "in.jsonl",
        "out.jsonl",
        &["--parquet-compression", "snappy"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "`--parquet-compression` applies to a Parquet output only, and the output is `out.jsonl`"
        ),
        "{}",
        stderr(&out)
    );
    assert!(!ctx.path("out.jsonl").exists());
    let out = ctx.run([
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "canonical",
        "-i",
        "in.jsonl",
        "--parquet-compression",
        "zstd",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("and the output is stdout"),
        "{}",
        stderr(&out)
    );
    assert!(out.stdout.is_empty());
}
