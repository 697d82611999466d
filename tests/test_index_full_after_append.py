"""A full disk between the ledger's append and the index's fold.

The append is one synced `write()`; the index is written after it. When the
disk fills in between (seen on a 4 MB tmpfs: the feed's few KB fit, the
index's WAL did not), the command's events are recorded, the index only lags.
The command still exits 1 — but must say it is done, with the ids, because a
user who reads "the index failed" runs it again and records it twice (a
second baton superseding the first, a duplicate draft)."""

from __future__ import annotations

import json
import sqlite3

from baton.projections.runner import ProjectionRunner
from tests.cli_support import ledger_size, run, run_json


def _disk_full_at_the_next_fold(monkeypatch) -> None:
    real = ProjectionRunner._commit

    def full(self, *args, **kwargs):
        monkeypatch.setattr(ProjectionRunner, "_commit", real)  # once
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(ProjectionRunner, "_commit", full)


def test_a_session_end_whose_index_fold_fails_says_the_baton_is_recorded_and_not_to_run_it_again(
        project, capsys, monkeypatch):
    before = ledger_size(project)
    _disk_full_at_the_next_fold(monkeypatch)
    code, out, err = run(capsys, project, "session", "end", "s1", "--handoff-steps", "ship it",
                         "--owner", "a@example.com", "--branch", "main", "--json")
    assert code == 1, (out, err)
    error = json.loads(out)["error"]
    assert error["code"] == "recorded_not_indexed"
    assert "Do not run the command again" in error["message"]
    assert "database or disk is full" in error["details"]["index_error"]
    assert ledger_size(project) == before + len(error["details"]["recorded"]) == before + 3
    handoff = error["details"]["handoffs"][0]
    # the next command folds what was recorded: the baton is there, once
    waiting = run_json(capsys, project, "session", "handoff", "--owner", "a@example.com", "--branch", "main")
    assert waiting["handoff"]["id"] == handoff
    assert waiting["handoff"]["nextSteps"] == ["ship it"]
