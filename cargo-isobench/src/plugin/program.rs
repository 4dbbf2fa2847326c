//! Program plugins: an executable speaking JSON Lines on stdin/stdout.
//!
//! Protocol (version [`PROTOCOL`]), one JSON object per line:
//!
//! * host: `{"id": 0, "method": "hello", "protocol": 2}`;
//!   program: `{"id": 0, "ok": {"abi": 2, "info": {...}, "schema": {...}}}` (a manifest;
//!   a program of protocol 1 answers `"abi": 1`, and is served as such).
//!
//! A program written by hand is sent whole records:
//!
//! * host: `{"id": N, "method": "import", "record": {...}}`;
//!   program: `{"id": N, "ok": {"record": {...canonical...}, "notes": [...]}}`
//!   or `{"id": N, "error": {"pointer": ..., "kind": ..., "message": ...}}`.
//! * host: `{"id": N, "method": "export", "record": {...canonical...}, "profile": "lossless"}`;
//!   program: the same kind of answer, with the foreign record.
//!
//! A program declared by a field table (protocol 2) puts the table in its manifest,
//! `"table": {"name": ..., "fields": [...]}` (the shape of `isobench_core::table::Table`),
//! and `"hooks": true` if it has hooks. The host then runs the table itself, and sends
//! the program only what the table leaves to the hooks (see
//! [`isobench_plugin_sdk::hooks`]); a table without hooks is never sent a record.
//!
//! * host: `{"id": N, "method": "hook-import", "left": {...hook keys...}, "record": {...}}`,
//!   the record as the table wrote it without its bulk fields;
//!   program: `{"id": N, "ok": {"record": {...}, "taken": [...], "encodings": {...},
//!   "raw": {...}, "notes": [...]}}` (the record after the hooks, the keys of `left` they
//!   took, what they noted for the round trip) or an `error`.
//! * host: `{"id": N, "method": "hook-export", "record": {...}, "source": {...}}`, the
//!   record without its bulk fields and `extensions.source`, and for a record of this
//!   same format its source block with only the hook keys;
//!   program: `{"id": N, "ok": {"written": {...}, "notes": [...]}}` (the keys the hooks
//!   wrote, in order) or an `error`.
//!
//! Every answer carries the id of its request. stderr is the program's own, for logs.
//! Closing stdin asks the program to exit. A program that exits, writes something that
//! is not an answer, or does not answer within the timeout is reported, and a hung one is
//! killed: the host never waits forever.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use isobench_core::adapter::{AdapterInfo, ExportOptions, ViewAdapter};
use isobench_core::schema::SchemaValidator;
use isobench_core::{CanonicalRecord, Notes, Profile, RecordError, Registered};
use isobench_plugin_sdk::wire::{self, Converted, Manifest, WireError};
use serde_json::{Map, Value, json};

use super::checks::{check_export, check_import};
use super::error::PluginError;
use super::hooks::{self, HookCall};

/// The protocol version.
pub const PROTOCOL: u32 = 2;

/// How long a program may take to answer one request, unless configured.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug)]
struct Running {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<std::io::Result<String>>,
    next_id: u64,
}

/// An adapter served by a running program.
#[derive(Debug)]
pub struct ProgramAdapter {
    info: AdapterInfo,
    schema: Value,
    validator: SchemaValidator,
    command: String,
    timeout: Duration,
    state: Mutex<Option<Running>>,
}

/// Starts `command` (program and arguments) and performs the handshake. A program
/// declared by a table gives a `TableAdapter` (and is stopped at once when it has no
/// hooks), one written by hand a [`ProgramAdapter`].
pub fn start(command: &[String], timeout: Duration) -> Result<Registered, PluginError> {
    start_in(command, timeout, None)
}

