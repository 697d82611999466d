"""The files kept from events the ledger lost, as ``baton forget`` reaches them.

When a feed loses events the index acknowledged (cut short, lines deleted), a
rebuild keeps the files those events showed (``ProjectionRunner.kept_files``)
and ``baton repair --yes`` moves them into ``.baton/quarantine/`` as
``kept.<uuid>.<name>``, listed in ``kept.<uuid>.files.json``
(``baton.commands.repair``). Such a file may be the only whole copy of a
handoff: the ledger no longer holds its events (or holds a torn piece of one
in a ``.repair`` copy), so a forget finds the handoff there too.

``copies_of`` finds them by what they hold (a handoff file's ``id``, a baton
file's ``handoffId``), never by name; ``remove`` deletes them and takes them
out of their list (the list removed once empty). A file still in place (not yet
moved by a repair) is never removed here: the feed it came from still ends in
the lost event's torn line, and a write is refused until a repair records the
loss (``refusal``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from baton.config import write_json_atomic
from baton.domain.forgetting import payload_strings
from baton.domain.short_ids import id_matches, short_id
from baton.errors import BatonError, LedgerCorrupt, StorageError
from baton.ledger.quarantined import held_handoff
from baton.model import frozen

if TYPE_CHECKING:
    from baton.commands.context import Project

KEPT_PREFIX = "kept."
"""How the files a repair moves into quarantine (``repair.keep_in_quarantine``) are named:
``kept.<uuid>.<file name>``, listed in ``kept.<uuid>.files.json``."""

LIST_SUFFIX = ".files.json"
"""The list beside them: ``kept.<uuid>.files.json`` (``kept_list_name``)."""


def kept_list_name(quarantined: str) -> str:
    """The list beside a file ``repair.keep_in_quarantine`` moved (``kept.<uuid>.files.json``)."""
    return KEPT_PREFIX + quarantined[len(KEPT_PREFIX):].split(".", 1)[0] + LIST_SUFFIX

_BATON_SET = ("$schema", "project")
"""Members of a kept handoff file Baton fills in the same for every record: not looked for in fragments."""


@frozen
class KeptCopy:
    """One kept file that holds a handoff (or a baton carrying it)."""

    path: Path
    shown: str
    """Its path under ``.baton/`` (``quarantine/kept.<uuid>.<name>``, or ``handoffs/<name>`` still in place)."""
    handoff: str
    doc: Any

    @property
    def in_quarantine(self) -> bool:
        return self.shown.startswith("quarantine/")


def kept_copies(project: "Project") -> list[KeptCopy]:
    """Every kept file that holds a handoff: those a repair moved into ``quarantine/`` and those
    a rebuild kept in place (``KEPT`` rows of the index), by path. A file that does not parse
    as a handoff or baton record is left out (the needle search of ``forget`` still reaches it).

    Raises: StorageError (exit 1): the quarantine cannot be listed."""
    found: list[tuple[Path, str]] = []
    folder = project.paths.quarantine_dir
    try:
        names = sorted(e.name for e in os.scandir(folder) if e.is_file(follow_symlinks=False)) \
            if folder.is_dir() else []
    except OSError as exc:
        raise StorageError(f"cannot list {folder}: {exc}") from exc
    found += [(folder / n, f"quarantine/{n}") for n in names
              if n.startswith(KEPT_PREFIX) and not n.endswith(LIST_SUFFIX)]
    try:
        found += [(project.paths.baton_dir / rel, rel) for rel in project.runner.kept_files()]
    except BatonError:
        pass  # no index to ask: nothing kept in place
    out = []
    for path, shown in found:
        handoff = held_handoff(path)
        if handoff is not None:
            out.append(KeptCopy(path, shown, handoff, _read(path)))
    return out


def named(copies: list[KeptCopy], token: str) -> set[str]:
    """The handoff ids among ``copies`` that ``token`` names (``id_matches``)."""
    return {c.handoff for c in copies if id_matches(token, c.handoff)}


def others_kept(project: "Project", forgotten: frozenset[str]) -> frozenset[str]:
    """The names of the kept files in quarantine that hold a handoff other than the ``forgotten``
    ones: a forget's needle search spares them (each may be the only copy of its handoff)."""
    return frozenset(c.path.name for c in kept_copies(project)
                     if c.in_quarantine and c.handoff not in forgotten)


