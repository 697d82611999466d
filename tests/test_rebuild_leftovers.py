"""A process killed between writing a materialized file's temporary copy and
renaming it leaves ``.baton/handoffs/.tmp.<pid>.<hex>`` behind, holding the
whole text (text a later ``forget`` may erase): ``verify`` and ``doctor`` name
it, ``baton rebuild`` removes it — only Baton's own temporary names, never a
link, never through one."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import run_baton

_STALL_RENAME = """
import os, sys, time
real = os.replace
def stall(src, dst, *args, **kwargs):
    if os.path.basename(str(src)).startswith(".tmp.") and os.path.basename(os.path.dirname(str(src))) == "handoffs":
        time.sleep(3600)  # killed here, after the copy is written, before the rename
    return real(src, dst, *args, **kwargs)
os.replace = stall
from baton.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _killed_mid_materialize(project: Path) -> Path:
    child = subprocess.Popen([sys.executable, "-c", _STALL_RENAME, "checkpoint", "create", "--project", str(project),
                              "--title", "Leftover", "--objective", "the secret plan text", "--no-input"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    folder = project / ".baton" / "handoffs"
    try:
        for _ in range(1200):  # up to 2 minutes on a busy machine
            found = [p for p in folder.glob(".tmp.*")] if folder.is_dir() else []
            if found and found[0].stat().st_size:
                break
            if child.poll() is not None:
                raise AssertionError("the writer ended before it was killed")
            time.sleep(0.1)
        else:
            raise AssertionError("no temporary file appeared")
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    [leftover] = found
    return leftover


def test_rebuild_removes_the_temporary_file_a_writer_killed_mid_materialize_left(project):
    leftover = _killed_mid_materialize(project)
    assert b"the secret plan text" in leftover.read_bytes()
    rel = f"handoffs/{leftover.name}"

    verified = json.loads(run_baton("verify", "--json", "--project", str(project)).stdout)
    assert verified["leftovers"] == [rel]
    assert f".baton/{rel}" in run_baton("verify", "--project", str(project)).stdout
    doctor = run_baton("doctor", "--project", str(project)).stdout
    assert "leftover temporary file" in doctor and "`baton rebuild` removes them" in doctor

    r = run_baton("rebuild", "--json", "--project", str(project))
    assert r.returncode == 0 and json.loads(r.stdout)["leftovers_removed"] == [rel]
    assert not leftover.exists()
    assert json.loads(run_baton("verify", "--json", "--project", str(project)).stdout)["leftovers"] == []


def test_rebuild_leaves_every_other_name_and_never_removes_a_link(project, tmp_path):
    handoffs = project / ".baton" / "handoffs"
    handoffs.mkdir(parents=True, exist_ok=True)
    dead = 2 ** 31 + 7  # a pid no process has
    kept = [handoffs / ".tmp.notes", handoffs / f"tmp.{dead}.0123abcd", handoffs / f".tmp.{dead}.0123abcd.json",
            project / ".baton" / f".tmp.{dead}.0123abcd"]
    for path in kept:
        path.write_text("not Baton's leftover\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / f".tmp.{dead}.89abcdef"
    target.write_text("someone else's file\n")
    (handoffs / f".tmp.{dead}.fedcba98").symlink_to(target)  # a link with a leftover's name
    mine = handoffs / f".tmp.{dead}.00ff00ff"
    mine.write_text("a leftover\n")

    r = run_baton("rebuild", "--json", "--project", str(project))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["leftovers_removed"] == [f"handoffs/{mine.name}"]
    assert not mine.exists()
    assert all(path.exists() for path in kept)
    assert target.read_text() == "someone else's file\n" and (handoffs / f".tmp.{dead}.fedcba98").is_symlink()


def test_a_temporary_file_of_a_running_process_is_not_a_leftover(project):
    handoffs = project / ".baton" / "handoffs"
    handoffs.mkdir(parents=True, exist_ok=True)
    live = handoffs / f".tmp.{os.getppid()}.0123abcd"  # this test's parent: running
    live.write_text("being written\n")
    r = run_baton("rebuild", "--json", "--project", str(project))
    assert r.returncode == 0 and json.loads(r.stdout)["leftovers_removed"] == []
    assert live.exists()
