"""The continuity score (§10a): how well a handoff would carry work to a stranger.

Eight integer dimensions, 0–100 each, every point earned by a cue that can be
read off the record alone (no clock, no repository, no model). The overall
score is their mean, rounded half-up to one decimal. It is advisory: it is
reported with every validation and in the resume JSON, and never gates
readiness. The rubric, point by point, is in docs/continuity-score.md; change
the two together and bump ``RUBRIC_VERSION``.
"""

from __future__ import annotations

import re

from baton.domain.batons import open_blockers, ordered_open_items
from baton.domain.regexes import lazy
from baton.domain.wording import counted
from baton.values import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (resume loads this)
if TYPE_CHECKING:
    from typing import Any

RUBRIC_VERSION = 1

DIMENSIONS = (
    "objective_clarity",
    "current_state_clarity",
    "decision_completeness",
    "evidence_coverage",
    "artifact_coverage",
    "failed_attempts",
    "next_action_clarity",
    "freshness",
)

# A list that is legitimately empty (no decisions taken, nothing failed) is
# neither good nor bad: the record cannot tell "none happened" from "none
# written down", so it scores the middle of the scale.
NEUTRAL = 50

_PLACEHOLDERS = {"", "todo", "tbd", "tba", "n/a", "na", "none", "-", "--", "...", "…", "?", "xxx", "fixme", "wip"}
_MEASURABLE = lazy(  # groups that capture nothing: only whether it matches is read, and it compiles ~20% faster
    r"\d|%|\b(?:pass(?:es|ing)?|fail(?:s|ing)?|reject(?:s|ed)?|accept(?:s|ed)?|return(?:s|ed)?|must|so that|until|"
    r"without|never|only|at (?:least|most)|within|succeeds?|errors?|tests?|tested|verified|measur\w*)\b",
    re.IGNORECASE,
)
"""A checkable outcome: a number, a percentage or an outcome word. The definition; an ASCII
objective (almost every one) is told by ``measurable`` without compiling it (5 M instructions,
a sixth of what ``resume`` costs beyond ``bootstrap``)."""
_OUTCOME_WORDS = frozenset((
    "pass", "passes", "passing", "fail", "fails", "failing", "reject", "rejects", "rejected", "accept", "accepts",
    "accepted", "return", "returns", "returned", "must", "until", "without", "never", "only", "within", "succeed",
    "succeeds", "error", "errors", "test", "tests", "tested", "verified"))
_OUTCOME_PAIRS = (("so", "that"), ("at", "least"), ("at", "most"))
_ASCII_WORD = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")
_ASCII_SPACED = str.maketrans({chr(c): " " for c in range(128) if chr(c).lower() not in _ASCII_WORD})
_REPRODUCIBLE_EVIDENCE = {"command", "test", "commit", "file", "url"}
_VALID_ARTIFACT_ROLES = {"modified", "created", "read", "generated", "deleted"}
_VALID_OUTCOMES = {"failed", "regressed", "abandoned"}


class DimensionScore(Value):
    name: str
    score: int
    reasons: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"score": self.score, "reasons": list(self.reasons)}


class QualityScore(Value):
    overall: float
    dimensions: tuple[DimensionScore, ...]
    rubric_version: int = RUBRIC_VERSION

    def __getitem__(self, name: str) -> DimensionScore:
        for d in self.dimensions:
            if d.name == name:
                return d
        raise KeyError(name)

    def weakest(self) -> DimensionScore:
        """The lowest dimension (first in canonical order on ties): where to improve first."""
        return min(self.dimensions, key=lambda d: d.score)

    def to_json(self) -> dict[str, Any]:
        return {
            "overall": self.overall,
            "advisory": True,
            "rubric_version": self.rubric_version,
            "dimensions": {d.name: d.to_json() for d in self.dimensions},
        }


