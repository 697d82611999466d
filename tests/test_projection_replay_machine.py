"""Replay equivalence as a state machine.

Random appends by several writers to shared streams (with expected versions,
some deliberately stale), incremental catch-ups, full rebuilds, torn tails
left in feeds, and a remote writer whose feed arrives late with older clocks.
After every step: the incrementally built projections equal a full replay of
the same events into a fresh index (documents and materialized files), and
every acknowledged event is still in the ledger.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import orjson
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from baton.errors import StreamVersionConflict
from baton.ledger import EventDraft, Ledger
from baton.projections.runner import ProjectionRunner
from tests.projection_support import START_NS, projections

WRITERS = ("alpha", "beta", "gamma")
STREAMS = ("s/a", "s/b", "s/c")


def files_under(folder: Path) -> dict[str, bytes]:
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


class ReplayMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.root = Path(tempfile.mkdtemp(prefix="replay-"))
        self.baton = self.root / "proj" / ".baton"
        (self.baton / "ledger").mkdir(parents=True)
        self.now = START_NS
        self.writers = {w: Ledger(self.baton, w, fsync="never", clock=self.clock) for w in WRITERS}
        self.runner = ProjectionRunner(self.baton, Ledger(self.baton, "reader"), projections())
        self.remote_dir = self.root / "remote" / ".baton"
        self.remote = Ledger(self.remote_dir, "remote", fsync="never", clock=lambda: self.clock() - 5_000_000)
        self.remote_synced = 0
        self.versions: dict[str, int] = {}
        self.acknowledged: set[str] = set()
        self.remote_pending: set[str] = set()
        self.torn: dict[str, bytes] = {}

    def clock(self) -> int:
        return self.now

    def teardown(self) -> None:
        self.runner.close()
        shutil.rmtree(self.root, ignore_errors=True)

    # -- writing -------------------------------------------------------------
    @rule(writer=st.sampled_from(WRITERS), stream=st.sampled_from(STREAMS), n=st.integers(1, 3),
          tick=st.integers(0, 2_000), expect=st.booleans(), drop=st.integers(0, 9))
    def append(self, writer, stream, n, tick, expect, drop):
        self.now += tick
        kind = "test.dropped" if drop == 0 else "test.noted"
        drafts = [EventDraft(kind, stream, {"by": writer, "i": i}) for i in range(n)]
        expected = {stream: self.versions.get(stream, 0)} if expect else None
        with self.writers[writer].locked() as txn:
            events = txn.append(drafts, expected=expected)
        assert [e.stream_version for e in events] == list(
            range(self.versions.get(stream, 0) + 1, self.versions.get(stream, 0) + n + 1))
        self.versions[stream] = self.versions.get(stream, 0) + n
        self.acknowledged |= {e.id for e in events}
        if writer in self.torn:
            cut = self.torn.pop(writer)
            kept = [p.read_bytes() for p in (self.baton / "quarantine").glob(f"{writer}.*.torn")]
            assert cut in kept, "the torn tail was not quarantined"

    @rule(writer=st.sampled_from(WRITERS), stream=st.sampled_from(STREAMS), off=st.sampled_from([-2, -1, 1, 3]))
    def append_with_a_stale_expected_version(self, writer, stream, off):
        stale = self.versions.get(stream, 0) + off
        if stale < 0:
            stale = self.versions.get(stream, 0) + 1
        before = self.runner.ledger.read_all()
        with pytest.raises(StreamVersionConflict):
            with self.writers[writer].locked() as txn:
                txn.append([EventDraft("test.noted", stream, {"stale": True})], expected={stream: stale})
        assert self.runner.ledger.read_all() == before

    @precondition(lambda self: len(self.torn) < len(WRITERS))
    @rule(writer=st.sampled_from(WRITERS), kind=st.sampled_from(["partial", "garbage", "bad_hash"]))
    def leave_a_torn_tail(self, writer, kind):
        if writer in self.torn:
            return  # a writer that died is repaired by the next one before it can die again
        feed = self.baton / "ledger" / f"{writer}.jsonl"
        feed.parent.mkdir(parents=True, exist_ok=True)
        sound = feed.read_bytes() if feed.exists() else b""
        if kind == "partial":
            tail = b'{"v":1,"id":"0190a8e0-0000-7000-8000-0000000'
        elif kind == "garbage":
            tail = b"\x00" * 17 + b"\n"
        else:
            if not sound:
                return
            raw = orjson.loads(sound.splitlines()[-1])
            raw.update(seq=raw["seq"] + 1, prev=raw["hash"], hash="sha256:" + "0" * 64)
            tail = orjson.dumps(raw) + b"\n"
        with open(feed, "ab") as fh:
            fh.write(tail)
        self.torn[writer] = tail

    @rule(n=st.integers(1, 3), tick=st.integers(0, 2_000))
    def remote_writer_appends(self, n, tick):
        self.now += tick
        with self.remote.locked() as txn:
            events = txn.append([EventDraft("test.noted", "r/remote", {"i": i}) for i in range(n)])
        self.remote_pending |= {e.id for e in events}

    @precondition(lambda self: self.remote_pending)
    @rule()
    def remote_feed_arrives(self):
        """As ``baton sync`` would: the remote feed's new lines are appended here."""
        raw = (self.remote_dir / "ledger" / "remote.jsonl").read_bytes()
        with open(self.baton / "ledger" / "remote.jsonl", "ab") as fh:
            fh.write(raw[self.remote_synced:])
        self.remote_synced = len(raw)
        self.acknowledged |= self.remote_pending
        self.remote_pending = set()

    # -- projections ---------------------------------------------------------
    @rule()
    def catch_up(self):
        self.runner.catch_up()
        cursors = dict(self.runner.db.execute("SELECT feed, offset FROM cursors").fetchall())
        for path in self.runner.ledger.feed_paths():
            scan = self.runner.ledger.read_feed(path.stem)
            if scan.events:
                assert cursors[path.stem] == scan.head.offset, "a sound event was left unfolded"

    @rule()
    def rebuild(self):
        self.runner.rebuild()

    # -- invariants ----------------------------------------------------------
    @invariant()
    def every_acknowledged_event_is_still_in_the_ledger(self):
        ids = {e.id for e in self.runner.ledger.read_all()}
        assert self.acknowledged <= ids

    @invariant()
    def incremental_state_equals_a_full_replay_of_the_same_events(self):
        """Replay exactly the bytes the runner has folded (its cursors) into a fresh index."""
        fresh = self.root / f"fresh-{self.now}-{len(self.acknowledged)}" / ".baton"
        (fresh / "ledger").mkdir(parents=True)
        cursors = self.runner.db.execute("SELECT feed, offset FROM cursors").fetchall()
        for feed, offset in cursors:
            with open(self.baton / "ledger" / f"{feed}.jsonl", "rb") as fh:
                (fresh / "ledger" / f"{feed}.jsonl").write_bytes(fh.read(offset))
        replay = ProjectionRunner(fresh, Ledger(fresh, "reader"), projections())
        try:
            replay.rebuild()
            assert self.runner.snapshot() == replay.snapshot()
            assert files_under(self.baton / "logs") == files_under(fresh / "logs")
        finally:
            replay.close()
            shutil.rmtree(fresh.parent, ignore_errors=True)


ReplayMachine.TestCase.settings = settings(
    max_examples=max(5, settings.default.max_examples // 4),
    stateful_step_count=30,
    deadline=None,
)
test_incremental_projections_equal_a_full_replay = ReplayMachine.TestCase
