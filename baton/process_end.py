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
"""

from __future__ import annotations

import sys

_ENDS_WITH_EXIT = [False]
_KEPT: list[object] = []


def ends_with_exit() -> None:
    """This process ends with ``os._exit`` (``baton.cli.run``, a hook-path command)."""
    _ENDS_WITH_EXIT[0] = True


def keep_until_exit(resource: object) -> bool:
    """Keep ``resource`` referenced until the process exits, instead of closing
    it: True when the process ends with ``os._exit`` (the caller then does not
    close it), else False (the caller closes it now)."""
    if not _ENDS_WITH_EXIT[0]:
        return False
    _KEPT.append(resource)
    return True



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
