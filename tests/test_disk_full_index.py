"""A disk with more than ``files.LOW_SPACE`` free but less than a replay of the
index needs (review18 V1: after a projection's version moved, every command
replays the ledger into the index, which needs about its size again): the write
SQLite refuses (``SQLITE_FULL``) makes the disk full for Baton, as if it had been
when the command began — reads answer from a replay in memory and say why once,
writes are refused with ``disk_full`` and what to do, ``doctor``'s disk check
names it, and a session start does not start again a catch-up in the background
that failed for want of room until the disk has more. Also review18 V2: a start
on a full disk whose ledger is too large to replay in its time says the disk is
full, not that ``.baton`` is read-only. docs/ledger.md, "A full disk".

The real-disk tests fill a small tmpfs mounted in a mount namespace of their own
(``unshare --mount``, as tests/test_disk_full.py does), and are skipped, saying
why, where this machine allows none."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from tests.test_disk_full import steps_in_a_mount_namespace

NO_ROOM_FOR_THE_INDEX = (
    'mount -t tmpfs -o size=24m tmpfs "$1" || exit 97; cd "$1" || exit 98; shift; '
    'B="$1"; shift; mkdir p; $B init --project p >/dev/null || exit 99; '
    'big=$(head -c 100000 /dev/zero | tr "\\0" a); '
    'for i in 1 2 3 4 5 6 7 8 9 10 11 12; do '
    '$B checkpoint create --no-input --title "Big $i" --objective "$big" --project p >/dev/null || exit 99; done; '
    'rm -f p/.baton/index.sqlite*; '  # the next command replays every event into a new index
    'fallocate -l $(( $(df -B1 --output=avail . | tail -1) - 2097152 )) fill || exit 97; '
    'for step in "$@"; do echo "== $step"; eval "$step"; echo "rc=$?"; done 2>&1')
"""In a mount namespace of its own: a 24 MB tmpfs on FOLDER, a project ``p`` on it with
twelve handoffs of 100 kB (an index of ~3 MB), its index removed, then the disk filled
to 2 MiB free (more than ``LOW_SPACE``, less than the replay needs); each step then
runs, its output after ``== STEP`` and its exit code after it (``B`` runs this Baton,
``PY`` this Python)."""


def _with_no_room_for_the_index(folder: Path, *steps: str) -> dict[str, tuple[str, int]]:
    if shutil.which("fallocate") is None:
        pytest.skip("`fallocate` is not installed: no full disk can be made here")
    return steps_in_a_mount_namespace(f"PY={sys.executable}; {NO_ROOM_FOR_THE_INDEX}", folder, *steps, timeout=600)


@pytest.mark.slow
def test_a_read_the_index_has_no_room_for_answers_from_a_replay_in_memory_and_says_why_once(tmp_path):
    [(text, code)] = _with_no_room_for_the_index(tmp_path, "$B handoff list --project p").values()
    assert code == 0, text
    assert "Big 12" in text
    assert text.count("is full (") == 1 and "too few for a write of the index" in text
    assert "this answer was read in memory" in text


@pytest.mark.slow
def test_a_write_the_index_has_no_room_for_is_refused_as_on_a_full_disk(tmp_path):
    step = "$B checkpoint create --no-input --title After --objective O --project p --json"
    steps = _with_no_room_for_the_index(tmp_path, step, "$B handoff list --project p")
    text, code = steps[step]
    assert code == 1
    assert '"code": "disk_full"' in text and "too few for a write of the index" in text
    assert "free space on that disk" in text
    listed, _ = steps["$B handoff list --project p"]
    assert "Big 12" in listed and "After" not in listed


@pytest.mark.slow
def test_a_replay_the_disk_has_no_room_for_gives_back_the_room_it_took(tmp_path):
    steps = _with_no_room_for_the_index(tmp_path, "$B status --project p", "ls p/.baton",
                                        "df -B1 --output=avail . | tail -1")
    assert "index.sqlite" not in steps["ls p/.baton"][0]
    assert int(steps["df -B1 --output=avail . | tail -1"][0].strip()) >= 2_000_000


@pytest.mark.slow
def test_doctor_names_the_disk_when_the_index_has_no_room(tmp_path):
    [(text, _code)] = _with_no_room_for_the_index(tmp_path, "$B doctor --project p").values()
    assert "fail  disk: the disk holding " in text and "too few for a write of the index" in text
    assert "index: replayed in memory (index.sqlite is not used: the disk holding .baton/ is full)" in text


START_TWICE = """
import sys, time
from baton.background import running
from baton.commands.context import Limits, Project
from baton.errors import BatonError
for start in (1, 2):
    opened = Project.open("p", limits=Limits(fold_limit=1000, read_wait=30, write_wait=30))
    try:
        opened.reading()
    except BatonError as exc:
        print(f"start {start}: {exc.code}: {exc.details.get('background_pid')}: {exc.message}")
    opened.close()
    while running(opened.paths.baton_dir)[0]:
        time.sleep(0.1)
"""
"""Two session starts whose fold limit (1 kB) hands the replay to a catch-up in the background."""


@pytest.mark.slow
def test_a_start_does_not_start_again_a_catch_up_that_failed_for_want_of_room(tmp_path):
    script = tmp_path / "start_twice.py"
    script.write_text(START_TWICE)
    (tmp_path / "disk").mkdir()
    [(text, _code)] = _with_no_room_for_the_index(tmp_path / "disk", f"$PY {script}").values()
    first, second = (line for line in text.splitlines() if line.startswith("start "))
    assert first.startswith("start 1: index_behind: ") and "in the background (pid" in first
    assert second.startswith("start 2: disk_full: None: the index could not be brought up to date in the "
                             "background: the disk holding ")
    assert "not tried again until that disk has more room" in second and "free space on that disk" in second


def test_a_start_on_a_full_disk_too_large_to_replay_in_its_time_says_the_disk_is_full(project, monkeypatch):
    from baton.commands.context import Limits, Project
    from baton.errors import DiskFull
    from baton.ledger import files

    for index in (project / ".baton").glob("index.sqlite*"):  # none to start from: a replay of the whole ledger
        index.unlink()
    monkeypatch.setattr(files, "disk_full", lambda path: f"the disk holding {path} is full (0 bytes free)")
    opened = Project.open(project, limits=Limits(fold_limit=1))
    try:
        with pytest.raises(DiskFull) as refused:
            opened.reading()
    finally:
        opened.close()
    assert refused.value.message.startswith(f"the disk holding {project / '.baton'} is full (0 bytes free), "
                                            "and a replay in memory of ")
    assert "read-only" not in refused.value.message and "free space on that disk" in refused.value.message


@pytest.mark.slow
def test_a_session_start_the_index_has_no_room_for_delivers_its_brief_read_from_memory(tmp_path):
    hook = ("echo '{\"session_id\":\"s1\",\"cwd\":\"'$PWD/p'\",\"hook_event_name\":\"SessionStart\","
            "\"source\":\"startup\"}' | BATON_HOOK_SERVER=0 $B hook claude-code SessionStart")
    [(text, code)] = _with_no_room_for_the_index(tmp_path, hook).values()
    assert code == 0, text
    assert "the disk holding .baton/ is full: this brief was read in memory (not from a written index)" in text
    assert "This is claude-code session `s1`" in text and "no brief was delivered" not in text
