"""``baton handoff show ID [--format json|yaml|md|prompt]``: one record, four views.

``json`` is the canonical record (the materialized file's content); ``yaml``
the same data through Baton's tiny deterministic emitter; ``md`` the full
Markdown view; ``prompt`` the bounded resume brief. The two rendered views
derive freshness from the world now, as ``resume`` does, so a stale record
is never shown as if it were fresh. The record's ``validation.freshness`` is
what was found when it was validated; beside it ``--json`` gives the live
``freshness`` (as ``resume --json`` does), and the json and yaml views say on
stderr that the recorded block is not now (the command line's ``handoff_show``).
Showing writes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

from baton.commands.feed_vouch import record_vouch
from baton.commands.handoff_facts import live_freshness
from baton.commands.identity import recorded_owner
from baton.commands.ids import latest_here, load_handoff, not_yet, place_of
from baton.commands.latest import is_latest
from baton.commands.resume import token_budget
from baton.domain.authorship import author_label, wrote
from baton.domain.brief import render_markdown_view, render_resume_brief
from baton.domain.handoff import handoff_relpath, handoff_to_json
from baton.domain.quality import score_quality
from baton.domain.yaml_text import to_yaml
from baton.errors import Conflict, InputError, NotFound
from baton.model import frozen
from baton.policy import load_policy
from baton.projections.as_of import replayed_as_of
from baton.projections.handoffs import authors_of

if TYPE_CHECKING:
    from baton.commands.context import Project

FORMATS = ("json", "yaml", "md", "prompt")


@frozen
class ShowResult:
    handoff_id: str
    format: str
    record: dict[str, Any]
    file: str
    text: str
    exit_code: int = 0
    author: tuple[str, str, bool] = ("", "", False)
    """Who captured it: writer id, owner ("" when unknown), and whether that is the reader."""
    feed: dict[str, Any] | None = None
    """It comes from a feed no trusted key vouches for (``baton.domain.feed_vouch``)."""
    latest: dict[str, Any] | None = None
    """How ``latest`` was resolved (``LatestChoice.to_json()``), when it was the token."""
    freshness: dict[str, Any] | None = None
    """The record's freshness now (``live_freshness``), as ``resume --json`` gives it; None for ``as_of``."""

    @property
    def skipped_note(self) -> str | None:
        """The line saying which newer handoff ``latest`` passed over (withheld) and why, as ``resume`` says it."""
        line = (self.latest or {}).get("skippedNotice")
        return f"Note: {line}" if line else None

    def to_json(self) -> dict[str, Any]:
        writer, owner, mine = self.author
        out: dict[str, Any] = {"id": self.handoff_id, "file": self.file, "format": self.format,
                               "handoff": self.record, "writer": writer or None, "owner": owner or None,
                               "mine": mine}
        if self.feed is not None:  # only then: its feed is not vouched for
            out["feed"] = self.feed
        if self.latest is not None:
            out["latest"] = self.latest
        if self.freshness is not None:
            out["freshness"] = self.freshness
        if self.format != "json":
            out["text"] = self.text
        return out

    def render(self) -> str:
        return self.text.rstrip("\n")


def show_handoff(
    project: "Project",
    token: str = "",
    *,
    format: str = "json",
    max_tokens: int | None = None,
    as_of: str | None = None,
) -> ShowResult:
    """``as_of`` (an event id or RFC 3339 time): the record as it was then,
    from a replay that leaves the live index alone (``projections.as_of``).

    A record another clone's feed wrote that no trusted key vouches for (``baton.domain.feed_vouch``)
    says so (``feed``; first in the md and prompt views), and is not shown when signatures are required.

    Raises: InputError (unknown format, bad ``as_of``, a ``max_tokens`` out of bounds or without the
    prompt format), NotFound / AmbiguousId (exit 4), Conflict (exit 4: withheld, as above)."""
    if format not in FORMATS:
        raise InputError(f"`format` must be one of {', '.join(FORMATS)}, not {format!r}")
    if max_tokens is not None:
        token_budget(max_tokens)  # out of bounds: refused, whatever the format
        if format != "prompt":
            raise InputError(f"`max_tokens` is the budget of the prompt format's brief; the {format} format "
                             "shows the whole record: drop it, or pass `format` prompt")
    opened = project
    latest = None
    if as_of is not None:
        missing = None
        with replayed_as_of(opened, as_of) as past:
            try:
                handoff = load_handoff(past, token, here=place_of(opened))
            except NotFound as exc:
                missing = exc
        if missing is not None:
            raise not_yet(opened, token, as_of, missing) from None
    else:
        runner = opened.reading()
        if token and is_latest(token):  # resolved as `resume latest` resolves it, to say what it passed over
            latest = latest_here(runner, place_of(opened))
            token = latest.id
        handoff = load_handoff(runner, token, here=place_of(opened))
    record = handoff_to_json(handoff)
    author = handoff_author(opened, handoff.id)
    unverified = record_vouch(opened, author[0] or None)
    if unverified is not None and unverified.withheld:
        raise Conflict(unverified.withheld_notice("handoff", handoff.id),
                       details={"id": handoff.id, "feed": unverified.to_json()})
    policy = load_policy(opened.paths, opened.config)
    freshness = live_freshness(opened.paths.worktree, handoff, policy)
    if format == "json":
        text = orjson.dumps(record, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode()
    elif format == "yaml":
        text = to_yaml(record)
    else:
        quality = score_quality(handoff, freshness_state=freshness.state)
        if format == "md":
            writer, owner, mine = author
            by = author_label(owner, writer) + (" (you)" if mine else "") if (owner or writer) else None
            text = render_markdown_view(handoff, freshness, quality, captured_by=by)
        else:
            text = render_resume_brief(handoff, freshness, quality, max_tokens=token_budget(max_tokens)).text
        if unverified is not None:  # first: who wrote it is not known, whatever it says
            text = unverified.line(author[1] or None) + "\n\n" + text
    return ShowResult(handoff.id, format, record, handoff_relpath(handoff), text, author=author,
                      feed=unverified.to_json() if unverified is not None else None,
                      latest=latest.to_json() if latest is not None else None,
                      freshness=freshness.to_json() if as_of is None else None)


def handoff_author(project: "Project", handoff_id: str) -> tuple[str, str, bool]:
    """Who captured a record (its capture's writer and owner, from the live index:
    a capture's author never changes), and whether that is the reader."""
    writer, owner = authors_of(project.reading().db, [handoff_id]).get(handoff_id, ("", ""))
    return writer, owner, wrote(owner, writer, my_owner=recorded_owner(project) if owner else "",
                                 my_writer=project.writer)
