#!/usr/bin/env python3
"""`isobench.convert_records` of one or more builds of the package against the plain
Python comprehension doing the same mapping (`py_convert.convert`), on the same rows of
a JSON Lines file of SWE-bench rows in Hugging Face's layout (`make_distinct.py` or
`make_input.py`), each run in a process of its own, interleaved (A, B, C, A, B, C, ...)
so that they share the machine's load.

Each process reads the rows into dicts (not timed), then converts them all, keeping the
output (a list); CPU s is the conversion's (`time.process_time`), peak RSS the whole
process's (`wait4`), the rows held included. `--collector off` runs every job with the
cycle collector disabled (`gc.disable()`) for the whole conversion, the comprehension
included, to compare the jobs without it.

    py_records.py --jsonl hf-250mb.jsonl --runs 3 --build main=venv-a/bin/python \\
        --build new=venv-b/bin/python [--rows N] [--to canonical] [--collector off]
"""
import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def job(kind, jsonl, rows_wanted, to, collector):
    rows = []
    with open(jsonl, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                rows.append(json.loads(line))
            if rows_wanted and len(rows) >= rows_wanted:
                break
    if collector == "off":
        gc.disable()
    if kind == "comprehension":
        from py_convert import convert

        start = time.process_time()
        out = [convert(r, json.loads) for r in rows]
    else:
        import isobench

        start = time.process_time()
        out = list(isobench.convert_records(rows, from_="swe-bench", to=to))
    cpu = time.process_time() - start
    print(json.dumps({"rows": len(out), "cpu": cpu}))


def fmt(values, digits=2):
    med = statistics.median(values)
    return f"{med:.{digits}f} [{min(values):.{digits}f}-{max(values):.{digits}f}]"


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "job":
        job(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6])
        return
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jsonl", required=True)
    parser.add_argument("--rows", type=int, default=0, help="the first N rows (0: all)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--to", default="canonical")
    parser.add_argument("--collector", choices=["on", "off"], default="on",
                        help="off: every job with the cycle collector disabled")
    parser.add_argument("--build", action="append", required=True,
                        help="NAME=PYTHON: an interpreter with a build of the package")
    args = parser.parse_args()
    builds = dict(b.split("=", 1) for b in args.build)
    jobs = {"comprehension": [next(iter(builds.values())), "comprehension"]}
    for name, python in builds.items():
        jobs[f"convert_records ({name})"] = [python, "records"]
    figures = {name: [] for name in jobs}
    for _ in range(args.runs):
        for name, (python, kind) in jobs.items():
            cmd = [python, __file__, "job", kind, args.jsonl, str(args.rows), args.to,
                   args.collector]
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            out = proc.stdout.read().decode()
            err = proc.stderr.read().decode(errors="replace")
            _, status, usage = os.wait4(proc.pid, 0)
            if os.waitstatus_to_exitcode(status) != 0:
                sys.exit(f"{name} failed:\n{err[-3000:]}")
            result = json.loads(out.strip().splitlines()[-1])
            figures[name].append((result["cpu"], usage.ru_maxrss / 1024, result["rows"]))
    load = os.getloadavg()
    print(f"load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    rows = {r[2] for runs in figures.values() for r in runs}
    print(f"rows: {sorted(rows)}; swe-bench -> {args.to}; {args.runs} rounds; "
          f"cycle collector {args.collector}")
    print("| job | CPU s | peak RSS MB | comprehension / job |")
    print("| --- | ---: | ---: | ---: |")
    base = [r[0] for r in figures["comprehension"]]
    for name, runs in figures.items():
        cpu = [r[0] for r in runs]
        ratio = [b / c for b, c in zip(base, cpu)]
        print(f"| {name} | {fmt(cpu)} | {fmt([r[1] for r in runs], 0)} | {fmt(ratio)} |")


if __name__ == "__main__":
    main()
