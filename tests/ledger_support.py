"""Writing plain test events into a project's own feed, and finding that feed, for the ledger tests."""

from __future__ import annotations

from pathlib import Path

from baton.commands.context import Project
from baton.ledger import EventDraft


def write(project: Path, n: int, start: int = 0) -> None:
    """``n`` ``test.noted`` events (numbered from ``start``), one command's append each."""
    opened = Project.open(project)
    try:
        for i in range(start, start + n):
            with opened.writing() as scope:
                scope.append([EventDraft("test.noted", "test/1", {"n": i})])
    finally:
        opened.close()


def own_feed(project: Path) -> Path:
    """The project's one feed (these tests write from one machine)."""
    [feed] = (project / ".baton" / "ledger").glob("*.jsonl")
    return feed
