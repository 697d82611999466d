"""What every ledger does: one contract suite, run against each backend.

Like pyeventsourcing's recorder test cases, ``LedgerContract`` states the
behaviours of "a ledger" once; ``tests/test_ledger_contract.py`` subclasses it
for the JSONL ``Ledger`` and for ``MemoryLedger``. A backend provides:

- ``new_ledger(writer, clock=None)``: a writer's handle on this test's ledger
  (several handles share the same feeds, like writers sharing ``.baton/``);
- ``deliver(writer, raw)``: lines of another writer's feed arriving as they
  would through ``baton sync``;
- ``feed_bytes(writer)``: the feed's bytes as they stand;
- ``rewrite(writer, raw)``: the feed's bytes replaced (an erasing rewrite, a
  sync that replaced the file).

The protocol part (feeds, cursors, changes since cursors, head checks) is
what the projection runner relies on, so it runs over either ledger.
"""

from __future__ import annotations

import itertools

import orjson
import pytest

from baton.errors import EnvelopeError, StreamVersionConflict
from baton.ledger.envelope import EventDraft, seal
from baton.ledger.feed import FeedHead, encode_line
from baton.ledger.protocol import Cursor, FeedRewritten
from baton.values import replace

START_NS = 1_700_000_000_000_000_000


def ticking(start: int = START_NS, step: int = 1_000):
    ticks = itertools.count(start, step)
    return lambda: next(ticks)


def draft(stream: str = "note/1", **data) -> EventDraft:
    return EventDraft("note.added", stream, dict(data))


