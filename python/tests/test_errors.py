"""Errors are Python exceptions carrying what the command line says, and where."""

import json

import pyarrow as pa
import pytest

import isobench
from conftest import SAMPLES, read_jsonl


def bad_records():
    records = read_jsonl(SAMPLES / "swe-bench-verified.sample.jsonl")[:3]
    broken = dict(records[1])
    broken["FAIL_TO_PASS"] = "not json ["
    return [records[0], broken, records[2]], broken["instance_id"]


def test_a_bad_record_raises_record_error_with_where_and_the_cli_message(cli, tmp_path):
    records, bad_id = bad_records()
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    done = cli("convert", "--from", "swe-bench", "--to", "canonical", "-i", path,
               "-o", tmp_path / "out.jsonl")
    assert done.returncode == 1
    cli_error = next(l for l in done.stderr.splitlines() if l.startswith("error: "))
    cli_hint = [l[len("hint: "):] for l in done.stderr.splitlines() if l.startswith("hint: ")]

    with pytest.raises(isobench.RecordError) as caught:
        isobench.convert(path, from_="swe-bench", to="canonical", output=tmp_path / "py.jsonl")
    e = caught.value
    assert f"error: {e}" == cli_error
    assert (e.file, e.line, e.instance_id) == (str(path), 2, bad_id)
    assert e.pointer == "/FAIL_TO_PASS"
    assert e.exit_code == 1
    assert [e.hint] == cli_hint or (e.hint is None and cli_hint == [])
    assert not (tmp_path / "py.jsonl").exists(), "nothing is written"

    with pytest.raises(isobench.RecordError) as caught:
        list(isobench.convert_records(records, from_="swe-bench", to="canonical"))
    e = caught.value
    assert (e.file, e.line, e.instance_id, e.pointer) == ("<records>", 2, bad_id, "/FAIL_TO_PASS")
    assert str(e) == cli_error[len("error: "):].replace(str(path), "<records>")

    with pytest.raises(isobench.RecordError) as caught:
        isobench.convert_arrow(pa.Table.from_pylist(records), from_="swe-bench", to="canonical")
    assert (caught.value.line, caught.value.instance_id, caught.value.pointer) == (2, bad_id, "/FAIL_TO_PASS")


def test_usage_errors_carry_the_cli_message_and_hint_in_keywords(cli, tmp_path):
    with pytest.raises(isobench.UnknownFormatError) as caught:
        isobench.convert(SAMPLES / "gso.sample.jsonl", from_="parquet", to="canonical")
    done = cli("convert", "--from", "parquet", "--to", "canonical", "-i", SAMPLES / "gso.sample.jsonl",
               check=False)
    assert f"error: {caught.value}" in done.stderr
    assert caught.value.hint.splitlines()[0] in done.stderr
    assert caught.value.exit_code == done.returncode == 2
    assert "canonical" in caught.value.known

    with pytest.raises(isobench.UsageError) as caught:
        isobench.convert(SAMPLES / "gso.sample.jsonl", from_="gso", to="canonical",
                         on_error="skip")
    # The command line's words, its flags quoted as the keyword arguments they are here.
    assert str(caught.value) == '`on_error="skip"` needs a rejects file when the output is stdout'
    assert caught.value.hint == "add `rejects=PATH`"

    with pytest.raises(isobench.UsageError, match='is only used with `on_error="skip"`'):
        list(isobench.convert_records([{}], from_="gso", to="canonical", rejects=[]))

    with pytest.raises(isobench.UsageError, match='`shard="3/2"` is not `K/N`'):
        isobench.convert(SAMPLES / "gso.sample.jsonl", from_="gso", to="canonical", shard="3/2")


def test_a_missing_input_is_a_read_error(tmp_path):
    missing = tmp_path / "nope.jsonl"
    with pytest.raises(isobench.ReadError) as caught:
        isobench.convert(missing, from_="gso", to="canonical")
    assert caught.value.path == str(missing)
    assert str(caught.value) == f"cannot read `{missing}`: no such file"
    assert caught.value.exit_code == 3


def test_an_existing_output_is_refused(tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_text("keep me\n")
    with pytest.raises(isobench.UsageError, match="already exists"):
        isobench.convert(SAMPLES / "gso.sample.jsonl", from_="gso", to="canonical", output=out)
    assert out.read_text() == "keep me\n"


def test_plugin_and_repository_errors_keep_their_area_type(cli, tmp_path):
    missing = tmp_path / "libnothing.so"
    with pytest.raises(isobench.PluginError) as caught:
        isobench.load_plugin(missing)
    assert isinstance(caught.value, isobench.UsageError), "callers catching UsageError still do"
    assert caught.value.exit_code == 2 and caught.value.hint
    done = cli("convert", "--from", "swe-bench", "--to", "canonical", "-i", tmp_path / "x.jsonl",
               "--plugin", missing, check=False)
    assert done.returncode == 2
    assert f"error: {caught.value}" in done.stderr.splitlines()

    not_a_repo = tmp_path / "plain"
    not_a_repo.mkdir()
    with pytest.raises(isobench.RepositoryError) as caught:
        isobench.mine(not_a_repo, tmp_path / "mined.jsonl")
    assert isinstance(caught.value, isobench.UsageError)
    assert caught.value.exit_code == 2 and caught.value.hint
    done = cli("mine", "--repo", not_a_repo, "-o", tmp_path / "cli.jsonl", check=False)
    assert done.returncode == 2
    assert f"error: {caught.value}" in done.stderr.splitlines()


def test_an_input_that_stops_the_reading_raises_record_error_with_its_file_and_line(cli, tmp_path):
    # A JSON array broken off on its third line: the reading stops there, as the command
    # line says, and the exception tells the file and the line.
    records = read_jsonl(SAMPLES / "swe-bench-verified.sample.jsonl")[:2]
    path = tmp_path / "broken.json"
    path.write_text("[\n" + json.dumps(records[0]) + ",\n" + json.dumps(records[1])[:40] + "\n")
    done = cli("convert", "--from", "swe-bench", "--to", "canonical", "-i", path,
               "-o", tmp_path / "out.jsonl", check=False)
    cli_error = next(l for l in done.stderr.splitlines() if l.startswith("error: "))
    with pytest.raises(isobench.RecordError) as caught:
        isobench.convert(path, from_="swe-bench", to="canonical", output=tmp_path / "py.jsonl")
    e = caught.value
    assert f"error: {e}" == cli_error
    assert "malformed JSON array, after 1 complete record(s)" in str(e)
    assert (e.file, e.line, e.instance_id, e.pointer) == (str(path), 4, None, None)
    assert e.exit_code == done.returncode == 1

    # An empty input: no file or line to tell.
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(isobench.RecordError) as caught:
        isobench.convert(empty, from_="swe-bench", to="canonical", output=tmp_path / "e.jsonl")
    assert str(caught.value) == f"no records in {empty}"
    assert (caught.value.file, caught.value.line) == (None, None)
    assert caught.value.hint == "the input is empty (or only blank lines)"
