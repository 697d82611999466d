""".baton/config.json's project_id must be the one the ledger's ``project.initialized`` recorded:
``baton verify`` and ``baton doctor`` fail, naming both ids and what to set, when it is not."""

from __future__ import annotations

import json

from baton.config import read_json, write_json_atomic
from tests.cli_support import run, run_json


def _init(capsys, project_dir) -> str:
    return run_json(capsys, project_dir, "init", "--project-id", "proj-a")["project_id"]


def _set_config_id(project_dir, value: str) -> None:
    config = project_dir / ".baton" / "config.json"
    raw = read_json(config)
    raw["project_id"] = value
    write_json_atomic(config, raw)


def test_verify_passes_when_the_config_and_the_ledger_name_the_same_project(project_dir, capsys):
    _init(capsys, project_dir)
    out = run_json(capsys, project_dir, "verify")
    assert out["project"] == {"config_id": "proj-a", "ledger_ids": ["proj-a"], "problem": None}


def test_verify_fails_when_the_config_names_another_project_than_the_ledger(project_dir, capsys):
    _init(capsys, project_dir)
    _set_config_id(project_dir, "proj-b")
    code, out, err = run(capsys, project_dir, "verify")
    assert code == 3
    (line,) = [line for line in out.splitlines() if line.startswith("FAIL project id:")]
    assert "'proj-b'" in line and "'proj-a'" in line and "set project_id in .baton/config.json back to 'proj-a'" in line
    assert out.splitlines()[-1].startswith("ledger has problems: ")


def test_the_json_answer_names_both_ids_and_the_problem(project_dir, capsys):
    _init(capsys, project_dir)
    _set_config_id(project_dir, "proj-b")
    out = run_json(capsys, project_dir, "verify", expect=3)
    assert out["project"]["config_id"] == "proj-b" and out["project"]["ledger_ids"] == ["proj-a"]
    assert "proj-a" in out["project"]["problem"]
    assert out["ok"] is True  # the chains themselves are sound


def test_doctor_fails_its_project_id_check_on_a_mismatch(project_dir, capsys):
    _init(capsys, project_dir)
    _set_config_id(project_dir, "proj-b")
    code, out, err = run(capsys, project_dir, "doctor", "--json")
    checks = {c["name"]: c for c in json.loads(out)["checks"]}
    assert code == 3 and checks["project id"]["status"] == "fail"
    assert "back to 'proj-a'" in checks["project id"]["detail"]


def test_doctor_has_no_project_id_check_when_the_ids_agree(project_dir, capsys):
    _init(capsys, project_dir)
    code, out, err = run(capsys, project_dir, "doctor", "--json")
    assert "project id" not in {c["name"] for c in json.loads(out)["checks"]}
