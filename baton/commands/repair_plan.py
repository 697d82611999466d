"""What a repair would set aside and keep: planned (``repair_plans``) and said (``plan_lines``)
the same by ``baton repair`` and ``baton verify``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import baton.ledger.files as files
from baton.commands.context import foreign_feed_name
from baton.commands.synced_feed import synced_copy, synced_seq
from baton.domain.repair_choice import decide_repair
from baton.domain.wording import counted
from baton.errors import StorageError
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
                         synced=lambda: synced_seq(project, own),
                         restore=lambda damaged: restore_plan(project, report, damaged))


def restore_plan(project: "Project", report: VerifyReport, damaged: FeedRepair | None) -> FeedRepair | None:
    """This clone's own feed restored from its ledger ref (``plan_restore``) when the ref holds
    it and the file does not extend that copy (``damaged``: the feed's cut, None when it has
    none): damaged where a cut would fork it against the remote's copy, or forked already by an
    earlier repair. None otherwise (then a plain repair)."""
    own = project.writer
    base = synced_copy(project, own, unless_held=damaged is None)  # a sound file that extends it: not read
    if base is None:
        return None
    try:
        raw = files.read_range(str(project.paths.ledger_dir / f"{own}.jsonl"), 0)
    except FileNotFoundError:
        raw = b""
    except OSError as exc:
        raise StorageError(f"cannot read feed {own}: {exc}") from exc
    return plan_restore(own, base, raw, report)


def seq_range(last: int) -> str:
    """The events ``1..last`` kept, as said: "seq 1-5", "seq 1", "no event"."""
    return "no event" if not last else "seq 1" if last == 1 else f"seq 1-{last}"


def plan_lines(plan: FeedRepair, verb: str) -> list[str]:
    """What a repair sets aside of one feed, and keeps, line by line (``repair`` and ``verify`` say the same)."""
    kept = seq_range(plan.kept.seq)
    if plan.restored:
        return restore_lines(plan, verb, kept)
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


def restore_lines(plan: FeedRepair, verb: str, kept: str) -> list[str]:
    """A restore of this clone's own feed from its ledger ref (``plan_restore``), said line by line:
    the byte offsets are the local file's."""
    restore = {"Set aside": "Restored", "Would set aside": "Would restore"}.get(verb, verb.replace("set aside", "restore"))
    lines = [f"{restore} this clone's own feed {plan.feed} as its ledger ref holds it (seq 1-{plan.restored}, the "
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
