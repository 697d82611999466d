"""Local structured logs (spec §17): off unless ``BATON_LOG=info|debug``.

One JSON object per line in ``.baton/logs/baton.jsonl`` (the project's state
directory, ignored by git like the rest of ``.baton/``). A record holds ids,
event type names, exit codes and timings — never a handoff's body, a
command's arguments or output, an error's message, an owner or a branch:
``write`` keeps only the fields of ``FIELDS`` and only values that are
numbers, booleans, or strings shaped like an id or a name (``SAFE_TEXT``), so
a caller cannot log a payload by mistake.

``info``: one record per command and one per event appended. ``debug``: also
catch-up and replay counts and timings. The setting is read per call from
the environment (``BATON_LOG``), else the project's ``config.json``
(``"log": "info"``). Logging never fails a command: a log that cannot be
written (a read-only ``.baton/``, a full disk) is skipped.
"""

from __future__ import annotations

import os
import sys
import time

import orjson

from baton.domain.regexes import lazy

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any

    from _typeshed import StrPath

LEVELS = {"info": 20, "debug": 10}
FIELDS = frozenset({"command", "exit_code", "ms", "type", "id", "handoff", "events", "rebuilt", "code", "count"})
SAFE_TEXT = lazy(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$|^[a-z][a-z0-9_]{0,63}$")
"""Ids (UUIDs, writer ids), event types, error codes and command names; a
space, a slash, an ``@`` or anything longer than 64 characters is dropped."""
LOG_FILE = "logs/baton.jsonl"


OFF = frozenset({"off", "none", "0", "false", "no"})
"""Values that say logging is off (as does an unset or empty ``BATON_LOG``)."""
_warned: set[str] = set()


def threshold(configured: Any = None) -> int | None:
    """The level logged at, or None when logging is off. An unknown value is
    ignored (logging stays off) with one warning on stderr per process."""
    from_env = os.environ.get("BATON_LOG")
    name = from_env or (configured if isinstance(configured, str) else None)
    if not name:
        return None
    level = LEVELS.get(name.strip().lower())
    if level is None and name.strip().lower() not in OFF:
        _warn_unknown(name, "BATON_LOG" if from_env else "config.json \"log\"")
    return level


def _warn_unknown(name: str, where: str) -> None:
    if name in _warned:
        return
    _warned.add(name)
    shown = "".join(ch if ch.isprintable() else "?" for ch in name)[:40]
    print(f"baton: warning: {where} {shown!r} is not a log level (info, debug or off); logging is off",
          file=sys.stderr)


def enabled(level: str, configured: Any = None) -> bool:
    wanted = threshold(configured)
    return wanted is not None and LEVELS[level] >= wanted


def write(baton_dir: StrPath, level: str, event: str, *, configured: Any = None, **fields: Any) -> None:
    """Append one record when ``level`` is enabled; never raises."""
    if not enabled(level, configured):
        return
    record: dict[str, Any] = {"at": round(time.time(), 6), "level": level, "event": event, "pid": os.getpid()}
    for name, value in fields.items():
        if name in FIELDS and _safe(value):
            record[name] = value
    path = os.path.join(baton_dir, LOG_FILE)
    try:
        try:
            os.mkdir(os.path.dirname(path))
        except FileExistsError:
            pass
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, orjson.dumps(record) + b"\n")  # one short write: lines of concurrent commands never mix
        finally:
            os.close(fd)
    except OSError:
        pass


def _safe(value: Any) -> bool:
    if isinstance(value, bool) or isinstance(value, (int, float)):
        return True
    return isinstance(value, str) and SAFE_TEXT.match(value) is not None


def elapsed_ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)
