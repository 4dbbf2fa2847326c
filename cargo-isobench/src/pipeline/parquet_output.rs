//! Parquet output converted into columns by the workers, checked through the whole
//! command on generated records: the file read back (converted to JSON Lines by this
//! tool's own Parquet reader) is byte for byte the JSON Lines output of the same input,
//! with `--jobs 1` and `--jobs 2`; each of its row groups ends at the row that fills it
//! (by rows, or by the rows' bytes in their arrays, recounted here from the arrays read
//! back); its rejects are the JSON Lines run's. Row group limits are made small
//! ([`set_test_limits`]) so that few records reach them.

use std::ffi::OsString;
use std::fs::{self, File};
use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use isobench_core::codec::JsonStyle;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::file::metadata::ParquetMetaDataReader;
use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::job::LAID;
use crate::parquet::{GROUP_ROWS, set_test_limits};

/// Text rich in what JSON escapes or writes apart: quotes, backslashes, line breaks,
/// controls, DEL, characters beyond ASCII and beyond the BMP.
fn text() -> impl Strategy<Value = String> {
    "[a-z \"\\\\\n\t\u{1}\u{7f}é中\u{1F600}]{0,12}"
}

/// Short text, or a long one that fills a row group's bytes quickly.
fn field_text() -> impl Strategy<Value = String> {
    prop_oneof![4 => text(), 1 => "[a-z\n\"é]{100,700}"]
}

/// Any JSON value, nested lists and objects and nulls included.
fn nested() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((text(), inner), 0..4)
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    })
}

/// A test list: the JSON text Hugging Face publishes, or an array (which does not fit
/// the text column: it is kept in `__extra`).
fn test_list() -> impl Strategy<Value = Value> {
    prop::collection::vec(text(), 0..3).prop_flat_map(|items| {
        let text = serde_json::to_string(&items).expect("strings serialise");
        prop_oneof![Just(Value::String(text)), Just(json!(items))]
    })
}

/// A SWE-bench record: the declared fields in the schema's order (so that the columns
/// tell it), test lists, undeclared keys of any value anywhere, sometimes every key in any
/// order; `bad`: with a `created_at` the format refuses.
fn record() -> impl Strategy<Value = (Vec<(String, Value)>, bool)> {
    let texts = [
        "base_commit",
        "patch",
        "test_patch",
        "problem_statement",
        "hints_text",
        "created_at",
        "version",
    ];
    (
        prop::collection::vec(field_text(), texts.len() + 1),
        test_list(),
        test_list(),
        prop::collection::vec(("x[a-zé]{0,3}", nested(), any::<usize>()), 0..3),
        proptest::bool::weighted(0.1),
        proptest::bool::weighted(0.3),
    )
        .prop_flat_map(move |(mut values, f2p, p2p, undeclared, bad, shuffle)| {
            let setup = values.pop().expect("one more than the texts");
            let mut entries: Vec<(String, Value)> = vec![
                ("repo".into(), json!("o/r")),
                ("instance_id".into(), Value::Null),
            ];
            entries.extend(
                texts
                    .iter()
                    .zip(values)
                    .map(|(k, t)| ((*k).to_owned(), Value::String(t))),
            );
            entries.push(("FAIL_TO_PASS".into(), f2p));
            entries.push(("PASS_TO_PASS".into(), p2p));
            entries.push(("environment_setup_commit".into(), Value::String(setup)));
            for (key, value, at) in undeclared {
                entries.insert(at % (entries.len() + 1), (key, value));
            }
            let order = if shuffle {
                Just(entries).prop_shuffle().boxed()
            } else {
                Just(entries).boxed()
            };
            (order, Just(bad))
        })
}

/// Runs the command line with `options` after `convert --from swe-bench --to swe-bench`;
/// its exit code.
fn convert(options: &[&str]) -> i32 {
    convert_to("swe-bench", "swe-bench", options)
}

/// Runs the command line with `options` after `convert --from FROM --to TO`; its exit
/// code.
fn convert_to(from: &str, to: &str, options: &[&str]) -> i32 {
    let argv = ["cargo-isobench", "convert", "--from", from, "--to", to]
        .into_iter()
        .chain(options.iter().copied())
        .map(OsString::from);
    crate::run(argv)
}

