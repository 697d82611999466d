"""Deterministic validation of a handoff (spec §10) and the draft/ready requirements (§7.2).

Pure: a command gathers the facts (does this artifact exist, what is its hash,
where is the git head now, which handoff ids exist, what did the allowlisted
rechecks return, what did the policy engine find) into ``ValidationFacts`` and
this module judges them. The same record and facts always give the same report.

Each of the eight checks (schema, policy, artifacts, repository, evidence,
actionability, lineage, quality) is a list of findings, each with a level
(pass/warn/fail), the field path it concerns and a message. A check's status
is its worst finding; the report's status is the worst of the gating checks.
``quality`` is advisory (§10a): it is reported but never changes the overall
status.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal, cast

import attrs

from baton.domain.freshness import (  # they live with the freshness they derive
    EXISTS_AGAIN,
    HASH_SKIPPED,
    ArtifactFact,
    freshness_from_facts,
    heads_equal,
    not_hashed_yet,
)
from baton.domain.handoff import (
    Check,
    Freshness,
    Handoff,
    Timestamp,
    Validation,
    handoff_from_json,
    handoff_to_json,
    is_handoff_id,
)
from baton.domain.quality import score_quality

# re-exported: the requirements (§7.2) live in ``readiness``, which the fold loads without the checks
from baton.domain.readiness import (  # noqa: F401  # noqa: F401
    ADVISORY_CHECKS,
    TRANSCRIPT_KEYS,
    actionable,
    actionable_open_items,
    blank,
    definition_of_done_satisfied,
    draft_problems,
    is_explicitly_completed,
    moved_since_validation,
    ran_elsewhere,
    ready_problems,
    stale_flag,
    transcript_field_paths,
    validation_report_from_json,  # noqa: F401
)
from baton.domain.short_ids import id_key
from baton.errors import HandoffInputError
from baton.model import as_tuple, frozen

Level = Literal["pass", "warn", "fail"]
_RANK = {"pass": 0, "warn": 1, "fail": 2}

CHECK_NAMES = ("schema", "policy", "artifacts", "repository", "evidence", "actionability", "lineage", "quality")
GATING_CHECKS = CHECK_NAMES[:-1]

RECHECK_RESULTS = ("pass", "fail", "error")


# --------------------------------------------------------------------------- facts


@frozen
class RecheckResult:
    """One requested re-run of recorded evidence (``validate --recheck``).

    The command runs a check only if its ``ref`` is on the allowlist; a request
    for anything else is still reported here with ``allowlisted=False`` and
    ``status=None`` so validation can refuse it visibly.
    """

    evidence_id: str
    ref: str
    allowlisted: bool
    status: Literal["pass", "fail", "error"] | None = None
    detail: str = ""


@frozen
class PolicyFinding:
    """A policy engine finding on a field path (secrets, paths, privacy)."""

    path: str
    reason: str
    severity: Literal["block", "warn"] = "block"


@frozen
class ValidationFacts:
    """Everything validation needs from outside the record, gathered by a command.

    ``known_handoff_ids`` holds which of the ids the lineage names (parents,
    merge basis) are handoffs of the project — commands look up only those —
    or None when the command cannot tell (then existence is not judged).
    ``erased_handoff_ids`` holds which of them were handoffs whose capture
    ``baton forget`` erased: a known past, not a dangling id. ``artifacts``
    holds only the paths the command looked at; an artifact without a fact is
    reported as unchecked.
    """

    now: str | None = None
    artifacts: Mapping[str, ArtifactFact] = attrs.field(factory=dict)
    git_head_now: str | None = None
    git_dirty_now: bool | None = None
    known_handoff_ids: frozenset[str] | None = None
    erased_handoff_ids: frozenset[str] = frozenset()
    recheck_allowlist: tuple[str, ...] = attrs.field(default=(), converter=as_tuple)
    rechecks: tuple[RecheckResult, ...] = attrs.field(default=(), converter=as_tuple)
    policy_findings: tuple[PolicyFinding, ...] = attrs.field(default=(), converter=as_tuple)


# --------------------------------------------------------------------------- report


@frozen
class Finding:
    level: Level
    path: str
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"status": self.level, "path": self.path, "message": self.message}


@frozen
class CheckResult:
    name: str
    status: Level
    detail: str
    findings: tuple[Finding, ...] = ()
    advisory: bool = False

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(f.path for f in self.findings if f.level != "pass" and f.path))

    def to_check(self) -> Check:
        return Check(name=self.name, status=self.status, detail=self.detail, paths=self.paths)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "detail": self.detail,
            "paths": list(self.paths),
            "advisory": self.advisory,
            "findings": [f.to_json() for f in self.findings if f.level != "pass"],
        }


@frozen
class ValidationReport:
    status: Level
    validated_at: str | None
    checks: tuple[CheckResult, ...]
    quality: dict[str, Any] | None
    freshness: dict[str, Any]

    def check(self, name: str) -> CheckResult:
        for c in self.checks:
            if c.name == name:
                return c
        raise KeyError(name)

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "validated_at": self.validated_at,
            "checks": [c.to_json() for c in self.checks],
            "quality": self.quality,
            "freshness": self.freshness,
        }

    def to_validation(self) -> Validation:
        """The record's ``validation`` object (§7.2) for this report."""
        fr = self.freshness
        freshness = Freshness(
            git_head_at_capture=fr.get("captured_head"),
            git_head_now=fr.get("head_now"),
            stale=stale_flag(fr.get("state")),
            state=fr.get("state"),
        )
        return Validation(
            status=self.status,
            validated_at=cast("Timestamp | None", self.validated_at),
            checks=tuple(c.to_check() for c in self.checks),
            freshness=freshness,
            quality=self.quality,
        )


