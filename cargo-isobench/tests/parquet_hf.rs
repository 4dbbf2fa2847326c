//! Parquet input and output, `hf:` inputs from a local Hugging Face cache, and
//! `--from auto`.

mod common;

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::{Map, Value, json};

use common::{TestContext, WORKSPACE, plugin, stderr};

const REAL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data/real");

/// `convert --from FROM --to TO -i INPUT -o OUTPUT`.
fn convert_args<'a>(from: &'a str, to: &'a str, input: &'a str, output: &'a str) -> [&'a str; 9] {
    [
        "convert", "--from", from, "--to", to, "-i", input, "-o", output,
    ]
}

#[track_caller]
fn ok(out: &Output) {
    assert!(out.status.success(), "failed: {}", stderr(out));
}

/// The records of a JSONL file, key order kept (`serde_json` has `preserve_order`).
fn records(path: &Path) -> Vec<Map<String, Value>> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Same values and same key order at every depth.
#[track_caller]
fn assert_same_rows(got: &[Map<String, Value>], want: &[Map<String, Value>], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: row count");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g, w, "{what}: row {}", i + 1);
        assert_eq!(
            serde_json::to_string(g).unwrap(),
            serde_json::to_string(w).unwrap(),
            "{what}: row {} (key order)",
            i + 1
        );
    }
}

fn write_jsonl(path: &Path, rows: &[Value]) {
    let mut text = String::new();
    for row in rows {
        text.push_str(&row.to_string());
        text.push('\n');
    }
    fs::write(path, text).unwrap();
}

