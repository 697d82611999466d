"""Freshness of a handoff (§10b): has the world moved since it was captured?

The domain never looks at git or the file system. A command gathers the facts
(the head now, the current hash of each hashed artifact) and passes them in;
this module classifies them into exactly one of four states:

- ``fresh``: the head is unchanged and no hashed artifact drifted;
- ``partially_stale``: the head is unchanged but artifact content drifted;
- ``stale``: the head moved, or drift could not be classified (an artifact we
  could not read or compare, or drift seen without a comparable head);
- ``unknown``: freshness was never evaluated, or there is no head to compare
  (no git at capture or now) and nothing was seen to drift.

When the head moved, the git adapter may pass what it could tell of the
history (``HistoryFacts``: is the captured commit in HEAD's history, within a
bounded walk; the branches then and now); a stale report then names how the
head moved (``head_relation``): it advanced, history was rewritten, or this is
another branch. Commit evidence the adapter looked up is flagged when its
commit is missing or not in HEAD's history.

The rules are written out in docs/resume-brief.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from baton.domain.freshness_states import FRESH as FRESH  # the states, with the rules that derive them, as before
from baton.domain.freshness_states import FRESHNESS_STATES as FRESHNESS_STATES
from baton.domain.freshness_states import PARTIALLY_STALE as PARTIALLY_STALE
from baton.domain.freshness_states import STALE as STALE
from baton.domain.freshness_states import UNKNOWN as UNKNOWN
from baton.domain.freshness_states import drift_listed as drift_listed
from baton.domain.wording import counted
from baton.values import EMPTY_MAPPING, Value, replace

# Kinds of artifact drift. ``modified`` and ``missing`` are classified content
# drift; ``unclassified`` means the artifact could not be compared at all (an
# unreadable file, a hash in an algorithm we do not know), which §10b counts as
# stale because nothing can be said about it.
MODIFIED = "modified"
MISSING = "missing"
UNCLASSIFIED = "unclassified"
DRIFT_KINDS = (MODIFIED, MISSING, UNCLASSIFIED)

from baton.domain.freshness_states import ADVANCED as ADVANCED  # how the head moved, and its words
from baton.domain.freshness_states import MISSING_COMMIT as MISSING_COMMIT
from baton.domain.freshness_states import OTHER_BRANCH as OTHER_BRANCH
from baton.domain.freshness_states import REACHABLE as REACHABLE
from baton.domain.freshness_states import REACHES as REACHES
from baton.domain.freshness_states import REWRITTEN as REWRITTEN
from baton.domain.freshness_states import SAME as SAME
from baton.domain.freshness_states import UNREACHABLE as UNREACHABLE
from baton.domain.freshness_states import UNTOLD as UNTOLD
from baton.domain.freshness_states import head_change as head_change

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (a session start judges a baton here)
if TYPE_CHECKING:
    from typing import Any

_HEX = frozenset("0123456789abcdef")

# Abbreviated heads ("abc1234") equal the full sha they prefix; shorter than
# this is too ambiguous to call a match.
_MIN_ABBREV = 7


def _one_of(name: str, value: Any, allowed: tuple[str, ...]) -> None:
    """What attrs' ``in_`` validator said of a field outside its choices (the value classes below keep it)."""
    if value not in allowed:
        raise ValueError(f"'{name}' must be in {allowed!r} (got {value!r})")


class ArtifactDrift(Value):
    """One artifact whose content differs from what the handoff recorded."""

    path: str
    kind: str
    captured_hash: str | None = None
    current_hash: str | None = None
    detail: str = ""

    def __new__(cls, path: str, kind: str, captured_hash: str | None = None, current_hash: str | None = None,
                detail: str = "") -> ArtifactDrift:
        _one_of("kind", kind, DRIFT_KINDS)
        return tuple.__new__(cls, (path, kind, captured_hash, current_hash, detail))  # type: ignore[type-var]

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "kind": self.kind,
            "captured_hash": self.captured_hash,
            "current_hash": self.current_hash,
            "detail": self.detail,
        }


