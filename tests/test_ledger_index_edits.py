"""Edits to the index alone are caught (issue 25): ``verify`` reports a cursor
whose offset, seq, hash or hlc no longer names a line of its feed, and a
recorded head (``feed_heads``) lowered, deleted or changed under its cursor —
exit 3, pointing at ``baton rebuild``, which fixes them. A writer never
starts from such a cursor: it reads the feed again instead of leaving a gap."""

from __future__ import annotations

import json
import sqlite3

import pytest

from baton.ledger.verify import verify_ledger
from tests.conftest import run_baton
from tests.ledger_support import write


def edit_index(project, sql) -> None:
    if callable(sql):
        sql = sql(project)
    conn = sqlite3.connect(project / ".baton" / "index.sqlite")
    with conn:
        assert conn.execute(sql).rowcount == 1
    conn.close()


def head_at_previous_line(project) -> str:
    """The recorded head moved back one line, consistently: a plausible, older head."""
    [feed] = (project / ".baton" / "ledger").glob("*.jsonl")
    lines = feed.read_bytes().splitlines(keepends=True)
    previous = json.loads(lines[-2])
    offset = sum(len(line) for line in lines[:-1])
    return f"UPDATE feed_heads SET seq = {previous['seq']}, hash = '{previous['hash']}', offset = {offset}"


def verify(project) -> tuple[int, dict, str]:
    r = run_baton("verify", "--json", "--project", str(project))
    text = run_baton("verify", "--project", str(project)).stdout
    return r.returncode, json.loads(r.stdout), text


@pytest.fixture
def written(project):
    write(project, 3)
    return project


EDITS = {
    "cursor offset": ("UPDATE cursors SET offset = offset - 7", "index_cursor"),
    "cursor seq": ("UPDATE cursors SET seq = seq + 3", "index_cursor"),
    "cursor hash": ("UPDATE cursors SET hash = 'sha256:' || substr(hash, 9, 60) || 'ffff'", "index_cursor"),
    "cursor hlc": ("UPDATE cursors SET hlc = hlc - 1000000", "index_cursor"),
    "head lowered": (head_at_previous_line, "index_head"),
    "head deleted": ("DELETE FROM feed_heads", "index_head"),
    "head offset": ("UPDATE feed_heads SET offset = offset + 1", "index_head"),
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_an_edit_to_the_index_alone_fails_verify_and_names_rebuild(written, edit):
    sql, kind = EDITS[edit]
    assert verify(written)[0] == 0
    edit_index(written, sql)

    code, out, text = verify(written)

    assert code == 3 and out["ok"] is False
    assert [p["kind"] for p in out["problems"]] == [kind]
    assert "baton rebuild" in out["problems"][0]["message"]
    assert "`baton rebuild` rebuilds the index" in text
    assert verify_ledger(written / ".baton" / "ledger").ok  # the ledger itself is sound


@pytest.mark.parametrize("edit", list(EDITS))
def test_a_rebuild_fixes_an_edited_index(written, edit):
    edit_index(written, EDITS[edit][0])
    assert run_baton("rebuild", "--project", str(written)).returncode == 0
    assert verify(written)[0] == 0


@pytest.mark.parametrize("edit", ["cursor seq", "cursor hlc"])
def test_a_writer_never_starts_from_an_edited_cursor(written, edit):
    edit_index(written, EDITS[edit][0])
    write(written, 1)  # reads the feed again rather than trusting seq or hlc
    report = verify_ledger(written / ".baton" / "ledger")
    assert report.ok, [p.to_json() for p in report.all_problems()]
    assert report.feeds[0].head.seq == 5  # project.initialized, three notes, one more: no gap


def test_a_recorded_forget_leaves_an_index_that_verifies(project):
    r = run_baton("checkpoint", "create", "--no-input", "--title", "t", "--objective", "o", "--json",
                  "--project", str(project))
    write(project, 2)
    assert run_baton("forget", json.loads(r.stdout)["id"], "--yes", "--project", str(project)).returncode == 0
    run_baton("status", "--project", str(project))
    assert verify(project)[0] == 0
