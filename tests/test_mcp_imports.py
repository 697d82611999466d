"""The MCP server loads only what a call needs (measured, not timed).

Its start-up is dominated by the SDK's own import, so Baton's share must stay
small: publishing the tools' argument bounds must not import the commands
that enforce them, and a read answers without loading the write commands.
"""

from __future__ import annotations

import subprocess
import sys

WRITE_COMMANDS = ("baton.commands.bootstrap", "baton.commands.batons", "baton.commands.sessions",
                  "baton.commands.record", "baton.commands.capture", "baton.domain.brief")

FIRST_CALL = """
import sys
import anyio
from baton.mcp_server import TOOL_NAMES, build_server

server = build_server(sys.argv[1])


async def first():
    listed = await server.list_tools()
    result = await server.call_tool("handoff_list", {"limit": 5})
    assert not result.is_error, result
    return listed


assert len(anyio.run(first)) == len(TOOL_NAMES)
print("\\n".join(sorted(m for m in sys.modules if m.startswith("baton"))))
"""


def test_listing_the_tools_and_a_first_handoff_list_load_no_write_command(project):
    r = subprocess.run([sys.executable, "-c", FIRST_CALL, str(project)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    loaded = set(r.stdout.split())
    assert "baton.commands.listing" in loaded  # the call really ran
    assert not [m for m in WRITE_COMMANDS if m in loaded]
