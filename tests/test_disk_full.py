"""On a full disk (tester-use18 T2): reading commands still read — from a replay
of the ledger in memory, a line a failed write cut short read around — and say
why once; a writing command is refused before it writes, saying the disk is
full and what to do; a write the disk refuses midway says so too (before: "could
not quarantine the torn tail", "cannot open the index … disk I/O error", and
nothing said the disk was full). docs/ledger.md, "A full disk".

The real-disk tests fill a small tmpfs mounted in a mount namespace of their
own (``unshare --mount``, as tests/test_gc_dry_run_read_only.py does for a
read-only mount), and are skipped, saying why, where this machine allows none."""

from __future__ import annotations

import errno
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from baton.errors import StorageError
from baton.ledger.envelope import EventDraft
from baton.ledger.store import Ledger

WRITER = "w1"


def _out_of_space(monkeypatch) -> None:
    """Every write of a file's bytes fails as on a full disk (ENOSPC)."""
    import baton.ledger.files as files

    def full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files, "write_all", full)


def _note(n: int) -> list[EventDraft]:
    return [EventDraft("test.noted", "test/1", {"n": n})]


def test_a_ledger_write_the_disk_refuses_says_the_disk_is_full_and_what_to_do(tmp_path, monkeypatch):
    ledger = Ledger(tmp_path / ".baton", WRITER, fsync="never")
    with ledger.locked() as txn:
        txn.append(_note(0), expected={"test/1": 0})
    _out_of_space(monkeypatch)
    with pytest.raises(StorageError) as refused:
        with ledger.locked() as txn:
            txn.append(_note(1), expected={"test/1": 1})
    assert refused.value.message.startswith("the disk is full: writing to ")
    assert "free space on that disk" in refused.value.message and "run the command again" in refused.value.message


def test_a_torn_tail_the_disk_has_no_room_to_set_aside_says_the_disk_is_full(tmp_path, monkeypatch):
    baton = tmp_path / ".baton"
    with Ledger(baton, WRITER, fsync="never").locked() as txn:
        txn.append(_note(0), expected={"test/1": 0})
    feed = baton / "ledger" / f"{WRITER}.jsonl"
    feed.write_bytes(feed.read_bytes() + b'{"v":1,')
    _out_of_space(monkeypatch)
    with pytest.raises(StorageError) as refused:
        with Ledger(baton, WRITER, fsync="never").locked() as txn:
            txn.append(_note(1), expected={"test/1": 1})
    assert refused.value.message.startswith("the disk is full: could not set aside the torn tail of ")
    assert "free space on that disk" in refused.value.message


FULL_TMPFS = ('mount -t tmpfs -o size=4m tmpfs "$1" || exit 97; cd "$1" || exit 98; shift; '
              'B="$1"; shift; mkdir p; $B init --project p >/dev/null || exit 99; '
              '$B checkpoint create --no-input --title Before --objective O --project p >/dev/null || exit 99; '
              'head -c 20000000 /dev/zero > fill 2>/dev/null; '
              'for step in "$@"; do echo "== $step"; eval "$step"; echo "rc=$?"; done 2>&1')
"""In a mount namespace of its own: a 4 MB tmpfs on FOLDER, a project ``p`` on it with
one handoff (``Before``), the disk then filled; each step then runs, its output
after ``== STEP`` and its exit code after it (``B`` runs this Baton)."""


def steps_in_a_mount_namespace(script: str, folder: Path, *steps: str, timeout: int = 300) -> dict[str, tuple[str, int]]:
    """Each step's output and exit code, run by ``script`` (``FULL_TMPFS``'s shape: exit 97 where no
    tmpfs can be mounted, then ``== STEP``, its output and ``rc=N`` for each) under ``unshare --mount``
    on FOLDER; the test is skipped, saying why, where this machine allows no tmpfs in a mount namespace."""
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("`unshare` is not installed: no full disk can be made here")
    baton = f"{sys.executable} -m baton"
    done = subprocess.run([unshare, "--mount", "--", "sh", "-c", script, "sh", str(folder), baton, *steps],
                          capture_output=True, text=True, timeout=timeout)
    if done.returncode == 97:
        pytest.skip(f"this machine allows no tmpfs in a mount namespace: {done.stderr.strip()[:200]}")
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr)
    found: dict[str, tuple[str, int]] = {}
    for part in done.stdout.split("== ")[1:]:
        step, _, rest = part.partition("\n")
        text, _, code = rest.rpartition("rc=")
        found[step] = (text, int(code.strip()))
    return found


def _on_a_full_disk(folder: Path, *steps: str) -> dict[str, tuple[str, int]]:
    """Each step's output and exit code on a full disk (``FULL_TMPFS``)."""
    return steps_in_a_mount_namespace(FULL_TMPFS, folder, *steps)


@pytest.mark.slow
def test_a_read_on_a_full_disk_answers_from_a_replay_in_memory_and_says_why_once(tmp_path):
    [(text, code)] = _on_a_full_disk(tmp_path, "$B handoff list --project p").values()
    assert code == 0, text
    assert "Before" in text
    assert text.count("is full (") == 1 and "this answer was read in memory" in text


@pytest.mark.slow
def test_a_write_on_a_full_disk_is_refused_saying_the_disk_is_full_and_what_to_do(tmp_path):
    steps = _on_a_full_disk(tmp_path, "$B checkpoint create --no-input --title After --objective O --project p --json",
                            "$B handoff list --project p")
    text, code = steps["$B checkpoint create --no-input --title After --objective O --project p --json"]
    assert code == 1
    assert '"code": "disk_full"' in text and "is full (" in text and "free space on that disk" in text
    listed, _ = steps["$B handoff list --project p"]
    assert "Before" in listed and "After" not in listed


@pytest.mark.slow
def test_a_torn_tail_on_a_full_disk_is_read_around_not_set_aside(tmp_path):
    torn = "for feed in p/.baton/ledger/*.jsonl; do rm fill; printf '{\"v\":1,' >> $feed; " \
           "head -c 20000000 /dev/zero > fill 2>/dev/null; done"  # a line cut short, then the disk full again
    steps = _on_a_full_disk(tmp_path, torn, "$B status --project p", "$B verify --project p")
    text, code = steps["$B status --project p"]
    assert code == 0, text
    assert "Before" in text and "quarantine" not in text
    verified, code = steps["$B verify --project p"]
    assert code == 0 and "torn tail" in verified


@pytest.mark.slow
def test_doctor_on_a_full_disk_fails_its_disk_check(tmp_path):
    [(text, _code)] = _on_a_full_disk(tmp_path, "$B doctor --project p").values()
    assert "fail  disk: the disk holding " in text and "free space on that disk" in text


def test_a_long_lived_process_that_found_the_disk_full_reopens_once_it_has_room(project, monkeypatch):
    from baton.commands.context import Project
    from baton.errors import DiskFull
    from baton.ledger import files

    full = True
    real = files.disk_full
    monkeypatch.setattr(files, "disk_full", lambda path: "the disk holding it is full (0 bytes free)" if full
                        else real(path))
    opened = Project.open(project)
    try:
        assert opened.read_only and opened.disk_full is not None
        with pytest.raises(DiskFull):
            opened.require_writable()
        assert not opened.must_reopen
        full = False  # space freed
        assert opened.must_reopen
    finally:
        opened.close()
