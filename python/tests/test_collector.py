"""`convert_records` keeps the cycle collector from running while a chunk of records is
converted, and gives the collector back in the state it found it, after a call that
returns and after one that raises; test lists held as strings are split as the command
line reads them."""

import gc
import json

import pytest

import isobench
from conftest import SAMPLES, read_jsonl
from test_held import both_ways, told

RECORDS = SAMPLES / "swe-bench-verified.sample.jsonl"


@pytest.fixture
def watched(monkeypatch):
    """Each chunk `convert_records` hands to Rust, with the collector's state during the
    call: `(chunk size, enabled)`."""
    seen = []
    real = isobench._isobench.RecordConverter

    class Watched:
        def __init__(self, *args):
            self.inner = real(*args)

        def records(self, chunk):
            seen.append((len(chunk), gc.isenabled()))
            return self.inner.records(chunk)

    monkeypatch.setattr(isobench._isobench, "RecordConverter", Watched)
    return seen


@pytest.fixture
def collector():
    """The collector's state is the test's to set; it is put back after."""
    enabled = gc.isenabled()
    yield
    if enabled:
        gc.enable()
    else:
        gc.disable()


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_off_during_each_chunk_and_as_it_was_after(watched, collector, enabled):
    records = read_jsonl(RECORDS)
    many = [dict(records[n % len(records)], instance_id=f"x__y-{n}") for n in range(2500)]
    gc.enable() if enabled else gc.disable()
    states = []
    for _ in isobench.convert_records(many, from_="swe-bench", to="canonical"):
        # Between chunks, while the caller runs, the collector is the caller's.
        states.append(gc.isenabled())
    assert [size for size, _ in watched] == [1024, 1024, 452]
    assert [on for _, on in watched] == [False] * 3
    assert states == [enabled] * 2500
    assert gc.isenabled() is enabled


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_as_it_was_after_a_failing_call(watched, collector, enabled):
    records = read_jsonl(RECORDS)[:3]
    broken = dict(records[1], FAIL_TO_PASS="not json [")
    gc.enable() if enabled else gc.disable()
    with pytest.raises(isobench.RecordError) as caught:
        list(isobench.convert_records([records[0], broken, records[2]], from_="swe-bench",
                                      to="canonical"))
    assert (caught.value.line, caught.value.pointer) == (2, "/FAIL_TO_PASS")
    assert watched == [(3, False)]
    assert gc.isenabled() is enabled


def test_rejected_records_are_reported_with_the_collector_restored(cli, tmp_path, collector):
    records = read_jsonl(RECORDS)[:3]
    records[2] = dict(records[2], FAIL_TO_PASS="not json [")
    gc.enable()
    theirs, their_rejects, ours, rejected = both_ways(cli, tmp_path, records, "swe-bench",
                                                      "canonical")
    assert len(ours) == 2 and len(rejected) == 1
    assert [r["line"] for r in rejected] == [r["line"] for r in their_rejects] == [3]
    assert [told(r) for r in rejected] == [told(r) for r in their_rejects]
    assert gc.isenabled()


# Test lists held as strings: the style, the items' contents and where a list is not
# one the writer writes (then read as without holding).
TEXTS = [
    "[]",
    '[""]',
    '["a"]',
    '["", ""]',
    '["a", "b", "c"]',
    '["a","b","c"]',
    '["a", "b","c"]',
    '["a" ,"b"]',
    '[ "a"]',
    '["a"] ',
    '["x[1, 2]", "y, z", "[", "]", "\\"", ","]',
    '["q\\"uote", "back\\\\slash"]',
    '["tab\\there", "\\u00e9"]',
    '["é 中", "\U0001F600", "a/b"]',
    '["\x7f", "del"]',
    '["a", "b\x01"]',
    '["a", "b"]]',
    '[["a"], "b"]',
    "['a', 'b']",
    '["a", ""]',
    '["", "a"]',
    '["a"", "b"]',
]


@pytest.mark.parametrize("key", ["FAIL_TO_PASS", "PASS_TO_PASS"])
def test_test_lists_held_as_strings_give_the_cli_records(cli, tmp_path, key):
    template = read_jsonl(RECORDS)[0]
    records = [dict(template, instance_id=f"x__y-{n}", **{key: text})
               for n, text in enumerate(TEXTS)]
    theirs, their_rejects, ours, rejected = both_ways(cli, tmp_path, records, "swe-bench",
                                                      "canonical")
    assert [told(r) for r in rejected] == [told(r) for r in their_rejects]
    assert len(ours) + len(rejected) == len(TEXTS)
    # Those the writer writes are lists, at least; the rest the command line tells.
    lists = {n for n, text in enumerate(TEXTS) if text.startswith('["') and "\\" not in text
             and text.isascii()}
    for out in ours:
        if int(out["instance_id"].rsplit("-", 1)[1]) in lists:
            assert type(out["extensions"][key.lower()]) is list
