"""Checking a whole ledger: every chain, digest, sequence and stream.

Per feed: each line parses, its hash and digest hold, ``seq`` rises by one,
``prev`` links to the line before, the hlc rises. Across feeds: no event id
appears twice, and every stream's versions run 1, 2, 3… in project order — two
writers that each appended version 3 of one stream are a *fork* to resolve.
Erased payloads (``data`` removed, ``digest`` kept) are counted, not failed.
A torn tail is reported but is not a failure: readers already ignore it and
the next writer quarantines it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable

import attrs

from baton.model import mutable
from baton.errors import StorageError
from baton.ledger.envelope import Event
from baton.ledger.feed import FeedHead, FeedProblem, TornTail, collector_paused, feed_name, scan_file
from baton.ledger.store import merge_feeds


@mutable
class FeedReport:
    feed: str
    events: int
    erased: int
    head: FeedHead
    torn: TornTail | None
    problems: list[FeedProblem]

    def to_json(self) -> dict:
        return {
            "feed": self.feed, "events": self.events, "erased": self.erased,
            "last_seq": self.head.seq, "last_hash": self.head.hash,
            "torn_tail": self.torn.to_json() if self.torn else None,
            "problems": [p.to_json() for p in self.problems],
        }


@mutable
class VerifyReport:
    feeds: list[FeedReport]
    problems: list[FeedProblem]
    erased_by_forget: int = 0
    """Erased payloads that a recorded ``handoff.forgotten`` event names."""
    concurrent: list[FeedProblem] = attrs.field(factory=list)
    """Stream versions written again by another writer that had not seen
    them (replicas apart, then ``baton sync``): reported, not failures."""

    @property
    def ok(self) -> bool:
        return not self.problems and all(not f.problems for f in self.feeds)

    @property
    def event_count(self) -> int:
        return sum(f.events for f in self.feeds)

    def all_problems(self) -> list[FeedProblem]:
        return [p for f in self.feeds for p in f.problems] + list(self.problems)

    def to_json(self) -> dict:
        return {
            "ok": self.ok,
            "events": self.event_count,
            "feeds": [f.to_json() for f in self.feeds],
            "problems": [p.to_json() for p in self.all_problems()],
            "erased_by_forget": self.erased_by_forget,
            "concurrent": [p.to_json() for p in self.concurrent],
        }


Erasures = Callable[[Event], Iterable[str]]
"""The event ids an event records as legitimately erased (``handoff.forgotten``,
which the catalogue above the ledger knows: the caller passes it in)."""


def verify_ledger(ledger_dir: Path, erasures: Erasures | None = None) -> VerifyReport:
    with collector_paused():
        return _verify(ledger_dir, erasures)


def _verify(ledger_dir: Path, erasures: Erasures | None) -> VerifyReport:
    reports: list[FeedReport] = []
    event_lists = []
    try:
        paths = sorted(p for p in Path(ledger_dir).glob("*.jsonl") if p.is_file())
    except OSError as exc:
        raise StorageError(f"cannot list {ledger_dir}: {exc}") from exc
    for path in paths:
        try:
            scan = scan_file(path, FeedHead(), collect=True)
        except OSError as exc:
            raise StorageError(f"cannot read {path}: {exc}") from exc
        reports.append(
            FeedReport(
                feed=feed_name(path), events=len(scan.events),
                erased=sum(1 for e in scan.events if e.erased),
                head=scan.head, torn=scan.torn, problems=scan.problems,
            )
        )
        event_lists.append(scan.events)
    cross: list[FeedProblem] = []
    concurrent: list[FeedProblem] = []
    seen_ids: dict[str, str] = {}
    versions: dict[str, int] = {}
    forgotten: set[str] = set()
    erased: list[str] = []
    written: dict[tuple[str, str], int] = {}
    """(stream, writer) → the highest version that writer wrote to the stream."""
    for event in merge_feeds(event_lists):
        if event.erased:
            erased.append(event.id)
        elif erasures is not None:
            forgotten.update(erasures(event))
        if event.id in seen_ids:
            cross.append(FeedProblem(event.writer, -1, event.seq, "duplicate_id",
                                     f"event id {event.id} also appears in feed {seen_ids[event.id]!r}"))
        seen_ids[event.id] = event.writer
        want = versions.get(event.stream, 0) + 1
        mine = written.get((event.stream, event.writer), 0)
        seen = want - 1
        if mine < event.stream_version < want:
            # Another writer wrote this version first, and this writer had not
            # seen it: replicas apart, joined by sync. Not corruption.
            concurrent.append(FeedProblem(event.writer, -1, event.seq, "concurrent",
                                          f"stream {event.stream!r}: version {event.stream_version} was also "
                                          "written by another writer"))
        else:
            if event.stream_version != want:
                kind = "stream_fork" if event.stream_version < want else "stream_gap"
                cross.append(FeedProblem(event.writer, -1, event.seq, kind, f"stream {event.stream!r}: "
                                         f"expected version {want}, found {event.stream_version}"))
            seen = want
        versions[event.stream] = max(seen, event.stream_version)
        written[(event.stream, event.writer)] = max(mine, event.stream_version)
    return VerifyReport(feeds=reports, problems=cross, concurrent=concurrent,
                        erased_by_forget=sum(1 for i in erased if i in forgotten))
