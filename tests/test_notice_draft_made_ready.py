"""A session ends with the draft Baton prepared for it unfinished: the next
session start is told so ("was not handed on … unfinished"). When the person
finishes it by hand between the two — ``handoff ready`` after the session
ended — the start said the same, as if the draft were still unfinished. It
now says what is so: the handoff is ready and no baton carries it, with how to
read it and hand it on; and nothing when it was handed on, resumed,
superseded or archived since. The same when the person finishes the work as a
ready handoff continuing the draft (``checkpoint create --from`` it, which
leaves the draft a draft): the start names that handoff, and says nothing once
it was handed on. Run through the real command line: the hooks
and every command a child process, as the harness and the person run them.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from baton.domain.notice_fate import CONTINUED, DROP, KEEP, MADE_READY, Successor, continued_by, fate
from baton.domain.short_ids import short_id
from tests.cli_support import run_here
from tests.conftest import run_baton
from tests.handoff_support import baton_json, payload
from tests.harness_support import fixture, injected


def _hook(repo, event: str, name: str, session: str) -> subprocess.CompletedProcess:
    r = subprocess.run([sys.executable, "-m", "baton", "hook", "claude-code", event],
                       input=json.dumps(fixture("claude-code", name, repo, session_id=session)),
                       capture_output=True, text=True, cwd=repo, timeout=120)
    assert r.returncode == 0, r.stderr
    return r


def _start(repo, session: str) -> str:
    return injected("claude-code", _hook(repo, "SessionStart", "SessionStart.startup", session).stdout) or ""


def _session_ending_with_its_draft_unfinished(repo) -> str:
    """Session s1 starts, is compacted (Baton prepares its draft) and ends: the draft's id."""
    _start(repo, "s1")
    _hook(repo, "PreCompact", "PreCompact.manual", "s1")
    [draft] = [h["id"] for h in _by_hand_json(repo, "handoff", "list", "--status", "draft")["handoffs"]]
    _hook(repo, "SessionEnd", "SessionEnd", "s1")
    return draft


def _by_hand(repo, *args: str) -> str:
    """A command the user types between sessions, run in this process: it sets the scene, and
    the hooks that say something about it still run as real processes. Its stdout."""
    code, out, err = run_here(*args, "--project", str(repo), cwd=repo)
    assert code == 0, (args, out, err)
    return out


def _by_hand_json(repo, *args: str) -> dict:
    return json.loads(_by_hand(repo, *args, "--json"))


def _made_ready_by_hand(repo, draft: str, tmp_path) -> None:
    body = tmp_path / "body.json"
    body.write_text(json.dumps(payload()))
    for args in (("handoff", "amend", draft, "--input", str(body)), ("handoff", "validate", draft),
                 ("handoff", "ready", draft, "--accept-warnings", "tests")):
        _by_hand(repo, *args)


def _continued_by_hand(repo, draft: str, tmp_path, *, ready: bool = True) -> str:
    """A handoff continuing ``draft`` (``checkpoint create --from``), made ready: its id."""
    body = tmp_path / "child.json"
    body.write_text(json.dumps(payload()))
    child = _by_hand_json(repo, "checkpoint", "create", "--from", draft, "--input", str(body), "--no-input")["id"]
    steps = (("handoff", "validate", child), ("handoff", "ready", child, "--accept-warnings", "tests"))
    for args in steps if ready else ():
        _by_hand(repo, *args)
    return child


def test_a_draft_made_ready_after_its_session_ended_is_not_called_unfinished_at_the_next_start(repo, tmp_path):
    draft = _session_ending_with_its_draft_unfinished(repo)
    _made_ready_by_hand(repo, draft, tmp_path)
    brief = _start(repo, "s2")
    short = short_id(draft)
    assert "the draft Baton prepared for it unfinished" not in brief and "complete it" not in brief
    assert f"Handoff {short} was not handed on: the session ended while it was an unfinished draft. It has been " \
           f"made ready since, but no baton carries it: `baton resume {short}` reads it, and `baton session handoff " \
           f"--from {short}` hands it on to the next session here" in brief
    assert "Baton's claude-code SessionEnd hook (session s1)" in brief
    assert short not in _start(repo, "s3").split("## ")[0]  # said once


def test_a_draft_still_unfinished_at_the_next_start_is_still_said_to_be(repo):
    draft = _session_ending_with_its_draft_unfinished(repo)
    brief = _start(repo, "s2")
    assert f"Handoff {short_id(draft)} was not handed on: the session ended with the draft Baton prepared " \
           f"for it unfinished" in brief


def test_a_draft_made_ready_and_handed_on_since_is_not_mentioned(repo, tmp_path):
    draft = _session_ending_with_its_draft_unfinished(repo)
    _made_ready_by_hand(repo, draft, tmp_path)
    handed = run_baton("session", "handoff", "--from", draft, "--branch", "elsewhere", "--project", str(repo))
    assert handed.returncode == 0, handed.stderr
    assert "was not handed on" not in _start(repo, "s2")


