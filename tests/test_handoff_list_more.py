"""A listing cut by its limit says so (``more``, and how many match in all:
``total``), and ``handoff list`` and MCP ``handoff_list`` have a limit when
none is given (the newest 50): at a year of a team's use (13,000 handoffs) an
unlimited answer was 5.9 MB of JSON in 3.5 s into an agent's context, and a
wall of text on a terminal. ``--limit 0`` lists every match."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from baton.app import Baton
from baton.cli import build_parser
from baton.cli_handlers.handoffs import handoff_list
from baton.cli_handlers.output import Noted
from baton.commands import listing
from baton.domain.short_ids import short_id
from baton.mcp_server import build_server
from tests.conftest import run_baton
from tests.handoff_support import baton_json, payload


@pytest.fixture
def three(project):
    with Baton.open(project) as app:
        ids = [app.capture(payload()).handoff_id for _ in range(3)]
    return project, ids[::-1]  # newest first


def test_handoff_list_json_says_more_match_only_when_the_limit_left_some_out(three):
    project, newest = three
    cut = baton_json(project, "handoff", "list", "--limit", "2")
    whole = baton_json(project, "handoff", "list", "--limit", "3")
    unlimited = baton_json(project, "handoff", "list")
    assert [h["id"] for h in cut["handoffs"]] == newest[:2] and cut["count"] == 2 and cut["more"] is True
    assert cut["total"] == 3
    assert [h["id"] for h in whole["handoffs"]] == newest and whole["more"] is False and whole["total"] == 3
    assert unlimited["count"] == 3 and unlimited["more"] is False


def test_handoff_list_text_past_its_limit_says_on_stderr_how_many_match_and_stdout_is_only_rows(three):
    project, _ = three
    cut = run_baton("handoff", "list", "--limit", "2", "--project", str(project))
    whole = run_baton("handoff", "list", "--limit", "3", "--project", str(project))
    assert cut.returncode == 0 and len(cut.stdout.splitlines()) == 2
    cursor = json.loads(run_baton("handoff", "list", "--limit", "2", "--json", "--project", str(project)).stdout)[
        "next_cursor"]
    assert cut.stderr == (f"baton: the newest 2 of 3 handoffs shown; the next page: add --cursor {cursor} (a larger "
                          "--limit shows more, --limit 0 shows all)\n")
    assert len(whole.stdout.splitlines()) == 3 and whole.stderr == ""


def test_the_list_handler_returns_its_note_with_the_result_and_leaves_the_arguments_alone(three):
    project, _ = three
    cut_args = build_parser().parse_args(["handoff", "list", "--limit", "2"])
    whole_args = build_parser().parse_args(["handoff", "list", "--limit", "3"])
    before = dict(vars(cut_args))
    with Baton.open(project) as app:
        cut, whole = handoff_list(app, cut_args), handoff_list(app, whole_args)
    assert isinstance(cut, Noted) and cut.exit_code == 0 and cut.result.more is True
    assert cut.note == (f"the newest 2 of 3 handoffs shown; the next page: add --cursor {cut.result.next_cursor} "
                        "(a larger --limit shows more, --limit 0 shows all)")
    assert not isinstance(whole, Noted) and whole.more is False
    assert vars(cut_args) == before


def test_handoff_list_counts_only_the_matches_of_its_filters(three):
    project, newest = three
    with Baton.open(project) as app:
        app.validate(newest[0])
    cut = baton_json(project, "handoff", "list", "--status", "draft", "--limit", "1")
    assert cut["count"] == 1 and cut["more"] is True and cut["total"] == 2


@pytest.fixture
def past_the_default(project):
    with Baton.open(project) as app:
        ids = [app.capture(payload()).handoff_id for _ in range(listing.DEFAULT_LIMIT + 2)]
    return project, ids[::-1]


def test_handoff_list_without_a_limit_shows_the_newest_50_and_says_how_to_see_all(past_the_default):
    project, newest = past_the_default
    text = run_baton("handoff", "list", "--project", str(project))
    assert [line.split()[0] for line in text.stdout.splitlines()] == [short_id(i) for i in newest[:50]]
    assert text.stderr.startswith("baton: the newest 50 of 52 handoffs shown; the next page: add --cursor ")
    assert text.stderr.endswith(" (a larger --limit shows more, --limit 0 shows all)\n")
    as_json = run_baton("handoff", "list", "--json", "--project", str(project))
    listed = json.loads(as_json.stdout)
    assert listed["count"] == 50 and listed["more"] is True and listed["total"] == 52
    assert as_json.stderr == ""  # --json says it in `more` and `total`


def test_handoff_list_limit_0_lists_every_match_without_a_note(past_the_default):
    project, newest = past_the_default
    text = run_baton("handoff", "list", "--limit", "0", "--project", str(project))
    assert len(text.stdout.splitlines()) == 52 and text.stderr == ""
    listed = baton_json(project, "handoff", "list", "--limit", "0")
    assert [h["id"] for h in listed["handoffs"]] == newest and listed["more"] is False and listed["total"] == 52


def test_handoff_list_with_a_negative_limit_exits_2_naming_the_flag(three):
    project, _ = three
    r = run_baton("handoff", "list", "--limit", "-1", "--project", str(project))
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == "baton: --limit must be a positive number, or 0 for every match\n"


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_handoff_list_over_mcp_without_a_limit_lists_at_most_the_default_and_says_more_match(three,
                                                                                                 monkeypatch):
    project, newest = three
    monkeypatch.setattr(listing, "DEFAULT_LIMIT", 2)
    async with Client(build_server(project)) as client:
        default = await client.call_tool("handoff_list", {})
        asked = await client.call_tool("handoff_list", {"limit": 3})
    assert [h["id"] for h in default.structured_content["handoffs"]] == newest[:2]
    assert default.structured_content["more"] is True and default.structured_content["total"] == 3
    assert [h["id"] for h in asked.structured_content["handoffs"]] == newest
    assert asked.structured_content["more"] is False and json.loads(asked.content[0].text) == asked.structured_content
