"""Capturing drafts: what is recorded, what is added, what is refused before any append."""

from __future__ import annotations

import json
import os
from pathlib import Path

import orjson
import pytest

from baton.cli_input import ContentOptions
from baton.commands.capture import assign_item_ids, capture_in_scope, merge_changes
from baton.commands.context import Project
from baton.errors import HandoffInputError, InputError, NotFound, PolicyBlock
from tests.app_support import capture_checkpoint
from tests.handoff_support import git_init, handoff_events, ledger_lines, materialized, payload

SCHEMA = Path(__file__).resolve().parent.parent / "schemas" / "handoff-v0.1.json"


def _capture(root: Path, body: dict, **kw):
    opened = Project.open(root)
    try:
        with opened.writing() as scope:
            return capture_in_scope(scope, body, **kw)
    finally:
        opened.close()


def _write_input(tmp_path: Path, value) -> str:
    path = tmp_path / "payload.json"
    path.write_bytes(orjson.dumps(value))
    return str(path)


def test_capture_appends_one_captured_event_and_materializes_a_draft(project):
    result = _capture(project, payload())
    events = handoff_events(project)
    assert [e["type"] for e in events] == ["handoff.captured"]
    assert events[0]["stream"] == f"handoff/{result.handoff_id}"
    files = materialized(project)
    assert list(files) == [Path(result.file).name]
    record = json.loads(files[Path(result.file).name])
    assert record["status"] == "draft" and record["id"] == result.handoff_id
    assert result.record == record


def test_materialized_draft_conforms_to_the_json_schema(project):
    import jsonschema

    result = _capture(project, payload(evidence=[{"type": "command", "claim": "auth tests pass",
                                                  "ref": "pytest tests/auth", "result": "pass",
                                                  "output": "3 passed"}]))
    schema = json.loads(SCHEMA.read_text())
    jsonschema.validate(json.loads((project / result.file).read_bytes()), schema)


def test_file_name_is_created_at_without_punctuation_and_short_id(project):
    result = _capture(project, payload())
    compact = result.record["created_at"].replace("-", "").replace(":", "")
    assert Path(result.file).name == f"{compact}--{result.handoff_id.replace('-', '')[-8:]}.json"


def test_capture_records_the_project_id_and_no_repository_outside_git(project):
    result = _capture(project, payload())
    assert result.record["project"]["id"] == Project.open(project).config.project_id
    assert "repository" not in result.record["project"]


def test_capture_records_head_branch_and_dirty_state_in_a_git_project(project):
    head = git_init(project, {"src/app.py": "x = 1\n"})
    result = _capture(project, payload())
    repo = result.record["project"]["repository"]
    assert repo["head"] == head and repo["vcs"] == "git"
    assert repo["dirty"] is False and repo["branch"] in ("master", "main")


def test_capture_hashes_existing_artifacts_so_drift_can_be_seen_later(project):
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("x = 1\n")
    result = _capture(project, payload(artifacts=[{"path": "./src//app.py", "role": "modified"}]))
    artifact = result.record["artifacts"][0]
    assert artifact["path"] == "src/app.py"
    import hashlib

    assert artifact["content_hash"] == "sha256:" + hashlib.sha256(b"x = 1\n").hexdigest()


def test_missing_artifact_is_recorded_without_a_hash(project):
    result = _capture(project, payload(artifacts=[{"path": "src/later.py", "role": "created"}]))
    assert "content_hash" not in result.record["artifacts"][0]


def test_items_without_ids_get_sequential_ids_that_skip_ids_in_use():
    body = assign_item_ids({"evidence": [{"id": "E-002", "claim": "a"}, {"claim": "b"}, {"claim": "c"}],
                            "open_items": [{"description": "x"}]})
    assert [e["id"] for e in body["evidence"]] == ["E-002", "E-003", "E-004"]
    assert body["open_items"][0]["id"] == "O-001"


