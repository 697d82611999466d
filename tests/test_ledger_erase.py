"""Erasing payloads in place (``baton.ledger.erase``): any subset of a feed's
events loses its ``data`` and nothing else; every chain still verifies."""

from __future__ import annotations

import itertools
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from baton.ledger.envelope import EventDraft
from baton.ledger.erase import erase_payloads
from baton.ledger.store import Ledger
from baton.ledger.verify import verify_ledger

START_NS = 1_700_000_000_000_000_000


def filled_ledger(root: Path, texts: list[str]) -> list[str]:
    ticks = itertools.count(START_NS, 1_000)
    ledger = Ledger(root / ".baton", "w1", fsync="never", clock=lambda: next(ticks))
    with ledger.locked() as txn:
        events = txn.append([EventDraft("note.added", f"note/{i % 3}", {"text": t}) for i, t in enumerate(texts)])
    ledger.close()
    return [e.id for e in events]


@given(texts=st.lists(st.text(min_size=1, max_size=30), min_size=1, max_size=12), data=st.data())
def test_erasing_any_subset_keeps_every_chain_and_every_other_line(texts, data):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        ids = filled_ledger(root, texts)
        chosen = data.draw(st.sets(st.sampled_from(ids)))
        feed = root / ".baton" / "ledger" / "w1.jsonl"
        before = feed.read_bytes().splitlines()
        erased = erase_payloads(feed.parent, chosen)
        after = feed.read_bytes().splitlines()
        report = verify_ledger(feed.parent)
        # every chain holds; the only problems are the erasures no recorded forget names
        assert sorted((p.kind, p.seq) for p in report.all_problems()) == sorted(
            ("erased_without_forget", ids.index(i) + 1) for i in chosen)
        assert erased == ({"w1": len(chosen)} if chosen else {})
        assert sum(f.erased for f in report.feeds) == len(chosen)
        for event_id, old, new in zip(ids, before, after):
            assert (old == new) == (event_id not in chosen)
            assert (b'"data":' in new) == (event_id not in chosen)


def test_erasing_twice_changes_nothing_the_second_time(tmp_path):
    ids = filled_ledger(tmp_path, ["a secret", "kept"])
    folder = tmp_path / ".baton" / "ledger"
    assert erase_payloads(folder, ids[:1]) == {"w1": 1}
    once = (folder / "w1.jsonl").read_bytes()
    assert erase_payloads(folder, ids[:1]) == {}
    assert (folder / "w1.jsonl").read_bytes() == once


def test_an_erased_feed_is_a_new_file_renamed_over_the_old_one(tmp_path):
    ids = filled_ledger(tmp_path, ["a secret"])
    feed = tmp_path / ".baton" / "ledger" / "w1.jsonl"
    inode = feed.stat().st_ino
    erase_payloads(feed.parent, ids)
    assert feed.stat().st_ino != inode
    assert [p.name for p in feed.parent.iterdir()] == ["w1.jsonl"]


def test_the_ledger_spells_the_erasure_record_as_the_catalogue_does():
    """The ledger imports nothing above it, so it spells ``handoff.forgotten``
    itself; it must stay the catalogue's name, and name the ids the domain's
    rule (``erased_by``) names."""
    from baton.domain.forgetting import erased_by
    from baton.events.handoff import HandoffForgotten
    from baton.events.names import HANDOFF_FORGOTTEN
    from baton.ledger.erase import ERASURE_RECORD, named_erasures

    assert ERASURE_RECORD == HANDOFF_FORGOTTEN
    with tempfile.TemporaryDirectory() as d:
        ledger = Ledger(Path(d), "w1", fsync="never")
        with ledger.locked() as txn:
            events = txn.append([HandoffForgotten(key="h", handoff="h", events=["a", 3, "b"], reason=None).draft(),
                                 EventDraft("note.added", "note/x", {"events": ["c"]})])
    assert [named_erasures(e) for e in events] == [erased_by(e) for e in events] == [["a", "b"], []]
