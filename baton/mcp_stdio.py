"""``baton mcp``'s stdio transport: every request read is answered before the server stops.

The SDK's stdio loop ends the moment stdin reaches end of file and cancels
the calls still running, so a client that writes its requests and closes
stdin (``printf … | baton mcp``, a script, a harness shutting down) lost the
answers to its last calls. Here the server reads through ``AnsweredReads``:
at end of file it waits until every request it handed on has had its
response or error written (at most ``$BATON_MCP_DRAIN`` seconds, default
``DRAIN_SECONDS``), and only then reports end of file to the server loop.
A write a call began is one append either way; this only keeps its answer.
A request the client cancels (``notifications/cancelled``) is not waited for.

The SDK runs each request in a task of its own, so two tool calls read one
after the other could run in either order (a ``handoff_list`` written after a
``handoff_capture`` could miss it). ``CallOrder`` runs tool calls in the order
they were read: each waits its turn behind the calls read before it.
"""

from __future__ import annotations

import os
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

DRAIN_SECONDS = 30.0
"""How long, after stdin closed, the server keeps answering the calls it read."""


def drain_seconds() -> float:
    """``$BATON_MCP_DRAIN`` seconds (a number ≥ 0), else ``DRAIN_SECONDS``."""
    try:
        value = float(os.environ.get("BATON_MCP_DRAIN", DRAIN_SECONDS))
    except ValueError:
        return DRAIN_SECONDS
    return value if value >= 0 else DRAIN_SECONDS


class CallOrder:
    """Tool calls, by request id (as text), in the order they were read; ``turn`` lets one run
    once every call read before it has finished. A call whose id was never read here (an
    in-memory client, no stdio) runs at once."""

    def __init__(self) -> None:
        self.queue: list[str] = []
        self._moved = anyio.Event()

    def read(self, request_id: Any) -> None:
        self.queue.append(str(request_id))

    def done(self, request_id: Any) -> None:
        key = str(request_id)
        if key in self.queue:
            self.queue.remove(key)
            self._moved.set()
            self._moved = anyio.Event()

    async def turn(self, request_id: Any) -> None:
        key = str(request_id)
        while key in self.queue and self.queue[0] != key:
            await self._moved.wait()


class Unanswered:
    """The ids of the requests read and not yet answered (a cancelled one counts as answered),
    and the order of the tool calls among them."""

    def __init__(self) -> None:
        self.ids: set[Any] = set()
        self.calls = CallOrder()
        self._changed = anyio.Event()

    def read(self, item: object) -> None:
        if not isinstance(item, SessionMessage):
            return
        message = item.message
        if isinstance(message, JSONRPCRequest):
            self.ids.add(message.id)
            if message.method == "tools/call":
                self.calls.read(message.id)
        elif isinstance(message, JSONRPCNotification) and message.method == "notifications/cancelled":
            cancelled = (message.params or {}).get("requestId")
            if cancelled is not None:
                self._settle(cancelled)

    def answered(self, item: SessionMessage) -> None:
        if isinstance(item.message, (JSONRPCResponse, JSONRPCError)):
            self._settle(item.message.id)

    def _settle(self, request_id: Any) -> None:
        self.calls.done(request_id)
        if request_id in self.ids:
            self.ids.discard(request_id)
            self._changed.set()
            self._changed = anyio.Event()

    async def wait_until_none(self, seconds: float) -> None:
        with anyio.move_on_after(seconds):
            while self.ids:
                await self._changed.wait()


class AnsweredReads:
    """The server's read stream: end of file only once every request read is answered."""

    def __init__(self, inner: Any, unanswered: Unanswered, seconds: float) -> None:
        self._inner, self._unanswered, self._seconds = inner, unanswered, seconds

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        try:
            item = await self._inner.receive()
        except anyio.EndOfStream:
            await self._unanswered.wait_until_none(self._seconds)
            raise
        self._unanswered.read(item)
        return item

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> AnsweredReads:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def __aenter__(self) -> AnsweredReads:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class AnsweringWrites:
    """The server's write stream: each response or error written is ticked off."""

    def __init__(self, inner: Any, unanswered: Unanswered) -> None:
        self._inner, self._unanswered = inner, unanswered

    async def send(self, item: SessionMessage, /) -> None:
        await self._inner.send(item)
        self._unanswered.answered(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> AnsweringWrites:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


async def serve_until_answered(server: MCPServer, unanswered: Unanswered) -> None:
    """What ``MCPServer.run_stdio_async`` does, reading and writing through the wrappers above.

    ``_lowlevel_server`` is the SDK's own server object (the one its
    ``run_stdio_async`` runs); tests/test_mcp_stdio_drain.py fails if it moves."""
    lowlevel = server._lowlevel_server
    async with stdio_server() as (read_stream, write_stream):
        await lowlevel.run(AnsweredReads(read_stream, unanswered, drain_seconds()),
                           AnsweringWrites(write_stream, unanswered),
                           lowlevel.create_initialization_options())
