"""`isobench.mine` writes what `cargo isobench mine` writes, and fails as it fails."""

import json
import subprocess

import pytest

import isobench


def git(repo, *args):
    subprocess.run(
        ["git", "-c", "user.name=Dev", "-c", "user.email=dev@example.com", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """A repository whose second commit fixes `add` and adds a test for it."""
    repo = tmp_path_factory.mktemp("calc")
    git(repo, "init", "-q", "-b", "main")
    (repo / "src").mkdir()
    (repo / "tests").mkdir()
    (repo / "src" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    test = "from src.calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
    (repo / "tests" / "test_calc.py").write_text(test)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "Start")
    (repo / "src" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    test += "\n\ndef test_add_negative():\n    assert add(-1, -2) == -3\n"
    (repo / "tests" / "test_calc.py").write_text(test)
    git(repo, "commit", "-q", "-a", "-m", "Fix add (#7)")
    return repo


def test_mine_writes_what_the_cli_writes(cli, repo, tmp_path):
    done = cli("mine", "--repo", repo, "--head", "HEAD", "--repo-name", "octo/calc",
               "-o", tmp_path / "cli.jsonl")
    assert done.returncode == 0, done.stderr

    code = isobench.mine(repo, tmp_path / "py.jsonl", head=["HEAD"], repo_name="octo/calc")
    assert code == 0
    mined = (tmp_path / "py.jsonl").read_bytes()
    assert mined == (tmp_path / "cli.jsonl").read_bytes()

    [record] = [json.loads(line) for line in mined.splitlines()]
    assert record["instance_id"] == "octo__calc-PR-7"
    assert record["patch_functions"] == ["src/calc.py::add"]
    assert record["test_functions"] == ["tests/test_calc.py::test_add_negative"]
    assert record["test_patch"].startswith("diff --git a/tests/test_calc.py")


def test_mine_with_the_swe_bench_preset_and_a_range(cli, repo, tmp_path):
    args = ("--repo", repo, "--range", "HEAD~1..HEAD", "--preset", "swe-bench",
            "--repo-name", "octo/calc")
    done = cli("mine", *args, "-o", tmp_path / "cli.jsonl")
    assert done.returncode == 0, done.stderr
    isobench.mine(repo, tmp_path / "py.jsonl", range=["HEAD~1..HEAD"], preset="swe-bench",
                  repo_name="octo/calc")
    mined = (tmp_path / "py.jsonl").read_bytes()
    assert mined == (tmp_path / "cli.jsonl").read_bytes()
    # SWE-bench's published diffs carry no `index` lines.
    assert "\nindex " not in json.loads(mined)["patch"]


def test_an_unknown_revision_raises_the_cli_error(cli, repo, tmp_path):
    done = cli("mine", "--repo", repo, "--head", "nope", "--repo-name", "octo/calc",
               "-o", tmp_path / "cli.jsonl", check=False)
    assert done.returncode == 2, done.stderr
    cli_error = next(l for l in done.stderr.splitlines() if l.startswith("error: "))

    with pytest.raises(isobench.IsobenchError) as caught:
        isobench.mine(repo, tmp_path / "py.jsonl", head=["nope"], repo_name="octo/calc")
    assert f"error: {caught.value}" == cli_error
    assert "unknown revision `nope`" in cli_error
    assert caught.value.exit_code == 2
    assert not (tmp_path / "py.jsonl").exists()


def test_an_existing_output_is_kept_unless_overwrite(repo, tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_text("kept\n")
    with pytest.raises(isobench.IsobenchError):
        isobench.mine(repo, out, head=["HEAD"], repo_name="octo/calc")
    assert out.read_text() == "kept\n"
    isobench.mine(repo, out, head=["HEAD"], repo_name="octo/calc", overwrite=True)
    assert json.loads(out.read_text())["instance_id"] == "octo__calc-PR-7"
