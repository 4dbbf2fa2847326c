"""`isobench.datasets.convert`: a Hugging Face dataset in, a dataset of the target format
out, typed as the command line's Parquet output, and back again."""

import pyarrow.parquet as pq

import datasets
import isobench
import isobench.datasets
from conftest import SAMPLES, read_jsonl


def test_a_dataset_converts_and_round_trips(cli, tmp_path):
    path = SAMPLES / "swe-bench-verified.sample.jsonl"
    records = read_jsonl(path)
    ds = datasets.Dataset.from_list(records)

    canonical = isobench.datasets.convert(ds, "swe-bench", "canonical")
    assert isinstance(canonical, datasets.Dataset)
    assert canonical.num_rows == len(records)

    # Typed as the CLI's Parquet output of the same rows.
    source = tmp_path / "in.parquet"
    pq.write_table(ds.data.table, source)
    out = tmp_path / "cli.parquet"
    cli("convert", "--from", "swe-bench", "--to", "canonical", "-i", source, "-o", out)
    theirs = pq.read_table(out)
    assert canonical.data.table.schema.remove_metadata() == theirs.schema.remove_metadata()
    for name, feature in canonical.features.items():
        assert "null" not in repr(feature), f"`{name}` is null-typed: {feature}"
    jsonl = tmp_path / "cli.jsonl"
    cli("convert", "--from", "swe-bench", "--to", "canonical", "-i", source, "-o", jsonl)
    assert isobench.table_records(canonical.data.table) == read_jsonl(jsonl)

    # And back: the published records.
    back = isobench.datasets.convert(canonical, "canonical", "swe-bench")
    assert isobench.table_records(back.data.table) == records


def test_a_selection_converts_its_own_rows():
    records = read_jsonl(SAMPLES / "swe-bench-verified.sample.jsonl")
    ds = datasets.Dataset.from_list(records).select([2, 0])
    canonical = isobench.datasets.convert(ds, "swe-bench", "canonical")
    ids = [r["instance_id"] for r in isobench.table_records(canonical.data.table)]
    assert ids == [records[2]["instance_id"], records[0]["instance_id"]]
