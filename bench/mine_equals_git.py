#!/usr/bin/env python3
"""Mined diffs against git's, on every commit of a range of a real repository.

Usage: bench/mine_equals_git.py --repo CLONE --range FROM..TO [--bin PATH] [--runs N]
                                [--work DIR] [--show N]

Two measurements in one run:

* Equality: every record `cargo isobench mine --range FROM..TO` writes is split into its
  file diffs (`patch` and `test_patch` together) and each is compared with the file diff of
  `git --attr-source=TO log -p -M --diff-merges=first-parent` for the same commit (the
  attributes of the range's end, as the clone is bare), hunk headers included, `index`
  lines aside (git abbreviates ids to more than 7 hex digits in a large repository). The
  share that is equal is printed, and the others are sorted into kinds; a file the record
  names in `extensions.mining.not_utf8` is its own kind. `--language-drivers` mines with
  that flag and gives git the same drivers by `core.attributesFile`.
* CPU: `mine --range` (functions included, one job) and the same `git log` command, A and B
  interleaved `--runs` times, user + system time of the child process; medians. With
  `--before BIN`, that build's `mine --range` is a third job in the same loop (its records
  compared with `cmp`'s rule: byte for byte), so that two builds and git are measured
  under the same load. The load average is printed before and after the loop.

The clone is only read.
"""

import argparse
import collections
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import time

MARK = "\x01commit "


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def split_files(text):
    """A unified diff's file sections, keyed by their `diff --git` line, `index` lines
    dropped."""
    files = {}
    key = None
    for line in text.splitlines(keepends=True):
        if line.startswith("diff --git "):
            key = line.rstrip("\n")
            files[key] = []
        if key is None or line.startswith("index "):
            continue
        files[key].append(line)
    return {k: "".join(v) for k, v in files.items()}


GIT_LOG = ["log", "-p", "-M", "--diff-merges=first-parent", "--no-color", "--format=" + MARK + "%H"]


LANGUAGE_ATTRIBUTES = "*.py diff=python\n*.pyi diff=python\n*.go diff=golang\n*.rs diff=rust\n*.rb diff=ruby\n"


def git_base(repo, rng, attributes):
    base = ["git", "-C", repo, "--attr-source=" + rng.split("..")[1]]
    if attributes:
        base += ["-c", "core.attributesFile=" + attributes]
    return base


def git_diffs(repo, rng, attributes):
    out = subprocess.run(
        [*git_base(repo, rng, attributes), *GIT_LOG, rng], check=True, capture_output=True
    ).stdout.decode("utf-8", "surrogateescape")
    commits = {}
    for chunk in out.split(MARK)[1:]:
        sha, _, rest = chunk.partition("\n")
        commits[sha.strip()] = split_files(rest.lstrip("\n"))
    return commits


def kind(ours, theirs):
    if ours is None:
        return "file missing from the mined record"
    if theirs is None:
        return "file git does not write"
    o, t = ours.splitlines(), theirs.splitlines()
    if o[:1] != t[:1] or [l for l in o if not l.startswith(("@@", "+", "-", " "))] != [
        l for l in t if not l.startswith(("@@", "+", "-", " "))
    ]:
        return "header lines (mode, rename, similarity, /dev/null)"
    if sorted(l for l in o if l[:1] in "+-") == sorted(l for l in t if l[:1] in "+-"):
        return "same lines, other hunk placement"
    return "other changed lines"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(here, "..", "target", "release", "cargo-isobench"))
    ap.add_argument("--repo", required=True)
    ap.add_argument("--range", required=True)
    ap.add_argument("--work", default=os.path.join(here, "..", "target", "bench-mine-git"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--show", type=int, default=0, help="print the first N differing file diffs")
    ap.add_argument("--language-drivers", action="store_true")
    ap.add_argument("--before", help="an earlier build, run in the same loop")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    out = os.path.join(args.work, "mined.jsonl")
    mine = [args.bin, "mine", "--repo", args.repo, "--repo-name", "bench/repo", "--range",
            args.range, "--jobs", "1", "-o", out, "--overwrite"]
    attributes = None
    if args.language_drivers:
        mine.append("--language-drivers")
        attributes = os.path.join(args.work, "language.attributes")
        with open(attributes, "w") as f:
            f.write(LANGUAGE_ATTRIBUTES)

    def run_ours(command=mine):
        c0 = child_cpu()
        subprocess.run(command, check=True, capture_output=True)
        return child_cpu() - c0

    before_out = os.path.join(args.work, "mined-before.jsonl")
    before = None
    if args.before:
        before = [args.before, *mine[1:]]
        before[before.index(out)] = before_out

    def run_git():
        c0 = child_cpu()
        subprocess.run([*git_base(args.repo, args.range, attributes), *GIT_LOG, args.range],
                       check=True, stdout=subprocess.DEVNULL)
        return child_cpu() - c0

    ours_cpu, git_cpu, before_cpu = [], [], []
    load_before = os.getloadavg()
    for _ in range(args.runs):
        if before:
            before_cpu.append(run_ours(before))
        ours_cpu.append(run_ours())
        git_cpu.append(run_git())
    load_after = os.getloadavg()
    commits = int(subprocess.run(["git", "-C", args.repo, "rev-list", "--count", args.range],
                                 check=True, capture_output=True, text=True).stdout)

    theirs = git_diffs(args.repo, args.range, attributes)
    total = equal = 0
    kinds = collections.Counter()
    shown = 0
    with open(out) as f:
        for line in f:
            rec = json.loads(line)
            sha = rec["head_commit"]
            ours = split_files(rec["patch"] + rec["test_patch"])
            git = theirs.get(sha, {})
            not_utf8 = [f["path"] for f in rec["extensions"]["mining"].get("not_utf8", [])]
            for key in sorted(set(ours) | set(git)):
                total += 1
                a, b = ours.get(key), git.get(key)
                if a == b:
                    equal += 1
                    continue
                if a is None and any(p in key for p in not_utf8):
                    k = "left out, named in extensions.mining.not_utf8"
                else:
                    k = kind(a, b)
                kinds[k] += 1
                if shown < args.show:
                    shown += 1
                    print(f"--- {sha[:10]} {key} [{k}]\n<<< mined\n{a}=== git\n{b}>>>")
    up = os.getloadavg()
    print(f"range {args.range}: {commits} commits, load average {up[0]:.2f} {up[1]:.2f} {up[2]:.2f}")
    print(f"file diffs: {total}, equal to git: {equal} ({100 * equal / max(total, 1):.2f}%)")
    for k, n in kinds.most_common():
        print(f"  {n:5}  {k}")
    o, g = statistics.median(ours_cpu), statistics.median(git_cpu)
    print(f"cpu (median of {args.runs}, interleaved): mine --range --jobs 1 {o:.2f} s "
          f"({commits / o:.0f} commits per cpu-second); git log -p -M --diff-merges=first-parent "
          f"{g:.2f} s ({commits / g:.0f}); ratio {o / g:.2f}")
    print("load average before the loop {:.2f} {:.2f} {:.2f}, after {:.2f} {:.2f} {:.2f}".format(
        *load_before, *load_after))
    if before:
        b = statistics.median(before_cpu)
        with open(out, "rb") as f1, open(before_out, "rb") as f2:
            same = f1.read() == f2.read()
        print(f"before: {b:.2f} s, ratio {b / g:.2f}; records byte for byte the same: {same}")


if __name__ == "__main__":
    sys.exit(main())