/// How many rows of the Parquet output `path` were laid into its columns from their
/// text, parsed from it, and pushed as values, since last asked.
fn laid_rows(path: &str) -> [usize; 3] {
    let mut counts = [0; 3];
    LAID.lock()
        .expect("a test panicked")
        .retain(|(output, batch)| {
            if output != Path::new(path) {
                return true;
            }
            for (count, more) in counts.iter_mut().zip(batch) {
                *count += more;
            }
            false
        });
    counts
}

fn style_name(style: JsonStyle) -> &'static str {
    match style {
        JsonStyle::Compact => "compact",
        JsonStyle::Spaced => "spaced",
        JsonStyle::CompactAscii => "compact-ascii",
        JsonStyle::SpacedAscii => "spaced-ascii",
    }
}

/// The rows of each row group of a Parquet file.
fn row_groups(path: &Path) -> Vec<i64> {
    let metadata = ParquetMetaDataReader::new()
        .parse_and_finish(&File::open(path).expect("the file was written"))
        .expect("a Parquet file");
    metadata
        .row_groups()
        .iter()
        .map(parquet::file::metadata::RowGroupMetaData::num_rows)
        .collect()
}

/// The rows of a Parquet file, in order.
fn read_rows(path: &Path) -> Vec<RecordBatch> {
    ParquetRecordBatchReaderBuilder::try_new(File::open(path).expect("the file was written"))
        .expect("a Parquet file")
        .build()
        .expect("a reader")
        .collect::<Result<_, _>>()
        .expect("rows read")
}

/// The bytes of row `i`'s value in `array`, told value by value: a string's length, a
/// fixed width, a list's items', a struct's fields'; nothing for a null.
fn cell_bytes(array: &dyn Array, i: usize) -> usize {
    if array.is_null(i) {
        return 0;
    }
    match array.data_type() {
        DataType::Utf8 => array.as_string::<i32>().value(i).len(),
        DataType::List(_) => {
            let items = array.as_list::<i32>().value(i);
            (0..items.len()).map(|j| cell_bytes(&items, j)).sum()
        }
        DataType::Struct(_) => (array.as_struct().columns().iter())
            .map(|field| cell_bytes(field, i))
            .sum(),
        DataType::Boolean => 1,
        DataType::Int64 | DataType::Float64 => 8,
        other => panic!("a column of {other} is not written"),
    }
}

/// The rows of each row group the rule makes of the rows of the file at `path`, under
/// `limits` (rows, bytes): a group ends at the row that brings it to the rows or bytes.
fn row_groups_by_rule(path: &Path, limits: (usize, usize)) -> Vec<i64> {
    let (mut groups, mut rows, mut bytes) = (Vec::new(), 0, 0);
    for size in row_sizes(path) {
        rows += 1;
        bytes += size;
        if rows >= limits.0 || bytes >= limits.1 {
            groups.push(i64::try_from(rows).expect("few rows"));
            (rows, bytes) = (0, 0);
        }
    }
    if rows > 0 {
        groups.push(i64::try_from(rows).expect("few rows"));
    }
    groups
}

/// Each row's bytes in the arrays of the file at `path`, recounted cell by cell.
fn row_sizes(path: &Path) -> Vec<usize> {
    let mut sizes = Vec::new();
    for batch in read_rows(path) {
        for i in 0..batch.num_rows() {
            sizes.push(
                (batch.columns().iter())
                    .map(|column| cell_bytes(column, i))
                    .sum(),
            );
        }
    }
    sizes
}

