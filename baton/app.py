"""The application object: Baton's porcelain, as ``dulwich.porcelain`` is to dulwich.

``Baton`` owns one opened project — its ledger, projections, policy and
clock — and is the only thing the adapters (the CLI, the MCP server, the
status page, the demo, the harness hooks) call. Each use case is one method.
Every writing method runs the same step (``Project.writing``): take the
ledger lock, catch the projections up from the index's cursors (only new
bytes), load the aggregate, ask its decider (``baton.domain.aggregates``),
screen the events for secrets, append them expecting the stream version the
decision was made on, fold the sealed events the append returned, and return
a typed result (``to_json()`` for ``--json``, ``render()`` for a terminal).

Adapters build one ``Baton`` and keep it: a long-lived one (the MCP server,
the status page) catches up per call, reading only what other processes
appended since. None of them opens a project or decides anything itself,
and nothing behind these methods knows an adapter's option names.

Use cases live in ``baton.commands`` (one module per verb of the spec); the
methods here are their one entry point. Each method imports its use case's
module when called (``from baton.commands import x``, the only import inside
a function here): a hook runs one use case per process, and importing all
of them cost ~40 ms of a ~200 ms ``baton bootstrap`` (measured; see
docs/performance.md). Everything else this module needs is imported above.

A hook's use case sometimes needs a second module (claiming a baton waiting,
its freshness, the capture of a baton left, the hand-on, recording a
resume). The light module answers first — a ``bootstrap.Start`` with a
baton waiting, or None from a use case that wrote nothing and needs the
step — and the method then imports that module and goes on with its step:
the second dispatch point, here too, so no use-case module imports inside a
function.
"""

from __future__ import annotations

import os
from contextlib import contextmanager

from baton.commands.context import Deferral, Limits, Project
from baton.domain.identifiers import identifier_refusal, session_id_refusal
from baton.errors import BatonError, IndexPinned, InputError, LedgerBusy
from baton.ledger.clock import WallClock, system_clock
from baton.project import KEPT_PRE_COMPACT, KEPT_SESSION_END
from baton.values import replace

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook path's modules need none)
if TYPE_CHECKING:
    from typing import Any, Callable, Iterator, Mapping, Sequence

    from baton.commands.amend import ArchiveResult
    from baton.commands.audit import AuditResult
    from baton.commands.baton_cases import BatonCreateResult, CancelResult, DismissResult, PendingBatonsResult
    from baton.commands.baton_view import ActiveBatonResult
    from baton.commands.bootstrap import BootstrapResult
    from baton.commands.bootstrap import Start as BootstrapStart
    from baton.commands.capture import CaptureResult
    from baton.commands.deferred import DeferredHook, DeferredRun
    from baton.commands.detect import DetectorControlResult, DetectResult
    from baton.commands.doctor import DoctorResult
    from baton.commands.forget import ForgetResult
    from baton.commands.fork_merge import MergeResult
    from baton.commands.gc import GcResult
    from baton.commands.harness_compaction import CompactionDraftResult
    from baton.commands.harness_finish import SessionFinishResult
    from baton.commands.harness_start import SessionStartResult
    from baton.commands.init import InitResult
    from baton.commands.lineage_view import LineageResult
    from baton.commands.listing import ListResult
    from baton.commands.log import LogResult, LogStream
    from baton.commands.metrics import MetricsResult
    from baton.commands.notice_fates import NoticeFates
    from baton.commands.prepare import PrepareResult
    from baton.commands.ready import ReadyResult
    from baton.commands.rebuild import RebuildResult
    from baton.commands.repair import RepairResult
    from baton.commands.resume import ResumeResult
    from baton.commands.sessions import SessionBeginResult, SessionEndResult
    from baton.commands.show import ShowResult
    from baton.commands.status import StatusResult
    from baton.commands.status_handoff import StatusHandoffView
    from baton.commands.status_page import ListenTarget, StatusDismissal, StatusOverview
    from baton.commands.sync import SyncResult
    from baton.commands.trust_policy import PolicyShowResult, PolicyTrustResult
    from baton.commands.validate import ValidateResult
    from baton.commands.verify import VerifyResult
    from baton.domain.start_hooks import UnhookedStart
    from baton.projections.runner import Progress

PathOption = str | os.PathLike | None


