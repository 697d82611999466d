"""One handoff as the status page opens it (``GET /api/handoffs/{id}``).

The same Markdown as ``handoff show --format md``, with the row's facts and
its lineage links, redacted like every answer of the page
(``baton.commands.status_page``, which holds what the page's use cases share).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from baton.commands.handoff_facts import live_freshness
from baton.commands.show import show_handoff
from baton.commands.status_page import (
    FULL_ID,
    baton_states,
    check_requested_project,
    redaction_of,
    sanitize_output,
)
from baton.domain.brief import elsewhere_lines, validated_on
from baton.domain.handoff import record_branch, record_worktree, stored_handoff
from baton.domain.quality import score_quality
from baton.domain.short_ids import short_id
from baton.errors import NotFound
from baton.model import frozen

if TYPE_CHECKING:
    from baton.commands.context import Project


@frozen
class StatusHandoffView:
    """One handoff as the page opens it, already redacted: the same Markdown
    as ``handoff show --format md`` (the page renders it as text, never as
    HTML), with the row's facts and its lineage links."""

    payload: dict[str, Any]
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        return self.payload

    def render(self) -> str:
        return self.payload["markdown"]


def handoff_view(project: "Project", requested_project: str | None, handoff_id: str) -> StatusHandoffView:
    """The view of one handoff named by its full id (a URL's id is exact, as for DELETE).

    Raises:
        InputError / NotFound: the requested project is missing, ``all`` or another.
        NotFound: no handoff has that id.
    """
    opened = project
    check_requested_project(requested_project, opened.config.project_id)
    redaction = redaction_of(opened)
    if not FULL_ID.match(handoff_id or "") or not opened.reading().has("handoffs", handoff_id.lower()):
        raise NotFound(f"no handoff with id {handoff_id!r} (the status API takes full ids)",
                       details={"handoff_id": handoff_id})
    shown = show_handoff(opened, handoff_id.lower(), format="md")
    record = shown.record
    handoff = stored_handoff(record)
    freshness = live_freshness(opened.paths.worktree, handoff, opened.policy)
    quality = score_quality(handoff, freshness_state=freshness.state)
    lineage = record.get("lineage") or {}
    validation = record.get("validation") or {}
    payload = {
        "id": record["id"], "shortId": short_id(record["id"]), "title": (record.get("work") or {}).get("title"),
        "status": record.get("status"), "flags": list(record.get("flags") or ()),
        "kind": "baton" if record.get("baton") is not None else "handoff",
        "batonStatus": baton_states(opened.runner).get(record["id"]),
        "branch": record_branch(record), "worktree": record_worktree(record),
        "owner": shown.author[1] or None, "writer": shown.author[0] or None, "mine": shown.author[2],
        "freshness": freshness.state, "score": quality.overall,
        "validation": validation.get("status"), "validatedOn": validated_on(validation) or None,
        "validatedElsewhere": elsewhere_lines(validation),
        "checks": [{"name": c.get("name"), "status": c.get("status"), "detail": c.get("detail")}
                   for c in validation.get("checks") or () if isinstance(c, dict)],
        "lineage": {"relation": lineage.get("relation") or "root", "parents": list(lineage.get("parents") or ()),
                    "mergeBasis": list(lineage.get("merge_basis") or ()),
                    "supersededBy": record.get("superseded_by")},
        "markdown": shown.render(),
        "projectId": opened.config.project_id,
    }
    return StatusHandoffView(sanitize_output(payload, redaction))
