"""What ``baton forget`` erases, and what the project may delete (spec §16).

Pure rules over recorded envelopes: no file system, no clock. The command
(``baton.commands.forget``) reads the ledger, asks these, records the
``handoff.forgotten`` event, then erases.
"""

from __future__ import annotations

from typing import Any, Iterable

from baton.events.catalogue import BATON, HANDOFF, HandoffForgotten, split_stream, stream_of
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
        return self.handoff[:13]

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