# --------------------------------------------------------------------------- the checks


def _f(level: Level, path: str, message: str) -> Finding:
    return Finding(level, path, message)


def check_schema(h: Handoff, facts: ValidationFacts) -> list[Finding]:
    """Version, UUID, enums, required fields, and referential integrity of evidence ids."""
    out: list[Finding] = []
    # A record built in code bypasses the reader; reading its JSON back catches
    # wrong enum values, types and timestamps exactly as for an input.
    try:
        handoff_from_json(handoff_to_json(h))
    except HandoffInputError as exc:
        for problem in exc.problems:
            path, _, message = problem.partition(": ")
            out.append(_f("fail", path, message))
    except Exception as exc:  # noqa: BLE001 - a value unstructure cannot handle
        out.append(_f("fail", "(handoff)", f"cannot be serialized: {exc}"))
    for problem in draft_problems(h):
        path, _, message = problem.partition(": ")
        out.append(_f("fail", path, message))
    for name in ("decisions", "evidence", "failed_attempts", "open_items"):
        counts = Counter(id_key(item.id) for item in getattr(h, name))
        for i, item in enumerate(getattr(h, name)):
            if blank(item.id):
                out.append(_f("fail", f"{name}[{i}].id", "required"))
            elif counts[id_key(item.id)] > 1:
                out.append(_f("fail", f"{name}[{i}].id", f"duplicate id {item.id!r}"))
    evidence_ids = {e.id for e in h.evidence}
    for name in ("decisions", "failed_attempts"):
        for i, item in enumerate(getattr(h, name)):
            for j, ref in enumerate(item.evidence_ids):
                if ref not in evidence_ids:
                    out.append(_f("fail", f"{name}[{i}].evidence_ids[{j}]",
                                  f"cites evidence {ref!r}, which is not in evidence[]"))
    for name in ("parents", "merge_basis"):
        for i, ref in enumerate(getattr(h.lineage, name)):
            if not is_handoff_id(ref):
                out.append(_f("fail", f"lineage.{name}[{i}]", f"{ref!r} is not a handoff UUID"))
    return out


def check_policy(h: Handoff, facts: ValidationFacts) -> list[Finding]:
    out = [_f("fail" if p.severity == "block" else "warn", p.path, p.reason) for p in facts.policy_findings]
    out += [_f("fail", path, "raw transcripts are not accepted in v0.1") for path in transcript_field_paths(h)]
    return out


_WINDOWS_ABS = re.compile(r"^[A-Za-z]:[\\/]")


def path_escapes_root(path: str) -> bool:
    """Lexically: is a project-relative path absolute or does it climb out of the root?"""
    if not path or path.startswith(("/", "\\", "~")) or _WINDOWS_ABS.match(path):
        return True
    normal = posixpath.normpath(path.replace("\\", "/"))
    return normal == ".." or normal.startswith("../")


_REDACTED_PATH = re.compile(r"\[REDACTED:([a-z0-9][a-z0-9_-]{0,63})\]")
"""An artifact path a path rule replaced at capture (``[REDACTED:dotenv-file]``)."""