class HistoryFacts(Value):
    """What the git adapter could tell of HEAD's history (a bounded walk from HEAD).

    ``reach`` maps a commit id (the captured head, each commit evidence ref) to
    one of ``REACHES``; a commit it does not name was not looked up.
    """

    reach: Mapping[str, str] = EMPTY_MAPPING
    commits_ahead: int | None = None  # commits in HEAD's history and not the captured one's, when counted
    captured_branch: str | None = None
    branch_now: str | None = None  # None on a detached HEAD


class CommitEvidence(Value):
    """A commit evidence record's commit, and whether it is in HEAD's history."""

    id: str
    ref: str
    reach: str

    def __new__(cls, id: str, ref: str, reach: str) -> CommitEvidence:
        _one_of("reach", reach, REACHES)
        return tuple.__new__(cls, (id, ref, reach))  # type: ignore[type-var]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "ref": self.ref, "reach": self.reach}


class FreshnessReport(Value):
    state: str
    evaluated: bool
    captured_head: str | None
    head_now: str | None
    head_moved: bool | None  # None when the heads could not be compared
    drift: tuple[ArtifactDrift, ...] = ()
    reasons: tuple[str, ...] = ()
    head_relation: str | None = None  # SAME, ADVANCED, REWRITTEN, OTHER_BRANCH, UNTOLD; None: not looked at
    commits_ahead: int | None = None
    captured_branch: str | None = None
    branch_now: str | None = None
    commit_evidence: tuple[CommitEvidence, ...] = ()

    def __new__(cls, state: str, evaluated: bool, captured_head: str | None, head_now: str | None,
                head_moved: bool | None, drift: tuple[ArtifactDrift, ...] = (), reasons: tuple[str, ...] = (),
                head_relation: str | None = None, commits_ahead: int | None = None,
                captured_branch: str | None = None, branch_now: str | None = None,
                commit_evidence: tuple[CommitEvidence, ...] = ()) -> FreshnessReport:
        _one_of("state", state, FRESHNESS_STATES)
        return tuple.__new__(cls, (state, evaluated, captured_head, head_now, head_moved, drift,  # type: ignore[type-var]
                                   reasons, head_relation, commits_ahead, captured_branch, branch_now, commit_evidence))

    @property
    def is_stale(self) -> bool:
        """True for stale and partially_stale: something the handoff relied on moved."""
        return self.state in (STALE, PARTIALLY_STALE)

    def to_json(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "evaluated": self.evaluated,
            "captured_head": self.captured_head,
            "head_now": self.head_now,
            "head_moved": self.head_moved,
            "drift": [d.to_json() for d in self.drift],
            "reasons": list(self.reasons),
            "head_relation": self.head_relation,
            "commits_ahead": self.commits_ahead,
            "captured_branch": self.captured_branch,
            "branch_now": self.branch_now,
            "commit_evidence": [e.to_json() for e in self.commit_evidence],
        }

    def to_record_freshness(self) -> dict[str, Any]:
        """The §7.2 ``validation.freshness`` object, plus the §10b state."""
        return {
            "git_head_at_capture": self.captured_head,
            "git_head_now": self.head_now,
            "stale": self.is_stale,
            "state": self.state,
        }


def heads_equal(a: str, b: str) -> bool:
    """Same commit, allowing one side to be an abbreviation (≥ 7 hex digits) of the other."""
    a, b = a.strip().lower(), b.strip().lower()
    if a == b:
        return True
    short, long_ = sorted((a, b), key=len)
    return len(short) >= _MIN_ABBREV and long_.startswith(short)


def _blank(value: str) -> bool:
    return not value.strip()


