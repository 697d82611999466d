"""``baton handoff ready ID [--accept-warnings REASON]``: promote a validated record.

Promotion is decided by the state machine (``lifecycle.promote``): only a
validated, unflagged record whose validation passed — or warned, with a
reason given — becomes ready (exit 3 otherwise; exit 4 from the wrong state).
The promotion is fsynced (``durable=True``). When the record continues or
amends a ready parent, that parent is marked superseded in the same step: its
content never changes, only its status. When it continues a draft Baton
prepared (``automation.inputs``: a detector's request, a compaction), that
draft is archived in the same step with a reason naming this handoff: it is
complete, and would otherwise stay an open draft forever.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from baton.commands.capture import HashedNow, handoff_file, hash_not_hashed_yet
from baton.commands.detector_facts import repository_head
from baton.commands.handoff_facts import (
    FOLDER_MAX_LISTED,
    SKIPPED_FOLDERS,
    artifact_facts,
    now_timestamp,
    worktree_label,
)
from baton.commands.identity import recorded_owner
from baton.commands.ids import load_handoff, refuse_latest
from baton.commands.record import record_many
from baton.domain.aggregates import handoff as aggregate
from baton.domain.freshness import freshness_from_facts
from baton.domain.handoff import handoff_to_json, record_worktree, stored_handoff
from baton.domain.short_ids import short_id
from baton.errors import Conflict, InputError
from baton.events.names import handoff_stream
from baton.model import frozen

if TYPE_CHECKING:
    from baton.commands.context import Project



@frozen
class ReadyResult:
    handoff_id: str
    record: dict[str, Any]
    file: str
    superseded: tuple[str, ...] = ()
    exit_code: int = 0
    split_from: tuple[tuple[str, str], ...] = ()
    """(parent, the other revision): parents this handoff revises that another
    ready handoff had already superseded — two ready revisions of one parent."""
    closed: tuple[str, ...] = ()
    """Drafts Baton prepared that this handoff continues and so completes:
    archived in the same write, with a reason (``_prepared_draft_completed``)."""

    def to_json(self) -> dict[str, Any]:
        validation = self.record.get("validation") or {}
        return {"id": self.handoff_id, "status": self.record.get("status"), "file": self.file,
                "validation": validation.get("status"), "accepted_warnings": validation.get("accepted_warnings"),
                "superseded": list(self.superseded),
                "split_from": [{"parent": p, "other": o} for p, o in self.split_from],
                "closed": list(self.closed)}

    def render(self) -> str:
        validation = self.record.get("validation") or {}
        lines = [f"handoff {short_id(self.handoff_id)} is ready ({self.file})"]
        if validation.get("accepted_warnings"):
            lines.append(f"  warnings accepted: {validation['accepted_warnings']}")
        for parent in self.superseded:
            lines.append(f"  supersedes {parent}")
        for parent in self.closed:
            lines.append(f"  completes the draft Baton prepared, {short_id(parent)} (archived: this handoff "
                         "carries its work)")
        for parent, other in self.split_from:
            lines.append(f"  note: {short_id(parent)} was already superseded by {short_id(other)}: this and "
                         f"{short_id(other)} are two ready revisions of it; if they should be one, "
                         f"`baton merge {short_id(other)} {short_id(self.handoff_id)}`")
        lines.append(f"Resume it in any session: baton resume {short_id(self.handoff_id)}")
        return "\n".join(lines)


READY_ATTEMPTS = 3
"""How many times ``handoff ready`` hashes and checks again when what it relied on moved before it took
the lock (the record revised, its files or head changed): then it gives up (a conflict, exit 4)."""


def promote_handoff(
    project: "Project",
    token: str = "",
    *,
    accept_warnings: str | None = None,
    on_hashing: Callable[[int, int, str], None] | None = None,
) -> ReadyResult:
    """An artifact still recorded not hashed yet (validated before validation hashed them) is hashed in
    the handoff's worktree and recorded with the promotion; one that cannot be refuses it (never ready
    with an artifact whose hash was never computed). ``on_hashing``: as ``validate_handoff_command``'s.

    Hashing (those, and every artifact to see what moved since validation) is done before the ledger
    lock is taken, as validation's is: a long hash never holds up another command or a harness's hook.
    Under the lock the promotion is decided only if nothing it relied on moved meanwhile (the record's
    revision, each artifact's file, the worktree's head); else it reads and hashes again
    (``READY_ATTEMPTS`` in all), so a file changed since hashing is recorded by its new hash, never a stale one.

    Raises:
        TransitionError (exit 4): not validated (e.g. never validated, or already ready).
        PromotionRefused (exit 3): validation failed (the record is flagged
            invalid: amend it and validate again), or warned without a reason.
        NotFound / AmbiguousId (exit 4).
        Conflict (exit 4): the record or its files kept changing while it hashed.
    """
    if accept_warnings is not None and not accept_warnings.strip():
        raise InputError("`accept_warnings` needs a reason: say why the warnings are acceptable")
    accept_warnings = accept_warnings.strip() if accept_warnings else None
    refuse_latest(token, "handoff ready", "a validated handoff")
    opened = project
    actor = recorded_owner(opened)  # who made it ready, named to another clone's reader (an edit made apart)
    for _ in range(READY_ATTEMPTS):
        runner = opened.reading()
        handoff = load_handoff(runner, token)
        version = (runner.get("streams", handoff_stream(handoff.id)) or {}).get("version", 0)
        there = _record_worktree_here(opened, handoff)
        stamps = _stamps(there, handoff)  # before hashing: a change during it is seen under the lock
        found = hash_not_hashed_yet(there, handoff, opened.policy, on_step=on_hashing) if there is not None \
            else HashedNow({}, {})
        head_now, drifted = _where_validated_now(
            opened, aggregate.with_artifact_hashes(handoff, found.hashes, found.skipped), there)
        with opened.writing() as scope:
            if (scope.txn.stream_version(handoff_stream(handoff.id)) != version or _stamps(there, handoff) != stamps
                    or (there is not None and repository_head(there) != head_now)):
                continue  # moved since it was read or hashed: read and hash again
            return _promote_in_scope(scope, handoff, aggregate.Promote(accept_warnings, head_now, drifted,
                                                                       found.hashes, found.skipped),
                                     version=version, actor=actor, now=now_timestamp(opened.clock()))
    raise Conflict(f"handoff {short_id(handoff.id)} or its artifacts kept changing while `handoff ready` hashed "
                   f"them ({READY_ATTEMPTS} times): run it again once they are still",
                   details={"id": handoff.id, "attempts": READY_ATTEMPTS})


def _promote_in_scope(scope: Any, handoff: Any, promote: Any, *, version: int, actor: str | None,
                      now: str) -> ReadyResult:
    """The promotion's write, under the lock: the handoff's events (decided on the record read at
    ``version``), and those of the parents it supersedes, completes or splits from."""
    decisions = [(aggregate.decide(handoff, promote, now=now), version)]
    superseded: list[str] = []
    split: list[tuple[str, str]] = []
    closed: list[str] = []
    if handoff.lineage.relation in ("continue", "amend"):
        # A continuation or an amendment replaces its ready parent: the
        # parent's status changes in the same write, its content never.
        for parent_id in handoff.lineage.parents:
            doc = scope.runner.get("handoffs", parent_id)
            parent = stored_handoff(doc) if doc is not None else None
            command = aggregate.Supersede(handoff.id)
            if parent is not None and aggregate.allows(parent, command):
                decisions.append((aggregate.decide(parent, command, now=now),
                                  scope.txn.stream_version(handoff_stream(parent_id))))
                superseded.append(parent_id)
            elif parent is not None and parent.status == "superseded" and parent.superseded_by:
                split.append((parent_id, parent.superseded_by))
            elif parent is not None and _prepared_draft_completed(parent, handoff.lineage.relation):
                reason = f"completed by ready handoff {short_id(handoff.id)}, which continues it"
                decisions.append((aggregate.decide(parent, aggregate.Archive(reason), now=now),
                                  scope.txn.stream_version(handoff_stream(parent_id))))
                closed.append(parent_id)
    record_many(scope, decisions, durable=True, actor=actor)
    record = scope.runner.get("handoffs", handoff.id)
    assert record is not None  # written just above
    return ReadyResult(handoff.id, record, handoff_file(record), tuple(superseded), split_from=tuple(split),
                       closed=tuple(closed))


def _stamps(there: Path | None, handoff: Any) -> tuple[Any, ...]:
    """What each artifact's file (or folder) is on disk now, cheaply (``stat``): its size, time of change
    and inode; a folder's own stat and each of its entries' (so a file written in it shows), at most
    ``FOLDER_MAX_LISTED`` of them, as many as its hash lists. Compared before hashing and under the lock, a
    change between them is seen without hashing again."""
    if there is None:
        return ()
    out: list[Any] = []
    for artifact in handoff.artifacts:
        path = there / artifact.path
        out.append((artifact.path, _stat(path)))
        if path.is_dir() and not path.is_symlink():
            listed = 0
            for below, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in SKIPPED_FOLDERS)
                names = sorted(files + dirs)[:FOLDER_MAX_LISTED - listed]
                out.extend((os.path.join(below, name), _stat(Path(below) / name)) for name in names)
                listed += len(names)
                if listed >= FOLDER_MAX_LISTED:
                    break
    return tuple(out)


def _stat(path: Path) -> tuple[int, ...] | None:
    try:
        found = path.lstat()
    except OSError:
        return None
    return (found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)


def _prepared_draft_completed(parent: Any, relation: str) -> bool:
    """Whether a ready ``continue`` child completes ``parent``, a draft Baton prepared
    (on a handoff request or before a compaction: its ``automation.inputs`` records
    the detector's inputs): the hook tells an agent over MCP to complete it so
    (``handoff_capture`` with ``parent``). Left a draft, it would stay open forever
    (a draft is never superseded); it is archived with a reason in the promotion's
    write instead."""
    return (relation == "continue" and parent.status in ("draft", "validated")
            and parent.automation is not None and parent.automation.inputs is not None)


def _record_worktree_here(opened: Any, handoff: Any) -> Path | None:
    """The worktree the handoff was captured (and its validation that counts was run) in, when it is on
    this machine inside the project root (a command reads no path outside the root but the worktree it
    runs in); None otherwise. Run from the main worktree, ``ready`` of a linked worktree's handoff reads
    that worktree."""
    own = record_worktree(handoff_to_json(handoff))
    if own is None or own == worktree_label(opened.paths):
        return Path(opened.paths.worktree)
    root = os.path.realpath(opened.paths.root)
    resolved = os.path.realpath(opened.paths.root / own)
    if (resolved != root and not resolved.startswith(root + os.sep)) or not os.path.isdir(resolved):
        return None
    return Path(resolved)


def _where_validated_now(opened: Any, handoff: Any, there: Path | None) -> tuple[str | None, tuple[str, ...]]:
    """The head now, and the artifacts whose content differs now from their recorded hash, of the
    handoff's worktree ``there`` (``_record_worktree_here``). The head is read from git's ref files
    (no git process, no dulwich). Nothing is known to have moved when that worktree is not on this
    machine (None)."""
    if there is None:
        return None, ()
    head = repository_head(there)
    report = freshness_from_facts(handoff, artifact_facts(there, handoff, opened.policy, whole=True), head)
    return head, tuple(d.path for d in report.drift)
