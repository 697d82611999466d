"""Eight real ``baton`` processes at a time — captures, validations, promotions,
amendments, session ends leaving batons, session starts claiming them,
rebuilds, repairs and forgets — with some killed by SIGKILL at a random moment
once they reach the feed write (``baton.ledger.files.write_all``, the one
write of their batch), an fsync, or the write of a materialized file (a
rebuild's too), and then what a kill must never break:

- the ledger verifies (a kill leaves at most a torn tail, never corruption);
- every event a command reported (exit 0, its ``events``) is in the ledger;
- the index folded command by command equals a full ``rebuild``, and the
  materialized files come back byte for byte;
- no baton is claimed twice, and every claim names a baton that was left.

Seeded, so a failure replays. The single-command kill loops are in
``tests/test_one_append.py`` and ``tests/test_ledger_crash.py``; the team
race over a shared remote is ``tests/test_sync_team_race.py``.
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from baton.commands.leftovers import LEFTOVER_NAME
from baton.ledger import Ledger
from baton.projections.registry import default_projections
from baton.projections.runner import ProjectionRunner
from tests.conftest import run_baton

pytestmark = pytest.mark.slow

KILLED_AT = str(Path(__file__).with_name("killed_sync.py"))
"""Runs the CLI and marks when a function is entered (named for its first use: sync phases)."""
WRITE_POINTS = ("baton.ledger.files.write_all", "os.fsync", "baton.projections.runner.write_bytes_atomic")
"""The feed's one write, an fsync (the feed's, a quarantine's, a repair's), a materialized file's write."""
SEED = 20261206
ROUNDS = 4
AT_ONCE = 8
TIMEOUT = 120
MATERIALIZED = ("handoffs", "batons")


def _argv(rng: random.Random, n: int, handoffs: list[str]) -> list[str]:
    kind = rng.choice(["capture", "capture", "end", "begin", "validate", "ready", "amend", "rebuild", "repair",
                       "forget"])
    picked = rng.choice(handoffs) if handoffs else None
    if kind == "end":
        return ["session", "end", f"end-{n}", "--owner", "al", "--branch", "main", "--handoff-steps", f"step {n}"]
    if kind == "begin":
        return ["session", "begin", f"begin-{n}", "--owner", "al", "--branch", "main"]
    if kind == "rebuild":
        return ["rebuild"]
    if kind == "repair":
        return ["repair", "--yes"]
    if picked is not None and kind == "validate":
        return ["handoff", "validate", picked]
    if picked is not None and kind == "ready":
        return ["handoff", "ready", "--accept-warnings", "chaos", picked]
    if picked is not None and kind == "amend":
        return ["handoff", "amend", picked, "--title", f"amended {n}"]
    if picked is not None and kind == "forget":
        return ["forget", picked, "--yes"]
    return ["checkpoint", "create", "--title", f"capture {n} ☃", "--objective", "survive kill -9", "--done",
            "it verifies", "--no-input"]


def _listed(project: Path) -> list[str]:
    done = run_baton("--json", "--project", str(project), "handoff", "list", "--limit", "0", timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    return [h["id"] for h in json.loads(done.stdout)["handoffs"]]


def _reported_events(out: str) -> set[str]:
    try:
        answer = json.loads(out)
    except ValueError:
        return set()
    listed = answer.get("events") if isinstance(answer, dict) else None
    return {e for e in listed if isinstance(e, str)} if isinstance(listed, list) else set()


def _round(project: Path, rng: random.Random, first: int, handoffs: list[str], tmp: Path) -> tuple[set[str], list]:
    running = []
    for n in range(first, first + AT_ONCE):
        argv = _argv(rng, n, handoffs)
        kill = rng.random() < 0.4
        marker = tmp / f"entered-{n}"
        point = rng.choice(WRITE_POINTS)
        cmd = [sys.executable, KILLED_AT, point, str(marker), "--json", "--project", str(project), *argv]
        running.append((argv, kill, marker, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                                            text=True)))
    deadline = time.monotonic() + TIMEOUT
    for _argv_, kill, marker, proc in running:
        if not kill:
            continue
        while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.002)
        if marker.exists():
            time.sleep(rng.uniform(0, 0.02))
        proc.send_signal(signal.SIGKILL)
    reported, problems = set(), []
    for argv, _kill, _marker, proc in running:
        out, err = proc.communicate(timeout=TIMEOUT)
        if "Traceback" in err or proc.returncode not in (0, 2, 3, 4, -signal.SIGKILL):
            problems.append((argv, proc.returncode, err[-2000:]))
        if proc.returncode == 3 and "corrupt" in err:
            problems.append((argv, "corrupt", err[-2000:]))
        if proc.returncode == 0:
            reported |= _reported_events(out)
    return reported, problems


