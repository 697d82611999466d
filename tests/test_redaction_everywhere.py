"""No command persists a secret, whichever flag it arrives through: every event
passes a last redaction screen before it is appended."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_baton

# Synthetic, built from pieces so no token-shaped string sits in the source.
TOKEN = "ghp" + "_" + "Zq7Lm2Xv9Rt4Wb8Nc1Kd6Hs3Jf5Gp0Ya" + "Q2e4"


def _nothing_under_baton_holds_the_token(project: Path) -> None:
    for path in (project / ".baton").rglob("*"):
        if path.is_file():
            assert TOKEN.encode() not in path.read_bytes(), path


def _draft(project: Path) -> str:
    r = run_baton("checkpoint", "create", "--no-input", "--json", "--title", "t", "--objective", "o",
                  "--project", str(project))
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["short_id"]


@pytest.mark.parametrize("argv", [
    ["session", "begin", "--owner", "a@example.com", "--branch", "main", "--objective", f"ship it {TOKEN}"],
    ["session", "begin", "--owner", TOKEN, "--branch", "main"],
    ["session", "end", "s1", "--owner", TOKEN, "--branch", "main", "--handoff-steps", "step"],
    ["session", "end", "s1", "--owner", "a@example.com", "--branch", TOKEN, "--handoff-steps", "step"],
    ["session", "begin", "--owner", f"o-{TOKEN}", "--branch", "main", "--objective", "obj"],
    ["session", "begin", "--owner", "a@example.com", "--branch", "main", "--session-id", TOKEN],
    ["session", "begin", "--owner", "a@example.com", "--branch", "main", "--harness", TOKEN],
    ["bootstrap", "--owner", "a@example.com", "--branch", "main", "--session-id", TOKEN],
    ["session", "end", TOKEN, "--owner", "a@example.com", "--branch", "main", "--handoff-steps", "step"],
    ["checkpoint", "create", "--no-input", "--title", "t", "--objective", "o", "--session", TOKEN],
], ids=["objective", "owner", "end-owner", "end-branch", "objective-owner", "session-id", "harness", "bootstrap-session", "end-session-id",
        "checkpoint-session"])
def test_a_secret_in_any_flag_is_redacted_or_refused_never_written(project, argv):
    r = run_baton(*argv, "--project", str(project))
    # Redacted (exit 0), or refused (exit 5) where it would name a stream
    # such as session/<id>: either way, never persisted and never echoed.
    assert r.returncode in (0, 5), r.stderr
    assert TOKEN not in r.stderr
    _nothing_under_baton_holds_the_token(project)


def test_a_secret_objective_is_redacted_and_the_redaction_recorded(project):
    r = run_baton("session", "begin", "--owner", "a@example.com", "--branch", "main",
                  "--objective", f"ship it {TOKEN}", "--project", str(project))
    assert r.returncode == 0, r.stderr
    lines = run_baton("log", "--json", "--project", str(project)).stdout.splitlines()
    records = [rec for line in lines for rec in json.loads(line).get("data", {}).get("_redacted", [])]
    assert any(rec["rule"] == "github-token" for rec in records)


def test_a_secret_session_id_is_refused_with_exit_5(project):
    r = run_baton("session", "end", TOKEN, "--owner", "a@example.com", "--branch", "main",
                  "--handoff-steps", "step", "--project", str(project))
    assert r.returncode == 5
    _nothing_under_baton_holds_the_token(project)


def test_a_refused_identifier_names_the_field_it_was_given_in_never_the_stream(project):
    # Not "stream[0] (...)": the person typed a session id or an owner/branch,
    # so the refusal names that field (once per rule) and the form it was found in.
    r = run_baton("session", "begin", "--owner", "a@example.com", "--branch", "main", "--session-id", TOKEN,
                  "--json", "--project", str(project))
    assert r.returncode == 5
    error = json.loads(r.stdout)["error"]
    assert error["code"] == "secret_in_identifier"
    assert "stream[" not in error["message"] and TOKEN not in r.stdout
    assert [b["field"] for b in error["details"]["blocked"]] == ["session id"]
    r = run_baton("session", "end", "s1", "--owner", "a@example.com", "--branch", TOKEN, "--handoff-steps", "x",
                  "--project", str(project))
    assert r.returncode == 5
    assert "the branch looks like a secret" in r.stderr and "stream[" not in r.stderr


def test_a_secret_in_an_archive_reason_is_redacted(project):
    short = _draft(project)
    r = run_baton("handoff", "archive", short, "--reason", f"leaked {TOKEN}", "--project", str(project))
    assert r.returncode == 0, r.stderr
    _nothing_under_baton_holds_the_token(project)
    events = run_baton("log", "--json", "--type", "handoff.archived", "--project", str(project)).stdout
    assert json.loads(events.splitlines()[-1])["data"]["_redacted"][0]["rule"] == "github-token"


def test_a_block_rule_refuses_an_objective_with_exit_5(project):
    (project / ".baton" / "policy.json").write_text(json.dumps({"actions": {"github-token": "block"}}))
    r = run_baton("session", "begin", "--owner", "a@example.com", "--branch", "main",
                  "--objective", f"obj {TOKEN}", "--project", str(project))
    assert r.returncode == 5
    _nothing_under_baton_holds_the_token(project)


def test_a_secret_project_id_is_refused(project_dir):
    r = run_baton("init", "--project-id", TOKEN, "--project", str(project_dir))
    assert r.returncode == 5
    assert not (project_dir / ".baton" / "config.json").exists()
