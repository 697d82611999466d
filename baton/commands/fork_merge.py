"""``baton fork`` and ``baton merge`` (spec §14): the write side of lineage.

A fork is a new draft child of one handoff (relation ``fork``, an optional
branch label), starting from the parent's work, summary, open items, failed
attempts and risks. A merge is a new draft child of two or more handoffs
(relation ``merge``) and is refused (exit 3, nothing written) until an
explicit resolution decision is supplied; it records the conflict candidates
it settles and the parents' evidence of reconciled work. Parents are never
modified: both are ``handoff.captured`` events on the child's own stream,
appended through the same capture path as ``checkpoint create`` (redaction,
path checks, the strict model).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

import attrs

from baton.commands.capture import CaptureResult, capture_in_scope
from baton.commands.feed_vouch import check_copy
from baton.commands.identity import recorded_owner
from baton.commands.ids import load_handoff, place_of
from baton.commands.lineage_conflicts import current_conflicts
from baton.domain import lineage
from baton.domain.handoff import handoff_to_json
from baton.domain.limits import BRANCH_LABEL_MAX
from baton.domain.short_ids import short_id
from baton.domain.wording import counted
from baton.errors import InputError, TransitionError
from baton.model import frozen

if TYPE_CHECKING:
    from baton.commands.context import Project


# -- fork -----------------------------------------------------------------------------------

def fork_handoff(project: "Project", token: str, *, label: str | None = None,
                 session: str | None = None) -> CaptureResult:
    """A new draft child of ``token`` with relation ``fork``, carrying its parent's ``retired_ids`` (as an
    amend child does), so no item of the branch takes an id its parent's lineage retired.

    Raises:
        InputError (exit 2): ``label`` given but empty, or over ``BRANCH_LABEL_MAX`` characters.
        NotFound / AmbiguousId (exit 4); TransitionError (exit 4) for an archived parent;
        PolicyBlock (exit 5) as a capture.
    """
    if label is not None and not label.strip():
        raise InputError("`label` is empty: leave it out, or say what this branch is for")
    if label is not None and len(label.strip()) > BRANCH_LABEL_MAX:
        raise InputError(f"`label` is {len(label.strip())} characters; the limit is {BRANCH_LABEL_MAX} "
                         "(name the branch; the handoff holds its story)")
    label = label.strip() if label else None
    actor = recorded_owner(project)  # read before the lock is taken
    with project.writing() as scope:
        parent = load_handoff(scope.runner, token, here=place_of(project))
        if parent.status == "archived":
            raise TransitionError(handoff_id=parent.id, status=parent.status, flags=tuple(parent.flags),
                                  action="fork", allowed=(), reason="an archived handoff is not forked")
        unverified = check_copy(project, scope.runner, [parent.id])
        body = lineage.fork_body(handoff_to_json(parent), label=label)
        captured = capture_in_scope(scope, body, session=session, actor=actor, retired=parent.retired_ids)
        return attrs.evolve(captured, unverified=unverified) if unverified else captured


# -- merge ----------------------------------------------------------------------------------

@frozen
class MergeResult:
    capture: CaptureResult
    conflicts: tuple[dict[str, Any], ...]
    exit_code: int = 0
    given_as: Mapping[str, str] = attrs.field(factory=dict)
    """Per redacted record field the caller gave, where it gave it (``lineage.merge_given_as``:
    ``title``, ``resolution.rationale``, ...), for each surface to name as its own input."""
    archived_duplicates: tuple[str, ...] = ()
    """The earlier merges of these parents when there are two or more (duplicates made apart) and every
    one is archived (``lineage.archived_duplicates``): none was kept, and this merge is the one kept now."""

    @property
    def handoff_id(self) -> str:
        return self.capture.handoff_id

    def for_agent(self) -> "MergeResult":
        """This result with its capture ``bounded`` (``CaptureResult.bounded``)."""
        return attrs.evolve(self, capture=self.capture.for_agent())

    def to_json(self) -> dict[str, Any]:
        return {**self.capture.to_json(), "resolved_conflicts": list(self.conflicts),
                "archived_duplicates": list(self.archived_duplicates)}

    def render(self) -> str:
        lines = self.capture.render().splitlines()
        lines.insert(-1, f"  resolves {counted(len(self.conflicts), 'conflict candidate')}" if self.conflicts
                     else "  no conflict candidates between the parents")
        if self.archived_duplicates:
            earlier = " and ".join(short_id(i) for i in self.archived_duplicates)
            lines.insert(-1, f"  merges these handoffs again: the earlier merges of them, {earlier}, are all archived "
                             "(none kept): this merge is the one kept")
        return "\n".join(lines)


def merge_handoffs(project: "Project", tokens: Sequence[str], *, title: str | None = None,
                   resolution: Mapping[str, Any] | None = None, session: str | None = None) -> MergeResult:
    """A new draft child of every handoff in ``tokens`` with relation ``merge``, carrying the union of
    its parents' ``retired_ids`` (``lineage.merge_retired``): its renumbered items take none of them.

    Raises:
        InputError (exit 2): fewer than two distinct handoffs, a parent that is
            an ancestor of another, or a live merge of exactly these parents.
        MergeUnresolved (exit 3): no resolution decision; the conflict
            candidates between the parents are in the error's details.
        NotFound / AmbiguousId / TransitionError (exit 4); PolicyBlock (exit 5).
    """
    actor = recorded_owner(project)  # read before the lock is taken
    with project.writing() as scope:
        parents: list[Any] = []  # Handoff records
        for token in tokens:
            parent = load_handoff(scope.runner, token, here=place_of(project))
            if parent.status == "archived":
                raise TransitionError(handoff_id=parent.id, status=parent.status, flags=tuple(parent.flags),
                                      action="merge", allowed=(), reason="an archived handoff is not merged")
            if all(p.id != parent.id for p in parents):
                parents.append(parent)
        if len(parents) < 2:
            raise InputError("a merge needs at least two distinct handoffs")
        ids = [p.id for p in parents]
        unverified = check_copy(project, scope.runner, ids)
        graph, candidates = current_conflicts(scope.runner, ids)
        refusal = lineage.merge_refusal(graph, ids)
        if refusal:
            raise InputError(refusal)
        relevant = _between(graph, candidates, ids)
        basis = graph.common_ancestors(ids) if all(i in graph for i in ids) else []
        records = [handoff_to_json(p) for p in parents]
        retired = lineage.merge_retired(records)
        body = lineage.merge_body(records, resolution=dict(resolution or {}), conflicts=relevant, basis=basis,
                                  title=title, retired=retired)
        captured = capture_in_scope(scope, body, session=session, actor=actor, retired=retired)
        captured = attrs.evolve(captured, unverified=unverified) if unverified else captured
        parent_evidence = sum(1 for p in parents for e in handoff_to_json(p).get("evidence") or ()
                              if isinstance(e, Mapping))
        given_as: dict[str, str] = {}
        for redaction in captured.redactions:
            field = redaction.get("field") if isinstance(redaction, dict) else None
            if not isinstance(field, str):
                continue
            source = lineage.merge_given_as(field, resolution=dict(resolution or {}), title=title,
                                            parent_evidence=parent_evidence)
            if source is not None:
                given_as[field] = source
        return MergeResult(captured, tuple(c.to_json() for c in relevant), given_as=given_as,
                           archived_duplicates=tuple(lineage.archived_duplicates(graph, ids)))


def _between(graph: Any, candidates: Sequence[Any], ids: Sequence[str]) -> list[Any]:
    """The candidates a merge of ``ids`` settles: each side on (or an ancestor of)
    a different parent."""
    lines = {i: ({i} | set(graph.ancestors(i))) if i in graph else {i} for i in ids}
    out = []
    for c in candidates:
        sides_a = {i for i, line in lines.items() if c.a in line}
        sides_b = {i for i, line in lines.items() if c.b in line}
        if sides_a and sides_b and (sides_a | sides_b) != sides_a & sides_b:
            out.append(c)
    return out