def score_quality(handoff: Any, *, freshness_state: str | None = None) -> QualityScore:
    """Score a handoff record. Same record (and freshness state) in, same score out.

    ``freshness_state`` is the §10b state a command derived; without it the
    record's own ``validation.freshness`` is used, else the state is unknown.
    """
    dims = (
        _objective_clarity(handoff),
        _current_state_clarity(handoff),
        _decision_completeness(handoff),
        _evidence_coverage(handoff),
        _artifact_coverage(handoff),
        _failed_attempts(handoff),
        _next_action_clarity(handoff),
        _freshness(handoff, freshness_state),
    )
    return QualityScore(overall=mean_one_decimal([d.score for d in dims]), dimensions=dims)


def measurable(text: str) -> bool:
    """Whether ``text`` states a checkable outcome: ``_MEASURABLE`` matches in it. An ASCII text
    is read word by word (words as ``\\b`` bounds them: runs of letters, digits and ``_``), which
    is the pattern's own reading of it; any other text is searched with the pattern."""
    if not text.isascii():
        return _MEASURABLE.search(text) is not None
    if "%" in text or any(c.isdigit() for c in text):
        return True
    words = text.lower().translate(_ASCII_SPACED).split()
    if any(word in _OUTCOME_WORDS or word.startswith("measur") for word in words):
        return True
    lowered = text.lower()
    return any(f"{first} {second}" in lowered and _spaced_pair(lowered, first, second) for first, second in _OUTCOME_PAIRS)


def _spaced_pair(lowered: str, first: str, second: str) -> bool:
    """``first``, one space, ``second``, each a whole word (``\\bso that\\b``) somewhere in ``lowered``."""
    pair = f"{first} {second}"
    start = lowered.find(pair)
    while start != -1:
        end = start + len(pair)
        if (start == 0 or lowered[start - 1] not in _ASCII_WORD) and (end == len(lowered) or lowered[end] not in _ASCII_WORD):
            return True
        start = lowered.find(pair, start + 1)
    return False


def mean_one_decimal(scores: list[int]) -> float:
    """Mean rounded half-up to one decimal, in exact integer arithmetic (no float drift)."""
    return _half_up(10 * sum(scores), len(scores)) / 10


def _half_up(numerator: int, denominator: int) -> int:
    """``numerator / denominator`` rounded to an integer, halves away from zero
    (``decimal``'s ROUND_HALF_UP, without importing ``decimal``: a tenth of
    ``resume``'s own import time)."""
    whole, rest = divmod(abs(numerator), denominator)
    whole += 2 * rest >= denominator
    return whole if numerator >= 0 else -whole


# -- reading the record -------------------------------------------------------------------------

def _get(obj: Any, name: str, default: Any = None) -> Any:
    if obj is None:
        return default
    if isinstance(obj, dict):
        value = obj.get(name, default)
    else:
        value = getattr(obj, name, default)
    return default if value is None else value


def _text(value: Any) -> str:
    """The meaningful text of a field: placeholders ("TODO", "TBD", "<...>") count as empty."""
    if not isinstance(value, str):
        return ""
    s = value.strip()
    if s.lower() in _PLACEHOLDERS or (s.startswith("<") and s.endswith(">")):
        return ""
    return s


def _items(obj: Any, name: str) -> list[Any]:
    return list(_get(obj, name, ()) or ())


def _strings(obj: Any, name: str) -> list[str]:
    return [s for s in (_text(x) for x in _items(obj, name)) if s]


def _words(s: str) -> int:
    return len(s.split())


def evidence_index(handoff: Any) -> dict[str, Any]:
    """Evidence records by id (first wins on a duplicate id)."""
    out: dict[str, Any] = {}
    for ev in _items(handoff, "evidence"):
        eid = _text(_get(ev, "id"))
        if eid and eid not in out:
            out[eid] = ev
    return out


def cited_ids(item: Any) -> list[str]:
    return [s for s in (_text(x) for x in _items(item, "evidence_ids")) if s]


def _clamp(points: int) -> int:
    return max(0, min(100, points))


