"""The event envelope: round trips, unknown fields, and what the hash covers."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from baton.canonical import digest_of
from baton.errors import EnvelopeError
from baton.ledger import EventDraft, Ledger
from baton.ledger.envelope import KNOWN_FIELDS, Event, seal, seal_batch
from baton.ledger.feed import FeedHead, encode_line, scan_bytes
from baton.ledger.verify import verify_ledger
from baton.values import replace

json_scalars = st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text() | st.floats(
    allow_nan=False, allow_infinity=False
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
payloads = st.dictionaries(st.text(max_size=10), json_values, max_size=5)
# ``batch`` rides in an event's extra fields but is the ledger's own marker
# (DESIGN.md: a batch's events carry {"id", "n", "of"}): never an unknown field.
unknown_fields = st.dictionaries(
    st.text(min_size=1, max_size=12).filter(lambda k: k not in KNOWN_FIELDS and k != "batch"), json_values, max_size=4
)
names = st.text("abcdefghijklmnopqrstuvwxyz./-", min_size=1, max_size=20)


@st.composite
def events(draw) -> Event:
    draft = EventDraft(
        type=draw(names), stream=draw(names), data=draw(payloads),
        actor=draw(st.none() | st.text(max_size=10)), session=draw(st.none() | st.text(max_size=10)),
        schema=draw(st.integers(1, 5)),
    )
    seq = draw(st.integers(1, 10**6))
    event = seal(
        draft, event_id=draw(st.uuids()).hex, writer=draw(st.from_regex(r"[a-z0-9][a-z0-9-]{0,20}", fullmatch=True)),
        seq=seq, at="2024-05-01T12:00:00.000000Z", hlc=draw(st.integers(1, 2**62)),
        stream_version=draw(st.integers(1, 10**6)),
        prev=None if seq == 1 else digest_of(seq - 1),
    )
    extra = draw(unknown_fields)
    if extra:
        event = replace(event, extra=extra)
        event = replace(event, hash=event.compute_hash())
    if draw(st.booleans()) and draw(st.booleans()):
        event = replace(event, data=None)  # an erased payload
    return event


@given(events())
def test_an_event_survives_to_dict_and_from_dict_unchanged(event):
    assert Event.from_dict(event.to_dict()) == event


@given(events())
def test_an_event_survives_a_round_trip_through_its_json_line(event):
    line = orjson.dumps(event.to_dict())
    again = Event.from_dict(orjson.loads(line))
    assert again == event
    assert again.compute_hash() == event.hash


@given(payloads, unknown_fields.filter(bool))
def test_unknown_envelope_fields_survive_reading_and_writing_a_feed(tmp_path_factory, data, extra):
    baton = tmp_path_factory.mktemp("unknown") / ".baton"
    newer = replace(
        seal(EventDraft("note.added", "note/1", data), event_id="0190a8e0-0000-7000-8000-000000000001",
             writer="newer", seq=1, at="2024-05-01T12:00:00.000000Z", hlc=1, stream_version=1, prev=None),
        extra=extra,
    )
    newer = replace(newer, hash=newer.compute_hash())
    (baton / "ledger").mkdir(parents=True)
    (baton / "ledger" / "newer.jsonl").write_bytes(orjson.dumps(newer.to_dict()) + b"\n")

    [read] = Ledger(baton, "reader").read_all()
    assert dict(read.extra) == extra
    rewritten = orjson.dumps(read.to_dict()) + b"\n"
    assert {k: orjson.loads(rewritten)[k] for k in extra} == extra
    assert scan_bytes("newer", rewritten, FeedHead()).events == [newer]
    assert verify_ledger(baton / "ledger").ok


@given(unknown_fields.filter(bool), json_values)
def test_unknown_envelope_fields_are_covered_by_the_hash(extra, replacement):
    event = seal(EventDraft("note.added", "note/1", {"n": 1}), event_id="0190a8e0-0000-7000-8000-000000000001",
                 writer="w", seq=1, at="2024-05-01T12:00:00.000000Z", hlc=1, stream_version=1, prev=None)
    event = replace(event, extra=extra)
    event = replace(event, hash=event.compute_hash())
    name = sorted(extra)[0]
    if orjson.dumps(extra[name], option=orjson.OPT_SORT_KEYS) == orjson.dumps(replacement, option=orjson.OPT_SORT_KEYS):
        replacement = [replacement]
    tampered = replace(event, extra={**extra, name: replacement})
    assert tampered.compute_hash() != event.hash
    dropped = replace(event, extra={k: v for k, v in extra.items() if k != name})
    assert dropped.compute_hash() != event.hash


def test_the_hash_leaves_out_data_so_an_erased_payload_still_verifies():
    event = seal(EventDraft("note.added", "note/1", {"secret": "hunter2"}), event_id="0190a8e0-0000-7000-8000-000000000001",
                 writer="w", seq=1, at="2024-05-01T12:00:00.000000Z", hlc=1, stream_version=1, prev=None)
    erased = Event.from_dict({k: v for k, v in event.to_dict().items() if k != "data"})
    assert erased.erased and erased.compute_hash() == event.hash and erased.data_intact()
    assert replace(event, data={"secret": "other"}).data_intact() is False


@pytest.mark.parametrize("data", [[1, 2], "text", None, 3])
def test_a_draft_whose_data_is_not_an_object_is_refused_and_nothing_is_written(tmp_path, data):
    ledger = Ledger(tmp_path / ".baton", "w", fsync="never")
    with ledger.locked() as txn:
        txn.append([EventDraft("note.added", "note/1", {"n": 1})])
        with pytest.raises(EnvelopeError):
            txn.append([EventDraft("note.added", "note/1", {"n": 2}), EventDraft("note.added", "note/1", data)])
        txn.append([EventDraft("note.added", "note/1", {"n": 3})])
    assert [e.data["n"] for e in ledger.read_all()] == [1, 3]
    assert verify_ledger(tmp_path / ".baton" / "ledger").ok


def test_a_line_missing_a_required_field_is_not_an_event():
    event = seal(EventDraft("note.added", "note/1", {}), event_id="x", writer="w", seq=1,
                 at="2024-05-01T12:00:00.000000Z", hlc=1, stream_version=1, prev=None)
    raw = event.to_dict()
    for name in ("v", "id", "writer", "seq", "hlc", "type", "stream", "stream_version", "digest", "hash"):
        broken = {k: v for k, v in raw.items() if k != name}
        with pytest.raises(EnvelopeError):
            Event.from_dict(broken)
    with pytest.raises(EnvelopeError):
        Event.from_dict({**raw, "seq": True})


@given(st.lists(st.tuples(names, payloads), min_size=1, max_size=5), st.none() | st.text(max_size=10))
def test_the_lines_made_while_sealing_a_batch_are_its_events_encoded(drafted, actor):
    """The writer stores the lines ``seal_batch`` makes beside the events; each
    must be exactly ``encode_line`` of its event, hash included."""
    drafts = [EventDraft(type="test.noted", stream=stream, data=data, actor=actor) for stream, data in drafted]
    lines: list[bytes] = []
    sealed, _ = seal_batch(
        drafts, writer="w1", seq=3, prev=digest_of(3), max_hlc=0, clock=lambda: 1_700_000_000_000_000_000,
        version_of=lambda stream: 2, new_id=lambda now: "0190a1b2-0000-7000-8000-000000000000",
        timestamp=lambda now: "2023-11-14T22:13:20.000000Z", lines=lines,
    )
    assert lines == [encode_line(event) for event in sealed]
    assert all(Event.from_dict(orjson.loads(line)).compute_hash() == event.hash for line, event in zip(lines, sealed))


@pytest.mark.parametrize("text", [',"digest":"', '","digest":"sha256:', ',"data":{}', '\\",\\"hash\\":\\"'])
def test_a_line_is_its_event_encoded_whatever_the_strings_around_the_spliced_members_hold(text):
    """The line is spliced around the ``digest`` member: strings that spell
    out member names (actor, session, type, stream, payload) change nothing."""
    drafts = [EventDraft(type=f"test.{text}", stream=text, data={"digest": text, text: [text]}, actor=text,
                         session=text)]
    for batch in (drafts, drafts * 2):
        lines: list[bytes] = []
        sealed, _ = seal_batch(
            batch, writer="w1", seq=0, prev=None, max_hlc=0, clock=lambda: 1_700_000_000_000_000_000,
            version_of=lambda stream: 0, new_id=lambda now: "0190a1b2-0000-7000-8000-000000000000",
            timestamp=lambda now: "2023-11-14T22:13:20.000000Z", lines=lines,
        )
        assert lines == [encode_line(event) for event in sealed]
