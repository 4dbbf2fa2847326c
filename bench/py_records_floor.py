#!/usr/bin/env python3
"""What any conversion of SWE-bench rows into dicts must spend in the interpreter, against
the plain Python comprehension (`py_convert.convert`), on the rows of a JSON Lines file in
Hugging Face's layout: the floor `convert_records` cannot go under, whatever it does in Rust.

- `comprehension`: `py_convert.convert(row, json.loads)` for every row.
- `test-list items`: only the new `str` objects of the test lists' items and their lists,
  made by `str.split` in C (the cheapest way CPython makes them: one substring copy each),
  on the rows whose lists `str.split` reads as `json.loads` does (no escapes).
- `output dicts`: only the output dicts, from test lists made beforehand
  (`py_convert.convert` with a lookup in place of `json.loads`).

Each figure is CPU s (`time.process_time`), medians [ranges] over the rounds, in one process
(the rows read once, not timed); all three on the same rows.

    py_records_floor.py --jsonl hf-250mb.jsonl [--runs 3]
"""
import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from py_convert import LISTS, convert  # noqa: E402


def split(text):
    """A JSON list of strings without escapes, as `json.loads` reads it."""
    if text == "[]":
        return []
    return text[2:-2].split('", "' if '", "' in text else '","')


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jsonl", required=True)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rows = []
    with open(args.jsonl, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                row = json.loads(line)
                texts = [row[k] for k in LISTS if isinstance(row.get(k), str)]
                if all("\\" not in t and split(t) == json.loads(t) for t in texts):
                    rows.append(row)
    prepared = {row[k]: json.loads(row[k]) for row in rows for k in LISTS
                if isinstance(row.get(k), str)}
    items = sum(len(v) for v in prepared.values())
    jobs = {
        "comprehension": lambda: [convert(r, json.loads) for r in rows],
        "test-list items": lambda: [[split(r[k]) for k in LISTS if isinstance(r.get(k), str)]
                                    for r in rows],
        "output dicts": lambda: [convert(r, prepared.__getitem__) for r in rows],
    }
    figures = {name: [] for name in jobs}
    for _ in range(args.runs):
        for name, job in jobs.items():
            start = time.process_time()
            out = job()
            figures[name].append(time.process_time() - start)
            del out
    print(f"rows: {len(rows)}; test-list items: {items}; {args.runs} rounds")
    print("| job | CPU s |")
    print("| --- | ---: |")
    for name, cpu in figures.items():
        med = statistics.median(cpu)
        print(f"| {name} | {med:.3f} [{min(cpu):.3f}-{max(cpu):.3f}] |")


if __name__ == "__main__":
    main()
