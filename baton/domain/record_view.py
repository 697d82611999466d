"""A stored handoff record as ``resume`` reads it: value classes, not the record model.

``resume`` reads one record the index holds and renders its brief. The record
model (``baton.domain.handoff``: attrs, ``typing`` and 19 attrs classes) is
about a third of what ``resume`` costs beyond the stack's floor
(docs/performance.md); the brief, its score and its freshness only read the
record's members. So a stored record is read here into value classes
(``baton.values.Value``) of the same names, fields, defaults and JSON
members as the model's, each read as ``handoff.stored_handoff`` reads it
(arrays to tuples, a ``float`` field's number to a float, objects copied,
unknown members kept in ``extra``).

One definition: the model. These classes mirror it, and
``tests/test_record_view.py`` fails when they drift: a model class with a field
its view has not (or another default, another JSON member), or a record read
here into other values than the model reads it. The model stays what every
write, check and fold uses.

The index's records are a fold's own ``handoff_to_json`` output, read strictly
before they were stored. A document not shaped so (a required member missing,
an array where an object belongs...) is read by the model instead
(``read_record``), which reports it, or reads it, as it always did.
"""

from __future__ import annotations

from baton.values import EMPTY_MAPPING, Value, read_by_plan

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (resume reads no annotation)
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


class RepositoryView(Value):
    vcs: str = "git"
    remote_hint: str | None = None
    head: str | None = None
    dirty: bool | None = None
    extra: Mapping[str, Any] = EMPTY_MAPPING


class ProjectView(Value):
    id: str
    root_hint: str | None = None
    repository: RepositoryView | None = None
    extra: Mapping[str, Any] = EMPTY_MAPPING


class ActorView(Value):
    type: str
    name: str | None = None
    extra: Mapping[str, Any] = EMPTY_MAPPING


class OriginView(Value):
    harness: str | None = None
    adapter_version: str | None = None
    session_id: str | None = None
    model: str | None = None
    actor: ActorView | None = None
    extra: Mapping[str, Any] = EMPTY_MAPPING


class WorkView(Value):
    title: str
    objective: str
    scope: tuple[str, ...] = ()
    constraints: tuple[str, ...] = ()
    definition_of_done: tuple[str, ...] = ()
    state: str | None = None
    extra: Mapping[str, Any] = EMPTY_MAPPING


class SummaryView(Value):
    completed: tuple[str, ...] = ()
    in_progress: tuple[str, ...] = ()
    discoveries: tuple[str, ...] = ()
    current_state: str | None = None
    why_it_matters: str | None = None
    extra: Mapping[str, Any] = EMPTY_MAPPING


class DecisionView(Value):
    id: str
    decision: str
    rationale: str | None = None
    alternatives_considered: tuple[str, ...] = ()
    evidence_ids: tuple[str, ...] = ()
    made_at: str | None = None
    kind: str | None = None
    resolves: tuple[str, ...] = ()
    extra: Mapping[str, Any] = EMPTY_MAPPING


class ArtifactView(Value):
    path: str
    role: str
    description: str | None = None
    revision: str | None = None
    content_hash: str | None = None
    sensitive: bool = False
    extra: Mapping[str, Any] = EMPTY_MAPPING


class EvidenceView(Value):
    id: str
    type: str
    claim: str
    ref: str | None = None
    captured_at: str | None = None
    result: str | None = None
    digest: str | None = None
    extra: Mapping[str, Any] = EMPTY_MAPPING


class FailedAttemptView(Value):
    id: str
    approach: str
    outcome: str
    reason: str | None = None
    evidence_ids: tuple[str, ...] = ()
    avoid_repeating: bool = True
    extra: Mapping[str, Any] = EMPTY_MAPPING


class OpenItemView(Value):
    id: str
    description: str
    priority: str | None = None
    suggested_action: str | None = None
    blocked_by: tuple[str, ...] = ()
    acceptance_check: str | None = None
    extra: Mapping[str, Any] = EMPTY_MAPPING


class RiskView(Value):
    description: str
    severity: str | None = None
    mitigation: str | None = None
    extra: Mapping[str, Any] = EMPTY_MAPPING


class CheckView(Value):
    name: str
    status: str
    detail: str = ""
    paths: tuple[str, ...] = ()
    extra: Mapping[str, Any] = EMPTY_MAPPING


class FreshnessView(Value):
    git_head_at_capture: str | None = None
    git_head_now: str | None = None
    stale: bool | None = None
    state: str | None = None
    extra: Mapping[str, Any] = EMPTY_MAPPING


