"""Running a handler on an opened project: one ``Baton``, built once and closed when the command is done."""

from __future__ import annotations

import sys

from baton.app import Baton, Limits
from baton.domain.shell_words import quote
from baton.domain.visible import printable
from baton.errors import InputError

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    import argparse
    from pathlib import Path
    from typing import Any, Callable


def run_on_project(handler: Callable[[Baton, argparse.Namespace], Any], args: argparse.Namespace,
                   show: Callable[[Any], None] | None = None) -> Any:
    """The handler's result, handed to ``show`` (its printing) before the
    project is closed: a result printed as it is read (``baton log``) reads
    the ledger while it prints."""
    with Baton.open(args.project, limits=limits_of(args), feed_links=getattr(args, "feed_links", False)) as app:
        # The project's policy, loaded before the command runs: a malformed
        # policy section or policy.json stops it (exit 2), as a malformed
        # config.json does, instead of being silently replaced by the defaults.
        args.output_policy = app.project.policy.redaction
        args.opened = app.project
        if app.project.policy.untrusted and not getattr(args, "says_trust", False):
            say_untrusted_policy(app.project.policy.trust.message())
        app.project.on_writer_change = say_new_writer
        app.project.on_damage = say_damage
        app.project.on_disk_full = say_disk_full
        if sys.stderr.isatty():
            app.project.on_wait = say_waiting
        if sys.stderr.isatty() or not _hook_path(args):
            app.project.on_progress = catching_up()
        result = handler(app, args)
        if show is not None:
            show(result)
        return result


HOOK_PATH_HANDLERS = frozenset({"sessions", "session_end", "resume"})
"""The handler modules of the commands harness hooks run (``bootstrap``, ``session …``, ``resume``:
``cli_run.HOOK_PATH_COMMANDS``): quiet where no terminal shows them (docs/hooks.md)."""


def _hook_path(args: argparse.Namespace) -> bool:
    return str(getattr(args, "func", "")).partition(":")[0] in HOOK_PATH_HANDLERS


def limits_of(args: argparse.Namespace) -> Limits:
    """How long the command waits for the ledger lock: without limit, as a
    person's command does, unless it takes ``--lock-wait`` (``baton rebuild``):
    then the replay and every kept hook it runs give up past it (``LedgerBusy``),
    so a stuck holder ends it too."""
    wait = getattr(args, "lock_wait", None)
    if wait is None:
        return Limits()
    if not 0 <= wait < float("inf"):  # nan is neither
        raise InputError(f"--lock-wait must be a number of seconds >= 0, not {wait:g}")
    return Limits(write_wait=wait, read_wait=wait)


def say_new_writer(change: Any) -> None:
    """Once, when this copy of a project takes a writer id of its own (``Project.claim_writer``)."""
    sys.stderr.write(f"baton: {change.message}\n")
    sys.stderr.flush()


def say_untrusted_policy(message: str) -> None:
    """Once per command: the committed policy holds settings this clone has not trusted,
    which are not applied (``--json`` also carries it: ``untrusted_policy``). The values
    are the committed policy's, so every control and invisible character is shown as an
    escape (``printable``), newlines and tabs too: the warning stays one honest line."""
    shown = printable(message).replace("\n", "\\n").replace("\t", "\\t")
    sys.stderr.write(f"baton: warning: {shown}\n")
    sys.stderr.flush()


def say_disk_full(message: str) -> None:
    """A reading command on a full disk: it answers from memory (the index copied there and brought up to
    date, or a replay of the ledger), and says so once."""
    sys.stderr.write(f"baton: warning: {message}: this answer was read in memory (the index copied there and "
                     "brought up to date, or the ledger replayed there: nothing is written, and a line a failed "
                     "write cut short is read around); writing commands refuse until there is room: free space "
                     "on that disk\n")
    sys.stderr.flush()


def say_damage(message: str, kept: list[str]) -> None:
    """A reading command found a feed that lost lines the index acknowledged:
    it answers from what the feeds hold, and says so (exit 0) — and names the
    files kept although no event left shows them (``kept``, relative to ``.baton/``)."""
    sys.stderr.write(f"baton: warning: {message}: events this project acknowledged are gone. This answer holds "
                     "what is left, and writes stop until the feed is restored from a copy or a confirmed "
                     "`baton repair` records the loss; `baton verify` shows the damage (docs/ledger.md)\n")
    if kept:
        shown = ", ".join(f".baton/{rel}" for rel in kept[:5]) + (f" and {len(kept) - 5} more" if len(kept) > 5 else "")
        sys.stderr.write(f"baton: kept {shown}: written from the lost events, "
                         f"{'it is' if len(kept) == 1 else 'they are'} the only whole copy of what they recorded; "
                         "restoring the feed shows them again, and `baton repair --yes` moves them into "
                         ".baton/quarantine/ (docs/ledger.md, \"Files the lost events showed\")\n")
    sys.stderr.flush()


