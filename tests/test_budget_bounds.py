"""Budgets out of bounds are input errors, refused before anything is claimed or recorded."""

from __future__ import annotations

import json

from tests.cli_support import run_here
from tests.conftest import run_baton

HUGE = str(10**20)


def here(project, *args: str) -> str:
    """A scene step or a read of what was recorded, in this process (the refused commands run the real
    program); returns what it printed."""
    code, out, err = run_here(*args, "--project", str(project), cwd=project)
    assert code == 0, (args, out, err)
    return out


def test_bootstrap_refuses_an_absurd_max_bytes_and_leaves_the_baton_pending(project):
    here(project, "session", "end", "s1", "--owner", "a@example.com", "--branch", "main",
         "--handoff-steps", "important")
    r = run_baton("bootstrap", "--owner", "a@example.com", "--branch", "main", "--max-bytes", HUGE,
                  "--json", "--project", str(project))
    assert r.returncode == 2
    assert json.loads(r.stdout)["error"]["code"] == "input_error"
    pending = here(project, "session", "handoff", "--all", "--json", "--owner", "a@example.com", "--branch", "main")
    assert json.loads(pending)["total"] == 1


def test_resume_refuses_an_absurd_max_tokens_and_records_nothing(project):
    short = json.loads(here(project, "checkpoint", "create", "--no-input", "--json", "--title", "t", "--objective", "o",
                            "--open-item", '{"description": "d", "suggested_action": "s", "acceptance_check": "a"}'))[
        "short_id"]
    here(project, "handoff", "validate", short)
    here(project, "handoff", "ready", short)
    r = run_baton("resume", short, "--mark-resumed", "--max-tokens", HUGE, "--json", "--project", str(project))
    assert r.returncode == 2
    assert here(project, "log", "--json", "--type", "handoff.resumed").strip() == ""


def _draft(project) -> str:
    return json.loads(here(project, "checkpoint", "create", "--no-input", "--json", "--title", "t",
                           "--objective", "o"))["short_id"]


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
