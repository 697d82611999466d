"""The projection runner: incremental catch-up, when it rebuilds, replay to a
point in time, materialized files and upcasting."""

from __future__ import annotations

import itertools
import json
import os
import shutil
from pathlib import Path

import orjson
import pytest

from baton.errors import Conflict
from baton.ledger import EventDraft, Ledger
from baton.ledger.upcast import UpcasterRegistry
from baton.projections.runner import CatchUp, ProjectionRunner
from baton.projections.until import Until
from tests.conftest import run_baton
from tests.projection_support import START_NS, projections


class Clock:
    def __init__(self, start: int = START_NS) -> None:
        self.ticks = itertools.count(start, 1_000)

    def __call__(self) -> int:
        return next(self.ticks)


@pytest.fixture
def baton_dir(tmp_path) -> Path:
    return tmp_path / "proj" / ".baton"


@pytest.fixture
def clock():
    return Clock()


def writer(baton_dir, name, clock):
    return Ledger(baton_dir, name, fsync="never", clock=clock)


def append(ledger, stream="s/1", n=1, type_="test.noted", **data):
    with ledger.locked() as txn:
        return txn.append([EventDraft(type_, stream, {**data, "i": i}) for i in range(n)])


def runner_for(baton_dir, **kwargs):
    return ProjectionRunner(baton_dir, Ledger(baton_dir, "reader"), projections(), **kwargs)


def fresh_replay(baton_dir, tmp_path_factory):
    """A full replay of the same feeds into a brand-new index elsewhere."""
    other = tmp_path_factory.mktemp("fresh") / ".baton"
    shutil.copytree(baton_dir / "ledger", other / "ledger")
    runner = ProjectionRunner(other, Ledger(other, "reader"), projections())
    runner.rebuild()
    return runner


def cursors(runner):
    return {feed: offset for feed, offset in runner.db.execute("SELECT feed, offset FROM cursors").fetchall()}


# -- catching up -------------------------------------------------------------

def test_catch_up_reads_only_the_new_bytes_of_the_feeds_that_grew(baton_dir, clock):
    feeds = {name: writer(baton_dir, name, clock) for name in ("a", "b", "c")}
    for ledger in feeds.values():
        append(ledger, n=2)
    runner = runner_for(baton_dir)
    assert runner.catch_up().rebuilt
    before = cursors(runner)

    append(feeds["b"], n=3)
    reads = []
    real_read = runner.ledger.read_feed_chunks
    runner.ledger.read_feed_chunks = (lambda feed, start, size=None:
                                      reads.append((feed, start.offset)) or real_read(feed, start, size))
    done = runner.catch_up()

    assert (done.events, done.rebuilt) == (3, False)
    assert reads == [("b", before["b"])]
    after = cursors(runner)
    assert after["a"] == before["a"] and after["c"] == before["c"]
    assert after["b"] == os.path.getsize(baton_dir / "ledger" / "b.jsonl")


def test_catch_up_with_nothing_new_reads_no_feed(baton_dir, clock):
    append(writer(baton_dir, "a", clock), n=2)
    runner = runner_for(baton_dir)
    runner.catch_up()
    runner.ledger.read_feed = runner.ledger.read_feed_chunks = lambda *a: pytest.fail("an unchanged feed was read")
    assert runner.catch_up().events == 0


def test_incremental_catch_up_equals_a_full_replay(baton_dir, clock, tmp_path_factory):
    one, two = writer(baton_dir, "one", clock), writer(baton_dir, "two", clock)
    runner = runner_for(baton_dir)
    for step in range(6):
        append(one if step % 2 else two, stream=f"s/{step % 3}", n=step % 3 + 1)
        if step % 2:
            runner.catch_up()
    append(one, stream="s/0", type_="test.dropped")
    runner.catch_up()
    assert runner.snapshot() == fresh_replay(baton_dir, tmp_path_factory).snapshot()


# -- when the runner rebuilds ------------------------------------------------

def test_a_feed_replaced_by_a_rewritten_file_triggers_a_full_rebuild(baton_dir, clock):
    ledger = writer(baton_dir, "a", clock)
    append(ledger, n=3, secret="hunter2")
    runner = runner_for(baton_dir)
    runner.catch_up()
    feed = ledger.feed_path("a")
    lines = feed.read_bytes().splitlines(keepends=True)
    erased = orjson.loads(lines[1])
    del erased["data"]  # an audited erase: the folded (last) line stays the same
    tmp = feed.with_suffix(".tmp")
    tmp.write_bytes(lines[0] + orjson.dumps(erased) + b"\n" + lines[2])
    os.replace(tmp, feed)

    done = runner.catch_up()

    assert done.rebuilt and "changed other than by appending" in done.reason
    entries = runner.get("stream_log", "s/1")["entries"]
    assert [e["data"] for e in entries] == [{"secret": "hunter2", "i": 0}, None, {"secret": "hunter2", "i": 2}]


