"""How this ``baton`` process ends, for what is still open at its end.

A hook-path command ends with ``os._exit`` as soon as its output is flushed
(``baton.cli.run``): no interpreter finalization. ``ends_with_exit`` says so
before the command runs, and ``keep_until_exit`` then keeps a resource whose
closing would only cost time, instead of closing it: the index's SQLite
connection (``baton.projections.runner.IndexDb``). Closing the last
connection to a WAL database checkpoints the WAL into the database file and
deletes it (two syncs and a file removed), and the next command's first
commit creates the WAL again (its header and the directory synced): five
syncs a hook where its own work needs one (the ledger's append), from
under a millisecond each on an idle disk to 5–15 ms together on a busy one. Left open, the connection's
committed transactions stay in the WAL, as after a crash, which SQLite's
WAL is built for: the next connection reads them (0.35 ms a MiB of WAL),
and the process that leaves it past 1 MiB checkpoints and truncates it
first (``IndexDb.close``), so that no process reads much of it.

Durability is what ``synchronous=NORMAL`` promised before: a power loss may
roll the index back a few transactions, never tear it, and cursors and
documents roll back together, so the next catch-up folds those events
again from the ledger (the truth, fsynced at each append). A database file
removed by hand while its WAL stays is safe too: SQLite discards the WAL
of an empty database.

Every other command, and a process that calls ``baton.cli.main`` (tests),
closes as before.

An interrupt counts wherever it lands (``InterruptsCount``): Python ignores
an exception raised in a finalizer (a ``__del__``, as dulwich's files and
packs have), printing "Exception ignored" and a traceback, so a Ctrl-C that
arrives while one runs would be lost and the command would end with 0.

A reader that stops reading ends the output, not the command (``baton log |
head -1``): when the process reading a pipe closes it early (``head``, a
pager quit, a harness that stopped reading), every later write to it fails
with EPIPE. The convention (docs/cli.md, "Exit codes"): that is a normal end
of the *output*. Whatever the command would still print there is dropped
without a word — no traceback, no "Exception ignored … BrokenPipeError" at
exit — and the command runs to its own end and exits with its own status: a
checkpoint or a sync piped into ``head`` still finishes what it started,
and a failure still exits with its code. ``guard_standard_streams``, called
once per process by ``baton.cli.run`` before the command, rebuilds standard
output and error, when they are pipes or sockets (nothing else raises
EPIPE), over a writer that turns EPIPE into the end of that stream (its
descriptor then points at /dev/null, so nothing else written there fails
either); a stream replaced before (a test's capture) is left alone. A
streamed listing (``baton log``) asks ``output_gone`` and stops reading once
nobody reads it. A note about the text (``the newest 50 … shown``), said on
stderr after it, is left out when nobody reads that text: ``note_unread``. Here rather than in a module of its own: it runs in every
hook, and a module costs each one (tests/test_hook_path_imports.py).
"""

from __future__ import annotations

import io
import os
import stat
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (this module is on the hook path)
if TYPE_CHECKING:
    from typing import Callable, NoReturn

_ENDS_WITH_EXIT = [False]
_KEPT: list[object] = []
_REPORTS: list[Callable[[int], None]] = []


def ends_with_exit() -> None:
    """This process ends with ``os._exit`` (``baton.cli.run``, a hook-path command)."""
    _ENDS_WITH_EXIT[0] = True


def report_exit_to(report: Callable[[int], None]) -> None:
    """``report`` is told the exit status when this process ends at once
    (``exit_now``): the hook server's child answers the process that relayed
    the command through it (``baton.hook_server.Answer``)."""
    _REPORTS[:] = [report]


def exit_now(code: int) -> NoReturn:
    """End the process at once with ``code`` (``os._exit``: no finalization),
    first telling ``report_exit_to``'s callback, from whatever thread ends it: the
    command's own end (``baton.cli.run``) or its deadline's watchdog
    (``baton.harnesses.hook``), so a relayed hook that gave up ends with its
    status as it does in its own process, not as a killed one."""
    for report in _REPORTS:
        try:
            report(code)
        except Exception:  # noqa: BLE001 - the process ends with its status whatever its relay's fate
            pass
    os._exit(code)


def keep_until_exit(resource: object) -> bool:
    """Keep ``resource`` referenced until the process exits, instead of closing
    it: True when the process ends with ``os._exit`` (the caller then does not
    close it), else False (the caller closes it now)."""
    if not _ENDS_WITH_EXIT[0]:
        return False
    _KEPT.append(resource)
    return True



NOTHING_DONE = "before it recorded anything in the ledger: nothing was changed; run the command again"
"""How "baton: interrupted" goes on when the command had made nothing durable yet."""


