"""A session-end baton is a handoff: `baton resume` and `baton handoff show` work on it."""

from __future__ import annotations

import json

from tests.batons_support import leave
from tests.conftest import run_baton


def test_resume_renders_a_session_baton_without_validation(project):
    record = leave(project, steps=("Run the auth suite", "Fix the flaky test"))
    handoff_id = record.id
    r = run_baton("resume", handoff_id, "--json", "--project", str(project))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["status"] == "draft"
    assert "Run the auth suite" in out["brief"]["text"]
    assert out["freshness_state"] in ("fresh", "partially_stale", "stale", "unknown")


def test_resume_mark_resumed_refuses_an_unclaimed_session_baton(project):
    record = leave(project)
    handoff_id = record.id
    r = run_baton("resume", handoff_id, "--mark-resumed", "--project", str(project))
    assert r.returncode == 4
    assert "bootstrap" in r.stderr and "Traceback" not in r.stderr


def test_handoff_show_works_on_a_session_baton(project):
    record = leave(project, steps=("Run the auth suite",))
    handoff_id = record.id
    r = run_baton("handoff", "show", handoff_id, "--format", "json", "--project", str(project))
    assert r.returncode == 0, r.stderr
    assert "Run the auth suite" in r.stdout


def test_resume_latest_with_nothing_ready_says_how_a_handoff_becomes_ready(project):
    done = run_baton("resume", "latest", "--json", cwd=project)
    assert done.returncode == 4
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "not_found" and error["details"] == {"token": "latest"}
    assert error["message"].endswith("a captured handoff is validated, then made ready")
    assert run_baton("handoff", "show", "latest", cwd=project).stderr.endswith("then made ready\n")
