"""A team of clones syncing at once through one remote, with real processes.

``team(tmp, n, transport)`` makes a bare remote and ``n`` git clones of it,
each a Baton project sharing the committed project id (the first ran
``baton init`` and pushed ``.baton/config.json``), each reaching the remote
by a bare path, a ``file://`` URL or smart HTTP (real ``git http-backend`` on
loopback, ``tests.http_git_support``). Every command runs the real ``baton``
CLI in a subprocess (``python -m baton``), as a person's shell would, so a
``kill -9`` lands on a real process.

``work(clone, rng, i)`` is one step of a person's day: capture, validate and
ready a handoff, or leave a baton, or start a session (which claims a baton
waiting for it). ``converged(clones)`` is what must hold once everyone
synced twice with nothing running: the same events everywhere, ``verify``
passing, a rebuild giving the index the incremental folds gave, and no baton
claimed twice without the conflict being reported.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

TIMEOUT = 120
OWNER = "team@example.com"
TRANSPORTS = ("path", "file", "http")


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


def baton(clone: Path, *args: str, timeout: float = TIMEOUT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "baton", *args], cwd=clone, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "BATON_HOOK_SERVER": "0"})


def baton_json(clone: Path, *args: str) -> dict:
    done = baton(clone, *args, "--json")
    assert done.returncode == 0, (clone.name, args, done.returncode, done.stdout, done.stderr)
    return json.loads(done.stdout)


@contextmanager
def team(tmp: Path, n: int, transport: str) -> Iterator[tuple[Path, list[Path]]]:
    """(remote, clones): a bare remote and ``n`` clones reaching it by ``transport``."""
    from tests.http_git_support import serve

    home = tmp / "served"
    home.mkdir()
    remote = home / "remote.git"
    git(tmp, "init", "-q", "--bare", "-b", "main", str(remote))
    with serve(home, "team", "s3cret") if transport == "http" else _nothing() as base:
        url = {"path": str(remote), "file": remote.as_uri(),
               "http": (base or "").replace("http://", "http://team:s3cret@") + "/remote.git"}[transport]
        first = tmp / "c0"
        first.mkdir()
        git(first, "init", "-q", "-b", "main")
        baton_json(first, "init")
        git(first, "add", ".baton/config.json", ".baton/.gitignore")
        git(first, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "baton init")
        git(first, "remote", "add", "origin", url)
        git(first, "push", "-q", "origin", "main")
        clones = [first]
        for i in range(1, n):
            clone = tmp / f"c{i}"
            git(tmp, "clone", "-q", url, str(clone))
            baton_json(clone, "init")
            clones.append(clone)
        yield remote, clones


@contextmanager
def _nothing() -> Iterator[None]:
    yield None


def work(clone: Path, rng: random.Random, i: int) -> list[subprocess.CompletedProcess]:
    """One step of a person's day on ``clone`` (the commands it ran)."""
    tag = f"{clone.name}-{i}"
    choice = rng.random()
    if choice < 0.4:
        made = baton(clone, "checkpoint", "create", "--title", f"Work {tag}", "--objective", f"Finish {tag}",
                     "--no-input", "--json")
        if made.returncode != 0:
            return [made]
        ident = json.loads(made.stdout)["id"]
        return [made, baton(clone, "handoff", "validate", ident), baton(clone, "handoff", "ready", ident)]
    if choice < 0.7:
        return [baton(clone, "session", "end", f"end-{tag}", "--handoff-steps", f"step {tag}", "--owner", OWNER,
                      "--branch", "main", "--shared", "--json")]
    return [baton(clone, "session", "begin", "--session-id", f"begin-{tag}", "--owner", OWNER, "--branch", "main",
                  "--json")]


def event_ids(clone: Path) -> set[str]:
    done = baton(clone, "log", "--json")
    assert done.returncode == 0, (clone.name, done.stdout, done.stderr)
    return {json.loads(line)["id"] for line in done.stdout.splitlines() if line.strip()}


def own_event_ids(clone: Path) -> set[str]:
    """The ids of every event this clone wrote (its feeds under its writer ids)."""
    local = json.loads((clone / ".baton" / "local.json").read_text())
    writers = {local["writer"]}
    ids = set()
    for feed in (clone / ".baton" / "ledger").glob("*.jsonl"):
        if feed.stem in writers:
            ids |= {json.loads(line)["id"] for line in feed.read_bytes().splitlines() if line.strip()}
    return ids


def _views(clone: Path) -> tuple:
    listed = baton_json(clone, "handoff", "list", "--kind", "all", "--limit", "100000")
    pending = baton_json(clone, "session", "handoff", "--all")
    status = baton_json(clone, "status")
    status.pop("generatedAt", None)
    return listed, pending, status


def converged(clones: list[Path]) -> None:
    """Every clone holds the same events, verifies, and its index equals a rebuild's."""
    ids = [event_ids(c) for c in clones]
    written = set().union(*(own_event_ids(c) for c in clones))
    for clone, held in zip(clones, ids):
        assert held == ids[0], f"{clone.name} differs from {clones[0].name}: {len(held ^ ids[0])} events"
        assert written <= held, f"{clone.name} lacks {len(written - held)} event(s) a clone wrote"
        checked = baton(clone, "verify", "--json")
        assert checked.returncode == 0 and json.loads(checked.stdout)["ok"], (clone.name, checked.stdout)
        before = _views(clone)
        baton_json(clone, "rebuild")
        assert _views(clone) == before, f"{clone.name}: the index differs from a rebuild's"
    claims: dict[str, list[str]] = {}
    for line in baton(clones[0], "log", "--type", "baton.claimed", "--json").stdout.splitlines():
        event = json.loads(line)
        claims.setdefault(event["data"]["handoff_id"], []).append(event["id"])
    twice = {h: ids for h, ids in claims.items() if len(ids) > 1}
    reported = {(c["handoffId"], c["eventId"])
                for c in baton_json(clones[0], "session", "handoff", "--all").get("conflicts", [])}
    for handoff, claim_ids in twice.items():
        # at most one claim took the baton; every other is reported as a conflict, never silent
        # (all of them, when another clone had superseded the baton first: docs/sync.md)
        assert len([cid for cid in claim_ids if (handoff, cid) not in reported]) <= 1, (handoff, claim_ids)
