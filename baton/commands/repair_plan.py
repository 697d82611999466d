"""What a repair would set aside and keep: planned (``repair_plans``) and said (``plan_lines``)
the same by ``baton repair`` and ``baton verify``."""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, Iterable

import baton.ledger.files as files
from baton.commands.context import foreign_feed_name
from baton.commands.synced_feed import synced_copy, synced_seq
from baton.domain.repair_choice import decide_repair
from baton.domain.wording import counted
from baton.errors import StorageError
from baton.ledger.feed import FeedHead, FeedProblem, scan_bytes
from baton.ledger.repair import FeedRepair, Unfinished, plan_repair, plan_restore, unfinished_repairs
from baton.ledger.repair_dependents import with_own_dependents
from baton.ledger.verify import VerifyReport

if TYPE_CHECKING:
    from baton.commands.context import Project


def landed(project: "Project", report: VerifyReport) -> list[Unfinished]:
    """The repairs a killed ``baton repair --yes`` cut or rewrote a feed for but never recorded
    (``unfinished_repairs``): the next ``--yes`` records them first."""
    return [u for u in unfinished_repairs(project.paths.baton_dir, report.quarantined) if u.landed]


def repair_plans(project: "Project", report: VerifyReport, finished: list[Unfinished], *,
                 feed: str | None = None, despite_synced: bool = False) -> list[FeedRepair]:
    """The repair of the ledger ``report`` describes (only ``feed``'s, when given), one plan per
    feed: what ``baton verify`` says a repair would do and ``baton repair`` does
    (``baton.domain.repair_choice.decide_repair``), past the repairs ``finished`` records.
    Reads each damaged feed, and this clone's ledger ref only when its own feed may be restored."""
    ledger_dir = project.paths.ledger_dir
    own = project.writer
    plans = with_own_dependents(ledger_dir, report, plan_repair(ledger_dir, report, feed, frozenset(
        name for rel, _ in project.foreign_feeds if (name := foreign_feed_name(rel)))), own,
        lambda: synced_seq(project, own))
    return decide_repair(plans, [u.repair for u in finished], own, feed=feed, despite_synced=despite_synced,
                         synced=lambda name: synced_seq(project, name),
                         restore=lambda name, damaged: restore_plan(project, report, name, damaged))


def restore_plan(project: "Project", report: VerifyReport, feed: str,
                 damaged: FeedRepair | None) -> FeedRepair | None:
    """``feed`` (this clone's own, or its copy of a teammate's) restored from its ledger ref
    (``plan_restore``) when the ref holds it and the file does not extend that copy (``damaged``:
    the feed's cut, None when it has none): damaged where a cut would fork this clone's own feed
    against the remote's copy or lose a teammate's events the ref holds, or forked already by an
    earlier repair. None otherwise (then a plain repair)."""
    base = synced_copy(project, feed, unless_held=damaged is None)  # a sound file that extends it: not read
    if base is None:
        return None
    try:
        raw = files.read_range(str(project.paths.ledger_dir / f"{feed}.jsonl"), 0)
    except FileNotFoundError:
        raw = b""
    except OSError as exc:
        raise StorageError(f"cannot read feed {feed}: {exc}") from exc
    return plan_restore(feed, base, raw, report)


_GAP = re.compile(r"stream (?P<stream>.+): expected version (?P<want>\d+), found (?P<found>\d+)")


def gaps_filled(plans: list[FeedRepair], problems: Iterable[FeedProblem]) -> dict[tuple[str, int | None], str]:
    """The ``stream_gap``s a restore of ``plans`` fills, by ``(feed, seq)`` of the event after the gap,
    each with where the missing versions are: an event of an undamaged feed that builds on events
    this clone's damaged copy of another feed lost, which its ledger ref still holds (tester25 T5)."""
    restored: dict[tuple[str, int], tuple[str, int]] = {}
    for plan in plans:
        if plan.restored:
            for event in scan_bytes(plan.feed, plan.base, FeedHead(), collect=True).events:
                restored[(event.stream, event.stream_version)] = (plan.feed, event.seq)
    out: dict[tuple[str, int | None], str] = {}
    for problem in problems:
        found = _GAP.fullmatch(problem.message) if problem.kind == "stream_gap" and problem.seq is not None else None
        if not restored or found is None:
            continue
        try:
            stream = ast.literal_eval(found["stream"])
        except (ValueError, SyntaxError):
            continue
        where = [restored.get((stream, v)) for v in range(int(found["want"]), int(found["found"]))]
        if where and all(w is not None for w in where):
            feeds = sorted({w[0] for w in where if w is not None})
            out[(problem.feed, problem.seq)] = (
                f"the missing {'version is' if len(where) == 1 else 'versions are'} in feed {', '.join(feeds)}, "
                f"which the repair restores from the ledger ref: feed {problem.feed} itself is sound")
    return out


