"""Errors and their hints name the keyword arguments the package takes, not the command
line's flags."""

import pytest

import isobench
from conftest import SAMPLES, read_jsonl


def test_a_refusal_s_remedies_are_keyword_arguments():
    records = read_jsonl(SAMPLES / "swe-bench-verified.sample.jsonl")
    with pytest.raises(isobench.RecordError) as raised:
        list(isobench.convert_records(records, from_="swe-bench", to="swe-smith"))
    hint = raised.value.hint
    assert 'set={"extensions.image_name": VALUE}' in hint, hint
    assert "`allow_incomplete=True`" in hint, hint
    assert "--set" not in hint and "--allow-incomplete" not in hint, hint


def test_a_usage_error_names_the_keyword():
    records = read_jsonl(SAMPLES / "swe-bench-verified.sample.jsonl")
    with pytest.raises(isobench.UsageError) as raised:
        list(isobench.convert_records(
            records, from_="swe-bench", to="gso", set={"extensions.tests": ["t.py"]}))
    said = str(raised.value)
    assert '`set={"extensions.tests": ...}`' in said, said
    assert raised.value.hint == '`set={"efficiency_test": VALUE}`', raised.value.hint
