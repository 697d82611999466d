"""Use cases name their parameters; each adapter spells them its own way.

A message from the application says `` `max_tokens` ``; the command line
shows ``--max-tokens`` and an MCP caller ``max_tokens`` — never a flag it
cannot pass.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from mcp import Client

from baton.errors import InputError
from baton.mcp_server import build_server
from tests.app_support import list_handoffs
from tests.conftest import run_baton

BATON = Path(__file__).resolve().parents[1] / "baton"
FLAG = re.compile(r"(?<![\w-])--[a-z]")
GIT_COMMAND = re.compile(r"`git [^`]*`")
"""A git command a message tells the person to type (``git rm -r -q --cached .baton``): its flags are
git's, typed in a shell whatever the adapter, never a parameter of Baton's."""


TERMINAL_ONLY = ("render", "next_command")
"""Text written for a terminal: a result's ``render()``, and ``handoff prepare``'s
suggested next command (prepare is a command-line verb with no other adapter)."""


def _texts_an_adapter_passes_on(path: Path) -> list[str]:
    """Every string literal of a module except docstrings and terminal-only text:
    what may end up in an error, a result's JSON or a brief, whatever the adapter."""
    tree = ast.parse(path.read_text())
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            skip.add(id(node.value))  # docstrings, attribute docstrings
        if isinstance(node, ast.FunctionDef) and node.name in TERMINAL_ONLY:
            skip.update(id(n) for n in ast.walk(node))
    return [n.value for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in skip]


@pytest.mark.parametrize("layer", ["commands", "domain", "projections", "ledger"])
def test_nothing_below_the_adapters_names_a_command_line_flag(layer):
    offenders = {str(p.relative_to(BATON)): [t for t in _texts_an_adapter_passes_on(p)
                                                    if FLAG.search(GIT_COMMAND.sub("", t))]
                 for p in (BATON / layer).rglob("*.py")}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_application_names_the_parameter(project):
    with pytest.raises(InputError, match="^`status` must be one of"):
        list_handoffs(project, status="done")


def test_the_command_line_names_its_flag(project):
    r = run_baton("handoff", "list", "--status", "done", "--project", str(project))
    assert r.returncode == 2 and "baton: --status must be one of" in r.stderr


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.anyio
async def test_an_mcp_caller_is_told_its_argument_name(project, anyio_backend):
    async with Client(build_server(project)) as client:
        result = await client.call_tool("handoff_list", {"work": "   "})
    assert result.is_error
    message = result.structured_content["error"]["message"]
    assert message.startswith("work needs at least one word") and "--" not in message
