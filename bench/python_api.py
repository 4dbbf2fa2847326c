#!/usr/bin/env python3
"""The Python package against the command line and plain Python, side by side, on SWE-bench
rows in Hugging Face's layout (`convert --from swe-bench --to canonical`).

Whole-process jobs (each one a child process; CPU s, wall s and peak RSS are the kernel's
figures for it, `wait4`), run in rounds (A, B, C, A, B, C, ...) so that they share the
machine's load:

  cli              `cargo isobench convert -i IN.parquet -o OUT.parquet`
  arrow-table      `pyarrow.parquet.read_table`, `isobench.convert_arrow(table)`, `write_table`
  arrow-stream     `ParquetFile.iter_batches` as a `RecordBatchReader`, `convert_arrow` of
                   it (a stream), each converted batch written by a `ParquetWriter`
  datasets-map     `datasets.Dataset.from_parquet`, `.map` with `py_convert.convert` (the
                   benchmark's Python implementation of the job), `.to_parquet`
  datasets-isobench  `Dataset.from_parquet`, `isobench.datasets.convert`, `.to_parquet`
  datasets-table   the same, as `isobench.datasets.convert` did before it streamed: the
                   whole converted table in memory (`convert_arrow` of `ds.data.table`)
  ray              `ray.data.read_parquet`, `isobench.ray.convert`, `write_parquet`, on
                   `ray.init(num_cpus=2)`; its figure is rows per CPU-second of the Ray
                   tasks (Ray's own stats: read and convert), to hold against the
                   command line's rows per CPU-second. The conversion runs twice in the
                   one cluster: cold (the cluster's first tasks, which also start its
                   workers' interpreters and import pyarrow, Ray Data and the package)
                   and warm (the same workers again); both figures are given

In-process, interleaved (`records`): `isobench.convert_records` on dicts against a plain
Python comprehension doing the same mapping (`py_convert.convert`), the same rows, each
timed per round; medians and ranges.

    python_api.py --bin target/release/cargo-isobench --parquet IN.parquet --jsonl IN.jsonl \\
        [--runs 3] [--jobs cli,arrow-table,...] [--records-rows 4000]

`bench/python_api.sh` makes the inputs, the virtualenv and the release builds, then runs it.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

KEEP = ("repo", "instance_id", "created_at", "base_commit", "patch", "test_patch", "version")


# --- the jobs, each run as `python_api.py job NAME IN OUT` -------------------------------

def job_arrow_table(src, dest):
    import pyarrow.parquet as pq

    import isobench

    out = isobench.convert_arrow(pq.read_table(src), from_="swe-bench", to="canonical")
    pq.write_table(out, dest, compression="zstd")
    return out.num_rows


def job_arrow_stream(src, dest):
    import pyarrow as pa
    import pyarrow.parquet as pq

    import isobench

    file = pq.ParquetFile(src)
    source = pa.RecordBatchReader.from_batches(file.schema_arrow, file.iter_batches(batch_size=1024))
    out = isobench.convert_arrow(source, from_="swe-bench", to="canonical")
    rows = 0
    with pq.ParquetWriter(dest, out.schema, compression="zstd") as writer:
        for batch in out:
            writer.write_batch(batch)
            rows += batch.num_rows
    return rows


def job_datasets_map(src, dest):
    import datasets

    from py_convert import convert

    datasets.disable_caching()
    ds = datasets.Dataset.from_parquet(src)
    # `extensions` is an open object: as the command line writes it, JSON text.
    out = ds.map(
        lambda row: {"extensions": json.dumps(convert(row, json.loads)["extensions"])},
        remove_columns=[c for c in ds.column_names if c not in KEEP],
    )
    out.to_parquet(dest)
    return out.num_rows


def job_datasets_isobench(src, dest):
    import datasets

    import isobench.datasets

    datasets.disable_caching()
    ds = datasets.Dataset.from_parquet(src)
    out = isobench.datasets.convert(ds, "swe-bench", "canonical")
    out.to_parquet(dest)
    return out.num_rows


def job_datasets_table(src, dest):
    """`isobench.datasets.convert` as it was before it streamed: the whole converted
    table made in memory, then wrapped as a dataset."""
    import datasets

    import isobench

    datasets.disable_caching()
    ds = datasets.Dataset.from_parquet(src)
    out = datasets.Dataset(isobench.convert_arrow(ds.data.table, from_="swe-bench", to="canonical"))
    out.to_parquet(dest)
    return out.num_rows


def job_ray(src, dest):
    import ray

    import isobench.ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    cpu = []
    for _ in ("cold", "warm"):
        out = isobench.ray.convert(ray.data.read_parquet(src), "swe-bench", "canonical").materialize()
        rows = out.count()
        cpu.append(remote_cpu(out.stats()))
    out.write_parquet(dest)
    ray.shutdown()
    print(f"ray: {rows} rows, {cpu[0]:.2f} CPU s in Ray tasks cold, {cpu[1]:.2f} warm (read and convert)",
          file=sys.stderr)
    print(json.dumps({"rows": rows, "cold": cpu[0], "warm": cpu[1]}))
    return rows


def remote_cpu(stats):
    """The total of Ray's "Remote cpu time" lines of a dataset's stats."""
    import re

    units = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0}
    total = 0.0
    for line in stats.splitlines():
        line = line.strip()
        if line.startswith("* Remote cpu time:"):
            found = re.search(r"([0-9.]+)(us|ms|s|min) total", line)
            if found:
                total += float(found.group(1)) * units[found.group(2)]
    return total


JOBS = {
    "arrow-table": job_arrow_table,
    "arrow-stream": job_arrow_stream,
    "datasets-map": job_datasets_map,
    "datasets-isobench": job_datasets_isobench,
    "datasets-table": job_datasets_table,
    "ray": job_ray,
}


# --- convert_records against a Python comprehension, in process --------------------------

def records_rounds(jsonl, rows_wanted, runs):
    import isobench
    from py_convert import convert

    rows = []
    with open(jsonl, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                rows.append(json.loads(line))
            if len(rows) >= rows_wanted:
                break
    # Both give the same records.
    ours = list(isobench.convert_records(rows[:200], from_="swe-bench", to="canonical"))
    theirs = [convert(r, json.loads) for r in rows[:200]]
    assert [r["instance_id"] for r in ours] == [r["instance_id"] for r in theirs]
    times = {"comprehension": [], "convert_records": []}
    for _ in range(runs):
        start = time.process_time()
        out = [convert(r, json.loads) for r in rows]
        times["comprehension"].append(time.process_time() - start)
        del out
        start = time.process_time()
        out = list(isobench.convert_records(rows, from_="swe-bench", to="canonical"))
        times["convert_records"].append(time.process_time() - start)
        del out
    return len(rows), times


# --- the driver -----------------------------------------------------------------------------

def run(cmd):
    """CPU s (user + system), wall s, peak RSS (KB) and standard output of `cmd`."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = proc.stdout.read().decode()
    err = proc.stderr.read().decode(errors="replace")
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(map(str, cmd))} failed:\n{err[-3000:]}")
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss, out


