"""`convert_records` passes the values a conversion only moves (patches, texts, test lists)
as the objects they are: generated records of odd strings, test lists in every encoding,
nulls, extra keys and shuffled key order give what the command line gives for the same
records read as JSON Lines: values, their types, key order, refusals and rejects lines."""

import json
import random

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import isobench
from conftest import REAL, SAMPLES, read_jsonl
from test_direct import cli_records, counted_reader, typed, without_file

PIECES = [
    "", " ", "\n", "plain", "diff --git a/x b/x\n+y\n", "é 中", "\U0001F600\U0001F9EA", "tab\there",
    'q"uote', "back\\slash", "\u2028\u2029", "\x00\x01\x1f\x7f", "a/b", "\\u00e9", '["x", "y"]',
    "   lead", "\r\n", "\ufeff", "test_x[1, 2]", "t::u", "'single'",
]

# Keys each format's records hold strings in, and test lists in.
STRINGS = {
    "swe-bench": ["patch", "test_patch", "problem_statement", "hints_text"],
    "swe-smith": ["patch", "problem_statement"],
    "canonical": ["patch", "test_patch", "gt_commit_message"],
}
LISTS = {
    "swe-bench": ["FAIL_TO_PASS", "PASS_TO_PASS"],
    "swe-smith": ["FAIL_TO_PASS", "PASS_TO_PASS"],
    "canonical": [],
}


class Str(str):
    """A `str` subclass: read as its text, never passed as the object."""


def odd_string(rng):
    if rng.random() < 0.05:
        return rng.choice(["", " ", "\n"])
    text = "".join(rng.choice(PIECES) for _ in range(rng.randrange(1, 5))) + "x"
    if rng.random() < 0.2:
        text += "".join(chr(rng.randrange(0x20, 0x3000)) for _ in range(rng.randrange(1, 6)))
    return text


def odd_list(rng):
    """A test list as records hold one: an array, or a string holding one in either
    style (or as Python writes it), and some that are not lists of strings at all."""
    items = [odd_string(rng) for _ in range(rng.randrange(4))]
    kind = rng.randrange(13)
    if kind <= 2:
        return items
    if kind <= 5:
        return json.dumps(items, ensure_ascii=False)
    if kind == 6:
        return json.dumps(items, ensure_ascii=False, separators=(",", ":"))
    if kind == 7:
        return json.dumps(items)  # `\uXXXX` escapes: no item is written as it is
    if kind == 8:
        return "[" + " ,".join(json.dumps(i) for i in items) + "]"
    if kind == 9:
        return repr(items)
    if kind == 10:
        return tuple(items)
    return rng.choice([items + [1], [None], None, 7, "not a list", {"a": "b"}, Str(json.dumps(items))])


def mutated(rng, template, fmt, n):
    record = dict(template)
    record["instance_id"] = f"{template.get('instance_id', 'x')}-gen{n}"
    for key in STRINGS[fmt]:
        roll = rng.random()
        if roll < 0.85:
            record[key] = odd_string(rng)
        elif roll < 0.88:
            record[key] = None
        elif roll < 0.9:
            record.pop(key, None)
        elif roll < 0.94:
            record[key] = Str(odd_string(rng))
        elif roll < 0.96:
            record[key] = rng.choice([3, 2.5, True, ["a"], {"k": "v"}])
    for key in LISTS[fmt]:
        if fmt == "swe-smith" and rng.random() < 0.8:
            # Its harness takes arrays only.
            record[key] = [odd_string(rng) for _ in range(rng.randrange(1, 4))]
        elif rng.random() < 0.9:
            record[key] = odd_list(rng)
        else:
            record.pop(key, None)
    if fmt == "canonical" and rng.random() < 0.5:
        ext = dict(record.get("extensions") or {})
        ext["problem_statement"] = odd_string(rng)
        ext["fail_to_pass"] = [odd_string(rng) for _ in range(rng.randrange(3))]
        record["extensions"] = ext
    # Extra keys: a canonical record keeps them in `extensions`.
    extra = record if fmt != "canonical" else dict(record.get("extensions") or {})
    for _ in range(rng.randrange(3)):
        extra[f"extra_{rng.randrange(100)}"] = rng.choice(
            [odd_string(rng), None, 0, -1.5, [odd_string(rng)], {"n": {"m": [1, "2"]}}]
        )
    if fmt == "canonical":
        record["extensions"] = extra
    keys = list(record)
    if rng.random() < 0.6:
        rng.shuffle(keys)
    return {k: record[k] for k in keys}


@pytest.fixture(scope="module")
def templates(cli, tmp_path_factory):
    """Records of each source format the generated ones start from: the SWE-bench
    samples, canonical records the command line makes of them, and the real SWE-smith
    records when they are there."""
    found = {"swe-bench": read_jsonl(SAMPLES / "swe-bench-verified.sample.jsonl")}
    made = tmp_path_factory.mktemp("templates") / "canonical.jsonl"
    cli("convert", "--from", "swe-bench", "--to", "canonical", "-i",
        SAMPLES / "swe-bench-verified.sample.jsonl", "-o", made)
    found["canonical"] = read_jsonl(made)
    smith = sorted((REAL / "swesmith").glob("*.jsonl")) if REAL.is_dir() else []
    if smith:
        found["swe-smith"] = read_jsonl(smith[0])
    return found


