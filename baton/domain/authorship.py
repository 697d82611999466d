"""Who wrote a handoff, and whether the reader did: a pure decision.

A record's writer is the feed (writer id) whose event captured it; its
owner is who the capture was made under (git ``user.email``, else
``user.name``..., resolved like a baton's owner). A record is the reader's
own when its owner is the reader's — compared as baton owners are
(``batons.same_owner``: an e-mail owner in any letter case is one person); a
record whose capture recorded no owner (written before Baton kept it) is the
reader's when this clone's feed wrote it.
"""

from __future__ import annotations

from baton.domain.batons import same_owner, shown_name


def wrote(owner: str | None, writer: str | None, *, my_owner: str, my_writer: str) -> bool:
    """True when a record captured under ``owner`` by feed ``writer`` is the reader's."""
    if owner:
        return bool(my_owner) and same_owner(owner, my_owner)
    return bool(writer) and writer == my_writer


def author_label(owner: str | None, writer: str | None) -> str:
    """How the text outputs name who wrote a record: its owner (on one line, ``shown_name``),
    else its feed, else ``-``."""
    return shown_name(owner) if owner else (f"writer {writer}" if writer else "-")
