"""The system calls a long-lived writer's durable single-event append makes,
read from ``strace`` of a real process: seven, each for a guarantee another
test holds it to (docs/performance.md, "The durable append, fifth pass"):

- ``flock(LOCK_EX)`` of the kept lock file: what orders writers;
- a ``stat`` of the lock file's path: the path still names the file locked
  (``test_ledger_append_path.py``: renamed aside, replaced, deleted, the
  project moved and copied back);
- a ``stat`` of the ledger folder: no feed added, removed or replaced since
  the kept listing (``test_a_feed_added_after_a_reused_listing_...``,
  ``test_a_settled_writer_s_feed_replaced_...``, ``test_ledger_checks.py``'s
  folder that went away);
- an ``lseek`` of the writer's own feed: what another process of the same
  writer appended (``test_a_settled_writer_sees_what_another_process_...``);
- the ``write`` and its ``fsync`` (``test_ledger_durability.py``);
- ``flock(LOCK_UN)``: the next writer's turn.

A call added to this path fails here; one taken away fails here and in the
test of what it protects."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

pytestmark = [
    pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace"),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="strace is Linux's"),
]

WRITER = r"""
import os, sys, time
from pathlib import Path
from baton.ledger import EventDraft, Ledger

ledger = Ledger(Path(sys.argv[1]), "w1", fsync="always")


def append(n):
    with ledger.locked() as txn:
        txn.append([EventDraft("test.noted", "test/1", {"n": n})])


n, deadline = 0, time.monotonic() + 30
while ledger._listing.kept is None:  # until the folder's listing settles (baton.ledger.listing)
    assert time.monotonic() < deadline, "the ledger folder's listing never settled"
    append(n)
    n += 1
    time.sleep(0.01)  # the file system's clock moves on
for n in range(n, n + 2):  # a lock under the settled listing maps the writer's own feed: then no stat of it
    append(n)
os.access("/baton-strace-mark-start", os.F_OK)
for n in range(n + 1, n + 6):
    append(n)
os.access("/baton-strace-mark-end", os.F_OK)
"""

STATS = {"stat", "stat64", "newfstatat", "fstatat64", "statx", "lstat"}
NOT_THE_APPEND_S = {"brk", "mmap", "munmap", "mremap", "madvise", "getrandom"}
"""The allocator's calls, and ``getrandom`` once per 64 ids (``baton.ledger.ids``): when they
fall on an append depends on what ran before it, not on what an append must check."""


def syscalls_between_marks(trace: str) -> list[str]:
    calls, inside = [], False
    for line in trace.splitlines():
        name = line.split("(", 1)[0].strip()
        if "/baton-strace-mark-start" in line:
            inside = True
        elif "/baton-strace-mark-end" in line:
            break
        elif inside and name and not line.startswith(("+++", "---")) and name not in NOT_THE_APPEND_S:
            if name == "flock":
                name += "(LOCK_UN)" if "LOCK_UN" in line else "(LOCK_EX)"
            calls.append("stat" if name in STATS else name)
    return calls


def test_a_long_lived_writer_s_durable_append_makes_seven_system_calls(tmp_path):
    probe = subprocess.run(["strace", "-o", "/dev/null", sys.executable, "-c", "pass"], capture_output=True)
    if probe.returncode != 0:  # a container without ptrace
        pytest.skip(f"strace cannot trace here: {probe.stderr.decode(errors='replace').strip()}")
    done = subprocess.run(
        ["strace", "-o", str(tmp_path / "trace.txt"), sys.executable, "-c", WRITER, str(tmp_path / ".baton")],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    calls = syscalls_between_marks((tmp_path / "trace.txt").read_text())
    one = ["flock(LOCK_EX)", "stat", "stat", "lseek", "write", "fsync", "flock(LOCK_UN)"]
    assert calls == one * 5
