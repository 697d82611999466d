"""Lines are written canonically, and a reader checks them from their bytes —
yet any line another implementation formats differently still verifies."""

from __future__ import annotations

import orjson
from hypothesis import given
from hypothesis import strategies as st

from baton.ledger.envelope import EventDraft
from baton.ledger.feed import FeedHead, _canonical_line_verifies, scan_file
from baton.ledger.store import Ledger
from baton.ledger.verify import verify_ledger

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=12,
)


def _write(tmp_path, payloads) -> Ledger:
    ledger = Ledger(tmp_path / ".baton", "w1", fsync="never")
    with ledger.locked() as txn:
        for data in payloads:
            txn.append([EventDraft("test.noted", "test/1", data)])
    return ledger


def test_every_line_is_the_canonical_json_of_its_event(tmp_path):
    ledger = _write(tmp_path, [{"b": 1, "a": {"d": 2, "c": [3]}}])
    line = ledger.feed_path("w1").read_bytes().rstrip(b"\n")
    assert line == orjson.dumps(orjson.loads(line), option=orjson.OPT_SORT_KEYS)


@given(data=st.dictionaries(st.text(max_size=10), JSON, max_size=4))
def test_a_canonical_line_verifies_from_its_bytes(tmp_path_factory, data):
    ledger = _write(tmp_path_factory.mktemp("l"), [data])
    line = ledger.feed_path("w1").read_bytes().rstrip(b"\n")
    assert _canonical_line_verifies(line, orjson.loads(line))


@given(data=st.dictionaries(st.text(max_size=10), JSON, min_size=1, max_size=4), index=st.integers(0, 10_000),
       byte=st.integers(0, 255))
def test_no_changed_line_passes_the_byte_check(tmp_path_factory, data, index, byte):
    ledger = _write(tmp_path_factory.mktemp("l"), [data])
    line = bytearray(ledger.feed_path("w1").read_bytes().rstrip(b"\n"))
    i = index % len(line)
    if line[i] == byte:
        return
    line[i] = byte
    try:
        raw = orjson.loads(bytes(line))
    except orjson.JSONDecodeError:
        return
    assert not _canonical_line_verifies(bytes(line), raw)


def test_a_line_formatted_by_another_writer_still_verifies(tmp_path):
    ledger = _write(tmp_path, [{"b": 1, "a": 2}, {"z": [1, 2]}])
    path = ledger.feed_path("w1")
    # Same events, keys in another order and with spaces: not canonical bytes.
    lines = [orjson.loads(x) for x in path.read_bytes().splitlines()]
    path.write_bytes(b"".join(
        orjson.dumps(dict(reversed(list(e.items()))), option=orjson.OPT_INDENT_2).replace(b"\n", b" ") + b"\n"
        for e in lines))
    scan = scan_file(path, FeedHead())
    assert len(scan.events) == 2 and scan.torn is None and not scan.problems
    assert verify_ledger(path.parent).ok
