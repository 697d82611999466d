"""The project's one stream: the merge of every feed does not depend on the
order the feeds are read in."""

from __future__ import annotations

import itertools
import shutil
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from baton.ledger import EventDraft, Ledger
from baton.ledger.envelope import seal
from baton.ledger.feed import feed_name
from baton.ledger.store import merge_feeds

writer_names = st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True)


@st.composite
def feeds_of_events(draw):
    """Several single-writer feeds; hlcs rise within a feed and may tie across feeds."""
    writers = draw(st.lists(writer_names, min_size=1, max_size=5, unique=True))
    feeds = []
    for writer in writers:
        steps = draw(st.lists(st.integers(1, 3), max_size=8))
        hlc = draw(st.integers(0, 5))
        events, prev = [], None
        for seq, step in enumerate(steps, start=1):
            hlc += step
            event = seal(EventDraft("t.x", "s", {}), event_id=f"{writer}-{seq}", writer=writer, seq=seq,
                         at="2024-05-01T12:00:00.000000Z", hlc=hlc, stream_version=seq, prev=prev)
            prev = event.hash
            events.append(event)
        feeds.append(events)
    return feeds


@given(feeds_of_events(), st.randoms(use_true_random=False))
def test_merge_feeds_gives_the_same_stream_whatever_order_the_feeds_come_in(feeds, rnd):
    shuffled = list(feeds)
    rnd.shuffle(shuffled)
    merged = list(merge_feeds(feeds))
    assert list(merge_feeds(shuffled)) == merged
    assert [e.merge_key for e in merged] == sorted(e.merge_key for feed in feeds for e in feed)


@given(
    st.lists(st.tuples(writer_names, st.integers(0, 3)), min_size=2, max_size=12),
    st.randoms(use_true_random=False),
)
def test_ledger_read_all_merges_several_writer_feeds_independently_of_read_order(appends, rnd):
    """Writers that never saw each other (as after a sync), with clocks that tie."""
    root = Path(tempfile.mkdtemp(prefix="merge-"))
    try:
        shared = root / "shared" / ".baton"
        (shared / "ledger").mkdir(parents=True)
        clocks = {}
        for writer, skew in appends:
            ticks = clocks.setdefault(writer, itertools.count(1_700_000_000_000_000_000 + skew * 1000, 1000))
            ledger = Ledger(root / writer / ".baton", writer, fsync="never", clock=lambda t=ticks: next(t))
            with ledger.locked() as txn:
                txn.append([EventDraft("t.x", f"s/{writer}", {"skew": skew})])
        for writer in clocks:
            src = root / writer / ".baton" / "ledger" / f"{writer}.jsonl"
            (shared / "ledger" / src.name).write_bytes(src.read_bytes())

        reader = Ledger(shared, "reader")
        stream = reader.read_all()
        scans = [reader.read_feed(feed_name(p)) for p in reader.feed_paths()]
        rnd.shuffle(scans)
        assert list(merge_feeds(s.events for s in scans)) == stream
        assert len(stream) == len(appends)
        assert [e.merge_key for e in stream] == sorted(e.merge_key for e in stream)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_writers_sharing_a_folder_never_reuse_an_hlc_even_when_their_clocks_disagree(tmp_path):
    baton = tmp_path / ".baton"
    ahead = Ledger(baton, "ahead", fsync="never", clock=lambda: 2_000_000_000_000_000_000)
    behind = Ledger(baton, "behind", fsync="never", clock=lambda: 1_000_000_000_000_000_000)
    for ledger in (ahead, behind, ahead, behind):
        with ledger.locked() as txn:
            txn.append([EventDraft("t.x", "s", {})])
    stream = Ledger(baton, "reader").read_all()
    assert [e.writer for e in stream] == ["ahead", "behind", "ahead", "behind"]
    assert [e.hlc for e in stream] == sorted({e.hlc for e in stream})
