"""Whether this ``.baton/`` folder is the one its writer id was minted in.

A writer id is minted once per clone and kept in ``local.json``; a project
folder copied with its ``.baton/`` (``cp -a``, an rsync to a new laptop, a
backup restored beside the original) carries that file along, and two
folders appending under one id fork the feed. So ``local.json`` records
where its writer was minted (``minted_in``: the project root's real path,
the host name, and the ``.baton`` folder's device and inode), and a clone
compares that with the folder it finds.

The folder's identity is its device and inode: the same folder reached by
another path (a ``mv`` on one file system, a bind mount in a container, an
NFS mount on another host) keeps its writer, and a copy — a new folder,
wherever it is — never does. The one exception is a device number that
changed under an unchanged inode, root and host (a USB disk enumerated in
another order, a remount): the same folder, kept. The other is a folder
moved across file systems (``mv`` copies it and deletes the original): a new
device and inode at another root on the same host, with nothing left at the
recorded root that still writes under this id — the original is gone, so
this is the original, moved (kept, and its place recorded).

Pure: the caller stats the folder and reads ``local.json``.
"""

from __future__ import annotations

from baton.values import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (baton/values.py)
if TYPE_CHECKING:
    from typing import Any

SAME = "same"
"""The folder the writer id was minted in, at the path and on the host it was."""
MOVED = "moved"
"""The same folder (device and inode), reached by another path or from another host: kept."""
REMOUNTED = "remounted"
"""The same inode, root and host under another device number: the same folder, kept."""
RELOCATED = "relocated"
"""Another folder on the same host whose recorded original is gone (nothing at its
root still writes under this id): a ``mv`` across file systems, kept."""
COPIED = "copied"
"""Another folder: a copy of the one the writer id was minted in. Its next write takes a new id."""
UNRECORDED = "unrecorded"
"""``local.json`` records no place (written before Baton recorded one): the next write records it."""

KEEPS_WRITER = (SAME, MOVED, REMOUNTED, RELOCATED)


class Place(Value):
    """Where a ``.baton/`` folder is: the root's real path, the host, the folder's device and inode."""

    root: str
    host: str
    dev: int
    ino: int

    def to_json(self) -> dict[str, Any]:
        return {"root": self.root, "host": self.host, "dev": self.dev, "ino": self.ino}

    @classmethod
    def from_json(cls, raw: Any) -> "Place | None":
        """The place a ``minted_in`` member records, or None when it is absent or not one
        (a hand-edited value is treated as no record: the next write records the place)."""
        if not isinstance(raw, dict):
            return None
        root, host, dev, ino = raw.get("root"), raw.get("host"), raw.get("dev"), raw.get("ino")
        if not (isinstance(root, str) and isinstance(host, str) and type(dev) is int and type(ino) is int):
            return None
        return cls(root, host, dev, ino)


class PlaceCheck(Value):
    """What a clone found when it opened: the recorded place, this one, and the verdict."""

    verdict: str
    here: Place
    recorded: Place | None = None

    @property
    def keeps_writer(self) -> bool:
        return self.verdict in KEEPS_WRITER

    @property
    def records_place(self) -> bool:
        """``local.json`` keeps its writer id but must record this folder as where
        it was minted: it records none yet, the device changed (a remount), or the
        folder was moved across file systems. A folder moved on one file system
        (same device and inode) keeps the place it recorded."""
        return self.verdict in (UNRECORDED, REMOUNTED, RELOCATED)

    def to_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "here": self.here.to_json(),
                "minted_in": self.recorded.to_json() if self.recorded is not None else None}


def check_place(recorded: Place | None, here: Place, *, original_gone: bool = False) -> PlaceCheck:
    """The verdict on ``here`` for a writer id minted in ``recorded``;
    ``original_gone``: nothing at the recorded root still writes under this id
    (the caller looked there, on this host)."""
    if recorded is None:
        verdict = UNRECORDED
    elif (recorded.dev, recorded.ino) == (here.dev, here.ino):
        verdict = SAME if (recorded.root, recorded.host) == (here.root, here.host) else MOVED
    elif recorded.ino == here.ino and (recorded.root, recorded.host) == (here.root, here.host):
        verdict = REMOUNTED
    elif original_gone and recorded.host == here.host and recorded.root != here.root:
        verdict = RELOCATED
    else:
        verdict = COPIED
    return PlaceCheck(verdict, here, recorded)


