#!/usr/bin/env python3
"""The benchmark's Python implementations of `convert --from swe-bench --to canonical`
(lossless) for SWE-bench Verified rows: `json` (stdlib, line by line), `orjson` (line by
line), `datasets` (Hugging Face `datasets`: load, map, write) and `pandas` (read_json lines,
apply, to_json). Usage: py_convert.py IMPL INPUT OUTPUT"""
import json
import sys

TOP = ["repo", "instance_id", "created_at", "base_commit", "patch", "test_patch", "version"]
EXT = ["problem_statement", "hints_text", "environment_setup_commit", "difficulty"]
LISTS = {"FAIL_TO_PASS": "fail_to_pass", "PASS_TO_PASS": "pass_to_pass"}


def encoding(value):
    if isinstance(value, list):
        return None
    # The style shows between elements: `", "` spaced, `","` compact, none in `[]`/`["a"]`.
    if '", "' in value:
        return "json-spaced"
    if '","' in value:
        return "json-compact"
    return "json"


def convert(row, loads):
    out = {k: row[k] for k in TOP if row.get(k) is not None}
    ext = {}
    encodings = {}
    for k in EXT:
        if k in row and row[k] is not None:
            ext[k] = row[k]
    for k, name in LISTS.items():
        if k in row and row[k] is not None:
            value = row[k]
            enc = encoding(value)
            if enc:
                encodings[k] = enc
                value = loads(value)
            ext[name] = value
    source = {"format": "swe-bench", "keys": list(row.keys())}
    if encodings:
        source["encodings"] = encodings
    ext["source"] = source
    out["extensions"] = ext
    return out


def main():
    impl, src, dest = sys.argv[1:4]
    if impl == "json":
        with open(src, "rb") as f, open(dest, "w") as out:
            for line in f:
                if line.strip():
                    out.write(json.dumps(convert(json.loads(line), json.loads)) + "\n")
    elif impl == "orjson":
        import orjson

        with open(src, "rb") as f, open(dest, "wb") as out:
            for line in f:
                if line.strip():
                    out.write(orjson.dumps(convert(orjson.loads(line), orjson.loads)) + b"\n")
    elif impl == "datasets":
        import datasets

        ds = datasets.load_dataset("json", data_files=src, split="train", keep_in_memory=False)
        keys = ds.column_names
        with open(dest, "w") as out:
            for row in ds:
                row = {k: row[k] for k in keys}
                out.write(json.dumps(convert(row, json.loads)) + "\n")
    elif impl == "pandas":
        import pandas

        frame = pandas.read_json(src, lines=True)
        with open(dest, "w") as out:
            for row in frame.to_dict(orient="records"):
                out.write(json.dumps(convert(row, json.loads), default=str) + "\n")
    else:
        sys.exit(f"unknown implementation {impl}")


if __name__ == "__main__":
    main()
