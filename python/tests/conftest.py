"""Shared fixtures: the command-line binary the package is compared with, and the real
published records (`../shared/data/real` beside the repository)."""

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT.parent / "shared" / "data" / "real"
SAMPLES = ROOT / "examples" / "data"

# Real folders and their formats (`multi-swe-bench` comes from the workspace's plugin,
# which both the package and the command line load: `plugin_path`).
REAL_FORMATS = {
    "swebench-verified": "swe-bench",
    "swebench-lite": "swe-bench",
    "swebench-full": "swe-bench",
    "swesmith": "swe-smith",
    "multi-swe-bench": "multi-swe-bench",
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


def plugin_path() -> Path:
    """The Multi-SWE-bench plugin the workspace builds beside the binary (built if
    missing)."""
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    library = target / "debug" / "libisobench_multi_swe_bench.so"
    if not library.exists():
        subprocess.run(
            ["cargo", "build", "--quiet", "-p", "isobench-multi-swe-bench"], cwd=ROOT, check=True
        )
    return library


@pytest.fixture(scope="session", autouse=True)
def multi_swe_bench_plugin():
    """The package loads the plugin once, for the whole session; the command line is
    given it on every call that reads adapters, so both know the same formats."""
    import isobench

    path = plugin_path()
    assert isobench.load_plugin(path) == ["multi-swe-bench"]
    return path


@pytest.fixture(scope="session")
def cli(multi_swe_bench_plugin):
    binary = cli_path()

    def run(*args, check=True):
        args = [str(a) for a in args]
        if args[0] in ("convert", "validate", "adapters", "schema"):
            args += ["--plugin", str(multi_swe_bench_plugin)]
        done = subprocess.run(
            [str(binary), "isobench", *args], capture_output=True, text=True
        )
        if check and done.returncode not in (0, 1):
            raise AssertionError(f"cargo isobench {' '.join(map(str, args))}: {done.stderr}")
        return done

    return run


def real_files():
    """pytest parameters (format, path) of every real file, or one skipped parameter
    saying why there are none."""
    if not REAL.is_dir():
        return [pytest.param(None, None, marks=pytest.mark.skip(
            reason=f"the real records are not at {REAL}"), id="no-real-records")]
    found = []
    for folder in sorted(REAL.iterdir()):
        if not folder.is_dir():
            continue
        fmt = REAL_FORMATS.get(folder.name)
        for path in sorted(folder.glob("*.jsonl")):
            assert fmt, f"{folder}: a real folder whose format the tests do not know"
            found.append(pytest.param(fmt, path, id=f"{folder.name}/{path.name}"))
    return found


def read_jsonl(path):
    import json

    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
