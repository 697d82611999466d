"""RACE and CRASH: a team's clones syncing one remote at once, some syncs killed (docs/sync.md).

Four clones, each a real ``baton`` process at a time, run a person's day in
a loop — capture, validate and ready a handoff; leave a baton; start a
session that claims one — and ``baton sync`` after each step, all at once,
against one remote reached by a bare path, a ``file://`` URL or smart HTTP.
In the crash runs about half of the syncs are killed with SIGKILL inside a
phase picked at random (fetch, import, commit, the state files, push). A
sync afterwards must work, or stop with a clear message naming the way back
(a lock file a killed process left: its path and the ``rm`` that removes it)
— never a traceback. Once every clone has synced twice with nothing running
they must have converged (``tests.team_support.converged``).

Seeds are fixed; the threads' interleaving is not, so each run is a
different race with the same steps.
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.team_support import TIMEOUT, baton, converged, team, work

pytestmark = pytest.mark.slow

CLONES = 4
STEPS = 3
KILLED_SYNC = str(Path(__file__).with_name("killed_sync.py"))
PHASES = ("baton.sync.transport.fetch", "baton.sync.transport._fetch_few_locally", "baton.sync.decide.import_feed",
          "baton.sync.decide.write_staged", "baton.sync.publish.write_commit", "baton.commands.sync.save_state",
          "baton.sync.transport.push", "baton.commands.sync.save_acked")


def _sync(clone: Path, problems: list) -> None:
    """``baton sync``, following the way back a message names (a lock a killed sync left) as a person would."""
    for _ in range(4):
        done = baton(clone, "sync", "--json")
        if "Traceback" in done.stderr or done.returncode not in (0, 4):
            problems.append((clone.name, done.returncode, done.stdout, done.stderr))
            return
        if done.returncode == 0:
            return
        error = json.loads(done.stdout)["error"]
        lock = error.get("details", {}).get("lock")
        if lock is not None and f"rm -- {lock}" in error["message"]:
            Path(lock).unlink(missing_ok=True)  # the harness killed its holder: provably dead
            continue
        if error["code"] == "remote_unreachable" and ("kept moving" in error["message"]
                                                      or "gone now: that push finished" in error["message"]):
            continue  # the others' pushes won (or held the lock) at every attempt: "run `baton sync` again"
        problems.append((clone.name, done.returncode, done.stdout, done.stderr))
        return
    problems.append((clone.name, "still failing after following its message", done.stdout, done.stderr))


def _killed_sync(clone: Path, rng: random.Random, marker: Path, problems: list) -> None:
    """A sync killed with SIGKILL inside a phase chosen by ``rng`` (or just after it)."""
    proc = subprocess.Popen([sys.executable, KILLED_SYNC, rng.choice(PHASES), str(marker), "sync", "--json"],
                            cwd=clone, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + TIMEOUT
    while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    if marker.exists():
        time.sleep(rng.uniform(0, 0.03))
    proc.send_signal(signal.SIGKILL)
    out, err = proc.communicate(timeout=TIMEOUT)
    if proc.returncode not in (-signal.SIGKILL, 0, 4) or "Traceback" in err:
        problems.append((clone.name, proc.returncode, out, err))


def _day(clone: Path, index: int, seed: int, kill: bool, problems: list) -> None:
    rng = random.Random(seed * 100 + index)
    try:
        for step in range(STEPS):
            for done in work(clone, rng, step):
                if done.returncode not in (0, 3) or "Traceback" in done.stderr:
                    problems.append((clone.name, done.args[3:6], done.returncode, done.stdout, done.stderr))
            if kill and rng.random() < 0.5:
                _killed_sync(clone, rng, clone.parent / f"entered-{clone.name}-{step}", problems)
            _sync(clone, problems)
    except BaseException as exc:  # noqa: BLE001 - reported by the test, never a silent thread
        problems.append((clone.name, repr(exc)))


def _race(tmp_path: Path, transport: str, seed: int, kill: bool) -> None:
    with team(tmp_path, CLONES, transport) as (_remote, clones):
        problems: list = []
        threads = [threading.Thread(target=_day, args=(clone, i, seed, kill, problems))
                   for i, clone in enumerate(clones)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=10 * TIMEOUT)
        assert not any(t.is_alive() for t in threads)
        for _ in range(2):
            for clone in clones:
                _sync(clone, problems)
        assert problems == []
        converged(clones)


@pytest.mark.parametrize("transport", ["path", "file", "http"])
def test_a_team_syncing_at_once_converges(tmp_path, transport):
    _race(tmp_path, transport, seed=11, kill=False)


@pytest.mark.parametrize("transport", ["path", "http"])
def test_syncs_killed_at_random_phases_of_a_team_race_recover_and_converge(tmp_path, transport):
    _race(tmp_path, transport, seed=23, kill=True)


def test_a_ledger_ref_force_pushed_back_with_plain_git_over_http_is_put_back_and_loses_nothing(tmp_path):
    from tests.team_support import baton_json, event_ids, git

    with team(tmp_path, 3, "http") as (remote, clones):
        a, b, c = clones
        for clone in clones:
            baton_json(clone, "checkpoint", "create", "--title", f"{clone.name} 1", "--objective", "o", "--no-input")
            baton_json(clone, "sync")
        older = git(a, "rev-parse", "refs/baton/ledger").strip()
        for clone in clones:
            baton_json(clone, "checkpoint", "create", "--title", f"{clone.name} 2", "--objective", "o", "--no-input")
            baton_json(clone, "sync")
        for clone in clones:
            baton_json(clone, "sync")
        held = event_ids(a)
        git(a, "push", "-q", "--force", "origin", f"{older}:refs/baton/ledger")  # someone rewrites it by hand
        assert git(remote, "rev-parse", "refs/baton/ledger").strip() == older
        first = baton(b, "sync", "--json")
        assert first.returncode == 3 and "Traceback" not in first.stderr, first.stdout + first.stderr
        result = json.loads(first.stdout)
        writers = {json.loads((x / ".baton" / "local.json").read_text())["writer"] for x in clones}
        assert result["pushed"] is True and set(result["behind"]) == writers  # older held only a's first events
        for clone in (c, a, b, c, a):
            assert baton_json(clone, "sync")["behind"] == {}  # put back by b: nothing more to say
        assert all(event_ids(clone) == held for clone in clones)
        converged(clones)
