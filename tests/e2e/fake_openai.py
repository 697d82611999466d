"""A scripted model speaking the OpenAI Responses API, as Codex CLI 0.171.0 calls it.

Codex (configured with a ``model_providers`` entry whose ``wire_api`` is
``"responses"``) POSTs ``{base_url}/responses`` with ``"stream": true`` and
reads server-sent events: ``response.created``, ``response.output_item.added``
/ ``.done`` for each output item, ``response.output_text.delta`` for text, and
``response.completed`` (with ``usage``) to end the turn. A function call is an
output item ``{"type": "function_call", "call_id", "name", "arguments"}``;
Codex runs it and sends its result back in the next request as a
``function_call_output`` input item with the same ``call_id``.

Codex also asks ``GET {base_url}/models`` for its model list: answered with an
empty list, so it keeps the configured model.

The script (``FakeResponses.script``) is a list of replies, one per
``/responses`` request, in order:

- a string: an assistant message with that text;
- ``Call(name, arguments)``: one function call (``name`` as Codex listed the
  tool in the request's ``tools``);
- a callable taking the ``Recorded`` request: returns one of the above (to
  answer with something from an earlier tool result);
- a ``common.Held``: the answer held open until the test releases it (a turn
  the person interrupts, or leaves running).

When the script is empty the reply is the text ``"Done."``, so a turn always ends.

The interactive TUI also asks, beside the first turn, for a title for the
thread (no tools, an output schema of one ``title``): a side request, answered
``{"title": …}``, that takes nothing from the script and is not one of
``turns()``.
"""

from __future__ import annotations

import itertools
import json
from http.server import BaseHTTPRequestHandler
from typing import Any

import attrs

from baton.model import frozen
from tests.e2e.common import FakeModel, Held, Recorded

DEFAULT_REPLY = "Done."


@frozen
class Call:
    """A function call the model makes: ``name`` as it appears in the request's tools."""

    name: str
    arguments: dict[str, Any] = attrs.field(factory=dict)
    namespace: str | None = None
    """Codex 0.171 groups an MCP server's tools under a namespace tool; the call names both."""


