#!/usr/bin/env python3
"""An example program plugin: the ``custom-adapter`` mapping of ``examples/custom-adapter``,
in Python, under the name ``custom-py``.

Run it through the host with ``isobench.toml``::

    [[plugins]]
    command = ["python3", "plugins/python/example_adapter.py"]
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from isobench_plugin import Adapter, RecordError, order_like, serve, source_block  # noqa: E402

NAME = "custom-py"
STRINGS = [("task_id", "instance_id"), ("repository", "repo"), ("base_sha", "base_commit"),
           ("gold_patch", "patch"), ("test_patch", "test_patch")]
SHARED = [("issue", "problem_statement"), ("fail_to_pass", "fail_to_pass"),
          ("pass_to_pass", "pass_to_pass")]
FIELDS = ["repo", "instance_id", "base_commit", "patch", "test_patch",
          "extensions.problem_statement", "extensions.fail_to_pass", "extensions.pass_to_pass"]


class CustomPy(Adapter):
    name = NAME
    description = "custom-adapter rows, converted by a Python program"
    fills = FIELDS
    carries = FIELDS
    schema = {"type": "object", "required": ["task_id", "repository"]}

    def import_record(self, record, notes):
        rest = dict(record)
        canonical = {}
        for key, field in STRINGS:
            if key in rest:
                value = rest.pop(key)
                if not isinstance(value, str):
                    raise RecordError("expected a string", "/" + key, "wrong-type")
                canonical[field] = value
        if "instance_id" not in canonical or "repo" not in canonical:
            raise RecordError(NAME + " requires `task_id` and `repository`", "/task_id", "missing")
        extensions = {}
        for key, ext in SHARED:
            if key in rest:
                extensions[ext] = rest.pop(key)
        extensions["source"] = source_block(NAME, record, rest)
        # canonical v1 field order
        ordered = {f: canonical[f] for f in ("repo", "instance_id", "base_commit", "patch", "test_patch")
                   if f in canonical}
        ordered["extensions"] = extensions
        return ordered

    def export_record(self, canonical, profile, notes):
        extensions = canonical.get("extensions", {})
        out = {}
        for key, field in STRINGS:
            if field in canonical:
                out[key] = canonical[field]
            elif field in ("instance_id", "repo"):
                raise RecordError(NAME + " requires it", "/" + field, "cannot-carry")
            else:
                notes.missing(key, "absent from the record")
        for key, ext in SHARED:
            if ext in extensions:
                out[key] = extensions[ext]
            else:
                notes.missing(key, "absent from the record")
        for key in extensions:
            if key != "source" and key not in dict(SHARED).values():
                notes.dropped("extensions." + key, NAME + " has no field for it")
        source = extensions.get("source", {})
        if source.get("format") == NAME:
            out.update(source.get("extra", {}))
            return order_like(source, out)
        return out


if __name__ == "__main__":
    serve(CustomPy())
