//! Parquet input with the values a conversion only moves held as JSON text (or, for a
//! Parquet output's string column, as the cell's own bytes), checked
//! through the whole command on generated files: the output (JSON Lines in every style,
//! and Parquet) and the rejects are byte for byte those of the same conversion with
//! nothing held, into SWE-bench and into canonical; the counters say the held path ran.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{ArrayRef, LargeStringArray, RecordBatch, StringArray, StringViewArray};
use arrow_schema::{DataType, Field, Schema};
use isobench_core::codec::JsonStyle;
use isobench_core::{Profile, Registry};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::file::properties::WriterProperties;
use proptest::prelude::*;
use serde_json::Value;

use super::BatchConverter;
use super::plan::ConvertRequest;
use crate::cli::{ConvertOptions, OnError};
use crate::input::parquet_file::BatchRows;
use crate::parquet::{ColumnRows, STYLE_KEY};

/// The columns of a SWE-bench file in Hugging Face's layout, in its order.
const COLUMNS: [&str; 12] = [
    "repo",
    "instance_id",
    "base_commit",
    "patch",
    "test_patch",
    "problem_statement",
    "hints_text",
    "created_at",
    "version",
    "FAIL_TO_PASS",
    "PASS_TO_PASS",
    "environment_setup_commit",
];

/// Text rich in what JSON escapes or writes apart: quotes, backslashes, line breaks,
/// controls, DEL, characters beyond ASCII and beyond the BMP, a line separator.
fn text() -> impl Strategy<Value = String> {
    "[a-z \"\\\\/\n\t\u{1}\u{8}\u{1f}\u{7f}é中\u{1F600}\u{2028}]{0,12}"
}

/// A test list cell: a list of strings JSON-encoded in each style, lists read but not
/// passed, malformed lists, other JSON and other text, or null.
fn test_list() -> impl Strategy<Value = Option<String>> {
    let items = prop::collection::vec(text(), 0..4);
    let encoded = (items, prop::sample::select(JsonStyle::ALL.to_vec()))
        .prop_map(|(items, style)| style.to_string(&items));
    let odd = prop::sample::select(vec![
        "['a', 'b']",
        r#"["a",]"#,
        r#"["a" , "b"]"#,
        r#"[ "a"]"#,
        r#"["a", "b","c"]"#,
        r#"["a\/b"]"#,
        r#"["\u0041"]"#,
        "[1, 2]",
        r#"["a", null]"#,
        r#"{"a": "b"}"#,
        r#""x""#,
        "plain text",
        "",
        "[",
    ])
    .prop_map(str::to_owned);
    let cut = (
        prop::collection::vec(text(), 1..3),
        any::<prop::sample::Index>(),
    )
        .prop_map(|(items, at)| {
            let list = serde_json::to_string(&items).expect("strings serialise");
            let chars: Vec<char> = list.chars().collect();
            chars[..at.index(chars.len())].iter().collect()
        });
    prop::option::weighted(0.9, prop_oneof![6 => encoded, 2 => odd, 1 => cut])
}

/// A row: a cell of each column (null or a string), the ids mostly distinct.
fn row() -> impl Strategy<Value = Vec<Option<String>>> {
    let cell = || prop::option::weighted(0.9, text());
    (
        prop::collection::vec(cell(), 9),
        test_list(),
        test_list(),
        prop::option::weighted(0.95, 0..6u8),
    )
        .prop_map(|(cells, fail, pass, id)| {
            let mut cells = cells.into_iter();
            let mut next = || cells.next().expect("nine cells");
            vec![
                next(),
                id.map(|n| format!("o__r-{n}")),
                next(),
                next(),
                next(),
                next(),
                next(),
                next(),
                next(),
                fail,
                pass,
                next(),
            ]
        })
}

/// The string types a column may have.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Utf8,
    Large,
    View,
}

fn column(kind: Kind, cells: Vec<Option<String>>) -> ArrayRef {
    match kind {
        Kind::Utf8 => Arc::new(StringArray::from(cells)),
        Kind::Large => Arc::new(LargeStringArray::from(cells)),
        Kind::View => Arc::new(StringViewArray::from(cells)),
    }
}

