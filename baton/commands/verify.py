"""``baton verify``: check every feed's chain, digests, sequence and streams."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from baton.commands.batons import render_claim_conflicts
from baton.model import frozen
from baton.ledger.verify import VerifyReport, verify_ledger

if TYPE_CHECKING:
    from baton.commands.context import Project


@frozen
class VerifyResult:
    report: VerifyReport
    claim_conflicts: list[dict] = attrs.field(factory=list)
    """Baton claims that lost to another replica's earlier claim (``baton sync``):
    shown, not failures — the ledger holds both, and every replica agrees which won."""

    @property
    def exit_code(self) -> int:
        return 0 if self.report.ok else 3

    def to_json(self) -> dict:
        return {**self.report.to_json(), "claim_conflicts": list(self.claim_conflicts)}

    def render(self) -> str:
        r = self.report
        lines = []
        for f in r.feeds:
            note = ""
            if f.erased:
                note += f", {f.erased} payload(s) erased"
            if f.torn:
                note += f", torn tail of {f.torn.length} bytes at {f.torn.offset} (quarantined by the next write)"
            mark = "ok  " if not f.problems else "FAIL"
            lines.append(f"{mark} {f.feed}: {f.events} events, last seq {f.head.seq}{note}")
        for p in r.all_problems():
            where = f"byte {p.offset}" if p.offset >= 0 else "merged order"
            lines.append(f"  problem in {p.feed} seq {p.seq} ({where}): {p.kind}: {p.message}")
        if r.erased_by_forget:
            n = r.erased_by_forget
            lines.append(f"{n} payload{'' if n == 1 else 's'} erased by forget")
        for p in r.concurrent:
            lines.append(f"  concurrent in {p.feed} seq {p.seq}: {p.message} (replicas apart; not a failure)")
        lines.extend(render_claim_conflicts(list(self.claim_conflicts)))
        verdict = "ledger verified" if r.ok else "ledger has problems"
        lines.append(f"{verdict}: {r.event_count} events in {len(r.feeds)} feed(s)")
        return "\n".join(lines)


def verify_project(project: "Project") -> VerifyResult:
    """Raises: NotInitialized."""
    from baton.domain.forgetting import erased_by

    opened = project
    report = verify_ledger(opened.paths.ledger_dir, erased_by)
    conflicts: list[dict] = []
    if report.concurrent:  # only replicas apart can lose a claim: the index is read only then
        from baton.errors import BatonError
        from baton.projections.batons import claim_conflicts

        try:
            conflicts = claim_conflicts(opened.reading().docs("batons"))
        except BatonError:
            conflicts = []  # a ledger verify reports as damaged cannot be folded; its report says why
    return VerifyResult(report, conflicts)