def derive_freshness(
    captured_head: str | None,
    head_now: str | None,
    artifact_drift: Iterable[ArtifactDrift] | None,
    evaluated: bool,
    history: HistoryFacts | None = None,
    commit_refs: Iterable[tuple[str, str]] = (),
) -> FreshnessReport:
    """Classify the gathered facts into one §10b state.

    ``artifact_drift`` lists only artifacts that drifted (see
    ``detect_artifact_drift``); ``None`` or empty means none did. ``evaluated``
    is False when nobody ever looked (e.g. a record read back without a check),
    which is always ``unknown`` whatever else is passed. ``history``: what the
    git adapter could tell of HEAD's history (None: nothing looked up);
    ``commit_refs``: the ``(evidence id, commit)`` pairs of the record's commit
    evidence (``commit_evidence_refs``), judged against ``history.reach``.
    """
    drift = tuple(sorted(artifact_drift or (), key=lambda d: (d.path, d.kind)))
    captured = (captured_head or "").strip() or None
    now = (head_now or "").strip() or None

    if not evaluated:
        return FreshnessReport(UNKNOWN, False, captured, now, None, drift,
                               ("freshness was never evaluated",))

    reasons: list[str] = []
    unclassified = [d for d in drift if d.kind == UNCLASSIFIED]
    content = [d for d in drift if d.kind != UNCLASSIFIED]

    if captured is None or now is None:
        head_moved = None
        if captured is None and now is None:
            reasons.append("no git head was recorded at capture and none is available now")
        elif captured is None:
            reasons.append("no git head was recorded at capture")
        else:
            reasons.append(f"git head {captured} was recorded at capture but none is available now")
        if drift:
            reasons.append(f"{counted(len(drift), 'artifact')} drifted and cannot be classified without a comparable head")
            state = STALE
        else:
            state = UNKNOWN
    else:
        head_moved = not heads_equal(captured, now)
        if head_moved:
            reasons.append(_moved_reason(captured, now, history))
            state = STALE
        else:
            state = FRESH
        if unclassified:
            reasons.append(f"{counted(len(unclassified), 'artifact')} could not be compared")
            state = STALE
        if content:
            reasons.append(f"{counted(len(content), 'artifact')} changed content since capture")
            if state == FRESH:
                state = PARTIALLY_STALE
        if state == FRESH:
            reasons.append(f"repository head {now} unchanged and no hashed artifact drifted")

    relation = _relation(captured, head_moved, history)
    evidence = _judged_evidence(commit_refs, history)
    reasons.extend(_evidence_reason(e) for e in evidence if e.reach != REACHABLE)
    return FreshnessReport(state, True, captured, now, head_moved, drift, tuple(reasons),
                           head_relation=relation,
                           commits_ahead=history.commits_ahead if history and relation == ADVANCED else None,
                           captured_branch=history.captured_branch if history else None,
                           branch_now=history.branch_now if history else None,
                           commit_evidence=evidence)


def _relation(captured: str | None, head_moved: bool | None, history: HistoryFacts | None) -> str | None:
    if head_moved is None or history is None or captured is None:
        return None
    if not head_moved:
        return SAME
    reach = history.reach.get(captured, UNTOLD)
    if reach == REACHABLE:
        return ADVANCED
    if reach in (UNTOLD, MISSING_COMMIT):  # not in this repository (a shallow clone, a commit never fetched)
        return UNTOLD
    if history.captured_branch and history.captured_branch != history.branch_now:
        return OTHER_BRANCH
    return REWRITTEN


def _moved_reason(captured: str, now: str, history: HistoryFacts | None) -> str:
    relation = _relation(captured, True, history)
    if relation == ADVANCED:
        ahead = history.commits_ahead if history else None
        return (f"repository head advanced from {captured} to {now}"
                + (f" ({counted(ahead, 'commit')} ahead)" if ahead else "") + ": the captured commit is in its history")
    if relation == OTHER_BRANCH and history is not None:
        place = f"on {history.branch_now}" if history.branch_now else "on a detached HEAD"
        return (f"captured on {history.captured_branch} at {captured}; this session is {place} at {now}, "
                "which does not contain it")
    if relation == REWRITTEN:
        return (f"history was rewritten since capture (amend, rebase or reset): the captured commit {captured} "
                f"is not in the history of HEAD {now}")
    if relation == UNTOLD:
        return (f"repository head moved from {captured} to {now}; whether the captured commit is in its history "
                "could not be told "
                "(too much history to walk, a shallow clone's history ends first, or the captured commit is "
                "not in this repository)")
    return f"repository head moved from {captured} to {now}"


def _judged_evidence(commit_refs: Iterable[tuple[str, str]], history: HistoryFacts | None) -> tuple[CommitEvidence, ...]:
    if history is None:
        return ()
    return tuple(CommitEvidence(eid, ref, history.reach[ref]) for eid, ref in commit_refs if ref in history.reach)