def _mean_int(values: list[int]) -> int:
    return _half_up(sum(values), len(values))


def _share(n: int, total: int) -> str:
    return f"{n} of {total}"


# -- the eight dimensions -----------------------------------------------------------------------

def _objective_clarity(h: Any) -> DimensionScore:
    work = _get(h, "work")
    objective = _text(_get(work, "objective"))
    reasons: list[str] = []
    points = 0
    if not objective:
        reasons.append("no objective (or only a placeholder): 0")
        return DimensionScore("objective_clarity", 0, tuple(reasons))
    points += 40
    reasons.append("objective present: +40")
    if _words(objective) >= 6:
        points += 15
        reasons.append("objective is specific (6+ words): +15")
    else:
        reasons.append("objective is terse (under 6 words): +0")
    if measurable(objective):
        points += 15
        reasons.append("objective states a checkable outcome (number or outcome word): +15")
    else:
        reasons.append("objective has no measurable cue: +0")
    if _text(_get(work, "title")):
        points += 10
        reasons.append("title present: +10")
    else:
        reasons.append("no title: +0")
    dod = _strings(work, "definition_of_done")
    if dod:
        points += 15
        reasons.append(f"definition of done has {counted(len(dod), 'item')}: +15")
    else:
        reasons.append("no definition of done: +0")
    if _strings(work, "scope"):
        points += 5
        reasons.append("scope recorded: +5")
    else:
        reasons.append("no scope: +0")
    return DimensionScore("objective_clarity", _clamp(points), tuple(reasons))


def _current_state_clarity(h: Any) -> DimensionScore:
    summary = _get(h, "summary")
    state = _text(_get(summary, "current_state"))
    reasons: list[str] = []
    points = 0
    if state:
        points += 40
        reasons.append("current state present: +40")
        if _words(state) >= 6:
            points += 15
            reasons.append("current state is specific (6+ words): +15")
        else:
            reasons.append("current state is terse (under 6 words): +0")
    else:
        reasons.append("no current state: +0")
    threads = len(_strings(summary, "completed")) + len(_strings(summary, "in_progress"))
    if threads:
        points += 20
        reasons.append(f"{counted(threads, 'completed/in-progress thread')} listed: +20")
    else:
        reasons.append("no completed or in-progress threads: +0")
    if _text(_get(summary, "why_it_matters")):
        points += 10
        reasons.append("why it matters is stated: +10")
    else:
        reasons.append("why it matters is not stated: +0")
    head = _text(_get(_get(_get(h, "project"), "repository"), "head"))
    if head:
        points += 15
        reasons.append("state is anchored to a recorded git head: +15")
    else:
        reasons.append("no git head recorded: +0")
    return DimensionScore("current_state_clarity", _clamp(points), tuple(reasons))


def _decision_completeness(h: Any) -> DimensionScore:
    decisions = _items(h, "decisions")
    if not decisions:
        return DimensionScore("decision_completeness", NEUTRAL,
                              (f"no decisions recorded: neutral {NEUTRAL}",))
    known = evidence_index(h)
    per: list[int] = []
    stated = rationale = backed = alternatives = 0
    for d in decisions:
        if not _text(_get(d, "decision")):
            per.append(0)
            continue
        stated += 1
        p = 25
        if _text(_get(d, "rationale")):
            p += 35
            rationale += 1
        ids = cited_ids(d)
        if ids and all(i in known for i in ids):
            p += 25
            backed += 1
        if _strings(d, "alternatives_considered"):
            p += 15
            alternatives += 1
        per.append(p)
    n = len(decisions)
    reasons = (
        f"{_share(stated, n)} decisions state what was decided (25 each)",
        f"{_share(rationale, n)} give a rationale (35 each)",
        f"{_share(backed, n)} cite evidence ids that all resolve (25 each)",
        f"{_share(alternatives, n)} list alternatives considered (15 each)",
        "score is the mean over decisions",
    )
    return DimensionScore("decision_completeness", _clamp(_mean_int(per)), reasons)


