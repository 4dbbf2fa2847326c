//! The timing-log parsers (`Execution time:` lines, `pytest --durations`, pytest-json-report)
//! on arbitrary text: never a panic, and every sample they give is a finite, non-negative
//! number of seconds.
#![no_main]

use isobench_core::timing_logs::{self, LogSamples, SideSamples};
use libfuzzer_sys::fuzz_target;

fn check(seconds: f64, text: &str) {
    assert!(
        seconds.is_finite() && seconds >= 0.0,
        "sample {seconds} from {text:?}"
    );
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for seconds in timing_logs::execution_times(text) {
        check(seconds, text);
    }
    for (_, seconds) in timing_logs::pytest_durations(text) {
        check(seconds, text);
    }
    let Ok((_, samples)) = timing_logs::parse_log(text) else {
        return;
    };
    let mut side = SideSamples::default();
    match &samples {
        LogSamples::Unnamed(values) => {
            assert!(!values.is_empty());
            values.iter().for_each(|&s| check(s, text));
            assert!(timing_logs::add_samples(&mut side, &samples, None, 0).is_err());
        }
        LogSamples::Named(pairs) => {
            assert!(!pairs.is_empty());
            pairs.iter().for_each(|&(_, s)| check(s, text));
        }
    }
    timing_logs::add_samples(&mut side, &samples, Some("t"), 1).expect("a test is named");
    let tests: Vec<String> = side.tests().map(str::to_owned).collect();
    let timings =
        timing_logs::match_tests(&tests, &side, &side).expect("both sides have every test");
    assert_eq!(timings.len(), tests.len());
});
