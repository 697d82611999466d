"""``baton resume [ID] [--format prompt|md|json] [--mark-resumed] [--max-tokens N]``.

Resuming reads a ready record, looks at the world *now* (git head, artifact
hashes) to derive its §10b freshness, scores it (§10a) and renders the
bounded brief, whose freshness banner comes before anything a reader could
act on. It needs only the ledger: with ``index.sqlite`` deleted the runner
rebuilds it first. ``--mark-resumed`` appends ``handoff.resumed`` (with the
session, harness and freshness state); without it nothing is written. That
is ``resume_mark.resume_and_mark``, the write path, which the application
loads only for ``--mark-resumed``: this module reads and renders.
"""

from __future__ import annotations

import orjson

from baton.commands.feed_vouch import handoff_vouch
from baton.commands.handoff_facts import live_freshness
from baton.commands.ids import HANDOFF_ID_REQUIRED, latest_here, load_record_view, place_of
from baton.commands.latest import is_latest
from baton.commands.lineage import conflict_banner, conflicts_for, other_successors
from baton.domain.batons import SCOPE_FIELD
from baton.domain.brief import DEFAULT_MAX_TOKENS, render_resume_brief
from baton.domain.lifecycle_table import RESUME, allowed_for, transition_error
from baton.domain.limits import MAX_MAX_TOKENS, MIN_MAX_TOKENS, check_resume_options
from baton.domain.quality import score_quality
from baton.domain.short_ids import short_id
from baton.errors import Conflict, InputError
from baton.policy import load_policy
from baton.values import Value, replace

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (resume reads no annotation)
if TYPE_CHECKING:
    from typing import Any

    from baton.commands.context import Project


