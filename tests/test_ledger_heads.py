"""Truncation is seen: a feed shorter than a head the project recorded, a
feed that disappeared, or one rewritten under a recorded head fails ``verify``
(exit 3) — whether the index recorded the head or another feed vouched for it
in a ``ledger.heads`` event. And a batch is all-or-nothing."""

from __future__ import annotations

import itertools
import json

import orjson
import pytest

from baton.commands.context import Project
from baton.errors import LedgerCorrupt
from baton.ledger import EventDraft, Ledger
from baton.ledger.integrity import HEADS_EVERY, HEADS_TYPE
from baton.ledger.memory import MemoryLedger
from baton.ledger.verify import verify_ledger
from tests.conftest import run_baton
from tests.ledger_support import own_feed


def ticking():
    ticks = itertools.count(1_700_000_000_000_000_000, 1_000)
    return lambda: next(ticks)


def note(n: int, stream: str = "test/1") -> EventDraft:
    return EventDraft("test.noted", stream, {"n": n})


def write_through_project(project, n: int) -> Project:
    opened = Project.open(project)
    for i in range(n):
        with opened.writing() as scope:
            scope.append([note(i)])
    opened.close()
    return opened



def verify(project) -> tuple[int, dict]:
    r = run_baton("verify", "--json", "--project", str(project))
    return r.returncode, json.loads(r.stdout)


@pytest.mark.parametrize("cut", [1, 2])
def test_deleting_the_last_lines_of_a_feed_the_index_folded_is_reported_as_truncated(project, cut):
    write_through_project(project, 3)
    feed = own_feed(project)
    lines = feed.read_bytes().splitlines(keepends=True)
    feed.write_bytes(b"".join(lines[:-cut]))

    code, out = verify(project)
    assert code == 3 and out["ok"] is False
    [problem] = out["problems"]
    assert problem["kind"] == "truncated" and problem["seq"] == len(lines)
    assert f"ends at seq {len(lines) - cut}" in problem["message"] and "the index" in problem["message"]


def test_a_feed_cut_shorter_stays_reported_after_a_rebuild(project):
    write_through_project(project, 3)
    feed = own_feed(project)
    feed.write_bytes(b"".join(feed.read_bytes().splitlines(keepends=True)[:-1]))

    assert run_baton("rebuild", "--project", str(project)).returncode == 0
    code, out = verify(project)
    assert code == 3 and [p["kind"] for p in out["problems"]] == ["truncated"]


def test_a_feed_rewritten_under_a_recorded_head_is_reported(project):
    write_through_project(project, 3)
    feed = own_feed(project)
    size = len(feed.read_bytes().splitlines())
    elsewhere = project.parent / "elsewhere"
    other = Ledger(elsewhere, feed.stem, fsync="never")
    with other.locked() as txn:
        for i in range(size):
            txn.append([note(100 + i)])
    feed.write_bytes(other.feed_path(feed.stem).read_bytes())

    code, out = verify(project)
    assert code == 3 and [p["kind"] for p in out["problems"]] == ["rewritten"]
    assert out["problems"][0]["seq"] == size


def test_another_feed_vouches_for_a_feed_even_without_the_index(tmp_path):
    baton = tmp_path / ".baton"
    lone = Ledger(baton, "alpha", fsync="never", clock=ticking())
    with lone.locked() as txn:
        txn.append([note(0)])
        txn.append([note(1)])
    busy = Ledger(baton, "beta", fsync="never", clock=ticking())
    with busy.locked() as txn:
        for i in range(HEADS_EVERY):
            txn.append([note(i, "test/2")])
    feed = lone.feed_path("alpha")
    feed.write_bytes(feed.read_bytes().splitlines(keepends=True)[0])

    report = verify_ledger(baton / "ledger")
    [problem] = report.all_problems()
    assert problem.kind == "truncated" and problem.feed == "alpha" and problem.seq == 2
    assert "ledger.heads of beta" in problem.message

    feed.unlink()
    [problem] = verify_ledger(baton / "ledger").all_problems()
    assert problem.kind == "missing_feed" and problem.feed == "alpha"


def test_a_deleted_feed_the_index_folded_is_reported_missing(project):
    write_through_project(project, 1)
    other = Ledger(project / ".baton", "other", fsync="never")
    with other.locked() as txn:
        txn.append([note(7, "test/2")])
    run_baton("status", "--project", str(project))  # any command folds the new feed
    other.feed_path("other").unlink()

    code, out = verify(project)
    assert code == 3
    assert [(p["kind"], p["feed"]) for p in out["problems"]] == [("missing_feed", "other")]


@pytest.mark.parametrize("make", [lambda b: Ledger(b, "w1", fsync="never", clock=ticking()),
                                  lambda b: MemoryLedger("w1", clock=ticking())], ids=["jsonl", "memory"])