/// Writes `rows` as a Parquet file of the columns in that order, of the string type
/// `kinds` gives each, in row groups of `group` rows; `style`, when given, is the JSON
/// style the file's metadata says its records were in (as in this tool's own files).
fn write_input(
    path: &Path,
    rows: &[Vec<Option<String>>],
    kinds: &[Kind],
    group: usize,
    style: Option<&str>,
) {
    let batch = batch_of(rows, kinds, style);
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(group))
        .build();
    let mut writer = ArrowWriter::try_new(
        File::create(path).expect("created"),
        batch.schema(),
        Some(props),
    )
    .expect("a writer");
    writer.write(&batch).expect("written");
    writer.close().expect("closed");
}

/// `rows` as a record batch of the columns in that order, of the string type `kinds`
/// gives each, with `style` in its metadata as [`write_input`] writes it.
fn batch_of(rows: &[Vec<Option<String>>], kinds: &[Kind], style: Option<&str>) -> RecordBatch {
    let (fields, columns): (Vec<Field>, Vec<ArrayRef>) = COLUMNS
        .iter()
        .zip(kinds)
        .enumerate()
        .map(|(c, (name, &kind))| {
            let cells: Vec<Option<String>> = rows.iter().map(|r| r[c].clone()).collect();
            let data_type = match kind {
                Kind::Utf8 => DataType::Utf8,
                Kind::Large => DataType::LargeUtf8,
                Kind::View => DataType::Utf8View,
            };
            (Field::new(*name, data_type, true), column(kind, cells))
        })
        .unzip();
    let metadata = style
        .map(|style| (STYLE_KEY.to_owned(), style.to_owned()))
        .into_iter()
        .collect();
    let schema = Schema::new(fields).with_metadata(metadata);
    RecordBatch::try_new(Arc::new(schema), columns).expect("a batch")
}

/// Runs `convert --from swe-bench --to TO` with `options`, the pass-through on or off;
/// its exit code, how many records were read with values held, how many rows of a
/// Parquet output were laid into its columns from the record and its held texts, and
/// how many of their cells from a string held as its own bytes.
fn convert_to(to: &str, options: &[&str], pass_through: bool) -> (i32, (usize, usize, usize)) {
    let mut args = vec!["--from", "swe-bench", "--to", to];
    args.extend(options);
    let (code, paths) = super::convert_with(&args, |plan| plan.pass_through = pass_through);
    let count = |n: u64| usize::try_from(n).expect("a count");
    (
        code,
        (count(paths.held), count(paths.laid), count(paths.raw_cells)),
    )
}

/// What a conversion gave: its exit code, output, rejects, and the counters.
type Outcome = (i32, Vec<u8>, Vec<u8>, (usize, usize, usize));

/// Converts `input` into `output` (with nothing held when `whole`).
fn outcome(input: &Path, to: &str, output: &Path, args: &[&str], whole: bool) -> Outcome {
    let rejects = output.with_extension("rejects");
    let utf8 = |p: &Path| p.to_str().expect("a UTF-8 path").to_owned();
    let (i, o, r) = (utf8(input), utf8(output), utf8(&rejects));
    let mut options = vec!["--overwrite", "-i", &i, "-o", &o];
    if args.contains(&"skip") {
        options.extend(["--rejects", &r]);
    }
    options.extend(args);
    let (code, counts) = convert_to(to, &options, !whole);
    let read = |p: &Path| fs::read(p).unwrap_or_default();
    (code, read(output), read(&rejects), counts)
}