def _evidence_coverage(h: Any) -> DimensionScore:
    # Every part below only grows when evidence is added, so more evidence never lowers the score.
    known = evidence_index(h)
    if not known:
        return DimensionScore("evidence_coverage", 0, ("no evidence recorded: every claim is a bare assertion: 0",))
    reasons: list[str] = []
    claims = _items(h, "decisions") + _items(h, "failed_attempts")
    if claims:
        linked = sum(1 for c in claims if any(i in known for i in cited_ids(c)))
        a = (50 * linked) // len(claims)
        reasons.append(f"{_share(linked, len(claims))} decisions/failed attempts cite resolvable evidence: +{a} of 50")
    else:
        a = 50
        reasons.append("no decisions or failed attempts to back; evidence exists: +50 of 50")
    verified = sum(1 for ev in known.values() if _text(_get(ev, "ref")) and _text(_get(ev, "result")))
    completed = len(_strings(_get(h, "summary"), "completed"))
    target = max(1, completed)
    b = (30 * min(verified, target)) // target
    reasons.append(f"{counted(verified, 'evidence record')} with a ref and a result for {counted(completed, 'completed item')}: "
                   f"+{b} of 30")
    reproducible = any(_text(_get(ev, "type")) in _REPRODUCIBLE_EVIDENCE for ev in known.values())
    c = 20 if reproducible else 0
    reasons.append("at least one reproducible record (command, test, commit, file, url): +20" if reproducible
                   else "only human/observation evidence: +0 of 20")
    return DimensionScore("evidence_coverage", _clamp(a + b + c), tuple(reasons))


def _artifact_coverage(h: Any) -> DimensionScore:
    artifacts = [a for a in _items(h, "artifacts") if _text(_get(a, "path"))]
    if not artifacts:
        return DimensionScore("artifact_coverage", 0, ("no artifacts recorded: the successor must rediscover files: 0",))
    per: list[int] = []
    role = desc = rev = hashed = 0
    for a in artifacts:
        p = 0
        if _text(_get(a, "role")) in _VALID_ARTIFACT_ROLES:
            p += 10
            role += 1
        if _text(_get(a, "description")):
            p += 20
            desc += 1
        if _text(_get(a, "revision")):
            p += 35
            rev += 1
        if _text(_get(a, "content_hash")):
            p += 35
            hashed += 1
        per.append(p)
    n = len(artifacts)
    reasons = (
        f"{_share(role, n)} artifacts have a known role (10 each)",
        f"{_share(desc, n)} have a description (20 each)",
        f"{_share(rev, n)} pin a revision (35 each)",
        f"{_share(hashed, n)} record a content hash (35 each)",
        "score is the mean over artifacts",
    )
    return DimensionScore("artifact_coverage", _clamp(_mean_int(per)), reasons)


def _failed_attempts(h: Any) -> DimensionScore:
    attempts = _items(h, "failed_attempts")
    if not attempts:
        return DimensionScore("failed_attempts", NEUTRAL,
                              (f"no failed attempts recorded: neutral {NEUTRAL} (cannot tell none from unrecorded)",))
    known = evidence_index(h)
    per: list[int] = []
    approach = reason = outcome = avoid = backed = 0
    for f in attempts:
        p = 0
        if _text(_get(f, "approach")):
            p += 20
            approach += 1
        if _text(_get(f, "reason")):
            p += 35
            reason += 1
        if _text(_get(f, "outcome")) in _VALID_OUTCOMES:
            p += 10
            outcome += 1
        if _get(f, "avoid_repeating") is True:
            p += 15
            avoid += 1
        ids = cited_ids(f)
        if ids and all(i in known for i in ids):
            p += 20
            backed += 1
        per.append(p)
    n = len(attempts)
    reasons = (
        f"{_share(approach, n)} failed attempts name the approach (20 each)",
        f"{_share(reason, n)} say why it failed (35 each)",
        f"{_share(outcome, n)} record an outcome (10 each)",
        f"{_share(avoid, n)} are marked avoid_repeating (15 each)",
        f"{_share(backed, n)} cite evidence ids that all resolve (20 each)",
        "score is the mean over failed attempts",
    )
    return DimensionScore("failed_attempts", _clamp(_mean_int(per)), reasons)


