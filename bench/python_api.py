#!/usr/bin/env python3
"""The Python package on Parquet: `convert --from swe-bench --to canonical` of a Parquet
file of SWE-bench rows, three ways, each one whole process (read the Parquet file,
convert, write a Parquet file):

  arrow     `isobench.convert_arrow` on the table `pyarrow.parquet.read_table` gives
  datasets  `datasets.Dataset.from_parquet`, `.map` with `py_convert.convert` (the
            benchmark's Python implementation of the job), `.to_parquet`

The command line's own run (`cargo isobench convert -i IN.parquet -o OUT.parquet`) is the
third. Each prints the seconds its conversion step took (without reading and writing) on
stderr. Usage: python_api.py IMPL INPUT.parquet OUTPUT.parquet"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main():
    impl, src, dest = sys.argv[1:4]
    import pyarrow.parquet as pq

    if impl == "arrow":
        import isobench

        table = pq.read_table(src)
        started = time.perf_counter()
        out = isobench.convert_arrow(table, from_="swe-bench", to="canonical")
        took = time.perf_counter() - started
        pq.write_table(out, dest, compression="zstd")
        rows = out.num_rows
    elif impl == "datasets":
        import datasets
        from py_convert import convert

        datasets.disable_caching()
        ds = datasets.Dataset.from_parquet(src)
        started = time.perf_counter()
        # `extensions` is an open object: as the CLI writes it, JSON text.
        out = ds.map(
            lambda row: {"extensions": json.dumps(convert(row, json.loads)["extensions"])},
            remove_columns=[c for c in ds.column_names if c not in
                            ("repo", "instance_id", "created_at", "base_commit", "patch",
                             "test_patch", "version")],
        )
        took = time.perf_counter() - started
        out.to_parquet(dest)
        rows = out.num_rows
    else:
        raise SystemExit(f"unknown implementation {impl}")
    print(f"{impl}: {rows} rows converted in {took:.2f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
