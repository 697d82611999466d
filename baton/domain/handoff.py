"""The canonical handoff record (spec §7.2) as frozen values, and its one converter.

Why attrs + cattrs and not dicts: every layer above reads the same record, so
one typed shape with one strict reader keeps capture, validation, projections
and rendering from drifting apart. The reader reports every problem of an input
at once (one ``path: message`` per field), because an agent fixing a payload
should not have to resubmit once per typo. Two paths skip cattrs, for the
hook path's start-up (cattrs' import and generated code are ~20 ms of a
process): writing (``handoff_to_json``: each class's writer generated from
its fields), and reading back a record the index holds (``stored_handoff``:
a fold read it strictly before it was stored, so only its shape is looked at).

Forward compatibility (§7.1): unknown fields are kept at every level in each
object's ``extra`` dict and written back unchanged, so a record written by a
newer Baton survives a read/write by this one.

Serialization rules that make round trips exact (model -> JSON -> model is the
identity; JSON -> model -> JSON is idempotent after the first pass):

- ``None`` is never written: an absent optional field and ``null`` both read as
  ``None``.
- Arrays named by the spec are always written, empty or not; Baton's own
  extension fields (``flags``, ``resumed_at``...) are written only when set.
- Sequences are tuples in the model and arrays in JSON.

The domain never reads the clock: every time is a parameter.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from types import UnionType
from typing import Any, Literal, NewType, Union, cast, get_args, get_origin

import attrs

from baton.domain.record_inits import MADE
from baton.domain.record_reader import COMPILE_AFTER, StrictReaders, member_types
from baton.domain.short_ids import (  # noqa: F401 - re-exported: the model's users name them from here
    HANDOFFS_DIR,
    MIN_PREFIX,
    MIN_SHORT_PREFIX,
    compact_timestamp,
    file_name,
    id_key,
    id_matches,
    parse_timestamp,
    short_id,
)
from baton.errors import HandoffInputError
from baton.model import as_tuple, frozen, precompiled
from baton.values import read_by_plan

SCHEMA_VERSION = "0.1"
SCHEMA_URI = "https://baton.dev/schemas/handoff/v0.1.json"
SUPPORTED_SCHEMA_VERSIONS = ("0.1",)

Timestamp = NewType("Timestamp", str)
"""An RFC 3339 date-time with a zone (``Z`` or an offset). Validated on reading."""

HandoffId = NewType("HandoffId", str)
"""A UUID in canonical lowercase form (Baton mints UUIDv7). Validated on reading."""

Status = Literal["draft", "validated", "ready", "resumed", "superseded", "archived"]
Kind = Literal["handoff", "checkpoint"]
Flag = Literal["invalid", "conflicted"]
ActorType = Literal["agent", "human", "mixed"]
WorkState = Literal["in_progress", "completed", "blocked"]
DecisionKind = Literal["decision", "merge_resolution"]
ArtifactRole = Literal["modified", "created", "read", "generated", "deleted"]
EvidenceType = Literal["command", "test", "file", "commit", "url", "human", "observation"]
AttemptOutcome = Literal["failed", "regressed", "abandoned"]
Priority = Literal["high", "medium", "low"]
Severity = Literal["high", "medium", "low"]
ValidationStatus = Literal["pass", "warn", "fail", "not_run"]
CheckStatus = Literal["pass", "warn", "fail"]
FreshnessState = Literal["fresh", "partially_stale", "stale", "unknown"]
Relation = Literal["root", "continue", "fork", "merge", "amend"]
Trigger = Literal["manual", "threshold", "hook", "timeout", "pre_compaction"]

STATUSES: tuple[str, ...] = get_args(Status)
FLAGS: tuple[str, ...] = get_args(Flag)
RELATIONS: tuple[str, ...] = get_args(Relation)

# Field metadata: the JSON key when it differs from the attribute name, and
# "omit_empty" for Baton's own extension fields (written only when non-empty).
_KEY = "baton_json_key"


def json_keys(cls: type) -> dict[str, str]:
    """A model class's fields and the JSON member each is written as (``$schema``
    for ``schema_uri``), leaving out ``extra`` (the unknown members it keeps)."""
    return {f.name: f.metadata.get(_KEY, f.name) for f in attrs.fields(cls) if f.name != "extra"}
_OMIT_EMPTY = "baton_omit_empty"


def _seq(*, omit_empty: bool = False) -> Any:
    return attrs.field(factory=tuple, converter=as_tuple, metadata={_OMIT_EMPTY: omit_empty})


def _extra() -> Any:
    return attrs.field(factory=dict, kw_only=True, eq=True, hash=False, repr=False)


def _ext(default: Any = None) -> Any:
    """A Baton extension field beyond §7.2: optional and omitted when unset."""
    return attrs.field(default=default, metadata={_OMIT_EMPTY: True})


# --------------------------------------------------------------------------- model

precompiled(MADE)  # each class's __init__ as attrs writes it, compiled with record_inits, not here


@frozen
class Repository:
    vcs: str = "git"
    remote_hint: str | None = None
    head: str | None = None
    dirty: bool | None = None
    extra: dict[str, Any] = _extra()


@frozen
class Project:
    id: str
    root_hint: str | None = None
    repository: Repository | None = None
    extra: dict[str, Any] = _extra()


@frozen
class Actor:
    type: ActorType
    name: str | None = None
    extra: dict[str, Any] = _extra()


@frozen
class Origin:
    # Free text on purpose: "codex|claude-code|cursor|gemini-cli|generic" are the
    # known harnesses, but a new harness must not make a record unreadable.
    harness: str | None = None
    adapter_version: str | None = None
    session_id: str | None = None
    model: str | None = None
    actor: Actor | None = None
    extra: dict[str, Any] = _extra()


@frozen
class Work:
    title: str
    objective: str
    scope: tuple[str, ...] = _seq()
    constraints: tuple[str, ...] = _seq()
    definition_of_done: tuple[str, ...] = _seq()
    # Extension: the "explicit completed work state" that §7.2 accepts instead
    # of an open item when a handoff becomes ready.
    state: WorkState | None = _ext()
    extra: dict[str, Any] = _extra()


@frozen
class Summary:
    completed: tuple[str, ...] = _seq()
    in_progress: tuple[str, ...] = _seq()
    discoveries: tuple[str, ...] = _seq()
    current_state: str | None = None
    why_it_matters: str | None = None
    extra: dict[str, Any] = _extra()


@frozen
class Decision:
    id: str
    decision: str
    rationale: str | None = None
    alternatives_considered: tuple[str, ...] = _seq()
    evidence_ids: tuple[str, ...] = _seq()
    made_at: Timestamp | None = None
    # Extension: a merge (§14) must carry a decision of kind merge_resolution;
    # ``resolves`` lists the conflicting decision ids or subjects it settles.
    kind: DecisionKind | None = _ext()
    resolves: tuple[str, ...] = _seq(omit_empty=True)
    extra: dict[str, Any] = _extra()


@frozen
class Artifact:
    path: str
    role: ArtifactRole
    description: str | None = None
    revision: str | None = None
    content_hash: str | None = None
    sensitive: bool = False
    extra: dict[str, Any] = _extra()


@frozen
class Evidence:
    id: str
    type: EvidenceType
    claim: str
    ref: str | None = None
    captured_at: Timestamp | None = None
    result: str | None = None
    digest: str | None = None
    extra: dict[str, Any] = _extra()


@frozen
class FailedAttempt:
    id: str
    approach: str
    outcome: AttemptOutcome
    reason: str | None = None
    evidence_ids: tuple[str, ...] = _seq()
    avoid_repeating: bool = True
    extra: dict[str, Any] = _extra()


@frozen
class OpenItem:
    id: str
    description: str
    priority: Priority | None = None
    suggested_action: str | None = None
    blocked_by: tuple[str, ...] = _seq()
    acceptance_check: str | None = None
    extra: dict[str, Any] = _extra()


@frozen
class Risk:
    description: str
    severity: Severity | None = None
    mitigation: str | None = None
    extra: dict[str, Any] = _extra()


@frozen
class Check:
    name: str
    status: CheckStatus
    detail: str = ""
    # Extension: the field paths the check is about (e.g. "decisions[0].evidence_ids").
    paths: tuple[str, ...] = _seq(omit_empty=True)
    extra: dict[str, Any] = _extra()


@frozen
class Freshness:
    git_head_at_capture: str | None = None
    git_head_now: str | None = None
    stale: bool | None = None
    state: FreshnessState | None = _ext()  # §10b
    extra: dict[str, Any] = _extra()


@frozen
class Validation:
    status: ValidationStatus = "not_run"
    validated_at: Timestamp | None = None
    checks: tuple[Check, ...] = _seq()
    freshness: Freshness | None = None
    # Extension: the reason given with --accept-warnings when a warn was promoted.
    accepted_warnings: str | None = _ext()
    # Extension: the continuity score (§10a) as reported by validation.
    quality: dict[str, Any] | None = _ext()
    extra: dict[str, Any] = _extra()


@frozen
class Lineage:
    parents: tuple[HandoffId, ...] = _seq()
    relation: Relation = "root"
    branch_label: str | None = None
    merge_basis: tuple[HandoffId, ...] = _seq()
    extra: dict[str, Any] = _extra()


@frozen
class Automation:
    trigger: Trigger
    score: float | None = None
    reasons: tuple[str, ...] = _seq()
    # Extension (§9.2): the detector inputs actually used, so the score is auditable.
    inputs: dict[str, Any] | None = _ext()
    extra: dict[str, Any] = _extra()


@frozen
class Redaction:
    field: str
    reason: str
    replacement: str | None = None
    extra: dict[str, Any] = _extra()


@frozen
class Handoff:
    schema_uri: str | None = attrs.field(default=None, kw_only=True, metadata={_KEY: "$schema"})
    schema_version: str
    id: HandoffId
    kind: Kind
    status: Status
    created_at: Timestamp
    updated_at: Timestamp
    project: Project
    work: Work
    summary: Summary
    lineage: Lineage
    origin: Origin | None = None
    decisions: tuple[Decision, ...] = _seq()
    artifacts: tuple[Artifact, ...] = _seq()
    evidence: tuple[Evidence, ...] = _seq()
    failed_attempts: tuple[FailedAttempt, ...] = _seq()
    open_items: tuple[OpenItem, ...] = _seq()
    risks: tuple[Risk, ...] = _seq()
    validation: Validation = attrs.field(factory=Validation)
    automation: Automation | None = None
    redactions: tuple[Redaction, ...] = _seq()
    # Extensions: lifecycle state the spec keeps beside the status (§5, §8).
    flags: tuple[Flag, ...] = _seq(omit_empty=True)
    resumed_at: Timestamp | None = _ext()
    superseded_by: HandoffId | None = _ext()
    archived_reason: str | None = _ext()
    # Extension: item ids (``E-001``...) that left the record (dropped, closed,
    # replaced away) in an amendment; never given to a new item (``retired_ids``).
    retired_ids: tuple[str, ...] = _seq(omit_empty=True)
    extra: dict[str, Any] = _extra()


MODEL_CLASSES: tuple[type, ...] = (
    Repository, Project, Actor, Origin, Work, Summary, Decision, Artifact, Evidence, FailedAttempt,
    OpenItem, Risk, Check, Freshness, Validation, Lineage, Automation, Redaction, Handoff,
)


# --------------------------------------------------------------------------- errors


# --------------------------------------------------------------------------- value checks

def is_timestamp(text: object) -> bool:
    try:
        parse_timestamp(text)  # type: ignore[arg-type]
    except ValueError:
        return False
    return True


_CANONICAL_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
"""Exactly the strings ``str(uuid.UUID(text)) == text`` accepts (one pattern
match instead of parsing a UUID and formatting it back, per id of every record)."""


def is_handoff_id(text: object) -> bool:
    """A UUID in canonical lowercase form (any version; Baton mints v7)."""
    return isinstance(text, str) and _CANONICAL_UUID.fullmatch(text) is not None


# --------------------------------------------------------------------------- converter


def _build_converter(*, detailed: bool = True) -> Any:
    """The converter. Every hook is registered here and nowhere else, grouped by
    the part of a record it reads: scalar values, the shapes a field takes
    (choices, arrays, optional members, JSON objects), and the model classes.

    ``detailed``: cattrs' detailed validation, which collects every problem
    of an input with its path (what ``structure`` reports). Without it the
    generated code is the same but stops at the first problem; it is a third
    cheaper to build, and reading a record that is valid needs nothing more."""
    from cattrs.preconf.orjson import make_converter  # lazy: a heavy import the model classes alone never need

    conv = make_converter(detailed_validation=detailed, forbid_extra_keys=False)
    _register_scalars(conv)
    _register_shapes(conv)
    _register_models(conv)
    return conv


# -- scalars: strict, since JSON has types and "3" is not a title nor "abc" a list.

def _structure_str(value: Any, _: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"must be a string, not {json_type(value)}")
    return value


def _structure_bool(value: Any, _: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"must be true or false, not {json_type(value)}")
    return value


def _structure_float(value: Any, _: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"must be a number, not {json_type(value)}")
    return float(value)


def _structure_int(value: Any, _: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"must be an integer, not {json_type(value)}")
    return value


def _structure_timestamp(value: Any, _: Any) -> str:
    text = _structure_str(value, None)
    parse_timestamp(text)
    return text


def _structure_handoff_id(value: Any, _: Any) -> str:
    text = _structure_str(value, None)
    if not is_handoff_id(text):
        raise ValueError("must be a lowercase UUID")
    return text


def _register_scalars(conv: Any) -> None:
    conv.register_structure_hook(str, _structure_str)
    conv.register_structure_hook(bool, _structure_bool)
    conv.register_structure_hook(float, _structure_float)
    conv.register_structure_hook(int, _structure_int)
    conv.register_structure_hook(Timestamp, _structure_timestamp)
    conv.register_structure_hook(HandoffId, _structure_handoff_id)


# -- shapes: a choice among literals, an array (a tuple), an optional member, a JSON object.

def _is_literal(t: Any) -> bool:
    return get_origin(t) is Literal


def _literal_factory(t: Any) -> Callable[[Any, Any], Any]:
    allowed = get_args(t)
    message = "must be one of " + ", ".join(repr(a) for a in allowed)

    def structure_literal(value: Any, _: Any) -> Any:
        if not isinstance(value, str) or value not in allowed:
            raise ValueError(f"{message}, not {value!r}" if isinstance(value, (str, int, float)) else message)
        return value

    return structure_literal


def _is_tuple(t: Any) -> bool:
    return get_origin(t) is tuple


_ONLY_STR = frozenset((str,))


def _tuple_factory(conv: Any) -> Callable[[Any], Callable[[Any, Any], Any]]:
    def factory(t: Any) -> Callable[[Any, Any], Any]:
        (item_type, _ellipsis) = get_args(t)
        list_type = list[item_type]  # type: ignore[valid-type]
        # The item's hook (what the list hook calls per item) and the list's, looked up at the
        # first array with an item: a model class's hook is built when one is first read.
        hooks: list[Callable[[Any, Any], Any]] = []

        def structure_tuple(value: Any, _: Any) -> tuple[Any, ...]:
            if not isinstance(value, list):
                raise TypeError(f"must be an array, not {json_type(value)}")
            if not value:
                return ()
            if item_type is str and _ONLY_STR.issuperset(map(type, value)):
                return tuple(value)  # what the list hook returns for them, without a call per string
            if not hooks:
                hooks.extend([conv.get_structure_hook(item_type), conv.get_structure_hook(list_type)])
            item_hook = hooks[0]
            try:  # the same items as the list hook, without its per-item bookkeeping for error reports
                return tuple([item_hook(v, item_type) for v in value])
            except Exception:
                pass
            return tuple(hooks[1](value, list_type))  # raises, reporting every bad item with its index

        return structure_tuple

    return factory


def _is_optional(t: Any) -> bool:
    args = get_args(t)
    return get_origin(t) in (Union, UnionType) and len(args) == 2 and type(None) in args


def _optional_factory(conv: Any) -> Callable[[Any], Callable[[Any, Any], Any]]:
    def factory(t: Any) -> Callable[[Any, Any], Any]:
        inner = next(a for a in get_args(t) if a is not type(None))
        if inner is str:
            return _structure_optional_str  # the most common: one call, not two
        hooks: list[Callable[[Any, Any], Any]] = []

        def structure_optional(value: Any, _: Any) -> Any:
            # cattrs' own ``X | None`` hook, with ``X``'s hook looked up once
            # (on first use, as cattrs looks it up on every use) instead of per value.
            if value is None:
                return None
            if not hooks:
                hooks.append(conv.get_structure_hook(inner))
            return hooks[0](value, inner)

        return structure_optional

    return factory


def _structure_optional_str(value: Any, _: Any) -> str | None:
    """``str | None``: what the optional hook does with ``_structure_str`` inside."""
    if value is None or type(value) is str:
        return value
    return _structure_str(value, None)


def _is_json_object(t: Any) -> bool:
    return get_origin(t) is dict


def _json_object(value: Any, _: Any) -> dict[Any, Any]:
    if not isinstance(value, dict):
        raise TypeError(f"must be an object, not {json_type(value)}")
    return dict(value)


def _register_shapes(conv: Any) -> None:
    conv.register_structure_hook_factory(_is_literal, _literal_factory)
    conv.register_structure_hook_factory(_is_tuple, _tuple_factory(conv))
    conv.register_structure_hook_factory(_is_optional, _optional_factory(conv))
    conv.register_structure_hook_func(_is_json_object, _json_object)


# -- model classes: strict generated structure, unknown keys kept in ``extra``.

def _register_models(conv: Any) -> None:
    """Structuring: cattrs' generated code per model class, strict, unknown
    members kept in ``extra``, generated when the class is first read (a
    report on a refused draft builds the hooks of the classes it holds, not
    all 19). Unstructuring: the model classes' own writers (``_MODELS``),
    which ``handoff_to_json`` calls without any converter."""
    from cattrs.gen import make_dict_structure_fn, override  # lazy: a heavy import the model classes alone never need

    def structure_hook(cls: type) -> Callable[[Any, Any], Any]:
        attrs.resolve_types(cls)
        keys = json_keys(cls)
        overrides: dict[str, Any] = {name: override(rename=key) for name, key in keys.items() if key != name}
        base: Callable[..., Any] = make_dict_structure_fn(cls, conv, extra=override(omit=True), **overrides)
        return _structure_with_extra(cls, base, frozenset(keys.values()))

    conv.register_structure_hook_factory(_is_model_class, structure_hook)
    for cls in MODEL_CLASSES:
        conv.register_unstructure_hook(cls, _MODELS[cls])
    conv.register_unstructure_hook(tuple, _unstructure_items)


def _is_model_class(t: Any) -> bool:
    return isinstance(t, type) and t in _MODEL_SET


def _structure_with_extra(cls: type, base: Callable[..., Any], known: frozenset[str]) -> Callable[[Any, Any], Any]:
    def structure(value: Any, _: Any) -> Any:
        if not isinstance(value, dict):
            raise TypeError(f"must be an object, not {json_type(value)}")
        obj = base(value, cls)
        if value.keys() <= known:
            return obj
        # Unknown members: kept in ``extra`` of the object just built, which
        # nothing else holds yet (as ``attrs.evolve(obj, extra=rest)``, without
        # building it a second time; ``extra`` has no converter or validator).
        object.__setattr__(obj, "extra", {k: v for k, v in value.items() if k not in known})
        return obj

    return structure


# -- writing: JSON from the model, without cattrs.
#
# Unstructuring a record is the same few hooks over and over (replay runs it
# for every record): scalars are their own JSON, the writers of model
# classes, arrays and JSON objects are called directly, and only a value of
# another type (none in a record read from JSON) goes through a converter.

_SCALARS = frozenset((str, int, float, bool, type(None)))
"""Types written as themselves: the writers below take them as they are instead
of dispatching each one (a record holds hundreds). ``None`` is one of them
inside an array or a JSON object (a model's member that is None is left out before)."""

_MODEL_SET = frozenset(MODEL_CLASSES)

_DIRECT: dict[type, Callable[[Any], Any]] = {}
"""The writer of a value by its exact type: arrays, JSON objects, and each
model class once its writer is generated (``_FreshWriters``)."""


def _unstructure_value(value: Any) -> Any:
    kind = type(value)
    if kind in _SCALARS:
        return value
    hook = _DIRECT.get(kind)
    if hook is not None:
        return hook(value)
    if kind in _MODEL_SET:
        return _FRESH[kind](value)
    return _any_converter().unstructure(value)  # no JSON type: the converter's dispatch


def _unstructure_items(items: tuple[Any, ...] | list[Any]) -> list[Any]:
    scalars = _SCALARS
    return [v if type(v) in scalars else _unstructure_value(v) for v in items]


def _unstructure_dict(obj: dict[Any, Any]) -> dict[Any, Any]:
    scalars = _SCALARS
    out: dict[Any, Any] = {}
    for key, value in obj.items():
        if type(key) is not str:
            return cast("dict[Any, Any]", _any_converter().unstructure(obj))  # the converter's key handling
        kind = type(value)
        if kind in scalars:
            out[key] = value
        elif kind is dict:  # JSON objects nest (a report's ``quality``): no dispatch per level
            out[key] = _unstructure_dict(value)
        elif kind is list:
            out[key] = _unstructure_items(value)
        else:
            out[key] = _unstructure_value(value)
    return out


_DIRECT[tuple] = _DIRECT[list] = _unstructure_items
_DIRECT[dict] = _unstructure_dict


def _plan(cls: type) -> list[tuple[str, str, bool]]:
    """(attribute, JSON key, omitted when empty) per member of ``cls``, in output order."""
    keys = json_keys(cls)
    return [(f.name, keys[f.name], bool(f.metadata.get(_OMIT_EMPTY))) for f in attrs.fields(cls) if f.name != "extra"]


def _unstructure_with_extra(cls: type) -> Callable[..., dict[str, Any]]:
    fresh = _FRESH
    unrolled: list[Callable[[Any, Any, Mapping[str, Any]], dict[str, Any]]] = []

    def unstructure(obj: Any, like: tuple[Any, Mapping[str, Any]] | None = None) -> dict[str, Any]:
        """``like``: (an earlier model, its JSON) — members whose value is the very
        same object as the earlier model's are taken from its JSON, not rebuilt;
        a member that is another model of the same class (``validation`` after
        a promotion: one field changed) is unstructured like its earlier self.
        Both ways are this class's plan unrolled into generated code
        (``_FRESH``, ``unrolled``), each generated the first time it is asked
        for: a command compiles the writers of the classes it writes, and a
        hook never the ``like`` one."""
        if like is None:
            return cast("dict[str, Any]", fresh[cls](obj))
        if not unrolled:
            unrolled.append(_unstructure_like(cls, _plan(cls)))
        return unrolled[0](obj, like[0], like[1])

    return unstructure


class _ModelWriters(dict):  # type: ignore[type-arg]
    """Per model class: its writer, which takes ``like`` (``_unstructure_with_extra``), made when first asked for."""

    def __missing__(self, cls: type) -> Callable[..., dict[str, Any]]:
        if cls not in _MODEL_SET:
            raise KeyError(cls)
        writer = self[cls] = _unstructure_with_extra(cls)
        return writer


_MODELS = _ModelWriters()


def _unstructure_like(cls: type, plan: list[tuple[str, str, bool]]) \
        -> Callable[[Any, Any, Mapping[str, Any]], dict[str, Any]]:
    """``cls``'s JSON like an earlier model ``e`` whose JSON is ``ej``, generated
    from the plan as ``_unstructure_fresh`` is: per member, left out when None
    (or an omitted empty array); a scalar as it is; the earlier JSON's member
    when the value is the earlier model's very object; a model of the same
    class as the earlier one written like it; anything else through
    ``_unstructure_value``. Then the unknown members kept in ``extra``."""
    lines = [f"def unstructure_{cls.__name__}_like(obj, e, ej):", "    out = {}"]
    for name, key, omit_empty in plan:
        lines += [f"    v = obj.{name}",
                  "    if v is not None and not (v == ()):" if omit_empty else "    if v is not None:",
                  "        if type(v) in scalars:",
                  f"            out[{key!r}] = v",
                  f"        elif {key!r} in ej:",
                  f"            w = e.{name}",
                  "            if w is v:",
                  f"                out[{key!r}] = ej[{key!r}]",
                  f"            elif type(w) is type(v) and type(v) in model_classes and type(ej[{key!r}]) is dict:",
                  f"                out[{key!r}] = models[type(v)](v, (w, ej[{key!r}]))",
                  "            else:",
                  f"                out[{key!r}] = uv(v)",
                  "        else:",
                  f"            out[{key!r}] = uv(v)"]
    lines += ["    if obj.extra:", "        for k, v in obj.extra.items():", "            out.setdefault(k, v)",
              "    return out"]
    scope: dict[str, Any] = {"scalars": _SCALARS, "uv": _unstructure_value, "models": _MODELS,
                             "model_classes": _MODEL_SET}
    exec(compile("\n".join(lines), f"<baton unstructure {cls.__name__} like>", "exec"), scope)  # noqa: S102 - our own plan
    return cast("Callable[[Any, Any, Mapping[str, Any]], dict[str, Any]]", scope[f"unstructure_{cls.__name__}_like"])


class _FreshWriters(dict):  # type: ignore[type-arg]
    """Per model class: its JSON without ``like``, made the first time a value
    of the class is written: a process that writes no record makes none, one
    that writes records without decisions no ``Decision`` writer. The first
    ``COMPILE_AFTER`` values of a class are written by walking its plan
    (``_walking_writer``); from then on (a replay) by the plan unrolled into
    generated code (``_unstructure_fresh``, ~0.2 ms a class to compile), which
    a command that folds one capture never pays for. A writer made here is
    also put in ``direct`` (what ``_unstructure_value`` calls by type)."""

    def __init__(self, direct: dict[type, Callable[[Any], Any]]) -> None:
        super().__init__()
        self.direct = direct

    def __missing__(self, cls: type) -> Callable[[Any], dict[str, Any]]:
        if cls not in _MODEL_SET:
            raise KeyError(cls)
        writer = self[cls] = self.direct[cls] = _walking_writer(self, cls, _plan(cls))
        return writer

    def compiled(self, cls: type) -> Callable[[Any], dict[str, Any]]:
        """``cls``'s generated writer, made now if it was not."""
        writer: Callable[[Any], dict[str, Any]] = self[cls]
        if getattr(writer, "walks_plan", False):
            attrs.resolve_types(cls)  # the generated writer reads its members' types
            writer = self[cls] = self.direct[cls] = _unstructure_fresh(self, cls, _plan(cls))
        return writer


def _walking_writer(fresh: _FreshWriters, cls: type, plan: list[tuple[str, str, bool]]) \
        -> Callable[[Any], dict[str, Any]]:
    """``cls``'s JSON by walking the plan: what the generated writer does
    member by member (``None`` and an omitted empty array left out, scalars as
    they are, a model — alone or in an array — by ``fresh``'s writer of its
    class, anything else through ``_unstructure_value``); it hands over to the
    generated one at ``COMPILE_AFTER`` values."""
    left = [COMPILE_AFTER]

    def member(v: Any) -> Any:
        kind = type(v)
        if kind in _SCALARS:
            return v
        if kind in _MODEL_SET:
            return fresh[kind](v)
        if kind is tuple:
            return [x if type(x) in _SCALARS else fresh[type(x)](x) if type(x) in _MODEL_SET else _unstructure_value(x)
                    for x in v]
        return _unstructure_value(v)

    def walk_plan(obj: Any) -> dict[str, Any]:
        left[0] -= 1
        if left[0] <= 0:
            fresh.compiled(cls)
        out: dict[str, Any] = {}
        for name, key, omit_empty in plan:
            v = getattr(obj, name)
            if v is None or (omit_empty and v == ()):
                continue
            out[key] = member(v)
        if obj.extra:
            for k, v in obj.extra.items():
                out.setdefault(k, v)
        return out

    walk_plan.walks_plan = True  # type: ignore[attr-defined]
    return walk_plan


_FRESH = _FreshWriters(_DIRECT)


def _unstructure_fresh(fresh: _FreshWriters, cls: type, plan: list[tuple[str, str, bool]]) \
        -> Callable[[Any], dict[str, Any]]:
    """``cls``'s JSON without ``like``: the plan unrolled into one generated
    function (attribute by attribute, as cattrs generates its own hooks), so
    a record — replay unstructures one per capture — costs no loop over the
    plan and no lookup by name: members in plan order, ``None`` (and an
    empty array where omitted) left out, scalars as they are, anything else
    through ``_unstructure_value`` — or straight to the writer when the
    field's type names a model class (or an array of one, or of scalars) and
    the value is of it, which is what ``_unstructure_value`` would call."""
    types = {f.name: f.type for f in attrs.fields(cls)}
    lines = [f"def unstructure_{cls.__name__}(obj):", "    out = {}"]
    for name, key, omit_empty in plan:
        lines.append(f"    v = obj.{name}")
        lines.append("    if v is not None and not (v == ()):" if omit_empty else "    if v is not None:")
        kind = types.get(name)
        args = get_args(kind)
        if get_origin(kind) in (Union, UnionType) and len(args) == 2 and type(None) in args:
            kind = next(a for a in args if a is not type(None))  # ``X | None``: None is left out above
        item = get_args(kind)[0] if get_origin(kind) is tuple else None
        if kind in _MODEL_SET:
            value = f"F[{kind.__name__}](v) if type(v) is {kind.__name__} else uv(v)"
        elif item in _MODEL_SET:
            value = (f"[F[{item.__name__}](x) if type(x) is {item.__name__} else uv(x) for x in v] "
                     "if type(v) is tuple else uv(v)")
        elif item is not None:
            value = "[x if type(x) in scalars else uv(x) for x in v] if type(v) is tuple else uv(v)"
        else:
            value = "v if type(v) in scalars else uv(v)"
        lines.append(f"        out[{key!r}] = {value}")
    lines += ["    if obj.extra:", "        for k, v in obj.extra.items():", "            out.setdefault(k, v)",
              "    return out"]
    scope: dict[str, Any] = {"scalars": _SCALARS, "uv": _unstructure_value, "F": fresh,
                             **{c.__name__: c for c in MODEL_CLASSES}}
    exec(compile("\n".join(lines), f"<baton unstructure {cls.__name__}>", "exec"), scope)  # noqa: S102 - our own plan
    return cast("Callable[[Any], dict[str, Any]]", scope[f"unstructure_{cls.__name__}"])


def json_type(value: Any) -> str:
    """What JSON calls ``value``'s type, as a message says it (``an object``, ``a number``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


_converters: dict[bool, Any] = {}


def converter(*, detailed: bool = True) -> Any:
    """The shared cattrs converter (built on first use: cattrs is a heavy import).

    ``structure`` asks the detailed one only to report an input the strict
    readers (``READERS``) refused. ``detailed=False``: the one that stops at
    the first problem (what the readers are held to in the tests, and what
    unstructures a value of no JSON type when no converter was built)."""
    conv = _converters.get(detailed)
    if conv is None:
        conv = _converters[detailed] = _build_converter(detailed=detailed)
    return conv


def prepare_record_model() -> None:
    """Generate now every model class's writer, its strict reader and the stored reader's plan,
    which are otherwise made when first asked for (the hook server, before it
    forks the children that read and write records)."""
    for cls in MODEL_CLASSES:
        _FRESH.compiled(cls)
        READERS.compiled(cls)
        if cls not in _STORED_PLANS:
            _stored_plan(cls)


def _any_converter() -> Any:
    """Whichever converter this process has built (their unstructuring is the same), else the quick one."""
    return _converters.get(False) or _converters.get(True) or converter(detailed=False)


def _format_error(exc: BaseException, _type: Any) -> str:
    if isinstance(exc, KeyError):
        return "required"
    text = str(exc)
    return text or type(exc).__name__


def _problems_of(exc: BaseException) -> list[str]:
    import cattrs  # lazy: only a refused input's report needs cattrs' error transform

    problems = []
    for line in cattrs.transform_error(exc, path="$", format_exception=_format_error):
        message, _, path = line.rpartition(" @ ")
        problems.append(f"{_field_path(path)}: {message}")
    return problems


def _field_path(path: str) -> str:
    """``$.decisions[0].id`` -> ``decisions[0].id``; the whole record is ``(handoff)``."""
    if path == "$":
        return "(handoff)"
    return path[2:] if path.startswith("$.") else path.lstrip("$")


def _timestamp_text(value: Any) -> str:
    return _structure_timestamp(value, None)


def _handoff_id_text(value: Any) -> str:
    return _structure_handoff_id(value, None)


READERS = StrictReaders(MODEL_CLASSES, json_keys, {Timestamp: _timestamp_text, HandoffId: _handoff_id_text})
"""Per model class, its strict reader without cattrs (``baton.domain.record_reader``), made on first use."""


def structure(value: Any, cls: type) -> Any:
    """Read any model class from JSON, reporting every problem at once.

    Valid input (every stored record) is read by the class's strict reader
    (``READERS``: no cattrs), which stops at the first
    problem; only input it refuses is read again by cattrs' detailed
    converter, for the report. Both accept and build the same values.

    Raises:
        HandoffInputError: one problem per field path.
    """
    try:
        return READERS[cls](value)
    except Exception:  # noqa: BLE001 - read again below, where every problem is reported
        pass
    try:
        return converter().structure(value, cls)
    except Exception as exc:  # cattrs raises ExceptionGroups and plain errors alike
        raise HandoffInputError(_problems_of(exc)) from exc


def unstructure(obj: Any) -> Any:
    """Any model (or array, or JSON object of them) as JSON, by the model classes' writers."""
    return _unstructure_value(obj)


# --------------------------------------------------------------------------- public API


def handoff_from_json(obj: Mapping[str, Any]) -> Handoff:
    """Read a canonical handoff record.

    Types, enum values, required fields, UUIDs and timestamps are checked here;
    the draft/ready requirements and the §10 checks live in ``validation``.

    Raises:
        HandoffInputError: listing every problem, e.g. ``"work.objective: required"``.
    """
    return cast(Handoff, structure(obj, Handoff))


def stored_handoff(doc: Mapping[str, Any]) -> Handoff:
    """A record the index holds, read as a model without the converter.

    The index's records were read by ``handoff_from_json`` (every type,
    choice and id checked) before a fold wrote them with ``handoff_to_json``:
    reading one back needs no check, only the shape, so it skips the
    converter, whose import and generated code are most of what a command
    that reads one record (``resume``, a baton's claim) costs in its own
    process (~20 ms). It builds the same model as ``handoff_from_json``,
    unknown members kept in ``extra``; anything not shaped like a written
    record (a member of the wrong kind where a model or an array of them
    belongs) is read by ``handoff_from_json`` instead, which reports it.

    Raises:
        HandoffInputError: as ``handoff_from_json``, for a document that is not a record.
    """
    try:
        return cast(Handoff, read_by_plan(Handoff, doc, _STORED_PLANS, _stored_plan))
    except (TypeError, ValueError, KeyError, AttributeError):
        return handoff_from_json(doc)


_STORED_PLANS: dict[type, tuple[list[tuple[str, str, str, Any]], frozenset[str]]] = {}
"""Per model class: (JSON key, ``__init__`` name, how to read it, the model class it holds) per member, and the keys."""


def _stored_plan(cls: type) -> tuple[list[tuple[str, str, str, Any]], frozenset[str]]:
    """The plan, from the members' types evaluated once per class (``member_types``:
    one ``eval``, not ``attrs.resolve_types``' compile per member, ~0.1 M instructions each)."""
    types = member_types(cls)
    plan = []
    for f in attrs.fields(cls):
        if f.name == "extra":
            continue
        kind: Any = types[f.name]
        args = get_args(kind)
        if get_origin(kind) in (Union, UnionType) and len(args) == 2 and type(None) in args:
            kind = next(a for a in args if a is not type(None))
        item = get_args(kind)[0] if get_origin(kind) is tuple else None
        how = ("model" if kind in MODEL_CLASSES else "models" if item in MODEL_CLASSES
               else "float" if kind is float else "object" if get_origin(kind) is dict else "value")
        plan.append((f.metadata.get(_KEY, f.name), f.alias, how, item if how == "models" else kind))
    known = frozenset(key for key, *_ in plan)
    _STORED_PLANS[cls] = (plan, known)
    return plan, known


def handoff_to_json(h: Handoff, *, like: tuple[Handoff, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """The canonical JSON object of a handoff (``None`` omitted, spec arrays kept).

    ``like``: an earlier version of the record and its JSON (which must not be
    mutated afterwards): sections the new version shares with it, object for
    object — all but the few an event changes — are reused instead of being
    unstructured again (replay folds thousands of events per second through
    this). The result is equal to ``handoff_to_json(h)``.
    """
    if like is None or type(like[0]) is not Handoff or not isinstance(like[1], Mapping):
        return cast("dict[str, Any]", unstructure(h))
    return cast("dict[str, Any]", _MODELS[Handoff](h, like))


# Fields a capture payload may not set: Baton owns them.
MANAGED_FIELDS = ("id", "status", "created_at", "updated_at", "validation", "project", "flags",
                  "resumed_at", "superseded_by", "archived_reason", "retired_ids")


def new_draft(payload: Mapping[str, Any], *, id: str, now: str, project: Mapping[str, Any]) -> Handoff:
    """Build a draft handoff from a partial capture payload.

    The payload holds what the agent knows (work, summary, decisions, artifacts,
    evidence, failed attempts, open items, risks, origin, automation, lineage,
    redactions, unknown extras). Baton fills the rest: schema version and URI,
    kind ``handoff``, status ``draft``, ``created_at``/``updated_at`` = ``now``,
    ``project`` (gathered by the command), empty arrays, an empty summary,
    validation ``not_run`` and a ``root`` lineage.

    Raises:
        HandoffInputError: every problem of the payload at once, including any
            field Baton manages itself (``id``, ``status``, ``project``...).
    """
    if not isinstance(payload, Mapping):
        raise HandoffInputError([f"(payload): must be an object, not {json_type(payload)}"])
    problems = [f"{key}: set by Baton, do not supply it" for key in MANAGED_FIELDS if key in payload]
    version = payload.get("schema_version", SCHEMA_VERSION)
    if version != SCHEMA_VERSION:
        problems.append(f"schema_version: must be {SCHEMA_VERSION!r}, not {version!r}")
    body: dict[str, Any] = {k: v for k, v in payload.items() if k not in MANAGED_FIELDS}
    body.setdefault("$schema", SCHEMA_URI)
    body["schema_version"] = SCHEMA_VERSION
    body.setdefault("kind", "handoff")
    body["id"] = id
    body["status"] = "draft"
    body["created_at"] = now
    body["updated_at"] = now
    body["project"] = dict(project)
    body.setdefault("summary", {})
    body.setdefault("lineage", {"parents": [], "relation": "root"})
    try:
        draft = handoff_from_json(body)
    except HandoffInputError as exc:
        problems.extend(exc.problems)
        draft = None
    if draft is not None:
        problems.extend(blank_work_problems(draft))
        problems.extend(blank_item_problems(draft))
        problems.extend(duplicate_id_problems(draft))
    if problems:
        raise HandoffInputError(problems, message="the capture payload is not a valid handoff")
    assert draft is not None
    return draft


def blank_work_problems(h: Handoff) -> list[str]:
    """A title or objective that is empty or only whitespace (a draft requirement, §7.2).

    The reader accepts any string; capture, amendment and revision refuse
    these before anything is appended, so no record is ever untitled.
    """
    return [f"work.{name}: must not be empty or only whitespace"
            for name in ("title", "objective") if not getattr(h.work, name).strip()]


BLANK_ITEM_FIELDS = (("decisions", "decision"), ("open_items", "description"),
                     ("failed_attempts", "approach"), ("risks", "description"))
"""Each item list and the field that says what an item is: it must not be blank."""


def blank_item_problems(h: Handoff) -> list[str]:
    """A decision, open item, failed attempt or risk whose text is empty or
    only whitespace: an item that says nothing is refused like a blank title."""
    return [f"{key}[{i}].{field}: must not be empty or only whitespace"
            for key, field in BLANK_ITEM_FIELDS
            for i, item in enumerate(getattr(h, key)) if not getattr(item, field).strip()]


ID_FAMILIES = ("decisions", "evidence", "failed_attempts", "open_items")
"""The lists whose items carry an ``id`` (``D-``, ``E-``, ``F-``, ``O-``): closing or dropping
an item, and ``evidence_ids``, name it by that id."""


def duplicate_id_problems(h: Handoff, *, already: Handoff | None = None) -> list[str]:
    """An id two items of one list share, once per id, naming every item that
    carries it: capture and revision refuse them (validate's schema check flags
    them in a record already in the ledger, which is never rewritten).
    ``already``: the record being revised; a duplicate it holds already is not
    this revision's to refuse (its amendment would be locked out)."""
    out = []
    for key in ID_FAMILIES:
        held = {id_key(ident) for ident, _ in _repeated_ids(getattr(already, key))} if already is not None else set()
        for ident, where in _repeated_ids(getattr(h, key)):
            if id_key(ident) not in held:
                items = getattr(h, key)
                spelled = sorted({items[i].id for i in where} - {ident})
                also = f", also written {', '.join(repr(x) for x in spelled)}" if spelled else ""
                out.append(f"{key}: duplicate id {ident!r}{also} (items {', '.join(f'{key}[{i}]' for i in where)}): "
                           "an item is named by its id (to close or drop it, in evidence_ids; `O-1` names `O-001`); "
                           "give each its own")
    return out


def _repeated_ids(items: Any) -> list[tuple[str, list[int]]]:
    """Each id (not blank) that more than one of ``items`` carries as ``id_key`` matches it (its
    first spelling), with their positions."""
    where: dict[str, list[int]] = {}
    first: dict[str, str] = {}
    for i, item in enumerate(items):
        if item.id.strip():
            key = id_key(item.id)
            first.setdefault(key, item.id)
            where.setdefault(key, []).append(i)
    return [(first[key], at) for key, at in where.items() if len(at) > 1]


def _repository_of(record: Any) -> dict[str, Any]:
    project = record.get("project") if isinstance(record, dict) else None
    repo = project.get("repository") if isinstance(project, dict) else None
    return repo if isinstance(repo, dict) else {}


def record_branch(record: Any) -> str | None:
    """The branch a record belongs to: the branch checked out where it was
    captured, else the branch a session baton was left for."""
    branch = _repository_of(record).get("branch")
    if isinstance(branch, str) and branch:
        return branch
    scope = record.get("baton") if isinstance(record, dict) else None
    branch = scope.get("branch") if isinstance(scope, dict) else None
    return branch if isinstance(branch, str) and branch else None


def record_worktree(record: Any) -> str | None:
    """The worktree a record was captured in (relative to the project root: ``.``
    for the main worktree), when the capture recorded it."""
    worktree = _repository_of(record).get("worktree")
    return worktree if isinstance(worktree, str) and worktree else None




def handoff_file_name(h_or_created_at: Handoff | str, handoff_id: str | None = None, *,
                      short: str | None = None) -> str:
    """``<created-at without punctuation>--<short-id>.json`` (§7.1); ``short``:
    the id's ``short_id`` when the caller has it already (a listing row)."""
    created_at: str
    if isinstance(h_or_created_at, Handoff):
        created_at, handoff_id = h_or_created_at.created_at, h_or_created_at.id
    else:
        created_at = h_or_created_at
        if handoff_id is None:
            raise TypeError("handoff_file_name(created_at, handoff_id) needs the id")
    return file_name(created_at, handoff_id, short=short)


def handoff_relpath(h: Handoff) -> str:
    """Project-relative path of the materialized file: ``.baton/handoffs/<name>``."""
    return f"{HANDOFFS_DIR}/{handoff_file_name(h)}"
