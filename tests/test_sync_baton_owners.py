"""Who a baton is for and who acts on it, across clones of one remote (team15 G9, G4, G5;
docs/batons.md, "Dismissing a baton" and "Who a baton is for"): a teammate cannot silently
dismiss a baton left for someone else, an e-mail owner matches in any letter case, and every
baton event records the git identity that ran the command.

Alice (clone ``a``) leaves a baton for ``bob@example.com``; clone ``b`` is Carol or Bob, set by
``git config user.email`` in that clone, as each user has it.
"""

from __future__ import annotations

import json
from pathlib import Path

from dulwich.repo import Repo

from tests.cli_support import run, run_json
from tests.sync_support import leave_baton_for, make_team
from tests.sync_support import writer_of as writer

BOB = "bob@example.com"


def as_user(clone: Path, email: str) -> None:
    """``git config user.email EMAIL`` in ``clone``, as its user set it."""
    with Repo(str(clone)) as repo:
        config = repo.get_config()
        config.set((b"user",), b"email", email.encode())
        config.set((b"user",), b"name", email.split("@")[0].encode())
        config.write_to_path()


def left_for_bob(capsys, tmp_path: Path, b_user: str) -> tuple[Path, Path, str]:
    """Alice leaves a baton for Bob on ``main`` and syncs; ``b`` (as ``b_user``) syncs."""
    _remote, a, b = make_team(tmp_path)
    as_user(a, "alice@example.com")
    as_user(b, b_user)
    ident = leave_baton_for(capsys, a, "A1", "Bob: finish the migration")
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    return a, b, ident


def events(capsys, project: Path, kind: str) -> list[dict]:
    code, out, err = run(capsys, project, "log", "--type", kind, "--json")
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines() if line.strip()]


# -- G9: dismissing a baton left for someone else -------------------------------------------

def test_dismissing_a_baton_left_for_another_owner_by_someone_else_is_refused(capsys, tmp_path):
    _a, b, ident = left_for_bob(capsys, tmp_path, "carol@example.com")
    code, out, err = run(capsys, b, "session", "handoff", "--dismiss", ident, "--json")
    assert code == 4
    assert json.loads(out)["error"]["code"] == "baton_not_yours"
    assert "--not-mine" in json.loads(out)["error"]["message"]
    assert run_json(capsys, b, "session", "handoff", "--all")["items"][0]["handoffId"] == ident


def test_the_owner_may_dismiss_a_baton_left_for_them(capsys, tmp_path):
    _a, b, ident = left_for_bob(capsys, tmp_path, BOB)
    code, _, err = run(capsys, b, "session", "handoff", "--dismiss", ident)
    assert code == 0, err


def test_the_author_may_dismiss_the_baton_they_left(capsys, tmp_path):
    a, _b, ident = left_for_bob(capsys, tmp_path, BOB)
    code, _, err = run(capsys, a, "session", "handoff", "--dismiss", ident)
    assert code == 0, err


def test_not_mine_dismisses_it_and_the_event_records_the_dismissers_git_identity(capsys, tmp_path):
    _a, b, ident = left_for_bob(capsys, tmp_path, "carol@example.com")
    code, _, err = run(capsys, b, "session", "handoff", "--dismiss", ident, "--not-mine")
    assert code == 0, err
    [dismissed] = events(capsys, b, "baton.dismissed")
    assert dismissed["actor"] == "carol@example.com"


def test_the_owner_is_told_once_at_the_next_start_that_a_teammate_dismissed_their_baton(capsys, tmp_path):
    a, b, ident = left_for_bob(capsys, tmp_path, "carol@example.com")
    run_json(capsys, b, "session", "handoff", "--dismiss", ident, "--not-mine")
    run_json(capsys, b, "sync")
    as_user(a, BOB)  # the clone that syncs it is Bob's (a third clone, as far as the notice goes)
    run_json(capsys, a, "sync")
    brief = run_json(capsys, a, "bootstrap")["brief"]
    assert (f"DISMISSED: the baton alice@example.com left for you on main (baton {ident}" in brief
            and f"dismissed by writer {writer(b)} (carol@example.com, as claimed)" in brief)
    assert "DISMISSED" not in run_json(capsys, a, "bootstrap")["brief"]


