"""``baton verify`` streams the ledger (issue 27 item 3): it reads every feed a
chunk at a time through one merge and keeps, per event, only its id and hash,
never the events. Its report is the same whatever the chunk size — a chunk
larger than every feed is the whole-file read it replaced — on sound and
damaged ledgers alike, and each feed's part of it is what one whole-file
collecting scan of that feed finds."""

from __future__ import annotations

import itertools

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baton.ledger import EventDraft, Ledger
from baton.ledger import verify as verify_module
from baton.ledger.feed import scan_file
from baton.ledger.verify import _hash_value, _SeqHashes, verify_ledger
from tests.test_ledger_checks import feed_of, resealed

WHOLE = 1 << 40


def ticking(start: int):
    ticks = itertools.count(start, 1_000)
    return lambda: next(ticks)


def build(root, plan) -> None:
    """Feeds written by real writers (batches, shared streams, an erasure and a
    forget), then damaged as ``plan`` says."""
    writers = [Ledger(root, name, fsync="never", clock=ticking(1_700_000_000_000_000_000 + i * 500))
               for i, name in enumerate(("w1", "w2", "w3")[:plan["writers"]])]
    for step, (who, size, stream) in enumerate(plan["appends"]):
        ledger = writers[who % len(writers)]
        with ledger.locked() as txn:
            drafts = [EventDraft("test.noted", f"s/{(stream + k) % 3}", {"n": step, "k": k, "pad": "x" * (step % 7)})
                      for k in range(size)]
            txn.append(drafts)
    for who, line_no, how in plan["damage"]:
        path = writers[who % len(writers)].feed_path(writers[who % len(writers)].writer)
        lines = path.read_bytes().splitlines(keepends=True) if path.is_file() else []
        if not lines:
            continue
        i = line_no % len(lines)
        if how == "flip":
            lines[i] = lines[i].replace(b'"n":', b'"N":', 1)
        elif how == "drop":
            del lines[i]
        elif how == "repeat":
            lines.insert(i, lines[i])
        elif how == "garbage":
            lines.insert(i, b"{not json\n")
        elif how == "erase" and lines[i].startswith(b'{"') and lines[i].endswith(b"\n"):  # a torn line is not erased
            raw = orjson.loads(lines[i])
            raw.pop("data", None)
            lines[i] = orjson.dumps(raw, option=orjson.OPT_SORT_KEYS) + b"\n"
        elif how == "torn":
            lines[-1] = lines[-1][: len(lines[-1]) // 2]
        elif how == "nul":
            lines.append(b"\x00" * 9)
        path.write_bytes(b"".join(lines))


plans = st.fixed_dictionaries({
    "writers": st.integers(1, 3),
    "appends": st.lists(st.tuples(st.integers(0, 2), st.integers(1, 4), st.integers(0, 2)), min_size=1, max_size=25),
    "damage": st.lists(st.tuples(st.integers(0, 2), st.integers(0, 60),
                                 st.sampled_from(["flip", "drop", "repeat", "garbage", "erase", "torn", "nul"])),
                       max_size=3),
})


def report_at(monkeypatch, ledger_dir, chunk: int, *, on_disk: bool = False) -> dict:
    """The report, read ``chunk`` bytes at a time, remembering in dicts or (``on_disk``) in a
    temporary database that holds two streams in memory and writes every three rows."""
    monkeypatch.setattr(verify_module, "VERIFY_CHUNK_BYTES", chunk)
    monkeypatch.setattr(verify_module, "SPILL_BYTES", -1 if on_disk else 1 << 40)
    monkeypatch.setattr(verify_module._OnDisk, "RECENT", 2)
    monkeypatch.setattr(verify_module._OnDisk, "BATCH", 3)
    report = verify_ledger(ledger_dir, erasure_type="test.forgotten")
    return {**report.to_json(), "recorded": [(r.feed, r.seq, r.hash, r.offset, r.source) for r in report.recorded]}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=plans, chunk=st.sampled_from([64, 333, 1500, 4096]))
