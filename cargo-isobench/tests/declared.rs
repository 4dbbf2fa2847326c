//! Adapters with no code: the two table files under `examples/adapters` (SWE-bench-extra
//! and SWEE-Bench), on sample records written in their published shapes.
//!
//! Each round-trips byte for byte, directly and through canonical; converts to every
//! format that can hold its records; and is refused with a remedy where the target's
//! consumer needs what the records lack. A broken table file is refused naming its line
//! and column, and `[[adapters]]` in `isobench.toml` loads one without trust.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{TestContext, stderr};

const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples");

fn table(format: &str) -> PathBuf {
    Path::new(EXAMPLES).join(format!("adapters/{format}.toml"))
}

fn sample(format: &str) -> PathBuf {
    Path::new(EXAMPLES).join(format!("data/{format}.sample.jsonl"))
}

/// A scratch directory whose commands load both table files.
fn tables_context() -> TestContext {
    let (extra, swee) = (table("swe-bench-extra"), table("swee-bench"));
    TestContext::new().with_args([
        Path::new("--adapter"),
        &extra,
        Path::new("--adapter"),
        &swee,
    ])
}

fn convert(
    context: &TestContext,
    from: &str,
    to: &str,
    input: &Path,
    extra: &[&str],
) -> (Output, PathBuf) {
    let output = context.path(format!("{from}-to-{to}.jsonl"));
    let mut args = vec![
        "convert",
        "--overwrite",
        "--from",
        from,
        "--to",
        to,
        "-i",
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    (context.run(&args), output)
}

/// The first record of a JSON Lines file.
fn first_row(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(text.lines().next().expect("a record")).unwrap()
}

const FORMATS: [&str; 2] = ["swe-bench-extra", "swee-bench"];

#[test]
fn each_table_file_round_trips_byte_for_byte() {
    let context = tables_context();
    for format in FORMATS {
        let original = std::fs::read(sample(format)).unwrap();
        let (out, same) = convert(&context, format, format, &sample(format), &[]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(
            std::fs::read(same).unwrap(),
            original,
            "{format} -> {format}"
        );
        let (out, canonical) = convert(&context, format, "canonical", &sample(format), &[]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let (out, back) = convert(&context, "canonical", format, &canonical, &[]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(
            std::fs::read(back).unwrap(),
            original,
            "{format} -> canonical -> {format}"
        );
    }
}

#[test]
fn the_tables_map_their_columns_to_canonical_fields() {
    let context = tables_context();
    let (out, canonical) = convert(
        &context,
        "swe-bench-extra",
        "canonical",
        &sample("swe-bench-extra"),
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let first = first_row(&canonical);
    assert_eq!(first["instance_id"], "tidy-tools__csvkit-lite-88");
    assert_eq!(
        first["extensions"]["fail_to_pass"],
        serde_json::json!(["tests/test_sniff.py::test_semicolon"])
    );
    assert_eq!(first["extensions"]["meta"]["is_lite"], false);
    // SWEE-Bench's always-null columns fill nothing; its JSON-encoded lists are decoded.
    let (out, canonical) = convert(
        &context,
        "swee-bench",
        "canonical",
        &sample("swee-bench"),
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let first = first_row(&canonical);
    assert!(first.get("version").is_none(), "{first}");
    assert_eq!(
        first["extensions"]["fail_to_fail"],
        serde_json::json!(["tests/test_grid.py::test_gpu_tiles"])
    );
    assert_eq!(first["extensions"]["merged_at"], "2024-06-05T16:20:11Z");
}

#[test]
fn they_convert_where_the_target_can_hold_them_and_are_refused_with_a_remedy_elsewhere() {
    let context = tables_context();
    // SWE-bench-extra rows are SWE-bench rows of other repositories: SWE-bench's 4.x
    // harness has no environment specs for them, so they are refused with the remedy.
    let (out, written) = convert(
        &context,
        "swe-bench-extra",
        "swe-bench",
        &sample("swe-bench-extra"),
        &[],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(!written.exists());
    let err = stderr(&out);
    assert!(
        err.contains("it needs `repo` (one it knows, not `tidy-tools/csvkit-lite`)")
            && err.contains("environment specs only for its own repositories and releases")
            && err.contains("`--allow-incomplete`"),
        "{err}"
    );
    // Written anyway, the harness gets JSON-encoded lists, and `meta` is reported as
    // dropped; `validate` holds the file to the same contract.
    let (out, written) = convert(
        &context,
        "swe-bench-extra",
        "swe-bench",
        &sample("swe-bench-extra"),
        &["--allow-incomplete"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("extensions.meta: 2 record(s)"), "{err}");
    assert!(
        err.contains("written with a value it does not know (`--allow-incomplete`)"),
        "{err}"
    );
    let row = first_row(&written);
    assert_eq!(
        row["FAIL_TO_PASS"],
        "[\"tests/test_sniff.py::test_semicolon\"]"
    );
    let out = context.run([
        "validate",
        "--format",
        "swe-bench",
        "-i",
        written.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let problems = String::from_utf8_lossy(&out.stdout);
    assert!(
        problems.contains("`/repo`: \"tidy-tools/csvkit-lite\" is not one of"),
        "{problems}"
    );

    // SWEE-Bench rows carry everything SWE-bench-extra holds but `meta`.
    let (out, _) = convert(
        &context,
        "swee-bench",
        "swe-bench-extra",
        &sample("swee-bench"),
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // SWEE-Bench has no release and no environment commit: SWE-bench's harness needs
    // both, and a repository it has specs for.
    let (out, written) = convert(
        &context,
        "swee-bench",
        "swe-bench",
        &sample("swee-bench"),
        &[],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(!written.exists());
    let err = stderr(&out);
    assert!(
        err.contains(
            "would reject this record: it needs `repo` (one it knows, not `pixel-forge/imgtiler`), `version`, `environment_setup_commit`"
        ) && err.contains("`--set extensions.environment_setup_commit=VALUE`"),
        "{err}"
    );
    // No `version` is one the harness knows for a repository it has no specs for: `--set`
    // is not offered for it.
    assert!(!err.contains("`--set version=VALUE`"), "{err}");
    // Supplied, only the repository is left, which `--allow-incomplete` writes anyway.
    let (out, _) = convert(
        &context,
        "swee-bench",
        "swe-bench",
        &sample("swee-bench"),
        &[
            "--set",
            "version=0.1",
            "--set",
            "extensions.environment_setup_commit={base_commit}",
            "--allow-incomplete",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("repo: 2 record(s); swe-bench needs it")
            && !err.contains("version: 2 record(s); swe-bench needs it"),
        "{err}"
    );

    // SWE-bench-extra has no install or test commands for SWEE-Bench's rows.
    let (out, _) = convert(
        &context,
        "swe-bench-extra",
        "swee-bench",
        &sample("swe-bench-extra"),
        &[],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("it needs `install`, `test_commands`, `docker_image_root`")
            && err.contains("`--set extensions.install=VALUE`"),
        "{err}"
    );
    let (out, written) = convert(
        &context,
        "swe-bench-extra",
        "swee-bench",
        &sample("swe-bench-extra"),
        &[
            "--set",
            "extensions.install=pip install -e .",
            "--set",
            "extensions.test_commands=\"[\\\"pytest -rA\\\"]\"",
            "--set",
            "extensions.docker_image_root=swee/{owner}__{name}",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let row = first_row(&written);
    // Its always-null columns are written as null; its lists JSON-encoded.
    assert_eq!(row["version"], serde_json::Value::Null);
    assert_eq!(row["environment_setup_commit"], serde_json::Value::Null);
    assert_eq!(row["docker_image_root"], "swee/tidy-tools__csvkit-lite");
    assert_eq!(
        row["PASS_TO_PASS"],
        "[\"tests/test_sniff.py::test_comma\", \"tests/test_sniff.py::test_tab\"]"
    );
}

#[test]
fn a_broken_table_file_is_refused_naming_its_line_and_column() {
    let context = TestContext::new();
    let bad = context.path("bad.toml");
    std::fs::write(
        &bad,
        "name = \"bad\"\ndescription = \"d\"\n\n[[fields]]\nkey = \"id\"\nto = \"instance_id\"\ntype = \"strng\"\n",
    )
    .unwrap();
    let out = context.run(["--adapter", "bad.toml", "adapters"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!(
            "error: invalid adapter table `{}:7:8`: unknown variant `strng`",
            context.path("bad.toml").display()
        )),
        "{err}"
    );
}

#[test]
fn a_configuration_loads_table_files_without_trust() {
    let context = TestContext::new();
    std::fs::create_dir(context.path("formats")).unwrap();
    std::fs::copy(table("swee-bench"), context.path("formats/swee-bench.toml")).unwrap();
    std::fs::write(
        context.path("isobench.toml"),
        "[[adapters]]\npath = \"formats/swee-bench.toml\"\n",
    )
    .unwrap();
    let out = context.run(["adapters", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let swee = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "swee-bench")
        .expect("listed");
    assert!(
        swee["origin"]
            .as_str()
            .unwrap()
            .ends_with("swee-bench.toml")
    );
    assert_eq!(swee["table"]["fields"][0]["key"], "repo");
}
