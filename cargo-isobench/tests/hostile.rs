//! Hostile checkouts and files: what someone who controls a cloned dataset repository (or
//! one file in it) can plant, against what the tool promises. Each test plants the trap,
//! runs the binary, and checks a victim or marker file the trap aims at: a file outside
//! the checkout that must stay as it was, or a file that appears only if code the user did
//! not choose ran. A probe that could hang the tool (a named pipe, an endless device) runs
//! under a deadline, so that a regression fails instead of hanging the suite.

#![cfg(unix)]

mod common;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use common::{TestContext, stdout};

const GOOD: &str = include_str!("bad-input/good.jsonl");
const VICTIM: &str = "the user's own file: must stay as it is\n";

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/hostile")
        .join(name)
}

/// A file outside the scratch directory (the checkout), holding [`VICTIM`].
fn victim(context: &TestContext, name: &str) -> PathBuf {
    let path = context.dir().parent().unwrap().join(name);
    fs::write(&path, VICTIM).unwrap();
    path
}

fn assert_untouched(path: &Path) {
    let kind = fs::symlink_metadata(path).unwrap().file_type();
    assert!(kind.is_file(), "{} is no longer a file", path.display());
    assert_eq!(
        fs::read_to_string(path).unwrap(),
        VICTIM,
        "{} was written",
        path.display()
    );
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs `command` for at most `limit`; `None` (the process killed) when it did not end.
fn run_within(mut command: Command, limit: Duration) -> Option<Output> {
    let dir = tempfile::tempdir().unwrap();
    let (out_path, err_path) = (dir.path().join("out"), dir.path().join("err"));
    let mut child = command
        .stdout(fs::File::create(&out_path).unwrap())
        .stderr(fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(Output {
                status,
                stdout: fs::read(&out_path).unwrap(),
                stderr: fs::read(&err_path).unwrap(),
            });
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The pid the next process started is likely to get, for planting one link per pid.
fn next_pids() -> std::ops::Range<u32> {
    let last: u32 = fs::read_to_string("/proc/sys/kernel/ns_last_pid")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0);
    last + 1..last + 3000
}

/// Plants, beside `dest`, a link to `victim` under every temporary name a run writing
/// `dest` could have used when temporary names were `.NAME.isobench-PID.tmp`.
fn plant_temp_links(dest: &Path, victim: &Path) {
    let name = dest.file_name().unwrap().to_str().unwrap();
    for pid in next_pids() {
        let link = dest.with_file_name(format!(".{name}.isobench-{pid}.tmp"));
        symlink(victim, link).unwrap();
    }
}

#[test]
fn planted_temporary_file_links_are_never_written_through() {
    let context = TestContext::new();
    let input = context.write("in.jsonl", format!("{GOOD}not a record\n"));
    let (v_out, v_rejects) = (victim(&context, "v-out"), victim(&context, "v-rejects"));
    let out = context.path("out.jsonl");
    plant_temp_links(&out, &v_out);
    plant_temp_links(&context.path("out.jsonl.rejects.jsonl"), &v_rejects);
    let run = context.run(
        [
            "convert",
            "--from",
            "swe-bench",
            "--to",
            "swe-bench",
            "--on-error",
            "skip",
            "-i",
        ]
        .iter()
        .map(Path::new)
        .chain([input.as_path(), Path::new("-o"), out.as_path()]),
    );
    assert_eq!(run.status.code(), Some(1), "{}", stderr(&run));
    assert_untouched(&v_out);
    assert_untouched(&v_rejects);
    assert_eq!(context.read("out.jsonl"), GOOD);
    assert!(
        context
            .read("out.jsonl.rejects.jsonl")
            .contains("not a record")
    );
}

#[test]
fn planted_temporary_file_links_are_never_written_through_by_a_parquet_output() {
    let context = TestContext::new();
    context.write("in.jsonl", GOOD);
    let victim = victim(&context, "v-parquet");
    plant_temp_links(&context.path("out.parquet"), &victim);
    let run = context.run([
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "swe-bench",
        "-i",
        "in.jsonl",
        "-o",
        "out.parquet",
    ]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert_untouched(&victim);
    assert!(context.read_bytes("out.parquet").starts_with(b"PAR1"));
}

fn convert_with(context: &TestContext, extra: &[&str]) -> Output {
    let mut args = vec![
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "swe-bench",
        "-i",
        "in.jsonl",
    ];
    args.extend_from_slice(extra);
    context.run(args)
}

#[test]
fn the_report_never_replaces_an_input_or_the_output() {
    let context = TestContext::new();
    context.write("in.jsonl", GOOD);
    for (args, message) in [
        (
            &["-o", "out.jsonl", "--report", "in.jsonl"][..],
            "is also an input",
        ),
        (
            &["-o", "out.jsonl", "--report", "./in.jsonl", "--overwrite"][..],
            "is also an input",
        ),
        (
            &["-o", "out.jsonl", "--report", "out.jsonl"][..],
            "both name",
        ),
    ] {
        let run = convert_with(&context, args);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {}", stderr(&run));
        assert!(stderr(&run).contains(message), "{args:?}: {}", stderr(&run));
        assert_eq!(context.read("in.jsonl"), GOOD, "{args:?}");
        assert!(!context.path("out.jsonl").exists(), "{args:?}");
    }
}

#[test]
fn an_existing_report_is_kept_without_overwrite_and_a_report_link_is_not_followed() {
    let context = TestContext::new();
    context.write("in.jsonl", GOOD);
    let kept = context.write("report.json", VICTIM);
    let run = convert_with(&context, &["-o", "out.jsonl", "--report", "report.json"]);
    assert_eq!(run.status.code(), Some(2), "{}", stderr(&run));
    assert!(stderr(&run).contains("already exists"), "{}", stderr(&run));
    assert_untouched(&kept);
    assert!(!context.path("out.jsonl").exists(), "nothing is written");

    let victim = victim(&context, "v-report");
    symlink(&victim, context.path("linked.json")).unwrap();
    let run = convert_with(&context, &["-o", "a.jsonl", "--report", "linked.json"]);
    assert_eq!(run.status.code(), Some(2), "{}", stderr(&run));
    assert_untouched(&victim);
    // With `--overwrite` the link itself is replaced by the report.
    let run = convert_with(
        &context,
        &["-o", "b.jsonl", "--report", "linked.json", "--overwrite"],
    );
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert_untouched(&victim);
    assert!(
        fs::symlink_metadata(context.path("linked.json"))
            .unwrap()
            .is_file()
    );
    assert_eq!(context.read_json("linked.json")["written"], 3);
}

#[test]
fn rejects_at_the_output_is_refused_before_anything_is_read() {
    let context = TestContext::new();
    context.write("in.jsonl", format!("{GOOD}not a record\n"));
    for rejects in ["out.jsonl", "./out.jsonl"] {
        let run = convert_with(
            &context,
            &[
                "-o",
                "out.jsonl",
                "--on-error",
                "skip",
                "--rejects",
                rejects,
            ],
        );
        assert_eq!(run.status.code(), Some(2), "{}", stderr(&run));
        assert!(stderr(&run).contains("both name"), "{}", stderr(&run));
        assert!(
            !stderr(&run).contains("read "),
            "nothing was read: {}",
            stderr(&run)
        );
        assert!(!context.path("out.jsonl").exists());
    }
}

fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success());
}

#[test]
fn an_output_link_to_a_named_pipe_is_not_written_through() {
    let context = TestContext::new();
    context.write("in.jsonl", GOOD);
    let fifo = context.dir().parent().unwrap().join("pipe");
    mkfifo(&fifo);
    symlink(&fifo, context.path("out.jsonl")).unwrap();
    let mut command = context.command();
    command.args([
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "swe-bench",
        "-i",
        "in.jsonl",
        "-o",
        "out.jsonl",
    ]);
    let run = run_within(command, Duration::from_secs(60))
        .expect("the run ends: it does not open the pipe behind the link");
    assert_eq!(run.status.code(), Some(2), "{}", stderr(&run));
    assert!(stderr(&run).contains("already exists"), "{}", stderr(&run));
    assert!(
        fs::symlink_metadata(context.path("out.jsonl"))
            .unwrap()
            .is_symlink()
    );
}

/// A `[[plugins]]` program that leaves `marker` in its directory when started, then
/// exits (no plugin at all: the run fails, after it ran or not).
fn marker_script(dir: &Path, marker: &str) {
    fs::create_dir_all(dir.join("plugins")).unwrap();
    fs::write(
        dir.join("plugins/x.sh"),
        format!("touch \"$(dirname \"$0\")/{marker}\"\nexit 1\n"),
    )
    .unwrap();
}

const PROGRAM_CONFIG: &str = "[[plugins]]\ncommand = [\"sh\", \"plugins/x.sh\"]\n";

#[test]
fn a_trusted_ancestor_configuration_runs_its_own_program_not_the_checkout_s() {
    let context = TestContext::new();
    context.write("isobench.toml", PROGRAM_CONFIG);
    marker_script(context.dir(), "trusted-ran");
    let trust = context.run(["trust"]);
    assert_eq!(trust.status.code(), Some(0), "{}", stderr(&trust));
    let checkout = context.path("datasets/evil");
    marker_script(&checkout, "checkout-ran");
    let run = context
        .command()
        .arg("adapters")
        .current_dir(&checkout)
        .output()
        .unwrap();
    assert!(
        !checkout.join("plugins/checkout-ran").exists(),
        "the checkout's script ran: {}",
        stderr(&run)
    );
    assert!(
        context.path("plugins/trusted-ran").exists(),
        "{}",
        stderr(&run)
    );
}

#[test]
fn a_link_to_a_trusted_configuration_resolves_beside_the_trusted_file() {
    let context = TestContext::new();
    let trusted = context.path("trusted");
    fs::create_dir_all(&trusted).unwrap();
    fs::write(trusted.join("isobench.toml"), PROGRAM_CONFIG).unwrap();
    marker_script(&trusted, "trusted-ran");
    let trust = context.run(["trust", "trusted/isobench.toml"]);
    assert_eq!(trust.status.code(), Some(0), "{}", stderr(&trust));
    let checkout = context.path("checkout");
    marker_script(&checkout, "checkout-ran");
    symlink(
        trusted.join("isobench.toml"),
        checkout.join("isobench.toml"),
    )
    .unwrap();
    let run = context
        .command()
        .arg("adapters")
        .current_dir(&checkout)
        .output()
        .unwrap();
    assert!(
        !checkout.join("plugins/checkout-ran").exists(),
        "the checkout's script ran: {}",
        stderr(&run)
    );
    assert!(
        trusted.join("plugins/trusted-ran").exists(),
        "{}",
        stderr(&run)
    );
}

const TABLE: &str = "name = \"outside-table\"\ndescription = \"a table outside the checkout\"\n\n[[fields]]\nkey = \"instance_id\"\nto = \"instance_id\"\nrequired = true\n";

#[test]
fn adapter_tables_are_small_regular_files_inside_the_configuration_s_directory() {
    let context = TestContext::new();
    mkfifo(&context.path("pipe.toml"));
    let outside = context.dir().parent().unwrap().join("outside.toml");
    fs::write(&outside, TABLE).unwrap();
    context.write("big.toml", vec![b'#'; 2 << 20]);
    for (path, message) in [
        ("pipe.toml", "is not a regular file"),
        ("../outside.toml", "is outside"),
        ("big.toml", "is larger than"),
        ("/dev/zero", "is outside"),
    ] {
        context.write(
            "isobench.toml",
            format!("[[adapters]]\npath = \"{path}\"\n"),
        );
        let mut command = context.command();
        command.arg("adapters");
        let run = run_within(command, Duration::from_secs(60))
            .unwrap_or_else(|| panic!("{path}: the run does not end"));
        assert_eq!(run.status.code(), Some(2), "{path}: {}", stderr(&run));
        assert!(stderr(&run).contains(message), "{path}: {}", stderr(&run));
    }
    // A table the user names on the command line may be anywhere, but is a file still.
    fs::remove_file(context.path("isobench.toml")).unwrap();
    let mut command = context.command();
    command.args(["--adapter", "/dev/zero", "adapters"]);
    let run = run_within(command, Duration::from_secs(60)).expect("the run ends");
    assert_eq!(run.status.code(), Some(2), "{}", stderr(&run));
    assert!(
        stderr(&run).contains("is not a regular file"),
        "{}",
        stderr(&run)
    );
    let run = context.run([Path::new("--adapter"), &outside, Path::new("adapters")]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert!(String::from_utf8_lossy(&run.stdout).contains("outside-table"));
}

#[test]
fn malformed_parquet_is_the_file_s_read_error_not_a_panic() {
    let context = TestContext::new();
    for name in ["unknown-type.parquet", "negative-column-start.parquet"] {
        context.copy(corpus(name), name);
        for args in [
            vec!["validate", "--format", "swe-bench", name],
            vec![
                "convert",
                "--from",
                "swe-bench",
                "--to",
                "canonical",
                "-i",
                name,
                "-o",
                "out.jsonl",
            ],
        ] {
            let run = context.run(&args);
            assert_eq!(run.status.code(), Some(3), "{args:?}: {}", stderr(&run));
            let err = stderr(&run);
            assert!(err.contains(&format!("cannot read `{name}`")), "{err}");
            assert!(err.contains("malformed"), "{err}");
            assert!(!err.contains("panicked"), "{err}");
            assert!(!context.path("out.jsonl").exists());
        }
    }
}

/// A Parquet file of one row per `maps` entry: `instance_id`, and `meta`, a map column
/// holding the given entries (repeated keys included). It needs the Parquet crates, which
/// a build without the `parquet` feature does not have.
#[cfg(feature = "parquet")]
fn parquet_with_map(path: &Path, maps: &[&[(&str, &str)]]) {
    use std::sync::Arc;

    use arrow_array::builder::{MapBuilder, StringBuilder};
    use arrow_array::{ArrayRef, RecordBatch, StringArray};

    let ids: Vec<String> = (1..=maps.len())
        .map(|n| format!("acme__widgets-{n}"))
        .collect();
    let mut builder = MapBuilder::new(None, StringBuilder::new(), StringBuilder::new());
    for entries in maps {
        for (k, v) in *entries {
            builder.keys().append_value(k);
            builder.values().append_value(v);
        }
        builder.append(true).unwrap();
    }
    let batch = RecordBatch::try_from_iter([
        ("instance_id", Arc::new(StringArray::from(ids)) as ArrayRef),
        ("meta", Arc::new(builder.finish()) as ArrayRef),
    ])
    .unwrap();
    let file = fs::File::create(path).unwrap();
    let mut writer = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

#[test]
#[cfg(feature = "parquet")]
fn a_repeated_map_key_in_parquet_is_refused_and_the_row_kept_in_the_rejects() {
    let context = TestContext::new();
    parquet_with_map(
        &context.path("in.parquet"),
        &[&[("a", "1")], &[("k", "first"), ("k", "second")]],
    );
    let run = context.run(["validate", "--format", "canonical", "in.parquet"]);
    let err = format!("{}{}", String::from_utf8_lossy(&run.stdout), stderr(&run));
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert!(err.contains("column `meta`"), "{err}");
    assert!(err.contains("key `k` twice"), "{err}");

    let run = context.run([
        "convert",
        "--from",
        "canonical",
        "--to",
        "canonical",
        "--allow-incomplete",
        "--on-error",
        "skip",
        "-i",
        "in.parquet",
        "-o",
        "out.jsonl",
    ]);
    assert_eq!(run.status.code(), Some(1), "{}", stderr(&run));
    let rejects = context.read_json_lines("out.jsonl.rejects.jsonl");
    let second = rejects
        .iter()
        .find(|r| r["line"] == 2)
        .expect("row 2 is rejected");
    assert!(
        second["error"].as_str().unwrap().contains("key `k` twice"),
        "{second}"
    );
    assert_eq!(
        second["raw"],
        r#"{"instance_id":"acme__widgets-2","meta":{"k":"first","k":"second"}}"#
    );
}

#[test]
fn a_line_longer_than_max_record_bytes_stops_with_its_line_number() {
    let context = TestContext::new();
    let long = format!("{{\"instance_id\": \"{}\"}}\n", "x".repeat(3 << 20));
    let input = format!("{GOOD}{long}{GOOD}");
    context.write("in.jsonl", &input);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, input.as_bytes()).unwrap();
    context.write("in.jsonl.gz", gz.finish().unwrap());
    for (file, command) in [
        ("in.jsonl", "convert"),
        ("in.jsonl.gz", "convert"),
        ("in.jsonl", "validate"),
    ] {
        let mut args = vec!["--max-record-bytes", "1M", command];
        if command == "convert" {
            args.extend([
                "--from",
                "swe-bench",
                "--to",
                "swe-bench",
                "-i",
                file,
                "-o",
                "out.jsonl",
            ]);
        } else {
            args.extend(["--format", "swe-bench", file]);
        }
        let run = context.run(&args);
        let err = stderr(&run);
        assert_eq!(run.status.code(), Some(3), "{file} {command}: {err}");
        assert!(err.contains(&format!("cannot read `{file}`")), "{err}");
        assert!(err.contains("line 4 is longer than 1048576 bytes"), "{err}");
        assert!(!err.contains("damaged"), "{err}");
        assert!(!context.path("out.jsonl").exists());
    }
    // The same line within the default bound is read.
    let run = context.run(["validate", "--format", "swe-bench", "in.jsonl"]);
    assert!(!stderr(&run).contains("longer than"), "{}", stderr(&run));
}

#[test]
fn an_array_element_longer_than_max_record_bytes_stops_with_its_number() {
    let context = TestContext::new();
    let good = GOOD.lines().next().unwrap();
    let long = format!("{{\"instance_id\": \"{}\"}}", "x".repeat(3 << 20));
    context.write("in.json", format!("[{good},\n{good},\n{long},\n{good}]\n"));
    for command in ["convert", "validate"] {
        let mut args = vec!["--max-record-bytes", "1M", command];
        if command == "convert" {
            args.extend(["--from", "swe-bench", "--to", "swe-bench", "-i", "in.json"]);
            args.extend(["-o", "out.jsonl"]);
        } else {
            args.extend(["--format", "swe-bench", "in.json"]);
        }
        let run = context.run(&args);
        let err = stderr(&run);
        assert_eq!(run.status.code(), Some(3), "{command}: {err}");
        assert!(err.contains("cannot read `in.json`"), "{err}");
        assert!(
            err.contains("element 3 of the array is longer than 1048576 bytes"),
            "{err}"
        );
        assert!(!context.path("out.jsonl").exists());
    }
    // Within the default bound the same array is read whole.
    let run = context.run(["validate", "--format", "swe-bench", "in.json"]);
    assert!(!stderr(&run).contains("longer than"), "{}", stderr(&run));
    assert!(
        stderr(&run).contains("4 record(s) checked"),
        "{}",
        stderr(&run)
    );
}

#[test]
fn an_input_that_is_not_a_file_is_named_for_what_it_is() {
    let context = TestContext::new();
    fs::create_dir(context.path("dir.jsonl")).unwrap();
    mkfifo(&context.path("pipe.jsonl"));
    context.write("plain.jsonl.gz", GOOD);
    // A directory is an input for a format whose records are folders: for another, it
    // is a usage error naming the formats that read folders.
    for (input, message, code) in [
        ("dir.jsonl", "is a directory", 2),
        ("pipe.jsonl", "is not a regular file", 3),
        ("plain.jsonl.gz", "is not gzip data", 3),
    ] {
        let mut command = context.command();
        command.args([
            "convert",
            "--from",
            "swe-bench",
            "--to",
            "swe-bench",
            "-i",
            input,
        ]);
        let run = run_within(command, Duration::from_secs(60)).expect("the run ends");
        assert_eq!(run.status.code(), Some(code), "{input}: {}", stderr(&run));
        assert!(stderr(&run).contains(message), "{input}: {}", stderr(&run));
    }
}

#[test]
fn a_closed_output_pipe_is_not_a_success() {
    let context = TestContext::new();
    let many: String = (0..20_000).map(|_| GOOD).collect::<Vec<_>>().concat();
    context.write("in.jsonl", many);
    let mut child = context
        .command()
        .args([
            "convert",
            "--from",
            "swe-bench",
            "--to",
            "swe-bench",
            "-i",
            "in.jsonl",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The reader takes one line, then goes away.
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    std::io::BufRead::read_line(&mut stdout, &mut first).unwrap();
    drop(stdout);
    let run = child.wait_with_output().unwrap();
    assert!(first.contains("acme__widgets-1"), "{first}");
    assert_eq!(run.status.code(), Some(3), "{}", stderr(&run));
    assert!(
        stderr(&run).contains("output pipe was closed"),
        "{}",
        stderr(&run)
    );
    // Records reached the pipe before it closed: the summary does not say none did.
    assert!(
        !stderr(&run).contains("nothing was written")
            && stderr(&run).contains("what reached the output before it stopped stays there"),
        "{}",
        stderr(&run)
    );
}

#[test]
fn the_system_s_links_to_the_process_s_streams_are_still_written_through() {
    let context = TestContext::new();
    context.write("in.jsonl", GOOD);
    for dest in ["/dev/stdout", "/dev/fd/1"] {
        let run = convert_with(&context, &["-o", dest]);
        assert_eq!(run.status.code(), Some(0), "{dest}: {}", stderr(&run));
        assert_eq!(String::from_utf8_lossy(&run.stdout), GOOD, "{dest}");
    }
}

/// A relative state directory would be found in the checkout a command runs in, so that
/// a checkout carrying `state/trust.json` would trust its own configuration.
#[test]
fn a_relative_state_directory_is_refused_so_a_checkout_cannot_trust_itself() {
    let context = TestContext::new();
    context.write("isobench.toml", PROGRAM_CONFIG);
    marker_script(context.dir(), "checkout-ran");
    // The checkout's own trust records, trusting its own configuration.
    let planted = context
        .command()
        .env("ISOBENCH_STATE_DIR", context.path("state"))
        .arg("trust")
        .output()
        .unwrap();
    assert_eq!(planted.status.code(), Some(0), "{}", stderr(&planted));
    fs::remove_file(context.path("plugins/checkout-ran")).ok();
    for (name, value) in [("ISOBENCH_STATE_DIR", "state"), ("HOME", ".")] {
        let mut command = context.command();
        if name == "HOME" {
            command
                .env_remove("ISOBENCH_STATE_DIR")
                .env_remove("XDG_DATA_HOME")
                .env("HOME", value);
            fs::create_dir_all(context.path(".local/share")).unwrap();
            fs::rename(context.path("state"), context.path(".local/share/isobench")).unwrap();
        } else {
            command.env(name, value);
        }
        let run = command.arg("adapters").output().unwrap();
        let err = stderr(&run);
        assert!(
            !context.path("plugins/checkout-ran").exists(),
            "{name}={value}: the checkout's program ran: {err}"
        );
        assert_ne!(run.status.code(), Some(0), "{err}");
        assert!(err.contains("is a relative path"), "{err}");
    }
}

/// `plugin list` reads the workspace it runs in and runs nothing of it: a checkout's
/// `rust-toolchain.toml` naming a toolchain by `path` does not choose the `cargo` that
/// reads it.
#[test]
fn plugin_list_runs_no_toolchain_the_checkout_names() {
    let rustup = Command::new("rustup").arg("--version").output();
    if !rustup.is_ok_and(|out| out.status.success()) {
        eprintln!("skipped: no rustup here, so no `rust-toolchain.toml` chooses a toolchain");
        return;
    }
    let context = TestContext::new();
    context.write(
        "Cargo.toml",
        "[package]\nname = \"checkout\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    context.write("src/lib.rs", "");
    let toolchain = context.path("toolchain");
    for tool in ["cargo", "rustc"] {
        let path = context.write(
            format!("toolchain/bin/{tool}"),
            format!(
                "#!/bin/sh\ntouch \"{}\"\nexit 1\n",
                context.path("toolchain-ran").display()
            ),
        );
        fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    }
    context.write(
        "rust-toolchain.toml",
        format!("[toolchain]\npath = \"{}\"\n", toolchain.display()),
    );
    // As a user runs the binary: `cargo` from the path, no toolchain chosen yet.
    let out = context
        .command()
        .env_remove("CARGO")
        .env_remove("RUSTUP_TOOLCHAIN")
        .args(["plugin", "list"])
        .output()
        .unwrap();
    assert!(
        !context.path("toolchain-ran").exists(),
        "the checkout's toolchain ran: {}",
        stderr(&out)
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("no plugin packages in this workspace"));
}

/// A record's `repo` and `instance_id` name places under `--repos DIR` and `--timings DIR`:
/// a name that would leave the directory (absolute, `..`) is the record's error, and
/// nothing outside the directory is read.
#[test]
fn record_fields_used_as_paths_never_leave_their_directory() {
    let context = TestContext::new();
    fs::create_dir_all(context.path("repos")).unwrap();
    fs::create_dir_all(context.path("timings")).unwrap();
    fs::create_dir_all(context.path("outside/o")).unwrap();
    let outside = context.path("outside").canonicalize().unwrap();
    let cases = [
        (
            "--repos",
            "repos",
            "../outside".to_owned(),
            "a-1".to_owned(),
            "is not a plain `OWNER/NAME` repository name",
        ),
        (
            "--repos",
            "repos",
            format!("{}/o", outside.display()),
            "a-2".to_owned(),
            "is not a plain `OWNER/NAME` repository name",
        ),
        (
            "--timings",
            "timings",
            "o/r".to_owned(),
            "../outside".to_owned(),
            "is not a plain name",
        ),
        (
            "--timings",
            "timings",
            "o/r".to_owned(),
            outside.display().to_string(),
            "is not a plain name",
        ),
    ];
    for (flag, dir, repo, id, says) in cases {
        let record = serde_json::json!({"instance_id": id, "repo": repo});
        context.write("in.jsonl", format!("{record}\n"));
        let out = context.run([
            "enrich",
            "-i",
            "in.jsonl",
            flag,
            dir,
            "-o",
            "out.jsonl",
            "--overwrite",
        ]);
        let err = stderr(&out);
        assert!(err.contains(says), "{flag} {record}: {err}");
    }
}

/// No byte of a file's values reaches the terminal as a control character: an escape
/// sequence in an `instance_id` would set the title, clear the screen or fake a line; and
/// a 10 MB value is not repeated whole.
#[test]
fn values_from_a_file_reach_the_terminal_escaped_and_cut() {
    let context = TestContext::new();
    let id = "evil\u{1b}]0;pwned\u{7}\u{1b}[2J\rfake line\u{202e}";
    let huge = "k".repeat(10 << 20);
    let good: serde_json::Value = serde_json::from_str(GOOD.lines().next().unwrap()).unwrap();
    let with = |id: &str, repo: &str| {
        let mut record = good.clone();
        record["instance_id"] = id.into();
        record["repo"] = repo.into();
        format!("{record}\n")
    };
    // A valid record, and an invalid one holding the long value.
    let invalid = serde_json::json!({"instance_id": huge, "repo": "o/r"});
    context.write("in.jsonl", format!("{}{invalid}\n", with(id, "o/r")));
    context.write("a.jsonl", with(id, "o/r"));
    context.write("b.jsonl", with(id, "o/s"));
    let runs = [
        context.run(["validate", "--format", "swe-bench", "in.jsonl"]),
        context.run([
            "convert",
            "--from",
            "swe-bench",
            "--to",
            "canonical",
            "-i",
            "in.jsonl",
            "-o",
            "out.jsonl",
            "--on-error",
            "skip",
        ]),
        context.run([
            "convert",
            "--from",
            "swe-bench",
            "--to",
            "canonical",
            "-i",
            "in.jsonl",
            "-o",
            "out2.jsonl",
        ]),
        context.run(["diff", "--from", "swe-bench", "a.jsonl", "b.jsonl"]),
        // A table's name, told by `--from auto`, and repeated by the summary.
        {
            let table = format!(
                "name = {}\ndescription = \"d\"\n[[fields]]\nkey = \"instance_id\"\nto = \"instance_id\"\nrequired = true\n[[fields]]\nkey = \"repo\"\nto = \"repo\"\n[[fields]]\nkey = \"only_here\"\nto = \"extensions.only_here\"\nrequired = true\n",
                serde_json::Value::from(id)
            );
            context.write("evil.toml", table);
            context.write(
                "t.jsonl",
                "{\"instance_id\": \"a\", \"repo\": \"o/r\", \"only_here\": 1}\n",
            );
            context.run([
                "--adapter",
                "evil.toml",
                "convert",
                "--to",
                "canonical",
                "-i",
                "t.jsonl",
                "-o",
                "t.out.jsonl",
            ])
        },
    ];
    for run in &runs {
        for (name, bytes) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
            let shown = String::from_utf8_lossy(bytes);
            assert!(
                !shown
                    .chars()
                    .any(|c| (c.is_control() && c != '\n' && c != '\t') || c == '\u{202e}'),
                "{name} holds a control character: {shown:?}"
            );
            assert!(
                bytes.len() < 64 << 10,
                "{name} repeats the 10 MB value: {} bytes",
                bytes.len()
            );
        }
    }
    let all: String = runs
        .iter()
        .map(|r| stderr(r) + &String::from_utf8_lossy(&r.stdout))
        .collect();
    assert!(all.contains("\\u{1b}"), "the escaped id is shown: {all}");
}

/// `-o /dev/stdout` is the process's standard output as the shell opened it: `>> file`
/// appends, never writing over the file's head. A link in `/dev/shm` (where anyone can
/// plant one) is a link like any other: not written through, and kept without
/// `--overwrite`.
#[test]
fn the_process_s_own_streams_are_written_as_opened_and_other_links_in_dev_are_links() {
    let context = TestContext::new();
    context.write("in.jsonl", GOOD);
    let head = "the head of the user's log\n";
    let log = context.write("log.jsonl", head);
    let appended = fs::OpenOptions::new().append(true).open(&log).unwrap();
    let run = context
        .command()
        .args([
            "convert",
            "--from",
            "swe-bench",
            "--to",
            "swe-bench",
            "-i",
            "in.jsonl",
        ])
        .args(["-o", "/dev/stdout"])
        .stdout(appended)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert_eq!(context.read("log.jsonl"), format!("{head}{GOOD}"));

    let shm = Path::new("/dev/shm");
    if !shm.is_dir() {
        eprintln!("no /dev/shm here: its half of the test is skipped");
        return;
    }
    let target = victim(&context, "shm-victim");
    let link = shm.join(format!("isobench-test-{}-link", std::process::id()));
    let _ = fs::remove_file(&link);
    symlink(&target, &link).unwrap();
    let run = convert_with(&context, &["-o", link.to_str().unwrap()]);
    let kept = fs::symlink_metadata(&link).map(|m| m.file_type().is_symlink());
    let _ = fs::remove_file(&link);
    assert_eq!(run.status.code(), Some(2), "{}", stderr(&run));
    assert!(
        kept.unwrap_or(false),
        "the link was replaced without --overwrite"
    );
    assert_untouched(&target);
}

/// `man --dir` writes each page as every output is written: a planted link in the pages'
/// directory is never written through, and a page that exists is kept without
/// `--overwrite`.
#[test]
fn manual_pages_never_write_through_a_planted_link() {
    let context = TestContext::new();
    let target = victim(&context, "man-victim");
    fs::create_dir_all(context.path("pages")).unwrap();
    symlink(&target, context.path("pages/cargo-isobench-convert.1")).unwrap();
    let run = context.run(["man", "--dir", "pages"]);
    assert_eq!(run.status.code(), Some(2), "{}", stderr(&run));
    assert_untouched(&target);
    let run = context.run(["man", "--dir", "pages", "--overwrite"]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert_untouched(&target);
    let page = context.path("pages/cargo-isobench-convert.1");
    assert!(fs::symlink_metadata(&page).unwrap().is_file());
    assert!(
        context
            .read("pages/cargo-isobench-convert.1")
            .contains(".TH")
    );
}
