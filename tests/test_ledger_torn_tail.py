"""Torn tails and corruption: what readers skip, what the next writer repairs,
and what is never skipped."""

from __future__ import annotations

import itertools
import json

import orjson
import pytest

from baton.errors import LedgerCorrupt
from baton.ledger import EventDraft, Ledger
from baton.ledger.verify import verify_ledger
from tests.conftest import run_baton

WRITER = "w1"


def ticking():
    ticks = itertools.count(1_700_000_000_000_000_000, 1_000)
    return lambda: next(ticks)


def write_events(baton_dir, n, writer=WRITER):
    ledger = Ledger(baton_dir, writer, fsync="never", clock=ticking())
    with ledger.locked() as txn:
        for i in range(n):
            txn.append([EventDraft("test.noted", "test/1", {"n": i})])
    return ledger


def torn_bytes(kind: str, feed_bytes: bytes) -> bytes:
    """The trace a dying writer (or a lost block) leaves after the last sound line."""
    last = feed_bytes.splitlines()[-1]
    if kind == "unterminated":
        return last[: len(last) // 2]
    if kind == "nul_line":
        return b"\x00" * 40 + b"\n"
    if kind == "nul_run":
        return b"\x00" * 40
    if kind == "event_without_newline":
        return next_event_line(last)[:-1]
    raise AssertionError(kind)


def next_event_line(last: bytes) -> bytes:
    """A well-formed next line after ``last`` (its hash made up)."""
    raw = orjson.loads(last)
    raw["seq"] += 1
    raw["prev"] = raw["hash"]
    raw["hash"] = "sha256:" + "0" * 64
    return orjson.dumps(raw) + b"\n"


TORN_KINDS = ["unterminated", "nul_line", "nul_run", "event_without_newline"]


@pytest.mark.parametrize("kind", TORN_KINDS)
def test_readers_ignore_a_torn_last_line(tmp_path, kind):
    baton = tmp_path / ".baton"
    ledger = write_events(baton, 3)
    feed = ledger.feed_path(WRITER)
    sound = feed.read_bytes()
    feed.write_bytes(sound + torn_bytes(kind, sound))

    assert [e.data["n"] for e in Ledger(baton, "reader").read_all()] == [0, 1, 2]
    report = verify_ledger(baton / "ledger")
    assert report.ok
    assert report.feeds[0].torn.offset == len(sound)
    assert feed.read_bytes().startswith(sound) and len(feed.read_bytes()) > len(sound)  # readers never repair


@pytest.mark.parametrize("kind", TORN_KINDS)
def test_the_next_writer_quarantines_and_cuts_a_torn_tail(tmp_path, kind):
    baton = tmp_path / ".baton"
    write_events(baton, 3)
    feed = baton / "ledger" / f"{WRITER}.jsonl"
    sound = feed.read_bytes()
    tail = torn_bytes(kind, sound)
    feed.write_bytes(sound + tail)

    next_writer = Ledger(baton, WRITER, fsync="never")
    with next_writer.locked() as txn:
        [added] = txn.append([EventDraft("test.noted", "test/1", {"n": 3})], expected={"test/1": 3})

    assert feed.read_bytes().startswith(sound)
    [kept] = list((baton / "quarantine").iterdir())
    assert kept.read_bytes() == tail
    assert kept.name.startswith(f"{WRITER}.{len(sound)}.")
    assert [e.data["n"] for e in Ledger(baton, "reader").read_all()] == [0, 1, 2, 3]
    assert added.seq == 4
    report = verify_ledger(baton / "ledger")
    assert report.ok and report.feeds[0].torn is None


def last_line_edited(kind: str, feed_bytes: bytes) -> bytes:
    """The feed with its last, newline-terminated line changed but still JSON."""
    lines = feed_bytes.splitlines(keepends=True)
    last = orjson.loads(lines[-1])
    if kind == "envelope":
        last["at"] = last["at"].replace(last["at"][-2], "9" if last["at"][-2] != "9" else "8")
    elif kind == "payload":
        last["data"] = {"n": 99}
    elif kind == "seq":
        last["seq"] += 1
    elif kind == "hash":
        last["hash"] = "sha256:" + "0" * 64
    elif kind == "appended_line":
        return feed_bytes + next_event_line(lines[-1])
    elif kind == "not_json":
        return b"".join(lines[:-1]) + lines[-1].replace(b'"', b"'", 1)
    return b"".join(lines[:-1]) + orjson.dumps(last, option=orjson.OPT_SORT_KEYS) + b"\n"


LAST_LINE_EDITS = ["envelope", "payload", "seq", "hash", "appended_line", "not_json"]


@pytest.mark.parametrize("kind", LAST_LINE_EDITS)
def test_an_edited_last_line_is_corruption_not_a_torn_tail(tmp_path, kind):
    baton = tmp_path / ".baton"
    write_events(baton, 3)
    feed = baton / "ledger" / f"{WRITER}.jsonl"
    damaged = last_line_edited(kind, feed.read_bytes())
    feed.write_bytes(damaged)

    report = verify_ledger(baton / "ledger")
    assert not report.ok and report.feeds[0].torn is None
    with pytest.raises(LedgerCorrupt):
        Ledger(baton, "reader").read_all()
    with pytest.raises(LedgerCorrupt):
        with Ledger(baton, WRITER, fsync="never").locked() as txn:
            txn.append([EventDraft("test.noted", "test/1", {"n": 9})])
    assert feed.read_bytes() == damaged  # nothing cut, nothing appended
    assert not (baton / "quarantine").exists()


def test_an_edited_last_claim_cannot_be_claimed_again(project):
    """The issue's exploit: edit the last ``baton.claimed`` line and bootstrap again."""
    assert run_baton("session", "end", "s1", "--handoff-steps", "a", "--project", str(project)).returncode == 0
    assert run_baton("bootstrap", "--session-id", "s2", "--project", str(project)).returncode == 0
    feed = next((project / ".baton" / "ledger").glob("*.jsonl"))
    lines = feed.read_bytes().splitlines(keepends=True)
    # A start named by its id records itself in the claim's batch: the claim is the line before the last.
    last = max(i for i, line in enumerate(lines) if b'"baton.claimed"' in line)
    assert last == len(lines) - 2
    lines[last] = lines[last].replace(b'"at":"2', b'"at":"3', 1)
    feed.write_bytes(b"".join(lines))

    again = run_baton("bootstrap", "--session-id", "s3", "--json", "--project", str(project))
    assert again.returncode == 0  # a hook never breaks the session
    assert json.loads(again.stdout)["claimed"] is False
    after = feed.read_bytes()
    assert after.startswith(b"".join(lines))  # not cut
    assert b'"baton.claimed"' not in after[len(b"".join(lines)):]  # and no second claim appended
    assert run_baton("verify", "--project", str(project)).returncode == 3


def test_a_writer_leaves_another_writers_torn_tail_alone(tmp_path):
    baton = tmp_path / ".baton"
    write_events(baton, 2, writer="other")
    feed = baton / "ledger" / "other.jsonl"
    damaged = feed.read_bytes() + b'{"v":1,"id":"half'
    feed.write_bytes(damaged)

    write_events(baton, 1, writer=WRITER)

    assert feed.read_bytes() == damaged
    assert not (baton / "quarantine").exists()


def test_a_bad_line_in_the_middle_makes_readers_raise_ledger_corrupt(tmp_path):
    baton = tmp_path / ".baton"
    ledger = write_events(baton, 3)
    feed = ledger.feed_path(WRITER)
    lines = feed.read_bytes().splitlines(keepends=True)
    feed.write_bytes(lines[0] + b"not json\n" + lines[2])

    with pytest.raises(LedgerCorrupt) as caught:
        Ledger(baton, "reader").read_all()
    assert caught.value.exit_code == 3
    assert caught.value.details["feed"] == WRITER and caught.value.details["offset"] == len(lines[0])


def test_a_writer_refuses_to_append_after_a_bad_line_in_the_middle(tmp_path):
    baton = tmp_path / ".baton"
    ledger = write_events(baton, 3)
    feed = ledger.feed_path(WRITER)
    lines = feed.read_bytes().splitlines(keepends=True)
    damaged = lines[0] + lines[1].replace(b'"n":1', b'"n":5') + lines[2]
    feed.write_bytes(damaged)

    with pytest.raises(LedgerCorrupt):
        with Ledger(baton, WRITER).locked() as txn:
            txn.append([EventDraft("test.noted", "test/1", {"n": 9})])
    assert feed.read_bytes() == damaged
    assert not (baton / "quarantine").exists()


@pytest.fixture
def corrupt_project(project):
    from baton.commands.context import Project

    opened = Project.open(project)
    with opened.writing() as scope:
        for n in range(3):
            scope.append([EventDraft("test.noted", "test/1", {"n": n})])
    opened.close()
    feed = opened.ledger.feed_path(opened.writer)
    lines = feed.read_bytes().splitlines(keepends=True)
    lines[2] = lines[2].replace(b'"n":1', b'"n":7')  # line 3 = seq 3, payload changed behind its digest
    feed.write_bytes(b"".join(lines))
    return project, opened.writer, sum(len(line) for line in lines[:2])


@pytest.mark.parametrize("command", [["log"], ["rebuild"]])
def test_reading_commands_exit_3_on_a_corrupt_feed(corrupt_project, command):
    project, writer, _ = corrupt_project
    r = run_baton(*command, "--json", "--project", str(project))
    assert r.returncode == 3, r.stderr
    error = json.loads(r.stdout)["error"]
    assert error["code"] == "ledger_corrupt" and error["details"]["feed"] == writer
    assert "Traceback" not in r.stderr


def test_verify_names_the_feed_seq_offset_and_problem(corrupt_project):
    project, writer, offset = corrupt_project
    r = run_baton("verify", "--json", "--project", str(project))
    assert r.returncode == 3
    out = json.loads(r.stdout)
    assert out["ok"] is False
    problem = out["problems"][0]  # later ones follow from it (the stream then misses a version)
    assert problem == {"feed": writer, "offset": offset, "seq": 3, "kind": "bad_digest",
                       "message": problem["message"]}
    text = run_baton("verify", "--project", str(project)).stdout
    assert writer in text and "seq 3" in text and f"byte {offset}" in text and "bad_digest" in text


def test_a_complete_event_followed_by_whitespace_instead_of_its_newline_is_corruption(tmp_path):
    baton = tmp_path / ".baton"
    write_events(baton, 3)
    feed = baton / "ledger" / f"{WRITER}.jsonl"
    raw = feed.read_bytes()
    feed.write_bytes(raw[:-1] + b" ")

    report = verify_ledger(baton / "ledger")
    assert [p.kind for p in report.all_problems()] == ["bad_json"]
    assert "where its newline should be" in report.all_problems()[0].message


def test_verify_reports_a_torn_tail_without_failing(project):
    feed = next((project / ".baton" / "ledger").glob("*.jsonl"))
    feed.write_bytes(feed.read_bytes() + b'{"v":1,')
    r = run_baton("verify", "--json", "--project", str(project))
    assert r.returncode == 0
    [report] = json.loads(r.stdout)["feeds"]
    assert report["torn_tail"]["length"] == len(b'{"v":1,')


def _full_disk(monkeypatch):
    """Every write of a file's bytes fails as on a full disk (ENOSPC), after the file was created."""
    import errno

    import baton.ledger.files as files

    def full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files, "write_all", full)


def test_a_torn_tail_that_cannot_be_copied_leaves_no_empty_quarantine_file(tmp_path, monkeypatch):
    from baton.errors import StorageError

    baton = tmp_path / ".baton"
    write_events(baton, 3)
    feed = baton / "ledger" / f"{WRITER}.jsonl"
    sound = feed.read_bytes()
    feed.write_bytes(sound + torn_bytes("unterminated", sound))
    _full_disk(monkeypatch)
    with pytest.raises(StorageError, match="No space left"):
        with Ledger(baton, WRITER, fsync="never").locked() as txn:
            txn.append([EventDraft("test.noted", "test/1", {"n": 3})], expected={"test/1": 3})
    assert list((baton / "quarantine").iterdir()) == []
    assert feed.read_bytes().startswith(sound) and len(feed.read_bytes()) > len(sound)  # the tail, still there
