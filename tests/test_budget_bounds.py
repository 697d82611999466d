"""Budgets out of bounds are input errors, refused before anything is claimed or recorded."""

from __future__ import annotations

import json

from tests.conftest import run_baton

HUGE = str(10**20)


def test_bootstrap_refuses_an_absurd_max_bytes_and_leaves_the_baton_pending(project):
    r = run_baton("session", "end", "s1", "--owner", "a@example.com", "--branch", "main",
                  "--handoff-steps", "important", "--project", str(project))
    assert r.returncode == 0, r.stderr
    r = run_baton("bootstrap", "--owner", "a@example.com", "--branch", "main", "--max-bytes", HUGE,
                  "--json", "--project", str(project))
    assert r.returncode == 2
    assert json.loads(r.stdout)["error"]["code"] == "input_error"
    pending = run_baton("session", "handoff", "--all", "--json", "--owner", "a@example.com", "--branch", "main",
                        "--project", str(project))
    assert json.loads(pending.stdout)["total"] == 1


def test_resume_refuses_an_absurd_max_tokens_and_records_nothing(project):
    r = run_baton("checkpoint", "create", "--no-input", "--json", "--title", "t", "--objective", "o",
                  "--open-item", '{"description": "d", "suggested_action": "s", "acceptance_check": "a"}',
                  "--project", str(project))
    short = json.loads(r.stdout)["short_id"]
    assert run_baton("handoff", "validate", short, "--project", str(project)).returncode == 0
    assert run_baton("handoff", "ready", short, "--project", str(project)).returncode == 0
    r = run_baton("resume", short, "--mark-resumed", "--max-tokens", HUGE, "--json", "--project", str(project))
    assert r.returncode == 2
    log = run_baton("log", "--json", "--type", "handoff.resumed", "--project", str(project))
    assert log.stdout.strip() == ""


def _draft(project) -> str:
    r = run_baton("checkpoint", "create", "--no-input", "--json", "--title", "t", "--objective", "o",
                  "--project", str(project))
    return json.loads(r.stdout)["short_id"]


def test_handoff_show_refuses_a_max_tokens_out_of_bounds_whatever_the_format(project):
    """It was accepted and ignored (``--format md --max-tokens -5`` exited 0)."""
    short = _draft(project)
    for fmt in ("json", "md", "prompt"):
        r = run_baton("handoff", "show", short, "--format", fmt, "--max-tokens", "-5", "--project", str(project))
        assert r.returncode == 2 and "--max-tokens must be an integer from 500" in r.stderr, (fmt, r.stderr)


def test_handoff_show_refuses_max_tokens_with_a_format_it_does_not_shape(project):
    short = _draft(project)
    r = run_baton("handoff", "show", short, "--format", "md", "--max-tokens", "800", "--project", str(project))
    assert r.returncode == 2 and "pass --format prompt" in r.stderr and "Traceback" not in r.stderr
    shown = run_baton("handoff", "show", short, "--format", "prompt", "--max-tokens", "800", "--project", str(project))
    assert shown.returncode == 0 and shown.stdout.startswith("RESUME BRIEF")
