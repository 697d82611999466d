"""``baton verify``: check every feed's chain, digests, sequence and streams."""

from __future__ import annotations

from typing import TYPE_CHECKING

from baton.model import frozen
from baton.ledger.verify import VerifyReport, verify_ledger

if TYPE_CHECKING:
    from baton.commands.context import Project


@frozen
class VerifyResult:
    report: VerifyReport

    @property
    def exit_code(self) -> int:
        return 0 if self.report.ok else 3

    def to_json(self) -> dict:
        return self.report.to_json()

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
            lines.append(f"{r.erased_by_forget} payloads erased by forget")
        verdict = "ledger verified" if r.ok else "ledger has problems"
        lines.append(f"{verdict}: {r.event_count} events in {len(r.feeds)} feed(s)")
        return "\n".join(lines)


def verify_project(project: "Project") -> VerifyResult:
    """Raises: NotInitialized."""
    from baton.domain.forgetting import erased_by

    opened = project
    return VerifyResult(verify_ledger(opened.paths.ledger_dir, erased_by))