def _once_trusted(fact: ArtifactFact | None) -> str:
    return f" ({fact.allowed_once_trusted})" if fact is not None and fact.allowed_once_trusted else ""


def check_artifacts(h: Handoff, facts: ValidationFacts) -> list[Finding]:
    out: list[Finding] = []
    for i, a in enumerate(h.artifacts):
        path = f"artifacts[{i}].path"
        fact = facts.artifacts.get(a.path)
        # A path that climbs out lexically is fine where the command found it inside an allowed root.
        if path_escapes_root(a.path) and not (fact is not None and fact.inside_root):
            out.append(_f("fail", path, f"{a.path!r} is outside the project root" + _once_trusted(fact)))
            continue
        if fact is None:
            redacted = _REDACTED_PATH.fullmatch(a.path)
            out.append(_f("warn", path, f"{a.path!r} was not checked" + (
                f": the policy's rule {redacted.group(1)} replaced the path at capture (a file such as .env or a "
                "key, which Baton never reads); remove the artifact, or accept this warning" if redacted else "")))
            continue
        if not fact.inside_root:
            out.append(_f("fail", path, f"{a.path!r} resolves outside the project root" + _once_trusted(fact)))
            continue
        if a.role == "deleted":
            if fact.exists and not a.content_hash:
                out.append(_f("warn", path, f"{a.path!r} {EXISTS_AGAIN}"))
            continue
        if not fact.exists:
            out.append(_f("fail", path, f"{a.path!r} does not exist (mark it role \"deleted\" if it was removed)"))
            continue
        if a.content_hash:
            if not fact.readable or fact.sha256 is None:
                out.append(_f("warn", f"artifacts[{i}].content_hash", f"{a.path!r} could not be hashed"
                              + (f": {fact.note}" if fact.note else "")))
            elif _hash_algorithm(a.content_hash) != _hash_algorithm(fact.sha256):
                out.append(_f("warn", f"artifacts[{i}].content_hash",
                              f"{a.path!r}: recorded hash uses another algorithm; cannot compare"))
            elif a.content_hash.strip().lower() != fact.sha256.strip().lower():
                out.append(_f("warn", f"artifacts[{i}].content_hash", f"{a.path!r} changed since capture"))
        elif isinstance((a.extra or {}).get(HASH_SKIPPED), str):
            # one left not hashed yet that validation cannot hash says why (``fact.note``), not that validation hashes it
            why = f"not hashed yet: {fact.note}" if fact.note and not_hashed_yet((a,)) else a.extra[HASH_SKIPPED]
            out.append(_f("warn", f"artifacts[{i}].content_hash_skipped", f"{a.path!r}: {why}"))
    return out


def _hash_algorithm(tagged: str) -> str:
    head, sep, _ = tagged.strip().partition(":")
    return head.lower() if sep else ""


NO_COMMIT_YET = ("the repository has no commit yet, so there is no HEAD to record or to judge freshness by: "
                 "commit once and capture the handoff again, or accept this warning when making it ready")


def check_repository(h: Handoff, facts: ValidationFacts) -> list[Finding]:
    """Recorded git state and drift since capture: drift warns, never fails (§10)."""
    repo = h.project.repository
    if repo is None:
        if facts.git_head_now is None:
            return []  # not a repository then or now: nothing to record or compare
        return [_f("warn", "project.repository", "repository state was not recorded at capture")]
    if repo.head is None or blank(repo.head):
        if facts.git_head_now is None and repo.vcs == "git":
            return [_f("warn", "project.repository.head", NO_COMMIT_YET)]
        return [_f("warn", "project.repository.head", "git head was not recorded at capture")]
    if facts.git_head_now is None:
        return [_f("warn", "project.repository.head", "the current git head could not be read")]
    out: list[Finding] = []
    if not heads_equal(repo.head, facts.git_head_now):
        out.append(_f("warn", "project.repository.head",
                      f"repository head moved from {repo.head} to {facts.git_head_now} since capture"))
    if repo.dirty is False and facts.git_dirty_now:
        out.append(_f("warn", "project.repository.dirty", "the working tree has changed since a clean capture"))
    return out


_SHA256 = re.compile(r"^sha256:[0-9a-f]{64}$")
_COMMIT = re.compile(r"^(git:)?[0-9a-fA-F]{7,64}$")
_FILE_RANGE = re.compile(r"(#L?\d+(-L?\d+)?|:\d+(-\d+)?)$")


