"""One screen for every identifier (issue 25): an owner, branch, session id,
harness id or branch label that looks like a secret — as given, or as the
baton key, stream name, file name or URL it becomes — is refused with exit 5
(``secret_in_identifier``), naming the field, never echoing the value, and
nothing is appended or written. Through the CLI, MCP and a harness hook."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client

from baton.domain.batons import context_key
from baton.domain.identifiers import (
    BRANCH,
    HARNESS,
    KEY,
    LABEL,
    OWNER,
    SESSION,
    IdentifierFinding,
    describe,
    event_identifiers,
    handoff_identifiers,
    identifier_forms,
    key_forms,
    name_problem,
    screen_identifiers,
)
from baton.domain.redaction import DEFAULT_RULES, RedactionPolicy, screen_text
from baton.mcp_server import build_server
from tests.cli_support import run
from tests.secret_corpus import IDENTIFIER_LOOK_ALIKES, identifier_secrets

POLICY = RedactionPolicy()
SECRETS = identifier_secrets()
ids = [s.kind.replace(" ", "-") for s in SECRETS]


def _stored(project: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted((project / ".baton").rglob("*"))
                    if p.is_file() and p.name != "index.sqlite")


def _files(project: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in (project / ".baton").rglob("*")
            if p.is_file() and p.suffix != ".sqlite" and "log" not in p.name}


def _assert_never_kept(project: Path, value: str, before: dict[str, bytes]) -> None:
    after = _files(project)
    ledger = {k: v for k, v in after.items() if "/ledger/" in k}
    assert ledger == {k: v for k, v in before.items() if "/ledger/" in k}, "something was appended"
    for path in (project / ".baton").rglob("*"):
        if path.is_file():
            assert value.encode() not in path.read_bytes(), path
            assert value.replace("/", "_").encode() not in path.read_bytes(), path


# -- the domain screen -----------------------------------------------------------------

@pytest.mark.parametrize("field", [OWNER, BRANCH, SESSION, HARNESS, LABEL])
@pytest.mark.parametrize("secret", SECRETS, ids=ids)
def test_a_secret_identifier_is_found_in_every_field_by_its_rule(secret, field):
    findings = screen_identifiers({field: secret.value}, POLICY)
    assert [(f.field, f.rule) for f in findings] == [(field, secret.rule)]
    assert secret.value not in json.dumps([f.to_json() for f in findings])


@pytest.mark.parametrize("secret", SECRETS, ids=ids)
def test_a_secret_owner_is_found_in_the_baton_key_it_becomes(secret):
    # The key alone: "/" became "_" and "__main" is glued on the right.
    key = context_key(secret.value, "main")
    assert [f.rule for f in screen_identifiers({KEY: key}, POLICY)] == [secret.rule]


@pytest.mark.parametrize("value", IDENTIFIER_LOOK_ALIKES)
def test_an_ordinary_identifier_passes_in_every_field(value):
    pairs = [(field, value) for field in (OWNER, BRANCH, SESSION, HARNESS, LABEL)]
    assert screen_identifiers(pairs + [(KEY, context_key(value, value))], POLICY) == []


def test_an_identifier_that_is_not_a_string_or_is_empty_is_skipped_also_as_a_key_part():
    # Not screened alone, nor made an owner or a branch of a baton key.
    pairs = [(OWNER, "alice"), (BRANCH, "main"), (BRANCH, 7), (SESSION, None), (HARNESS, ""), (LABEL, 3.5)]
    assert screen_identifiers(pairs, POLICY) == []


def test_a_secret_made_only_by_gluing_an_owner_to_a_branch_is_found_in_their_key():
    # Neither part alone is a secret; the key, with "_" read back as "/", is a URL with a password.
    pairs = [(OWNER, "postgres:"), (BRANCH, "app:hunter2pass@db.internal")]
    assert screen_identifiers(pairs[:1], POLICY) == [] and screen_identifiers(pairs[1:], POLICY) == []
    (finding,) = screen_identifiers(pairs, POLICY)
    assert (finding.field, finding.rule) == (f"{OWNER} and {BRANCH}", "url-credentials")


@pytest.mark.parametrize(("value", "problem"), [
    ("a\x1fb", "contains the control character U+001F"),
    ("a b", None),
    ("a\x7fb", "contains the control character U+007F"),
    ("a~b", None),
    ("a\x9fb", "contains the control character U+009F"),
    ("a\xa0b", None),
    ("a\u202eb", "contains the control character U+202E"),
    (" \t", "is empty"),
])
def test_an_owner_or_branch_problem_is_exactly_c0_del_c1_and_bidi_controls(value, problem):
    assert name_problem(value) == problem


def test_the_forms_cover_key_stream_file_name_and_url():
    forms = {form for form, _ in key_forms(context_key("a@example.com", "feature/x"))}
    assert {"baton key", "stream name", "file name", "URL", "baton key part"} <= forms
    assert {form for form, _ in identifier_forms(SESSION, "s-1")} >= {"as given", "stream name", "URL"}


def test_a_finding_in_a_derived_form_only_names_that_form():
    # A token percent-encoded as given is a secret once decoded into the key.
    value = "%41KIA" + "Q7XJ3KZP5HWN4TLA"
    (finding,) = screen_identifiers({OWNER: value}, POLICY)
    assert (finding.field, finding.rule) == (OWNER, "aws-access-key-id")
    assert finding.form != "as given"


def test_an_events_identifiers_are_its_session_its_key_and_its_payload_members():
    pairs = event_identifiers("baton/ci__main", "s-1", {
        "owner": "ci", "branch": "main", "harness": "codex", "payload": {"owner": "not an identifier"},
        "handoff": {"origin": {"session_id": "s-2", "harness": "cursor"}, "lineage": {"branch_label": "try"}}})
    assert sorted(pairs) == sorted([(SESSION, "s-1"), (KEY, "ci__main"), (OWNER, "ci"), (BRANCH, "main"),
                                    (HARNESS, "codex"), (SESSION, "s-2"), (HARNESS, "cursor"), (LABEL, "try")])
    assert (SESSION, "s 1") in event_identifiers("detector/s%201", None, {})


def test_a_key_member_is_an_identifier_at_an_events_top_level_only():
    # data.key names a baton key (a claim, a dismissal); inside a handoff body it is not one.
    assert (KEY, "ci__main") in event_identifiers("session/s-1", None, {"key": "ci__main"})
    nested = {"key": "ci__main", "handoff": {"key": "x__y", "origin": {"harness": "codex"}}}
    assert event_identifiers("session/s-1", None, nested) == [
        (SESSION, None), (SESSION, "s-1"), (KEY, "ci__main"), (HARNESS, "codex")]
    assert handoff_identifiers({"key": "ci__main", "origin": {"harness": "codex"}}) == [(HARNESS, "codex")]


def test_only_session_and_detector_streams_name_a_session_and_only_identifier_members_count():
    assert event_identifiers("session/s-9", None, {}) == [(SESSION, None), (SESSION, "s-9")]
    assert event_identifiers("detector/s%209", None, {}) == [(SESSION, None), (SESSION, "s 9")]
    assert event_identifiers("detector/-", None, {}) == [(SESSION, None)]
    assert event_identifiers("handoff/018f0000-0000-7000-8000-000000000001", "s-1",
                             {"title": "t", "owner": 7, "harness": "codex"}) == [(SESSION, "s-1"), (HARNESS, "codex")]


def test_a_refusal_names_each_field_its_rules_and_a_derived_form_never_the_value():
    findings = [IdentifierFinding(OWNER, "as given", "r1", "why one"),
                IdentifierFinding(OWNER, "baton key", "r2", "why two"),
                IdentifierFinding(BRANCH, "URL", "r3", "why three")]
    assert describe(findings).startswith(
        "refused: the owner looks like a secret (r1 — why one, r2 — why two, in its baton key); "
        "the branch looks like a secret (r3 — why three, in its URL). ")
    assert findings[1].to_json() == {"field": OWNER, "form": "baton key", "rule": "r2", "reason": "why two"}


@pytest.mark.parametrize("rule", DEFAULT_RULES, ids=[r.name for r in DEFAULT_RULES])
def test_a_refusal_naming_any_default_rule_passes_the_output_screen_unchanged(rule):
    # "anthropic-api-key: Anthropic API or admin key" read as an assignment to
    # the generic rule, so 39 of the rules' reasons were shown redacted.
    message = describe([IdentifierFinding(SESSION, "as given", rule.name, rule.reason)])
    assert screen_text(message, POLICY) == message
    assert f"({rule.name} — {rule.reason})" in message


def test_the_cli_names_the_anthropic_rules_reason_when_it_refuses_a_session_id(capsys, project):
    from tests.secret_corpus import secrets

    token = next(s.value for s in secrets() if s.rule == "anthropic-api-key")
    code, out, err = run(capsys, project, "session", "begin", "--session-id", token, "--owner", "a@example.com",
                         "--branch", "main")
    assert code == 5
    assert "anthropic-api-key — Anthropic API or admin key" in err and "REDACTED" not in err


# -- the CLI, per field ------------------------------------------------------------------

def _cli_cases(value: str) -> dict[str, list[str]]:
    return {
        "owner": ["session", "begin", "--owner", value, "--branch", "main"],
        "branch": ["session", "begin", "--owner", "a@example.com", "--branch", value],
        "end-owner": ["session", "end", "s1", "--owner", value, "--branch", "main", "--handoff-steps", "step"],
        "end-branch": ["session", "end", "s1", "--owner", "a@example.com", "--branch", value,
                       "--handoff-steps", "step"],
        "session-id": ["session", "begin", "--owner", "a@example.com", "--branch", "main", "--session-id", value],
        "harness": ["session", "begin", "--owner", "a@example.com", "--branch", "main", "--harness", value],
        "bootstrap-owner": ["bootstrap", "--owner", value, "--branch", "main"],
        "capture-session": ["checkpoint", "create", "--no-input", "--title", "t", "--objective", "o",
                            "--session", value],
        "capture-harness": ["checkpoint", "create", "--no-input", "--title", "t", "--objective", "o",
                            "--harness", value],
    }


_FIELD_OF = {"owner": "owner", "branch": "branch", "end-owner": "owner", "end-branch": "branch",
             "session-id": "session id", "harness": "harness", "bootstrap-owner": "owner",
             "capture-session": "session id", "capture-harness": "harness"}


@pytest.mark.parametrize("case", list(_FIELD_OF))
@pytest.mark.parametrize("secret", SECRETS, ids=ids)
def test_a_secret_identifier_is_refused_by_the_cli_naming_the_field(capsys, project, secret, case):
    before = _files(project)
    code, out, err = run(capsys, project, *_cli_cases(secret.value)[case], "--json")
    assert code == 5, (out, err)
    error = json.loads(out)["error"]
    assert error["code"] == "secret_in_identifier"
    assert _FIELD_OF[case] in error["details"]["fields"]
    assert secret.value not in out + err
    _assert_never_kept(project, secret.value, before)


def test_a_secret_label_is_refused_by_fork(capsys, project):
    secret = SECRETS[0]
    code, out, err = run(capsys, project, "checkpoint", "create", "--no-input", "--title", "t", "--objective",
                         "o", "--json")
    assert code == 0, err
    parent = json.loads(out)["id"]
    before = _files(project)
    code, out, err = run(capsys, project, "fork", parent, "--label", secret.value)
    assert code == 5, (out, err)
    assert "the branch label looks like a secret" in err and secret.value not in out + err
    _assert_never_kept(project, secret.value, before)


def test_a_secret_harness_inside_a_payload_file_is_refused(capsys, project, tmp_path):
    secret = SECRETS[4]
    body = tmp_path / "h.json"
    body.write_text(json.dumps({"work": {"title": "t", "objective": "o"}, "origin": {"harness": secret.value}}))
    before = _files(project)
    code, out, err = run(capsys, project, "checkpoint", "create", "--no-input", "--input", str(body))
    assert code == 5, (out, err)
    assert "the harness looks like a secret" in err
    _assert_never_kept(project, secret.value, before)


# -- MCP, per field -------------------------------------------------------------------------

@pytest.fixture
def anyio_backend():
    return "asyncio"


_MCP_CASES = {
    "owner": ("prompt", lambda v: {"action": "session_start", "session_id": "s-1", "owner": v}, "owner"),
    "branch": ("prompt", lambda v: {"action": "session_end", "session_id": "s-1", "branch": v,
                                    "handoff": {"nextSteps": ["step"]}}, "branch"),
    "baton-owner": ("prompt", lambda v: {"action": "session_end", "session_id": "s-1",
                                         "handoff": {"nextSteps": ["step"], "owner": v}}, "owner"),
    "session-id": ("prompt", lambda v: {"action": "session_start", "session_id": v}, "session id"),
    "harness": ("prompt", lambda v: {"action": "session_start", "session_id": "s-1", "harness": v}, "harness"),
    "bootstrap-branch": ("bootstrap", lambda v: {"session_id": "s-2", "branch": v}, "branch"),
    "capture-session": ("handoff_capture", lambda v: {"work": {"title": "t", "objective": "o"}, "session_id": v},
                        "session id"),
    "capture-harness": ("handoff_capture", lambda v: {"work": {"title": "t", "objective": "o"}, "harness": v},
                        "harness"),
}


@pytest.mark.anyio
@pytest.mark.parametrize("case", list(_MCP_CASES))
@pytest.mark.parametrize("secret", SECRETS, ids=ids)
async def test_a_secret_identifier_is_refused_by_mcp_naming_the_field(project, secret, case):
    tool, arguments, field = _MCP_CASES[case]
    before = _files(project)
    async with Client(build_server(project)) as client:
        result = await client.call_tool(tool, arguments(secret.value))
    assert result.is_error
    error = result.structured_content["error"]
    assert (error["code"], error["exit_code"]) == ("secret_in_identifier", 5)
    assert field in error["details"]["fields"]
    assert secret.value not in json.dumps(result.structured_content) + result.content[0].text
    _assert_never_kept(project, secret.value, before)


@pytest.mark.anyio
async def test_a_secret_label_is_refused_by_mcp_fork(project):
    secret = SECRETS[4]  # a label is at most 100 characters: a Google API key fits
    async with Client(build_server(project)) as client:
        captured = await client.call_tool("handoff_capture", {"work": {"title": "t", "objective": "o"}})
        before = _files(project)
        result = await client.call_tool("handoff_fork", {"id": captured.structured_content["id"],
                                                         "label": secret.value})
    assert result.is_error
    assert result.structured_content["error"]["details"]["fields"] == ["branch label"]
    _assert_never_kept(project, secret.value, before)


# -- a harness hook ----------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["session_start", "pre_compact", "session_end"])
@pytest.mark.parametrize("harness", ["claude-code", "codex", "gemini-cli", "cursor"])
@pytest.mark.parametrize("secret", SECRETS[:3], ids=ids[:3])
def test_a_secret_session_id_from_a_hook_is_refused_and_the_harness_goes_on(project, secret, harness, kind):
    from baton.harnesses import adapter
    from baton.harnesses.hook import run_hook

    chosen = adapter(harness)
    event = next(name for name, meaning in chosen.kinds.items() if meaning == kind)
    before = _files(project)
    stdin = json.dumps({chosen.session_fields[0]: secret.value, "cwd": str(project), "hook_event_name": event,
                        "trigger": "manual"})  # Gemini's PreCompress acts on a manual compression only
    outcome = run_hook(harness, event, stdin.encode(), project=project)
    assert outcome.problem is not None and "the session id looks like a secret" in outcome.problem
    assert secret.value not in outcome.answer + outcome.problem
    _assert_never_kept(project, secret.value, before)


# -- owner and branch: non-empty, no control characters ------------------------------------

@pytest.mark.parametrize("flag,value,problem", [
    ("--owner", "", "is empty"), ("--owner", "   ", "is empty"), ("--branch", "", "is empty"),
    ("--owner", "a\nb", "U+000A"), ("--branch", "main\r", "U+000D"), ("--owner", "ci\x1b[31m", "U+001B"),
    ("--branch", "fix\u202eexe.txt", "U+202E"), ("--owner", "a\x85b", "U+0085"),
])
@pytest.mark.parametrize("command", [["session", "begin"], ["session", "end", "s1", "--handoff-steps", "x"],
                                     ["bootstrap"]])
def test_an_empty_owner_or_branch_or_one_with_a_control_character_is_an_input_error(capsys, project, flag,
                                                                                    value, problem, command):
    given = {"--owner": "a@example.com", "--branch": "main", flag: value}
    before = _files(project)
    code, out, err = run(capsys, project, *command, "--owner", given["--owner"], "--branch", given["--branch"],
                         "--json")
    assert code == 2, (out, err)
    error = json.loads(out)["error"]
    assert error["code"] == "input_error" and problem in error["message"] and flag in error["message"]
    assert _files(project) == before


@pytest.mark.anyio
@pytest.mark.parametrize("arguments", [
    {"action": "session_start", "session_id": "s-1", "owner": ""},
    {"action": "session_start", "session_id": "s-1", "branch": "a\nb"},
    {"action": "session_end", "session_id": "s-1", "handoff": {"nextSteps": ["x"], "owner": "x\u2066y"}},
])
async def test_mcp_refuses_an_empty_owner_or_a_control_character_in_a_branch(project, arguments):
    async with Client(build_server(project)) as client:
        result = await client.call_tool("prompt", arguments)
    assert result.is_error
    assert (result.structured_content["error"]["code"], result.structured_content["error"]["exit_code"]) == \
        ("input_error", 2)


def test_a_hook_notice_keeps_no_secret_on_disk(project):
    from baton.harnesses import notices, notices_write

    token = SECRETS[8].value  # a GitHub token
    assert notices_write.leave(project / ".baton", harness="codex", event="Stop", session=token,
                         problem=f"could not read {token}", at="2026-01-01T00:00:00Z")
    assert notices_write.leave(project / ".baton", harness="codex", event="Stop", session="s-1",
                         problem="the ledger stayed locked", at="2026-01-01T00:00:01Z")
    stored = (project / ".baton" / notices.FILE_NAME).read_text()
    assert token not in stored
    first, second = (json.loads(line) for line in stored.splitlines())
    assert first["session"] is None and "[REDACTED:github-token]" in first["problem"]
    assert second["session"] == "s-1" and second["problem"] == "the ledger stayed locked"


@pytest.mark.parametrize("secret", SECRETS, ids=ids)
def test_texts_found_clean_before_in_the_process_leave_every_finding_as_it_is(secret):
    """``clean`` (the texts a process's identifier screen already passed) changes no finding: each
    call over the same identifiers, with clean ones screened before, finds what a fresh screen finds."""
    clean: set[str] = set()
    before = [(OWNER, "dev@example.com"), (BRANCH, "feature/x"), (SESSION, "a-session-id")]
    assert screen_identifiers(before, POLICY, clean=clean) == []
    assert "dev@example.com" in clean and "a-session-id" in clean  # passed once: not screened again
    for pairs in ([(OWNER, secret.value)], before + [(BRANCH, secret.value)],
                  [(KEY, context_key("dev@example.com", secret.value))]):
        assert screen_identifiers(pairs, POLICY, clean=clean) == screen_identifiers(pairs, POLICY)
        assert screen_identifiers(pairs, POLICY, clean=clean) != []  # a secret is refused every time
    assert secret.value not in clean


def test_a_project_screens_an_identifier_once_until_its_policy_is_read_again(project, monkeypatch):
    """A session start that claims a baton appends two events naming the same session, owner and
    branch: the project screens each text once, and again only under a policy read anew."""
    from baton.commands.context import Project
    from baton.domain import identifiers

    opened = Project.open(project)
    screened: list[str] = []
    real = identifiers.redact_strings
    monkeypatch.setattr(identifiers, "redact_strings", lambda text, policy: screened.append(text) or real(text, policy))
    opened.check_identifiers(owner="dev@example.com", session="s-1")
    first = list(screened)
    opened.check_identifiers(owner="dev@example.com", session="s-1")
    assert first and screened == first  # nothing screened twice
    opened.forget_policy()
    opened.check_identifiers(owner="dev@example.com", session="s-1")
    assert screened == first + first  # a policy read again screens again


def test_the_last_screen_still_redacts_an_actor_after_the_same_events_session_was_passed_once(project):
    """The last screen (``Project.screen``) skips an actor or session the identifier screen already
    found clean in this process, and only those: a secret actor is still redacted, and an event's
    session screened clean once is recorded as given."""
    from baton.commands.context import Project
    from baton.ledger.envelope import EventDraft
    from tests.secret_corpus import secrets

    token = next(s.value for s in secrets() if s.rule == "anthropic-api-key")
    opened = Project.open(project)
    plain = opened.screen(EventDraft("test.noted", "test/1", {"n": 1}, actor="dev@example.com", session="s-1"))
    assert (plain.actor, plain.session) == ("dev@example.com", "s-1") and "_redacted" not in plain.data
    leaked = opened.screen(EventDraft("test.noted", "test/1", {"n": 2}, actor=token, session="s-1"))
    assert token not in str(leaked) and [r["field"] for r in leaked.data["_redacted"]] == ["actor"]
