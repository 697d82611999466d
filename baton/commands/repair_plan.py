"""What a repair would set aside and keep, said the same by ``baton repair`` and ``baton verify``."""

from __future__ import annotations

from baton.domain.wording import counted
from baton.ledger.repair import FeedRepair


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
    restore = "Restored" if verb == "Set aside" else "Would restore"
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