def check_evidence(h: Handoff, facts: ValidationFacts) -> list[Finding]:
    """Evidence records are well-formed; commands are never re-run here, only
    allowlisted recheck results are judged (§10)."""
    out: list[Finding] = []
    by_id = {e.id: e for e in h.evidence}
    for i, e in enumerate(h.evidence):
        base = f"evidence[{i}]"
        if blank(e.claim):
            out.append(_f("fail", f"{base}.claim", "required"))
        if e.type in ("command", "test"):
            if blank(e.ref):
                out.append(_f("fail", f"{base}.ref", f"{e.type} evidence needs the command that was run"))
            if blank(e.result):
                out.append(_f("fail", f"{base}.result", f"{e.type} evidence needs its result"))
        elif e.type == "commit":
            if e.ref is None or blank(e.ref):
                out.append(_f("fail", f"{base}.ref", "commit evidence needs the commit id"))
            elif not _COMMIT.match(e.ref.strip()):
                out.append(_f("warn", f"{base}.ref", f"{e.ref!r} does not look like a commit id"))
        elif e.type == "url":
            if e.ref is None or blank(e.ref):
                out.append(_f("fail", f"{base}.ref", "url evidence needs the URL"))
            elif not e.ref.strip().lower().startswith(("https://", "http://")):
                out.append(_f("warn", f"{base}.ref", f"{e.ref!r} is not an http(s) URL"))
        elif e.type == "file":
            if e.ref is None or blank(e.ref):
                out.append(_f("fail", f"{base}.ref", "file evidence needs the file path"))
            elif path_escapes_root(_FILE_RANGE.sub("", e.ref.strip())):
                out.append(_f("fail", f"{base}.ref", f"{e.ref!r} is outside the project root"))
        if e.digest is not None and not _SHA256.match(e.digest):
            out.append(_f("warn", f"{base}.digest", "digest should be sha256:<64 hex digits>"))
    allow = set(facts.recheck_allowlist)
    for r in facts.rechecks:
        index = next((i for i, e in enumerate(h.evidence) if e.id == r.evidence_id), None)
        path = f"evidence[{index}].ref" if index is not None else "evidence"
        if index is None:
            out.append(_f("fail", path, f"recheck names evidence {r.evidence_id!r}, which is not in evidence[]"))
        elif not r.allowlisted or r.ref not in allow:
            out.append(_f("fail", path, f"recheck of {r.ref!r} refused: it is not on the recheck allowlist"))
        elif r.status is None:
            out.append(_f("warn", path, f"recheck of {r.ref!r} did not run"))
        elif r.status != "pass" and (by_id[r.evidence_id].result or "").strip().lower() == "pass":
            out.append(_f("fail", path, f"recheck of {r.ref!r} returned {r.status}, "
                                        f"contradicting the recorded pass" + (f": {r.detail}" if r.detail else "")))
    return out


def check_actionability(h: Handoff, facts: ValidationFacts) -> list[Finding]:
    """Objective present, and either done (explicitly, or every definition-of-done
    item completed) or an open item with a suggested action and an acceptance check."""
    out: list[Finding] = []
    if blank(h.work.objective):
        out.append(_f("fail", "work.objective", "an objective is required"))
    if actionable(h):
        return out
    if h.open_items:
        out.append(_f("fail", "open_items", "no open item has both suggested_action and acceptance_check"))
    else:
        out.append(_f("fail", "open_items", "no next step: add an open item with suggested_action and "
                                            "acceptance_check, or complete the definition of done"))
    return out


