"""A loose commit's parents and time, read from its file without dulwich.

``resume`` after the head moved walks back from HEAD to the captured commit
(``gitinfo.reach_from_head``): reading each commit with dulwich's object
reader cost the import of ``dulwich.objects`` (with ``typing``), about a
tenth of the command. A loose object is git's plain format — zlib of
``<type> <size>\\0`` and the body — and a commit's headers are lines, so
the walk's two facts (``parent`` ids, the ``committer`` time) are read here
with ``zlib``; anything not shaped as git writes a commit is left to dulwich
(``gitinfo._ObjectFiles``), and packs are only ever read by dulwich. Loaded by
name by ``gitinfo`` when a walk reads a loose object, never on the hook path's
imports.
"""

from __future__ import annotations

import zlib

from baton.values import Value


class LooseCommit(Value):
    """What a walk reads of a commit (its ``parents`` and ``commit_time``, as dulwich's ``Commit``
    has them), from a loose object's file."""

    parents: tuple[bytes, ...]
    commit_time: int


def loose_commit(data: bytes) -> LooseCommit | None:
    """A loose object's bytes (zlib of ``commit <size>\\0`` and the commit's headers) as a
    ``LooseCommit``: the ``parent`` headers and the ``committer`` header's time, as dulwich's
    ``Commit`` parses them. None for anything else — another type of object, a size that does
    not match, a header not shaped as git writes one — which dulwich's reader reads (or refuses)
    instead: Baton reads only the plain case, and never a pack."""
    try:
        raw = zlib.decompress(data)
    except zlib.error:
        return None
    kind, _, rest = raw.partition(b"\0")
    if not kind.startswith(b"commit ") or kind[7:] != str(len(rest)).encode():
        return None
    parents: list[bytes] = []
    time = None
    for line in rest.partition(b"\n\n")[0].split(b"\n"):
        name, _, value = line.partition(b" ")
        if name == b"parent":
            if len(value) != 40:
                return None
            parents.append(value)
        elif name == b"committer":
            stamp = value[value.rfind(b">") + 1:].split()
            if len(stamp) != 2 or not stamp[0].isdigit():
                return None
            time = int(stamp[0])
    return None if time is None else LooseCommit(tuple(parents), time)
