"""A session start's context — the brief, then the session line naming the id
for the MCP tools and the command line — fits the brief's byte budget,
whatever the session id (up to 200 characters, quotes and non-ASCII among them)."""

from __future__ import annotations

import json

from baton.domain.batons import DEFAULT_MAX_BYTES
from tests.app_support import end_session
from tests.handoff_support import git_init
from tests.harness_support import fixture, hook, injected

SESSION = ("\"'é😀" * 50)
"""200 characters: JSON escapes each ``"``, ``shlex.quote`` spells each ``'`` in five, and é and 😀 take 2 and 4 bytes."""


def test_a_session_start_context_with_a_long_quoted_non_ascii_session_id_fits_the_budget(project, monkeypatch):
    git_init(project, {"src/app.py": "x = 1\n"})
    # An earlier session's traps, delivered once, belong to the project: the next brief trims them to fit.
    end_session(project, "s1", {"nextSteps": ["old step"],
                                "failedApproaches": [f"trap {i:02d}: " + "x" * 390 for i in range(40)]})
    monkeypatch.delenv("BATON_PROJECT", raising=False)
    first = hook(project, "claude-code", "SessionStart", fixture("claude-code", "SessionStart.startup", project,
                                                                 session_id="s2"))
    assert "trap 00" in (injected("claude-code", first.answer) or "")
    end_session(project, "s3", {"nextSteps": [f"step {i}: " + "s" * 80 for i in range(12)]})

    answer = hook(project, "claude-code", "SessionStart", fixture("claude-code", "SessionStart.startup", project,
                                                                  session_id=SESSION))

    context = injected("claude-code", answer.answer)
    assert context is not None and "step 11" in context  # the baton was delivered
    assert f"`\"session_id\": {json.dumps(SESSION, ensure_ascii=False)}`" in context
    assert len(context.encode("utf-8")) <= DEFAULT_MAX_BYTES
