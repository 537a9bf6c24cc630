"""What a pirc-migrate report is: its statuses, the fields of a model's record, and the checks
that a document is one.

A report is read by other programs (`pirc-migrate --compare`, a CI job, a dashboard), so
every record carries every field, in one shape, whatever became of its model: a model that
timed out has `None` for what nobody learnt and `[]` for the passes that never ran.  The
same checks run when a report is built (a record another part of pirc got wrong is a pirc
bug, caught before the report is written) and when one is read back (a file that is not a
report is named, with the JSON path of what is wrong).
"""

from __future__ import annotations

import math

from ..errors import JsonError

# Every status a model can end with, in the order reports list them.
STATUSES = ("upgraded", "unchanged", "drifted", "refused", "failed", "timeout", "oom",
            "crashed", "skipped")
# A run whose models all end with one of these exits 0.
FINE = frozenset({"upgraded", "unchanged", "skipped"})
# A status that says the model's upgrade worked and its numbers held.
GOOD = frozenset({"upgraded", "unchanged"})

# A record's fields, each with its value when nobody learnt it (a crash, a timeout, a skip).
# Lists are copied per record (see blank_record).
RECORD_FIELDS = {
    "path": None, "status": None, "reason": None,
    "from_version": None, "to_version": None, "ops_before": None, "ops_after": None,
    "fingerprint_before": None, "fingerprint_after": None,
    "passes_changed": [], "passes_run": [], "check": None,
    "seconds": None, "peak_mb": None, "worker": None,
}
CHECK_FIELDS = {"mode": None, "ok": None, "max_abs": None, "max_rel": None,
                "first_bad_op": None, "random_outputs": []}
# What may differ between two runs that did the same work (pool vs Dask, resumed or not).
RUN_FIELDS = ("seconds", "peak_mb", "worker")
REPORT_FIELDS = ("pirc_version", "target_version", "pipeline", "check", "models")


def complete_record(record: dict) -> dict:
    """The record with every field (missing ones as nobody-learnt values), its check a full
    object, and every non-finite float as None (JSON has no NaN; the job never reports one,
    an engine's arithmetic might).  Fields the schema does not name are kept."""
    out = {name: _fresh(default) for name, default in RECORD_FIELDS.items()}
    out.update(record)
    if out["check"] is None or isinstance(out["check"], dict):  # anything else: check_report says
        check = {name: _fresh(default) for name, default in CHECK_FIELDS.items()}
        check.update(out["check"] or {})
        out["check"] = check
    for name in ("passes_changed", "passes_run"):  # a tuple is a list; None is none ran
        if out[name] is None or isinstance(out[name], tuple):
            out[name] = list(out[name] or [])
    return _finite(out)


def _fresh(default):
    return list(default) if isinstance(default, list) else default


def _finite(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def check_report(doc, filename: str | None) -> None:
    """Raise a JsonError (FILE: JSON.PATH: error: ...) unless `doc` is a pirc-migrate report:
    an object with the report's fields and a list of model records, each with a path (no
    two alike), a known status and well-typed fields.  `filename` None: a report being built
    (no file yet)."""
    where = filename or "<report>"

    def fail(message: str, path: str = ""):
        raise JsonError(f"not a pirc-migrate report: {message}", path=path, filename=where)

    if not isinstance(doc, dict):
        fail(f"the document is a JSON {_kind(doc)}, not an object")
    missing = [name for name in REPORT_FIELDS if name not in doc]
    if missing:
        fail("no " + ", ".join(f"'{name}'" for name in missing) + " field"
             + ("s" if len(missing) > 1 else "")
             + " (a report pirc-migrate writes has " + ", ".join(REPORT_FIELDS) + ")")
    if not isinstance(doc["models"], list):
        fail(f"'models' is a JSON {_kind(doc['models'])}, not a list", "models")
    seen: dict[str, int] = {}
    for i, record in enumerate(doc["models"]):
        at = f"models[{i}]"
        if not isinstance(record, dict):
            fail(f"a model record is a JSON {_kind(record)}, not an object", at)
        path = record.get("path")
        if not isinstance(path, str) or not path:
            fail("a model record without a 'path' string", at)
        if path in seen:
            fail(f"two records for {path!r} (models[{seen[path]}] and {at})", at)
        seen[path] = i
        status = record.get("status")
        if status not in STATUSES:
            fail(f"unknown status {status!r} (one of: {', '.join(STATUSES)})", at + ".status")
        for name in ("passes_changed", "passes_run"):
            passes = record.get(name, [])
            if not isinstance(passes, list) or not all(isinstance(p, str) for p in passes):
                fail(f"'{name}' is not a list of pass names", f"{at}.{name}")
        for name in ("fingerprint_before", "fingerprint_after", "reason", "worker"):
            if record.get(name) is not None and not isinstance(record[name], str):
                fail(f"'{name}' is a JSON {_kind(record[name])}, not a string or null", f"{at}.{name}")
        for name in ("seconds", "peak_mb", "ops_before", "ops_after", "from_version", "to_version"):
            if record.get(name) is not None and not _number(record[name]):
                fail(f"'{name}' is a JSON {_kind(record[name])}, not a number or null", f"{at}.{name}")
        check = record.get("check")
        if check is not None and not isinstance(check, dict):
            fail(f"'check' is a JSON {_kind(check)}, not an object or null", f"{at}.check")
        if check and check.get("ok") not in (True, False, None):
            fail("'check.ok' is not true, false or null", f"{at}.check.ok")


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _kind(value) -> str:
    """The JSON name of a parsed value's type."""
    if value is None:
        return "null"
    for kind, name in ((bool, "boolean"), (str, "string"), (int, "number"), (float, "number"),
                       (list, "list"), (dict, "object")):
        if isinstance(value, kind):
            return name
    return type(value).__name__
