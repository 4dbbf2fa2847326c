"""Ray Data: `convert(ds, from_, to)` converts a `ray.data.Dataset` with `map_batches` on
Arrow batches, spread over the cluster, each batch converted in Rust with the GIL
released. The result is a `ray.data.Dataset` of the target format that Ray's own writers
(`write_parquet`, `write_json`) write out; every batch has the same columns, typed as
`cargo isobench convert -o out.parquet` types them.

Bad records stop the job (`on_error="fail"`, the default: the task raises
`isobench.RecordError`), or with `on_error="skip"` go to `rejects`, a directory each task
writes its rejected records to (JSON Lines, the lines `--rejects` writes, one file per
batch that had some). Nothing is dropped."""

from __future__ import annotations

import os
import uuid
from typing import Any, Dict, Optional

import isobench


class _Convert:
    def __init__(
        self, from_: str, to: str, rejects: Optional[str], options: Dict[str, Any]
    ) -> None:
        self.from_ = from_
        self.to = to
        self.rejects = rejects
        self.options = options

    def __call__(self, batch: Any) -> Any:
        rejected: list = []
        table = isobench.convert_arrow(
            batch,
            from_=self.from_,
            to=self.to,
            rejects=rejected if self.rejects is not None else None,
            all_columns=True,
            **self.options,
        )
        if rejected:
            import json

            path = os.path.join(self.rejects, f"rejects-{uuid.uuid4().hex}.jsonl")
            with open(path, "x", encoding="utf-8") as out:
                for line in rejected:
                    out.write(json.dumps(line, ensure_ascii=False) + "\n")
        return table


def convert(
    ds: Any,
    from_: str,
    to: str,
    *,
    on_error: str = "fail",
    rejects: Optional[str] = None,
    batch_size: Optional[int] = 1024,
    **options: Any,
) -> Any:
    """Converts `ds` (a `ray.data.Dataset` of `from_` records) to a dataset of `to`
    records. `rejects`: the directory for rejected records, needed by `on_error="skip"`
    (made if missing; on a real cluster, a path every worker can write, such as a shared
    file system). Other keyword arguments are `isobench.convert_arrow`'s."""
    if on_error == "skip":
        if rejects is None:
            err = isobench.UsageError(
                '`on_error="skip"` needs a `rejects` directory for the rejected records'
            )
            err.hint = "pass `rejects=DIR`, a directory every worker can write"
            err.exit_code = 2
            raise err
        os.makedirs(rejects, exist_ok=True)
    elif rejects is not None:
        err = isobench.UsageError("`--rejects` is only used with `--on-error skip`")
        err.hint = "add `--on-error skip`, or drop `--rejects`"
        err.exit_code = 2
        raise err
    # Checked here, on the driver, before any task runs.
    list(isobench.convert_records([], from_=from_, to=to, **_record_options(options)))
    convert_batch = _Convert(from_, to, rejects, dict(options, on_error=on_error))

    def convert_one(batch: Any) -> Any:
        return convert_batch(batch)

    return ds.map_batches(
        convert_one,
        batch_format="pyarrow",
        batch_size=batch_size,
        zero_copy_batch=True,
    )


def _record_options(options: Dict[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in options.items() if k in ("profile", "set", "allow_incomplete")}
