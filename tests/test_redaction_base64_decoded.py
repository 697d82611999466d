"""A secret that reaches Baton base64-encoded is redacted like the secret itself
(docs/security.md, ``base64-wrapped-secret``): every run of base64 the rule's
pre-check marks (it decodes to text) is decoded once and the decoded text run
through the other text rules, whatever keywords the text holds. The whole run is
replaced, and its record names the rule that matched inside (``base64:<rule>``).
Ordinary base64 (an image, a digest, an id, a JWT header, prose) is kept.

SYNTHETIC SECRETS ONLY: every credential here is assembled at runtime from pieces.
"""

from __future__ import annotations

import base64
import binascii
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baton.domain.redaction import RedactionPolicy, redact_payload, redact_text
from baton.domain.redaction import table as redaction_table
from tests.conftest import run_baton
from tests.handoff_support import every_file_under, handoff_events, materialized, payload
from tests.redaction_support import next_start

POLICY = RedactionPolicy()
MARK = "[REDACTED:base64-wrapped-secret]"

SECRETS = {
    "github-token": ("gh" + "p_" + "Zq7Lm2Xv9Rt4Wb8Nc1Kd6Hs3Jf5Gp0YaQ2e4Mx4hh\n", "base64:github-token"),
    "password-assignment": ("password: hunter2-" + "correct-horse-battery-staple-9\n",
                            "base64:generic-secret-assignment"),
    "json-key": ('{"api_key": "sk-' + 'Zq7Lm2Xv9Rt4Wb8Nc1Kd6Hs3Jf5Gp0YaQ2e4Mx4hh2FDEE"}',
                 "base64:generic-secret-assignment"),
    "env-blob": ("DB_HOST=db.internal\nDB_PASSWORD=" + "Zq8Wm3Rt7Yp2Kx5Lb4Nc6Vd\n", "base64:generic-secret-assignment"),
    "basic-credentials": ("deploy-bot:" + "s3cret-Zq7Lm2Xv9Rt4Wb8Nc1Kd6Hs3Jf5Gp0YaQ2e4", "base64:basic-credentials"),
    "private-key": ("-----BEGIN OPENSSH " + "PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"
                    "AAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACBZq7Lm2Xv9Rt4Wb8Nc1Kd6\n-----END OPENSSH "
                    + "PRIVATE KEY-----\n", None),
}
"""What a blob decodes to, and the kind its record names (None: an earlier rule,
``private-key-base64``, takes the standard encoding of a PEM block first)."""


def _wrap(encoded: str, width: int) -> str:
    return "\n".join(encoded[i:i + width] for i in range(0, len(encoded), width))


FORMS = {
    "one line": lambda raw: base64.b64encode(raw).decode(),
    "wrapped at 64": lambda raw: _wrap(base64.b64encode(raw).decode(), 64),
    "wrapped at 76": lambda raw: _wrap(base64.b64encode(raw).decode(), 76),
    "url-safe": lambda raw: base64.urlsafe_b64encode(raw).decode(),
    "unpadded": lambda raw: base64.b64encode(raw).decode().rstrip("="),
}


def _blob(kind: str, form: str) -> str:
    return FORMS[form](SECRETS[kind][0].encode())


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_a_base64_encoded_secret_is_redacted_whole(kind, form):
    blob = _blob(kind, form)
    cleaned = redact_text(f"the manifest's data:\n{blob}\n(end)", POLICY)
    assert cleaned.startswith("the manifest's data:\n[REDACTED:") and cleaned.endswith("]\n(end)")
    assert all(line not in cleaned for line in blob.splitlines())


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("kind", sorted(k for k, (_, named) in SECRETS.items() if named))
def test_the_record_names_the_rule_that_matched_inside(kind, form):
    outcome = redact_payload({"summary": {"current_state": f"CI_BLOB {_blob(kind, form)}"}}, POLICY)
    assert outcome.payload == {"summary": {"current_state": f"CI_BLOB {MARK}"}}
    [record] = outcome.records()
    assert record["rule"] == "base64-wrapped-secret" and record["replacement"] == MARK
    assert record["reason"].endswith(f"({SECRETS[kind][1]})")


