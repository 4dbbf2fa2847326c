"""Convert coding-agent benchmark datasets through one canonical schema.

The conversion is `cargo isobench`'s own Rust code, called directly (no subprocess, no
command line): every function here gives the same records as `cargo isobench convert`
with the flags of the same names. The GIL is released while Rust works.

    import isobench
    report = isobench.convert(["verified.jsonl"], from_="swe-bench", to="canonical",
                              output="canonical.jsonl")
    rows = list(isobench.convert_records(records, from_="swe-bench", to="canonical"))
    table = isobench.convert_arrow(pa_table, from_="swe-bench", to="canonical")
"""

from __future__ import annotations

import gc
import json
import os
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Union

from . import _isobench
from ._isobench import (
    IsobenchError,
    PluginError,
    ReadError,
    RecordError,
    RepositoryError,
    UnknownFormatError,
    UsageError,
    WriteError,
)

__all__ = [
    "IsobenchError",
    "PluginError",
    "ReadError",
    "RecordError",
    "RepositoryError",
    "UnknownFormatError",
    "UsageError",
    "WriteError",
    "Problem",
    "adapters",
    "convert",
    "convert_arrow",
    "convert_records",
    "load_adapter",
    "load_plugin",
    "mine",
    "options",
    "table_records",
    "validate",
]

#: The package's version: the workspace's, which the wheel's metadata carries too.
__version__: str = _isobench.__version__


def __dir__() -> List[str]:
    """`dir(isobench)`: what the package offers (`__all__`, the version, and the modules
    for `datasets` and Ray), not the names its own code imports."""
    return sorted([*__all__, "__version__", "datasets", "ray"])


PathLike = Union[str, "os.PathLike[str]"]
Rejects = Union[PathLike, List[Dict[str, Any]], None]

# Records handed per call to Rust by `convert_records`.
_CHUNK = 1024


def adapters() -> List[Dict[str, Any]]:
    """The adapters, as `cargo isobench adapters --json` lists them: name, aliases,
    description, what each carries and cannot carry, and what its consumer requires."""
    return json.loads(_isobench.adapters())


def load_plugin(path: PathLike) -> List[str]:
    """Loads a native plugin (a `cdylib` built with `isobench-plugin-sdk`), as
    `--plugin PATH` does, for every later call in this process; gives the names of the
    formats it adds. A conversion already running keeps the adapters it started with."""
    return _isobench.load_plugin(os.fspath(path))


def load_adapter(path: PathLike) -> List[str]:
    """Loads a format declared by a field table in a TOML file, as `--adapter PATH.toml`
    does, for every later call in this process; gives the names of the formats it adds."""
    return _isobench.load_adapter(os.fspath(path))


def _options(**options: Any) -> Dict[str, Any]:
    """Keyword arguments as the Rust side reads them: by the option's name, paths as
    given (`os.PathLike` too), `set` and `replace` as `FIELD=VALUE` strings."""
    for flag in ("set", "replace"):
        if options.get(flag) is not None:
            options[flag] = _assignments(options[flag])
    return options


def _assignments(set_: Union[Dict[str, Any], Sequence[str]]) -> List[str]:
    """`--set` from a dict (`{"version": "1.0"}`: each value as given, a `str` a string,
    which may name fields as `{instance_id}`) or `FIELD=VALUE` strings (VALUE read as
    JSON when it parses, as the flag reads it)."""
    if isinstance(set_, dict):
        return [
            f"{field}={json.dumps(value, ensure_ascii=False)}" for field, value in set_.items()
        ]
    return list(set_)


