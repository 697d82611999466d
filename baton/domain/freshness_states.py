"""The four freshness states of a handoff (§10b), named apart from the rules
that derive them (``baton.domain.freshness``): a session-start brief names
them in a delivered baton's freshness line, and a start with no baton waiting
loads neither the rules nor their model classes. Pure data, and the words
for how the head moved (``head_change``), which that line says too."""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any

FRESH = "fresh"
PARTIALLY_STALE = "partially_stale"
STALE = "stale"
UNKNOWN = "unknown"
FRESHNESS_STATES = (FRESH, PARTIALLY_STALE, STALE, UNKNOWN)

# How HEAD relates to the captured head (``FreshnessReport.head_relation``).
SAME = "same"  # the head did not move
ADVANCED = "advanced"  # the captured commit is in HEAD's history
REWRITTEN = "rewritten"  # it is not: amended, rebased or reset away (or, branch unknown, another branch)
OTHER_BRANCH = "other_branch"  # it is not, and HEAD is on another branch than the one captured
UNTOLD = "unknown"  # the head moved; the bounded walk could not tell whether the captured commit is in its history

# Whether a commit is in HEAD's history (what the adapter's bounded walk found).
REACHABLE = "reachable"
UNREACHABLE = "unreachable"
MISSING_COMMIT = "missing"  # no such commit in this repository
REACHES = (REACHABLE, UNREACHABLE, MISSING_COMMIT, UNTOLD)


LEADS_OUTSIDE = "now leads outside the project root through a symlink: not read"
RESOLVES_OUTSIDE = "now resolves outside the project root: not read"
OUTSIDE_DETAILS = (LEADS_OUTSIDE, RESOLVES_OUTSIDE)
"""An unclassified drift's detail for an artifact path that leaves the project now (tester-use22 T2): it is
named in a drift list in place of its kind, as ``handoff validate`` names the reason."""
NOT_CHECKED = ("not checked now: this check's hashing budget was spent on the artifacts before it "
               "(`baton resume` checks every artifact)")
"""An unclassified drift's detail for an artifact a bounded freshness check (a session start, ``status``) did not
hash: its budget (``baton.commands.handoff_facts.HashBudget``) was spent (tester-use23 T5). Never "unchanged"."""
DRIFT_LISTED = 3
"""At most this many drifted artifacts are named in a freshness banner or line; the rest are counted."""
DRIFT_PATH_BYTES = 60


def drift_listed(drift: Any) -> str:
    """The drifted artifacts as a banner names them: ``src/app.py (modified), docs (missing), and 2 more``
    (each path clipped at 60 bytes); the resume brief's banner and a delivered baton's freshness line."""
    listed = ", ".join(f"{_clip_path(d.path)} ({_drift_word(d)})" for d in drift[:DRIFT_LISTED])
    if len(drift) > DRIFT_LISTED:
        listed += f", and {len(drift) - DRIFT_LISTED} more"
    return listed


def _drift_word(d: Any) -> str:
    if d.detail in OUTSIDE_DETAILS:
        return str(d.detail)
    return "not checked now" if d.detail == NOT_CHECKED else str(d.kind)


def not_checked_words(drift: Any, handoff_id: str, tick: str = "`", *, validate: bool = False) -> str:
    """``; 12 artifacts were not checked now (…): `baton resume ID` checks them`` for the drift a bounded check
    left unhashed (``NOT_CHECKED``); empty when it hashed every artifact. ``validate``: the record may be a draft,
    which ``resume`` refuses, so ``baton handoff validate ID`` is named too (a ready one refuses that instead)."""
    n = sum(1 for d in drift if d.detail == NOT_CHECKED)
    if not n:
        return ""
    also = f" (a draft: {tick}baton handoff validate {handoff_id}{tick})" if validate else ""
    return (f"; {n} artifact{'' if n == 1 else 's'} {'was' if n == 1 else 'were'} not checked now (past this "
            f"check's hashing budget): {tick}baton resume {handoff_id}{tick}{also} checks "
            f"{'it' if n == 1 else 'them'}")


def _clip_path(text: str) -> str:
    raw = text.encode("utf-8")
    if len(raw) <= DRIFT_PATH_BYTES:
        return text
    return raw[: DRIFT_PATH_BYTES - 3].decode("utf-8", "ignore").rstrip() + "…"


def head_change(report: Any, tick: str = "", arrow: str = "→") -> str:
    """How the head moved since capture (a ``FreshnessReport``), in words for a banner; ``tick`` quotes the commit ids."""
    c, n = f"{tick}{(report.captured_head or '')[:12]}{tick}", f"{tick}{(report.head_now or '')[:12]}{tick}"
    relation = report.head_relation
    if relation == ADVANCED:
        n_ahead = report.commits_ahead
        ahead = f", {n_ahead} commit{'' if n_ahead == 1 else 's'} ahead" if n_ahead else ""
        return f"the repository head advanced since capture ({c} {arrow} {n}{ahead}; the captured commit is in its history)"
    if relation == OTHER_BRANCH:
        place = f"on {report.branch_now}" if report.branch_now else "on a detached HEAD"
        return f"captured on {report.captured_branch} at {c}; this session is {place} at {n}, which does not contain it"
    if relation == REWRITTEN:
        on = f" on {report.branch_now}" if report.branch_now else ""
        other = "" if report.captured_branch else ", or this is another branch"
        return (f"history was rewritten since capture (amend, rebase or reset{other}): the captured commit {c} "
                f"is not in the history of HEAD {n}{on}")
    if relation == UNTOLD:
        return (f"the repository head moved since capture ({c} {arrow} {n}); whether the captured commit is in its "
                "history could not be told "
                "(too much history to walk, a shallow clone's history ends first, or the captured commit is "
                "not in this repository)")
    return f"the repository head moved since capture ({c} {arrow} {n})"