class LedgerContract:
    def new_ledger(self, writer: str = "w1", clock=None):
        raise NotImplementedError

    def deliver(self, writer: str, raw: bytes) -> None:
        raise NotImplementedError

    def feed_bytes(self, writer: str) -> bytes:
        raise NotImplementedError

    def rewrite(self, writer: str, raw: bytes) -> None:
        raise NotImplementedError

    def append(self, ledger, drafts, **kwargs):
        with ledger.locked() as txn:
            return txn.append(drafts, **kwargs)

    # -- appending -----------------------------------------------------------
    def test_append_seals_events_with_gapless_seq_and_a_linked_chain(self):
        ledger = self.new_ledger(clock=ticking())
        first = self.append(ledger, [draft(n=1), draft(n=2)])
        second = self.append(ledger, [draft(n=3)])
        events = first + second
        assert [e.seq for e in events] == [1, 2, 3]
        assert [e.writer for e in events] == ["w1"] * 3
        assert events[0].prev is None
        assert [e.prev for e in events[1:]] == [e.hash for e in events[:-1]]
        assert all(e.hash == e.compute_hash() and e.data_intact() for e in events)
        assert len({e.id for e in events}) == 3

    def test_events_read_back_in_the_order_they_were_appended(self):
        ledger = self.new_ledger(clock=ticking())
        appended = []
        for n in range(5):
            appended += self.append(ledger, [draft(f"s/{n % 2}", n=n)])
        assert ledger.read_all() == appended
        assert [e.data["n"] for e in self.new_ledger("reader").read_all()] == list(range(5))

    def test_iter_all_gives_the_events_read_all_gives_in_the_same_order(self):
        ledger = self.new_ledger(clock=ticking())
        for n in range(5):
            self.append(ledger, [draft(f"s/{n % 2}", n=n)])
        self.append(self.new_ledger("other"), [draft("s/9", n=9)])
        reader = self.new_ledger("reader")
        assert list(reader.iter_all()) == reader.read_all() and len(reader.read_all()) == 6

    def test_an_append_with_no_drafts_writes_nothing(self):
        ledger = self.new_ledger()
        assert self.append(ledger, []) == []
        assert ledger.read_all() == []

    def test_stored_events_do_not_alias_the_callers_data(self):
        ledger = self.new_ledger()
        data = {"items": [1]}
        self.append(ledger, [EventDraft("note.added", "note/1", data)])
        data["items"].append(2)
        assert self.new_ledger("reader").read_all()[0].data == {"items": [1]}

    def test_a_draft_that_is_not_an_envelope_is_refused_and_nothing_is_appended(self):
        ledger = self.new_ledger()
        self.append(ledger, [draft(n=1)])
        with pytest.raises(EnvelopeError):
            self.append(ledger, [draft(n=2), EventDraft("note.added", "note/1", ["not", "an", "object"])])
        assert [e.data for e in ledger.read_all()] == [{"n": 1}]

    def test_an_append_outside_the_lock_is_refused(self):
        ledger = self.new_ledger()
        with ledger.locked() as txn:
            pass
        with pytest.raises(RuntimeError):
            txn.append([draft(n=1)])
        assert ledger.read_all() == []

    # -- stream versions -----------------------------------------------------
    def test_each_stream_counts_its_own_versions_from_one(self):
        ledger = self.new_ledger()
        events = self.append(ledger, [draft("a", n=1), draft("b", n=2), draft("a", n=3)])
        events += self.append(ledger, [draft("a", n=4)])
        assert [(e.stream, e.stream_version) for e in events] == [("a", 1), ("b", 1), ("a", 2), ("a", 3)]
        with ledger.locked() as txn:
            assert (txn.stream_version("a"), txn.stream_version("b"), txn.stream_version("c")) == (3, 1, 0)

    def test_stream_versions_run_across_writers(self):
        one, two = self.new_ledger("one", clock=ticking()), self.new_ledger("two", clock=ticking())
        self.append(one, [draft("shared", n=1)])
        [event] = self.append(two, [draft("shared", n=2)], expected={"shared": 1})
        assert event.stream_version == 2

    # -- optimistic concurrency ----------------------------------------------
    def test_expected_version_zero_means_the_stream_must_not_exist_yet(self):
        ledger = self.new_ledger()
        self.append(ledger, [draft("claim/x", n=1)], expected={"claim/x": 0})
        with pytest.raises(StreamVersionConflict) as caught:
            self.append(ledger, [draft("claim/x", n=2)], expected={"claim/x": 0})
        assert (caught.value.expected, caught.value.actual, caught.value.exit_code) == (0, 1, 4)

    def test_a_stale_expected_version_conflicts_and_appends_nothing(self):
        ledger = self.new_ledger()
        self.append(ledger, [draft("s", n=1), draft("s", n=2)])
        before = ledger.read_all()
        for stale in (0, 1, 3):
            with pytest.raises(StreamVersionConflict):
                self.append(ledger, [draft("s", n=9), draft("other", n=9)], expected={"s": stale})
        assert ledger.read_all() == before
        with ledger.locked() as txn:
            assert txn.stream_version("s") == 2 and txn.stream_version("other") == 0

    def test_one_stale_stream_among_several_expected_conflicts_the_whole_batch(self):
        ledger = self.new_ledger()
        self.append(ledger, [draft("a"), draft("b")])
        with pytest.raises(StreamVersionConflict) as caught:
            self.append(ledger, [draft("a"), draft("b")], expected={"a": 1, "b": 0})
        assert caught.value.stream == "b"
        assert len(ledger.read_all()) == 2

    def test_a_second_writer_that_read_an_old_version_conflicts(self):
        alice, bob = self.new_ledger("alice", clock=ticking()), self.new_ledger("bob", clock=ticking())
        self.append(alice, [draft("baton/main", n=0)])
        with bob.locked() as txn:
            read_by_bob = txn.stream_version("baton/main")
        self.append(alice, [draft("baton/main", n=1)], expected={"baton/main": read_by_bob})
        with pytest.raises(StreamVersionConflict):
            self.append(bob, [draft("baton/main", n=2)], expected={"baton/main": read_by_bob})
        assert [e.writer for e in bob.read_all()] == ["alice", "alice"]

    def test_an_expectation_is_checked_even_when_nothing_is_appended(self):
        ledger = self.new_ledger()
        with pytest.raises(StreamVersionConflict):
            self.append(ledger, [], expected={"s": 1})

    # -- order across writers ------------------------------------------------
    def test_several_writers_read_back_merged_by_hlc_writer_and_seq(self):
        ahead = self.new_ledger("ahead", clock=ticking(START_NS + 10**9))
        behind = self.new_ledger("behind", clock=ticking())
        written = []
        for ledger in (behind, ahead, behind, ahead):
            written += self.append(ledger, [draft(n=len(written))])
        stream = self.new_ledger("reader").read_all()
        assert stream == written
        assert [e.merge_key for e in stream] == sorted(e.merge_key for e in stream)

    def test_the_hlc_never_goes_below_an_event_already_seen(self):
        ahead = self.new_ledger("ahead", clock=ticking(START_NS + 10**9))
        behind = self.new_ledger("behind", clock=ticking())
        [first] = self.append(ahead, [draft()])
        [second] = self.append(behind, [draft()])
        assert second.hlc > first.hlc
        assert second.at < first.at

    # -- foreign feeds and unknown fields ------------------------------------
    def _foreign_line(self, extra: dict, seq: int = 1, prev=None) -> tuple[bytes, object]:
        event = seal(draft("note/remote", n=seq), event_id=f"0190a8e0-0000-7000-8000-00000000000{seq}",
                     writer="newer", seq=seq, at="2024-05-01T12:00:00.000000Z", hlc=seq, stream_version=seq, prev=prev)
        event = replace(event, extra=extra)
        event = replace(event, hash=event.compute_hash())
        return orjson.dumps(event.to_dict()) + b"\n", event

    def test_unknown_envelope_fields_of_another_writers_events_survive_reading(self):
        ledger = self.new_ledger()
        extra = {"tenant": "acme", "trace": {"span": [1, 2]}}
        line, event = self._foreign_line(extra)
        self.deliver("newer", line)
        [read] = ledger.read_all()
        assert read == event and dict(read.extra) == extra
        assert orjson.dumps(read.to_dict()) + b"\n" == line

    def test_a_writer_continues_after_events_with_unknown_fields(self):
        ledger = self.new_ledger(clock=ticking())
        line, event = self._foreign_line({"tenant": "acme"})
        self.deliver("newer", line)
        [mine] = self.append(ledger, [draft("note/remote", n=2)], expected={"note/remote": 1})
        assert mine.stream_version == 2 and mine.hlc > event.hlc
        assert ledger.read_all() == [event, mine]

    # -- the protocol: feeds, cursors, changes since cursors ------------------
    def test_feeds_are_listed_by_writer_with_their_size(self):
        one, two = self.new_ledger("one", clock=ticking()), self.new_ledger("two", clock=ticking())
        self.append(one, [draft(n=1)])
        self.append(two, [draft(n=2), draft(n=3)])
        assert one.feed_names() == ["one", "two"]
        sizes = {name: one.feed_info(name).size for name in ("one", "two")}
        assert sizes == {name: len(self.feed_bytes(name)) for name in ("one", "two")}
        assert one.feed_info("nobody") is None

    def test_reading_a_feed_from_a_head_gives_only_the_events_after_it(self):
        ledger = self.new_ledger(clock=ticking())
        first = self.append(ledger, [draft(n=1), draft(n=2)])
        later = self.append(ledger, [draft(n=3)])
        head = ledger.read_feed("w1").head
        scan = ledger.read_feed("w1", FeedHead(len(self.feed_bytes("w1")) - len(encode_line(later[0])),
                                               first[-1].seq, first[-1].hash, first[-1].hlc))
        assert scan.events == later and scan.head == head
        assert ledger.read_feed("w1", head).events == []

    def test_appended_events_are_what_readers_get_back(self):
        ledger = self.new_ledger()
        data = {"steps": ("one", "two"), "nested": {"b": 1, "a": [1.5, None]}}
        [event] = self.append(ledger, [EventDraft("note.added", "note/1", data)])
        data["nested"]["b"] = 2
        [read] = self.new_ledger("reader").read_all()
        assert event == read and event.data == {"steps": ["one", "two"], "nested": {"b": 1, "a": [1.5, None]}}

    def test_changes_since_no_cursors_are_every_event_in_project_order(self):
        ahead = self.new_ledger("ahead", clock=ticking(START_NS + 10**9))
        behind = self.new_ledger("behind", clock=ticking())
        written = []
        for ledger in (behind, ahead, behind):
            written += self.append(ledger, [draft(n=len(written)), draft(n=len(written) + 1)])
        changes = self.new_ledger("reader").changes_since({})
        assert changes.events == sorted(written, key=lambda e: e.merge_key)
        assert set(changes.cursors) == {"ahead", "behind"}
        for name, cursor in changes.cursors.items():
            assert cursor.head == self.new_ledger("reader").read_feed(name).head
            assert cursor.line == len(self.feed_bytes(name).splitlines(keepends=True)[-1])

    def test_changes_since_cursors_are_only_what_was_appended_after_them(self):
        one, two = self.new_ledger("one", clock=ticking()), self.new_ledger("two", clock=ticking(START_NS + 500))
        self.append(one, [draft(n=1)])
        self.append(two, [draft(n=2)])
        reader = self.new_ledger("reader")
        cursors = reader.changes_since({}).cursors
        new = self.append(two, [draft(n=3)]) + self.append(one, [draft(n=4), draft(n=5)])

        changes = reader.changes_since(cursors)

        assert changes.events == sorted(new, key=lambda e: e.merge_key)
        assert reader.changes_since({**cursors, **changes.cursors}).events == []

    def test_the_lock_holder_catches_up_from_cursors_and_sees_its_own_appends(self):
        ledger = self.new_ledger(clock=ticking())
        self.append(ledger, [draft(n=1)])
        cursors = ledger.changes_since({}).cursors
        with ledger.locked() as txn:
            assert ledger.changes_since(cursors).events == []
            events = txn.append([draft(n=2)])
            assert ledger.cursors()["w1"] == ledger.changes_since(cursors).cursors["w1"]
            assert ledger.changes_since(cursors).events == events
        assert ledger.changes_since(cursors).events == events

    def test_a_cursor_holds_while_its_feed_is_only_appended_to(self):
        ledger = self.new_ledger(clock=ticking())
        self.append(ledger, [draft(n=1), draft(n=2)])
        cursor = ledger.changes_since({}).cursors["w1"]
        self.append(ledger, [draft(n=3)])
        assert ledger.head_holds("w1", cursor)
        assert ledger.head_holds("w1", cursor._replace(line=0))  # a cursor kept without its line length

    def test_a_cursor_that_does_not_describe_the_feed_does_not_hold(self):
        ledger = self.new_ledger(clock=ticking())
        self.append(ledger, [draft(n=1), draft(n=2)])
        cursor = ledger.changes_since({}).cursors["w1"]
        wrong_hash = cursor._replace(head=cursor.head._replace(hash="sha256:" + "0" * 64))
        past_the_end = cursor._replace(head=cursor.head._replace(offset=cursor.head.offset + 10))
        mid_line = cursor._replace(head=cursor.head._replace(offset=cursor.head.offset - 1), line=0)
        for bad in (wrong_hash, past_the_end, mid_line, cursor._replace(line=cursor.line + 1)):
            assert not ledger.head_holds("w1", bad)
            with pytest.raises(FeedRewritten):
                ledger.changes_since({"w1": bad})

    def test_a_feed_rewritten_with_another_history_is_reported_not_read_on(self):
        ledger = self.new_ledger(clock=ticking())
        self.append(ledger, [draft(n=1), draft(n=2)])
        cursor = ledger.changes_since({}).cursors["w1"]
        other = self.new_ledger("w1", clock=ticking(START_NS + 7))
        self.rewrite("w1", b"")
        self.append(other, [draft(n=9), draft(n=8), draft(n=7)])

        assert not ledger.head_holds("w1", cursor)
        with pytest.raises(FeedRewritten) as caught:
            ledger.changes_since({"w1": cursor})
        assert caught.value.feed == "w1" and "changed other than by appending" in caught.value.message

    def test_a_cursor_on_a_feed_that_is_gone_is_reported(self):
        ledger = self.new_ledger()
        with pytest.raises(FeedRewritten) as caught:
            ledger.changes_since({"gone": Cursor(FeedHead(10, 1, "sha256:" + "1" * 64, 1))})
        assert "disappeared" in caught.value.message
