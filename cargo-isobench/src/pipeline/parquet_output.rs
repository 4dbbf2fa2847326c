//! Parquet output converted into columns by the workers, checked through the whole
//! command on generated records: the file read back (converted to JSON Lines by this
//! tool's own Parquet reader) is byte for byte the JSON Lines output of the same input,
//! with `--jobs 1` and `--jobs 2`; each of its row groups ends at the row that fills it
//! (by rows, or by the rows' bytes in their arrays, recounted here from the arrays read
//! back); its rejects are the JSON Lines run's. Row group limits are made small
//! ([`RowGroups`], set in the plan) so that few records reach them, but for a test of
//! rows of megabytes under the real limits.

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

use crate::parquet::{GROUP_BYTES, GROUP_ROWS, RowGroups};

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
    convert_counted(from, to, options, RowGroups::default()).0
}

/// [`convert_to`], a Parquet output's row groups ending at `groups`; with how many of its
/// rows were laid into its columns from their record and held texts, parsed from their
/// text, and pushed as values.
fn convert_counted(from: &str, to: &str, options: &[&str], groups: RowGroups) -> (i32, [usize; 3]) {
    let mut args = vec!["--from", from, "--to", to];
    args.extend(options);
    let (code, paths) = super::convert_with(&args, |plan| plan.parquet.row_groups = groups);
    let count = |n: u64| usize::try_from(n).expect("a count");
    (
        code,
        [count(paths.laid), count(paths.parsed), count(paths.pushed)],
    )
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
/// laid from their record and held texts, parsed from their text, and pushed as values
/// (with `--jobs 1`).
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
        let mut args = vec!["--allow-incomplete", "--overwrite", "--on-error", "skip"];
        args.extend(["-i", input, "-o", &probe]);
        args.extend(&style_args);
        let one_group = RowGroups {
            rows: GROUP_ROWS,
            bytes: usize::MAX,
        };
        convert_counted("swe-bench", to, &args, one_group);
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
        let run = |out: &str, rejects: &str, groups| {
            let mut args: Vec<&str> = common.to_vec();
            args.extend(["-o", out, "--rejects", rejects]);
            args.extend(&style_args);
            convert_counted("swe-bench", to, &args, groups)
        };
        let (code, _) = run(&jsonl, &rejects_a, RowGroups::default());
        let groups = RowGroups {
            rows: limits.0,
            bytes: limits.1.max(1),
        };
        let (parquet_code, counts) = run(&parquet, &rejects_b, groups);
        assert_eq!(parquet_code, code, "exit codes, --jobs {jobs}");
        let want = fs::read(&jsonl).expect("written");
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
        // Into SWE-bench, test lists pass as strings (`Text` columns), the held strings
        // laid straight into their columns; undeclared keys, lists given as arrays and key
        // orders of their own make records parsed.
        let [direct, parsed, _] = check(dir.path(), &input, "swe-bench", output_style, (rows, bytes), exact);
        prop_assert!(direct >= 1 && parsed >= 1, "laid straight {}, parsed {}", direct, parsed);
        // Into canonical, encoded test lists are rewritten as arrays, in the `extensions`
        // JSON column with the texts and undeclared keys.
        let [direct, ..] = check(dir.path(), &input, "canonical", output_style, (rows, bytes), exact);
        prop_assert!(direct >= 1, "laid straight {}", direct);
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

/// A string of exactly `len` bytes: lines of a diff with characters of one, two, three
/// and four bytes, quotes, backslashes and tabs, which one of `seed`'s picks, padded with
/// ASCII.
fn bulk_text(len: usize, seed: usize) -> String {
    const LINES: [&str; 4] = [
        "+    value = compute(x) # plain ascii line\n",
        "+    message = \"café déjà vu\" \\ \"q\"\n",
        "-    中文 字符串 测试\n",
        "+    emoji \u{1F600} \u{1F680} and\ttabs\n",
    ];
    let mut text = String::with_capacity(len);
    let mut k = seed;
    loop {
        let line = LINES[k % LINES.len()];
        if text.len() + line.len() > len {
            break;
        }
        text.push_str(line);
        k = k.wrapping_mul(31).wrapping_add(7);
    }
    text.extend(std::iter::repeat_n('x', len - text.len()));
    text
}

/// Record `i` of the large-rows test, SWE-bench's fields in its order, all strings: its
/// patch `patch` bytes long, its other texts of sizes varying with `i`.
fn large_record(i: usize, patch: usize) -> Vec<(&'static str, String)> {
    vec![
        ("repo", "o/r".to_owned()),
        ("instance_id", format!("o__r-{i}")),
        ("base_commit", format!("{i:040x}")),
        ("patch", bulk_text(patch, i)),
        ("test_patch", bulk_text(100 + i * 97, i + 1)),
        (
            "problem_statement",
            bulk_text(20_000 + (i * 48_271) % 180_000, i + 2),
        ),
        ("hints_text", bulk_text((i * 7_919) % 20_000, i + 3)),
        ("created_at", "2024-01-01T00:00:00Z".to_owned()),
        ("version", "1.0".to_owned()),
        ("FAIL_TO_PASS", format!("[\"t{i}\"]")),
        ("PASS_TO_PASS", "[]".to_owned()),
        ("environment_setup_commit", "def".to_owned()),
    ]
}

/// Writes `records` as compact JSON Lines at `path`. The strings are escaped here (their
/// characters are those of [`bulk_text`] and of [`large_record`]'s short fields: JSON
/// escapes only quotes, backslashes, line breaks and tabs of them), which is much faster
/// than `serde_json` in a debug build.
fn write_records(path: &Path, records: &[Vec<(&str, String)>]) {
    let mut text = String::new();
    for entries in records {
        for (j, (key, value)) in entries.iter().enumerate() {
            text.push_str(if j == 0 { "{\"" } else { ",\"" });
            text.push_str(key);
            text.push_str("\":\"");
            let escaped = value
                .replace('\\', "\\\\")
                .replace('"', "\\\"")
                .replace('\n', "\\n")
                .replace('\t', "\\t");
            text.push_str(&escaped);
            text.push('"');
        }
        text.push_str("}\n");
    }
    fs::write(path, text).expect("the input is written");
}

/// Converts the SWE-bench records at `input` to a Parquet file `to` at `output`, under
/// the writer's own row group limits, with `jobs` workers.
fn convert_large(input: &Path, output: &Path, to: &str, jobs: &str) {
    let code = convert_to(
        "swe-bench",
        to,
        &[
            "--allow-incomplete",
            "--overwrite",
            "--jobs",
            jobs,
            "-i",
            input.to_str().expect("UTF-8"),
            "-o",
            output.to_str().expect("UTF-8"),
        ],
    );
    assert_eq!(code, crate::exit::OK, "swe-bench -> {to}");
}

/// The value of `key` of row `i` of `batch`: its string column's, or (in a canonical
/// file) its value in the `extensions` column's JSON, by its name or in lower case.
fn value_at(batch: &RecordBatch, i: usize, key: &str) -> Value {
    if let Some(column) = batch.column_by_name(key) {
        return Value::String(column.as_string::<i32>().value(i).to_owned());
    }
    let extensions = batch
        .column_by_name("extensions")
        .unwrap_or_else(|| panic!("no column {key} nor extensions"));
    let mut extensions: Value =
        serde_json::from_str(extensions.as_string::<i32>().value(i)).expect("extensions hold JSON");
    match extensions[key].take() {
        Value::Null => extensions[key.to_lowercase()].take(),
        value => value,
    }
}

/// Rows of a megabyte and more, converted by the command to Parquet under the writer's
/// real limits ([`GROUP_ROWS`], [`GROUP_BYTES`]): each row group but the last reaches
/// `GROUP_BYTES` of its rows' bytes, recounted cell by cell from the values read back,
/// and is cut at the first row that does; none holds more than `GROUP_ROWS` rows; the
/// rows read back are the records written, in order.
///
/// The patches' lengths are chosen (from a first conversion of the records with one-byte
/// patches, which tells each row's bytes besides its patch) so that the first row group
/// of the canonical file reaches `GROUP_BYTES` exactly at its last row, and the first of
/// the SWE-bench file is one byte short of it before its last row: a limit or a count
/// off by one byte either way cuts one of them elsewhere. One row follows the first row
/// group, so that each file is as small as the cut allows.
#[test]
fn rows_of_megabytes_are_cut_into_row_groups_at_the_real_byte_limit() {
    // More rows than a row group of rows of a megabyte and more holds.
    const PROBE_ROWS: usize = 40;
    // The fewest bytes a designed patch may be left with.
    const LEAST_PATCH: usize = 1_000;
    let dir = tempfile::tempdir().expect("a directory");
    let input = dir.path().join("in.jsonl");
    for (to, jobs, short) in [("canonical", "1", 0), ("swe-bench", "2", 1)] {
        let output = dir.path().join(format!("{to}.parquet"));
        // Each row's bytes besides its patch's.
        let probe: Vec<_> = (0..PROBE_ROWS).map(|i| large_record(i, 1)).collect();
        write_records(&input, &probe);
        convert_large(&input, &output, to, jobs);
        let others: Vec<usize> = row_sizes(&output).iter().map(|size| size - 1).collect();
        assert_eq!(others.len(), PROBE_ROWS, "{to}: the probe's rows");
        // Rows of 1 to 1.5 MB besides the other texts, up to the row that brings the
        // first row group to `goal` bytes (it, or the row before, is given the rest).
        let goal = GROUP_BYTES - short;
        let (mut sizes, mut group): (Vec<usize>, usize) = (Vec::new(), 0);
        let at_goal = loop {
            let i = sizes.len();
            let size = others[i] + 1_000_000 + (i * 104_729) % 500_000;
            if group + size < goal {
                sizes.push(size);
                group += size;
                continue;
            }
            let rest = goal - group;
            if rest >= others[i] + LEAST_PATCH {
                sizes.push(rest);
                break i;
            }
            sizes[i - 1] += rest;
            break i - 1;
        };
        // The row that fills the first row group, then one row in the second.
        let rows = at_goal + 1 + short + 1;
        while sizes.len() < rows {
            let i = sizes.len();
            sizes.push(others[i] + 1_000 + i);
        }
        sizes.truncate(rows);
        let records: Vec<_> = (0..rows)
            .map(|i| large_record(i, sizes[i] - others[i]))
            .collect();
        write_records(&input, &records);
        convert_large(&input, &output, to, jobs);

        let read = row_sizes(&output);
        assert_eq!(read, sizes, "{to}: each row's bytes as chosen");
        let groups = row_groups(&output);
        let mut start = 0;
        for (g, &n) in groups.iter().enumerate() {
            let n = usize::try_from(n).expect("rows");
            assert!((1..=GROUP_ROWS).contains(&n), "{to}: group {g} of {n} rows");
            let before_last: usize = read[start..start + n - 1].iter().sum();
            let all = before_last + read[start + n - 1];
            assert!(
                before_last < GROUP_BYTES,
                "{to}: group {g} ({n} rows, {all} bytes) reached {GROUP_BYTES} before its last row"
            );
            if g + 1 < groups.len() {
                assert!(
                    all >= GROUP_BYTES,
                    "{to}: group {g} ({n} rows, {all} bytes) cut under {GROUP_BYTES}"
                );
            }
            start += n;
        }
        assert_eq!(start, rows, "{to}: rows in the row groups");
        let full = usize::try_from(groups[0]).expect("rows");
        assert_eq!(
            (groups.len(), full),
            (2, at_goal + 1 + short),
            "{to}: the chosen cut"
        );
        let full: usize = read[..full - short].iter().sum();
        assert_eq!(
            full, goal,
            "{to}: the first row group's bytes at the chosen row"
        );

        let mut row = 0;
        for batch in read_rows(&output) {
            for i in 0..batch.num_rows() {
                for (key, value) in &records[row] {
                    // Canonical keeps the test lists as lists, SWE-bench as JSON text.
                    let want = if to == "canonical" && key.ends_with("_TO_PASS") {
                        serde_json::from_str(value).expect("a JSON list")
                    } else {
                        Value::String(value.clone())
                    };
                    assert!(
                        value_at(&batch, i, key) == want,
                        "{to}: row {row}'s {key} read back"
                    );
                }
                row += 1;
            }
        }
        assert_eq!(row, rows, "{to}: rows read back");
    }
}
