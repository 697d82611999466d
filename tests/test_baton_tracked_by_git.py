"""A ``.baton/`` committed to git by mistake (``git add -f .baton``) is named by ``baton doctor``
and ``baton status`` and refuses ``baton sync``; feeds git then cut or deleted while this
clone's ledger ref still holds them fail ``baton verify`` with the way back (docs/sync.md,
"A .baton/ committed to git"). Real git: clones of a bare remote, ``git add -f``, ``pull``,
``checkout``."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.cli_support import run, run_json
from tests.sync_support import REF, make_team, refs_of, writer_of
from tests.sync_support import checkpoint as _checkpoint

_IDENTITY = ["-c", "user.name=T", "-c", "user.email=t@example.com"]


def _git(clone: Path, *args: str) -> str:
    return subprocess.run(["git", *_IDENTITY, "-C", str(clone), *args], capture_output=True, text=True,
                          check=True).stdout


def _committed_by_mistake(clone: Path) -> None:
    _git(clone, "add", "-f", ".baton")
    _git(clone, "commit", "-q", "-m", "oops: .baton")


def _checks(capsys, clone: Path) -> dict[str, list[str]]:
    out = run(capsys, clone, "doctor", "--json")[1]
    found: dict[str, list[str]] = {}
    for check in json.loads(out)["checks"]:
        found.setdefault(check["status"], []).append(f"{check['name']}: {check['detail']}")
    return found


def test_doctor_fails_when_git_tracks_baton_files_naming_them_and_the_fix(capsys, tmp_path):
    _remote, a, _b = make_team(tmp_path)
    _checkpoint(capsys, a, "a's work")
    _committed_by_mistake(a)

    failing = [c for c in _checks(capsys, a).get("fail", []) if c.startswith("git tracking")]

    assert len(failing) == 1
    assert ".baton/ledger/" in failing[0] and ".baton/local.json" in failing[0]
    assert "`git rm -r -q --cached .baton && git add .baton`" in failing[0]


def test_status_warns_when_git_tracks_baton_files(capsys, tmp_path):
    _remote, a, _b = make_team(tmp_path)
    _checkpoint(capsys, a, "a's work")
    _committed_by_mistake(a)

    tracked = run_json(capsys, a, "status")["trackedByGit"]
    text = run(capsys, a, "status")[1]

    assert ".baton/local.json" in tracked["files"] and ".baton/config.json" not in tracked["files"]
    assert "Not safe: git tracks" in text


def test_sync_is_refused_while_git_tracks_baton_files_and_nothing_is_pushed(capsys, tmp_path):
    remote, a, _b = make_team(tmp_path)
    _checkpoint(capsys, a, "a's work")
    _committed_by_mistake(a)

    code, out, err = run(capsys, a, "sync", "--json")

    error = json.loads(out)["error"]
    assert (code, error["code"]) == (4, "baton_tracked_by_git"), out + err
    assert ".baton/local.json" in error["details"]["tracked"]
    assert REF not in refs_of(remote)


def test_untracking_as_told_keeps_the_files_and_lets_sync_run_again(capsys, tmp_path):
    _remote, a, _b = make_team(tmp_path)
    _checkpoint(capsys, a, "a's work")
    _committed_by_mistake(a)
    _git(a, "rm", "-r", "-q", "--cached", ".baton")
    _git(a, "add", ".baton")
    _git(a, "commit", "-q", "-m", "untrack .baton")

    assert sorted(_git(a, "ls-files", ".baton").split()) == [".baton/.gitignore", ".baton/config.json"]
    assert "fail" not in _checks(capsys, a)
    assert run_json(capsys, a, "sync")["pushed"]


def test_only_the_committed_files_tracked_is_no_warning(capsys, tmp_path):
    _remote, a, _b = make_team(tmp_path)  # a commits .baton/config.json and .baton/.gitignore

    assert not [c for c in _checks(capsys, a).get("fail", []) if c.startswith("git tracking")]
    assert "trackedByGit" not in run_json(capsys, a, "status")


def test_feeds_committed_on_purpose_as_the_alternative_way_are_no_warning(capsys, tmp_path):
    _remote, a, _b = make_team(tmp_path)
    _checkpoint(capsys, a, "a's work")
    with (a / ".baton" / ".gitignore").open("a") as f:
        f.write("!ledger/\n!ledger/*.jsonl\n")
    _git(a, "add", ".baton")
    _git(a, "commit", "-q", "-m", "feeds on the branch")

    assert any(p.startswith(".baton/ledger/") for p in _git(a, "ls-files", ".baton").split())
    assert not [c for c in _checks(capsys, a).get("fail", []) if c.startswith("git tracking")]


def test_a_pull_of_a_teammates_committed_baton_is_named_in_the_pullers_status(capsys, tmp_path):
    _remote, a, b = make_team(tmp_path)
    _checkpoint(capsys, a, "a's work")
    run_json(capsys, a, "sync")
    _committed_by_mistake(a)
    _git(a, "push", "-q", "origin", "HEAD:master")
    _git(b, "pull", "-q", "origin", "master")  # git replaces b's ignored .baton files without asking

    assert "trackedByGit" in run_json(capsys, b, "status")
    assert run(capsys, b, "sync")[0] == 4


# -- feeds git cut or deleted, which this clone's ledger ref still holds -----------------------------

def _b_holds_as_work(capsys, tmp_path: Path) -> tuple[Path, Path]:
    """(a, b): a's work synced, and b synced after it (b's files and ledger ref hold a's feed)."""
    _remote, a, b = make_team(tmp_path)
    _checkpoint(capsys, a, "a's work")
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    return a, b