def test_a_writer_records_the_other_feeds_heads_every_64_events_of_its_own(tmp_path, make):
    ledger = make(tmp_path / ".baton")
    other = ledger.for_writer("w2") if isinstance(ledger, MemoryLedger) else Ledger(tmp_path / ".baton", "w2",
                                                                                    fsync="never")
    with other.locked() as txn:
        [seen] = txn.append([note(0, "test/2")])
    returned = []
    with ledger.locked() as txn:
        for i in range(HEADS_EVERY * 2):
            returned += txn.append([note(i)])

    assert [e.type for e in returned] == ["test.noted"] * HEADS_EVERY * 2  # callers get what they asked for
    heads = [e for e in ledger.read_all() if e.type == HEADS_TYPE]
    assert [e.seq for e in heads] == [HEADS_EVERY - 1, 2 * HEADS_EVERY - 1]
    assert heads[0].stream == "ledger/w1"
    assert heads[0].data == {"heads": {"w2": {"seq": 1, "hash": seen.hash, "offset": heads[0].data["heads"]["w2"]
                                              ["offset"]}}}
    assert heads[0].data["heads"]["w2"]["offset"] > 0


def test_a_lone_writer_records_no_heads(tmp_path):
    ledger = Ledger(tmp_path / ".baton", "w1", fsync="never")
    with ledger.locked() as txn:
        for i in range(HEADS_EVERY + 1):
            txn.append([note(i)])
    assert HEADS_TYPE not in {e.type for e in ledger.read_all()}


# -- batches -------------------------------------------------------------------------

def batch_feed(tmp_path, sizes=(1, 3)):
    baton = tmp_path / ".baton"
    ledger = Ledger(baton, "w1", fsync="never", clock=ticking())
    with ledger.locked() as txn:
        for k, size in enumerate(sizes):
            txn.append([note(10 * k + i) for i in range(size)])
    feed = ledger.feed_path("w1")
    return baton, feed, feed.read_bytes().splitlines(keepends=True)


def test_the_events_of_one_append_carry_their_batch(tmp_path):
    _, _, lines = batch_feed(tmp_path)
    raws = [orjson.loads(line) for line in lines]
    assert "batch" not in raws[0]  # a single event is no batch
    first = raws[1]["id"]
    assert [r["batch"] for r in raws[1:]] == [{"id": first, "n": n, "of": 3} for n in (1, 2, 3)]


@pytest.mark.parametrize("kept", [1, 2])
def test_an_incomplete_batch_at_the_end_is_a_torn_tail_that_the_next_writer_cuts(tmp_path, kept):
    baton, feed, lines = batch_feed(tmp_path)
    sound = lines[0]
    feed.write_bytes(sound + b"".join(lines[1:1 + kept]))

    assert [e.data["n"] for e in Ledger(baton, "reader").read_all()] == [0]
    report = verify_ledger(baton / "ledger")
    assert report.ok and report.feeds[0].torn.offset == len(sound)
    assert f"{kept} of 3 events" in report.feeds[0].torn.reason

    with Ledger(baton, "w1", fsync="never").locked() as txn:
        [added] = txn.append([note(99)])
    assert added.seq == 2 and feed.read_bytes().startswith(sound)
    [kept_aside] = (baton / "quarantine").iterdir()
    assert kept_aside.read_bytes() == b"".join(lines[1:1 + kept])
    assert verify_ledger(baton / "ledger").ok


def test_an_incomplete_batch_followed_by_a_cut_line_is_one_torn_tail(tmp_path):
    baton, feed, lines = batch_feed(tmp_path)
    feed.write_bytes(lines[0] + lines[1] + lines[2][:40])
    report = verify_ledger(baton / "ledger")
    assert report.ok and report.feeds[0].torn.offset == len(lines[0])
    assert report.feeds[0].events == 1


def test_an_incomplete_batch_in_the_middle_of_a_feed_is_corruption(tmp_path):
    baton, feed, lines = batch_feed(tmp_path, sizes=(1, 3, 1))
    # The batch's middle event is gone and the chain relinked around it by a
    # forger who could recompute hashes: still caught, as the batch no longer adds up.
    ledger = Ledger(tmp_path / "forged", "w1", fsync="never", clock=ticking())
    with ledger.locked() as txn:
        txn.append([note(0)])
        txn.append([note(1), note(2)])
    forged = ledger.feed_path("w1").read_bytes().splitlines(keepends=True)
    raw = orjson.loads(forged[1])
    raw["batch"]["of"] = 3
    from baton.ledger.envelope import Event

    event = Event.from_dict(raw)
    raw["hash"] = event.compute_hash()
    relinked = orjson.loads(forged[2])
    relinked["prev"] = raw["hash"]
    relinked["batch"] = {"id": raw["id"], "n": 3, "of": 3}
    relinked["hash"] = Event.from_dict(relinked).compute_hash()
    feed.write_bytes(forged[0] + orjson.dumps(raw) + b"\n" + orjson.dumps(relinked) + b"\n" + lines[-1])

    report = verify_ledger(baton / "ledger")
    kinds = [p.kind for p in report.all_problems()]
    assert "incomplete_batch" in kinds
    problem = next(p for p in report.all_problems() if p.kind == "incomplete_batch")
    assert problem.offset == len(forged[0]) and problem.seq == 2
    with pytest.raises(LedgerCorrupt):
        Ledger(baton, "reader").read_all()


