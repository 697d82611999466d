"""``baton session handoff --from ID`` hands on only a handoff its receiver can
resume: a draft (one that failed validation among them) or a validated one is
refused (exit 4) naming what makes it ready, so no brief points at a ``baton
resume`` that is refused."""

from __future__ import annotations

import json

from tests.conftest import run_baton
from tests.handoff_support import baton_json

ACTIONABLE = json.dumps({"description": "d", "suggested_action": "s", "acceptance_check": "a"})


def _captured(project, open_item: str) -> str:
    return baton_json(project, "checkpoint", "create", "--no-input", "--title", "T", "--objective", "O",
                      "--current-state", "S", "--open-item", open_item)["id"]


def test_handing_on_a_handoff_that_failed_validation_is_refused_naming_validate_and_ready(repo):
    handoff_id = _captured(repo, "patch parser")
    baton_json(repo, "handoff", "validate", handoff_id, expect=3)
    done = run_baton("session", "handoff", "--from", handoff_id, "--shared", "--project", str(repo))
    assert done.returncode == 4, done.stdout
    assert "cannot hand on handoff" in done.stderr and "only a ready handoff can be handed on" in done.stderr
    assert "baton handoff validate" in done.stderr
    assert baton_json(repo, "bootstrap", "--peek", "--owner", "carol@example.com")["handoff"] is None


def test_handing_on_a_validated_handoff_is_refused_naming_handoff_ready(repo):
    handoff_id = _captured(repo, ACTIONABLE)
    baton_json(repo, "handoff", "validate", handoff_id)
    refused = baton_json(repo, "session", "handoff", "--from", handoff_id, expect=4)["error"]
    assert refused["code"] == "invalid_transition" and refused["details"]["status"] == "validated"
    assert "baton handoff ready" in refused["details"]["commands"]


def test_a_ready_handoff_handed_on_gives_a_brief_whose_resume_command_works(repo):
    handoff_id = _captured(repo, ACTIONABLE)
    baton_json(repo, "handoff", "validate", handoff_id)
    baton_json(repo, "handoff", "ready", handoff_id, "--accept-warnings", "synthetic test data")
    baton_json(repo, "session", "handoff", "--from", handoff_id, "--shared")
    brief = baton_json(repo, "bootstrap", "next-1", "--owner", "carol@example.com")["brief"]
    assert f"`baton resume {handoff_id[-8:]}`" in brief
    assert run_baton("resume", handoff_id[-8:], "--project", str(repo)).returncode == 0
