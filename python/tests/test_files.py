"""`isobench.convert` on files writes what `cargo isobench convert` writes, byte for byte."""

import json
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

import isobench
from conftest import SAMPLES, real_files

FILES = real_files()


@pytest.mark.parametrize("fmt,path", FILES)
@pytest.mark.parametrize("ext", ["jsonl", "parquet"])
def test_real_file_converts_as_the_cli_does(cli, tmp_path, fmt, path, ext):
    theirs = tmp_path / f"cli.{ext}"
    ours = tmp_path / f"py.{ext}"
    rejects_cli = tmp_path / "cli.rejects.jsonl"
    rejects_py = tmp_path / "py.rejects.jsonl"
    cli_report = tmp_path / "cli.report.json"
    cli(
        "convert", "--from", fmt, "--to", "canonical", "-i", path, "-o", theirs,
        "--on-error", "skip", "--rejects", rejects_cli, "--report", cli_report,
    )
    report = isobench.convert(
        [path], from_=fmt, to="canonical", output=ours, on_error="skip", rejects=rejects_py
    )
    assert ours.read_bytes() == theirs.read_bytes()
    assert rejects_py.read_bytes() == rejects_cli.read_bytes()
    expected = json.loads(cli_report.read_text())
    assert expected.pop("output") == str(theirs)
    assert report.pop("output") == str(ours)
    assert report == expected
    assert report["read"] > 0


@pytest.mark.parametrize("fmt,path", FILES)
def test_real_file_round_trips_through_its_own_format(cli, tmp_path, fmt, path):
    """`--to` the file's own format, from the canonical records: the published bytes."""
    canonical = tmp_path / "canonical.jsonl"
    isobench.convert([path], from_=fmt, to="canonical", output=canonical, on_error="skip",
                     rejects=tmp_path / "r1.jsonl")
    ours = tmp_path / "py.jsonl"
    theirs = tmp_path / "cli.jsonl"
    cli("convert", "--from", "canonical", "--to", fmt, "-i", canonical, "-o", theirs,
        "--on-error", "skip", "--rejects", tmp_path / "r2.jsonl")
    isobench.convert(canonical, from_="canonical", to=fmt, output=ours, on_error="skip",
                     rejects=tmp_path / "r3.jsonl")
    assert ours.read_bytes() == theirs.read_bytes()


def test_samples_convert_as_the_cli_does(cli, tmp_path):
    for path, fmt in [
        (SAMPLES / "swe-bench-verified.sample.jsonl", "swe-bench"),
        (SAMPLES / "gso.sample.jsonl", "gso"),
        (SAMPLES / "swe-perf.sample.jsonl", "swe-perf"),
    ]:
        theirs, ours = tmp_path / f"{fmt}.cli.jsonl", tmp_path / f"{fmt}.py.jsonl"
        cli("convert", "--from", fmt, "--to", "canonical", "-i", path, "-o", theirs)
        isobench.convert(path, from_=fmt, to="canonical", output=ours)
        assert ours.read_bytes() == theirs.read_bytes(), path.name


def test_shard_and_limit_follow_the_cli(cli, tmp_path):
    path = SAMPLES / "swe-bench-verified.sample.jsonl"
    for k in (1, 2, 3):
        theirs, ours = tmp_path / f"cli{k}.jsonl", tmp_path / f"py{k}.jsonl"
        cli("convert", "--from", "swe-bench", "--to", "canonical", "-i", path, "-o", theirs,
            "--shard", f"{k}/3")
        isobench.convert(path, from_="swe-bench", to="canonical", output=ours, shard=f"{k}/3")
        assert ours.read_bytes() == theirs.read_bytes()


def test_adapters_lists_what_the_cli_lists(cli):
    listed = json.loads(cli("adapters", "--json").stdout)
    assert isobench.adapters() == listed
    names = {a["name"] for a in isobench.adapters()}
    assert {"canonical", "swe-bench", "swe-smith", "swe-perf", "gso", "minisandbox",
            "multi-swe-bench"} <= names


