#!/usr/bin/env python3
"""Times `cargo isobench convert` on Parquet and JSON Lines against DuckDB, pyarrow and
polars on the same file of SWE-bench rows in Hugging Face's layout, side by side.

The input is distinct SWE-bench rows made from the real ones (`make_distinct.py`: every row
differs from every other in every bulk column, so that dictionary encoding flatters no one),
written as Hugging Face publishes SWE-bench: 13 string columns, the test lists
(`FAIL_TO_PASS`, `PASS_TO_PASS`) as JSON-encoded strings, the `huggingface` key of the schema
metadata naming the features, by pyarrow with its defaults (snappy), a row group per 1,000
rows as `datasets` writes them. The same rows as JSON Lines feed the JSON Lines jobs. A
Parquet output is written twice: with the tool's default codec (zstd) and with snappy, the
codec of DuckDB's default copy.

Each round runs every job once, in the order given, so that the jobs share whatever load the
machine has (A, B, C, A, B, C, ...); a job is one whole process, and its CPU seconds (user +
system), wall seconds and peak RSS are the kernel's figures for that child (`wait4`). The
table gives medians and, in brackets, the range over the rounds.

    nice -n 10 bench/parquet_vs.py            # 1000 MB of rows, 3 rounds
    bench/parquet_vs.py --size 250 --runs 5
    bench/parquet_vs.py --bin before=/path/to/old/cargo-isobench --bin after=target/release/cargo-isobench

duckdb, pyarrow and polars come from PyPI into `bench/.venv-parquet` (made on first use).
Without `--bin`, the repository's release build is made and timed. Needs the real records in
`../shared/data/real` (a sibling of the repository) unless `--source` names JSON Lines files
of SWE-bench rows (repeatable). Generated files go to `--work` (default `$BENCH_DIR` or
`bench/work`) and are kept for the next run: the file names hold the size and seed.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
VENV = HERE / ".venv-parquet"
PY = VENV / "bin" / "python"
REAL_DIR = REPO.parent / "shared/data/real"
REAL = [
    REAL_DIR / "swebench-verified/swebench_verified_test.jsonl",
    REAL_DIR / "swebench-lite/swebench_lite_test.jsonl",
    REAL_DIR / "swebench-full/sweagent_fixture_debug_20240322.jsonl",
    REAL_DIR / "swebench-full/sweagent_fixture_swe-bench-dev-easy.jsonl",
    REAL_DIR / "swebench-full/sweagent_fixture_swe-bench-lite-test.jsonl",
]

DUCKDB = r"""
import sys, duckdb
duckdb.sql(f"COPY (SELECT * FROM '{sys.argv[1]}') TO '{sys.argv[2]}'")
"""

# The same copy, compressed as the other Parquet writers here compress: zstd.
DUCKDB_ZSTD = r"""
import sys, duckdb
duckdb.sql(f"COPY (SELECT * FROM '{sys.argv[1]}') TO '{sys.argv[2]}' (FORMAT parquet, COMPRESSION zstd)")
"""

PYARROW = r"""
import sys, pyarrow.parquet as pq
pq.write_table(pq.read_table(sys.argv[1]), sys.argv[2], compression="zstd")
"""

# The part of `swe-bench -> canonical` a user writes in polars: rename, decode the lists.
POLARS = r"""
import sys, polars as pl
lists = {"FAIL_TO_PASS": "fail_to_pass", "PASS_TO_PASS": "pass_to_pass"}
frame = pl.read_parquet(sys.argv[1])
frame = frame.with_columns(
    [pl.col(k).str.json_decode(pl.List(pl.String)).alias(v) for k, v in lists.items()]
).drop(list(lists))
frame.write_parquet(sys.argv[2], compression="zstd")
"""


def venv() -> None:
    if not PY.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run(
            [str(PY), "-m", "pip", "install", "--quiet", "duckdb", "pyarrow", "polars"],
            check=True,
        )


def versions() -> str:
    code = "import duckdb, pyarrow, polars; print(f'duckdb {duckdb.__version__}, pyarrow {pyarrow.__version__}, polars {polars.__version__}')"
    return subprocess.run([str(PY), "-c", code], check=True, capture_output=True, text=True).stdout.strip()


def inputs(work: Path, size: float, sources: list[Path], seed: int) -> tuple[Path, Path]:
    jsonl = work / f"hf-distinct-{size:g}mb-seed{seed}.jsonl"
    parquet = work / f"hf-distinct-{size:g}mb-seed{seed}.parquet"
    if not jsonl.exists():
        subprocess.run([sys.executable, str(HERE / "make_distinct.py"), *map(str, sources), str(jsonl), str(size),
                        "--seed", str(seed)], check=True)
    if not parquet.exists():
        subprocess.run([str(PY), str(HERE / "hf_parquet.py"), str(jsonl), str(parquet)], check=True)
    return jsonl, parquet


def rows(parquet: Path) -> str:
    code = "import sys, pyarrow.parquet as pq; m = pq.ParquetFile(sys.argv[1]).metadata; print(f'{m.num_rows:,} distinct rows in {m.num_row_groups} row groups')"
    return subprocess.run([str(PY), "-c", code, str(parquet)], check=True, capture_output=True, text=True).stdout.strip()


def run(cmd: list[str]) -> tuple[float, float, int]:
    """CPU s (user + system), wall s and peak RSS (KB) of `cmd`, which must succeed."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{err}")
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss


