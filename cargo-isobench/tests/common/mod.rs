//! The harness every integration test runs the binary through: a [`TestContext`] (a
//! scratch directory, the binary, one environment for every command it starts, helpers to
//! write inputs and read outputs), the filters that make output independent of the machine
//! and the moment, [`isobench_snapshot!`](crate::isobench_snapshot) for exit code, stdout
//! and stderr, and the workspace's plugin crates built once.
//!
//! A test starts with `let context = TestContext::new();`, writes its inputs with
//! [`TestContext::write`], runs `cargo isobench ...` with [`TestContext::run`] (or builds
//! the command with [`TestContext::command`] when it needs more: an environment variable,
//! another directory, stdin) and reads what was written with [`TestContext::read`].
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::io::{BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use cargo_metadata::{Message, TargetKind};
use serde_json::Value;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_cargo-isobench");
pub const WORKSPACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// Variables no command the tests start inherits, whatever the environment `cargo test`
/// runs in (the binary, the cargo runs of the tests, and the programs that run the binary
/// themselves). A test that needs one sets it on its command.
pub const REMOVED_ENV: [&str; 11] = [
    // Rust's own switches: a backtrace adds lines to what a panicking plugin reports.
    "RUST_BACKTRACE",
    "RUST_LIB_BACKTRACE",
    "RUST_LOG",
    // Colour forced on adds escape codes to the help clap prints.
    "CLICOLOR_FORCE",
    // The Hugging Face cache: `hf:` inputs are read only from a cache a test makes
    // (`HF_HOME` is set instead: see `TestContext::command`).
    "HF_HUB_CACHE",
    "HUGGINGFACE_HUB_CACHE",
    // The test plugin's switches: a plugin does what the test in hand tells it, or the
    // default.
    "ISOBENCH_TEST_PLUGIN_MODE",
    "ISOBENCH_TEST_PLUGIN_MARK",
    "ISOBENCH_TEST_PLUGIN_ANSWER",
    // Cargo's target directory: the cargo the binary runs (`plugin build`, `plugin list`)
    // uses the target directory of the workspace it builds, and the tests' own cargo
    // builds never wait on the one the running `cargo test` holds.
    "CARGO_TARGET_DIR",
    "CARGO_BUILD_TARGET_DIR",
];

/// The sample file `name` of the repository's `examples/data`.
pub fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/data")
        .join(name)
}

/// The real published records at `path` under `../shared/data/real` (see
/// [`real_data_present`]).
pub fn real(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/data/real")
        .join(path)
}

/// The variable that says the real published records (`../shared/data/real`) must be
/// there (CI sets it): a test that needs them then fails without them.
pub const REQUIRE_REAL_DATA: &str = "ISOBENCH_REQUIRE_REAL_DATA";

/// Whether `path`, real published records a test needs, is there; when it is not, says
/// the test is skipped on stderr, or fails when [`REQUIRE_REAL_DATA`] is set.
pub fn real_data_present(path: &Path) -> bool {
    if path.exists() {
        return true;
    }
    assert!(
        std::env::var_os(REQUIRE_REAL_DATA).is_none(),
        "{} not present, and {REQUIRE_REAL_DATA} says the real-data tests must run",
        path.display()
    );
    eprintln!(
        "skipped: {} not present (set {REQUIRE_REAL_DATA} to fail instead)",
        path.display()
    );
    false
}

/// The `cargo` to run: the one running the tests.
fn cargo_program() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// Removes [`REMOVED_ENV`] from `command`'s environment.
pub fn clean_env(command: &mut Command) -> &mut Command {
    for name in REMOVED_ENV {
        command.env_remove(name);
    }
    command
}

/// A scratch directory and the binary, run in it with one environment.
///
/// Layout of the temporary root, removed when the context is dropped:
/// `work/` is the scratch directory the commands run in (and nothing else writes there,
/// so a test may count its files), `state/` the binary's state directory (trust records),
/// `huggingface/` an empty Hugging Face home.
#[derive(Debug)]
pub struct TestContext {
    root: tempfile::TempDir,
    dir: PathBuf,
    state: PathBuf,
    hf_home: PathBuf,
    /// Global options given to every command before its own (`--plugin`, `--adapter`).
    args: Vec<OsString>,
    /// Variables set for every command, after the environment is cleaned.
    env: Vec<(OsString, OsString)>,
}

