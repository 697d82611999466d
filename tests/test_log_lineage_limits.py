"""``baton log`` and ``baton lineage`` show the newest 50 unless told otherwise, as ``handoff
list`` does, and say what they left out: a line on stderr naming ``--limit 0``, and in JSON
``truncated`` and ``more`` (docs/cli.md; team16 G8). A ledger of a year's use no longer prints
every event or handoff it ever held."""

from __future__ import annotations

import json
import os
import pty
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.app_support import init_project
from tests.cli_support import run, run_here, run_json

CHAIN = 60


@pytest.fixture(scope="module")
def chain(tmp_path_factory) -> tuple[Path, list[str]]:
    """A project whose handoffs form one continuation chain of ``CHAIN`` (and so more than 50 events)."""
    root = tmp_path_factory.mktemp("chain")
    init_project(root)
    ids: list[str] = []
    for n in range(CHAIN):
        parent = ["--from", ids[-1]] if ids else []
        code, out, err = run_here("checkpoint", "create", "--no-input", "--title", f"step {n}", "--objective", "o",
                                  *parent, "--json", "--project", str(root), cwd=root)
        assert code == 0, err
        ids.append(json.loads(out)["id"])
    return root, ids


def _events(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines()]


# -- log ------------------------------------------------------------------------------------------

def test_log_shows_the_newest_50_events_and_says_how_many_more_and_how_to_see_all(capsys, chain):
    root, _ids = chain
    every = _events(run(capsys, root, "log", "--limit", "0", "--json")[1])
    code, out, err = run(capsys, root, "log")
    assert code == 0
    assert out.splitlines() == run(capsys, root, "log", "--limit", "0")[1].splitlines()[-50:]
    assert err == (f"baton: the newest 50 events shown; {len(every) - 50} earlier matching events left out: "
                   "a larger --limit shows more, --limit 0 every one\n")


def test_log_json_ends_with_one_line_saying_it_was_truncated_and_how_many_more(capsys, chain):
    root, _ids = chain
    every = _events(run(capsys, root, "log", "--limit", "0", "--json")[1])
    code, out, err = run(capsys, root, "log", "--json")
    lines = _events(out)
    assert code == 0 and err == ""
    assert lines[:-1] == every[-50:]
    assert lines[-1] == {"truncated": True, "limit": 50, "more": len(every) - 50}


def test_log_with_limit_0_shows_every_event_and_says_nothing_more(capsys, chain):
    root, _ids = chain
    code, out, err = run(capsys, root, "log", "--limit", "0", "--json")
    assert code == 0 and err == "" and all("id" in e for e in _events(out))
    assert _events(out)[0]["type"] == "project.initialized"


def test_a_log_that_fits_its_limit_says_nothing_of_one(capsys, chain):
    root, _ids = chain
    code, out, err = run(capsys, root, "log", "--type", "project.*", "--json")
    assert code == 0 and err == "" and [e["type"] for e in _events(out)] == ["project.initialized"]


def test_log_of_a_type_counts_what_it_left_out_of_that_type_only(capsys, chain):
    root, _ids = chain
    code, out, err = run(capsys, root, "log", "--type", "handoff.captured", "--limit", "5")
    assert code == 0 and len(out.splitlines()) == 5
    assert f"the newest 5 events shown; {CHAIN - 5} earlier matching events left out" in err


def test_log_of_a_stream_glob_says_it_left_events_out_without_counting_them(capsys, chain):
    root, _ids = chain
    code, out, err = run(capsys, root, "log", "--stream", "handoff/*", "--limit", "3", "--json")
    assert code == 0 and _events(out)[-1] == {"truncated": True, "limit": 3, "more": None}
    code, _out, err = run(capsys, root, "log", "--stream", "handoff/*", "--limit", "3")
    assert "the newest 3 events shown; earlier matching events left out" in err


# -- lineage --------------------------------------------------------------------------------------

def test_lineage_shows_the_newest_50_handoffs_and_says_how_many_more_on_stderr(capsys, chain):
    root, ids = chain
    code, out, err = run(capsys, root, "lineage")
    assert code == 0
    shown = [line.split()[0] for line in out.splitlines()]
    assert shown == [i[-8:] for i in ids[-50:]]
    assert err == (f"baton: the newest 50 of {CHAIN} handoffs shown ({CHAIN - 50} more); a larger --limit shows "
                   "more, --limit 0 the whole graph\n")


