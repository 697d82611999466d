"""Validate, ready, amend, archive and resume through the commands (no child process)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from baton.cli_input import ContentOptions
from baton.commands.capture import capture_in_scope
from baton.commands.context import Project
from baton.errors import InputError, PolicyBlock, PromotionRefused, StreamVersionConflict, TransitionError
from tests.app_support import amend_handoff, archive_handoff, promote_handoff, resume_handoff, validate_handoff_command
from tests.handoff_support import handoff_events, payload
from tests.policy_support import trust_policy


def _capture(root: Path, body: dict | None = None, **kw):
    opened = Project.open(root)
    try:
        with opened.writing() as scope:
            return capture_in_scope(scope, body if body is not None else payload(), **kw)
    finally:
        opened.close()


def _ready(root: Path, body: dict | None = None) -> str:
    handoff_id = _capture(root, body).handoff_id
    validate_handoff_command(root, handoff_id)
    promote_handoff(root, handoff_id)
    return handoff_id


def _warning_payload() -> dict:
    # An artifact recorded without being checkable by hash warns: here a
    # recorded hash that no longer matches.
    return payload(artifacts=[{"path": "notes.txt", "role": "read", "content_hash": "sha256:" + "0" * 64}])


def test_a_passing_validation_makes_the_draft_validated_and_records_the_report(project):
    handoff_id = _capture(project).handoff_id
    result = validate_handoff_command(project, handoff_id)
    assert result.exit_code == 0 and result.status == "validated"
    assert result.report["status"] == "pass"
    assert [c["name"] for c in result.report["checks"]] == [
        "schema", "policy", "artifacts", "repository", "evidence", "actionability", "lineage", "quality"]
    assert 0 <= result.report["quality"]["overall"] <= 100
    assert [e["type"] for e in handoff_events(project)] == ["handoff.captured", "handoff.validated"]


def test_a_failing_validation_exits_3_records_the_report_and_flags_the_record_invalid(project):
    body = payload(open_items=[])
    handoff_id = _capture(project, body).handoff_id
    result = validate_handoff_command(project, handoff_id)
    assert result.exit_code == 3
    assert result.status == "draft" and result.flags == ("invalid",)
    assert "actionability" in result.render()


def test_validation_output_has_a_terse_terminal_summary(project):
    handoff_id = _capture(project).handoff_id
    text = validate_handoff_command(project, handoff_id).render()
    assert text.splitlines()[0].startswith(f"handoff {handoff_id.replace('-', '')[-8:]}: validation PASS")
    assert "continuity score" in text


def test_ready_before_validation_exits_4_naming_the_state_and_what_is_allowed(project):
    handoff_id = _capture(project).handoff_id
    with pytest.raises(TransitionError) as err:
        promote_handoff(project, handoff_id)
    assert err.value.exit_code == 4
    assert "it is draft" in err.value.message and "allowed: revise, validate" in err.value.message


def test_on_the_command_line_an_illegal_transition_also_names_the_commands_it_leaves_open(project):
    import json

    from tests.conftest import run_baton

    handoff_id = _capture(project).handoff_id
    r = run_baton("handoff", "ready", handoff_id, "--json", "--project", str(project))
    assert r.returncode == 4
    assert "what it takes now: baton handoff amend, baton handoff validate" in r.stderr
    details = json.loads(r.stdout)["error"]["details"]
    assert "baton handoff amend" in details["commands"] and "revise" in details["offered"]
    assert "--accept-warnings" not in r.stderr


def test_a_pass_becomes_ready_durably(project):
    handoff_id = _capture(project).handoff_id
    validate_handoff_command(project, handoff_id)
    result = promote_handoff(project, handoff_id)
    assert result.record["status"] == "ready"
    assert handoff_events(project)[-1]["type"] == "handoff.promoted"


def test_a_warn_needs_accept_warnings_with_a_reason(project):
    (project / "notes.txt").write_text("notes\n")
    handoff_id = _capture(project, _warning_payload()).handoff_id
    assert validate_handoff_command(project, handoff_id).report["status"] == "warn"
    with pytest.raises(PromotionRefused) as err:
        promote_handoff(project, handoff_id)
    assert err.value.exit_code == 3 and "`accept_warnings`" in err.value.message
    with pytest.raises(InputError):
        promote_handoff(project, handoff_id, accept_warnings="   ")
    result = promote_handoff(project, handoff_id, accept_warnings="notes are informational")
    assert result.record["status"] == "ready"
    assert result.record["validation"]["accepted_warnings"] == "notes are informational"


def test_a_fail_cannot_be_promoted_even_with_accept_warnings(project):
    handoff_id = _capture(project, payload(open_items=[])).handoff_id
    validate_handoff_command(project, handoff_id)
    with pytest.raises(PromotionRefused) as err:
        promote_handoff(project, handoff_id, accept_warnings="ship it")
    assert err.value.exit_code == 3
    assert "validation failed" in err.value.message


def test_a_failed_record_amended_and_revalidated_can_become_ready(project):
    handoff_id = _capture(project, payload(open_items=[])).handoff_id
    validate_handoff_command(project, handoff_id)
    revised = amend_handoff(project, handoff_id, content=ContentOptions(open_items=[json.dumps({
        "description": "finish", "suggested_action": "run the suite", "acceptance_check": "suite passes"})]))
    assert revised.revised and revised.handoff_id == handoff_id
    assert revised.record["status"] == "draft" and "flags" not in revised.record
    assert revised.record["validation"]["status"] == "not_run"
    assert validate_handoff_command(project, handoff_id).exit_code == 0
    assert promote_handoff(project, handoff_id).record["status"] == "ready"


def test_a_ready_handoff_is_immutable_amend_creates_a_child(project):
    parent_id = _ready(project)
    before = Project.open(project).reading().get("handoffs", parent_id)
    child = amend_handoff(project, parent_id, content=ContentOptions(discoveries=["the provider retries once"]))
    assert child.handoff_id != parent_id and not child.revised
    assert child.record["lineage"]["parents"] == [parent_id]
    assert child.record["lineage"]["relation"] == "amend"
    assert child.record["status"] == "draft"
    assert child.record["summary"]["discoveries"] == ["the provider retries once"]
    after = Project.open(project).reading().get("handoffs", parent_id)
    assert after == before


def test_validating_a_ready_handoff_is_an_illegal_transition(project):
    handoff_id = _ready(project)
    with pytest.raises(TransitionError) as err:
        validate_handoff_command(project, handoff_id)
    assert "it is ready" in err.value.message and "amend" in err.value.message


def test_promoting_an_amendment_supersedes_its_parent(project):
    parent_id = _ready(project)
    child_id = amend_handoff(project, parent_id, content=ContentOptions(completed=["fixture"])).handoff_id
    validate_handoff_command(project, child_id)
    result = promote_handoff(project, child_id)
    assert result.superseded == (parent_id,)
    parent = Project.open(project).reading().get("handoffs", parent_id)
    assert parent["status"] == "superseded" and parent["superseded_by"] == child_id


def test_a_superseded_handoff_points_resume_at_its_successor(project):
    parent_id = _ready(project)
    child_id = amend_handoff(project, parent_id, content=ContentOptions(completed=["fixture"])).handoff_id
    validate_handoff_command(project, child_id)
    promote_handoff(project, child_id)
    with pytest.raises(TransitionError, match=f"superseded by {child_id}"):
        resume_handoff(project, parent_id)


def test_amend_without_changes_is_an_input_error(project):
    handoff_id = _capture(project).handoff_id
    with pytest.raises(InputError, match="nothing to amend"):
        amend_handoff(project, handoff_id)


def test_amend_applies_redaction_and_path_checks(project):
    handoff_id = _capture(project).handoff_id
    with pytest.raises(PolicyBlock):
        amend_handoff(project, handoff_id, content=ContentOptions(artifacts=["../../etc/passwd"]))
    token = "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
    result = amend_handoff(project, handoff_id, content=ContentOptions(discoveries=[f"slack {token}"]))
    assert token not in json.dumps(result.record)
    assert result.record["redactions"][-1]["field"] == "summary.discoveries[0]"


def test_archive_is_terminal(project):
    handoff_id = _ready(project)
    archive_handoff(project, handoff_id, reason="abandoned")
    with pytest.raises(TransitionError, match="terminal"):
        archive_handoff(project, handoff_id)
    with pytest.raises(TransitionError):
        resume_handoff(project, handoff_id)
    with pytest.raises(TransitionError):
        amend_handoff(project, handoff_id, content=ContentOptions(completed=["x"]))


def test_resume_of_a_draft_exits_4_saying_it_must_be_ready(project):
    handoff_id = _capture(project).handoff_id
    with pytest.raises(TransitionError, match="only a ready handoff can be resumed"):
        resume_handoff(project, handoff_id)


def test_resume_reports_freshness_state_and_quality_and_mark_resumed_records_it(project):
    handoff_id = _ready(project)
    result = resume_handoff(project, handoff_id, format="json", mark_resumed=True, session="s-2", harness="cursor")
    out = result.to_json()
    assert out["freshness_state"] == "unknown"  # not a git project: nothing to compare
    assert set(out["quality"]["dimensions"]) == {
        "objective_clarity", "current_state_clarity", "decision_completeness", "evidence_coverage",
        "artifact_coverage", "failed_attempts", "next_action_clarity", "freshness"}
    assert out["status"] == "resumed" and out["handoff"]["resumed_at"]
    event = handoff_events(project)[-1]
    assert event["type"] == "handoff.resumed"
    assert event["data"] == {"session": "s-2", "harness": "cursor", "freshness_state": "unknown"}


def test_resume_without_mark_resumed_writes_nothing(project):
    handoff_id = _ready(project)
    before = len(handoff_events(project))
    resume_handoff(project, handoff_id)
    assert len(handoff_events(project)) == before


def test_resume_respects_the_token_budget(project):
    body = payload(summary={"current_state": "state " * 50, "completed": [f"thread {i} " * 20 for i in range(40)]})
    handoff_id = _ready(project, body)
    from baton.domain.brief import MIN_MAX_TOKENS

    brief = resume_handoff(project, handoff_id, max_tokens=MIN_MAX_TOKENS).brief
    assert brief["estimated_tokens"] <= MIN_MAX_TOKENS and brief["omitted"]
    with pytest.raises(InputError):
        resume_handoff(project, handoff_id, max_tokens=10)


def test_validation_that_races_a_revision_is_a_conflict(project, monkeypatch):
    handoff_id = _capture(project).handoff_id
    import baton.commands.validate as validate

    real = validate.gather_validation_facts

    def revise_meanwhile(*args, **kwargs):
        amend_handoff(project, handoff_id, content=ContentOptions(completed=["raced"]))
        return real(*args, **kwargs)

    monkeypatch.setattr(validate, "gather_validation_facts", revise_meanwhile)
    with pytest.raises(StreamVersionConflict):
        validate_handoff_command(project, handoff_id)


# -- recheck ------------------------------------------------------------------------

def _allow(root: Path, *commands: str) -> None:
    (root / ".baton" / "policy.json").write_text(json.dumps({"recheck_allowlist": list(commands)}))
    trust_policy(root)  # the user's own allowlist, trusted in this clone


def _command_evidence(ref: str, result: str = "pass") -> dict:
    return payload(evidence=[{"id": "E-001", "type": "command", "claim": "it passes", "ref": ref, "result": result}])


def test_recheck_refuses_a_command_not_on_the_allowlist_and_runs_nothing(project, tmp_path):
    marker = tmp_path / "ran"
    ref = f"{sys.executable} -c \"open('{marker}', 'w')\""
    handoff_id = _capture(project, _command_evidence(ref)).handoff_id
    before = len(handoff_events(project))
    with pytest.raises(PolicyBlock) as err:
        validate_handoff_command(project, handoff_id, recheck=True)
    assert err.value.exit_code == 5 and "allowlist" in err.value.message
    assert not marker.exists()
    assert len(handoff_events(project)) == before


def test_recheck_runs_an_allowlisted_command_without_a_shell_and_records_the_result(project):
    ref = f"{sys.executable} -c \"print('ok; echo injected')\""
    _allow(project, ref)
    handoff_id = _capture(project, _command_evidence(ref)).handoff_id
    result = validate_handoff_command(project, handoff_id, recheck=True)
    run = result.rechecks[0]
    assert run["status"] == "pass" and run["exit_code"] == 0
    assert run["summary"].strip() == "ok; echo injected"  # a shell would have run `echo`
    assert run["digest"].startswith("sha256:")
    assert result.report["status"] == "pass"
    stored = Project.open(project).reading().get("handoffs", handoff_id)
    assert stored["validation"]["rechecks"][0]["evidence_id"] == "E-001"


def test_recheck_gives_the_command_no_secrets_from_the_environment(project, monkeypatch):
    monkeypatch.setenv("BATON_TEST_API_TOKEN", "sk-should-never-reach-a-recheck")
    ref = f"{sys.executable} -c \"import os; print(sorted(os.environ))\""
    _allow(project, ref)
    handoff_id = _capture(project, _command_evidence(ref)).handoff_id
    run = validate_handoff_command(project, handoff_id, recheck=True).rechecks[0]
    assert "BATON_TEST_API_TOKEN" not in run["summary"]
    assert "HOME" not in run["summary"]


def test_a_recheck_that_contradicts_a_recorded_pass_fails_validation(project):
    ref = f"{sys.executable} -c \"raise SystemExit(1)\""
    _allow(project, ref)
    handoff_id = _capture(project, _command_evidence(ref)).handoff_id
    result = validate_handoff_command(project, handoff_id, recheck=True)
    assert result.rechecks[0]["status"] == "fail" and result.rechecks[0]["exit_code"] == 1
    assert result.exit_code == 3


def test_a_recheck_that_outlives_its_timeout_is_an_error_not_a_pass(project):
    config = project / ".baton" / "config.json"
    settings = json.loads(config.read_text())
    settings["recheck"] = {"timeout_seconds": 0.5}
    config.write_text(json.dumps(settings))
    # A grandchild holding the output pipe must not keep validation waiting.
    ref = (f"{sys.executable} -c \"import subprocess, sys, time; "
           f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)']); time.sleep(120)\"")
    _allow(project, ref)
    handoff_id = _capture(project, _command_evidence(ref)).handoff_id
    run = validate_handoff_command(project, handoff_id, recheck=True).rechecks[0]
    assert run["status"] == "error" and "timed out" in run["summary"]


def test_an_allowlisted_command_written_with_extra_spaces_is_rechecked_and_accepted(project):
    command = f"{sys.executable} -c \"print(1)\""
    _allow(project, command)
    handoff_id = _capture(project, _command_evidence(command.replace(" -c", "   -c"))).handoff_id
    result = validate_handoff_command(project, handoff_id, recheck=True)
    assert result.rechecks[0]["status"] == "pass"
    assert result.report["status"] == "pass"


def test_revising_a_draft_with_a_transcript_field_is_refused_and_appends_nothing(project):
    import io

    handoff_id = _capture(project).handoff_id
    before = handoff_events(project)
    with pytest.raises(PolicyBlock) as err:
        amend_handoff(project, handoff_id, input_source="-",
                      stdin=io.StringIO(json.dumps({"summary": {"current_state": "s", "raw_transcript": "user: hi"}})))
    assert err.value.exit_code == 5 and err.value.details["fields"] == ["summary.raw_transcript"]
    assert handoff_events(project) == before


def test_amending_a_ready_handoff_with_a_transcript_field_creates_no_child(project):
    import io

    parent_id = _ready(project)
    before = handoff_events(project)
    with pytest.raises(PolicyBlock) as err:
        amend_handoff(project, parent_id, input_source="-", stdin=io.StringIO(json.dumps({"messages": ["user: hi"]})))
    assert err.value.exit_code == 5 and err.value.details["fields"] == ["messages"]
    assert handoff_events(project) == before


def test_on_the_command_line_a_refused_promotion_says_make_ready_not_the_state_machines_action(project):
    from tests.conftest import run_baton

    handoff_id = _capture(project).handoff_id
    r = run_baton("handoff", "ready", handoff_id, "--project", str(project))
    assert r.returncode == 4 and f"cannot make handoff {handoff_id} ready: it is draft" in r.stderr
    assert "promote" not in r.stderr and "allowed: revise" not in r.stderr