def test_a_feed_cut_shorter_triggers_a_full_rebuild(baton_dir, clock):
    ledger = writer(baton_dir, "a", clock)
    for _ in range(3):  # three appends: a cut between lines of one batch would be a torn tail
        append(ledger)
    runner = runner_for(baton_dir)
    runner.catch_up()
    feed = ledger.feed_path("a")
    lines = feed.read_bytes().splitlines(keepends=True)
    with open(feed, "r+b") as fh:
        fh.truncate(len(lines[0]) + len(lines[1]))

    done = runner.catch_up()

    assert done.rebuilt
    assert runner.get("streams", "s/1")["version"] == 2


def test_a_feed_rewritten_in_place_with_another_history_triggers_a_full_rebuild(baton_dir, clock, tmp_path):
    append(writer(baton_dir, "a", clock), n=3, take=1)
    runner = runner_for(baton_dir)
    runner.catch_up()
    other = tmp_path / "other" / ".baton"
    append(writer(other, "a", clock), n=3, take=2)
    with open(baton_dir / "ledger" / "a.jsonl", "r+b") as fh:  # same inode, same size
        fh.write((other / "ledger" / "a.jsonl").read_bytes())

    done = runner.catch_up()

    assert done.rebuilt
    assert [e["data"]["take"] for e in runner.get("stream_log", "s/1")["entries"]] == [2, 2, 2]


def test_events_that_sort_before_folded_ones_trigger_a_rebuild(baton_dir, clock, tmp_path, tmp_path_factory):
    local = writer(baton_dir, "local", clock)
    append(local, n=2, who="local")
    runner = runner_for(baton_dir)
    runner.catch_up()
    remote_dir = tmp_path / "remote" / ".baton"
    append(writer(remote_dir, "remote", Clock(START_NS - 10**9)), n=2, who="remote")
    shutil.copy(remote_dir / "ledger" / "remote.jsonl", baton_dir / "ledger" / "remote.jsonl")

    done = runner.catch_up()

    assert done.rebuilt and "sort before" in done.reason
    who = [e["data"]["who"] for e in runner.get("stream_log", "s/1")["entries"]]
    assert who == ["remote", "remote", "local", "local"]
    assert runner.snapshot() == fresh_replay(baton_dir, tmp_path_factory).snapshot()


def _late_remote(baton_dir, tmp_path, stream, n, name="remote", lag=10**9):
    remote_dir = tmp_path / name / ".baton"
    append(writer(remote_dir, name, Clock(START_NS - lag)), stream=stream, n=n, who=name)
    (baton_dir / "ledger").mkdir(parents=True, exist_ok=True)
    shutil.copy(remote_dir / "ledger" / f"{name}.jsonl", baton_dir / "ledger" / f"{name}.jsonl")


def test_late_events_on_streams_with_nothing_folded_after_them_fold_without_a_rebuild(baton_dir, clock, tmp_path,
                                                                                    tmp_path_factory):
    append(writer(baton_dir, "local", clock), n=2, who="local")
    runner = runner_for(baton_dir)
    runner.catch_up()
    _late_remote(baton_dir, tmp_path, "s/remote", 3)

    done = runner.catch_up()

    assert done == CatchUp(3, False)
    assert [e["data"]["who"] for e in runner.get("stream_log", "s/remote")["entries"]] == ["remote"] * 3
    assert runner.get("event_counts", "test.noted")["count"] == 5
    assert runner.snapshot() == fresh_replay(baton_dir, tmp_path_factory).snapshot()
    assert (baton_dir / "logs" / "s__remote.json").is_file()
    append(writer(baton_dir, "local", clock), n=1, who="local")  # and folding goes on past them
    assert runner.catch_up() == CatchUp(1, False)
    assert runner.snapshot() == fresh_replay(baton_dir, tmp_path_factory).snapshot()


def test_a_late_event_after_the_last_one_folded_from_its_stream_folds_without_a_rebuild(baton_dir, clock, tmp_path,
                                                                                      tmp_path_factory):
    _late_remote(baton_dir, tmp_path, "s/shared", 1, name="early", lag=5 * 10**9)
    append(writer(baton_dir, "local", clock), stream="s/other", n=2, who="local")
    runner = runner_for(baton_dir)
    runner.catch_up()
    _late_remote(baton_dir, tmp_path, "s/shared", 1, name="remote", lag=10**9)  # after "early", before "local"

    assert runner.catch_up() == CatchUp(1, False)
    assert runner.snapshot() == fresh_replay(baton_dir, tmp_path_factory).snapshot()


