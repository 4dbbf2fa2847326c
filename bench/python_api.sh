#!/usr/bin/env bash
# The Python package against the command line, `datasets.map` and a plain Python mapping
# (bench/python_api.py), on the rows bench/parquet_vs.py times: distinct SWE-bench rows made
# from the real ones (make_distinct.py, seed 31), written by pyarrow in Hugging Face's layout
# (13 string columns, the test lists as JSON text). The two scripts share the generated
# files when given the same BENCH_DIR.
#
#   bench/python_api.sh                  # 1000 MB of rows, 3 rounds
#   SIZE=200 RUNS=5 bench/python_api.sh
#   JOBS=records,cli,ray bench/python_api.sh
#
# Needs the real records in ../shared/data/real, and PyPI for pyarrow, datasets and Ray
# (installed, with the package built optimised from ./python, into bench/.venv-python).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
real_dir="$repo/../shared/data/real"
real=(
  "$real_dir/swebench-verified/swebench_verified_test.jsonl"
  "$real_dir/swebench-lite/swebench_lite_test.jsonl"
  "$real_dir/swebench-full/sweagent_fixture_debug_20240322.jsonl"
  "$real_dir/swebench-full/sweagent_fixture_swe-bench-dev-easy.jsonl"
  "$real_dir/swebench-full/sweagent_fixture_swe-bench-lite-test.jsonl"
)
work="${BENCH_DIR:-$here/work}"
size="${SIZE:-1000}"
mkdir -p "$work"
for f in "${real[@]}"; do
  [ -f "$f" ] || { echo "the real SWE-bench records are not at $f" >&2; exit 1; }
done

venv="$here/.venv-python"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  # aiohttp: Ray Data imports fsspec's HTTP filesystem, which needs it.
  "$venv/bin/pip" install --quiet pyarrow datasets "ray[data]" aiohttp
fi
"$venv/bin/pip" install --quiet "$repo/python"
(cd "$repo" && cargo build --release --quiet -p cargo-isobench --bin cargo-isobench)
bin="${CARGO_TARGET_DIR:-$repo/target}/release/cargo-isobench"

jsonl="$work/hf-distinct-${size}mb-seed31.jsonl"
parquet="$work/hf-distinct-${size}mb-seed31.parquet"
[ -f "$jsonl" ] || python3 "$here/make_distinct.py" "${real[@]}" "$jsonl" "$size" --seed 31
[ -f "$parquet" ] || "$venv/bin/python" "$here/hf_parquet.py" "$jsonl" "$parquet"

"$venv/bin/python" "$here/python_api.py" --bin "$bin" --parquet "$parquet" --jsonl "$jsonl" \
  --work "$work" --runs "${RUNS:-3}" ${JOBS:+--jobs "$JOBS"}
"$venv/bin/python" - "$work/py-cli.parquet" "$work/py-arrow-table.parquet" "$work/py-arrow-stream.parquet" <<'PY'
import os, sys
import pyarrow.parquet as pq
paths = [p for p in sys.argv[1:] if os.path.exists(p)]
if len(paths) == 3:
    cli, table, stream = (pq.read_table(p) for p in paths)
    print("convert_arrow's table equals the command line's:", cli.equals(table) and cli.schema == table.schema)
    print("convert_arrow's stream holds the command line's columns:",
          stream.select(cli.column_names).replace_schema_metadata(None).equals(cli.replace_schema_metadata(None)))
PY
