"""``baton forget`` on one clone beside an amend of the same draft made apart on another
(tester-team23b T10; docs/sync.md "Forgetting across replicas"). Two clones of a real bare remote,
each with its own writer, synced with ``baton sync``: the amend's ``handoff.revised`` is on the
forgotten handoff's own stream, which the forget could not list. Whichever sorts first, no record
comes back and nothing a command prints holds the amend's text; the sync that brings the two
together names it once, on each side (never its text), and ``baton forget`` of the handoff again
erases it here and, synced, everywhere.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_support import run, run_json
from tests.sync_support import make_team

SECRET = "SECRET-IN-BOBS-AMEND"


def baton_files_holding(clone: Path, text: str) -> list[str]:
    return sorted(str(p.relative_to(clone)) for p in (clone / ".baton").rglob("*")
                  if p.is_file() and text.encode() in p.read_bytes())


def amended_while_forgotten(capsys, tmp_path: Path, *, amend_first: bool) -> tuple[Path, Path, str]:
    """Alice (a) captures a draft; both sync; Bob (b) amends it while Alice forgets it (Bob's amend
    before or after her forget in time, so first or last in project order); then Alice syncs."""
    tmp_path.mkdir(exist_ok=True)
    _remote, a, b = make_team(tmp_path)
    ident = run_json(capsys, a, "checkpoint", "create", "--no-input", "--title", "race", "--objective", "o",
                     "--current-state", "alice state")["handoff"]["id"]
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    if amend_first:
        run_json(capsys, b, "handoff", "amend", ident, "--current-state", SECRET)
    run_json(capsys, a, "forget", ident, "--yes")
    if not amend_first:
        run_json(capsys, b, "handoff", "amend", ident, "--current-state", SECRET)
    run_json(capsys, a, "sync")
    return a, b, ident


def test_the_sync_that_brings_a_forget_to_the_clone_that_amended_apart_names_the_withheld_revision(capsys, tmp_path):
    _a, b, ident = amended_while_forgotten(capsys, tmp_path, amend_first=True)
    code, out, err = run(capsys, b, "sync")
    assert code == 0, err
    assert (f"FORGOTTEN: 1 revision of the forgotten handoff {ident[-8:]}, made apart on another clone" in out
            and f"`baton forget {ident[-8:]}` erases it" in out)
    assert SECRET not in out


def test_the_sync_that_brings_the_amend_to_the_clone_that_forgot_names_it_in_json(capsys, tmp_path):
    a, b, ident = amended_while_forgotten(capsys, tmp_path, amend_first=False)
    run_json(capsys, b, "sync")
    (held,) = run_json(capsys, a, "sync")["withheld_of_forgotten"]
    assert held["handoff"] == ident and held["types"] == ["handoff.revised"] and len(held["events"]) == 1


def test_a_later_sync_does_not_name_the_withheld_revision_again(capsys, tmp_path):
    a, b, _ident = amended_while_forgotten(capsys, tmp_path, amend_first=True)
    run_json(capsys, b, "sync")
    assert run_json(capsys, a, "sync")["withheld_of_forgotten"]
    run_json(capsys, b, "checkpoint", "create", "--no-input", "--title", "other", "--objective", "o")
    run_json(capsys, b, "sync")
    assert run_json(capsys, a, "sync")["withheld_of_forgotten"] == []


def test_no_record_listing_or_status_brings_a_revision_of_a_forgotten_handoff_back(capsys, tmp_path):
    for amend_first in (True, False):
        a, b, ident = amended_while_forgotten(capsys, tmp_path / str(amend_first), amend_first=amend_first)
        run_json(capsys, b, "sync")
        run_json(capsys, a, "sync")
        bobs_feed = f".baton/ledger/{run_json(capsys, b, 'status')['sync']['writer']}.jsonl"
        for clone in (a, b):
            code, out, err = run(capsys, clone, "handoff", "show", ident, "--json")
            assert code == 4 and json.loads(out)["error"]["details"]["erased"] == ident
            assert run_json(capsys, clone, "handoff", "list")["handoffs"] == []
            for args in (("status", "--json"), ("status",), ("handoff", "list"), ("bootstrap", "--peek")):
                code, out, err = run(capsys, clone, *args)
                assert code == 0 and SECRET not in out, (clone.name, args, err)
            assert baton_files_holding(clone, SECRET) == [bobs_feed]  # the ledger alone, until forget runs again


def test_forget_run_again_erases_the_revision_here_and_synced_everywhere(capsys, tmp_path):
    a, b, ident = amended_while_forgotten(capsys, tmp_path, amend_first=True)
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")
    run_json(capsys, a, "forget", ident, "--yes")
    assert baton_files_holding(a, SECRET) == []
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    assert baton_files_holding(b, SECRET) == []
    assert run_json(capsys, b, "sync")["withheld_of_forgotten"] == []


def test_log_withholds_the_revision_of_a_forgotten_handoff_made_apart_and_marks_it(capsys, tmp_path):
    a, b, ident = amended_while_forgotten(capsys, tmp_path, amend_first=True)
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")
    for clone in (a, b):
        code, out, err = run(capsys, clone, "log", "--json", "--stream", f"handoff/{ident}")
        assert code == 0 and SECRET not in out, err
        (revised,) = [e for e in map(json.loads, out.splitlines()) if e["type"] == "handoff.revised"]
        assert "data" not in revised and f"`baton forget {ident[-8:]}` erases it" in revised["withheld"]
        code, out, err = run(capsys, clone, "log", "--limit", "0")
        assert code == 0 and SECRET not in out and "[payload withheld: its handoff" in out, err


def test_log_shows_a_revision_that_forget_run_again_erased_as_erased(capsys, tmp_path):
    a, b, ident = amended_while_forgotten(capsys, tmp_path, amend_first=True)
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")
    run_json(capsys, a, "forget", ident, "--yes")
    code, out, err = run(capsys, a, "log", "--json", "--stream", f"handoff/{ident}")
    assert code == 0, err
    assert all("withheld" not in e and "data" not in e for e in map(json.loads, out.splitlines())
               if e["type"] != "handoff.forgotten")


def test_the_forget_the_withheld_line_prints_erases_the_revision(capsys, tmp_path):
    a, b, ident = amended_while_forgotten(capsys, tmp_path, amend_first=True)
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")
    code, out, err = run(capsys, b, "log", "--limit", "0")
    assert f"`baton forget {ident[-8:]}` erases it" in out
    code, out, err = run(capsys, b, "forget", ident[-8:], "--yes")
    assert code == 0, err
    assert baton_files_holding(b, SECRET) == []


def test_forget_by_short_id_of_a_handoff_with_nothing_left_still_says_it_was_erased(capsys, tmp_path):
    a, b, ident = amended_while_forgotten(capsys, tmp_path, amend_first=True)
    run_json(capsys, b, "sync")
    run_json(capsys, b, "forget", ident[-8:], "--yes")
    code, _out, err = run(capsys, b, "forget", ident[-8:], "--yes")
    assert code == 4 and "was erased by `baton forget`" in err
