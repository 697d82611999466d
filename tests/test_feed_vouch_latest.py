"""Every command that takes ``latest`` resolves it as ``resume latest`` does
(``ids.latest_here``): a newer handoff withheld — from a feed no trusted key
vouches for while the project requires signatures — is passed over for the
newest one the reader may use; ``handoff show`` says which it skipped, as
``resume`` does; named by its id, a withheld handoff is still refused
(tests/test_feed_vouch_copies.py, tests/test_feed_vouch_reads.py).
Real git remotes, real ssh-keygen keys."""

from __future__ import annotations

import shutil

import pytest

from tests.cli_support import run, run_json
from tests.test_feed_vouch_delivery import _withheld_newest
from tests.test_feed_vouch_reads import _handoff_from_a, _unsign, signing_team, unsigned_team  # noqa: F401
from tests.test_sync_signing import require_signatures

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="needs OpenSSH's ssh-keygen")


def test_handoff_show_latest_skips_a_withheld_handoff_and_says_which_on_stderr(capsys, signing_team):
    b, mine, theirs = _withheld_newest(capsys, signing_team)
    code, out, err = run(capsys, b, "handoff", "show", "latest", "--format", "md")
    assert code == 0 and "bob's own" in out and theirs not in out
    assert f"Note: Skipped the newest: A handoff ({theirs}) was withheld" in err


def test_handoff_show_latest_json_names_the_handoff_it_skipped(capsys, signing_team):
    b, mine, theirs = _withheld_newest(capsys, signing_team)
    out = run_json(capsys, b, "handoff", "show", "latest")
    assert out["id"] == mine and [s["id"] for s in out["latest"]["skipped"]] == [theirs]
    assert out["latest"]["skipped"][0]["feed"]["withheld"] is True


def test_handoff_show_of_a_withheld_handoff_named_by_its_id_is_still_refused(capsys, signing_team):
    b, _mine, theirs = _withheld_newest(capsys, signing_team)
    code, _out, err = run(capsys, b, "handoff", "show", theirs)
    assert code == 4 and f"A handoff ({theirs}) was withheld" in err


def test_handoff_show_latest_with_only_withheld_handoffs_ready_says_none_may_be_used(capsys, signing_team):
    _remote, a, b = signing_team
    _unsign(a)
    theirs = _handoff_from_a(capsys, a, b)
    require_signatures(b)
    code, out, err = run(capsys, b, "handoff", "show", "latest")
    assert code == 4 and out == ""
    assert "no ready handoff may be resumed here" in err and f"A handoff ({theirs}) was withheld" in err


def test_fork_latest_forks_the_newest_handoff_not_withheld(capsys, signing_team):
    b, mine, _theirs = _withheld_newest(capsys, signing_team)
    forked = run_json(capsys, b, "fork", "latest")
    assert run_json(capsys, b, "handoff", "show", forked["id"])["handoff"]["lineage"]["parents"] == [mine]


def test_amend_latest_amends_the_newest_handoff_not_withheld(capsys, signing_team):
    b, mine, _theirs = _withheld_newest(capsys, signing_team)
    amended = run_json(capsys, b, "handoff", "amend", "latest", "--current-state", "x")
    assert run_json(capsys, b, "handoff", "show", amended["id"])["handoff"]["lineage"]["parents"] == [mine]


def test_prepare_from_latest_starts_from_the_newest_handoff_not_withheld(capsys, signing_team):
    b, mine, theirs = _withheld_newest(capsys, signing_team)
    code, out, err = run(capsys, b, "handoff", "prepare", "--from", "latest")
    assert code == 0, err
    assert "bob's own" in out and "from a" not in out


def test_archive_latest_archives_the_newest_handoff_not_withheld(capsys, signing_team):
    b, mine, theirs = _withheld_newest(capsys, signing_team)
    run_json(capsys, b, "handoff", "archive", "latest", "--reason", "done")
    assert run_json(capsys, b, "handoff", "show", mine)["handoff"]["status"] == "archived"
    assert run_json(capsys, b, "handoff", "list", "--status", "ready")["handoffs"][0]["id"] == theirs


def test_lineage_latest_is_drawn_around_the_newest_handoff_not_withheld(capsys, signing_team):
    b, mine, _theirs = _withheld_newest(capsys, signing_team)
    view = run_json(capsys, b, "lineage", "latest", "--format", "json")
    assert [node["id"] for node in view["nodes"]] == [mine]


def test_latest_of_an_unsigned_feed_without_the_requirement_is_not_skipped(capsys, unsigned_team):
    _remote, a, b = unsigned_team
    theirs = _handoff_from_a(capsys, a, b)
    out = run_json(capsys, b, "handoff", "show", "latest")
    assert out["id"] == theirs and "skipped" not in out["latest"]
