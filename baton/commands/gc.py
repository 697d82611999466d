"""``baton gc``: remove only what can be rebuilt — the index and the cache.

The ledger, quarantine and materialized records are never touched. Nor
are a running background catch-up's lock and log (``baton.background``):
removed under it, a second one could start beside it, and the error it
logs when it fails would be lost. Nor the marks a session start leaves of a
baton it claimed before any prompt (``cache/unprompted/``): they are no
cache — the session's end hands that baton on again by them, and Gemini
CLI's holds the brief its first prompt is given.

Nor is the index removed while a feed fails its check (a byte changed in
the middle of a feed): the rebuild the next command would start fails on it,
so the index is then the only readable view of the ledger. gc removes
nothing, and says to run ``baton verify`` and ``baton repair``.
"""

from __future__ import annotations

import shutil
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from baton import background
from baton.domain.wording import counted
from baton.errors import LedgerCorrupt, StorageError
from baton.model import frozen

if TYPE_CHECKING:
    from baton.commands.context import Project


@frozen
class GcResult:
    removed: list[dict]
    dry_run: bool
    kept: list[dict] = attrs.field(factory=list)
    """Files left in place, each ``{"path", "reason"}`` (a running catch-up's lock and log)."""
    unlocked: str | None = None
    """A dry run on a read-only ``.baton/``, listed without the ledger lock: why (the answer may move)."""
    exit_code: int = 0

    def to_json(self) -> dict:
        return {"dry_run": self.dry_run, "removed": self.removed,
                "bytes": sum(r["bytes"] for r in self.removed), "kept": self.kept, "unlocked": self.unlocked}

    def render(self) -> str:
        verb = "Would remove" if self.dry_run else "Removed"
        lines = [f"{verb} {r['path']} ({counted(r['bytes'], 'byte')})" for r in self.removed]
        lines += [f"Kept {k['path']}: {k['reason']}" for k in self.kept]
        if self.unlocked:
            lines.append(f"Listed without the ledger lock: {self.unlocked}.")
        if not self.removed:
            return "\n".join(["Nothing to remove.", *lines])
        if self.unlocked:
            lines.append("Nothing was removed (nor can gc remove anything while .baton/ is read-only here).")
        else:
            lines.append("Nothing was removed: without --dry-run, the index would be rebuilt from the ledger on the "
                         "next command." if self.dry_run else "The index is rebuilt from the ledger on the next command.")
        return "\n".join(lines)


def _size(path: Path) -> int:
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return path.stat().st_size


UNLOCKED = ("its .baton/ is read-only here, so it takes no lock, and a process writing the project through "
            "another mount may change the answer")
"""Why a dry run on a read-only ``.baton/`` lists without the ledger lock (it writes nothing)."""


UNPROMPTED = "unprompted"
"""``cache/unprompted/``: the marks a session start leaves of a baton claimed before any prompt
(``baton.harnesses.hook.UNPROMPTED``; a test holds them equal): never removed by gc."""
UNPROMPTED_KEPT = ("a session start's mark of a baton claimed before any prompt: its end hands that baton on "
                   "again by it, and nothing rebuilds it")


ADVICE = "run `baton verify`, then `baton repair`"
"""What a feed's damage says to run (``feed._corrupt``), said once in gc's own message."""


def _ledger_reads_sound(opened: "Project") -> None:
    """Every feed read to its end, with the checks a rebuild makes (chain, hashes, digests,
    sequence): the rebuild that follows a removed index.

    Raises:
        LedgerCorrupt: a feed is damaged before its tail; nothing may be removed then.
    """
    ledger = opened.ledger
    for feed in ledger.feed_names():
        try:
            for _ in ledger.read_feed_chunks(feed):
                pass
        except LedgerCorrupt as exc:
            damage = exc.message.removesuffix(ADVICE).rstrip("; .")
            raise LedgerCorrupt(
                f"gc removed nothing: {damage}. The index is the only view of the ledger "
                "that still reads (a rebuild from the ledger fails on the damage); run `baton verify`, then "
                "`baton repair`, and gc after that", details=exc.details) from exc


def collect_garbage(project: "Project", *, dry_run: bool = False) -> GcResult:
    """Raises: NotInitialized, ReadOnlyProject (a gc that is not a dry run, on a read-only ``.baton/``),
    LedgerCorrupt (a feed fails its check while there is an index to remove: nothing removed),
    StorageError."""
    opened = project
    p = opened.paths
    candidates = [p.index, p.index.with_name("index.sqlite-wal"), p.index.with_name("index.sqlite-shm"), p.cache_dir]
    removed = []
    # A dry run writes nothing: on a read-only ``.baton/`` (no lock to take) it lists without the lock.
    unlocked = UNLOCKED if dry_run and opened.read_only else None
    if unlocked is None:
        opened.require_writable("gc", "removes files from it")
        opened.say_if_waiting()
    kept = []
    # No writer beside it. The lock reads no event (a cold read was ~2 s at 100k events); the index is
    # removed only when every feed reads sound (``_ledger_reads_sound``: what the rebuild after it reads).
    with opened.ledger.exclusive() if unlocked is None else nullcontext():
        if p.index.exists():
            _ledger_reads_sound(opened)
        held, pid = background.running(p.baton_dir)
        who = f"a catch-up runs in the background (pid {pid})" if pid is not None \
            else "a catch-up runs in the background"
        spared = {p.baton_dir / background.LOCK: who, p.baton_dir / background.LOG: who} if held else {}
        marks = p.cache_dir / UNPROMPTED
        if marks.is_dir() and any(marks.iterdir()):
            spared[marks] = UNPROMPTED_KEPT
        if spared:
            kept = [{"path": str(f.relative_to(p.root)), "reason": spared[f]} for f in sorted(spared) if f.exists()]
            cache = p.cache_dir
            candidates.remove(cache)
            if cache.is_dir():
                candidates += sorted(f for f in cache.iterdir() if f not in spared)
        for path in candidates:
            if not path.exists():
                continue
            removed.append({"path": str(path.relative_to(p.root)), "bytes": _size(path)})
            if dry_run:
                continue
            try:
                if path.is_dir():
                    shutil.rmtree(path)
                else:
                    path.unlink()
            except OSError as exc:
                raise StorageError(f"cannot remove {path}: {exc}") from exc
    return GcResult(removed, dry_run, kept, unlocked)