def test_a_late_event_over_a_projection_that_does_not_say_how_it_folds_them_triggers_a_rebuild(
        baton_dir, clock, tmp_path, tmp_path_factory):
    from tests.projection_support import StreamLog

    class Unsaid(StreamLog):
        name = "unsaid"
        order = None

    append(writer(baton_dir, "local", clock), n=2, who="local")
    runner = ProjectionRunner(baton_dir, Ledger(baton_dir, "reader"), [*projections(), Unsaid()])
    runner.catch_up()
    _late_remote(baton_dir, tmp_path, "s/remote", 1)

    done = runner.catch_up()

    assert done.rebuilt and "sort before" in done.reason


def test_more_late_events_than_a_batch_are_checked_first_then_folded_without_a_rebuild(
        baton_dir, clock, tmp_path, tmp_path_factory, monkeypatch):
    import baton.projections.runner as runner_module

    monkeypatch.setattr(runner_module, "REPLAY_BATCH", 3)
    append(writer(baton_dir, "local", clock), n=2, who="local")
    runner = runner_for(baton_dir)
    runner.catch_up()
    _late_remote(baton_dir, tmp_path, "s/remote", 8)

    assert runner.catch_up() == CatchUp(8, False)
    assert runner.snapshot() == fresh_replay(baton_dir, tmp_path_factory).snapshot()


def test_more_late_events_than_a_batch_one_before_a_folded_event_of_its_stream_trigger_a_rebuild(
        baton_dir, clock, tmp_path, tmp_path_factory, monkeypatch):
    import baton.projections.runner as runner_module

    monkeypatch.setattr(runner_module, "REPLAY_BATCH", 3)
    append(writer(baton_dir, "local", clock), n=2, who="local")
    runner = runner_for(baton_dir)
    runner.catch_up()
    _late_remote(baton_dir, tmp_path, "s/1", 8)

    done = runner.catch_up()

    assert done.rebuilt and "sort before" in done.reason
    assert runner.snapshot() == fresh_replay(baton_dir, tmp_path_factory).snapshot()


def test_events_that_sort_after_folded_ones_from_a_new_feed_are_folded_without_a_rebuild(baton_dir, clock, tmp_path):
    append(writer(baton_dir, "local", clock), n=2)
    runner = runner_for(baton_dir)
    runner.catch_up()
    remote_dir = tmp_path / "remote" / ".baton"
    append(writer(remote_dir, "remote", Clock(START_NS + 10**9)), n=2)
    shutil.copy(remote_dir / "ledger" / "remote.jsonl", baton_dir / "ledger" / "remote.jsonl")

    assert runner.catch_up() == CatchUp(2, False, None)


def test_a_changed_projection_version_triggers_a_rebuild(baton_dir, clock):
    append(writer(baton_dir, "a", clock), n=2)
    runner_for(baton_dir).catch_up()
    changed = projections()
    changed[2].version = 2
    runner = ProjectionRunner(baton_dir, Ledger(baton_dir, "reader"), changed)
    done = runner.catch_up()
    assert done.rebuilt and "projections changed" in done.reason


# -- replay to a point -------------------------------------------------------

def test_rebuild_until_an_event_id_shows_the_state_as_of_that_event(baton_dir, clock):
    events = append(writer(baton_dir, "a", clock), n=5)
    runner = runner_for(baton_dir)
    runner.catch_up()

    done = runner.rebuild(until=Until.parse(events[2].id))

    assert done.events == 3
    assert runner.get("streams", "s/1")["version"] == 3
    assert runner.pinned_until == events[2].id
    assert json.loads((baton_dir / "logs" / "s__1.json").read_bytes())["entries"][-1]["id"] == events[2].id


def test_rebuild_until_a_time_includes_the_events_at_or_before_it(baton_dir, clock):
    events = append(writer(baton_dir, "a", clock), n=5)
    runner = runner_for(baton_dir)

    done = runner.rebuild(until=Until.parse(events[3].at))

    assert done.events == 4
    assert runner.get("streams", "s/1")["last_event"] == events[3].id


