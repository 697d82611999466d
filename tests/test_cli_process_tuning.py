"""What the command line does to the process to keep the hook path short,
and that it changes nothing a user sees."""

from __future__ import annotations

import argparse
import gc
import subprocess
import sys

import pytest

from baton import cli, cli_run, process_end


@pytest.fixture(autouse=True)
def a_process_that_ends_the_ordinary_way(monkeypatch):
    """``cli_run.run`` marks a hook-path process as ending with ``os._exit``: here
    the mark stays inside each test (the stand-in for ``os._exit`` returns)."""
    monkeypatch.setattr(process_end, "_ENDS_WITH_EXIT", [False])


@pytest.mark.parametrize("words", [["bootstrap", "--json"], ["--project", "x", "session", "handoff"],
                                   ["resume", "latest"], ["hook", "claude-code", "SessionStart"]])
def test_a_hook_path_command_runs_with_the_garbage_collector_paused_and_restores_it(monkeypatch, words):
    seen = []
    monkeypatch.setattr(cli_run, "_main", lambda w: seen.append(gc.isenabled()) or 0)
    assert gc.isenabled()
    assert cli_run.main(words) == 0
    assert seen == [False]
    assert gc.isenabled()


def test_the_garbage_collector_is_restored_even_when_the_command_fails(monkeypatch):
    def boom(words):
        raise RuntimeError("boom")

    monkeypatch.setattr(cli_run, "_main", boom)
    with pytest.raises(RuntimeError):
        cli_run.main(["bootstrap"])
    assert gc.isenabled()


@pytest.mark.parametrize("words", [["mcp"], ["rebuild"], ["status", "serve"], ["handoff", "list"], []])
def test_other_commands_keep_the_garbage_collector(monkeypatch, words):
    seen = []
    monkeypatch.setattr(cli_run, "_main", lambda w: seen.append(gc.isenabled()) or 0)
    cli_run.main(words)
    assert seen == [True]