def convert(
    inputs: Union[PathLike, Sequence[PathLike]],
    *,
    from_: str,
    to: str,
    output: Optional[PathLike] = None,
    profile: str = "lossless",
    on_error: str = "fail",
    rejects: Optional[PathLike] = None,
    report: Optional[PathLike] = None,
    set: Union[Dict[str, Any], Sequence[str], None] = None,  # noqa: A002 (the flag's name)
    replace: Union[Dict[str, Any], Sequence[str], None] = None,
    jobs: Optional[int] = None,
    overwrite: bool = False,
    limit: Optional[int] = None,
    allow_incomplete: bool = False,
    json_style: str = "auto",
    shard: Optional[str] = None,
    dry_run: bool = False,
    parquet_compression: Optional[str] = None,
    task_org: Optional[str] = None,
) -> Dict[str, Any]:
    """`cargo isobench convert` on files: JSON Lines, JSON arrays, Parquet, `.gz`/`.zst`,
    and `hf:OWNER/NAME[@REVISION][:SPLIT]` ids from the local Hugging Face cache.
    `output=None` writes JSON Lines to standard output, as the command does.
    `parquet_compression` (`"zstd"`, `"zstd:N"`, `"snappy"`, `"gzip"`, `"gzip:N"`, `"lz4"`,
    `"none"`) is that of a `.parquet` output, as `--parquet-compression` takes it. Returns
    the conversion report (what `--report` writes). `set` fills a field only where a
    record has no value for it; `replace` writes over the record's own value, which the
    report's `replaced` counts and `extensions.source.replaced` keeps. `to="harbor"` with
    `output="DIR/"` writes a task folder per record; `task_org` is the org of their
    `[task].name`, as `--task-org` takes it. `from_="harbor"` with a directory among the
    `inputs` reads the task folders this tool wrote (a directory of them, or one)."""
    options = dict(locals())
    del options["from_"], options["to"]
    options["inputs"] = [inputs] if isinstance(inputs, (str, os.PathLike)) else list(inputs)
    return json.loads(_isobench.convert(from_, to, _options(**options)))


class _Rejects:
    """Where rejected records go: a JSON Lines file (as `--rejects` writes it) or a list."""

    def __init__(self, rejects: Rejects, on_error: str, overwrite: bool) -> None:
        self.file = None
        self.list: Optional[List[Dict[str, Any]]] = None
        if on_error != "skip":
            return  # `rejects` without skip: refused by the plan, with the command's message
        if rejects is None:
            raise _usage(
                "`on_error=\"skip\"` needs somewhere for the rejected records",
                "pass `rejects=PATH` (a JSON Lines file) or `rejects=[]` (a list to fill)",
            )
        if isinstance(rejects, list):
            self.list = rejects
        else:
            # The command's own writer: a temporary file put in place when the
            # conversion completes, never written through a link at the path.
            self.file = _isobench.RejectsFile(os.fspath(rejects), overwrite)

    def add(self, lines: List[str]) -> None:
        if self.list is not None:
            self.list.extend(json.loads(line) for line in lines)
        elif self.file is not None:
            self.file.add(lines)

    def close(self) -> None:
        """Puts the file in place: the conversion completed."""
        if self.file is not None:
            self.file.close()

    def abandon(self) -> None:
        """Leaves no file: the conversion stopped."""
        if self.file is not None:
            self.file.abandon()


def _rejects_option(rejects: Rejects) -> Optional[str]:
    """What the plan is told of `rejects` (the Python side writes them)."""
    if rejects is None:
        return None
    return "<list>" if isinstance(rejects, list) else os.fspath(rejects)


def _usage(message: str, hint: str) -> UsageError:
    err = UsageError(message)
    err.hint = hint
    err.exit_code = 2
    return err


def convert_records(
    records: Iterable[Dict[str, Any]],
    *,
    from_: str,
    to: str,
    profile: str = "lossless",
    on_error: str = "fail",
    rejects: Rejects = None,
    set: Union[Dict[str, Any], Sequence[str], None] = None,  # noqa: A002
    replace: Union[Dict[str, Any], Sequence[str], None] = None,
    allow_incomplete: bool = False,
    overwrite: bool = False,
) -> Iterator[Dict[str, Any]]:
    """Converts records (dicts) and yields the converted ones, streaming, in order: the
    records `cargo isobench convert` writes for the same records read as JSON Lines.

    `set` fills a field only where a record has no value for it, `replace` writes over
    the record's own (kept in `extensions.source.replaced`), as in `convert`.

    A bad record raises `RecordError` (`on_error="fail"`), or with `on_error="skip"` goes
    to `rejects`: a path (JSON Lines, the lines `--rejects` writes) or a list to append
    them to (dicts). `line` in errors and rejects is the record's 1-based position.

    Each chunk of records is converted with the cycle collector disabled; it is put back
    as it was before the chunk's records are yielded, and when the conversion raises."""
    options = _options(
        profile=profile,
        set=set,
        replace=replace,
        allow_incomplete=allow_incomplete,
        on_error=on_error,
        rejects=_rejects_option(rejects),
        # What the records were sent as before they were read directly: the text of
        # `json.dumps(record, ensure_ascii=False)`, whose style is this.
        json_style="spaced",
    )
    converter = _isobench.RecordConverter(from_, to, options)
    sink = _Rejects(rejects, on_error, overwrite)
    try:
        chunk: List[Any] = []
        for record in records:
            chunk.append(record)
            if len(chunk) >= _CHUNK:
                yield from _convert_chunk(converter, chunk, sink)
                chunk = []
        if chunk:
            yield from _convert_chunk(converter, chunk, sink)
    except BaseException:
        sink.abandon()
        raise
    sink.close()