def jobs(bins: list[tuple[str, Path]], jsonl: Path, parquet: Path, work: Path) -> list[tuple[str, list[str]]]:
    out = []
    for kinds in (("Parquet", "Parquet"), ("JSON Lines", "Parquet"), ("Parquet", "JSON Lines"), ("JSON Lines", "JSON Lines")):
        for name, path in bins:
            src = parquet if kinds[0] == "Parquet" else jsonl
            ext = "parquet" if kinds[1] == "Parquet" else "jsonl"
            label = f"`cargo isobench convert` {kinds[0]} -> {kinds[1]}"
            build = f" ({name})" if len(bins) > 1 else ""

            def convert(out_name: str, *extra: str) -> list[str]:
                return [str(path), "isobench", "convert", "--from", "swe-bench", "--to", "canonical",
                        "-i", str(src), "-o", str(work / out_name), "--overwrite", *extra]

            out.append((label + build, convert(f"out-{name}.{ext}")))
            if ext == "parquet":
                # Compressed with the codec of DuckDB's default copy, to compare like with like.
                out.append((f"{label} `--parquet-compression snappy`{build}",
                            convert(f"out-{name}-snappy.{ext}", "--parquet-compression", "snappy")))
    out.append(("DuckDB `COPY (SELECT * FROM 'in.parquet') TO 'out.parquet'`", [str(PY), "-c", DUCKDB, str(parquet), str(work / "out-duckdb.parquet")]))
    out.append(("DuckDB `COPY ... (FORMAT parquet, COMPRESSION zstd)`", [str(PY), "-c", DUCKDB_ZSTD, str(parquet), str(work / "out-duckdb-zstd.parquet")]))
    out.append(("pyarrow `read_table` + `write_table` (zstd)", [str(PY), "-c", PYARROW, str(parquet), str(work / "out-pyarrow.parquet")]))
    out.append(("polars, the same mapping (rename, decode the test lists; zstd)", [str(PY), "-c", POLARS, str(parquet), str(work / "out-polars.parquet")]))
    return out


def fmt(values: list[float], digits: int) -> str:
    med = statistics.median(values)
    if len(values) == 1:
        return f"{med:.{digits}f}"
    return f"{med:.{digits}f} [{min(values):.{digits}f}-{max(values):.{digits}f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=float, default=1000, help="MB of JSON Lines rows (default 1000)")
    parser.add_argument("--runs", type=int, default=3, help="rounds (default 3)")
    parser.add_argument("--bin", action="append", default=[], metavar="NAME=PATH", help="a cargo-isobench binary to time (repeatable)")
    parser.add_argument("--work", type=Path, default=Path(os.environ.get("BENCH_DIR", HERE / "work")))
    parser.add_argument("--source", type=Path, action="append", default=[], help="SWE-bench rows as JSON Lines (repeatable)")
    parser.add_argument("--seed", type=int, default=31, help="seed of the generated rows (default 31)")
    parser.add_argument("--only", default="", help="comma-separated substrings: time only the jobs whose label has one")
    args = parser.parse_args()
    sources = args.source or [p for p in REAL if p.exists()]
    if not sources or not all(p.exists() for p in sources):
        sys.exit(f"the SWE-bench rows are not at {args.source or REAL[0]}; give --source")
    args.work.mkdir(parents=True, exist_ok=True)
    venv()
    if args.bin:
        bins = [(b.split("=", 1)[0], Path(b.split("=", 1)[1])) for b in args.bin]
    else:
        subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "cargo-isobench", "--bin", "cargo-isobench"], cwd=REPO, check=True)
        target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
        bins = [("isobench", target / "release" / "cargo-isobench")]
    jsonl, parquet = inputs(args.work, args.size, sources, args.seed)
    todo = jobs(bins, jsonl, parquet, args.work)
    if args.only:
        todo = [j for j in todo if any(s in j[0] for s in args.only.split(","))]
    figures: dict[str, list[tuple[float, float, int]]] = {label: [] for label, _ in todo}
    loads = [os.getloadavg()]
    for round_ in range(args.runs):
        for label, cmd in todo:
            figures[label].append(run(cmd))
            print(f"round {round_ + 1}: {label}: {figures[label][-1]}", file=sys.stderr)
        loads.append(os.getloadavg())
    print(f"Input: {parquet.stat().st_size / 1e6:.0f} MB Parquet of {rows(parquet)} ({jsonl.stat().st_size / 1e6:.0f} MB of JSON Lines), "
          f"{args.runs} rounds; {versions()}; {os.cpu_count()} cores; "
          f"load average (1 min) {min(l[0] for l in loads):.2f} to {max(l[0] for l in loads):.2f}.")
    print()
    print("| job | CPU s | wall s | peak MB |")
    print("|---|---:|---:|---:|")
    for label, runs in figures.items():
        cpu, wall, rss = zip(*runs)
        print(f"| {label} | {fmt(cpu, 2)} | {fmt(wall, 2)} | {fmt([r / 1024 for r in rss], 0)} |")


if __name__ == "__main__":
    main()
