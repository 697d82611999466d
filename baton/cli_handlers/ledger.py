"""The ledger's commands: init, log, verify, rebuild, gc, forget, audit, sync, repair."""

from __future__ import annotations

import argparse
import sys

from baton.app import Baton
from baton.cli_handlers.opened import catching_up, long_progress, progress, say_damage, say_waiting
from baton.errors import InputError
from baton.harnesses.notices_write import leave_kept, stamp


def init(args: argparse.Namespace):
    return Baton.init(args.project, project_id=args.project_id, on_wait=say_waiting if sys.stderr.isatty() else None,
                      on_progress=catching_up())


def log(app: Baton, args: argparse.Namespace):
    """Without ``--limit``, the newest 50 events (``log.DEFAULT_LIMIT``); when the limit left
    some out, the text is followed by a line on stderr saying how many (``--json``: a last line)."""
    stream = app.log_stream(event_type=args.type, stream=args.stream, since=args.since, until=args.until,
                            limit=args.limit,
                            progress=None if args.json else long_progress("baton: reading the ledger:"))
    tail = stream.tail
    if tail is not None:
        stream.after_note = lambda: log_left_out(tail.limit, tail.more) if tail.truncated else None
    return stream


def log_left_out(limit: int, more: int | None) -> str:
    """What ``baton log`` says after the newest ``limit`` events when ``more`` (None: uncounted) came before."""
    earlier = f"{more:,} earlier" if more is not None else "earlier"
    return (f"the newest {limit} events shown; {earlier} matching events left out: a larger --limit shows more, "
            "--limit 0 every one")


def verify(app: Baton, args: argparse.Namespace):
    return app.verify(progress=None if args.json else progress("baton: verifying the ledger:"))


def rebuild(app: Baton, args: argparse.Namespace):
    if args.if_needed and args.until:
        raise InputError("--if-needed brings the index up to date; --until pins it in the past: pass one of them")
    # ``--lock-wait``: the project was opened with it (``opened.limits_of``).
    done = app.rebuild(until=args.until, if_needed=args.if_needed,
                       progress=None if args.json else progress("baton: replaying the ledger:", estimated=True))
    if done.lost:  # as a reading command says it: the loss, and the files kept from it
        say_damage(done.lost, list(done.kept_files))
    # What the kept hooks it ran have to say, for the next session start.
    leave_kept(app.project.paths.baton_dir, done.deferred,
               at=stamp())
    return done


def gc(app: Baton, args: argparse.Namespace):
    return app.gc(dry_run=args.dry_run)


def forget(app: Baton, args: argparse.Namespace):
    if not args.yes:
        plan = app.forget(args.id, reason=args.reason, yes=False)
        derived = plan.derived_line()
        if not _asking_a_person() or args.json:
            raise InputError(f"{plan.unconfirmed()}: pass --yes" + (f"\n{derived}" if derived and not args.json else ""),
                             details=plan.to_json())
        sys.stderr.write(plan.plan_line() + (f"\n{derived}" if derived else "") + "\nErase them for good? [y/N] ")
        sys.stderr.flush()
        if sys.stdin.readline().strip().lower() not in ("y", "yes"):
            raise InputError("nothing was erased (not confirmed)", details=plan.to_json())
    return app.forget(args.id, reason=args.reason, yes=True)


def _asking_a_person() -> bool:
    """Whether a question can be asked: standard input and error are a terminal
    (either may be closed: ``<&-``, a daemon)."""
    try:
        return bool(sys.stdin and sys.stdin.isatty() and sys.stderr and sys.stderr.isatty())
    except ValueError:  # a stream closed by Python
        return False


def audit(app: Baton, args: argparse.Namespace):
    return app.audit(progress=None if args.json else progress("baton: reading the ledger:"))


SYNC_FLAGS = {"restore_own_feed": "--restore-own-feed", "accept_project": "--accept-project", "yes": "--yes"}
"""The parameters a sync's refusals name (`` `restore_own_feed` ``; `` `yes` `` of ``baton repair``), as the
text output spells them; ``--json`` keeps the parameter names (as the application words them)."""


def sync(app: Baton, args: argparse.Namespace):
    result = app.sync(remote=args.remote, ref=args.ref, restore_own_feed=args.restore_own_feed,
                      accept_project=args.accept_project,
                      progress=None if args.json else progress("baton: folding what was imported:"),
                      publishing=None if args.json else long_progress("baton: publishing this clone's feeds:"),
                      erasing=None if args.json else long_progress("baton: checking copies that differ by erased "
                                                                   "payloads:"))
    return result if args.json else result.named(SYNC_FLAGS)


def repair(app: Baton, args: argparse.Namespace):
    return app.repair(feed=args.feed, dry_run=args.dry_run, yes=args.yes, despite_synced=args.despite_synced,
                      progress=None if args.json else progress("baton: verifying the ledger:"))
