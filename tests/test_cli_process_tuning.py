"""What the command line does to the process to keep the hook path short,
and that it changes nothing a user sees."""

from __future__ import annotations

import argparse
import gc

import pytest

from baton import cli


@pytest.mark.parametrize("words", [["bootstrap", "--json"], ["--project", "x", "session", "handoff"],
                                   ["resume", "latest"], ["hook", "claude-code", "SessionStart"]])
def test_a_hook_path_command_runs_with_the_garbage_collector_paused_and_restores_it(monkeypatch, words):
    seen = []
    monkeypatch.setattr(cli, "_main", lambda w: seen.append(gc.isenabled()) or 0)
    assert gc.isenabled()
    assert cli.main(words) == 0
    assert seen == [False]
    assert gc.isenabled()


def test_the_garbage_collector_is_restored_even_when_the_command_fails(monkeypatch):
    def boom(words):
        raise RuntimeError("boom")

    monkeypatch.setattr(cli, "_main", boom)
    with pytest.raises(RuntimeError):
        cli.main(["bootstrap"])
    assert gc.isenabled()


@pytest.mark.parametrize("words", [["mcp"], ["rebuild"], ["status", "serve"], ["handoff", "list"], []])
def test_other_commands_keep_the_garbage_collector(monkeypatch, words):
    seen = []
    monkeypatch.setattr(cli, "_main", lambda w: seen.append(gc.isenabled()) or 0)
    cli.main(words)
    assert seen == [True]


@pytest.mark.parametrize("columns", ["57", "132", "", "nonsense"])
def test_help_is_laid_out_at_the_width_argparse_itself_would_choose(monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", columns)
    ours, theirs = cli._Formatter("baton"), argparse.HelpFormatter("baton")
    assert (ours._width, ours._max_help_position) == (theirs._width, theirs._max_help_position)
