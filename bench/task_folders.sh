#!/usr/bin/env bash
# Times `cargo isobench convert --to harbor -o DIR/` on 500 SWE-bench Verified rows (the
# real rows, the first 150 again under new ids) against `cp -r` of the tree it writes (the
# floor: the same files, nothing computed) and against a plain Python script writing the
# same files (`py_task_folders.py`, checked equal with `diff -r`), without and with a sync
# of each file as cargo isobench does. Prints a Markdown table:
# median wall and CPU seconds (user + system) of ROUNDS runs each, and each one's ratio to
# cargo isobench's.
#
#   bench/task_folders.sh [BINARY]        # default: target/release/cargo-isobench
#
# Needs the real records in ../shared/data/real (a sibling of the repository) and python3.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
binary="${1:-$root/target/release/cargo-isobench}"
rounds="${ROUNDS:-5}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 - "$root/../shared/data/real/swebench-verified/swebench_verified_test.jsonl" "$work/rows.jsonl" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
extra = [dict(r, instance_id=r["instance_id"] + "-r2") for r in rows[:150]]
with open(sys.argv[2], "w", encoding="utf-8") as out:
    for r in rows + extra:
        out.write(json.dumps(r, ensure_ascii=False) + "\n")
PY

# time NAME CMD...: appends "wall cpu" to $work/NAME.times
time_it() {
  local name="$1"; shift
  /usr/bin/time -f "%e %U %S" -o "$work/t" "$@" >/dev/null 2>&1
  awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$work/t" >> "$work/$name.times"
}

"$binary" convert --from swe-bench --to harbor -i "$work/rows.jsonl" -o "$work/ref/" 2>/dev/null
python3 "$here/py_task_folders.py" "$work/rows.jsonl" "$work/ref/astropy__astropy-12907" "$work/py"
diff -r "$work/ref" "$work/py" >/dev/null
for _ in $(seq "$rounds"); do
  rm -rf "$work/out" "$work/copy" "$work/py"
  time_it isobench "$binary" convert --from swe-bench --to harbor -i "$work/rows.jsonl" -o "$work/out/"
  time_it cp-r cp -r "$work/ref" "$work/copy"
  time_it python python3 "$here/py_task_folders.py" "$work/rows.jsonl" "$work/ref/astropy__astropy-12907" "$work/py"
  rm -rf "$work/py"
  time_it python-synced python3 "$here/py_task_folders.py" "$work/rows.jsonl" "$work/ref/astropy__astropy-12907" "$work/py" sync
done

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
ref_wall="$(cut -d' ' -f1 "$work/isobench.times" | median)"
ref_cpu="$(cut -d' ' -f2 "$work/isobench.times" | median)"
echo "| implementation | wall s | CPU s | cargo isobench ÷ it, wall | cargo isobench ÷ it, CPU |"
echo "| --- | ---: | ---: | ---: | ---: |"
for name in isobench cp-r python python-synced; do
  wall="$(cut -d' ' -f1 "$work/$name.times" | median)"
  cpu="$(cut -d' ' -f2 "$work/$name.times" | median)"
  awk -v n="$name" -v w="$wall" -v c="$cpu" -v rw="$ref_wall" -v rc="$ref_cpu" \
    'BEGIN { printf "| %s | %.2f | %.2f | %.2fx | %.2fx |\n", n, w, c, (w > 0 ? rw / w : 0), (c > 0 ? rc / c : 0) }'
done
