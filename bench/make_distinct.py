#!/usr/bin/env python3
"""Writes about SIZE_MB megabytes of distinct SWE-bench rows as JSON Lines, in the layout of
Hugging Face's `princeton-nlp/SWE-bench_Verified`: 13 string columns, the test lists
(`FAIL_TO_PASS`, `PASS_TO_PASS`) as JSON-encoded strings.

    bench/make_distinct.py SOURCE.jsonl [SOURCE.jsonl ...] DEST.jsonl SIZE_MB [--seed N]

Each row is made from a real row of the sources (its repo, version and difficulty, its
sizes, the shape of its texts): its patch and test patch are that row's per-file diffs with
one more file diff from another row now and then, its problem statement and hints that
row's paragraphs with one from another row now and then, its test lists that row's test ids;
then words of each text are renamed, row by row, to other words of the sources (about one
distinct word in eight, the same renaming in all of a row's texts so that a test id still
names a function of its patch). A row's ids and commits are its own: `instance_id` is
`owner__name-<number>` with a number no other row has, the commits are 40 random hex
digits, `created_at` a random second from 2012 to 2024 in `YYYY-MM-DDTHH:MM:SSZ`.

Every row differs from every other in every bulk column (`patch`, `test_patch`,
`problem_statement`, `hints_text`, `FAIL_TO_PASS`, `PASS_TO_PASS`), checked by hash, except
that a value with no word in it (an empty `hints_text` or one of only blank lines, an empty
`PASS_TO_PASS` list) stays as it is, as often as in the sources. The output depends only on the sources, SIZE_MB and the seed (default 31).
Python's standard library only.
"""
import argparse
import hashlib
import json
import random
import re
import sys

COLUMNS = [
    "repo", "instance_id", "base_commit", "patch", "test_patch", "problem_statement",
    "hints_text", "created_at", "version", "FAIL_TO_PASS", "PASS_TO_PASS",
    "environment_setup_commit", "difficulty",
]
BULK = ["patch", "test_patch", "problem_statement", "hints_text", "FAIL_TO_PASS", "PASS_TO_PASS"]
# Verified's published counts of each difficulty.
DIFFICULTY = [("<15 min fix", 194), ("15 min - 1 hour", 261), ("1-4 hours", 42), (">4 hours", 3)]
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")
TOKEN = re.compile(r"(\w+)")
# Words of the unified diff syntax itself, never renamed.
KEEP = {"diff", "index", "null", "mode", "file", "deleted", "similarity", "rename", "from",
        "Binary", "files", "differ", "test", "tests", "self", "None", "True", "False",
        "import", "return", "class", "def", "pytest"}
START = 1_325_376_000  # 2012-01-01T00:00:00Z
END = 1_735_689_600  # 2025-01-01T00:00:00Z


def load(paths: list[str]) -> list[dict]:
    rows, seen = [], set()
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                row = json.loads(line)
                if not all(isinstance(row.get(c), str) for c in COLUMNS if c != "difficulty"):
                    continue
                if row["instance_id"] in seen or not row["patch"]:
                    continue
                seen.add(row["instance_id"])
                rows.append(row)
    return rows


def file_diffs(patch: str) -> list[str]:
    parts = patch.split("\ndiff --git ")
    return [parts[0]] + ["diff --git " + p for p in parts[1:]]


def rename(text: str, mapping: dict[str, str]) -> str:
    """`text` with each whole word that is a key of `mapping` replaced, in one pass."""
    if not mapping:
        return text
    get = mapping.get
    return "".join([get(t, t) for t in TOKEN.split(text)])


def rename_list(tests: list[str], mapping: dict[str, str]) -> str:
    """The JSON text of `tests` renamed (a test id holds no line break)."""
    if not tests or any("\n" in t for t in tests):
        return json.dumps(tests)
    return json.dumps(rename("\n".join(tests), mapping).split("\n"))


