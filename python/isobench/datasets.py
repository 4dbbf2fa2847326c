"""Hugging Face `datasets` through Arrow: `convert(dataset, from_, to)` returns a
`datasets.Dataset` of the target format, its columns typed as `cargo isobench convert -o
out.parquet` types them (no `null`-typed column), its features read from the table."""

from __future__ import annotations

from typing import Any

import isobench


def convert(dataset: Any, from_: str, to: str, **options: Any) -> Any:
    """Converts a `datasets.Dataset` of `from_` records to one of `to` records. The
    keyword arguments are `isobench.convert_arrow`'s (`profile`, `on_error`, `rejects`,
    `set`, `allow_incomplete`, ...)."""
    import datasets

    if getattr(dataset, "_indices", None) is not None:
        # A selection or shuffle: its rows in their order, as a table of their own.
        dataset = dataset.flatten_indices()
    table = isobench.convert_arrow(dataset.data.table, from_=from_, to=to, **options)
    # The table's schema metadata holds the columns as `datasets` features.
    return datasets.Dataset(table)
