"""A malformed ``.baton/config.json`` (or policy) stops every command that
opens the project, ``handoff list`` included, with a clear error (exit 4, ``config_error``)
naming the file and the problem — never silently replaced by defaults (issue 25)."""

from __future__ import annotations

import json

import pytest

from tests.cli_support import run


def _set(project, **members) -> None:
    path = project / ".baton" / "config.json"
    config = json.loads(path.read_text())
    config.update(members)
    path.write_text(json.dumps(config))


MALFORMED = {
    "policy not an object": ({"policy": "strict"}, "policy must be a JSON object"),
    "policy with a bad member": ({"policy": {"actions": 5}}, "actions must be an object"),
    "detector not an object": ({"detector": ["x"]}, "detector must be a JSON object"),
    "sync not an object": ({"sync": True}, "sync must be a JSON object"),
    "recheck not an object": ({"recheck": 30}, "recheck must be a JSON object"),
    "schema_version not a number": ({"schema_version": "one"}, "schema_version must be a positive integer"),
    "project_id not a string": ({"project_id": 5}, "project_id must be a string, not a number"),
    "empty project_id": ({"project_id": ""}, "project_id must be a non-empty id"),
    "log not a level": ({"log": 7}, "log must be a level name"),
    "schema_version newer": ({"schema_version": 99}, "schema_version 99 is newer than this Baton knows"),
    "project_id with a control character": ({"project_id": "a\x01b"}, "project_id must be a non-empty id"),
    "detector thresholds not an object": ({"detector": {"thresholds": "x"}}, "detector.thresholds must be an object"),
    "detector weight out of range": ({"detector": {"weights": {"explicit": 7}}},
                                     "detector.weights.explicit: must be a number from 0 to 1"),
    "detector cooldown negative": ({"detector": {"cooldown_minutes": -1}}, "detector.cooldown_minutes"),
    "detector unknown threshold": ({"detector": {"thresholds": {"nope": 0.5}}}, "detector.thresholds.nope: unknown"),
    "sync require_signatures not a boolean": ({"sync": {"require_signatures": "yes"}},
                                              "sync.require_signatures must be true or false"),
    "sync allowed_signers outside the project": ({"sync": {"allowed_signers": "/etc/passwd"}},
                                                 "sync.allowed_signers must be a path relative to the project root"),
    "sync allowed_signers climbing out": ({"sync": {"allowed_signers": "../signers"}}, "sync.allowed_signers"),
}


@pytest.mark.parametrize("case", list(MALFORMED))
@pytest.mark.parametrize("argv", [["handoff", "list"], ["status"], ["session", "begin"], ["resume"]])
def test_a_malformed_config_stops_the_command_with_exit_4_naming_the_problem(capsys, project, case, argv):
    members, problem = MALFORMED[case]
    _set(project, **members)
    code, out, err = run(capsys, project, *argv, "--json")
    assert code == 4, (out, err)
    error = json.loads(out)["error"]
    assert error["code"] == "config_error" and "config.json" in error["message"] and problem in error["message"]


def test_unknown_sections_are_kept_for_a_newer_baton(capsys, project):
    _set(project, future_section={"anything": 1}, another=[1, 2])
    code, _, err = run(capsys, project, "handoff", "list")
    assert code == 0, err


def test_a_malformed_policy_json_stops_handoff_list(capsys, project):
    (project / ".baton" / "policy.json").write_text('{"actions": {"github-token": "shout"}}')
    code, _, err = run(capsys, project, "handoff", "list")
    assert code == 4 and "policy.json" in err


def test_a_config_from_a_newer_baton_says_to_upgrade(capsys, project):
    _set(project, schema_version=2)
    code, _, err = run(capsys, project, "status")
    assert code == 4 and "upgrade Baton" in err


def test_a_config_with_every_detector_setting_typed_opens(capsys, project):
    _set(project, detector={"weights": {"explicit": 1}, "thresholds": {"recommend": 0.4},
                            "cooldown_minutes": 5})
    code, _, err = run(capsys, project, "status")
    assert code == 0, err


def test_a_project_id_given_to_init_opens(capsys, project_dir):
    code, _, err = run(capsys, project_dir, "init", "--project-id", "nope")
    assert code == 0, err
    code, out, err = run(capsys, project_dir, "status")
    assert code == 0 and "Project nope " in out


def test_init_refuses_a_project_id_the_config_would_refuse(capsys, project_dir):
    code, _, err = run(capsys, project_dir, "init", "--project-id", "a\x01b")
    assert code == 2 and "--project-id must be a non-empty id without control characters" in err
    assert not (project_dir / ".baton" / "config.json").exists()


def test_a_malformed_local_json_is_a_config_error_that_says_how_to_recover(capsys, project):
    (project / ".baton" / "local.json").write_text("{not json")
    code, out, _ = run(capsys, project, "handoff", "list", "--json")
    error = json.loads(out)["error"]
    assert code == 4 and error["code"] == "config_error"
    assert "local.json" in error["message"] and "writer id" in error["message"] and "remove it" in error["message"]


def test_doctor_names_a_policy_that_does_not_load(capsys, project):
    (project / ".baton" / "policy.json").write_text('{"x": 1}')
    code, out, _ = run(capsys, project, "doctor", "--json")
    checks = {c["name"]: c for c in json.loads(out)["checks"]}
    assert code == 3 and checks["policy"]["status"] == "fail" and "policy.json" in checks["policy"]["detail"]


@pytest.mark.parametrize("text", ["{not json", "[]", '{"fsync": "always"}'])
@pytest.mark.parametrize("argv", [["handoff", "list"], ["init"]])
def test_a_config_json_that_is_no_config_at_all_says_how_to_get_the_committed_one_back(capsys, project, text, argv):
    (project / ".baton" / "config.json").write_text(text)
    code, out, _ = run(capsys, project, *argv, "--json")
    error = json.loads(out)["error"]
    assert code == 4 and error["code"] == "config_error" and "config.json" in error["message"]
    assert error["message"].endswith("put back the committed one (git checkout -- .baton/config.json)")


def test_a_wrong_setting_of_config_json_is_named_without_the_advice_to_put_the_file_back(capsys, project):
    _set(project, schema_version=99)
    code, out, _ = run(capsys, project, "status", "--json")
    message = json.loads(out)["error"]["message"]
    assert code == 4 and "upgrade Baton" in message and "git checkout" not in message