PAIRS = [
    ("swe-bench", "canonical"),
    ("canonical", "swe-bench"),
    ("swe-smith", "canonical"),
    ("swe-bench", "swe-bench"),
    ("swe-smith", "swe-smith"),
    ("canonical", "canonical"),
]


def both_ways(cli, tmp_path, records, from_, to):
    """`records` converted by the command line and by `convert_records`, bad ones set
    aside: the command line's records and rejects, then `convert_records`'. The records
    are asserted the same, key order and types included."""
    theirs, their_rejects = cli_records(cli, tmp_path, records, from_, to)
    rejected = []
    ours = list(isobench.convert_records(records, from_=from_, to=to, on_error="skip",
                                         rejects=rejected))
    assert len(ours) == len(theirs)
    for n, (a, b) in enumerate(zip(ours, theirs)):
        assert typed(a) == typed(b), f"{from_} -> {to}, output record {n}"
    return theirs, their_rejects, ours, rejected


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0]}-to-{p[1]}")
def test_generated_records_give_the_cli_records(cli, templates, tmp_path, pair, seed):
    from_, to = pair
    if from_ not in templates:
        print(f"skipped: no real {from_} records at {REAL}")
        pytest.skip(f"no real {from_} records at {REAL}")
    rng = random.Random(f"{from_}-{to}-{seed}")
    records = [mutated(rng, rng.choice(templates[from_]), from_, n) for n in range(120)]
    theirs, their_rejects, ours, rejected = both_ways(cli, tmp_path, records, from_, to)
    assert [told(r) for r in rejected] == [told(r) for r in their_rejects]
    assert len(ours) >= 20, f"{from_} -> {to}: too few records converted to tell"
    # The values were passed as the objects they are, not made again (nor converted a
    # second time, whole, as a refused record is).
    given = {id(v) for r in records for v in r.values() if type(v) is str and len(v) > 1}
    passing = [r for r in ours
               if any(id(v) in given for v in [*r.values(), *(r.get("extensions") or {}).values()])]
    assert len(passing) >= len(ours) * 3 // 4, f"{from_} -> {to}: {len(passing)} of {len(ours)}"


def told(reject):
    """A rejects line without the input's name, the record as a record: the command line
    keeps a line's text (`raw`), `convert_records` the record it was given."""
    told = without_file(reject)
    if "raw" in told and "record" not in told:
        try:
            told["record"] = json.loads(told.pop("raw"))
        except ValueError:
            pass
    if "record" in told:
        told["record"] = typed(told["record"])
    return told


def test_a_held_list_is_a_new_list_of_the_same_strings():
    record = dict(read_jsonl(SAMPLES / "swe-bench-verified.sample.jsonl")[0])
    items = ["tests/a.py::b", "é \U0001F600"]
    record["FAIL_TO_PASS"] = items
    out = next(isobench.convert_records([record], from_="swe-bench", to="canonical"))
    got = out["extensions"]["fail_to_pass"]
    assert got == items and got is not items and all(a is b for a, b in zip(got, items))
    assert out["patch"] is record["patch"]


@pytest.mark.parametrize("key", ["patch", "problem_statement", "FAIL_TO_PASS"])
def test_a_string_that_is_not_utf8_is_refused_as_without_holding(key):
    """A lone surrogate cannot be UTF-8: the error is the one of a record read without
    any value held (the strict profile holds none)."""
    record = dict(read_jsonl(SAMPLES / "swe-bench-verified.sample.jsonl")[0])
    record[key] = '["a\ud800"]' if key == "FAIL_TO_PASS" else "x\ud800y"
    errors = []
    for profile in ("lossless", "strict"):
        with pytest.raises(Exception) as caught:
            list(isobench.convert_records([record], from_="swe-bench", to="canonical",
                                          profile=profile))
        errors.append((type(caught.value), str(caught.value)))
    assert errors[0] == errors[1]


KEYS = ["a", "b", "é", "中文", "\U0001F600", "", " ", "k\"q", "back\\slash", "\u2028"]
BIG_INTS = [2**63 - 1, 2**63, 2**64 - 1, -(2**63), -(2**63) - 1, 2**64, 10**20, -(10**25)]
FLOATS = [0.0, -0.0, 0.1, 1e-07, 1.0, 5e-324, 1.7976931348623157e308, 123456789.123,
          -2.5e-300, 1e16, 2.0**53 + 2, 1e22]


