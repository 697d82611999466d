"""A read-only ``.baton/`` (a read-only volume, a snapshot: tester harness15 G6): the start hook
still gives the brief — reading works, from a replay in memory — with the baton waiting shown
read-only and not claimed, and says once that nothing of the session could be recorded; the
baton stays pending for a start that can claim it."""

from __future__ import annotations

import baton.commands.context as context
from tests.cli_support import run_json
from tests.harness_support import injected
from tests.test_unended_sessions import _start, repo  # noqa: F401  (a git project; a Claude Code start)


def test_a_read_only_ledger_still_gives_the_brief_with_the_baton_waiting_unclaimed(repo, capsys, monkeypatch):
    left = run_json(capsys, repo, "session", "end", "prev", "--handoff-steps", "Parse the feed's local dates")
    monkeypatch.setattr(context, "baton_dir_writable", lambda paths: False)
    text = injected("claude-code", _start(repo, "s-ro").answer)
    assert text is not None and "Parse the feed's local dates" in text and left["handoffId"] in text
    assert "read-only" in text and "not claimed" in text


def test_a_read_only_ledger_with_no_baton_waiting_still_gives_the_brief(repo, monkeypatch):
    monkeypatch.setattr(context, "baton_dir_writable", lambda paths: False)
    text = injected("claude-code", _start(repo, "s-ro").answer)
    assert text is not None and "failed" not in text and "read-only" in text


def test_the_baton_shown_read_only_is_claimed_by_the_first_start_that_can(repo, capsys, monkeypatch):
    left = run_json(capsys, repo, "session", "end", "prev", "--handoff-steps", "Parse the feed's local dates")
    with monkeypatch.context() as patched:
        patched.setattr(context, "baton_dir_writable", lambda paths: False)
        _start(repo, "s-ro")
    started = _start(repo, "s-next")
    assert started.result.delivered.record.id == left["handoffId"]
