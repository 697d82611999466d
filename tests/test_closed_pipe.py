"""A reader that stops reading ends the output, not the command (docs/cli.md, "Exit codes";
``baton.process_end``): real ``baton`` processes writing into real pipes whose reader has gone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from baton.ledger import Ledger
from baton.ledger.envelope import EventDraft
from tests.conftest import run_baton

OTHER_WRITER = "aaaaaaaaaaaaaaa1"
EVENTS = 1000
"""~1.6 KB each: the log, as text too, is well over a pipe's 64 KiB, so a writer must find the reader gone."""
PIPE_CAPACITY = 64 * 1024


def _baton(*args: str) -> list[str]:
    return [sys.executable, "-m", "baton", *args]


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A project whose other writer appended ``EVENTS`` notes of ~1.6 KB."""
    root = tmp_path_factory.mktemp("piped")
    assert run_baton("init", "--project", str(root)).returncode == 0
    other = Ledger(root / ".baton", OTHER_WRITER, fsync="never")
    for n in range(EVENTS):
        with other.locked() as txn:
            txn.append([EventDraft("note.added", f"note/{n % 4}", {"n": n, "text": "x" * 1500})])
    other.close()
    assert run_baton("log", "--limit", "1", "--project", str(root)).returncode == 0
    return root


def _into_closed_pipe(*args: str, errors_too: bool = False) -> tuple[int, str]:
    """Run ``baton ARGS`` with standard output (and with ``errors_too`` standard error) a pipe
    whose reading end was closed before it started; returns (exit status, what it said on
    stderr when that was not the pipe)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(_baton(*args), stdout=write_end, stderr=write_end if errors_too else subprocess.PIPE,
                              timeout=120)
    finally:
        os.close(write_end)
    return done.returncode, (done.stderr or b"").decode()


def _into_one_byte_reader(*args: str) -> tuple[int, bytes, str]:
    """Run ``baton ARGS`` into a reader that takes one byte and closes the pipe; returns
    (exit status, the byte read, stderr)."""
    child = subprocess.Popen(_baton(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert child.stdout is not None and child.stderr is not None
    first = child.stdout.read(1)
    child.stdout.close()
    err = child.stderr.read().decode()
    child.stderr.close()
    return child.wait(timeout=120), first, err


@pytest.mark.parametrize("flags", [["--json"], []], ids=["json", "text"])
def test_log_into_a_reader_that_closes_after_one_byte_ends_quietly_with_status_0(project, flags):
    whole = run_baton("log", "--limit", "0", *flags, "--project", str(project))
    assert whole.returncode == 0 and len(whole.stdout.encode()) > 2 * PIPE_CAPACITY  # the reader must be missed
    code, first, err = _into_one_byte_reader("log", "--limit", "0", *flags, "--project", str(project))
    assert first == whole.stdout.encode()[:1]
    assert (code, err) == (0, "")


def test_an_error_whose_json_goes_into_a_closed_pipe_exits_with_its_own_status_and_says_only_the_error():
    code, err = _into_closed_pipe("status", "--json", "--project", "/nonexistent")
    assert code == 4
    assert err == "baton: /nonexistent is not a Baton project: no such directory\n"


def test_an_error_whose_output_and_message_go_into_a_closed_pipe_exits_with_its_own_status():
    code, _ = _into_closed_pipe("status", "--json", "--project", "/nonexistent", errors_too=True)
    assert code == 4


def test_a_log_error_into_a_closed_pipe_exits_with_its_own_status(project):
    code, err = _into_closed_pipe("log", "--json", "--limit", "-1", "--project", str(project))
    assert code == 2 and "Traceback" not in err and "Exception ignored" not in err


def test_a_command_whose_reader_has_gone_still_does_its_work(tmp_path):
    assert run_baton("init", "--project", str(tmp_path)).returncode == 0
    code, err = _into_closed_pipe("checkpoint", "create", "--title", "written anyway", "--objective", "o",
                                  "--no-input", "--json", "--project", str(tmp_path))
    assert (code, err) == (0, "")
    listed = json.loads(run_baton("handoff", "list", "--json", "--project", str(tmp_path)).stdout)
    assert [h["title"] for h in listed["handoffs"]] == ["written anyway"]


def test_a_failing_result_printed_into_a_closed_pipe_keeps_the_commands_own_status(tmp_path):
    root = tmp_path / "damaged"
    root.mkdir()
    assert run_baton("init", "--project", str(root)).returncode == 0
    other = Ledger(root / ".baton", OTHER_WRITER, fsync="never")
    for n in range(3):
        with other.locked() as txn:
            txn.append([EventDraft("note.added", "note/0", {"n": n})])
    other.close()
    feed = root / ".baton" / "ledger" / f"{OTHER_WRITER}.jsonl"
    feed.write_bytes(feed.read_bytes().replace(b'"n":1}', b'"n":7}'))  # a payload changed behind its digest
    assert run_baton("verify", "--json", "--project", str(root)).returncode == 3
    code, err = _into_closed_pipe("verify", "--json", "--project", str(root))
    assert (code, err) == (3, "")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
@pytest.mark.parametrize("argv", [["status", "--json"], ["verify", "--json"], ["status", "--json", "--project", "/nonexistent"]],
                         ids=["status", "verify", "an-error"])
def test_json_into_a_full_device_says_so_on_one_line_never_a_traceback(project, argv):
    """Standard output that fails with another error than a gone reader (``> /dev/full``: ENOSPC):
    the one stderr line, no second attempt at writing the error's JSON there, no traceback."""
    words = argv if "--project" in argv else [*argv, "--project", str(project)]
    with open("/dev/full", "w") as full:
        done = subprocess.run(_baton(*words), stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and done.stderr.startswith("baton: ")
    assert done.returncode == (4 if "/nonexistent" in argv else 1)
