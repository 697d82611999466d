"""Lineage (spec §14) as a record's reader sees it: whether it carries
conflict candidates, and the banner shown before its next actions.

Every read of one record (``resume``, ``validate``) asks this; a project
without a branch (no handoff with two children: nothing can conflict)
answers from one row of the ``lineage_forks`` table, without the lineage
domain; with a branch, the graph side is loaded then. The rest of lineage:

- ``baton.commands.lineage_conflicts``: the graph and its candidates
  (``current_conflicts``), read-only;
- ``baton.commands.lineage_view``: ``baton lineage`` (``lineage_view``);
- ``baton.commands.fork_merge``: ``baton fork`` and ``baton merge``, the
  write side (through the capture path).
"""

from __future__ import annotations

from baton.domain.short_ids import short_id
from baton.domain.wording import counted
from baton.projections.lineage import branched

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (resume loads this)
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any


def conflicts_for(runner: Any, handoff_id: str) -> list[dict[str, Any]]:
    """The conflict candidates a record carries (on it or an ancestor), as JSON."""
    if not branched(runner):
        return []  # the common case, decided without the lineage domain's classes
    # The one deferred load here: the graph side (the lineage domain) only when the
    # project has a branch, so reading a record of an unbranched project never pays
    # for it. ``__import__``: the import system's C path, which ``python -X importtime``
    # reports (the hook-path tests read it).
    graph_side = __import__("baton.commands.lineage_conflicts", fromlist=["conflicts_around"])
    return graph_side.conflicts_around(runner, handoff_id)


def other_successors(runner: Any, handoff_id: str, successor: str) -> list[str]:
    """The ready amendments and continuations of ``handoff_id`` besides the
    ``successor`` its record names (two clones apart each superseded it)."""
    if not branched(runner):
        return []
    graph_side = __import__("baton.commands.lineage_conflicts", fromlist=["ready_successors"])
    return [child for child in graph_side.ready_successors(runner, handoff_id) if child != successor]


def conflict_banner(conflicts: Sequence[Mapping[str, Any]]) -> str:
    """The lines shown before next actions when a record carries conflict candidates."""
    if not conflicts:
        return ""
    lines = [f"CONFLICT CANDIDATES: {counted(len(conflicts), 'decision')} {'contradicts' if len(conflicts) == 1 else 'contradict'} a sibling branch; "
             "resolve them with `baton merge` before relying on either:"]
    for c in conflicts:
        a, b = c["decisions"]
        what = f"decision {c['key']}" if c["basis"] == "id" else f"subject '{c['key']}'"
        lines.append(f"  - {what}: {short_id(a['handoff'])} says {a['decision']!r}; {short_id(b['handoff'])} says "
                     f"{b['decision']!r}")
    return "\n".join(lines)