def order_open_items(handoff: Any) -> list[Any]:
    """Open items in the order a successor should take them (``baton.domain.batons.ordered_open_items``:
    unblocked before blocked, then high, medium, low, unprioritised, then as recorded). The first one is
    "the first next action"; a handed-on baton's next steps come in the same order. A blocker the record
    retired (closed, dropped) blocks nothing (``open_blockers``)."""
    retired = _strings(handoff, "retired_ids")
    return ordered_open_items(_items(handoff, "open_items"),
                              lambda item: bool(open_blockers(_strings(item, "blocked_by"), retired)),
                              lambda item: _text(_get(item, "priority")))


def _next_action_clarity(h: Any) -> DimensionScore:
    items = order_open_items(h)
    if not items:
        work = _get(h, "work")
        dod = _strings(work, "definition_of_done")
        if _text(_get(work, "state")) == "completed":
            points = 85 + (15 if dod else 0)
            return DimensionScore("next_action_clarity", points, (
                "no open items; the work state is explicitly completed: 85",
                "definition of done to verify against: +15" if dod else "no definition of done to verify: +0"))
        if dod and _strings(_get(h, "summary"), "completed"):
            return DimensionScore("next_action_clarity", 50, (
                "no open items and no explicit completed state, but completed threads and a definition of done "
                "imply the next action is to verify it: 50",))
        return DimensionScore("next_action_clarity", 0, ("no open items and no completed work state: 0",))
    first = items[0]
    reasons: list[str] = [f"first next action is {_text(_get(first, 'id')) or 'an unnamed item'}"]
    points = 0
    for field, worth, label in (("description", 30, "describes the work"),
                                ("suggested_action", 30, "has a suggested action"),
                                ("acceptance_check", 25, "has an acceptance check")):
        if _text(_get(first, field)):
            points += worth
            reasons.append(f"it {label}: +{worth}")
        else:
            reasons.append(f"it lacks {field.replace('_', ' ')}: +0")
    actionable = sum(1 for i in items if _text(_get(i, "suggested_action")) and _text(_get(i, "acceptance_check")))
    share = (15 * actionable) // len(items)
    points += share
    reasons.append(f"{_share(actionable, len(items))} open items have both a suggested action and an acceptance "
                   f"check: +{share} of 15")
    return DimensionScore("next_action_clarity", _clamp(points), tuple(reasons))


_FRESHNESS_POINTS = {"fresh": 100, "partially_stale": 50, "stale": 0}


def _freshness(h: Any, freshness_state: str | None) -> DimensionScore:
    state = freshness_state
    source = "derived at evaluation"
    if state is None:
        state, source = _recorded_freshness_state(h), "read from the record's validation"
    if state in _FRESHNESS_POINTS:
        return DimensionScore("freshness", _FRESHNESS_POINTS[state], (f"freshness {state} ({source})",))
    head = _text(_get(_get(_get(h, "project"), "repository"), "head"))
    if head:
        return DimensionScore("freshness", 40, ("freshness unknown; a git head was recorded so it can be checked: 40",))
    return DimensionScore("freshness", 20, ("freshness unknown and no git head recorded to check it against: 20",))


def _recorded_freshness_state(h: Any) -> str:
    fr = _get(_get(h, "validation"), "freshness")
    if fr is None:
        return "unknown"
    state = _text(_get(fr, "state"))
    if state in _FRESHNESS_POINTS or state == "unknown":
        return state
    stale = _get(fr, "stale")
    if stale is True:
        return "stale"
    if stale is False and _text(_get(fr, "git_head_at_capture")) and _text(_get(fr, "git_head_now")):
        return "fresh"
    return "unknown"
