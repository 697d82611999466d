"""Which repair a damaged ledger gets: the one plan ``baton verify`` describes and ``baton repair`` carries out.

A repair starts from a cut per damaged feed (``baton.ledger.repair.plan_repair``, with this
clone's own events that build on what it sets aside: ``with_own_dependents``). Two things
change that plan, and both ``verify`` and ``repair`` must see them the same way:

- a repair a killed ``baton repair --yes`` left unrecorded (its feed already cut): the next
  ``--yes`` records it first, so a recorded head it set aside or acknowledged is no longer
  lost (``settled``);
- a feed already synced: its ledger ref holds the remote's copy. For this clone's own feed a
  cut before what the ref holds would fork the feed against it; for a teammate's, a cut would
  acknowledge as lost what the ref still holds (and leave another feed's events that build on
  it following nothing). So the feed is put back as the ref holds it instead
  (``plan_restore``), in place of the cut, by ``decide_repair``.

Pure: the reading (feeds, the ledger ref, the quarantine's manifests) is the caller's
(``baton.commands.repair_plan.repair_plans``), the one place both commands ask.
"""

from __future__ import annotations

from typing import Callable

import attrs

from baton.ledger.repair import FeedRepair


def settled(plans: list[FeedRepair], finished: list[FeedRepair]) -> list[FeedRepair]:
    """``plans`` as they stand once ``finished``'s records are in the ledger: a recorded head
    one of them set aside or acknowledged as lost is no longer lost (as ``verify`` reads a
    ``ledger.repaired``), and a plan left with nothing to cut or acknowledge is dropped."""
    gone: dict[str, set[str]] = {}
    for repair in finished:
        gone.setdefault(repair.feed, set()).update(
            str(item["hash"]) for item in [*repair.set_aside, *repair.lost] if "hash" in item)
    kept = []
    for plan in plans:
        lost = [head for head in plan.lost if head.get("hash") not in gone.get(plan.feed, ())]
        if plan.cut is not None or lost:
            kept.append(plan if len(lost) == len(plan.lost) else attrs.evolve(plan, lost=lost))
    return kept


def decide_repair(plans: list[FeedRepair], finished: list[FeedRepair], own: str | None, *,
                  feed: str | None = None, despite_synced: bool = False,
                  synced: Callable[[str], int] = lambda _feed: 0,
                  restore: Callable[[str, FeedRepair | None], FeedRepair | None] = lambda _feed, _damaged: None,
                  ) -> list[FeedRepair]:
    """The repair, one plan per feed in feed order: ``plans`` ``settled`` past ``finished``, with
    a feed this clone's ledger ref holds beyond its cut put back as the ref holds it
    (``restore(feed, its cut or None)``, None when there is nothing to restore) in place of the cut:

    - this clone's own feed ``own`` — unless the repair is of another ``feed`` only or told to
      cut ``despite_synced``, or the cut keeps everything the ref holds (``synced(own)``: the seq
      it holds the feed to, asked only then). A sound own feed is offered to ``restore`` too: an
      earlier repair may have forked it from the ref's copy;
    - a teammate's feed (this clone's copy of it) whose cut keeps less than the ref holds
      (``synced(feed)``), unless the repair is of another ``feed`` only: the ref holds the
      remote's copy at the last sync, so nothing of it is lost, and no event of another feed that
      builds on its missing events is left following nothing (a ``stream_gap``; tester25 T5).
      ``despite_synced`` is about this clone's own feed and does not change it."""
    chosen = [_restored(plan, synced, restore) if plan.feed != own and feed in (None, plan.feed) else plan
              for plan in settled(plans, finished)]
    if not own or despite_synced or feed not in (None, own):
        return chosen
    damaged = next((p for p in chosen if p.feed == own), None)
    if damaged is not None and synced(own) <= damaged.kept.seq:
        return chosen
    put_back = restore(own, damaged)
    if put_back is None:
        return chosen
    return sorted([p for p in chosen if p.feed != own] + [put_back], key=lambda p: p.feed)


def _restored(plan: FeedRepair, synced: Callable[[str], int],
              restore: Callable[[str, FeedRepair | None], FeedRepair | None]) -> FeedRepair:
    """A teammate's feed's ``plan``, or its restore from the ledger ref when the ref holds it beyond
    what the plan keeps and the restore is possible."""
    if plan.restored or synced(plan.feed) <= plan.kept.seq:
        return plan
    return restore(plan.feed, plan) or plan
