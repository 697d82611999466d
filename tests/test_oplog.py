"""``BATON_LOG=info|debug``: local JSONL logs with ids, event names and timings only (spec §17)."""

from __future__ import annotations

import json

from baton import oplog
from tests.cli_support import run, run_json

SECRET = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
BODY = "PLANTED-BODY-TEXT-9d2e"


def log_records(project) -> list[dict]:
    path = project / ".baton" / oplog.LOG_FILE
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_nothing_is_logged_unless_baton_log_is_set(capsys, project, monkeypatch):
    monkeypatch.delenv("BATON_LOG", raising=False)
    run_json(capsys, project, "checkpoint", "create", "--title", "t", "--objective", "o")
    assert not (project / ".baton" / "logs").exists()


def test_info_logs_each_command_and_each_appended_event_by_id_and_type(capsys, project, monkeypatch):
    monkeypatch.setenv("BATON_LOG", "info")
    created = run_json(capsys, project, "checkpoint", "create", "--title", "t", "--objective", "o")
    records = log_records(project)
    appended = [r for r in records if r["event"] == "appended"]
    assert [(r["type"], r["handoff"]) for r in appended] == [("handoff.captured", created["id"])]
    commands = [r for r in records if r["event"] == "command"]
    assert [(r["command"], r["exit_code"]) for r in commands] == [("checkpoint_create", 0)]
    assert all(r["level"] == "info" for r in records)


def test_a_failed_command_is_logged_with_its_error_code_not_its_message(capsys, project, monkeypatch):
    monkeypatch.setenv("BATON_LOG", "info")
    assert run(capsys, project, "handoff", "show", BODY)[0] == 4
    (record,) = log_records(project)
    assert (record["command"], record["exit_code"], record["code"]) == ("handoff_show", 4, "not_found")


def test_debug_also_logs_catch_up_counts_and_timings(capsys, project, monkeypatch):
    monkeypatch.setenv("BATON_LOG", "debug")
    run_json(capsys, project, "handoff", "list")
    catch_ups = [r for r in log_records(project) if r["event"] == "catch_up"]
    assert catch_ups and {"events", "rebuilt", "ms"} <= catch_ups[0].keys()


def test_logs_never_hold_a_planted_secret_or_body_text(capsys, project, monkeypatch):
    monkeypatch.setenv("BATON_LOG", "debug")
    created = run_json(capsys, project, "checkpoint", "create", "--title", BODY, "--objective", f"use {SECRET}")
    run_json(capsys, project, "session", "end", "s1", "--handoff-steps", BODY, "--owner", "al@example.com",
             "--branch", "feature/x")
    run(capsys, project, "handoff", "show", f"{BODY}-{SECRET}")
    run_json(capsys, project, "handoff", "show", created["id"])
    text = (project / ".baton" / oplog.LOG_FILE).read_text()
    assert len(text.splitlines()) >= 6
    for planted in (SECRET, BODY, "al@example.com", "feature/x"):
        assert planted not in text


def test_only_listed_fields_with_id_shaped_values_are_written(tmp_path, monkeypatch):
    monkeypatch.setenv("BATON_LOG", "info")
    oplog.write(tmp_path, "info", "appended", type="handoff.captured", id="01a2-b", handoff="a b c",
                body="anything", command="x/y")
    (record,) = [json.loads(line) for line in (tmp_path / oplog.LOG_FILE).read_text().splitlines()]
    assert {k: record[k] for k in ("type", "id")} == {"type": "handoff.captured", "id": "01a2-b"}
    assert "handoff" not in record and "body" not in record and "command" not in record


def test_the_project_config_can_turn_logs_on(capsys, project, monkeypatch):
    monkeypatch.delenv("BATON_LOG", raising=False)
    config = project / ".baton" / "config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "log": "info"}))
    run_json(capsys, project, "handoff", "list")
    assert [r["command"] for r in log_records(project)] == ["handoff_list"]


def test_an_unknown_baton_log_value_warns_once_on_stderr_and_logs_nothing(project):
    from tests.conftest import run_baton

    r = run_baton("checkpoint", "create", "--no-input", "--title", "t", "--objective", "o",
                  cwd=project, env={"BATON_LOG": "verbose"})
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("BATON_LOG 'verbose' is not a log level") == 1
    assert not (project / ".baton" / "logs").exists()


def test_baton_log_off_is_quiet(project):
    from tests.conftest import run_baton

    r = run_baton("handoff", "list", cwd=project, env={"BATON_LOG": "off"})
    assert r.returncode == 0 and "not a log level" not in r.stderr
