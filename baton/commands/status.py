"""The project at a glance (the MCP tool ``baton_status``, spec §13).

Read-only: the project's config and policy in brief, how many handoffs are in
each state, the newest ready handoff with its §10b freshness derived *now*
(the same rule ``baton resume`` uses), how many session batons are
pending, and the batons a pending one superseded unseen (left on another
clone apart: docs/sync.md), read from the pending batons' own records.
Nothing is appended.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from baton.commands import archive_notices, forgotten_derived
from baton.commands.baton_cases import missed_after_claim, render_unseen
from baton.commands.batons import current_batons, pending_batons
from baton.commands.detector_facts import detector_config
from baton.commands.edits_apart import open_edits
from baton.commands.feed_vouch import handoff_vouch
from baton.commands.forgotten_derived import DerivedCopy
from baton.commands.handoff_facts import live_freshness
from baton.commands.ids import load_handoff
from baton.domain.batons import SUPERSEDED_UNSEEN, clipped_text, record_only
from baton.domain.handoff import STATUSES
from baton.domain.short_ids import short_id
from baton.errors import InputError, NotFound
from baton.model import frozen
from baton.policy import load_policy
from baton.projections import handoffs
from baton.projections.batons import unseen_details

if TYPE_CHECKING:
    from baton.commands.context import Project



@frozen
class LatestHandoff:
    """The handoff ``latest`` names (newest ready or resumed), with its freshness now."""

    id: str
    status: str
    title: str
    created_at: str
    validation: str
    freshness: dict[str, Any]
    feed: dict[str, Any] | None = None
    """It comes from a feed no trusted key vouches for (``baton.domain.feed_vouch``); None otherwise."""

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "short_id": short_id(self.id), "status": self.status, "title": self.title,
                "created_at": self.created_at, "validation": self.validation,
                "freshness_state": self.freshness["state"], "freshness": self.freshness, "feed": self.feed}


@frozen
class StatusResult:
    root: str
    project_id: str
    writer: str
    fsync: str
    policy: dict[str, Any]
    handoffs: dict[str, int]
    latest: LatestHandoff | None
    pending_batons: int
    detector: dict[str, Any] | None = None
    unseen: tuple[dict[str, Any], ...] = ()
    """Batons superseded unseen by a pending one, as ``baton status --json`` lists them
    (``supersededUnseen``: camelCase, with ``writer`` and ``objective``)."""
    forgotten: tuple[str, ...] = ()
    """A teammate's forget erased the reader's handoffs here (``forget_notices``): until the next brief tells it."""
    archived: tuple[str, ...] = ()
    """A teammate's archive reached the reader's handoffs here (``archive_notices``): until the next brief tells it."""
    edits_apart: tuple[dict[str, Any], ...] = ()
    """Handoff edits made apart that records list (``edits_apart.open_edits``): a revision not applied or overwritten."""
    derived: tuple[DerivedCopy, ...] = ()
    """Handoffs that still hold content of a forgotten one (``forgotten_derived.held_copies``), as
    ``baton status`` names them (``derivedOfForgotten``)."""
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "config": {"project_id": self.project_id, "writer": self.writer, "fsync": self.fsync,
                       "policy": self.policy},
            "handoffs": {"total": sum(self.handoffs.values()), "by_status": dict(self.handoffs)},
            "latest": self.latest.to_json() if self.latest else None,
            "pending_batons": self.pending_batons,
            "superseded_unseen": [unseen_json(u) for u in self.unseen],
            "detector": self.detector or {"available": False},
        } | ({"forgotten_by_teammates": list(self.forgotten)} if self.forgotten else {}) \
            | ({"archived_by_teammates": list(self.archived)} if self.archived else {}) \
            | ({"concurrent_edits": [{k: v for k, v in e.items() if k != "line"} for e in self.edits_apart]}
               if self.edits_apart else {}) \
            | ({"derived_of_forgotten": [{**d.to_json(), "line": d.line()} for d in self.derived]}
               if self.derived else {})

    def render(self) -> str:
        total = sum(self.handoffs.values())
        counts = ", ".join(f"{n} {status}" for status, n in self.handoffs.items() if n)
        lines = [f"Baton project {self.project_id} at {self.root}",
                 f"  handoffs: {total}" + (f" ({counts})" if counts else "")]
        if self.latest is None:
            lines.append("  latest ready: none")
        else:
            unverified = ""
            if self.latest.feed is not None:
                unverified = "; author not verified" + (" (withheld)" if self.latest.feed.get("withheld") else "")
            lines.append(f"  latest ready: {short_id(self.latest.id)} {self.latest.title!r} ({self.latest.status}),"
                         f" freshness {self.latest.freshness['state']}{unverified}")
        lines.append(f"  pending session batons: {self.pending_batons}")
        lines.extend(f"  {line}" for line in render_unseen(list(self.unseen)))
        lines.extend(f"  {line}" for line in (*self.forgotten, *self.archived))
        lines.extend(f"  {e['line']}" for e in self.edits_apart)
        lines.extend(f"  {d.line()}" for d in self.derived)
        return "\n".join(lines)


def unseen_json(unseen: dict[str, Any]) -> dict[str, Any]:
    """A baton superseded unseen as this result spells its members (snake_case), with the
    commands that read it (``read_with``); its ``objective`` clipped as the text clips it
    (``clipped_text``: one line, at most ``CARRIED_TEXT_MAX`` characters)."""
    ident = unseen.get("id")
    objective = unseen.get("objective")
    return {"id": ident, "short_id": short_id(ident) if isinstance(ident, str) else None,
            "status": SUPERSEDED_UNSEEN, "owner": unseen.get("owner"), "branch": unseen.get("branch"),
            "shared": bool(unseen.get("shared")), "created_at": unseen.get("createdAt"),
            "session_id": unseen.get("sessionId"), "harness": unseen.get("harness"),
            "writer": unseen.get("writer"), "objective": clipped_text(objective) if isinstance(objective, str) and objective else None,
            "superseded_by": unseen.get("supersededBy"), "unread": bool(unseen.get("unread")),
            "first_step": unseen.get("firstStep"),
            **({"superseded_for": unseen["supersededFor"]} if isinstance(unseen.get("supersededFor"), dict) else {}),
            "handoff_status": unseen.get("handoffStatus"),
            "read_with": [f"baton handoff show {ident}"] if record_only(unseen.get("handoffStatus"))
            else [f"baton resume {ident}", f"baton handoff show {ident}"]}


def project_status(project: "Project") -> StatusResult:
    """Summarize the project without writing anything.

    Raises:
        NotInitialized (exit 4): not a Baton project.
        InputError (exit 2): the policy files are malformed.
    """
    opened = project
    policy = load_policy(opened.paths, opened.config)
    runner = opened.reading()
    counts = dict.fromkeys(STATUSES, 0)
    counts.update(handoffs.handoff_counts(runner.db))
    latest = None
    try:
        handoff = load_handoff(runner, "latest")
    except NotFound:
        handoff = None
    if handoff is not None:
        freshness = live_freshness(opened.paths.worktree, handoff, policy)
        unverified = handoff_vouch(opened, runner, handoff.id)
        latest = LatestHandoff(handoff.id, handoff.status, handoff.work.title, handoff.created_at,
                               handoff.validation.status, freshness.to_json(),
                               unverified.to_json() if unverified is not None else None)
    summary = {"recheck_allowlist": len(policy.recheck_allowlist),
               "allowed_roots": [str(p) for p in policy.allowed_roots],
               "redaction_rules": len(policy.redaction.rules),
               "sources": list(policy.sources)}
    pending = pending_batons(runner)
    # Only the pending batons that name one they replaced unseen read anything more: their key's
    # document and the replaced handoffs' rows (docs/performance.md: baton_status stays flat).
    unseen = tuple({**u, "supersededBy": r.id} for r in pending for u in unseen_details(runner, r)) \
        + tuple({k: v for k, v in u.items() if k != "status"}
                for u in missed_after_claim(opened, runner, [p.record for p in current_batons(runner)]))
    kept = archive_notices.pending(opened)  # a teammate's forget or archive of the reader's handoffs
    return StatusResult(str(opened.root), opened.config.project_id, opened.writer, opened.config.fsync, summary,
                        counts, latest, len(pending), _detector_summary(opened), unseen,
                        tuple(kept[0]), tuple(kept[1]),
                        tuple(open_edits(runner)), tuple(forgotten_derived.held_copies(runner)))


def _detector_summary(project: "Project") -> dict[str, Any]:
    """The §9 detector: available, with the configuration in force (or why it cannot run)."""
    try:
        return {"available": True, "command": "baton detect", "tool": "handoff_detect",
                **detector_config(project).to_json()}
    except InputError as exc:
        return {"available": False, "problem": exc.message}
