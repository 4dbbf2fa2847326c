//! Small hostile inputs that claim large sizes: a Parquet page header's uncompressed size,
//! a footer's counts, a row of one enormous value. Each runs the binary under an
//! address-space limit ([`AS_LIMIT`], through `prlimit`), so that an allocation the input
//! made the tool attempt fails the test (the process aborts) instead of taking the machine;
//! the tool must refuse the file with an error naming it and what it claims.
//!
//! The Parquet files are written byte by byte here ([`Craft`]), so that each claim can be
//! set to any value: the `parquet` crate's writer writes only true ones. Each crafted file
//! is first read as written, with its claims true, to show the refusal is for the claim.

#![cfg(unix)]

mod common;

use std::process::Output;
use std::time::Duration;

use common::{BIN, TestContext};

const GOOD: &str = include_str!("bad-input/good.jsonl");

/// The address space the binary runs in: ample for reading these small files (a run
/// takes well under half of it), far under what their claims would take.
const AS_LIMIT: u64 = 1 << 30;

/// Whether `prlimit` (util-linux) is there to set the limit.
fn prlimit_found() -> bool {
    std::process::Command::new("prlimit")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Runs `cargo isobench ARGS` under [`AS_LIMIT`].
fn run_limited(context: &TestContext, args: &[&str]) -> Output {
    assert!(
        prlimit_found(),
        "these tests need `prlimit` (util-linux) to limit the binary's memory"
    );
    context
        .program("prlimit")
        .arg(format!("--as={AS_LIMIT}"))
        .arg("--")
        .arg(BIN)
        .arg("isobench")
        .args(args)
        .output()
        .expect("prlimit runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Parquet files whose page headers and footers claim more than they hold.
// The files are written byte by byte: a cast takes the low bytes of a value on purpose.
#[cfg(feature = "parquet")]
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap
)]
mod parquet_claims {
    use std::path::Path;

    use super::*;

    /// A run that ended by itself with a read error (exit 3), not a signal or an abort.
    fn assert_refused(out: &Output, name: &str, says: &str) {
        let err = stderr(out);
        assert_eq!(
            out.status.code(),
            Some(3),
            "{name}: {:?}\n{err}",
            out.status
        );
        assert!(err.contains(&format!("cannot read `{name}`")), "{err}");
        assert!(err.contains(says), "expected {says:?} in:\n{err}");
        assert!(!err.contains("memory allocation"), "{err}");
    }

    /// A run that read the file (whatever it made of the records).
    fn assert_read(out: &Output, name: &str) {
        let err = stderr(out);
        assert!(
            out.status.code().is_some_and(|c| c != 3 && c < 100),
            "{name}: {:?}\n{err}",
            out.status
        );
        assert!(!err.contains("cannot read"), "{err}");
    }

    const VALIDATE: fn(&str) -> Vec<&str> = |name| vec!["validate", "--format", "swe-bench", name];

    fn convert(name: &str) -> Vec<&str> {
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
        ]
    }

    /// Thrift compact protocol, as Parquet's footer and page headers are written.
    #[derive(Default)]
    struct Thrift {
        out: Vec<u8>,
        /// The last field id of each struct being written, innermost last.
        last: Vec<i16>,
    }

    const T_I32: u8 = 5;
    const T_I64: u8 = 6;
    const T_BINARY: u8 = 8;
    const T_LIST: u8 = 9;
    const T_STRUCT: u8 = 12;

    impl Thrift {
        fn varint(&mut self, mut v: u64) {
            while v >= 0x80 {
                self.out.push((v as u8) | 0x80);
                v >>= 7;
            }
            self.out.push(v as u8);
        }

        fn zigzag(&mut self, v: i64) {
            self.varint(((v << 1) ^ (v >> 63)) as u64);
        }

        fn field(&mut self, id: i16, kind: u8) {
            let last = self.last.last_mut().expect("inside a struct");
            let delta = id - *last;
            *last = id;
            if (1..=15).contains(&delta) {
                self.out.push(((delta as u8) << 4) | kind);
            } else {
                self.out.push(kind);
                self.zigzag(i64::from(id));
            }
        }

        fn i32(&mut self, id: i16, v: i64) -> &mut Self {
            self.field(id, T_I32);
            self.zigzag(v);
            self
        }

        fn i64(&mut self, id: i16, v: i64) -> &mut Self {
            self.field(id, T_I64);
            self.zigzag(v);
            self
        }

        fn binary(&mut self, id: i16, bytes: &[u8]) -> &mut Self {
            self.field(id, T_BINARY);
            self.varint(bytes.len() as u64);
            self.out.extend_from_slice(bytes);
            self
        }

        fn list(&mut self, id: i16, n: usize, kind: u8) -> &mut Self {
            self.field(id, T_LIST);
            if n < 15 {
                self.out.push(((n as u8) << 4) | kind);
            } else {
                self.out.push(0xf0 | kind);
                self.varint(n as u64);
            }
            self
        }

        /// Starts a struct: a field's value (`Some(id)`) or a list's element (`None`).
        fn begin(&mut self, id: Option<i16>) -> &mut Self {
            if let Some(id) = id {
                self.field(id, T_STRUCT);
            }
            self.last.push(0);
            self
        }

        fn end(&mut self) -> &mut Self {
            self.out.push(0);
            self.last.pop();
            self
        }
    }

    /// Parquet's codec numbers.
    #[derive(Clone, Copy)]
    enum Codec {
        Snappy = 1,
        Zstd = 6,
        Lz4Raw = 7,
    }

    /// A Parquet file of one required string column `instance_id`, one row group, a data page
    /// per value, written byte by byte with each claim set by the test.
    struct Craft {
        codec: Codec,
        values: Vec<Vec<u8>>,
        /// Each page's `uncompressed_page_size`, when not its true size.
        claimed_page_size: Option<i64>,
        /// The root schema element's `num_children`, when not 1.
        claimed_children: Option<i64>,
        /// Each page header's statistics: a maximum and a minimum of this many bytes.
        statistics: Option<usize>,
    }

    impl Craft {
        fn new(codec: Codec, values: Vec<Vec<u8>>) -> Self {
            Self {
                codec,
                values,
                claimed_page_size: None,
                claimed_children: None,
                statistics: None,
            }
        }

        fn compress(&self, plain: &[u8]) -> Vec<u8> {
            let n = plain.len();
            let mut out = Vec::new();
            match self.codec {
                // One literal: the length as a varint, then a literal tag (up to 2^32 bytes).
                Codec::Snappy => {
                    let mut t = Thrift::default();
                    t.varint(n as u64);
                    out = t.out;
                    out.push(62 << 2);
                    out.extend_from_slice(&((n - 1) as u32).to_le_bytes()[..3]);
                    assert!(n <= 1 << 24);
                    out.extend_from_slice(plain);
                }
                // One sequence of literals and no match.
                Codec::Lz4Raw => {
                    if n < 15 {
                        out.push((n as u8) << 4);
                    } else {
                        out.push(0xf0);
                        let mut rest = n - 15;
                        while rest >= 255 {
                            out.push(255);
                            rest -= 255;
                        }
                        out.push(rest as u8);
                    }
                    out.extend_from_slice(plain);
                }
                Codec::Zstd => out = zstd::bulk::compress(plain, 3).unwrap(),
            }
            out
        }

        fn bytes(&self) -> Vec<u8> {
            let mut file = b"PAR1".to_vec();
            let start = file.len();
            let mut uncompressed_total = 0i64;
            for value in &self.values {
                // PLAIN: a byte array is its length (4 bytes) and its bytes.
                let mut plain = (value.len() as u32).to_le_bytes().to_vec();
                plain.extend_from_slice(value);
                let compressed = self.compress(&plain);
                let mut header = Thrift::default();
                header
                    .begin(None)
                    .i32(1, 0)
                    .i32(2, self.claimed_page_size.unwrap_or(plain.len() as i64))
                    .i32(3, compressed.len() as i64)
                    .begin(Some(5))
                    .i32(1, 1)
                    .i32(2, 0)
                    .i32(3, 3)
                    .i32(4, 3);
                if let Some(n) = self.statistics {
                    let bound = vec![b'x'; n];
                    header
                        .begin(Some(5))
                        .binary(5, &bound)
                        .binary(6, &bound)
                        .end();
                }
                header.end().end();
                uncompressed_total += (header.out.len() + plain.len()) as i64;
                file.extend_from_slice(&header.out);
                file.extend_from_slice(&compressed);
            }
            let compressed_total = (file.len() - start) as i64;
            let rows = self.values.len() as i64;
            let mut footer = Thrift::default();
            footer.begin(None).i32(1, 1).list(2, 2, T_STRUCT);
            footer
                .begin(None)
                .binary(4, b"schema")
                .i32(5, self.claimed_children.unwrap_or(1))
                .end();
            footer
                .begin(None)
                .i32(1, 6)
                .i32(3, 0)
                .binary(4, b"instance_id")
                .i32(6, 0)
                .end();
            footer.i64(3, rows).list(4, 1, T_STRUCT);
            footer.begin(None).list(1, 1, T_STRUCT);
            footer.begin(None).i64(2, start as i64).begin(Some(3));
            footer.i32(1, 6).list(2, 1, T_I32);
            footer.zigzag(0);
            footer.list(3, 1, T_BINARY);
            footer.varint(11);
            footer.out.extend_from_slice(b"instance_id");
            footer
                .i32(4, self.codec as i64)
                .i64(5, rows)
                .i64(6, uncompressed_total)
                .i64(7, compressed_total)
                .i64(9, start as i64)
                .end() // ColumnMetaData
                .end(); // ColumnChunk
            footer.i64(2, uncompressed_total).i64(3, rows).end(); // RowGroup
            footer.end(); // FileMetaData
            file.extend_from_slice(&footer.out);
            file.extend_from_slice(&(footer.out.len() as u32).to_le_bytes());
            file.extend_from_slice(b"PAR1");
            file
        }

        fn write(&self, context: &TestContext, name: &str) {
            context.write(name, self.bytes());
        }
    }

    fn ids(n: usize) -> Vec<Vec<u8>> {
        (1..=n)
            .map(|i| format!("acme__widgets-{i}").into_bytes())
            .collect()
    }

    #[test]
    fn a_page_claiming_more_than_its_codec_can_expand_to_is_refused_before_it_is_allocated() {
        let context = TestContext::new();
        for codec in [Codec::Snappy, Codec::Lz4Raw] {
            let mut craft = Craft::new(codec, ids(120));
            craft.write(&context, "true.parquet");
            assert_read(
                &run_limited(&context, &VALIDATE("true.parquet")),
                "true.parquet",
            );
            craft.claimed_page_size = Some(i64::from(i32::MAX));
            craft.write(&context, "in.parquet");
            for args in [VALIDATE("in.parquet"), convert("in.parquet")] {
                let out = run_limited(&context, &args);
                assert_refused(
                    &out,
                    "in.parquet",
                    "claims to decompress to 2147483647 bytes",
                );
                assert!(!context.path("out.jsonl").exists());
            }
        }
    }

    #[test]
    fn a_page_claiming_more_than_a_page_may_hold_is_refused_whatever_its_codec() {
        // ZSTD has no bound on its expansion: the page size is bounded by itself.
        let context = TestContext::new();
        let mut craft = Craft::new(Codec::Zstd, ids(40));
        craft.write(&context, "true.parquet");
        assert_read(
            &run_limited(&context, &VALIDATE("true.parquet")),
            "true.parquet",
        );
        craft.claimed_page_size = Some(i64::from(i32::MAX));
        craft.write(&context, "in.parquet");
        let out = run_limited(&context, &VALIDATE("in.parquet"));
        assert_refused(&out, "in.parquet", "more than the 268435456 a page may");
    }

    #[test]
    fn a_footer_claiming_more_schema_children_than_it_holds_is_refused_before_decoding() {
        let context = TestContext::new();
        let mut craft = Craft::new(Codec::Snappy, ids(3));
        craft.claimed_children = Some(i64::from(i32::MAX));
        craft.write(&context, "in.parquet");
        for args in [VALIDATE("in.parquet"), convert("in.parquet")] {
            let out = run_limited(&context, &args);
            assert_refused(
                &out,
                "in.parquet",
                "schema element 0 claims 2147483647 children, and only 1 elements follow it",
            );
        }
    }

    #[test]
    fn a_parquet_row_longer_than_max_record_bytes_stops_with_its_row_number() {
        let context = TestContext::new();
        let mut values = ids(3);
        values[1] = vec![b'x'; 3 << 20];
        Craft::new(Codec::Zstd, values).write(&context, "in.parquet");
        assert_read(
            &run_limited(&context, &VALIDATE("in.parquet")),
            "in.parquet",
        );
        let mut args = vec!["--max-record-bytes", "1M"];
        args.extend(VALIDATE("in.parquet"));
        let out = run_limited(&context, &args);
        assert_refused(
            &out,
            "in.parquet",
            "row 2 holds 3145728 bytes, more than the 1048576 one record may take (`--max-record-bytes`)",
        );
    }

    #[test]
    fn a_string_larger_than_a_page_may_hold_is_refused_before_it_is_decompressed() {
        // 70 MB of one byte compress to a few kilobytes; a page may hold 64 MiB when the record
        // bound is lower.
        let context = TestContext::new();
        let mut values = ids(2);
        values[0] = vec![b'x'; 70 << 20];
        Craft::new(Codec::Zstd, values).write(&context, "in.parquet");
        assert!(
            Path::new(&context.path("in.parquet"))
                .metadata()
                .unwrap()
                .len()
                < 64 << 10
        );
        let mut args = vec!["--max-record-bytes", "1M"];
        args.extend(VALIDATE("in.parquet"));
        let out = run_limited(&context, &args);
        assert_refused(&out, "in.parquet", "more than the 67108864 a page may");
    }

    #[test]
    fn page_headers_longer_than_the_first_read_are_read_whole() {
        // Statistics of 100 kB make each page header longer than the bytes the bounds
        // check reads first.
        let context = TestContext::new();
        let mut craft = Craft::new(Codec::Snappy, ids(3));
        craft.statistics = Some(100_000);
        craft.write(&context, "in.parquet");
        assert_read(
            &run_limited(&context, &VALIDATE("in.parquet")),
            "in.parquet",
        );
    }
}

