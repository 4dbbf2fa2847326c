//! An output is either the complete new file or untouched: a process killed mid-write
//! leaves nothing at the destination, and the next run removes its temporary file.
//! Unwritable destinations fail cleanly, naming the path.

mod common;

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::TestContext;

fn sample() -> String {
    fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../examples/data/swe-bench-verified.sample.jsonl"),
    )
    .expect("the sample data is in the repository")
}

/// A large input: the sample records repeated with unique ids (about `megabytes` MB).
fn big_input(path: &Path, megabytes: usize) {
    let sample = sample();
    let mut text = String::with_capacity(megabytes << 20);
    let mut n = 0;
    while text.len() < megabytes << 20 {
        for line in sample.lines() {
            n += 1;
            text.push_str(&line.replacen(
                "\"instance_id\": \"",
                &format!("\"instance_id\": \"copy{n}-"),
                1,
            ));
            text.push('\n');
        }
    }
    fs::write(path, text).unwrap();
}

fn temps(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| {
            n.contains(".isobench-") && Path::new(n).extension().is_some_and(|e| e == "tmp")
        })
        .collect()
}

fn kill_mid_write(context: &TestContext, extra: &[&str]) {
    stop_mid_write(context, extra, |child| child.kill().unwrap()); // SIGKILL on Unix
}

/// Starts a conversion of `big.jsonl` to `out.jsonl` (or the output `extra` names), waits
/// until its temporary output holds data, stops it with `stop`, and returns how it ended.
fn stop_mid_write(
    context: &TestContext,
    extra: &[&str],
    stop: impl FnOnce(&mut std::process::Child),
) -> std::process::ExitStatus {
    let dir = context.dir();
    let mut child = context
        .command()
        .args([
            "convert",
            "--from",
            "swe-bench",
            "--to",
            "canonical",
            "--jobs",
            "1",
            "-i",
            "big.jsonl",
        ])
        .args(if extra.contains(&"-o") {
            &[][..]
        } else {
            &["-o", "out.jsonl"]
        })
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the temporary output holds data, then kill without warning.
    let started = Instant::now();
    loop {
        // A Parquet output is written at its end: its temporary file is there from the start.
        let written = temps(dir).iter().any(|t| {
            t.contains(".parquet.") || fs::metadata(dir.join(t)).is_ok_and(|m| m.len() > 0)
        });
        if written {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the conversion ended before it could be killed"
        );
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no temporary output appeared"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    stop(&mut child);
    child.wait().unwrap()
}

#[cfg(unix)]
#[test]
fn an_interrupted_run_removes_its_temporary_file_and_leaves_no_output() {
    use std::os::unix::process::ExitStatusExt;
    let context = TestContext::new();
    big_input(&context.path("big.jsonl"), 64);
    for (signal, number, output) in [
        ("INT", 2, "out.jsonl"),
        ("TERM", 15, "out.jsonl"),
        ("TERM", 15, "out.parquet"),
    ] {
        let status = stop_mid_write(&context, &["-o", output], |child| {
            let sent = Command::new("sh")
                .arg("-c")
                .arg(format!("kill -{signal} {}", child.id()))
                .status()
                .unwrap();
            assert!(sent.success());
        });
        // Ended by the signal, as without the clean-up.
        assert_eq!(status.signal(), Some(number), "SIG{signal}: {status:?}");
        assert!(!context.path(output).exists(), "SIG{signal}: an output");
        let left: Vec<String> = fs::read_dir(context.dir())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect();
        assert!(
            left.is_empty(),
            "SIG{signal}, {output}: {left:?} left behind"
        );
    }
}

#[test]
fn a_killed_run_leaves_no_output_and_the_next_run_no_temporary_file() {
    let context = TestContext::new();
    big_input(&context.path("big.jsonl"), 64);
    kill_mid_write(&context, &[]);
    assert!(
        !context.path("out.jsonl").exists(),
        "no partial output at the destination"
    );
    assert_eq!(
        temps(context.dir()).len(),
        1,
        "the killed run's temporary file is still there"
    );

    fs::write(context.path("small.jsonl"), sample()).unwrap();
    let out = context.run([
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "canonical",
        "-i",
        "small.jsonl",
        "-o",
        "out.jsonl",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        fs::read_to_string(context.path("out.jsonl"))
            .unwrap()
            .lines()
            .count(),
        3
    );
    assert_eq!(
        temps(context.dir()),
        Vec::<String>::new(),
        "the stale temporary file is removed"
    );
}

#[test]
fn a_killed_overwrite_leaves_the_old_output_untouched() {
    let context = TestContext::new();
    big_input(&context.path("big.jsonl"), 64);
    fs::write(context.path("out.jsonl"), "the previous output\n").unwrap();
    kill_mid_write(&context, &["--overwrite"]);
    assert_eq!(
        fs::read_to_string(context.path("out.jsonl")).unwrap(),
        "the previous output\n"
    );
}

#[test]
fn an_unwritable_destination_fails_cleanly_with_its_path() {
    let context = TestContext::new();
    fs::write(context.path("in.jsonl"), sample()).unwrap();
    // A read-only directory; root ignores permissions, so it uses a read-only file system.
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"));
    let target = if is_root {
        if !Path::new("/sys").is_dir() {
            eprintln!("skipped: running as root without /sys, no read-only place to write to");
            return;
        }
        Path::new("/sys").join("isobench-out.jsonl")
    } else {
        let locked = context.path("locked");
        fs::create_dir(&locked).unwrap();
        let mut perms = fs::metadata(&locked).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o555);
        fs::set_permissions(&locked, perms).unwrap();
        locked.join("out.jsonl")
    };
    let out = context
        .command()
        .args([
            "convert",
            "--from",
            "swe-bench",
            "--to",
            "canonical",
            "-i",
            "in.jsonl",
            "-o",
        ])
        .arg(&target)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains(&format!("cannot write `{}`", target.display())),
        "{stderr}"
    );
    assert!(!target.exists());
}