def test_feeds_a_checkout_deleted_fail_verify_naming_them_and_a_sync_brings_them_back(capsys, tmp_path):
    _a, b = _b_holds_as_work(capsys, tmp_path)
    held = {p.stem: len(p.read_bytes().splitlines()) for p in (b / ".baton" / "ledger").glob("*.jsonl")}
    _git(b, "checkout", "-q", "-b", "feat")
    _committed_by_mistake(b)
    _git(b, "checkout", "-q", "master")  # a branch without the commit: git deletes .baton/ledger/*, the index

    code, out, _err = run(capsys, b, "verify", "--json")
    behind = json.loads(out)["behind_ref"]
    text = run(capsys, b, "verify")[1]

    assert code == 3 and {x["feed"]: (x["seq"], x["local_seq"]) for x in behind} == {
        feed: (seq, 0) for feed, seq in held.items()}
    assert all(f"FAIL feed {feed}: .baton/ledger/{feed}.jsonl is gone" in text for feed in held)
    assert "`baton sync` takes it back" in text
    assert {m["feed"] for m in run_json(capsys, b, "status")["behindRef"]} == set(held)
    run_json(capsys, b, "sync")
    assert run(capsys, b, "verify")[0] == 0


def test_an_own_feed_cut_back_behind_what_was_published_fails_verify_with_the_way_back(capsys, tmp_path):
    _remote, a, _b = make_team(tmp_path)
    _checkpoint(capsys, a, "first")
    _checkpoint(capsys, a, "second")
    run_json(capsys, a, "sync")
    [feed] = (a / ".baton" / "ledger").glob("*.jsonl")
    lines = feed.read_bytes().splitlines(keepends=True)
    feed.write_bytes(b"".join(lines[:2]))  # a sound copy from before: what a `git stash && git pull` left
    (a / ".baton" / "index.sqlite").unlink()  # replaced with it: no record of the events lost

    code, out, _err = run(capsys, a, "verify", "--json")

    [behind] = json.loads(out)["behind_ref"]
    assert code == 3 and behind["own"] and (behind["seq"], behind["local_seq"]) == (len(lines), 2)
    assert "`baton sync` given `restore_own_feed`" in behind["advice"]
    assert "--restore-own-feed" in run(capsys, a, "verify")[1]
    run_json(capsys, a, "sync", "--restore-own-feed")
    assert run(capsys, a, "verify")[0] == 0
    assert feed.read_bytes() == b"".join(lines)


def test_a_teammates_feed_deleted_by_hand_fails_verify_while_the_sync_state_is_there(capsys, tmp_path):
    a, b = _b_holds_as_work(capsys, tmp_path)
    feed = b / ".baton" / "ledger" / f"{writer_of(a)}.jsonl"
    feed.unlink()
    (b / ".baton" / "index.sqlite").unlink()

    code, out, _err = run(capsys, b, "verify", "--json")

    assert code == 3 and [x["feed"] for x in json.loads(out)["behind_ref"]] == [feed.stem]


def test_a_teammates_ledger_ref_fetched_with_git_is_no_failure_of_verify(capsys, tmp_path):
    _remote, a, b = make_team(tmp_path)
    _checkpoint(capsys, b, "b's work")
    run_json(capsys, b, "sync")
    _checkpoint(capsys, a, "a's work")
    run_json(capsys, a, "sync")
    _git(b, "fetch", "-q", "origin", f"+{REF.decode()}:{REF.decode()}")  # a's feed on b's ref, never taken

    assert run_json(capsys, b, "verify")["behind_ref"] == []
