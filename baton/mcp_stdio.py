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

A line the SDK cannot read as a JSON-RPC message (malformed JSON, or nested
deeper than its parser goes: ~250 levels) is not dropped unanswered, which
left the client waiting for ever: ``AnsweredReads`` answers it with a JSON-RPC
error under the request's id when one can be found in the line (-32600,
invalid request), else under a null id (-32700, parse error). A blank line
(whitespace only, a lone CR included) holds no message and is skipped
unanswered, as both official SDKs leave it (neither answers a line it cannot
parse: the Python SDK hands the error to the session, which logs it; the
TypeScript SDK's ``ReadBuffer`` reports it to ``onerror``).

The SDK reads a line whole before anything looks at it, so a client writing
without a newline grew the server to the machine's memory. ``BoundedLines``
reads stdin instead: a line longer than ``MAX_LINE_BYTES`` (the 1 MiB argument
limit plus room for the JSON-RPC envelope) is never held; its first
``_HEAD_BYTES`` are kept to find its id, the rest is discarded up to the next
newline, and it is answered -32600 under that id (else -32700 under a null id),
the next line served as usual.

Every error the server writes goes through the secret screen on its way out
(``screened_error``): the SDK answers some requests before any Baton code runs
(an unknown method's "Method not found" repeats the method name in ``data``),
so Baton's own screening of its answers cannot reach those.
"""

from __future__ import annotations

import fcntl
import os
import re
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import orjson
from anyio import to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import (
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
)

from baton.domain import lone_surrogates
from baton.domain.limits import MAX_INPUT_BYTES
from baton.domain.redaction import screen_output

MAX_LINE_BYTES = MAX_INPUT_BYTES + 64 * 1024
"""The longest request line read: the argument limit (docs/mcp.md) and room for the envelope."""
_HEAD_BYTES = 4096
_DISCARD_BYTES = 64 * 1024
_OVER_LONG = "\x00baton:over-long\x00"
"""Marks the head of an over-long line handed to the SDK's parser (which refuses it: not JSON)."""

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
        self._moved: anyio.Event | None = None
        """What the calls waiting their turn wait on (made by the first that waits: most never do)."""

    def read(self, request_id: Any) -> None:
        self.queue.append(str(request_id))

    def done(self, request_id: Any) -> None:
        key = str(request_id)
        if key in self.queue:
            self.queue.remove(key)
            if self._moved is not None:
                self._moved.set()
                self._moved = None

    async def turn(self, request_id: Any) -> None:
        key = str(request_id)
        while key in self.queue and self.queue[0] != key:
            if self._moved is None:
                self._moved = anyio.Event()
            await self._moved.wait()


class Unanswered:
    """The ids of the requests read and not yet answered (a cancelled one counts as answered),
    and the order of the tool calls among them."""

    def __init__(self) -> None:
        self.ids: set[Any] = set()
        self.calls = CallOrder()
        self._changed: anyio.Event | None = None
        """What ``wait_until_none`` waits on (made only when it waits: at end of input)."""

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
            if self._changed is not None:
                self._changed.set()
                self._changed = None

    async def wait_until_none(self, seconds: float) -> None:
        with anyio.move_on_after(seconds):
            while self.ids:
                if self._changed is None:
                    self._changed = anyio.Event()
                await self._changed.wait()


_HEAD_ID = re.compile(r'"id"\s*:\s*(-?[0-9]{1,18}|"(?:[^"\\]|\\.){0,256}")')


_UNREADABLE = "the message could not be read as JSON-RPC (malformed, or nested too deep)"


def unreadable_answer(exc: BaseException) -> JSONRPCError:
    """The error answering a line the SDK could not read (``exc``, its ValidationError): under the
    line's own id when the line is JSON (``orjson`` reads deeper than the SDK) or holds its id
    before any nested object, else under a null id. Never raises: the read loop answers every
    line and goes on, so anything unforeseen is answered as unreadable under a null id."""
    try:
        return _unreadable_answer(exc)
    except Exception:  # noqa: BLE001 — the read loop must never die on one line
        return JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(code=PARSE_ERROR, message=_UNREADABLE))


def _head_id(text: str) -> Any:
    """The id a line that is not JSON names before any nested object, or None (none, or not a
    JSON number or string, such as ``"a\\q"``)."""
    head = text[:text.find("{", text.find("{") + 1) if text.count("{") > 1 else 4096]
    found = _HEAD_ID.search(head)
    try:
        return orjson.loads(found.group(1)) if found else None
    except orjson.JSONDecodeError:
        return None


def _over_long_answer(head: str) -> JSONRPCError:
    request_id = _head_id(head)
    if not isinstance(request_id, (int, str)) or isinstance(request_id, bool):
        request_id, code = None, PARSE_ERROR
    else:
        code = INVALID_REQUEST
    return JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(
        code=code, message=f"the request line is longer than {MAX_LINE_BYTES} bytes and was not read "
                           "(link to repository artifacts instead of pasting them)"))


