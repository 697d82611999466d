"""The ``ledger.repaired`` event ``baton repair --yes`` writes says what it set aside, for every
kind of line: an envelope by ``seq``, ``id`` and ``hash``; a line that is none (not JSON,
bytes glued to an event) by ``offset``, ``bytes``, ``reason`` and the ``sha256`` of its bytes,
as the quarantine manifest has them. Before, such a line was recorded as ``{}``, so once the
quarantine folder was lost the shared ledger said nothing of it (docs/ledger.md; tester27 T5).
A ledger holding an old event with ``{}`` still verifies and replays."""

from __future__ import annotations

import json
from hashlib import sha256
from pathlib import Path

import orjson

from baton.commands.context import Project
from baton.ledger.envelope import EventDraft
from baton.ledger.integrity import REPAIRED_TYPE, ledger_stream
from tests.conftest import run_baton
from tests.ledger_support import own_feed, write

GARBAGE = b'{"garbage": tru'


def _repaired_events(project: Path) -> list[dict]:
    r = run_baton("--json", "log", "--type", REPAIRED_TYPE, "--project", str(project))
    assert r.returncode == 0, r.stderr
    return [e for e in map(json.loads, r.stdout.splitlines()) if e.get("type") == REPAIRED_TYPE]


def _with_a_line(project: Path, line: bytes, at: int = 2) -> tuple[int, list[bytes]]:
    feed = own_feed(project)
    lines = feed.read_bytes().splitlines(keepends=True)
    feed.write_bytes(b"".join(lines[:at] + [line] + lines[at:]))
    return sum(map(len, lines[:at])), lines


def _manifest(project: Path) -> dict:
    [manifest] = (project / ".baton" / "quarantine").glob("*.json")
    return json.loads(manifest.read_text())


def test_an_unreadable_line_set_aside_is_recorded_by_offset_bytes_reason_and_sha256(project: Path):
    write(project, 4)
    offset, _ = _with_a_line(project, GARBAGE + b"\n")
    r = run_baton("repair", "--yes", "--project", str(project))
    assert r.returncode == 0, r.stdout + r.stderr
    [event] = _repaired_events(project)
    [item] = event["data"]["set_aside"]
    assert item == {"offset": offset, "bytes": len(GARBAGE) + 1, "reason": item["reason"],
                    "sha256": sha256(GARBAGE + b"\n").hexdigest()}
    assert item["reason"].startswith("bad_json")
    [listed] = _manifest(project)["set_aside"]
    assert {k: listed[k] for k in ("offset", "bytes", "reason")} == {k: item[k] for k in ("offset", "bytes", "reason")}


def test_bytes_glued_after_an_event_set_aside_are_recorded_by_offset_bytes_reason_and_sha256(project: Path):
    write(project, 3)
    feed = own_feed(project)
    lines = feed.read_bytes().splitlines(keepends=True)
    glued = b" junk}"
    feed.write_bytes(b"".join(lines[:1] + [lines[1].rstrip(b"\n") + glued + b"\n"] + lines[2:]))
    assert run_baton("repair", "--yes", "--project", str(project)).returncode == 0
    [event] = _repaired_events(project)
    [item] = event["data"]["set_aside"]
    assert (item["offset"], item["bytes"]) == (len(lines[0]) + len(lines[1]) - 1, len(glued) + 1)  # and its newline
    assert item["sha256"] == sha256(glued + b"\n").hexdigest() and item["reason"].startswith("bytes glued")


def test_an_event_set_aside_is_still_recorded_by_seq_id_and_hash(project: Path):
    write(project, 4)
    feed = own_feed(project)
    lines = feed.read_bytes().splitlines(keepends=True)
    duplicate = orjson.loads(lines[1])
    feed.write_bytes(b"".join(lines + [lines[1]]))  # an event repeated after the last: no longer chains
    assert run_baton("repair", "--yes", "--project", str(project)).returncode == 0
    [event] = _repaired_events(project)
    assert event["data"]["set_aside"] == [{"seq": duplicate["seq"], "id": duplicate["id"], "hash": duplicate["hash"]}]


def test_a_ledger_whose_old_repair_event_recorded_an_unreadable_line_as_empty_still_verifies_and_replays(project):
    write(project, 2)
    opened = Project.open(project)
    try:
        with opened.writing() as scope:
            kept = opened.ledger.read_all()[-1]
            scope.append([EventDraft(REPAIRED_TYPE, ledger_stream(opened.writer), {
                "feed": opened.writer, "kept": {"seq": kept.seq, "hash": kept.hash, "offset": 0},
                "set_aside": [{}], "lost": [], "bytes": 16, "quarantine": None,
                "reasons": ["bad_json: not JSON"]})])
    finally:
        opened.close()
    write(project, 1, start=5)
    assert run_baton("verify", "--project", str(project)).returncode == 0
    assert run_baton("rebuild", "--project", str(project)).returncode == 0
    [event] = _repaired_events(project)
    assert event["data"]["set_aside"] == [{}]
