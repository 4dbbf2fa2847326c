"""Write a cargo-isobench adapter in Python: a program plugin, standard library only.

A program plugin speaks JSON Lines on stdin/stdout. The host sends
``{"id": 0, "method": "hello", "protocol": 2}`` first, then requests, each with an ``id``
the answer repeats. stderr is free for logs; closing stdin asks the program to exit.

A format that is SWE-bench rows under other names is best declared by its field table
(:class:`TableAdapter`, protocol 2): the host runs the table itself, so records never
cross, and the program is sent only what its fields marked ``hook`` leave::

    from isobench_plugin import TableAdapter, serve

    class MyBench(TableAdapter):
        table = {"name": "my-bench", "description": "MyBench rows", "fields": [
            {"key": "id", "to": "instance_id", "required": True},
            {"key": "diff", "to": "patch"},
            {"key": "level", "to": "extensions.level", "hook": True}]}

        def hook_import(self, left, record, notes):
            if "level" in left:  # `L3`
                record.setdefault("extensions", {})["level"] = int(left["level"][1:])
                return ["level"]  # the keys of `left` taken
            return []

        def hook_export(self, record, source, notes):
            level = record.get("extensions", {}).get("level")
            return {} if level is None else {"level": "L%d" % level}  # the keys written

A format that needs whole records (protocol 1) subclasses :class:`Adapter`; both are
served by :func:`serve`::

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

import copy
import json
import sys
import traceback

PROTOCOL = 1
# The protocol of a format declared by its table (TableAdapter): the host runs the
# table and sends only hook requests.
TABLE_PROTOCOL = 2


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


class TableAdapter:
    """Base class of a format declared by its field table: set ``table`` (the shape of
    ``cargo isobench adapters --json``'s tables: ``name``, ``aliases``, ``description``,
    ``fields``); override ``hook_import`` and ``hook_export`` for the fields marked
    ``hook``, if any. A table without hooks is never sent a record."""

    table = None

    def hook_import(self, left, record, notes):
        """Reads the hook keys' values (``left``) into the canonical ``record``, in
        place; returns the keys of ``left`` it took (the others stay for the round trip).
        Raise :class:`RecordError` to refuse the record."""
        return []

    def hook_export(self, record, source, notes):
        """Returns what the hooks write for the canonical ``record`` (without its
        patches and texts): a dict of keys and values, in order. ``source``: for a record imported from this same
        format, its source block with the hook keys' original values, else ``None``."""
        return {}

    def has_hooks(self):
        cls = type(self)
        return (cls.hook_import is not TableAdapter.hook_import
                or cls.hook_export is not TableAdapter.hook_export)

    def manifest(self):
        table = self.table
        return {
            "abi": TABLE_PROTOCOL,
            "sdk": "python",
            "info": {"name": table["name"], "aliases": list(table.get("aliases", [])),
                     "description": table.get("description", "")},
            "schema": {"type": "object"},
            "table": table,
            "hooks": self.has_hooks(),
        }


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
    if method == "hook-import":
        record = request["record"]
        sent = copy.deepcopy(record)
        taken = list(adapter.hook_import(request.get("left", {}), record, notes))
        answer = {"taken": taken, "notes": notes.items}
        if record != sent:  # an unchanged record need not cross back
            answer["record"] = record
        return {"ok": answer}
    if method == "hook-export":
        written = adapter.hook_export(request["record"], request.get("source"), notes)
        return {"ok": {"written": written, "notes": notes.items}}
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
