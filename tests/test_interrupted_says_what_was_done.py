"""A Ctrl-C ends a command with 130 and ONE line that says what it left
(docs/cli.md, exit codes): when it lands after the command's durable step
(its events appended, a forget's erasure, a sync's import or push, a
rebuild's replay) the line says that step is done; before it, that nothing
was changed and what to run again. "baton: interrupted" alone left the user
to guess (tester-use20 T3). Each interrupt is a real SIGINT in a real
``baton`` process, raised just before or after one named call
(``tests/interrupted_at.py``), so it lands at the same point whatever the load."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from baton.process_end import NOTHING_DONE
from tests.cli_support import run_json
from tests.sync_support import make_team

HELPER = Path(__file__).with_name("interrupted_at.py")
WRITE = "baton.commands.context:WriteScope._write"
ITEM = {"description": "Add the tokenizer", "suggested_action": "Write it", "acceptance_check": "Its tests pass",
        "priority": "high"}
TITLE = ("--title", "Parser plan", "--objective", "Finish the parser", "--no-input")


def interrupted(tmp_path: Path, project: Path, when: str, target: str, *args: str) -> tuple[int, str, str]:
    """``baton ARGS`` in its own process, a Ctrl-C landing ``when`` (before/after) ``target`` is first called."""
    marker = tmp_path / "interrupted"
    marker.unlink(missing_ok=True)
    done = subprocess.run([sys.executable, str(HELPER), when, target, str(marker), *args, "--project", str(project)],
                          capture_output=True, text=True, timeout=120, cwd=project)
    assert marker.exists(), done.stderr  # the interrupt was really sent there
    return done.returncode, done.stdout, done.stderr


def titles(capsys, project: Path) -> list[str]:
    return [h["title"] for h in run_json(capsys, project, "handoff", "list")["handoffs"]]


@pytest.fixture
def project(tmp_path):
    _remote, a, _b = make_team(tmp_path)
    return a


def test_a_ctrl_c_before_a_checkpoint_is_recorded_says_nothing_was_changed(capsys, tmp_path, project):
    code, out, err = interrupted(tmp_path, project, "before", WRITE, "checkpoint", "create", *TITLE)
    assert (code, out, err) == (130, "", f"baton: interrupted {NOTHING_DONE}\n")
    assert titles(capsys, project) == []


def test_a_ctrl_c_after_a_checkpoint_is_recorded_says_it_is_done(capsys, tmp_path, project):
    code, out, err = interrupted(tmp_path, project, "after", WRITE, "checkpoint", "create", *TITLE)
    assert (code, out) == (130, "")
    assert err == ("baton: interrupted after its events were recorded in the ledger: that is done, do not run it "
                   "again (the index catches up at the next command)\n")
    assert titles(capsys, project) == ["Parser plan"]


def test_with_json_the_interrupted_command_prints_no_result_only_the_line_that_says_what_was_done(tmp_path, project):
    code, out, err = interrupted(tmp_path, project, "after", WRITE, "checkpoint", "create", *TITLE, "--json")
    assert (code, out) == (130, "")
    assert err.startswith("baton: interrupted after its events were recorded") and err.count("\n") == 1


def test_a_ctrl_c_after_a_handoff_is_promoted_to_ready_says_it_is_done(capsys, tmp_path, project):
    handoff = run_json(capsys, project, "checkpoint", "create", *TITLE, "--open-item", json.dumps(ITEM))["id"]
    run_json(capsys, project, "handoff", "validate", handoff)
    code, _out, err = interrupted(tmp_path, project, "after", WRITE, "handoff", "ready", handoff,
                                  "--accept-warnings", "tests")
    assert code == 130 and "after its events were recorded in the ledger: that is done" in err
    assert run_json(capsys, project, "handoff", "list")["handoffs"][0]["status"] == "ready"


def test_a_ctrl_c_after_forget_recorded_but_before_the_erasure_names_the_forget_to_run_again(capsys, tmp_path,
                                                                                            project):
    handoff = run_json(capsys, project, "checkpoint", "create", *TITLE)["id"]
    code, _out, err = interrupted(tmp_path, project, "before", "baton.ledger.erase:erase_payloads",
                                  "forget", handoff, "--yes")
    assert code == 130
    assert err == (f"baton: interrupted after the forget was recorded, before its payloads were erased: run "
                   f"`baton forget {handoff} --yes` again to erase them\n")
    assert any("Parser plan" in p.read_text() for p in (project / ".baton" / "ledger").glob("*.jsonl"))


def test_a_ctrl_c_after_forget_erased_the_payloads_says_the_forget_is_done(capsys, tmp_path, project):
    handoff = run_json(capsys, project, "checkpoint", "create", *TITLE)["id"]
    code, _out, err = interrupted(tmp_path, project, "before", "baton.projections.runner:ProjectionRunner.delete_index",
                                  "forget", handoff, "--yes")
    assert code == 130
    assert err == ("baton: interrupted after the payloads were erased from the ledger: the forget is done, do not "
                   "run it again (the index is rebuilt at the next command)\n")
    assert not any("Parser plan" in p.read_text() for p in (project / ".baton" / "ledger").glob("*.jsonl"))


def _b_with_a_capture_to_import(capsys, tmp_path: Path) -> tuple[Path, Path]:
    """(a, b): a synced one capture; b wrote one of its own and has a's to import."""
    _remote, a, b = make_team(tmp_path)
    run_json(capsys, a, "checkpoint", "create", *TITLE)
    run_json(capsys, a, "sync")
    run_json(capsys, b, "checkpoint", "create", "--title", "B", "--objective", "O", "--no-input")
    return a, b