/// As [`start`], the program started in `dir` (the configuration's directory for a
/// `[[plugins]]` command) rather than the current one.
pub fn start_in(
    command: &[String],
    timeout: Duration,
    dir: Option<&Path>,
) -> Result<Registered, PluginError> {
    let (adapter, table, has_hooks) = handshake(command, timeout, dir)?;
    let Some(table) = table else {
        return Ok(Registered::new(adapter));
    };
    let origin = adapter.info.origin.clone();
    let shown = adapter.command.clone();
    let table = hooks::table_adapter(table, has_hooks.then_some(adapter), origin).map_err(|e| {
        PluginError::Program {
            command: shown,
            what: format!("declared a field table that is not valid: {e}"),
        }
    })?;
    Ok(table.into())
}

/// The most bytes one line of a program's output may take: an answer holds one record
/// (`--max-record-bytes`), and its notes and envelope get 1 MiB more.
fn answer_bytes() -> u64 {
    crate::input::max_record_bytes().saturating_add(1 << 20)
}

/// The next line of `output` without its line ending, `None` at its end; a line longer than
/// `most` bytes (without its ending) is a protocol break, found once `most + 1` bytes are
/// read, and so is a line that is not UTF-8.
fn answer_line(output: &mut impl BufRead, most: u64) -> io::Result<Option<String>> {
    let mut line = Vec::new();
    if output
        .take(most.saturating_add(1))
        .read_until(b'\n', &mut line)?
        == 0
    {
        return Ok(None);
    }
    if line.last() == Some(&b'\n') {
        line.pop();
        if line.last() == Some(&b'\r') {
            line.pop();
        }
    }
    if line.len() as u64 > most {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "a line longer than {most} bytes, more than the protocol allows (one record, `--max-record-bytes`, and 1 MiB)"
            ),
        ));
    }
    String::from_utf8(line)
        .map(Some)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.utf8_error()))
}

/// Starts `command` and reads its manifest: the adapter, and its table and whether it
/// has hooks, if it is declared by one.
fn handshake(
    command: &[String],
    timeout: Duration,
    dir: Option<&Path>,
) -> Result<(ProgramAdapter, Option<isobench_core::Table>, bool), PluginError> {
    let shown = command.join(" ");
    let Some((program, args)) = command.split_first() else {
        return Err(PluginError::Program {
            command: shown,
            what: "an empty command".into(),
        });
    };
    let mut child = Command::new(program);
    if let Some(dir) = dir {
        child.current_dir(dir);
    }
    let mut child = child
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| PluginError::Program {
            command: shown.clone(),
            what: format!("cannot be started: {e}"),
        })?;
    let stdout = child.stdout.take().expect("stdout was piped");
    let stdin = child.stdin.take();
    let (send, lines) = channel();
    let most = answer_bytes();
    std::thread::spawn(move || {
        let mut stdout = BufReader::new(stdout);
        loop {
            let line = match answer_line(&mut stdout, most) {
                Ok(Some(line)) => Ok(line),
                Ok(None) => break,
                Err(e) => Err(e),
            };
            let end = line.is_err();
            if send.send(line).is_err() || end {
                break;
            }
        }
    });
    let running = Running {
        child,
        stdin,
        lines,
        next_id: 0,
    };
    let mut adapter = ProgramAdapter {
        info: AdapterInfo::new("", &[], ""),
        schema: Value::Null,
        validator: SchemaValidator::new(&json!({})).expect("the empty schema compiles"),
        command: shown.clone(),
        timeout,
        state: Mutex::new(Some(running)),
    };
    // Starting an interpreter can be slow on a busy machine: the handshake gets at least
    // the default timeout.
    adapter.timeout = timeout.max(DEFAULT_TIMEOUT);
    let answer = adapter
        .request("hello", json!({ "protocol": PROTOCOL }))
        .map_err(|e| PluginError::Program {
            command: shown.clone(),
            what: format!("failed the handshake: {}", e.message),
        })?;
    let manifest: Manifest = serde_json::from_value(answer).map_err(|e| PluginError::Program {
        command: shown.clone(),
        what: format!("answered the handshake with an invalid manifest: {e}"),
    })?;
    if !(1..=PROTOCOL).contains(&manifest.abi) || (manifest.abi < 2 && manifest.table.is_some()) {
        return Err(PluginError::Program {
            command: shown,
            what: format!(
                "speaks protocol {}{}, this host speaks 1 to {PROTOCOL}",
                manifest.abi,
                if manifest.table.is_some() {
                    " with a table"
                } else {
                    ""
                }
            ),
        });
    }
    adapter.validator =
        SchemaValidator::new(&manifest.schema).map_err(|e| PluginError::Program {
            command: shown.clone(),
            what: format!("declared a record schema that does not compile: {e}"),
        })?;
    adapter.timeout = timeout;
    adapter.info = manifest.info;
    adapter.info.origin = format!("program {shown}");
    adapter.schema = manifest.schema;
    Ok((adapter, manifest.table, manifest.hooks))
}

