//! Every exit code `docs/exit-codes.md` documents comes out of the binary, each from the
//! kinds of error that are to give it: the codes are read from the page, so a code
//! documented and never given (or given and not documented) fails here.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use common::{TestContext, WORKSPACE, stderr};

/// The codes of the page's table (`| N | meaning |`).
fn documented() -> BTreeSet<i32> {
    let page = std::fs::read_to_string(Path::new(WORKSPACE).join("docs/exit-codes.md")).unwrap();
    page.lines()
        .filter_map(|line| line.strip_prefix("| "))
        .filter_map(|rest| rest.split(" |").next()?.trim().parse().ok())
        .collect()
}

#[test]
fn every_documented_exit_code_comes_out() {
    let ctx = TestContext::new();
    let sample = Path::new(WORKSPACE).join("examples/data/swe-bench-verified.sample.jsonl");
    ctx.copy(&sample, "in.jsonl");
    let record = ctx.read("in.jsonl").lines().next().unwrap().to_owned();
    ctx.write("one.jsonl", format!("{record}\n"));
    ctx.write(
        "bad.jsonl",
        format!("{record}\n{{\"instance_id\": 1}}\nnot json\n"),
    );
    ctx.write("empty.jsonl", "");
    ctx.write("twice.jsonl", format!("{record}\n{record}\n"));
    ctx.write("exists.jsonl", "");
    ctx.write("not-a-plugin.so", "not a library");
    std::fs::create_dir(ctx.path("not-a-repo")).unwrap();
    let convert = |rest: &[&str]| {
        let mut args = vec!["convert", "--from", "swe-bench", "--to", "canonical"];
        args.extend_from_slice(rest);
        args.into_iter().map(str::to_owned).collect::<Vec<_>>()
    };
    let words = |text: &str| text.split(' ').map(str::to_owned).collect::<Vec<_>>();
    let cases: Vec<(&str, i32, Vec<String>)> = vec![
        (
            "every record converted",
            0,
            convert(&["-i", "in.jsonl", "-o", "out.jsonl"]),
        ),
        (
            "every record valid",
            0,
            words("validate --format swe-bench in.jsonl"),
        ),
        ("diff: the same records", 0, words("diff in.jsonl in.jsonl")),
        (
            "a record rejected",
            1,
            convert(&["-i", "bad.jsonl", "-o", "b.jsonl", "--on-error", "skip"]),
        ),
        (
            "a record stops the run",
            1,
            convert(&["-i", "bad.jsonl", "-o", "c.jsonl"]),
        ),
        (
            "an input holds none",
            1,
            convert(&["-i", "empty.jsonl", "-o", "e.jsonl"]),
        ),
        (
            "records invalid",
            1,
            words("validate --format swe-bench bad.jsonl"),
        ),
        ("diff: they differ", 1, words("diff in.jsonl one.jsonl")),
        ("a flag clap refuses", 2, words("convert --frm x")),
        (
            "an unknown format",
            2,
            words("convert --from nope --to canonical -i in.jsonl"),
        ),
        (
            "a plan error",
            2,
            convert(&["-i", "in.jsonl", "--rejects", "r.jsonl"]),
        ),
        (
            "an output error",
            2,
            convert(&["-i", "in.jsonl", "-o", "exists.jsonl"]),
        ),
        ("an input error", 2, convert(&["-i", "hf:a/b@"])),
        (
            "a plugin error",
            2,
            words("--plugin not-a-plugin.so adapters"),
        ),
        (
            "a repository error",
            2,
            words("mine --repo not-a-repo --head HEAD"),
        ),
        ("a mining request", 2, words("mine --repo not-a-repo")),
        ("a diff usage error", 2, words("diff - -")),
        (
            "an input unreadable",
            3,
            convert(&["-i", "missing.jsonl", "-o", "m.jsonl"]),
        ),
        (
            "an output unwritable",
            3,
            convert(&["-i", "in.jsonl", "-o", "no-dir/out.jsonl"]),
        ),
        (
            "diff: an id repeated",
            4,
            words("diff --from swe-bench in.jsonl twice.jsonl"),
        ),
    ];
    let mut given = BTreeSet::new();
    for (what, code, args) in &cases {
        let out = ctx.run(args);
        assert_eq!(
            out.status.code(),
            Some(*code),
            "{what}: `{}`\n{}",
            args.join(" "),
            stderr(&out)
        );
        if *code >= 2 {
            assert!(
                stderr(&out).starts_with("error: "),
                "{what}: {}",
                stderr(&out)
            );
        }
        given.insert(*code);
    }
    assert_eq!(
        given,
        documented(),
        "the codes given are the codes documented"
    );
}