/// Converts `input` (SWE-bench records) to `to`'s JSON Lines and Parquet with `--jobs`
/// each of 1 and 2, and checks the promises of the module's doc; how many rows were
/// laid from their text, parsed from it, and pushed as values (with `--jobs 1`).
/// `limits`: the row group limits of the Parquet output, rows and bytes; the bytes, when
/// `exact` is given as `(k, extra)`, are instead the sum of the bytes of the first `k`
/// rows (modulo their number) plus `extra`, a cut right at a row or a byte past it.
fn check(
    dir: &Path,
    input: &Path,
    to: &str,
    style: Option<JsonStyle>,
    limits: (usize, usize),
    exact: Option<(usize, usize)>,
) -> [usize; 3] {
    let mut laid = [0; 3];
    let input = input.to_str().expect("a UTF-8 path");
    let path = |name: &str| dir.join(name).to_str().expect("UTF-8").to_owned();
    let style_args: Vec<&str> =
        style.map_or_else(Vec::new, |s| vec!["--json-style", style_name(s)]);
    let mut limits = limits;
    if let Some((k, extra)) = exact {
        // The rows' bytes, from a file of one row group.
        let probe = path("probe.parquet");
        set_test_limits(Some((GROUP_ROWS, usize::MAX)));
        let mut args = vec!["--allow-incomplete", "--overwrite", "--on-error", "skip"];
        args.extend(["-i", input, "-o", &probe]);
        args.extend(&style_args);
        convert_to("swe-bench", to, &args);
        laid_rows(&probe);
        let sizes = row_sizes(Path::new(&probe));
        if !sizes.is_empty() {
            limits.1 = sizes[..=k % sizes.len()].iter().sum::<usize>() + extra;
        }
    }
    for jobs in ["1", "2"] {
        let (jsonl, parquet, back) = (path("out.jsonl"), path("out.parquet"), path("back.jsonl"));
        let (rejects_a, rejects_b) = (path("a.rejects"), path("b.rejects"));
        let common = [
            "--allow-incomplete",
            "--overwrite",
            "--on-error",
            "skip",
            "--jobs",
            jobs,
            "-i",
            input,
        ];
        let run = |out: &str, rejects: &str| {
            let mut args: Vec<&str> = common.to_vec();
            args.extend(["-o", out, "--rejects", rejects]);
            args.extend(&style_args);
            convert_to("swe-bench", to, &args)
        };
        set_test_limits(None);
        let code = run(&jsonl, &rejects_a);
        set_test_limits(Some((limits.0, limits.1.max(1))));
        assert_eq!(run(&parquet, &rejects_b), code, "exit codes, --jobs {jobs}");
        let want = fs::read(&jsonl).expect("written");
        let counts = laid_rows(&parquet);
        let lines = want.split(|&b| b == b'\n').count() - 1;
        assert_eq!(
            counts.iter().sum::<usize>(),
            lines,
            "{counts:?}, --jobs {jobs}"
        );
        if jobs == "1" {
            laid = counts;
        }
        assert_eq!(
            convert_to(
                to,
                to,
                &[
                    "--allow-incomplete",
                    "--overwrite",
                    "-i",
                    &parquet,
                    "-o",
                    &back
                ]
            ),
            crate::exit::OK
        );
        assert!(
            fs::read(&back).expect("written") == want,
            "the Parquet file read back is the JSON Lines output (--jobs {jobs}):\n{}\n---\n{}",
            String::from_utf8_lossy(&fs::read(&back).unwrap()),
            String::from_utf8_lossy(&want),
        );
        assert_eq!(
            fs::read(&rejects_a).expect("written"),
            fs::read(&rejects_b).expect("written")
        );
        assert_eq!(
            row_groups(Path::new(&parquet)),
            row_groups_by_rule(Path::new(&parquet), (limits.0, limits.1.max(1))),
            "row groups, --jobs {jobs}"
        );
    }
    laid
}

/// Writes records as JSON Lines in `style`; the first gets a character beyond ASCII, so
/// that its text shows the style's escaping.
fn write_input(path: &Path, records: &[(Vec<(String, Value)>, bool)], style: JsonStyle) {
    let mut text = Vec::new();
    for (i, (entries, bad)) in records.iter().enumerate() {
        let mut record: Map<String, Value> = entries.iter().cloned().collect();
        record.insert("instance_id".into(), json!(format!("o__r-{i}")));
        if i == 0 {
            record.insert("problem_statement".into(), json!("é"));
        } else if *bad {
            record.insert("created_at".into(), json!(5));
        }
        style.write_object(&mut text, &record);
        text.push(b'\n');
    }
    fs::write(path, text).expect("written");
}

