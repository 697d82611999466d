"""Who left a baton handed on with `session handoff --from ID` (tester-use16 U1; docs/cli.md
`baton status`, docs/status-page.md): `status`, `status --json` (the status page's
`/api/handoffs`) and the brief name the same person — whoever handed it on (the baton's
`leftBy`, the feed of its `baton.created`), not whoever captured the handoff it carries.

Alice (clone ``a``) captures and readies a handoff and syncs; Bob (clone ``b``) hands it on,
through a bare remote as a team works.
"""

from __future__ import annotations

import json

from tests.cli_support import run, run_json
from tests.sync_support import make_team
from tests.sync_support import writer_of as writer
from tests.test_sync_baton_owners import as_user

ALICE = "alice@example.com"
BOB = "bob@example.com"
STEP = {"description": "Write test", "suggested_action": "x", "acceptance_check": "y"}


def handed_on_by_bob(capsys, tmp_path, *flags: str):
    """Alice's ready handoff, handed on by Bob with ``session handoff --from ID FLAGS``."""
    _remote, a, b = make_team(tmp_path)
    as_user(a, ALICE)
    as_user(b, BOB)

    ident = run_json(capsys, a, "checkpoint", "create", "--no-input", "--title", "T", "--objective",
                     "Make the replay test pass", "--open-item", json.dumps(STEP))["id"]
    run_json(capsys, a, "handoff", "validate", ident)
    run_json(capsys, a, "handoff", "ready", ident, "--accept-warnings", "a test project")
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    run_json(capsys, b, "session", "handoff", "--from", ident, "--branch", "main", *flags)
    return a, b, ident


def baton_item(capsys, clone) -> dict:
    [item] = run_json(capsys, clone, "status")["items"]
    return item


def for_cell(capsys, clone) -> str:
    code, out, err = run(capsys, clone, "status")
    assert code == 0, err
    [row] = [line for line in out.splitlines() if "Write test" in line]
    return row


def test_a_shared_baton_handed_on_is_yours_in_your_status(capsys, tmp_path):
    _a, b, _ident = handed_on_by_bob(capsys, tmp_path, "--shared")
    assert "shared (you)" in for_cell(capsys, b)
    item = baton_item(capsys, b)
    assert (item["writtenBy"], item["writer"], item["mine"]) == (BOB, writer(b), True)


def test_a_shared_baton_handed_on_names_who_left_it_in_the_capturers_status(capsys, tmp_path):
    a, b, _ident = handed_on_by_bob(capsys, tmp_path, "--shared")
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")
    assert f"shared, by {BOB}" in for_cell(capsys, a)
    item = baton_item(capsys, a)
    assert (item["writtenBy"], item["writer"], item["mine"]) == (BOB, writer(b), False)


def test_a_private_baton_handed_on_to_yourself_reads_as_yours_not_the_capturers(capsys, tmp_path):
    a, b, _ident = handed_on_by_bob(capsys, tmp_path)
    row = for_cell(capsys, b)
    assert f"{BOB} on main (you)" in row and ALICE not in row
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")
    row = for_cell(capsys, a)
    assert f"{BOB} on main" in row and "by you" not in row and "(you)" not in row


def test_status_and_the_brief_name_the_same_person_as_who_left_it(capsys, tmp_path):
    _a, b, _ident = handed_on_by_bob(capsys, tmp_path, "--shared")
    brief = run_json(capsys, b, "bootstrap", "--peek", "--branch", "main")["brief"]
    assert f"by `{BOB}`" in brief
    assert baton_item(capsys, b)["writtenBy"] == BOB
