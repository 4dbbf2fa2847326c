#!/usr/bin/env python3
"""Compares two JSONL files record by record as JSON values (key order ignored); prints
the first difference. Usage: same_json.py A B"""
import itertools
import json
import sys


def main():
    with open(sys.argv[1], "rb") as a, open(sys.argv[2], "rb") as b:
        for n, (x, y) in enumerate(itertools.zip_longest(a, b), 1):
            if x is None or y is None:
                print(f"record {n}: one file ends first")
                sys.exit(1)
            vx, vy = json.loads(x), json.loads(y)
            if vx != vy:
                keys = sorted(k for k in set(vx) | set(vy) if vx.get(k) != vy.get(k))
                print(f"record {n}: differs in {keys}")
                sys.exit(1)
    print("equal")


if __name__ == "__main__":
    main()
