"""Hypothesis strategies for canonical handoff JSON (§7.2), shared by the quality and brief tests.

Everything generated here is synthetic: no real commands, results or work.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

HEAD = "4f2a9c1e0b7d3a5f6e8c9b0a1d2e3f4a5b6c7d8e"
OTHER_HEAD = "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d"

# Any printable text, including multi-byte characters (the token estimate counts UTF-8 bytes).
_chars = st.characters(blacklist_categories=("Cs", "Cc"))


def texts(max_size: int = 80, min_size: int = 0) -> st.SearchStrategy[str]:
    return st.text(_chars, min_size=min_size, max_size=max_size)


def _hash() -> st.SearchStrategy[str | None]:
    return st.one_of(st.none(), st.sampled_from(["sha256:" + "a" * 64, "sha256:" + "b" * 64]))


@st.composite
def handoff_dicts(draw: Any, max_items: int = 6, max_text: int = 80) -> dict[str, Any]:
    """A schema-valid handoff body; ``max_items``/``max_text`` scale it up for budget tests."""

    def t(min_size: int = 0) -> str:
        return draw(texts(max_text, min_size))

    def n() -> int:
        return draw(st.integers(0, max_items))

    evidence = [
        {"id": f"E-{i}", "type": draw(st.sampled_from(["command", "test", "file", "commit", "url", "human",
                                                        "observation"])),
         "claim": t(1), "ref": draw(st.one_of(st.none(), texts(max_text))),
         "captured_at": f"2026-09-02T14:{i % 60:02d}:00Z",
         "result": draw(st.one_of(st.none(), st.sampled_from(["pass", "fail", "observed"])))}
        for i in range(n())
    ]
    ids = [e["id"] for e in evidence] + ["E-missing"]

    def cite() -> list[str]:
        return draw(st.lists(st.sampled_from(ids), max_size=2, unique=True))

    decisions = [{"id": f"D-{i}", "decision": t(1), "rationale": draw(st.one_of(st.none(), texts(max_text))),
                  "alternatives_considered": [t() for _ in range(draw(st.integers(0, 2)))], "evidence_ids": cite()}
                 for i in range(n())]
    failed = [{"id": f"F-{i}", "approach": t(1), "outcome": draw(st.sampled_from(["failed", "regressed",
                                                                                  "abandoned"])),
               "reason": draw(st.one_of(st.none(), texts(max_text))), "evidence_ids": cite(),
               "avoid_repeating": draw(st.booleans())}
              for i in range(n())]
    artifacts = [{"path": f"src/{t()[:40] or 'x'}/{i}.py",
                  "role": draw(st.sampled_from(["modified", "created", "read", "generated", "deleted"])),
                  "description": draw(st.one_of(st.none(), texts(max_text))),
                  "revision": draw(st.one_of(st.none(), st.just("git:4f2a9c1"))),
                  "content_hash": draw(_hash()), "sensitive": draw(st.booleans())}
                 for i in range(n())]
    open_items = [{"id": f"O-{i}", "description": t(1),
                   "priority": draw(st.one_of(st.none(), st.sampled_from(["high", "medium", "low"]))),
                   "suggested_action": draw(st.one_of(st.none(), texts(max_text))),
                   "blocked_by": draw(st.lists(st.just(f"O-{i + 1}"), max_size=1)),
                   "acceptance_check": draw(st.one_of(st.none(), texts(max_text)))}
                  for i in range(n())]
    risks = [{"description": t(1), "severity": draw(st.one_of(st.none(), st.sampled_from(["high", "medium", "low"]))),
              "mitigation": draw(st.one_of(st.none(), texts(max_text)))} for _ in range(n())]
    head = draw(st.one_of(st.none(), st.just(HEAD)))
    body: dict[str, Any] = {
        "$schema": "https://baton.dev/schemas/handoff/v0.1.json",
        "schema_version": "0.1",
        "id": "018f4a2b-7c3d-7e1f-9a2b-3c4d5e6f7a8b",
        "kind": "handoff",
        "status": draw(st.sampled_from(["draft", "validated", "ready"])),
        "created_at": "2026-09-02T14:30:00Z",
        "updated_at": "2026-09-02T14:32:00Z",
        "project": {"id": "sha256:" + "c" * 64, "root_hint": ".",
                    **({"repository": {"vcs": "git", "head": head, "dirty": False}} if head else {})},
        "work": {"title": t(), "objective": t(), "scope": [t() for _ in range(draw(st.integers(0, 2)))],
                 "constraints": [t(1) for _ in range(n())], "definition_of_done": [t(1) for _ in range(n())],
                 **({"state": draw(st.sampled_from(["in_progress", "completed", "blocked"]))}
                    if draw(st.booleans()) else {})},
        "summary": {"completed": [t(1) for _ in range(n())], "in_progress": [t(1) for _ in range(n())],
                    "discoveries": [t(1) for _ in range(n())],
                    "current_state": draw(st.one_of(st.none(), texts(max_text))),
                    "why_it_matters": draw(st.one_of(st.none(), texts(max_text)))},
        "decisions": decisions,
        "artifacts": artifacts,
        "evidence": evidence,
        "failed_attempts": failed,
        "open_items": open_items,
        "risks": risks,
        "lineage": {"parents": [], "relation": "root"},
        "redactions": [],
    }
    return {k: v for k, v in body.items() if v is not None}


def drop_nones(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: drop_nones(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [drop_nones(v) for v in value]
    return value
