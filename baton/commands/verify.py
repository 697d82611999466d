"""``baton verify``: check every feed's chain, digests, sequence and streams."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from baton.commands.batons import render_claim_conflicts
from baton.model import frozen
from baton.ledger.verify import RecordedHead, VerifyReport, verify_ledger
from baton.sync_signing import SIGNATURE_PROBLEMS, FeedSigner, feed_signers, render_signers, require_signatures

if TYPE_CHECKING:
    from baton.commands.context import Project


@frozen
class VerifyResult:
    report: VerifyReport
    claim_conflicts: list[dict] = attrs.field(factory=list)
    """Baton claims that lost to another replica's earlier claim (``baton sync``):
    shown, not failures — the ledger holds both, and every replica agrees which won."""
    signers: list[FeedSigner] = attrs.field(factory=list)
    """Signed feeds (docs/sync.md): each feed's signer, its signature checked again."""
    require_signatures: bool = False

    @property
    def unsigned(self) -> list[FeedSigner]:
        """Feeds whose signature is missing or not good, when the project requires signatures."""
        return [s for s in self.signers if s.status in SIGNATURE_PROBLEMS] if self.require_signatures else []

    @property
    def exit_code(self) -> int:
        return 0 if self.report.ok and not self.unsigned else 3

    def to_json(self) -> dict:
        return {**self.report.to_json(), "claim_conflicts": list(self.claim_conflicts),
                "signers": [s.to_json() for s in self.signers], "require_signatures": self.require_signatures}

    def render(self) -> str:
        r = self.report
        lines = []
        failing = {p.feed for p in r.all_problems()}
        for f in r.feeds:
            note = ""
            if f.erased:
                note += f", {f.erased} payload(s) erased"
            if f.torn:
                note += f", torn tail of {f.torn.length} bytes at {f.torn.offset} (quarantined by the next write)"
            mark = "FAIL" if f.feed in failing else "ok  "
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
        lines.extend(render_signers(self.signers, self.require_signatures))
        verdict = "ledger verified" if r.ok and not self.unsigned else "ledger has problems"
        lines.append(f"{verdict}: {r.event_count} events in {len(r.feeds)} feed(s)")
        if not r.ok:
            lines.append("`baton repair --dry-run` shows what a repair would set aside (docs/ledger.md)")
        return "\n".join(lines)


def verify_project(project: "Project") -> VerifyResult:
    """Raises: NotInitialized."""
    from baton.events import HandoffForgotten

    opened = project
    heads = index_heads(opened.paths.index, read_only=opened.read_only)
    report = verify_ledger(opened.paths.ledger_dir, erasure_type=HandoffForgotten.TYPE, recorded_heads=heads)
    conflicts: list[dict] = []
    if report.concurrent:  # only replicas apart can lose a claim: the index is read only then
        from baton.errors import BatonError
        from baton.projections.batons import claim_conflicts

        try:
            conflicts = claim_conflicts(opened.reading().docs("batons"))
        except BatonError:
            conflicts = []  # a ledger verify reports as damaged cannot be folded; its report says why
    signers = feed_signers(opened, [f.feed for f in report.feeds], recheck=True)
    return VerifyResult(report, conflicts, signers, bool(signers) and _required(opened))


def _required(project: "Project") -> bool:
    from baton.errors import InputError

    try:
        return require_signatures(project)
    except InputError:
        return True  # a malformed setting asks for more, not less


def index_heads(index: Path, *, read_only: bool = False) -> list[RecordedHead]:
    """The furthest head of each feed the index has folded (none without an
    index: then only the ledger's own ``ledger.heads`` events vouch)."""
    import sqlite3

    if not index.is_file():
        return []
    try:
        # On a read-only .baton/ even mode=ro would create the WAL's -shm file:
        # read the database file alone (what the last checkpoint holds).
        query = "?mode=ro&immutable=1" if read_only else "?mode=ro"
        conn = sqlite3.connect(f"{index.as_uri()}{query}", uri=True)
        try:
            rows = conn.execute("SELECT feed, seq, hash, offset FROM feed_heads").fetchall()
        finally:
            conn.close()
    except sqlite3.Error:
        return []  # an index from before feed heads were kept, or a damaged one: nothing recorded
    return [RecordedHead(feed, seq, hash_, offset, "the index") for feed, seq, hash_, offset in rows]