impl Default for TestContext {
    fn default() -> Self {
        Self::new()
    }
}

impl TestContext {
    /// A new, empty scratch directory.
    pub fn new() -> Self {
        let root = tempfile::tempdir().expect("a temporary directory");
        let dir = root.path().join("work");
        std::fs::create_dir(&dir).expect("the scratch directory");
        Self {
            state: root.path().join("state"),
            hf_home: root.path().join("huggingface"),
            dir,
            root,
            args: Vec::new(),
            env: Vec::new(),
        }
    }

    /// Every command of this context gets `args` before its own: global options such as
    /// `--plugin PATH` or `--adapter TABLE`.
    #[must_use]
    pub fn with_args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    /// Every command of this context gets `name=value` in its environment.
    #[must_use]
    pub fn with_env(mut self, name: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.env
            .push((name.as_ref().to_owned(), value.as_ref().to_owned()));
        self
    }

    /// The scratch directory: where the commands run.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The binary's state directory (`ISOBENCH_STATE_DIR`), not created until the binary
    /// writes there.
    pub fn state_dir(&self) -> &Path {
        &self.state
    }

    /// `relative` in the scratch directory (an absolute path stays as it is).
    pub fn path(&self, relative: impl AsRef<Path>) -> PathBuf {
        self.dir.join(relative)
    }

