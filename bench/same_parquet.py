#!/usr/bin/env python3
"""Compares two Parquet files as the writer promises to keep them: the Arrow schema with its
field and key-value metadata, the row groups' row counts, and every row. Also says whether
the files are byte for byte the same. Exit status 1 when they differ.

    bench/.venv-parquet/bin/python bench/same_parquet.py A.parquet B.parquet
"""
import sys

import pyarrow.parquet as pq


def main() -> None:
    a, b = sys.argv[1], sys.argv[2]
    fa, fb = pq.ParquetFile(a), pq.ParquetFile(b)
    problems = []
    sa, sb = fa.schema_arrow, fb.schema_arrow
    if not sa.equals(sb, check_metadata=True):
        problems.append(f"schemas differ:\n{sa}\n---\n{sb}")
    if fa.metadata.metadata != fb.metadata.metadata:
        problems.append("key-value metadata differ")
    groups = lambda f: [f.metadata.row_group(i).num_rows for i in range(f.metadata.num_row_groups)]
    if groups(fa) != groups(fb):
        problems.append(f"row groups differ: {groups(fa)} vs {groups(fb)}")
    for i in range(min(fa.metadata.num_row_groups, fb.metadata.num_row_groups)):
        if not fa.read_row_group(i).equals(fb.read_row_group(i)):
            problems.append(f"rows of row group {i} differ")
            break
    with open(a, "rb") as x, open(b, "rb") as y:
        same_bytes = x.read() == y.read()
    rows = fa.metadata.num_rows
    if problems:
        print(f"{a} and {b} differ:\n" + "\n".join(problems))
        sys.exit(1)
    print(f"same schema, metadata and {rows} rows in {len(groups(fa))} row groups; "
          f"{'byte for byte the same' if same_bytes else 'the bytes differ'}")


if __name__ == "__main__":
    main()
