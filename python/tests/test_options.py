"""The keyword arguments are the command line's options: the names, defaults and choices
of `convert` and `mine` come from the flags' declaration, so the functions' signatures
are checked against it here."""

import inspect

import pytest

import isobench

# What each function takes besides the command's options: the formats, and what only a
# conversion of records in memory has.
NOT_OPTIONS = {"from_", "to", "all_columns", "stream"}


def parameters(function, keyword_only=False):
    return {
        name: p.default
        for name, p in inspect.signature(function).parameters.items()
        if name not in NOT_OPTIONS and (p.kind == p.KEYWORD_ONLY or not keyword_only)
    }


def flag_default(default):
    """A Python default as the flag's help prints it (`None`: none, a switch off, a
    repeatable flag given no value)."""
    if default is inspect.Parameter.empty or default in (None, False, ()):
        return None
    return str(default)


@pytest.mark.parametrize("command", ["convert", "mine"])
def test_a_function_takes_exactly_its_command_options(command):
    options = isobench.options(command)
    function = getattr(isobench, command)
    taken = parameters(function)
    assert sorted(taken) == sorted(o["name"] for o in options)
    for option in options:
        assert flag_default(taken[option["name"]]) == option["default"], option["name"]


def test_record_functions_take_a_part_of_convert_options():
    names = {o["name"] for o in isobench.options("convert")}
    for function in (isobench.convert_records, isobench.convert_arrow):
        taken = parameters(function, keyword_only=True)
        assert set(taken) <= names, function.__name__
        defaults = {o["name"]: o["default"] for o in isobench.options("convert")}
        for name, default in taken.items():
            assert flag_default(default) == defaults[name], (function.__name__, name)


def test_choices_are_the_flags_values():
    choices = {o["name"]: o["choices"] for o in isobench.options("convert")}
    assert choices["profile"] == ["lossless", "strict"]
    assert choices["on_error"] == ["fail", "skip"]
    assert choices["json_style"] == ["auto", "compact", "spaced"]
    assert choices["output"] == []


def test_a_bad_choice_or_name_is_refused(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text("")
    with pytest.raises(isobench.UsageError, match=r"`profile=loose` is not one of lossless, strict"):
        isobench.convert(source, from_="swe-bench", to="canonical", profile="loose")
    with pytest.raises(isobench.UsageError, match=r"`json_style=pretty` is not one of auto"):
        isobench.convert(source, from_="swe-bench", to="canonical", json_style="pretty")
    with pytest.raises(isobench.UsageError, match=r"`on_error=stop` is not one of fail, skip"):
        list(isobench.convert_records([], from_="swe-bench", to="canonical", on_error="stop"))
    with pytest.raises(TypeError, match="unexpected keyword argument `shards`"):
        isobench._isobench.convert("swe-bench", "canonical", {"shards": "1/2"})
    with pytest.raises(TypeError):
        isobench.convert(source, from_="swe-bench", to="canonical", limit="many")


def test_the_version_is_the_workspace_s_and_the_wheel_s():
    import importlib.metadata
    import pathlib
    import re

    manifest = pathlib.Path(__file__).resolve().parents[2] / "Cargo.toml"
    workspace = re.search(r'^version = "([^"]+)"', manifest.read_text(), re.M).group(1)
    assert isobench.__version__ == workspace
    assert importlib.metadata.version("isobench") == workspace


def test_dir_lists_what_the_package_offers_and_nothing_it_imports():
    names = dir(isobench)
    assert "__version__" in names and "convert" in names and "datasets" in names
    for private in ("gc", "json", "os", "Any", "Union", "_isobench", "PathLike"):
        assert private not in names
    for name in names:
        if name not in ("datasets", "ray"):
            assert hasattr(isobench, name), name