/// JSONL -> Parquet -> JSONL with one format, and the rows compared with the input's.
fn parquet_round_trip(context: &TestContext, input: &Path, format: &str, extra: &[&str]) {
    let name = input.file_stem().unwrap().to_string_lossy();
    let parquet = context.path(format!("{name}.parquet"));
    let back = context.path(format!("{name}.back.jsonl"));
    let convert = |from: &Path, to: &Path| {
        let mut args = vec![
            "convert",
            "--from",
            format,
            "--to",
            format,
            "-i",
            from.to_str().unwrap(),
            "-o",
            to.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        ok(&context.run(&args));
    };
    convert(input, &parquet);
    assert!(fs::read(&parquet).unwrap().starts_with(b"PAR1"));
    convert(&parquet, &back);
    assert_same_rows(&records(&back), &records(input), &name);
}

/// Every JSONL file of a real-data directory, or `None` (with a note) when it is absent.
fn real_files(dir: &str) -> Option<Vec<PathBuf>> {
    let path = Path::new(REAL).join(dir);
    if !common::real_data_present(&path) {
        return None;
    }
    let entries = fs::read_dir(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    Some(files)
}

#[test]
fn real_swe_bench_and_swe_smith_records_round_trip_through_parquet() {
    let context = TestContext::new();
    let mut seen = 0;
    for (dir, format) in [
        ("swebench-full", "swe-bench"),
        ("swebench-lite", "swe-bench"),
        ("swebench-verified", "swe-bench"),
        ("swesmith", "swe-smith"),
    ] {
        for file in real_files(dir).into_iter().flatten() {
            parquet_round_trip(&context, &file, format, &[]);
            // Canonical records (typed lists, JSON-text extensions) round-trip as well.
            let canonical = context.path(format!(
                "{}.canonical.jsonl",
                file.file_stem().unwrap().to_string_lossy()
            ));
            ok(&context.run(convert_args(
                format,
                "canonical",
                file.to_str().unwrap(),
                canonical.to_str().unwrap(),
            )));
            parquet_round_trip(&context, &canonical, "canonical", &[]);
            seen += 1;
        }
    }
    if seen > 0 {
        eprintln!("{seen} real files round-tripped");
    }
}

#[test]
fn real_multi_swe_bench_records_round_trip_through_parquet() {
    let Some(files) = real_files("multi-swe-bench") else {
        return;
    };
    let plugin = plugin("isobench_multi_swe_bench");
    let context = TestContext::new();
    for file in files {
        // Some of these records have `"body": null`: a null must come back as a null.
        parquet_round_trip(
            &context,
            &file,
            "multi-swe-bench",
            &["--plugin", plugin.to_str().unwrap()],
        );
    }
}

/// The arrow schema of a Parquet file.
fn parquet_schema(path: &Path) -> Arc<Schema> {
    let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap()).unwrap();
    Arc::clone(builder.schema())
}

#[test]
fn an_all_empty_list_column_is_a_list_of_strings() {
    let context = TestContext::new();
    let input = context.path("in.jsonl");
    let rows: Vec<Value> = (1..=3)
        .map(|i| {
            json!({
                "instance_id": format!("o__r-{i}"),
                "repo": "sympy/sympy",
                "patch": "diff",
                "FAIL_TO_PASS": [],
                "PASS_TO_PASS": [],
                "image_name": "img",
            })
        })
        .collect();
    write_jsonl(&input, &rows);
    let out = context.path("out.parquet");
    ok(&context.run(
        // Empty F2P lists, which MiniSandbox's reward cannot use: written anyway.
        [
            &convert_args("minisandbox", "minisandbox", "in.jsonl", "out.parquet")[..],
            &["--allow-incomplete"],
        ]
        .concat(),
    ));
    let schema = parquet_schema(&out);
    let strings = DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)));
    for column in ["FAIL_TO_PASS", "PASS_TO_PASS"] {
        assert_eq!(
            schema.field_with_name(column).unwrap().data_type(),
            &strings,
            "{column}"
        );
    }
    // A declared column no record has is not written, nor is `__extra` when no record
    // needs it (`__keys` is: these records' keys are not in the schema's order).
    for absent in ["python_version", "__extra"] {
        assert!(schema.field_with_name(absent).is_err(), "{absent}");
    }
    // Another file of the same format types the same columns the same way, and has the
    // columns its records need.
    write_jsonl(
        &context.path("other.jsonl"),
        &[json!({
            "instance_id": "o__r-9",
            "repo": "sympy/sympy",
            "patch": "diff",
            "FAIL_TO_PASS": ["t::a"],
            "PASS_TO_PASS": ["t::b", "t::c"],
            "image_name": "img",
            "python_version": "3.11",
            "unknown": 1,
        })],
    );
    ok(&context.run(convert_args(
        "minisandbox",
        "minisandbox",
        "other.jsonl",
        "other.parquet",
    )));
    let other = parquet_schema(&context.path("other.parquet"));
    for column in [
        "instance_id",
        "repo",
        "patch",
        "FAIL_TO_PASS",
        "PASS_TO_PASS",
    ] {
        assert_eq!(
            other.field_with_name(column).unwrap(),
            schema.field_with_name(column).unwrap()
        );
    }
    assert_eq!(
        other.field_with_name("python_version").unwrap().data_type(),
        &DataType::Utf8
    );
    assert!(other.field_with_name("__extra").is_ok());
    let back = context.path("back.jsonl");
    ok(&context.run(
        [
            &convert_args(
                "minisandbox",
                "minisandbox",
                "out.parquet",
                back.to_str().unwrap(),
            )[..],
            &["--allow-incomplete"],
        ]
        .concat(),
    ));
    let want: Vec<Map<String, Value>> = rows
        .into_iter()
        .map(|r| r.as_object().unwrap().clone())
        .collect();
    assert_same_rows(&records(&back), &want, "empty lists");
}

