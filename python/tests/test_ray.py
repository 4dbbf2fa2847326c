"""A Ray Data job on a local cluster over several Parquet shards gives the records of one
command-line run over the same shards."""

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import isobench
import isobench.ray
from conftest import REAL, SAMPLES, read_jsonl

ray = pytest.importorskip("ray", reason="ray is not installed")


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def source_records():
    real = REAL / "swebench-verified" / "swebench_verified_test.jsonl"
    if real.exists():
        return read_jsonl(real)
    print(f"skipped: {real} is absent; the job runs on the sample instead")
    return read_jsonl(SAMPLES / "swe-bench-verified.sample.jsonl")


def test_a_ray_job_over_shards_equals_one_cli_run(cli, cluster, tmp_path):
    records = source_records()
    shards = tmp_path / "shards"
    shards.mkdir()
    n = 4
    paths = []
    for k in range(n):
        path = shards / f"part-{k}.parquet"
        pq.write_table(pa.Table.from_pylist(records[k::n]), path)
        paths.append(path)

    ds = ray.data.read_parquet([str(p) for p in paths])
    converted = isobench.ray.convert(ds, "swe-bench", "canonical", batch_size=64)
    out = tmp_path / "out"
    converted.write_parquet(str(out))

    cli_out = tmp_path / "cli.jsonl"
    args = ["convert", "--from", "swe-bench", "--to", "canonical", "-o", cli_out]
    for p in paths:
        args += ["-i", p]
    cli(*args)
    expected = read_jsonl(cli_out)

    written = sorted(out.glob("*.parquet"))
    assert len(written) >= 1
    got = []
    for path in written:
        got.extend(isobench.table_records(pq.read_table(path)))
    key = lambda r: r["instance_id"]  # noqa: E731
    assert sorted(got, key=key) == sorted(expected, key=key)
    assert len(got) == len(records)


def test_ray_rejects_go_to_their_directory(cli, cluster, tmp_path):
    records = read_jsonl(SAMPLES / "swe-bench-verified.sample.jsonl")
    broken = dict(records[1], FAIL_TO_PASS="not json [")
    rows = [records[0], broken] + records[2:]
    path = tmp_path / "in.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    rejects = tmp_path / "rejects"
    converted = isobench.ray.convert(
        ray.data.read_parquet(str(path)), "swe-bench", "canonical",
        on_error="skip", rejects=str(rejects),
    )
    out = tmp_path / "out"
    converted.write_json(str(out))
    lines = [json.loads(l) for f in sorted(out.glob("*.json")) for l in f.read_text().splitlines()]
    assert len(lines) == len(rows) - 1
    rejected = [json.loads(l) for f in rejects.glob("*.jsonl") for l in f.read_text().splitlines()]
    assert [(r["instance_id"], r["pointer"]) for r in rejected] == [
        (broken["instance_id"], "/FAIL_TO_PASS")
    ]
    assert rejected[0]["record"]["FAIL_TO_PASS"] == "not json ["


def test_ray_refuses_skip_without_a_rejects_directory(cluster):
    ds = ray.data.from_items([{"a": 1}])
    with pytest.raises(isobench.UsageError, match="needs a `rejects` directory"):
        isobench.ray.convert(ds, "swe-bench", "canonical", on_error="skip")
