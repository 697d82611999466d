"""A handoff resumed on another clone settles the pending baton carrying it here, after
``baton sync`` (docs/batons.md, "A handoff resumed while its baton waits"; tester use16 U9).

Alice (clone ``a``) hands her ready handoff on to her next session; on her other clone (``b``,
its sessions still named ``bob-…``) she resumes it by hand. Whether or not ``b`` had the baton
when she resumed, her next session start on ``a`` receives no baton and is told once, in one
line, that the handoff was taken up elsewhere. A teammate's resume leaves her baton pending
(batons are owner-scoped: ``tests/test_resume_teammates_baton.py``).

A resume and a baton compare at their events' own precision (microseconds), so a resume made
in the same second as the baton was left, after it, settles it, and one made before it (the
handoff handed on again on purpose) does not.
"""

from __future__ import annotations

import itertools
import os
import re
import time
from pathlib import Path

import pytest

from baton.app import Baton
from baton.ledger import files
from tests.cli_support import run, run_json
from tests.sync_support import make_team
from tests.test_batons_supersede_handoff import HERE, ready_handoff
from tests.test_sync_baton_owners import as_user


@pytest.fixture
def one_second(monkeypatch):
    """Every ``baton`` run in this process reads a wall clock that stays inside one whole second,
    a microsecond further at each reading: every event the test makes falls in that second, in
    the order the test makes them."""
    start = (time.time_ns() // 10**9 + 1) * 10**9
    ticks = itertools.count()
    monkeypatch.setitem(Baton.open.__func__.__kwdefaults__, "clock", lambda: start + next(ticks) * 1000)


def test_a_resume_on_another_clone_that_had_the_baton_settles_it_here(capsys, tmp_path):
    _remote, a, b = make_team(tmp_path)
    as_user(a, "alice@example.com")
    as_user(b, "alice@example.com")
    handoff_id = ready_handoff(capsys, a)
    run_json(capsys, a, "session", "handoff", "--from", handoff_id, *HERE)
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")

    run_json(capsys, b, "resume", handoff_id, "--mark-resumed", "--session", "bob-1")
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")

    brief = run_json(capsys, a, "bootstrap", "--session-id", "a-2", *HERE)
    assert brief["handoff"] is None and brief["claimed"] is False
    (told,) = [n for n in brief["notices"] if "Taken up elsewhere" in n]
    assert handoff_id in told and "session bob-1 (alice@example.com" in told
    assert "Taken up elsewhere" not in run(capsys, a, "bootstrap", "--session-id", "a-3", *HERE)[1]


@pytest.mark.slow
def test_a_resume_made_apart_on_a_clone_without_the_baton_settles_it_at_the_next_start(capsys, tmp_path):
    _remote, a, b = make_team(tmp_path)
    as_user(a, "alice@example.com")
    as_user(b, "alice@example.com")
    handoff_id = ready_handoff(capsys, a)
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    run_json(capsys, a, "session", "handoff", "--from", handoff_id, *HERE)  # b never sees it before the resume
    run_json(capsys, b, "resume", handoff_id, "--mark-resumed", "--session", "bob-1")
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")

    brief = run_json(capsys, a, "bootstrap", "--session-id", "a-2", *HERE)
    assert brief["handoff"] is None and brief["claimed"] is False
    (told,) = [n for n in brief["notices"] if "Taken up elsewhere" in n]
    assert handoff_id in told and "another clone" in told
    assert run_json(capsys, a, "session", "handoff", "--all")["items"] == []


def test_a_resume_made_apart_in_the_same_second_after_the_baton_was_left_settles_it(capsys, tmp_path, one_second):
    _remote, a, b = make_team(tmp_path)
    as_user(a, "alice@example.com")
    as_user(b, "alice@example.com")
    handoff_id = ready_handoff(capsys, a)
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    left = run_json(capsys, a, "session", "handoff", "--from", handoff_id, *HERE)  # b never sees it
    run_json(capsys, b, "resume", handoff_id, "--mark-resumed", "--session", "bob-1")
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")
    resumed = run_json(capsys, a, "handoff", "show", handoff_id)

    brief = run_json(capsys, a, "bootstrap", "--session-id", "a-2", *HERE)
    assert resumed["handoff"]["resumed_at"][:19] == left["handoff"]["createdAt"][:19]  # the scene: one second
    assert brief["handoff"] is None and brief["claimed"] is False
    assert [n for n in brief["notices"] if "Taken up elsewhere" in n and handoff_id in n]


def test_a_handoff_resumed_elsewhere_then_handed_on_again_in_the_same_second_is_delivered(capsys, tmp_path,
                                                                                           one_second):
    _remote, a, b = make_team(tmp_path)
    as_user(a, "alice@example.com")
    as_user(b, "alice@example.com")
    handoff_id = ready_handoff(capsys, a)
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    run_json(capsys, b, "resume", handoff_id, "--mark-resumed", "--session", "bob-1")
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")
    run_json(capsys, a, "session", "handoff", "--from", handoff_id, *HERE)  # on purpose, after the resume

    brief = run_json(capsys, a, "bootstrap", "--session-id", "a-2", *HERE)
    assert brief["claimed"] is True and brief["handoff"]["id"] == handoff_id


def _left_here_resumed_there(capsys, tmp_path) -> tuple[Path, str]:
    """Alice leaves a baton on clone ``a`` (for herself on its branch, as git names them); on ``b`` she never sees it and resumes its handoff
    after; both sync. Returns (a, the handoff id)."""
    _remote, a, b = make_team(tmp_path)
    as_user(a, "alice@example.com")
    as_user(b, "alice@example.com")
    handoff_id = ready_handoff(capsys, a)
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    run_json(capsys, a, "session", "handoff", "--from", handoff_id)
    run_json(capsys, b, "resume", handoff_id, "--mark-resumed", "--session", "bob-1")
    run_json(capsys, b, "sync")
    return a, handoff_id


def test_bootstrap_peek_shows_the_taken_up_notice_a_start_would_give_instead_of_the_baton(capsys, tmp_path):
    a, handoff_id = _left_here_resumed_there(capsys, tmp_path)
    run_json(capsys, a, "sync")
    peeked = run_json(capsys, a, "bootstrap", "--peek", "--session-id", "a-2")
    started = run_json(capsys, a, "bootstrap", "--session-id", "a-2")

    assert peeked["handoff"] is None and peeked["claimed"] is False and peeked["peek"] is True
    assert _taken_up(peeked) == _taken_up(started) and handoff_id in _taken_up(peeked)[0]


def _taken_up(brief) -> list[str]:
    """The brief's "Taken up elsewhere" lines, their set-aside time (the reading's) left out."""
    return [re.sub(r"set aside at \S+Z", "set aside at T", n) for n in brief["notices"] if "Taken up elsewhere" in n]


def _unwritable(monkeypatch, root: Path, how: str) -> None:
    """``root``'s ``.baton/`` refuses every write: read-only (``os.access`` says what a read-only mount
    says: root ignores ``chmod``, as ``tests/test_read_only.py`` explains) or on a disk Baton finds full."""
    if how == "disk full":
        monkeypatch.setattr(files, "disk_full", lambda path: f"the disk holding {path} is full (0 bytes free)")
        return
    baton, real = str(root / ".baton"), os.access

    def access(path, mode, *args, **kwargs):
        if mode & os.W_OK and os.fspath(path).startswith(baton):
            return False
        return real(path, mode, *args, **kwargs)

    monkeypatch.setattr(os, "access", access)


@pytest.mark.parametrize("how", ["read-only", "disk full"])
def test_a_start_that_cannot_write_tells_a_taken_up_baton_as_the_peek_does_and_does_not_deliver_it(
        capsys, tmp_path, monkeypatch, how):
    a, handoff_id = _left_here_resumed_there(capsys, tmp_path)
    run_json(capsys, a, "sync")
    _unwritable(monkeypatch, a, how)
    before = [p.read_bytes() for p in sorted((a / ".baton" / "ledger").glob("*.jsonl"))]

    peeked = run_json(capsys, a, "bootstrap", "--peek", "--session-id", "a-2")
    started = run_json(capsys, a, "bootstrap", "--session-id", "a-2")

    assert started["handoff"] is None and started["claimed"] is False
    assert [n for n in started["notices"] if "nothing this session does can be recorded" in n]
    assert handoff_id not in started["brief"].split("Taken up elsewhere")[0]
    assert _taken_up(started) == _taken_up(peeked) and handoff_id in _taken_up(started)[0]
    assert [p.read_bytes() for p in sorted((a / ".baton" / "ledger").glob("*.jsonl"))] == before


def test_bootstrap_peek_of_a_taken_up_baton_appends_nothing_and_leaves_it_to_the_start(capsys, tmp_path):
    a, handoff_id = _left_here_resumed_there(capsys, tmp_path)
    run_json(capsys, a, "sync")
    before = [p.read_bytes() for p in sorted((a / ".baton" / "ledger").glob("*.jsonl"))]

    run_json(capsys, a, "bootstrap", "--peek", "--session-id", "a-2")

    assert [p.read_bytes() for p in sorted((a / ".baton" / "ledger").glob("*.jsonl"))] == before
    started = run_json(capsys, a, "bootstrap", "--session-id", "a-2")
    assert [n for n in started["notices"] if "Taken up elsewhere" in n and handoff_id in n]


def test_session_handoff_shows_no_baton_but_the_taken_up_line_for_one_a_start_would_dismiss(capsys, tmp_path):
    a, handoff_id = _left_here_resumed_there(capsys, tmp_path)
    run_json(capsys, a, "sync")

    shown = run_json(capsys, a, "session", "handoff")
    text = run(capsys, a, "session", "handoff")[1]

    assert shown["handoff"] is None and handoff_id in shown["takenUp"]
    assert text.startswith("Taken up elsewhere") and "No active session handoff" in text


def test_sync_does_not_announce_a_baton_waiting_whose_handoff_the_import_shows_resumed(capsys, tmp_path):
    a, _handoff_id = _left_here_resumed_there(capsys, tmp_path)

    synced = run_json(capsys, a, "sync")

    assert synced["imported"] and synced["waiting"] is None