def _evidence_reason(e: CommitEvidence) -> str:
    if e.reach == MISSING_COMMIT:
        return f"commit evidence {e.id}: commit {e.ref} is not in this repository"
    if e.reach == UNREACHABLE:
        return f"commit evidence {e.id}: commit {e.ref} is not in the history of HEAD"
    return f"commit evidence {e.id}: whether commit {e.ref} is in the history of HEAD could not be told"


def looks_like_commit(ref: str) -> bool:
    """A full or abbreviated (≥ 7 hex digits) commit id."""
    text = ref.strip().lower()
    return _MIN_ABBREV <= len(text) <= 64 and set(text) <= _HEX


def commit_evidence_refs(h: Any) -> list[tuple[str, str]]:
    """``(evidence id, commit)`` of each commit evidence whose ref is a commit id
    (what the git adapter looks up for ``derive_freshness``)."""
    out: list[tuple[str, str]] = []
    for ev in getattr(h, "evidence", ()) or ():
        ref = (ev.ref or "").strip()
        if ev.type == "commit" and looks_like_commit(ref):
            out.append((ev.id, ref.lower()))
    return out


def flagged_evidence(report: FreshnessReport) -> dict[str, str]:
    """Evidence id → why its commit cannot be trusted as is (missing, not in
    HEAD's history, or could not tell); reachable commits are not listed."""
    words = {MISSING_COMMIT: "commit not in this repository", UNREACHABLE: "commit not in the history of HEAD",
             UNTOLD: "could not tell whether its commit is in the history of HEAD"}
    return {e.id: words[e.reach] for e in report.commit_evidence if e.reach != REACHABLE}


def detect_artifact_drift(
    recorded: Iterable[tuple[str, str | None]],
    current: Mapping[str, str | None],
    *,
    unreadable: Iterable[str] = (),
    deleted_ok: Iterable[str] = (),
) -> list[ArtifactDrift]:
    """Compare recorded ``(path, content_hash)`` pairs with what a command observed.

    ``current`` maps a path to its hash now (``None`` when the file is gone);
    paths absent from ``current`` were not observed and are not judged.
    Artifacts recorded without a hash make no claim about content and never
    drift. ``unreadable`` paths (observed but not comparable) are unclassified
    drift; ``deleted_ok`` paths (marked deleted in the record) may be missing.
    A hash whose algorithm prefix differs from the recorded one is also
    unclassified: the two cannot be compared.
    """
    unreadable_set = set(unreadable)
    deleted_set = set(deleted_ok)
    out: list[ArtifactDrift] = []
    seen: set[str] = set()
    for path, captured_hash in recorded:
        if path in seen or captured_hash is None or _blank(captured_hash):
            continue
        seen.add(path)
        if path in unreadable_set:
            out.append(ArtifactDrift(path, UNCLASSIFIED, captured_hash, None, "could not be read"))
            continue
        if path not in current:
            continue
        now = current[path]
        if now is None:
            if path not in deleted_set:
                out.append(ArtifactDrift(path, MISSING, captured_hash, None, "file no longer exists"))
            continue
        if _algorithm(captured_hash) != _algorithm(now):
            out.append(ArtifactDrift(path, UNCLASSIFIED, captured_hash, now, "hash algorithms differ"))
        elif captured_hash.strip().lower() != now.strip().lower():
            out.append(ArtifactDrift(path, MODIFIED, captured_hash, now, FOLDER_CHANGED if _algorithm(now) == "sha256-tree"
                                     else "content hash changed"))
    return sorted(out, key=lambda d: (d.path, d.kind))


FOLDER_CHANGED = "a file in the folder changed, was added or was removed"
"""The drift of a folder artifact (hashed as a tree, ``sha256-tree:``)."""


def _algorithm(tagged_hash: str) -> str:
    head, sep, _ = tagged_hash.strip().partition(":")
    return head.lower() if sep else ""


# -- from what a command observed ---------------------------------------------------

