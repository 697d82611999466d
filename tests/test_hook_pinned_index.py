"""A session's end (or the draft before a compaction) that meets an index pinned
in the past (``baton rebuild --until``) is kept in ``.baton/deferred/`` and run
by the next plain ``baton rebuild`` — the same keeping as for an index too far
behind or a ledger held by another process — never dropped with "the session's
end was not recorded and no baton was left".

Run as the harness runs it: ``baton hook claude-code SessionEnd`` in a child
process, the payload on stdin.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from baton.app import Baton
from baton.projections.sessions import session_doc
from tests.app_support import promote_handoff, validate_handoff_command
from tests.background_support import claude_hook, kept_hooks
from tests.conftest import run_baton
from tests.handoff_support import git_init, payload
from tests.harness_support import fixture, hook


@pytest.fixture
def pinned(project: Path) -> Path:
    """Session ``s-work`` began and made a handoff ready; then the index was pinned at its last event."""
    git_init(project, {"src/app.py": "x = 1\n"})
    hook(project, "claude-code", "SessionStart", fixture("claude-code", "SessionStart.startup", project,
                                                        session_id="s-work"))
    with Baton.open(project) as app:
        handoff_id = app.capture(payload(), session="s-work").handoff_id
    validate_handoff_command(project, handoff_id)
    promote_handoff(project, handoff_id, accept_warnings="tests")
    last = max(_events(project), key=lambda event: event["id"])["id"]
    done = run_baton("rebuild", "--until", last, cwd=project)
    assert done.returncode == 0 and "index pinned" in done.stdout, done.stderr
    return project


def _events(repo: Path, event_type: str | None = None) -> list[dict]:
    found = [json.loads(line) for feed in (repo / ".baton" / "ledger").glob("*.jsonl")
             for line in feed.read_bytes().splitlines()]
    return [event for event in found if event_type is None or event["type"] == event_type]


def _session(repo: Path, session: str) -> dict:
    with Baton.open(repo) as app:
        return session_doc(app.project.reading(), app.project.writer, session)


def test_a_session_end_on_a_pinned_index_is_kept_not_dropped(pinned):
    ended = claude_hook(pinned, "SessionEnd", "SessionEnd", "s-work")
    assert ended.returncode == 0 and ended.stdout == ""
    assert "the session's end is kept: it will be recorded, and its baton left, by that `baton rebuild`" \
        in ended.stderr
    assert "was not recorded" not in ended.stderr
    [kept] = kept_hooks(pinned)
    assert json.loads(kept.read_bytes())["session"] == "s-work"
    assert _events(pinned, "session.ended") == []  # nothing written while the index is pinned


def test_the_next_plain_rebuild_runs_a_session_end_kept_on_a_pinned_index(pinned):
    claude_hook(pinned, "SessionEnd", "SessionEnd", "s-work")
    rebuilt = run_baton("rebuild", "--json", cwd=pinned)
    assert rebuilt.returncode == 0, rebuilt.stderr
    [ran] = json.loads(rebuilt.stdout)["deferred"]
    assert ran["session"] == "s-work" and ran["error"] is None
    assert kept_hooks(pinned) == []
    assert _session(pinned, "s-work")["status"] == "ended"
    assert len(_events(pinned, "baton.created")) == 1  # its ready handoff handed on, once


def test_rebuild_if_needed_leaves_a_session_end_kept_on_a_pinned_index_waiting(pinned):
    claude_hook(pinned, "SessionEnd", "SessionEnd", "s-work")
    still = run_baton("rebuild", "--if-needed", "--json", cwd=pinned)
    assert still.returncode == 0 and json.loads(still.stdout)["deferred"] == []
    assert len(kept_hooks(pinned)) == 1  # the index stays pinned: it waits for the plain rebuild


def test_the_next_session_start_is_told_a_session_end_kept_on_a_pinned_index_waits(pinned):
    claude_hook(pinned, "SessionEnd", "SessionEnd", "s-work")
    started = claude_hook(pinned, "SessionStart", "SessionStart.startup", "s-next")
    assert "the session's end is kept" in started.stdout
    assert len(kept_hooks(pinned)) == 1


def test_a_write_on_a_pinned_index_says_index_pinned_in_its_json(pinned):
    refused = run_baton("session", "end", "s-work", "--json", cwd=pinned)
    assert refused.returncode == 4
    error = json.loads(refused.stdout or refused.stderr)["error"]
    assert error["code"] == "index_pinned" and error["details"]["pinned_until"]


def test_doctor_names_the_plain_rebuild_for_a_session_end_kept_on_a_pinned_index(pinned):
    claude_hook(pinned, "SessionEnd", "SessionEnd", "s-work")
    report = run_baton("doctor", "--json", cwd=pinned)
    [check] = [c for c in json.loads(report.stdout)["checks"] if c["name"] == "deferred hooks"]
    assert "the index is pinned at" in check["detail"]
    assert "the plain `baton rebuild` that returns it to the present runs them" in check["detail"]
    assert "--if-needed" not in check["detail"]  # that leaves the index pinned, and them waiting