#[test]
fn canonical_timings_are_a_typed_list_of_structs() {
    let context = TestContext::new();
    let row = json!({
        "repo": "sympy/sympy",
        "instance_id": "o__r-1",
        "duration_changes": [{"base": [1.5, 2.25], "head": [0.5, 0.75]}],
        "human_performance": 0.5,
        "extensions": {"image_name": "img"},
    });
    write_jsonl(&context.path("c.jsonl"), &[row]);
    ok(&context.run(convert_args(
        "canonical",
        "canonical",
        "c.jsonl",
        "c.parquet",
    )));
    let schema = parquet_schema(&context.path("c.parquet"));
    let floats = DataType::List(Arc::new(Field::new("item", DataType::Float64, true)));
    let runs = DataType::Struct(
        vec![
            Field::new("base", floats.clone(), true),
            Field::new("head", floats, true),
        ]
        .into(),
    );
    assert_eq!(
        schema
            .field_with_name("duration_changes")
            .unwrap()
            .data_type(),
        &DataType::List(Arc::new(Field::new("item", runs, true)))
    );
    let extensions = schema.field_with_name("extensions").unwrap();
    assert_eq!(extensions.data_type(), &DataType::Utf8);
    assert_eq!(
        extensions
            .metadata()
            .get("isobench.encoding")
            .map(String::as_str),
        Some("json")
    );
    assert_eq!(
        schema
            .field_with_name("human_performance")
            .unwrap()
            .data_type(),
        &DataType::Float64
    );
}

