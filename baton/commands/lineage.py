"""Lineage (spec §14) as a record's reader sees it: whether it carries
conflict candidates, and the banner shown before its next actions.

Every read of one record (``resume``, ``validate``) asks this; a project
without a branch (no handoff with two children: nothing can conflict)
answers from one row of the ``lineage_forks`` table, without the lineage
domain. With a branch, the graph side is loaded by name from ``_MOVED``,
as the rest of lineage is when named from here:

- ``baton.commands.lineage_conflicts``: the graph and its candidates
  (``current_conflicts``), read-only;
- ``baton.commands.lineage_view``: ``baton lineage`` (``lineage_view``);
- ``baton.commands.fork_merge``: ``baton fork`` and ``baton merge``, the
  write side (through the capture path).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from baton.domain.short_ids import short_id
from baton.projections.lineage import branched

_CONFLICTS = "baton.commands.lineage_conflicts"
_VIEW = "baton.commands.lineage_view"
_FORK_MERGE = "baton.commands.fork_merge"
_MOVED = {"current_conflicts": _CONFLICTS, "conflicts_around": _CONFLICTS,
          "FORMATS": _VIEW, "FRESHNESS_SHOWN": _VIEW, "LineageResult": _VIEW, "lineage_view": _VIEW,
          "fork_handoff": _FORK_MERGE, "merge_handoffs": _FORK_MERGE, "MergeResult": _FORK_MERGE}
"""The names that live in the modules above, loaded on first use (the application's dispatch names them here)."""


def __getattr__(name: str) -> Any:
    # ``__import__``: the import system's C path, which ``python -X importtime`` reports
    # (the hook-path tests read it), as ``baton.harnesses`` loads its adapters.
    if name in _MOVED:
        return getattr(__import__(_MOVED[name], fromlist=["_"]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def conflicts_for(runner: Any, handoff_id: str) -> list[dict[str, Any]]:
    """The conflict candidates a record carries (on it or an ancestor), as JSON."""
    if not branched(runner):
        return []  # the common case, decided without the lineage domain's classes
    return __getattr__("conflicts_around")(runner, handoff_id)


def conflict_banner(conflicts: Sequence[Mapping[str, Any]]) -> str:
    """The lines shown before next actions when a record carries conflict candidates."""
    if not conflicts:
        return ""
    lines = [f"CONFLICT CANDIDATES: {len(conflicts)} decision(s) contradict a sibling branch; "
             "resolve them with `baton merge` before relying on either:"]
    for c in conflicts:
        a, b = c["decisions"]
        what = f"decision {c['key']}" if c["basis"] == "id" else f"subject '{c['key']}'"
        lines.append(f"  - {what}: {short_id(a['handoff'])} says {a['decision']!r}; {short_id(b['handoff'])} says "
                     f"{b['decision']!r}")
    return "\n".join(lines)