def recorded_local(local: dict[str, Any], here: Place) -> dict[str, Any]:
    """``local.json`` with ``here`` recorded as the place of its writer id (a fresh
    mint, or a file from before this check), every other member kept."""
    return {**local, "minted_in": here.to_json()}


def claimed_local(local: dict[str, Any], check: PlaceCheck, writer: str) -> dict[str, Any]:
    """``local.json`` for a copy that takes ``writer`` in place of the id it was
    copied with: the new id and its place, where the old one came from
    (``copied_from``, what ``baton doctor`` says), every override kept."""
    came: dict[str, Any] = {"writer": local.get("writer")}
    if check.recorded is not None:
        came.update(root=check.recorded.root, host=check.recorded.host)
    return {**local, "writer": writer, "minted_in": check.here.to_json(), "copied_from": came}


def copied_notice(old: str, new: str, recorded: Place | None, *, signing: bool) -> str:
    """What a copy that took a new writer id says, once (stderr, ``--json``, ``doctor``)."""
    where = ""
    if recorded is not None:
        where = f" of {recorded.root}" + (f" on host {recorded.host}" if recorded.host else "")
    said = (f"this .baton folder is a copy{where} (its local.json came with it): it now writes as writer "
            f"{new}, not {old}; {old}'s feed stays as history, read like any other writer's")
    if signing:
        said += (f"; signed feeds: list {new} (or a pattern such as {pattern(new)}) among the key's principals "
                 "in the allowed-signers file, or other clones flag or refuse its feed")
    return said


def pattern(writer: str) -> str:
    """The allowed-signers pattern that covers every id this host and user mint
    (``host-user-*``: a writer id ends in six hex digits)."""
    head, _, tail = writer.rpartition("-")
    return f"{head}-*" if head and len(tail) == 6 else writer


def writer_finding(writer: str, check: PlaceCheck | None, copied_from: Any = None) -> tuple[str, str]:
    """``baton doctor``'s ``writer`` check: its status and what it says."""
    came = ""
    if isinstance(copied_from, dict) and isinstance(copied_from.get("writer"), str):
        where = copied_from.get("root")
        came = (" (taken when this folder was found to be a copy"
                + (f" of {where}" if isinstance(where, str) else "") + f", in place of {copied_from['writer']})")
    if check is None or check.verdict == SAME:
        return "ok", writer + came
    if check.verdict == MOVED:
        return "ok", (f"{writer}{came}; minted in this same folder at {check.recorded.root if check.recorded else '?'}"
                      f" (moved or mounted elsewhere since): it keeps its writer id")
    if check.verdict == REMOUNTED:
        return "ok", f"{writer}{came}; this folder's device number changed since (a remount): it keeps its writer id"
    if check.verdict == RELOCATED:
        return "ok", (f"{writer}{came}; minted in {check.recorded.root if check.recorded else '?'}, which no longer "
                      "holds this project (moved here across file systems): it keeps its writer id, and the next "
                      "writing command records this folder")
    if check.verdict == UNRECORDED:
        return "ok", (f"{writer}; local.json does not yet record the folder this id was minted in: the next "
                      "writing command records it (a copy made before then keeps the id: remove the copy's "
                      "\"writer\" from its .baton/local.json)")
    where = check.recorded
    origin = f"{where.root}" + (f" on host {where.host}" if where.host else "") if where is not None else "elsewhere"
    return "warn", (f"{writer} was minted in {origin}: this .baton folder is a copy of that one (its local.json "
                    "came with it); its next writing command takes a new writer id and leaves "
                    f"{writer}'s feed as history")