@pytest.mark.parametrize("columns", ["57", "132", "", "nonsense"])
def test_help_is_laid_out_at_the_width_argparse_itself_would_choose(monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", columns)
    ours, theirs = cli._Formatter("baton"), argparse.HelpFormatter("baton")
    assert (ours._width, ours._max_help_position) == (theirs._width, theirs._max_help_position)


@pytest.mark.parametrize("words", [["bootstrap", "--json"], ["--project", "x", "session", "handoff"],
                                   ["resume", "latest"], ["hook", "claude-code", "SessionStart"]])
def test_a_hook_path_process_ends_with_its_exit_code_once_its_output_is_flushed(monkeypatch, capsys, words):
    ended = []
    monkeypatch.setattr(sys, "argv", ["baton", *words])
    monkeypatch.setattr(cli_run, "main", lambda: print("the answer") or 3)
    monkeypatch.setattr(cli_run.os, "_exit", lambda code: ended.append((code, capsys.readouterr().out)))
    with pytest.raises(SystemExit):  # only because the stand-in for os._exit returns
        cli_run.run()
    assert ended == [(3, "the answer\n")]


@pytest.mark.parametrize("words", [["mcp"], ["rebuild"], ["status", "serve"], ["handoff", "list"], []])
def test_other_processes_exit_the_ordinary_way(monkeypatch, words):
    monkeypatch.setattr(sys, "argv", ["baton", *words])
    monkeypatch.setattr(cli_run, "main", lambda: 5)
    monkeypatch.setattr(cli_run.os, "_exit", lambda code: pytest.fail("ended without finalizing"))
    with pytest.raises(SystemExit) as exited:
        cli_run.run()
    assert exited.value.code == 5


def test_a_hook_path_process_whose_output_cannot_be_flushed_exits_the_ordinary_way(monkeypatch):
    class ClosedPipe:
        def flush(self):
            raise BrokenPipeError

    monkeypatch.setattr(sys, "argv", ["baton", "bootstrap"])
    monkeypatch.setattr(cli_run, "main", lambda: 0)
    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    monkeypatch.setattr(cli_run.os, "_exit", lambda code: pytest.fail("ended without finalizing"))
    with pytest.raises(SystemExit):
        cli_run.run()


def test_python_dash_m_baton_is_the_baton_process(tmp_path):
    """``python -m baton`` (how the benchmarks and tests start it) runs the
    same entry point as the installed ``baton`` script: its output arrives
    whole and its exit code is the command's."""
    done = subprocess.run([sys.executable, "-m", "baton", "resume", "0000", "--project", str(tmp_path)],
                          capture_output=True, text=True)
    assert done.returncode != 0 and done.stderr.startswith("baton: ")
    shown = subprocess.run([sys.executable, "-m", "baton", "--version"], capture_output=True, text=True)
    assert shown.returncode == 0 and shown.stdout.strip()


@pytest.mark.parametrize("words", [["bootstrap", "--json"], ["hook", "claude-code", "SessionEnd"]])
def test_a_hook_path_process_is_marked_as_ending_with_os_exit_before_its_command_runs(monkeypatch, words):
    marked = []
    monkeypatch.setattr(sys, "argv", ["baton", *words])
    monkeypatch.setattr(cli_run, "main", lambda: marked.append(process_end._ENDS_WITH_EXIT[0]) or 0)
    monkeypatch.setattr(cli_run.os, "_exit", lambda code: None)
    with pytest.raises(SystemExit):
        cli_run.run()
    assert marked == [True]


@pytest.mark.parametrize("words", [["mcp"], ["rebuild"], ["handoff", "list"]])
def test_other_processes_are_not_marked(monkeypatch, words):
    marked = []
    monkeypatch.setattr(sys, "argv", ["baton", *words])
    monkeypatch.setattr(cli_run, "main", lambda: marked.append(process_end._ENDS_WITH_EXIT[0]) or 0)
    with pytest.raises(SystemExit):
        cli_run.run()
    assert marked == [False]


@pytest.fixture
def collector_back_on():
    """The tests below pause the collector as the entry points do: it is on again after each."""
    yield
    gc.enable()


@pytest.mark.parametrize("words", [["bootstrap", "--json"], ["hook", "claude-code", "SessionStart"]])
def test_a_hook_path_process_keeps_the_collector_its_entry_paused_before_any_import(monkeypatch, collector_back_on,
                                                                                     words):
    seen = []
    monkeypatch.setattr(sys, "argv", ["baton", *words])
    monkeypatch.setattr(cli_run, "_main", lambda w: seen.append(gc.isenabled()) or 0)
    monkeypatch.setattr(cli_run.os, "_exit", lambda code: None)
    gc.disable()
    with pytest.raises(SystemExit):  # only because the stand-in for os._exit returns
        cli_run.run(collector_paused=True)
    assert seen == [False] and not gc.isenabled()


@pytest.mark.parametrize("words", [["mcp"], ["rebuild"], ["status", "serve"], []])
def test_any_other_process_collects_again_before_its_command_runs(monkeypatch, collector_back_on, words):
    seen = []
    monkeypatch.setattr(sys, "argv", ["baton", *words])
    monkeypatch.setattr(cli_run, "_main", lambda w: seen.append(gc.isenabled()) or 0)
    gc.disable()
    with pytest.raises(SystemExit):
        cli_run.run(collector_paused=True)
    assert seen == [True]


def test_the_baton_program_pauses_the_collector_before_it_imports_the_command_line(monkeypatch, collector_back_on):
    from baton import launch

    calls = []
    monkeypatch.setenv("BATON_HOOK_SERVER", "0")
    monkeypatch.setattr(sys, "argv", ["baton", "hook", "claude-code", "SessionStart"])
    monkeypatch.setattr(cli_run, "run", lambda **kw: calls.append((gc.isenabled(), kw)))
    launch.run()
    assert calls == [(False, {"collector_paused": True})]
