"""``baton detect`` through the application and the CLI (spec §9, §22.5)."""

from __future__ import annotations

import json

from baton.commands.context import Project
from tests.app_support import (
    _call,
    control_detector,
    detect,
    promote_handoff,
    show_handoff,
    validate_handoff_command,
)
from tests.handoff_support import baton, baton_json, ledger_lines, payload

HIGH = {"context_pressure": 0.9, "turn_pressure": 0.5}


def _detector_events(project):
    out = []
    for feed in (project / ".baton" / "ledger").glob("*.jsonl"):
        out += [json.loads(line) for line in feed.read_bytes().splitlines()]
    return [e for e in out if e["type"].startswith("detector.")]


def test_low_or_noisy_signals_write_nothing(project):
    lines = ledger_lines(project)
    result = detect(project, {"context_pressure": 0.3, "stuck_signal": None})
    assert result.action == "none" and not result.recorded
    assert ledger_lines(project) == lines


def test_an_explicit_request_always_creates_a_draft_with_its_automation(project):
    result = detect(project, {"handoff_request": True}, session="s1")
    assert result.action == "prepare" and result.draft is not None
    record = show_handoff(project, result.draft).record
    assert record["status"] == "draft"
    assert record["automation"] == {"trigger": "manual", "score": 1.0, "inputs": {"handoff_request": 1.0},
                                    "reasons": ["explicit handoff request (explicit_request 1.00)"]}
    assert "summary.current_state" in result.missing


def test_each_recommendation_is_recorded_with_score_inputs_and_reasons(project):
    result = detect(project, HIGH, session="s1")
    assert (result.action, result.recorded, result.draft) == ("recommend", True, None)
    [event] = _detector_events(project)
    assert event["type"] == "detector.recommended" and event["stream"] == "detector/s1"
    data = event["data"]
    assert data["pressure"] == 0.705 and data["inputs"] == HIGH and data["reasons"]
    assert "resume_readiness" in data["unavailable"]


def test_a_repeated_recommendation_is_suppressed_by_the_cooldown_and_replay_keeps_it(project):
    detect(project, HIGH, session="s1")
    again = detect(project, HIGH, session="s1")
    assert (again.action, again.suppressed, again.recorded) == ("recommend", "cooldown", False)
    other = detect(project, HIGH, session="s2")
    assert other.suppressed is None
    opened = Project.open(project)
    try:
        with opened.ledger.locked():
            opened.runner.rebuild()
    finally:
        opened.close()
    assert detect(project, HIGH, session="s1").suppressed == "cooldown"


def test_a_validated_handoff_ends_the_cooldown(project):
    detect(project, HIGH, session="s1")
    handoff_id = _call(project, "capture", payload()).handoff_id
    validate_handoff_command(project, handoff_id)
    assert detect(project, HIGH, session="s1").suppressed is None


def test_an_explicit_request_ends_the_cooldown(project):
    detect(project, HIGH, session="s1")
    detect(project, {"handoff_request": 1}, session="s1")
    assert detect(project, HIGH, session="s1").suppressed is None


def test_snooze_and_disable_are_events_that_suppress(project):
    control_detector(project, "snooze", session="s1", minutes=30)
    assert detect(project, HIGH, session="s1").suppressed == "snoozed"
    control_detector(project, "disable", session="s2")
    assert detect(project, HIGH, session="s2").suppressed == "disabled"
    control_detector(project, "enable", session="s2")
    assert detect(project, HIGH, session="s2").suppressed is None
    types = [e["type"] for e in _detector_events(project)]
    assert {"detector.snoozed", "detector.disabled", "detector.enabled"} <= set(types)


def test_an_explicit_request_prepares_a_draft_beside_a_symlink_out_of_the_project(project, tmp_path):
    from tests.handoff_support import git_init

    git_init(project, {"src/app.py": "x = 1\n"})
    (tmp_path / "shared-data").mkdir()
    (tmp_path / "shared-data" / "big.csv").write_text("a,b\n")
    (project / "data.csv").symlink_to(tmp_path / "shared-data" / "big.csv")
    (project / "src" / "app.py").write_text("x = 2\n")
    out = baton_json(project, "detect", "--prepare", "--session", "s1")
    assert out["action"] == "prepare" and out["draft"]
    record = show_handoff(project, out["draft"]).record
    assert [a["path"] for a in record["artifacts"]] == ["src/app.py"]


