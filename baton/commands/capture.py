"""Capturing a handoff: ``baton checkpoint create`` and ``capture_in_scope``.

A capture turns what an agent or person supplies (flags, or a JSON payload)
into a draft record and appends ``handoff.captured``. Everything that could
leak or escape happens *before* the append, so a refused capture leaves no
trace in the ledger, the index or the materialized files:

1. command output in evidence (``"output"``) becomes a digest and a bounded,
   redacted summary; the raw text is dropped;
2. every string is redacted by the project's policy (a "block" rule refuses
   the whole capture, exit 5), and the record lists field, rule and reason;
3. every path (artifacts, file evidence, scope) is checked: ``..``, absolute
   paths and symlinks that leave the root are refused (exit 5);
4. the record is built and read back by the strict model (exit 2 with every
   problem listed);
5. a record with a raw transcript field anywhere (``transcript``,
   ``messages``, ``chat_history``, …) is refused (exit 5, naming the paths).

Baton adds only facts it gathered itself — the project id, the repository
head, branch and dirty state, and the content hash of each artifact that
exists — and never invents summary content.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, cast

import attrs
import orjson

from baton.commands.batons import redacted_field
from baton.commands.handoff_facts import (
    CONTENT_HASH_SKIPPED,
    START_BUDGET_BYTES,
    START_BUDGET_ENTRIES,
    START_BUDGET_LISTED,
    BudgetSpent,
    HashBudget,
    capture_content_hash,
    folder_content_hash,
    is_marker,
    now_timestamp,
    screened_given_hash,
    too_large_to_screen,
)
from baton.commands.identity import recorded_owner
from baton.commands.ids import place_of, resolve_handoff_id
from baton.commands.objectives import check_session_id
from baton.commands.project_snapshot import project_snapshot
from baton.commands.record import record
from baton.domain.aggregates import handoff as aggregate
from baton.domain.batons import SCOPE_FIELD
from baton.domain.field_hints import unknown_field_hints
from baton.domain.freshness import NOT_HASHED_YET, not_hashed_yet
from baton.domain.handoff import handoff_file_name, new_draft
from baton.domain.identifiers import handoff_identifier_problems, handoff_identifiers
from baton.domain.limits import AGENT_RECORD_BYTES
from baton.domain.paths import lexical_problem, normalize_project_path
from baton.domain.readiness import open_items_lacking, transcript_field_paths
from baton.domain.redaction import rule_label
from baton.domain.redaction.summary import summarize_output
from baton.domain.session_names import ended_session_hint, no_start_hint
from baton.domain.short_ids import HANDOFFS_DIR, id_key, short_id
from baton.domain.wording import counted
from baton.errors import HandoffInputError, InputError, PolicyBlock, UnsafePath
from baton.ledger.ids import uuid7
from baton.model import frozen
from baton.policy import Policy, check_path_inside_root, load_policy, redact_or_block, with_untrusted_roots
from baton.projections.sessions import begun_near, open_at, session_doc

if TYPE_CHECKING:
    from baton.commands.context import Project
    from baton.events.handoff import HandoffCaptured

ID_PREFIXES = {"decisions": "D", "evidence": "E", "failed_attempts": "F", "open_items": "O"}
_FILE_RANGE = re.compile(r"(#L?\d+(-L?\d+)?|:\d+(-\d+)?)$")


# -- results -------------------------------------------------------------------

@frozen
class CaptureResult:
    handoff_id: str
    record: dict[str, Any]
    redactions: list[dict[str, Any]]
    events: list[Any]
    file: str
    revised: bool = False
    exit_code: int = 0
    edits: tuple[dict[str, Any], ...] = ()
    """What ``handoff amend`` closed, dropped or replaced (``{op, target, section?}``)."""
    hints: tuple[str, ...] = ()
    """Keys of the input one typo away from a schema field (``domain.field_hints``)."""
    lacking: tuple[str, ...] = ()
    """The record fields validation will find lacking, told at capture (``open_items``: items given,
    none with a suggested action and an acceptance check: ``readiness.open_items_lacking``)."""
    unverified: tuple[str, ...] = ()
    """Per parent copied from a feed no trusted key vouches for: the warning that the copy continues
    an unverified handoff (``baton.domain.feed_vouch.copy_rule``)."""
    bounded: bool = False
    """The answer an agent reads into its context (MCP ``handoff_capture``, ``handoff_fork``,
    ``handoff_merge``): a record over ``AGENT_RECORD_BYTES`` as JSON is not echoed
    (``handoff`` null, ``record_omitted`` true); ``--json`` always echoes it."""

    def for_agent(self) -> "CaptureResult":
        """This result as ``bounded`` (see there)."""
        return attrs.evolve(self, bounded=True)

    def record_answer(self) -> dict[str, Any]:
        """``{"handoff": record}``, or, bounded and too large, ``{"handoff": None, "record_omitted": True}``."""
        if self.bounded and len(orjson.dumps(self.record, default=str)) > AGENT_RECORD_BYTES:
            return {"handoff": None, "record_omitted": True}
        return {"handoff": self.record}

    @property
    def short_id(self) -> str:
        return short_id(self.handoff_id)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.handoff_id,
            "short_id": self.short_id,
            "status": self.record.get("status"),
            "file": self.file,
            "revised": self.revised,
            "redactions": self.redactions,
            "lineage": self.record.get("lineage"),
            "events": [e.id for e in self.events],
            "edits": list(self.edits),
            "hints": list(self.hints),
            **self.record_answer(),
            **({"unverified": list(self.unverified)} if self.unverified else {}),
        }

    def render(self) -> str:
        verb = "Revised" if self.revised else "Captured"
        lineage = self.record.get("lineage") or {}
        lines = [f"{verb} {self.record.get('status')} handoff {self.short_id} ({self.handoff_id})",
                 f"  title: {_clipped((self.record.get('work') or {}).get('title') or '')}",
                 f"  file:  {self.file}"]
        if lineage.get("parents"):
            lines.append(f"  {lineage.get('relation')} of {', '.join(lineage['parents'])}")
        for op, label in (("close", "closed"), ("drop", "dropped"), ("replace", "replaced")):
            targets = [e["target"] for e in self.edits if e.get("op") == op]
            if targets:
                note = {"close": " (moved to summary.completed)", "replace": " (whole list)"}.get(op, "")
                lines.append(f"  {label}: {', '.join(targets)}{note}")
        if self.redactions:
            lines.append(f"  redacted {counted(len(self.redactions), 'field')}: "
                         + ", ".join(redacted_field(r) for r in self.redactions))
        lines += [f"  hint: {hint}" for hint in self.hints]
        lines += [f"  {line}" for line in self.unverified]
        lines.append(f"Next: baton handoff validate {self.short_id}")
        return "\n".join(lines)


def handoff_file(record: Mapping[str, Any]) -> str:
    return f"{HANDOFFS_DIR}/{handoff_file_name(record['created_at'], record['id'])}"


# -- merging --------------------------------------------------------------------

_KEYED = {"decisions": "id", "evidence": "id", "failed_attempts": "id", "open_items": "id", "artifacts": "path"}
_SECTIONS = ("work", "summary", "origin", "automation", "lineage", "project")


def merge_changes(base: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    """Apply flag changes to a body: text replaces, string lists gain new entries,
    records with an id (or an artifact's path) replace the one with the same key
    and are appended otherwise, risks are appended."""
    out = copy.deepcopy(dict(base))
    for key, value in changes.items():
        if key in _SECTIONS and isinstance(value, dict) and isinstance(out.get(key), dict):
            section = dict(out[key])
            for sub, item in value.items():
                if isinstance(item, list) and isinstance(section.get(sub), list):
                    section[sub] = list(section[sub]) + [x for x in item if x not in section[sub]]
                else:
                    section[sub] = item
            out[key] = section
        elif key in _KEYED and isinstance(value, list) and isinstance(out.get(key), list):
            field = _KEYED[key]
            merged = list(out[key])
            for item in value:
                ident = item.get(field) if isinstance(item, dict) else None
                at = next((i for i, old in enumerate(merged)
                           if ident is not None and isinstance(old, dict) and _same_key(field, old.get(field), ident)),
                          None)
                if at is None:
                    merged.append(item)
                else:  # the stored spelling of its id stays (``O-1`` replaces ``O-001``, still ``O-001``)
                    merged[at] = {**item, field: merged[at][field]} if isinstance(item, dict) else item
            out[key] = merged
        elif key == "risks" and isinstance(value, list) and isinstance(out.get(key), list):
            out[key] = list(out[key]) + list(value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _same_key(field: str, stored: Any, given: Any) -> bool:
    """An item id matches as ``handoff.id_key`` matches it (``O-1`` names ``O-001``); a path exactly."""
    if field == "id" and isinstance(stored, str) and isinstance(given, str):
        return id_key(stored) == id_key(given)
    return stored == given


def assign_item_ids(payload: dict[str, Any], retired: Iterable[str] = ()) -> dict[str, Any]:
    """Give ``D-001``/``E-001``/``F-001``/``O-001`` ids to items that lack one,
    one past the highest id present or ``retired`` (ids that left the record in
    an amendment), so an id is never reused and a citation of a dropped item
    never moves to a new one."""
    out = dict(payload)
    gone = {id_key(r) for r in retired if isinstance(r, str)}
    for key, prefix in ID_PREFIXES.items():
        items = out.get(key)
        if not isinstance(items, list):
            continue
        # Compared as amend compares ids (``id_key``: ``o-002`` is ``O-2``), so a retired ``o-002`` keeps ``O-002``.
        used = {id_key(i["id"]) for i in items if isinstance(i, dict) and isinstance(i.get("id"), str)} | gone
        numbers = [int(u[len(prefix) + 1:]) for u in used if u.startswith(f"{prefix}-") and u[len(prefix) + 1:].isdecimal()]
        n = max(numbers, default=0)
        fresh = []
        for item in items:
            if isinstance(item, dict) and not item.get("id"):
                n += 1
                while f"{prefix}-{n}" in used:
                    n += 1
                item = {"id": f"{prefix}-{n:03d}", **item}
            fresh.append(item)
        out[key] = fresh
    return out


# -- the safety pipeline -----------------------------------------------------------

@frozen
class CleanPayload:
    payload: dict[str, Any]
    redactions: tuple[dict[str, Any], ...]


def clean_payload(root: Path, payload: Mapping[str, Any], policy: Any) -> CleanPayload:
    """Summarize command output, redact, and check every path — before any append.

    Raises:
        PolicyBlock: a block rule matched, or a path leaves the root (exit 5).
        InputError: the payload is not a JSON object.
    """
    if not isinstance(payload, Mapping):
        raise InputError("a handoff payload must be a JSON object")
    body = copy.deepcopy(dict(payload))
    extra_redactions: list[dict[str, Any]] = []
    evidence = body.get("evidence")
    if isinstance(evidence, list):
        for i, item in enumerate(evidence):
            if not isinstance(item, dict) or "output" not in item:
                continue
            raw = item.pop("output")
            if raw is None:
                continue
            if not isinstance(raw, str):
                raise InputError(f"evidence[{i}].output must be a string (the command's output)")
            summary = summarize_output(raw, policy=policy.redaction, field=f"evidence[{i}].output_summary")
            if summary.blocked:
                listed = ", ".join(f"{r.field} ({rule_label(r.rule, r.reason)})" for r in summary.blocked)
                raise PolicyBlock(f"refused by secret policy: {listed}",
                                  details={"blocked": [r.to_json() for r in summary.blocked]})
            item["output_summary"] = summary.summary
            if summary.truncated:
                item["output_truncated"] = True
            item.setdefault("digest", summary.digest)
            extra_redactions.extend(r.to_json() for r in summary.redactions)
    # Paths are judged as given, before redaction replaces any of them:
    # ``~/.ssh/id_rsa`` is refused like ``~/notes.txt``, not stored redacted.
    try:
        check_payload_paths(root, copy.deepcopy(body), policy.allowed_roots)
    except UnsafePath as exc:
        raise with_untrusted_roots(exc, policy) from None
    outcome = redact_or_block(body, policy)
    cleaned = outcome.payload
    check_payload_paths(root, cleaned, policy.allowed_roots)
    return CleanPayload(cleaned, tuple(extra_redactions) + tuple(outcome.records()))


def check_payload_paths(root: Path, payload: dict[str, Any], allowed_roots: Iterable[Path] = ()) -> None:
    """Normalize artifact paths in place and refuse any path that leaves the root.

    Raises:
        UnsafePath (PolicyBlock, exit 5).
    """
    roots = tuple(allowed_roots)
    artifacts = payload.get("artifacts")
    if isinstance(artifacts, list):
        for item in artifacts:
            if not isinstance(item, dict) or not isinstance(item.get("path"), str) or is_marker(item["path"]):
                continue
            path = item["path"]
            if not roots:
                path = normalize_project_path(path)
            check_path_inside_root(root, path, roots)
            item["path"] = path
    evidence = payload.get("evidence")
    if isinstance(evidence, list):
        for item in evidence:
            if isinstance(item, dict) and item.get("type") == "file" and isinstance(item.get("ref"), str) \
                    and not is_marker(item["ref"]):
                check_path_inside_root(root, _FILE_RANGE.sub("", item["ref"].strip()), roots)
    work = payload.get("work")
    scope = work.get("scope") if isinstance(work, dict) else None
    if isinstance(scope, list):
        for entry in scope:
            if isinstance(entry, str) and not is_marker(entry):
                problem = lexical_problem(entry, allow_outside=bool(roots))
                if problem is not None:
                    raise UnsafePath(entry, *problem)
                _check_scope_prefix(root, entry, roots)


_GLOB_CHARS = frozenset("*?[")


def glob_fixed_prefix(pattern: str) -> str:
    """The components of a scope glob before the first one with a wildcard
    (``*``, ``?``, ``[``): ``escape/**`` -> ``escape``, ``src/*/x.py`` -> ``src``,
    ``**`` -> ``""`` (the root itself). Every path the glob can match lies under it."""
    fixed: list[str] = []
    for part in pattern.split("/"):
        if _GLOB_CHARS & set(part):
            break
        fixed.append(part)
    return "/".join(fixed).rstrip("/") or ("/" if pattern.startswith("/") and fixed else "")


def _check_scope_prefix(root: Path, entry: str, roots: tuple[Path, ...]) -> None:
    """Apply the artifact path check to a scope glob's fixed prefix, so a glob
    that leads through a symlink out of the root is refused like a path.

    Raises:
        UnsafePath (exit 5): naming the scope entry, with the prefix and why.
    """
    prefix = glob_fixed_prefix(entry)
    if not prefix:
        return
    try:
        check_path_inside_root(root, prefix, roots)
    except UnsafePath as exc:
        why = exc.message[len(f"path {exc.path!r} refused: "):]
        extra = {k: v for k, v in exc.details.items() if k not in ("path", "reason")}
        raise UnsafePath(entry, exc.reason, f"its fixed part {prefix!r}: {why}", prefix=prefix, **extra) from None


def capture_budget() -> HashBudget:
    """What one capture inside a hook's deadline may hash in all (a PreCompact draft, an automatic one):
    the bounded freshness check's budget (``START_BUDGET_*``), about four full folders."""
    return HashBudget(START_BUDGET_ENTRIES, START_BUDGET_BYTES, START_BUDGET_LISTED)


def hash_artifacts(root: Path, payload: dict[str, Any], policy: Policy, *, refresh: bool = False,
                   budget: HashBudget | None = None) -> None:
    """Record the content hash of each existing artifact that has none (or of
    every existing artifact, with ``refresh``: a revision or amendment is a new
    snapshot), so a later resume can tell whether a file changed (§10b).

    The content goes through ``policy``'s secret screen first
    (``capture_content_hash``): a file holding a secret records the hash of its
    screened content (``sha256-redacted:``), never of its raw bytes; a file
    over the screen's limit records no hash but ``content_hash_skipped``, why.
    A hash the caller gave that is the raw hash of a file holding a secret is
    replaced the same way. ``budget``: the total work the capture may do (a hook's, ``capture_budget``);
    an artifact past it records ``content_hash_skipped`` ``NOT_HASHED_YET``, never a hash. None: all.

    Raises:
        UnsafePath: an artifact leaves the root (saying so when untrusted allowed_roots are why).
    """
    try:
        _hash_artifacts(root, payload, policy, refresh=refresh, budget=budget)
    except UnsafePath as exc:
        raise with_untrusted_roots(exc, policy) from None


def _hash_artifacts(root: Path, payload: dict[str, Any], policy: Policy, *, refresh: bool,
                    budget: HashBudget | None = None) -> None:
    artifacts = payload.get("artifacts")
    if not isinstance(artifacts, list):
        return
    for item in artifacts:
        if not isinstance(item, dict) or item.get("role") == "deleted":
            continue
        path = item.get("path")
        if not isinstance(path, str) or is_marker(path):
            continue
        given = None if refresh else item.get("content_hash")
        real = check_path_inside_root(root, path, tuple(policy.allowed_roots))
        folder = real.is_dir()
        if not (folder or real.is_file()) or (folder and given):
            continue
        try:
            if given:
                if isinstance(given, str):
                    item["content_hash"] = screened_given_hash(real, given, policy.redaction)
                continue
            found: str | None
            skipped: str | None
            if budget is not None and budget.spent:
                found, skipped = None, NOT_HASHED_YET
            elif folder:
                found, skipped = folder_content_hash(real, policy.redaction, named=path, budget=budget)
            else:
                if budget is not None:  # a file is hashed whole once begun: the budget is spent after it
                    _charge_file(budget, real)
                found, skipped = capture_content_hash(real, policy.redaction)
        except BudgetSpent:
            found, skipped = None, NOT_HASHED_YET
        except OSError:
            continue
        item.pop("content_hash", None)
        item.pop(CONTENT_HASH_SKIPPED, None)
        if found is not None:
            item["content_hash"] = found
        else:
            item[CONTENT_HASH_SKIPPED] = skipped


@frozen
class HashedNow:
    """What hashing the artifacts a budgeted capture recorded not hashed yet found (``hash_not_hashed_yet``)."""

    hashes: Mapping[str, str]
    """``{path: hash}`` of those hashed."""
    skipped: Mapping[str, str]
    """``{path: reason}`` of those over the bounds (a file over the secret screen's limit, a folder over a
    folder's): the reason a capture outside a hook (an amend) records in place of a hash."""


def hash_not_hashed_yet(root: Path, handoff: Any, policy: Policy,
                        on_step: Callable[[int, int, str], None] | None = None) -> HashedNow:
    """Hash, in full, each artifact of ``handoff`` (a ``Handoff``) a budgeted capture recorded not hashed yet
    (``not_hashed_yet``), as a capture outside a hook would have (``hash_artifacts``: screened for secrets,
    one over the bounds given the reason it records). One that is gone, unreadable or outside the root is
    left out: validation reports it as it is. ``on_step(done, total, path)`` is told before each one hashed
    (never of a file over the secret screen's limit: nothing of it is read)."""
    pending = not_hashed_yet(handoff.artifacts)
    large = [p for p in pending if too_large_to_screen(root, p)]
    paths = [p for p in pending if p not in large]
    roles = {a.path: a.role for a in handoff.artifacts}
    hashes: dict[str, str] = {}
    skipped: dict[str, str] = {}

    def hash_one(path: str) -> None:
        item: dict[str, Any] = {"path": path, "role": roles.get(path, "read")}
        try:
            _hash_artifacts(root, {"artifacts": [item]}, policy, refresh=True)
        except UnsafePath:
            return
        if isinstance(item.get("content_hash"), str):
            hashes[path] = item["content_hash"]
        elif isinstance(item.get(CONTENT_HASH_SKIPPED), str) and item[CONTENT_HASH_SKIPPED] != NOT_HASHED_YET:
            skipped[path] = item[CONTENT_HASH_SKIPPED]

    for path in large:
        hash_one(path)
    for done, path in enumerate(paths):
        if on_step is not None:
            on_step(done, len(paths), path)
        hash_one(path)
    if on_step is not None and paths:
        on_step(len(paths), len(paths), "")
    return HashedNow(hashes, skipped)


def _charge_file(budget: HashBudget, real: Path) -> None:
    """Charge ``budget`` for hashing the file ``real`` (one entry, its size); an overdrawn budget is spent
    for the artifacts after it, never for this one, which is hashed whole."""
    try:
        budget.charge(entries=1, data=real.stat().st_size)
    except BudgetSpent:
        pass


def refuse_transcripts(handoff: Any) -> None:
    """Refuse a record that carries a raw transcript field, at any depth (§10
    Policy, §16: no transcript is accepted in v0.1) — called on the built record
    right before it is appended, so nothing of it reaches the ledger.

    The rule is ``baton.domain.validation.transcript_field_paths``, the one
    ``validate`` applies.

    Raises:
        PolicyBlock (exit 5): naming every such field path (``details["fields"]``).
    """
    paths = transcript_field_paths(handoff)
    if paths:
        raise PolicyBlock(f"raw transcripts are not accepted in v0.1: {', '.join(paths)}; "
                          f"summarize what matters (summary, decisions, discoveries) or link an artifact instead",
                          details={"fields": paths})


# -- capture ----------------------------------------------------------------------

def refuse_malformed_identifiers(body: Any) -> None:
    """A handoff body's ``origin.harness`` and ``lineage.branch_label`` are one line of visible
    text (``handoff_identifier_problems``), as the same names given on their own are.

    Raises:
        HandoffInputError (exit 2): each problem, named by its field path (never the value).
    """
    problems = handoff_identifier_problems(body)
    if problems:
        raise HandoffInputError(problems)


def capture_in_scope(
    scope: Any,
    payload: dict,
    *,
    trigger: str = "manual",
    parent: str | None = None,
    relation: str = "root",
    origin: dict | None = None,
    session: str | None = None,
    actor: str | None = None,
    policy: Any = None,
    retired: Iterable[str] = (),
    hash_budget: HashBudget | None = None,
) -> CaptureResult:
    """Capture a draft handoff inside an open ``WriteScope`` (the lock is held).

    ``hash_budget``: what hashing its artifacts may cost in all, for a capture inside a hook's
    deadline (``capture_budget``); those past it are kept, recorded not hashed yet (``NOT_HASHED_YET``).

    ``actor``: who captures (``identity.recorded_owner``), recorded as the
    event's ``actor`` — resolved by the caller before it took the lock (every
    command does; left out, it is resolved here, under the lock).

    ``payload`` is the agent's part of a record (work, summary, decisions,
    artifacts, evidence, failed attempts, open items, risks, origin,
    automation, lineage, unknown extras). ``parent`` (any id form) links the
    new record; with a parent, relation ``root`` becomes ``continue``.
    ``origin`` fields override the payload's; ``session`` becomes
    ``origin.session_id`` when that is unset, and the event's session.
    ``retired``: the ids the new record starts with retired (a fork's parent's
    ``retired_ids``; with a ``parent``, its ``retired_ids`` join them): no new item takes one, and the
    record keeps them.

    Raises:
        InputError / HandoffInputError: the payload or ``session`` is malformed (exit 2).
        PolicyBlock / UnsafePath: a secret matched a block rule, a path
            leaves the project root, or a field holds a raw transcript (exit 5).
        NotFound / AmbiguousId: ``parent`` names no single handoff (exit 4).
    Nothing is appended when any of these is raised.
    """
    project = scope.project
    if policy is None:
        policy = load_policy(project.paths, project.config)
    if not isinstance(payload, Mapping):
        raise InputError("a handoff payload must be a JSON object")
    if session is not None:  # an empty one names no session: refused, never recorded as ""
        session = check_session_id(session)
    refuse_malformed_identifiers(payload)
    project.check_identifiers(handoff_identifiers(payload))
    clean = clean_payload(project.paths.worktree, payload, policy)
    parent_id = _resolved_parent(scope, parent, relation)
    retired = _retired_with_parent(scope, clean.payload, retired, parent_id)
    body = assign_item_ids(clean.payload, retired)
    hash_artifacts(project.paths.worktree, body, policy, budget=hash_budget)
    _link_parent(body, parent_id, relation)
    _merge_origin(body, origin, session)
    _set_trigger(body, trigger)
    snapshot, snapshot_redactions = project_snapshot(project, policy)
    redactions = [*clean.redactions, *snapshot_redactions]
    if redactions:
        previous = body["redactions"] if isinstance(body.get("redactions"), list) else []
        body["redactions"] = list(previous) + redactions

    now = now_timestamp(project.clock())
    handoff_id = uuid7(project.clock())
    draft = new_draft(body, id=handoff_id, now=now, project=snapshot)
    if retired:
        draft = attrs.evolve(draft, retired_ids=retired)
    refuse_transcripts(draft)
    decided = aggregate.decide(None, aggregate.Capture(draft, tuple(redactions)), now=now)
    events = record(scope, decided, version=0, actor=actor if actor is not None else recorded_owner(project),
                    session=session)
    stored = scope.runner.get("handoffs", handoff_id) or cast("HandoffCaptured", decided[0]).handoff
    return CaptureResult(handoff_id, stored, redactions, events, handoff_file(stored),
                         lacking=("open_items",) if open_items_lacking(draft) else ())


def _resolved_parent(scope: Any, parent: str | None, relation: str) -> str | None:
    """``parent`` (any id form) resolved to a full id, or None without one.

    Raises:
        InputError: a relation other than ``root`` without a parent.
        NotFound / AmbiguousId: ``parent`` names no single handoff.
    """
    if parent is None:
        if relation != "root":
            raise InputError(f"relation {relation!r} needs a parent handoff")
        return None
    return resolve_handoff_id(scope.runner, parent, here=place_of(scope.project))


def _retired_with_parent(scope: Any, payload: Mapping[str, Any], retired: Iterable[str],
                         parent_id: str | None) -> tuple[str, ...]:
    """The ids the new record starts with retired: ``retired`` and, with a parent, the parent's
    ``retired_ids`` and the ids of the parent's items the new record does not carry (a continuation's
    carried items may still cite an item the parent closed or one it left behind: no new item takes its
    id — never reused within a lineage — and a citation of a retired id blocks nothing) — but never an
    id the new record's own items carry."""
    ids = {r for r in retired if isinstance(r, str)}
    doc = scope.runner.get("handoffs", parent_id) if parent_id is not None else None
    if isinstance(doc, Mapping):
        ids.update(r for r in doc.get("retired_ids") or () if isinstance(r, str))
        ids.update(i["id"] for key in ID_PREFIXES for i in doc.get(key) or ()
                   if isinstance(i, Mapping) and isinstance(i.get("id"), str))
    carried = {id_key(i["id"]) for key in ID_PREFIXES for i in payload.get(key) or ()
               if isinstance(i, dict) and isinstance(i.get("id"), str)}
    return tuple(sorted(r for r in ids if id_key(r) not in carried))


def _link_parent(body: dict[str, Any], parent_id: str | None, relation: str) -> None:
    """Name ``parent_id`` in the body's lineage; with a parent, relation ``root`` becomes ``continue``."""
    if parent_id is not None:
        lineage = dict(body.get("lineage") or {}) if isinstance(body.get("lineage"), dict) else {}
        lineage["parents"] = [parent_id]
        lineage["relation"] = "continue" if relation == "root" else relation
        body["lineage"] = lineage


def _merge_origin(body: dict[str, Any], origin: dict | None, session: str | None) -> None:
    """The adapter's ``origin`` fields override the payload's; ``session``
    becomes ``origin.session_id`` when that is unset."""
    given_origin = body.get("origin")
    merged_origin = dict(given_origin) if isinstance(given_origin, dict) else \
        ({} if given_origin is None else given_origin)  # a non-object is left for the model to report
    if isinstance(merged_origin, dict):
        merged_origin.update({k: v for k, v in (origin or {}).items() if v is not None})
        if session and not merged_origin.get("session_id"):
            merged_origin["session_id"] = session
        if merged_origin:
            body["origin"] = merged_origin


def _set_trigger(body: dict[str, Any], trigger: str) -> None:
    """``automation.trigger`` is the capture's unless the payload gave one."""
    automation = body.get("automation")
    if automation is None:
        body["automation"] = {"trigger": trigger}
    elif isinstance(automation, dict) and "trigger" not in automation:
        body["automation"] = {**automation, "trigger": trigger}


def capture_handoff(
    project: "Project",
    payload: dict[str, Any],
    *,
    trigger: str = "manual",
    parent: str | None = None,
    origin: dict[str, Any] | None = None,
    session: str | None = None,
) -> CaptureResult:
    """``checkpoint create`` / MCP ``handoff_capture``: capture a draft from
    the payload the adapter assembled (files, flags and prompts are the
    adapter's business).

    Raises: as ``capture_in_scope``; InputError for a ``baton`` scope in the
        payload (only ``session end`` makes a handoff a session baton).
    """
    refuse_baton_scope(payload)
    actor = recorded_owner(project)  # git config is read before the lock is taken, not while it is held
    with project.writing() as scope:
        captured = capture_in_scope(scope, payload, trigger=trigger, parent=parent, origin=origin, session=session,
                                    actor=actor)
        unknown = _unknown_session(scope.runner, project.writer, session) if session else None
    hints = unknown_field_hints(payload) + ((unknown,) if unknown else ()) + unhashed_hints(captured.record) \
        + ((NOT_ACTIONABLE,) if captured.lacking else ())
    return attrs.evolve(captured, hints=hints) if hints else captured


NOT_ACTIONABLE = ("open_items: no open item has both suggested_action and acceptance_check (a description alone "
                  "is not a next step a successor can check), so validation will fail its actionability check: "
                  "give one with description, suggested_action and acceptance_check, or mark the work completed")
"""The hint of a capture whose open items validation will find none actionable (``CaptureResult.lacking``)."""


def unhashed_hints(record: dict[str, Any]) -> tuple[str, ...]:
    """A hint per artifact recorded without a hash, and why (``content_hash_skipped``): its changes cannot be
    checked, so freshness never calls it unchanged (tester-use22 T4)."""
    artifacts = record.get("artifacts")
    return tuple(f"artifacts[{i}] {item.get('path')!r} {item[CONTENT_HASH_SKIPPED]}"
                 for i, item in enumerate(artifacts if isinstance(artifacts, list) else [])
                 if isinstance(item, dict) and isinstance(item.get(CONTENT_HASH_SKIPPED), str))


def _unknown_session(runner: Any, writer: str, session: str) -> str | None:
    """The hint of a capture under a session id no start was recorded for (``session_names``)."""
    if "sessions" not in runner.by_name:
        return None
    doc = session_doc(runner, writer, session) or {}
    begun = doc.get("beganAt") is not None
    if begun and doc.get("endedAt"):
        return ended_session_hint(session, doc.get("endedAt"), _still_open(runner, writer, doc, session))
    return no_start_hint(session, begun=begun, recorded=() if begun else begun_near(runner.db, session, writer))


def _still_open(runner: Any, writer: str, doc: dict[str, Any], session: str) -> list[str]:
    """The sessions of an ended session's owner and branch begun since the day it ended that have not ended
    (``at`` past any timestamp: only those with no end)."""
    owner, branch, ended = doc.get("owner"), doc.get("branch"), doc.get("endedAt")
    if not (isinstance(owner, str) and isinstance(branch, str) and isinstance(ended, str)):
        return []
    return [s for s in open_at(runner.db, owner=owner, branch=branch, at="9999", since=ended[:10], exclude=session)
            if not (session_doc(runner, writer, s) or {}).get("endedAt")]


def refuse_baton_scope(payload: Any) -> None:
    """A handoff's ``baton`` field (owner, branch, shared) marks a session baton:
    Baton writes it when a session ends with a baton, and the bootstrap brief
    trusts it (a baton's traps reach every session of its scope unvalidated).
    Supplied by a caller it would let any draft pose as one, so it is refused
    like the other fields Baton manages.

    Raises:
        InputError: ``payload`` has a top-level ``baton`` member.
    """
    if isinstance(payload, Mapping) and SCOPE_FIELD in payload:
        raise InputError(f"the payload's {SCOPE_FIELD} field is set by Baton (a session that ends with a baton): "
                         "do not supply it",
                         details={"problems": [f"{SCOPE_FIELD}: set by Baton, do not supply it"]})


TITLE_SHOWN = 120
"""The text output shows a title up to this many characters, as ``handoff list`` does
(``--json`` has it whole): a title has no length limit, and a pasted document must
not be the whole answer."""


def _clipped(title: str) -> str:
    return title if len(title) <= TITLE_SHOWN else title[: TITLE_SHOWN - 1] + "…"
