"""docs/mcp.md's Tools table names, for each tool (each ``baton_session`` action), the keys of
its structured result: every key a tool returns is documented there, and every key documented
without ``?`` (only sometimes present) is returned — so the page cannot drift from the tools
(tester-use18 T9: ``edits``, ``hints``, ``ran_on``, ``applies_to_record``, ``conflicts``,
``siblings``, ``supersededUnread`` were left out). Through the official client.
"""

from __future__ import annotations

import re
from pathlib import Path

import anyio
import pytest
from mcp import Client

from baton.mcp_server import START_NOTICE_KEY, TOOL_NAMES, build_server
from tests.app_support import init_project
from tests.conftest import isolate
from tests.handoff_support import payload

MCP_MD = Path(__file__).resolve().parent.parent / "docs" / "mcp.md"
ACTION = re.compile(r"`action`: `(\w+)`")
ROWS = ["baton_status", "handoff_capture", "handoff_validate", "handoff_ready", "handoff_resume", "handoff_list",
        "handoff_amend", "handoff_fork", "handoff_merge", "handoff_detect", "baton_session session_start",
        "baton_session session_end", "baton_session cancel_handoff", "bootstrap"]


def _top_level_keys(braces: str) -> dict[str, bool]:
    """The keys of a documented ``{a, b: {…}, c?}``, each with whether it is always there (no ``?``)."""
    inner, depth, pieces, piece = braces[1:-1], 0, [], ""
    for ch in inner:
        depth += ch in "{[("
        depth -= ch in "}])"
        if ch == "," and depth == 0:
            pieces.append(piece)
            piece = ""
        else:
            piece += ch
    pieces.append(piece)
    keys = {}
    for text in pieces:
        found = re.match(r"\s*([A-Za-z_]+)(\?)?", text)
        if found:
            keys[found.group(1)] = found.group(2) is None
    return keys


def _first_braces(cell: str) -> str:
    start = cell.index("`{") + 1
    depth = 0
    for at in range(start, len(cell)):
        depth += cell[at] == "{"
        depth -= cell[at] == "}"
        if depth == 0:
            return cell[start:at + 1]
    raise AssertionError(f"unclosed braces in {cell[:80]!r}")


def documented() -> dict[str, dict[str, bool]]:
    """Per row of the Tools table (a tool, or ``baton_session ACTION``), its result's documented keys."""
    out, tool = {}, None
    text = MCP_MD.read_text(encoding="utf-8")
    table = text[text.index("## Tools"):]
    rows = table[table.index("|---"):].splitlines()[1:]  # past the header and its rule
    for line in rows:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if cells[0].startswith("`"):
            tool = cells[0].strip("`")
        action = re.match(ACTION, cells[1])
        name = f"{tool} {action.group(1)}" if tool == "baton_session" and action else tool
        out[name] = _top_level_keys(_first_braces(cells[-1]))
    return out


async def _answers(root: Path) -> dict[str, set[str]]:
    """What each row's tool returns, in one scenario: capture, validate, ready, resume, list, amend,
    fork, merge, detect, a session's start and end (leaving a baton), a cancel, a bootstrap."""
    got: dict[str, set[str]] = {}
    async with Client(build_server(root)) as client:
        async def call(row: str, arguments: dict) -> dict:
            result = await client.call_tool(row.split()[0], arguments)
            assert not result.is_error, result.structured_content
            got[row] = set(result.structured_content) - {START_NOTICE_KEY}
            return result.structured_content

        await call("baton_status", {})
        first = (await call("handoff_capture", payload()))["id"]
        await call("handoff_validate", {"id": first})
        await call("handoff_ready", {"id": first, "accept_warnings": "synthetic test data"})
        await call("handoff_resume", {"id": first})
        await call("handoff_list", {})
        await call("handoff_amend", {"id": first, "changes": {"summary": {"completed": ["the fixture"]}}})
        fork = (await call("handoff_fork", {"id": first, "label": "another way"}))["id"]
        second = (await client.call_tool("handoff_capture", payload())).structured_content["id"]
        await call("handoff_merge", {"ids": [fork, second], "resolution": {"decision": "keep the fork's way"}})
        await call("handoff_detect", {"signals": {}})
        await call("baton_session session_start", {"action": "session_start", "session_id": "s-1"})
        await call("baton_session session_end", {"action": "session_end", "session_id": "s-1",
                                                 "handoff": {"nextSteps": ["run the suite"]}})
        await call("baton_session cancel_handoff", {"action": "cancel_handoff"})
        await call("bootstrap", {"session_id": "s-2"})
    return got


@pytest.fixture(scope="module")
def answers(tmp_path_factory) -> dict[str, set[str]]:
    with pytest.MonkeyPatch.context() as mp:
        isolate(mp, tmp_path_factory.mktemp("home"))
        root = tmp_path_factory.mktemp("proj")
        init_project(root)
        return anyio.run(_answers, root)


def test_the_tools_table_has_a_result_row_for_every_tool_and_session_action():
    assert list(documented()) == ROWS
    assert {row.split()[0] for row in ROWS} == set(TOOL_NAMES)


@pytest.mark.parametrize("row", ROWS)
def test_every_key_a_tool_returns_is_documented_in_mcp_md(answers, row):
    assert sorted(answers[row] - set(documented()[row])) == []


@pytest.mark.parametrize("row", ROWS)
def test_every_key_mcp_md_documents_as_always_there_is_returned(answers, row):
    always = {key for key, always in documented()[row].items() if always}
    assert sorted(always - answers[row]) == []
