"""The events ``baton repair`` set aside in ``quarantine/``, as ``baton forget`` reaches them.

A ``<feed>.<cut>.<uuid>.repair`` copy holds, byte for byte, the pieces its
manifest's ``set_aside`` lists (``offset``, ``bytes``, in that order); a copy
without a readable manifest is read line by line. A piece that parses as an
envelope is an event a forget may name, whether its hash still holds or not
(damage may be why it was set aside).

``erase_in_copies`` takes a forgotten handoff's text out of them: a piece that
is one of the named events loses its ``data`` member (its ``digest``, ``hash``
and ``prev`` stay, as in the ledger); a piece that is no event (garbage, a
half-line) and holds one of the erased strings that no other event here holds
is blanked (emptied). Other events are left byte for byte. The manifest is written first — each
such item's new ``bytes`` and ``forgotten`` (``"erased"`` or ``"blanked"``),
the copy's new ``bytes`` and ``sha256``, and the handoffs forgotten — then
the copy; both as new files renamed over the old ones. A forget killed
between the two finds the copy still holding the text and does it again.
"""

from __future__ import annotations

import os
from hashlib import sha256
from pathlib import Path
from typing import Any, Iterable

import orjson

import baton.ledger.files as files
from baton.errors import EnvelopeError, StorageError
from baton.ledger.envelope import Event
from baton.ledger.feed import encode_line
from baton.model import frozen
from baton.values import replace

COPY_SUFFIX = ".repair"
MANIFEST_SUFFIX = ".manifest.json"


@frozen
class QuarantinedCopy:
    """One ``.repair`` copy, split into the pieces it was written from."""

    path: Path
    pieces: list[bytes]
    manifest: dict[str, Any] | None
    """The manifest beside it, when it parses and its ``set_aside`` adds up to the copy."""

    @property
    def manifest_path(self) -> Path:
        return self.path.with_name(self.path.name[:-len(COPY_SUFFIX)] + MANIFEST_SUFFIX)

    def events(self) -> list[Event]:
        return [event for piece in self.pieces if (event := _event(piece)) is not None]


def read_copies(quarantine_dir: Path) -> list[QuarantinedCopy]:
    """Every ``.repair`` copy in ``quarantine_dir`` (regular files, never through a link), by name.

    Raises:
        StorageError: a copy could not be read.
    """
    try:
        entries = sorted((e.name for e in os.scandir(quarantine_dir)
                          if e.name.endswith(COPY_SUFFIX) and e.is_file(follow_symlinks=False)))
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise StorageError(f"cannot list {quarantine_dir}: {exc}") from exc
    copies = []
    for name in entries:
        path = Path(quarantine_dir) / name
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise StorageError(f"cannot read {path}: {exc}") from exc
        manifest = _manifest(path.with_name(name[:-len(COPY_SUFFIX)] + MANIFEST_SUFFIX))
        pieces = _split(raw, manifest)
        if pieces is None:
            manifest, pieces = None, raw.splitlines(keepends=True)
        copies.append(QuarantinedCopy(path, pieces, manifest))
    return copies