def test_the_report_is_the_same_whatever_the_chunk_size_on_sound_and_damaged_ledgers(tmp_path_factory, monkeypatch,
                                                                                    plan, chunk):
    root = tmp_path_factory.mktemp("ledger") / ".baton"
    build(root, plan)
    whole = report_at(monkeypatch, root / "ledger", WHOLE)
    assert report_at(monkeypatch, root / "ledger", chunk) == whole
    assert report_at(monkeypatch, root / "ledger", chunk, on_disk=True) == whole
    for feed in whole["feeds"]:
        scan = scan_file(root / "ledger" / f"{feed['feed']}.jsonl", collect=True)
        assert feed["events"] == len(scan.events) and feed["last_hash"] == scan.head.hash
        assert feed["problems"] == [p.to_json() for p in scan.problems]
        assert feed["torn_tail"] == (scan.torn.to_json() if scan.torn else None)


def test_recorded_heads_are_checked_against_the_hashes_kept_for_each_seq(tmp_path, monkeypatch):
    """Over ``HEADS_EVERY`` events a writer records the other feeds' heads in the
    ledger itself; verify checks them against the 32 bytes it kept per event."""
    root = tmp_path / ".baton"
    w1, w2 = (Ledger(root, n, fsync="never", clock=ticking(1_700_000_000_000_000_000 + i)) for i, n in
              enumerate(("w1", "w2")))
    for n in range(140):
        for ledger in (w1, w2):
            with ledger.locked() as txn:
                txn.append([EventDraft("test.noted", f"s/{ledger.writer}", {"n": n})])
    sound = report_at(monkeypatch, root / "ledger", 4096)
    assert sound["ok"] and sound["heads_checked"] >= 2
    path = w2.feed_path("w2")
    lines = path.read_bytes().splitlines(keepends=True)
    raw = orjson.loads(lines[9])
    raw["hash"] = "sha256:" + "0" * 64  # seq 10 of w2 now holds another hash than w1 recorded... or not at all
    lines[9] = orjson.dumps(raw, option=orjson.OPT_SORT_KEYS) + b"\n"
    path.write_bytes(b"".join(lines))
    damaged = report_at(monkeypatch, root / "ledger", 4096)
    assert not damaged["ok"]
    assert damaged == report_at(monkeypatch, root / "ledger", WHOLE)
    assert damaged == report_at(monkeypatch, root / "ledger", 4096, on_disk=True)


def test_hashes_kept_per_seq_are_given_back_exactly_in_a_run_or_out_of_it():
    kept = _SeqHashes()
    a, b, odd = "sha256:" + "ab" * 32, "sha256:" + "0f" * 32, "sha256:" + "AB" * 32
    kept.add(1, a)
    kept.add(2, b)
    kept.add(3, odd)  # upper case: not what a sound line holds, kept as written
    kept.add(9, a)  # a seq that jumps (a damaged feed)
    kept.add(4, "md5:x")
    assert [kept.get(s) for s in (1, 2, 3, 4, 9)] == [a, b, odd, "md5:x", a]
    assert kept.get(0) is None and kept.get(5) is None and kept.get(10) is None


def test_ids_are_the_same_for_the_duplicate_check_exactly_when_they_are_the_same_string():
    from baton.ledger.verify import _id_key

    canonical = "01900000-0000-7abc-8000-00000000000a"
    assert _id_key(canonical) == bytes.fromhex(canonical.replace("-", ""))
    others = [canonical.upper(), "019000000-000-7abc-8000-00000000000a", "01900000-0000-7abc-8000-00000000000g",
              "not-a-uuid", "01900000000070008000000000000000000a"]
    keys = [_id_key(x) for x in others]
    assert len(set(keys) | {_id_key(canonical)}) == len(others) + 1
    assert all(k == x for k, x in zip(keys, others))  # kept as they are


def resealed(line: bytes, **changes) -> bytes:
    from baton.ledger.envelope import Event

    raw = orjson.loads(line)
    raw.update(changes)
    raw["hash"] = Event.from_dict(raw).compute_hash()
    return orjson.dumps(raw, option=orjson.OPT_SORT_KEYS) + b"\n"


