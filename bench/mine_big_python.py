#!/usr/bin/env python3
"""Mining a commit that adds (or edits) one generated Python file of N small functions,
for growing N: CPU per function should stay flat (linear work), not grow with N.

Usage: bench/mine_big_python.py [--bin PATH] [--work DIR] [--sizes 10000,20000,40000]

For each N, a repository gets two commits on top of a root: one adding `gen/big.py` with
N top-level functions and a class of N/10 methods, and one changing every tenth function.
Both are mined with `mine --head` (functions included); CPU is user + system time of the
child process.
"""

import argparse
import os
import resource
import shutil
import subprocess
import sys


def sh(*args, cwd=None):
    subprocess.run(args, check=True, capture_output=True, cwd=cwd)


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def source(n, edited):
    out = []
    for i in range(n):
        body = f"    return x + {i}" if not (edited and i % 10 == 0) else f"    return x * {i}"
        out.append(f"def f{i}(x):\n{body}\n\n")
    out.append("class Big:\n")
    for i in range(n // 10):
        out.append(f"    def m{i}(self):\n        return {i}\n\n")
    return "".join(out)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(here, "..", "target", "release", "cargo-isobench"))
    ap.add_argument("--work", default=os.path.join(here, "..", "target", "bench-big-python"))
    ap.add_argument("--sizes", default="10000,20000,40000")
    args = ap.parse_args()
    env = dict(os.environ, GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1",
               GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@example.org",
               GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@example.org")
    os.environ.update(env)
    print(f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'functions':>10} {'add: cpu s':>11} {'us/function':>12} {'edit: cpu s':>12} {'us/function':>12}")
    for n in [int(s) for s in args.sizes.split(",")]:
        repo = os.path.join(args.work, f"r{n}")
        shutil.rmtree(repo, ignore_errors=True)
        os.makedirs(os.path.join(repo, "gen"))
        sh("git", "init", "-q", repo)
        with open(os.path.join(repo, "README"), "w") as f:
            f.write("x\n")
        sh("git", "add", "-A", cwd=repo)
        sh("git", "commit", "-qm", "root", cwd=repo)
        row = [n]
        for edited in (False, True):
            with open(os.path.join(repo, "gen", "big.py"), "w") as f:
                f.write(source(n, edited))
            sh("git", "add", "-A", cwd=repo)
            sh("git", "commit", "-qm", "edit" if edited else "add", cwd=repo)
            c0 = child_cpu()
            subprocess.run([args.bin, "mine", "--repo", repo, "--repo-name", "b/big", "--head", "HEAD"],
                           check=True, capture_output=True)
            cpu = child_cpu() - c0
            row += [cpu, cpu / (n * 1.1) * 1e6]
        print(f"{row[0]:>10} {row[1]:>11.2f} {row[2]:>12.1f} {row[3]:>12.2f} {row[4]:>12.1f}")


if __name__ == "__main__":
    sys.exit(main())