def test_auto_prepare_creates_a_draft_at_high_pressure_and_readiness(project):
    result = detect(project, {"stuck_signal": 1, "work_boundary": 1, "resume_readiness": 0.9})
    assert result.action == "auto_prepare" and result.draft
    record = show_handoff(project, result.draft).record
    assert record["automation"]["trigger"] == "threshold" and record["automation"]["score"] == 0.85


def test_weights_and_thresholds_come_from_config_json(project):
    config_path = project / ".baton" / "config.json"
    config = json.loads(config_path.read_text())
    config["detector"] = {"thresholds": {"recommend": 0.5}}
    config_path.write_text(json.dumps(config))
    assert detect(project, {"context_pressure": 0.75}).action == "recommend"
    config["detector"] = {"weights": {"context": 7}}
    config_path.write_text(json.dumps(config))
    result = baton(project, "detect", "--event", "-", input=json.dumps({"context_pressure": 0.75}))
    assert result.returncode == 4 and "detector.weights.context" in result.stderr


def test_the_cli_reads_signals_from_stdin_and_shows_unavailable_ones(project):
    out = baton_json(project, "detect", "--event", "-", input=json.dumps({"context_pressure": None}))
    assert out["action"] == "none" and "context_pressure" in out["unavailable"]
    bad = baton(project, "detect", "--event", "-", input="{not json")
    assert bad.returncode == 2


def test_a_promoted_draft_keeps_the_detector_audit(project):
    result = detect(project, {"handoff_request": 1})
    from baton.cli_input import ContentOptions
    from tests.app_support import amend_handoff

    amend_handoff(project, result.draft, content=ContentOptions(
        title="Auth fixture", objective="Reject replayed callbacks", current_state="fixture half written",
        open_items=[json.dumps({"description": "finish the fixture", "suggested_action": "write it",
                                "acceptance_check": "the test fails without the fix"})]))
    validate_handoff_command(project, result.draft)
    promote_handoff(project, result.draft, accept_warnings="synthetic test record")
    assert show_handoff(project, result.draft).record["automation"]["inputs"] == {"handoff_request": 1.0}


def test_a_snooze_of_no_time_or_beyond_a_year_is_refused_naming_it(project):
    lines = ledger_lines(project)
    for minutes in ("99999999999", "nan", "inf", "-5", "0"):
        r = baton(project, "detect", "--snooze", minutes, "--session", "q", "--json")
        assert r.returncode == 2, (minutes, r.stdout, r.stderr)
        assert "snooze" in r.stderr
    assert ledger_lines(project) == lines


def test_snooze_without_minutes_snoozes_for_the_cooldown(project):
    out = baton_json(project, "detect", "--snooze", "--session", "q")
    assert out["action"] == "snooze" and out["until"]


def test_detector_controls_cannot_be_combined_with_each_other_or_with_signals(project):
    lines = ledger_lines(project)
    for extra in (["--disable-for-session"], ["--prepare"], ["--event", "-"]):
        r = baton(project, "detect", "--snooze", "3", "--session", "q", *extra, input="{}")
        assert r.returncode == 2 and "cannot be combined" in r.stderr, (extra, r.stderr)
    assert ledger_lines(project) == lines


def test_an_event_that_is_not_a_json_object_is_refused(project):
    for body in ('""', "null", "0", "false", "[1, 2]"):
        r = baton(project, "detect", "--event", "-", input=body)
        assert r.returncode == 2, (body, r.stdout, r.stderr)


def test_a_request_given_under_either_spelling_is_not_withdrawn_by_the_other(project):
    for signals in ({"handoff_request": True, "explicit_request": False},
                    {"explicit_request": True, "handoff_request": False},
                    {"explicit_request": True, "handoff_request": None}):
        assert detect(project, signals).to_json()["explicit_request"] is True, signals