def test_validate_finds_what_the_cli_finds(cli):
    path = SAMPLES / "swe-bench-verified.sample.jsonl"
    good = isobench.validate(path, format="swe-bench")
    assert good["records"] > 0 and good["problems"] == []
    done = cli("validate", "--format", "gso", "-i", path)
    found = isobench.validate(path, format="gso")
    assert found["problems"], "swe-bench records are not GSO records"
    # The command line lists the first problems, then says how many more there are.
    shown = done.stdout.splitlines() + done.stderr.splitlines()
    listed = [line for line in shown if line.startswith(str(path))]
    assert listed and len(listed) <= len(found["problems"])
    more = len(found["problems"]) - len(listed)
    assert more == 0 or f"... and {more} more problem(s), not shown" in shown
    for problem, line in zip(found["problems"], listed):
        at = f"{problem['file']}:{problem['line']}:"
        if problem["instance_id"]:
            at += f" record `{problem['instance_id']}`:"
        if problem["pointer"]:
            at += f" `{problem['pointer']}`:"
        assert line == f"{at} {problem['message']}"


def test_a_declared_adapter_loads_and_converts_as_the_cli_does(cli, tmp_path):
    """In a process of its own: what a process loads stays loaded for its later calls."""
    table = SAMPLES.parent / "adapters" / "swe-bench-extra.toml"
    sample = SAMPLES / "swe-bench-extra.sample.jsonl"
    theirs, ours = tmp_path / "cli.jsonl", tmp_path / "py.jsonl"
    cli("convert", "--adapter", table, "--from", "swe-bench-extra", "--to", "canonical",
        "-i", sample, "-o", theirs)
    script = f"""
import isobench, pytest
assert isobench.load_adapter({str(table)!r}) == ["swe-bench-extra"]
isobench.convert({str(sample)!r}, from_="swe-bench-extra", to="canonical", output={str(ours)!r})
# A second load of the same format is refused, and changes nothing.
with pytest.raises(isobench.UsageError, match="swe-bench-extra"):
    isobench.load_adapter({str(table)!r})
assert [a["name"] for a in isobench.adapters()].count("swe-bench-extra") == 1
"""
    subprocess.run([sys.executable, "-c", script], check=True)
    assert ours.read_bytes() == theirs.read_bytes()


@pytest.mark.parametrize("codec,written", [
    ("snappy", "SNAPPY"), ("zstd:3", "ZSTD"), ("gzip", "GZIP"), ("lz4", "LZ4"), ("none", "UNCOMPRESSED"),
])
def test_parquet_compression_is_the_flags(cli, tmp_path, codec, written):
    source = SAMPLES / "swe-bench-verified.sample.jsonl"
    theirs, ours = tmp_path / "cli.parquet", tmp_path / "py.parquet"
    cli("convert", "--from", "swe-bench", "--to", "canonical", "-i", source, "-o", theirs,
        "--parquet-compression", codec)
    isobench.convert(source, from_="swe-bench", to="canonical", output=ours,
                     parquet_compression=codec)
    assert ours.read_bytes() == theirs.read_bytes()
    metadata = pq.ParquetFile(ours).metadata
    codecs = {metadata.row_group(0).column(i).compression for i in range(metadata.num_columns)}
    assert codecs == {written}  # pyarrow names LZ4_RAW `LZ4`


def test_a_bad_parquet_compression_is_a_usage_error(tmp_path):
    source = SAMPLES / "swe-bench-verified.sample.jsonl"
    with pytest.raises(isobench.UsageError, match=r'`parquet_compression="zstd:23"` is not one of'):
        isobench.convert(source, from_="swe-bench", to="canonical",
                         output=tmp_path / "out.parquet", parquet_compression="zstd:23")
    with pytest.raises(isobench.UsageError, match=r"applies to a Parquet output only"):
        isobench.convert(source, from_="swe-bench", to="canonical",
                         output=tmp_path / "out.jsonl", parquet_compression="snappy")
    assert not (tmp_path / "out.parquet").exists() and not (tmp_path / "out.jsonl").exists()
