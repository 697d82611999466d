"""Feeding the synthetic hook fixtures (tests/fixtures/hooks/) to ``baton hook``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures" / "hooks"
PLACEHOLDER = "/path/to/project"


def fixture(harness: str, name: str, project: Path | None = None, **changes: Any) -> dict[str, Any]:
    """A fixture payload with the test project as its working directory."""
    text = (FIXTURES / harness / f"{name}.json").read_text()
    if project is not None:
        text = text.replace(PLACEHOLDER, str(project))
    return {**json.loads(text), **changes}


def every_fixture() -> list[tuple[str, str]]:
    return sorted((p.parent.name, p.stem) for p in FIXTURES.glob("*/*.json"))


def hook(project: Path, harness: str, event: str, payload: dict[str, Any] | bytes):
    """Run one hook in this process, as the harness would (the project comes from the payload's cwd)."""
    from baton.harnesses.hook import run_hook

    raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return run_hook(harness, event, raw)


def injected(harness: str, answer: str) -> str | None:
    """The context a harness would put in front of its agent, from the hook's stdout."""
    if not answer.strip():
        return None
    data = json.loads(answer)
    if harness == "cursor":
        return data.get("additional_context")
    return (data.get("hookSpecificOutput") or {}).get("additionalContext")
