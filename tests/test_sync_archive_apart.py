"""``baton handoff archive`` on one clone beside a continuation, a validation, a ``ready`` or an
amend of the same handoff made apart on another (docs/handoffs.md, "Edits made apart"; tester-team23b
T3). Two clones of a real bare remote, each with its own writer, synced with ``baton sync``: the
archive stands whichever sorts first, every clone folds the same record, and the edit it left out is
named in a CONFLICT line by the sync that brings the two together (on both sides), ``status`` and
``handoff show``.
"""

from __future__ import annotations

from pathlib import Path

from tests.cli_support import run, run_json
from tests.sync_support import make_team
from tests.test_sync_baton_owners import as_user

OPEN_ITEM = '{"description":"x","suggested_action":"y","acceptance_check":"z"}'
EVIDENCE = '{"type":"command","claim":"c","ref":"r","result":"passed"}'


def capture(capsys, clone: Path, state: str, *more: str) -> str:
    return run_json(capsys, clone, "checkpoint", "create", "--no-input", "--title", "race", "--objective", "o",
                    "--current-state", state, "--open-item", OPEN_ITEM, "--evidence", EVIDENCE,
                    *more)["handoff"]["id"]


def ready(capsys, clone: Path, ident: str) -> None:
    run_json(capsys, clone, "handoff", "validate", ident)
    run_json(capsys, clone, "handoff", "ready", ident)


def shared(capsys, tmp_path: Path, *, made_ready: bool, users: tuple[str, str] | None = None) -> tuple[Path, Path, str]:
    """Alice (a) captures a handoff (made ready, or a draft) and both clones sync it; ``users``: the
    git e-mail each clone's user has (``as_user``), when the test is about who they are."""
    _remote, a, b = make_team(tmp_path)
    if users is not None:
        as_user(a, users[0])
        as_user(b, users[1])
    ident = capture(capsys, a, "alice state")
    if made_ready:
        ready(capsys, a, ident)
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    return a, b, ident


def synced(capsys, a: Path, b: Path) -> tuple[str, str]:
    """Bob syncs, Alice syncs, Bob syncs again: what each heard of the other's events (text)."""
    run(capsys, b, "sync")
    told_a = run(capsys, a, "sync")[1]
    told_b = run(capsys, b, "sync")[1]
    return told_a, told_b


def record(capsys, clone: Path, ident: str) -> dict:
    return run_json(capsys, clone, "handoff", "show", ident)["handoff"]


def same_record(capsys, a: Path, b: Path, ident: str) -> dict:
    there, here = record(capsys, a, ident), record(capsys, b, ident)
    assert there == here
    return there


def archive(capsys, clone: Path, ident: str) -> None:
    run_json(capsys, clone, "handoff", "archive", ident, "--reason", "dropped")


def test_an_archive_stands_over_a_continuation_made_ready_apart_before_it(capsys, tmp_path):
    a, b, ident = shared(capsys, tmp_path, made_ready=True)
    child = capture(capsys, b, "bob goes on", "--from", ident)
    ready(capsys, b, child)
    archive(capsys, a, ident)
    told_a, told_b = synced(capsys, a, b)
    held = same_record(capsys, a, b, ident)
    assert held["status"] == "archived" and held["archived_reason"] == "dropped"
    assert held.get("superseded_by") is None and "conflicted" in held["flags"]
    (edit,) = held["concurrent_edits"]
    assert edit["action"] == "superseded" and edit["superseded_by"] == child and edit["outcome"] == "not_applied"
    assert record(capsys, a, child)["status"] == "ready"
    line = f"CONFLICT handoff {ident[-8:]}: its continuation {child[-8:]}"
    assert line in told_a and line in told_b


def test_a_continuation_made_ready_apart_after_an_archive_does_not_supersede_it(capsys, tmp_path):
    a, b, ident = shared(capsys, tmp_path, made_ready=True)
    archive(capsys, a, ident)
    child = capture(capsys, b, "bob goes on", "--from", ident)
    ready(capsys, b, child)
    told_a, told_b = synced(capsys, a, b)
    held = same_record(capsys, a, b, ident)
    assert held["status"] == "archived" and held.get("superseded_by") is None
    (edit,) = held["concurrent_edits"]
    assert edit["action"] == "superseded" and edit["superseded_by"] == child and edit["event"]
    line = f"CONFLICT handoff {ident[-8:]}: "
    assert line in told_a and f"continuation {child[-8:]}" in told_a and line in told_b


def test_a_validation_and_ready_made_apart_after_an_archive_are_named_not_applied(capsys, tmp_path):
    a, b, ident = shared(capsys, tmp_path, made_ready=False)
    archive(capsys, a, ident)
    ready(capsys, b, ident)
    told_a, told_b = synced(capsys, a, b)
    held = same_record(capsys, a, b, ident)
    assert held["status"] == "archived" and "conflicted" in held["flags"]
    assert [e["action"] for e in held["concurrent_edits"]] == ["validated", "promoted"]
    assert f"CONFLICT handoff {ident[-8:]}" in told_a and "promotion to ready" in told_a
    assert f"CONFLICT handoff {ident[-8:]}" in told_b
    assert run(capsys, a, "sync")[1].count("CONFLICT") == 0  # told once
    status = run(capsys, b, "status")[1]  # an archived record is settled: listed flagged, its edits in show
    assert "archived [conflicted]" in status and f"CONFLICT handoff {ident[-8:]}" not in status
    shown = run(capsys, b, "handoff", "show", ident, "--format", "md")[1]
    assert f"capture a checkpoint that continues {ident[-8:]} (`baton checkpoint create`)" in shown


def test_an_archive_keeps_the_body_it_read_when_an_amend_made_apart_sorts_before_it(capsys, tmp_path):
    a, b, ident = shared(capsys, tmp_path, made_ready=False)
    run_json(capsys, b, "handoff", "amend", ident, "--current-state", "bob rewrote it")
    archive(capsys, a, ident)
    told_a, told_b = synced(capsys, a, b)
    held = same_record(capsys, a, b, ident)
    assert held["status"] == "archived" and held["summary"]["current_state"] == "alice state"
    (edit,) = held["concurrent_edits"]
    assert edit["outcome"] == "not_applied" and edit["by"]["action"] == "archived"
    assert "revision" not in held  # an archived record keeps no replaced body
    assert f"CONFLICT handoff {ident[-8:]}" in told_a and f"CONFLICT handoff {ident[-8:]}" in told_b


def test_an_amend_made_apart_after_an_archive_is_not_applied_to_the_archived_body(capsys, tmp_path):
    a, b, ident = shared(capsys, tmp_path, made_ready=False)
    archive(capsys, a, ident)
    run_json(capsys, b, "handoff", "amend", ident, "--current-state", "bob rewrote it")
    synced(capsys, a, b)
    held = same_record(capsys, a, b, ident)
    assert held["status"] == "archived" and held["summary"]["current_state"] == "alice state"
    assert [e["outcome"] for e in held["concurrent_edits"]] == ["not_applied"]
    assert f"CONFLICT handoff {ident[-8:]}" in run(capsys, a, "handoff", "show", ident, "--format", "md")[1]