def seq_range(last: int) -> str:
    """The events ``1..last`` kept, as said: "seq 1-5", "seq 1", "no event"."""
    return "no event" if not last else "seq 1" if last == 1 else f"seq 1-{last}"


def plan_lines(plan: FeedRepair, verb: str, own: str | None = None) -> list[str]:
    """What a repair sets aside of one feed, and keeps, line by line (``repair`` and ``verify`` say the
    same); ``own``: this clone's writer, to name its own feed as its own."""
    kept = seq_range(plan.kept.seq)
    if plan.restored:
        return restore_lines(plan, verb, kept, own)
    after = (f" ({counted(len(plan.kept_after), 'line')} of them after the cut: they chain on past what is set aside)"
             if plan.kept_after else "")
    if not plan.set_aside:  # events run together or out of order: only put back, one a line, in chain order
        rewrite = "Rewrote" if verb == "Set aside" else "Would rewrite"
        return [f"{rewrite} feed {plan.feed} from byte {plan.cut}, setting nothing aside and keeping {kept}: "
                f"{counted(len(plan.kept_after), 'event')} put back one a line, in chain order"]
    lines = [f"{verb} {counted(len(plan.set_aside), 'line')} ({counted(plan.length, 'byte')}) of feed {plan.feed} "
             f"from byte {plan.cut}, keeping {kept}{after}:"]
    for item in plan.set_aside[:20]:
        what = f"seq {item['seq']} {item.get('type', '?')} {item.get('id', '')}" if "seq" in item \
            else "an unreadable line"
        because = f" — {item['reason']}" if item.get("reason") else ""
        lines.append(f"  byte {item['offset']} ({counted(item['bytes'], 'byte')}): {what}{because}")
    if len(plan.set_aside) > 20:
        lines.append(f"  … and {len(plan.set_aside) - 20} more")
    return lines


def caught_up_by_sync(plan: FeedRepair, own: str | None, done: bool) -> str | None:
    """What a repair that cuts this clone's copy of a teammate's feed without restoring it (its
    ledger ref cannot: it holds no more than the cut keeps) says of the events it sets aside or
    acknowledges as lost: they are the teammate's, published to the remote, and the next ``baton
    sync`` fetches them again (tester25 T5). None for this clone's own feed (those events may be
    nowhere else), a restore, or nothing cut. ``done``: the repair is recorded."""
    if own is None or plan.feed == own or plan.restored or (plan.cut is None and not plan.lost):
        return None
    after = "now" if done else "once the repair is recorded"
    return (f"  feed {plan.feed} is a teammate's (this clone holds a copy `baton sync` fetched): {after}, the next "
            "`baton sync` fetches it again from the remote, bringing back the events cut here while the remote "
            "holds them, as their writer published them; the stream_gap they leave in other feeds closes with them")


def feed_named(feed: str, own: str | None) -> str:
    """A feed as a restore names it: this clone's own, or its copy of a teammate's."""
    return f"this clone's own feed {feed}" if feed == own else f"this clone's copy of feed {feed} (a teammate's)"


def restore_lines(plan: FeedRepair, verb: str, kept: str, own: str | None = None) -> list[str]:
    """A restore of a feed from this clone's ledger ref (``plan_restore``), said line by line:
    the byte offsets are the local file's."""
    restore = {"Set aside": "Restored", "Would set aside": "Would restore"}.get(verb, verb.replace("set aside", "restore"))
    lines = [f"{restore} {feed_named(plan.feed, own)} as its ledger ref holds it (seq 1-{plan.restored}, the "
             f"remote's copy at the last sync), keeping {kept}; "
             + (f"{'set' if verb == 'Set aside' else 'setting'} aside {counted(len(plan.set_aside), 'line')} "
                f"({counted(plan.length, 'byte')}) of the local file that cannot be proven to follow it:"
                if plan.set_aside else "nothing of the local file is set aside")]
    for item in plan.set_aside[:20]:
        what = f"seq {item['seq']} {item.get('type', '?')} {item.get('id', '')}" if "seq" in item \
            else "an unreadable line"
        lines.append(f"  byte {item['offset'] - len(plan.base)} ({counted(item['bytes'], 'byte')}): {what}"
                     + (f" — {item['reason']}" if item.get("reason") else ""))
    if len(plan.set_aside) > 20:
        lines.append(f"  … and {len(plan.set_aside) - 20} more")
    return lines