class Baton:
    """One project, opened once; every use case as a method."""

    def __init__(self, project: Project) -> None:
        self.project = project

    @classmethod
    def open(cls, root: PathOption = None, *, clock: WallClock = system_clock, limits: Limits = Limits(),
             feed_links: bool = False) -> "Baton":
        """Open an initialised project (``--project``, ``$BATON_PROJECT``, the git top level, or here),
        waiting for its ledger lock and folding as ``limits`` say (by default: without limit).
        ``feed_links``: a feed that is a symbolic link is left for ``verify`` to
        report and ``repair`` to remove, instead of refused (``UnsafePath``).

        Raises:
            NotInitialized (exit 4): no ``.baton/config.json`` at the root.
        """
        return cls(Project.open(root, clock=clock, limits=limits, feed_links=feed_links))

    def close(self) -> None:
        self.project.close()

    @property
    def must_reopen(self) -> bool:
        """A write of this object's ledger failed (a full disk, an I/O error):
        it refuses every later write, so a long-lived caller (the MCP server,
        the status page) closes it and opens the project again before its
        next call, rather than fail every call until it is restarted."""
        return self.project.must_reopen

    def __enter__(self) -> "Baton":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _identifiers(self, **fields: Any) -> None:
        """The one screen of identifiers, before a use case runs: an owner,
        branch, session id, harness id or label that looks like a secret, as
        given or as the key, stream or file name it becomes, is refused
        (``SecretInIdentifier``, exit 5) before anything is appended or written.
        An owner, branch, harness or label given empty or with a control
        character is an input error (exit 2, ``identifier_refusal``): leaving
        it out is how to ask for the default. A session id given empty names
        no session (exit 2, ``identifiers.session_id_refusal``), in every use
        case alike (``checkpoint create --session ""`` recorded one:
        tester-use18 T6); the rest of its shape is checked after this screen."""
        session = fields.get("session")
        if isinstance(session, str) and not session.strip():
            raise InputError(session_id_refusal(session) or "", details={"field": "session_id"})
        for name in ("owner", "branch", "harness", "label"):
            if (problem := identifier_refusal(name, fields.get(name))) is not None:
                raise InputError(problem, details={"field": name})
        self.project.check_identifiers(**{k: v for k, v in fields.items() if v is not None})

    # -- before a project exists ---------------------------------------------------
    @staticmethod
    def init(root: PathOption = None, *, project_id: str | None = None, on_wait: Any = None,
             on_progress: Any = None) -> InitResult:
        """Create ``.baton/`` (idempotent); ``on_wait`` and ``on_progress`` are
        the project's (``Project.on_wait``, ``Project.on_progress``)."""
        from baton.commands import init

        return init.init_project(root, project_id=project_id, on_wait=on_wait, on_progress=on_progress)

    @staticmethod
    def doctor(root: PathOption = None, *, extra: Any = None, on_wait: Any = None,
               on_progress: Any = None, verifying: Any = None) -> DoctorResult:
        """Diagnose a project that may not even open; ``extra`` adds an adapter's
        checks (``baton.commands.doctor.ExtraChecks``); ``on_wait`` and
        ``on_progress`` are the project's (``Project.on_wait``, ``Project.on_progress``);
        ``verifying`` is ``verify``'s ``progress``, for the ledger's check."""
        from baton.commands import doctor

        return doctor.diagnose(root, extra=extra, on_wait=on_wait, on_progress=on_progress, verifying=verifying)

    # -- the ledger ---------------------------------------------------------------------
    def log(self, **filters: Any) -> LogResult:
        from baton.commands import log

        return log.ledger_log(self.project, **filters)

    def log_stream(self, **filters: Any) -> LogStream:
        """``log``, its events handed out as they are read (``baton log``
        prints them so): to be read before this ``Baton`` is closed. The
        newest ``log.DEFAULT_LIMIT`` unless ``limit`` says otherwise (0: every
        event); the stream says how many the limit left out (``LogTail``)."""
        from baton.commands import log

        if filters.get("limit") is None:
            filters["limit"] = log.DEFAULT_LIMIT
        tail = log.LogTail()
        return log.LogStream(log.log_events(self.project, tail=tail, **filters),
                             note=lambda: log.no_events_note(self.project, **filters), tail=tail)

    def verify(self, *, progress: "Progress | None" = None) -> VerifyResult:
        """``progress(done, about)``: events checked so far, on a long check (``verify_ledger``)."""
        from baton.commands import verify

        return verify.verify_project(self.project, progress)

    def rebuild(self, **options: Any) -> RebuildResult:
        """Replay (or, ``if_needed``, catch up) the index; then, with the index in
        the present, run the hooks kept while it was too far behind
        (``run_deferred_hooks``): the background catch-up a hook started is this."""
        from baton.commands import deferred, rebuild

        try:
            done = rebuild.rebuild_projections(self.project, **options)
        except LedgerBusy as exc:  # what it was to run still waits: said, or a person thinks it lost
            kept = len(deferred.waiting(self.project.paths))
            if not kept:
                raise
            hooks = "1 kept hook still waits" if kept == 1 else f"{kept} kept hooks still wait"
            waits = (f"{hooks} in .baton/deferred/ (a session's end, a draft before a compaction): the next "
                     "catch-up or session start runs them")
            raise LedgerBusy(exc.reason, advice=f"{exc.advice}; {waits}" if exc.advice else waits,
                             details={**exc.details, "deferred_waiting": kept}) from exc
        in_the_present = options.get("until") is None and (done.rebuilt or done.reason is None)  # not pinned
        if in_the_present and deferred.any_pending(self.project.paths):
            done = done.with_deferred(self.run_deferred_hooks())
        return done

    def gc(self, *, dry_run: bool = False) -> GcResult:
        from baton.commands import gc

        return gc.collect_garbage(self.project, dry_run=dry_run)

    def sync(self, *, remote: str = "origin", ref: str | None = None, restore_own_feed: bool = False,
             progress: Progress | None = None, publishing: Progress | None = None,
             accept_project: str | None = None, erasing: Progress | None = None) -> SyncResult:
        """Share the ledger's feeds through a git remote (``docs/sync.md``)."""
        from baton.commands import sync

        return sync.sync_ledger(self.project, remote=remote, ref=ref, restore_own_feed=restore_own_feed,
                                progress=progress, publishing=publishing, accept_project=accept_project,
                                erasing=erasing)

    def repair(self, *, feed: str | None = None, dry_run: bool = False, yes: bool = False,
               progress: "Progress | None" = None, despite_synced: bool = False) -> RepairResult:
        """Set a damaged feed's lines aside into quarantine, on record (never implicit);
        ``progress``: ``verify``'s, for its checks of the ledger."""
        from baton.commands import repair

        return repair.repair_project(self.project, feed=feed, dry_run=dry_run, yes=yes, progress=progress,
                                     despite_synced=despite_synced)

    # -- handoffs -----------------------------------------------------------------------
    def capture(self, payload: dict[str, Any], *, trigger: str = "manual", parent: str | None = None,
                origin: dict[str, Any] | None = None, session: str | None = None) -> CaptureResult:
        """Capture a draft handoff (``checkpoint create``, MCP ``handoff_capture``)."""
        from baton.commands import capture

        given = origin or {}
        self._identifiers(session=session, harness=given.get("harness"))
        self._identifiers(session=given.get("session_id"))
        return capture.capture_handoff(self.project, payload, trigger=trigger, parent=parent, origin=origin,
                                       session=session)

    def prepare(self, **options: Any) -> PrepareResult:
        from baton.commands import prepare

        return prepare.prepare_handoff(self.project, **options)

    def validate(self, token: str, *, recheck: bool = False, on_hashing: Any = None) -> ValidateResult:
        """``on_hashing(done, total, path)``: the display of artifacts a hook's capture left not hashed yet,
        as validation hashes them."""
        from baton.commands import validate

        return validate.validate_handoff_command(self.project, token, recheck=recheck, on_hashing=on_hashing)

    def promote(self, token: str, *, accept_warnings: str | None = None, on_hashing: Any = None) -> ReadyResult:
        """``handoff ready``: promote a validated handoff (``on_hashing``: as ``validate``'s)."""
        from baton.commands import ready

        return ready.promote_handoff(self.project, token, accept_warnings=accept_warnings, on_hashing=on_hashing)

    def amend(self, token: str, **options: Any) -> CaptureResult:
        from baton.commands import amend

        self._identifiers(session=options.get("session"))

        return amend.amend_handoff(self.project, token, **options)

    def archive(self, token: str, *, reason: str | None = None, not_mine: bool = False) -> ArchiveResult:
        from baton.commands import amend

        return amend.archive_handoff(self.project, token, reason=reason, not_mine=not_mine)

    def forget(self, token: str, *, reason: str | None = None, yes: bool = False) -> ForgetResult:
        """Erase one handoff's payloads (and its batons'), recorded as ``handoff.forgotten``;
        without ``yes``, only the plan."""
        from baton.commands import forget

        return forget.forget_handoff(self.project, token, reason=reason, yes=yes)

    def audit(self, *, progress: "Progress | None" = None) -> AuditResult:
        """What the project holds, redacted and may delete (spec §16); never a value.
        ``progress(done, about)``: events read so far, on a long audit."""
        from baton.commands import audit

        return audit.audit_project(self.project, progress)

    def show_policy(self) -> PolicyShowResult:
        """The policy's sources, the settings of it that widen what Baton does, whether this
        clone trusts them, and what is in force here."""
        from baton.commands import trust_policy

        return trust_policy.show_policy(self.project)

    def trust_policy(self, *, digest: str | None = None, roll_back_signers: bool = False) -> PolicyTrustResult:
        """Trust the policy's widening settings as they are now, in this clone (only if their
        digest is ``digest``, when given; signer lines older than the trusted ones only with
        ``roll_back_signers``)."""
        from baton.commands import trust_policy

        return trust_policy.trust_policy(self.project, digest=digest, roll_back_signers=roll_back_signers)

    def untrust_policy(self) -> PolicyTrustResult:
        """Remove this clone's trust: the policy's widening settings stop applying."""
        from baton.commands import trust_policy

        return trust_policy.untrust_policy(self.project)

    def list_handoffs(self, *, status: str | None = None, work: str | None = None,
                      limit: int | None = None, kind: str = "handoff", branch: str | None = None,
                      count_total: bool = True, by: str | None = None, mine: bool = False,
                      cursor: str | None = None) -> ListResult:
        """Handoffs newest first; session batons only with ``kind`` ``baton`` or ``all``; only those
        captured ``by`` one owner (or writer id), or only the reader's (``mine``). At most
        ``limit`` (``None``: the newest 50, ``listing.DEFAULT_LIMIT``; 0: every match); ``total`` counts
        the matches a limit left out unless ``count_total`` is false (a caller that shows only the rows).
        ``cursor``: a page's ``next_cursor``, for the page after it."""
        from baton.commands import listing

        return listing.list_handoffs(self.project, status=status, work=work, limit=limit, kind=kind, branch=branch,
                                     count_total=count_total, by=by, mine=mine, cursor=cursor)

    def show(self, token: str, **options: Any) -> ShowResult:
        """``handoff show``; ``as_of`` answers from a replay up to that point."""
        from baton.commands import show

        return show.show_handoff(self.project, token, **options)

    def resume(self, token: str = "latest", *, format: str = "prompt", mark_resumed: bool = False,
               max_tokens: int | None = None, session: str | None = None, harness: str | None = None,
               any_branch: bool = False) -> ResumeResult:
        """``latest`` is branch-aware (this branch and worktree first); ``any_branch`` asks for the project's.
        Recording the resume is a use case of its own (``resume_mark``: the write path)."""
        self._identifiers(session=session, harness=harness)
        if mark_resumed:
            from baton.commands import resume_mark

            return resume_mark.resume_and_mark(self.project, token, format=format, max_tokens=max_tokens,
                                               session=session, harness=harness, any_branch=any_branch)
        from baton.commands import resume

        return resume.resume_handoff(self.project, token, format=format, max_tokens=max_tokens, session=session,
                                     harness=harness, any_branch=any_branch)

    # -- lineage (§14) ------------------------------------------------------------------
    def fork(self, token: str, *, label: str | None = None, session: str | None = None) -> CaptureResult:
        """A draft child of ``token`` with relation ``fork`` (CLI ``fork``, MCP ``handoff_fork``)."""
        from baton.commands import fork_merge

        self._identifiers(label=label, session=session)
        return fork_merge.fork_handoff(self.project, token, label=label, session=session)

    def merge(self, tokens: list[str], *, title: str | None = None, resolution: dict[str, Any] | None = None,
              session: str | None = None) -> MergeResult:
        """A draft child of two or more handoffs (CLI ``merge``, MCP ``handoff_merge``)."""
        from baton.commands import fork_merge

        self._identifiers(session=session)
        return fork_merge.merge_handoffs(self.project, tokens, title=title, resolution=resolution, session=session)

    def lineage(self, token: str | None = None, *, format: str = "text", as_of: str | None = None,
                limit: int | None = None) -> LineageResult:
        """``limit``: at most that many handoffs (None: the newest 50; 0: the whole graph)."""
        from baton.commands import lineage_view

        return lineage_view.lineage_view(self.project, token, format=format, as_of=as_of, limit=limit)

    # -- the detector (§9) -------------------------------------------------------------
    def detect(self, signals: dict[str, Any] | None = None, *, prepare: bool = False,
               session: str | None = None, harness: str | None = None, source: str = "cli",
               create_drafts: bool = True, prepared_draft: str | None = None) -> DetectResult:
        """Score handoff pressure and readiness (CLI ``detect``, MCP ``handoff_detect``, hooks)."""
        from baton.commands import detect

        given = (signals or {}).get("harness") if harness is None and isinstance(signals, dict) else harness
        self._identifiers(session=session, harness=given if isinstance(given, str) else None)  # a hook's too
        return detect.detect(self.project, signals or {}, prepare=prepare, session=session, harness=harness,
                             source=source, create_drafts=create_drafts, prepared_draft=prepared_draft)

    def control_detector(self, action: str, *, session: str | None = None,
                         minutes: float | None = None) -> DetectorControlResult:
        """``detect --snooze`` / ``--disable-for-session`` / ``--enable``: recorded as events."""
        from baton.commands import detect

        self._identifiers(session=session)
        return detect.control(self.project, action, session=session, minutes=minutes)

    # -- session batons -------------------------------------------------------------------
    def create_baton(self, handoff: Any, **options: Any) -> BatonCreateResult:
        from baton.commands import baton_cases

        self._identifiers(**{k: options.get(k) for k in ("owner", "branch", "session", "harness")})
        return baton_cases.create_baton(self.project, handoff, **options)

    def active_baton(self, *, owner: str | None = None, branch: str | None = None) -> ActiveBatonResult:
        """``session handoff``: the baton a session here would receive, with its
        freshness (``handoff_facts.shown``, loaded only when there is one)."""
        from baton.commands import baton_view

        self._identifiers(owner=owner, branch=branch)
        active = baton_view.show_active_baton(self.project, owner=owner, branch=branch)
        if active.record is None:
            return active
        from baton.commands import handoff_facts

        return handoff_facts.shown(self.project, active)

    def pending_batons(self) -> PendingBatonsResult:
        from baton.commands import baton_cases

        return baton_cases.list_pending_batons(self.project)

    def cancel_baton(self, *, owner: str | None = None, branch: str | None = None,
                     session: str | None = None, not_mine: bool = False) -> CancelResult:
        from baton.commands import baton_cases

        self._identifiers(owner=owner, branch=branch, session=session)
        return baton_cases.cancel_baton(self.project, owner=owner, branch=branch, session=session,
                                        not_mine=not_mine)

    def dismiss_baton(self, handoff_id: str, *, via: str = "cli", session: str | None = None,
                      not_mine: bool = False) -> DismissResult:
        from baton.commands import baton_cases

        self._identifiers(session=session)
        return baton_cases.dismiss_baton(self.project, handoff_id, via=via, session=session, not_mine=not_mine)

    def hand_on(self, handoff_id: str, *, owner: str | None = None, branch: str | None = None,
                shared: bool = False, session: str | None = None, harness: str | None = None) -> BatonCreateResult:
        """Scope an existing handoff as a baton (``session handoff --from``)."""
        from baton.commands import baton_cases

        self._identifiers(owner=owner, branch=branch, session=session, harness=harness)
        return baton_cases.scope_handoff_as_baton(self.project, handoff_id, owner=owner, branch=branch,
                                                  shared=shared, session=session, harness=harness)

    def begin_session(self, *, session_id: str | None = None, harness: str | None = None,
                      objective: str | None = None, owner: str | None = None, branch: str | None = None,
                      claim: bool = True, wording: Mapping[str, str] | None = None) -> SessionBeginResult:
        """Begin a session, claiming the baton waiting for it: the rule on its feed
        (``feed_vouch``, as the session-start brief asks it), the claim (``baton_claim``) and
        the baton's freshness (``handoff_facts``) are loaded only when there is one. A start
        that receives none is told of a teammate's baton that arrived after this key's claim and of the
        batons this clone left that wait elsewhere, by the session-start brief's rules
        (``bootstrap.waiting_elsewhere``; ``wording`` as ``bootstrap``'s)."""
        from baton.commands import bootstrap, sessions

        self._identifiers(session=session_id, harness=harness, owner=owner, branch=branch)
        spelled = dict(wording or {})

        def left_elsewhere(project: Any, runner: Any, ctx: Any) -> list[str]:
            return bootstrap.waiting_elsewhere(project, runner, ctx, peek=False, wording=spelled)

        options: dict[str, Any] = {"session_id": session_id, "harness": harness, "objective": objective,
                                   "owner": owner, "branch": branch, "claim": claim,
                                   "left_elsewhere": left_elsewhere if claim else None}
        begun = sessions.begin_session(self.project, **options)
        if begun is None:  # a baton waits: its feed judged, then claimed in the append that records the start
            from baton.commands import baton_claim, feed_vouch

            begun = sessions.begin_session(self.project, **options, claim_in_scope=baton_claim.claim_in_scope,
                                           vouch_of=feed_vouch.baton_vouch)
        assert begun is not None
        if begun.record is None:
            return begun
        from baton.commands import handoff_facts

        return handoff_facts.shown(self.project, begun)

    def end_session(self, session_id: str | None, handoff: Any = None, *, harness: str | None = None,
                    owner: str | None = None, branch: str | None = None,
                    shared: bool | None = None) -> SessionEndResult:
        from baton.commands import sessions

        self._identifiers(session=session_id, harness=harness, owner=owner, branch=branch)
        if isinstance(handoff, dict):
            self._identifiers(owner=handoff.get("owner"), branch=handoff.get("branch"))
        options: dict[str, Any] = {"harness": harness, "owner": owner, "branch": branch, "shared": shared}
        if not sessions.leaves_own_baton(handoff):
            # No baton of its own: the session's ready handoff is handed on, as its end hook does, in the
            # scope given (the owner, branch and sharing scope the baton, never decide whether it is handed on).
            finished = self.finish_harness_session(session_id, harness=harness, owner=owner, branch=branch,
                                                   shared=bool(shared))
            if finished.end is not None:
                return replace(finished.end, told=finished.notices, handed_on=finished.baton is not None)
        from baton.commands import harness_finish

        # A baton of its own is left: the session's ready handoff, not handed on, is pointed to.
        options["points_to"] = harness_finish.own_ready_handoff(self.project, session_id) if session_id else None
        ended = sessions.end_session(self.project, session_id, handoff, **options)
        if ended is None:  # a baton is left: its capture (``baton_create``) only then
            from baton.commands import baton_create

            ended = sessions.end_session(self.project, session_id, handoff, **options,
                                         create_in_scope=baton_create.create_in_scope)
        assert ended is not None
        return ended

    def bootstrap(self, *, session_id: str | None = None, max_bytes: int = 8192, owner: str | None = None,
                  branch: str | None = None, peek: bool = False, budget: str = "max_bytes",
                  wording: Mapping[str, str] | None = None,
                  told: Callable[[], Sequence[str]] | None = None) -> BootstrapResult:
        """The session-start brief; claims the eligible baton for the session. ``budget``: how
        the caller spells ``max_bytes`` (the command line: ``--max-bytes``), for the notice of a
        handoff too big for the brief; ``wording``: how it spells what the notices of a lost
        claim and of a baton left for another owner tell the reader to run (``bootstrap.begin``).
        ``told``: the caller's notices, the brief's first (the notices failed hooks left, as a
        harness's start shows them): asked once the arguments are found good, so a refused call
        uses none of them up."""
        from baton.commands import bootstrap

        self._identifiers(session=session_id, owner=owner, branch=branch)
        bootstrap.check_max_bytes(max_bytes)
        first = tuple(told()) if told is not None else ()
        named = None
        if session_id is not None and not peek:  # a named start is recorded: a session receives one baton
            from baton.commands import session_records

            named = session_records.NamedStart
        return self._brief(bootstrap.begin(self.project, session_id=session_id, max_bytes=max_bytes, owner=owner,
                                           branch=branch, peek=peek, budget=budget, named=named,
                                           wording=wording, told=first))

    @staticmethod
    def _brief(start: BootstrapStart) -> BootstrapResult:
        """A session-start brief's later steps (``bootstrap.Start``), each module
        loaded only when the step before asks for it: with no baton waiting the
        brief is done; a waiting baton's feed is judged (``feed_vouch``); its freshness and summary are fitted in
        (``handoff_facts``); unless peeking, it is claimed (``baton_claim``)."""
        if start.done is not None:
            return start.done
        from baton.commands import feed_vouch

        start.vouch(feed_vouch.baton_vouch)
        if start.done is not None:  # withheld: its feed is not vouched for and signatures are required
            return start.done
        from baton.commands import handoff_facts

        offer = start.offer(handoff_facts.baton_freshness, handoff_facts.carried_lines)
        if offer.done is not None:
            return offer.done
        from baton.commands import baton_claim

        return start.claim(offer, baton_claim.claim_in_scope)

    # -- a harness's session lifecycle (``baton hook``) ---------------------------------
    def start_harness_session(self, session_id: str | None, *, harness: str | None = None,
                              source: str | None = None, max_bytes: int = 8192, also: str = "",
                              process: dict[str, Any] | None = None) -> SessionStartResult:
        """A harness started (or resumed) a session: its brief, delivered once per session.
        ``also``: the adapter's other way to pass the session id, which it gives
        ``SessionStartResult.context_for``: the brief leaves room for it in ``max_bytes``.
        ``process``: the harness process the session runs in, on this machine, as the hook
        read it (``launch.harness_process``): recorded with its start, it tells whether
        that harness is gone when the session never reports its end.

        A hook kept while the index was too far behind or the ledger locked
        (a session's end) and still waiting — its catch-up failed or gave up,
        or ended just as it was kept — runs first, so its baton is in this brief.
        One that met the ledger lock held past the wait used the start's wait: the
        start does not wait for the lock again (two waits could outlast the hook's
        deadline, and the agent get no brief at all), and its brief says why it
        claimed nothing with what that wait met.

        A start that finds a ready handoff readied by a session of its owner and
        clone that never reported its end (its harness killed) takes it over first
        (``unended_sessions.take_over``): that session is ended with the handoff
        handed on, which this start then claims, when it is taken for over; else
        the brief says what waits and how to continue it."""
        from baton.commands import harness_start

        self._identifiers(session=session_id, harness=harness)
        kept: tuple[DeferredRun, ...] = ()
        # One listdir: the module that runs kept hooks (``baton.commands.deferred``) only when one waits.
        if not self.project.read_only and self.project.paths.hooks_waiting():
            kept = self.run_deferred_hooks()
        busy = next((run.busy for run in kept if run.busy is not None), None)
        # The start's own wait, given to its writing steps: the project's stays as it was opened.
        limits = replace(self.project.limits, write_wait=0) if busy is not None else None
        starting = harness_start.start_session(self.project, session_id, harness=harness, source=source,
                                               max_bytes=max_bytes, limits=limits, also=also, process=process)
        if starting.unended is not None:  # a session that never reported its end readied a handoff
            from baton.commands import unended_sessions

            told = unended_sessions.take_over(self.project, starting.unended)
            starting = harness_start.start_session(self.project, session_id, harness=harness, source=source,
                                                   max_bytes=max_bytes, limits=limits, also=also, told=told,
                                                   process=process)
        if starting.done is not None:
            started = starting.done
        else:
            assert starting.brief is not None
            started = starting.delivered(self._brief(starting.brief))
        if busy is not None and started.delivered is not None and started.delivered.held_up is not None:
            started = replace(started, delivered=replace(started.delivered, held_up=busy))
        return replace(started, kept=kept) if kept else started

    def prepare_for_compaction(self, session_id: str | None, *, harness: str | None = None,
                               trigger: str | None = None, event: str | None = None) -> CompactionDraftResult:
        """A harness is about to compact a session's context: the session's draft
        (once). ``event``: as for ``finish_harness_session``."""
        from baton.commands import harness_compaction

        self._identifiers(session=session_id, harness=harness)
        with self._kept_if_held_up(KEPT_PRE_COMPACT, event, session_id, harness=harness,
                                   trigger=trigger) as deferral:
            return harness_compaction.prepare_before_compaction(self.project, session_id, harness=harness,
                                                                trigger=trigger, deferral=deferral)

    def finish_harness_session(self, session_id: str | None, *, harness: str | None = None,
                               reason: str | None = None, event: str | None = None,
                               unprompted: bool = False, owner: str | None = None, branch: str | None = None,
                               shared: bool = False) -> SessionFinishResult:
        """A harness ended a session: end it, handing on the ready handoff it wrote.
        ``owner``, ``branch``, ``shared``: the scope of that baton (``session end --shared``), when given;
        else the session's owner on the branch the handoff was captured on.
        ``unprompted``: the session's start claimed a baton and no request was made since
        (``baton.harnesses.hook_project.leave_mark``): that baton is handed on again (``harness_finish``).

        ``event`` (a hook's, as the harness names it): when the index is further
        behind than this process may fold (``IndexBehind``), the end is kept, and
        the catch-up handed to a process of its own runs it once the index is
        up to date (``baton.commands.deferred``; ``details["deferred"]``)."""
        from baton.commands import harness_finish

        self._identifiers(session=session_id, harness=harness)
        with self._kept_if_held_up(KEPT_SESSION_END, event, session_id, harness=harness,
                                   reason=reason) as deferral:
            finished = harness_finish.finish_session(self.project, session_id, harness=harness, reason=reason,
                                                     deferral=deferral, unprompted=unprompted, owner=owner,
                                                     branch=branch, shared=shared)
            if finished is None:  # the session wrote a handoff to hand on: the hand-on (``baton_hand_on``) only then
                from baton.commands import baton_hand_on

                finished = harness_finish.finish_session(self.project, session_id, harness=harness, reason=reason,
                                                         hand_on_in_scope=baton_hand_on.hand_on_in_scope,
                                                         deferral=deferral, unprompted=unprompted, owner=owner,
                                                         branch=branch, shared=shared)
        assert finished is not None
        return finished

    def begun_here(self, session_id: str | None) -> bool:
        """Whether this clone recorded session ``session_id``'s start in this project
        (``harness_finish.begun_here``)."""
        from baton.commands import harness_finish

        return harness_finish.begun_here(self.project, session_id)

    def notice_fates(self, was: dict[str, str | None]) -> "NoticeFates":
        """What a session start is to do with the waiting notices that say a handoff
        was not handed on (``was``: handoff id → its status when the notice was
        left): which are no longer so, and which unfinished drafts were made ready
        since (``baton.domain.notice_fate``). Reads only."""
        from baton.commands import notice_fates

        return notice_fates.notice_fates(self.project, was)

    def notices_as_now(self, waiting: list[dict[str, Any]], wording: Mapping[str, str]) -> list[dict[str, Any]]:
        """The notices failed hooks left (``baton.harnesses.notices``), those that say a handoff
        was not handed on as they are true now (``notice_fates.as_now``, in the adapter's
        ``wording``). The use case is loaded
        only when one names a handoff; when what became of them cannot be read, they are said
        as they were left."""
        was = {item["handoff"]: item.get("was") for item in waiting if isinstance(item.get("handoff"), str)}
        if not was:
            return waiting
        from baton.commands import notice_fates

        try:
            fates = notice_fates.notice_fates(self.project, was)
        except BatonError:
            return waiting
        return notice_fates.as_now(waiting, fates, wording)

    @contextmanager
    def _kept_if_held_up(self, kind: str, event: str | None, session_id: str | None, *, harness: str | None,
                         **texts: str | None) -> Iterator[Deferral | None]:
        """While a hook's use case runs: gives it the ``Deferral`` that keeps
        the hook, for the use case to pass to its reading and writing steps:
        should its catch-up be handed to a process of its own, the hook is kept
        for that process first (``Project.behind``); should the ledger lock stay
        held by another process past the hook's wait (``LedgerBusy``), it is
        kept too, and that process started to wait for the lock
        (``Project.busy``); should the index be pinned in the past
        (``IndexPinned``: ``rebuild --until``), it is kept for the plain
        ``rebuild`` that returns it to the present, which runs it. Never set on the project, which concurrent callers
        (the MCP server's tools, a hook server) share. Without ``event`` (not a
        hook), or without a session id, nothing is kept (None). The keeper
        (``baton.commands.deferred``) is loaded only when a hook is kept."""
        if event is None or not session_id or self.project.read_only:
            yield None
            return

        def keep() -> str | None:
            from baton.commands import deferred

            try:
                return deferred.keep(self.project, kind=kind, harness=harness, event=event,
                                     session=session_id, **texts)
            except (OSError, BatonError):  # not kept: the hook says what was not done, as before
                return None

        try:
            yield keep
        except LedgerBusy as exc:  # the lock held past the hook's wait: kept, for a process that waits for it
            if "background_pid" in exc.details:
                raise
            raise self.project.busy(exc, keep) from None
        except IndexPinned as exc:  # ``rebuild --until``: kept, for the plain ``rebuild`` that unpins it
            if "deferred" in exc.details:
                raise
            raise IndexPinned(exc.message, details={**exc.details, "deferred": keep()}) from None

    def run_deferred_hooks(self) -> tuple[DeferredRun, ...]:
        """Run the hooks kept while the index was too far behind or the ledger
        locked, oldest first, each removed once it ran (``baton.commands.deferred``): after a catch-up
        (``rebuild``), and before a session start. A second run of one (a crash
        before its removal, or two processes at once) does nothing more: a
        session ends once, hands a handoff on once, has one draft."""
        from baton.commands import deferred

        return deferred.run_pending(self.project.paths, self._run_kept)

    def _run_kept(self, hook: DeferredHook) -> Any:
        from baton.commands import deferred

        worktree = hook.worktree_in(self.project.root)
        app = self
        if worktree != self.project.paths.worktree:  # the hook ran in another worktree of the project
            app = Baton.open(worktree, clock=self.project.clock, limits=self.project.limits)
        try:
            if hook.kind == deferred.SESSION_END:
                return app.finish_harness_session(hook.session, harness=hook.harness, reason=hook.reason)
            return app.prepare_for_compaction(hook.session, harness=hook.harness, trigger=hook.trigger)
        finally:
            if app is not self:
                app.close()

    def metrics(self) -> MetricsResult:
        from baton.commands import metrics

        return metrics.local_metrics(self.project)

    # -- status -------------------------------------------------------------------------
    def start_hook_missing(self, *, harness: str, start_hook_wired: bool, launched_below: str | None,
                           launched_at: str) -> UnhookedStart | None:
        """Whether the session an MCP server started at ``launched_at`` in ``launched_below`` (a
        subfolder of the worktree) serves ran without its start hook (``baton.domain.start_hooks``)."""
        from baton.commands import start_hooks

        return start_hooks.start_hook_missing(self.project, harness=harness, start_hook_wired=start_hook_wired,
                                              launched_below=launched_below, launched_at=launched_at)

    def status(self) -> StatusResult:
        from baton.commands import status

        return status.project_status(self.project)

    def status_overview(self, **options: Any) -> StatusOverview:
        from baton.commands import status_page

        return status_page.status_overview(self.project, **options)

    def handoff_view(self, requested_project: str | None, handoff_id: str) -> StatusHandoffView:
        """One handoff as the status page opens it (the ``handoff show --format md`` content)."""
        from baton.commands import status_handoff

        return status_handoff.handoff_view(self.project, requested_project, handoff_id)

    def dismiss_from_status_page(self, requested_project: str | None, baton_id: str) -> StatusDismissal:
        from baton.commands import status_page

        return status_page.dismiss_from_status_page(self.project, requested_project, baton_id)

    def listen_target(self, **options: Any) -> ListenTarget:
        from baton.commands import status_page

        return status_page.listen_target(self.project, **options)

    def sanitize(self, value: Any) -> Any:
        """Redact an answer with the project's policy (error bodies included)."""
        from baton.commands import status_page

        return status_page.sanitize_for_project(self.project, value)