impl ProgramAdapter {
    fn fail(&self, what: impl std::fmt::Display) -> RecordError {
        RecordError::invalid("", format!("program plugin `{}` {what}", self.command))
            .with_hint("the program's own messages, if any, are above on stderr")
    }

    /// Sends one request and waits (at most the timeout) for its answer's `ok` value.
    fn request(&self, method: &str, mut body: Value) -> Result<Value, RecordError> {
        let mut guard = self
            .state
            .lock()
            .map_err(|_| self.fail("is unusable after an earlier failure"))?;
        let Some(running) = guard.as_mut() else {
            return Err(self.fail("has stopped after an earlier failure"));
        };
        let id = running.next_id;
        running.next_id += 1;
        body["id"] = id.into();
        body["method"] = method.into();
        let mut line = serde_json::to_vec(&body).map_err(|e| self.fail(e))?;
        line.push(b'\n');
        let sent = running
            .stdin
            .as_mut()
            .map(|stdin| stdin.write_all(&line).and_then(|()| stdin.flush()));
        if !matches!(sent, Some(Ok(()))) {
            let status = stop(guard.take());
            return Err(self.fail(format!("stopped reading its input ({status})")));
        }
        let deadline = Instant::now() + self.timeout;
        let answer = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match running.lines.recv_timeout(left) {
                Ok(Ok(text)) if text.trim().is_empty() => {}
                Ok(Ok(text)) => break text,
                Ok(Err(e)) => {
                    stop(guard.take());
                    return Err(self.fail(format!("wrote unreadable output: {e}")));
                }
                Err(RecvTimeoutError::Timeout) => {
                    stop(guard.take());
                    return Err(self.fail(format!(
                        "did not answer request {id} ({method}) within {} s and was stopped",
                        self.timeout.as_secs_f64()
                    )));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let status = stop(guard.take());
                    return Err(self.fail(format!(
                        "exited before answering request {id} ({method}): {status}"
                    )));
                }
            }
        };
        match decode_answer(&answer, id) {
            Ok(ok) => Ok(ok),
            Err(AnswerError::Refused(e)) => Err(e),
            Err(broken) => {
                stop(guard.take());
                Err(self.fail(broken))
            }
        }
    }

    fn converted(&self, answer: Value) -> Result<Converted, RecordError> {
        serde_json::from_value(answer)
            .map_err(|e| self.fail(format!("sent an answer without `record`/`notes`: {e}")))
    }
}

/// Why an answer line gives no result.
#[derive(Debug)]
pub enum AnswerError {
    /// A well-formed `error` answer: the program refused the record.
    Refused(RecordError),
    /// The line breaks the protocol; the program cannot be trusted further.
    Broken(String),
}

impl std::fmt::Display for AnswerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Refused(e) => write!(f, "refused the record: {}", e.message),
            Self::Broken(what) => f.write_str(what),
        }
    }
}

