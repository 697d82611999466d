"""``baton repair --yes`` killed (a real SIGKILL) at each step of its write
path, then run again: the one repair is finished exactly once — one
quarantine copy holding the lines set aside, one manifest, one
``ledger.repaired`` naming that copy, and the feed as an uninterrupted repair
leaves it (docs/ledger.md, "A repair killed mid-way").

The child is the real CLI; the test drives where it dies by wrapping the
function that does that step and sending the process SIGKILL there (no
exception, no cleanup, no ``finally``): before the copy, half-way through it,
before the feed is cut or rewritten, and right after.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import orjson
import pytest

from baton.ledger.integrity import REPAIRED_TYPE
from tests.conftest import run_baton
from tests.ledger_support import own_feed, write

CHILD = r"""
import os, signal, sys
from pathlib import Path

import baton.ledger.files as files
import baton.ledger.repair as repair
from baton.cli import main

step, project = sys.argv[1], sys.argv[2]


def die():
    os.kill(os.getpid(), signal.SIGKILL)


real_write_new, real_cut, real_replace = repair._write_new, files.cut, os.replace


def write_new(path, data, fsync, written):
    if path.name.endswith(".repair") and step == "before_copy":
        die()
    if path.name.endswith(".repair") and step == "mid_copy":
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        os.write(fd, data[: len(data) // 2])
        die()
    real_write_new(path, data, fsync, written)


def change(real):
    def changed(*args, **kwargs):
        if step == "before_change":
            die()
        real(*args, **kwargs)
        if step == "after_change":
            die()
    return changed


def replace(src, dst):
    if str(dst).endswith(".jsonl"):  # the rewritten feed renamed over the feed
        return change(real_replace)(src, dst)
    return real_replace(src, dst)


repair._write_new = write_new
files.cut = change(real_cut)
os.replace = replace
sys.exit(main(["repair", "--yes", "--project", project]))
"""

STEPS = ["before_copy", "mid_copy", "before_change", "after_change"]


def _garbage_between(project):
    """A line of garbage between two events: set aside alone, the feed rewritten (renamed over it)."""
    write(project, 4)
    feed = own_feed(project)
    lines = feed.read_bytes().splitlines(keepends=True)
    feed.write_bytes(b"".join(lines[:3] + [b"not an event at all\n"] + lines[3:]))
    return feed, b"".join(lines), b"not an event at all\n"


def _event_replaced(project):
    """An event whose bytes no longer hash: it and every line after it set aside, the feed cut."""
    write(project, 4)
    feed = own_feed(project)
    lines = feed.read_bytes().splitlines(keepends=True)
    lines[2] = lines[2].replace(b'"n":', b'"n":1', 1)
    feed.write_bytes(b"".join(lines))
    return feed, b"".join(lines[:2]), b"".join(lines[2:])


DAMAGE = {"rewrite": _garbage_between, "cut": _event_replaced}


def _killed_repair(project, step: str) -> None:
    child = subprocess.run([sys.executable, "-c", CHILD, step, str(project)], capture_output=True, timeout=120)
    assert child.returncode == -signal.SIGKILL, child.stderr.decode()


def _repaired_events(feed) -> list[dict]:
    return [e for e in map(orjson.loads, feed.read_bytes().splitlines()) if e["type"] == REPAIRED_TYPE]


@pytest.mark.slow
@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_repair_killed_at_any_step_is_finished_exactly_once_by_the_next_repair(project, damage, step):
    feed, kept, aside = DAMAGE[damage](project)
    _killed_repair(project, step)

    r = run_baton("repair", "--yes", "--json", "--project", str(project))
    out = json.loads(r.stdout)
    assert r.returncode == 0 and out["repaired"] is True and out["verified"] is True, r.stdout + r.stderr

    quarantine = project / ".baton" / "quarantine"
    [copy] = quarantine.glob("*.repair")
    [manifest] = quarantine.glob("*.manifest.json")
    assert copy.read_bytes() == aside
    assert manifest.name == copy.name.replace(".repair", ".manifest.json")
    [recorded] = _repaired_events(feed)
    assert recorded["data"]["quarantine"] == copy.name
    lines = feed.read_bytes().splitlines(keepends=True)
    assert b"".join(lines[:-1]) == kept and orjson.loads(lines[-1])["type"] == REPAIRED_TYPE
    assert run_baton("verify", "--project", str(project)).returncode == 0


@pytest.mark.slow
def test_a_third_repair_after_a_finished_one_changes_nothing(project):
    feed, _, _ = _garbage_between(project)
    _killed_repair(project, "after_change")
    assert run_baton("repair", "--yes", "--project", str(project)).returncode == 0
    before = feed.read_bytes()
    r = run_baton("repair", "--yes", "--project", str(project))
    assert r.returncode == 0 and "nothing to repair" in r.stdout
    assert feed.read_bytes() == before and len(_repaired_events(feed)) == 1


@pytest.mark.slow
def test_a_dry_run_after_a_kill_past_the_rewrite_says_what_it_would_record_and_changes_nothing(project):
    feed, _, _ = _garbage_between(project)
    _killed_repair(project, "after_change")
    before = feed.read_bytes()
    r = run_baton("repair", "--dry-run", "--project", str(project))
    assert r.returncode == 0, r.stderr
    assert "left this repair unrecorded; `--yes` records it" in r.stdout
    assert feed.read_bytes() == before and _repaired_events(feed) == []


@pytest.mark.slow
def test_a_repair_without_yes_after_a_kill_past_the_rewrite_refuses_and_names_the_copy(project):
    feed, _, _ = _garbage_between(project)
    _killed_repair(project, "after_change")
    r = run_baton("repair", "--project", str(project))
    assert r.returncode == 2 and "left unrecorded" in r.stderr and ".baton/quarantine/" in r.stderr
    assert _repaired_events(feed) == []


@pytest.mark.slow
@pytest.mark.parametrize("step", ["before_copy", "before_change", "after_change"])
def test_a_restore_from_the_ledger_ref_killed_at_any_step_is_finished_once_and_syncs(capsys, tmp_path, step):
    from tests.cli_support import run, run_json
    from tests.sync_support import checkpoint, make_team, remote_feeds, writer_of

    remote, a, _b = make_team(tmp_path)
    for i in range(3):
        checkpoint(capsys, a, f"a{i}")
    run_json(capsys, a, "sync")
    feed = a / ".baton" / "ledger" / f"{writer_of(a)}.jsonl"
    whole = feed.read_bytes()
    lines = whole.splitlines(keepends=True)
    lines[1] = b"garbage where seq 2 was\n"
    feed.write_bytes(b"".join(lines))
    _killed_repair(a, step)

    r = run_baton("repair", "--yes", "--json", "--project", str(a))
    assert r.returncode == 0, r.stdout + r.stderr
    assert feed.read_bytes().startswith(whole)
    [copy] = (a / ".baton" / "quarantine").glob("*.repair")
    assert copy.read_bytes() == b"garbage where seq 2 was\n"
    [recorded] = _repaired_events(feed)
    assert recorded["data"]["quarantine"] == copy.name
    assert run(capsys, a, "sync")[0] == 0
    assert remote_feeds(remote)[writer_of(a)].head.seq == whole.count(b"\n") + 1


@pytest.mark.parametrize("step", ["before_change", "after_change"])
def test_verify_after_a_killed_repair_shows_the_plan_the_next_repair_carries_out(project, step):
    """Killed before the feed changed, the repair is planned again; killed after, its record is
    what is left, and verify's plan is the next repair's (``decide_repair``'s ``settled``)."""
    DAMAGE["rewrite"](project)
    _killed_repair(project, step)
    said = json.loads(run_baton("verify", "--json", "--project", str(project)).stdout)["repair"]
    dry = json.loads(run_baton("repair", "--dry-run", "--json", "--project", str(project)).stdout)
    assert dry["feeds"] == [dict(plan, quarantine=None) for plan in said]
    assert [u["feed"] for u in dry["finished"]] == ([] if step == "before_change" else [own_feed(project).stem])
