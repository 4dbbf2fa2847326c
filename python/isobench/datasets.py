"""Hugging Face `datasets` through Arrow: `convert(dataset, from_, to)` returns a
`datasets.Dataset` of the target format, its columns typed as `cargo isobench convert -o
out.parquet` types them (no `null`-typed column), its features read from the table.

The rows are converted batch by batch into an Arrow file, which the dataset then maps
from disk, as `Dataset.map` writes its cache file: neither the input nor the output is
held in memory whole."""

from __future__ import annotations

import os
import tempfile
import uuid
from typing import Any, Optional

import isobench


def convert(
    dataset: Any, from_: str, to: str, *, cache_file_name: Optional[str] = None, **options: Any
) -> Any:
    """Converts a `datasets.Dataset` of `from_` records to one of `to` records. The
    keyword arguments are `isobench.convert_arrow`'s (`profile`, `on_error`, `rejects`,
    `set`, `allow_incomplete`, ...). `cache_file_name`: the Arrow file the converted rows
    are written to; by default a new file beside the dataset's own cache files, or in
    `datasets`' temporary directory for a dataset held in memory."""
    import datasets
    import pyarrow as pa

    if getattr(dataset, "_indices", None) is not None:
        # A selection or shuffle: its rows in their order, as a table of their own.
        dataset = dataset.flatten_indices()
    table = dataset.data.table
    source = pa.RecordBatchReader.from_batches(table.schema, table.to_batches())
    converter, rejects = isobench._arrow_converter(source, from_=from_, to=to, **options)
    path = cache_file_name or _cache_file(dataset)
    try:
        schema = isobench._schema(converter.schema())
        with pa.OSFile(path, "wb") as file, pa.ipc.new_stream(file, schema) as out:
            for batch in isobench._batches(converter, rejects):
                out.write_batch(batch)
    except BaseException:
        rejects.close()
        if os.path.exists(path):
            os.remove(path)
        raise
    result = datasets.Dataset.from_file(path)
    # The columns no record has are left out, as the Parquet output leaves them out.
    kept = isobench._schema(converter.kept_schema())
    if kept.names != result.column_names:
        result = result.select_columns(kept.names)
    return result


def _cache_file(dataset: Any) -> str:
    """A new Arrow file beside `dataset`'s cache files, or in `datasets`' temporary
    directory (removed when the process ends) for a dataset held in memory."""
    files = getattr(dataset, "cache_files", None) or []
    if files:
        directory = os.path.dirname(files[0]["filename"])
    else:
        try:
            from datasets.fingerprint import get_temporary_cache_files_directory

            directory = get_temporary_cache_files_directory()
        except ImportError:  # an older `datasets`
            directory = tempfile.mkdtemp()
    return os.path.join(directory, f"isobench-{uuid.uuid4().hex}.arrow")
