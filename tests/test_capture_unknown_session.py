"""A capture under a session id no start was recorded for says so (a mistyped
``--session`` would otherwise lose the baton silently), naming recorded
sessions one edit away."""

from __future__ import annotations

import pytest
from mcp import Client

from baton.domain.session_names import no_start_hint, one_edit_apart
from baton.mcp_server import build_server
from tests.handoff_support import baton_json, payload


@pytest.mark.parametrize(("a", "b", "close"), [
    ("real-1", "real-l", True), ("real-1", "real-12", True), ("real-1", "eal-1", True),
    ("real-1", "real-1", False), ("real-1", "rael-1", False), ("real-1", "other", False)])
def test_one_edit_apart_is_one_change_addition_or_removal(a, b, close):
    assert one_edit_apart(a, b) is close and one_edit_apart(b, a) is close


def test_a_session_that_began_needs_no_hint():
    assert no_start_hint("real-1", begun=True, recorded=["real-l"]) is None


def test_an_id_no_start_was_recorded_for_names_the_close_ones():
    said = no_start_hint("real-l", begun=False, recorded=["real-1", "reel-9", "far-away"])
    assert said.startswith("no start was recorded for session real-l") and said.endswith(
        "did you mean real-1?")


def _begin(project, session):
    baton_json(project, "session", "begin", session)


def test_checkpoint_create_under_a_mistyped_session_warns_in_text_and_json(project):
    _begin(project, "real-1")
    out = baton_json(project, "checkpoint", "create", "--session", "real-l", "--title", "T", "--objective", "o",
                     "--no-input")
    [hint] = out["hints"]
    assert "no start was recorded for session real-l" in hint and "did you mean real-1?" in hint


def test_checkpoint_create_under_a_begun_session_says_nothing_of_it(project):
    _begin(project, "real-1")
    out = baton_json(project, "checkpoint", "create", "--session", "real-1", "--title", "T", "--objective", "o",
                     "--no-input")
    assert out["hints"] == []


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_mcp_capture_under_a_mistyped_session_warns(project):
    _begin(project, "real-1")
    async with Client(build_server(project)) as client:
        captured = await client.call_tool("handoff_capture", {**payload(), "session_id": "real-l"})
    assert not captured.is_error, captured.content
    assert any("did you mean real-1?" in hint for hint in captured.structured_content["hints"])