class FakeResponses(FakeModel):
    """The OpenAI Responses API (streaming) on 127.0.0.1, answering Codex from ``script``."""

    def __init__(self) -> None:
        super().__init__()
        self._ids = itertools.count(1)
        self.input_tokens = 100
        """The ``usage.input_tokens`` each response reports (how full Codex believes its context is)."""

    @property
    def base_url(self) -> str:
        """What ``model_providers.<id>.base_url`` is set to."""
        return f"{self.url}/v1"

    def turns(self) -> list[Recorded]:
        """The recorded model requests (``POST /v1/responses``), oldest first, less the side requests."""
        with self.lock:
            return [r for r in self.requests if r.method == "POST" and r.path.rstrip("/").endswith("/responses")
                    and not asks_for_a_title(r)]

    def respond(self, handler: BaseHTTPRequestHandler, recorded: Recorded) -> None:
        path = recorded.path.split("?", 1)[0].rstrip("/")
        if recorded.method == "GET" and path.endswith("/models"):
            self.send_json(handler, 200, {"object": "list", "data": [], "models": []})
            return
        if recorded.method != "POST" or not path.endswith("/responses"):
            self.send_json(handler, 404, {"error": {"message": f"no such endpoint: {recorded.path}",
                                                     "type": "invalid_request_error"}})
            return
        reply = json.dumps({"title": "Scripted session"}) if asks_for_a_title(recorded) \
            else self.next_reply(DEFAULT_REPLY)
        if isinstance(reply, Held):  # a turn the person interrupts, or leaves running
            reply = reply.hold(handler)
            if reply is None:
                return
        if callable(reply):
            reply = reply(recorded)
        model = (recorded.json or {}).get("model", "fake-model")
        self.send_sse(handler, self.events(reply, model))

    def events(self, reply: Any, model: str) -> list[tuple[str | None, Any]]:
        """The server-sent events of one response carrying ``reply`` (a text or a ``Call``)."""
        n = next(self._ids)
        response_id = f"resp_{n}"
        if isinstance(reply, Call):
            item: dict[str, Any] = {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}",
                                    "name": reply.name, "arguments": json.dumps(reply.arguments),
                                    "status": "completed"}
            if reply.namespace is not None:
                item["namespace"] = reply.namespace
            streamed: list[tuple[str | None, Any]] = [
                ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0,
                                                "item": {**item, "arguments": "", "status": "in_progress"}}),
                ("response.function_call_arguments.delta",
                 {"type": "response.function_call_arguments.delta", "item_id": item["id"], "output_index": 0,
                  "delta": item["arguments"]}),
                ("response.function_call_arguments.done",
                 {"type": "response.function_call_arguments.done", "item_id": item["id"], "output_index": 0,
                  "arguments": item["arguments"]}),
            ]
        elif isinstance(reply, str):
            item = {"type": "message", "id": f"msg_{n}", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": reply, "annotations": []}]}
            part = {"type": "output_text", "text": "", "annotations": []}
            streamed = [
                ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0,
                                                "item": {**item, "status": "in_progress", "content": []}}),
                ("response.content_part.added", {"type": "response.content_part.added", "item_id": item["id"],
                                                 "output_index": 0, "content_index": 0, "part": part}),
                ("response.output_text.delta", {"type": "response.output_text.delta", "item_id": item["id"],
                                                "output_index": 0, "content_index": 0, "delta": reply}),
                ("response.output_text.done", {"type": "response.output_text.done", "item_id": item["id"],
                                               "output_index": 0, "content_index": 0, "text": reply}),
                ("response.content_part.done", {"type": "response.content_part.done", "item_id": item["id"],
                                                "output_index": 0, "content_index": 0,
                                                "part": {**part, "text": reply}}),
            ]
        else:
            raise TypeError(f"a scripted reply is a str or a Call, not {reply!r}")
        base = {"id": response_id, "object": "response", "created_at": 1_700_000_000, "model": model}
        usage = {"input_tokens": self.input_tokens, "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": self.input_tokens + 10}
        return [
            ("response.created", {"type": "response.created",
                                  "response": {**base, "status": "in_progress", "output": []}}),
            *streamed,
            ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
            ("response.completed", {"type": "response.completed",
                                    "response": {**base, "status": "completed", "output": [item], "usage": usage}}),
        ]


def asks_for_a_title(recorded: Recorded) -> bool:
    """Whether a request is the TUI's side request for a thread title: no tools offered, and its
    answer held to a JSON schema of one ``title``."""
    body = recorded.json if isinstance(recorded.json, dict) else {}
    answer = (body.get("text") or {}).get("format") or {}
    schema = answer.get("schema") if isinstance(answer, dict) else None
    return not body.get("tools") and isinstance(schema, dict) and schema.get("required") == ["title"]


def tool_names(recorded: Recorded) -> list[str]:
    """Every tool name a recorded request offered the model (namespaced ones as ``namespace/name``)."""
    names: list[str] = []
    for tool in (recorded.json or {}).get("tools") or []:
        if not isinstance(tool, dict):
            continue
        if isinstance(tool.get("tools"), list):  # a namespace of tools
            names += [f"{tool.get('name')}/{t.get('name')}" for t in tool["tools"] if isinstance(t, dict)]
        elif tool.get("name"):
            names.append(tool["name"])
    return names


def function_outputs(recorded: Recorded) -> dict[str, str]:
    """``call_id`` -> output text of each function call result a request carries back to the model."""
    found: dict[str, str] = {}
    for item in (recorded.json or {}).get("input") or []:
        if isinstance(item, dict) and item.get("type") in ("function_call_output", "custom_tool_call_output"):
            output = item.get("output")
            if not isinstance(output, str):
                output = json.dumps(output)
            found[str(item.get("call_id"))] = output
    return found