def test_a_blob_holding_no_keyword_anywhere_is_redacted_alone():
    """Before, only a keyword of the rule (a token prefix's base64, or "retry" elsewhere) woke it:
    base64 of ``password: …`` alone in a field was stored as given."""
    blob = base64.b64encode(b"password: hunter2-" + b"correct-horse-battery-staple-9").decode()
    assert redact_text(blob, POLICY) == MARK


def test_an_authorization_basic_value_pasted_alone_is_redacted():
    blob = base64.b64encode(b"alice:" + b"Winter2026-Zq7Lm2").decode()
    assert redact_text(f"curl with -H 'X-Creds: {blob}'", POLICY) == f"curl with -H 'X-Creds: {MARK}'"


KEPT = {
    "a PNG image": base64.b64encode(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(range(256)) * 2).decode(),
    "a sha256 digest (SRI)": "sha256-" + base64.b64encode(bytes.fromhex("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")).decode(),
    "a git object id": "3b18e512dba79e4c8300dd08aeb37f8e728b8dad",
    "a UUID": "01a24fda-4e23-7381-a011-c05df00f994b",
    "a JWT header": base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("="),
    "prose": base64.b64encode(b"The quick brown fox jumps over the lazy dog, twice over.").decode(),
    "a header line": base64.b64encode(b"Content-Type:text/html").decode(),
    "a digest's name and value": base64.b64encode(b"sha256:" + b"9f86d081884c7d659a2feaa0c55ad015").decode(),
    "a version pair": base64.b64encode(b"version:1.2.3").decode(),
    "a URL": base64.b64encode(b"https://example.com/docs/install").decode(),
    "a user name": base64.b64encode(b"username: alice").decode(),
    "a placeholder password": base64.b64encode(b"password: ${DB_PASSWORD}").decode(),
    "a documented example key": base64.b64encode(b"AK" + b"IAIOSFODNN7EXAMPLE").decode(),
}


@pytest.mark.parametrize("name", sorted(KEPT))
def test_ordinary_base64_is_kept(name):
    text = f"see {KEPT[name]} here"
    assert redact_text(text, POLICY) == text


# -- the work is bounded ------------------------------------------------------


class _CountingBinascii:
    """``binascii`` as the rule table calls it, counting the characters it is asked to decode."""

    def __init__(self) -> None:
        self.decoded = 0
        self.Error = binascii.Error
        self.b2a_base64 = binascii.b2a_base64

    def a2b_base64(self, data, *args, **kwargs):
        self.decoded += len(data)
        return binascii.a2b_base64(data, *args, **kwargs)


@pytest.fixture
def counted(monkeypatch) -> _CountingBinascii:
    counter = _CountingBinascii()
    monkeypatch.setattr(redaction_table, "binascii", counter)
    return counter


def test_a_megabyte_blob_holding_a_secret_at_its_end_is_decoded_a_bounded_number_of_times(counted):
    raw = bytes(range(32, 127)) * (760_000 // 95) + b"\npassword: hunter2-" + b"correct-horse-battery-staple-9\n"
    blob = base64.b64encode(raw).decode()
    assert len(blob) > 1_000_000
    assert redact_text(f"data: {blob}", POLICY) == f"data: {MARK}"
    assert counted.decoded <= 3 * len(blob)


def test_a_megabyte_blob_of_binary_is_kept_and_decoded_a_bounded_number_of_times(counted):
    blob = base64.b64encode(bytes(range(256)) * 3000).decode()
    text = f"image: {_wrap(blob, 76)}"
    assert len(text) > 1_000_000 and redact_text(text, POLICY) == text
    assert counted.decoded <= 3 * len(blob)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(st.binary(min_size=9, max_size=3000), st.text(min_size=9, max_size=3000).map(str.encode)),
                min_size=1, max_size=30),
       st.sampled_from([0, 64, 76]), st.sampled_from([" ", "\n", "\n\n"]))
