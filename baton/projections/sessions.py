"""Sessions and their objectives.

``sessions``: one document per session id (stream ``session/<id>``): harness,
owner, branch, when it began and ended, the baton it received and the one it
left. ``objectives``: one document per ``owner__branch`` key (stream
``objective/<key>``): the objective of the session working there, removed when
cleared. Whether an objective still counts (its session must exist and be
open) is decided when it is read, not here.
"""

from __future__ import annotations

from typing import Any, Iterable

from baton.ledger.envelope import Event
from baton.projections.base import Doc


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


class Sessions:
    name = "sessions"
    version = 1

    def keys(self, event: Event) -> Iterable[str]:
        if event.type.startswith("session.") and event.stream.startswith("session/"):
            return (event.stream[len("session/"):],)
        return ()

    def apply(self, key: str, doc: Doc | None, event: Event) -> Doc | None:
        data = event.data if isinstance(event.data, dict) else {}
        out = dict(doc or {"id": key, "harness": None, "owner": None, "branch": None, "objective": None,
                           "status": "open", "beganAt": None, "endedAt": None,
                           "receivedBaton": None, "leftBaton": None})
        if event.type == "session.begun":
            out.update(
                status="open", beganAt=event.at, endedAt=None,
                harness=_text(data.get("harness")), owner=_text(data.get("owner")),
                branch=_text(data.get("branch")), objective=_text(data.get("objective")),
                receivedBaton=_text(data.get("received_baton")),
            )
        elif event.type == "session.ended":
            out.update(status="ended", endedAt=event.at, leftBaton=_text(data.get("left_baton")))
            for field in ("owner", "branch", "harness"):
                if out.get(field) is None:
                    out[field] = _text(data.get(field))
        return out


class Objectives:
    name = "objectives"
    version = 1

    def keys(self, event: Event) -> Iterable[str]:
        if event.type.startswith("objective.") and event.stream.startswith("objective/"):
            return (event.stream[len("objective/"):],)
        return ()

    def apply(self, key: str, doc: Doc | None, event: Event) -> Doc | None:
        data = event.data if isinstance(event.data, dict) else {}
        if event.type == "objective.cleared":
            return None
        if event.type == "objective.set":
            owner, branch, objective = (_text(data.get(k)) for k in ("owner", "branch", "objective"))
            if owner is None or branch is None or objective is None:
                return doc
            return {"key": key, "owner": owner, "branch": branch, "objective": objective,
                    "sessionId": _text(data.get("session")), "updatedAt": event.at}
        return doc