def _snapshot(project: Path) -> tuple[dict, dict[str, bytes]]:
    baton = project / ".baton"
    runner = ProjectionRunner(baton, Ledger(baton, "inspector"), default_projections())
    try:
        docs = runner.snapshot()
    finally:
        runner.close()
    files = {}
    for folder in MATERIALIZED:
        if (baton / folder).is_dir():
            files.update({str(p.relative_to(baton)): p.read_bytes()
                          for p in sorted((baton / folder).rglob("*"))
                          if p.is_file() and not LEFTOVER_NAME.match(p.name)})
    return docs, files


LEFTOVER_FOLDERS = (*MATERIALIZED, "ledger", "quarantine")
"""Where a killed write leaves a temporary: the materialized files' ``.tmp.*``, a killed forget's
``ledger/.erase.*`` or ``quarantine/.forget.*``, a killed repair's ``ledger/.repair.*``."""


def _leftovers(project: Path) -> set[str]:
    """The temporaries a killed write left (``baton.commands.leftovers``): not projection output or
    ledger — ``verify`` names them and ``rebuild`` removes them."""
    baton = project / ".baton"
    return {str(p.relative_to(baton)) for folder in LEFTOVER_FOLDERS if (baton / folder).is_dir()
            for p in (baton / folder).iterdir() if LEFTOVER_NAME.match(p.name)}


def test_mixed_commands_killed_at_their_writes_leave_a_sound_ledger_an_equal_replay_and_no_double_claim(
        project, tmp_path):
    rng = random.Random(SEED)
    reported: set[str] = set()
    for r in range(ROUNDS):
        got, problems = _round(project, rng, r * AT_ONCE, _listed(project), tmp_path)
        assert not problems, problems
        reported |= got

    verified = run_baton("--project", str(project), "verify", "--json", timeout=TIMEOUT)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    left_behind = _leftovers(project)
    assert set(json.loads(verified.stdout)["leftovers"]) == left_behind, "verify does not name a killed write's leftover"

    events = list(Ledger(project / ".baton", "reader").read_all())
    assert reported, "no command reported an event"
    assert reported <= {e.id for e in events}, "an event a command reported is not in the ledger"

    left = {e.data["handoff_id"] for e in events if e.type == "baton.created" and e.data}
    claims = Counter(e.data["handoff_id"] for e in events if e.type == "baton.claimed" and e.data)
    assert [b for b, n in claims.items() if n > 1] == [], "a baton was claimed twice"
    assert set(claims) <= left, "a claim names no baton that was left"

    _listed(project)  # one more command: the index folds whatever the last round appended
    incremental = _snapshot(project)
    rebuilt = run_baton("--project", str(project), "rebuild", timeout=TIMEOUT)
    assert rebuilt.returncode == 0, rebuilt.stderr
    replayed = _snapshot(project)
    assert replayed[0] == incremental[0], "the incremental index differs from a full replay"
    assert replayed[1] == incremental[1], "the materialized files differ after a full replay"
    assert _leftovers(project) == set(), "rebuild left a killed write's temporary file"