class ValidationView(Value):
    status: str = "not_run"
    validated_at: str | None = None
    checks: tuple[CheckView, ...] = ()
    freshness: FreshnessView | None = None
    accepted_warnings: str | None = None
    quality: dict[str, Any] | None = None
    extra: Mapping[str, Any] = EMPTY_MAPPING


class LineageView(Value):
    parents: tuple[str, ...] = ()
    relation: str = "root"
    branch_label: str | None = None
    merge_basis: tuple[str, ...] = ()
    extra: Mapping[str, Any] = EMPTY_MAPPING


class AutomationView(Value):
    trigger: str
    score: float | None = None
    reasons: tuple[str, ...] = ()
    inputs: dict[str, Any] | None = None
    extra: Mapping[str, Any] = EMPTY_MAPPING


class RedactionView(Value):
    field: str
    reason: str
    replacement: str | None = None
    extra: Mapping[str, Any] = EMPTY_MAPPING


class HandoffView(Value):
    """A stored record, as the model's ``Handoff`` (``$schema`` is ``schema_uri``)."""

    schema_version: str
    id: str
    kind: str
    status: str
    created_at: str
    updated_at: str
    project: ProjectView
    work: WorkView
    summary: SummaryView
    lineage: LineageView
    schema_uri: str | None = None
    origin: OriginView | None = None
    decisions: tuple[DecisionView, ...] = ()
    artifacts: tuple[ArtifactView, ...] = ()
    evidence: tuple[EvidenceView, ...] = ()
    failed_attempts: tuple[FailedAttemptView, ...] = ()
    open_items: tuple[OpenItemView, ...] = ()
    risks: tuple[RiskView, ...] = ()
    validation: ValidationView = ValidationView()
    automation: AutomationView | None = None
    redactions: tuple[RedactionView, ...] = ()
    flags: tuple[str, ...] = ()
    resumed_at: str | None = None
    superseded_by: str | None = None
    archived_reason: str | None = None
    retired_ids: tuple[str, ...] = ()
    extra: Mapping[str, Any] = EMPTY_MAPPING


VIEWS: dict[str, type] = {cls.__name__[:-len("View")]: cls for cls in (
    RepositoryView, ProjectView, ActorView, OriginView, WorkView, SummaryView, DecisionView, ArtifactView,
    EvidenceView, FailedAttemptView, OpenItemView, RiskView, CheckView, FreshnessView, ValidationView,
    LineageView, AutomationView, RedactionView, HandoffView)}
"""Each model class's name -> its view."""

_BY_NAME = {view.__name__: view for view in VIEWS.values()}

JSON_KEYS = {"schema_uri": "$schema"}
"""A field whose JSON member has another name (as the model's ``json_keys``)."""

_PLANS: dict[type, tuple[list[tuple[str, str, str, type | None]], frozenset[str]]] = {}


def plan_of(cls: type) -> tuple[list[tuple[str, str, str, type | None]], frozenset[str]]:
    """(JSON member, field, how it is read, the view it holds) per field of a view, and the
    members it knows, for ``values.read_by_plan``; how, from the field's annotation (a string, never evaluated): ``model``
    (a view), ``models`` (a tuple of them), ``tuple`` (an array of values), ``float``,
    ``object`` (a JSON object, copied) or ``value``."""
    plan = []
    annotations = cls.__annotations__
    for name in cls._fields:  # type: ignore[attr-defined]
        if name == "extra":
            continue
        # The annotation's first word: ``RepositoryView``, ``tuple[CheckView,``, ``tuple[str,``,
        # ``float``, ``dict[str,``, ``str``... (a view, when there is one, comes first or inside ``tuple[``).
        first = annotations[name].partition(" ")[0]
        if first.startswith("tuple["):
            held = _BY_NAME.get(first[6:].rstrip(",]"))
            how = "models" if held else "tuple"
        else:
            held = _BY_NAME.get(first)
            how = ("model" if held else "float" if first == "float" else "object" if first.startswith("dict[")
                   else "value")
        plan.append((JSON_KEYS.get(name, name), name, how, held))
    known = frozenset(key for key, *_ in plan)
    _PLANS[cls] = (plan, known)
    return plan, known


def read_record(doc: Any) -> Any:
    """A record the index holds as a ``HandoffView``; a document not shaped as a fold writes one
    is read by the record model (``handoff.stored_handoff``, loaded only then), which reads it
    or raises ``HandoffInputError`` naming what is wrong, as it always did.

    Raises:
        HandoffInputError: the document is not a record.
    """
    try:
        return read_by_plan(HandoffView, doc, _PLANS, plan_of)
    except (TypeError, ValueError, KeyError, AttributeError):
        return __import__("baton.domain.handoff", fromlist=["stored_handoff"]).stored_handoff(doc)
