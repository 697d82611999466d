"""A harness's interactive TUI in a real pseudo-terminal, read as a person reads it.

``Terminal(argv, cwd, env)`` starts the program on the slave side of
``pty.openpty()`` (120 columns by 40 rows, its own session and process group,
so the pty is its controlling terminal), reads everything it writes in a
thread, and keeps two readings of it:

- ``screen()``: what the terminal shows now, from a small emulator of the
  control sequences the TUIs use (cursor moves, erases, the alternate screen);
- ``transcript()``: every character it ever printed, in order, a space for
  each cursor move across and a line break for each move down: what flashed
  by and was drawn over is still in it (a hook's error shown for a moment).

``hang_up()`` closes the terminal under the program (``SIGHUP``, as a closed
window sends). ``type(text)`` writes keys as a person types them; ``wait_for(text)`` polls
the screen and the transcript for ``text`` until a deadline and fails the test
with the screen when it never shows. No assertion here is about time: a
deadline only turns a hang into a failure that shows the screen.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import termios
import threading
import time
from pathlib import Path

import pytest

COLUMNS, ROWS = 120, 40

_SEQUENCE = re.compile(
    rb"\x1b\[([0-?]*)([ -/]*)([@-~])"          # CSI: parameters, intermediates, final
    rb"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"      # OSC (a title, a hyperlink)
    rb"|\x1b[P_^X][^\x1b]*\x1b\\"                # DCS, APC, PM, SOS
    rb"|\x1b[()*+][0-9A-Za-z]"                  # character set designation
    rb"|\x1b([0-~])"                            # two-character sequences (ESC 7, ESC 8, ESC M…)
    rb"|[\x00-\x1f]"                            # C0 controls
)


class Screen:
    """A ``ROWS`` x ``COLUMNS`` grid of characters and a cursor, fed the program's output."""

    def __init__(self) -> None:
        self.rows = [[" "] * COLUMNS for _ in range(ROWS)]
        self.row = self.column = 0
        self.saved = (0, 0)
        self.printed: list[str] = []

    def feed(self, data: bytes) -> None:
        position = 0
        for match in _SEQUENCE.finditer(data):
            self._print(data[position:match.start()])
            position = match.end()
            self._control(match)
        self._print(data[position:])

    def text(self) -> str:
        return "\n".join("".join(row).rstrip() for row in self.rows).strip("\n")

    def _print(self, chunk: bytes) -> None:
        text = chunk.decode("utf-8", "replace")
        self.printed.append(text)
        for character in text:
            if self.column >= COLUMNS:
                self.column = 0
                self._down()
            self.rows[self.row][self.column] = character
            self.column += 1

    def _down(self, lines: int = 1) -> None:
        for _ in range(lines):
            if self.row == ROWS - 1:
                self.rows = self.rows[1:] + [[" "] * COLUMNS]
            else:
                self.row += 1

    def _move(self, row: int | None = None, column: int | None = None) -> None:
        if row is not None and row != self.row:
            self.printed.append("\n")
        elif column is not None and column != self.column:
            self.printed.append(" ")
        self.row = min(max(self.row if row is None else row, 0), ROWS - 1)
        self.column = min(max(self.column if column is None else column, 0), COLUMNS - 1)

    def _control(self, match: re.Match[bytes]) -> None:
        whole = match.group(0)
        if whole == b"\r":
            self._move(column=0)
        elif whole in (b"\n", b"\x0b", b"\x0c"):
            self.printed.append("\n")
            self._down()
        elif whole == b"\b":
            self._move(column=self.column - 1)
        elif whole == b"\t":
            self._move(column=(self.column // 8 + 1) * 8)
        elif match.group(4) == b"7":
            self.saved = (self.row, self.column)
        elif match.group(4) == b"8":
            self._move(*self.saved)
        elif match.group(3) is not None and not match.group(2):
            self._csi(match.group(1).decode("latin-1"), match.group(3).decode("latin-1"))

    def _csi(self, parameters: str, final: str) -> None:
        if parameters.startswith("?"):
            if final in "hl" and parameters[1:] in ("1049", "47", "1047"):
                self._erase(2)
            return
        numbers = [int(p) if p.isdigit() else 0 for p in parameters.split(";")] if parameters else []
        first = numbers[0] if numbers else 0
        step = first or 1
        if final == "A":
            self._move(row=self.row - step)
        elif final in "Be":
            self._move(row=self.row + step)
        elif final in "Ca":
            self._move(column=self.column + step)
        elif final == "D":
            self._move(column=self.column - step)
        elif final == "E":
            self._move(row=self.row + step, column=0)
        elif final == "F":
            self._move(row=self.row - step, column=0)
        elif final in "G`":
            self._move(column=step - 1)
        elif final == "d":
            self._move(row=step - 1)
        elif final in "Hf":
            self._move(row=step - 1, column=(numbers[1] if len(numbers) > 1 and numbers[1] else 1) - 1)
        elif final == "J":
            self._erase(first)
        elif final == "K":
            line = self.rows[self.row]
            span = {0: range(self.column, COLUMNS), 1: range(0, self.column + 1)}.get(first, range(COLUMNS))
            for column in span:
                line[column] = " "
            self.printed.append("\n")

    def _erase(self, how: int) -> None:
        self.printed.append("\n")
        if how == 0:
            rows = range(self.row + 1, ROWS)
            self.rows[self.row][self.column:] = [" "] * (COLUMNS - self.column)
        elif how == 1:
            rows = range(0, self.row)
            self.rows[self.row][:self.column + 1] = [" "] * (self.column + 1)
        else:
            rows = range(ROWS)
        for row in rows:
            self.rows[row] = [" "] * COLUMNS


def _controlling() -> None:
    """In the child, after ``setsid``: make its standard input, the pty's slave, its controlling terminal."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Terminal:
    """One program running in a pseudo-terminal (see the module's docstring). Use as a context manager:
    at its end a program still running is killed, with its whole process group."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.argv = argv
        self._screen = Screen()
        self._lock = threading.Lock()
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        # Its own session, whose controlling terminal the pty is (``TIOCSCTTY`` after ``setsid``: a
        # session leader gets one only so, the slave having been opened before): closing the master
        # hangs the session up, as closing a terminal window does.
        self.process = subprocess.Popen(argv, cwd=cwd, env=env, stdin=slave, stdout=slave, stderr=slave,
                                        start_new_session=True, close_fds=True, preexec_fn=_controlling)
        os.close(slave)
        self._hung = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        # Never blocked in a read: one in progress would hold the master open past ``hang_up``.
        while not self._hung.is_set():
            try:
                if not select.select([self.master], [], [], 0.2)[0]:
                    continue
                data = os.read(self.master, 65536)
            except OSError:  # EIO: every process holding the slave side has closed it
                return
            if not data:
                return
            with self._lock:
                self._screen.feed(data)
            if b"\x1b[6n" in data:  # "where is the cursor?": a terminal answers, or the TUI waits
                with self._lock:
                    row, column = self._screen.row, self._screen.column
                self._write(f"\x1b[{row + 1};{column + 1}R".encode())

    def _write(self, data: bytes) -> None:
        try:
            os.write(self.master, data)
        except OSError:
            pass

    def screen(self) -> str:
        """What the terminal shows now, one line a row, trailing blanks dropped."""
        with self._lock:
            return self._screen.text()

    def transcript(self) -> str:
        """Everything the program printed (module docstring)."""
        with self._lock:
            return "".join(self._screen.printed)

    def shows(self, text: str) -> bool:
        return text in self.screen() or text in self.transcript()

    def type(self, keys: str) -> None:
        """Keys, as a person types them (``"\\r"`` is Enter, ``"\\x04"`` Ctrl-D)."""
        self._write(keys.encode())

    def wait_for(self, text: str, timeout: float = 180, *, why: str = "", now: bool = False) -> None:
        """Poll until ``text`` shows on the screen (or went by in the transcript; ``now``: on the
        screen, as it is now); past ``timeout`` seconds the test fails, showing the screen."""
        deadline = time.monotonic() + timeout
        while not (text in self.screen() if now else self.shows(text)):
            if time.monotonic() > deadline or (self.process.poll() is not None and not self._reader.is_alive()):
                state = "ended" if self.process.poll() is not None else "running"
                pytest.fail(f"{why or repr(text)} never showed (the program: {state}); the screen:\n"
                            f"{self.screen()}\n--- its transcript's end:\n{self.transcript()[-3000:]}")
            time.sleep(0.25)

    def wait_gone(self, text: str, timeout: float = 180, *, why: str = "") -> None:
        """Poll until ``text`` is no longer on the screen (a hook's "Executing Hook", a menu's
        "Loading suggestions…"); past ``timeout`` seconds the test fails, showing the screen."""
        deadline = time.monotonic() + timeout
        while text in self.screen():
            if time.monotonic() > deadline:
                pytest.fail(f"{why or repr(text)} never went (the screen):\n{self.screen()}")
            time.sleep(0.25)

    def hang_up(self, signal_first: bool = False) -> None:
        """Close the terminal under the program, as closing its window does: the master side is
        closed, and the kernel sends ``SIGHUP`` to the pty's session (the program's). A program may
        notice either first, its terminal gone (a read fails) or the signal; ``signal_first`` makes
        it the signal: ``SIGHUP`` is sent to the program's process group, and the master closed
        half a second later (the kernel's own ``SIGHUP`` follows)."""
        if signal_first:
            os.killpg(self.process.pid, signal.SIGHUP)
            time.sleep(0.5)
        self._hung.set()
        self._reader.join(30)
        if self.master >= 0:
            os.close(self.master)
            self.master = -1

    def wait_until_ended(self, timeout: float = 120) -> int:
        """The program's exit status, once it ended (the test fails, with the screen, if it did not)."""
        try:
            status = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{self.argv[0]} did not end within {timeout:g} s; the screen:\n{self.screen()}")
        self._reader.join(30)
        return status

    def __enter__(self) -> "Terminal":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.process.wait(30)
        self._reader.join(30)
        self.hang_up()