/// A checkout's `isobench.toml` that is a link to an endless file of the system: every
/// command reads the configuration, and must not read it without end.
#[test]
fn a_configuration_linked_to_an_endless_system_file_is_refused_not_read() {
    let context = TestContext::new();
    context.write("good.jsonl", GOOD);
    std::os::unix::fs::symlink("/proc/self/pagemap", context.path("isobench.toml")).unwrap();
    let out = run_limited(
        &context,
        &["validate", "--format", "swe-bench", "good.jsonl"],
    );
    let err = stderr(&out);
    assert!(
        out.status.code().is_some_and(|c| c < 100),
        "{:?}\n{err}",
        out.status
    );
    assert!(err.contains("isobench.toml"), "{err}");
    assert!(err.contains("a file of the system"), "{err}");
}

/// A plugin index under the checkout's `target/` that is a named pipe nobody writes: it
/// is only reported, and must be skipped, not waited on.
#[test]
fn a_plugin_index_that_is_a_named_pipe_is_skipped_not_waited_on() {
    let context = TestContext::new();
    context.write("good.jsonl", GOOD);
    context.write(
        "Cargo.toml",
        "[package]\nname = \"x\"\nversion = \"0.1.0\"\n",
    );
    std::fs::create_dir_all(context.path("target/isobench")).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(context.path("target/isobench/plugins.json"))
        .status()
        .unwrap();
    assert!(made.success());
    let mut command = context.command();
    command.args(["validate", "--format", "swe-bench", "good.jsonl"]);
    let out = run_within(command, Duration::from_secs(20))
        .expect("the run ended: the named pipe was not opened");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// Runs `command` for at most `limit`; `None` (the process killed) when it did not end.
fn run_within(mut command: std::process::Command, limit: Duration) -> Option<Output> {
    let mut child = command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return Some(child.wait_with_output().unwrap());
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A program plugin that writes its stdout without a line end: a line longer than the
/// protocol allows is a protocol break, not a line to hold until memory runs out.
#[test]
fn a_program_plugin_writing_no_line_end_breaks_the_protocol() {
    let context = TestContext::new();
    context.write(
        "isobench.toml",
        "[[plugins]]\ncommand = [\"sh\", \"-c\", \"cat /dev/zero\"]\n",
    );
    let trusted = context.run(["trust"]);
    assert!(trusted.status.success(), "{}", stderr(&trusted));
    let out = run_limited(&context, &["--max-record-bytes", "1M", "adapters"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{:?}\n{err}", out.status);
    assert!(
        err.contains("a line longer than 2097152 bytes, more than the protocol allows"),
        "{err}"
    );
}

/// `--jobs` starts that many workers, each with buffers of its own: an enormous number is
/// refused as the argument it is, not attempted.
#[test]
fn an_enormous_number_of_jobs_is_refused_as_an_argument() {
    let context = TestContext::new();
    context.write("good.jsonl", GOOD);
    for command in [
        vec![
            "convert",
            "--from",
            "swe-bench",
            "--to",
            "canonical",
            "-i",
            "good.jsonl",
            "-o",
            "out.jsonl",
        ],
        vec!["mine", "--repo", "."],
    ] {
        let mut args = command.clone();
        args.extend(["--jobs", "10000000"]);
        let out = run_limited(&context, &args);
        let err = stderr(&out);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {:?}\n{err}",
            out.status
        );
        assert!(
            err.contains("expected a number of threads from 1 to 256"),
            "{err}"
        );
    }
    assert!(!context.path("out.jsonl").exists());
}

/// Records written to a standard output that is the input (`>> f`, `1<>f`) would be read
/// again without end, or overwrite what is yet to be read: refused as `cat` refuses it. The
/// run is under a file-size limit, so that a regression cannot fill the disk.
#[test]
fn a_standard_output_that_is_the_input_is_refused() {
    let context = TestContext::new();
    let input = context.write("good.jsonl", GOOD);
    let args = [
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "swe-bench",
        "-i",
        "good.jsonl",
    ];
    let append = || {
        std::fs::OpenOptions::new()
            .append(true)
            .open(&input)
            .unwrap()
    };
    let in_place = || {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&input)
            .unwrap()
    };
    for (how, stdout) in [(">>", append()), ("1<>", in_place())] {
        let out = context
            .program("prlimit")
            .arg("--fsize=1000000")
            .arg("--")
            .arg(BIN)
            .arg("isobench")
            .args(args)
            .stdout(stdout)
            .output()
            .expect("prlimit runs");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{how}: {:?}\n{err}", out.status);
        assert!(err.contains("input file is output file"), "{how}: {err}");
        assert_eq!(
            context.read("good.jsonl"),
            GOOD,
            "{how}: the input was written"
        );
    }
    // Read from standard input, the same.
    let out = context
        .program("prlimit")
        .arg("--fsize=1000000")
        .arg("--")
        .arg(BIN)
        .args([
            "isobench",
            "convert",
            "--from",
            "swe-bench",
            "--to",
            "swe-bench",
            "-i",
            "-",
        ])
        .stdin(std::fs::File::open(&input).unwrap())
        .stdout(append())
        .output()
        .expect("prlimit runs");
    assert!(
        stderr(&out).contains("input file is output file"),
        "{}",
        stderr(&out)
    );
    assert_eq!(context.read("good.jsonl"), GOOD);
}
