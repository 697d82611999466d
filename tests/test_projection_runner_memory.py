"""The projection runner over the in-memory ledger: the same catch-up, the same
rebuild triggers, and the same state as over JSONL feeds holding the same bytes."""

from __future__ import annotations

import itertools

from baton.ledger import EventDraft, Ledger
from baton.ledger.memory import MemoryLedger
from baton.projections.runner import CatchUp, ProjectionRunner
from tests.projection_support import START_NS, projections


def ticking(start: int = START_NS):
    ticks = itertools.count(start, 1_000)
    return lambda: next(ticks)


def append(ledger, stream="s/1", n=1, type_="test.noted", **data):
    with ledger.locked() as txn:
        return txn.append([EventDraft(type_, stream, {**data, "i": i}) for i in range(n)])


def over_memory(tmp_path, name="index"):
    store = MemoryLedger("reader")
    return store, ProjectionRunner(tmp_path / name / ".baton", store, projections())


def test_catch_up_over_memory_folds_only_what_is_new(tmp_path):
    store, runner = over_memory(tmp_path)
    one, two = store.for_writer("one", clock=ticking()), store.for_writer("two", clock=ticking(START_NS + 1))
    append(one, n=2)
    append(two, n=1)
    assert runner.catch_up().rebuilt

    append(two, stream="s/2", n=3)
    reads = []
    real_read = store.read_feed_chunks
    store.read_feed_chunks = (lambda feed, start, size=None:
                              reads.append((feed, start.offset)) or real_read(feed, start, size))
    done = runner.catch_up()

    assert (done.events, done.rebuilt) == (3, False)
    assert [feed for feed, _ in reads] == ["two"] and reads[0][1] > 0
    assert runner.get("streams", "s/2")["version"] == 3


def test_incremental_over_memory_equals_a_full_replay_over_memory_and_over_jsonl(tmp_path):
    store, runner = over_memory(tmp_path)
    writers = [store.for_writer(name, clock=ticking(START_NS + k)) for k, name in enumerate(("a", "b", "c"))]
    for step in range(9):
        append(writers[step % 3], stream=f"s/{step % 4}", n=step % 3 + 1, text="é\n")
        if step % 2:
            runner.catch_up()
    append(writers[0], stream="s/1", type_="test.dropped")
    runner.catch_up()

    _, replay = over_memory(tmp_path, "replay")
    replay.ledger = store.for_writer("replayer")
    replay.rebuild()
    disk = tmp_path / "disk" / ".baton"
    (disk / "ledger").mkdir(parents=True)
    for name in store.feed_names():
        (disk / "ledger" / f"{name}.jsonl").write_bytes(store.feed_bytes(name))
    on_disk = ProjectionRunner(disk, Ledger(disk, "reader"), projections())
    on_disk.rebuild()

    assert runner.snapshot() == replay.snapshot() == on_disk.snapshot()
    logs = sorted((tmp_path / "index" / ".baton" / "logs").iterdir())
    assert [p.read_bytes() for p in logs] == [(disk / "logs" / p.name).read_bytes() for p in logs]


def test_an_append_is_folded_from_what_it_returned(tmp_path):
    store, runner = over_memory(tmp_path)
    runner.ledger = writer = store.for_writer("w", clock=ticking())
    append(writer, n=2)
    runner.catch_up()
    store.read_feed = store.read_feed_chunks = lambda *a: (_ for _ in ()).throw(AssertionError("read back"))
    with writer.locked():
        events = append(writer, stream="s/9", n=2)
        done = runner.fold_appended(events)
    assert done == CatchUp(2, False)
    assert runner.get("streams", "s/9")["version"] == 2
    assert runner.cursors()["w"] == writer.cursors()["w"]


def test_a_feed_cut_shorter_over_memory_triggers_a_rebuild(tmp_path):
    store, runner = over_memory(tmp_path)
    a = store.for_writer("a", clock=ticking())
    for _ in range(3):  # three appends: a cut between lines of one batch would be a torn tail
        append(a)
    runner.catch_up()
    lines = store.feed_bytes("a").splitlines(keepends=True)
    store.replace("a", lines[0] + lines[1])

    done = runner.catch_up()

    assert done.rebuilt and "changed other than by appending" in done.reason
    assert runner.get("streams", "s/1")["version"] == 2


def test_a_feed_rewritten_with_another_history_over_memory_triggers_a_rebuild(tmp_path):
    store, runner = over_memory(tmp_path)
    append(store.for_writer("a", clock=ticking()), n=3, take=1)
    runner.catch_up()
    other = MemoryLedger("a", clock=ticking())
    append(other, n=3, take=2)
    store.replace("a", other.feed_bytes("a"))

    done = runner.catch_up()

    assert done.rebuilt
    assert [e["data"]["take"] for e in runner.get("stream_log", "s/1")["entries"]] == [2, 2, 2]


def test_a_late_feed_that_sorts_before_over_memory_triggers_a_rebuild(tmp_path):
    store, runner = over_memory(tmp_path)
    append(store.for_writer("local", clock=ticking()), n=2, who="local")
    runner.catch_up()
    remote = MemoryLedger("remote", clock=ticking(START_NS - 10**9))
    append(remote, n=2, who="remote")
    store.receive("remote", remote.feed_bytes("remote"))

    done = runner.catch_up()

    assert done.rebuilt and "sort before" in done.reason
    assert [e["data"]["who"] for e in runner.get("stream_log", "s/1")["entries"]] == ["remote"] * 2 + ["local"] * 2
