"""``baton bootstrap`` shows the notices failed hooks left (``.baton/hook-notices.jsonl``), as a
harness's start hook does: ``--peek`` without using them up, a plain bootstrap (a start that
delivers a brief) taking them, said once (tester26 T4)."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from baton.mcp_server import build_server
from tests.conftest import run_baton
from tests.harness_support import fixture

NOTICE = "the hook's input on stdin was not JSON"


def _a_hook_failed(project) -> None:
    r = run_baton("hook", "claude-code", "PreCompact", cwd=project, input="junk")
    assert r.returncode == 0
    assert (project / ".baton" / "hook-notices.jsonl").exists()


def _bootstrap(project, *args: str) -> dict:
    r = run_baton("bootstrap", "--json", *args, "--project", str(project))
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _start_hook(project, session: str) -> str:
    payload = json.dumps(fixture("claude-code", "SessionStart.startup", project, session_id=session))
    r = run_baton("hook", "claude-code", "SessionStart", cwd=project, input=payload,
                  env={"BATON_HOOK_SERVER": "0"})
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_bootstrap_peek_shows_the_notices_a_failed_hook_left(project):
    _a_hook_failed(project)

    peeked = _bootstrap(project, "--peek")

    assert any(NOTICE in n and n.startswith("Baton's claude-code PreCompact hook failed") for n in peeked["notices"])
    assert "> ⚠️ Baton's claude-code PreCompact hook failed" in peeked["brief"]


def test_bootstrap_peek_leaves_the_notices_for_the_start_hook_that_shows_them(project):
    _a_hook_failed(project)

    _bootstrap(project, "--peek")
    _bootstrap(project, "--peek")

    assert NOTICE in _start_hook(project, "after-peek")


def test_bootstrap_peek_words_a_notice_as_the_start_hook_does(project):
    _a_hook_failed(project)

    peeked = [n for n in _bootstrap(project, "--peek")["notices"] if NOTICE in n]

    assert len(peeked) == 1 and f"> ⚠️ {peeked[0]}" in _start_hook(project, "words")


def test_bootstrap_shows_the_notices_once_and_uses_them_up(project):
    _a_hook_failed(project)

    first = _bootstrap(project, "--session-id", "b1")
    second = _bootstrap(project, "--session-id", "b2")

    assert any(NOTICE in n for n in first["notices"])
    assert not any(NOTICE in n for n in second["notices"])
    assert NOTICE not in _start_hook(project, "after-bootstrap")


def test_a_refused_bootstrap_uses_no_notice_up(project):
    _a_hook_failed(project)

    r = run_baton("bootstrap", "--max-bytes", "10", "--project", str(project))

    assert r.returncode == 2
    assert any(NOTICE in n for n in _bootstrap(project, "--peek")["notices"])


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_mcp_bootstrap_tool_peeking_shows_the_notices_and_leaves_them(project, anyio_backend):
    _a_hook_failed(project)

    async with Client(build_server(project)) as client:
        peeked = await client.call_tool("bootstrap", {"peek": True})
        started = await client.call_tool("bootstrap", {"session_id": "m1"})
        again = await client.call_tool("bootstrap", {"session_id": "m2"})

    assert any(NOTICE in n for n in peeked.structured_content["notices"])
    assert any(NOTICE in n for n in started.structured_content["notices"])
    assert not any(NOTICE in n for n in again.structured_content["notices"])
