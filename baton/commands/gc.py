"""``baton gc``: remove only what can be rebuilt — the index and the cache.

The ledger, quarantine and materialized records are never touched. Nor
are a running background catch-up's lock and log (``baton.background``):
removed under it, a second one could start beside it, and the error it
logs when it fails would be lost.
"""

from __future__ import annotations

import shutil
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from baton import background
from baton.domain.wording import counted
from baton.errors import StorageError
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


def collect_garbage(project: "Project", *, dry_run: bool = False) -> GcResult:
    """Raises: NotInitialized, ReadOnlyProject (a gc that is not a dry run, on a read-only ``.baton/``),
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
    # No writer beside it; no event read (a cold read was ~2 s at 100k events).
    with opened.ledger.exclusive() if unlocked is None else nullcontext():
        held, pid = background.running(p.baton_dir)
        spared = {p.baton_dir / background.LOCK, p.baton_dir / background.LOG} if held else set()
        if spared:
            who = f"a catch-up runs in the background (pid {pid})" if pid is not None \
                else "a catch-up runs in the background"
            kept = [{"path": str(f.relative_to(p.root)), "reason": who} for f in sorted(spared) if f.exists()]
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