def test_a_draft_archived_since_is_not_mentioned(repo):
    draft = _session_ending_with_its_draft_unfinished(repo)
    assert run_baton("handoff", "archive", draft, "--project", str(repo)).returncode == 0
    assert "was not handed on" not in _start(repo, "s2")


def test_a_draft_continued_by_a_handoff_made_ready_after_its_session_ended_names_that_handoff(repo, tmp_path):
    draft = _session_ending_with_its_draft_unfinished(repo)
    child = _continued_by_hand(repo, draft, tmp_path)
    # a continuation supersedes no draft; the draft Baton prepared is archived, completed by it
    assert baton_json(repo, "handoff", "show", draft)["handoff"]["status"] == "archived"
    brief = _start(repo, "s2")
    short, by = short_id(draft), short_id(child)
    assert "the draft Baton prepared for it unfinished" not in brief
    assert f"Handoff {short} was not handed on: the session ended while it was an unfinished draft. It has been " \
           f"continued since by ready handoff {by}, but no baton carries it: `baton resume {by}` reads it, and " \
           f"`baton session handoff --from {by}` hands it on to the next session here" in brief
    assert short not in _start(repo, "s3").split("## ")[0]  # said once


def test_a_draft_continued_by_a_ready_handoff_handed_on_since_is_not_mentioned(repo, tmp_path):
    draft = _session_ending_with_its_draft_unfinished(repo)
    child = _continued_by_hand(repo, draft, tmp_path)
    handed = run_baton("session", "handoff", "--from", child, "--branch", "elsewhere", "--project", str(repo))
    assert handed.returncode == 0, handed.stderr
    assert "was not handed on" not in _start(repo, "s2")


def test_a_draft_continued_only_by_another_unfinished_draft_is_still_said_to_be_unfinished(repo, tmp_path):
    draft = _session_ending_with_its_draft_unfinished(repo)
    _continued_by_hand(repo, draft, tmp_path, ready=False)
    assert f"Handoff {short_id(draft)} was not handed on: the session ended with the draft Baton prepared " \
           f"for it unfinished" in _start(repo, "s2")


def _successor(status: str, handed_on: bool = False, made: str = "2026-01-01T00:00:00Z", ident: str = "c") -> Successor:
    return Successor(ident, status, handed_on, made)


@pytest.mark.parametrize("now,successors,expected", [
    ("draft", [_successor("ready")], CONTINUED),
    ("validated", [_successor("ready")], CONTINUED),
    ("draft", [_successor("draft")], KEEP),
    ("draft", [_successor("archived")], KEEP),
    ("draft", [_successor("ready", handed_on=True)], DROP),
    ("draft", [_successor("resumed")], DROP),
    ("draft", [_successor("ready"), _successor("resumed", ident="d")], DROP),
    ("ready", [_successor("ready")], MADE_READY),
    # a prepared draft is archived when a ready continuation completes it (docs/hooks.md): that continuation,
    # no baton carrying it, is still named
    ("archived", [_successor("ready")], CONTINUED),
    ("archived", [_successor("ready", handed_on=True)], DROP),
    ("archived", [], DROP),
])
def test_what_a_notice_about_an_unfinished_draft_becomes_once_a_handoff_continues_it(now, successors, expected):
    assert fate("draft", now, handed_on=False, successors=successors) == expected


def test_the_continuation_a_notice_names_is_the_newest_ready_one_no_baton_carries():
    successors = [_successor("ready", made="2026-01-01T00:00:00Z", ident="old"),
                  _successor("ready", made="2026-01-02T00:00:00Z", ident="new"),
                  _successor("draft", made="2026-01-03T00:00:00Z", ident="unfinished")]
    assert continued_by(successors) == "new"
    assert continued_by([_successor("draft")]) is None


@pytest.mark.parametrize("was,now,handed_on,expected", [
    ("draft", "draft", False, KEEP),
    ("draft", "validated", False, KEEP),
    ("draft", "ready", False, MADE_READY),
    ("draft", "ready", True, DROP),
    ("draft", "resumed", False, DROP),
    ("draft", "superseded", False, DROP),
    ("draft", "archived", False, DROP),
    ("ready", "ready", False, KEEP),
    ("ready", "ready", True, DROP),
    ("ready", "resumed", False, DROP),
    ("ready", "archived", False, DROP),
    (None, "ready", False, KEEP),
    ("draft", None, False, KEEP),
])
def test_what_a_notice_that_a_handoff_was_not_handed_on_becomes(was, now, handed_on, expected):
    assert fate(was, now, handed_on=handed_on) == expected
