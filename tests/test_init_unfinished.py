"""``baton init`` completes, or leaves nothing that looks initialised (tester27 T4).

Before, an init refused on a full disk left ``config.json``, ``local.json`` and
``ledger/`` with no ``project.initialized`` event: ``verify`` said "0 events",
``doctor`` all ok, and captures went on in a project no event began. Now an
init that fails removes what it made in a folder that had no project, and one
killed before it recorded the event leaves ``.baton/init.pending``, for which
every other command says to run ``baton init`` again — which completes it. Real
processes: the full disk is injected at the write (``files.write_all`` raising
ENOSPC, as tests/test_disk_full.py does), the kill is a real SIGKILL."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run_baton

FULL_DISK = """
import errno, sys
import baton.ledger.files as files
def full(fd, data):
    raise OSError(errno.ENOSPC, "No space left on device")
files.write_all = full
from baton.cli_run import main
sys.exit(main(sys.argv[1:]))
"""

KILLED_BEFORE_THE_EVENT = """
import os, signal, sys
import baton.commands.init as init
def killed(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)
init.record = killed
from baton.cli_run import main
sys.exit(main(sys.argv[1:]))
"""


def run_with(script: str, folder: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", script, *args, "--project", str(folder)], capture_output=True,
                          text=True, timeout=120)


def events(folder: Path) -> list[dict]:
    return [json.loads(line) for feed in sorted((folder / ".baton" / "ledger").glob("*.jsonl"))
            for line in feed.read_bytes().splitlines()]


@pytest.fixture
def folder(tmp_path) -> Path:
    made = tmp_path / "proj"
    made.mkdir()
    return made


def test_an_init_refused_on_a_full_disk_leaves_no_baton_folder(folder):
    r = run_with(FULL_DISK, folder, "init", "--json")

    assert r.returncode == 1 and "the disk is full" in json.loads(r.stdout)["error"]["message"]
    assert not (folder / ".baton").exists()


def test_after_an_init_refused_on_a_full_disk_every_command_says_to_run_init(folder):
    run_with(FULL_DISK, folder, "init")

    for command in (["verify"], ["checkpoint", "create", "--no-input", "--title", "t", "--objective", "o"]):
        r = run_baton(*command, "--project", str(folder))
        assert r.returncode == 4 and "run `baton init`" in r.stderr, (command, r.stdout, r.stderr)
    assert "not initialised; run `baton init`" in run_baton("doctor", "--project", str(folder)).stdout
    assert run_baton("init", "--project", str(folder)).returncode == 0
    assert events(folder)[0]["type"] == "project.initialized"


def test_an_init_refused_on_a_full_disk_keeps_a_committed_config(folder):
    (folder / ".baton").mkdir()
    committed = b'{\n  "project_id": "01a251cc-3b6e-7107-853f-b8fb24979889"\n}\n'
    (folder / ".baton" / "config.json").write_bytes(committed)

    assert run_with(FULL_DISK, folder, "init").returncode == 1

    assert (folder / ".baton" / "config.json").read_bytes() == committed


def test_an_init_killed_before_its_event_leaves_every_command_saying_to_run_init_again(folder):
    assert run_with(KILLED_BEFORE_THE_EVENT, folder, "init").returncode == -9
    assert (folder / ".baton" / "config.json").is_file() and (folder / ".baton" / "init.pending").exists()

    for command in (["verify"], ["status"], ["checkpoint", "create", "--no-input", "--title", "t", "--objective", "o"]):
        r = run_baton(*command, "--json", "--project", str(folder))
        assert r.returncode == 4, (command, r.stdout, r.stderr)
        error = json.loads(r.stdout)["error"]
        assert error["code"] == "not_initialized" and "run `baton init` again" in error["message"]
    doctor = run_baton("doctor", "--project", str(folder))
    assert doctor.returncode != 0 and "run `baton init` again" in doctor.stdout
    assert events(folder) == []  # nothing captured into the half-made project


def test_init_again_completes_a_killed_init(folder):
    run_with(KILLED_BEFORE_THE_EVENT, folder, "init")
    project_id = json.loads((folder / ".baton" / "config.json").read_bytes())["project_id"]

    r = run_baton("init", "--json", "--project", str(folder))

    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["project_id"] == project_id
    assert not (folder / ".baton" / "init.pending").exists()
    first = events(folder)[0]
    assert first["type"] == "project.initialized" and first["data"]["project_id"] == project_id
    assert run_baton("checkpoint", "create", "--no-input", "--title", "t", "--objective", "o",
                     "--project", str(folder)).returncode == 0