class ArtifactFact(Value):
    """What a command observed about one artifact path, relative to the project root."""

    exists: bool
    inside_root: bool = True  # False when the resolved path (symlinks followed) leaves the root
    sha256: str | None = None  # the current content hashed in the recorded hash's form, when hashed
    readable: bool = True
    withhold_hash: bool = False  # the current hash is not shown: the file now holds a secret, or is too large to screen
    note: str = ""  # why the content could not be compared, when Baton knows (shown in place of "could not be read")
    allowed_once_trusted: str = ""  # outside the root, but the untrusted allowed_roots would allow it: what to say


HASH_SKIPPED = "content_hash_skipped"
"""The artifact field a capture writes, a sentence, in place of a hash it could not take."""
NOT_HASHED = "not hashed at capture, so its changes cannot be checked"
NOT_HASHED_YET = ("not hashed yet: this capture ran within a hook's deadline and its hashing budget was spent on "
                  "the artifacts before it, so no hash was recorded and its changes since cannot be checked; "
                  "`baton handoff validate` hashes it (and records the hash), as any `baton handoff amend` "
                  "of the draft or a capture outside a hook does")
"""``content_hash_skipped`` of an artifact a budgeted capture (a hook's) had no room to hash: the artifact is
kept, no hash is claimed for it (freshness calls it unclassified); validation hashes it and records the hash
(``artifact_hashes`` of ``handoff.validated``), and a record holding one never becomes ready."""
_NOT_HASHED_YET_MARK = "not hashed yet:"
"""How every ``NOT_HASHED_YET`` begins, whatever words followed it when it was recorded."""


def not_hashed_yet(artifacts: Iterable[Any]) -> list[str]:
    """The paths of ``artifacts`` a budgeted capture recorded not hashed yet (``NOT_HASHED_YET``), in order:
    no hash, and a ``content_hash_skipped`` that says so (a hash computed since replaced it)."""
    out: list[str] = []
    for artifact in artifacts:
        why = (artifact.extra or {}).get(HASH_SKIPPED)
        if (not artifact.content_hash and artifact.role != "deleted" and isinstance(why, str)
                and why.startswith(_NOT_HASHED_YET_MARK) and artifact.path not in out):
            out.append(artifact.path)
    return out
EXISTS_AGAIN = "recorded as deleted; it exists again"


def unhashed_drift(recorded: Iterable[Any], facts: Mapping[str, ArtifactFact]) -> list[ArtifactDrift]:
    """Drift of artifacts recorded without a hash that still say something: one recorded ``deleted`` that
    exists again (modified), and one whose capture said why it took no hash (``content_hash_skipped``: a
    folder or a file over the bounds), which cannot be compared (unclassified, never "unchanged"). An
    artifact recorded without a hash and without a reason (every older folder artifact) makes no claim."""
    out: list[ArtifactDrift] = []
    for artifact in recorded:
        fact = facts.get(artifact.path)
        if fact is None or not fact.exists or artifact.content_hash or any(d.path == artifact.path for d in out):
            continue
        if artifact.role == "deleted":
            out.append(ArtifactDrift(artifact.path, MODIFIED, None, None, EXISTS_AGAIN))
        elif isinstance((artifact.extra or {}).get(HASH_SKIPPED), str):
            out.append(ArtifactDrift(artifact.path, UNCLASSIFIED, None, None, NOT_HASHED))
    return out


def freshness_from_facts(h: Any, artifacts: Mapping[str, ArtifactFact], head_now: str | None,
                         history: HistoryFacts | None = None) -> FreshnessReport:
    """The §10b ``FreshnessReport`` of a record given what a command observed.

    An artifact that could not be read, or that now resolves outside the
    root, cannot be classified: it counts as unclassified drift. A drifted
    artifact whose fact withholds its hash (the file now holds a secret, or is
    too large to screen) is reported without its current hash. ``history``:
    as ``derive_freshness``.
    """
    usable = {p: f for p, f in artifacts.items() if f.readable and f.inside_root}
    current = {p: (f.sha256 if f.exists else None) for p, f in usable.items()}
    unreadable = [p for p in artifacts if p not in usable]
    drift = detect_artifact_drift(
        [(a.path, a.content_hash) for a in h.artifacts],
        current,
        unreadable=unreadable,
        deleted_ok=[a.path for a in h.artifacts if a.role == "deleted"],
    )
    drift += unhashed_drift(h.artifacts, usable)
    withheld = {p for p, f in usable.items() if f.withhold_hash}
    drift = [replace(d, current_hash=None, detail=d.detail + " (its current hash is not shown: see docs/security.md)")
             if d.path in withheld and d.current_hash is not None else d for d in drift]
    drift = [replace(d, detail=artifacts[d.path].note)
             if d.kind == UNCLASSIFIED and d.path in artifacts and artifacts[d.path].note else d for d in drift]
    repo = h.project.repository
    return derive_freshness(repo.head if repo else None, head_now, drift, evaluated=True,
                            history=history, commit_refs=commit_evidence_refs(h))


