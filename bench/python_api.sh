#!/usr/bin/env bash
# Times `convert --from swe-bench --to canonical` on a Parquet file of SWE-bench rows
# (the real Verified rows repeated, as bench/run.sh builds its JSONL input, then written
# as Parquet by cargo isobench): the command line, `isobench.convert_arrow`, and
# `datasets.map` with a Python function (bench/python_api.py). Each run is one whole
# process, timed by /usr/bin/time; outputs are compared as records.
#
#   bench/python_api.sh          # 1000 MB of JSONL rows
#   SIZE=100 bench/python_api.sh
#
# Needs the real records in ../shared/data/real, and PyPI for pyarrow and datasets
# (installed, with the package built from ./python, into bench/.venv-python).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
real="$repo/../shared/data/real/swebench-verified/swebench_verified_test.jsonl"
work="${BENCH_DIR:-$here/work}"
size="${SIZE:-1000}"
mkdir -p "$work"
[ -f "$real" ] || { echo "the real SWE-bench Verified records are not at $real" >&2; exit 1; }

venv="$here/.venv-python"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet pyarrow datasets
fi
"$venv/bin/pip" install --quiet "$repo/python"
(cd "$repo" && cargo build --release --quiet -p cargo-isobench --bin cargo-isobench)
bin="${CARGO_TARGET_DIR:-$repo/target}/release/cargo-isobench"

jsonl="$work/verified-${size}mb.jsonl"
parquet="$work/verified-${size}mb.parquet"
[ -f "$jsonl" ] || python3 "$here/make_input.py" "$real" "$jsonl" "$size"
[ -f "$parquet" ] || "$bin" isobench convert --from swe-bench --to swe-bench -i "$jsonl" -o "$parquet"

time_it() {
  local name="$1"; shift
  /usr/bin/time -f "$name: %e s wall, %U+%S s CPU, %M KB peak" "$@" 2>&1 >/dev/null | tail -2
}
time_it cli "$bin" isobench convert --from swe-bench --to canonical -i "$parquet" -o "$work/py-cli.parquet" --overwrite
time_it convert_arrow "$venv/bin/python" "$here/python_api.py" arrow "$parquet" "$work/py-arrow.parquet"
time_it datasets.map "$venv/bin/python" "$here/python_api.py" datasets "$parquet" "$work/py-datasets.parquet"
"$venv/bin/python" - "$work/py-cli.parquet" "$work/py-arrow.parquet" <<'PY'
import sys
import pyarrow.parquet as pq
cli, arrow = (pq.read_table(p) for p in sys.argv[1:3])
print("convert_arrow output equals the command line's:", cli.equals(arrow) and cli.schema == arrow.schema)
PY