def test_the_author_is_told_at_the_next_start_that_a_teammate_dismissed_the_baton_they_left(capsys, tmp_path):
    a, b, ident = left_for_bob(capsys, tmp_path, "carol@example.com")
    run_json(capsys, b, "session", "handoff", "--dismiss", ident, "--not-mine")
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")
    brief = run_json(capsys, a, "bootstrap")["brief"]
    assert f"DISMISSED: the baton you left for {BOB} on main (baton {ident}" in brief


def test_the_clone_that_dismissed_is_told_nothing_of_its_own_dismissal(capsys, tmp_path):
    _a, b, ident = left_for_bob(capsys, tmp_path, BOB)
    run_json(capsys, b, "session", "handoff", "--dismiss", ident)
    assert "DISMISSED" not in run_json(capsys, b, "bootstrap")["brief"]


# -- G4: an e-mail owner in another letter case -----------------------------------------------

def test_a_baton_for_an_email_owner_is_delivered_to_a_clone_whose_email_differs_only_in_case(capsys, tmp_path):
    _a, b, ident = left_for_bob(capsys, tmp_path, "Bob@Example.COM")
    result = run_json(capsys, b, "bootstrap", "--branch", "main")
    assert result["handoff"]["handoffId"] == ident
    assert result["handoff"]["owner"] == BOB  # the stored owner stays as given


# -- G5: the actor is who ran the command -----------------------------------------------------

def test_session_end_owner_records_the_writers_git_identity_as_the_batons_actor(capsys, tmp_path):
    a, _b, _ident = left_for_bob(capsys, tmp_path, BOB)
    [created] = events(capsys, a, "baton.created")
    assert created["actor"] == "alice@example.com"
    assert created["data"]["owner"] == BOB


def test_the_recipients_brief_names_who_left_the_baton(capsys, tmp_path):
    _a, b, _ident = left_for_bob(capsys, tmp_path, BOB)
    brief = run_json(capsys, b, "bootstrap", "--branch", "main")["brief"]
    assert "Left by session `A1` of `alice@example.com`" in brief


# -- team23 T7: a claim that lost to a dismissal made on another clone ------------------------

def test_a_dismissal_that_a_claim_here_lost_to_names_the_session_that_received_the_baton(capsys, tmp_path):
    a, b, ident = left_for_bob(capsys, tmp_path, "carol@example.com")
    run_json(capsys, b, "session", "handoff", "--dismiss", ident, "--not-mine")
    as_user(a, BOB)  # Bob's clone claims it before the dismissal reaches it
    assert run_json(capsys, a, "bootstrap", "--session-id", "bob-1", "--branch", "main")["handoff"]["handoffId"] == ident
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")
    brief = run_json(capsys, a, "bootstrap", "--peek")["brief"]
    assert "Claim conflict" in brief and f"DISMISSED: the baton alice@example.com left for you on main (baton {ident}" in brief
    assert "no session receives it" not in brief
    assert "but session bob-1 here had already received it before the dismissal reached it" in brief


def test_a_baton_a_teammate_dismissed_by_archiving_its_handoff_is_read_with_handoff_show(capsys, tmp_path):
    a, b, ident = left_for_bob(capsys, tmp_path, BOB)
    run_json(capsys, b, "handoff", "archive", ident, "--reason", "migration dropped")  # dismisses its baton
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")
    brief = run_json(capsys, a, "bootstrap")["brief"]
    line = next(line for line in brief.splitlines() if "DISMISSED:" in line)
    assert f"`baton handoff show {ident}` reads it" in line and "baton resume" not in line
    assert run(capsys, a, "resume", ident)[0] == 4  # what it no longer names