def test_lineage_json_says_truncated_shown_total_and_more(capsys, chain):
    root, ids = chain
    view = run_json(capsys, root, "lineage", "--limit", "7")
    assert [n["id"] for n in view["nodes"]] == ids[-7:]
    assert (view["truncated"], view["shown"], view["total"], view["more"], view["limit"]) == (True, 7, CHAIN,
                                                                                              CHAIN - 7, 7)
    code, out, err = run(capsys, root, "lineage", "--limit", "7", "--format", "json")
    assert code == 0 and json.loads(out)["more"] == CHAIN - 7 and err == ""


def test_a_truncated_lineage_draws_no_edge_to_a_handoff_it_left_out_and_keeps_it_in_parents(capsys, chain):
    root, ids = chain
    view = run_json(capsys, root, "lineage", "--limit", "7")
    shown = {n["id"] for n in view["nodes"]}
    assert all(e["parent"] in shown and e["child"] in shown for e in view["edges"])
    assert len(view["edges"]) == 6
    oldest = next(n for n in view["nodes"] if n["id"] == ids[-7])
    assert oldest["parents"] == [ids[-8]]


def test_lineage_with_limit_0_shows_the_whole_graph(capsys, chain):
    root, ids = chain
    view = run_json(capsys, root, "lineage", "--limit", "0")
    assert len(view["nodes"]) == CHAIN and view["truncated"] is False and view["more"] == 0


def test_lineage_of_a_handoff_shows_the_handoffs_nearest_it_in_its_graph(capsys, chain):
    root, ids = chain
    middle = ids[30]
    view = run_json(capsys, root, "lineage", middle, "--limit", "5")
    assert [n["id"] for n in view["nodes"]] == ids[28:33]  # two ancestors, itself, two descendants
    code, _out, err = run(capsys, root, "lineage", middle, "--limit", "5")
    assert code == 0
    assert f"the 5 nearest {middle[-8:]} of the {CHAIN} handoffs connected to it shown ({CHAIN - 5} more)" in err


@pytest.mark.parametrize("fmt", ["mermaid", "dot"])
def test_a_lineage_diagram_says_what_it_left_out_on_stderr_never_in_the_diagram(capsys, chain, fmt):
    root, ids = chain
    code, out, err = run(capsys, root, "lineage", "--limit", "3", "--format", fmt)
    assert code == 0 and ids[-1][-8:] in out and ids[-5][-8:] not in out
    assert "shown" not in out and "--limit 0 the whole graph" in err


def test_a_negative_lineage_limit_is_a_usage_error(capsys, chain):
    root, _ids = chain
    code, out, err = run(capsys, root, "lineage", "--limit", "-1")
    assert (code, out) == (2, "") and "--limit must be a positive number of handoffs, or 0" in err


# -- the note, when a program reads the text ------------------------------------------------------

def _at_a_terminal(command: str, cwd: Path) -> tuple[str, str]:
    """``command`` (a shell line) run as at a terminal: its standard error is a terminal (a
    pseudo-terminal), its standard output the shell's pipe; returns (stdout, what reached the terminal)."""
    main, side = pty.openpty()
    try:
        r = subprocess.run(["bash", "-c", f"set -o pipefail; {command}"], stdout=subprocess.PIPE, stderr=side,
                           cwd=cwd, timeout=120)
        os.close(side)
        side = -1
        assert r.returncode == 0
        told = b""
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:  # EIO: the terminal's other side is closed and nothing is left to read
                break
            if not chunk:
                break
            told += chunk
        return r.stdout.decode(), told.decode()
    finally:
        os.close(main)
        if side >= 0:
            os.close(side)


BATON = f"{shlex.quote(sys.executable)} -m baton"


@pytest.mark.slow
@pytest.mark.parametrize("command", ["log", "log --json", "handoff list", "handoff list --json", "lineage"])
def test_a_listing_piped_into_head_at_a_terminal_prints_its_line_and_nothing_else(chain, command):
    root, _ids = chain
    out, told = _at_a_terminal(f"{BATON} {command} | head -1", root)
    assert len(out.splitlines()) == 1
    assert told == ""


@pytest.mark.slow
def test_a_listing_redirected_to_a_file_at_a_terminal_still_says_what_it_left_out(chain, tmp_path):
    root, _ids = chain
    _out, told = _at_a_terminal(f"{BATON} log > {shlex.quote(str(tmp_path / 'log.txt'))}", root)
    assert "the newest 50 events shown" in told and "--limit 0" in told


@pytest.mark.slow
def test_a_listing_whose_output_and_errors_are_both_pipes_says_what_it_left_out(chain):
    root, _ids = chain
    r = subprocess.run([sys.executable, "-m", "baton", "handoff", "list"], capture_output=True, text=True, cwd=root,
                       timeout=120)
    assert r.returncode == 0 and "the newest 50 of 60 handoffs shown" in r.stderr
