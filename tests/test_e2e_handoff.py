"""The handoff lifecycle end to end, through the real CLI in child processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_support import run_here
from tests.handoff_support import (
    ACTIONABLE_ITEM,
    baton,
    baton_json,
    every_file_under,
    git_commit,
    git_init,
    handoff_events,
    ledger_lines,
    materialized,
    payload,
)
from tests.policy_support import trust_policy

SCHEMA = Path(__file__).resolve().parent.parent / "schemas" / "handoff-v0.1.json"


@pytest.fixture
def git_project(project_dir) -> Path:
    """A git project with one committed source file, not yet initialised for Baton."""
    git_init(project_dir, {"src/callback.py": "def check(state):\n    return state\n"})
    return project_dir


@pytest.fixture
def repo(git_project) -> Path:
    """``git_project`` initialised for Baton, in this process: the scene most tests start from
    (the lifecycle test runs ``baton init`` as a child process itself)."""
    code, _, err = run_here("init", "--project", str(git_project), cwd=git_project)
    assert code == 0, err
    return git_project


def _capture_ready_cli(root: Path) -> str:
    out = baton_json(root, "checkpoint", "create", "--no-input",
                     "--title", "Resumable OAuth callback validation",
                     "--objective", "Invalid state values are rejected and the auth tests pass",
                     "--current-state", "The helper is written; one integration fixture remains.",
                     "--in-progress", "Integration fixture for the duplicate-callback path",
                     "--artifact", "src/callback.py",
                     "--open-item", json.dumps(ACTIONABLE_ITEM))
    assert baton_json(root, "handoff", "validate", out["short_id"])["report"]["status"] == "pass"
    assert baton_json(root, "handoff", "ready", out["short_id"])["status"] == "ready"
    return out["id"]


def _capture_ready(root: Path) -> str:
    """The same ready handoff, made in-process: these tests are about what follows."""
    from baton.cli_input import ContentOptions
    from tests.app_support import capture_checkpoint, promote_handoff, validate_handoff_command

    handoff_id = capture_checkpoint(root, content=ContentOptions(
        title="Resumable OAuth callback validation",
        objective="Invalid state values are rejected and the auth tests pass",
        current_state="The helper is written; one integration fixture remains.",
        in_progress=["Integration fixture for the duplicate-callback path"],
        artifacts=["src/callback.py"], open_items=[json.dumps(ACTIONABLE_ITEM)])).handoff_id
    assert validate_handoff_command(root, handoff_id).report["status"] == "pass"
    promote_handoff(root, handoff_id)
    return handoff_id


def test_init_capture_validate_ready_resume_fresh(git_project):
    repo = git_project
    assert baton(repo, "init").returncode == 0
    handoff_id = _capture_ready_cli(repo)
    r = baton(repo, "resume", "latest")
    assert r.returncode == 0, r.stderr
    assert "Freshness: fresh" in r.stdout
    assert "Invalid state values are rejected" in r.stdout
    assert "Add the duplicate-callback fixture" in r.stdout
    out = baton_json(repo, "resume", handoff_id, "--format", "json")
    assert out["freshness_state"] == "fresh"
    assert 0 <= out["quality"]["overall"] <= 100
    assert out["handoff"]["status"] == "ready"


def test_the_ready_file_conforms_to_the_schema_and_holds_no_transcript(repo):
    import jsonschema

    handoff_id = _capture_ready(repo)
    [(name, raw)] = materialized(repo).items()
    record = json.loads(raw)
    jsonschema.validate(record, json.loads(SCHEMA.read_text()))
    assert record["id"] == handoff_id and record["status"] == "ready"
    assert raw.endswith(b"\n") and raw.startswith(b"{\n  ")  # human-readable
    assert not {"transcript", "messages", "conversation"} & set(record)


def test_resume_is_stale_after_a_new_commit_and_says_so_before_the_next_action(repo):
    handoff_id = _capture_ready(repo)
    git_commit(repo, {"src/other.py": "x = 1\n"}, message="unrelated work")
    out = baton_json(repo, "resume", handoff_id, "--format", "json")
    assert out["freshness_state"] == "stale"
    text = baton(repo, "resume", handoff_id).stdout
    assert "STALE" in text
    assert text.index("STALE") < text.index("FIRST NEXT ACTION")


def test_resume_is_partially_stale_after_an_artifact_changes_with_the_head_unchanged(repo):
    handoff_id = _capture_ready(repo)
    (repo / "src" / "callback.py").write_text("def check(state):\n    return None\n")
    out = baton_json(repo, "resume", handoff_id, "--format", "json")
    assert out["freshness_state"] == "partially_stale"
    assert [d["path"] for d in out["freshness"]["drift"]] == ["src/callback.py"]
    text = baton(repo, "resume", handoff_id).stdout
    assert "PARTIALLY STALE" in text and "src/callback.py" in text
    assert text.index("PARTIALLY STALE") < text.index("FIRST NEXT ACTION")


def test_mark_resumed_records_the_resume_and_the_freshness_state(repo):
    handoff_id = _capture_ready(repo)
    out = baton_json(repo, "resume", handoff_id, "--mark-resumed", "--session", "s-9", "--harness", "codex")
    assert out["status"] == "resumed" and out["marked_resumed"] is True
    assert handoff_events(repo)[-1]["data"] == {"session": "s-9", "harness": "codex", "freshness_state": "fresh"}


SECRETS = {
    "aws": "AKIAQ7XJ3KZP5HWN4TLA",
    "github_classic": "ghp_" + "R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXYZ",
    "github_fine_grained": "github_pat_" + "11ABCDEFG0123456789abc_" + "q" * 8 + "W3xYz0123456789AbCdEfGhIjKlMnOpQrStUv",
    "slack": "xoxb-" + "2468013579-1357924680-" + "QwErTyUiOpAsDfGhJkLzXcVb",
    "jwt": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkJhdG9uIn0."
           "c2lnbmF0dXJlLXBsYWNlaG9sZGVyLTEyMzQ1Njc4OTA",
    "password": "Xk9#mQ2$vL7pR4wZ8nT1",
    "pem_body": "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0",
}


def test_secret_fixtures_never_reach_the_disk(repo):
    pem = ("-----BEGIN RSA PRIVATE KEY-----\n" + SECRETS["pem_body"] + "\n-----END RSA PRIVATE KEY-----")
    body = payload(
        summary={"current_state": f"Deployed with AWS key {SECRETS['aws']} and token {SECRETS['github_classic']}",
                 "discoveries": [f"the bot uses {SECRETS['slack']}", f"session cookie {SECRETS['jwt']}"],
                 "completed": ["rotated the fine-grained token " + SECRETS["github_fine_grained"]]},
        decisions=[{"decision": "keep the key in the vault", "rationale": pem}],
        evidence=[{"type": "command", "claim": "login works", "ref": "curl -u admin https://example.test/login",
                   "result": "pass", "output": f"db_password = {SECRETS['password']}\n200 OK\n"}],
        artifacts=[{"path": ".env", "role": "read"}],
    )
    r = baton(repo, "checkpoint", "create", "--json", "--input", "-", input=json.dumps(body))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    fields = {item["field"] for item in out["redactions"]}
    assert {"summary.current_state", "decisions[0].rationale", "artifacts[0].path",
            "evidence[0].output_summary"} <= fields
    assert all(set(item) >= {"field", "reason", "replacement"} for item in out["handoff"]["redactions"])
    handoff_id = out["id"]
    (repo / ".baton" / "policy.json").write_text(json.dumps({"disable_rules": []}))
    baton(repo, "handoff", "validate", handoff_id)
    baton(repo, "handoff", "list", "--work", "deployed")
    baton(repo, "rebuild")
    files = every_file_under(repo / ".baton")
    assert any(p.name == "index.sqlite" for p in files)
    for name, secret in SECRETS.items():
        for path in files:
            assert secret.encode() not in path.read_bytes(), f"{name} found in {path}"


def test_a_block_policy_refuses_the_capture_with_exit_5_and_writes_nothing(repo):
    (repo / ".baton" / "policy.json").write_text(json.dumps({"actions": {"aws-access-key-id": "block"}}))
    before = ledger_lines(repo)
    r = baton(repo, "checkpoint", "create", "--no-input", "--title", "t", "--objective", "o",
              "--current-state", f"key {SECRETS['aws']}")
    assert r.returncode == 5
    assert SECRETS["aws"] not in r.stderr
    assert ledger_lines(repo) == before


def test_a_base64_encoded_private_key_in_evidence_output_never_reaches_the_ledger(repo):
    import base64

    key = ("-----BEGIN OPENSSH " + "PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"
           + "Zq8vR1mJ3kP0xT7bN2cW5yH9dF4gL6sA1eU3iO8r" * 4 + "\n-----END OPENSSH " + "PRIVATE KEY-----\n")
    encoded = base64.b64encode(key.encode()).decode()
    wrapped = "\n".join(encoded[i:i + 76] for i in range(0, len(encoded), 76))
    evidence = {"type": "command", "claim": "the deploy key is in the vault", "ref": "base64 deploy_key",
                "result": "pass", "output": f"$ base64 deploy_key\n{wrapped}\n"}
    r = baton(repo, "checkpoint", "create", "--no-input", "--title", "t", "--objective", f"tls.key: {encoded}",
              "--evidence", json.dumps(evidence))
    assert r.returncode == 0, r.stderr
    for line in (encoded[16:60], wrapped.splitlines()[1]):
        assert line not in r.stdout + r.stderr
        for path in every_file_under(repo / ".baton"):
            assert line.encode() not in path.read_bytes(), path


def test_a_headerless_openssh_key_body_and_a_pgpass_password_never_reach_the_ledger(repo):
    import base64
    import hashlib

    body = base64.b64encode(b"openssh-key-v1\0\0\0\0\x04none\0\0\0\x04none\0\0\0\0\0\0\0\x01"
                            + hashlib.sha512(b"deploy").digest() * 5).decode()
    wrapped = "\n".join(body[i:i + 70] for i in range(0, len(body), 70))
    password = "Zq8vR1mJ3kP0xT7bN2cW"
    evidence = {"type": "command", "claim": "the replica can log in", "ref": "cat ~/.pgpass", "result": "pass",
                "output": f"$ cat ~/.pgpass\nreplica.internal:5432:app:replicator:{password}\n"}
    r = baton(repo, "checkpoint", "create", "--no-input", "--title", "t", "--objective", "rotate the deploy key",
              "--discovery", f"the old key body was:\n{wrapped}", "--evidence", json.dumps(evidence))
    assert r.returncode == 0, r.stderr
    for secret in (password, body[19:60], wrapped.splitlines()[2]):
        assert secret not in r.stdout + r.stderr
        for path in every_file_under(repo / ".baton"):
            assert secret.encode() not in path.read_bytes(), path


def test_a_policy_finding_is_recorded_with_its_rules_reason_unredacted(repo):
    from tests.secret_corpus import secrets

    token = next(s.value for s in secrets() if s.rule == "anthropic-api-key")
    (repo / ".baton" / "policy.json").write_text(json.dumps({"disable_rules": ["anthropic-api-key"]}))
    trust_policy(repo)  # the user's own policy, trusted in this clone
    handoff = baton_json(repo, "checkpoint", "create", "--no-input", "--title", "t", "--objective", f"use {token}")["id"]
    (repo / ".baton" / "policy.json").unlink()
    assert baton(repo, "handoff", "validate", handoff).returncode == 3
    validated = [e for e in handoff_events(repo) if e["type"] == "handoff.validated"][-1]
    assert "_redacted" not in validated["data"]
    policy = next(c for c in validated["data"]["report"]["checks"] if c["name"] == "policy")
    assert policy["findings"][0]["message"] == "anthropic-api-key — Anthropic API or admin key"


@pytest.mark.parametrize("path", ["../outside.txt", "/etc/passwd", "escape/secret.txt"])
def test_malicious_artifact_paths_exit_5_and_append_nothing(repo, tmp_path, path):
    outside = tmp_path / "outside-dir"
    outside.mkdir()
    (outside / "secret.txt").write_text("x")
    os.symlink(outside, repo / "escape")
    before = ledger_lines(repo)
    r = baton(repo, "checkpoint", "create", "--no-input", "--title", "t", "--objective", "o", "--artifact", path)
    assert r.returncode == 5, r.stderr
    assert "Traceback" not in r.stderr
    assert ledger_lines(repo) == before
    assert materialized(repo) == {}


def test_malformed_json_input_exits_2_and_appends_nothing(repo):
    before = ledger_lines(repo)
    r = baton(repo, "checkpoint", "create", "--json", "--input", "-", input='{"work": {"title": "x"')
    assert r.returncode == 2
    assert json.loads(r.stdout)["error"]["code"] == "input_error"
    assert "Traceback" not in r.stderr
    assert ledger_lines(repo) == before


def test_an_invalid_payload_exits_2_listing_every_problem(repo):
    r = baton(repo, "checkpoint", "create", "--json", "--input", "-",
              input=json.dumps({"work": {"title": 1}, "open_items": [{"priority": "urgent"}]}))
    assert r.returncode == 2
    problems = json.loads(r.stdout)["error"]["details"]["problems"]
    assert any(p.startswith("work.title") for p in problems)
    assert any(p.startswith("work.objective") for p in problems)
    assert any(p.startswith("open_items[0]") for p in problems)


def test_twenty_captures_from_twenty_processes_all_land_and_verify(repo):
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "baton", "checkpoint", "create", "--no-input", "--json", "--project", str(repo),
             "--title", f"parallel {i}", "--objective", "land without loss"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for i in range(20)
    ]
    results = [p.communicate(timeout=300) + (p.returncode,) for p in procs]
    assert all(code == 0 for _, _, code in results), [err for _, err, code in results if code]
    ids = {json.loads(out)["id"] for out, _, _ in results}
    assert len(ids) == 20
    listed = baton_json(repo, "handoff", "list")
    assert {h["id"] for h in listed["handoffs"]} == ids
    assert len(materialized(repo)) == 20
    assert baton_json(repo, "verify")["ok"] is True


def test_a_ready_handoff_resumes_after_the_index_is_deleted(repo):
    handoff_id = _capture_ready(repo)
    for name in ("index.sqlite", "index.sqlite-wal", "index.sqlite-shm"):
        (repo / ".baton" / name).unlink(missing_ok=True)
    out = baton_json(repo, "resume", handoff_id[:13], "--format", "json")
    assert out["id"] == handoff_id and out["freshness_state"] == "fresh"


def test_rebuild_restores_the_materialized_files_byte_for_byte(repo):
    import shutil

    first = _capture_ready(repo)
    baton_json(repo, "handoff", "amend", first, "--discovery", "the provider retries once")
    baton_json(repo, "checkpoint", "create", "--no-input", "--title", "second", "--objective", "o")
    baton(repo, "resume", first, "--mark-resumed")
    before = materialized(repo)
    assert len(before) == 3
    shutil.rmtree(repo / ".baton" / "handoffs")
    for name in ("index.sqlite", "index.sqlite-wal", "index.sqlite-shm"):
        (repo / ".baton" / name).unlink(missing_ok=True)
    assert baton(repo, "rebuild").returncode == 0
    assert materialized(repo) == before


def test_warn_needs_accept_warnings_and_fail_cannot_be_promoted_on_the_command_line(repo):
    (repo / "notes.txt").write_text("notes\n")
    warn = baton_json(repo, "checkpoint", "create", "--no-input", "--title", "t", "--objective", "o",
                      "--artifact", json.dumps({"path": "notes.txt", "role": "read",
                                                "content_hash": "sha256:" + "0" * 64}),
                      "--open-item", json.dumps(ACTIONABLE_ITEM))["id"]
    assert baton_json(repo, "handoff", "validate", warn)["report"]["status"] == "warn"
    assert baton(repo, "handoff", "ready", warn).returncode == 3
    assert baton_json(repo, "handoff", "ready", warn, "--accept-warnings", "hash is stale on purpose")[
        "accepted_warnings"] == "hash is stale on purpose"

    fail = baton_json(repo, "checkpoint", "create", "--no-input", "--title", "t", "--objective", "o")["id"]
    assert baton(repo, "handoff", "validate", fail).returncode == 3
    r = baton(repo, "handoff", "ready", fail, "--accept-warnings", "please")
    assert r.returncode == 3 and "validation failed" in r.stderr


def test_an_illegal_transition_exits_4_and_says_what_is_allowed(repo):
    handoff_id = _capture_ready(repo)
    r = baton(repo, "handoff", "ready", handoff_id, "--json")
    assert r.returncode == 4
    error = json.loads(r.stdout)["error"]
    assert error["details"]["status"] == "ready"
    assert "resume" in error["details"]["allowed"] and "amend" in error["details"]["allowed"]
    assert "it is ready" in r.stderr


def test_a_ready_handoff_never_changes_amend_makes_a_child_that_supersedes_it(repo):
    parent = _capture_ready(repo)
    before = materialized(repo)
    child = baton_json(repo, "handoff", "amend", parent, "--completed", "fixture written")
    assert child["lineage"] == {"parents": [parent], "relation": "amend", "merge_basis": []}
    assert all(materialized(repo)[name] == raw for name, raw in before.items())
    baton_json(repo, "handoff", "validate", child["id"])
    assert baton_json(repo, "handoff", "ready", child["id"])["superseded"] == [parent]
    parent_doc = baton_json(repo, "handoff", "show", parent)["handoff"]
    assert parent_doc["status"] == "superseded" and parent_doc["superseded_by"] == child["id"]
    assert baton_json(repo, "resume", "latest", "--format", "json")["id"] == child["id"]


def test_show_formats_on_the_command_line(repo):
    handoff_id = _capture_ready(repo)
    for fmt, needle in (("yaml", "schema_version: \"0.1\""), ("prompt", "RESUME BRIEF")):
        r = baton(repo, "handoff", "show", handoff_id, "--format", fmt)
        assert r.returncode == 0 and needle in r.stdout, (fmt, r.stdout[:300])


def test_list_with_status_and_work_filters_on_the_command_line(repo):
    ready = _capture_ready(repo)
    draft = baton_json(repo, "checkpoint", "create", "--no-input", "--title", "Billing export",
                       "--objective", "CSV export of invoices")["id"]
    assert [h["id"] for h in baton_json(repo, "handoff", "list", "--status", "ready")["handoffs"]] == [ready]
    assert [h["id"] for h in baton_json(repo, "handoff", "list", "--work", "invoices")["handoffs"]] == [draft]
    assert baton(repo, "handoff", "list", "--status", "bogus").returncode == 2


def test_prepare_on_the_command_line_prefills_and_writes_nothing(repo):
    (repo / "src" / "callback.py").write_text("changed\n")
    before = ledger_lines(repo)
    out = baton_json(repo, "handoff", "prepare", "--trigger", "threshold")
    assert out["changed_files"] == ["src/callback.py"]
    assert out["repository"]["dirty"] is True
    assert out["template"]["automation"]["trigger"] == "threshold"
    assert ledger_lines(repo) == before


def test_a_terminal_is_asked_for_missing_fields(repo):
    import pty

    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "baton", "checkpoint", "create", "--project", str(repo),
                             "--in-progress", "something"],
                            stdin=follower, stdout=subprocess.PIPE, stderr=follower)
    os.close(follower)
    os.write(leader, b"Asked title\nAsked objective\n")
    out, _ = proc.communicate(timeout=60)
    transcript = b""
    try:
        while True:
            chunk = os.read(leader, 4096)
            if not chunk:
                break
            transcript += chunk
    except OSError:
        pass
    os.close(leader)
    assert proc.returncode == 0, transcript
    assert b"Title" in transcript and b"Objective" in transcript
    [record] = [json.loads(raw) for raw in materialized(repo).values()]
    assert record["work"]["title"] == "Asked title" and record["work"]["objective"] == "Asked objective"


def test_without_a_terminal_nothing_is_asked_and_missing_fields_exit_2(repo):
    r = baton(repo, "checkpoint", "create", "--in-progress", "something", input="Title\nObjective\n")
    assert r.returncode == 2
    assert "work" in r.stderr
    assert ledger_lines(repo) == 1
