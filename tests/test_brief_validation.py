"""The bootstrap brief's "Recent decisions" and "Traps" come only from handoffs
that passed validation — plus session batons' failed approaches, which are the
point of a baton (a baton is a draft by design, delivered unvalidated).

A draft that failed validation (flagged ``invalid``) or was never validated
contributes nothing. Driven through the command line.
"""

from __future__ import annotations

import json

import pytest

from baton.domain.batons import passed_validation
from tests.batons_support import ALICE
from tests.cli_support import run, run_json

HERE = ("--owner", ALICE, "--branch", "main")
DECISION = "Compare state values in constant time"
TRAP = "Mock the provider clock"
ACTIONABLE = {"description": "Add the duplicate-callback fixture", "suggested_action": "Write it",
              "acceptance_check": "A replayed callback is rejected", "priority": "high"}


def capture(capsys, project, *, actionable: bool, decision: str = DECISION, trap: str = TRAP) -> str:
    """A checkpoint with one decision and one do-not-retry failed attempt; actionable ones validate to pass."""
    item = json.dumps(ACTIONABLE) if actionable else "Add the fixture"
    out = run_json(capsys, project, "checkpoint", "create", "--no-input", "--title", "OAuth callback",
                   "--objective", "Reject replayed callbacks", "--decision", decision,
                   "--failed-attempt", json.dumps({"approach": trap, "outcome": "failed", "reason": "the SDK reads time",
                                                   "avoid_repeating": True}),
                   "--open-item", item)
    return out["id"]


def validate(capsys, project, handoff_id: str, *, expect: int) -> dict:
    return run_json(capsys, project, "handoff", "validate", handoff_id, expect=expect)


def brief(capsys, project) -> dict:
    return run_json(capsys, project, "bootstrap", "--session-id", "s-next", *HERE)


def test_a_handoff_flagged_invalid_contributes_no_decisions_or_traps(project, capsys):
    handoff_id = capture(capsys, project, actionable=False)
    assert validate(capsys, project, handoff_id, expect=3)["flags"] == ["invalid"]

    out = brief(capsys, project)

    assert DECISION not in out["brief"] and TRAP not in out["brief"]
    assert "## Recent decisions" not in out["brief"] and "Traps" not in out["brief"]
    assert out["sections"]["decisions"] == {"shown": 0, "omitted": 0}
    assert out["sections"]["traps"] == {"shown": 0, "omitted": 0}


def test_a_draft_never_validated_contributes_nothing(project, capsys):
    capture(capsys, project, actionable=True)
    out = brief(capsys, project)
    assert DECISION not in out["brief"] and TRAP not in out["brief"]


def test_the_same_handoff_once_it_passes_validation_fills_both_sections(project, capsys):
    handoff_id = capture(capsys, project, actionable=False)
    validate(capsys, project, handoff_id, expect=3)
    run_json(capsys, project, "handoff", "amend", handoff_id, "--open-item", json.dumps({"id": "O-001", **ACTIONABLE}))
    assert validate(capsys, project, handoff_id, expect=0)["report"]["status"] == "pass"

    out = brief(capsys, project)

    assert "## Recent decisions" in out["brief"] and DECISION in out["brief"]
    assert "## ⚠️ Traps — do not retry" in out["brief"] and TRAP in out["brief"]


def test_a_revision_after_a_pass_takes_the_handoff_out_until_it_is_validated_again(project, capsys):
    handoff_id = capture(capsys, project, actionable=True)
    validate(capsys, project, handoff_id, expect=0)
    run_json(capsys, project, "handoff", "amend", handoff_id, "--decision", "Another unchecked decision")
    out = brief(capsys, project)
    assert DECISION not in out["brief"] and "Another unchecked decision" not in out["brief"]


def test_invalid_drafts_do_not_crowd_a_validated_handoff_out_of_the_window(project, capsys):
    good = capture(capsys, project, actionable=True, decision="The validated decision", trap="The validated trap")
    validate(capsys, project, good, expect=0)
    for i in range(22):
        bad = capture(capsys, project, actionable=False, decision=f"draft decision {i}", trap=f"draft trap {i}")
        validate(capsys, project, bad, expect=3)

    text = brief(capsys, project)["brief"]

    assert "The validated decision" in text and "The validated trap" in text
    assert "draft decision" not in text and "draft trap" not in text


def test_a_session_batons_failed_approaches_stay_traps_even_when_its_validation_fails(project, capsys):
    ended = run_json(capsys, project, "session", "end", "s-1", "--handoff-steps", "Run the auth suite",
                     "--handoff-failed", "Batch size 10k timed out", *HERE)
    run_json(capsys, project, "bootstrap", "--session-id", "s-2", *HERE)  # claims it
    validate(capsys, project, ended["handoffId"], expect=3)  # bare next steps: actionability fails

    code, text, err = run(capsys, project, "bootstrap", "--session-id", "s-3", *HERE)

    assert code == 0, err
    assert "## ⚠️ Traps — do not retry" in text and "Batch size 10k timed out" in text


# -- the rule itself ------------------------------------------------------------------------

def record(status: str, validation: str, flags=()) -> dict:
    return {"id": "h1", "status": status, "validation": {"status": validation}, "flags": list(flags)}


@pytest.mark.parametrize("status, validation, flags, passed", [
    ("draft", "not_run", (), False),
    ("draft", "fail", ("invalid",), False),
    ("validated", "pass", (), True),
    ("validated", "warn", (), False),          # a warn nobody accepted
    ("ready", "warn", (), True),               # accepted when it was made ready
    ("resumed", "warn", (), True),
    ("ready", "pass", (), True),
    ("validated", "pass", ("invalid",), False),
])
def test_passed_validation(status, validation, flags, passed):
    assert passed_validation(record(status, validation, flags)) is passed


def test_a_record_without_a_readable_validation_did_not_pass():
    assert not passed_validation({"id": "h1", "status": "ready"})
    assert not passed_validation({"id": "h1", "status": "ready", "validation": "pass"})
