#!/usr/bin/env python3
"""Writes JSON Lines of SWE-bench rows as Parquet in Hugging Face's layout: the 13 string
columns of SWE-bench Verified's published files, in their order (the test lists as their
JSON text), a row group per 1,000 rows as `datasets` writes them, and the features named in
the schema metadata's `huggingface` key. Needs pyarrow (the benchmarks' virtualenvs have it).

    hf_parquet.py SOURCE.jsonl DEST.parquet
"""
import json
import sys

import pyarrow as pa
import pyarrow.parquet as pq

COLUMNS = [
    "repo", "instance_id", "base_commit", "patch", "test_patch", "problem_statement",
    "hints_text", "created_at", "version", "FAIL_TO_PASS", "PASS_TO_PASS",
    "environment_setup_commit", "difficulty",
]
GROUP_ROWS = 1000


def main() -> None:
    src, dest = sys.argv[1], sys.argv[2]
    features = {c: {"dtype": "string", "_type": "Value"} for c in COLUMNS}
    schema = pa.schema([(c, pa.string()) for c in COLUMNS],
                       metadata={"huggingface": json.dumps({"info": {"features": features}})})
    with open(src, "rb") as f, pq.ParquetWriter(dest, schema) as out:
        rows = []
        for line in f:
            if line.strip():
                rows.append(json.loads(line))
            if len(rows) == GROUP_ROWS:
                out.write_table(pa.Table.from_pylist(rows, schema=schema))
                rows = []
        if rows:
            out.write_table(pa.Table.from_pylist(rows, schema=schema))


if __name__ == "__main__":
    main()