    /// Writes `contents` to `relative` in the scratch directory, creating its folders.
    pub fn write(&self, relative: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("the folders of a scratch file");
        }
        std::fs::write(&path, contents)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        path
    }

    /// Copies the file `from` to `relative` in the scratch directory.
    pub fn copy(&self, from: impl AsRef<Path>, relative: impl AsRef<Path>) -> PathBuf {
        let (from, path) = (from.as_ref(), self.path(relative));
        std::fs::copy(from, &path)
            .unwrap_or_else(|e| panic!("cannot copy {}: {e}", from.display()));
        path
    }

    /// The text of `relative` in the scratch directory.
    pub fn read(&self, relative: impl AsRef<Path>) -> String {
        let path = self.path(relative);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// The bytes of `relative` in the scratch directory.
    pub fn read_bytes(&self, relative: impl AsRef<Path>) -> Vec<u8> {
        let path = self.path(relative);
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// `relative`, a JSON document (a `--report` file).
    pub fn read_json(&self, relative: impl AsRef<Path>) -> Value {
        let relative = relative.as_ref();
        serde_json::from_str(&self.read(relative))
            .unwrap_or_else(|e| panic!("{}: {e}", relative.display()))
    }

    /// `relative`, a JSON Lines file of UTF-8 text: every line a JSON value.
    pub fn read_json_lines(&self, relative: impl AsRef<Path>) -> Vec<Value> {
        parse_json_lines(&self.read(relative))
    }

    /// `cargo isobench` as cargo runs it (`cargo-isobench isobench`), with the context's
    /// global options, in the scratch directory, stdin empty, and the one environment:
    /// [`REMOVED_ENV`] removed; `NO_COLOR=1`; `ISOBENCH_STATE_DIR` the context's state
    /// directory, so that no test reads or writes the user's trust records; `HF_HOME` an
    /// empty directory of the context, so that no test reads the user's Hugging Face
    /// cache; then the variables given to [`TestContext::with_env`]. `ISOBENCH_PYTHON`
    /// (the interpreter for timing logs) is left as it is: it names a tool of the
    /// machine, not a state.
    pub fn command(&self) -> Command {
        let mut command = self.program(BIN);
        command.arg("isobench").args(&self.args);
        command
    }

    /// The binary run by its own name (`cargo-isobench convert ...`, as from `PATH`), with
    /// the context's global options, in the same place and environment as
    /// [`TestContext::command`].
    pub fn direct_command(&self) -> Command {
        let mut command = self.program(BIN);
        command.args(&self.args);
        command
    }

    /// Another program, in the same place and environment as the binary: for a program
    /// that runs the binary itself.
    pub fn program(&self, program: impl AsRef<OsStr>) -> Command {
        let mut command = Command::new(program);
        clean_env(&mut command)
            .current_dir(&self.dir)
            .env("NO_COLOR", "1")
            .env("ISOBENCH_STATE_DIR", &self.state)
            .env("HF_HOME", &self.hf_home)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null());
        command
    }

    /// Runs `cargo isobench ARGS` to its end: exit status, stdout and stderr.
    pub fn run<I, S>(&self, args: I) -> Output
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.command().args(args).output().expect("the binary runs")
    }

    /// Runs `cargo isobench ARGS` in `dir` (a crate or checkout the test made) instead of
    /// the scratch directory.
    pub fn run_in<I, S>(&self, dir: impl AsRef<Path>, args: I) -> Output
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.command()
            .current_dir(dir)
            .args(args)
            .output()
            .expect("the binary runs")
    }

    /// Runs `cargo-isobench ARGS`, the binary by its own name.
    pub fn run_direct<I, S>(&self, args: I) -> Output
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.direct_command()
            .args(args)
            .output()
            .expect("the binary runs")
    }

    /// What makes output the same on every machine and every run, as insta filters
    /// (regular expression, replacement), applied in order: the context's directories,
    /// the binary and the target and workspace directories; durations and rates; the
    /// process id in the name of a temporary output.
    pub fn filters(&self) -> Vec<(String, String)> {
        let mut filters = Vec::new();
        let target = Path::new(BIN)
            .parent()
            .and_then(Path::parent)
            .expect("the binary is in <target>/<profile>/");
        for (path, name) in [
            (self.dir.as_path(), "[TEMP]"),
            (self.state.as_path(), "[STATE]"),
            (self.hf_home.as_path(), "[HF_HOME]"),
            (self.root.path(), "[ROOT]"),
            (Path::new(BIN), "[BIN]"),
            (target, "[TARGET]"),
            (Path::new(WORKSPACE), "[WORKSPACE]"),
        ] {
            // The path as the test made it, and as the binary may print it once resolved
            // (a symlinked temporary directory; the workspace's `..`).
            let resolved = path.canonicalize().ok();
            for form in [Some(path.to_path_buf()), resolved].into_iter().flatten() {
                filters.push((escape(&form.to_string_lossy()), name.to_owned()));
            }
        }
        for (pattern, replacement) in [
            // A rate: `(12 MB/s, 3400 records/s)`.
            (r"\b\d+(\.\d+)? (MB|records)/s\b", "[RATE]"),
            // A duration: `in 1.2 s`, `350ms`.
            (r"\b\d+(\.\d+)? ?(ns|µs|ms|s)\b", "[TIME]"),
            // The process id in a temporary output's name: `.out.jsonl.isobench-4242.tmp`.
            (r"\.isobench-\d+\.tmp\b", ".isobench-[PID].tmp"),
        ] {
            filters.push((pattern.to_owned(), replacement.to_owned()));
        }
        filters
    }

    /// insta's settings with [`TestContext::filters`]; bind them to a scope with
    /// `let _filters = context.insta_settings().bind_to_scope();` before a snapshot.
    pub fn insta_settings(&self) -> insta::Settings {
        let mut settings = insta::Settings::clone_current();
        for (pattern, replacement) in self.filters() {
            settings.add_filter(&pattern, replacement);
        }
        settings
    }
}

/// `text` as a regular expression that matches it literally.
fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

/// Runs `command` with `input` as its stdin.
pub fn run_with_stdin(command: &mut Command, input: &[u8]) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    std::thread::scope(|scope| {
        // Written beside the reading of the output, so that neither pipe can fill up.
        let writer = scope.spawn(move || stdin.write_all(input));
        let output = child.wait_with_output().expect("the binary runs");
        // A command that exits without reading all its input closes the pipe: not an error.
        let _ = writer.join().expect("the writer does not panic");
        output
    })
}

/// What a snapshot is taken of: a command, run to its end, or its output.
pub trait IntoOutput {
    fn into_output(self) -> Output;
}

impl IntoOutput for Output {
    fn into_output(self) -> Output {
        self
    }
}

