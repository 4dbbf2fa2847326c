//! The input readers on arbitrary bytes: never a panic, and the two readers of the
//! command line (the streaming one of `validate`, the batching one of `convert`, cut at
//! an arbitrary batch size) see the same items with the same line numbers and results,
//! whether the layout is named by the extension or sniffed from the content.
#![no_main]

use std::path::PathBuf;

use cargo_isobench::input::{self, Input, Window};
use libfuzzer_sys::fuzz_target;

/// What a reader saw of one item: its line and its value or error text.
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

fn batched(source: &Input, target: usize) -> Result<Vec<Seen>, String> {
    let mut seen = Vec::new();
    input::read_batches(
        source,
        0,
        target,
        &mut Window::default(),
        &Vec::new,
        |batch| {
            for item in &batch.items {
                let record = match &item.parsed {
                    Some(parsed) => parsed
                        .as_ref()
                        .map(Clone::clone)
                        .map_err(|e| e.message.clone()),
                    None => {
                        input::parse_record(batch.raw(item), item.complete).map_err(|e| e.message)
                    }
                };
                seen.push((item.line, record));
            }
            true
        },
    )
    .map_err(|e| e.to_string())?;
    Ok(seen)
}

fuzz_target!(|data: &[u8]| {
    let Some((&cut, bytes)) = data.split_first() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("isobench-fuzz-reader-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    for name in ["input.jsonl", "input.json", "input"] {
        let path: PathBuf = dir.join(name);
        std::fs::write(&path, bytes).expect("the input is written");
        let source = Input::File(path);
        let a = streamed(&source);
        let b = batched(&source, 1 + usize::from(cut));
        match (&a, &b) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b, "{name}: the readers disagree");
                assert!(
                    a.windows(2).all(|w| w[0].0 < w[1].0),
                    "{name}: lines not increasing"
                );
            }
            (Err(_), Err(_)) => {}
            _ => panic!("{name}: one reader failed, the other not: {a:?} / {b:?}"),
        }
    }
});
