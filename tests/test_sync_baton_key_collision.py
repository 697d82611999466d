"""Two clones apart each leave a baton for owner/branch pairs whose names share one baton key
(tester-use21 T3; docs/batons.md "Names that share a key"): owner ``x__y`` on ``z`` and owner ``x``
on ``y__z`` are both ``x__y__z``. One clone refuses the second baton; two clones apart cannot, so
after ``baton sync`` the later one supersedes the other unseen — and both recipients are told:
the later baton's brief names the one it replaced, and the replaced baton's owner and branch are
told at their next session start, once, and every listing says which other name replaced it."""

from __future__ import annotations

from pathlib import Path

from tests.cli_support import run_json
from tests.sync_support import make_team


def _leave(capsys, clone: Path, session: str, owner: str, branch: str) -> str:
    out = run_json(capsys, clone, "session", "end", session, "--owner", owner, "--branch", branch,
                   "--handoff-steps", f"for {owner} on {branch}")
    return out["handoff"]["id"]


def _left_apart(capsys, tmp_path: Path) -> tuple[Path, Path, str, str]:
    """Clone a leaves a baton for x__y on z, clone c one for x on y__z, apart; both sync, a again."""
    _remote, a, c = make_team(tmp_path)
    first = _leave(capsys, a, "k1", "x__y", "z")
    second = _leave(capsys, c, "k2", "x", "y__z")
    for clone in (a, c, a):
        run_json(capsys, clone, "sync")
    return a, c, first, second


def test_the_replaced_batons_owner_and_branch_are_told_at_their_next_session_begin(capsys, tmp_path):
    a, _c, first, second = _left_apart(capsys, tmp_path)
    began = run_json(capsys, a, "session", "begin", "--owner", "x__y", "--branch", "z")
    assert began["handoff"] is None
    [told] = [n for n in began["notices"] if first in n]
    assert f"by baton `{second}` for x on y__z, whose names share one baton key (x__y__z)" in told
    assert f"`baton handoff show {first}`" in told


def test_the_replaced_baton_is_told_once(capsys, tmp_path):
    a, _c, first, _second = _left_apart(capsys, tmp_path)
    run_json(capsys, a, "session", "begin", "--owner", "x__y", "--branch", "z")
    again = run_json(capsys, a, "session", "begin", "--owner", "x__y", "--branch", "z")
    assert not [n for n in again["notices"] if first in n]


def test_the_brief_of_the_replaced_batons_owner_and_branch_names_it_and_a_peek_does_not_use_it_up(
        capsys, tmp_path):
    a, _c, first, second = _left_apart(capsys, tmp_path)
    peeked = run_json(capsys, a, "bootstrap", "--peek", "--owner", "x__y", "--branch", "z")["brief"]
    brief = run_json(capsys, a, "bootstrap", "--owner", "x__y", "--branch", "z")["brief"]
    assert first in peeked and second in peeked
    assert first in brief and "no session of x__y on z receives it" in brief


def test_the_other_names_session_receives_its_own_baton_and_is_told_what_it_replaced(capsys, tmp_path):
    a, _c, first, second = _left_apart(capsys, tmp_path)
    result = run_json(capsys, a, "bootstrap", "--owner", "x", "--branch", "y__z")
    assert result["handoff"]["handoffId"] == second
    assert first in result["brief"]


def test_session_handoff_all_says_another_names_baton_replaced_it(capsys, tmp_path):
    a, _c, first, second = _left_apart(capsys, tmp_path)
    listed = run_json(capsys, a, "session", "handoff", "--all")
    [unseen] = [u for u in listed["supersededUnseen"] if u["id"] == first]
    assert unseen["supersededBy"] == second
    assert unseen["supersededFor"] == {"owner": "x", "branch": "y__z"}
