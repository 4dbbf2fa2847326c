#!/usr/bin/env python3
"""Mining throughput on a real Python history, offline: `cargo isobench mine` at one and
two jobs against `git log -p` over the same commits.

Usage: bench/mine_history.py [--bin PATH] [--work DIR] [--files N] [--commits N] [--runs N]

The repository is built from the Python standard library of the interpreter running this
script (`sysconfig.get_paths()["stdlib"]`, site-packages left out): its first commit
imports up to `--files` real modules and tests, then `--commits` commits replay edits of
the kinds real histories hold, each on one to four files (a third of them test files):
a changed line inside a function, lines inserted into a function body, a new
`@pytest.mark.parametrize`-style decorator case, a new function, a removed line, and now
and then a new file or a changelog entry. The edits are seeded, so the same interpreter
gives the same history.

Both tools read the same range, linear and rename-detecting (`git log -p -M`, whose
output is read and thrown away). CPU time is user + system of the child processes;
every figure is the median of `--runs` runs.
"""

import argparse
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import time

DEF = re.compile(r"^(\s*)def (\w+)\(")


def sh(*args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw).stdout


def stdlib_files(limit):
    """Up to `limit` UTF-8 `.py` files of the standard library, by sorted path."""
    root = sysconfig.get_paths()["stdlib"]
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in ("site-packages", "__pycache__"))
        for name in sorted(filenames):
            if name.endswith(".py"):
                found.append(os.path.join(dirpath, name))
    rng = random.Random(19)
    rng.shuffle(found)
    files = {}
    for path in found:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, OSError):
            continue
        if "def " not in text or len(text) > 400_000:
            continue
        files[os.path.relpath(path, root).replace(os.sep, "/")] = text.splitlines(keepends=True)
        if len(files) == limit:
            break
    return root, files


def edit(lines, rng, n):
    """One realistic edit of a module's lines, in place."""
    defs = [i for i, line in enumerate(lines) if DEF.match(line)]
    kind = rng.choice(["change", "insert", "insert", "decorate", "new-function", "remove"])
    if not defs or kind == "new-function":
        lines.append(f"\n\ndef added_{n}(value):\n    return value * {n}\n")
        return
    at = rng.choice(defs)
    indent = DEF.match(lines[at]).group(1)
    body = indent + "    "
    # The function's last line: the next line indented no deeper than the `def`.
    end = at + 1
    while end < len(lines) and (
        not lines[end].strip() or lines[end].startswith(body) or lines[end].lstrip().startswith(")")
    ):
        end += 1
    inside = range(at + 1, max(at + 2, end))
    if kind == "decorate":
        lines.insert(at, f"{indent}@cases({n}, {n + 1})\n")
    elif kind == "change" and end > at + 1:
        i = rng.choice(inside)
        if lines[i].strip():
            lines[i] = lines[i].rstrip("\n") + f"  # reviewed {n}\n"
        else:
            lines.insert(i, f"{body}checked = {n}\n")
    elif kind == "remove" and end > at + 2:
        del lines[rng.choice(inside)]
    else:
        i = rng.choice(inside)
        lines[i:i] = [f"{body}trace_{n} = {n}\n", f"{body}del trace_{n}\n"]


def build(repo, files, commits):
    """The history, written with `git fast-import`."""
    rng = random.Random(7)
    sh("git", "init", "-q", "-b", "main", repo)
    paths = sorted(files)
    tests = [p for p in paths if "/test" in "/" + p]
    sources = [p for p in paths if p not in set(tests)] or paths
    stream = []

    def blob(path):
        data = "".join(files[path]).encode()
        stream.append(f"M 100644 inline {path}\ndata {len(data)}\n".encode())
        stream.append(data + b"\n")

    for n in range(commits + 1):
        stamp = 1_600_000_000 + n * 600
        message = f"Change {n} (#{n + 1})\n".encode() if n else b"Import\n"
        stream.append(b"commit refs/heads/main\n")
        stream.append(f"committer Bench <bench@example.org> {stamp} +0000\n".encode())
        stream.append(f"data {len(message)}\n".encode() + message)
        if n == 0:
            for path in paths:
                blob(path)
            continue
        changed = set()
        for _ in range(rng.randint(1, 4)):
            pool = tests if tests and rng.random() < 0.33 else sources
            path = rng.choice(pool)
            edit(files[path], rng, n)
            changed.add(path)
        if rng.random() < 0.05:
            path = f"pkg/new_{n}.py"
            files[path] = [f"def new_{n}(x):\n", f"    return x + {n}\n"]
            sources.append(path)
            changed.add(path)
        if rng.random() < 0.1:
            path = f"changelog/{n}.rst"
            files[path] = [f"Change {n}.\n"]
            changed.add(path)
        for path in sorted(changed):
            blob(path)
    subprocess.run(["git", "fast-import", "--quiet"], input=b"".join(stream), cwd=repo, check=True)
    sh("git", "-C", repo, "symbolic-ref", "HEAD", "refs/heads/main")


def timed(command, out=None):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=out or subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(here, "..", "target", "release", "cargo-isobench"))
    ap.add_argument("--work", default=os.path.join(here, "..", "target", "bench-mine"))
    ap.add_argument("--files", type=int, default=1500)
    ap.add_argument("--commits", type=int, default=3000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()

    _, files = stdlib_files(args.files)
    imported, lines = len(files), sum(len(v) for v in files.values())
    repo = os.path.join(args.work, "repo")
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    build(repo, files, args.commits)
    first = sh("git", "-C", repo, "rev-list", "--max-parents=0", "main").strip()
    commits = int(sh("git", "-C", repo, "rev-list", "--count", f"{first}..main"))
    print(
        f"history: {imported} files ({lines} lines) of the Python {sys.version.split()[0]} "
        f"standard library, then {commits} commits of edits"
    )

    def ours(jobs):
        out = os.path.join(args.work, f"mined-{jobs}.jsonl")
        return lambda: timed(
            [args.bin, "mine", "--repo", repo, "--repo-name", "bench/stdlib", "--range",
             f"{first}..main", "--jobs", str(jobs), "-o", out, "--overwrite"]
        )

    runs = [
        ("`cargo isobench mine --jobs 1`", ours(1)),
        ("`cargo isobench mine --jobs 2`", ours(2)),
        ("`git log -p -M`", lambda: timed(["git", "-C", repo, "log", "-p", "-M", f"{first}..main"])),
    ]
    print(f"\n| command | wall s | commits/s | CPU s | commits per CPU-second |  (median of {args.runs})")
    print("|---|---|---|---|---|")
    for label, run in runs:
        samples = [run() for _ in range(args.runs)]
        wall = statistics.median(s[0] for s in samples)
        cpu = statistics.median(s[1] for s in samples)
        print(f"| {label} | {wall:.2f} | {commits / wall:.0f} | {cpu:.2f} | {commits / cpu:.0f} |")
    with open(os.path.join(args.work, "mined-1.jsonl")) as f:
        written = sum(1 for _ in f)
    print(f"\nrecords written by `mine`: {written}")


if __name__ == "__main__":
    sys.exit(main())
