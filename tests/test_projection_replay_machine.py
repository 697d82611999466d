"""Replay equivalence as a state machine, over the real projections.

Several writers — each a long-lived ``Project`` (an MCP server, say) that may
restart as a new process, seeded from the index — run the real commands:
sessions end leaving batons, sessions start and claim them, handoffs are
captured, validated, promoted, archived, batons cancelled; appends with stale
expected versions are refused; writers die leaving torn tails; a remote
machine — a second checkout that pulls this project's feeds now and then and
works on the same batons, its clock drifting behind ours by a varying lag —
writes a feed that arrives late, a few lines at a time (as through ``baton
sync``), so events of every writer arrive in random orders, some on streams
already folded past them, most not; the index is rebuilt now and then.

After every step the index those commands built incrementally (catch-ups
seeded from cursors, appends folded as they returned) equals a full replay of
the same bytes (up to the index's cursors) into a fresh index over JSONL
feeds, and a runner over a ``MemoryLedger`` fed the same bytes step by step
equals both — documents and materialized files alike. No event ever
acknowledged leaves the ledger.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from baton.cli_input import ContentOptions
from baton.commands.capture import capture_in_scope
from baton.commands.context import Project
from baton.commands.forget import forget_handoff
from baton.commands.handoff_facts import HashBudget
from baton.commands.resume_mark import resume_and_mark
from baton.domain.content_hash import SCREEN_LIMIT_BYTES
from baton.errors import BatonError, PolicyBlock, StreamVersionConflict
from baton.ledger import EventDraft, Ledger
from baton.ledger.memory import MemoryLedger
from baton.projections.registry import default_projections
from baton.projections.runner import ProjectionRunner
from tests.app_support import (
    amend_handoff,
    archive_handoff,
    begin_session,
    bootstrap,
    cancel_baton,
    end_session,
    init_project,
    promote_handoff,
    validate_handoff_command,
)
from tests.handoff_samples import texts
from tests.handoff_support import payload

WRITERS = ("alpha", "beta", "gamma")
OWNERS = ("alice@example.com", "bob@example.com")
BRANCHES = ("main", "feature/login")
OBJECTIVE_BRANCHES = (*BRANCHES, "feature_login")
"""Objectives are also set on ``feature_login``, which shares ``feature/login``'s
key and objective stream but keeps its own objective (docs/batons.md "Names
that share a key"); batons are not left there (that one is refused, exit 4)."""
MATERIALIZED = ("handoffs", "batons")
GROWS = "notes/grows.log"
"""A file a budgeted capture records not hashed yet, which may grow past the secret screen's limit
before its validation: the validation then records why it takes no hash (``artifact_hash_skipped``)."""
REMOTE_LAGS_NS = (0, 100_000_000, 5_000_000_000, 60_000_000_000)


def files_under(baton: Path) -> dict[str, bytes]:
    out = {}
    for folder in MATERIALIZED:
        root = baton / folder
        if root.exists():
            out.update({str(p.relative_to(baton)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()})
    return out


def status_counts(runner: ProjectionRunner) -> tuple[dict[str, int], dict[str, int]]:
    """The handoff status counts the index keeps as it folds, and a ``GROUP BY`` over its rows."""
    kept = dict(runner.db.execute("SELECT status, n FROM handoff_status_counts").fetchall())
    grouped = dict(runner.db.execute("SELECT status, COUNT(*) FROM handoff_rows GROUP BY status").fetchall())
    return kept, grouped


def words(max_size: int = 40):
    return texts(max_size, min_size=1).filter(lambda t: t.strip())


def _expected_notice(notice: str) -> bool:
    """The notices a start may legitimately give here: a double claim across
    checkouts tells its loser; and as owners here share a clone, a baton this
    clone's session left for its own owner is named once to a session of
    another owner (docs/batons.md: a baton left under an owner name that changed); and a start
    on an owner and branch whose newest baton a session that has not ended claimed is told
    who has it (docs/batons.md: a baton another session claimed); and a baton of this owner that
    another writer (a remote machine) dismissed or cancelled is told once (docs/batons.md, "Dismissing a
    baton"; ``domain.batons.dismissed_elsewhere`` words both)."""
    return notice.startswith(("Claim conflict:", "A baton this clone left for ", "The newest session handoff for ",
                              "DISMISSED: ", "CANCELLED: "))


class RealReplayMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.root = Path(tempfile.mkdtemp(prefix="replay-"))
        self.project = self.root / "proj"
        self.project.mkdir()
        init_project(self.project)
        (self.project / "notes").mkdir()
        (self.project / "notes" / "plan.md").write_text("the plan\n")
        (self.project / GROWS).write_text("a line\n")
        opened = Project.open(self.project)
        self.paths, self.config = opened.paths, opened.config
        opened.close()
        self.baton = self.paths.baton_dir
        self.open: dict[str, Project] = {}
        self.handoffs: list[str] = []
        self.sessions = 0
        self.begun: list[tuple[str, str, str, str]] = []
        """The sessions begun with an objective, not ended yet (writer, session, owner, branch)."""
        self.acknowledged: set[str] = set()
        self.torn: dict[str, bytes] = {}
        self.memory = MemoryLedger("replayer")
        self.memory_runner = ProjectionRunner(self.root / "memory" / ".baton", self.memory, default_projections())
        self.delivered: dict[str, int] = {}
        remote_root = self.root / "remote"
        remote_root.mkdir()
        init_project(remote_root)
        remote = Project.open(remote_root)
        self.remote = Project(remote.paths, self.config, "remote", clock=self._remote_clock)
        remote.close()
        self.remote_synced = 0
        self.remote_lag = REMOTE_LAGS_NS[2]

    def _remote_clock(self) -> int:
        """The remote machine's clock runs behind: its events sort before ours."""
        return time.time_ns() - self.remote_lag

    def teardown(self) -> None:
        for opened in self.open.values():
            opened.close()
        self.remote.close()
        self.memory_runner.close()
        shutil.rmtree(self.root, ignore_errors=True)

    def writer(self, name: str, restart: bool = False) -> Project:
        """The writer's long-lived ``Project``; ``restart`` makes it a new process."""
        if restart and name in self.open:
            self.open.pop(name).close()
        if name not in self.open:
            self.open[name] = Project(self.paths, self.config, name)
        return self.open[name]

    def session_id(self) -> str:
        self.sessions += 1
        return f"sess-{self.sessions}"

    # -- the real commands ---------------------------------------------------
    @rule(name=st.sampled_from(WRITERS), restart=st.booleans(), owner=st.sampled_from(OWNERS),
          branch=st.sampled_from(BRANCHES), steps=st.lists(words(), min_size=1, max_size=3), shared=st.booleans())
    def end_a_session_leaving_a_baton(self, name, restart, owner, branch, steps, shared):
        try:
            result = end_session(self.writer(name, restart), self.session_id(),
                                 {"nextSteps": steps, "failedApproaches": [], "openQuestions": [], "shared": shared},
                                 owner=owner, branch=branch)
        except PolicyBlock:
            return  # generated text that looks like a secret: refused, nothing appended
        assert result.created is not None
        self.handoffs.append(result.created.record.id)

    @rule(name=st.sampled_from(WRITERS), restart=st.booleans(), owner=st.sampled_from(OWNERS),
          branch=st.sampled_from(BRANCHES))
    def start_a_session_that_claims_a_baton(self, name, restart, owner, branch):
        out = bootstrap(self.writer(name, restart), session_id=self.session_id(), owner=owner, branch=branch)
        assert out.exit_code == 0 and all(map(_expected_notice, out.notices)), out.notices

    @rule(name=st.sampled_from(WRITERS), owner=st.sampled_from(OWNERS), branch=st.sampled_from(OBJECTIVE_BRANCHES),
          objective=words(60), claim=st.booleans())
    def begin_a_session_with_an_objective(self, name, owner, branch, objective, claim):
        sid = self.session_id()
        try:
            begin_session(self.writer(name), session_id=sid, objective=objective, owner=owner,
                          branch=branch, claim=claim)
        except PolicyBlock:
            return
        self.begun.append((name, sid, owner, branch))

    @rule(name=st.sampled_from(WRITERS), owner=st.sampled_from(OWNERS), branch=st.sampled_from(OBJECTIVE_BRANCHES),
          end=st.booleans())
    def a_second_session_begins_without_an_objective(self, name, owner, branch, end):
        """Beside a session, still open, that set the objective of its owner and branch (two terminals):
        its start (and its end, with ``end``) keeps that objective (``kept_objective``)."""
        sid = self.session_id()
        begin_session(self.writer(name), session_id=sid, owner=owner, branch=branch, claim=False)
        if end:
            end_session(self.writer(name), sid, None, owner=owner, branch=branch)

    @precondition(lambda self: self.begun)
    @rule(pick=st.integers(0, 1_000))
    def a_session_that_set_an_objective_ends(self, pick):
        """Its own end retires the objective it set (a later session's kept it until then)."""
        name, sid, owner, branch = self.begun.pop(pick % len(self.begun))
        end_session(self.writer(name), sid, None, owner=owner, branch=branch)

    @rule(name=st.sampled_from(WRITERS), restart=st.booleans(), title=words(), done=st.lists(words(), max_size=2),
          budgeted=st.booleans())
    def capture_a_handoff(self, name, restart, title, done, budgeted=False):
        """``budgeted``: as a hook's capture whose hashing budget is spent, leaving its folder artifact not
        hashed yet; validation (or the promotion) hashes it and records the hash the fold sets."""
        body = payload(work={"title": title, "objective": f"finish {title}"},
                       summary={"current_state": "halfway", "completed": done, "in_progress": [title]},
                       artifacts=[{"path": "notes/plan.md", "role": "read"}, {"path": GROWS, "role": "read"}])
        spent = HashBudget(0, 0, 0) if budgeted else None
        if spent is not None:
            spent.spent = True
        try:
            with self.writer(name, restart).writing() as scope:
                self.handoffs.append(capture_in_scope(scope, body, hash_budget=spent).handoff_id)
        except PolicyBlock:
            pass

    @precondition(lambda self: self.handoffs)
    @rule(pick=st.integers(0, 1_000), promote=st.booleans())
    def validate_and_maybe_promote_a_handoff(self, pick, promote):
        """Through the path-taking commands: the project's own writer, a new process each time."""
        handoff = self.handoffs[pick % len(self.handoffs)]
        try:
            validate_handoff_command(self.project, handoff)
            if promote:
                promote_handoff(self.project, handoff, accept_warnings="replay test")
        except BatonError:
            pass  # not a draft any more, or validation failed: nothing was appended beyond what the command says

    @rule(big=st.booleans())
    def a_file_grows_past_the_secret_screen(self, big):
        """A budgeted capture recorded it not hashed yet; over the screen's limit now, its validation
        records why it takes no hash (``artifact_hash_skipped``), the fold sets that on the record."""
        size = SCREEN_LIMIT_BYTES + 1 if big else 7
        (self.project / GROWS).write_bytes(b"x" * size)

    @precondition(lambda self: self.handoffs)
    @rule(name=st.sampled_from(WRITERS), pick=st.integers(0, 1_000))
    def resume_a_handoff(self, name, pick):
        """``baton resume ID --mark-resumed``: the record keeps who resumed it (``resumed_by``)."""
        try:
            resume_and_mark(self.writer(name), self.handoffs[pick % len(self.handoffs)])
        except BatonError:
            pass  # not ready, archived, or superseded

    @precondition(lambda self: self.handoffs)
    @rule(pick=st.integers(0, 1_000), title=words())
    def amend_a_handoff_and_promote_it(self, pick, title):
        """An amended draft is revised in place; an amended ready record gets
        a child, and promoting the child supersedes it."""
        try:
            result = amend_handoff(self.project, self.handoffs[pick % len(self.handoffs)],
                                   content=ContentOptions(title=title))
        except BatonError:
            return  # archived, superseded, or text that looks like a secret
        self.handoffs.append(result.handoff_id)
        try:
            validate_handoff_command(self.project, result.handoff_id)
            promote_handoff(self.project, result.handoff_id, accept_warnings="replay test")
        except BatonError:
            pass

    @precondition(lambda self: self.handoffs)
    @rule(pick=st.integers(0, 1_000))
    def archive_a_handoff(self, pick):
        try:
            archive_handoff(self.project, self.handoffs[pick % len(self.handoffs)], reason="done")
        except BatonError:
            pass  # already archived, or in a state that cannot be

    @rule(name=st.sampled_from(WRITERS), owner=st.sampled_from(OWNERS), branch=st.sampled_from(BRANCHES))
    def cancel_a_baton(self, name, owner, branch):
        try:
            cancel_baton(self.writer(name), owner=owner, branch=branch)
        except BatonError:
            pass  # nothing pending there

    @rule(name=st.sampled_from(WRITERS), k=st.integers(2, 4), actor=st.booleans())
    def append_a_batch_of_session_events(self, name, k, actor):
        """Several events in one append (commands mostly append one at a
        time), their payloads copied from what the real commands wrote; without
        ``actor``, as a Baton from before every event recorded its actor wrote
        them (straight to the ledger, past the scope that fills it in)."""
        recent = [e for e in Ledger(self.baton, "inspector").read_all()
                  if e.type.startswith(("session.", "objective.")) and e.data is not None][-k:]
        if not recent:
            return
        drafts = [EventDraft(e.type, e.stream, e.data, actor=e.actor if actor else None, session=e.session)
                  for e in recent]
        with self.writer(name).writing() as scope:
            expected = {d.stream: scope.txn.stream_version(d.stream) for d in drafts}
            if actor:
                events = scope.append(drafts, expected=expected)
            else:
                events = scope.txn.append(drafts, expected=expected)
                scope.runner.fold_appended(events)
            assert all((e.actor is None) != actor for e in events)
        assert [e.seq for e in events] == list(range(events[0].seq, events[0].seq + len(drafts)))

    @rule(name=st.sampled_from(WRITERS), off=st.sampled_from([-1, 1, 2]))
    def append_with_a_stale_expected_version(self, name, off):
        opened = self.writer(name)
        before = Ledger(self.baton, "inspector").read_all()
        stream = f"baton/{OWNERS[0]}/{BRANCHES[0]}"
        with pytest.raises(StreamVersionConflict):
            with opened.writing() as scope:
                stale = max(0, scope.txn.stream_version(stream) + off)
                if stale == scope.txn.stream_version(stream):
                    stale += 1
                scope.append([EventDraft("baton.cancelled", stream, {"stale": True})], expected={stream: stale})
        assert Ledger(self.baton, "inspector").read_all() == before

    # -- what goes wrong -----------------------------------------------------
    @precondition(lambda self: len(self.torn) < len(WRITERS))
    @rule(name=st.sampled_from(WRITERS), kind=st.sampled_from(["partial", "garbage", "unfinished_batch"]))
    def a_writer_dies_mid_append(self, name, kind):
        feed = self.baton / "ledger" / f"{name}.jsonl"
        if name in self.torn or not feed.exists() or not feed.stat().st_size:
            return
        if name in self.open:
            self.open.pop(name).close()  # the process died
        if kind == "unfinished_batch":
            # Whole, sealed lines of a batch whose last line never reached the
            # disk. (A whole line that fails its hash is corruption, never a
            # torn tail: docs/ledger.md.)
            size = feed.stat().st_size
            ledger = Ledger(self.baton, name)
            with ledger.locked() as txn:
                txn.append([EventDraft("note.added", "crash/1", {"n": 1}), EventDraft("note.added", "crash/1", {"n": 2})])
            ledger.close()
            written = feed.read_bytes()[size:]
            tail = written[:written.rindex(b"\n", 0, len(written) - 1) + 1]
            with open(feed, "r+b") as fh:
                fh.truncate(size + len(tail))
            self.torn[name] = tail
            return
        if kind == "partial":
            tail = b'{"v":1,"id":"0190a8e0-0000-7000-8000-0000000'
        else:
            tail = b"\x00" * 17 + b"\n"
        with open(feed, "ab") as fh:
            fh.write(tail)
        self.torn[name] = tail

    @precondition(lambda self: self.torn)
    @rule(data=st.data())
    def the_next_writer_repairs_its_feed(self, data):
        name = data.draw(st.sampled_from(sorted(self.torn)))
        self.capture_a_handoff(name, True, "after the crash", [])
        cut = self.torn.pop(name)
        kept = [p.read_bytes() for p in (self.baton / "quarantine").glob(f"{name}.*.torn")]
        assert cut in kept, "the torn tail was not quarantined"

    @rule(owner=st.sampled_from(OWNERS), branch=st.sampled_from(BRANCHES), steps=st.lists(words(), min_size=1,
                                                                                         max_size=2))
    def a_remote_machine_works_offline(self, owner, branch, steps):
        try:
            end_session(self.remote, self.session_id(),
                        {"nextSteps": steps, "failedApproaches": [], "openQuestions": [], "shared": False},
                        owner=owner, branch=branch)
        except PolicyBlock:
            pass

    @rule(lag=st.sampled_from(REMOTE_LAGS_NS))
    def the_remote_clock_drifts(self, lag):
        self.remote_lag = lag

    @rule(owner=st.sampled_from(OWNERS), branch=st.sampled_from(BRANCHES))
    def a_remote_session_starts_and_claims_a_baton(self, owner, branch):
        """On the remote checkout, which may hold batons it pulled from here."""
        out = bootstrap(self.remote, session_id=self.session_id(), owner=owner, branch=branch)
        assert out.exit_code == 0 and all(map(_expected_notice, out.notices)), out.notices

    @rule(title=words())
    def the_remote_captures_a_handoff(self, title):
        body = payload(work={"title": title, "objective": f"finish {title}"},
                       summary={"current_state": "halfway", "completed": [], "in_progress": [title]})
        try:
            with self.remote.writing() as scope:
                capture_in_scope(scope, body)
        except PolicyBlock:
            pass

    @rule()
    def the_remote_pulls_this_project(self):
        """The remote checkout receives the sound lines of this project's feeds."""
        inspector = Ledger(self.baton, "inspector")
        into = self.remote.paths.baton_dir / "ledger"
        for feed in sorted((self.baton / "ledger").glob("*.jsonl")):
            if feed.stem == "remote":
                continue
            sound = inspector.read_feed(feed.stem).head.offset
            target = into / feed.name
            have = target.stat().st_size if target.exists() else 0
            if sound > have:
                with open(feed, "rb") as fh:
                    fh.seek(have)
                    extra = fh.read(sound - have)
                with open(target, "ab") as out:
                    out.write(extra)

    @rule(lines=st.integers(1, 6))
    def the_remote_feed_arrives(self, lines):
        """As ``baton sync`` would: the remote feed's next few lines are appended here."""
        source = self.remote.paths.baton_dir / "ledger" / "remote.jsonl"
        if not source.exists():
            return
        raw = source.read_bytes()
        end = self.remote_synced
        for _ in range(lines):
            at = raw.find(b"\n", end)
            if at < 0:
                break
            end = at + 1
        with open(self.baton / "ledger" / "remote.jsonl", "ab") as fh:
            fh.write(raw[self.remote_synced:end])
        self.remote_synced = end

    # -- projections ---------------------------------------------------------
    @rule(name=st.sampled_from(WRITERS))
    def a_reader_catches_up(self, name):
        self.writer(name).reading()

    @rule(name=st.sampled_from(WRITERS))
    def the_index_is_rebuilt(self, name):
        opened = self.writer(name)
        with opened.ledger.locked():
            opened.runner.rebuild()

    @rule()
    def the_memory_index_is_rebuilt(self):
        self.memory_runner.rebuild()

    # -- invariants ----------------------------------------------------------
    @invariant()
    def check(self):
        ids = {e.id for e in Ledger(self.baton, "inspector").read_all()}
        assert self.acknowledged <= ids, "an acknowledged event left the ledger"
        self.acknowledged = ids
        inspector = ProjectionRunner(self.baton, Ledger(self.baton, "inspector"), default_projections())
        try:
            cursors = inspector.cursors()
            incremental, shown = inspector.snapshot(), files_under(self.baton)
            incremental_counts = status_counts(inspector)
            assert incremental_counts[0] == incremental_counts[1], "the status counts differ from the rows"
        finally:
            inspector.close()
        fresh = self.root / f"fresh-{len(ids)}-{self.sessions}" / ".baton"
        (fresh / "ledger").mkdir(parents=True)
        for feed, cursor in cursors.items():
            with open(self.baton / "ledger" / f"{feed}.jsonl", "rb") as fh:
                upto = fh.read(cursor.head.offset)
            (fresh / "ledger" / f"{feed}.jsonl").write_bytes(upto)
            self.memory.receive(feed, upto[self.delivered.get(feed, 0):])
            self.delivered[feed] = len(upto)
        replay = ProjectionRunner(fresh, Ledger(fresh, "reader"), default_projections())
        try:
            replay.rebuild()
            self.memory_runner.catch_up()
            assert replay.snapshot() == incremental, "incremental state differs from a full replay"
            assert self.memory_runner.snapshot() == incremental, "the replay over memory differs"
            counts = status_counts(replay)
            assert counts[0] == counts[1] == status_counts(self.memory_runner)[0] == incremental_counts[0], \
                "the status counts differ from the rows, or between the incremental index and a replay"
            assert files_under(fresh) == shown
            assert files_under(self.memory_runner.baton_dir) == shown
        finally:
            replay.close()
            shutil.rmtree(fresh.parent, ignore_errors=True)


RealReplayMachine.TestCase.settings = settings(
    max_examples=max(5, settings.default.max_examples // 4),
    stateful_step_count=25,
    deadline=None,
)
test_incremental_projections_equal_a_full_replay_and_a_replay_over_memory = RealReplayMachine.TestCase


def _handoff_docs(baton: Path) -> list[dict]:
    runner = ProjectionRunner(baton, Ledger(baton, "inspector"), default_projections())
    try:
        return list(runner.snapshot()["handoffs"].values())
    finally:
        runner.close()


def test_the_replay_machine_reaches_a_kept_objective_a_skipped_hash_and_who_validated_and_resumed():
    """The machine's rules reach what its invariant must prove a replay folds as the commands did:
    a start and an end that kept an open session's objective (``kept_objective``), a validation that
    recorded why an artifact takes no hash (``artifact_hash_skipped``), and the handoffs index's
    ``validated_by`` and ``resumed_by`` (version 13) — here in one fixed run, checked after each step."""
    machine = RealReplayMachine()
    try:
        machine.begin_a_session_with_an_objective("alpha", OWNERS[0], BRANCHES[0], "ship it", False)
        machine.check()
        machine.a_second_session_begins_without_an_objective("beta", OWNERS[0], BRANCHES[0], True)
        machine.check()
        machine.capture_a_handoff("alpha", False, "growing", [], budgeted=True)
        machine.a_file_grows_past_the_secret_screen(True)
        machine.validate_and_maybe_promote_a_handoff(0, True)
        machine.check()
        machine.resume_a_handoff("gamma", 0)
        machine.check()
        machine.a_session_that_set_an_objective_ends(0)
        machine.the_index_is_rebuilt("beta")
        machine.check()
        events = Ledger(machine.baton, "inspector").read_all()
        kept = [e.type for e in events if e.type.startswith("session.") and (e.data or {}).get("kept_objective")]
        assert kept == ["session.begun", "session.ended"]
        assert [e for e in events if e.type == "handoff.validated" and (e.data or {}).get("artifact_hash_skipped")]
        docs = _handoff_docs(machine.baton)
        assert [d for d in docs if d.get("validated_by")] and [d for d in docs if d.get("resumed_by")]
    finally:
        machine.teardown()


CHECKOUTS = ("here", "north", "south")
LAGS_NS = (0, 1_000_000, 2_000_000_000, 30_000_000_000, 120_000_000_000)
STEPS = ("amend", "validate", "promote", "validate and promote", "archive", "continue", "forget", "resume")
"""What a checkout does to a handoff it holds (``LateArrivalMachine.handoff_step``): ``continue``
captures a child continuing it and makes that ready (which supersedes it); ``forget`` erases it
(``baton forget``) in that checkout's feeds."""


class LateArrivalMachine(RuleBasedStateMachine):
    """Random arrival orders across writers: three checkouts of one project,
    each the only writer of its own feed, their clocks drifting apart by
    varying lags, run the real commands on the same owners and branches (so
    on the same baton and objective streams), amend, validate and make ready
    the same handoffs (on the same handoff streams: edits made apart), and on
    streams of their own, and their feeds travel between them a few lines at a time, in any order
    (as ``baton sync``, a copy or a pull would bring them). Each checkout's
    index, folded incrementally whatever order its events arrived in — late
    events fold without a replay unless their stream already folded past
    them — equals a full replay of the same bytes, documents and files."""

    def __init__(self) -> None:
        super().__init__()
        self.root = Path(tempfile.mkdtemp(prefix="late-"))
        first = self.root / CHECKOUTS[0]
        first.mkdir()
        init_project(first)
        for name in CHECKOUTS[1:]:  # clones: the same history, each its own index
            (self.root / name / ".baton").mkdir(parents=True)
            shutil.copytree(first / ".baton" / "ledger", self.root / name / ".baton" / "ledger")
            shutil.copy(first / ".baton" / "config.json", self.root / name / ".baton" / "config.json")
        self.lags = dict(zip(CHECKOUTS, (0, LAGS_NS[2], LAGS_NS[3])))
        self.projects: dict[str, Project] = {}
        for name in CHECKOUTS:
            opened = Project.open(self.root / name)
            self.projects[name] = Project(opened.paths, opened.config, name,
                                          clock=lambda name=name: time.time_ns() - self.lags[name])
            opened.close()
        self.sessions = 0
        self.begun: list[tuple[str, str, str, str]] = []
        """The sessions begun with an objective, not ended yet (checkout, session, owner, branch)."""
        self.touched: set[str] = set()
        """The checkouts whose feeds or index a step changed: only they can
        have moved away from a replay since the last check."""

    def teardown(self) -> None:
        for opened in self.projects.values():
            opened.close()
        shutil.rmtree(self.root, ignore_errors=True)

    def session_id(self) -> str:
        self.sessions += 1
        return f"sess-{self.sessions}"

    def feeds(self, checkout: str) -> Path:
        return self.root / checkout / ".baton" / "ledger"

    @rule(checkout=st.sampled_from(CHECKOUTS), lag=st.sampled_from(LAGS_NS))
    def a_clock_drifts(self, checkout, lag):
        self.lags[checkout] = lag

    @rule(checkout=st.sampled_from(CHECKOUTS), owner=st.sampled_from(OWNERS), branch=st.sampled_from(BRANCHES),
          steps=st.lists(words(), min_size=1, max_size=2), shared=st.booleans())
    def a_session_ends_leaving_a_baton(self, checkout, owner, branch, steps, shared):
        self.touched.add(checkout)
        try:
            end_session(self.projects[checkout], self.session_id(),
                        {"nextSteps": steps, "failedApproaches": [], "openQuestions": [], "shared": shared},
                        owner=owner, branch=branch)
        except PolicyBlock:
            pass

    @rule(checkout=st.sampled_from(CHECKOUTS), owner=st.sampled_from(OWNERS), branch=st.sampled_from(BRANCHES))
    def a_session_starts_and_claims_a_baton(self, checkout, owner, branch):
        self.touched.add(checkout)
        # Checkouts that moved the same baton stream while apart may leave a
        # notice here (a claim refused at a stale version); a session still starts.
        out = bootstrap(self.projects[checkout], session_id=self.session_id(), owner=owner, branch=branch)
        # (a double claim's loser is also told, with a notice)
        assert out.exit_code == 0, out.notices

    @rule(checkout=st.sampled_from(CHECKOUTS), owner=st.sampled_from(OWNERS),
          branch=st.sampled_from(OBJECTIVE_BRANCHES), objective=words(60))
    def a_session_begins_with_an_objective(self, checkout, owner, branch, objective):
        self.touched.add(checkout)
        sid = self.session_id()
        try:
            begin_session(self.projects[checkout], session_id=sid, objective=objective, owner=owner,
                          branch=branch, claim=False)
        except PolicyBlock:
            return
        self.begun.append((checkout, sid, owner, branch))

    @precondition(lambda self: self.begun)
    @rule(pick=st.integers(0, 1_000))
    def a_session_that_set_an_objective_ends(self, pick):
        checkout, sid, owner, branch = self.begun.pop(pick % len(self.begun))
        self.touched.add(checkout)
        end_session(self.projects[checkout], sid, None, owner=owner, branch=branch)

    @rule(checkout=st.sampled_from(CHECKOUTS), owner=st.sampled_from(OWNERS),
          branch=st.sampled_from(OBJECTIVE_BRANCHES), end=st.booleans())
    def a_session_begins_without_an_objective(self, checkout, owner, branch, end):
        """Beside another checkout's or its own session that set an objective and is open (as far as
        this checkout has heard): its start, and its end with ``end``, keep that objective."""
        self.touched.add(checkout)
        sid = self.session_id()
        begin_session(self.projects[checkout], session_id=sid, owner=owner, branch=branch, claim=False)
        if end:
            end_session(self.projects[checkout], sid, None, owner=owner, branch=branch)

    @rule(checkout=st.sampled_from(CHECKOUTS), owner=st.sampled_from(OWNERS), branch=st.sampled_from(BRANCHES))
    def a_baton_is_cancelled(self, checkout, owner, branch):
        self.touched.add(checkout)
        try:
            cancel_baton(self.projects[checkout], owner=owner, branch=branch)
        except BatonError:
            pass

    @rule(checkout=st.sampled_from(CHECKOUTS), title=words())
    def a_handoff_is_captured(self, checkout, title):
        self.touched.add(checkout)
        body = payload(work={"title": title, "objective": f"finish {title}"},
                       summary={"current_state": "halfway", "completed": [], "in_progress": [title]})
        try:
            with self.projects[checkout].writing() as scope:
                capture_in_scope(scope, body)
        except PolicyBlock:
            pass

    def handoff_step(self, checkout: str, ident: str, step: str, state: str) -> None:
        """``step`` (an amend of the current state, a validation, a promotion, or both of these) on ``checkout``."""
        self.touched.add(checkout)
        project = self.projects[checkout]
        try:
            if step == "amend":
                amend_handoff(project, ident, content=ContentOptions(current_state=state))
            if step == "archive":
                archive_handoff(project, ident, reason="dropped")
            if step == "forget":
                forget_handoff(project, ident, yes=True)
            if step == "resume":  # a resume that reaches a record archived apart is listed, not applied
                resume_and_mark(project, ident)
            if step == "continue":
                body = payload(work={"title": state, "objective": f"go on with {state}"},
                               summary={"current_state": "on", "completed": [], "in_progress": [state]})
                with project.writing() as scope:
                    child = capture_in_scope(scope, body, parent=ident, relation="continue").handoff_id
                validate_handoff_command(project, child)
                promote_handoff(project, child, accept_warnings="replay test")
            if "validate" in step:
                validate_handoff_command(project, ident)
            if "promote" in step:
                promote_handoff(project, ident, accept_warnings="replay test")
        except BatonError:
            pass  # not a draft any more, failed validation, a flagged record, or text that looks like a secret

    def known(self, checkout: str) -> set[str]:
        return {key for key, _doc in self.projects[checkout].reading().docs("handoffs")}

    @rule(checkout=st.sampled_from(CHECKOUTS), pick=st.integers(0, 1_000), state=words(), step=st.sampled_from(STEPS))
    def a_handoff_is_amended_validated_or_made_ready(self, checkout, pick, state, step):
        """One checkout revises, validates or makes ready a handoff it holds."""
        known = sorted(self.known(checkout))
        if known:
            self.handoff_step(checkout, known[pick % len(known)], step, state)

    @rule(pair=st.sampled_from([(a, b) for a in CHECKOUTS for b in CHECKOUTS if a != b]), pick=st.integers(0, 1_000),
          state=words(), steps=st.tuples(st.sampled_from(STEPS), st.sampled_from(STEPS)))
    def two_checkouts_change_one_handoff_apart(self, pair, pick, state, steps):
        """Two checkouts that both hold a handoff revise, validate or make it ready before
        either hears of the other's change: edits made apart (docs/handoffs.md)."""
        shared = sorted(self.known(pair[0]) & self.known(pair[1]))
        if not shared:  # the first captures one and the second receives it
            self.a_handoff_is_captured(pair[0], state)
            self.deliver(pair[0], pair[1], 10**6)
            shared = sorted(self.known(pair[0]) & self.known(pair[1]))
        if shared:
            ident = shared[pick % len(shared)]
            for checkout, step in zip(pair, steps):
                self.handoff_step(checkout, ident, step, f"{checkout}: {state}")

    @rule(pair=st.sampled_from([(a, b) for a in CHECKOUTS for b in CHECKOUTS if a != b]), pick=st.integers(0, 1_000),
          state=words(), steps=st.tuples(st.lists(st.sampled_from(STEPS), min_size=1, max_size=3),
                                         st.lists(st.sampled_from(STEPS), min_size=1, max_size=3)),
          turns=st.lists(st.booleans(), max_size=6))
    def two_checkouts_change_one_handoff_apart_several_times(self, pair, pick, state, steps, turns):
        """Two checkouts that both hold a handoff each revise, validate or make it ready
        several times, in turns, before either hears of the other's changes (a chain of
        revisions made apart beside a validation and promotion, in either order)."""
        shared = sorted(self.known(pair[0]) & self.known(pair[1]))
        if not shared:
            self.a_handoff_is_captured(pair[0], state)
            self.deliver(pair[0], pair[1], 10**6)
            shared = sorted(self.known(pair[0]) & self.known(pair[1]))
        if shared:
            ident, left = shared[pick % len(shared)], [list(steps[0]), list(steps[1])]
            for n, second in enumerate([*turns, *[False] * len(left[0]), *[True] * len(left[1])]):
                if left[second]:
                    self.handoff_step(pair[second], ident, left[second].pop(0), f"{pair[second]} {n}: {state}")

    def deliver(self, source: str, into: str, lines: int) -> None:
        """The next ``lines`` lines of ``source``'s own feed reach ``into``, counted in lines
        (a forget on either side made some lines shorter: the same events, payloads erased)."""
        origin = self.feeds(source) / f"{source}.jsonl"
        if not origin.exists():
            return
        target = self.feeds(into) / f"{source}.jsonl"
        have = target.read_bytes().count(b"\n") if target.exists() else 0
        sent = origin.read_bytes().splitlines(keepends=True)[have:have + lines]
        with open(target, "ab") as fh:
            fh.write(b"".join(line for line in sent if line.endswith(b"\n")))

    @rule(route=st.sampled_from([(a, b) for a in CHECKOUTS for b in CHECKOUTS if a != b]), lines=st.integers(1, 8))
    def a_few_lines_of_a_feed_travel(self, route, lines):
        """... and the next command there catches up."""
        self.touched.add(route[1])
        self.deliver(*route, lines)
        self.projects[route[1]].reading()

    @rule(into=st.sampled_from(CHECKOUTS))
    def a_checkout_pulls_every_other_feed(self, into):
        self.touched.add(into)
        for source in CHECKOUTS:
            if source != into:
                self.deliver(source, into, 10**6)
        self.projects[into].reading()

    @rule(checkout=st.sampled_from(CHECKOUTS))
    def a_reader_catches_up(self, checkout):
        self.touched.add(checkout)
        self.projects[checkout].reading()

    @invariant()
    def every_index_equals_a_full_replay(self):
        touched, self.touched = self.touched, set()
        for checkout in sorted(touched):
            baton = self.root / checkout / ".baton"
            if not (baton / "index.sqlite").exists():
                continue
            inspector = ProjectionRunner(baton, Ledger(baton, "inspector"), default_projections())
            try:
                cursors = inspector.cursors()
                incremental, shown = inspector.snapshot(), files_under(baton)
                counts = status_counts(inspector)
                assert counts[0] == counts[1], f"{checkout}: the status counts differ from the rows"
            finally:
                inspector.close()
            fresh = self.root / "fresh" / ".baton"
            (fresh / "ledger").mkdir(parents=True)
            try:
                for feed, cursor in cursors.items():
                    with open(baton / "ledger" / f"{feed}.jsonl", "rb") as fh:
                        (fresh / "ledger" / f"{feed}.jsonl").write_bytes(fh.read(cursor.head.offset))
                replay = ProjectionRunner(fresh, Ledger(fresh, "reader"), default_projections())
                try:
                    replay.rebuild()
                    assert replay.snapshot() == incremental, f"{checkout}: incremental state differs from a full replay"
                    assert status_counts(replay) == counts, f"{checkout}: the status counts differ from a replay's"
                    assert files_under(fresh) == shown, f"{checkout}: materialized files differ"
                finally:
                    replay.close()
            finally:
                shutil.rmtree(fresh.parent, ignore_errors=True)


LateArrivalMachine.TestCase.settings = settings(
    max_examples=max(5, settings.default.max_examples // 4),
    stateful_step_count=40,
    deadline=None,
)
test_events_folded_in_any_arrival_order_across_writers_equal_a_full_replay = LateArrivalMachine.TestCase
