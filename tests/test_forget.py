"""``baton forget``: one handoff's payloads erased for good, every chain intact (spec §16, issue 9 part 4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from baton.ledger.erase import erase_lines
from tests.cli_support import run, run_json

SECRET_TEXT = "PLANTED-BODY-TEXT-7f3a9c"


def leave_baton(capsys, project: Path, text: str = SECRET_TEXT) -> str:
    out = run_json(capsys, project, "session", "end", "s1", "--handoff-steps", f"{text} step",
                   "--owner", "al", "--branch", "main")
    return out["handoff"]["id"] if "handoff" in out else out["baton"]["id"]


def handoff_of_baton(capsys, project: Path) -> str:
    listed = run_json(capsys, project, "handoff", "list", "--kind", "all")["handoffs"]
    return next(h["id"] for h in listed if h["title"].startswith("Session baton"))


def files_holding(root: Path, text: str) -> list[str]:
    needle = text.encode()
    return [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


def feed_lines(project: Path) -> list[dict]:
    return [json.loads(line) for p in sorted((project / ".baton" / "ledger").glob("*.jsonl"))
            for line in p.read_bytes().splitlines()]


@pytest.fixture
def forgettable(capsys, project):
    run_json(capsys, project, "session", "end", "s1", "--handoff-steps", f"{SECRET_TEXT} step",
             "--owner", "al", "--branch", "main")
    run_json(capsys, project, "checkpoint", "create", "--title", "another handoff", "--objective", "stays put")
    return handoff_of_baton(capsys, project)


def test_without_yes_forget_shows_the_plan_and_changes_nothing(capsys, project, forgettable):
    before = [p.read_bytes() for p in (project / ".baton" / "ledger").glob("*.jsonl")]
    error = run_json(capsys, project, "forget", forgettable, expect=2)["error"]
    assert error["details"]["events"] and error["details"]["forgotten"] is False
    assert [p.read_bytes() for p in (project / ".baton" / "ledger").glob("*.jsonl")] == before


def test_after_forget_verify_and_rebuild_the_text_is_nowhere_under_baton(capsys, project, forgettable):
    quarantine = project / ".baton" / "quarantine"
    quarantine.mkdir(exist_ok=True)
    (quarantine / "w.1.torn").write_bytes(b'{"actor":null,"at":"x","data":{"handoff":{"next":"' + SECRET_TEXT.encode())
    (quarantine / "w.2.torn").write_bytes(b'{"actor":null,"at":"x","data":{"unrelated":"kept fragment"')
    assert files_holding(project / ".baton", SECRET_TEXT)
    run_json(capsys, project, "forget", forgettable, "--reason", "a user asked", "--yes")
    run_json(capsys, project, "verify")
    run_json(capsys, project, "rebuild")
    assert files_holding(project / ".baton", SECRET_TEXT) == []
    assert (quarantine / "w.2.torn").is_file()


def test_verify_reports_the_payloads_erased_by_forget_and_exits_0(capsys, project, forgettable):
    forgot = run_json(capsys, project, "forget", forgettable, "--yes")
    report = run_json(capsys, project, "verify")
    assert report["ok"] is True
    assert report["erased_by_forget"] == len(forgot["events"]) == 2
    code, out, _ = run(capsys, project, "verify")
    assert code == 0 and "2 payloads erased by forget" in out


def test_forget_records_handoff_forgotten_naming_every_erased_event(capsys, project, forgettable):
    forgot = run_json(capsys, project, "forget", forgettable, "--reason", "leaked", "--yes")
    recorded = [e for e in feed_lines(project) if e["type"] == "handoff.forgotten"]
    assert len(recorded) == 1
    assert recorded[0]["stream"] == f"handoff/{forgettable}"
    assert recorded[0]["data"] == {"handoff": forgettable, "events": forgot["events"], "reason": "leaked"}


def test_forget_erases_the_handoffs_events_and_the_batons_that_carried_it(capsys, project, forgettable):
    forgot = run_json(capsys, project, "forget", forgettable, "--yes")
    assert forgot["types"] == {"handoff.captured": 1, "baton.created": 1}
    erased = {e["id"] for e in feed_lines(project) if "data" not in e}
    assert erased == set(forgot["events"])


def test_forget_keeps_every_digest_hash_and_link(capsys, project, forgettable):
    before = {e["id"]: (e["digest"], e["hash"], e["prev"]) for e in feed_lines(project)}
    run_json(capsys, project, "forget", forgettable, "--yes")
    after = {e["id"]: (e["digest"], e["hash"], e["prev"]) for e in feed_lines(project)}
    assert {k: after[k] for k in before} == before


def test_a_forgotten_handoff_is_gone_from_lists_files_and_batons(capsys, project, forgettable):
    run_json(capsys, project, "forget", forgettable, "--yes")
    listed = run_json(capsys, project, "handoff", "list", "--kind", "all")["handoffs"]
    assert [h["title"] for h in listed] == ["another handoff"]
    assert run(capsys, project, "handoff", "show", forgettable)[0] == 4
    assert list((project / ".baton" / "batons").glob("*.json")) == []


def test_forgetting_a_handoff_twice_is_not_found(capsys, project, forgettable):
    run_json(capsys, project, "forget", forgettable, "--yes")
    assert run_json(capsys, project, "forget", forgettable, "--yes", expect=4)["error"]["code"] == "not_found"


def test_forgetting_an_unknown_handoff_is_not_found(capsys, project):
    assert run(capsys, project, "forget", "0000aaaa", "--yes")[0] == 4


def test_the_next_command_after_forget_works_from_the_rewritten_feed(capsys, project, forgettable):
    run_json(capsys, project, "forget", forgettable, "--yes")
    run_json(capsys, project, "checkpoint", "create", "--title", "after forget", "--objective", "go on")
    assert run_json(capsys, project, "verify")["ok"] is True


def test_erasing_keeps_a_torn_tail_and_every_other_line_byte_for_byte():
    kept = b'{"id":"keep-me","x":1}\n'
    raw = kept + b'{"actor":null,"data":{"a":1},"digest":"d","id":"gone"}\n' + b'{"torn'
    new, count = erase_lines(raw, frozenset({"gone"}))
    assert count == 0  # not an envelope: left alone rather than guessed at
    assert new == raw


def test_a_forget_that_fails_after_recording_can_be_run_again_to_finish(capsys, project, forgettable, monkeypatch):
    from baton.errors import StorageError

    def fail(*_a, **_k):
        raise StorageError("disk full")

    with monkeypatch.context() as patched:
        patched.setattr("baton.ledger.erase.erase_payloads", fail)
        assert run(capsys, project, "forget", forgettable, "--yes")[0] == 1
    assert run_json(capsys, project, "verify")["ok"] is True  # recorded, nothing erased yet
    again = run_json(capsys, project, "forget", forgettable, "--yes")
    assert again["forgotten"] is True and len(again["events"]) == 2
    assert files_holding(project / ".baton" / "ledger", SECRET_TEXT) == []


class _Terminal:
    def __init__(self, answer: str) -> None:
        self.answer = answer

    def isatty(self) -> bool:
        return True

    def readline(self) -> str:
        return self.answer

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


@pytest.mark.parametrize("answer, code", [("y\n", 0), ("n\n", 2), ("\n", 2)])
def test_on_a_terminal_forget_asks_and_only_yes_erases(capsys, project, forgettable, monkeypatch, answer, code):
    monkeypatch.setattr("sys.stdin", _Terminal(answer))
    monkeypatch.setattr("sys.stderr", _Terminal(""))
    assert run(capsys, project, "forget", forgettable)[0] == code
    assert bool(files_holding(project / ".baton" / "ledger", SECRET_TEXT)) == (code != 0)


class _RecordingTerminal(_Terminal):
    def __init__(self, answer: str) -> None:
        super().__init__(answer)
        self.written: list[str] = []

    def write(self, text: str) -> int:
        self.written.append(text)
        return len(text)


def test_on_a_terminal_forget_asks_without_saying_nothing_was_changed(capsys, project, forgettable, monkeypatch):
    err = _RecordingTerminal("")
    monkeypatch.setattr("sys.stdin", _Terminal("n\n"))
    monkeypatch.setattr("sys.stderr", err)
    run(capsys, project, "forget", forgettable)
    asked = "".join(err.written)
    assert "would erase the payloads" in asked and "[y/N]" in asked
    assert "pass --yes" not in asked.split("[y/N]")[0]


def test_verify_says_one_payload_in_the_singular(capsys, project):
    run_json(capsys, project, "checkpoint", "create", "--title", "one event", "--objective", "erase it")
    hid = run_json(capsys, project, "handoff", "list")["handoffs"][0]["id"]
    run_json(capsys, project, "forget", hid, "--yes")
    code, out, _ = run(capsys, project, "verify")
    assert code == 0 and "1 payload erased by forget" in out


def test_forget_names_the_handoffs_derived_from_it_that_keep_a_copy(capsys, project):
    # A fork or an amendment copies its parent's content into its own record;
    # forgetting the parent cannot reach those copies, so it says which they are.
    parent = run_json(capsys, project, "checkpoint", "create", "--no-input", "--title", "parent",
                      "--objective", f"holds {SECRET_TEXT}")["id"]
    fork = run_json(capsys, project, "fork", parent, "--label", "a")["id"]
    grandchild = run_json(capsys, project, "fork", fork, "--label", "b")["id"]
    unrelated = run_json(capsys, project, "checkpoint", "create", "--no-input", "--title", "other",
                         "--objective", "o")["id"]

    plan = run_json(capsys, project, "forget", parent, expect=2)["error"]["details"]
    assert plan["derived"] == sorted([fork, grandchild])
    done = run_json(capsys, project, "forget", parent, "--yes")
    assert done["derived"] == sorted([fork, grandchild]) and unrelated not in done["derived"]
    code, out, _err = run(capsys, project, "forget", fork, "--yes")
    assert code == 0 and "derived from it" in out and grandchild[-8:] in out
    assert run_json(capsys, project, "forget", unrelated, "--yes")["derived"] == []


def test_a_fork_of_a_forgotten_handoff_validates_with_a_warning_not_a_failure(capsys, project):
    # The parent's capture is erased on record (handoff.forgotten): the child's
    # lineage names a known past, not a dangling id, so it can still be made
    # ready (the warn needs a reason, as any warn does).
    item = json.dumps({"description": "d", "suggested_action": "a", "acceptance_check": "c"})
    parent = run_json(capsys, project, "checkpoint", "create", "--no-input", "--title", "parent",
                      "--objective", "o", "--current-state", "s", "--open-item", item)["id"]
    fork = run_json(capsys, project, "fork", parent, "--label", "a")["id"]
    run_json(capsys, project, "forget", parent, "--yes")

    report = run_json(capsys, project, "handoff", "validate", fork)["report"]
    lineage = next(c for c in report["checks"] if c["name"] == "lineage")
    assert lineage["status"] == "warn" and "erased by `baton forget`" in lineage["detail"]
    assert report["status"] == "warn"
    assert run_json(capsys, project, "handoff", "ready", fork, "--accept-warnings", "parent forgotten")[
        "status"] == "ready"


def test_forget_without_yes_off_a_terminal_names_the_derived_handoffs_in_its_text(capsys, project):
    # The plan refused for want of --yes is the only plan a script sees: it
    # says which derived handoffs keep a copy, as the terminal prompt does.
    parent = run_json(capsys, project, "checkpoint", "create", "--no-input", "--title", "parent",
                      "--objective", "o")["id"]
    fork = run_json(capsys, project, "fork", parent, "--label", "a")["id"]
    code, _out, err = run(capsys, project, "forget", parent)
    assert code == 2 and "pass --yes" in err and "derived from it" in err and fork[-8:] in err
    plan = run_json(capsys, project, "forget", parent, expect=2)["error"]
    assert "derived from it" not in plan["message"] and plan["details"]["derived"] == [fork]


KILLED_MID_FORGET = """
import os, signal, sys
from baton.ledger import erase
from baton.cli import main

