"""The MCP tools' input and output schemas, and the check that holds arguments to them.

Input schemas are closed: every object says ``additionalProperties: false``,
so a misspelled argument (``failed_attempt`` for ``failed_attempts``) or a
misspelled field inside a section is refused with its name instead of being
stored as nothing. The handoff sections (``work``, ``summary``, decisions,
artifacts, evidence, failed attempts, open items, risks) are the published
record schema's own definitions (``baton/schemas/handoff-v0.1.json``, loaded
with ``importlib.resources``), closed, with the ids Baton assigns made
optional and ``evidence.output`` (kept only as a digest and summary) added.
The limits are the ones the use cases enforce (a session id ≤ 200
characters, an objective ≤ 2000, a handoff id ≤ 36, a ``handoff_list``
search ≤ 1000, ``max_bytes`` 1024 to 16 MiB, ``max_tokens`` 500 to
1 000 000), so a client can know them up front; an owner, branch, harness or
model name is held to ≤ 1000 characters here, before a call runs.

Output schemas describe each tool's ``structuredContent`` — the object
``baton <command> --json`` prints — naming the members a successful result
always has; they stay open (``additionalProperties`` allowed), since results
gain members over time. A tool error (``{"error": {code, message,
exit_code}}``) meets them too: the MCP Inspector checks error results as well.

``check_arguments`` validates the subset of JSON Schema these schemas use
(types, enums, required, closed objects, items, lengths and ranges, ``anyOf``)
and reports every problem at once, each naming the argument's path.
"""

from __future__ import annotations

import copy
import functools
import pkgutil
from pathlib import Path
from typing import Any, Mapping, get_args

import orjson

from baton.domain.batons import DEFAULT_MAX_BYTES, MAX_MAX_BYTES
from baton.domain.detector import ALIASES as DETECTOR_ALIASES
from baton.domain.detector import SIGNALS as DETECTOR_SIGNALS
from baton.domain.edits import REPLACEABLE
from baton.domain.handoff import Status, Trigger
from baton.domain.limits import (
    BRANCH_LABEL_MAX,
    CURSOR_MAX,
    HANDOFF_ID_MAX,
    MAX_MAX_TOKENS,
    MIN_MAX_BYTES,
    MIN_MAX_TOKENS,
    NAME_ARGUMENT_MAX,
    OBJECTIVE_MAX,
    QUERY_MAX,
    RESUME_FORMATS,
    SESSION_ID_MAX,
)
from baton.domain.wording import counted

SCHEMA_RESOURCE = ("schemas", "handoff-v0.1.json")
TRIGGERS = get_args(Trigger)
STATUSES = get_args(Status)


@functools.cache
def handoff_schema() -> dict[str, Any]:
    """The published JSON Schema of a handoff record, from the installed package.

    Read beside this module when the package is a folder (an install, a
    checkout); through the package's loader (``pkgutil.get_data``: not
    ``importlib.resources``, which costs more to import, ~15 ms, than the
    rest of the MCP server's schemas take to build) for a package that is not
    a folder (a zip)."""
    beside = Path(__file__).parent.joinpath(*SCHEMA_RESOURCE)
    if beside.is_file():
        return orjson.loads(beside.read_bytes())
    return orjson.loads(pkgutil.get_data("baton", "/".join(SCHEMA_RESOURCE)) or b"")