#[test]
fn a_full_disk_fails_cleanly_with_its_path() {
    // `/dev/full` fails every write with ENOSPC, as a full disk does.
    let Ok(full) = fs::OpenOptions::new().write(true).open("/dev/full") else {
        eprintln!("skipped: no /dev/full on this system");
        return;
    };
    let context = TestContext::new();
    fs::write(context.path("in.jsonl"), sample()).unwrap();
    let out = context
        .command()
        .args([
            "convert",
            "--from",
            "swe-bench",
            "--to",
            "canonical",
            "-i",
            "in.jsonl",
        ])
        .stdout(full)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("cannot write `-`") && stderr.contains("No space left on device"),
        "{stderr}"
    );
}

/// `/dev/full`, a device every write to fails with ENOSPC, and a scratch directory
/// holding `in.jsonl`; `None` (the test says it was skipped) on a system without it.
fn full_device() -> Option<(&'static Path, TestContext)> {
    use std::os::unix::fs::FileTypeExt;
    let device = Path::new("/dev/full");
    if !fs::metadata(device).is_ok_and(|m| m.file_type().is_char_device()) {
        eprintln!("skipped: no /dev/full on this system");
        return None;
    }
    let context = TestContext::new();
    fs::write(context.path("in.jsonl"), sample()).unwrap();
    Some((device, context))
}

#[test]
fn a_full_device_named_by_o_fails_cleanly_and_stays_a_device() {
    use std::os::unix::fs::FileTypeExt;
    let Some((device, context)) = full_device() else {
        return;
    };
    // No `--overwrite`: a device is written into, never replaced.
    let out = context
        .command()
        .args(["convert", "--from", "swe-bench", "--to", "canonical"])
        .args(["-i", "in.jsonl", "-o", "/dev/full"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("cannot write `/dev/full`") && stderr.contains("No space left on device"),
        "{stderr}"
    );
    assert!(fs::metadata(device).unwrap().file_type().is_char_device());
}

/// A report that cannot be written fails the run before the output is put in place: no
/// output is left that the run reports as failed.
#[test]
fn a_report_that_cannot_be_written_leaves_no_output_in_place() {
    let Some((_, context)) = full_device() else {
        return;
    };
    let out = context
        .command()
        .args(["convert", "--from", "swe-bench", "--to", "canonical"])
        .args(["-i", "in.jsonl", "-o", "out.jsonl", "--report", "/dev/full"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("cannot write `/dev/full`"), "{stderr}");
    assert!(!context.path("out.jsonl").exists());
    let left: Vec<_> = fs::read_dir(context.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        left.iter().all(|name| name == "in.jsonl"),
        "files left behind: {left:?}"
    );
}

#[test]
fn a_named_pipe_is_written_in_place() {
    use std::os::unix::fs::FileTypeExt;
    let context = TestContext::new();
    let pipe = context.path("out.jsonl");
    let made = Command::new("mkfifo").arg(&pipe).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: `mkfifo` is not available");
        return;
    }
    fs::write(context.path("in.jsonl"), sample()).unwrap();
    let reader = {
        let pipe = pipe.clone();
        std::thread::spawn(move || fs::read_to_string(pipe).unwrap())
    };
    let out = context
        .command()
        .args(["convert", "--from", "swe-bench", "--to", "swe-bench"])
        .args(["-i", "in.jsonl", "-o", "out.jsonl"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(reader.join().unwrap(), sample());
    assert!(fs::metadata(&pipe).unwrap().file_type().is_fifo());
    assert_eq!(temps(context.dir()), Vec::<String>::new());
}