def die(*_a, **_k):
    os.kill(os.getpid(), signal.SIGKILL)  # kill -9 right after handoff.forgotten is appended

erase.erase_payloads = die
main(["forget", sys.argv[2], "--yes", "--project", sys.argv[1]])
"""


def _forget_killed_after_its_record(project: Path, handoff: str) -> None:
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-c", KILLED_MID_FORGET, str(project), handoff], env=env,
                          capture_output=True, timeout=120)
    assert done.returncode == -9, done.stderr.decode()


def test_a_forget_killed_before_its_erasure_is_named_by_verify_and_doctor_until_run_again(
        capsys, project, forgettable):
    """A ``kill -9`` between the ``handoff.forgotten`` append and the rewrite
    leaves the text everywhere; before, verify, doctor and status said nothing
    and the baton was still handed to the next session with the text the
    user asked to forget. Now verify and doctor name the handoff and the way
    to finish; a second forget does, and the notice goes."""
    _forget_killed_after_its_record(project, forgettable)
    assert files_holding(project / ".baton" / "ledger", SECRET_TEXT)
    verified = run_json(capsys, project, "verify")
    assert verified["ok"] is True
    assert verified["unfinished_forgets"] == [{"handoff": forgettable, "payloads": 2}]
    code, out, _ = run(capsys, project, "verify")
    assert code == 0 and f"unfinished forget of handoff {forgettable}" in out and "baton forget" in out
    doctor = run_json(capsys, project, "doctor", expect=0)
    warned = [c for c in doctor["checks"] if c["name"] == "forget"]
    assert warned and warned[0]["status"] == "warn" and forgettable in warned[0]["detail"]
    assert warned[0]["handoff"] == forgettable
    run_json(capsys, project, "forget", forgettable, "--yes")
    assert files_holding(project / ".baton" / "ledger", SECRET_TEXT) == []
    assert run_json(capsys, project, "verify")["unfinished_forgets"] == []
    assert not [c for c in run_json(capsys, project, "doctor")["checks"] if c["name"] == "forget"]


def test_doctor_s_advice_on_an_interrupted_forget_is_a_command_that_finishes_it_when_pasted(project, forgettable):
    """Off a terminal (a script, an agent), ``forget`` without ``--yes`` refuses: the
    command doctor gives has it, and run as given, finishes the forget."""
    import shlex

    from tests.conftest import run_baton

    _forget_killed_after_its_record(project, forgettable)
    said = run_baton("doctor", cwd=project)
    [line] = [line for line in said.stdout.splitlines() if f"the forget of handoff {forgettable}" in line]
    advised = line.rsplit("`", 2)[-2]
    assert advised == f"baton forget {forgettable} --yes"
    done = run_baton(*shlex.split(advised)[1:], cwd=project)
    assert done.returncode == 0, done.stderr
    assert files_holding(project / ".baton" / "ledger", SECRET_TEXT) == []
    assert f"the forget of handoff {forgettable}" not in run_baton("doctor", cwd=project).stdout


@pytest.mark.parametrize("on_disk", [False, True])
def test_an_unfinished_forget_is_counted_alike_whichever_memory_verify_keeps(capsys, project, forgettable,
                                                                            monkeypatch, on_disk):
    from baton.ledger import verify as verify_module

    _forget_killed_after_its_record(project, forgettable)
    monkeypatch.setattr(verify_module, "SPILL_BYTES", -1 if on_disk else 1 << 40)
    report = verify_module.verify_ledger(project / ".baton" / "ledger", erasure_type="handoff.forgotten")
    assert report.unfinished_forgets == {forgettable: 2}


def test_a_forget_whose_record_cannot_be_folded_still_erases(capsys, project, forgettable, monkeypatch):
    """The fold of ``handoff.forgotten`` failing (a full disk: seen on a small
    tmpfs) left the text in place and said the command was done and not to
    run it again; the index is deleted and rebuilt after the erasure anyway,
    so the forget goes on and erases."""
    import sqlite3

    from baton.projections.runner import ProjectionRunner

    real = ProjectionRunner._commit

    def full(self, *args, **kwargs):
        monkeypatch.setattr(ProjectionRunner, "_commit", real)  # once: the fold of the record
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(ProjectionRunner, "_commit", full)
    done = run_json(capsys, project, "forget", forgettable, "--yes")
    assert done["forgotten"] is True
    assert files_holding(project / ".baton", SECRET_TEXT) == []
    assert run_json(capsys, project, "verify")["unfinished_forgets"] == []


def test_forgets_plan_holds_the_handoffs_events_not_the_whole_ledger(capsys, project, forgettable):
    """At 100,000 events ``forget``'s plan held every event: 777 MB and 17 s, now 126 MB and 4 s."""
    import tracemalloc

    from baton.app import Baton
    from baton.ledger import Ledger
    from baton.ledger.envelope import EventDraft

    other = Ledger(project / ".baton", "otherwriter00001", fsync="never")
    for n in range(800):
        with other.locked() as txn:
            txn.append([EventDraft("note.added", f"note/{n % 4}", {"n": n, "text": "x" * 20_000})])
    other.close()
    ledger_bytes = sum(p.stat().st_size for p in (project / ".baton" / "ledger").glob("*.jsonl"))
    run(capsys, project, "handoff", "list")  # the index folds them first: the plan is all that is measured
    with Baton.open(project) as app:
        tracemalloc.start()
        plan = app.forget(forgettable, yes=False)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert plan.plan.events and not plan.done
    assert peak * 2 < ledger_bytes  # a chunk of each feed, and what loading the command costs


def test_a_confirmed_forget_at_a_terminal_shows_the_progress_of_its_rebuild(capsys, project, forgettable,
                                                                            monkeypatch):
    """The rebuild after the erasure is a whole replay (~15 s at 100,000 events): silent before."""
    import sys

    from baton.projections import runner as runner_module
    from tests.test_cli_shows_a_long_catch_up import CATCHING_UP, _Terminal

    terminal = _Terminal()
    monkeypatch.setattr(runner_module, "REPLAY_BATCH", 3)
    monkeypatch.setattr(sys, "stderr", terminal)
    code, _, _ = run(capsys, project, "forget", forgettable, "--yes")
    assert code == 0 and CATCHING_UP in terminal.getvalue()
