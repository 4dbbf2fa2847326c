#!/usr/bin/env python3
"""An example program plugin declared by its field table: the ``custom-adapter`` format
of ``examples/custom-adapter``, in Python, under the name ``custom-py-table``. The host
runs the table; the one hook checks that a task id names its repository.

Run it through the host with ``isobench.toml``::

    [[plugins]]
    command = ["python3", "plugins/python/example_table.py"]
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from isobench_plugin import RecordError, TableAdapter, serve  # noqa: E402


class CustomPyTable(TableAdapter):
    table = {
        "name": "custom-py-table",
        "description": "custom-adapter rows, declared by a table in a Python program",
        "fields": [
            {"key": "task_id", "to": "instance_id", "required": True},
            {"key": "repository", "to": "repo", "required": True},
            {"key": "base_sha", "to": "base_commit"},
            {"key": "gold_patch", "to": "patch"},
            {"key": "test_patch", "to": "test_patch"},
            {"key": "issue", "to": "extensions.problem_statement"},
            {"key": "fail_to_pass", "to": "extensions.fail_to_pass", "type": "list"},
            {"key": "pass_to_pass", "to": "extensions.pass_to_pass", "type": "list"},
        ],
    }

    def hook_import(self, left, record, notes):
        # `octo__widgets-7` is a task of `octo/widgets`.
        prefix = record["repo"].replace("/", "__") + "-"
        if not record["instance_id"].startswith(prefix):
            raise RecordError("`%s` is not a task of `%s` (expected `%sN`)"
                              % (record["instance_id"], record["repo"], prefix), "/task_id")
        return []


if __name__ == "__main__":
    serve(CustomPyTable())
