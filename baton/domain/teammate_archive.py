"""A teammate's archive of your handoff (docs/sync.md, "A teammate archived your handoff"; tester-team24 T3).

Archiving is a person's decision and stands on every clone (``baton.domain.concurrent_edits``), but
the person whose handoff it was may never have run the command: after ``baton sync`` brings a
``handoff.archived`` recorded by another writer, the handoff is no longer offered to resume, and
``resume latest`` and the session-start brief would drop it without a word. Like a teammate's
forget, dismissal or cancellation, it is told once, at the next session start (and ``baton sync``
names it as it arrives): who archived it, when, the reason, and ``baton handoff show ID``.

Told to the one whose handoff it is: this clone's user captured it (``baton.domain.authorship.wrote``)
or made it ready (the record's ``READIED`` names who did, as ``wrote`` reads a capture: an archive
made apart that sorts after a ``ready`` is told to whoever made it ready). Only a handoff this clone
held live before the sync (a clone that never showed it is told nothing, but for a first sync into
an index that held no teammate's event: the caller gives who captured each, status ``""``), and never an archive
recorded here, nor one recorded under this user's own git identity on another clone of theirs: that
is their own archive, not a teammate's (tester25 T7). The reason is shown at most ``REASON_MAX``
characters long (``handoff archive`` refuses a longer one; tester25 T3). Pure: the events and the records as they stood are passed in.
"""

from __future__ import annotations

from collections.abc import Mapping

from baton.domain.authorship import wrote
from baton.domain.batons import same_owner, shown_name
from baton.domain.concurrent_edit_lines import ARCHIVED_BY, READIED
from baton.domain.limits import REASON_MAX
from baton.errors import HandoffNotYours
from baton.events.names import HANDOFF, HANDOFF_ARCHIVED, split_stream
from baton.ledger.envelope import Event
from baton.values import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (resume loads this)
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any


class ForeignArchive(Value):
    """A handoff of this clone's user that another writer's archive reached here by ``baton sync``."""

    handoff: str
    writer: str
    """The feed that recorded the archive."""
    actor: str | None
    """The git identity the archive was recorded under, as claimed (nothing verifies it)."""
    at: str
    reason: str | None
    was: str
    """The handoff's status here before the sync brought the archive (``ready``, ``draft``…); ``""``:
    the clone's first sync (its index held no teammate's event) brought the handoff and its archive."""

    def line(self) -> str:
        """How ``baton sync``, ``status`` and the brief tell it (once, at the next start)."""
        here = f"{self.was} here until then" if self.was else "new to this clone, whose first sync brought it"
        return (f"ARCHIVED: your handoff {self.handoff} ({here}) was archived by "
                f"{archiver(self.writer, self.actor)} at {self.at}{reason_words(self.reason)}, so it is no "
                f"longer offered to resume; `baton handoff show {self.handoff}` reads it (to go on with that "
                f"work, capture a checkpoint that continues it: `baton checkpoint create`).")

    def to_json(self) -> dict[str, Any]:
        return {"handoff": self.handoff, "writer": self.writer, "actor": self.actor, "at": self.at,
                "reason": self.reason, "was": self.was, "line": self.line()}


def archiver(writer: str | None, actor: str | None) -> str:
    """Who recorded an archive: its feed, with the git identity it claimed."""
    who = f"writer {writer}" if writer else "another clone"
    return who + (f" ({shown_name(actor)}, as claimed)" if actor else "")


def reason_words(reason: Any) -> str:
    return f" (reason: {shown_reason(reason)})" if isinstance(reason, str) and reason.strip() else " (no reason given)"


def shown_reason(reason: str) -> str:
    """A recorded reason on one line, at most ``REASON_MAX`` characters (then ``…``): an archive
    recorded before the command held it to that limit, or by an older Baton, may carry any length."""
    shown = shown_name(reason)
    return shown if len(shown) <= REASON_MAX else shown[:REASON_MAX] + "…"