class Maker:
    def __init__(self, rows: list[dict], seed: int):
        self.rows = rows
        self.rng = random.Random(seed)
        vocab: dict[str, None] = {}
        for row in rows:
            for word in WORD.findall(row["patch"]) + WORD.findall(row["problem_statement"]):
                vocab.setdefault(word)
        self.vocab = sorted(vocab)
        self.diffs = [d for row in rows for d in file_diffs(row["test_patch"]) + file_diffs(row["patch"]) if d]
        self.paragraphs = [p for row in rows for p in row["problem_statement"].split("\n\n") if p.strip()]
        self.seen = {c: set() for c in BULK}
        self.numbers = set()

    def new_word(self) -> str:
        rng = self.rng
        word = rng.choice(self.vocab)
        if rng.random() < 0.5:
            word = f"{word}_{rng.choice(self.vocab).lower()}"
        return word

    def mapping(self, text: str) -> dict[str, str]:
        words = sorted({w for w in WORD.findall(text) if w not in KEEP})
        if not words:
            return {}
        count = min(len(words), max(2, len(words) // 8))
        return {w: self.new_word() for w in self.rng.sample(words, count)}

    def row(self, number: int) -> dict:
        rng = self.rng
        base = rng.choice(self.rows)
        owner, name = base["repo"].split("/", 1)
        out = {
            "repo": base["repo"],
            "instance_id": f"{owner}__{name}-{number}",
            "base_commit": f"{rng.getrandbits(160):040x}",
            "created_at": "",
            "version": base["version"],
            "environment_setup_commit": f"{rng.getrandbits(160):040x}",
            "difficulty": base.get("difficulty") or rng.choices([d for d, _ in DIFFICULTY], [n for _, n in DIFFICULTY])[0],
        }
        seconds = rng.randrange(START, END)
        days, rest = divmod(seconds, 86400)
        out["created_at"] = civil(days) + f"T{rest // 3600:02d}:{rest // 60 % 60:02d}:{rest % 60:02d}Z"
        texts = {
            "patch": file_diffs(base["patch"]),
            "test_patch": file_diffs(base["test_patch"]) if base["test_patch"] else [],
            "problem_statement": base["problem_statement"].split("\n\n"),
            "hints_text": base["hints_text"].split("\n\n") if base["hints_text"] else [],
        }
        for column, parts in texts.items():
            if parts and rng.random() < 0.3:
                pool = self.paragraphs if column in ("problem_statement", "hints_text") else self.diffs
                parts.insert(rng.randrange(len(parts) + 1), rng.choice(pool))
        fail = json.loads(base["FAIL_TO_PASS"])
        passing = json.loads(base["PASS_TO_PASS"])
        # One renaming for all of the row's texts, from the words of its code.
        mapping = self.mapping("\n".join(texts["patch"] + texts["test_patch"] + fail + passing))
        for attempt in range(100):
            made = {}
            for column, parts in texts.items():
                sep = "\n" if column.endswith("patch") else "\n\n"
                text = sep.join(parts)
                made[column] = rename(text, mapping | self.mapping(text))
            made["FAIL_TO_PASS"] = rename_list(fail, mapping)
            made["PASS_TO_PASS"] = rename_list(passing, mapping)
            digests = {c: hashlib.blake2b(made[c].encode(), digest_size=16).digest() for c in BULK}
            clash = [c for c in BULK if digests[c] in self.seen[c] and WORD.search(made[c])]
            if not clash:
                break
            # Other words, or other names for them, in the texts that repeat an earlier row's.
            sources = {"FAIL_TO_PASS": fail, "PASS_TO_PASS": passing} | texts
            mapping = mapping | self.mapping("\n".join("\n".join(sources[c]) for c in clash))
        else:
            sys.exit(f"row {number}: no distinct rename of {clash} in 100 attempts: {[made[c][:300] for c in clash]}")
        for column in BULK:
            self.seen[column].add(digests[column])
        out.update(made)
        return {c: out[c] for c in COLUMNS}


def civil(days: int) -> str:
    """`YYYY-MM-DD` of a count of days since 1970-01-01 (proleptic Gregorian)."""
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    year = yoe + era * 400 + (month <= 2)
    return f"{year:04d}-{month:02d}-{day:02d}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+", help="SOURCE.jsonl ... DEST.jsonl")
    parser.add_argument("size_mb", type=float)
    parser.add_argument("--seed", type=int, default=31)
    args = parser.parse_args()
    *sources, dest = args.paths
    rows = load(sources)
    if not rows:
        sys.exit("no SWE-bench rows in the sources")
    maker = Maker(rows, args.seed)
    target = int(args.size_mb * 1_000_000)
    written = 0
    number = 0
    with open(dest, "w", encoding="utf-8") as out:
        while written < target:
            line = json.dumps(maker.row(10_000 + number), ensure_ascii=False) + "\n"
            out.write(line)
            written += len(line.encode())
            number += 1
    print(f"{dest}: {number} rows, {written / 1e6:.1f} MB, from {len(rows)} source rows", file=sys.stderr)


if __name__ == "__main__":
    main()