fn any_style() -> impl Strategy<Value = JsonStyle> {
    prop::sample::select(JsonStyle::ALL.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn parquet_read_back_is_the_json_lines_output_in_row_groups_cut_by_the_rule(
        records in prop::collection::vec(record(), 1..40),
        input_style in any_style(),
        output_style in prop::option::of(prop::sample::select(vec![JsonStyle::Compact, JsonStyle::Spaced])),
        rows in 1usize..12,
        bytes in 200usize..6000,
        exact in prop::option::of((any::<usize>(), 0usize..2)),
    ) {
        let mut records = records;
        records.extend(plain_and_extra());
        let dir = tempfile::tempdir().expect("a directory");
        let input = dir.path().join("in.jsonl");
        write_input(&input, &records, input_style);
        // Into SWE-bench, test lists pass as strings (`Text` columns); undeclared keys, lists
        // given as arrays and key orders of their own make records parsed.
        let [laid, parsed, _] = check(dir.path(), &input, "swe-bench", output_style, (rows, bytes), exact);
        prop_assert!(laid >= 1 && parsed >= 1, "laid {}, parsed {}", laid, parsed);
        // Into canonical, encoded test lists are rewritten as arrays, in the `extensions`
        // JSON column with the texts and undeclared keys.
        let [laid, ..] = check(dir.path(), &input, "canonical", output_style, (rows, bytes), exact);
        prop_assert!(laid >= 1, "laid {}", laid);
        set_test_limits(None);
    }
}

/// Two records of every field, in the schema's order, strings of escapes and characters
/// beyond ASCII, test lists JSON-encoded: the second with an undeclared key too. Some
/// strings are of ASCII only, so that an input escaping the rest holds them still.
fn plain_and_extra() -> [(Vec<(String, Value)>, bool); 2] {
    let ascii = "diff \"q\" \\ /\n\t\u{1}\u{1f} end";
    let wide = "é 中 \u{1F600} \"q\"\n\u{2028}";
    let list = serde_json::to_string(&["t \"1\" \\", "é"]).expect("strings serialise");
    let mut entries: Vec<(String, Value)> = vec![
        ("repo".into(), json!("o/r")),
        ("instance_id".into(), Value::Null),
        ("base_commit".into(), json!("abc")),
        ("patch".into(), json!(ascii)),
        ("test_patch".into(), json!(wide)),
        ("problem_statement".into(), json!(wide)),
        ("hints_text".into(), json!(ascii)),
        ("created_at".into(), json!("2024-01-01T00:00:00Z")),
        ("version".into(), json!("1.0")),
        ("FAIL_TO_PASS".into(), json!(list)),
        ("PASS_TO_PASS".into(), json!("[]")),
        ("environment_setup_commit".into(), json!("def")),
    ];
    let plain = (entries.clone(), false);
    entries.push(("xtra".into(), json!({"k": [1, null, 0.5]})));
    [plain, (entries, false)]
}

/// The fields of a SWE-bench record the format requires.
fn minimal() -> Vec<(String, Value)> {
    let mut entries: Vec<(String, Value)> = [
        "repo",
        "base_commit",
        "patch",
        "test_patch",
        "problem_statement",
        "created_at",
        "version",
    ]
    .iter()
    .map(|k| ((*k).to_owned(), json!("x")))
    .collect();
    entries.push(("FAIL_TO_PASS".to_owned(), json!("[]")));
    entries.push(("PASS_TO_PASS".to_owned(), json!("[]")));
    entries
}

#[test]
fn files_of_more_than_group_rows_records_keep_their_row_groups() {
    let dir = tempfile::tempdir().expect("a directory");
    let input = dir.path().join("in.jsonl");
    let records: Vec<_> = (0..GROUP_ROWS * 2 + 3)
        .map(|i| {
            let mut entries = minimal();
            entries[2].1 = json!("p\n".repeat(i % 7));
            entries[7].1 = json!(["t"]);
            (entries, false)
        })
        .collect();
    write_input(&input, &records, JsonStyle::Compact);
    check(
        dir.path(),
        &input,
        "swe-bench",
        None,
        (GROUP_ROWS, crate::parquet::GROUP_BYTES),
        None,
    );
    assert_eq!(row_groups(&dir.path().join("out.parquet")).len(), 3);
}

#[test]
fn a_bad_record_stops_a_parquet_output_as_it_stops_json_lines() {
    let dir = tempfile::tempdir().expect("a directory");
    let input = dir.path().join("in.jsonl");
    let records: Vec<_> = (0..300).map(|i| (minimal(), i == 150)).collect();
    write_input(&input, &records, JsonStyle::Compact);
    let input = input.to_str().expect("UTF-8");
    for jobs in ["1", "2"] {
        let outcome = |name: &str| {
            let out = dir.path().join(name);
            let code = convert(&[
                "--allow-incomplete",
                "--jobs",
                jobs,
                "-i",
                input,
                "-o",
                out.to_str().expect("UTF-8"),
            ]);
            (code, out.exists())
        };
        let parquet = outcome("out.parquet");
        assert_eq!(parquet, outcome("out.jsonl"));
        assert_eq!(parquet, (crate::exit::RECORDS, false), "--jobs {jobs}");
    }
}
