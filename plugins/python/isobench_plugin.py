"""Write a cargo-isobench adapter in Python: a program plugin, standard library only.

A program plugin speaks JSON Lines on stdin/stdout. The host sends
``{"id": 0, "method": "hello", "protocol": 2}`` first; this helper answers protocol 1 (an
adapter written by hand, sent whole records), then ``import`` and ``export`` requests,
each with an ``id`` the answer repeats. stderr is free for logs; closing stdin asks the
program to exit. (Protocol 2 also lets a program declare a field table, which the host
then runs itself; this helper does not offer that.)

Subclass :class:`Adapter`, then call :func:`serve`::

    from isobench_plugin import Adapter, RecordError, serve

    class MyBench(Adapter):
        name = "my-bench"
        description = "MyBench rows"

        def import_record(self, record, notes):
            ...  # return a canonical record (dict)

        def export_record(self, canonical, profile, notes):
            ...  # return a MyBench record (dict)

    if __name__ == "__main__":
        serve(MyBench())

Name it ``isobench-adapter-my-bench`` on ``PATH`` (executable), or list it in
``isobench.toml``: ``[[plugins]] command = ["python3", "my_bench.py"]``.
"""

import json
import sys
import traceback

PROTOCOL = 1


class RecordError(Exception):
    """The adapter refuses a record; ``pointer`` is a JSON pointer to the field."""

    def __init__(self, message, pointer="", kind="invalid", hint=None):
        super().__init__(message)
        self.message = message
        self.pointer = pointer
        self.kind = kind  # missing, wrong-type, invalid, cannot-carry, not-an-object
        self.hint = hint


class Notes:
    """What a conversion dropped, derived, defaulted or could not find."""

    def __init__(self):
        self.items = []

    def _add(self, kind, field, detail):
        self.items.append({"kind": kind, "field": field, "detail": detail})

    def dropped(self, field, detail):
        self._add("dropped", field, detail)

    def derived(self, field, detail):
        self._add("derived", field, detail)

    def defaulted(self, field, detail):
        self._add("defaulted", field, detail)

    def missing(self, field, detail):
        self._add("missing", field, detail)

    def warn(self, field, detail):
        self._add("warning", field, detail)


class Adapter:
    """Base class: set ``name`` and ``description``, implement the two conversions."""

    name = ""
    aliases = []
    description = ""
    fills = []
    # What the format's own consumer requires of an exported record, checked by the host:
    # {"consumer": "...", "requires": [{"key": "FAIL_TO_PASS", "kind": "list",
    #  "non_empty": True, "field": "extensions.fail_to_pass", "evidence": "..."}]}
    contract = None
    carries = []
    schema = {"type": "object"}

    def import_record(self, record, notes):
        raise NotImplementedError

    def export_record(self, canonical, profile, notes):
        raise NotImplementedError

    def manifest(self):
        manifest = {
            "abi": PROTOCOL,
            "sdk": "python",
            "info": {
                "name": self.name,
                "aliases": list(self.aliases),
                "description": self.description,
                "fills": list(self.fills),
                "carries": list(self.carries),
            },
            "schema": self.schema,
        }
        if self.contract:
            manifest["info"]["contract"] = self.contract
        return manifest


def source_block(format_name, record, extra):
    """The ``extensions.source`` block that lets an export give the record back unchanged."""
    block = {"format": format_name, "keys": list(record.keys())}
    if extra:
        block["extra"] = extra
    return block


def order_like(source, fields):
    """``fields`` in the source record's key order, others after."""
    keys = source.get("keys", [])
    out = {k: fields.pop(k) for k in keys if k in fields}
    out.update(fields)
    return out


def _answer(adapter, request):
    method = request.get("method")
    notes = Notes()
    if method == "hello":
        return {"ok": adapter.manifest()}
    if method == "import":
        record = adapter.import_record(request["record"], notes)
    elif method == "export":
        record = adapter.export_record(request["record"], request.get("profile", "lossless"), notes)
    else:
        raise RecordError("unknown method %r" % (method,))
    return {"ok": {"record": record, "notes": notes.items}}


def serve(adapter, stdin=None, stdout=None):
    """Answers the host's requests until stdin closes."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    for line in stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            answer = _answer(adapter, request)
        except RecordError as e:
            error = {"pointer": e.pointer, "kind": e.kind, "message": e.message}
            if e.hint:
                error["hint"] = e.hint
            answer = {"error": error}
        except Exception as e:  # a bug in the adapter: report it, keep serving
            traceback.print_exc(file=sys.stderr)
            answer = {"error": {"pointer": "", "kind": "invalid",
                                "message": "the adapter raised %s: %s" % (type(e).__name__, e)}}
        answer["id"] = request.get("id")
        stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
        stdout.flush()