def test_a_ctrl_c_between_a_syncs_import_and_its_push_says_what_was_imported_and_to_sync_again(capsys, tmp_path):
    _a, b = _b_with_a_capture_to_import(capsys, tmp_path)
    code, _out, err = interrupted(tmp_path, b, "before", "baton.sync.transport:push", "sync")
    assert code == 130
    assert err == ("baton: interrupted after the import (2 events from 1 feed are in this clone's ledger), before "
                   "anything was pushed to origin: run `baton sync` again to publish\n")
    assert "Parser plan" in titles(capsys, b)
    published = run_json(capsys, b, "sync")
    assert published["pushed"] is True and not published["imported"]


def test_a_ctrl_c_during_a_syncs_push_says_it_may_have_been_pushed_and_to_sync_again(capsys, tmp_path):
    a, b = _b_with_a_capture_to_import(capsys, tmp_path)
    # the remote took the push; the Ctrl-C lands before this clone heard back (tester29 T6)
    code, _out, err = interrupted(tmp_path, b, "after", "dulwich.client:LocalGitClient.send_pack", "sync")
    assert code == 130
    assert err == ("baton: interrupted after the import (2 events from 1 feed are in this clone's ledger), during "
                   "the push to origin: it may have been pushed (the remote can take a push before it answers); "
                   "run `baton sync` again: it finds out, and publishes what the remote lacks\n")
    assert "before anything was pushed" not in err
    again = run_json(capsys, b, "sync")
    assert again["refused"] == [] and not again["imported"]
    assert sum(run_json(capsys, a, "sync")["imported"].values()) == 2  # b's capture reached the remote


def test_a_ctrl_c_after_a_syncs_push_says_the_sync_is_done(capsys, tmp_path):
    remote, a, b = make_team(tmp_path)
    run_json(capsys, a, "checkpoint", "create", *TITLE)
    code, _out, err = interrupted(tmp_path, a, "before", "baton.commands.sync:clean_stale_pack_locks", "sync")
    assert code == 130
    assert err == (f"baton: interrupted after the push to {remote}: the sync is done, do not run it again (the "
                   "index catches up at the next command)\n")
    assert sum(run_json(capsys, b, "sync")["imported"].values()) == 2


def test_a_ctrl_c_during_a_rebuild_says_the_ledger_is_as_it_was_and_to_rebuild_again(capsys, tmp_path, project):
    run_json(capsys, project, "checkpoint", "create", *TITLE)
    code, _out, err = interrupted(tmp_path, project, "before", "baton.projections.runner:ProjectionRunner.rebuild",
                                  "rebuild")
    assert (code, err) == (130, "baton: interrupted before the index was rebuilt: the ledger is as it was; run "
                                "`baton rebuild` again\n")
    assert titles(capsys, project) == ["Parser plan"]


def test_a_ctrl_c_after_a_rebuild_replayed_the_ledger_says_it_is_done(tmp_path, project, capsys):
    run_json(capsys, project, "checkpoint", "create", *TITLE)
    code, _out, err = interrupted(tmp_path, project, "after", "baton.commands.rebuild:remove_leftover_temporaries",
                                  "rebuild")
    assert (code, err) == (130, "baton: interrupted after the index was rebuilt: that is done\n")


def test_the_next_command_in_the_same_process_does_not_inherit_what_the_last_one_did():
    from baton.process_end import DoneSoFar

    DoneSoFar.note("after something")
    DoneSoFar.forget()
    assert DoneSoFar.interrupted_line() == f"baton: interrupted {NOTHING_DONE}"

