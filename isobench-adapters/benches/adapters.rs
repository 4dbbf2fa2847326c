//! Import + export of one record, for each built-in adapter.
//!
//! The SWE-bench record is the first sample record of `examples/data`; the SWE-smith,
//! `MiniSandbox` and canonical records are its exports; the SWE-Perf and GSO records are
//! built here in their published shapes. Run with `cargo bench -p isobench-adapters`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use isobench_core::adapter::ExportOptions;
use isobench_core::{Notes, Registry};
use serde_json::{Map, Value, json};

fn swe_bench_record() -> Map<String, Value> {
    let text = include_str!("../../examples/data/swe-bench-verified.sample.jsonl");
    serde_json::from_str(text.lines().next().expect("the sample has records"))
        .expect("the sample is JSON")
}

fn swe_perf_record() -> Map<String, Value> {
    let tests = [
        "tests/test_sort.py::test_large",
        "tests/test_sort.py::test_nearly_sorted",
    ];
    let runs: Vec<Value> = (0..20)
        .map(|i| {
            let jitter = f64::from(i) * 0.001;
            json!({ tests[0]: {"base": 1.2 + jitter, "head": 0.61 + jitter}, tests[1]: {"base": 0.8 + jitter, "head": 0.52 + jitter} })
        })
        .collect();
    let mut record = swe_bench_record();
    record.retain(|k, _| {
        [
            "repo",
            "instance_id",
            "patch",
            "test_patch",
            "base_commit",
            "created_at",
            "version",
        ]
        .contains(&k.as_str())
    });
    let rest = json!({
        "head_commit": "0f40557af6141ced118b81f2a04e651a0c6c9dbd",
        "duration_changes": isobench_core::codec::JsonStyle::Spaced.to_string(&runs),
        "efficiency_test": tests,
        "patch_functions": "{\"fastsort/core.py\": [\"merge\"]}",
        "problem_statement_oracle": "Please enhance the computational efficiency of merge.",
        "test_functions": "{\"tests/test_sort.py\": [\"test_large\"]}",
        "problem_statement_realistic": "Make sorting faster.",
        "human_performance": 0.31,
    });
    record.extend(rest.as_object().expect("an object").clone());
    record
}

fn gso_record() -> Map<String, Value> {
    let script = "import timeit\n\ndef run_test(eqcheck=False, reference=False, file_prefix=''):\n    t = timeit.timeit(lambda: sorted(range(10**5)), number=5)\n    print(f'Execution time: {t:.6f}s')\n";
    let patch = swe_bench_record()["patch"]
        .as_str()
        .expect("a string")
        .to_owned();
    json!({
        "instance_id": "octo-labs__fastsort-0f40557", "repo": "octo-labs/fastsort",
        "base_commit": "0f40557af6141ced118b81f2a04e651a0c6c9dbd^",
        "opt_commit": "0f40557af6141ced118b81f2a04e651a0c6c9dbd", "api": "fastsort.merge",
        "prob_script": "import timeit\n", "tests": [script, script], "hints_text": "Speed up merge (#412)",
        "setup_commands": ["apt-get update"], "install_commands": ["uv venv --python 3.9", "uv pip install -e ."],
        "created_at": "2024-02-11 09:30:12", "gt_commit_message": "Speed up merge (#412)", "gt_diff": patch,
        "arch": "x86_64", "instance_image_tag": "latest"
    })
    .as_object()
    .expect("an object")
    .clone()
}

fn bench(c: &mut Criterion) {
    isobench_adapters::link();
    let registry = Registry::builtin();
    let options = ExportOptions::default();
    let export_to = |format: &str, record: &Map<String, Value>| {
        let from = registry.get("swe-bench").expect("built in");
        let canonical = from
            .import(record.clone(), &mut Notes::new())
            .expect("the sample imports");
        registry
            .get(format)
            .expect("built in")
            .export(&canonical, &options, &mut Notes::new())
            .expect("exports")
    };
    let swe_bench = swe_bench_record();
    let records = [
        ("swe-bench", swe_bench.clone()),
        ("canonical", export_to("canonical", &swe_bench)),
        ("swe-smith", export_to("swe-smith", &swe_bench)),
        ("minisandbox", export_to("minisandbox", &swe_bench)),
        ("swe-perf", swe_perf_record()),
        ("gso", gso_record()),
    ];
    let mut group = c.benchmark_group("import+export");
    for (format, record) in records {
        let adapter = registry.get(format).expect("built in");
        let bytes = serde_json::to_vec(&record).expect("serialises").len();
        group.throughput(Throughput::Bytes(bytes as u64));
        group.bench_function(format, |b| {
            b.iter(|| {
                let mut notes = Notes::new();
                let canonical = adapter
                    .import(black_box(record.clone()), &mut notes)
                    .expect("imports");
                black_box(
                    adapter
                        .export(&canonical, &options, &mut notes)
                        .expect("exports"),
                )
            });
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
