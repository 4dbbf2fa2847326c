//! The Parquet reader on arbitrary bytes, through the boundary `convert` and `validate`
//! read by (`input::for_each_item` and `input::read_batches` on a `.parquet` input): it
//! gives records, rows it rejects, or a read error, never a panic. A panic inside the
//! decoders below the reader is the reader's to contain (it becomes that file's read
//! error, silently); a panic located in this project's code is still a crash here, since
//! the reader's panic hook hands those on to the fuzzer's. Both readers see the same rows.
//! The batches' rows are also read with a string and a test list held, in every output
//! style, and with the string held as its own bytes: a row read whole is read with
//! values held too, and a string held as its bytes is the string read whole.
//!
//! Its mutator ([`claim_edit`]) edits, half the time, what a file claims rather than its
//! bytes at random: an integer field of a Thrift structure (a page header's sizes, a
//! footer's `num_children`, offsets, row counts) set to a large, negative or shifted value,
//! or a list's length raised. Run under a memory limit (see `fuzz/README.md`), a file
//! whose claims the reader trusts makes the run abort instead of passing.
#![no_main]

mod routes;

use cargo_isobench::input::{self, Input, Routes, Window};
use isobench_core::codec::JsonStyle;
use isobench_core::passthrough::Held;
use libfuzzer_sys::{fuzz_mutator, fuzz_target};
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

/// Values a claim is set to: sizes at and near the limits of `i32`, and small ones.
const CLAIMS: [i64; 8] = [
    i32::MAX as i64,
    1 << 30,
    1 << 24,
    1 << 20,
    -1,
    0,
    i64::MAX,
    15,
];

/// The next varint of `data` from `at`: its value and end.
fn varint(data: &[u8], at: usize) -> Option<(u64, usize)> {
    let mut value = 0u64;
    for (i, &b) in data.get(at..)?.iter().take(10).enumerate() {
        value |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Some((value, at + i + 1));
        }
    }
    None
}

fn push_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Edits one claim of the first `size` bytes of `data` (see the module's doc); the new
/// size, or `None` when no place to edit was found.
fn claim_edit(data: &mut [u8], size: usize, max_size: usize, seed: u32) -> Option<usize> {
    let bytes = &data[..size];
    // Field headers of a short form (delta 1 to 15) of an i32, i64 or list field.
    let places: Vec<usize> = (0..size)
        .filter(|&i| bytes[i] >> 4 != 0 && matches!(bytes[i] & 0x0f, 5 | 6 | 9))
        .collect();
    if places.is_empty() {
        return None;
    }
    let at = places[seed as usize % places.len()];
    let mut edited = bytes[..=at].to_vec();
    let rest = if bytes[at] & 0x0f == 9 {
        // A list: its length raised past its short form.
        let head = *bytes.get(at + 1)?;
        let (_, end) = if head >> 4 == 15 {
            varint(bytes, at + 2)?
        } else {
            (0, at + 2)
        };
        edited.push(0xf0 | (head & 0x0f));
        push_varint(
            &mut edited,
            (CLAIMS[(seed as usize / 7) % CLAIMS.len()] as u64) & 0x7fff_ffff,
        );
        end
    } else {
        let (old, end) = varint(bytes, at + 1)?;
        let old = ((old >> 1) as i64) ^ -((old & 1) as i64);
        let new = match (seed / 7) % 3 {
            0 => CLAIMS[(seed as usize / 21) % CLAIMS.len()],
            1 => old.wrapping_mul(1 << ((seed / 21) % 24)),
            _ => old.wrapping_add(i64::from(seed % 4096) - 2048),
        };
        push_varint(&mut edited, ((new << 1) ^ (new >> 63)) as u64);
        end
    };
    edited.extend_from_slice(&bytes[rest..]);
    edited.truncate(max_size);
    data[..edited.len()].copy_from_slice(&edited);
    Some(edited.len())
}

fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    if seed % 2 == 0
        && let Some(size) = claim_edit(data, size, max_size, seed / 2)
    {
        return size;
    }
    libfuzzer_sys::fuzzer_mutate(data, size, max_size)
});
