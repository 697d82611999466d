"""RACE: sixteen sessions bootstrap at the same moment against one eligible baton.

Each round leaves one baton, releases sixteen processes through a barrier,
and checks that exactly one received it, the other fifteen got the standard
brief, and the ledger holds exactly one claim for it. Twenty rounds run in
long-lived worker processes calling the bootstrap command; one more round goes
through the real CLI in sixteen fresh interpreters (``bootstrap``, and
``session begin``). Every loser — one that peeked after the claim, or one
whose own claim was refused because the winner's landed first — is told
which session has the baton (``claimedElsewhere``).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.batons_support import ALICE, events, leave

pytestmark = pytest.mark.slow

WORKERS = 16
ROUNDS = 20
HEADING = "## 🤝 Active Session Handoff"


def _worker(root: str, index: int, rounds: int, barrier, results) -> None:
    from tests.app_support import bootstrap

    for r in range(rounds):
        try:
            barrier.wait(timeout=120)
        except Exception:  # noqa: BLE001 - the parent gave up; stop quietly
            return
        try:
            out = bootstrap(root, session_id=f"r{r}-w{index}", owner=ALICE, branch="main")
            told = out.claimed_elsewhere.claimed_by_session if out.claimed_elsewhere else None
            results.put((r, index, out.record.id if out.record else None, HEADING in out.brief.text,
                         out.exit_code, None, told))
        except BaseException as exc:  # noqa: BLE001 - report, never hang the parent
            results.put((r, index, None, False, -1, repr(exc), None))


def test_sixteen_concurrent_bootstraps_deliver_each_baton_exactly_once(project):
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(WORKERS + 1)
    results = ctx.Queue()
    procs = [ctx.Process(target=_worker, args=(str(project), i, ROUNDS, barrier, results), daemon=True)
             for i in range(WORKERS)]
    for p in procs:
        p.start()
    batons = []
    try:
        for r in range(ROUNDS):
            baton = leave(project, f"end-{r}", steps=[f"round {r}"], owner=ALICE, branch="main")
            batons.append(baton.id)
            barrier.wait(timeout=120)
            got = [results.get(timeout=120) for _ in range(WORKERS)]
            assert [g for g in got if g[5]] == [], f"round {r}: a bootstrap failed"
            assert all(g[0] == r and g[4] == 0 for g in got)
            winners = [g for g in got if g[2] is not None]
            assert len(winners) == 1, f"round {r}: {len(winners)} sessions received the baton"
            assert winners[0][2] == baton.id and winners[0][3]
            assert not any(g[3] for g in got if g[2] is None), f"round {r}: a loser's brief shows the handoff"
            # every loser — whether it peeked after the claim or lost the claim itself — is told who has it
            told = [g[6] for g in got if g[2] is None]
            assert told == [f"r{r}-w{winners[0][1]}"] * (WORKERS - 1), f"round {r}: {told}"
    finally:
        barrier.abort()
        for p in procs:
            p.join(timeout=30)
            if p.is_alive():
                p.kill()
    claims = Counter(e.data["handoff_id"] for e in events(project, "baton.claimed"))
    assert claims == Counter({handoff_id: 1 for handoff_id in batons})


GO_AND_RUN = """
import os, sys, time
from baton.cli import main
import baton.commands.bootstrap  # imported before the start line, like a warm hook
ready, go = sys.argv[1], sys.argv[2]
open(ready, "w").close()
while not os.path.exists(go):
    time.sleep(0.0005)
sys.exit(main(sys.argv[3:]))
"""


def _started_together(project: Path, tmp_path: Path, command: tuple[str, ...]) -> list[dict]:
    """``command`` (``--json``) run by sixteen fresh interpreters released at one start line
    (session ids ``cli-0`` … ``cli-15``); their JSON answers."""
    go = tmp_path / "go"
    env = dict(os.environ)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", GO_AND_RUN, str(tmp_path / f"ready-{i}"), str(go), *command, "--json",
             "--project", str(project), "--owner", ALICE, "--branch", "main", "--session-id", f"cli-{i}"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=Path.cwd(),
        )
        for i in range(WORKERS)
    ]
    deadline = time.monotonic() + 120
    while sum(1 for i in range(WORKERS) if (tmp_path / f"ready-{i}").exists()) < WORKERS:
        assert time.monotonic() < deadline, "the CLI processes never got ready"
        assert all(p.poll() is None for p in procs), "a CLI process exited before the start line"
        time.sleep(0.01)
    go.write_text("go")  # the start line: all sixteen are waiting on it
    outs = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=120)
        assert p.returncode == 0, stderr
        outs.append(json.loads(stdout))
    return outs


def _losers_told(outs: list[dict], baton_id: str) -> None:
    """One process received the baton; each of the other fifteen — whether it peeked after the claim
    or lost the claim itself at the same instant — is told which session has it, and how to read it."""
    (winner,) = [o for o in outs if o["handoff"] is not None]
    assert winner["handoff"]["id"] == baton_id and winner["claimedElsewhere"] is None
    for o in outs:
        if o is not winner:
            told = o["claimedElsewhere"]
            assert (told["handoffId"], told["claimedBySession"]) == (baton_id, winner["sessionId"]), o
            assert told["readCommand"] == f"baton resume {baton_id}"


def test_sixteen_real_cli_processes_started_together_deliver_the_baton_once(project, tmp_path):
    baton = leave(project, "end-cli", steps=["cli round"], owner=ALICE, branch="main")
    outs = _started_together(project, tmp_path, ("bootstrap",))
    receivers = [o for o in outs if o["handoff"] is not None]
    assert len(receivers) == 1
    assert receivers[0]["handoff"]["id"] == baton.id
    assert all(o["handoff"] is None and HEADING not in o["brief"] for o in outs if o is not receivers[0])
    _losers_told(outs, baton.id)
    assert all("was not delivered" not in o["brief"] for o in outs)
    claims = [e for e in events(project, "baton.claimed") if e.data["handoff_id"] == baton.id]
    assert len(claims) == 1


def test_sixteen_real_session_begins_started_together_claim_once_and_tell_the_rest_who_has_it(project, tmp_path):
    baton = leave(project, "end-cli", steps=["cli round"], owner=ALICE, branch="main")
    outs = _started_together(project, tmp_path, ("session", "begin"))
    _losers_told(outs, baton.id)
    claims = [e for e in events(project, "baton.claimed") if e.data["handoff_id"] == baton.id]
    assert len(claims) == 1
