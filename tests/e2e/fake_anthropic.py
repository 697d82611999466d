"""A scripted model speaking the Anthropic Messages API, for the real Claude Code.

Claude Code is pointed at it with ``ANTHROPIC_BASE_URL`` (``claude_env``).
It answers ``POST /v1/messages`` as the API does: server-sent events when the
request asks for a stream (``message_start``, ``content_block_start`` /
``content_block_delta`` / ``content_block_stop`` per block,
``message_delta`` with the stop reason, ``message_stop``), one JSON message
otherwise. ``POST /v1/messages/count_tokens`` gets a count, ``GET
/v1/models`` a one-model list, anything else an empty JSON object.

The script (``self.script``) holds the replies to the agent's turns, in
order: a ``str`` is a text reply (the turn ends), a ``ToolUse`` a call of one
tool (the harness runs it and asks again with its result), a callable is
given the recorded request and returns one of those (to use an id the
harness sent back), a ``common.Held`` an answer held open until the test
releases it (a turn the person interrupts). Only the agent's
own turns take from it: a request that offers the agent's tools. Claude
Code's side requests (a title, or the summary a compaction asks for) are
answered with ``side_reply`` and leave the script alone.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

from baton.model import frozen
from tests.e2e.common import FakeModel, Held, Recorded, harness_env

MODEL = "claude-sonnet-4-5"


@frozen
class ToolUse:
    """A reply that calls one tool: ``name`` as the agent sees it (``mcp__baton__handoff_status``)."""

    name: str
    input: dict[str, Any]


def baton_tool(tool: str, **arguments: Any) -> ToolUse:
    """A call of Baton's MCP tool ``tool`` (Claude Code names it ``mcp__baton__<tool>``)."""
    return ToolUse(f"mcp__baton__{tool}", arguments)