def test_a_pinned_index_refuses_writes_until_a_plain_rebuild(baton_dir, clock):
    events = append(writer(baton_dir, "a", clock), n=3)
    runner = runner_for(baton_dir)
    runner.rebuild(until=Until.parse(events[0].id))
    with pytest.raises(Conflict) as caught:
        runner.catch_up()
    assert caught.value.exit_code == 4
    assert runner.catch_up(allow_pinned=True).events == 0
    assert runner.get("streams", "s/1")["version"] == 1

    runner.rebuild()

    assert runner.pinned_until is None
    assert runner.catch_up().events == 0
    assert runner.get("streams", "s/1")["version"] == 3


def test_cli_rebuild_until_pins_the_index_and_writing_commands_exit_4(project):
    from baton.commands.context import Project

    opened = Project.open(project)
    with opened.writing() as scope:
        events = scope.append([EventDraft("test.noted", "test/1", {"n": n}) for n in range(3)])
    opened.close()

    r = run_baton("rebuild", "--json", "--until", events[0].id, "--project", str(project))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["until"] == events[0].id
    pinned = Project.open(project)
    assert pinned.reading().get("streams", "test/1")["version"] == 1
    pinned.close()

    refused = run_baton("init", "--json", "--project", str(project))
    assert refused.returncode == 4
    assert "baton rebuild" in json.loads(refused.stdout)["error"]["message"]

    assert run_baton("rebuild", "--project", str(project)).returncode == 0
    assert run_baton("init", "--project", str(project)).returncode == 0
    present = Project.open(project)
    assert present.reading().get("streams", "test/1")["version"] == 3
    present.close()


# -- materialized files ------------------------------------------------------

def materialized(baton_dir) -> dict[str, bytes]:
    logs = baton_dir / "logs"
    return {p.name: p.read_bytes() for p in sorted(logs.iterdir())} if logs.exists() else {}


def test_materialized_files_come_back_byte_identical_after_deleting_them_and_the_index(baton_dir, clock):
    one, two = writer(baton_dir, "one", clock), writer(baton_dir, "two", clock)
    runner = runner_for(baton_dir)
    for step in range(5):
        append(one if step % 2 else two, stream=f"s/{step % 3}", n=2, text="é\n\x1f")
        runner.catch_up()
    before = materialized(baton_dir)
    assert len(before) == 3
    runner.close()
    shutil.rmtree(baton_dir / "logs")
    for leftover in baton_dir.glob("index.sqlite*"):
        leftover.unlink()

    runner_for(baton_dir).rebuild()

    assert materialized(baton_dir) == before


def test_a_deleted_document_removes_its_materialized_file(baton_dir, clock):
    ledger = writer(baton_dir, "a", clock)
    append(ledger, stream="s/1")
    append(ledger, stream="s/2")
    runner = runner_for(baton_dir)
    runner.catch_up()
    assert set(materialized(baton_dir)) == {"s__1.json", "s__2.json"}

    append(ledger, stream="s/1", type_="test.dropped")
    runner.catch_up()

    assert set(materialized(baton_dir)) == {"s__2.json"}


def test_rebuild_until_removes_files_of_documents_that_did_not_exist_yet(baton_dir, clock):
    ledger = writer(baton_dir, "a", clock)
    [first] = append(ledger, stream="s/1")
    append(ledger, stream="s/2")
    runner = runner_for(baton_dir)
    runner.catch_up()

    runner.rebuild(until=Until.parse(first.id))
    assert set(materialized(baton_dir)) == {"s__1.json"}
    runner.rebuild()
    assert set(materialized(baton_dir)) == {"s__1.json", "s__2.json"}


# -- upcasting ---------------------------------------------------------------

def test_an_old_schema_event_is_upcast_on_read_and_its_bytes_never_change(baton_dir, clock):
    upcasters = UpcasterRegistry()

    @upcasters.register("test.noted", 1)
    def split_name(data):
        first, _, last = data.pop("name").partition(" ")
        return {**data, "first": first, "last": last}

    @upcasters.register("test.noted", 2)
    def add_tags(data):
        return {**data, "tags": []}

    ledger = writer(baton_dir, "a", clock)
    with ledger.locked() as txn:
        txn.append([EventDraft("test.noted", "s/1", {"name": "Ada Lovelace"}, schema=1),
                    EventDraft("test.noted", "s/1", {"first": "Alan", "last": "Turing", "tags": ["x"]}, schema=3)])
    stored = ledger.feed_path("a").read_bytes()
    runner = runner_for(baton_dir, upcasters=upcasters)

    runner.catch_up()

    entries = runner.get("stream_log", "s/1")["entries"]
    assert [e["data"] for e in entries] == [{"first": "Ada", "last": "Lovelace", "tags": []},
                                            {"first": "Alan", "last": "Turing", "tags": ["x"]}]
    assert [e["schema"] for e in entries] == [3, 3]
    assert ledger.feed_path("a").read_bytes() == stored
    assert Ledger(baton_dir, "reader").read_all()[0].data == {"name": "Ada Lovelace"}