def test_a_batch_member_without_its_first_event_is_corruption(tmp_path):
    baton, feed, lines = batch_feed(tmp_path, sizes=(1, 3, 1))
    raw = orjson.loads(lines[-1])
    raw["batch"] = {"id": raw["id"], "n": 2, "of": 2}
    from baton.ledger.envelope import Event

    raw["hash"] = Event.from_dict(raw).compute_hash()
    feed.write_bytes(b"".join(lines[:-1]) + orjson.dumps(raw) + b"\n")
    [problem] = verify_ledger(baton / "ledger").all_problems()
    assert problem.kind == "bad_batch" and problem.seq == 5


def test_a_batch_across_chunks_is_read_whole(tmp_path):
    from baton.ledger.feed import FeedHead, scan_bytes, scan_chunks

    baton, feed, lines = batch_feed(tmp_path, sizes=(2, 5, 1, 3))
    raw = feed.read_bytes()
    whole = scan_bytes("w1", raw, FeedHead())
    for chunk in (50, 300, 700, len(lines[0]) + 1):
        scans = list(scan_chunks("w1", lambda at, n: raw[at:at + n], FeedHead(), len(raw), chunk_bytes=chunk))
        assert [e for s in scans for e in s.events] == whole.events
        assert scans[-1].head == whole.head
    torn = raw[: len(raw) - len(lines[-1]) - len(lines[-2])]  # the last batch cut after its first event
    scans = list(scan_chunks("w1", lambda at, n: torn[at:at + n], FeedHead(), len(torn), chunk_bytes=300))
    assert len([e for s in scans for e in s.events]) == 8 and scans[-1].torn is not None


# -- erasure -------------------------------------------------------------------------

def erase_first_capture(project) -> tuple[str, str, str]:
    from baton.app import Baton

    with Baton.open(project) as app:
        handoff_id = app.capture({"work": {"title": "Forget me", "objective": "O"}}).handoff_id
    feed = own_feed(project)
    lines = feed.read_bytes().splitlines(keepends=True)
    [at] = [i for i, line in enumerate(lines) if b'"handoff.captured"' in line]
    raw = orjson.loads(lines[at])
    del raw["data"]
    lines[at] = orjson.dumps(raw, option=orjson.OPT_SORT_KEYS) + b"\n"
    feed.write_bytes(b"".join(lines))
    return handoff_id, raw["id"], raw["stream"]


def test_a_payload_erased_without_a_recorded_forget_fails_verify(project):
    erase_first_capture(project)
    code, out = verify(project)
    assert code == 3 and [p["kind"] for p in out["problems"]] == ["erased_without_forget"]


def test_payloads_a_recorded_forget_names_pass_verify_and_are_counted(project):
    from baton.events.catalogue import HandoffForgotten

    handoff_id, event_id, stream = erase_first_capture(project)
    other = Ledger(project / ".baton", "forgetter", fsync="never")
    forgotten = HandoffForgotten(key=handoff_id, handoff=handoff_id, events=[event_id], reason="asked")
    assert forgotten.stream == stream
    with other.locked() as txn:
        txn.append([forgotten.draft()])

    code, out = verify(project)
    assert code == 0 and out["erased_by_forget"] == 1
    text = run_baton("verify", "--project", str(project)).stdout
    assert "1 payload erased by forget" in text


def test_a_reader_resuming_inside_a_batch_reads_the_rest_of_it(tmp_path):
    from baton.ledger.feed import FeedHead, scan_bytes

    _, feed, lines = batch_feed(tmp_path, sizes=(1, 3))
    raw = feed.read_bytes()
    whole = scan_bytes("w1", raw, FeedHead())
    inside = whole.ends[1]  # after the batch's first event (a cursor `rebuild --until` may pin)
    second = whole.events[1]
    rest = scan_bytes("w1", raw[inside:], FeedHead(inside, second.seq, second.hash, second.hlc))
    assert rest.events == whole.events[2:] and rest.torn is None
    cut = scan_bytes("w1", raw[inside:len(raw) - len(lines[-1])], FeedHead(inside, second.seq, second.hash, second.hlc))
    assert cut.events == [] and cut.torn is not None and cut.torn.offset == inside
