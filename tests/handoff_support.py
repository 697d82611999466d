"""Helpers for the handoff lifecycle tests: git repositories (dulwich only),
ready-made payloads, and ways to look at what reached the disk."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import run_baton

AUTHOR = b"Test Person <test@example.com>"

ACTIONABLE_ITEM = {
    "description": "Add the duplicate-callback fixture",
    "suggested_action": "Write the fixture, run the focused suite, then the full suite",
    "acceptance_check": "The fixture proves a replayed callback is rejected",
    "priority": "high",
}


def git_init(root: Path, files: dict[str, str] | None = None) -> str:
    """A repository with one commit holding ``files``; returns the head sha."""
    from dulwich import porcelain

    repo = porcelain.init(str(root))
    repo.close()
    return git_commit(root, files or {"README.md": "hello\n"}, message="initial")


def git_commit(root: Path, files: dict[str, str], message: str = "change") -> str:
    from dulwich import porcelain

    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    with porcelain.open_repo_closing(str(root)) as repo:
        porcelain.add(repo, [str(root / rel) for rel in files])
        sha = porcelain.commit(repo, message=message.encode(), author=AUTHOR, committer=AUTHOR)
    return sha.decode() if isinstance(sha, bytes) else str(sha)


def payload(**overrides: Any) -> dict[str, Any]:
    """A capture payload that validates to pass (given its artifacts exist)."""
    body: dict[str, Any] = {
        "work": {"title": "Resumable OAuth callback validation",
                 "objective": "Invalid state values are rejected and the auth tests pass",
                 "constraints": ["Do not change the public callback URL"]},
        "summary": {"current_state": "The helper is written; one integration fixture remains.",
                    "completed": ["Added the state comparison helper"],
                    "in_progress": ["Integration fixture for the duplicate-callback path"]},
        "open_items": [dict(ACTIONABLE_ITEM)],
    }
    body.update(overrides)
    return body


def baton(root: Path, *args: str, input: str | None = None):
    return run_baton(*args, "--project", str(root), input=input)


def baton_json(root: Path, *args: str, input: str | None = None, expect: int = 0) -> Any:
    r = run_baton(*args, "--json", "--project", str(root), input=input)
    assert r.returncode == expect, (r.returncode, r.stdout, r.stderr)
    return json.loads(r.stdout)


def ledger_lines(root: Path) -> int:
    return sum(len(p.read_bytes().splitlines()) for p in (root / ".baton" / "ledger").glob("*.jsonl"))


def handoff_events(root: Path) -> list[dict[str, Any]]:
    out = []
    for p in (root / ".baton" / "ledger").glob("*.jsonl"):
        for line in p.read_bytes().splitlines():
            event = json.loads(line)
            if event["type"].startswith("handoff."):
                out.append(event)
    return out


def materialized(root: Path) -> dict[str, bytes]:
    folder = root / ".baton" / "handoffs"
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.json"))} if folder.is_dir() else {}


def every_file_under(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()]
