"""Event ids (UUIDv7, RFC 9562 §5.7), the heads cadence, and the file helpers every feed read goes through."""

from __future__ import annotations

import os
import uuid

import pytest

from baton.ledger import files, ids
from baton.ledger.integrity import HEADS_EVERY, heads_draft, heads_due

NOW = 1_700_000_000_123_456_789  # ns


@pytest.fixture
def fresh_clock(monkeypatch):
    """Forget the ids minted before (the counter, the last millisecond and the
    random bytes drawn ahead are per process)."""
    monkeypatch.setattr(ids, "_last_ms", -1)
    monkeypatch.setattr(ids, "_counter", 0)
    monkeypatch.setattr(ids, "_pool", "")
    monkeypatch.setattr(ids, "_at", 0)


def test_an_id_is_a_version_7_rfc_variant_uuid_carrying_its_millisecond(fresh_clock):
    minted = ids.uuid7(NOW)
    parsed = uuid.UUID(minted)
    assert str(parsed) == minted and parsed.version == 7 and parsed.variant == uuid.RFC_4122
    assert ids.is_uuid7(minted) and ids.uuid7_millis(minted) == NOW // 1_000_000
    assert minted.startswith(f"{NOW // 1_000_000:012x}"[:8] + "-" + f"{NOW // 1_000_000:012x}"[8:])


def test_ids_minted_in_one_millisecond_sort_in_minting_order_with_a_counter(fresh_clock):
    minted = [ids.uuid7(NOW) for _ in range(50)]
    assert minted == sorted(minted) and len(set(minted)) == 50
    counters = [uuid.UUID(m).int >> 64 & 0xFFF for m in minted]
    assert counters[0] <= 0x7FF and counters == list(range(counters[0], counters[0] + 50))
    assert {ids.uuid7_millis(m) for m in minted} == {NOW // 1_000_000}


def test_an_id_minted_after_a_clock_step_back_still_sorts_after_the_last(fresh_clock):
    later = ids.uuid7(NOW)
    earlier_clock = ids.uuid7(NOW - 5_000_000)
    assert earlier_clock > later and ids.uuid7_millis(earlier_clock) == NOW // 1_000_000


def test_when_the_counter_runs_out_the_millisecond_moves_on(fresh_clock, monkeypatch):
    ids.uuid7(NOW)
    monkeypatch.setattr(ids, "_counter", 0xFFF)
    rolled = ids.uuid7(NOW)
    assert ids.uuid7_millis(rolled) == NOW // 1_000_000 + 1 and uuid.UUID(rolled).int >> 64 & 0xFFF == 0


def test_the_random_part_fills_the_62_bits_after_the_variant(fresh_clock, monkeypatch):
    monkeypatch.setattr(os, "urandom", lambda n: b"\xff" * n)
    minted = uuid.UUID(ids.uuid7(NOW))
    assert minted.int & ((1 << 62) - 1) == (1 << 62) - 1 and minted.variant == uuid.RFC_4122
    assert minted.int >> 64 & 0xFFF == 0x7FF  # a new millisecond's counter starts below half its range


def test_ids_drawn_from_zero_bytes_keep_every_leading_zero_digit(fresh_clock, monkeypatch):
    monkeypatch.setattr(os, "urandom", lambda n: b"\x00" * n)
    first, second = ids.uuid7(NOW), ids.uuid7(NOW)
    for minted, counter in ((first, 0), (second, 1)):
        parsed = uuid.UUID(minted)
        assert str(parsed) == minted and parsed.version == 7 and parsed.variant == uuid.RFC_4122
        assert parsed.int >> 64 & 0xFFF == counter and parsed.int & ((1 << 62) - 1) == 0
    assert first[14:23] == "7000-8000" and second[14:23] == "7001-8000"


def test_an_id_minted_now_carries_the_current_millisecond(fresh_clock):
    import time

    before = time.time_ns() // 1_000_000
    minted = ids.uuid7()
    assert before <= ids.uuid7_millis(minted) <= time.time_ns() // 1_000_000
    assert not ids.is_uuid7(minted.upper()) and not ids.is_uuid7("not an id") and not ids.is_uuid7(None)


@pytest.mark.parametrize(("seq_before", "appended", "due"), [
    (0, 1, False), (HEADS_EVERY - 3, 1, False), (HEADS_EVERY - 2, 1, True), (HEADS_EVERY - 1, 1, True),
    (HEADS_EVERY, 1, False), (2 * HEADS_EVERY - 5, 4, True), (10, 2 * HEADS_EVERY, True),
])
def test_heads_are_due_each_time_a_feed_s_seq_crosses_a_multiple_of_64(seq_before, appended, due):
    assert HEADS_EVERY == 64
    assert heads_due(seq_before, appended) is due


def test_a_heads_event_records_the_other_feeds_that_have_events():
    draft = heads_draft("w1", {"w1": (5, "h1", 10), "w2": (3, "h2", 30), "w3": (0, None, 0)})
    assert draft.stream == "ledger/w1" and draft.data == {"heads": {"w2": {"seq": 3, "hash": "h2", "offset": 30}}}
    assert heads_draft("w1", {"w1": (5, "h1", 10)}) is None


def test_reading_a_range_reads_exactly_those_bytes_and_closes_the_file(tmp_path):
    path = tmp_path / "feed"
    path.write_bytes(b"0123456789")
    fds = len(os.listdir("/proc/self/fd"))
    assert files.read_range(str(path), 3, 4) == b"3456"
    assert files.read_range(str(path), 3) == b"3456789"
    assert files.read_range(str(path), 0) == b"0123456789"
    assert files.read_range(str(path), 12) == b""
    assert files.read_range(str(path), 8, 5) == b"89"
    assert len(os.listdir("/proc/self/fd")) == fds


def test_a_write_that_writes_nothing_is_a_short_write(monkeypatch):
    monkeypatch.setattr(os, "write", lambda fd, data: 0)
    with pytest.raises(OSError, match="short write"):
        files.write_all(1, b"x")


def test_a_write_is_repeated_until_every_byte_is_written(tmp_path, monkeypatch):
    real = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: real(fd, bytes(data[:3])))
    fd = os.open(tmp_path / "out", os.O_WRONLY | os.O_CREAT)
    try:
        files.write_all(fd, b"0123456789")
    finally:
        os.close(fd)
    assert (tmp_path / "out").read_bytes() == b"0123456789"


