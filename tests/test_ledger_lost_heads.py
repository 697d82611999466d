"""A writer never builds on a ledger that lost acknowledged bytes (issue 25).

The index records the last line of every feed it folded (``feed_heads``,
kept across rebuilds). A write that finds a feed shorter than that — its last
lines deleted, a line the index holds cut in the middle, the feed gone — or
holding another event at that seq, stops with exit 3 (``ledger_corrupt``,
naming ``baton repair``): no seq is reused and nothing acknowledged is
quarantined as a torn tail. Bytes past the last acknowledged line are still
a torn tail, healed by the next write; ``baton repair`` records a loss and
lets writes go on."""

from __future__ import annotations

import json

import pytest

from baton.commands.context import Project
from baton.errors import LedgerCorrupt
from baton.ledger import EventDraft, Ledger
from tests.cli_support import run_here
from tests.conftest import run_baton
from tests.ledger_support import own_feed, write


def begin(project):
    r = run_baton("session", "begin", "--owner", "a@example.com", "--branch", "main", "--json",
                  "--project", str(project))
    return r.returncode, json.loads(r.stdout) if r.stdout.strip() else None


def verified(project) -> bool:
    """``baton verify`` passes, checked in this process (what it says is the point, not its process)."""
    return run_here("verify", "--project", str(project), cwd=project)[0] == 0


def quarantined(project) -> list:
    folder = project / ".baton" / "quarantine"
    return sorted(folder.iterdir()) if folder.exists() else []


@pytest.fixture
def written(project):
    write(project, 3)
    feed = own_feed(project)
    return project, feed, feed.read_bytes().splitlines(keepends=True)


@pytest.mark.parametrize("cut", [1, 2])
def test_a_write_after_the_last_lines_were_deleted_exits_3_and_reuses_no_seq(written, cut):
    project, feed, lines = written
    feed.write_bytes(b"".join(lines[:-cut]))
    before = feed.read_bytes()

    code, out = begin(project)

    assert code == 3
    error = out["error"]
    assert error["code"] == "ledger_corrupt" and error["exit_code"] == 3
    assert error["details"]["kind"] == "truncated"
    assert (error["details"]["recorded_seq"], error["details"]["feed_seq"]) == (len(lines), len(lines) - cut)
    assert "baton repair" in error["message"]
    assert feed.read_bytes() == before  # nothing appended: the lost seq is not reused


@pytest.mark.parametrize("keep", [1, 40, -2])
def test_a_line_the_index_holds_cut_in_the_middle_is_refused_not_quarantined(written, keep):
    project, feed, lines = written
    damaged = b"".join(lines[:-1]) + lines[-1][:keep]
    feed.write_bytes(damaged)

    code, out = begin(project)

    assert code == 3 and out["error"]["code"] == "ledger_corrupt"
    assert out["error"]["details"]["kind"] == "truncated"
    assert feed.read_bytes() == damaged  # not cut off as a torn tail
    assert quarantined(project) == []