def erase_in_copies(copies: Iterable[QuarantinedCopy], ids: frozenset[str], needles: set[bytes],
                    handoff: str | None, markers: frozenset[bytes] = frozenset()) -> dict[str, int]:
    """Erase the payloads of ``ids`` in ``copies``, and blank every other piece holding one
    of ``needles`` (module docstring), or one of ``markers`` whole (what only a piece of the
    forgotten handoff's own events holds: its stream, a baton's ``handoff_id`` naming it, so a
    torn piece of an event no erased payload shares a string with goes too). ``handoff``: the handoff forgotten, added to each changed
    manifest's ``forgotten`` (None: another replica's forget, brought in by ``baton sync``).
    Returns, per copy changed (its file name), how many pieces were erased or blanked.

    Raises:
        StorageError: a new copy or manifest could not be written.
    """
    copies = list(copies)
    others = b"".join(piece for copy in copies for piece in copy.pieces
                      if (event := _event(piece)) is not None and event.id not in ids)
    needles = {n for n in needles if n not in others}  # a string another event holds is not what went
    changed: dict[str, int] = {}
    for copy in copies:
        pieces = list(copy.pieces)
        marks: dict[int, str] = {}
        for index, piece in enumerate(pieces):
            event = _event(piece)
            if event is not None and event.id in ids and event.data is not None:
                line = encode_line(replace(event, data=None))
                pieces[index] = line if piece.endswith(b"\n") else line[:-1]
                marks[index] = "erased"
            elif event is None and (any(marker in piece for marker in markers)
                                    or any(_holds(piece, needle) for needle in needles)):
                pieces[index] = b""
                marks[index] = "blanked"
        if not marks:
            continue
        data = b"".join(pieces)
        if copy.manifest is not None:
            manifest = dict(copy.manifest)
            items = [dict(item) for item in manifest["set_aside"]]
            for index, mark in marks.items():
                items[index].update(bytes=len(pieces[index]), forgotten=mark)
            manifest.update(set_aside=items, bytes=len(data), sha256=_sha256(data),
                            forgotten=sorted({*manifest.get("forgotten", ()), *([handoff] if handoff else [])}))
            _replace(copy.manifest_path,
                     orjson.dumps(manifest, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n")
        _replace(copy.path, data)
        changed[copy.path.name] = len(marks)
    return changed


def held_handoff(path: Path) -> str | None:
    """The handoff a materialized record file holds (a handoff file's ``id``, a baton file's
    ``handoffId``), read without following a link; None when it is no such record."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as fh:
            doc = orjson.loads(fh.read())
    except (OSError, orjson.JSONDecodeError):
        return None
    if not isinstance(doc, dict):
        return None
    value = doc.get("id") if doc.get("kind") == "handoff" else doc.get("handoffId", doc.get("handoff_id"))
    return value.lower() if isinstance(value, str) and value else None


def whole_streams(copies: Iterable[QuarantinedCopy]) -> tuple[set[str], bool]:
    """The streams ``copies`` hold a whole event of, and whether any piece of them looks like
    an event cut short (a piece that starts as an envelope does and does not parse)."""
    streams: set[str] = set()
    torn = False
    for copy in copies:
        for piece in copy.pieces:
            event = _event(piece)
            if event is not None:
                streams.add(event.stream)
            elif piece.lstrip().startswith(b'{"actor":'):
                torn = True
    return streams, torn


def _sha256(data: bytes) -> str:
    return sha256(data).hexdigest()


def _holds(raw: bytes, needle: bytes, shortest: int = 8) -> bool:
    """``raw`` holds ``needle``, or ends inside it (a piece cut mid-string)."""
    if needle in raw:
        return True
    tail = raw[-len(needle):]
    return any(tail.endswith(needle[:k]) for k in range(len(needle) - 1, shortest - 1, -1))


def _event(piece: bytes) -> Event | None:
    try:
        raw = orjson.loads(piece)
        return Event.from_dict(raw) if type(raw) is dict else None
    except (orjson.JSONDecodeError, EnvelopeError, ValueError, TypeError, KeyError):
        return None


def _manifest(path: Path) -> dict[str, Any] | None:
    try:
        manifest = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    return manifest if isinstance(manifest, dict) and isinstance(manifest.get("set_aside"), list) else None


def _split(raw: bytes, manifest: dict[str, Any] | None) -> list[bytes] | None:
    """``raw`` cut into the pieces ``manifest`` lists, or None when they do not add up to it."""
    if manifest is None:
        return None
    pieces, at = [], 0
    for item in manifest["set_aside"]:
        size = item.get("bytes") if isinstance(item, dict) else None
        if type(size) is not int or size < 0:
            return None
        pieces.append(raw[at:at + size])
        at += size
    return pieces if at == len(raw) else None


def _replace(path: Path, data: bytes) -> None:
    """``data`` as the whole of ``path``: a new file beside it, fsynced, renamed over it."""
    files.replace_whole(path, data, tmp_prefix=".forget",
                        failure=f"cannot rewrite {path} to erase a forgotten handoff")
    files.fsync_dir(path.parent)
