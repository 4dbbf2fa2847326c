"""The rejects file of `convert_records` and `convert_arrow` is written as `convert
--rejects` writes one: whole once the conversion completes, nothing when it stops, and
never through a link planted at its path."""

import json

import pytest

import isobench
from conftest import SAMPLES, read_jsonl


def records_with_a_bad_one():
    good = read_jsonl(SAMPLES / "swe-bench-verified.sample.jsonl")
    bad = dict(good[0])
    bad["FAIL_TO_PASS"] = 3
    return [good[0], bad, good[1]]


def test_a_link_at_the_path_is_replaced_and_its_target_kept(tmp_path):
    elsewhere = tmp_path / "elsewhere.jsonl"
    elsewhere.write_text("keep\n")
    link = tmp_path / "rejects.jsonl"
    link.symlink_to(elsewhere)
    written = list(isobench.convert_records(
        records_with_a_bad_one(), from_="swe-bench", to="canonical",
        on_error="skip", rejects=link, overwrite=True))
    assert len(written) == 2
    assert elsewhere.read_text() == "keep\n"
    assert not link.is_symlink()
    rejected = [json.loads(line) for line in link.read_text().splitlines()]
    assert [r["line"] for r in rejected] == [2]


def test_without_overwrite_an_existing_file_is_refused_and_kept(tmp_path):
    existing = tmp_path / "rejects.jsonl"
    existing.write_text("keep\n")
    with pytest.raises(isobench.IsobenchError):
        list(isobench.convert_records(
            records_with_a_bad_one(), from_="swe-bench", to="canonical",
            on_error="skip", rejects=existing))
    assert existing.read_text() == "keep\n"


def test_a_conversion_that_stops_leaves_no_rejects_file(tmp_path):
    rejects = tmp_path / "rejects.jsonl"

    def records():
        yield from records_with_a_bad_one()
        raise RuntimeError("the source failed")

    with pytest.raises(RuntimeError):
        list(isobench.convert_records(
            records(), from_="swe-bench", to="canonical", on_error="skip", rejects=rejects))
    assert sorted(p.name for p in tmp_path.iterdir()) == []
