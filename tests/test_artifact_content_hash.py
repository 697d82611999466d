"""An artifact's content hash is no oracle for a secret in it (docs/security.md
"Artifact content hashes"): a file the secret screen finds a secret in records
``sha256-redacted:`` of its screened content, and the drift check screens the
current content before comparing; a clean file keeps a plain ``sha256:``."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from baton.app import Baton
from baton.commands import capture as capture_module
from baton.commands.handoff_facts import sha256_file
from baton.domain.content_hash import SCREEN_LIMIT_BYTES, plain_hash, screen_content, withhold_current
from baton.domain.freshness import ArtifactFact, freshness_from_facts
from baton.domain.handoff import Artifact
from baton.domain.redaction import RedactionPolicy
from tests.app_support import init_project, promote_handoff, resume_handoff, validate_handoff_command
from tests.cli_support import run, run_json
from tests.handoff_support import git_init, payload
from tests.policy_support import trust_policy

ENV = "APP_NAME=shop\nDB_HOST=db.internal\nDB_PASSWORD=Winter2026!\nLOG_LEVEL=info\n"
DB_YML = "production:\n  adapter: postgresql\n  host: db.internal\n  password: Winter2026!\n"
POLICY = RedactionPolicy()


def raw_hex(text: str | bytes) -> str:
    return hashlib.sha256(text.encode() if isinstance(text, str) else text).hexdigest()


def redacted_hash(text: str) -> str:
    """The hash of ``text`` with its password replaced by the marker the default rules write."""
    return "sha256-redacted:" + raw_hex(text.replace("Winter2026!", "[REDACTED:generic-secret-assignment]"))


def ledger_bytes(root: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted((root / ".baton" / "ledger").glob("*.jsonl")))


@pytest.fixture
def repo(tmp_path) -> Path:
    """A git repository with one commit and a Baton project whose policy names
    ``.env`` files in handoffs (the ``dotenv-file`` path rule switched off), so
    the content screen is what stands between a ``.env`` and its hash."""
    root = tmp_path / "repo"
    root.mkdir()
    git_init(root, {"README.md": "hello\n"})
    init_project(root)
    (root / ".baton" / "policy.json").write_text(json.dumps({"disable_rules": ["dotenv-file"]}))
    trust_policy(root)  # the project's own policy, trusted in this clone
    return root


def ready(root: Path, *artifacts: str) -> str:
    with Baton.open(root) as app:
        handoff_id = app.capture(payload(artifacts=[{"path": a, "role": "modified"} for a in artifacts])).handoff_id
    assert validate_handoff_command(root, handoff_id).exit_code == 0
    promote_handoff(root, handoff_id)
    return handoff_id


def recorded_hash(root: Path, handoff_id: str, path: str) -> str | None:
    with Baton.open(root) as app:
        record = app.project.reading().get("handoffs", handoff_id)
    [artifact] = [a for a in record["artifacts"] if a["path"] == path]
    return artifact.get("content_hash")


def drift_of(root: Path, handoff_id: str) -> dict:
    return resume_handoff(root, handoff_id).freshness


# -- the pure rule -------------------------------------------------------------------------

def test_a_file_without_secrets_keeps_a_plain_sha256_of_its_bytes():
    data = b"def add(a, b):\n    return a + b\n"
    assert screen_content(data, POLICY).content_hash == "sha256:" + raw_hex(data)


def test_a_file_holding_a_password_records_the_hash_of_its_redacted_content():
    screened = screen_content(DB_YML.encode(), POLICY)
    assert screened.holds_secret
    assert screened.content_hash == redacted_hash(DB_YML)
    assert raw_hex(DB_YML) not in screened.content_hash


def test_changing_only_the_secret_value_leaves_the_screened_hash_unchanged():
    rotated = DB_YML.replace("Winter2026!", "Summer2027#x")
    assert screen_content(rotated.encode(), POLICY).content_hash == screen_content(DB_YML.encode(), POLICY).content_hash


def test_a_binary_file_without_secrets_keeps_its_plain_hash():
    data = bytes(range(256)) * 64
    assert screen_content(data, POLICY).content_hash == "sha256:" + raw_hex(data)


def test_a_token_inside_a_binary_file_is_screened_too():
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    data = b"\x00\xff\xfe" + token.encode() + b"\x00\x80"
    screened = screen_content(data, POLICY)
    assert screened.holds_secret and screened.content_hash.startswith("sha256-redacted:")


def test_a_drifted_file_that_now_holds_a_secret_is_reported_without_its_current_hash():
    class Record:
        artifacts = (Artifact(path="config/app.yml", role="modified", content_hash="sha256:" + "a" * 64),)
        project = type("P", (), {"repository": None})()

    report = freshness_from_facts(Record(), {"config/app.yml": ArtifactFact(
        exists=True, sha256="sha256:" + "b" * 64, withhold_hash=True)}, None)
    [drift] = report.drift
    assert drift.kind == "modified" and drift.current_hash is None


# -- capture and drift, through the application ----------------------------------------

def test_an_env_file_with_a_password_never_puts_its_raw_sha256_in_the_ledger(repo):
    (repo / ".env").write_text(ENV)
    handoff_id = ready(repo, ".env")
    assert raw_hex(ENV).encode() not in ledger_bytes(repo)
    assert recorded_hash(repo, handoff_id, ".env") == redacted_hash(ENV)


def test_no_file_under_baton_holds_the_raw_sha256_of_a_secret_file(repo):
    (repo / ".env").write_text(ENV)
    ready(repo, ".env")
    resume_handoff(repo, "latest")
    files = [p for p in (repo / ".baton").rglob("*") if p.is_file()]
    assert [p for p in files if raw_hex(ENV).encode() in p.read_bytes()] == []


def test_a_block_rule_matching_inside_an_artifact_screens_its_hash_without_refusing_the_capture(repo):
    (repo / ".baton" / "policy.json").write_text(json.dumps(
        {"disable_rules": ["dotenv-file"], "actions": {"generic-secret-assignment": "block"}}))
    trust_policy(repo)  # a changed policy that widens is trusted again, whole (docs/security.md)
    (repo / ".env").write_text(ENV)
    with Baton.open(repo) as app:
        handoff_id = app.capture(payload(artifacts=[{"path": ".env", "role": "modified"}])).handoff_id
    assert recorded_hash(repo, handoff_id, ".env").startswith("sha256-redacted:")


def test_an_edit_of_a_non_secret_line_of_an_env_file_is_drift(repo):
    (repo / ".env").write_text(ENV)
    handoff_id = ready(repo, ".env")
    assert drift_of(repo, handoff_id)["state"] == "fresh"
    (repo / ".env").write_text(ENV.replace("LOG_LEVEL=info", "LOG_LEVEL=debug"))
    freshness = drift_of(repo, handoff_id)
    assert freshness["state"] == "partially_stale"
    assert [(d["path"], d["kind"]) for d in freshness["drift"]] == [(".env", "modified")]
    assert freshness["drift"][0]["current_hash"].startswith("sha256-redacted:")


def test_changing_only_the_secret_value_of_an_env_file_is_not_drift(repo):
    (repo / ".env").write_text(ENV)
    handoff_id = ready(repo, ".env")
    (repo / ".env").write_text(ENV.replace("Winter2026!", "Summer2027#x"))
    assert drift_of(repo, handoff_id)["drift"] == []


def test_removing_the_secret_from_a_screened_file_is_drift(repo):
    (repo / ".env").write_text(ENV)
    handoff_id = ready(repo, ".env")
    (repo / ".env").write_text(ENV.replace("DB_PASSWORD=Winter2026!\n", ""))
    assert [d["kind"] for d in drift_of(repo, handoff_id)["drift"]] == ["modified"]


def test_a_file_without_secrets_keeps_a_plain_sha256_in_the_record(repo):
    (repo / "src.py").write_text("print('hello')\n")
    handoff_id = ready(repo, "src.py")
    assert recorded_hash(repo, handoff_id, "src.py") == "sha256:" + raw_hex("print('hello')\n")


def test_an_old_record_with_a_plain_sha256_of_a_secret_file_still_reports_drift(repo, monkeypatch):
    (repo / ".env").write_text(ENV)
    # A record captured before the screen: the raw hash, as every record before it holds.
    monkeypatch.setattr(capture_module, "capture_content_hash", lambda path, policy: (sha256_file(path), None))
    handoff_id = ready(repo, ".env")
    monkeypatch.undo()
    assert recorded_hash(repo, handoff_id, ".env") == "sha256:" + raw_hex(ENV)
    assert drift_of(repo, handoff_id)["state"] == "fresh"
    (repo / ".env").write_text(ENV.replace("LOG_LEVEL=info", "LOG_LEVEL=debug"))
    [drift] = drift_of(repo, handoff_id)["drift"]
    assert drift["kind"] == "modified"
    assert drift["current_hash"] is None  # the raw hash of a file holding a secret is not shown


def test_a_raw_hash_the_caller_gives_for_a_secret_file_is_recorded_screened(repo):
    (repo / ".env").write_text(ENV)

    given = [{"path": ".env", "role": "modified", "content_hash": "sha256:" + raw_hex(ENV)}]
    with Baton.open(repo) as app:
        handoff_id = app.capture(payload(artifacts=given)).handoff_id
    assert recorded_hash(repo, handoff_id, ".env") == redacted_hash(ENV)
    assert raw_hex(ENV).encode() not in ledger_bytes(repo)


def test_a_file_over_the_screen_limit_records_no_hash_and_says_why(repo):
    (repo / "big.log").write_bytes(b"x" * (SCREEN_LIMIT_BYTES + 1))

    with Baton.open(repo) as app:
        handoff_id = app.capture(payload(artifacts=[{"path": "big.log", "role": "generated"}])).handoff_id
        record = app.project.reading().get("handoffs", handoff_id)
    [artifact] = record["artifacts"]
    assert "content_hash" not in artifact
    assert "over the" in artifact["content_hash_skipped"]


def test_an_env_file_under_the_default_policy_records_neither_its_path_nor_a_hash(repo):
    (repo / ".baton" / "policy.json").unlink()
    (repo / ".env").write_text(ENV)

    with Baton.open(repo) as app:
        handoff_id = app.capture(payload(artifacts=[{"path": ".env", "role": "modified"}])).handoff_id
        record = app.project.reading().get("handoffs", handoff_id)
    [artifact] = record["artifacts"]
    assert artifact["path"] == "[REDACTED:dotenv-file]" and "content_hash" not in artifact
    assert raw_hex(ENV).encode() not in ledger_bytes(repo)


# -- the real command line -----------------------------------------------------------------

def cli_capture(capsys, root: Path) -> dict:
    item = json.dumps({"description": "Point staging at the new database", "suggested_action": "Edit the host",
                       "acceptance_check": "the app connects"})
    return run_json(capsys, root, "checkpoint", "create", "--title", "Move the database",
                    "--objective", "The app uses the new database host", "--current-state", "host changed",
                    "--open-item", item, "--artifact", "config/database.yml")


@pytest.fixture
def database_yml(repo, monkeypatch) -> Path:
    (repo / "config").mkdir()
    (repo / "config" / "database.yml").write_text(DB_YML)
    monkeypatch.chdir(repo)
    return repo / "config" / "database.yml"


def test_the_cli_records_a_screened_hash_and_resume_reports_a_later_edit(repo, database_yml, capsys):
    captured = cli_capture(capsys, repo)
    [artifact] = captured["handoff"]["artifacts"]
    assert artifact["content_hash"] == redacted_hash(DB_YML)
    assert raw_hex(DB_YML).encode() not in ledger_bytes(repo)
    run_json(capsys, repo, "handoff", "validate", captured["id"])
    run_json(capsys, repo, "handoff", "ready", captured["id"])
    database_yml.write_text(DB_YML.replace("db.internal", "db2.internal"))
    resumed = run_json(capsys, repo, "resume", captured["id"])
    assert resumed["freshness"]["state"] == "partially_stale"
    assert [d["path"] for d in resumed["freshness"]["drift"]] == ["config/database.yml"]


def test_the_cli_validate_warns_of_an_edit_to_a_screened_artifact(repo, database_yml, capsys):
    captured = cli_capture(capsys, repo)
    database_yml.write_text(DB_YML.replace("db.internal", "db2.internal"))
    code, out, _ = run(capsys, repo, "handoff", "validate", captured["id"], "--json")
    assert "'config/database.yml' changed since capture" in out


def test_the_cli_validate_passes_a_screened_artifact_whose_secret_alone_changed(repo, database_yml, capsys):
    captured = cli_capture(capsys, repo)
    database_yml.write_text(DB_YML.replace("Winter2026!", "Summer2027#x"))
    code, out, _ = run(capsys, repo, "handoff", "validate", captured["id"], "--json")
    assert code == 0 and "changed since capture" not in out


def test_a_screened_artifact_grown_past_the_screen_limit_is_unclassified_drift_saying_why(repo):
    (repo / ".env").write_text(ENV)
    handoff_id = ready(repo, ".env")
    (repo / ".env").write_text(ENV + "#" * SCREEN_LIMIT_BYTES)
    freshness = drift_of(repo, handoff_id)
    [drift] = freshness["drift"]
    assert freshness["state"] == "stale" and drift["kind"] == "unclassified"
    assert "over the secret screen" in drift["detail"]


def test_an_amendment_records_the_screened_hash_of_the_file_as_it_is_then(repo):
    from baton.cli_input import ContentOptions
    from tests.app_support import amend_handoff

    (repo / ".env").write_text(ENV)
    with Baton.open(repo) as app:
        handoff_id = app.capture(payload(artifacts=[{"path": ".env", "role": "modified"}])).handoff_id
    edited = ENV.replace("LOG_LEVEL=info", "LOG_LEVEL=debug")
    (repo / ".env").write_text(edited)
    revised = amend_handoff(repo, handoff_id, content=ContentOptions(discoveries=["debug logging helps"]))
    assert recorded_hash(repo, revised.handoff_id, ".env") == redacted_hash(edited)
    assert raw_hex(edited).encode() not in ledger_bytes(repo)


def test_a_changed_plain_hash_is_withheld_only_when_the_file_now_holds_a_secret_or_is_too_large_to_screen():
    policy = RedactionPolicy()
    clean, leaking = b"PORT=8080\n", b"DB_PASSWORD=Winter2026!xQ\n"
    recorded = plain_hash(b"PORT=80\n")
    assert not withhold_current(recorded, plain_hash(clean), clean, policy)
    assert withhold_current(recorded, plain_hash(leaking), leaking, policy)
    assert withhold_current(recorded, "sha256:" + "0" * 64, None, policy)  # over the screen's limit
    assert not withhold_current(recorded, recorded, None, policy)  # unchanged: the recorded hash itself
