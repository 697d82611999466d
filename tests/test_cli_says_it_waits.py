"""A command typed at a terminal says so when it must wait for the ledger
another process holds (a background catch-up replays a 100k-event ledger
for ~11 s: ``baton status`` sat silent that long). Hooks and pipes never
wait without limit, and print nothing of it."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from baton.cli_handlers.opened import say_waiting
from baton.ledger import Ledger
from tests.harness_support import catch_up_running, lock_held_elsewhere
from tests.sync_support import make_team

WAITING = b"baton: waiting for another baton process to let go of the ledger"


def _on_a_terminal(project, *args: str) -> tuple[subprocess.Popen, int]:
    """``baton ARGS`` with its stderr on a terminal (a pty), stdout a pipe."""
    master, slave = os.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "baton", *args], cwd=project, stdout=subprocess.PIPE,
                            stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    return proc, master


def _read_until(master: int, wanted: bytes, seconds: float = 60) -> bytes:
    seen = b""
    deadline = time.monotonic() + seconds
    while wanted not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the other end closed
                break
            if not chunk:
                break
            seen += chunk
    return seen


def test_a_command_at_a_terminal_says_it_waits_for_a_ledger_another_process_holds(project):
    with lock_held_elsewhere(project):
        proc, master = _on_a_terminal(project, "handoff", "list")
        said = _read_until(master, WAITING, seconds=30)
        waiting = proc.poll() is None
    try:
        assert WAITING in said and waiting  # said while it waited
        assert proc.wait(timeout=60) == 0  # the lock let go: the command ends as usual
    finally:
        os.close(master)


def _says_it_waits_once(project, *args: str) -> None:
    with lock_held_elsewhere(project):
        proc, master = _on_a_terminal(project, *args)
        said = _read_until(master, WAITING, seconds=30)
        waiting = proc.poll() is None
    try:
        assert WAITING in said and waiting
        assert proc.wait(timeout=60) == 0
        said += _read_until(master, b"never printed", seconds=1)
        assert said.count(WAITING) == 1
    finally:
        os.close(master)


@pytest.mark.parametrize("args", [("doctor",), ("rebuild",), ("gc", "--dry-run")], ids=lambda a: a[0])
def test_doctor_rebuild_and_gc_at_a_terminal_say_they_wait_for_the_ledger_lock(project, args):
    _says_it_waits_once(project, *args)


def test_sync_at_a_terminal_says_it_waits_for_the_ledger_lock(tmp_path):
    _remote, a, _b = make_team(tmp_path)
    _says_it_waits_once(a, "sync")


def test_a_command_at_a_terminal_with_the_ledger_free_says_nothing_of_waiting(project):
    proc, master = _on_a_terminal(project, "handoff", "list")
    try:
        assert proc.wait(timeout=60) == 0
        assert WAITING not in _read_until(master, WAITING, seconds=1)
    finally:
        os.close(master)


def test_held_elsewhere_tells_another_process_holding_the_lock_from_this_one(project):
    ledger = Ledger(project / ".baton", "probe00000000001")
    try:
        assert ledger.held_elsewhere() is False
        with lock_held_elsewhere(project):
            assert ledger.held_elsewhere() is True
        with ledger.locked():
            assert ledger.held_elsewhere() is False  # this instance's own hold
        assert ledger.held_elsewhere() is False
    finally:
        ledger.close()


def test_init_at_a_terminal_says_it_waits_for_the_ledger_lock(project):
    _says_it_waits_once(project, "init")


def test_init_in_a_pipe_waits_for_the_ledger_lock_in_silence(project):
    with lock_held_elsewhere(project):
        proc = subprocess.Popen([sys.executable, "-m", "baton", "init"], cwd=project, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        time.sleep(2)
        waiting = proc.poll() is None
    _out, err = proc.communicate(timeout=60)
    assert waiting and proc.returncode == 0
    assert WAITING not in err


def _said_while_waiting(project, *args: str) -> bytes:
    with lock_held_elsewhere(project):
        proc, master = _on_a_terminal(project, *args)
        said = _read_until(master, b"...", seconds=30)
    try:
        assert proc.wait(timeout=60) == 0
    finally:
        os.close(master)
    assert WAITING in said
    return said


def test_the_wait_at_a_terminal_names_no_catch_up_when_none_runs_and_how_to_find_the_holder(project):
    said = _said_while_waiting(project, "handoff", "list")
    assert b"catch-up" not in said
    assert b"lsof " + str(project / ".baton" / "ledger.lock").encode() in said


def test_the_wait_at_a_terminal_names_the_background_catch_up_that_runs(project):
    with catch_up_running(project) as pid:
        said = _said_while_waiting(project, "handoff", "list")
    assert f"a catch-up in the background, pid {pid}, replays a large one in seconds".encode() in said


def test_the_wait_hint_quotes_a_lock_path_with_a_space_so_it_can_be_pasted(capsys):
    say_waiting(lock=Path("/home/me/my project/.baton/ledger.lock"))
    assert "`lsof '/home/me/my project/.baton/ledger.lock'` names it: the process whose descriptor ends in W" in capsys.readouterr().err