/// Decodes one answer line of the protocol to request `id`: its `ok` value, the record
/// error it carries, or what breaks the protocol in it.
pub fn decode_answer(line: &str, id: u64) -> Result<Value, AnswerError> {
    let mut answer: Map<String, Value> = serde_json::from_str(line).map_err(|e| {
        let shown: String = line.chars().take(120).collect();
        AnswerError::Broken(format!(
            "wrote a line that is not a JSON object ({e}): `{shown}`"
        ))
    })?;
    if answer.get("id").and_then(Value::as_u64) != Some(id) {
        return Err(AnswerError::Broken(format!(
            "answered request {id} with id {}",
            answer
                .get("id")
                .map_or_else(|| "none".to_owned(), Value::to_string)
        )));
    }
    if let Some(ok) = answer.remove("ok") {
        return Ok(ok);
    }
    if let Some(error) = answer.remove("error") {
        let refusal = serde_json::from_value::<WireError>(error).map_or_else(
            |e| AnswerError::Broken(format!("sent an unreadable error: {e}")),
            |w| AnswerError::Refused(wire::error_from_wire(w)),
        );
        return Err(refusal);
    }
    Err(AnswerError::Broken(format!(
        "answered request {id} with neither `ok` nor `error`"
    )))
}

/// Closes the program's input, gives it a moment to exit, then kills it; says how it ended.
fn stop(running: Option<Running>) -> String {
    let Some(mut running) = running else {
        return "already stopped".into();
    };
    drop(running.stdin.take());
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        match running.child.try_wait() {
            Ok(Some(status)) => return status.to_string(),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            _ => {
                let _ = running.child.kill();
                let _ = running.child.wait();
                return "killed".into();
            }
        }
    }
}

impl Drop for ProgramAdapter {
    fn drop(&mut self) {
        if let Ok(mut guard) = self.state.lock() {
            stop(guard.take());
        }
    }
}

impl HookCall for ProgramAdapter {
    fn call(&self, export: bool, request: &[u8]) -> Result<Vec<u8>, RecordError> {
        let body = serde_json::from_slice(request).map_err(|e| self.fail(e))?;
        let method = if export { "hook-export" } else { "hook-import" };
        let answer = self.request(method, body)?;
        serde_json::to_vec(&answer).map_err(|e| self.fail(e))
    }

    fn broken(&self, what: &str) -> RecordError {
        self.fail(what)
    }
}

impl ViewAdapter for ProgramAdapter {
    fn info(&self) -> &AdapterInfo {
        &self.info
    }

    fn schema(&self, _profile: Profile) -> &Value {
        &self.schema
    }

    fn import(
        &self,
        record: Map<String, Value>,
        notes: &mut Notes,
    ) -> Result<CanonicalRecord, RecordError> {
        let answer = self.request("import", json!({ "record": record }))?;
        let converted = self.converted(answer)?;
        wire::notes_from_wire(converted.notes, notes);
        check_import(&self.info.name, converted.record)
    }

    fn export(
        &self,
        record: &CanonicalRecord,
        options: &ExportOptions,
        notes: &mut Notes,
    ) -> Result<Map<String, Value>, RecordError> {
        let answer = self.request(
            "export",
            json!({ "record": record.to_value(), "profile": options.profile }),
        )?;
        let converted = self.converted(answer)?;
        wire::notes_from_wire(converted.notes, notes);
        check_export(&self.info, Some(&self.validator), converted.record)
    }
}

#[cfg(test)]
mod line_tests {
    use super::answer_line;

    #[test]
    fn lines_up_to_the_bound_are_read_and_a_longer_one_is_refused() {
        let mut output: &[u8] = b"abc\r\nabcd\nabcde\nlast";
        assert_eq!(answer_line(&mut output, 4).unwrap().as_deref(), Some("abc"));
        assert_eq!(
            answer_line(&mut output, 4).unwrap().as_deref(),
            Some("abcd")
        );
        let err = answer_line(&mut output, 4).unwrap_err();
        assert!(err.to_string().contains("longer than 4 bytes"), "{err}");
        let mut output: &[u8] = b"last";
        assert_eq!(
            answer_line(&mut output, 4).unwrap().as_deref(),
            Some("last")
        );
        assert_eq!(answer_line(&mut output, 4).unwrap(), None);
    }
}