class FakeAnthropic(FakeModel):
    """The Anthropic Messages API on 127.0.0.1, scripted (see the module's docstring)."""

    def __init__(self, side_reply: str = "Summary: the session looked at the project's handoffs.") -> None:
        super().__init__()
        self.side_reply = side_reply
        self._ids = itertools.count(1)
        self.failures: list[str] = []
        """What went wrong inside a scripted reply (an assertion on the request): ``check`` raises it."""
        # A client that drops a kept-alive connection is no failure of the test: say nothing.
        self.server.handle_error = lambda request, address: None  # type: ignore[method-assign]

    def check(self) -> None:
        """Fail the test if a scripted reply failed (in the server's thread, where it could not)."""
        with self.lock:
            failures = list(self.failures)
        assert not failures, "a scripted reply failed: " + "; ".join(failures)

    # -- what was asked ------------------------------------------------------------------------------

    def messages(self) -> list[Recorded]:
        """Every ``POST /v1/messages`` request (the model's turns and the side requests)."""
        with self.lock:
            return [r for r in self.requests if r.method == "POST" and r.path.split("?")[0] == "/v1/messages"]

    def turns(self) -> list[Recorded]:
        """The agent's turns: the message requests that offer tools."""
        return [r for r in self.messages() if is_turn(r)]

    def tool_names(self) -> set[str]:
        """Every tool some turn offered the agent."""
        return {t.get("name") for r in self.turns() for t in (r.json or {}).get("tools") or []}

    def tool_results(self) -> list[dict[str, Any]]:
        """Every ``tool_result`` block the harness sent back, in order."""
        found: list[dict[str, Any]] = []
        for r in self.turns():
            for message in (r.json or {}).get("messages") or []:
                content = message.get("content")
                if isinstance(content, list):
                    found += [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
        return found

    # -- answers -------------------------------------------------------------------------------------

    def respond(self, handler: Any, recorded: Recorded) -> None:
        path = recorded.path.split("?")[0]
        if recorded.method == "POST" and path == "/v1/messages":
            body = recorded.json if isinstance(recorded.json, dict) else {}
            reply = self.next_reply(default="Done.") if is_turn(recorded) else self.side_reply
            if isinstance(reply, Held):  # a turn the person interrupts, or leaves running
                reply = reply.hold(handler)
                if reply is None:
                    return
            if callable(reply):  # a reply that depends on the request (an id the harness sent back)
                try:
                    reply = reply(recorded)
                except Exception as exc:  # noqa: BLE001 - kept for the test, which fails on it
                    with self.lock:
                        self.failures.append(f"{type(exc).__name__}: {exc}")
                    reply = "The script failed here."
            message = self._message(body.get("model") or MODEL, reply)
            if body.get("stream"):
                self.send_sse(handler, _events(message))
            else:
                self.send_json(handler, 200, message)
        elif recorded.method == "POST" and path == "/v1/messages/count_tokens":
            self.send_json(handler, 200, {"input_tokens": max(1, len(recorded.raw) // 4)})
        elif recorded.method == "GET" and path == "/v1/models":
            self.send_json(handler, 200, {"data": [{"type": "model", "id": MODEL, "display_name": "Claude (fake)",
                                                    "created_at": "2025-01-01T00:00:00Z"}],
                                          "has_more": False, "first_id": MODEL, "last_id": MODEL})
        elif recorded.method == "HEAD":  # a connectivity probe
            handler.send_response(200)
            handler.send_header("Content-Length", "0")
            handler.end_headers()
        else:
            self.send_json(handler, 200, {})

    def _message(self, model: str, reply: Any) -> dict[str, Any]:
        n = next(self._ids)
        if isinstance(reply, ToolUse):
            content = [{"type": "tool_use", "id": f"toolu_fake{n:04d}", "name": reply.name, "input": reply.input}]
            stop = "tool_use"
        else:
            content = [{"type": "text", "text": str(reply)}]
            stop = "end_turn"
        return {"id": f"msg_fake{n:04d}", "type": "message", "role": "assistant", "model": model,
                "content": content, "stop_reason": stop, "stop_sequence": None,
                "usage": {"input_tokens": 100, "output_tokens": 10, "cache_creation_input_tokens": 0,
                          "cache_read_input_tokens": 0}}


def said(recorded: Recorded) -> str:
    """Everything the request puts in front of the model, decoded: the system prompt, then
    each message's text and tool results, one block a line."""
    body = recorded.json if isinstance(recorded.json, dict) else {}
    parts: list[str] = []

    def collect(content: Any) -> None:
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            for block in content:
                if isinstance(block, dict):
                    collect(block.get("text") if "text" in block else block.get("content"))

    collect(body.get("system"))
    for message in body.get("messages") or []:
        if isinstance(message, dict):
            collect(message.get("content"))
    return "\n".join(parts)


_REMINDERS = re.compile(r"(?:\s*<system-reminder>.*?</system-reminder>)+\s*\Z", re.S)


def tool_output(block: dict[str, Any]) -> str:
    """What a tool answered, from the ``tool_result`` block Claude Code sent the model: the
    text of its content, less the ``<system-reminder>`` blocks the harness itself appends to
    it (2.1.332 adds ``<total_tokens>N tokens left</total_tokens>`` after each tool result)."""
    inner = block.get("content")
    text = inner if isinstance(inner, str) else "".join(
        part.get("text", "") for part in inner or [] if isinstance(part, dict))
    return _REMINDERS.sub("", text)


def is_turn(recorded: Recorded) -> bool:
    """Whether a message request is one of the agent's turns (it offers tools), not a side
    request: a title, or the summary a compaction asks for (it offers the agent's tools too,
    but its last message says to call none)."""
    body = recorded.json if isinstance(recorded.json, dict) else {}
    return bool(body.get("tools")) and not asks_for_summary(recorded)


def asks_for_summary(recorded: Recorded) -> bool:
    """Whether the request is a compaction's: the last message asks for text only."""
    body = recorded.json if isinstance(recorded.json, dict) else {}
    messages = body.get("messages") or []
    last = messages[-1] if messages and isinstance(messages[-1], dict) else {}
    content = last.get("content")
    text = content if isinstance(content, str) else " ".join(
        b.get("text", "") for b in content or [] if isinstance(b, dict) and isinstance(b.get("text"), str))
    return "Do NOT call any tools" in text


def _events(message: dict[str, Any]) -> list[tuple[str, Any]]:
    """The stream of events the API sends for ``message``."""
    start = {**message, "content": [], "stop_reason": None,
             "usage": {**message["usage"], "output_tokens": 1}}
    events: list[tuple[str, Any]] = [("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            opened: dict[str, Any] = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            opened = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events += [("content_block_start", {"type": "content_block_start", "index": index, "content_block": opened}),
                   ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}),
                   ("content_block_stop", {"type": "content_block_stop", "index": index})]
    events += [("message_delta", {"type": "message_delta",
                                  "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                                  "usage": {"output_tokens": message["usage"]["output_tokens"]}}),
               ("message_stop", {"type": "message_stop"})]
    return events


# -- Claude Code's environment and command line -----------------------------------------------------

QUIET = {
    # Nothing but the fake model: no update check, telemetry, error reports, feedback survey or
    # other "nonessential" traffic.
    "DISABLE_AUTOUPDATER": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "DISABLE_BUG_COMMAND": "1",
    "DISABLE_NON_ESSENTIAL_MODEL_CALLS": "1",
    "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY": "1",
    "CLAUDE_CODE_DISABLE_TERMINAL_TITLE": "1",
    "CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL": "1",
    "CLAUDE_CODE_ENABLE_TELEMETRY": "0",
    "IS_SANDBOX": "1",
    # Baton's MCP server is alwaysLoad (install-hooks), so Claude Code waits for it before the
    # first request, 5 s at most by default: a generous bound instead, for a busy machine.
    "MCP_CONNECT_TIMEOUT_MS": "120000",
}


def claude_env(home: Any, model: FakeAnthropic, **extra: str) -> dict[str, str]:
    """Claude Code's environment: a scratch HOME, the fake model, nothing past loopback."""
    return harness_env(home, ANTHROPIC_BASE_URL=model.url, ANTHROPIC_API_KEY="sk-ant-fake-e2e-key",
                       ANTHROPIC_MODEL=MODEL, ANTHROPIC_SMALL_FAST_MODEL=MODEL, **QUIET, **extra)


def claude_argv(program: Any, prompt: str, *options: str) -> list[str]:
    """``claude -p PROMPT`` headless, answering in JSON, every tool allowed without asking."""
    return [str(program), "-p", prompt, "--output-format", "json", "--dangerously-skip-permissions", *options]
