"""The one decider of a repair (``baton.domain.repair_choice.decide_repair``): which plan
`baton verify` describes and `baton repair` carries out, from what was read."""

from __future__ import annotations

from baton.domain.repair_choice import decide_repair
from baton.ledger.feed import FeedHead
from baton.ledger.repair import FeedRepair


def _cut(feed: str, kept_seq: int, lost: list | None = None) -> FeedRepair:
    return FeedRepair(feed, 100, 10, FeedHead(seq=kept_seq), [{"offset": 100, "bytes": 10}], lost or [], ["x"])


def _restore(feed: str, seq: int) -> FeedRepair:
    return FeedRepair(feed, 0, 10, FeedHead(seq=seq), [{"offset": 100, "bytes": 10}], [], ["ref"],
                      base=b"x" * 50, restored=seq)


def _never(*_args):
    raise AssertionError("asked")


def test_an_own_feed_synced_beyond_its_cut_is_restored_instead():
    plans = [_cut("own", 1), _cut("zed", 3)]
    chosen = decide_repair(plans, [], "own", synced=lambda feed: 5 if feed == "own" else 3, restore=lambda _feed, damaged: _restore("own", 5))
    assert [(p.feed, p.restored) for p in chosen] == [("own", 5), ("zed", 0)]


def test_a_cut_that_keeps_everything_the_ref_holds_is_not_restored():
    plans = [_cut("own", 5)]
    assert decide_repair(plans, [], "own", synced=lambda _feed: 5, restore=_never) == plans


def test_despite_synced_cuts_and_never_reads_the_ref():
    plans = [_cut("own", 1)]
    assert decide_repair(plans, [], "own", despite_synced=True, synced=_never, restore=_never) == plans


def test_a_repair_of_another_feed_never_restores_this_clones_feed():
    plans = [_cut("zed", 1)]
    assert decide_repair(plans, [], "own", feed="zed", synced=lambda feed: 0 if feed == "zed" else _never(),
                         restore=_never) == plans


def test_a_teammates_feed_synced_beyond_its_cut_is_restored_instead():
    plans = [_cut("own", 5), _cut("zed", 1)]
    chosen = decide_repair(plans, [], "own", synced=lambda feed: 5,
                           restore=lambda feed, damaged: _restore(feed, 4) if feed == "zed" else None)
    assert [(p.feed, p.restored) for p in chosen] == [("own", 0), ("zed", 4)]


def test_a_teammates_feed_is_restored_despite_synced_too():
    plans = [_cut("zed", 1)]
    chosen = decide_repair(plans, [], "own", despite_synced=True, synced=lambda feed: 4,
                           restore=lambda feed, damaged: _restore(feed, 4))
    assert [(p.feed, p.restored) for p in chosen] == [("zed", 4)]


def test_a_teammates_feed_the_ref_holds_no_further_is_cut():
    plans = [_cut("zed", 3)]
    assert decide_repair(plans, [], "own", synced=lambda feed: 3 if feed == "zed" else 0,
                         restore=lambda feed, damaged: _never() if feed == "zed" else None) == plans


def test_a_repair_of_this_clones_feed_only_never_restores_a_teammates():
    plans = [_cut("zed", 1)]
    assert decide_repair(plans, [], "own", feed="own", despite_synced=True, synced=_never, restore=_never) == plans


def test_a_sound_own_feed_is_offered_for_a_restore_without_asking_how_far_it_was_synced():
    offered = []
    decide_repair([], [], "own", synced=_never, restore=lambda _feed, damaged: offered.append(damaged))
    assert offered == [None]


def test_a_head_an_unrecorded_repair_acknowledged_is_no_longer_lost():
    head = {"seq": 4, "hash": "h4", "source": "the index"}
    finished = [FeedRepair("zed", 100, 0, FeedHead(seq=3), [], [head], ["x"])]
    lost_only = FeedRepair("zed", None, 0, FeedHead(seq=3), [], [head], ["x"])
    assert decide_repair([lost_only], finished, None) == []