impl IntoOutput for &Output {
    fn into_output(self) -> Output {
        self.clone()
    }
}

impl IntoOutput for &mut Command {
    fn into_output(self) -> Output {
        self.output().expect("the binary runs")
    }
}

impl IntoOutput for Command {
    fn into_output(mut self) -> Output {
        (&mut self).into_output()
    }
}

/// Exit code, stdout and stderr together, for snapshots.
pub fn transcript(out: &Output) -> String {
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A command's stdout, as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A command's stderr, as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// JSON Lines (a command's stdout): every line a JSON value.
pub fn json_lines(bytes: &[u8]) -> Vec<Value> {
    parse_json_lines(&String::from_utf8_lossy(bytes))
}

fn parse_json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("a line that is not JSON: {e}: {l}"))
        })
        .collect()
}

/// Runs a command of `cargo isobench` (a `Command`, or the `Output` of one already run)
/// and snapshots its exit code, stdout and stderr, with the filters of the context; gives
/// back the output.
///
/// `isobench_snapshot!(context, context.command().arg("adapters"), @"...")` keeps the
/// snapshot inline; `isobench_snapshot!(context, "adapters", command)` in
/// `tests/snapshots/<test file>__adapters.snap`.
#[macro_export]
macro_rules! isobench_snapshot {
    ($context:expr, $command:expr, @$snapshot:literal) => {{
        let output = $crate::common::IntoOutput::into_output($command);
        let _filters = $context.insta_settings().bind_to_scope();
        ::insta::assert_snapshot!($crate::common::transcript(&output), @$snapshot);
        output
    }};
    ($context:expr, $name:expr, $command:expr) => {{
        let output = $crate::common::IntoOutput::into_output($command);
        let _filters = $context.insta_settings().bind_to_scope();
        ::insta::assert_snapshot!(
            $name,
            $crate::common::transcript(&output),
            stringify!($command)
        );
        output
    }};
}

/// `cargo` in `dir`, with [`REMOVED_ENV`] removed from its environment.
pub fn cargo(dir: &Path) -> Command {
    let mut command = Command::new(cargo_program());
    clean_env(&mut command).current_dir(dir);
    command
}

/// One target directory for every plugin the tests build (so dependencies build once),
/// beside the test binary's own and never the one the running `cargo test` holds.
pub fn plugin_target_dir() -> PathBuf {
    Path::new(BIN)
        .parent()
        .and_then(Path::parent)
        .expect("the binary is in <target>/<profile>/")
        .join("plugin-tests")
}

/// Runs `cargo build` with JSON messages and returns the cdylib of each package built.
pub fn cargo_build(dir: &Path, args: &[&str]) -> BTreeMap<String, PathBuf> {
    let mut child = cargo(dir)
        .args([
            "build",
            "--message-format=json-render-diagnostics",
            "--target-dir",
        ])
        .arg(plugin_target_dir())
        .args(args)
        .stdout(Stdio::piped())
        .spawn()
        .expect("cargo runs");
    let mut libraries = BTreeMap::new();
    for message in Message::parse_stream(BufReader::new(child.stdout.take().unwrap())) {
        if let Message::CompilerArtifact(a) = message.unwrap()
            && a.target.is_kind(TargetKind::CDyLib)
        {
            let lib = a
                .filenames
                .iter()
                .find(|f| f.as_str().ends_with(std::env::consts::DLL_EXTENSION))
                .unwrap();
            libraries.insert(a.target.name.clone(), lib.clone().into_std_path_buf());
        }
    }
    assert!(child.wait().unwrap().success(), "cargo build failed");
    libraries
}

/// The workspace's plugin crates, built once for all the tests.
pub fn plugins() -> &'static BTreeMap<String, PathBuf> {
    static BUILT: OnceLock<BTreeMap<String, PathBuf>> = OnceLock::new();
    BUILT.get_or_init(|| {
        cargo_build(
            Path::new(WORKSPACE),
            &[
                "-p",
                "isobench-multi-swe-bench",
                "-p",
                "isobench-test-plugin",
                "-p",
                "custom-adapter",
            ],
        )
    })
}

pub fn plugin(target: &str) -> &'static Path {
    &plugins()[target]
}
