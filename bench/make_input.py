#!/usr/bin/env python3
"""Builds a JSONL input of about SIZE_MB megabytes by repeating the real SWE-bench Verified
records, giving each copy a unique `instance_id` (`<id>__copy<N>`); every other byte of a
record is kept as published."""
import re
import sys

ID = re.compile(rb'"instance_id": ?"([^"\\]*)"')


def main() -> None:
    source, dest, size_mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
    with open(source, "rb") as f:
        lines = [line.rstrip(b"\n") for line in f if line.strip()]
    target = int(size_mb * 1_000_000)
    written = 0
    copy = 0
    with open(dest, "wb") as out:
        while written < target:
            for line in lines:
                if copy == 0:
                    text = line
                else:
                    text = ID.sub(
                        lambda m: m.group(0)[: -1] + b"__copy%d\"" % copy, line, count=1
                    )
                out.write(text + b"\n")
                written += len(text) + 1
                if written >= target:
                    break
            copy += 1
    print(f"{dest}: {written / 1e6:.1f} MB", file=sys.stderr)


if __name__ == "__main__":
    main()
