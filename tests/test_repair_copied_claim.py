"""A repair past a damaged line also sets aside this clone's own events that build on
what it sets aside (docs/ledger.md, "`baton repair`", step 1): a project folder copied
with a damaged feed, whose first session start claimed a baton over the damage, is
repaired into a ledger that verifies (tester-use17 T11).

Real processes (``python -m baton``), real git, ``cp -a`` as a person runs it.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import run_baton


def baton(project: Path, *args: str, expect: int = 0, input: str | None = None) -> subprocess.CompletedProcess:
    done = run_baton(*args, "--project", str(project), input=input)
    assert done.returncode == expect, (done.returncode, done.stdout[-2000:], done.stderr[-2000:])
    assert "Traceback" not in done.stderr
    return done


def git(path: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(path), *args], check=True, capture_output=True)


def damage(feed: Path, line: int) -> None:
    """Garbage in place of one line in the middle (its newline kept)."""
    lines = feed.read_bytes().split(b"\n")
    lines[line] = b"garbage{" + lines[line][8:]
    feed.write_bytes(b"\n".join(lines))


def start(project: Path) -> subprocess.CompletedProcess:
    hook = {"session_id": "c1", "cwd": str(project), "hook_event_name": "SessionStart", "source": "startup"}
    return baton(project, "hook", "claude-code", "SessionStart", input=json.dumps(hook))


def writer(project: Path) -> str:
    return json.loads((project / ".baton" / "local.json").read_text())["writer"]


@pytest.fixture
def damaged_copy(tmp_path):
    """A project with three handed-on batons, copied with ``cp -a``; the copy's old feed
    then damaged in its fourth line."""
    original = tmp_path / "original"
    original.mkdir()
    git(original, "init", "-q", "-b", "main")
    git(original, "config", "user.email", "d@example.com")
    (original / "f").write_text("x\n")
    git(original, "add", "f")
    git(original, "commit", "-qm", "i")
    baton(original, "init")
    for i in (1, 2, 3):
        baton(original, "session", "end", f"s{i}", "--handoff-steps", f"step {i}")
    old = writer(original)
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-a", str(original), str(copy)], check=True)
    damage(copy / ".baton" / "ledger" / f"{old}.jsonl", 3)
    return copy


@pytest.fixture
def copied(damaged_copy):
    """``damaged_copy`` where a session start claimed the baton over the damage."""
    assert "step 3" in start(damaged_copy).stdout  # the hook answers from the index: it delivers and claims
    return damaged_copy


def test_a_repair_sets_aside_the_copys_claim_built_on_the_damaged_feed_and_the_ledger_verifies(copied):
    baton(copied, "repair", "--yes")
    baton(copied, "verify")


def test_the_copys_own_events_set_aside_are_kept_in_quarantine(copied):
    own = (copied / ".baton" / "ledger" / f"{writer(copied)}.jsonl").read_bytes()
    claim = next(line for line in own.splitlines() if b'"baton.claimed"' in line)
    baton(copied, "repair", "--yes")
    kept = b"".join(p.read_bytes() for p in (copied / ".baton" / "quarantine").glob(f"{writer(copied)}.*.repair"))
    assert claim in kept


def test_a_dry_run_names_the_own_events_that_build_on_what_is_set_aside(copied):
    shown = baton(copied, "repair", "--dry-run", "--json")
    plans = {p["feed"]: p for p in json.loads(shown.stdout)["feeds"]}
    own = plans[writer(copied)]
    assert [item["type"] for item in own["set_aside"]][0] == "baton.claimed"
    assert "which the repair sets aside from feed" in own["set_aside"][0]["reason"]


def test_verify_shows_the_same_plan_for_the_own_feed(copied):
    shown = baton(copied, "verify", expect=3)
    assert f"feed {writer(copied)} from byte 0" in shown.stdout


def test_the_copys_own_events_before_the_claim_are_kept(damaged_copy):
    baton(damaged_copy, "checkpoint", "create", "--title", "before", "--objective", "in the copy", "--no-input")
    start(damaged_copy)
    baton(damaged_copy, "repair", "--yes")
    baton(damaged_copy, "verify")
    own = (damaged_copy / ".baton" / "ledger" / f"{writer(damaged_copy)}.jsonl").read_bytes()
    assert b"in the copy" in own
    assert b'"baton.claimed"' not in own


def test_a_claim_already_synced_is_left_and_the_repair_says_why(copied, tmp_path):
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    git(copied, "remote", "add", "origin", str(remote))
    baton(copied, "sync", expect=3)  # the damaged feed is refused; this clone's own feed, with the claim, published
    repaired = baton(copied, "repair", "--yes", expect=3)
    assert f"a stream_gap left in feed {writer(copied)}" in repaired.stdout
    assert b'"baton.claimed"' in (copied / ".baton" / "ledger" / f"{writer(copied)}.jsonl").read_bytes()
