"""``baton bootstrap``: the brief a session starts from, with the baton waiting for it.

The order is the spec's: peek the eligible baton before the budget pass;
render it as ``## 🤝 Active Session Handoff`` and reserve its bytes and the
objective's as immutable; fill what is left with recent decisions and traps
(do-not-retry failed attempts across recent handoffs), trimming those; claim
the baton only once the brief fits, under the ledger lock. A failed claim
degrades to a notice and the standard brief: another session's claim that
landed first is told as a later start is told of it
(``domain.claimed_elsewhere``, ``Start.tell_claimed_elsewhere``); any other
failure (a newer baton landed) as "not delivered". Missing or malformed data never stops a session: whatever
cannot be read is left out.

A claim always names a session: the caller's ``session_id``, else one minted
here (a UUIDv7, as ``baton session begin`` mints), which the result shows —
in ``sessionId`` and, when a baton was claimed with it, in the handoff
section — so the claiming session can be told apart and can name itself
later. With ``peek`` nothing is claimed and nothing is appended: the result
is the brief a start would receive now.

A start is read in steps (``Start``), so that it loads what its baton needs
only when one waits: ``begin`` reads everything and is done when no baton
waits; ``Start.offer`` fits the waiting baton's section in, with its
freshness and summary (``handoff_facts.baton_freshness``); ``Start.claim`` claims it
(``baton_claim``). The application passes those modules' steps in
(``Baton._brief``), loading each only when the step before asks for it.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from baton import gitinfo
from baton.commands.batons import (
    Peek,
    as_taken_up,
    claimer_ended,
    handoff_status,
    peek_at_start,
    received_at_start,
    stored_baton,
    taken_up_in,
)
from baton.commands.identity import (
    DETACHED_BRANCH,
    FALLBACK_BRANCH,
    SessionContext,
    context_of,
    owner_notice,
    project_owner,
)
from baton.commands.objectives import SessionObjective, check_session_id, get_session_objective
from baton.config import read_json, write_json_atomic
from baton.domain.batons import (
    BEGIN_AS,
    CLAIMED,
    DEFAULT_MAX_BYTES,
    MAX_MAX_BYTES,
    SEE_BATON,
    UNREADABLE_BRIEF,
    AssembledBrief,
    BatonRecord,
    assemble_brief,
    behind_notice,
    brief_may_use,
    collect_decisions,
    collect_traps,
    collided_notice,
    collided_unseen,
    dismissed_elsewhere,
    gone_branch_notice,
    held_up_notice,
    left_at_this_tip_notice,
    left_here_for_another_owner,
    left_on_a_branch_gone,
    lost_claim_notices,
    missed_notice,
    objective_stands_notice,
    passed_validation,
    render_baton_markdown,
    render_latest_markdown,
    same_owner,
    taken_up_notices,
    too_big_notice,
    unseen_lines,
    visible_handoffs,
    waiting_for_them_json,
    waits_for_them_line,
)
from baton.domain.claimed_elsewhere import ClaimedElsewhere, as_recorded, claimed_elsewhere, claimed_elsewhere_notice
from baton.domain.limits import MIN_MAX_BYTES
from baton.errors import BatonAlreadyClaimed, BatonError, DiskFull, InputError, LedgerBusy, ReadOnlyProject
from baton.ledger.clock import rfc3339_micros
from baton.ledger.ids import uuid7
from baton.projections import handoffs
from baton.projections.batons import baton_creators, baton_records, baton_scopes, claim_conflicts, unseen_sources
from baton.projections.handoffs import LATEST_WINDOW, RESUMABLE
from baton.projections.sessions import session_doc
from baton.values import Value, replace

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any, Iterable, Mapping, Protocol, Sequence

    from baton.commands.context import Limits, Project
    from baton.commands.session_records import NamedStart
    from baton.domain.feed_vouch import FeedVouch
else:
    Protocol = object  # an interface for type checkers; at run time a plain base (~0.07 ms less a class)

RECENT_HANDOFFS = 20

TOLD_FILE = "claim-conflicts-told.json"
"""The lost claims, and the batons left here for another owner, this clone's session starts have
already reported (local, never synced)."""
TOLD_KEPT = 1000
"""How many told event ids the file keeps (the newest)."""


def _told_path(project: "Project"):
    return os.path.join(project.paths.baton_folder, TOLD_FILE)


def _read_told(project: "Project") -> list[str]:
    try:
        raw = read_json(_told_path(project))
    except FileNotFoundError:
        return []
    told = raw.get("told") if isinstance(raw, dict) else None
    return [t for t in told if isinstance(t, str)] if isinstance(told, list) else []


Spend = list[tuple[str, str]]
"""The told-once notices a brief gathered, each with its mark (``TOLD_FILE``; ``KEPT``: a notice ``baton
sync`` kept, ``FORGOTTEN_HERE``): spent once the brief is assembled, only those it shows (``spend_shown``),
so one its byte budget leaves out is told at the next start that has room. A list, not a class: the hook
path defines no class it does not use."""

KEPT = ""
"""The mark of a notice kept in ``FORGOTTEN_HERE`` (a teammate's forget or archive): spent by taking it out."""


def _spent(project: "Project", told: list[str], fresh: list[tuple[str, str]], *, peek: bool,
           spend: Spend | None) -> None:
    """``fresh`` (mark, notice) told: recorded with the told now, or, given ``spend``, once the brief shows
    them (``spend_shown``); never when peeking."""
    if not fresh or peek:
        return
    if spend is not None:
        spend.extend((notice, mark) for mark, notice in fresh)
        return
    write_json_atomic(_told_path(project), {"told": (told + [mark for mark, _ in fresh])[-TOLD_KEPT:]})


def spend_shown(project: "Project", spend: Spend, shown: Sequence[str]) -> None:
    """Record as told the notices of ``spend`` that a brief showed (``shown``): their marks joined to
    ``TOLD_FILE``, the kept ones taken out of ``FORGOTTEN_HERE`` (the file goes with the last); those it
    left out to fit its byte budget stay to be told at the next start."""
    said = set(shown)
    marks = [mark for notice, mark in spend if mark != KEPT and notice in said]
    if marks:
        told = _read_told(project)
        write_json_atomic(_told_path(project), {"told": (told + [m for m in marks if m not in told])[-TOLD_KEPT:]})
    if any(mark == KEPT and notice in said for notice, mark in spend):
        path = os.path.join(project.paths.baton_folder, FORGOTTEN_HERE)
        try:
            raw = read_json(path)
        except (FileNotFoundError, BatonError):
            return
        kept = raw.get("notices") if isinstance(raw, dict) else None
        left = [n for n in kept if not (isinstance(n, dict) and n.get("notice") in said)] \
            if isinstance(kept, list) else []
        if left:
            write_json_atomic(path, {**raw, "notices": left})
        else:
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass


def _lost_claims(project: "Project", runner, *, peek: bool, wording: Mapping[str, str],
                 spend: Spend | None = None) -> list[str]:
    """Notices for the claims this clone made that lost to another replica's
    claim (``baton sync``), each told once: unless peeking, the ids shown are
    recorded in ``.baton/claim-conflicts-told.json`` (given ``spend``, once the brief shows them)."""
    if "batons" not in runner.by_name:
        return []
    told = _read_told(project)
    conflicts = claim_conflicts(runner.docs("batons"))
    # a claim lost to a dismissal: the handoff may be archived with it (one row per conflict of this writer)
    statuses = {c["handoffId"]: status for c in conflicts if c.get("writer") == project.writer
                and isinstance(c.get("handoffId"), str) and (status := handoff_status(runner, c["handoffId"]))}
    fresh = lost_claim_notices(conflicts, writer=project.writer, told=told,
                               see_baton=wording.get("see_baton", SEE_BATON), statuses=statuses)
    _spent(project, told, fresh, peek=peek, spend=spend)
    return [notice for _, notice in fresh]


FORGOTTEN_HERE = "forgotten-here.json"
"""The handoffs of this clone's user a teammate's forget erased here, kept by ``baton sync``
(``forget_notices.keep``) until a brief tells them."""


def erased_by_teammates(project: "Project", *, peek: bool, spend: Spend | None = None) -> list[str]:
    """The notices ``baton sync`` kept of this user's handoffs a teammate's forget erased here,
    told once: the file goes unless peeking (one ``stat`` when there is none); given ``spend``, each
    goes from it once the brief shows it (``spend_shown``)."""
    path = os.path.join(project.paths.baton_folder, FORGOTTEN_HERE)
    if not os.path.exists(path):
        return []
    try:
        raw = read_json(path)
    except (FileNotFoundError, BatonError):
        return []
    kept = raw.get("notices") if isinstance(raw, dict) else None
    notices = [n["notice"] for n in kept if isinstance(n, dict) and isinstance(n.get("notice"), str)] \
        if isinstance(kept, list) else []
    if spend is not None:
        spend.extend((notice, KEPT) for notice in notices if not peek)
    elif not peek:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
    return notices


def _dismissed_by_another(project: "Project", runner, ctx: SessionContext, *, peek: bool,
                          spend: Spend | None = None) -> list[str]:
    """Notices for the batons left for this owner, or left by them, that another writer (a
    teammate's clone) dismissed or cancelled (``dismissed_elsewhere``), and for those a resume of their
    handoff settled, here or elsewhere (``taken_up_notices``), each told once (unless peeking)."""
    if "batons" not in runner.by_name:
        return []
    told = _read_told(project)
    records = [r for r, _ in baton_records(runner.docs("batons"))]
    # a baton a teammate ended: its handoff may be archived with it (one row each, only these)
    statuses = {r.id: status for r in records if r.ended_by_writer not in (None, project.writer)
                and (status := handoff_status(runner, r.id)) is not None}
    fresh = dismissed_elsewhere(records, writer=project.writer, owner=ctx.owner, told=told,
                                lost_claims=claim_conflicts(runner.docs("batons")), statuses=statuses) \
        + taken_up_notices(records, owner=ctx.owner, told=told, writer=project.writer)
    _spent(project, told, fresh, peek=peek, spend=spend)
    return [notice for _, notice in fresh]


def missed_mark(baton_id: str) -> str:
    """The told-file mark of a baton superseded unseen after its replacement was claimed, once a
    brief here named it (``_missed_after_claim``); the listings leave out a baton so marked."""
    return f"missed:{baton_id}"


def read_told(project: "Project") -> list[str]:
    """The marks of what this clone's session starts have already told (``TOLD_FILE``)."""
    return _read_told(project)


def _missed_after_claim(project: "Project", runner, own: BatonRecord | None, ctx: SessionContext, *,
                        peek: bool, spend: Spend | None = None) -> list[str]:
    """Notices for the batons this owner and branch's claimed baton ``own`` superseded unseen after
    its claim (``BatonRecord.missed_unseen``: a teammate's, brought by sync after the newer one was
    claimed), each told once here (unless peeking), recorded with the lost claims told."""
    if own is None or not own.missed_unseen or own.shared or not same_owner(own.owner, ctx.owner) \
            or own.branch != ctx.branch:
        return []
    return _told_once(project, runner, own, own.missed_unseen, missed_mark, missed_notice, peek=peek, spend=spend)


def _told_once(project: "Project", runner, own: BatonRecord, unseen: Iterable[dict[str, Any]],
               mark: Callable[[str], str], notice: Callable[..., str], *, peek: bool,
               spend: Spend | None = None) -> list[str]:
    """The ``notice`` of each baton of ``unseen`` (superseded unseen by ``own``) whose ``mark`` is not
    among the told yet, those marks recorded with the told (unless peeking): each is said once."""
    told = _read_told(project)
    fresh = [u for u in unseen if mark(str(u.get("id"))) not in told]
    if not fresh:
        return []
    left_by, objectives, statuses = unseen_sources(runner, own, fresh)
    notices = [notice(own, u, left_by.get(str(u.get("id"))), objectives.get(str(u.get("id"))),
                      statuses.get(str(u.get("id")))) for u in fresh]
    _spent(project, told, [(mark(str(u.get("id"))), n) for u, n in zip(fresh, notices)], peek=peek, spend=spend)
    return notices


def _taken_up_told(project: "Project", dismissed: BatonRecord, ctx: SessionContext,
                   spend: Spend | None = None) -> list[str]:
    """The one line a start that met ``dismissed`` (its handoff resumed elsewhere) is told, once:
    its mark recorded with the dismissals told, so a later start does not tell it again."""
    told = _read_told(project)
    fresh = taken_up_notices([dismissed], owner=ctx.owner, told=told, writer=project.writer)
    _spent(project, told, fresh, peek=False, spend=spend)
    return [notice for _, notice in fresh]


def waiting_elsewhere(project: "Project", runner, ctx: SessionContext, *, peek: bool,
                      wording: Mapping[str, str]) -> list[str]:
    """What a session start of ``ctx`` that receives no baton is told, in the brief's order: the
    batons this owner and branch's claimed baton superseded unseen after its claim
    (``_missed_after_claim``), then the batons this clone left that wait elsewhere
    (``left_for_another_owner``) — each once, unless peeking. ``session begin`` tells the same."""
    _waiting, own = peek_at_start(runner, ctx)
    return [*_missed_after_claim(project, runner, own, ctx, peek=peek),
            *_collided(project, runner, own, ctx, peek=peek),
            *left_for_another_owner(project, runner, ctx, peek=peek, wording=wording)]


def collided_mark(baton_id: str) -> str:
    """The told-file mark of a baton for this owner and branch that a baton for another name
    sharing its key superseded unseen (``_collided``), once a brief here named it."""
    return f"collided:{baton_id}"


def _collided(project: "Project", runner, own: BatonRecord | None, ctx: SessionContext, *,
              peek: bool, spend: Spend | None = None) -> list[str]:
    """Notices for the batons for this owner and branch that the current baton of their key, for
    another owner or branch sharing it, superseded unseen (``collided_unseen``: left on two clones
    apart), each told once here (unless peeking), recorded with the lost claims told."""
    if own is None:
        return []
    return _told_once(project, runner, own, collided_unseen(own, ctx.owner, ctx.branch), collided_mark,
                      collided_notice, peek=peek, spend=spend)


def left_for_another_owner(project: "Project", runner, ctx: SessionContext, *, peek: bool,
                            wording: Mapping[str, str], spend: Spend | None = None) -> list[str]:
    """Notices for the pending batons this clone left on this branch for another
    owner (``left_here_for_another_owner``), and for this owner on a branch that
    no longer exists here (``left_on_a_branch_gone``: a ``git branch -m``), each
    told once, recorded with the lost claims told (unless peeking). The one decision of
    what a start that receives no baton is told waits elsewhere: the brief's (a harness's
    start hook, ``bootstrap``) and ``session begin``'s (``sessions.begin_session``)."""
    if "batons" not in runner.by_name:
        return []
    docs = list(runner.docs("batons"))
    creators = baton_creators(docs)
    records = [r for r, _ in baton_records(docs)
               if r.pending and not same_owner(r.owner, ctx.owner) and creators.get(r.id) == project.writer]
    owners: dict[str, str] = {}
    for session in {r.session_id for r in records if r.session_id}:  # who left them (a lookup each; usually none)
        doc = session_doc(runner, project.writer, session)
        if isinstance(doc, dict) and isinstance(doc.get("owner"), str):
            owners[session] = doc["owner"]
    told = _read_told(project)
    fresh = left_here_for_another_owner(records, creators, owners, writer=project.writer, owner=ctx.owner,
                                        branch=ctx.branch, told=told, see_baton=wording.get("see_baton", SEE_BATON),
                                        begin_as=wording.get("begin_as", BEGIN_AS))
    stranded = left_on_a_branch_gone((r for r, _ in baton_records(docs)), creators, writer=project.writer,
                                     owner=ctx.owner, branch=ctx.branch, told=told)
    if any(r.branch not in (DETACHED_BRANCH, FALLBACK_BRANCH) for r in stranded):  # rare: git's branches read only then
        branches = gitinfo.local_branches(project.paths.worktree_folder)
        if branches is not None:
            fresh += [(r.id, gone_branch_notice(r, ctx.branch)) for r in stranded
                      if r.branch not in branches and r.branch not in (DETACHED_BRANCH, FALLBACK_BRANCH)]
    fresh += _left_at_this_tip(project, runner, [r for r in stranded if r.branch == DETACHED_BRANCH], ctx)
    _spent(project, told, fresh, peek=peek, spend=spend)
    return [notice for _, notice in fresh]


def _left_at_this_tip(project: "Project", runner, detached: list[BatonRecord],
                      ctx: SessionContext) -> list[tuple[str, str]]:
    """``(baton id, notice)`` for each of ``detached`` (pending batons this clone left for this owner on
    a plain detached HEAD, not told of yet) whose handoff was captured at the commit this session's
    branch has at its tip (``left_at_this_tip_notice``): the work went on from there on a branch.
    HEAD is read only when there is one (rare); a start on a detached HEAD receives them instead."""
    if not detached or ctx.branch in (DETACHED_BRANCH, FALLBACK_BRANCH):
        return []
    tip = gitinfo.head_commit(project.paths.worktree_folder)
    if not tip:
        return []
    out = []
    for r in detached:
        doc = runner.get("handoffs", r.id) if "handoffs" in runner.by_name else None
        where = doc.get("project") if isinstance(doc, dict) else None
        repository = where.get("repository") if isinstance(where, dict) else None
        if isinstance(repository, dict) and repository.get("head") == tip:
            out.append((r.id, left_at_this_tip_notice(r, ctx.branch, tip)))
    return out


class BootstrapResult(Value):
    context: SessionContext
    session_id: str | None
    max_bytes: int
    brief: AssembledBrief
    record: BatonRecord | None
    objective: SessionObjective | None
    notices: tuple[str, ...] = ()
    markdown: str | None = None
    """The delivered handoff's section exactly as the brief shows it (freshness line included)."""
    peek: bool = False
    """Nothing was claimed: ``record`` is the baton a start would receive, still pending."""
    session_id_generated: bool = False
    exit_code: int = 0
    held_up: str | None = None
    """A gated start (a harness's) that found the ledger locked by another process past
    its wait (``LedgerBusy.reason``, without its advice): this brief was read without the lock, and
    nothing was claimed or recorded (``Start.held_up``)."""
    behind: str | None = None
    """A gated start that found the index too far behind the ledger to bring up
    to date in its time (``IndexBehind``'s message: the catch-up handed to a
    process of its own): this brief was read from the index as it stands, and
    nothing was claimed or recorded (``Start.as_it_stands``)."""
    claimed_elsewhere: ClaimedElsewhere | None = None
    """No baton was delivered, and the newest one of this owner and branch was claimed by another
    session recently (``domain.claimed_elsewhere``): the brief's notice says so."""
    repeated: bool = False
    """The session started before (its start is recorded): nothing was claimed now, and
    ``record`` is the baton it received then, while the index still shows it (``domain.repeated_start``)."""

    left_pending: tuple[BatonRecord, ...] = ()
    """A teammate's pending batons of the handoff this start claimed, which the claim left pending
    (theirs: ``baton_claim.settle_carrying``); the brief says each waits for them (``waits_for_them_line``)."""

    read_only: str | None = None
    """A gated start on a read-only ``.baton/`` (``ReadOnlyProject``'s message): the brief was read
    from a replay in memory, its baton shown and not claimed, nothing recorded (``Start.read_only``)."""

    @property
    def unrecorded(self) -> bool:
        """A gated start that recorded nothing (``held_up``, ``behind`` or ``read_only``): a later start
        of the session delivers the brief again, with the baton."""
        return self.held_up is not None or self.behind is not None or self.read_only is not None

    def to_json(self) -> dict[str, Any]:
        return {
            "brief": self.brief.text,
            "bytes": self.brief.bytes,
            "maxBytes": self.max_bytes,
            "handoffMarkdown": (self.markdown or render_baton_markdown(self.record)) if self.record else None,
            "handoff": self.record.to_json() if self.record else None,
            "sessionObjective": self.objective.to_json() if self.objective else None,
            "objectiveKept": self.objective.session_id
            if self.objective is not None and self.objective.of_another(self.session_id) else None,
            "claimed": self.record is not None and not self.peek and not self.repeated,
            "peek": self.peek,
            "repeated": self.repeated,
            "notices": list(self.notices),
            "claimedElsewhere": self.claimed_elsewhere.to_json() if self.claimed_elsewhere else None,
            "leftPending": [waiting_for_them_json(b) for b in self.left_pending],
            "sessionId": self.session_id,
            "sessionIdGenerated": self.session_id_generated,
            **self.context.to_json(),
            "sections": self.brief.to_json(),
        }

    def render(self) -> str:
        return self.brief.text.rstrip("\n")


def _owner_passed_over(project: "Project", owner: str | None, ctx: SessionContext) -> list[str]:
    """The notice that git's identity broke the owner rule and was passed over
    (``identity.owner_notice``), when this start's owner is the default one (none
    given, or the one a harness resolved): said at the start, never at a prompt."""
    passed_over = owner_notice(project)
    if passed_over is None:
        return []
    given = owner.strip() if owner and owner.strip() else None
    return [passed_over] if given is None or given == ctx.owner == project_owner(project) else []


def _identity_notices(project: "Project", owner: str | None, ctx: SessionContext) -> list[str]:
    """What a start says of where its owner and branch came from: a git identity passed over,
    a ``$GIT_DIR`` not read."""
    return [*_owner_passed_over(project, owner, ctx), *_git_dir_unused(project)]


def _git_dir_unused(project: "Project") -> list[str]:
    """The notice that ``$GIT_DIR`` names a repository Baton does not read for this worktree
    (``gitinfo.environment_problem``): said at the start, never at a prompt."""
    unused = gitinfo.environment_problem(project.paths.worktree_folder)
    return [unused] if unused else []


def _safely(what: str, notices: list[str], fn, default):
    """Run one read; anything malformed or missing degrades to ``default`` (and a notice)."""
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - a bad record must never stop a session from starting
        message = exc.message if isinstance(exc, BatonError) else f"{type(exc).__name__}: {exc}"
        notices.append(f"Could not read {what} ({message}); it was left out.")
        return default


def _handoff_records(runner, ctx: SessionContext) -> list:
    """The recent handoffs whose traps and decisions this owner and branch may see.

    Ordinary handoffs, shared batons and this owner's batons on this branch;
    never another owner's or branch's private baton, pending or not. Only
    handoffs that passed validation, and session batons (for their failed
    approaches), count (``brief_may_use``) — filtered before the window is
    taken, so drafts never crowd validated handoffs out.
    """
    if "handoffs" not in runner.by_name:
        return []
    seen: list = []
    for handoff_id in handoffs.brief_ids(runner.db):  # newest first; stop once the window is full
        doc = runner.get("handoffs", handoff_id)
        if not brief_may_use(doc):
            continue
        if _visible(runner, ctx, doc):
            seen.append(doc)
            if len(seen) == RECENT_HANDOFFS:
                break
    return seen


def _visible(runner, ctx: SessionContext, doc: Any) -> bool:
    """May this owner and branch see the handoff (never another's private baton)?"""
    handoff_id = doc.get("id") if isinstance(doc, dict) else None
    if not isinstance(handoff_id, str):
        return False
    scoped = runner.get("baton_scopes", handoff_id) if "baton_scopes" in runner.by_name else None
    scopes = baton_scopes([(handoff_id, scoped)]) if scoped is not None else {}
    return bool(visible_handoffs([doc], scopes, owner=ctx.owner, branch=ctx.branch, limit=1))


def _latest_section(runner, ctx: SessionContext,
                    judged: "Callable[[Any], FeedVouch | None]" = lambda doc: None) -> str | None:
    """The brief's pointer to the newest ready handoff this session may see
    (of its branch, else the project's), when no session handoff is delivered.
    A newer handoff it may not see (another owner's private baton), or one
    withheld (``judged``: its feed is one no trusted key vouches for, and
    signatures are required), is passed over, not a reason to name none; one
    from such a feed otherwise is marked (``FeedVouch.line``)."""
    if "handoffs" not in runner.by_name:
        return None
    scans = ((ctx.branch, False), (None, True)) if ctx.branch else ((None, True),)
    for branch, elsewhere in scans:
        for row in handoffs.newest(runner.db, statuses=RESUMABLE, branch=branch, limit=LATEST_WINDOW):
            if elsewhere and ctx.branch and row.branch == ctx.branch:
                continue  # already looked at (and not visible) on this branch
            doc = runner.get("handoffs", row.id)
            if _visible(runner, ctx, doc):
                found = judged(doc)
                if found is not None and found.withheld:
                    continue
                return render_latest_markdown(doc, elsewhere=elsewhere and bool(ctx.branch),
                                              unverified=found.line(None) if found is not None else "") or None
    return None


def _handoffs_judged(project: "Project", runner: Any, ids: list[str]) -> "dict[str, FeedVouch]":
    """Per handoff of ``ids`` from a feed no trusted key vouches for, why (``feed_vouch.judged``).
    One keyed query names each one's writer; the rule's modules load only when another writer's
    handoff is among them — a clone whose recent handoffs are all its own (the hook path's usual
    case) loads nothing more."""
    if not ids:
        return {}
    authors = handoffs.authors_of(runner.db, ids)
    writers = {ident: authors.get(ident, ("", ""))[0] or None for ident in ids}
    if all(writer == project.writer for writer in writers.values()):
        return {}
    # ``__import__``, as ``baton.policy``'s trust rules: never on a solo clone's steady path.
    return __import__("baton.commands.feed_vouch", fromlist=["judged"]).judged(project, writers)


def claimed_by_line(session_id: str) -> str:
    """The line a handoff section gains when it was claimed under an id Baton minted."""
    return (f"Claimed by session `{session_id}` (an id Baton generated; name the session to "
            f"choose its id).")


def _unreadable(exc: BatonError) -> str:
    message = exc.message.rstrip(". ")
    hint = "" if "baton verify" in message else "; run `baton verify`"
    return f"Baton could not read the ledger: {message}{hint}"


def check_max_bytes(max_bytes: int) -> None:
    """Raises: InputError: ``max_bytes`` is no integer from ``MIN_MAX_BYTES`` to ``MAX_MAX_BYTES``."""
    if (isinstance(max_bytes, bool) or not isinstance(max_bytes, int)
            or not MIN_MAX_BYTES <= max_bytes <= MAX_MAX_BYTES):
        raise InputError(f"`max_bytes` must be an integer from {MIN_MAX_BYTES} to {MAX_MAX_BYTES}")


def begin(
    project: "Project",
    *,
    session_id: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    owner: str | None = None,
    branch: str | None = None,
    peek: bool = False,
    gate: "SessionGate | None" = None,
    limits: Limits | None = None,
    stale: Stale | None = None,
    budget: str = "max_bytes",
    named: "Callable[[Any, str, None], NamedStart] | None" = None,
    continues: bool = False,
    wording: Mapping[str, str] | None = None, told: Sequence[str] = (),
) -> "Start":
    """Read what the session-start brief is built from: ``Start.done`` is the
    brief when no baton waits (or the ledger cannot be read), else
    ``Start.waiting`` is the baton, which ``Start.offer`` and ``Start.claim``
    deliver (with ``peek``: claim nothing).

    Without a ``session_id`` the claim names a new UUIDv7 (not when peeking:
    nothing is claimed then). ``gate``: a session start that must happen
    once; it is asked under the lock, before the claim, and records the
    start in the same hold (see ``SessionGate``): a harness's start, whose
    caller decided first that it is not a repeated one. A ``session_id`` given with
    ``named`` (``session_records.NamedStart``, not peeking) is gated with it instead: its
    start is recorded with its claim, and a repeated start of a session that received a baton
    (its start recorded before, by any entry point: ``started_before``) claims nothing and
    is answered with that baton (``Start.again``). ``continues``: a harness's fork or resume
    (``domain.claimed_elsewhere``). ``limits``: how its writing steps wait for the ledger lock
    (None: as the project was opened). ``stale``: the index as it stands, when it is too far
    behind the ledger to bring up to date now (a harness's start, ``harness_start``): the brief
    is read from it, and nothing is claimed or recorded (``Start.as_it_stands``).
    ``budget``, ``wording``: how the surface that asked spells ``max_bytes`` (named by the
    notice of a handoff too big for the brief) and what to run (``Start.wording``). ``told``:
    the caller's notices, the brief's first (``unended_sessions``: a session that never ended).

    Raises:
        InputError: ``max_bytes`` below 1024 or a malformed session id.
        NotInitialized: not a Baton project.
    """
    check_max_bytes(max_bytes)
    session_id = check_session_id(session_id)
    generated = session_id is None and not peek
    if generated:
        session_id = uuid7()
    hooked = gate is not None
    named_gate = None
    if gate is None and named is not None and session_id is not None and not generated and not peek \
            and stale is None:
        gate = named_gate = named(project, session_id, None)
    start = Start(project, context_of(project, owner=owner, branch=branch), session_id, max_bytes, gate,
                  dict(peek=peek, session_id_generated=generated, hooked=hooked, continues=continues), limits)
    start.budget, start.wording, start.notices = budget, wording or {}, [*told, *_identity_notices(project, owner, start.ctx)]
    if stale is not None:
        start.waiting = start.read(stale[0])
        start.done = start.as_it_stands(stale)
        return start
    try:
        runner = project.reading()
    except BatonError as exc:
        if hooked:  # a start that cannot be recorded: the caller reports it
            raise
        # A damaged feed or index must not stop a session from starting (the
        # hook that calls us would lose the whole brief): say so, claim nothing.
        start.done = start.unreadable(exc)
        return start
    if named_gate is not None:
        start.named = named_gate
        start.before = named_gate.repeated(runner)
        if start.before is not None:  # a repeated start: nothing to claim or record
            start.gate = None
    # 1. Peek before the budget pass.
    start.waiting = start.read(runner)
    if start.waiting is None:
        start.done = start.gated(start.result(start.standard([])))
    return start


BRIEF_PROJECTIONS = ("batons", "baton_scopes", "handoffs", "objectives", "sessions")
"""Every projection a harness's session-start brief reads (``begin`` with
``Start.read`` and ``Start.standard``, and ``harness_start``'s own reads):
a brief read from an index too far behind to bring up to date is safe only
when each of these was folded by this Baton's version of it
(``harness_start.as_it_stands``)."""


Stale = tuple["Any", str, bool]
"""The index as it stands, for a brief read from it without bringing it up to
date (``begin``'s ``stale``): the runner (its projections); why
(``IndexBehind``'s message); whether a process of its own is bringing it up
to date. A tuple, not a class: the steady hook path defines none it does not use."""


FreshnessOf = Callable[["Any", "Any", BatonRecord], "str | None"]
"""``handoff_facts.baton_freshness``: the waiting baton's freshness line."""
CarriedOf = Callable[["Any", BatonRecord], "tuple[str, ...]"]
"""``handoff_facts.carried_lines``: the objective and state of the handoff it carries."""
VouchOf = Callable[["Any", "Any", BatonRecord], "FeedVouch | None"]
"""``feed_vouch.baton_vouch``: whether the waiting baton's feed is vouched for."""
ClaimInScope = Callable[..., BatonRecord]
"""``baton_claim.claim_in_scope``: the claim, inside a write scope."""


class Offer(Value):
    """The waiting baton's section and the brief around it (``Start.offer``);
    ``done`` when nothing is left to claim (peeking, or it does not fit)."""

    markdown: str
    brief: AssembledBrief
    done: BootstrapResult | None = None


class Start:
    """One session start's brief, step by step (``begin``, ``offer``, ``claim``):
    what it read, the notices gathered on the way, and the results it can end with."""

    def __init__(self, project: "Project", ctx: SessionContext, session_id: str | None, max_bytes: int,
                 gate: "SessionGate | None", flags: dict[str, bool], limits: Limits | None = None) -> None:
        self.project, self.ctx, self.session_id, self.max_bytes = project, ctx, session_id, max_bytes
        self.gate, self.flags, self.limits = gate, flags, limits
        self.notices: list[str] = []
        self.spend: Spend = []
        """The told-once notices among ``notices``, spent by ``result`` when its brief shows them."""
        self.budget = "max_bytes"
        self.wording: Mapping[str, str] = {}
        """How the surface that asked spells what the notices of a lost claim and of a baton left
        for another owner tell the reader to run: ``see_baton`` and ``begin_as`` (else
        ``batons.SEE_BATON``, ``batons.BEGIN_AS``). A mapping, not a class: the hook path defines
        no class it does not use."""
        self.objective: SessionObjective | None = None
        self.records: list = []
        self.decisions: list = []
        self.waiting: Peek | None = None
        """The baton waiting for the session, once read."""
        self.unverified: "FeedVouch | None" = None
        """The waiting baton comes from a feed no trusted key vouches for (``baton.domain.feed_vouch``)."""
        self.unverified_ids: frozenset[str] = frozenset()
        """The recent handoffs (``records``) from a feed no trusted key vouches for: their lines say so."""
        self.left_out: set[str] = set()
        """The recent handoffs left out, from such a feed while signatures are required (told in a notice)."""
        self.claimed_elsewhere: ClaimedElsewhere | None = None
        """With none waiting: the newest baton of this owner and branch, claimed by another session."""
        self.done: BootstrapResult | None = None
        """The brief, when no baton waits (nothing is left to load or claim)."""
        self.before: dict[str, Any] | None = None
        """A repeated start (``NamedStart``): the session's document, whose start is recorded."""
        self.named: NamedStart | None = None
        """The gate of a start that names its session (``begin``'s ``named``)."""

    def unreadable(self, exc: BatonError) -> BootstrapResult:
        self.notices.append(_unreadable(exc))
        brief = assemble_brief(handoff_markdown=None, objective=None, decisions=[], traps=[],
                               max_bytes=self.max_bytes, notices=self.notices, empty_text=UNREADABLE_BRIEF)
        return self.result(brief)

    def read(self, runner) -> Peek | None:
        """Everything the brief is built from; the baton waiting (or None)."""
        self.runner, notices, ctx = runner, self.notices, self.ctx
        pinned = _safely("the index's state", notices, lambda: runner.pinned_until, None)
        if pinned is not None:
            notices.append(f"The index shows the project as of {pinned} (a rebuild up to that point): this brief "
                           "is of that time, and nothing is claimed; run `baton rebuild` to return to the present.")
        peek, spend = self.flags["peek"], self.spend
        notices.extend(_safely("lost claims", notices,
                               lambda: _lost_claims(self.project, runner, peek=peek, wording=self.wording,
                                                    spend=spend), []))
        notices.extend(_safely("handoffs a teammate erased", notices,
                               lambda: erased_by_teammates(self.project, peek=peek, spend=spend), []))
        notices.extend(_safely("batons another writer dismissed", notices,
                               lambda: _dismissed_by_another(self.project, runner, ctx, peek=peek, spend=spend), []))
        if self.before is not None and self.named is not None:  # a repeated start: the baton it received
            received = self.before.get("receivedBaton")
            waiting = _safely("the session handoff", notices,
                              lambda: received_at_start(runner, ctx, received if isinstance(received, str) else None),
                              None)
            own = None
            notices.append(self.named.notice(self.before))
        else:
            waiting, own = _safely("the session handoff", notices, lambda: peek_at_start(runner, ctx), (None, None))
        if waiting is None:
            self.tell_claimed_elsewhere(own)
            notices.extend(_safely("batons that arrived after a claim", notices,
                                   lambda: _missed_after_claim(self.project, runner, own, ctx, peek=peek,
                                                               spend=spend), []))
            notices.extend(_safely("batons another name's baton replaced", notices,
                                   lambda: _collided(self.project, runner, own, ctx, peek=peek, spend=spend), []))
            notices.extend(_safely("batons left for another owner", notices,
                                   lambda: left_for_another_owner(self.project, runner, ctx, peek=peek,
                                                                   wording=self.wording, spend=spend), []))
        self.objective = _safely("the session objective", notices, lambda: get_session_objective(runner, ctx), None)
        self.records = _safely("recent handoffs", notices, lambda: _handoff_records(runner, ctx), [])
        self.judge_records(waiting.record.id if waiting is not None else None)
        self.decisions = _safely("recent decisions", notices,
                                 lambda: collect_decisions([r for r in self.records if passed_validation(r)],
                                                           unverified=self.unverified_ids), [])
        return waiting

    def judge_records(self, waiting: str | None) -> None:
        """1a. Whether each recent handoff comes from a feed a trusted key vouches for
        (``baton.domain.feed_vouch``, from sync's recorded verdicts: one keyed query, and the
        verdicts file only when another writer's handoff is among them): the lines of one not
        vouched for say so; with signatures required it is left out, and one notice counts what
        was (the waiting baton's own handoff aside: its notice is its own)."""
        judged = _safely("the recent handoffs' feeds", self.notices,
                         lambda: _handoffs_judged(self.project, self.runner, [r["id"] for r in self.records]), {})
        withheld = {ident for ident, found in judged.items() if found.withheld}
        self.unverified_ids = frozenset(judged.keys() - withheld)
        if withheld:
            left_out_notice = __import__("baton.domain.feed_vouch", fromlist=["left_out_notice"]).left_out_notice
            self.records = [r for r in self.records if r["id"] not in withheld]
            self.left_out = withheld - {waiting} if waiting is not None else withheld
            if self.left_out:
                self.notices.append(left_out_notice(self.left_out))

    def vouch(self, vouch_of: VouchOf) -> None:
        """1b. Whether the waiting baton comes from a feed a trusted key vouches for
        (``baton.domain.feed_vouch``): if not, its section says so; and when the trusted policy
        requires signatures it is withheld: a notice says so and the brief is done without it."""
        waiting = self.waiting
        assert waiting is not None
        self.unverified = _safely("the baton's feed", self.notices,
                                  lambda: vouch_of(self.project, self.runner, waiting.record), None)
        if self.unverified is None or not self.unverified.withheld:
            return
        self.notices.append(self.unverified.withheld_notice("baton", waiting.record.id))
        self.unverified = self.waiting = None
        self.done = self.gated(self.result(self.standard([])))

    def tell_claimed_elsewhere(self, own: BatonRecord | None) -> bool:
        """With no baton delivered: tell of ``own`` (this owner and branch's current
        baton) when another session claimed it (``domain.claimed_elsewhere``) —
        whether this start found it claimed, or lost the claim to it at the same
        instant (``claim``): either way the same notice and ``claimedElsewhere``."""
        ended = _safely("the claiming session", self.notices, lambda: claimer_ended(self.runner, own), False)
        self.claimed_elsewhere = claimed_elsewhere(own, owner=self.ctx.owner, branch=self.ctx.branch,
                                                   session_id=self.session_id,
                                                   now=rfc3339_micros(self.project.clock()),
                                                   claimer_ended=ended, continues=self.flags["continues"])
        fact = self.claimed_elsewhere
        if fact is not None:
            status = _safely("the claimed handoff", self.notices, lambda: handoff_status(self.runner, fact.handoff_id),
                             None)
            self.claimed_elsewhere = fact = as_recorded(fact, status)
            self.notices.append(claimed_elsewhere_notice(fact))
        return self.claimed_elsewhere is not None

    @property
    def objective_text(self) -> str | None:
        """The objective the brief shows; another session's, still open, under a line saying whose
        (``objective_stands_notice``, as ``session begin`` words it)."""
        if self.objective is None:
            return None
        if self.objective.of_another(self.session_id):
            assert self.objective.session_id is not None  # of_another: it names its session
            return (objective_stands_notice(self.objective.session_id, self.objective.harness)
                    + "\n\n" + self.objective.objective)
        return self.objective.objective

    def traps_without(self, exclude: tuple[str, ...]) -> list[str]:
        return _safely("traps", self.notices, lambda: collect_traps(self.records, exclude=exclude,
                                                                    unverified=self.unverified_ids), [])

    def result(self, brief: AssembledBrief, record: BatonRecord | None = None, markdown: str | None = None,
               extra: Sequence[str] = ()) -> BootstrapResult:
        """The answer, its ``brief`` assembled of ``notices`` and ``extra``: the told-once notices among
        those it shows are spent (``spend_shown``); those its byte budget left out stay to be told."""
        notices = self.notices + list(extra)
        if self.spend:
            _safely("the notices told", [], lambda: spend_shown(self.project, self.spend,
                                                                notices[:brief.notices_shown]), None)
        return BootstrapResult(self.ctx, self.session_id, self.max_bytes, brief, record, self.objective,
                               tuple(notices), markdown, peek=self.flags["peek"],
                               session_id_generated=self.flags["session_id_generated"],
                               claimed_elsewhere=None if record is not None else self.claimed_elsewhere,
                               repeated=self.before is not None)

    def standard(self, extra: list[str]) -> AssembledBrief:
        """The brief without a session handoff (``extra``: notices it adds)."""
        latest = _safely("the latest ready handoff", self.notices, lambda: self.latest_section(), None)
        return assemble_brief(handoff_markdown=None, objective=self.objective_text, decisions=self.decisions,
                              traps=self.traps_without(()), max_bytes=self.max_bytes, notices=self.notices + extra,
                              latest_markdown=latest)

    def latest_section(self) -> str | None:
        """``_latest_section``, with each candidate judged by its feed (``feed_vouch``): one no trusted
        key vouches for is marked, and passed over when signatures are required (told once)."""
        def judged(doc: Any) -> "FeedVouch | None":
            found = _handoffs_judged(self.project, self.runner, [doc["id"]]).get(doc["id"])
            if found is not None and found.withheld and doc["id"] not in self.left_out:
                notice = found.withheld_notice("handoff", doc["id"])
                if notice not in self.notices:
                    self.notices.append(notice)
            return found

        return _latest_section(self.runner, self.ctx, judged)

    def gated(self, result: BootstrapResult) -> BootstrapResult:
        """A result that claims nothing, with the gated session's start recorded
        (``held_up`` when the ledger stays locked past the wait)."""
        if self.gate is not None:
            try:
                with self.project.writing(self.limits) as scope, scope.batch():
                    if self.gate.admit(scope):
                        self.gate.record(scope, None, self.ctx)
                    elif not self.flags["hooked"]:  # another start of this session claimed first
                        return self.again(scope, None)
            except LedgerBusy as exc:
                return self.held_up(exc)
            except ReadOnlyProject as exc:
                return self.read_only(exc, None)
            except BatonError:
                if self.flags["hooked"]:
                    raise
                # a named start that cannot be recorded (an index pinned to the past): its brief all the same
        return result

    def held_up(self, exc: LedgerBusy) -> BootstrapResult:
        """A gated start that could not take the ledger lock in its wait (another
        process holds it: a long ``sync``, ``rebuild`` or ``gc``): the brief is
        still delivered, read from the index as it stands, with no session
        handoff in it — nothing claimed, nothing recorded — and a line saying
        that the baton waiting (or one the index does not show yet) comes with
        the next start (``held_up_notice``). An agent that starts blind is
        worse off than one whose brief may be behind."""
        waiting = self.waiting.record.id if self.waiting is not None else None
        notice = held_up_notice(self.session_id or "SESSION_ID", waiting)
        result = self.result(self.standard([notice]), extra=[notice])
        return replace(result, held_up=exc.reason)

    def read_only(self, exc: ReadOnlyProject, offer: Offer | None) -> BootstrapResult:
        """A gated start on a read-only ``.baton/`` (a read-only volume, a snapshot: tester
        harness15 G6): the brief all the same — reading works, from a replay in memory —
        with the baton waiting (``offer``) shown read-only and not claimed, and one line
        saying that nothing of the session can be recorded. The baton stays pending for the
        first start that can claim it — unless that start would dismiss it as taken up elsewhere
        (``taken_up``): then it is not shown, and the line that start would tell is, as a peek
        tells it."""
        where = "the disk holding .baton/ is full" if isinstance(exc, DiskFull) else ".baton/ is read-only here"
        taken_up = offer is not None and self.waiting is not None and self.taken_up(self.waiting.record)
        if offer is not None and self.waiting is not None and not taken_up:
            notice = (f"{where}, so this session's start is not recorded and the baton below "
                      "is shown read-only, not claimed (it stays waiting for a session that can claim it); nothing "
                      "this session does can be recorded — no handoff, no baton at its end.")
            brief = assemble_brief(handoff_markdown=offer.markdown, objective=self.objective_text,
                                   decisions=self.decisions, traps=self.traps_without((self.waiting.record.id,)),
                                   max_bytes=self.max_bytes, notices=self.notices + [notice])
            result = replace(self.result(brief, self.waiting.record, offer.markdown, extra=[notice]), peek=True)
        else:
            notice = (f"{where}: this brief was read in memory (not from a written index), and nothing this "
                      "session does can be recorded — its start, a handoff, a baton at its end.")
            told = self.taken_up_peeked(self.waiting.record) if taken_up and self.waiting is not None else []
            result = self.result(self.standard([notice, *told]), extra=[notice, *told])
        return replace(result, read_only=exc.message)

    def as_it_stands(self, stale: Stale) -> BootstrapResult:
        """A start whose index is too far behind the ledger to bring up to date in
        its time (``stale``): its brief is still delivered, read from the index
        as it stands, with no session handoff in it — nothing claimed, nothing
        recorded: a claim decided on a stale index could take a baton already
        claimed — and a line saying the index is being brought up to date and
        the baton waiting comes with the next start (``behind_notice``)."""
        waiting = self.waiting.record.id if self.waiting is not None else None
        _, reason, catching_up = stale
        notice = behind_notice(self.session_id or "SESSION_ID", waiting, catching_up=catching_up)
        result = self.result(self.standard([notice]), extra=[notice])
        return replace(result, behind=reason)

    def offer(self, freshness_of: FreshnessOf, carried_of: CarriedOf) -> Offer:
        """2. Reserve the waiting baton's section (with its freshness line) and the
        objective; trim decisions and traps around them. Done unless it is to be claimed."""
        waiting = self.waiting
        assert waiting is not None
        markdown, brief = self.fit(waiting, freshness_of, carried_of)
        if not brief.handoff_included:
            size = len(markdown.encode("utf-8"))
            notice = too_big_notice(self.session_id or "SESSION_ID", waiting.record.id, size, self.max_bytes,
                                    self.budget)
            return Offer(markdown, brief, self.gated(self.result(self.standard([notice]), extra=[notice])))
        if self.flags["peek"] and self.before is None and self.taken_up(waiting.record):
            told = self.taken_up_peeked(waiting.record)  # a start would dismiss it: shown as that start tells it
            return Offer(markdown, brief, self.result(self.standard(told), extra=told))
        if self.flags["peek"] or self.before is not None:  # nothing to claim: the baton as it stands
            return Offer(markdown, brief, self.result(brief, waiting.record, markdown))
        return Offer(markdown, brief)

    def taken_up(self, record: BatonRecord) -> bool:
        """Whether a start would dismiss ``record`` instead of claiming it (its handoff was resumed
        after it was left: ``batons.taken_up_in``, the rule the claim applies under the lock), asked
        where nothing is claimed — a peek, and a start that cannot write (``read_only``) — so all
        three tell such a baton alike."""
        return _safely("the handoff's resume", self.notices, lambda: taken_up_in(self.runner, record), False)

    def taken_up_peeked(self, record: BatonRecord) -> list[str]:
        """What a start would be told instead of ``record``, whose handoff was resumed after it
        was left (``batons.taken_up_in``): the line ``claim`` tells, read without the
        dismissal, and nothing marked told (a peek appends and records nothing)."""
        fresh = taken_up_notices([as_taken_up(self.project, record)], owner=self.ctx.owner,
                                 told=_read_told(self.project), writer=self.project.writer)
        return [notice for _, notice in fresh]

    def fit(self, waiting: Peek, freshness_of: FreshnessOf, carried_of: CarriedOf) -> tuple[str, AssembledBrief]:
        """The waiting baton's section (its freshness line, and its handoff's
        summary when that fits too) and the brief around it."""
        notices, opened, runner = self.notices, self.project, self.runner
        fresh = _safely("the handoff's freshness", notices, lambda: freshness_of(opened, runner, waiting.record),
                        None)
        carried = _safely("the handed-on handoff", notices, lambda: carried_of(runner, waiting.record), ())
        unseen = _safely("the batons it replaced unseen", notices,
                         lambda: unseen_lines(waiting.record, *unseen_sources(runner, waiting.record)), ()) \
            if waiting.record.replaced_unseen else ()

        def fitted(lines: tuple[str, ...]) -> tuple[str, AssembledBrief]:
            claimed = waiting.record.owner if waiting.record.shared else None  # a shared baton's owner left it
            unverified = self.unverified.line(claimed) if self.unverified is not None else ""
            text = render_baton_markdown(waiting.record, freshness=fresh, carried=lines, unseen=unseen,
                                         unverified=unverified)
            if self.flags["session_id_generated"] and self.session_id is not None:  # (generated: it is set)
                text += "\n" + claimed_by_line(self.session_id) + "\n"
            return text, assemble_brief(handoff_markdown=text, objective=self.objective_text,
                                        decisions=self.decisions, traps=self.traps_without((waiting.record.id,)),
                                        max_bytes=self.max_bytes, notices=notices)

        markdown, brief = fitted(carried)
        # The baton itself may fit without its handoff's summary: keep the line
        # saying where the rest is if it fits, else drop the summary whole.
        for fewer in (carried[-1:], ()) if len(carried) > 1 else ((),):
            if brief.handoff_included or not carried:
                break
            markdown, brief = fitted(fewer)
        return markdown, brief

    def claim(self, offer: Offer, claim_in_scope: ClaimInScope) -> BootstrapResult:
        """3. The brief fits: claim the baton it delivers, under the lock, naming the
        version peeked; a failed claim degrades to the standard brief and a notice."""
        waiting, brief, markdown = self.waiting, offer.brief, offer.markdown
        assert waiting is not None
        gate = self.gate
        left: list[BatonRecord] = []  # a teammate's pending baton of its handoff, left pending
        try:
            with self.project.writing(self.limits) as scope:
                if gate is not None and not gate.admit(scope):
                    if not self.flags["hooked"]:  # another start of this session claimed first
                        return self.again(scope, offer)
                    return self.result(self.standard([]))
                with scope.batch():  # the claim and the session's start: one append, all or nothing
                    claimed = claim_in_scope(scope, waiting, session=self.session_id, claimer=self.ctx.owner,
                                             left=left)
                    if gate is not None:
                        gate.record(scope, claimed if claimed.claimed else None, self.ctx)
        except BatonError as exc:
            if gate is not None and isinstance(exc, LedgerBusy):  # a harness's start: its brief all the same
                return self.held_up(exc)
            if gate is not None and isinstance(exc, ReadOnlyProject):  # read-only: the baton shown, not claimed
                return self.read_only(exc, offer)
            if isinstance(exc, BatonAlreadyClaimed) and self.tell_claimed_elsewhere(_as_claimed(waiting.record, exc)):
                return self.gated(self.result(self.standard([])))
            notice = f"The session handoff {waiting.record.id} was not delivered: {exc.message}"
            return self.gated(self.result(self.standard([notice]), extra=[notice]))
        if not claimed.claimed:  # its handoff was resumed elsewhere since it was left: dismissed, told here
            told = _taken_up_told(self.project, claimed, self.ctx, self.spend)
            return self.result(self.standard(told), extra=told)
        if left:  # rare: a teammate's baton of the same handoff waits for them; said in one line each
            return self.waits_for_them(brief, claimed, markdown, left)
        return self.result(brief, claimed, markdown)

    def waits_for_them(self, brief: AssembledBrief, claimed: BatonRecord, markdown: str,
                       left: list[BatonRecord]) -> BootstrapResult:
        """The claimed baton's brief, saying of each teammate's pending baton of its handoff the claim
        left pending that it waits for them (``waits_for_them_line``), when the brief still holds the
        baton with those lines (the baton is claimed: it is never dropped for them)."""
        told = [waits_for_them_line(b) for b in left]
        fuller = assemble_brief(handoff_markdown=markdown, objective=self.objective_text, decisions=self.decisions,
                                traps=self.traps_without((claimed.id,)), max_bytes=self.max_bytes,
                                notices=self.notices + told)
        return replace(self.result(fuller if fuller.handoff_included else brief, claimed, markdown, extra=told),
                       left_pending=tuple(left))

    def again(self, scope: Any, offer: Offer | None) -> BootstrapResult:
        """A start of this session recorded first, by another process, while this
        one read (``StartOnce`` refused it under the lock): answered as a repeated
        start, with the baton that start received — the one ``offer`` holds, when
        it is that one, as the index now shows it — and nothing claimed."""
        named = self.named
        assert named is not None and named.before is not None
        self.before = named.before
        self.notices.append(named.notice(self.before))
        waiting = self.waiting
        if offer is not None and waiting is not None and waiting.record.id == self.before.get("receivedBaton"):
            brief = assemble_brief(handoff_markdown=offer.markdown, objective=self.objective_text,
                                   decisions=self.decisions, traps=self.traps_without((waiting.record.id,)),
                                   max_bytes=self.max_bytes, notices=self.notices)
            if brief.handoff_included:
                return self.result(brief, stored_baton(scope.runner, waiting.record), offer.markdown)
        return self.result(self.standard([]))


def _as_claimed(peeked: BatonRecord, lost: BatonAlreadyClaimed) -> BatonRecord:
    """The baton ``peeked`` as the claim that beat this one left it (``lost``'s details:
    the aggregate refused the claim because the key's current baton, this one, was claimed)."""
    details = lost.details
    by, at = details.get("claimed_by_session"), details.get("claimed_at")
    return replace(peeked, status=CLAIMED, claimed_by_session=by if isinstance(by, str) else None,
                   claimed_at=at if isinstance(at, str) else None)


class SessionGate(Protocol):
    """A session start that happens once, however many hooks report it at once.

    ``admit`` is asked under the ledger's lock, with the index caught up:
    False when the session's start is already recorded (another process
    recorded it first), and the caller then claims nothing and delivers
    nothing. ``record`` writes the start in the same lock hold, naming the
    baton claimed for it (or None), for the owner and branch the brief was
    built for (``ctx``: read once, before the lock)."""

    def admit(self, scope: Any) -> bool:  # pragma: no cover - an interface
        raise NotImplementedError

    def record(self, scope: Any, claimed: Any, ctx: Any) -> None:  # pragma: no cover - an interface
        raise NotImplementedError