class DoneSoFar:
    """What the running command has already made durable, as the words a
    Ctrl-C that lands after it ends with (``interrupted_line``): the command
    notes each durable step as it completes (its events appended, a sync's
    import, its push, a forget's erasure), the latest note replacing the one
    before; a Ctrl-C before any step says that nothing was recorded and to run
    the command again (docs/cli.md, exit codes)."""

    said: str | None = None

    @staticmethod
    def note(sentence: str) -> None:
        """``sentence`` completes "baton: interrupted …" once this step is done."""
        DoneSoFar.said = sentence

    @staticmethod
    def forget() -> None:
        """A new command (or the next one a process runs) has done nothing yet."""
        DoneSoFar.said = None

    @staticmethod
    def interrupted_line() -> str:
        """The one line an interrupted command ends with."""
        return "baton: interrupted " + (DoneSoFar.said or NOTHING_DONE)


class InterruptsCount:
    """While a command runs, a Ctrl-C that Python ignores (it landed in a
    finalizer: ``sys.unraisablehook``) is noted instead of printed as
    "Exception ignored" with a traceback, and ``raise_noted`` raises it once
    the work has unwound: the command line then says ``baton: interrupted``
    (exit 130) instead of printing the result. It cannot be raised at once:
    the hook runs inside the finalizer, where Python ignores it again. Any
    other ignored exception is reported as before."""

    noted = False

    def __enter__(self) -> InterruptsCount:
        self._previous = sys.unraisablehook
        sys.unraisablehook = self._ignored
        InterruptsCount.noted = False
        return self

    def __exit__(self, *exc: object) -> None:
        sys.unraisablehook = self._previous

    def _ignored(self, unraisable: sys.UnraisableHookArgs) -> None:
        if issubclass(unraisable.exc_type, KeyboardInterrupt):
            InterruptsCount.noted = True
            return
        self._previous(unraisable)

    @staticmethod
    def stopped() -> None:
        """A command that stops on Ctrl-C as its normal end (``status serve``,
        exit 0) has answered every interrupt noted before it: none is raised."""
        InterruptsCount.noted = False

    @staticmethod
    def raise_noted() -> None:
        """Raise the interrupt a finalizer swallowed, if one did (once)."""
        if InterruptsCount.noted:
            InterruptsCount.noted = False
            raise KeyboardInterrupt


# -- a reader that stops reading --------------------------------------------------------------

_STREAMS = (("stdout", 1), ("stderr", 2))
_guarded: dict[int, "_PipeEnd"] = {}


class _PipeEnd(io.RawIOBase):
    """A standard stream's descriptor, written until its reader has gone, then silently never again."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self.fd = fd
        self.gone = False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd

    def isatty(self) -> bool:
        return False

    def write(self, data) -> int:
        size = memoryview(data).nbytes
        if self.gone:
            return size
        try:
            return os.write(self.fd, data)
        except BrokenPipeError:
            self.gone = True
            try:  # what anything else writes to this descriptor (an inherited one, the interpreter) goes nowhere too
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, self.fd)
                os.close(null)
            except OSError:
                pass
            return size


def guard_standard_streams() -> None:
    """Make EPIPE on standard output or error the quiet end of that stream (see the module's doc)."""
    for name, fd in _STREAMS:
        stream = getattr(sys, name)
        if stream is None or stream is not getattr(sys, f"__{name}__") or fd in _guarded:
            continue
        try:
            if stream.fileno() != fd or not _is_pipe(fd):
                continue
            stream.flush()
        except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
            continue
        end = _PipeEnd(fd)
        guarded = io.TextIOWrapper(io.BufferedWriter(end), encoding=stream.encoding, errors=stream.errors,
                                   line_buffering=stream.line_buffering, write_through=stream.write_through)
        _guarded[fd] = end
        setattr(sys, name, guarded)


def output_gone() -> bool:
    """Whether standard output's reader has gone (only known of a guarded pipe)."""
    end = _guarded.get(1)
    return end is not None and end.gone


def note_unread() -> bool:
    """Whether a note about the text just printed on standard output (the ``newest 50`` of a
    listing) would reach nobody reading that text: its reader has gone (``output_gone``), or
    the text goes to a program through a pipe while the note would go to a terminal (``baton
    log | head -1``: the person at the terminal reads the program's output, not this text, and
    the note would land after it, or after the program ended). A note to a file, to a terminal
    beside the text, or down a pipe of its own (a harness reading both streams) is read."""
    if output_gone():
        return True
    try:
        return _is_pipe(sys.stdout.fileno()) and sys.stderr.isatty()
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return False  # a stream replaced by the caller (a test's capture): it reads what it asked for


def _is_pipe(fd: int) -> bool:
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)
