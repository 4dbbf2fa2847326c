//! The Parquet reader on arbitrary bytes, through the boundary `convert` and `validate`
//! read by (`input::for_each_item` and `input::read_batches` on a `.parquet` input): it
//! gives records, rows it rejects, or a read error, never a panic. A panic inside the
//! decoders below the reader is the reader's to contain (it becomes that file's read
//! error, silently); a panic located in this project's code is still a crash here, since
//! the reader's panic hook hands those on to the fuzzer's. Both readers see the same rows.
//! The batches' rows are also read with a string and a test list held, in every output
//! style, and with the string held as its own bytes: a row read whole is read with
//! values held too, and a string held as its bytes is the string read whole.
#![no_main]

mod routes;

use cargo_isobench::input::{self, Input, Routes, Window};
use isobench_core::codec::JsonStyle;
use isobench_core::passthrough::Held;
use libfuzzer_sys::fuzz_target;
use routes::ROUTES;

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
    let mut failed = None;
    let mut held = Held::default();
    input::read_batches(
        source,
        0,
        1 << 20,
        &mut Window::default(),
        &Vec::new,
        |batch| {
            let arrow = batch
                .arrow
                .expect("a Parquet file's rows come as Arrow rows");
            let whole = arrow.reading(Routes::NONE);
            for (k, item) in batch.items.into_iter().enumerate() {
                let record = match whole.whole(k) {
                    Ok(record) => record,
                    Err(e) => {
                        failed = Some(e.to_string());
                        return false;
                    }
                };
                for style in JsonStyle::ALL {
                    let holding = arrow.reading(Routes {
                        routes: &ROUTES,
                        style,
                    });
                    match (&record, holding.holding(k, &mut held)) {
                        (Ok(_), Ok(Ok(_))) | (Err(_), _) => {}
                        (Ok(_), other) => panic!("a row read whole is not read holding: {other:?}"),
                    }
                }
                // Held as its own bytes (for a Parquet output), a string is the string
                // read whole, and is not left in the row.
                let raw = arrow
                    .reading(Routes {
                        routes: &ROUTES,
                        style: JsonStyle::Compact,
                    })
                    .holding_raw_strings(vec![true; ROUTES.len()]);
                match (&record, raw.holding(k, &mut held)) {
                    (Ok(whole), Ok(Ok(rest))) => {
                        if held.is_raw(0) {
                            let text = held.text(&[], 0).expect("a string held as its bytes");
                            let string = whole.get("patch").and_then(serde_json::Value::as_str);
                            assert_eq!(
                                string.map(str::as_bytes),
                                Some(text),
                                "a held string differs"
                            );
                            assert!(
                                rest.get("patch").is_none(),
                                "a held string is left in the row"
                            );
                        }
                    }
                    (Err(_), _) => {}
                    (Ok(_), other) => {
                        panic!("a row read whole is not read holding its bytes: {other:?}")
                    }
                }
                seen.push((item.line, record.map_err(|e| e.message)));
            }
            true
        },
    )
    .map_err(|e| e.to_string())?;
    failed.map_or(Ok(seen), Err)
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
