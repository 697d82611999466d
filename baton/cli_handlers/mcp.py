"""``baton mcp``: serve the MCP tools on stdio, or describe them."""

from __future__ import annotations

import argparse

from baton import mcp_server


def mcp(args: argparse.Namespace):
    if args.json:
        return mcp_server.describe_tools(args.project)
    return mcp_server.serve_stdio(args.project)
