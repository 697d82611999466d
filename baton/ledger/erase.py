"""Erasing payloads in place: the one deliberate rewrite of a feed (``baton forget``).

An event's chain hash covers its ``digest``, never its ``data`` (DESIGN.md),
so a line whose ``data`` member is removed still verifies: its hash, its
``prev`` link and every later line are unchanged. Erasing rewrites each feed
that holds such a line as a whole new file, renamed over the old one (never
a write into the middle of a live file), so a reader sees either the old feed
or the new one. The caller holds the ledger lock and has already recorded the
``handoff.forgotten`` event that names the erased ids: a crash between the
two leaves payloads that were to be erased, never an erasure nobody recorded.

Lines are re-encoded canonically (``encode_line``) only when they change; every
other byte of the feed, a torn tail included, is copied as it was.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

import orjson

from baton.errors import StorageError
from baton.ledger import files
from baton.ledger.envelope import Event
from baton.ledger.feed import encode_line


def erase_payloads(ledger_dir: Path, event_ids: Iterable[str]) -> dict[str, int]:
    """Remove the ``data`` member of every line whose event id is in
    ``event_ids``, in every feed of ``ledger_dir``. Returns, per feed
    rewritten, how many lines it erased (lines already erased are left alone).

    Raises:
        StorageError: a feed could not be read, written or renamed.
    """
    wanted = frozenset(event_ids)
    erased: dict[str, int] = {}
    if not wanted:
        return erased
    try:
        paths = sorted(p for p in Path(ledger_dir).glob("*.jsonl") if p.is_file())
    except OSError as exc:
        raise StorageError(f"cannot list {ledger_dir}: {exc}") from exc
    for path in paths:
        count = _erase_in(path, wanted)
        if count:
            erased[path.stem] = count
    if erased:
        files.fsync_dir(Path(ledger_dir))
    return erased


def erase_lines(raw: bytes, wanted: frozenset[str]) -> tuple[bytes, int]:
    """``raw`` (a feed's bytes) with the payloads of ``wanted`` removed, and how many."""
    out: list[bytes] = []
    count = 0
    lines = raw.split(b"\n")
    tail = lines.pop()  # after the last newline: empty, or a torn tail kept as it is
    for line in lines:
        if line and any(w.encode() in line for w in wanted):
            try:
                event = Event.from_dict(orjson.loads(line))
            except (orjson.JSONDecodeError, ValueError):
                out.append(line + b"\n")
                continue
            if event.id in wanted and event.data is not None:
                out.append(encode_line(_without_data(event)))
                count += 1
                continue
        out.append(line + b"\n")
    out.append(tail)
    return b"".join(out), count


def _without_data(event: Event) -> Event:
    import attrs

    return attrs.evolve(event, data=None)


def _erase_in(path: Path, wanted: frozenset[str]) -> int:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise StorageError(f"cannot read feed {path}: {exc}") from exc
    new, count = erase_lines(raw, wanted)
    if not count:
        return 0
    tmp = path.with_name(f".erase.{os.getpid()}.{os.urandom(4).hex()}")
    try:
        mode = os.stat(path).st_mode & 0o777
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        try:
            files.write_all(fd, new)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as exc:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise StorageError(f"cannot rewrite feed {path} to erase payloads: {exc}") from exc
    return count