def test_flags_accept_plain_text_where_one_field_is_meant():
    changes = ContentOptions(
        title="T", objective="O", open_items=["write the fixture"], risks=["flaky network"],
        failed_attempts=["monkeypatching the clock"], decisions=["use hmac.compare_digest"],
        artifacts=["src/a.py", "docs/b.md:read"],
    ).to_changes()
    assert changes["open_items"] == [{"description": "write the fixture"}]
    assert changes["risks"] == [{"description": "flaky network"}]
    assert changes["failed_attempts"] == [{"outcome": "failed", "approach": "monkeypatching the clock"}]
    assert changes["decisions"] == [{"decision": "use hmac.compare_digest"}]
    assert changes["artifacts"] == [{"path": "src/a.py", "role": "modified"}, {"path": "docs/b.md", "role": "read"}]


def test_an_artifact_flag_with_a_word_that_is_no_role_after_its_colon_is_an_input_error():
    with pytest.raises(InputError, match="'bogus' is not a role") as err:
        ContentOptions(artifacts=["src/app.py:bogus"]).to_changes()
    assert err.value.exit_code == 2


def test_an_artifact_flag_takes_its_role_in_any_case_and_keeps_other_colons_in_the_path():
    changes = ContentOptions(artifacts=["docs/b.md:Read", "logs/run:2026-12-05.txt", "notes:draft:created"]).to_changes()
    assert changes["artifacts"] == [{"path": "docs/b.md", "role": "read"},
                                    {"path": "logs/run:2026-12-05.txt", "role": "modified"},
                                    {"path": "notes:draft", "role": "created"}]


def test_a_malformed_json_flag_is_an_input_error():
    with pytest.raises(InputError, match="--failed-attempt"):
        ContentOptions(failed_attempts=['{"approach": "x",']).to_changes()


def test_evidence_that_needs_json_refuses_plain_text():
    with pytest.raises(InputError, match="--evidence takes a JSON object"):
        ContentOptions(evidence=["tests passed"]).to_changes()


def test_plain_text_evidence_error_shows_an_evidence_shaped_example():
    # The example must be something --evidence accepts (type, claim, ref,
    # result), not a failed attempt's fields (approach, outcome).
    with pytest.raises(InputError) as raised:
        ContentOptions(evidence=["tests passed"]).to_changes()
    message = str(raised.value)
    assert '"claim"' in message and '"type"' in message
    assert "approach" not in message and "outcome" not in message


def test_flags_are_merged_over_the_input_payload(project, tmp_path):
    source = _write_input(tmp_path, payload())
    result = capture_checkpoint(project, input_source=source,
                                content=ContentOptions(title="Renamed", in_progress=["another thread"]))
    assert result.record["work"]["title"] == "Renamed"
    assert result.record["summary"]["in_progress"] == [
        "Integration fixture for the duplicate-callback path", "another thread"]


def test_merge_replaces_records_with_the_same_id_and_appends_others():
    base = {"open_items": [{"id": "O-001", "description": "old"}], "risks": [{"description": "r1"}]}
    merged = merge_changes(base, {"open_items": [{"id": "O-001", "description": "new"}, {"description": "more"}],
                                  "risks": [{"description": "r2"}]})
    assert merged["open_items"] == [{"id": "O-001", "description": "new"}, {"description": "more"}]
    assert merged["risks"] == [{"description": "r1"}, {"description": "r2"}]
    assert base["open_items"][0]["description"] == "old"