def fmt(values, digits):
    med = statistics.median(values)
    if len(values) == 1:
        return f"{med:.{digits}f}"
    return f"{med:.{digits}f} [{min(values):.{digits}f}-{max(values):.{digits}f}]"


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "job":
        name, src, dest = sys.argv[2:5]
        rows = JOBS[name](src, dest)
        print(f"{name}: {rows} rows", file=sys.stderr)
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--parquet", required=True)
    parser.add_argument("--jsonl", required=True)
    parser.add_argument("--work", default=str(HERE / "work"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", default="cli,arrow-table,arrow-stream,datasets-map,datasets-isobench,ray,records")
    parser.add_argument("--records-rows", type=int, default=4000)
    args = parser.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    wanted = args.jobs.split(",")
    cmds = {}
    if "cli" in wanted:
        cmds["cli"] = [args.bin, "isobench", "convert", "--from", "swe-bench", "--to", "canonical",
                       "-i", args.parquet, "-o", str(work / "py-cli.parquet"), "--overwrite"]
    for name in JOBS:
        if name in wanted:
            cmds[name] = [sys.executable, __file__, "job", name, args.parquet, str(work / f"py-{name}.parquet")]
    figures = {name: [] for name in cmds}
    for _ in range(args.runs):
        for name, cmd in cmds.items():
            if name == "ray":
                import shutil

                shutil.rmtree(work / "py-ray.parquet", ignore_errors=True)
            figures[name].append(run(cmd))
    load = os.getloadavg()
    print(f"load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print("| job | CPU s | wall s | peak RSS MB | runs |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, runs in figures.items():
        cpu = [r[0] for r in runs]
        wall = [r[1] for r in runs]
        peak = [r[2] / 1024 for r in runs]
        print(f"| {name} | {fmt(cpu, 1)} | {fmt(wall, 1)} | {fmt(peak, 0)} | {len(runs)} |")
    if "ray" in figures and "cli" in figures:
        import pyarrow.parquet as pq

        rows = pq.ParquetFile(args.parquet).metadata.num_rows
        cli_rate = [rows / r[0] for r in figures["cli"]]
        ray = [json.loads(r[3].strip().splitlines()[-1]) for r in figures["ray"]]
        for start in ("cold", "warm"):
            ray_rate = [r["rows"] / r[start] for r in ray]
            print(f"rows per CPU-second: cli {fmt(cli_rate, 0)}, ray tasks ({start}) {fmt(ray_rate, 0)}; "
                  f"ratio cli/ray {fmt([c / r for c, r in zip(cli_rate, ray_rate)], 2)}")
    if "records" in wanted:
        n, times = records_rounds(args.jsonl, args.records_rows, max(args.runs, 5))
        ratios = [c / r for c, r in zip(times["comprehension"], times["convert_records"])]
        print(f"records ({n} rows, CPU s per round): comprehension {fmt(times['comprehension'], 2)}, "
              f"convert_records {fmt(times['convert_records'], 2)}; "
              f"comprehension / convert_records {fmt(ratios, 2)}")


if __name__ == "__main__":
    main()
