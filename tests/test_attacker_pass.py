"""An attacker's pass (issue 10): every secret kind of the corpus, through
every field of the CLI and of the MCP tools, then a byte search of
``.baton/`` and of everything printed. Nothing may be found.

Every kind goes through every field at once: the field's value is the whole
corpus, one secret line after another, so a field costs one command.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client

from baton.cli import main
from baton.mcp_server import build_server
from tests.secret_corpus import secrets

SECRETS = secrets()
EVERY_KIND = "\n".join(s.line for s in SECRETS)
ONE_LINE = " ; ".join(s.line.replace("\n", " ") for s in SECRETS)


def _leaks(blob: bytes | str) -> list[str]:
    data = blob.encode() if isinstance(blob, str) else blob
    return sorted({s.rule for s in SECRETS if s.value.encode() in data})


def _baton_dir_leaks(project: Path) -> dict[str, list[str]]:
    found = {}
    for path in (project / ".baton").rglob("*"):
        if path.is_file():
            leaked = _leaks(path.read_bytes())
            if leaked:
                found[str(path.relative_to(project))] = leaked
        leaked_name = _leaks(path.name)
        if leaked_name:
            found[f"name of {path.name[:40]}"] = leaked_name
    return found


def _cli_runs(short_id: str) -> list[list[str]]:
    v, line = EVERY_KIND, ONE_LINE
    return [
        ["session", "begin", "--objective", v, "--owner", "a@example.com", "--branch", "main"],
        ["session", "begin", "--owner", line, "--branch", "main"],
        ["session", "begin", "--owner", "a@example.com", "--branch", line],
        ["session", "begin", "--session-id", line, "--harness", v],
        ["session", "end", line, "--handoff-steps", v, "--owner", "a@example.com", "--branch", "main"],
        ["session", "end", "s2", "--handoff-steps", v, "--handoff-failed", v, "--handoff-questions", v,
         "--owner", f"ci {line}", "--branch", "main", "--harness", line],
        ["session", "handoff", "--owner", line, "--branch", line],
        ["session", "handoff", "--dismiss", line],
        ["session", "handoff", "--from", line],
        ["bootstrap", "--session-id", line, "--owner", line, "--branch", line],
        ["bootstrap", "--peek", "--owner", line, "--branch", "main"],
        ["checkpoint", "create", "--no-input", "--title", v, "--objective", v, "--scope", line,
         "--constraint", v, "--done", v, "--current-state", v, "--completed", v, "--in-progress", v,
         "--discovery", v, "--why-it-matters", v, "--decision", v, "--failed-attempt", v, "--open-item", v,
         "--risk", v, "--harness", line, "--model", line, "--session", line],
        ["checkpoint", "create", "--no-input", "--title", "t", "--objective", "o", "--artifact", line],
        ["checkpoint", "create", "--no-input", "--title", "t", "--objective", "o", "--evidence", line],
        ["handoff", "amend", short_id, "--title", v, "--current-state", v],
        ["handoff", "archive", short_id, "--reason", v],
        ["handoff", "list", "--work", line],
        ["handoff", "show", line],
        ["handoff", "validate", line],
        ["handoff", "ready", short_id, "--accept-warnings", v],
        ["resume", line],
        ["log", "--type", line],
        ["log", "--stream", line],
    ]


def _draft(capsys, project: Path) -> str:
    code = main(["checkpoint", "create", "--no-input", "--json", "--title", "t", "--objective", "o",
                 "--project", str(project)])
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)["short_id"]


def test_no_secret_of_any_kind_in_any_cli_field_is_stored_or_printed(project, capsys):
    short_id = _draft(capsys, project)
    printed: dict[str, list[str]] = {}
    for argv in _cli_runs(short_id):
        for json_flag in ([], ["--json"]):
            main([*argv, *json_flag, "--project", str(project)])
            out, err = capsys.readouterr()
            leaked = _leaks(out + err)
            if leaked:
                printed[" ".join(argv[:2] + json_flag)] = leaked
    for argv in (["handoff", "list"], ["log", "--json"], ["status"], ["session", "handoff", "--all"]):
        main([*argv, "--project", str(project)])
        out, err = capsys.readouterr()
        if _leaks(out + err):
            printed[" ".join(argv)] = _leaks(out + err)
    assert printed == {}
    assert _baton_dir_leaks(project) == {}


def _mcp_calls() -> list[tuple[str, dict]]:
    v, line = EVERY_KIND, ONE_LINE
    section = {"title": v, "objective": v, "scope": [line], "constraints": [v], "definition_of_done": [v]}
    return [
        ("handoff_capture", {"work": section, "summary": {"current_state": v, "completed": [v], "in_progress": [v],
                                                          "discoveries": [v], "why_it_matters": v},
                             "decisions": [{"decision": v, "rationale": v}],
                             "failed_attempts": [{"approach": v, "outcome": "failed", "reason": v}],
                             "open_items": [{"description": v, "priority": "high"}],
                             "evidence": [{"type": "command", "claim": v, "ref": line, "result": "pass",
                                           "output": v}]}),
        ("handoff_capture", {"work": {"title": "t", "objective": "o"},
                             "artifacts": [{"path": line, "role": "modified"}]}),
        ("handoff_validate", {"id": line}),
        ("handoff_ready", {"id": line, "accept_warnings": v}),
        ("handoff_resume", {"id": line}),
        ("handoff_list", {"work": line}),
        ("baton_session", {"action": "session_start", "session_id": line, "objective": v, "harness": line,
                    "owner": line, "branch": line}),
        ("baton_session", {"action": "session_end", "session_id": "s9", "owner": f"ci {line}", "branch": "main",
                    "handoff": {"nextSteps": [v], "failedApproaches": [v], "openQuestions": [v]}}),
        ("baton_session", {"action": "cancel_handoff", "session_id": line, "owner": line, "branch": line}),
        ("bootstrap", {"session_id": line, "owner": line, "branch": line}),
        (line, {"x": v}),
    ]


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_no_secret_of_any_kind_in_any_mcp_argument_is_stored_or_answered(project, anyio_backend):
    server = build_server(project)
    answered: dict[str, list[str]] = {}
    async with Client(server) as client:
        for tool, arguments in _mcp_calls():
            result = await client.call_tool(tool, arguments)
            shown = json.dumps(result.structured_content) + "".join(
                getattr(c, "text", "") for c in result.content)
            leaked = _leaks(shown)
            if leaked:
                answered[tool[:30]] = leaked
    assert answered == {}
    assert _baton_dir_leaks(project) == {}
