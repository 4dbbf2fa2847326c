"""Writes Harbor task folders from SWE-bench 4.x rows the plain Python way, the same files
`cargo isobench convert --to harbor -o DIR/` writes: the baseline of
`bench/task_folders.sh`.

    python3 bench/py_task_folders.py ROWS.jsonl TEMPLATE_FOLDER OUT_DIR [sync]

TEMPLATE_FOLDER is one folder cargo isobench wrote: the scripts every folder shares
(`tests/test.sh`, `tests/grade.py`, `solution/solve.sh`) are read from it, once. Each
folder is written directly in place (no temporary sibling), as a script would; with `sync`,
each file is synced once written (`os.fsync`), as cargo isobench syncs its files."""

import json
import os
import sys

TOOL = "cargo-isobench 0.1.0"


def task_toml(instance_id):
    key = instance_id.lower().replace("__", "_1776_")
    return (
        'schema_version = "1.4"\n'
        'artifacts = ["/testbed"]\n\n'
        f'[task]\nname = "isobench/{instance_id}"\n\n'
        "[metadata.isobench]\n"
        f'instance_id = "{instance_id}"\n'
        'source_format = "swe-bench"\n'
        'benchmark = "swe-bench 4.x"\n'
        'grader = "swebench==4.1.0"\n'
        f'tool = "{TOOL}"\n\n'
        '[verifier]\nenvironment_mode = "separate"\ntimeout_sec = 3600.0\n\n'
        "[agent]\ntimeout_sec = 3600.0\n\n"
        f'[environment]\ndocker_image = "swebench/sweb.eval.x86_64.{key}:latest"\n'
    )


SYNC = False


def write(path, data, executable=False):
    with open(path, "wb") as f:
        f.write(data)
        if SYNC:
            f.flush()
            os.fsync(f.fileno())
    if executable:
        os.chmod(path, 0o755)


def main(rows_path, template, out):
    shared = {}
    for name in ("tests/test.sh", "tests/grade.py", "solution/solve.sh"):
        with open(os.path.join(template, name), "rb") as f:
            shared[name] = f.read()
    os.makedirs(out, exist_ok=True)
    with open(rows_path, encoding="utf-8") as rows:
        for line in rows:
            row = json.loads(line)
            folder = os.path.join(out, row["instance_id"])
            os.makedirs(os.path.join(folder, "solution"))
            os.makedirs(os.path.join(folder, "tests"))
            write(os.path.join(folder, "task.toml"), task_toml(row["instance_id"]).encode())
            write(os.path.join(folder, "instruction.md"), row["problem_statement"].encode())
            write(os.path.join(folder, "solution/solve.sh"), shared["solution/solve.sh"], True)
            write(os.path.join(folder, "solution/gold.patch"), row["patch"].encode())
            write(os.path.join(folder, "tests/test.sh"), shared["tests/test.sh"], True)
            write(os.path.join(folder, "tests/grade.py"), shared["tests/grade.py"])
            config = json.dumps(row, indent=2, ensure_ascii=False) + "\n"
            write(os.path.join(folder, "tests/config.json"), config.encode())


if __name__ == "__main__":
    SYNC = sys.argv[4:5] == ["sync"]
    main(*sys.argv[1:4])
