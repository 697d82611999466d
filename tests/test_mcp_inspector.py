"""``baton mcp`` through the official MCP Inspector CLI (a Node program).

Opt-in — ``BATON_MCP_INSPECTOR=1`` — because it needs ``npx`` and, the first
time, the network to fetch ``@modelcontextprotocol/inspector``; the SDK
client tests (test_mcp*.py) cover the same surface offline.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not (os.environ.get("BATON_MCP_INSPECTOR") and shutil.which("npx")),
                                reason="set BATON_MCP_INSPECTOR=1 (needs npx) to run the MCP Inspector CLI")


def inspector(project, *args: str) -> dict:
    env = {**os.environ, "npm_config_cache": os.path.join(pwd.getpwuid(os.getuid()).pw_dir, ".npm")}
    r = subprocess.run(["npx", "-y", "@modelcontextprotocol/inspector", "--cli", sys.executable, "-m", "baton",
                        "mcp", "--project", str(project), *args], capture_output=True, text=True, env=env,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-2000:] + r.stdout[-2000:]
    return json.loads(r.stdout)


def test_the_inspector_lists_every_tool_with_closed_schemas_and_output_schemas(project):
    from baton.mcp_server import TOOL_NAMES

    tools = inspector(project, "--method", "tools/list")["tools"]
    assert sorted(t["name"] for t in tools) == sorted(TOOL_NAMES)
    assert all(t["inputSchema"]["additionalProperties"] is False and t["outputSchema"] for t in tools)


def test_the_inspector_sees_a_misspelled_argument_refused_by_name(project):
    result = inspector(project, "--method", "tools/call", "--tool-name", "handoff_capture",
                       "--tool-arg", 'work={"title": "t", "objective": "o"}', "--tool-arg", "failed_attempt=[]")
    assert result["isError"] and "failed_attempt: unknown argument" in result["structuredContent"]["error"]["message"]


def test_the_inspector_calls_bootstrap(project):
    result = inspector(project, "--method", "tools/call", "--tool-name", "bootstrap", "--tool-arg", "peek=true")
    assert not result.get("isError") and json.loads(result["content"][0]["text"]) == result["structuredContent"]