def test_every_character_of_a_text_is_decoded_a_bounded_number_of_times(chunks, width, gap):
    """However many runs a text holds and however long (wrapped or not), the screen decodes each
    character at most a fixed number of times: no run is decoded once per position inside it."""
    counter = _CountingBinascii()
    blobs = [base64.b64encode(chunk).decode() for chunk in chunks]
    text = gap.join(_wrap(b, width) if width else b for b in blobs)
    saved = redaction_table.binascii
    redaction_table.binascii = counter  # type: ignore[assignment]
    try:
        redact_text(text, POLICY)
    finally:
        redaction_table.binascii = saved  # type: ignore[assignment]
    assert counter.decoded <= 4 * len(text) + 64


def test_base64_inside_the_decoded_text_is_not_decoded_again():
    """One level: a blob that decodes to base64 of a secret is decoded once, never twice."""
    inner = base64.b64encode(b"password: hunter2-" + b"correct-horse-battery-staple-9").decode()
    outer = base64.b64encode(f"note {inner} end".encode()).decode()
    assert redact_text(outer, POLICY) == outer
    assert redact_text(inner, POLICY) == MARK


# -- through the commands a user runs ----------------------------------------


def _stored(project: Path) -> bytes:
    return b"".join(p.read_bytes() for p in every_file_under(project / ".baton"))


@pytest.mark.parametrize("kind", ["password-assignment", "json-key", "basic-credentials"])
def test_a_base64_secret_captured_through_the_cli_is_redacted_in_the_ledger_and_the_materialized_file(
        project, tmp_path, kind):
    blob = _blob(kind, "wrapped at 64" if kind != "basic-credentials" else "one line")
    body = payload()
    body["summary"]["current_state"] = f"the k8s Secret's data was:\n{blob}\nrotated since"
    given = tmp_path / "body.json"
    given.write_text(json.dumps(body))
    r = run_baton("checkpoint", "create", "--no-input", "--json", "--input", str(given), "--project", str(project))
    assert r.returncode == 0, r.stderr
    handoff = json.loads(r.stdout)["handoff"]
    assert handoff["summary"]["current_state"] == f"the k8s Secret's data was:\n{MARK}\nrotated since"
    [event] = [e for e in handoff_events(project) if e["type"] == "handoff.captured"] or [None]
    assert event is not None and MARK in json.dumps(event)
    files = materialized(project)
    assert files and all(MARK.encode() in content for content in files.values())
    for line in blob.splitlines():
        assert line.encode() not in _stored(project) and line not in r.stdout + r.stderr


def test_a_base64_secret_handed_on_never_reaches_the_next_session_starts_brief(project):
    blob = _blob("env-blob", "wrapped at 76")
    ended = run_baton("session", "end", "s-before", "--handoff-steps", f"apply the .env blob {blob} then deploy",
                      "--project", str(project))
    assert ended.returncode == 0, ended.stderr
    assert blob.encode() not in _stored(project)
    started = next_start(project, "s-after")
    assert started.returncode == 0, started.stderr
    brief = json.loads(started.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "then deploy" in brief and MARK in brief
    assert blob not in started.stdout and blob.replace("\n", "\\n") not in started.stdout


@pytest.mark.anyio
async def test_a_base64_secret_captured_through_mcp_is_redacted_in_the_ledger_and_the_materialized_file(project):
    from mcp import Client

    from baton.mcp_server import build_server

    blob = _blob("github-token", "url-safe")
    body = payload()
    body["summary"]["current_state"] = f"GH_B64={blob}"
    async with Client(build_server(project)) as client:
        captured = await client.call_tool("handoff_capture", body)
    assert not captured.is_error, captured.content
    assert blob not in json.dumps(captured.structured_content)
    events = [e for e in handoff_events(project) if e["type"] == "handoff.captured"]
    assert events and all(f"GH_B64={MARK}" in json.dumps(e) for e in events)
    assert "(base64:github-token)" in json.dumps(events)  # the record names what was inside
    assert all(f"GH_B64={MARK}".encode() in content for content in materialized(project).values())
    assert blob.encode() not in _stored(project)


@pytest.fixture
def anyio_backend():
    return "asyncio"