def test_a_torn_tail_past_the_last_acknowledged_line_is_still_healed(written):
    project, feed, lines = written
    sound = feed.read_bytes()
    tail = lines[-1][: len(lines[-1]) // 2]  # the half of a line a dying writer left, never acknowledged
    feed.write_bytes(sound + tail)

    code, out = begin(project)

    assert code == 0, out
    assert feed.read_bytes().startswith(sound) and len(feed.read_bytes().splitlines()) > len(lines)
    [aside] = quarantined(project)
    assert aside.read_bytes() == tail
    assert verified(project)


def test_verify_says_a_cut_acknowledged_line_is_set_aside_by_a_repair_not_by_the_next_write(written):
    project, feed, lines = written
    feed.write_bytes(b"".join(lines[:-1]) + lines[-1][:40])

    code, out, _ = run_here("verify", "--project", str(project), cwd=project)

    assert code == 3
    [torn] = [line for line in out.splitlines() if "torn tail" in line]
    assert "set aside by a confirmed `baton repair`" in torn and "next write" not in torn


def test_verify_says_a_torn_tail_past_the_acknowledged_lines_is_quarantined_by_the_next_write(written):
    project, feed, lines = written
    feed.write_bytes(feed.read_bytes() + lines[-1][:40])

    code, out, _ = run_here("verify", "--project", str(project), cwd=project)

    [torn] = [line for line in out.splitlines() if "torn tail" in line]
    assert "(quarantined by the next write)" in torn


def test_a_write_to_a_feed_rewritten_under_the_acknowledged_line_is_refused(written):
    project, feed, lines = written
    elsewhere = Ledger(project.parent / "elsewhere", feed.stem, fsync="never")
    with elsewhere.locked() as txn:
        for i in range(len(lines)):
            txn.append([EventDraft("test.noted", "test/9", {"n": 100 + i})])
    feed.write_bytes(elsewhere.feed_path(feed.stem).read_bytes())

    code, out = begin(project)

    assert code == 3 and out["error"]["details"]["kind"] == "rewritten"


def test_a_write_to_a_longer_feed_rewritten_under_the_acknowledged_line_is_refused(written):
    project, feed, lines = written
    elsewhere = Ledger(project.parent / "elsewhere", feed.stem, fsync="never")
    with elsewhere.locked() as txn:
        for i in range(len(lines) + 2):
            txn.append([EventDraft("test.noted", "test/9", {"n": 100 + i})])
    feed.write_bytes(elsewhere.feed_path(feed.stem).read_bytes())
    before = feed.read_bytes()

    code, out = begin(project)

    assert code == 3 and out["error"]["details"]["kind"] == "rewritten"
    assert feed.read_bytes() == before


def test_a_write_after_another_feed_the_index_folded_was_deleted_is_refused(written):
    project, feed, _ = written
    other = Ledger(project / ".baton", "other", fsync="never")
    with other.locked() as txn:
        txn.append([EventDraft("test.noted", "test/2", {"n": 7})])
    write(project, 1, start=3)  # folds the other feed
    other.feed_path("other").unlink()

    code, out = begin(project)

    assert code == 3 and out["error"]["details"] == {
        "feed": "other", "kind": "missing_feed", "recorded_seq": 1, "feed_seq": 0, "repair": "baton repair"}


def test_the_refusal_holds_after_a_rebuild_and_across_processes(written):
    project, feed, lines = written
    feed.write_bytes(b"".join(lines[:-1]))
    assert run_baton("rebuild", "--project", str(project)).returncode == 0

    opened = Project.open(project)
    try:
        with pytest.raises(LedgerCorrupt, match=f"ends at seq {len(lines) - 1}, but the index recorded seq {len(lines)}"):
            with opened.writing() as scope:
                scope.append([EventDraft("test.noted", "test/1", {"n": 3})])
    finally:
        opened.close()
    assert begin(project)[0] == 3


def test_reading_commands_still_answer_after_a_loss(written):
    project, feed, lines = written
    feed.write_bytes(b"".join(lines[:-1]))
    assert run_baton("handoff", "list", "--project", str(project)).returncode == 0
    assert run_baton("verify", "--project", str(project)).returncode == 3


@pytest.mark.parametrize("damage", ["cut", "deleted"])
def test_a_reading_command_after_a_loss_answers_and_says_on_stderr_what_is_gone_each_time(written, damage):
    """Before, ``status`` and ``handoff list`` answered "no handoffs" from a
    deleted feed (or fewer from a cut one), exit 0, saying nothing: only the
    next write told of the loss."""
    project, feed, lines = written
    if damage == "cut":
        feed.write_bytes(b"".join(lines[:-1]))
    else:
        feed.unlink()
    for _ in range(2):  # the first read replays the ledger; the second reads an index that is caught up
        r = run_baton("status", "--json", "--project", str(project))
        assert r.returncode == 0, r.stderr
        json.loads(r.stdout)
        assert "events this project acknowledged are gone" in r.stderr
        assert "baton repair" in r.stderr and "baton verify" in r.stderr
    assert run_baton("repair", "--yes", "--project", str(project)).returncode == 0
    r = run_baton("status", "--project", str(project))
    assert r.returncode == 0 and "acknowledged" not in r.stderr  # the loss is recorded: said no more


def test_a_sound_ledger_reads_with_nothing_on_stderr(written):
    project, _, _ = written
    r = run_baton("handoff", "list", "--project", str(project))
    assert r.returncode == 0 and r.stderr == ""


def test_repair_records_the_loss_and_writes_go_on(written):
    project, feed, lines = written
    feed.write_bytes(b"".join(lines[:-1]))
    assert begin(project)[0] == 3

    r = run_baton("repair", "--yes", "--json", "--project", str(project))
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(r.stdout)["verified"] is True

    code, out = begin(project)
    assert code == 0, out
    assert verified(project)


def test_repair_sets_aside_the_rest_of_a_line_the_index_holds_cut_in_the_middle(written):
    project, feed, lines = written
    partial = lines[-1][:40]
    feed.write_bytes(b"".join(lines[:-1]) + partial)

    r = run_baton("repair", "--yes", "--json", "--project", str(project))

    assert r.returncode == 0, r.stdout + r.stderr
    sound = b"".join(lines[:-1])
    after = feed.read_bytes()
    assert after.startswith(sound)
    assert [json.loads(line)["type"] for line in after[len(sound):].splitlines()] == ["ledger.repaired"]
    [aside] = [p for p in quarantined(project) if p.suffix == ".repair"]
    assert aside.read_bytes() == partial


def test_a_repair_replayed_by_a_rebuild_does_not_forget_a_later_loss(written):
    project, feed, lines = written
    feed.write_bytes(b"".join(lines[:-1]))
    assert run_here("repair", "--yes", "--project", str(project), cwd=project)[0] == 0
    write(project, 2, start=10)
    after = feed.read_bytes().splitlines(keepends=True)
    feed.write_bytes(b"".join(after[:-1]))  # a second loss, after the repair

    assert run_baton("rebuild", "--project", str(project)).returncode == 0
    code, out = begin(project)
    assert code == 3 and out["error"]["details"]["recorded_seq"] == len(after)


def test_writes_go_on_after_a_recorded_forget_rewrites_the_feed(project):
    code, out, err = run_here("checkpoint", "create", "--no-input", "--title", "t", "--objective", "o", "--json",
                              "--project", str(project), cwd=project)
    assert code == 0, err
    handoff = json.loads(out)["id"]
    write(project, 2)
    assert run_baton("forget", handoff, "--yes", "--project", str(project)).returncode == 0
    write(project, 1, start=5)  # the forget moved every later line's offset: still the same events

    code, out = begin(project)
    assert code == 0, out
    assert verified(project)


def _try_append(project) -> str:
    opened = Project.open(project)
    try:
        with opened.writing() as scope:
            scope.append([EventDraft("test.noted", "test/1", {"n": 99})])
        return "appended"
    except LedgerCorrupt:
        return "refused"
    finally:
        opened.close()


def test_a_cut_at_any_byte_of_the_last_acknowledged_line_is_refused(written):
    project, feed, lines = written
    for keep in range(0, len(lines[-1])):  # 0: the whole line deleted; else cut inside it, newline included
        feed.write_bytes(b"".join(lines[:-1]) + lines[-1][:keep])
        assert _try_append(project) == "refused", keep
        assert feed.read_bytes() == b"".join(lines[:-1]) + lines[-1][:keep], keep
    assert quarantined(project) == []


def test_a_cut_at_any_byte_past_the_acknowledged_lines_is_a_torn_tail_the_next_write_heals(written):
    project, feed, lines = written
    sound = feed.read_bytes()
    unacknowledged = lines[-1]  # a line as a dying writer might have left it: never folded, never acknowledged
    for keep in range(1, len(unacknowledged) - 1, 7):
        feed.write_bytes(sound + unacknowledged[:keep])
        assert _try_append(project) == "appended", keep
        sound = feed.read_bytes()
    assert len(quarantined(project)) == len(range(1, len(unacknowledged) - 1, 7))
    assert verified(project)


def test_status_says_a_loss_once_however_many_reads_it_makes(written):
    """tester25 T9: ``baton status`` printed the warning three times (once per read)."""
    project, feed, lines = written
    feed.write_bytes(b"".join(lines[:-1]))
    for _ in range(2):
        r = run_baton("status", "--project", str(project))
        assert r.returncode == 0, r.stderr
        assert r.stderr.count("events this project acknowledged are gone") == 1, r.stderr