def json_value(rng, depth=0):
    """A value of any JSON type: nested objects and arrays, integers of every width
    (beyond 64 bits too, which JSON text reads as a float), floats of every size,
    strings beyond ASCII."""
    kind = rng.randrange(9 if depth < 4 else 7)
    if kind == 0:
        return None
    if kind == 1:
        return rng.random() < 0.5
    if kind == 2:
        return rng.randrange(-10**6, 10**6)
    if kind == 3:
        return rng.choice(BIG_INTS)
    if kind == 4:
        return rng.choice(FLOATS + [rng.uniform(-1e6, 1e6), float(rng.randrange(10**6))])
    if kind in (5, 6):
        return odd_string(rng)
    if kind == 7:
        return [json_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(KEYS) + str(rng.randrange(3)): json_value(rng, depth + 1)
            for _ in range(rng.randrange(4))}


def with_values(rng, template, fmt, n):
    """`template` with values of every type in keys its format leaves to the record
    (extra keys; a canonical record's `extensions`), its key order shuffled."""
    record = mutated(rng, template, fmt, n)
    extra = record if fmt != "canonical" else dict(record.get("extensions") or {})
    for _ in range(rng.randrange(1, 5)):
        extra[rng.choice(KEYS) + "_x"] = json_value(rng)
    if fmt == "canonical":
        record["extensions"] = extra
    return record


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("pair", [("swe-bench", "canonical"), ("canonical", "swe-bench"),
                                  ("canonical", "canonical"), ("swe-bench", "swe-bench")],
                         ids=lambda p: f"{p[0]}-to-{p[1]}")
def test_values_of_every_type_give_the_cli_records(cli, templates, tmp_path, pair, seed):
    from_, to = pair
    rng = random.Random(f"values-{from_}-{to}-{seed}")
    records = [with_values(rng, rng.choice(templates[from_]), from_, n) for n in range(100)]
    theirs, their_rejects, ours, rejected = both_ways(cli, tmp_path, records, from_, to)
    # A rejects line keeps the record as read: the command line's, its text (`raw`);
    # `convert_records`', the record, in which an integer beyond 64 bits was read as JSON
    # text reads it, a float.
    assert [as_read(told(r)) for r in rejected] == [as_read(told(r)) for r in their_rejects]
    assert len(ours) >= 20, f"{from_} -> {to}: too few records converted to tell"


def as_read(told):
    """`told` with each integer beyond 64 bits of its typed record a float."""
    def read(typed):
        kind, value = typed
        if kind == "int" and not -(2**63) <= value < 2**64:
            return ("float", repr(float(value)))
        if kind == "dict":
            return (kind, [(k, read(v)) for k, v in value])
        if kind == "list":
            return (kind, [read(v) for v in value])
        return typed
    return {k: read(v) if k == "record" else v for k, v in told.items()}


def arrow_row(rng, template, n):
    """A SWE-bench row as Hugging Face publishes them, every value a string or null, from
    `template`: odd strings, test lists in every encoding (and texts that are none),
    nulls, now and then no `version` (refused)."""
    row = dict(template)
    row["instance_id"] = f"{template['instance_id']}-gen{n}"
    for key in STRINGS["swe-bench"]:
        row[key] = None if rng.random() < 0.05 else odd_string(rng)
    for key in LISTS["swe-bench"]:
        value = odd_list(rng)
        if value is not None and not isinstance(value, str):
            value = json.dumps(value, ensure_ascii=False)
        row[key] = None if value is None else str(value)
    if rng.random() < 0.05:
        row["version"] = None
    return row


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("to", ["canonical", "swe-bench"])
def test_generated_rows_give_the_cli_table(cli, templates, tmp_path, to, seed):
    """`convert_arrow`, of a table and of a stream of a few rows a batch, holds the values
    that only pass as the command line holds a Parquet file's: the rows give the file
    the command line writes of the same rows, and the same rejects."""
    rng = random.Random(f"arrow-{to}-{seed}")
    rows = [arrow_row(rng, rng.choice(templates["swe-bench"]), n) for n in range(150)]
    schema = pa.schema([(key, pa.string()) for key in rows[0]])
    table = pa.Table.from_pylist(rows, schema=schema)
    source = tmp_path / "in.parquet"
    pq.write_table(table, source, row_group_size=40)
    parquet = tmp_path / "cli.parquet"
    rejects = tmp_path / "cli.rejects.jsonl"
    cli("convert", "--from", "swe-bench", "--to", to, "-i", source, "-o", parquet,
        "--on-error", "skip", "--rejects", rejects, "--overwrite")
    theirs = pq.read_table(parquet)
    their_rejects = [told(r) for r in read_jsonl(rejects)]
    assert theirs.num_rows >= 30 and their_rejects, (theirs.num_rows, len(their_rejects))

    rejected = []
    ours = isobench.convert_arrow(table, from_="swe-bench", to=to, on_error="skip",
                                  rejects=rejected)
    assert ours.schema == theirs.schema and ours.schema.metadata == theirs.schema.metadata
    assert ours.equals(theirs)
    assert [told(r) for r in rejected] == their_rejects

    rejected = []
    streamed = isobench.convert_arrow(counted_reader(table, 7, []), from_="swe-bench", to=to,
                                      on_error="skip", rejects=rejected).read_all()
    assert streamed.select(theirs.column_names).replace_schema_metadata(None).equals(
        theirs.replace_schema_metadata(None))
    assert [told(r) for r in rejected] == their_rejects