# -- materialized files stay inside .baton/ ------------------------------------

@pytest.mark.parametrize("rel", ["../escape.json", "logs/../../escape.json", "/tmp/escape.json", "logs/.."])
def test_a_materialized_name_that_leaves_baton_dir_is_refused(baton_dir, rel):
    from baton.errors import StorageError

    baton_dir.mkdir(parents=True)
    with pytest.raises(StorageError, match="outside .baton/"):
        runner_for(baton_dir)._inside(rel)


def test_a_materialized_folder_that_links_out_of_baton_dir_is_refused(baton_dir, tmp_path):
    from baton.errors import StorageError

    baton_dir.mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (baton_dir / "logs").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(StorageError, match="outside .baton/"):
        runner_for(baton_dir)._inside("logs/s__1.json")


def test_a_materialized_file_that_is_a_link_is_refused(baton_dir, tmp_path):
    from baton.errors import StorageError

    (baton_dir / "logs").mkdir(parents=True)
    (baton_dir / "logs" / "s__1.json").symlink_to(tmp_path / "target.json")
    with pytest.raises(StorageError, match="symbolic link"):
        runner_for(baton_dir)._inside("logs/s__1.json")


def test_a_replay_leaves_a_materialized_file_that_is_a_link_and_its_target_alone(baton_dir, tmp_path, clock):
    """The replay's read of a file it would write opens it without following
    a link (``O_NOFOLLOW``): a link where a file should be is recorded as
    unwritten, and the file it points to is neither read into the
    comparison nor written."""
    append(writer(baton_dir, "w1", clock), stream="s/1")
    (baton_dir / "logs").mkdir(parents=True)
    outside = tmp_path / "target.json"
    outside.write_bytes(b"not mine")
    (baton_dir / "logs" / "s__1.json").symlink_to(outside)
    runner = runner_for(baton_dir)
    runner.rebuild()
    assert outside.read_bytes() == b"not mine"
    assert (baton_dir / "logs" / "s__1.json").is_symlink()
    [entry] = runner.unwritten()
    assert entry["path"] == "logs/s__1.json" and "symbolic link" in entry["error"]


def test_a_replay_rewrites_a_materialized_file_that_holds_more_or_less_than_its_document(baton_dir, clock):
    """A file is left alone only when it holds exactly the document's bytes:
    the same bytes with more after them, or a prefix of them, are written again."""
    append(writer(baton_dir, "w1", clock), stream="s/1")
    runner = runner_for(baton_dir)
    runner.rebuild()
    path = baton_dir / "logs" / "s__1.json"
    good = path.read_bytes()
    for damaged in (good + b"more", good[:-3], b""):
        path.write_bytes(damaged)
        runner.rebuild()
        assert path.read_bytes() == good


def test_a_materialized_name_inside_baton_dir_is_its_path_there(baton_dir):
    baton_dir.mkdir(parents=True)
    assert runner_for(baton_dir)._inside("logs/s__1.json") == str(baton_dir.resolve() / "logs" / "s__1.json")


def _counted(hlc: int, type_: str = "test.noted", stream: str = "s/1"):
    from baton.ledger.envelope import Event

    return Event(v=1, id=f"{hlc:036d}", writer="w1", seq=hlc, at=f"2026-12-05T00:00:{hlc % 60:02d}.000000Z",
                 hlc=hlc, type=type_, stream=stream, stream_version=hlc, actor=None, session=None, data={},
                 digest="", prev=None, hash="")


def test_a_run_of_counted_events_folds_as_counting_them_one_by_one_in_any_order():
    """``EventCounts.apply_all`` and ``Streams.apply_all``: a batch's events of
    one key in one pass give the document ``apply`` gives one event at a time
    (late ones included: counts keep the first and last by merge key)."""
    from baton.projections.event_counts import EventCounts, Streams

    for order in ([5, 1, 9, 3, 7], [1, 2, 3], [9], [4, 4, 2, 8, 1, 8]):
        run = [_counted(hlc) for hlc in order]
        for projection in (EventCounts(), Streams()):
            for start in (None, projection.apply("k", None, _counted(6))):
                doc = start
                for event in run:
                    doc = projection.apply("k", doc, event)
                assert projection.apply_all("k", start, run) == doc
                assert projection.apply_all("k", start, []) == start