def _closed(schema: Any) -> Any:
    """``schema`` with every object closed and ``$ref``s inlined from the record schema's ``$defs``."""
    if isinstance(schema, list):
        return [_closed(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return _closed(handoff_schema()["$defs"][ref.rsplit("/", 1)[1]])
    out = {k: _closed(v) for k, v in schema.items()}
    if out.get("type") == "object":
        out["additionalProperties"] = False
    return out


def section(name: str, *, optional_ids: bool = True, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A record section's definition as a closed input schema (``id`` assigned by Baton when absent)."""
    schema = _closed(copy.deepcopy(handoff_schema()["$defs"][name]))
    if optional_ids and "id" in schema.get("required", ()):
        schema["required"] = [r for r in schema["required"] if r != "id"]
    if extra:
        schema["properties"].update(extra)
    return schema


def _items(name: str, **kw: Any) -> dict[str, Any]:
    return {"type": "array", "items": section(name, **kw)}


def _text(description: str, *, max_length: int | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "string", "minLength": 1, "description": description}
    if max_length is not None:
        out["maxLength"] = max_length
    return out


def _described(schema: dict[str, Any], description: str) -> dict[str, Any]:
    """``schema`` with a description: what an agent reads to fill the argument."""
    return {**schema, "description": description}


def _obj(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        out["required"] = list(required)
    return out


_ID_FORMS = ("handoff id: full id, 8-character short id (the full id's end), or a unique prefix of either (of "
             "the full id at least 8 characters, of the short id at least 4)")
ID = _text(f"{_ID_FORMS}, or 'latest' (the newest ready handoff of the current branch)", max_length=HANDOFF_ID_MAX)
DRAFT_ID = _text(f"{_ID_FORMS} ('latest' names a ready handoff, never one to validate or promote)",
                 max_length=HANDOFF_ID_MAX)
SESSION_ID = _text("your session's id, as the session-start brief names it (\"This is … session `ID`\")", max_length=SESSION_ID_MAX)
OWNER = _text("owner (default: git user.email, user.name, OS user, 'local')", max_length=NAME_ARGUMENT_MAX)
BRANCH = _text("branch (default: the current git branch, else 'unknown')", max_length=NAME_ARGUMENT_MAX)
HARNESS = _text("the harness: codex, claude-code, cursor, gemini-cli, generic... (one line: a control character "
                "is refused, input_error)", max_length=NAME_ARGUMENT_MAX)
STEPS = {"type": "array", "items": {"type": "string"}}


def baton_payload() -> dict[str, Any]:
    """The session baton a ``session_end`` leaves (session-handoff-baton.txt's HandoffPayload)."""
    return _obj({"nextSteps": {**STEPS, "minItems": 1, "description": "required: what the next session does first"},
                 "failedApproaches": STEPS, "openQuestions": STEPS, "branch": BRANCH, "owner": OWNER,
                 "shared": {"type": "boolean", "description": "share the baton with every owner and branch"}},
                ("nextSteps",))


def _baton_status() -> dict[str, Any]:
    return _obj({})


def _handoff_capture() -> dict[str, Any]:
    evidence_output = {"output": {"type": "string", "description": "the command's output: kept only as a digest "
                                                                "and a bounded, redacted summary"}}
    return _obj({
        "work": _described(section("work"), "required: the work's title and objective (what it is for), "
                                            "optionally its scope, constraints and definition of done"),
        "summary": _described(section("summary"), "where the work stands: current_state, completed, in_progress, "
                                                   "discoveries"),
        "decisions": _described(_items("decision"), "decisions made, each with its rationale; write "
                                                    "\"Subject: choice\" so a contradiction can be found"),
        "artifacts": _described(_items("artifact"), "repository files touched or read, by path relative to the "
                                                    "worktree's top (never pasted)"),
        "evidence": _described(_items("evidence", extra=evidence_output),
                               "what was observed: commands run and their real results, tests, files, commits"),
        "failed_attempts": _described(_items("failed_attempt"), "what was tried and failed, and why: the next "
                                                                "session does not retry it"),
        "open_items": _described(_items("open_item"), "what is left; at least one with suggested_action and "
                                                      "acceptance_check (or work.state completed) to become ready"),
        "risks": _described(_items("risk"), "known risks"),
        "parent": _text("continue from this handoff (any id form)", max_length=HANDOFF_ID_MAX),
        "trigger": {"enum": list(TRIGGERS), "description": "what prompted the capture (default manual)"},
        "session_id": SESSION_ID,
        "harness": HARNESS,
        "model": _text("a descriptive model id", max_length=NAME_ARGUMENT_MAX),
    }, ("work",))


ITEM_DEFINITIONS = {"decisions": "decision", "artifacts": "artifact", "evidence": "evidence",
                    "failed_attempts": "failed_attempt", "open_items": "open_item", "risks": "risk"}
"""Each list section of a record, and its items' definition in the record schema."""
AMEND_LISTS = {name: ITEM_DEFINITIONS[name] for name in REPLACEABLE}
"""The list sections ``handoff_amend`` can add to, or set whole (``replace_lists``: the ones
``domain.edits`` may replace), and each item's definition."""


def _list_items(name: str) -> dict[str, Any]:
    evidence_output = {"output": {"type": "string", "description": "the command's output: kept only as a digest "
                                                                "and a bounded, redacted summary"}}
    return _items(name, extra=evidence_output if name == "evidence" else None)


def _amend_sections(*, whole: bool) -> dict[str, Any]:
    """The sections an amendment gives: ``whole``, each replaces the record's section (``work``
    then needs its title and objective); else each is merged over it (any field of ``work``)."""
    work = section("work")
    if not whole:
        work.pop("required", None)
    return _obj({"work": work, "summary": section("summary"),
                 **{name: _list_items(item) for name, item in AMEND_LISTS.items()}})


def _handoff_amend() -> dict[str, Any]:
    # "At least one change" is said in the descriptions and refused by the use case, not as a
    # top-level anyOf: harness APIs refuse a tool whose input schema has one (Anthropic's does).
    return _obj({
        "id": _text(f"{_ID_FORMS}, or 'latest' (the newest ready handoff of the current branch). A draft or "
                    "validated handoff is revised in place (validate it again); a ready, resumed or superseded "
                    "one never changes: the amendment is a new draft child (lineage relation amend). An archived "
                    "one is refused (invalid_transition, exit 4)", max_length=HANDOFF_ID_MAX),
        "changes": _described(_amend_sections(whole=False), "merged over the record (give it, or replacement, "
                              "close_items, drop_items or replace_lists: a call with none is refused, "
                              "input_error): a text field replaces "
                              "the old one, a string list (summary.completed, work.scope...) gains entries, an "
                              "item with the id of an existing one (an artifact: its path) replaces it, any other "
                              "item is appended"),
        "replacement": _described(_amend_sections(whole=True), "sections replaced whole (applied before "
                                  "changes); work then needs title and objective"),
        "close_items": {"type": "array", "items": _text("an open item's id, e.g. O-1"),
                        "description": "open items to close: each leaves open_items and its description joins "
                                       "summary.completed (an id the record lacks is refused)"},
        "drop_items": {"type": "array", "items": _text("an item's id, e.g. D-2, E-1, F-1, O-3"),
                       "description": "items to remove, any section, by id (an id the record lacks is refused)"},
        "replace_lists": _described(_obj({name: _list_items(item) for name, item in AMEND_LISTS.items()}),
                                    "list sections set whole to these items (recorded as edits)"),
        "session_id": SESSION_ID,
    }, ("id",))


def _handoff_validate() -> dict[str, Any]:
    return _obj({"id": DRAFT_ID}, ("id",))


def _handoff_ready() -> dict[str, Any]:
    return _obj({"id": DRAFT_ID, "accept_warnings": _text("required when validation warned: why the "
                                                          "warnings are acceptable")}, ("id",))


def _handoff_resume() -> dict[str, Any]:
    return _obj({
        "id": ID,
        "format": {"enum": list(RESUME_FORMATS), "description": "prompt (a bounded brief), md, or json"},
        "max_tokens": {"type": "integer", "minimum": MIN_MAX_TOKENS, "maximum": MAX_MAX_TOKENS,
                       "description": "token budget for the brief (default 1200)"},
        "mark_resumed": {"type": "boolean", "description": "record that this session resumed the handoff "
                                                           "(the only write this tool makes)"},
        "session_id": _described(SESSION_ID, "only with mark_resumed true (refused without it): the session "
                                             "that resumes, as the session-start brief names it"),
        "harness": _described(HARNESS, "only with mark_resumed true (refused without it): the harness "
                                       "resuming (codex, claude-code, cursor, gemini-cli, generic...)"),
        "any_branch": {"type": "boolean", "description": "with id 'latest': the project's newest ready "
                                                         "handoff, not this branch's"},
    })


def _handoff_list() -> dict[str, Any]:
    return _obj({
        "status": {"enum": list(STATUSES), "description": "only handoffs in this state"},
        "work": _text(f"full-text search over title, objective and summary: every word must match, each as a "
                      f"prefix (at most {QUERY_MAX} characters)", max_length=QUERY_MAX),
        "limit": {"type": "integer", "minimum": 1, "description": "at most this many (default 50, at most 200 "
                                                                  "an answer; `more` says whether more match)"},
        "kind": {"enum": ["handoff", "baton", "all"], "description": "handoffs (default), session batons, or all"},
        "branch": _text("only records of this branch"),
        "cursor": _text("the next page: the `next_cursor` of the answer before (given while `more` is true), "
                        "with the same other arguments", max_length=CURSOR_MAX),
    })


def _handoff_fork() -> dict[str, Any]:
    label = _text("what this branch is for (one line: a control character is refused, input_error)",
                  max_length=BRANCH_LABEL_MAX)
    return _obj({"id": ID, "label": label,
                 "session_id": SESSION_ID}, ("id",))


def _handoff_merge() -> dict[str, Any]:
    return _obj({
        "ids": {"type": "array", "items": ID, "minItems": 2, "description": "two or more handoffs to merge"},
        "resolution": _described(_obj({
            # No minLength: an empty decision is the merge's own refusal
            # (merge_unresolved, exit 3, with the conflict candidates), as on the CLI.
            "decision": {"type": "string", "description": "the explicit resolution decision (required to merge; "
                                                          "an empty one is refused with merge_unresolved)"},
            "rationale": _text("why"),
            "resolves": {"type": "array", "items": {"type": "string"},
                         "description": "decision ids or subjects this settles"},
            "current_state": _text("where the merged work stands"),
            "evidence": _items("evidence"),
            "decisions": _items("decision"),
            "work_state": {"enum": ["in_progress", "completed", "blocked"],
                           "description": "the merged work's state (work.state)"},
        }), "how the conflicts between the parents are settled: decision is required to merge"),
        "title": _text("the merged work's title (default: the first parent's)"),
        "session_id": SESSION_ID,
    }, ("ids",))


def _handoff_detect() -> dict[str, Any]:
    return _obj({
        "signals": _described(_obj({**{name: {"type": ["number", "boolean", "null"], "minimum": 0, "maximum": 1,
                                   "description": f"§9.1 {name}: 0-1, or null when unavailable"}
                            for name in DETECTOR_SIGNALS},
                         **{alias: {"type": ["number", "boolean", "null"], "minimum": 0, "maximum": 1,
                                    "description": f"alias of {name} (§9.2 writes {alias}); given with "
                                                   f"{name}, the stronger value counts"}
                            for alias, name in DETECTOR_ALIASES.items()}}),
                              "the signals you can observe, each 0-1 (true/false accepted); leave out, or "
                              "set null, what you cannot observe: {} is allowed"),
        "prepare": {"type": "boolean", "description": "create the draft when the outcome is auto_prepare or "
                                                      "an explicit request (default: report only)"},
        "session_id": SESSION_ID,
        "harness": HARNESS,
    }, ("signals",))


SESSION_ACTION_ARGUMENTS = {
    "session_start": ("session_id", "objective", "harness", "owner", "branch"),
    "session_end": ("session_id", "handoff", "shared", "harness", "owner", "branch"),
    "cancel_handoff": ("session_id", "owner", "branch"),
}
"""The arguments each ``baton_session`` action takes (beside ``action``)."""


def _baton_session() -> dict[str, Any]:
    return _obj({
        "action": {"enum": list(SESSION_ACTION_ARGUMENTS),
                   "description": "; ".join(f"{action} takes {', '.join(taken)}"
                                            for action, taken in SESSION_ACTION_ARGUMENTS.items())
                                  + " (session_end needs session_id; any other argument is refused)"},
        "session_id": SESSION_ID,
        "objective": _text("session_start: what this session is for", max_length=OBJECTIVE_MAX),
        "handoff": _described(baton_payload(), "session_end: the baton left for the next session on this "
                                                 "owner and branch (nextSteps required)"),
        "shared": {"type": "boolean", "description": "session_end: share the baton with every owner and branch"},
        "harness": HARNESS,
        "owner": OWNER,
        "branch": BRANCH,
    }, ("action",))


def _bootstrap() -> dict[str, Any]:
    return _obj({
        "session_id": SESSION_ID,
        "max_bytes": {"type": "integer", "minimum": MIN_MAX_BYTES, "maximum": MAX_MAX_BYTES,
                      "description": f"the brief's byte budget (default {DEFAULT_MAX_BYTES})"},
        "owner": OWNER,
        "branch": BRANCH,
        "peek": {"type": "boolean", "description": "show what would be delivered without claiming it"},
    })


INPUT_SCHEMAS = {
    "baton_status": _baton_status,
    "handoff_capture": _handoff_capture,
    "handoff_validate": _handoff_validate,
    "handoff_ready": _handoff_ready,
    "handoff_resume": _handoff_resume,
    "handoff_list": _handoff_list,
    "handoff_fork": _handoff_fork,
    "handoff_merge": _handoff_merge,
    "handoff_amend": _handoff_amend,
    "handoff_detect": _handoff_detect,
    "baton_session": _baton_session,
    "bootstrap": _bootstrap,
}
"""Each tool's input schema, built when first asked for (``input_schemas``)."""


@functools.cache
def input_schemas() -> dict[str, dict[str, Any]]:
    """Each tool's closed input schema."""
    return {name: build() for name, build in INPUT_SCHEMAS.items()}


ERROR_RESULT = {"type": "object", "required": ["code", "message", "exit_code"],
                "properties": {"code": {"type": "string"}, "message": {"type": "string"},
                               "exit_code": {"type": "integer"}, "details": {"type": "object"}}}


def _result(properties: dict[str, Any], *required: str) -> dict[str, Any]:
    """A result with ``required`` members — or a tool error, ``{"error": {…}}`` (some
    clients hold error results to the output schema too)."""
    return {"type": "object", "properties": {**properties, "error": ERROR_RESULT},
            "anyOf": [{"required": list(required)}, {"required": ["error"]}]}


_S, _I, _B, _O, _A = ({"type": "string"}, {"type": "integer"}, {"type": "boolean"}, {"type": "object"},
                      {"type": "array"})
_OPT_S, _OPT_O = {"type": ["string", "null"]}, {"type": ["object", "null"]}

OUTPUT_SCHEMAS: dict[str, dict[str, Any]] = {
    "baton_status": _result({"root": _S, "config": _O, "handoffs": _O, "latest": _OPT_O, "pending_batons": _I,
                             "superseded_unseen": _A, "detector": _O, "forgotten_by_teammates": _A,
                             "concurrent_edits": _A, "derived_of_forgotten": _A}, "root", "config", "handoffs", "latest", "pending_batons"),
    "handoff_capture": _result({"id": _S, "short_id": _S, "status": _S, "file": _S, "redactions": _A,
                                "hints": _A, "handoff": _OPT_O, "record_omitted": _B}, "id", "short_id", "status", "handoff"),
    "handoff_validate": _result({"id": _S, "status": _S, "flags": _A, "report": _O}, "id", "status", "report"),
    "handoff_ready": _result({"id": _S, "status": _S, "file": _S, "validation": _OPT_S}, "id", "status"),
    "handoff_resume": _result({"id": _S, "status": _S, "freshness_state": _S, "freshness": _O, "quality": _O,
                               "brief": _O, "marked_resumed": _B, "handoff": _OPT_O, "record_omitted": _B,
                               "latest": _OPT_O, "left_pending": _A},
                              "id", "freshness_state", "brief"),
    "handoff_list": _result({"count": _I, "more": _B, "total": _I, "next_cursor": _OPT_S, "filters": _O, "handoffs": _A},
                            "count", "handoffs"),
    "handoff_fork": _result({"id": _S, "short_id": _S, "status": _S, "file": _S, "lineage": _O, "handoff": _OPT_O,
                             "record_omitted": _B}, "id", "short_id", "status", "handoff"),
    "handoff_merge": _result({"id": _S, "short_id": _S, "status": _S, "file": _S, "lineage": _O, "handoff": _OPT_O,
                             "record_omitted": _B, "resolved_conflicts": _A, "archived_duplicates": _A},
                             "id", "status", "handoff", "resolved_conflicts"),
    "handoff_amend": _result({"id": _S, "short_id": _S, "status": _S, "file": _S, "revised": _B, "lineage": _O,
                              "redactions": _A, "edits": _A, "hints": _A, "handoff": _OPT_O, "record_omitted": _B},
                             "id", "short_id", "status", "revised", "handoff"),
    "handoff_detect": _result({"pressure": {"type": "number"}, "readiness": {"type": ["number", "null"]},
                              "action": _S, "suppressed": _OPT_S, "recorded": _B, "draft": _OPT_S,
                              "inputs": _O, "unavailable": _A, "reasons": _A, "missing": _A, "options": _A},
                             "pressure", "action", "inputs", "unavailable", "reasons"),
    "baton_session": _result({"owner": _S, "branch": _S, "sessionId": _S, "ended": _B, "cancelled": _B,
                       "handoff": _OPT_O, "claimedElsewhere": _OPT_O, "repeated": _B,
                       "receivedBaton": _OPT_S, "leftPending": _A}, "owner", "branch"),
    "bootstrap": _result({"brief": _S, "bytes": _I, "maxBytes": _I, "claimed": _B, "peek": _B, "repeated": _B,
                          "handoff": _OPT_O, "handoffMarkdown": _OPT_S, "sessionObjective": _OPT_O,
                          "objectiveKept": _OPT_S, "sessionId": _OPT_S, "notices": _A, "owner": _S, "branch": _S,
                          "claimedElsewhere": _OPT_O, "leftPending": _A},
                         "brief", "bytes", "claimed", "owner", "branch"),
}


# -- checking arguments ---------------------------------------------------------------

_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def _is(value: Any, name: str) -> bool:
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, _TYPES[name])


def _json_type(value: Any) -> str:
    """The JSON name of a decoded argument's type (``null``, ``array``), as the schema names types."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return next((name for name, kind in _TYPES.items() if isinstance(value, kind)), type(value).__name__)


def _where(path: str) -> str:
    return path or "(arguments)"


def check_arguments(schema: Mapping[str, Any], value: Any, path: str = "") -> list[str]:
    """Every way ``value`` breaks ``schema``, each as ``"<path>: <problem>"`` (empty: it conforms)."""
    if "anyOf" in schema:
        if any(not check_arguments(option, value, path) for option in schema["anyOf"]):
            return []
        return [f"{_where(path)}: matches none of the allowed forms"]
    problems: list[str] = []
    if "enum" in schema and value not in schema["enum"]:
        allowed = ", ".join("null" if v is None else str(v) for v in schema["enum"])
        return [f"{_where(path)}: must be one of {allowed}"]  # the rejected value is not echoed
    types = schema.get("type")
    if types is not None:
        names = [types] if isinstance(types, str) else list(types)
        if not any(_is(value, name) for name in names):
            return [f"{_where(path)}: must be {' or '.join(names)}, not {_json_type(value)}"]
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for name in schema.get("required", ()):
            if name not in value:
                problems.append(f"{path + '.' if path else ''}{name}: required")
        for name, item in value.items():
            where = f"{path}.{name}" if path else name
            if name in properties:
                problems += check_arguments(properties[name], item, where)
            elif schema.get("additionalProperties") is False:
                known = ", ".join(properties) or "none"
                problems.append(f"{where}: unknown {'argument' if not path else 'field'} (allowed: {known})")
    elif isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            problems.append(f"{_where(path)}: needs at least {counted(schema['minItems'], 'item')}")
        if "items" in schema:
            for i, item in enumerate(value):
                problems += check_arguments(schema["items"], item, f"{path}[{i}]")
    elif isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            problems.append(f"{_where(path)}: must not be empty")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            problems.append(f"{_where(path)}: at most {schema['maxLength']} characters (got {len(value)})")
    elif _is(value, "number"):
        if "minimum" in schema and value < schema["minimum"]:
            problems.append(f"{_where(path)}: at least {schema['minimum']} (got {value})")
        if "maximum" in schema and value > schema["maximum"]:
            problems.append(f"{_where(path)}: at most {schema['maximum']} (got {value})")
    return problems
