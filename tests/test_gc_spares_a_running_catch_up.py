"""``baton gc`` leaves a running background catch-up's lock and log alone:
removed under it, a second catch-up could start beside it (its lock gone),
and the error it logs when it fails would be lost."""

from __future__ import annotations

import json

from tests.conftest import run_baton
from tests.harness_support import catch_up_running


def test_gc_keeps_the_lock_and_log_of_a_catch_up_running_in_the_background(project):
    run_baton("rebuild", "--project", str(project))
    cache = project / ".baton" / "cache"
    with catch_up_running(project) as pid:
        (cache / "catch-up.log").write_text("baton: still replaying\n")
        (cache / "other").write_text("rebuildable")
        r = run_baton("gc", "--json", "--project", str(project))
        assert r.returncode == 0, r.stderr
        out = json.loads(r.stdout)
        assert (cache / "catch-up.lock").read_text().strip() == str(pid)
        assert (cache / "catch-up.log").read_text() == "baton: still replaying\n"
    removed = {item["path"] for item in out["removed"]}
    assert {".baton/index.sqlite", ".baton/cache/other"} <= removed
    assert not (cache / "other").exists()
    assert ".baton/cache" not in removed
    kept = {item["path"]: item["reason"] for item in out["kept"]}
    assert set(kept) == {".baton/cache/catch-up.lock", ".baton/cache/catch-up.log"}
    assert all(f"pid {pid}" in reason for reason in kept.values())


def test_gc_says_in_words_what_it_kept_for_a_running_catch_up(project):
    with catch_up_running(project):
        r = run_baton("gc", "--dry-run", "--project", str(project))
    assert r.returncode == 0, r.stderr
    assert "Kept .baton/cache/catch-up.lock: a catch-up runs in the background" in r.stdout


def test_gc_removes_the_whole_cache_when_no_catch_up_runs(project):
    cache = project / ".baton" / "cache"
    cache.mkdir(exist_ok=True)
    (cache / "catch-up.lock").write_text("12345\n")  # left by a catch-up that ended
    (cache / "catch-up.log").write_text("")
    r = run_baton("gc", "--json", "--project", str(project))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert ".baton/cache" in {item["path"] for item in out["removed"]} and out["kept"] == []
    assert not cache.exists()


def test_gc_holds_the_ledger_lock_without_its_cold_read_and_reads_each_feed_once(project, capsys, monkeypatch):
    """gc took the lock with ``locked()``, whose first read of an unseeded ledger is every feed from
    byte 0: ~2 s at 100,000 events to delete a file (``--dry-run`` too). It takes the lock without
    that read, and reads each feed once, to its end, only to check it before removing the index
    (tester26 T5: the rebuild after it fails on a damaged feed, and the index was the only view left)."""
    from baton.ledger import Ledger
    from tests.cli_support import run

    run(capsys, project, "session", "begin", "s1")
    read = []
    chunks = Ledger.read_feed_chunks

    def unread(self, *args, **kwargs):
        raise AssertionError("the lock read the ledger")

    def counted(self, feed, *args, **kwargs):
        read.append(feed)
        return chunks(self, feed, *args, **kwargs)

    monkeypatch.setattr(Ledger, "read_feed_chunks", counted)
    monkeypatch.setattr(Ledger, "_read_new", unread)
    monkeypatch.setattr(Ledger, "held_elsewhere", lambda self: False)
    feeds = sorted(p.stem for p in (project / ".baton" / "ledger").glob("*.jsonl"))
    for args in (["gc", "--dry-run"], ["gc"]):
        read.clear()
        code, out, err = run(capsys, project, *args)
        assert code == 0, err
        assert sorted(read) == feeds
    assert not (project / ".baton" / "index.sqlite").exists()


def test_gc_still_takes_the_ledger_lock(project, capsys, monkeypatch):
    """No writer appends beside it: the lock file is taken (and let go) as before."""
    from baton.ledger import Ledger
    from tests.cli_support import run

    run(capsys, project, "session", "begin", "s1")
    taken = []
    take = Ledger._take_lock_file

    def spy(self, *args, **kwargs):
        taken.append(self)
        return take(self, *args, **kwargs)

    monkeypatch.setattr(Ledger, "_take_lock_file", spy)
    code, _, err = run(capsys, project, "gc")
    assert code == 0, err
    assert taken and not Ledger(project / ".baton", "probe00000000001", fsync="never").held_elsewhere()
