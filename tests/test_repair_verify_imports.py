"""``baton verify`` and ``baton repair`` on a damaged feed of a project that
never synced load no dulwich (about 140 ms of imports): the ledger ref's reader
is loaded only when the ref may be there (``baton.commands.synced_feed``)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.ledger_support import own_feed, write


def _loaded(project, *args: str) -> set[str]:
    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "baton", *args, "--project", str(project)],
                       capture_output=True, text=True)
    assert "Traceback" not in r.stderr
    return {line.split("|")[-1].strip() for line in r.stderr.splitlines() if "|" in line}


@pytest.mark.parametrize("in_git", [False, True], ids=["no git", "git, never synced"])
def test_verify_and_repair_of_a_damaged_own_feed_load_no_dulwich_when_nothing_was_synced(project, in_git):
    if in_git:
        subprocess.run(["git", "init", "-q", str(project)], check=True)
    write(project, 2)
    feed = own_feed(project)
    feed.write_bytes(feed.read_bytes() + b"garbage\n")
    for command in (("verify",), ("repair", "--dry-run")):
        loaded = _loaded(project, *command)
        assert "baton.commands.synced_feed" in loaded  # the module that asks the ledger ref
        assert not {name for name in loaded if name.startswith("dulwich")}, command
