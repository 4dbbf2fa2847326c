//! The benchmark's reference in Rust: a plain single-threaded `serde_json` program
//! doing the job of `bench/py_convert.py` (SWE-bench Verified rows to canonical,
//! lossless), line by line: parse each row into a map, build the canonical record,
//! write it. No validation, no pass-through, one thread; `bench/run.sh` times it beside
//! `cargo isobench convert` and checks its output equal as JSON.
//!
//! `cargo run --release -p cargo-isobench --example serde_json_baseline -- INPUT OUTPUT`

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};

use serde_json::{Map, Value};

const TOP: [&str; 7] = [
    "repo",
    "instance_id",
    "created_at",
    "base_commit",
    "patch",
    "test_patch",
    "version",
];
const EXTENSIONS: [&str; 4] = [
    "problem_statement",
    "hints_text",
    "environment_setup_commit",
    "difficulty",
];
const LISTS: [(&str, &str); 2] = [
    ("FAIL_TO_PASS", "fail_to_pass"),
    ("PASS_TO_PASS", "pass_to_pass"),
];

/// The canonical record of one row, as `bench/py_convert.py` builds it.
fn convert(mut row: Map<String, Value>) -> Result<Map<String, Value>, serde_json::Error> {
    let keys: Vec<Value> = row.keys().cloned().map(Value::String).collect();
    let mut take = |key: &str| row.get_mut(key).map(Value::take).filter(|v| !v.is_null());
    let mut out = Map::new();
    for key in TOP {
        if let Some(value) = take(key) {
            out.insert(key.to_owned(), value);
        }
    }
    let mut extensions = Map::new();
    for key in EXTENSIONS {
        if let Some(value) = take(key) {
            extensions.insert(key.to_owned(), value);
        }
    }
    let mut encodings = Map::new();
    for (key, name) in LISTS {
        let Some(value) = take(key) else { continue };
        let list = match value {
            Value::String(text) => {
                let encoding = if text.contains("\", \"") {
                    "json-spaced"
                } else if text.contains("\",\"") {
                    "json-compact"
                } else {
                    "json"
                };
                encodings.insert(key.to_owned(), encoding.into());
                serde_json::from_str(&text)?
            }
            other => other,
        };
        extensions.insert(name.to_owned(), list);
    }
    let mut source = Map::new();
    source.insert("format".to_owned(), "swe-bench".into());
    source.insert("keys".to_owned(), Value::Array(keys));
    if !encodings.is_empty() {
        source.insert("encodings".to_owned(), Value::Object(encodings));
    }
    extensions.insert("source".to_owned(), Value::Object(source));
    out.insert("extensions".to_owned(), Value::Object(extensions));
    Ok(out)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output] = args.as_slice() else {
        return Err("usage: serde_json_baseline INPUT OUTPUT".into());
    };
    let input = BufReader::with_capacity(1 << 20, File::open(input)?);
    let mut out = BufWriter::with_capacity(1 << 20, File::create(output)?);
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let row: Map<String, Value> = serde_json::from_str(&line)?;
        serde_json::to_writer(&mut out, &convert(row)?)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}