def foreign_archives(events: Iterable[Event], before: Mapping[str, Mapping[str, Any]], *, my_writer: str,
                     my_owner: str) -> list[ForeignArchive]:
    """Of the ``handoff.archived`` events a sync brought (``events``, in merge order), those to tell
    this clone's user: recorded by another writer than ``my_writer`` under another git identity
    than ``my_owner``, of a handoff the index held live
    before the sync (``before``: id → ``{"status", "owner", "writer", "readied"}``, the record's
    status, who captured it, and its ``READIED``) that this user captured or made ready here. One
    per handoff (the first archive: a second one changes nothing)."""
    out: dict[str, ForeignArchive] = {}
    for event in events:
        data = event.data if isinstance(event.data, dict) else None
        family, handoff = split_stream(event.stream)
        if event.type != HANDOFF_ARCHIVED or family != HANDOFF or event.writer == my_writer or handoff in out:
            continue
        if isinstance(event.actor, str) and event.actor and my_owner and same_owner(event.actor, my_owner):
            continue  # this user's own archive, made on another clone of theirs: no teammate's to tell
        held = before.get(handoff)
        if held is None or held.get("status") in (None, "archived"):
            continue
        readied = held.get("readied")
        yours = wrote(held.get("owner"), held.get("writer"), my_owner=my_owner, my_writer=my_writer) or (
            isinstance(readied, Mapping) and wrote(readied.get("owner"), readied.get("writer"), my_owner=my_owner,
                                                   my_writer=my_writer))
        if yours:
            reason = data.get("reason") if data is not None else None
            out[handoff] = ForeignArchive(handoff, event.writer, event.actor if isinstance(event.actor, str) else None,
                                          event.at, shown_reason(reason) if isinstance(reason, str) else None,
                                          str(held.get("status")))
    return list(out.values())


def archived_latest(doc: Mapping[str, Any] | None) -> str | None:
    """Why ``resume latest`` finds nothing ready when the newest handoff archived (``doc``, its record)
    had been made ready: who archived it, when and why, and how to read it; None otherwise (nothing
    archived, or an archive of a record never made ready: the plain "nothing is ready yet" holds)."""
    if not isinstance(doc, Mapping) or doc.get("status") != "archived" or not isinstance(doc.get(READIED), Mapping):
        return None
    recorded = doc.get(ARCHIVED_BY)
    by: Mapping[str, Any] = recorded if isinstance(recorded, Mapping) else {}
    ident = str(doc.get("id"))
    return (f"the newest handoff made ready, {ident}, was archived by {archiver(by.get('writer'), by.get('owner'))}"
            f"{' at ' + str(by['at']) if by.get('at') else ''}{reason_words(doc.get('archived_reason'))}, "
            f"and no other handoff is ready; `baton handoff show {ident}` reads it")


NOT_TAKEN_UP = ("draft", "validated", "ready")
"""The statuses of a handoff whose archive is held to ``require_yours_to_archive``: its author's work
not taken up yet (a resumed one was taken up by whoever resumed it)."""


def require_yours_to_archive(handoff_id: str, captured: tuple[str, str] | None, *, me: str, my_writer: str,
                             not_mine: bool) -> None:
    """The rule an archive of a handoff not taken up yet (``NOT_TAKEN_UP``) and carrying no pending
    baton is held to, as a dismissal is (docs/batons.md, "Dismissing a baton"): a handoff another owner captured (``captured``: its ``(writer, owner)``, as the index holds it;
    None: not known, and not refused) is theirs; archiving it anyway is the explicit choice
    ``not_mine`` (they are told at their next session start).

    Raises:
        HandoffNotYours: captured by someone else, without ``not_mine`` (exit 4).
    """
    if not_mine or captured is None:
        return
    writer, owner = captured
    if wrote(owner, writer, my_owner=me, my_writer=my_writer) or not (owner or writer):
        return
    author = shown_name(owner) if owner else f"writer {writer}"
    raise HandoffNotYours(
        f"handoff {handoff_id} was captured by {author}: not yours ({shown_name(me) if me else 'this clone'}) "
        f"to archive; they may archive it, or continue it (archiving it anyway is a deliberate choice: "
        f"`not_mine`, and {author} is told at their next session start)",
        details={"handoff_id": handoff_id, "owner": owner or None, "writer": writer or None, "you": me or None})