def test_syncing_a_folder_closes_it_and_a_missing_folder_is_skipped(tmp_path):
    fds = len(os.listdir("/proc/self/fd"))
    files.fsync_dir(tmp_path)
    files.fsync_dir(tmp_path / "missing")
    assert len(os.listdir("/proc/self/fd")) == fds


def test_a_file_s_identity_is_its_device_and_inode(tmp_path):
    st = os.stat(tmp_path)
    assert files.file_ident(st) == (st.st_dev, st.st_ino)


def test_reading_one_byte_reads_it(tmp_path):
    path = tmp_path / "feed"
    path.write_bytes(b"0123456789")
    assert files.read_range(str(path), 3, 1) == b"3"


def test_closing_quietly_closes_and_ignores_a_descriptor_already_closed(tmp_path):
    fd = os.open(tmp_path, os.O_RDONLY)
    files.close_quietly(fd)
    with pytest.raises(OSError):
        os.fstat(fd)
    files.close_quietly(fd)


def test_closing_a_ledger_releases_its_open_feed(tmp_path):
    from baton.ledger import EventDraft, Ledger

    fds = len(os.listdir("/proc/self/fd"))
    ledger = Ledger(tmp_path / ".baton", "w1", fsync="never")
    with ledger.locked() as txn:
        txn.append([EventDraft("test.noted", "test/1", {"n": 1})])
    ledger.close()
    assert len(os.listdir("/proc/self/fd")) == fds