def test_an_id_seen_three_times_is_two_duplicates_each_naming_the_feed_before_it_in_memory_and_on_disk(
        tmp_path, monkeypatch):
    root = tmp_path / ".baton"
    ledgers = [Ledger(root, name, fsync="never", clock=ticking(1_700_000_000_000_000_000 + i * 10**9))
               for i, name in enumerate(("w1", "w2", "w3"))]
    for ledger in ledgers:
        append_notes(ledger, 3)
    first_id = orjson.loads(ledgers[0].feed_path("w1").read_bytes().splitlines()[1])["id"]
    for ledger in ledgers[1:]:
        path = ledger.feed_path(ledger.writer)
        lines = path.read_bytes().splitlines(keepends=True)
        lines[0] = resealed(lines[0], id=first_id)
        lines[1] = resealed(lines[1], prev=orjson.loads(lines[0])["hash"])
        lines[2] = resealed(lines[2], prev=orjson.loads(lines[1])["hash"])
        path.write_bytes(b"".join(lines))

    in_memory = report_at(monkeypatch, root / "ledger", 4096)
    on_disk = report_at(monkeypatch, root / "ledger", 4096, on_disk=True)

    assert on_disk == in_memory
    assert [(p["feed"], p["kind"]) for p in in_memory["problems"]] == [("w2", "duplicate_id"), ("w3", "duplicate_id")]
    assert "also appears in feed 'w1'" in in_memory["problems"][0]["message"]
    assert "also appears in feed 'w2'" in in_memory["problems"][1]["message"]
    assert first_id in in_memory["problems"][1]["message"]


def append_notes(ledger: Ledger, n: int) -> None:
    for i in range(n):
        with ledger.locked() as txn:
            txn.append([EventDraft("test.noted", f"s/{ledger.writer}", {"n": i})])


def test_a_hash_is_stored_on_disk_as_32_bytes_only_when_it_is_given_back_exactly():
    canonical = "sha256:" + "ab" * 32
    assert _hash_value(canonical) == bytes.fromhex("ab" * 32)
    for other in ("sha256:" + "AB" * 32, "sha256:" + "zz" * 32, "md5:1", "sha256:" + "ab" * 31):
        assert _hash_value(other) == other


def test_verify_checks_in_memory_when_its_temporary_database_fails_at_any_point(tmp_path, monkeypatch):
    import sqlite3

    root = tmp_path / ".baton"
    append_notes(Ledger(root, "w1", fsync="never", clock=ticking(1_700_000_000_000_000_000)), 20)
    expected = report_at(monkeypatch, root / "ledger", 4096)
    calls = {"n": 0}
    real_stream = verify_module._OnDisk.stream

    def failing_stream(self, stream, writer):
        calls["n"] += 1
        if calls["n"] == 7:
            raise sqlite3.OperationalError("database or disk is full")
        return real_stream(self, stream, writer)

    monkeypatch.setattr(verify_module._OnDisk, "stream", failing_stream)
    assert report_at(monkeypatch, root / "ledger", 4096, on_disk=True) == expected and calls["n"] >= 7

    def refused(self):
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr(verify_module._OnDisk, "__init__", refused)
    assert report_at(monkeypatch, root / "ledger", 4096, on_disk=True) == expected


def test_problems_across_feeds_are_in_merge_order_with_either_memory(tmp_path, monkeypatch):
    """A duplicate id, a stream gap, then one event both a duplicate and a gap
    (the duplicate first): in that order whether verify remembers in dicts
    (which notice a duplicate as it comes) or in a temporary database (which
    finds duplicates by grouping at the end)."""
    w1, lines = feed_of(tmp_path, 2, "w1")
    ids = [orjson.loads(line)["id"] for line in lines]
    changes = {"w2": {"id": ids[0]}, "w3": {"stream_version": 3}, "w4": {"id": ids[1], "stream_version": 3}}
    for name, change in changes.items():
        _, [line] = feed_of(tmp_path, 1, name)
        w1.feed_path(name).write_bytes(resealed(line, **change))
    expected = [("duplicate_id", "w2"), ("stream_gap", "w3"), ("duplicate_id", "w4"), ("stream_gap", "w4")]
    for on_disk in (False, True):
        report = report_at(monkeypatch, tmp_path / ".baton" / "ledger", WHOLE, on_disk=on_disk)
        assert [(p["kind"], p["feed"]) for p in report["problems"]] == expected
