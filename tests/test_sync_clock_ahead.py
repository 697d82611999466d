"""The clock-ahead warning names the writer whose clock runs fast, and only it (docs/sync.md,
"Clocks"; ``baton.domain.clock_ahead``): a clone whose own clock is right, carried ahead by
importing the fast one's events, is not named. Three clones of one real remote: a fast one, two
right ones."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from dulwich import porcelain

from baton.domain.clock_ahead import AHEAD_BOUND_SECONDS, clocks_ahead, feeds_ahead
from tests.app_support import init_project
from tests.cli_support import run, run_json
from tests.sync_support import FAST, make_team

AHEAD = 3 * 86400



def _fast(project: Path, *args: str) -> dict:
    done = subprocess.run([sys.executable, "-c", FAST, str(AHEAD), *args, "--json", "--project", str(project)],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "BATON_HOOK_SERVER": "0"})
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return json.loads(done.stdout)


def _writer(project: Path) -> str:
    return json.loads((project / ".baton" / "local.json").read_text())["writer"]


@pytest.fixture
def three(tmp_path, capsys):
    """(fast, right, other): ``fast``'s clock is 3 days ahead and it published a capture; ``right``
    imported it, captured after it (carried ahead by its hlc, its own clock right) and published;
    ``other`` has a right clock and has not synced yet."""
    remote, fast, right = make_team(tmp_path)
    other = tmp_path / "c"
    porcelain.clone(str(remote), str(other), errstream=io.BytesIO()).close()
    init_project(other)
    _fast(fast, "checkpoint", "create", "--no-input", "--title", "From the future", "--objective", "O")
    _fast(fast, "sync")
    run_json(capsys, right, "sync")
    run_json(capsys, right, "checkpoint", "create", "--no-input", "--title", "Now, after it", "--objective", "O")
    run_json(capsys, right, "sync")
    return fast, right, other


def test_a_sync_names_the_fast_writer_and_not_the_clone_its_events_carried_ahead(capsys, three):
    fast, right, other = three
    synced = run_json(capsys, other, "sync")
    assert {_writer(fast), _writer(right)} <= set(synced["imported"])
    assert [a["feed"] for a in synced["clock_ahead"]] == [_writer(fast)]


def test_the_carried_clone_is_carried_ahead_indeed(capsys, three):
    """The case the rule is for: the right clone's newest hlc is as far ahead as the fast one's."""
    fast, right, other = three
    run_json(capsys, other, "sync")

    def newest(feed: str) -> dict:
        lines = (other / ".baton" / "ledger" / f"{feed}.jsonl").read_bytes().splitlines()
        return json.loads(lines[-1])

    carried, origin = newest(_writer(right)), newest(_writer(fast))
    assert carried["hlc"] > origin["hlc"] and carried["at"] < origin["at"]


def test_verify_names_only_the_fast_writer_even_after_this_clone_wrote_past_it(capsys, three):
    fast, right, other = three
    run_json(capsys, other, "sync")
    run_json(capsys, other, "checkpoint", "create", "--no-input", "--title", "Later still", "--objective", "O")
    verified = run_json(capsys, other, "verify")
    assert [a["feed"] for a in verified["clock_ahead"]] == [_writer(fast)]
    code, out, _ = run(capsys, other, "verify")
    assert code == 0 and f"CLOCK AHEAD feed {_writer(fast)}: its writer's clock was " in out
    assert f"CLOCK AHEAD feed {_writer(right)}" not in out and f"CLOCK AHEAD feed {_writer(other)}" not in out


def test_the_fast_clone_names_no_feed_on_its_own_clock(capsys, three):
    fast, right, _other = three
    synced = _fast(fast, "sync")  # imports right's feed, carried ahead by fast's own events
    assert _writer(right) in synced["imported"]
    assert synced["clock_ahead"] == []  # on its own clock nothing is ahead


# -- the rule --------------------------------------------------------------------------------

NOW = 1_800_000_000 * 10**6
FAR = (AHEAD_BOUND_SECONDS + 60) * 10**6


def test_a_feed_whose_own_wall_time_is_ahead_is_named_by_how_far_it_is():
    assert clocks_ahead([("fast", NOW + FAR + 5, NOW + FAR)], NOW) == [("fast", FAR // 10**6)]


def test_a_feed_ahead_only_by_its_hlc_is_not_named():
    candidates = feeds_ahead([("carried", NOW + FAR)], NOW)
    assert clocks_ahead([(feed, NOW + FAR, NOW) for feed, _ in candidates], NOW) == []


def test_a_feed_whose_wall_time_cannot_be_read_is_judged_by_its_hlc():
    assert clocks_ahead([("unread", NOW + FAR, None)], NOW) == [("unread", FAR // 10**6)]
