"""Did-you-mean hints for payload keys the handoff schema does not know. Pure.

The schema keeps unknown members as extension fields (``additionalProperties``),
so a capture with ``{"sumary": ...}`` or ``work.tilte`` is stored as given and
the real field stays empty. Nothing is refused (extensions are allowed), but
a key that is one typo away from a field of its object is named back with the
field it probably meant: the capture's result says so, and the person or
agent can amend it.
"""

from __future__ import annotations

from typing import Any, Mapping

from baton.domain import handoff as h
from baton.domain.close_names import closest
from baton.domain.handoff import Handoff, json_keys

CUTOFF = 0.8
"""How close (difflib's ratio) a key must be to a field to be called a typo of it."""


def _objects() -> tuple[dict[str, type], dict[str, type]]:
    sections = {"work": h.Work, "summary": h.Summary, "origin": h.Origin, "automation": h.Automation}
    lists = {"decisions": h.Decision, "artifacts": h.Artifact, "evidence": h.Evidence,
             "failed_attempts": h.FailedAttempt, "open_items": h.OpenItem, "risks": h.Risk}
    return sections, lists


def unknown_field_hints(payload: Any) -> tuple[str, ...]:
    """One line per key that is not a field of its object but is close to one."""
    if not isinstance(payload, Mapping):
        return ()
    hints: list[str] = []

    def check(mapping: Mapping[str, Any], cls: type, where: str) -> None:
        known = tuple(json_keys(cls).values())
        for key in mapping:
            if not isinstance(key, str) or key in known:
                continue
            close = closest(key, known, n=1, cutoff=CUTOFF)
            if close:
                hints.append(f"{where}{key} is not a field of the handoff schema (kept as an extension); "
                             f"did you mean {where}{close[0]}?")

    check(payload, Handoff, "")
    sections, lists = _objects()
    for name, cls in sections.items():
        value = payload.get(name)
        if isinstance(value, Mapping):
            check(value, cls, f"{name}.")
    for name, cls in lists.items():
        value = payload.get(name)
        if isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, Mapping):
                    check(item, cls, f"{name}[{i}].")
    return tuple(dict.fromkeys(hints))
