"""The suite's own plumbing: ``Terminal.hang_up`` closes the terminal as a closed window does."""

from __future__ import annotations

import sys

from tests.e2e.terminal import Terminal

ON_HANGUP = """
import signal, sys, time
def hung_up(*_):
    open(sys.argv[1], "w").write("SIGHUP")
    sys.exit(0)
signal.signal(signal.SIGHUP, hung_up)
print("waiting", flush=True)
time.sleep(120)
"""


def test_hang_up_sends_sighup_to_the_program_even_while_the_terminal_is_being_read(tmp_path):
    """The reader is never blocked in a read that would keep the master open: closing it hangs up."""
    told = tmp_path / "told"
    with Terminal([sys.executable, "-c", ON_HANGUP, str(told)], tmp_path, {"PATH": "/usr/bin:/bin"}) as program:
        program.wait_for("waiting", why="the program's line")
        program.hang_up()
        assert program.wait_until_ended() == 0
    assert told.read_text() == "SIGHUP"
