"""A command typed at a terminal shows the progress of a long catch-up it
must do before it answers (a replay after an upgrade or a deleted index: 15 s
at 100k events, silent before), and says nothing of the few events every
command folds. Hooks, pipes and the MCP server show nothing."""

from __future__ import annotations

import io
import sys

import pytest

from baton.cli_handlers import opened as opened_module
from baton.process_end import NOTHING_DONE
from baton.projections import runner as runner_module
from tests.app_support import begin_session, end_session
from tests.cli_support import run

CATCHING_UP = "baton: bringing the index up to date:"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def a_long_read_at_a_terminal(monkeypatch, capsys, project, module, *args: str) -> tuple[int, str, str]:
    """``baton ARGS`` at a terminal, with the index up to date first, ``module`` telling its
    progress every 2 events (its ``PROGRESS_EVERY``): (exit code, stdout, what the terminal got)."""
    run(capsys, project, "handoff", "list")  # the index up to date: only the command's own read is left
    terminal = _Terminal()
    monkeypatch.setattr(module, "PROGRESS_EVERY", 2)
    monkeypatch.setattr(sys, "stderr", terminal)
    code, out, _ = run(capsys, project, *args)
    return code, out, terminal.getvalue()


@pytest.fixture
def worked(project):
    """A project with a few sessions' events, its replay cut into batches of 3."""
    for n in range(3):
        begin_session(project, session_id=f"s{n}", owner="alice", branch="main")
        end_session(project, f"s{n}", owner="alice", branch="main")
    return project


def _at_a_terminal(monkeypatch, capsys, project, *args: str) -> tuple[int, str]:
    terminal = _Terminal()
    monkeypatch.setattr(runner_module, "REPLAY_BATCH", 3)
    monkeypatch.setattr(sys, "stderr", terminal)
    code, _, _ = run(capsys, project, *args)
    return code, terminal.getvalue()


def _drop_index(project) -> None:
    for path in (project / ".baton").glob("index.sqlite*"):
        path.unlink()


def test_a_command_at_a_terminal_shows_the_progress_of_a_replay_it_must_do_first(worked, monkeypatch, capsys):
    _drop_index(worked)
    code, said = _at_a_terminal(monkeypatch, capsys, worked, "handoff", "list")
    assert code == 0 and CATCHING_UP in said
    assert said.rstrip().endswith("events")  # ended with the whole count, on a line of its own


def test_a_command_at_a_terminal_says_nothing_of_a_catch_up_of_a_few_events(worked, monkeypatch, capsys):
    run(capsys, worked, "handoff", "list")  # the index up to date
    begin_session(worked, session_id="s9", owner="alice", branch="main")
    code, said = _at_a_terminal(monkeypatch, capsys, worked, "handoff", "list")
    assert code == 0 and CATCHING_UP not in said


def test_init_at_a_terminal_on_a_project_whose_index_is_gone_shows_the_replay(worked, monkeypatch, capsys):
    _drop_index(worked)
    code, said = _at_a_terminal(monkeypatch, capsys, worked, "init")
    assert code == 0 and CATCHING_UP in said


def test_doctor_at_a_terminal_on_a_project_whose_index_is_gone_shows_the_replay(worked, monkeypatch, capsys):
    _drop_index(worked)
    _, said = _at_a_terminal(monkeypatch, capsys, worked, "doctor")
    assert CATCHING_UP in said


def test_a_command_in_a_pipe_shows_no_progress_of_a_replay(worked, monkeypatch, capsys):
    _drop_index(worked)
    monkeypatch.setattr(runner_module, "REPLAY_BATCH", 3)
    code, _, err = run(capsys, worked, "handoff", "list")
    assert code == 0 and CATCHING_UP not in err and "\r" not in err


def test_a_command_in_a_pipe_that_must_replay_the_ledger_first_says_so_in_one_line_with_why(worked, monkeypatch,
                                                                                           capsys):
    _drop_index(worked)  # as after an upgrade whose projections changed: the whole ledger is replayed
    monkeypatch.setattr(runner_module, "REPLAY_BATCH", 3)
    code, out, err = run(capsys, worked, "handoff", "list", "--json")
    held = sum(len(feed.read_bytes().splitlines()) for feed in (worked / ".baton" / "ledger").glob("*.jsonl"))
    assert code == 0 and out.startswith("{")  # the answer on stdout, untouched
    assert err == (f"baton: rebuilding the index from the ledger ({runner_module.NEW_INDEX}): {held} events to "
                   "replay before this command answers\n")


def test_a_command_in_a_pipe_says_nothing_of_a_replay_of_one_batch(worked, capsys):
    _drop_index(worked)  # a few events: the replay is one batch, over before anyone waits
    code, _, err = run(capsys, worked, "handoff", "list")
    assert code == 0 and err == ""


def test_a_hook_path_command_in_a_pipe_says_nothing_of_the_replay_it_must_do(worked, monkeypatch, capsys):
    _drop_index(worked)
    monkeypatch.setattr(runner_module, "REPLAY_BATCH", 3)
    code, _, err = run(capsys, worked, "bootstrap", "--json")
    assert code == 0 and "rebuilding the index" not in err  # a harness may show a hook's stderr


