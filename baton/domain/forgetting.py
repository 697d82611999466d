"""What ``baton forget`` erases, and what the project may delete (spec §16).

Pure rules over recorded envelopes: no file system, no clock. The command
(``baton.commands.forget``) reads the ledger, asks these, records the
``handoff.forgotten`` event, then erases.
"""

from __future__ import annotations

from typing import Any, Iterable

from baton.domain.short_ids import short_id
from baton.events.catalogue import BATON, HANDOFF, HandoffForgotten, split_stream, stream_of
from baton.events.names import HANDOFF_REVISED
from baton.ledger.envelope import Event
from baton.model import frozen


@frozen
class ForgetPlan:
    handoff: str
    events: tuple[str, ...]
    """Ids of the events whose payload will be erased, in project order."""
    types: dict[str, int]
    """How many of each event type (what the plan shows; never a payload)."""
    already_erased: int

    def forgotten(self, reason: str | None) -> HandoffForgotten:
        return HandoffForgotten(key=self.handoff, handoff=self.handoff, events=list(self.events), reason=reason)


def carries_handoff(event: Event, handoff_id: str) -> bool:
    """An event of the handoff's own stream, or of a baton that carried it."""
    if event.stream == stream_of(HANDOFF, handoff_id):
        return event.type != HandoffForgotten.TYPE  # the record of an erasure is never erased
    family, _ = split_stream(event.stream)
    return family == BATON and isinstance(event.data, dict) and event.data.get("handoff_id") == handoff_id


def plan_forget(handoff_id: str, events: Iterable[Event]) -> ForgetPlan:
    """The payloads to erase for ``handoff_id`` among ``events`` (project order).

    A baton event whose payload is already erased no longer says which
    handoff it carried; it is counted only through the earlier plan's event.
    """
    ids: list[str] = []
    types: dict[str, int] = {}
    already = 0
    for event in events:
        if not carries_handoff(event, handoff_id):
            continue
        if event.erased:
            already += 1
            continue
        ids.append(event.id)
        types[event.type] = types.get(event.type, 0) + 1
    return ForgetPlan(handoff_id, tuple(ids), types, already)


def erased_by(event: Event) -> list[str]:
    """The event ids a recorded ``handoff.forgotten`` names: the erasures that
    are legitimate (``verify_ledger``'s ``erasures``)."""
    if event.type != HandoffForgotten.TYPE or not isinstance(event.data, dict):
        return []
    listed = event.data.get("events")
    return [i for i in listed if isinstance(i, str)] if isinstance(listed, list) else []


def payload_strings(data: Any, *, shortest: int = 8) -> set[str]:
    """The string values of a payload at least ``shortest`` characters long:
    what ``forget`` looks for in quarantined fragments, which may hold a
    prefix of one of the erased lines."""
    found: set[str] = set()
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            if len(value) >= shortest:
                found.add(value)
        elif isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, (list, tuple)):
            stack.extend(value)
    return found


@frozen
class ForeignForget:
    """A handoff another replica's ``handoff.forgotten`` erased here (``baton sync``): who asked,
    and whether the handoff was this reader's own. Never its title nor any other erased text:
    the forget may be for a secret the title holds."""

    handoff: str
    writer: str
    """The feed that recorded the forget."""
    actor: str | None
    """The git identity that forget was recorded under, as claimed (nothing verifies it)."""
    reason: str | None
    yours: bool
    """The handoff was captured by this reader (``baton.domain.authorship.wrote``)."""

    @property
    def short(self) -> str:
        """The short id every list shows (``short_ids.short_id``: the id's random tail)."""
        return short_id(self.handoff)

    def line(self) -> str:
        """How ``baton sync``, ``status`` and the brief name it."""
        who = f"writer {self.writer}" + (f" ({' '.join(self.actor.split())}, as claimed)" if self.actor else "")
        whose = "your handoff" if self.yours else "handoff"
        return f"{whose} {self.short} was erased here by a forget that {who} recorded"

    def to_json(self) -> dict[str, Any]:
        return {"handoff": self.handoff, "short": self.short, "writer": self.writer,
                "actor": self.actor, "reason": self.reason, "yours": self.yours}


def foreign_forgets(forgets: Iterable[Event], erased: Iterable[str], *, my_writer: str) -> list[Event]:
    """The ``handoff.forgotten`` events, recorded by another writer than ``my_writer``, that name
    one of the ``erased`` event ids: each handoff a sync erased here at another replica's request."""
    wanted = set(erased)
    return [e for e in forgets if e.writer != my_writer and wanted.intersection(erased_by(e))]


@frozen
class WithheldEdit:
    """Events of a forgotten handoff's own stream that still hold a payload: written on another
    clone before the forget reached it (an amend made apart), so no forget named them. No record
    shows them (the fold keeps a forgotten handoff gone); the ledger still holds their text until
    ``baton forget`` of the handoff runs again here. Never their text: the forget may be for it."""

    handoff: str
    events: tuple[str, ...]
    types: tuple[str, ...]
    writers: tuple[str, ...]

    @property
    def short(self) -> str:
        return short_id(self.handoff)

    def line(self) -> str:
        """How ``baton sync`` names it."""
        n = len(self.events)
        what = f"{n} {'revision' if set(self.types) == {HANDOFF_REVISED} else 'event'}{'s' if n > 1 else ''}"
        return (f"FORGOTTEN: {what} of the forgotten handoff {self.short}, made apart on another clone "
                f"(writer {', '.join(self.writers)}) before the forget reached it, still hold"
                f"{'' if n > 1 else 's'} its content here: withheld from every record, brief and listing; "
                f"`baton forget {self.short}` erases {'them' if n > 1 else 'it'}")

    def to_json(self) -> dict[str, Any]:
        return {"handoff": self.handoff, "short": self.short, "events": list(self.events),
                "types": list(self.types), "writers": list(self.writers)}


def withheld_edits(events: Iterable[Event], forgotten: Iterable[str]) -> list[WithheldEdit]:
    """Per handoff of ``forgotten`` (ids a forget left without a record), its events among
    ``events`` that are on its own stream and still hold a payload: what no forget named
    (``WithheldEdit``)."""
    streams = {stream_of(HANDOFF, h): h for h in forgotten}
    found: dict[str, list[Event]] = {}
    for event in events:
        handoff = streams.get(event.stream)
        if handoff is not None and not event.erased and event.type != HandoffForgotten.TYPE:
            found.setdefault(handoff, []).append(event)
    return [WithheldEdit(h, tuple(e.id for e in held), tuple(dict.fromkeys(e.type for e in held)),
                         tuple(dict.fromkeys(e.writer for e in held)))
            for h, held in sorted(found.items())]