#[test]
fn parquet_given_a_json_name_is_refused_with_a_hint() {
    let context = TestContext::new();
    let mut bytes = b"PAR1".to_vec();
    bytes.extend_from_slice(&[0; 16]);
    fs::write(context.path("data.jsonl"), bytes).unwrap();
    let out = context.run([
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "canonical",
        "-i",
        "data.jsonl",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("`data.jsonl` looks like a Parquet file"),
        "{err}"
    );
    assert!(err.contains("`NAME.parquet`"), "{err}");
}

#[test]
fn a_bad_cell_is_reported_with_its_file_row_and_column() {
    let context = TestContext::new();
    // A column our writer would mark as JSON text, holding text that is not JSON in row 2.
    let schema = Arc::new(Schema::new(vec![
        Field::new("instance_id", DataType::Utf8, true),
        Field::new("repo", DataType::Utf8, true),
        Field::new("extensions", DataType::Utf8, true)
            .with_metadata([("isobench.encoding".to_owned(), "json".to_owned())].into()),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(vec!["o__r-1", "o__r-2", "o__r-3"])),
        Arc::new(StringArray::from(vec!["o/r"; 3])),
        Arc::new(StringArray::from(vec![Some("{}"), Some("{oops"), None])),
    ];
    let batch = RecordBatch::try_new(Arc::clone(&schema), columns).unwrap();
    let mut writer = ArrowWriter::try_new(
        File::create(context.path("bad.parquet")).unwrap(),
        schema,
        None,
    )
    .unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    let out = context.run([
        "convert",
        "--from",
        "canonical",
        "--to",
        "canonical",
        "-i",
        "bad.parquet",
        "--on-error",
        "skip",
        "-o",
        "out.jsonl",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    // Row 1 is converted; in a file not written by us, a null is a null.
    let written = records(&context.path("out.jsonl"));
    let ids: Vec<&Value> = written.iter().map(|r| &r["instance_id"]).collect();
    assert_eq!(ids, [&json!("o__r-1")]);
    let rejects = records(&context.path("out.jsonl.rejects.jsonl"));
    assert_eq!(rejects.len(), 2, "{rejects:?}");
    assert_eq!(rejects[0]["file"], "bad.parquet");
    assert_eq!(rejects[0]["line"], 2);
    let error = rejects[0]["error"].as_str().unwrap();
    assert!(error.starts_with("column `extensions`:"), "{error}");
    // Row 3's `extensions: null` is not an object: canonical rejects it.
    assert_eq!(rejects[1]["line"], 3);
}

/// A Hugging Face hub cache laid out as the hub lays it out: the data file a link into
/// `blobs/`, `refs/main` naming the snapshot.
fn fake_hub(root: &Path, parquet: &Path) -> PathBuf {
    let hub = root.join("hub");
    let repo = hub.join("datasets--acme--bench-data");
    let commit = "0123456789abcdef0123456789abcdef01234567";
    fs::create_dir_all(repo.join("refs")).unwrap();
    fs::create_dir_all(repo.join("blobs")).unwrap();
    let data = repo.join("snapshots").join(commit).join("data");
    fs::create_dir_all(&data).unwrap();
    fs::write(repo.join("refs/main"), commit).unwrap();
    fs::copy(parquet, repo.join("blobs/b10b")).unwrap();
    let link = data.join("test-00000-of-00001.parquet");
    #[cfg(unix)]
    std::os::unix::fs::symlink("../../../blobs/b10b", &link).unwrap();
    #[cfg(not(unix))]
    fs::copy(parquet, &link).unwrap();
    fs::write(
        repo.join("snapshots").join(commit).join("README.md"),
        "# card\n",
    )
    .unwrap();
    hub
}

fn swe_bench_rows() -> Vec<Value> {
    (1..=4)
        .map(|i| {
            json!({
                "repo": "sympy/sympy",
                "instance_id": format!("acme__widgets-{i}"),
                "base_commit": "a".repeat(40),
                "patch": "diff --git a/w.py b/w.py\n",
                "test_patch": "diff --git a/tests/test_w.py b/tests/test_w.py\n",
                "problem_statement": format!("issue {i}"),
                "hints_text": "",
                "created_at": "2024-01-02T03:04:05Z",
                "version": "1.0",
                "FAIL_TO_PASS": "[\"tests/test_w.py::test_a\"]",
                "PASS_TO_PASS": "[]",
                "environment_setup_commit": "b".repeat(40),
            })
        })
        .collect()
}

#[test]
fn hf_inputs_are_read_from_the_local_cache() {
    let context = TestContext::new();
    let rows = swe_bench_rows();
    write_jsonl(&context.path("src.jsonl"), &rows);
    ok(&context.run(convert_args(
        "swe-bench",
        "swe-bench",
        "src.jsonl",
        "src.parquet",
    )));
    let hub = fake_hub(context.dir(), &context.path("src.parquet"));
    let env = [("HF_HUB_CACHE", hub.as_path())];
    let want: Vec<Map<String, Value>> = rows
        .iter()
        .map(|r| r.as_object().unwrap().clone())
        .collect();
    for (i, spec) in [
        "hf:acme/bench-data",
        "hf:acme/bench-data:test",
        "hf:acme/bench-data@main:test",
        "hf:acme/bench-data@0123456789abcdef0123456789abcdef01234567",
    ]
    .iter()
    .enumerate()
    {
        let out_name = format!("out{i}.jsonl");
        ok(&context
            .command()
            .args(convert_args("swe-bench", "swe-bench", spec, &out_name))
            .envs(env)
            .output()
            .unwrap());
        assert_same_rows(&records(&context.path(&out_name)), &want, spec);
    }
    // HF_HOME/hub is the cache when HF_HUB_CACHE is not set; several inputs in one run.
    let home = context.path("home");
    fs::create_dir_all(&home).unwrap();
    fs::rename(&hub, home.join("hub")).unwrap();
    ok(&context
        .command()
        .args([
            "convert",
            "--from",
            "swe-bench",
            "--to",
            "swe-bench",
            "-i",
            "hf:acme/bench-data:test",
            "-i",
            "src.jsonl",
            "-o",
            "both.jsonl",
        ])
        .envs([("HF_HOME", home.as_path())])
        .output()
        .unwrap());
    let both = records(&context.path("both.jsonl"));
    assert_eq!(both.len(), 2 * want.len());
    assert_same_rows(&both[want.len()..], &want, "second input");
}

#[test]
fn hf_inputs_are_validated_and_a_json_file_of_lines_is_read_as_lines() {
    let context = TestContext::new();
    let rows = swe_bench_rows();
    // Some published datasets name JSON Lines files `.json`.
    write_jsonl(&context.path("lines.json"), &rows);
    let convert = ["convert", "--from", "swe-bench", "--to", "swe-bench"];
    ok(&context.run([&convert[..], &["-i", "lines.json", "-o", "src.parquet"]].concat()));
    let hub = fake_hub(context.dir(), &context.path("src.parquet"));
    let out = context
        .command()
        .args([
            "validate",
            "--format",
            "swe-bench",
            "hf:acme/bench-data:test",
        ])
        .envs([("HF_HUB_CACHE", hub.as_path())])
        .output()
        .unwrap();
    ok(&out);
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &stderr(&out);
    assert!(
        text.contains(&format!("{} record(s) checked", rows.len())) && text.contains(" 0 invalid"),
        "{text}"
    );
}

#[test]
fn hf_inputs_missing_from_the_cache_say_where_they_looked_and_how_to_fetch() {
    let context = TestContext::new();
    write_jsonl(&context.path("src.jsonl"), &swe_bench_rows());
    ok(&context.run(convert_args(
        "swe-bench",
        "swe-bench",
        "src.jsonl",
        "src.parquet",
    )));
    let hub = fake_hub(context.dir(), &context.path("src.parquet"));
    let env = [("HF_HUB_CACHE", hub.as_path())];
    let run = |spec: &str| {
        let out = context
            .command()
            .args([
                "convert",
                "--from",
                "swe-bench",
                "--to",
                "swe-bench",
                "-i",
                spec,
            ])
            .envs(env)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{spec}: {}", stderr(&out));
        stderr(&out)
    };
    let err = run("hf:acme/absent");
    assert!(
        err.contains("dataset `acme/absent` is not in the Hugging Face cache"),
        "{err}"
    );
    assert!(err.contains("datasets--acme--absent"), "{err}");
    assert!(
        err.contains("huggingface-cli download --repo-type dataset acme/absent"),
        "{err}"
    );
    let err = run("hf:acme/bench-data:train");
    assert!(err.contains("no `train` split"), "{err}");
    assert!(err.contains("splits found: test"), "{err}");
    let err = run("hf:acme/bench-data@v9");
    assert!(err.contains("revision `v9`"), "{err}");
    assert!(err.contains("refs `main`"), "{err}");
    assert!(err.contains("--revision v9"), "{err}");
}

fn detect(context: &TestContext, input: &str) -> Output {
    context.run([
        "convert",
        "--from",
        "auto",
        "--to",
        "canonical",
        "-i",
        input,
        "--dry-run",
    ])
}

#[test]
fn from_auto_picks_swe_bench_and_canonical() {
    let context = TestContext::new();
    write_jsonl(&context.path("swe.jsonl"), &swe_bench_rows());
    let out = detect(&context, "swe.jsonl");
    ok(&out);
    assert!(
        stderr(&out).contains("--from auto: the records read as `swe-bench`"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("swe-bench -> canonical"));
    // The same records as canonical, and as Parquet.
    ok(&context.run(convert_args(
        "swe-bench",
        "canonical",
        "swe.jsonl",
        "c.jsonl",
    )));
    let out = detect(&context, "c.jsonl");
    ok(&out);
    assert!(stderr(&out).contains("the records read as `canonical`"));
    ok(&context.run(convert_args(
        "swe-bench",
        "swe-bench",
        "swe.jsonl",
        "s.parquet",
    )));
    let out = detect(&context, "s.parquet");
    ok(&out);
    assert!(stderr(&out).contains("the records read as `swe-bench`"));
}

#[test]
fn from_auto_prefers_a_format_whose_requirements_are_met_and_fails_clearly_on_unknown_records() {
    let context = TestContext::new();
    // Every key of this record is declared by both SWE-smith and MiniSandbox, and their
    // imports both accept it; only MiniSandbox's contract is met (SWE-smith's needs
    // `problem_statement`), so it is chosen.
    write_jsonl(
        &context.path("both.jsonl"),
        &[json!({
            "instance_id": "o__r.1234abcd.lm_modify__x",
            "repo": "sympy/sympy",
            "patch": "diff",
            "FAIL_TO_PASS": ["t::a"],
            "PASS_TO_PASS": [],
            "image_name": "img",
        })],
    );
    let out = detect(&context, "both.jsonl");
    let err = stderr(&out);
    assert!(
        err.contains("--from auto: the records read as `minisandbox`"),
        "{err}"
    );
    write_jsonl(
        &context.path("unknown.jsonl"),
        &[json!({"repo": "o/r", "title": "t", "body": "b"})],
    );
    let out = detect(&context, "unknown.jsonl");
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("no format accepts the first record"), "{err}");
    // Canonical requires only `repo` and `instance_id`: one field short, the closest.
    assert!(
        err.contains("the closest is `canonical` (missing `instance_id`)"),
        "{err}"
    );
}

/// A column's name and string cells.
type StringColumn = (String, Vec<Option<String>>);

/// The string cells of a Parquet file, column by column, and its schema.
fn string_columns(path: &Path) -> (Arc<Schema>, Vec<StringColumn>) {
    let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap()).unwrap();
    let schema = Arc::clone(builder.schema());
    let mut columns: Vec<StringColumn> = schema
        .fields()
        .iter()
        .map(|f| (f.name().clone(), Vec::new()))
        .collect();
    for batch in builder.build().unwrap() {
        let batch = batch.unwrap();
        for (column, array) in columns.iter_mut().zip(batch.columns()) {
            let strings = array
                .as_any()
                .downcast_ref::<StringArray>()
                .unwrap_or_else(|| panic!("{}: {}", column.0, array.data_type()));
            column.1.extend(
                (0..strings.len())
                    .map(|i| strings.is_valid(i).then(|| strings.value(i).to_owned())),
            );
        }
    }
    (schema, columns)
}

/// SWE-bench through Parquet as Hugging Face publishes it: one `string` column per field
/// the records have, in their order, the test lists as the JSON text of the list, the
/// `huggingface` features; and back to the same bytes with the default style.
fn assert_hugging_face_layout(context: &TestContext, input: &Path) {
    let name = input.file_stem().unwrap().to_string_lossy();
    let parquet = context.path(format!("{name}.parquet"));
    let back = context.path(format!("{name}.back.jsonl"));
    let (i, p, b) = (
        input.to_str().unwrap(),
        parquet.to_str().unwrap(),
        back.to_str().unwrap(),
    );
    ok(&context.run(convert_args("swe-bench", "swe-bench", i, p)));
    let rows = records(input);
    let (schema, columns) = string_columns(&parquet);
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    // The records' fields in their order; `__extra` only for what SWE-bench does not
    // declare, or test lists given as arrays; never `__keys` (the order is the columns').
    let fields: Vec<&str> = names.iter().copied().filter(|n| *n != "__extra").collect();
    assert_eq!(
        fields,
        rows[0].keys().map(String::as_str).collect::<Vec<_>>()[..fields.len()],
        "{name}"
    );
    for field in schema.fields() {
        assert_eq!(
            field.data_type(),
            &DataType::Utf8,
            "{name}: {}",
            field.name()
        );
        assert_eq!(
            field.metadata().is_empty(),
            field.name() != "__extra",
            "{name}"
        );
    }
    let hf: Value = serde_json::from_str(&schema.metadata()["huggingface"]).unwrap();
    let features = hf["info"]["features"].as_object().unwrap();
    assert_eq!(features.keys().collect::<Vec<_>>(), names, "{name}");
    for feature in features.values() {
        assert_eq!(feature, &json!({"dtype": "string", "_type": "Value"}));
    }
    // `json.loads` of a test-list cell gives the list, whether the input held it as a
    // JSON-encoded string or as an array.
    for list in ["FAIL_TO_PASS", "PASS_TO_PASS"] {
        let cells = &columns.iter().find(|(n, _)| n == list).unwrap().1;
        for (cell, row) in cells.iter().zip(&rows) {
            let parsed: Value = serde_json::from_str(cell.as_deref().unwrap()).unwrap();
            assert!(parsed.as_array().unwrap().iter().all(Value::is_string));
            let want = match &row[list] {
                Value::String(text) => serde_json::from_str(text).unwrap(),
                other => other.clone(),
            };
            assert_eq!(parsed, want, "{name}: {list}");
        }
    }
    ok(&context.run(convert_args("swe-bench", "swe-bench", p, b)));
    assert!(
        fs::read(input).unwrap() == fs::read(&back).unwrap(),
        "{name}: jsonl -> parquet -> jsonl is not byte-identical"
    );
}

#[test]
fn swe_bench_parquet_follows_the_hugging_face_layout_and_comes_back_identical() {
    let context = TestContext::new();
    let sample = Path::new(WORKSPACE).join("examples/data/swe-bench-verified.sample.jsonl");
    assert_hugging_face_layout(&context, &sample);
    // Thirteen columns, as in Hugging Face's SWE-bench Verified.
    let (schema, _) = string_columns(&context.path("swe-bench-verified.sample.parquet"));
    assert_eq!(schema.fields().len(), 13);
    for dir in ["swebench-verified", "swebench-lite", "swebench-full"] {
        for file in real_files(dir).unwrap_or_default() {
            assert_hugging_face_layout(&context, &file);
        }
    }
}

#[test]
fn columns_no_record_has_are_left_out_of_files_of_many_row_groups() {
    let context = TestContext::new();
    // More rows than a row group holds; `difficulty` only in the last row, no record with
    // the other optional fields, one with an undeclared key, one in another key order.
    let n = 2 * 1024 + 10;
    let rows: Vec<Value> = (1..=n)
        .map(|i| {
            let mut row = json!({
                "repo": "sympy/sympy",
                "instance_id": format!("o__r-{i}"),
                "base_commit": "abc",
                "patch": "diff",
                "test_patch": "diff",
                "problem_statement": "p",
                "hints_text": "",
                "created_at": "2024-01-02T03:04:05Z",
                "version": "1.0",
                "FAIL_TO_PASS": "[\"t::a\"]",
                "PASS_TO_PASS": "[]",
                "environment_setup_commit": "abc",
            });
            if i == n {
                row["difficulty"] = json!("<15 min fix");
            }
            row
        })
        .collect();
    write_jsonl(&context.path("plain.jsonl"), &rows);
    let mut odd = rows.clone();
    odd[1500]["note"] = json!({"k": 1});
    let moved = odd[1600].as_object_mut().unwrap().remove("repo").unwrap();
    odd[1600]["repo"] = moved;
    write_jsonl(&context.path("odd.jsonl"), &odd);

    for (name, want_extra) in [("plain", false), ("odd", true)] {
        let input = format!("{name}.jsonl");
        let parquet = format!("{name}.parquet");
        let back = format!("{name}.back.jsonl");
        ok(&context.run(convert_args("swe-bench", "swe-bench", &input, &parquet)));
        let path = context.path(&parquet);
        let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(&path).unwrap()).unwrap();
        assert!(builder.metadata().num_row_groups() >= 3, "{name}");
        let schema = Arc::clone(builder.schema());
        let mut names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(
            names.last(),
            Some(&if want_extra { "__keys" } else { "difficulty" })
        );
        if want_extra {
            names.truncate(names.len() - 2);
            assert!(schema.field_with_name("__extra").is_ok());
        }
        let mut want: Vec<&str> = rows[0]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        want.push("difficulty");
        assert_eq!(names, want, "{name}");
        ok(&context.run(convert_args("swe-bench", "swe-bench", &parquet, &back)));
        assert!(
            fs::read(context.path(&input)).unwrap() == fs::read(context.path(&back)).unwrap(),
            "{name}: not byte-identical"
        );
    }
    // No spool file is left beside the output.
    let left: Vec<_> = fs::read_dir(context.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
