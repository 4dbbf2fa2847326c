#!/usr/bin/env python3
"""Every pair of formats, run through the target's own consumer.

For each source file (the real records in ../shared/data/real, the samples in
examples/data, and canonical files made from them) and each target format, this runs
`cargo isobench convert` and then, when the conversion wrote a file, the target
consumer's own code through the conformance harness (`check.py FORMAT FILE`). Refused
conversions are run again with `--allow-incomplete`, to show what the consumer says of
the incomplete records.

A cell reads:
  ok N/M          written; the consumer accepts N of M records
  REJECTED N/M    written with exit 0, yet the consumer rejects some records (a defect)
  refused         exit 1, nothing written (the error names what is missing)
  refused, +inc   ... and what the consumer says of the `--allow-incomplete` output
  refused (cannot carry)  exit 1: the record holds something the target cannot
                  (GSO's test scripts for SWE-Perf's pytest ids, ...), with a hint

It needs the conformance harness's virtualenv, so it is not part of `cargo test`; the
same matrix is checked against `validate --format` by `cargo-isobench/tests/contracts.rs`.

    python3 tests/conformance/matrix.py [--python VENV_PYTHON] [--check CHECK_PY]
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
TARGETS = ["canonical", "swe-bench", "swe-smith", "minisandbox", "swe-perf", "gso", "multi-swe-bench"]


def sources(real: Path):
    """(label, format, path) of every source file."""
    found = []
    for folder, fmt in [
        ("swebench-verified", "swe-bench"),
        ("swebench-lite", "swe-bench"),
        ("swebench-full", "swe-bench"),
        ("swesmith", "swe-smith"),
        ("multi-swe-bench", "multi-swe-bench"),
    ]:
        for path in sorted((real / folder).glob("*.jsonl")):
            found.append((f"{fmt}:{path.stem[:28]}", fmt, path))
    for path in sorted((real / "swesmith").glob("*.jsonl")):
        found.append((f"minisandbox:{path.stem[:24]}", "minisandbox", path))
    found.append(("swe-perf:sample", "swe-perf", ROOT / "examples/data/swe-perf.sample.jsonl"))
    found.append(("gso:sample", "gso", ROOT / "examples/data/gso.sample.jsonl"))
    return found


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def consumer(args, fmt, path):
    cmd = [args.python, str(args.check), fmt, str(path)]
    if fmt == "canonical":
        # The lossless profile's own schema (the seed schema has no `extensions`).
        cmd += ["--schema", str(ROOT / "isobench-core/schemas/canonical.v1.lossless.schema.json")]
    if fmt in ("swe-smith", "multi-swe-bench"):
        # Whether the peer's registry of the day knows a repository is not a property
        # of the record; an unknown one is reported as a warning.
        cmd.append("--allow-unregistered")
    out = run(cmd)
    last = (out.stdout.strip().splitlines() or ["?"])[-1]
    m = re.match(r"(\d+) passed, (\d+) failed", last)
    if not m:
        return None, None, out.stdout + out.stderr
    return int(m.group(1)), int(m.group(1)) + int(m.group(2)), out.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    tmp = os.environ.get("TMPDIR", "/tmp")
    parser.add_argument("--python", default=os.path.join(tmp, "isobench-peers-venv/bin/python"))
    parser.add_argument("--check", type=Path, default=SHARED / "conformance/check.py")
    parser.add_argument("--real", type=Path, default=SHARED / "data/real")
    parser.add_argument("--details", action="store_true", help="print the consumer's output for rejected cells")
    args = parser.parse_args()

    subprocess.run(["cargo", "build", "-q", "-p", "cargo-isobench", "-p", "isobench-multi-swe-bench"],
                   cwd=ROOT, check=True)
    binary = ROOT / "target/debug/cargo-isobench"
    plugin = next(p for p in (ROOT / "target/debug").glob("*isobench_multi_swe_bench.*") if p.suffix in (".so", ".dylib", ".dll"))
    base = [str(binary), "isobench", "--plugin", str(plugin), "convert"]

    work = Path(tempfile.mkdtemp(prefix="isobench-matrix-"))
    rows = sources(args.real)
    # Canonical sources: each real or sample file converted to canonical.
    for label, fmt, path in list(rows):
        if fmt in ("minisandbox",):
            continue
        out = work / f"canonical-{len(rows)}.jsonl"
        done = run(base + ["--from", fmt, "--to", "canonical", "-i", str(path), "-o", str(out)])
        if done.returncode == 0:
            rows.append((f"canonical<-{label.split(':')[0]}:{path.stem[:16]}", "canonical", out))

    bad = 0
    table = []
    for label, fmt, path in rows:
        cells = []
        for target in TARGETS:
            out = work / f"{len(table)}-{target}.jsonl"
            done = run(base + ["--from", fmt, "--to", target, "-i", str(path), "-o", str(out)])
            if done.returncode == 0:
                passed, total, text = consumer(args, target, out)
                if passed is None:
                    cells.append("check-error")
                elif passed == total:
                    cells.append(f"ok {passed}/{total}")
                else:
                    bad += 1
                    cells.append(f"REJECTED {passed}/{total}")
                    if args.details:
                        print(f"--- {label} -> {target}\n{text}", file=sys.stderr)
                continue
            if out.exists():
                bad += 1
                cells.append(f"exit {done.returncode} but written")
                continue
            if done.returncode != 1 or "hint:" not in done.stderr:
                cells.append(f"error (exit {done.returncode})")
                if args.details:
                    print(f"--- {label} -> {target}\n{done.stderr}", file=sys.stderr)
                continue
            if "--allow-incomplete" not in done.stderr:
                # The target cannot hold what the record is (not a field it lacks).
                cells.append("refused (cannot carry)")
                continue
            inc = run(base + ["--from", fmt, "--to", target, "-i", str(path), "-o", str(out), "--allow-incomplete"])
            if inc.returncode != 0:
                cells.append(f"refused, +inc exit {inc.returncode}")
                continue
            passed, total, _ = consumer(args, target, out)
            cells.append(f"refused, +inc {passed}/{total}")
        table.append((label, cells))

    width = max(len(label) for label, _ in table)
    col = max(len(c) for _, cells in table for c in cells + TARGETS)
    print(" " * width + " | " + " | ".join(t.ljust(col) for t in TARGETS))
    print("-" * width + "-+-" + "-+-".join("-" * col for _ in TARGETS))
    for label, cells in table:
        print(label.ljust(width) + " | " + " | ".join(c.ljust(col) for c in cells))
    print(f"\ncells written with exit 0 that the consumer rejects: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
