//! The Parquet reader on arbitrary bytes, through the boundary `convert` and `validate`
//! read by (`input::for_each_item` and `input::read_batches` on a `.parquet` input): it
//! gives records, rows it rejects, or a read error, never a panic. A panic inside the
//! decoders below the reader is the reader's to contain (it becomes that file's read
//! error, silently); a panic located in this project's code is still a crash here, since
//! the reader's panic hook hands those on to the fuzzer's. Both readers see the same rows.
#![no_main]

use cargo_isobench::input::{self, Input, Window};
use libfuzzer_sys::fuzz_target;

/// What a reader saw of one row: its number and its record or error text.
type Seen = (u64, Result<serde_json::Value, String>);

fn streamed(source: &Input) -> Result<Vec<Seen>, String> {
    let mut seen = Vec::new();
    input::for_each_item(source, |item| {
        seen.push((item.line, item.record.map_err(|e| e.message)));
        Ok(true)
    })
    .map_err(|e| e.to_string())?;
    Ok(seen)
}

fn batched(source: &Input) -> Result<Vec<Seen>, String> {
    let mut seen = Vec::new();
    input::read_batches(source, 0, 1 << 20, &mut Window::default(), &Vec::new, |batch| {
        for item in batch.items {
            let record = item.parsed.expect("a Parquet row is read whole");
            seen.push((item.line, record.map_err(|e| e.message)));
        }
        true
    })
    .map_err(|e| e.to_string())?;
    Ok(seen)
}

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("isobench-fuzz-parquet-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let path = dir.join("input.parquet");
    std::fs::write(&path, data).expect("the input is written");
    let source = Input::File(path);
    let _ = input::count_items(&source);
    let a = streamed(&source);
    let b = batched(&source);
    if let (Ok(a), Ok(b)) = (&a, &b) {
        assert_eq!(a, b, "the readers disagree");
        assert!(a.windows(2).all(|w| w[0].0 < w[1].0), "rows not increasing");
    }
});
