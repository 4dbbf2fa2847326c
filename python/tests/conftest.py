"""Shared fixtures: the command-line binary the package is compared with, and the real
published records (`../shared/data/real` beside the repository)."""

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT.parent / "shared" / "data" / "real"
SAMPLES = ROOT / "examples" / "data"

# Real folders whose format is built in (`multi-swe-bench` comes from a plugin, which the
# package does not load).
REAL_FORMATS = {
    "swebench-verified": "swe-bench",
    "swebench-lite": "swe-bench",
    "swebench-full": "swe-bench",
    "swesmith": "swe-smith",
}


def cli_path() -> Path:
    """`cargo-isobench`: `$ISOBENCH_CLI`, else the workspace's debug build (built if missing)."""
    given = os.environ.get("ISOBENCH_CLI")
    if given:
        return Path(given)
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    binary = target / "debug" / "cargo-isobench"
    if not binary.exists():
        subprocess.run(
            ["cargo", "build", "--quiet", "-p", "cargo-isobench", "--bin", "cargo-isobench"],
            cwd=ROOT,
            check=True,
        )
    return binary


@pytest.fixture(scope="session")
def cli():
    binary = cli_path()

    def run(*args, check=True):
        done = subprocess.run(
            [str(binary), "isobench", *map(str, args)], capture_output=True, text=True
        )
        if check and done.returncode not in (0, 1):
            raise AssertionError(f"cargo isobench {' '.join(map(str, args))}: {done.stderr}")
        return done

    return run


def real_files():
    """pytest parameters (format, path) of every real file; those that cannot run (a
    plugin's format, or no real records at all) are skipped with their reason."""
    if not REAL.is_dir():
        return [pytest.param(None, None, marks=pytest.mark.skip(
            reason=f"the real records are not at {REAL}"), id="no-real-records")]
    found = []
    for folder in sorted(REAL.iterdir()):
        if not folder.is_dir():
            continue
        fmt = REAL_FORMATS.get(folder.name)
        for path in sorted(folder.glob("*.jsonl")):
            marks = () if fmt else pytest.mark.skip(
                reason=f"{path.name}: `{folder.name}` is a plugin's format; the package loads no plugin")
            found.append(pytest.param(fmt, path, marks=marks, id=f"{folder.name}/{path.name}"))
    return found


def read_jsonl(path):
    import json

    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
