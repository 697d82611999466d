"""``baton gc``: remove only what can be rebuilt — the index and the cache.

The ledger, quarantine and materialized records are never touched.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from baton.errors import StorageError
from baton.model import frozen

if TYPE_CHECKING:
    from baton.commands.context import Project


@frozen
class GcResult:
    removed: list[dict]
    dry_run: bool
    exit_code: int = 0

    def to_json(self) -> dict:
        return {"dry_run": self.dry_run, "removed": self.removed,
                "bytes": sum(r["bytes"] for r in self.removed)}

    def render(self) -> str:
        if not self.removed:
            return "Nothing to remove."
        verb = "Would remove" if self.dry_run else "Removed"
        lines = [f"{verb} {r['path']} ({r['bytes']} bytes)" for r in self.removed]
        lines.append("The index is rebuilt from the ledger on the next command.")
        return "\n".join(lines)


def _size(path: Path) -> int:
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return path.stat().st_size


def collect_garbage(project: "Project", *, dry_run: bool = False) -> GcResult:
    """Raises: NotInitialized, StorageError."""
    opened = project
    p = opened.paths
    candidates = [p.index, p.index.with_name("index.sqlite-wal"), p.index.with_name("index.sqlite-shm"), p.cache_dir]
    removed = []
    opened.require_writable("gc", "removes files from it")
    opened.say_if_waiting()
    with opened.ledger.locked():
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
    return GcResult(removed, dry_run)
