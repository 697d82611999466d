"""What the tests of a session start that cannot take its usual path share
(a locked ledger, an index too far behind): the feeds' bytes, the claims in
them, the batons still pending, and the index as an upgrade finds it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import orjson

from baton.app import Baton


def feeds(repo: Path) -> dict[str, bytes]:
    return {feed.name: feed.read_bytes() for feed in (repo / ".baton" / "ledger").glob("*.jsonl")}


def claims(repo: Path) -> list[dict]:
    return [event for raw in feeds(repo).values() for line in raw.splitlines()
            if (event := json.loads(line))["type"] == "baton.claimed"]


def pending(repo: Path) -> list:
    with Baton.open(repo) as app:
        return list(app.pending_batons().records)


def as_an_upgrade_finds_it(repo: Path, projection: str) -> None:
    """The index as an upgrade to a Baton with another version of ``projection`` finds it."""
    with sqlite3.connect(repo / ".baton" / "index.sqlite") as db:
        signature = orjson.loads(db.execute("SELECT value FROM meta WHERE key = 'signature'").fetchone()[0])
        for item in signature[1:]:
            if item[0] == projection:
                item[1] -= 1
        db.execute("UPDATE meta SET value = ? WHERE key = 'signature'", [orjson.dumps(signature).decode()])