def handoffs_in(erased: list[Any]) -> frozenset[str]:
    """The handoffs erased payloads name: a capture's record ``id``, a baton's ``handoff_id``
    (what another replica's forget erased here, ``baton sync``)."""
    found = set()
    for data in erased:
        if not isinstance(data, dict):
            continue
        record = data.get("handoff")
        value = record.get("id") if isinstance(record, dict) else data.get("handoff_id")
        if isinstance(value, str) and value:
            found.add(value.lower())
    return frozenset(found)


def refusal(held: list[KeptCopy]) -> LedgerCorrupt | None:
    """Why a forget cannot reach a kept file still in place: the feed still ends in the lost
    event's torn line, and a repair must record the loss first (it moves the file into
    quarantine, where the forget reaches it)."""
    here = [c for c in held if not c.in_quarantine]
    if not here:
        return None
    return LedgerCorrupt(
        f"handoff {short_id(here[0].handoff)} is held by {', '.join('.baton/' + c.shown for c in here)}, kept "
        "from events the ledger lost: a confirmed `baton repair` first moves the file into .baton/quarantine/ "
        f"and records the loss; then a confirmed `baton forget {short_id(here[0].handoff)}` erases every copy",
        details={"handoff": here[0].handoff, "kept_files": [c.shown for c in here]})


def needles(held: list[KeptCopy]) -> set[bytes]:
    """The strings of the kept records (as text and as JSON spells them): what a torn piece of
    their lost event, set aside by a repair, may still hold."""
    out: set[bytes] = set()
    for copy in held:
        doc = {k: v for k, v in copy.doc.items() if k not in _BATON_SET} if isinstance(copy.doc, dict) else copy.doc
        for text in payload_strings(doc):
            out.add(text.encode("utf-8"))
            out.add(orjson.dumps(text)[1:-1])
    return out


def remove(project: "Project", held: list[KeptCopy]) -> list[str]:
    """Delete ``held`` (in quarantine) and take each out of the list beside it (a list left
    empty is removed). The list first, so a forget killed in between leaves a file no list
    names, never a list naming content that is gone. Returns their paths under ``.baton/``.

    Raises: StorageError (exit 1)."""
    gone = [c for c in held if c.in_quarantine]
    by_list: dict[Path, set[str]] = {}
    for copy in gone:
        by_list.setdefault(copy.path.with_name(kept_list_name(copy.path.name)), set()).add(copy.path.name)
    for listing, names in by_list.items():
        _unlist(listing, names)
    for copy in gone:
        try:
            os.unlink(copy.path)
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise StorageError(f"cannot remove {copy.path}: {exc}") from exc
    return [c.shown for c in gone]


def _unlist(listing: Path, names: set[str]) -> None:
    """``listing`` without the items naming ``names``; removed when none is left."""
    try:
        raw = orjson.loads(listing.read_bytes())
    except FileNotFoundError:
        return
    except (OSError, orjson.JSONDecodeError):
        raw = None
    items = raw.get("kept") if isinstance(raw, dict) else None
    left = [i for i in items if not (isinstance(i, dict) and i.get("file") in names)] \
        if isinstance(items, list) else []
    try:
        if left:
            write_json_atomic(listing, {**raw, "kept": left})
        else:
            os.unlink(listing)
    except (OSError, BatonError) as exc:
        raise StorageError(f"cannot rewrite {listing}: {exc}") from exc


def _read(path: Path) -> Any:
    try:
        return orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
