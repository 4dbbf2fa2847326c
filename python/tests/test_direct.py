"""Records read from Python objects directly, and Arrow streams converted batch by batch,
give what the command line gives on the same records: values, key order, number types,
refusals and rejects lines."""

import datetime
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import isobench
from conftest import SAMPLES, read_jsonl


def typed(value):
    """A value with the type of every part, keys in order: equal only when the values,
    their types and the order of their keys are."""
    if isinstance(value, dict):
        return ("dict", [(k, typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [typed(v) for v in value])
    if isinstance(value, float):
        return ("float", repr(value))
    return (type(value).__name__, value)


def cli_records(cli, tmp_path, records, from_, to, name="in"):
    """The command line on `records` written as `json.dumps(record, ensure_ascii=False)`
    lines: (records written, rejects lines)."""
    source = tmp_path / f"{name}.jsonl"
    with open(source, "w", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
    out = tmp_path / f"{name}.out.jsonl"
    rejects = tmp_path / f"{name}.rejects.jsonl"
    cli("convert", "--from", from_, "--to", to, "-i", source, "-o", out,
        "--on-error", "skip", "--rejects", rejects, "--overwrite")
    written = read_jsonl(out) if out.exists() else []
    return written, read_jsonl(rejects)


def without_file(reject):
    return {k: v for k, v in reject.items() if k != "file"}


def canonical_record():
    return {
        "repo": "octo/widgets",
        "instance_id": "octo__widgets-1",
        "base_commit": "0" * 40,
        "patch": "diff --git a/x b/x\n",
        "test_patch": "diff --git a/t b/t\n",
        "version": "1.0",
        "created_at": "2024-01-02T03:04:05Z",
        # Out of alphabetical order, nested, every JSON type, floats that print short.
        "extensions": {
            "zeta": {"b": [0.1, 1e-07, 1.0, -0.0, 123456789.123, 5e300], "a": None},
            "alpha": [True, False, 0, -1, 2**63 - 1, 2**64 - 1, -(2**63), "é \u2028 \U0001F600"],
            "mid": {"nested": {"deeper": [{"k": 3.14159}, [], {}]}},
        },
    }


def test_dicts_keep_key_order_and_value_types(cli, tmp_path):
    records = [canonical_record()]
    records.append(dict(canonical_record(), instance_id="octo__widgets-2"))
    records[1]["extensions"] = dict(reversed(list(records[1]["extensions"].items())))
    theirs, cli_rejects = cli_records(cli, tmp_path, records, "canonical", "canonical")
    assert not cli_rejects
    rejected = []
    ours = list(isobench.convert_records(
        records, from_="canonical", to="canonical", on_error="skip", rejects=rejected))
    assert not rejected
    assert [typed(r) for r in ours] == [typed(r) for r in theirs]
    # The extensions come back as they went in: order, types, floats' shortest form.
    assert [typed(r["extensions"]) for r in ours] == [typed(r["extensions"]) for r in records]


def test_tuples_and_subclasses_read_as_json_dumps_writes_them(cli, tmp_path):
    class Text(str):
        pass

    record = canonical_record()
    record["extensions"] = {"pair": (1, "two"), "text": Text("plain"), "flag": True}
    theirs, _ = cli_records(cli, tmp_path, [record], "canonical", "canonical")
    ours = list(isobench.convert_records([record], from_="canonical", to="canonical"))
    assert [typed(r) for r in ours] == [typed(r) for r in theirs]


def odd_records():
    """Records JSON text carries otherwise than a dict does: each is read as the JSON
    Lines reader reads `json.dumps(record, ensure_ascii=False)`."""
    base = read_jsonl(SAMPLES / "swe-bench-verified.sample.jsonl")[0]

    def with_(**fields):
        return dict(base, **fields)

    return [
        with_(score=float("nan")),
        with_(extra={"runs": [1, float("inf")]}),
        with_(extra={"runs": [-float("inf")]}),
        with_(huge=10**400),  # beyond any f64: its digits, kept
        with_(big=10**25),  # beyond 64 bits: the number JSON text reads
        with_(negative=-(2**70)),
        with_(extra={1: "int key", None: "none key", True: "bool key"}),
        with_(deep=json.loads("[" * 130 + "]" * 130)),
        with_(fine=1.5),
        ["not", "an", "object"],
    ]


def test_non_json_numbers_and_odd_values_are_read_as_the_cli_reads_their_text(cli, tmp_path):
    records = odd_records()
    theirs, cli_rejects = cli_records(cli, tmp_path, records, "swe-bench", "canonical")
    rejected = []
    ours = list(isobench.convert_records(
        records, from_="swe-bench", to="canonical", on_error="skip", rejects=rejected))
    assert [typed(r) for r in ours] == [typed(r) for r in theirs]
    # Every rejects line as the command line writes it, the record's text included.
    assert [without_file(r) for r in rejected] == [without_file(r) for r in cli_rejects]
    assert {r["line"] for r in rejected} == {1, 2, 3, 8, 10}
    assert str(10**400) in json.dumps(ours) and str(10**25) in json.dumps(ours)
    assert "`/score`: `NaN` is not a JSON value" in rejected[0]["error"]
    assert "`/extra/runs/1`: `Infinity`" in rejected[1]["error"]


def test_non_json_numbers_stop_a_conversion_with_the_record_and_key():
    records = odd_records()
    with pytest.raises(isobench.RecordError) as err:
        list(isobench.convert_records(records[:1], from_="swe-bench", to="canonical"))
    assert err.value.line == 1
    assert "`/score`: `NaN` is not a JSON value" in str(err.value)


def test_a_value_json_cannot_write_raises_what_json_dumps_raises():
    record = dict(canonical_record(), created_at=datetime.datetime(2024, 1, 2))
    with pytest.raises(TypeError, match="not JSON serializable"):
        list(isobench.convert_records([record], from_="canonical", to="canonical"))
    looped = canonical_record()
    looped["extensions"]["self"] = looped
    with pytest.raises(ValueError, match="Circular reference"):
        list(isobench.convert_records([looped], from_="canonical", to="canonical"))


def sample_rows(copies=3):
    """The sample SWE-bench rows, `copies` times, each copy's ids made distinct."""
    rows = []
    for copy in range(copies):
        for row in read_jsonl(SAMPLES / "swe-bench-verified.sample.jsonl"):
            rows.append(dict(row, instance_id=f"{row['instance_id']}{'-c%d' % copy if copy else ''}"))
    return rows


def sample_table():
    return pa.Table.from_pylist(sample_rows())


def counted_reader(table, rows_per_batch, taken):
    """A reader of `table`'s rows in batches, counting in `taken` the batches read."""
    def batches():
        for batch in table.to_batches(max_chunksize=rows_per_batch):
            taken.append(batch.num_rows)
            yield batch

    return pa.RecordBatchReader.from_batches(table.schema, batches())


def test_a_stream_gives_a_stream_equal_to_the_table_and_the_cli(cli, tmp_path):
    table = sample_table()
    taken = []
    out = isobench.convert_arrow(
        counted_reader(table, 2, taken), from_="swe-bench", to="canonical")
    assert isinstance(out, pa.RecordBatchReader)
    # The schema is known before any batch is read from it: the first input batch was
    # converted for the records' style, no more.
    assert len(taken) <= 1
    first = out.read_next_batch()
    assert len(taken) <= 2 and first.num_rows > 0
    streamed = pa.Table.from_batches([first, *out], out.schema)
    assert len(taken) == -(-table.num_rows // 2)

    whole = isobench.convert_arrow(table, from_="swe-bench", to="canonical", all_columns=True)
    assert streamed.schema == whole.schema
    assert streamed.schema.metadata == whole.schema.metadata
    assert streamed.equals(whole)

    source = tmp_path / "in.parquet"
    pq.write_table(table, source)
    parquet = tmp_path / "cli.parquet"
    cli("convert", "--from", "swe-bench", "--to", "canonical", "-i", source, "-o", parquet)
    theirs = pq.read_table(parquet)
    # Every column of the declaration: those the file has hold what it holds, the others
    # are empty.
    assert streamed.select(theirs.column_names).replace_schema_metadata(None).equals(
        theirs.replace_schema_metadata(None))
    for name in set(streamed.column_names) - set(theirs.column_names):
        assert streamed.column(name).null_count == streamed.num_rows, name
    jsonl = tmp_path / "cli.jsonl"
    cli("convert", "--from", "swe-bench", "--to", "canonical", "-i", source, "-o", jsonl)
    assert isobench.table_records(streamed) == read_jsonl(jsonl)
    # A table still gives a table, as the file has it.
    table_out = isobench.convert_arrow(table, from_="swe-bench", to="canonical")
    assert isinstance(table_out, pa.Table)
    assert table_out.schema == theirs.schema and table_out.equals(theirs)


def test_the_schema_metadata_is_in_the_order_of_the_cli_file(cli, tmp_path):
    """A table's (and a stream's) schema metadata, and that of a Parquet file pyarrow
    writes of it, hold their keys in the order of the file `convert` writes, each time
    (the map they come from in Rust iterates in an order of its own per conversion)."""
    table = sample_table()
    source = tmp_path / "in.parquet"
    pq.write_table(table, source)
    parquet = tmp_path / "cli.parquet"
    cli("convert", "--from", "swe-bench", "--to", "canonical", "-i", source, "-o", parquet)
    theirs = list(pq.ParquetFile(parquet).schema_arrow.metadata.items())
    assert len(theirs) == 3
    written = tmp_path / "ours.parquet"
    for _ in range(8):
        ours = isobench.convert_arrow(table, from_="swe-bench", to="canonical")
        assert list(ours.schema.metadata.items()) == theirs
        pq.write_table(ours, written)
        assert list(pq.ParquetFile(written).schema_arrow.metadata.items()) == theirs
        streamed = isobench.convert_arrow(
            counted_reader(table, 2, []), from_="swe-bench", to="canonical")
        # A stream has every column of the declaration: its features differ, not its keys.
        assert list(streamed.schema.metadata) == [key for key, _ in theirs]
        whole = isobench.convert_arrow(table, from_="swe-bench", to="canonical",
                                       all_columns=True)
        assert list(whole.schema.metadata.items()) == list(streamed.schema.metadata.items())


def test_a_stream_refusing_a_record_raises_the_record_error():
    rows = sample_rows()
    rows[3]["patch"] = None
    table = pa.Table.from_pylist(rows)
    out = isobench.convert_arrow(
        counted_reader(table, 2, []), from_="swe-bench", to="canonical")
    with pytest.raises(isobench.RecordError) as err:
        out.read_all()
    assert err.value.line == 4
    assert err.value.pointer == "/patch"


def test_a_stream_sends_its_rejects_as_it_goes(tmp_path):
    rows = sample_rows()
    # A null cell is a missing field, as in a Parquet file.
    rows[0]["patch"] = None
    rows[-1]["patch"] = None
    rejected = []
    out = isobench.convert_arrow(
        counted_reader(pa.Table.from_pylist(rows), 2, []),
        from_="swe-bench", to="canonical", on_error="skip", rejects=rejected)
    first = out.read_next_batch()
    assert [r["line"] for r in rejected] == [1]
    rest = out.read_all()
    assert first.num_rows + rest.num_rows == len(rows) - 2
    assert [r["line"] for r in rejected] == [1, len(rows)]


def test_numbers_keep_their_text_from_dicts_and_files(cli, tmp_path):
    big = 2**64 + 1
    record = canonical_record()
    record["extensions"] = {"counts": [big, -(2**70), 5e-05, 1e-07, 1e16, -0.0, 0.1]}
    # Read directly from the dicts, the values come back as Python holds them.
    (written,) = isobench.convert_records([record], from_="canonical", to="canonical")
    assert typed(written["extensions"]["counts"]) == typed(record["extensions"]["counts"])
    # Read from the text `json.dumps` writes, the text comes back as it was.
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps(record) + "\n")
    out = tmp_path / "out.jsonl"
    cli("convert", "--from", "canonical", "--to", "canonical", "-i", source, "-o", out)
    line = out.read_text()
    for text in [str(big), str(-(2**70)), "5e-05", "1e-07", "1e+16", "-0.0", "0.1"]:
        assert text in line
    assert json.loads(line) == written
