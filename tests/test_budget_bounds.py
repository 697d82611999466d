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