def _unreadable_answer(exc: BaseException) -> JSONRPCError:
    errors = getattr(exc, "errors", None)
    raw: Any = None
    try:
        raw = errors()[0].get("input") if callable(errors) else None
    except (IndexError, TypeError, ValueError):
        raw = None
    request_id: Any = None
    if isinstance(raw, (str, bytes)):
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        if text.startswith(_OVER_LONG):
            return _over_long_answer(text[len(_OVER_LONG):])
        try:
            message = orjson.loads(text)
            request_id = message.get("id") if isinstance(message, dict) else None
        except orjson.JSONDecodeError:
            request_id = _head_id(text)
    if not isinstance(request_id, (int, str)) or isinstance(request_id, bool):
        return JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(code=PARSE_ERROR, message=_UNREADABLE))
    return JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(
        code=INVALID_REQUEST, message="the request could not be read: it is malformed or nested too deep "
                                      "(arguments are plain JSON objects a few levels deep)"))


class BoundedLines:
    """stdin's lines as text (UTF-8, undecodable bytes replaced, as the SDK reads them, and each lone
    UTF-16 surrogate escape too, which the SDK's parser refuses: ``baton.domain.lone_surrogates``), none
    held longer than ``limit`` bytes: an over-long line becomes ``_OVER_LONG`` and its head,
    which the SDK's parser refuses and ``unreadable_answer`` answers."""

    def __init__(self, source: Any, limit: int = MAX_LINE_BYTES) -> None:
        self._source, self._limit = source, limit

    def read_line(self) -> str | None:
        """The next line, or None at end of file (blocking: run on a worker thread). A blank line
        (whitespace only) is no message: skipped, unanswered (the module's docstring)."""
        line = self._source.readline(self._limit + 1)
        while line and not line.strip() and len(line) <= self._limit:
            line = self._source.readline(self._limit + 1)
        if not line:
            return None
        if len(line) <= self._limit or line.endswith(b"\n"):
            if b"\\u" in line:  # a lone surrogate escape (half an emoji, as Node writes it): U+FFFD
                line = lone_surrogates.replaced(line)
            return line.decode("utf-8", "replace")
        head = line[:_HEAD_BYTES]
        del line
        while True:
            chunk = self._source.readline(_DISCARD_BYTES)
            if not chunk or chunk.endswith(b"\n"):
                break
        return _OVER_LONG + head.decode("utf-8", "replace")

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        while (line := await to_thread.run_sync(self.read_line)) is not None:
            yield line


@contextmanager
def claimed_stdin() -> Iterator[Any]:
    """stdin's wire as a binary file, fd 0 pointing at the null device meanwhile (as the SDK's
    own stdio transport does: a handler or child reading stdin reads end of file, never a
    request); restored on exit. stdin not on fd 0 (an embedding test) is read in place."""
    try:
        on_fd_0 = sys.stdin.buffer.fileno() == 0
    except (AttributeError, OSError, ValueError):
        on_fd_0 = False
    if not on_fd_0:
        yield sys.stdin.buffer
        return
    wire = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    try:
        yield os.fdopen(wire, "rb", closefd=False)
    finally:
        os.dup2(wire, 0)


class AnsweredReads:
    """The server's read stream: end of file only once every request read is answered; a line
    that cannot be read is answered here (``unreadable_answer``) instead of handed on."""

    def __init__(self, inner: Any, unanswered: Unanswered, seconds: float, writes: Any = None) -> None:
        self._inner, self._unanswered, self._seconds = inner, unanswered, seconds
        self._writes = writes

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        while True:
            try:
                item = await self._inner.receive()
            except anyio.EndOfStream:
                await self._unanswered.wait_until_none(self._seconds)
                raise
            if isinstance(item, Exception) and self._writes is not None:
                await self._writes.send(SessionMessage(unreadable_answer(item)))
                continue
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


def screened_error(item: SessionMessage, policy: Any) -> SessionMessage:
    """``item`` with an error's ``message`` and ``data`` through the secret screen (``policy``: the
    project's redaction rules); any other message, or an error the screen leaves as it is, unchanged."""
    message = item.message
    if not isinstance(message, JSONRPCError):
        return item
    error = message.error
    text = screen_output(error.message, policy)
    data = screen_output(error.data, policy) if error.data is not None else None
    if text == error.message and data == error.data:
        return item
    screened = message.model_copy(update={"error": error.model_copy(update={"message": text, "data": data})})
    return SessionMessage(screened, metadata=item.metadata)


class AnsweringWrites:
    """The server's write stream: each error screened (``screened_error``, under the rules ``policy``
    gives when called), and each response or error written ticked off."""

    def __init__(self, inner: Any, unanswered: Unanswered, policy: Callable[[], Any] | None = None) -> None:
        self._inner, self._unanswered, self._policy = inner, unanswered, policy

    async def send(self, item: SessionMessage, /) -> None:
        if self._policy is not None and isinstance(item.message, JSONRPCError):
            item = screened_error(item, self._policy())
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
    with claimed_stdin() as wire:
        await _serve(lowlevel, unanswered, wire, getattr(server, "policy", None))


async def _serve(lowlevel: Any, unanswered: Unanswered, wire: Any, policy: Callable[[], Any] | None) -> None:
    lines: Any = BoundedLines(wire)  # the SDK iterates its stdin; any async iterable of lines will do
    async with stdio_server(stdin=lines) as (read_stream, write_stream):
        writes = AnsweringWrites(write_stream, unanswered, policy)
        await lowlevel.run(AnsweredReads(read_stream, unanswered, drain_seconds(), writes), writes,
                           lowlevel.create_initialization_options())