def test_a_replay_at_a_terminal_marks_its_total_as_an_estimate_until_it_is_done(worked, monkeypatch, capsys):
    # events of very different sizes: the total, estimated from the bytes read so far, moves as it goes
    run(capsys, worked, "checkpoint", "create", "--title", "long", "--objective", "o " * 20_000, "--no-input")
    _drop_index(worked)
    code, said = _at_a_terminal(monkeypatch, capsys, worked, "handoff", "list")
    held = sum(len(feed.read_bytes().splitlines()) for feed in (worked / ".baton" / "ledger").glob("*.jsonl"))
    shown = [part.strip() for part in said.replace("\n", "\r").split("\r") if part.strip()]
    assert code == 0 and len(shown) >= 2
    assert all("/~" in line for line in shown[:-1])  # "2000/~9974 events": said to be an estimate
    assert shown[-1] == f"{CATCHING_UP} {held}/{held} events"  # the whole count, exact, once done


def test_a_replay_of_whole_batches_ends_its_progress_line_once(worked, monkeypatch, capsys):
    _drop_index(worked)
    terminal = _Terminal()
    monkeypatch.setattr(runner_module, "REPLAY_BATCH", 1)  # every count a whole number of batches
    monkeypatch.setattr(sys, "stderr", terminal)
    code, _, _ = run(capsys, worked, "handoff", "list")
    said = terminal.getvalue()
    assert code == 0 and CATCHING_UP in said
    # the last batch's count is not a second line (the done line padded over the estimate's "~")
    assert said.count("\n") == 1 and said.endswith("\n") and said.rstrip("\n ").endswith(" events")


def test_an_interrupt_during_a_catch_up_at_a_terminal_is_said_on_a_line_of_its_own(worked, monkeypatch, capsys):
    _drop_index(worked)
    catching_up = opened_module.catching_up

    def interrupted_after_the_first_batch():
        show = catching_up()

        def then_interrupted(done: int, total: int) -> None:
            show(done, total)
            raise KeyboardInterrupt  # Ctrl-C while the catch-up runs

        return then_interrupted

    monkeypatch.setattr(opened_module, "catching_up", interrupted_after_the_first_batch)
    code, said = _at_a_terminal(monkeypatch, capsys, worked, "handoff", "list")
    assert code == 130 and CATCHING_UP in said
    assert said.endswith(f" events\nbaton: interrupted {NOTHING_DONE}\n")


def test_a_progress_line_whose_estimate_shrinks_a_digit_leaves_nothing_of_the_longer_one(monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    show = opened_module.progress("replaying")
    assert show is not None
    show(2000, 100011)
    show(4000, 99998)  # the estimate from the bytes read so far changes as the catch-up goes
    before, after = terminal.getvalue().split("\r")[1:]
    assert after.rstrip(" ") == "replaying 4000/99998 events" and len(after) >= len(before)
    show(99998, 99998)


@pytest.mark.parametrize("command", ["lineage", "handoff show"])
def test_a_view_as_of_a_point_at_a_terminal_shows_the_progress_of_its_replay(worked, monkeypatch, capsys, command):
    """``--as-of`` replays the ledger up to that point (~15 s at 100,000 events for a recent one): silent before."""
    from baton.app import Baton
    from tests.handoff_support import payload

    with Baton.open(worked) as app:
        handoff_id = app.capture(payload()).handoff_id
    run(capsys, worked, "handoff", "list")  # the live index up to date: only the replay is left to show
    args = command.split() + ([handoff_id] if command == "handoff show" else [])
    code, said = _at_a_terminal(monkeypatch, capsys, worked, *args, "--as-of", "2999-01-01T00:00:00Z")
    assert code == 0 and "baton: replaying the ledger as of 2999-01-01T00:00:00Z:" in said


@pytest.mark.parametrize("command", ["lineage", "handoff show"])
def test_a_replay_as_of_a_point_is_never_said_to_bring_the_index_up_to_date(worked, monkeypatch, capsys, command):
    """The replay goes into a throwaway index (the live one is neither pinned nor written): tester-use17 T6."""
    from baton.app import Baton
    from tests.handoff_support import payload

    with Baton.open(worked) as app:
        handoff_id = app.capture(payload()).handoff_id
    run(capsys, worked, "handoff", "list")
    args = command.split() + ([handoff_id] if command == "handoff show" else [])
    code, said = _at_a_terminal(monkeypatch, capsys, worked, *args, "--as-of", "2999-01-01T00:00:00Z")
    assert code == 0 and CATCHING_UP not in said


def test_a_replay_as_of_a_point_counts_against_the_events_the_feeds_hold_not_an_estimate(worked, monkeypatch, capsys):
    """Its total is the feeds' count of events (each feed's last seq), the same on every line: an
    estimate from the bytes read wandered by hundreds at 100,000 events (tester-use17 T6)."""
    from baton.app import Baton
    from baton.ledger.tail import events_held
    from tests.cli_support import ledger_size

    with Baton.open(worked) as app:
        held = events_held(app.project.ledger)
    assert held == ledger_size(worked)
    run(capsys, worked, "handoff", "list")
    code, said = _at_a_terminal(monkeypatch, capsys, worked, "lineage", "--as-of", "2999-01-01T00:00:00Z")
    shown = [line.strip().rsplit(" ", 2)[-2] for line in said.replace("\r", "\n").splitlines() if "replaying" in line]
    totals = {int(pair.split("/")[1]) for pair in shown[:-1]}
    assert code == 0 and len(shown) >= 2 and totals == {held}
    done, total = shown[-1].split("/")
    assert done == total
