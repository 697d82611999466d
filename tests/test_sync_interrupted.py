"""A Ctrl-C during ``baton sync`` ends it with 130 and ``baton: interrupted`` (and what it had done)
(docs/cli.md, exit codes), also when it lands in dulwich's cleanup code: a
finalizer, where Python ignores the ``KeyboardInterrupt`` (it printed
"Exception ignored" and a traceback, and the sync ended with 0, as if it had
not been interrupted; ``baton.process_end.InterruptsCount``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from baton.process_end import InterruptsCount
from tests.cli_support import run_json
from tests.sync_support import make_team

HELPER = Path(__file__).with_name("interrupted_finalizer.py")
PUSHED = ("baton: interrupted after the push to {remote}: the sync is done, do not run it again (the index catches "
          "up at the next command)\n")


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


def _interrupted_in_a_finalizer(tmp_path: Path, project: Path, *args: str) -> subprocess.CompletedProcess:
    marker = tmp_path / "interrupted"
    result = subprocess.run([sys.executable, str(HELPER), str(marker), *args, "--project", str(project)],
                            capture_output=True, text=True, timeout=120, cwd=project)
    assert marker.exists(), result.stderr  # the interrupt was really sent, inside dulwich's finalizer
    return result


def test_a_ctrl_c_landing_in_a_dulwich_finalizer_during_sync_exits_130_without_a_traceback(capsys, tmp_path, team):
    remote, a, _b = team
    run_json(capsys, a, "checkpoint", "create", "--title", "T", "--objective", "O", "--no-input")
    result = _interrupted_in_a_finalizer(tmp_path, a, "sync")
    assert result.returncode == 130, (result.stdout, result.stderr)
    assert result.stderr == PUSHED.format(remote=remote)  # it landed after the push: said so (docs/cli.md)
    assert result.stdout == ""


def test_with_json_the_interrupted_sync_prints_no_result_and_no_json_error(capsys, tmp_path, team):
    remote, a, _b = team
    run_json(capsys, a, "checkpoint", "create", "--title", "T", "--objective", "O", "--no-input")
    result = _interrupted_in_a_finalizer(tmp_path, a, "sync", "--json")
    assert (result.returncode, result.stdout, result.stderr) == (130, "", PUSHED.format(remote=remote))


def test_the_next_sync_after_an_interrupted_one_publishes_the_feed(capsys, tmp_path, team):
    remote, a, b = team
    run_json(capsys, a, "checkpoint", "create", "--title", "T", "--objective", "O", "--no-input")
    assert _interrupted_in_a_finalizer(tmp_path, a, "sync").returncode == 130
    run_json(capsys, a, "sync")
    imported = run_json(capsys, b, "sync")["imported"]
    assert sum(imported.values()) == 2


class _Finalized:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    def __del__(self) -> None:
        raise self.exc


def test_an_interrupt_a_finalizer_swallowed_is_noted_not_printed_and_raised_once(capsys):
    with InterruptsCount():
        _Finalized(KeyboardInterrupt())  # dropped at once: its finalizer runs and raises
        with pytest.raises(KeyboardInterrupt):
            InterruptsCount.raise_noted()
        InterruptsCount.raise_noted()  # raised once: nothing is pending any more
    assert "Exception ignored" not in capsys.readouterr().err


def test_another_exception_a_finalizer_raises_is_still_reported_and_the_hook_is_put_back():
    seen: list[type[BaseException]] = []
    previous = sys.unraisablehook

    def reported(unraisable) -> None:
        seen.append(unraisable.exc_type)

    sys.unraisablehook = reported
    try:
        with InterruptsCount():
            _Finalized(ValueError("boom"))
            InterruptsCount.raise_noted()  # nothing noted: no interrupt
        assert seen == [ValueError]
        assert sys.unraisablehook is reported
    finally:
        sys.unraisablehook = previous