def say_waiting(*, catch_up: bool = False, pid: int | None = None, lock: Path | None = None) -> None:
    """On a terminal: this command waits for the ledger lock another process
    holds — a background catch-up (``catch_up``, its ``pid``), which replays
    a large ledger in seconds, or another baton process (how to find it)."""
    if catch_up:
        who = f"a catch-up in the background, pid {pid}" if pid is not None else "a catch-up in the background"
        why = f"{who}, replays a large one in seconds"
    else:
        why = (f"`lsof {quote(str(lock))}` names it: the process whose descriptor ends in W"
               if lock is not None else "another command or a hook")
    sys.stderr.write(f"baton: waiting for another baton process to let go of the ledger ({why})...\n")
    sys.stderr.flush()


class _ProgressLine:
    """Whether a progress line is on the terminal, not yet ended, and how wide it is."""

    open = False
    width = 0


def end_progress_line() -> None:
    """End a progress line a failure or an interrupt cut short, so what is
    said next (``baton: interrupted``) starts a line of its own."""
    if _ProgressLine.open:
        _ProgressLine.open = False
        sys.stderr.write("\n")
        sys.stderr.flush()


def progress(label: str, estimated: bool = False) -> Callable[[int, int], None] | None:
    """A progress display on a terminal (``label`` then events done of about
    how many, on one line); nothing when stderr is not one. ``estimated``: the total
    is estimated as the work goes (from the bytes read so far) and may move, so it
    is shown as one (``2000/~9974``) until the work is done."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        line = f"{label} {done}/{'~' if estimated and done < total else ''}{total} events"
        # padded over the line before: an estimate one digit shorter leaves no "eventss"
        sys.stderr.write("\r" + line.ljust(_ProgressLine.width if _ProgressLine.open else 0))
        _ProgressLine.open, _ProgressLine.width = done < total, len(line)
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show


def hashing_progress(done: int, total: int, line: str) -> None:
    """On stderr (never in ``--json``'s answer), ``line``: the artifact a hook's capture left not hashed
    yet that ``handoff validate`` or ``handoff ready`` begins to hash, the ``done + 1``-th of ``total`` (a
    folder can take a while). On a terminal one line rewritten in place, ended when all are done (nothing
    more is said then); elsewhere a line per artifact."""
    if done >= total:
        if sys.stderr.isatty() and _ProgressLine.open:
            sys.stderr.write("\n")
            sys.stderr.flush()
            _ProgressLine.open = False
        return
    if sys.stderr.isatty():
        sys.stderr.write("\r" + line.ljust(_ProgressLine.width if _ProgressLine.open else 0))
        _ProgressLine.open, _ProgressLine.width = True, len(line)
    else:
        sys.stderr.write(line + "\n")
    sys.stderr.flush()


def catching_up() -> Callable[[int, int], None] | None:
    """On a terminal, the progress of a long catch-up a command does before it
    answers (a replay after an upgrade, a large pull): shown from its first
    batch on, so a catch-up of a few events (every command's) says nothing.
    A throwaway replay (``--as-of``) asks it for its own words (``CatchingUp.replaying``)."""
    show = long_progress("baton: bringing the index up to date:", estimated=True)
    return CatchingUp(show) if show is not None else RebuildNote()


class RebuildNote:
    """Where no terminal shows progress (a pipe, a script, an agent's shell): one line on stderr when a
    command must replay the whole ledger before it answers — the first command after an upgrade whose
    projections changed, or after the index was deleted or damaged (48 s at 100k events) — saying why,
    so the wait is not mistaken for a hang. A replay of one batch or less, and a catch-up of what the
    feeds gained, say nothing; a requested rebuild (``baton rebuild``) says its own."""

    def __init__(self) -> None:
        self._reason: str | None = None
        self._said = False

    def rebuilding(self, reason: str | None) -> None:
        self._reason = None if reason == "requested" else reason or "requested"

    def __call__(self, done: int, total: int) -> None:
        if self._said or self._reason is None or done >= total:
            return
        self._said = True
        sys.stderr.write(f"baton: rebuilding the index from the ledger ({self._reason}): {total} events to replay "
                         "before this command answers\n")
        sys.stderr.flush()

    @staticmethod
    def replaying(label: str) -> None:
        """A throwaway replay (``--as-of``) says nothing where no terminal shows it."""
        return None


class CatchingUp:
    """``catching_up()``'s display; ``replaying(label)`` the one a replay into a throwaway index
    shows instead (``projections.as_of``): the live index is not what it brings up to date."""

    def __init__(self, show: Callable[[int, int], None]) -> None:
        self._show = show

    def __call__(self, done: int, total: int) -> None:
        self._show(done, total)

    @staticmethod
    def replaying(label: str) -> Callable[[int, int], None] | None:
        return long_progress(f"baton: replaying the ledger {label}:")


def long_progress(label: str, estimated: bool = False) -> Callable[[int, int], None] | None:
    """``progress(label)``, shown only for work of more than one step: work
    done in one step (its first report already says it is done) says nothing."""
    show = progress(label, estimated)
    if show is None:
        return None
    shown = False

    def maybe(done: int, total: int) -> None:
        nonlocal shown
        if shown or done < total:
            shown = True
            show(done, total)

    return maybe