class ResumeResult(Value):
    handoff_id: str
    status: str
    format: str
    freshness: dict[str, Any]
    quality: dict[str, Any]
    brief: dict[str, Any]
    record: dict[str, Any]
    marked_resumed: bool
    conflicts: tuple[dict[str, Any], ...] = ()
    """Conflict candidates the record carries (§14): a banner heads the brief."""
    siblings: tuple[dict[str, Any], ...] = ()
    """Other ready revisions of this record's parent (``{"parent", "others"}``):
    clones apart each amended or continued it; a banner heads the brief."""
    exit_code: int = 0
    latest: dict[str, Any] | None = None
    """How ``latest`` was resolved (``LatestChoice.to_json()``), when it was the token."""
    bounded: bool = False
    """The answer an agent reads into its context (MCP ``handoff_resume``): the
    whole record (``handoff``) only with ``format`` json, since the brief is what
    ``max_tokens`` bounds and a record can be as large as a capture (1 MiB);
    ``record_omitted`` says so. ``baton resume --json`` keeps the record."""
    feed: dict[str, Any] | None = None
    """The handoff comes from a feed no trusted key vouches for (``baton.domain.feed_vouch``)."""
    left_pending: tuple[str, ...] = ()
    """``--mark-resumed``: the teammates' pending batons carrying the handoff, left pending (one
    line each: ``batons.left_pending_line``)."""

    def for_agent(self) -> "ResumeResult":
        """This result as ``bounded`` (see there)."""
        return replace(self, bounded=True)

    @property
    def freshness_state(self) -> str:
        return self.freshness["state"]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.handoff_id,
            "status": self.status,
            "freshness_state": self.freshness_state,
            "freshness": self.freshness,
            "quality": self.quality,
            "brief": self.brief,
            "marked_resumed": self.marked_resumed,
            "conflicts": list(self.conflicts),
            "siblings": list(self.siblings),
            "handoff": self.record,
            "latest": self.latest,
        } | ({"left_pending": list(self.left_pending)} if self.left_pending else {}) | ({"feed": self.feed} if self.feed is not None else {}) | ({"handoff": None, "record_omitted": True} if self.bounded and self.format != "json" else {})

    def render(self) -> str:
        if self.format == "json":
            return orjson.dumps(self.to_json(), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode()
        latest = self.latest or {}
        notes = [f"Note: {line}" for line in (latest.get("skippedNotice"), latest.get("notice"), *self.left_pending)
                 if line]
        return "\n".join([*notes, self.brief["text"].rstrip("\n")])


def resume_handoff(
    project: "Project",
    token: str = "latest",
    *,
    format: str = "prompt",
    mark_resumed: bool = False,
    max_tokens: int | None = None,
    session: str | None = None,
    harness: str | None = None,
    any_branch: bool = False,
) -> ResumeResult:
    """``latest`` means the newest ready handoff of the current branch (one
    captured in this worktree first), else the project's newest with a notice;
    ``any_branch`` asks for the project's newest. ``latest`` passes over a handoff withheld
    (from a feed no trusted key vouches for while signatures are required), saying which in
    ``latest.skippedNotice``; named by its id, one is refused. With ``mark_resumed`` the
    record is checked as one to mark, and nothing is written here: the result
    says ``marked_resumed`` once ``resume_mark.resume_and_mark`` recorded it.

    Raises:
        InputError (exit 2): an empty id, an unknown format, or a budget below the minimum.
        NotFound / AmbiguousId (exit 4): ``latest`` finds none ready (or only withheld ones).
        Conflict (exit 4): the handoff named is withheld.
        TransitionError (exit 4): the record is not ready or resumed (nor an
            unpromoted session baton, whose brief can always be read).
    """
    if token is not None and not token.strip():  # only an omitted id means latest, as for `handoff show`
        raise InputError(HANDOFF_ID_REQUIRED)
    check_resume_options(format, mark_resumed, session, harness)
    budget = token_budget(max_tokens)
    opened = project
    runner = opened.reading()
    latest = None
    if is_latest(token):
        latest = latest_here(runner, place_of(opened), any_branch=any_branch)
        token = latest.id
    handoff, record = load_record_view(runner, token)
    _check_resumable(handoff, mark_resumed, runner)
    unverified = handoff_vouch(opened, runner, handoff.id)
    if unverified is not None and unverified.withheld:
        raise Conflict(unverified.withheld_notice("handoff", handoff.id),
                       details={"id": handoff.id, "feed": unverified.to_json()})
    policy = load_policy(opened.paths, opened.config)
    freshness = live_freshness(opened.paths.worktree_folder, handoff, policy, whole=True)
    quality = score_quality(handoff, freshness_state=freshness.state)
    brief = render_resume_brief(handoff, freshness, quality, max_tokens=budget,
                                format="md" if format == "md" else "prompt")
    status = handoff.status
    conflicts = conflicts_for(runner, handoff.id)
    siblings = sibling_revisions(runner, handoff)
    brief_json = brief.to_json()
    if conflicts:
        # Before everything the brief says, next actions included: a branch
        # whose decisions contradict a sibling's is not to be relied on blindly.
        brief_json["text"] = conflict_banner(conflicts) + "\n\n" + brief_json["text"]
    if siblings:
        # Whatever the decisions say: the other revision's open items, state and
        # failed attempts are in no part of this brief.
        brief_json["text"] = sibling_banner(handoff.id, siblings) + "\n\n" + brief_json["text"]
    if unverified is not None:  # first: who wrote it is not known, whatever it says
        brief_json["text"] = unverified.line(None) + "\n\n" + brief_json["text"]
    return ResumeResult(handoff.id, status, format, freshness.to_json(), quality.to_json(),
                        brief_json, record, False, tuple(conflicts), siblings=tuple(siblings),
                        latest=latest.to_json() if latest is not None else None,
                        feed=unverified.to_json() if unverified is not None else None)


def sibling_revisions(runner: Any, handoff: Any) -> list[dict[str, Any]]:
    """For each parent ``handoff`` amends or continues: the other ready
    revisions of it (two clones apart each made theirs ready)."""
    if handoff.lineage.relation not in ("amend", "continue"):
        return []
    found = []
    for parent in handoff.lineage.parents:
        others = other_successors(runner, parent, handoff.id)
        if others:
            found.append({"parent": parent, "others": others})
    return found


def sibling_banner(handoff_id: str, siblings: list[dict[str, Any]]) -> str:
    """The lines shown first when the resumed record is one of several ready revisions of its parent."""
    lines = []
    for s in siblings:
        others = ", ".join(short_id(o) for o in s["others"])
        lines.append(f"OTHER REVISIONS: {short_id(s['parent'])} was also amended or continued elsewhere and made "
                     f"ready as {others}; this brief holds only {short_id(handoff_id)}'s version. Read "
                     f"`baton handoff show {short_id(s['others'][0])}`, or join them with "
                     f"`baton merge {short_id(handoff_id)} {' '.join(short_id(o) for o in s['others'])}`.")
    return "\n".join(lines)


def _check_resumable(handoff: Any, mark_resumed: bool, runner: Any = None) -> None:
    """Raises TransitionError when the record cannot be resumed (or, a session baton, marked resumed)."""
    if _is_unpromoted_baton(handoff):
        # A session baton is delivered without validation by design
        # (session-handoff-baton.txt); its brief can be read like any
        # handoff's, but only a claim (bootstrap, session begin) or a
        # promotion moves its state.
        if mark_resumed:
            raise transition_error(
                handoff, RESUME,
                "it is an unvalidated session baton: a session start (session begin, bootstrap) claims it")
    elif RESUME not in allowed_for(handoff.status, handoff.flags):
        reason = None
        if handoff.status == "superseded" and handoff.superseded_by:
            reason = f"it was superseded by {handoff.superseded_by}; resume that one"
            others = other_successors(runner, handoff.id, handoff.superseded_by) if runner is not None else []
            if others:
                reason += (f", or {' or '.join(others)}: it was also amended or continued and made ready elsewhere "
                           "(another clone, before a sync), so `baton lineage` shows the branches and `baton "
                           "merge` joins them")
        elif handoff.status == "draft":
            reason = "only a ready handoff can be resumed: validate it, then make it ready"
        elif handoff.status == "validated":
            reason = "only a ready handoff can be resumed: make it ready first"
        raise transition_error(handoff, RESUME, reason)


def _is_unpromoted_baton(handoff: Any) -> bool:
    return SCOPE_FIELD in handoff.extra and handoff.status in ("draft", "validated")


def token_budget(max_tokens: int | None) -> int:
    """``--max-tokens`` checked: the default when absent, else within bounds.

    Raises:
        InputError: below the smallest brief that always fits, or absurdly large.
    """
    budget = DEFAULT_MAX_TOKENS if max_tokens is None else max_tokens
    if isinstance(budget, bool) or not isinstance(budget, int) or not MIN_MAX_TOKENS <= budget <= MAX_MAX_TOKENS:
        raise InputError(f"`max_tokens` must be an integer from {MIN_MAX_TOKENS} to {MAX_MAX_TOKENS}, not {budget}")
    return budget
