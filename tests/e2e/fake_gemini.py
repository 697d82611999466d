"""A scripted Gemini API (generateContent / streamGenerateContent) for the real Gemini CLI.

Gemini CLI reaches it through ``GOOGLE_GEMINI_BASE_URL`` with a made-up
``GEMINI_API_KEY`` (``gemini_settings`` writes a scratch HOME whose
``~/.gemini/settings.json`` picks the API-key auth and turns off telemetry,
usage statistics and update checks). Paths are
``/v1beta/models/<model>:<method>``:

- ``streamGenerateContent`` (``?alt=sse``) is the conversation: each request
  takes the next reply of ``script`` — a string (text), ``call(name,
  **args)`` (a ``functionCall``, e.g. ``mcp_baton_baton_status``), or a
  function of the recorded request returning one of those (to answer with
  what an earlier tool returned), or a ``common.Held`` (the answer held open
  until the test releases it) — and answers "Done." when the script is
  spent;
- ``generateContent`` carries the CLI's own side requests: the model router
  (a JSON answer with ``complexity_reasoning`` / ``complexity_score``), the
  next-speaker check (``next_speaker``: the user), and anything else gets a
  short text. Side requests never take a scripted reply.
- ``countTokens`` answers a small count; any other path is a 404.

Every request is recorded (``FakeModel.requests``); ``conversation()`` is the
scripted ones only.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from tests.e2e.common import FakeModel, Held, Recorded


def call(name: str, **args: Any) -> dict[str, Any]:
    """A scripted tool call: ``{"functionCall": {"name", "args"}}``."""
    return {"functionCall": {"name": name, "args": args}}


def _method(path: str) -> tuple[str, str]:
    """``(model, method)`` of ``/v1beta/models/<model>:<method>?…``, or ``("", "")``."""
    tail = urlsplit(path).path.rsplit("/models/", 1)
    if len(tail) != 2 or ":" not in tail[1]:
        return "", ""
    model, method = tail[1].rsplit(":", 1)
    return model, method


def _candidate(part: dict[str, Any]) -> dict[str, Any]:
    return {
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 120, "candidatesTokenCount": 8, "totalTokenCount": 128},
        "modelVersion": "gemini-2.5-pro",
    }


class FakeGemini(FakeModel):
    """The Gemini API, scripted (module docstring)."""

    def conversation(self) -> list[Recorded]:
        """The requests that took a scripted reply (the conversation's turns), oldest first."""
        with self.lock:
            return [r for r in self.requests if _method(r.path)[1] == "streamGenerateContent"]

    def respond(self, handler: Any, recorded: Recorded) -> None:
        model, method = _method(recorded.path)
        if method == "countTokens":
            self.send_json(handler, 200, {"totalTokens": 128})
        elif method == "streamGenerateContent":
            reply = self.next_reply("Done.")
            if isinstance(reply, Held):  # a turn the person interrupts, or leaves running
                reply = reply.hold(handler)
                if reply is None:
                    return
            if callable(reply):
                reply = reply(recorded)
            part = {"text": reply} if isinstance(reply, str) else reply
            if "alt=sse" in recorded.path:
                self.send_sse(handler, [(None, _candidate(part))])
            else:
                self.send_json(handler, 200, [_candidate(part)])
        elif method == "generateContent":
            self.send_json(handler, 200, _candidate({"text": self._side_answer(recorded)}))
        else:
            self.send_json(handler, 404, {"error": {"code": 404, "message": f"no {recorded.path} here",
                                                    "status": "NOT_FOUND"}})

    @staticmethod
    def _side_answer(recorded: Recorded) -> str:
        text = recorded.text()
        if "complexity_score" in text:
            return json.dumps({"complexity_reasoning": "A scripted test turn.", "complexity_score": 10})
        if "next_speaker" in text:
            return json.dumps({"reasoning": "The model answered; the user speaks next.", "next_speaker": "user"})
        return "ok"


# -- reading a recorded conversation request -------------------------------------------------------

def user_text(recorded: Recorded) -> str:
    """Every text the request carries in the user's turns (where hook context lands), joined."""
    contents = (recorded.json or {}).get("contents") or []
    return "\n".join(part.get("text", "") for content in contents if content.get("role") == "user"
                     for part in content.get("parts") or [] if isinstance(part, dict))


def hook_contexts(recorded: Recorded) -> list[str]:
    """What hooks put before the model in the request: each ``<hook_context>…</hook_context>``'s text."""
    import re

    return re.findall(r"<hook_context>(.*?)</hook_context>", user_text(recorded), re.S)


def tool_result(recorded: Recorded, name: str) -> str:
    """The newest result of the tool ``name`` the request carries back to the model, as text."""
    contents = (recorded.json or {}).get("contents") or []
    found = [part["functionResponse"] for content in contents for part in content.get("parts") or []
             if isinstance(part, dict) and (part.get("functionResponse") or {}).get("name") == name]
    assert found, f"no result of {name} in the request"
    return json.dumps(found[-1].get("response"))
