"""The first ``baton sync`` after a ``forget`` of a large feed tells its progress on a terminal,
as the first sync of a ledger does (tester-use17 T8: ~1 minute and silent at 100k events):
it reads the local file and each copy of the feed whole (docs/sync.md, docs/performance.md)."""

from __future__ import annotations

import sys

import pytest

from baton.ledger.store import Ledger
from benchmarks.ledger import drafts
from tests.cli_support import run, run_json
from tests.sync_support import make_team
from tests.sync_support import writer_of as _writer
from tests.test_cli_shows_a_long_catch_up import _Terminal

LABEL = "baton: checking copies that differ by erased payloads:"


@pytest.fixture
def forgotten(tmp_path, capsys):
    """Clone ``a`` of a team with a feed of more than one chunk (~2.4 MB) holding a handoff,
    synced, then the handoff forgotten; the team's other clone ``b`` and a small feed."""
    _remote, a, b = make_team(tmp_path)
    ledger = Ledger(a / ".baton", _writer(a), fsync="never")
    with ledger.locked() as txn:
        txn.append([d._replace(stream=f"bench/{d.stream.rsplit('/', 1)[-1]}") for d in drafts(2200)])
    ledger.close()
    handoff = run_json(capsys, a, "checkpoint", "create", "--title", "Leak", "--objective", "forget me",
                       "--no-input")["id"]
    assert run(capsys, a, "sync")[0] == 0
    assert run(capsys, a, "forget", handoff, "--reason", "leak", "--yes")[0] == 0
    return a, b


def shown(terminal: _Terminal) -> list[str]:
    return [line.strip() for line in terminal.getvalue().replace("\r", "\n").splitlines() if line.startswith(LABEL)]


def test_the_first_sync_after_a_forget_of_a_large_feed_shows_its_progress_at_a_terminal(capsys, forgotten,
                                                                                          monkeypatch):
    a, _b = forgotten
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    code, out, _ = run(capsys, a, "sync")
    assert code == 0 and "forgotten payload" in out
    lines = shown(terminal)
    assert len(lines) >= 2
    done, total = lines[-1].rsplit(" ", 2)[-2].split("/")
    assert done == total


def test_a_sync_after_a_forget_shows_no_progress_with_json(capsys, forgotten, monkeypatch):
    a, _b = forgotten
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert run(capsys, a, "sync", "--json")[0] == 0
    assert shown(terminal) == []


def test_a_sync_after_a_forget_of_a_small_feed_shows_no_progress(capsys, forgotten, monkeypatch):
    _a, b = forgotten
    handoff = run_json(capsys, b, "checkpoint", "create", "--title", "Small", "--objective", "forget me too",
                       "--no-input")["id"]
    assert run(capsys, b, "sync")[0] == 0
    assert run(capsys, b, "forget", handoff, "--reason", "leak", "--yes")[0] == 0
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert run(capsys, b, "sync")[0] == 0
    assert shown(terminal) == []