/// The conversion of `input` into `name` with values held, checked against the same
/// with nothing held; the counters of the run with values held.
fn same_as_whole(
    dir: &Path,
    input: &Path,
    to: &str,
    name: &str,
    args: &[&str],
) -> (usize, usize, usize) {
    let held_out = dir.join(format!("held-{name}"));
    let whole_out: PathBuf = dir.join(format!("whole-{name}"));
    let held = outcome(input, to, &held_out, args, false);
    let whole = outcome(input, to, &whole_out, args, true);
    assert_eq!(held.0, whole.0, "exit codes, {to} {name} {args:?}");
    assert!(
        held.1 == whole.1,
        "outputs, {to} {name} {args:?}:\n{}\n---\n{}",
        String::from_utf8_lossy(&held.1),
        String::from_utf8_lossy(&whole.1)
    );
    assert!(
        held.2 == whole.2,
        "rejects, {to} {name} {args:?}:\n{}\n---\n{}",
        String::from_utf8_lossy(&held.2),
        String::from_utf8_lossy(&whole.2)
    );
    assert_eq!(
        whole.3,
        (0, 0, 0),
        "nothing held without routes, {to} {name}"
    );
    held.3
}

/// A row that passes into both targets, every value held: strings of every escape,
/// test lists in both separators.
fn plain_row(n: usize) -> Vec<Option<String>> {
    let wide = "é 中 \u{1F600} \"q\"\n\u{2028}\\ \u{1} /";
    let mut cells: Vec<Option<String>> = COLUMNS.iter().map(|_| Some(wide.to_owned())).collect();
    cells[0] = Some("django/django".to_owned());
    cells[1] = Some(format!("django__django-{n}"));
    cells[7] = Some("2024-01-01T00:00:00Z".to_owned());
    cells[8] = Some("3.0".to_owned());
    cells[9] = Some(r#"["t \"1\" \\", "é\n"]"#.to_owned());
    cells[10] = Some(r#"["a","b\u0001"]"#.to_owned());
    cells
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn parquet_input_converts_with_values_held_as_without(
        rows in prop::collection::vec(row(), 0..24),
        kinds in prop::collection::vec(prop::sample::select(vec![Kind::Utf8, Kind::Large, Kind::View]), 12),
        group in 1usize..30,
        style in prop::option::of(prop::sample::select(vec!["compact", "spaced"])),
        file_style in prop::option::of(prop::sample::select(vec!["compact", "spaced", "compact-ascii", "spaced-ascii"])),
        jobs in prop::sample::select(vec!["1", "2"]),
        incomplete in any::<bool>(),
    ) {
        let mut rows = rows;
        rows.extend((0..2).map(plain_row));
        let dir = tempfile::tempdir().expect("a directory");
        let input = dir.path().join("in.parquet");
        write_input(&input, &rows, &kinds, group, file_style);
        let mut args = vec!["--jobs", jobs, "--on-error", "skip"];
        if incomplete {
            args.push("--allow-incomplete");
        }
        // A JSON Lines output in the style given, else in the file's (`auto`).
        let mut with_style = args.clone();
        with_style.extend(style.map(|s| ["--json-style", s]).into_iter().flatten());
        for to in ["swe-bench", "canonical"] {
            let (held, ..) = same_as_whole(dir.path(), &input, to, "out.jsonl", &with_style);
            prop_assert!(held >= 2, "{} records read with values held, into {}", held, to);
            // Into Parquet, the rows are laid straight into the columns; a string with a
            // string column of its own that the target's contract does not judge
            // (canonical's patches, SWE-bench's hints) as the Arrow string's bytes.
            let (held, laid, raw) = same_as_whole(dir.path(), &input, to, "out.parquet", &args);
            prop_assert!(held >= 2 && laid >= 2 && raw >= 2, "held {}, laid {}, raw {}, into {}", held, laid, raw, to);
        }
    }
}

/// What [`in_memory`] gives: the output batches (every column of the target's), the
/// rejects lines, and the counters of [`ColumnRows::laid`] (taking a batch keeps them).
type InMemory = (Vec<RecordBatch>, Vec<Value>, [usize; 3]);

/// `batch` converted from SWE-bench to `to` under `--on-error skip` as the Python
/// package's Arrow conversion converts it: `each` rows at a time through
/// [`BatchConverter::arrow_into_rows`], into the columns of a Parquet output, the rows
/// taken as a batch when they make a row group and after each call. `name`: the
/// input's name in the rejects lines.
fn in_memory(batch: &RecordBatch, to: &str, name: &str, each: usize) -> InMemory {
    isobench_adapters::link();
    let registry = Registry::builtin();
    let mut options = ConvertOptions::default();
    options.outcome.on_error = OnError::Skip;
    let plan = ConvertRequest::new("swe-bench", to, options)
        .plan_records(&registry)
        .expect("a plan");
    let mut converter = BatchConverter::new(&registry, &plan, name).expect("a converter");
    let target = crate::find(&registry, to).expect("a built-in format");
    let mut rows = ColumnRows::new(target.schema(Profile::Lossless)).expect("its columns");
    let reading = Arc::new(BatchRows::new(&batch.schema()).expect("string columns"));
    let (mut out, mut rejects) = (Vec::new(), Vec::new());
    for start in (0..batch.num_rows()).step_by(each) {
        let part = batch.slice(start, each.min(batch.num_rows() - start));
        let done = converter
            .arrow_into_rows(&reading, part, &mut rows, &mut |rows| {
                out.push(rows.take_batch().expect("a batch"));
                Ok(())
            })
            .expect("converted");
        if !rows.is_empty() {
            out.push(rows.take_batch().expect("a batch"));
        }
        rejects.extend(done.rejects.into_iter().map(Value::Object));
    }
    (out, rejects, rows.laid())
}

/// Each row of `batches`, as the one-row slices of its columns named `names`.
fn cells(batches: &[RecordBatch], names: &[String]) -> Vec<Vec<ArrayRef>> {
    let row = |batch: &RecordBatch, i: usize| -> Vec<ArrayRef> {
        (names.iter())
            .map(|name| batch.column_by_name(name).expect("a column").slice(i, 1))
            .collect()
    };
    (batches.iter())
        .flat_map(|batch| (0..batch.num_rows()).map(move |i| row(batch, i)))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Record batches converted in memory, a few rows a call (as the Python package's
    /// Arrow conversion converts a stream), give the rows and the rejects the command
    /// line gives of the same rows in a Parquet file, and are laid into the columns
    /// with their values held: strings that only pass as their own bytes.
    #[test]
    fn record_batches_converted_in_memory_give_the_rows_of_the_file(
        rows in prop::collection::vec(row(), 0..24),
        kinds in prop::collection::vec(prop::sample::select(vec![Kind::Utf8, Kind::Large, Kind::View]), 12),
        each in 1usize..9,
    ) {
        let mut rows = rows;
        rows.extend((0..2).map(plain_row));
        let dir = tempfile::tempdir().expect("a directory");
        let input = dir.path().join("in.parquet");
        write_input(&input, &rows, &kinds, 30, None);
        let name = input.to_str().expect("a UTF-8 path");
        let batch = batch_of(&rows, &kinds, None);
        for to in ["swe-bench", "canonical"] {
            let output = dir.path().join(format!("{to}.parquet"));
            // Exit 1 when some row was rejected; the rows that pass are written.
            let (code, _, rejects, _) = outcome(&input, to, &output, &["--on-error", "skip"], false);
            prop_assert!(code <= 1, "exit {} into {}", code, to);
            let theirs: Vec<RecordBatch> = ParquetRecordBatchReaderBuilder::try_new(File::open(&output).expect("written"))
                .expect("a Parquet file")
                .build()
                .expect("a reader")
                .collect::<Result<_, _>>()
                .expect("read");
            let their_rejects: Vec<Value> = String::from_utf8(rejects).expect("UTF-8")
                .lines()
                .map(|line| serde_json::from_str(line).expect("a JSON line"))
                .collect();
            let (ours, our_rejects, [direct, _, raw]) = in_memory(&batch, to, name, each);
            let names: Vec<String> = theirs[0].schema().fields().iter().map(|f| f.name().clone()).collect();
            prop_assert_eq!(cells(&ours, &names), cells(&theirs, &names), "into {}", to);
            prop_assert_eq!(our_rejects, their_rejects, "into {}", to);
            prop_assert!(direct >= 2 && raw >= 2, "laid {}, raw {}, into {}", direct, raw, to);
        }
    }
}

/// A bad record under `--on-error fail` stops the run at the same row, with the same
/// message, with values held as without.
#[test]
fn a_refused_row_with_values_held_is_told_of_as_read() {
    let dir = tempfile::tempdir().expect("a directory");
    let input = dir.path().join("in.parquet");
    let mut rows: Vec<Vec<Option<String>>> = (0..5).map(plain_row).collect();
    // No `version`: refused by SWE-bench's import, with the row's other values held.
    rows[3][8] = None;
    write_input(&input, &rows, &[Kind::Utf8; 12], 2, None);
    for to in ["swe-bench", "canonical"] {
        for on_error in ["skip", "fail"] {
            let args = ["--on-error", on_error];
            let (held, ..) = same_as_whole(dir.path(), &input, to, "out.jsonl", &args);
            // A run that stops gives no counts; the one that skips shows the held path
            // ran on these rows.
            if on_error == "skip" {
                assert!(held >= 3, "{held}");
            }
            let rejects = fs::read_to_string(dir.path().join("held-out.rejects")).expect("written");
            let line: Value = serde_json::from_str(rejects.lines().next().expect("a reject"))
                .expect("a JSON line");
            // The rejects file keeps the row whole, held values included.
            assert_eq!(line["line"], 4, "{rejects}");
            if on_error == "skip" {
                assert_eq!(
                    line["record"]["patch"],
                    rows[3][3].clone().unwrap().as_str()
                );
            }
            same_as_whole(dir.path(), &input, to, "out.parquet", &args);
        }
    }
}

/// A row the Parquet output cannot lay straight (a column SWE-bench does not declare,
/// kept as an extra) is written as text with its strings as JSON, though they were
/// held as their own bytes for their string columns.
#[test]
fn a_row_not_laid_straight_has_its_strings_written_as_json() {
    let dir = tempfile::tempdir().expect("a directory");
    let input = dir.path().join("in.parquet");
    let rows: Vec<Vec<Option<String>>> = (0..3).map(plain_row).collect();
    write_input(&input, &rows, &[Kind::Utf8; 12], 2, None);
    // The same rows with a column of another name after the others.
    let file = File::open(&input).expect("written");
    let batch = ParquetRecordBatchReaderBuilder::try_new(file)
        .expect("a Parquet file")
        .build()
        .expect("a reader")
        .next()
        .expect("a batch")
        .expect("read");
    let mut fields: Vec<Field> = batch
        .schema()
        .fields()
        .iter()
        .map(|f| (**f).clone())
        .collect();
    let mut columns = batch.columns().to_vec();
    fields.push(Field::new("xtra", DataType::Utf8, true));
    columns.push(Arc::new(StringArray::from(vec![
        Some("x \"q\"\n");
        batch.num_rows()
    ])));
    let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).expect("a batch");
    let mut writer =
        ArrowWriter::try_new(File::create(&input).expect("created"), batch.schema(), None)
            .expect("a writer");
    writer.write(&batch).expect("written");
    writer.close().expect("closed");
    let (held, laid, raw) = same_as_whole(dir.path(), &input, "swe-bench", "out.parquet", &[]);
    assert_eq!((held, laid, raw), (3, 0, 0));
    let back = dir.path().join("back.jsonl");
    let utf8 = |p: &Path| p.to_str().expect("a UTF-8 path").to_owned();
    let (parquet, back_path) = (utf8(&dir.path().join("held-out.parquet")), utf8(&back));
    let (code, _) = convert_to(
        "swe-bench",
        &["--overwrite", "-i", &parquet, "-o", &back_path],
        true,
    );
    assert_eq!(code, 0);
    let back = fs::read_to_string(&back).expect("written");
    let first: Value = serde_json::from_str(back.lines().next().expect("a line")).expect("JSON");
    assert_eq!(
        first["patch"],
        rows[0][3].clone().expect("a patch").as_str()
    );
    assert_eq!(first["xtra"], "x \"q\"\n");
}
