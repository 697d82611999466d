"""Three people on one branch (docs/sync.md, "Setting up a team", "A session
baton across machines"): alice, bob and carol each on a clone of their own,
passing batons to each other by owner, one of them offline for a while and
then syncing all of it at once, syncing in different orders. Afterwards every
clone answers every read the same, ``verify`` passes everywhere, and each
baton was claimed exactly once."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from dulwich import porcelain

from tests.app_support import init_project
from tests.cli_support import run, run_json
from tests.sync_support import make_team, set_remote

READS = (("handoff", "list", "--kind", "all"), ("session", "handoff", "--all"), ("lineage", "--format", "json"),
         ("status",))


@pytest.fixture(params=["path", "mixed"])
def trio(request, tmp_path):
    """(remote, alice, bob, carol); ``mixed``: one remote reached three ways —
    alice by its path, bob over smart HTTP, carol by a ``file://`` URL."""
    from tests.http_git_support import serve

    remote, alice, bob = make_team(tmp_path)
    carol = tmp_path / "carol"
    porcelain.clone(str(remote), str(carol), errstream=io.BytesIO()).close()
    init_project(carol)
    if request.param == "path":
        yield remote, alice, bob, carol
        return
    with serve(remote.parent, "bob", "s3cret") as base:
        set_remote(bob, f"{base.replace('http://', 'http://bob:s3cret@')}/{remote.name}")
        set_remote(carol, remote.as_uri())
        yield remote, alice, bob, carol


def _capture(capsys, clone: Path, title: str) -> str:
    return run_json(capsys, clone, "checkpoint", "create", "--title", title, "--objective", f"{title}: done",
                    "--current-state", "started", "--no-input")["id"]


def _begin(capsys, clone: Path, owner: str) -> dict:
    return run_json(capsys, clone, "session", "begin", "--owner", owner, "--branch", "main", "--objective", owner)


def _end(capsys, clone: Path, session: str, owner: str, steps: str, *extra: str) -> str:
    return run_json(capsys, clone, "session", "end", session, "--owner", owner, "--branch", "main",
                    "--handoff-steps", steps, *extra)["handoffId"]


def _sync(capsys, clone: Path) -> dict:
    return run_json(capsys, clone, "sync")


def _claims(capsys, clone: Path) -> list[str]:
    out = run(capsys, clone, "log", "--type", "baton.claimed", "--json")[1]
    return [json.loads(line)["data"]["handoff_id"] for line in out.splitlines()]


def _reads(capsys, clone: Path) -> list:
    answers = [run_json(capsys, clone, *read) for read in READS]
    for answer in answers:  # whose feed is not vouched for depends on the reader: its own never is marked
        for rows in answer.values() if isinstance(answer, dict) else ():  # list's handoffs, status's items…
            for row in rows if isinstance(rows, list) else ():
                if isinstance(row, dict):
                    for mark in ("feed", "feedMark", "feedNotice"):
                        row.pop(mark, None)
    answers[-1].pop("lastSeenRoot", None)  # the answers about the clone itself: its folder,
    assert answers[-1].pop("sync")["unshared"] == 0  # and its own feed, all of it shared
    out = run(capsys, clone, "log", "--json")[1]
    return [*answers, [json.loads(line) for line in out.splitlines()]]


def test_three_members_passing_batons_one_offline_converge_and_each_baton_is_claimed_once(capsys, trio):
    _remote, alice, bob, carol = trio
    # alice works, and leaves bob a baton
    run_json(capsys, alice, "handoff", "validate", _capture(capsys, alice, "login form"), expect=3)
    for_bob = _end(capsys, alice, _begin(capsys, alice, "alice@x")["sessionId"], "bob@x", "review the login form")
    _sync(capsys, alice)
    # carol goes offline: her day's work and a shared baton stay on her clone
    for i in range(12):
        _capture(capsys, carol, f"carol offline {i}")
    shared = _end(capsys, carol, _begin(capsys, carol, "carol@x")["sessionId"], "carol@x", "anyone: deploy",
                  "--shared")
    # bob takes alice's baton and leaves one for carol
    _sync(capsys, bob)
    begun = _begin(capsys, bob, "bob@x")
    assert begun["handoff"]["id"] == for_bob
    for_carol = _end(capsys, bob, begun["sessionId"], "carol@x", "write the replay test")
    _sync(capsys, bob)
    _capture(capsys, alice, "alice meanwhile")
    _sync(capsys, alice)
    # carol comes back: all of her offline work travels in one sync
    back = _sync(capsys, carol)
    assert sum(back["published"].values()) >= 12 and back["refused"] == []
    assert _begin(capsys, carol, "carol@x")["handoff"]["id"] == for_carol
    for order in ((bob, alice, carol), (carol, bob, alice), (alice, carol, bob)):
        for clone in order:
            assert _sync(capsys, clone)["refused"] == []
    first = _reads(capsys, alice)
    for clone in (bob, carol):
        assert _reads(capsys, clone) == first, clone.name
    for clone in (alice, bob, carol):
        code, out, _err = run(capsys, clone, "verify", "--json")
        assert code == 0 and json.loads(out)["problems"] == [], out
        claims = _claims(capsys, clone)
        assert sorted(claims) == sorted([for_bob, for_carol])  # each once, and nothing else
        pending = run_json(capsys, clone, "session", "handoff", "--all")
        assert [b["id"] for b in pending["items"]] == [shared] and not pending.get("conflicts"), pending