def test_a_lock_file_made_again_after_its_folder_went_away_is_a_plain_file(tmp_path):
    import shutil

    from baton.ledger import EventDraft, Ledger

    ledger = Ledger(tmp_path / ".baton", "w1", fsync="never")
    with ledger.locked() as txn:
        txn.append([EventDraft("test.noted", "test/1", {"n": 1})])
    shutil.rmtree(tmp_path / ".baton")
    with ledger.locked():
        pass
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / ".baton" / "ledger.lock").stat().st_mode & 0o777 == 0o644 & ~umask


def test_a_verify_report_counts_the_events_of_every_feed(tmp_path):
    from baton.ledger import EventDraft, Ledger
    from baton.ledger.verify import verify_ledger

    for writer, n in (("w1", 2), ("w2", 3)):
        with Ledger(tmp_path / ".baton", writer, fsync="never").locked() as txn:
            for i in range(n):
                txn.append([EventDraft("test.noted", f"test/{writer}", {"n": i})])
    report = verify_ledger(tmp_path / ".baton" / "ledger")
    assert report.event_count == 5 and report.to_json()["events"] == 5


def test_the_counter_uses_all_twelve_bits_before_the_millisecond_moves_on(fresh_clock, monkeypatch):
    ids.uuid7(NOW)
    monkeypatch.setattr(ids, "_counter", 0xFFE)
    last = ids.uuid7(NOW)
    assert ids.uuid7_millis(last) == NOW // 1_000_000 and uuid.UUID(last).int >> 64 & 0xFFF == 0xFFF


def test_a_new_millisecond_s_counter_comes_from_bits_64_to_74_of_the_draw(fresh_clock, monkeypatch):
    draw = (0b101_0110_1001 << 64) | 0x5555_5555_5555_5555
    monkeypatch.setattr(os, "urandom", lambda n: draw.to_bytes(10, "big"))
    minted = uuid.UUID(ids.uuid7(NOW))
    assert minted.int >> 64 & 0xFFF == 0b101_0110_1001
    assert minted.int & ((1 << 62) - 1) == 0x5555_5555_5555_5555 & ((1 << 62) - 1)


def test_ids_draw_random_bytes_ahead_but_never_hand_out_the_same_bytes_twice(fresh_clock, monkeypatch):
    draws = []

    def counting(n):
        draws.append(n)
        return bytes(range(256)) * (n // 256) + bytes(range(n % 256))

    monkeypatch.setattr(os, "urandom", counting)
    minted = [uuid.UUID(ids.uuid7(NOW + i * 1_000_000)) for i in range(ids._POOL_IDS + 1)]
    assert len(draws) == 2  # one system call for a pool of ids, the next when it runs out
    assert len({m.int & ((1 << 62) - 1) for m in minted[:ids._POOL_IDS]}) == ids._POOL_IDS


def test_a_forked_child_draws_its_own_random_bytes(fresh_clock):
    ids.uuid7(NOW)  # the parent has bytes drawn ahead
    assert ids._pool
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report whether it inherited the parent's pool
        os.close(read)
        os.write(write, b"empty" if not ids._pool else b"inherited")
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    with os.fdopen(read, "rb") as answer:
        assert answer.read() == b"empty"


def test_each_id_takes_the_next_ten_random_bytes_and_the_pool_is_refilled_only_when_spent(monkeypatch):
    """Ids draw their randomness from a pool filled by one ``os.urandom`` call: each id takes
    the next 10 bytes, none twice, and the pool is refilled exactly when fewer than 10 remain."""
    ledger_ids = ids
    calls: list[int] = []

    def numbered(n: int) -> bytes:  # chunk j of call c reads as the number c * 1000 + j
        calls.append(n)
        return b"".join((len(calls) * 1000 + j).to_bytes(10, "big") for j in range(n // 10))

    monkeypatch.setattr(ledger_ids, "_pool", "")
    monkeypatch.setattr(ledger_ids.os, "urandom", numbered)
    per_pool = ledger_ids._POOL_IDS
    drawn = [int(ledger_ids.uuid7().replace("-", ""), 16) & ((1 << 62) - 1) for _ in range(per_pool + 1)]
    assert drawn == [1000 + j for j in range(per_pool)] + [2000]
    assert calls == [10 * per_pool, 10 * per_pool]