def check_lineage(h: Handoff, facts: ValidationFacts) -> list[Finding]:
    out: list[Finding] = []
    lin = h.lineage
    parents = lin.parents
    if lin.relation == "root" and parents:
        out.append(_f("fail", "lineage.relation", "a root handoff has no parents"))
    elif lin.relation in ("continue", "fork", "amend"):
        if len(parents) != 1:
            out.append(_f("fail", "lineage.parents",
                          f"a {lin.relation} handoff has exactly one parent (a merge has two or more)"))
    elif lin.relation == "merge":
        if len(set(parents)) < 2:
            out.append(_f("fail", "lineage.parents", "a merge needs at least two distinct parents"))
        if not any(d.kind == "merge_resolution" for d in h.decisions):
            out.append(_f("fail", "decisions", "a merge needs a decision of kind \"merge_resolution\" "
                                               "that records how the parents were reconciled"))
    for i, p in enumerate(parents):
        if p == h.id:
            out.append(_f("fail", f"lineage.parents[{i}]", "a handoff cannot be its own parent"))
        elif parents.index(p) != i:
            out.append(_f("fail", f"lineage.parents[{i}]", f"duplicate parent {p}"))
        elif p in facts.erased_handoff_ids:
            out.append(_f("warn", f"lineage.parents[{i}]",
                          f"parent {p} was erased by `baton forget`; this handoff keeps its own copy of "
                          "what it took from it"))
        elif facts.known_handoff_ids is not None and p not in facts.known_handoff_ids:
            out.append(_f("fail", f"lineage.parents[{i}]", f"parent {p} is not a known handoff"))
    if lin.merge_basis and lin.relation != "merge":
        out.append(_f("warn", "lineage.merge_basis", "merge_basis is only meaningful for a merge"))
    if facts.known_handoff_ids is not None:
        for i, m in enumerate(lin.merge_basis):
            if m in facts.erased_handoff_ids:
                out.append(_f("warn", f"lineage.merge_basis[{i}]", f"{m} was erased by `baton forget`"))
            elif m not in facts.known_handoff_ids:
                out.append(_f("warn", f"lineage.merge_basis[{i}]", f"{m} is not a known handoff"))
    return out


_CHECKS: tuple[tuple[str, Callable[[Handoff, ValidationFacts], list[Finding]]], ...] = (
    ("schema", check_schema),
    ("policy", check_policy),
    ("artifacts", check_artifacts),
    ("repository", check_repository),
    ("evidence", check_evidence),
    ("actionability", check_actionability),
    ("lineage", check_lineage),
)

_PASS_DETAIL = {
    "schema": "valid v0.1 record; evidence references resolve",
    "policy": "no policy finding; no transcript field",
    "artifacts": "every artifact is inside the root, present and unchanged",
    "repository": "repository state recorded and unchanged",
    "evidence": "evidence records are well-formed",
    "actionability": "objective and an actionable next step are present",
    "lineage": "lineage is consistent",
}


def _result(name: str, findings: Iterable[Finding]) -> CheckResult:
    findings = tuple(findings)
    status: Level = max((f.level for f in findings), key=_RANK.__getitem__, default="pass")
    bad = [f for f in findings if f.level != "pass"]
    if bad:
        detail = "; ".join(f"{f.path}: {f.message}" if f.path else f.message for f in bad)
    else:
        detail = _PASS_DETAIL.get(name, "ok")
    return CheckResult(name=name, status=status, detail=detail, findings=findings)


# --------------------------------------------------------------------------- quality


QUALITY_WARN_BELOW = 50


def check_quality(h: Handoff, freshness_state: str | None) -> tuple[CheckResult, dict[str, Any]]:
    """The continuity score (§10a, ``baton.domain.quality``): reported with the
    checks, advisory, never part of the overall status."""
    score = score_quality(h, freshness_state=freshness_state)
    level: Level = "warn" if score.overall < QUALITY_WARN_BELOW else "pass"
    detail = f"continuity score {score.overall:g}/100 (advisory); weakest: {score.weakest().name}"
    findings = (Finding("warn", "", "continuity score is low"),) if level == "warn" else ()
    return CheckResult("quality", level, detail, findings=findings, advisory=True), score.to_json()


# --------------------------------------------------------------------------- entry point


def freshness_of(h: Handoff, facts: ValidationFacts) -> dict[str, Any]:
    """The §10b freshness of the record given the facts, as JSON."""
    return freshness_from_facts(h, facts.artifacts, facts.git_head_now).to_json()


def validate_handoff(h: Handoff, facts: ValidationFacts | None = None) -> ValidationReport:
    """Run every §10 check on a record with the facts a command gathered."""
    facts = facts or ValidationFacts()
    results = [_result(name, fn(h, facts)) for name, fn in _CHECKS]
    if results[3].status == "pass" and h.project.repository is None and facts.git_head_now is None:
        results[3] = attrs.evolve(results[3], detail="not a git repository; nothing to compare")
    freshness = freshness_of(h, facts)
    quality_result, quality = check_quality(h, freshness["state"])
    results.append(quality_result)
    status: Level = max((r.status for r in results if not r.advisory), key=_RANK.__getitem__, default="pass")
    return ValidationReport(
        status=status,
        validated_at=facts.now,
        checks=tuple(results),
        quality=quality,
        freshness=freshness,
    )
