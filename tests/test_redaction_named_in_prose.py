"""A secret named in prose is redacted before anything is stored.

``aws secret <key>``, ``because secret <key>``, ``the token is <key>``: the
value has no prefix of its own and is assigned to no name, but the word right
before it says what it is (docs/security.md, ``named-secret-in-prose``). An
ordinary word, path, identifier or commit id after such a word is kept."""

from __future__ import annotations

import json
import sqlite3

import pytest

from baton.domain.redaction import RedactionPolicy, redact_payload
from tests.conftest import run_baton

POLICY = RedactionPolicy()
AWS_SECRET = "wJalr" + "XUtnFEMI/K7MDENG/bPxRfiCY" + "zq8Ws2Kd9e"
"""The shape of an AWS secret access key: 40 characters of base64, no EXAMPLE in it."""
TOKEN = "Zq8Wm3" + "Rt7Yp2Kx5Lb4Nc6Vd"


@pytest.mark.parametrize("line", [
    f"aws secret {AWS_SECRET}",
    f"because secret {AWS_SECRET}",
    f"the AWS secret key is {AWS_SECRET}, rotate it",
    f"secret access key was {AWS_SECRET}",
    f"the token is {TOKEN}",
    f"password was '{TOKEN}'",
    f"api key {TOKEN} (staging)",
    f"the leaked credentials {TOKEN} were rotated",
])
def test_a_secret_named_by_the_word_before_it_is_redacted(line):
    outcome = redact_payload({"summary": {"discoveries": [line]}}, POLICY)
    text = outcome.payload["summary"]["discoveries"][0]
    assert AWS_SECRET not in text and TOKEN not in text
    assert "[REDACTED:named-secret-in-prose]" in text


@pytest.mark.parametrize("line", [
    "the secret fixed in commit 1f2e3d4c5b6a79880f1e2d3c4b5a69788f0e1d2c",
    "the token is stored in src/baton/domain/redaction/secret_rules.py",
    "password hashing moved to RedactionPolicyThresholds",
    "the secret is authentication",
    "aws secret rotation is done by the scheduled_rotation_job_v2 task",
    "the db password is hunter2",
    "aws secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY (AWS's documented example)",
    "token ${DEPLOY_TOKEN_FROM_THE_ENVIRONMENT} is read at start",
])
def test_an_ordinary_word_after_a_secret_word_is_kept(line):
    outcome = redact_payload(line, POLICY)
    assert outcome.payload == line, outcome.redactions


def _stored_anywhere(project, value: str) -> list[str]:
    found = []
    for path in sorted((project / ".baton").rglob("*")):
        if path.is_file() and value.encode() in path.read_bytes():
            found.append(str(path.relative_to(project)))
    index = project / ".baton" / "index.sqlite"
    if index.exists():
        with sqlite3.connect(index) as db:
            for (table,) in db.execute("select name from sqlite_master where type='table'"):
                for row in db.execute(f'select * from "{table}"'):
                    if any(isinstance(cell, str) and value in cell for cell in row):
                        found.append(f"index.sqlite:{table}")
    return found


def test_an_aws_secret_named_in_a_discovery_and_a_rationale_is_never_stored(repo):
    decision = json.dumps({"decision": "x", "rationale": f"because secret {AWS_SECRET}"})
    created = run_baton("checkpoint", "create", "--no-input", "--title", "t", "--objective", "o",
                        "--discovery", f"aws secret {AWS_SECRET}", "--decision", decision, "--work-state", "completed",
                        "--json", cwd=repo)
    assert created.returncode == 0, created.stderr
    assert AWS_SECRET not in created.stdout
    assert {r["rule"] for r in json.loads(created.stdout)["redactions"]} == {"named-secret-in-prose"}
    handoff_id = json.loads(created.stdout)["handoff"]["id"]
    for args in (("handoff", "validate", handoff_id), ("handoff", "ready", handoff_id)):
        done = run_baton(*args, cwd=repo)
        assert done.returncode == 0, done.stderr
    brief = run_baton("resume", "latest", cwd=repo)
    assert brief.returncode == 0, brief.stderr
    assert "[REDACTED:named-secret-in-prose]" in brief.stdout
    assert AWS_SECRET not in brief.stdout
    assert _stored_anywhere(repo, AWS_SECRET) == []