def _convert_chunk(converter: Any, chunk: List[Any], sink: _Rejects) -> Iterator[Dict[str, Any]]:
    # The dicts are read in Rust directly (no JSON text), and the output made as dicts.
    # The cycle collector is kept from running during the call: the call makes a list
    # for each test list and a few dicts for each record, none of them in a cycle, and
    # the collector would otherwise traverse the chunk's new lists of strings many
    # times over as they are made. Its state is the caller's again when the call
    # returns or raises; what the call made is collected as anything else is after it.
    # (While the call runs without the GIL, another thread's objects wait too.)
    collecting = gc.isenabled()
    gc.disable()
    try:
        out, rejected, _report = converter.records(chunk)
    finally:
        if collecting:
            gc.enable()
    sink.add(rejected)
    yield from out


def convert_arrow(
    data: Any,
    *,
    from_: str,
    to: str,
    profile: str = "lossless",
    on_error: str = "fail",
    rejects: Rejects = None,
    set: Union[Dict[str, Any], Sequence[str], None] = None,  # noqa: A002
    replace: Union[Dict[str, Any], Sequence[str], None] = None,
    allow_incomplete: bool = False,
    overwrite: bool = False,
    all_columns: bool = False,
    stream: Optional[bool] = None,
) -> Any:
    """Converts Arrow data of `from_` records into Arrow data of `to` records, batch by
    batch, through the Arrow C stream interface.

    `data`: a `pyarrow.Table` or `RecordBatch`, or any Arrow stream (an object with
    `__arrow_c_stream__`: a `pyarrow.RecordBatchReader`, a polars `DataFrame`, ...).
    A table or record batch gives a `pyarrow.Table`; any other stream gives a
    `pyarrow.RecordBatchReader` that converts an input batch each time it is read from,
    holding at most a few batches (`stream=True` or `False` asks for one or the other).

    Rows are read as `convert` reads Parquet rows, and typed as `convert -o out.parquet`
    types its columns (the target format's schema; `__extra` and `__keys` where needed).
    A table leaves out the columns no record has, as the Parquet file does, unless
    `all_columns`; a stream has every column of the target's declaration, nullable, so
    that its schema is known before its first batch (that of a table with
    `all_columns=True`). Rejects as for `convert_records`; `line` is the row's 1-based
    number."""
    import pyarrow as pa

    if isinstance(data, pa.RecordBatch):
        data = pa.Table.from_batches([data])
    if stream is None:
        stream = not isinstance(data, pa.Table)
    converter, sink = _arrow_converter(
        data,
        from_=from_,
        to=to,
        profile=profile,
        on_error=on_error,
        rejects=rejects,
        set=set,
        replace=replace,
        allow_incomplete=allow_incomplete,
        overwrite=overwrite,
    )
    if stream:
        try:
            schema = _schema(converter.schema())
        except BaseException:
            sink.abandon()
            raise
        return pa.RecordBatchReader.from_batches(schema, _batches(converter, sink))
    try:
        schema = _schema(converter.schema())
    except BaseException:
        sink.abandon()
        raise
    # `_batches` puts the rejects file in place once every batch is converted.
    table = pa.Table.from_batches(list(_batches(converter, sink)), schema)
    if not all_columns:
        kept = _schema(converter.kept_schema())
        table = table.select(kept.names).replace_schema_metadata(kept.metadata)
    return table