# -- the record as a freshness reads it ---------------------------------------------


class StoredRepository(Value):
    """A stored record's ``project.repository`` as a freshness reads it."""

    head: str | None
    extra: Mapping[str, Any]
    """The repository's JSON object, whose unknown members the model keeps as ``extra`` (its ``branch``)."""


class StoredProject(Value):
    repository: StoredRepository | None


class StoredArtifact(Value):
    path: str
    role: str
    content_hash: str | None
    extra: Mapping[str, Any]
    """The artifact's JSON object (its ``content_hash_skipped``, an unknown member to the model)."""


class StoredEvidence(Value):
    id: str
    type: str
    ref: str | None


class StoredRecord(Value):
    """The members of a stored handoff record that its freshness reads (``freshness_from_facts``,
    ``commit_evidence_refs``, the worktree's facts), under the record model's names."""

    project: StoredProject
    artifacts: tuple[StoredArtifact, ...]
    evidence: tuple[StoredEvidence, ...]
    extra: Mapping[str, Any]
    """The record's JSON object (its ``baton`` scope, an unknown member to the model)."""


_RECORD_REQUIRED = ("schema_version", "id", "kind", "status", "created_at", "updated_at", "project", "work",
                    "summary", "lineage")
_RECORD_MODELS = ("work", "summary", "lineage", "origin", "validation", "automation")
_RECORD_ARRAYS = ("decisions", "failed_attempts", "open_items", "risks", "redactions")


def stored_record(doc: Any) -> StoredRecord | None:
    """What a freshness reads of a record the index holds (``StoredRecord``), without the record
    model: a session start that receives a baton judges its handoff's freshness without attrs and
    the model's 19 classes (~150 M instructions, docs/performance.md).

    The index's records are a fold's own ``handoff_to_json`` output, read strictly before they
    were stored. None for a document not shaped so — a required member missing, a model or an
    array of them of another kind, a project without an id, an artifact or evidence item missing
    a required member —, which the caller reads with the model (``handoff.stored_handoff``) so it
    fails, or reads, as it always did. The members below the record's other models are not
    looked at."""
    if type(doc) is not dict or any(key not in doc for key in _RECORD_REQUIRED):
        return None
    if any(doc.get(key) is not None and type(doc[key]) is not dict for key in _RECORD_MODELS):
        return None
    if any(not _array_of_objects(doc.get(key)) for key in _RECORD_ARRAYS):
        return None
    project, artifacts, evidence = doc["project"], doc.get("artifacts", []), doc.get("evidence", [])
    if type(project) is not dict or "id" not in project or artifacts is None or evidence is None \
            or not _array_of_objects(artifacts) or not _array_of_objects(evidence):
        return None  # a null project, or null artifacts or evidence, reads as None in the model
    repository = project.get("repository")
    if repository is not None and type(repository) is not dict:
        return None
    if any("path" not in a or "role" not in a for a in artifacts) \
            or any("id" not in e or "type" not in e or "claim" not in e for e in evidence):
        return None
    return StoredRecord(
        StoredProject(None if repository is None else StoredRepository(repository.get("head"), repository)),
        tuple(StoredArtifact(a["path"], a["role"], a.get("content_hash"), a) for a in artifacts),
        tuple(StoredEvidence(e["id"], e["type"], e.get("ref")) for e in evidence),
        doc)


def _array_of_objects(value: Any) -> bool:
    """Absent, null, or an array of JSON objects (how the model reads an array of models)."""
    return value is None or (type(value) is list and all(type(item) is dict for item in value))
