"""`convert_records` and `convert_arrow` give the records `cargo isobench convert` gives,
on every pair of built-in formats."""

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import isobench
from conftest import REAL, SAMPLES, read_jsonl

TARGETS = ["canonical", "swe-bench", "swe-smith", "minisandbox", "swe-perf", "gso"]


def sources():
    """(format, path) of a file of each built-in format: samples, a real SWE-smith file
    when present, and canonical and MiniSandbox files made from them (`sources_dir`)."""
    found = [
        ("swe-bench", SAMPLES / "swe-bench-verified.sample.jsonl"),
        ("gso", SAMPLES / "gso.sample.jsonl"),
        ("swe-perf", SAMPLES / "swe-perf.sample.jsonl"),
    ]
    smith = sorted((REAL / "swesmith").glob("*.jsonl")) if REAL.is_dir() else []
    if smith:
        found.append(("swe-smith", smith[0]))
    else:
        print(f"skipped: no real SWE-smith file at {REAL / 'swesmith'}; the pairs from swe-smith use none")
    return found


@pytest.fixture(scope="module")
def files(cli, tmp_path_factory):
    made = tmp_path_factory.mktemp("sources")
    found = sources()
    canonical = made / "canonical.jsonl"
    cli("convert", "--from", "swe-bench", "--to", "canonical", "-i", found[0][1], "-o", canonical)
    found.append(("canonical", canonical))
    mini = made / "minisandbox.jsonl"
    cli("convert", "--from", "swe-bench", "--to", "minisandbox", "-i", found[0][1], "-o", mini,
        "--allow-incomplete")
    assert read_jsonl(mini), "the MiniSandbox source has records"
    found.append(("minisandbox", mini))
    return found


def cli_run(cli, tmp_path, fmt, to, path, ext="jsonl"):
    out = tmp_path / f"cli-{fmt}-{to}.{ext}"
    rejects = tmp_path / f"cli-{fmt}-{to}.rejects.jsonl"
    cli("convert", "--from", fmt, "--to", to, "-i", path, "-o", out,
        "--on-error", "skip", "--rejects", rejects, "--overwrite")
    return out, read_jsonl(rejects)


def where(reject):
    """What a rejects line says of the record, without the input's name and text."""
    return (reject["line"], reject.get("instance_id"), reject["pointer"], reject["error"],
            reject.get("hint"))


@pytest.mark.parametrize("to", TARGETS)
def test_convert_records_gives_the_cli_records(cli, files, tmp_path, to):
    compared = 0
    for fmt, path in files:
        out, cli_rejects = cli_run(cli, tmp_path, fmt, to, path)
        rejected = []
        ours = list(isobench.convert_records(
            read_jsonl(path), from_=fmt, to=to, on_error="skip", rejects=rejected
        ))
        assert ours == read_jsonl(out), f"{fmt} -> {to}"
        assert [where(r) for r in rejected] == [where(r) for r in cli_rejects], f"{fmt} -> {to}"
        for r in rejected:
            assert r["file"] == "<records>" and "record" in r or "raw" in r
        compared += len(ours) + len(rejected)
    assert compared > 0


@pytest.mark.parametrize("to", TARGETS)
def test_convert_arrow_gives_the_cli_table(cli, files, tmp_path, to):
    for fmt, path in files:
        table = pa.Table.from_pylist(read_jsonl(path))
        source = tmp_path / f"{fmt}.parquet"
        pq.write_table(table, source)
        out, cli_rejects = cli_run(cli, tmp_path, fmt, to, source, ext="parquet")
        rejected = []
        ours = isobench.convert_arrow(table, from_=fmt, to=to, on_error="skip", rejects=rejected)
        assert [where(r) for r in rejected] == [where(r) for r in cli_rejects], f"{fmt} -> {to}"
        if not out.exists():
            assert ours.num_rows == 0, f"{fmt} -> {to}: the CLI wrote no file"
            continue
        theirs = pq.read_table(out)
        assert ours.schema == theirs.schema, f"{fmt} -> {to}"
        assert ours.schema.metadata == theirs.schema.metadata, f"{fmt} -> {to}"
        assert ours.equals(theirs), f"{fmt} -> {to}"
        for field in ours.schema:
            assert field.type != pa.null(), f"{fmt} -> {to}: `{field.name}` is null-typed"
        jsonl, _ = cli_run(cli, tmp_path, fmt, to, source)
        assert isobench.table_records(ours) == read_jsonl(jsonl), f"{fmt} -> {to}"


def test_convert_records_streams(files):
    """Records come out before the input ends."""
    fmt, path = files[0]
    records = read_jsonl(path)
    consumed = []

    def feed():
        for r in records * 3:
            consumed.append(r)
            yield r

    converted = isobench.convert_records(feed(), from_=fmt, to="canonical")
    first = next(converted)
    assert first["instance_id"] == records[0]["instance_id"]
    assert len(consumed) < len(records) * 3 or len(records) * 3 <= 1024


def test_set_and_profile_reach_the_conversion(cli, files, tmp_path):
    fmt, path = files[0]
    for profile in ("lossless", "strict"):
        out = tmp_path / f"cli-{profile}.jsonl"
        rejects = tmp_path / f"cli-{profile}.rejects.jsonl"
        cli("convert", "--from", fmt, "--to", "canonical", "-i", path, "-o", out,
            "--set", 'version="9.9"', "--set", "extensions.image_name=img-{instance_id:lower}",
            "--profile", profile, "--on-error", "skip", "--rejects", rejects)
        rejected = []
        ours = list(isobench.convert_records(
            read_jsonl(path), from_=fmt, to="canonical", profile=profile,
            set={"version": "9.9", "extensions.image_name": "img-{instance_id:lower}"},
            on_error="skip", rejects=rejected,
        ))
        assert ours == read_jsonl(out), profile
        assert [where(r) for r in rejected] == [where(r) for r in read_jsonl(rejects)], profile
        # Lossless writes every sample record; strict refuses those canonical v1 cannot hold.
        assert ours if profile == "lossless" else ours or rejected, profile
        sources = {r["instance_id"]: r for r in read_jsonl(path)}
        for r in ours:
            # `set` fills only what a record lacks: the samples' own versions are kept.
            assert r["version"] == sources[r["instance_id"]]["version"] != "9.9"
            assert r["extensions"]["image_name"] == "img-" + r["instance_id"].lower()


def test_replace_reaches_records_and_arrow_conversions(cli, files, tmp_path):
    """`replace` writes over the records' own values in `convert_records` and
    `convert_arrow` as `--replace` does, keeping the old ones."""
    import pyarrow as pa

    fmt, path = files[0]
    out = tmp_path / "cli.jsonl"
    cli("convert", "--from", fmt, "--to", "canonical", "-i", path, "-o", out,
        "--replace", 'version="9.9"')
    theirs = read_jsonl(out)
    ours = list(isobench.convert_records(
        read_jsonl(path), from_=fmt, to="canonical", replace={"version": "9.9"}))
    assert ours == theirs
    sources = {r["instance_id"]: r for r in read_jsonl(path)}
    for r in ours:
        assert r["version"] == "9.9"
        replaced = r["extensions"]["source"]["replaced"]
        assert replaced["version"] == sources[r["instance_id"]]["version"]
    table = pa.Table.from_pylist(read_jsonl(path))
    arrow = isobench.convert_arrow(table, from_=fmt, to="canonical", replace={"version": "9.9"})
    assert arrow.column("version").to_pylist() == ["9.9"] * len(ours)