def _schema(stream: Any) -> Any:
    """The schema of a converter's schema stream (`schema()`, `kept_schema()`), its
    metadata in key order: the order a Parquet file's `ARROW:schema` holds it in, as
    Arrow's IPC writer writes it (so `convert -o out.parquet` does), where the C data
    interface hands it over in the order of the map holding it, another each time."""
    import pyarrow as pa

    schema = pa.table(stream).schema
    if schema.metadata:
        schema = schema.with_metadata(dict(sorted(schema.metadata.items())))
    return schema


def _arrow_converter(
    data: Any,
    *,
    from_: str,
    to: str,
    profile: str = "lossless",
    on_error: str = "fail",
    rejects: Rejects = None,
    set: Union[Dict[str, Any], Sequence[str], None] = None,  # noqa: A002
    replace: Union[Dict[str, Any], Sequence[str], None] = None,
    allow_incomplete: bool = False,
    overwrite: bool = False,
) -> Any:
    """An `ArrowConverter` of the stream `data` and where its rejects go."""
    options = _options(
        profile=profile,
        set=set,
        replace=replace,
        allow_incomplete=allow_incomplete,
        on_error=on_error,
        rejects=_rejects_option(rejects),
    )
    # Checked before any rejects file is made.
    _isobench.RecordConverter(from_, to, options)
    converter = _isobench.ArrowConverter(data.__arrow_c_stream__(), from_, to, options)
    return converter, _Rejects(rejects, on_error, overwrite)


def _batches(converter: Any, sink: _Rejects) -> Iterator[Any]:
    """The converted batches of an `ArrowConverter`, their rejects handed to `sink`
    as they come; the sink is put in place at the end, or abandoned when the
    conversion stops."""
    import pyarrow as pa

    try:
        while True:
            converted = converter.next_batch()
            if converted is None:
                break
            batch, rejected = converted
            sink.add(rejected)
            yield from pa.table(batch).to_batches()
        sink.add(converter.take_rejects())
    except BaseException:
        sink.abandon()
        raise
    sink.close()


def table_records(table: Any) -> List[Dict[str, Any]]:
    """The records of an Arrow table, read as `convert` reads a Parquet file: a table
    `convert_arrow` made (or a file `convert` wrote) gives back its records exactly."""
    import pyarrow as pa

    if isinstance(table, pa.RecordBatch):
        table = pa.Table.from_batches([table])
    return [json.loads(line) for line in _isobench.arrow_lines(table.__arrow_c_stream__())]


class Problem(dict):
    """One problem `validate` found: `file`, `line`, `instance_id`, `pointer`, `message`."""


def validate(
    inputs: Union[PathLike, Sequence[PathLike]],
    *,
    format: str,  # noqa: A002 (the flag's name)
    profile: str = "lossless",
) -> Dict[str, Any]:
    """`cargo isobench validate`: `{"records": N, "problems": [Problem, ...]}`, every
    problem of every record against the format's schema, import and consumer."""
    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    records, problems = _isobench.validate([os.fspath(i) for i in inputs], format, profile)
    return {
        "records": records,
        "problems": [
            Problem(file=f, line=line, instance_id=i, pointer=p, message=m)
            for f, line, i, p, m in problems
        ],
    }


def mine(
    repo: PathLike,
    output: PathLike,
    *,
    repo_name: Optional[str] = None,
    head: Sequence[str] = (),
    base: Optional[str] = None,
    range: Sequence[str] = (),  # noqa: A002 (the flag's name)
    preset: str = "default",
    only_source: bool = False,
    code_and_tests: bool = False,
    language_drivers: bool = False,
    max_files: Optional[int] = None,
    paths: Sequence[str] = (),
    python: Optional[str] = None,
    arch: str = "x86_64",
    image: str = "latest",
    install: Sequence[str] = (),
    overwrite: bool = False,
    jobs: Optional[int] = None,
) -> int:
    """`cargo isobench mine`: canonical records of a git repository's commits, written to
    `output` as JSON Lines. Returns the command's exit code (0: every commit mined).
    `python` (with `arch`, `image` and the `install` commands) gives each record the
    `version` environment signature, as `--python` does."""
    return _isobench.mine(dict(locals()))


def options(command: str) -> List[Dict[str, Any]]:
    """The options `convert` or `mine` takes as keyword arguments, as the command line
    declares them: `name` (the keyword; the flag is `--` and the name with dashes),
    `default` (as the flag's help prints it, `None` for none) and `choices`."""
    return json.loads(_isobench.options(command))
