"""A write the file system refuses part-way through a line (a file-size limit, ``ulimit -f``,
as the tester set it just above the feed's size: EFBIG; a full disk: ENOSPC) says plainly
that nothing was recorded, why in words, and to run the command again, the next write
setting aside the line it cut short; ``--json`` gives the code ``write_failed`` (tester27 T3).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

from tests.conftest import run_baton

WORDS = " ".join(f"w{n:05d}x" for n in range(1500))


def _project_with_a_long_feed(project: Path) -> Path:
    # A feed longer than the index's shared-memory file (32 KiB), so a limit just above the
    # feed's size lets the command open the index and fail only when it appends.
    r = run_baton("checkpoint", "create", "--no-input", "--title", "pad", "--objective", "o",
                  "--discovery", WORDS, WORDS, WORDS, WORDS, WORDS, "--project", str(project))
    assert r.returncode == 0, r.stderr
    [feed] = (project / ".baton" / "ledger").glob("*.jsonl")
    return feed


def _under_a_file_size_limit(limit: int, *args: str) -> subprocess.CompletedProcess:
    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run([sys.executable, "-m", "baton", *args], capture_output=True, text=True, timeout=120,
                          preexec_fn=limited, env=dict(os.environ))


def test_a_write_cut_short_by_a_file_size_limit_says_nothing_was_recorded_and_to_run_it_again(project: Path):
    feed = _project_with_a_long_feed(project)
    size = feed.stat().st_size
    r = _under_a_file_size_limit(size + 700, "checkpoint", "create", "--no-input", "--title", "big " + "y" * 3000,
                                 "--objective", "o", "--project", str(project))
    assert r.returncode == 1
    assert "nothing was recorded" in r.stderr and "Run the command again" in r.stderr
    assert "file-size limit" in r.stderr and "(EFBIG)" in r.stderr
    assert "must be reopened" not in r.stderr and "[Errno" not in r.stderr
    assert feed.stat().st_size > size  # a line was cut short there


def test_a_write_cut_short_gives_the_code_write_failed_in_json(project: Path):
    feed = _project_with_a_long_feed(project)
    r = _under_a_file_size_limit(feed.stat().st_size + 700, "--json", "checkpoint", "create", "--no-input",
                                 "--title", "big " + "y" * 3000, "--objective", "o", "--project", str(project))
    assert r.returncode == 1
    error = json.loads(r.stdout)["error"]
    assert error["code"] == "write_failed"
    assert error["details"]["errno"] == "EFBIG" and error["details"]["recorded"] is False
    assert error["message"].startswith("nothing was recorded")


def test_running_the_command_again_after_a_write_cut_short_records_it_and_sets_the_cut_line_aside(project: Path):
    feed = _project_with_a_long_feed(project)
    args = ("checkpoint", "create", "--no-input", "--title", "again", "--objective", "o", "--project", str(project))
    first = _under_a_file_size_limit(feed.stat().st_size + 200, *args, "--discovery", "y" * 3000)
    assert first.returncode == 1, first.stderr
    again = run_baton(*args, "--discovery", "y" * 3000)
    assert again.returncode == 0, again.stderr
    assert list((project / ".baton" / "quarantine").glob("*.torn"))
    verified = run_baton("verify", "--project", str(project))
    assert verified.returncode == 0, verified.stdout + verified.stderr