def test_malformed_input_json_exits_2_and_appends_nothing(project, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"work": {"title": "x",')
    before = ledger_lines(project)
    with pytest.raises(InputError) as err:
        capture_checkpoint(project, input_source=str(bad))
    assert err.value.exit_code == 2
    assert ledger_lines(project) == before
    assert materialized(project) == {}


def test_input_that_is_not_an_object_is_refused(project, tmp_path):
    with pytest.raises(InputError, match="JSON object"):
        capture_checkpoint(project, input_source=_write_input(tmp_path, ["a", "b"]))


def test_every_problem_of_a_payload_is_reported_at_once(project):
    body = payload()
    body["work"] = {"title": 3}
    body["open_items"] = [{"description": "x", "priority": "urgent"}]
    with pytest.raises(HandoffInputError) as err:
        _capture(project, body)
    text = " ".join(err.value.problems)
    assert "work.title" in text and "work.objective" in text and "priority" in text
    assert handoff_events(project) == []


def test_fields_baton_manages_cannot_be_supplied(project):
    with pytest.raises(HandoffInputError, match="status: set by Baton"):
        _capture(project, payload(status="ready"))


def test_unknown_fields_survive_capture_at_every_level(project):
    body = payload(x_team={"ticket": "AUTH-42"})
    body["work"]["x_estimate"] = "2h"
    result = _capture(project, body)
    assert result.record["x_team"] == {"ticket": "AUTH-42"}
    assert result.record["work"]["x_estimate"] == "2h"


def test_command_output_is_kept_as_a_digest_and_a_bounded_redacted_summary(project):
    key = "AK" + "IAQ7XJ3KZP5HWN4TLA"  # synthetic (AWS's documented example key is left alone)
    output = "collected 3 items\n" + "." * 5000 + f"\n{key}\n3 passed\n"
    result = _capture(project, payload(evidence=[{"type": "test", "claim": "auth tests pass",
                                                  "ref": "pytest tests/auth", "result": "pass",
                                                  "output": output}]))
    evidence = result.record["evidence"][0]
    assert "output" not in evidence
    assert evidence["digest"].startswith("sha256:") and len(evidence["digest"]) == 71
    assert len(evidence["output_summary"]) <= 2000 and evidence["output_truncated"] is True
    assert "3 passed" in evidence["output_summary"]
    raw = b"".join(p.read_bytes() for p in (project / ".baton" / "ledger").glob("*.jsonl"))
    assert key.encode() not in raw and b"." * 3000 not in raw


def test_a_secret_is_redacted_before_append_and_the_record_says_where_and_why(project):
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    result = _capture(project, payload(summary={"current_state": f"pushed with token {token} then stopped"}))
    assert token not in result.record["summary"]["current_state"]
    assert "[REDACTED:github-token]" in result.record["summary"]["current_state"]
    assert {"field": "summary.current_state", "rule": "github-token"}.items() <= result.redactions[0].items()
    assert token.encode() not in b"".join(p.read_bytes() for p in (project / ".baton").rglob("*") if p.is_file())


def test_a_block_rule_refuses_the_capture_and_appends_nothing(project):
    (project / ".baton" / "policy.json").write_text(json.dumps({"actions": {"github-token": "block"}}))
    token = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
    before = ledger_lines(project)
    with pytest.raises(PolicyBlock) as err:
        _capture(project, payload(summary={"current_state": f"token {token}"}))
    assert err.value.exit_code == 5
    assert token not in err.value.message
    assert ledger_lines(project) == before


@pytest.mark.parametrize("path", ["../outside.py", "src/../../outside.py", "/etc/passwd"])
def test_artifact_paths_that_leave_the_root_are_refused_with_nothing_appended(project, path):
    before = ledger_lines(project)
    with pytest.raises(PolicyBlock) as err:
        _capture(project, payload(artifacts=[{"path": path, "role": "read"}]))
    assert err.value.exit_code == 5
    assert ledger_lines(project) == before


def test_an_artifact_through_a_symlink_that_escapes_the_root_is_refused(project, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.txt").write_text("x")
    os.symlink(outside, project / "link")
    with pytest.raises(PolicyBlock, match="symlink"):
        _capture(project, payload(artifacts=[{"path": "link/secret.txt", "role": "read"}]))
    assert handoff_events(project) == []


def test_file_evidence_and_scope_that_leave_the_root_are_refused(project):
    with pytest.raises(PolicyBlock):
        _capture(project, payload(evidence=[{"type": "file", "claim": "c", "ref": "../x.py#L3"}]))
    body = payload()
    body["work"]["scope"] = ["src/**", "../other/**"]
    with pytest.raises(PolicyBlock):
        _capture(project, body)
    assert handoff_events(project) == []


def test_a_parent_links_the_capture_as_a_continuation(project):
    first = _capture(project, payload())
    second = _capture(project, payload(), parent=first.short_id)
    assert second.record["lineage"] == {"parents": [first.handoff_id], "relation": "continue", "merge_basis": []}


def test_an_unknown_parent_is_not_found_and_nothing_is_appended(project):
    with pytest.raises(NotFound):
        _capture(project, payload(), parent="0123456789abcdef")
    assert handoff_events(project) == []


def test_origin_session_and_trigger_are_recorded(project):
    result = _capture(project, payload(), trigger="hook", origin={"harness": "codex"}, session="s-1",
                      actor="agent@example.com")
    assert result.record["origin"] == {"harness": "codex", "session_id": "s-1"}
    assert result.record["automation"]["trigger"] == "hook"
    event = handoff_events(project)[0]
    assert event["session"] == "s-1" and event["actor"] == "agent@example.com"


def test_a_terminal_asks_for_a_missing_title_and_objective(project):
    asked = []

    def prompter(question: str) -> str:
        asked.append(question)
        return "Answer for " + question.split(" ")[0]

    result = capture_checkpoint(project, content=ContentOptions(in_progress=["x"]), prompter=prompter)
    assert len(asked) == 2
    assert result.record["work"]["title"] == "Answer for Title"


def test_without_a_terminal_nothing_is_asked_and_a_missing_title_exits_2(project):
    with pytest.raises(HandoffInputError, match="work"):
        capture_checkpoint(project, content=ContentOptions(in_progress=["x"]), prompter=None)


# -- raw transcripts (§10 Policy, §16): refused before the append, not only at validate ----------

def test_a_raw_transcript_field_is_refused_before_append_naming_its_path(project):
    before = ledger_lines(project)
    with pytest.raises(PolicyBlock) as err:
        _capture(project, payload(transcript="user: hi\nassistant: hello"))
    assert err.value.exit_code == 5
    assert err.value.details["fields"] == ["transcript"]
    assert "transcript" in err.value.message
    assert ledger_lines(project) == before and materialized(project) == {}


def test_a_transcript_field_nested_anywhere_is_refused_with_its_full_path(project):
    body = payload(decisions=[{"decision": "Compare in constant time", "conversation": "user: why?"}])
    body["summary"]["chat_history"] = ["user: hi"]
    with pytest.raises(PolicyBlock) as err:
        _capture(project, body)
    assert set(err.value.details["fields"]) == {"summary.chat_history", "decisions[0].conversation"}
    assert "summary.chat_history" in err.value.message and "decisions[0].conversation" in err.value.message
    assert handoff_events(project) == []


def test_checkpoint_create_with_a_transcript_on_stdin_exits_5_and_appends_nothing(project):
    from tests.handoff_support import baton

    before = ledger_lines(project)
    r = baton(project, "checkpoint", "create", "--input", "-",
              input='{"work":{"title":"t","objective":"o"},"transcript":"user: hi"}')
    assert r.returncode == 5, (r.stdout, r.stderr)
    assert "transcript" in r.stderr and "Traceback" not in r.stderr
    assert ledger_lines(project) == before and materialized(project) == {}


def test_a_scope_glob_through_a_symlink_that_escapes_the_root_is_refused(project, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    os.symlink(outside, project / "escape")
    body = payload()
    body["work"]["scope"] = ["src/**", "escape/**"]
    with pytest.raises(PolicyBlock, match="symlink") as err:
        _capture(project, body)
    assert err.value.exit_code == 5 and err.value.details["path"] == "escape/**"
    assert handoff_events(project) == []


def test_scope_globs_inside_the_root_are_accepted_whatever_their_wildcards(project):
    (project / "src").mkdir()
    os.symlink(project / "src", project / "inside")
    body = payload()
    body["work"]["scope"] = ["**", "src/**/*.py", "inside/[ab]*.ts", "docs/?.md", "tests/unit"]
    result = _capture(project, body)
    assert result.record["work"]["scope"] == body["work"]["scope"]


@pytest.mark.parametrize("pattern, prefix", [("escape/**", "escape"), ("src/*/x.py", "src"), ("**", ""),
                                             ("docs/?.md", "docs"), ("a/b/[xy]/c", "a/b"), ("tests/unit", "tests/unit"),
                                             ("/opt/shared/**", "/opt/shared"), ("/**", "/")])
def test_the_fixed_prefix_of_a_scope_glob_is_everything_before_the_first_wildcard(pattern, prefix):
    from baton.commands.capture import glob_fixed_prefix

    assert glob_fixed_prefix(pattern) == prefix
