#!/usr/bin/env python3
"""Mining throughput: `cargo isobench mine --range` against `git diff` run per commit.

Usage: bench/mine_vs_git.py [--bin PATH] [--work DIR] [--url URL] [--commits N]

The history mined is a clone of a public Python project (`--url`, default psf/requests).
When the clone cannot be made (no network), the script builds a synthetic history of
`--commits` commits locally with `git fast-import` instead, and says so.

"The usual way" is what collection scripts do: one `git diff -M <c>^ <c>` subprocess per
commit, reading its output. Ours does more per commit (split by test-file rules, Python
functions parsed at base and head, metadata, a JSON record), in-process with libgit2.
"""

import argparse
import os
import random
import resource
import shutil
import subprocess
import sys
import time


def sh(*args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw).stdout


def synthetic(path, commits):
    """A Python package with tests; each commit edits one to three files."""
    rng = random.Random(7)
    os.makedirs(path)
    sh("git", "init", "-q", path)
    modules = [f"pkg/mod{i}.py" for i in range(60)] + [f"tests/test_mod{i}.py" for i in range(20)]
    bodies = {
        m: [f"def f{j}(x):\n    return x + {j}\n" for j in range(30)] for m in modules
    }
    out = []
    mark = 0
    for n in range(commits):
        changed = rng.sample(modules, rng.randint(1, 3)) if n else modules
        for m in changed:
            if n:
                j = rng.randrange(30)
                bodies[m][j] = f"def f{j}(x):\n    y = x * {n}\n    return y + {j}\n"
        out.append("commit refs/heads/main\n")
        mark += 1
        out.append(f"mark :{mark}\n")
        stamp = 1_600_000_000 + n * 3600
        out.append(f"committer Bench <bench@example.org> {stamp} +0200\n")
        msg = f"Change {n} (#{n + 1})\n"
        out.append(f"data {len(msg.encode())}\n{msg}")
        if n:
            out.append(f"from :{mark - 1}\n")
        for m in changed:
            text = "\n\n".join(bodies[m])
            data = text.encode()
            out.append(f"M 100644 inline {m}\ndata {len(data)}\n{text}\n")
    subprocess.run(
        ["git", "fast-import", "--quiet"],
        input="".join(out).encode(),
        cwd=path,
        check=True,
    )
    sh("git", "-C", path, "checkout", "-q", "main")


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(here, "..", "target", "release", "cargo-isobench"))
    ap.add_argument("--work", default=os.path.join(here, "..", "target", "bench-mine"))
    ap.add_argument("--url", default="https://github.com/psf/requests")
    ap.add_argument("--commits", type=int, default=3000)
    ap.add_argument("--limit", type=int, default=3000, help="mine at most the last N commits")
    args = ap.parse_args()

    repo = os.path.join(args.work, "repo")
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    try:
        subprocess.run(
            ["git", "clone", "-q", "--no-checkout", args.url, repo],
            check=True,
            timeout=120,
            capture_output=True,
        )
        source = f"a clone of {args.url}"
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
        shutil.rmtree(repo, ignore_errors=True)
        synthetic(repo, args.commits)
        why = "timed out" if isinstance(e, subprocess.TimeoutExpired) else "failed"
        source = f"a synthetic history of {args.commits} commits (the clone of {args.url} {why})"

    # The last `limit` commits of the first-parent chain; the range starts at the parent of
    # the oldest, so every commit in it (merges too, against their first parent) is mined.
    chain = sh("git", "-C", repo, "rev-list", "--first-parent", "--parents", "HEAD").splitlines()
    chain = [line.split() for line in chain[: args.limit]]
    chain = [c for c in chain if len(c) > 1]
    start = chain[-1][1]
    revs = sh("git", "-C", repo, "rev-list", f"{start}..HEAD").split()
    in_range = len(revs)
    print(f"history: {source}; {in_range} commits in the range mined")

    def ours(jobs):
        out = os.path.join(args.work, f"mined-{jobs}.jsonl")
        c0, t0 = child_cpu(), time.perf_counter()
        subprocess.run(
            [args.bin, "mine", "--repo", repo, "--repo-name", "bench/repo", "--range",
             f"{start}..HEAD", "--jobs", str(jobs), "-o", out, "--overwrite"],
            check=True,
            capture_output=True,
        )
        dt, cpu = time.perf_counter() - t0, child_cpu() - c0
        with open(out) as f:
            n = sum(1 for _ in f)
        return n, dt, cpu

    def git_per_commit(revs):
        c0, t0 = child_cpu(), time.perf_counter()
        total = 0
        for c in revs:
            total += len(subprocess.run(["git", "-C", repo, "diff", "-M", f"{c}^", c], check=True, capture_output=True).stdout)
        return len(revs), time.perf_counter() - t0, child_cpu() - c0

    # Wall time, and CPU time (user + system of the child processes: on a busy machine the
    # fairer measure of the work done).
    for label, (n, dt, cpu) in [
        ("cargo isobench mine --jobs 1", ours(1)),
        ("cargo isobench mine --jobs 2", ours(2)),
        ("git diff subprocess per commit", git_per_commit(revs)),
    ]:
        print(
            f"{label:32} {n:6} commits: wall {dt:7.2f} s = {n / dt:7.1f} commits/s; "
            f"cpu {cpu:7.2f} s = {n / cpu:7.1f} commits per cpu-second"
        )


if __name__ == "__main__":
    sys.exit(main())
