"""``baton lineage`` (spec §14): the graph (text, json, mermaid, dot) from the
``lineage`` projection, with each record's status, freshness and conflict
marks; ``--as-of`` answers from a replay up to that point
(``projections.as_of``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

from baton.commands.handoff_facts import live_freshness
from baton.commands.ids import not_yet, resolve_handoff_id
from baton.domain import lineage
from baton.domain.handoff import stored_handoff
from baton.errors import BatonError, InputError, NotFound
from baton.model import frozen
from baton.projections.as_of import replayed_as_of
from baton.projections.handoffs import newest
from baton.projections.lineage_graph import load_component, load_graph

if TYPE_CHECKING:
    from baton.commands.context import Project

FORMATS = ("text", "json", "mermaid", "dot")
FRESHNESS_SHOWN = 100
"""At most this many (the newest) ready or resumed handoffs get their freshness derived in a view:
deriving it reads git and hashes artifacts."""


AS_OF_FRESHNESS = "statuses as they were then; no fresh or stale: freshness is judged against the worktree now"
"""Why a view ``--as-of`` shows no freshness: it compares a record's head and artifacts with the
worktree and git head of now, which the ledger does not record for a past point (docs/lineage.md)."""


@frozen
class LineageResult:
    view: dict[str, Any]
    format: str
    root: str | None
    as_of: str | None = None
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        out = {"root": self.root, "as_of": self.as_of, **self.view}
        if self.format not in ("text", "json"):
            out["text"] = self.text()
        return out

    @property
    def renders_json(self) -> bool:
        """Whether the text rendering is ``to_json()`` itself (the CLI then
        screens and prints it as it does ``--json``)."""
        return self.format == "json"

    def text(self) -> str:
        if self.format == "mermaid":
            return lineage.render_mermaid(self.view)
        if self.format == "dot":
            return lineage.render_dot(self.view)
        if self.format == "json":
            return orjson.dumps(self.to_json(), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode()
        head = f"lineage as of {self.as_of} ({AS_OF_FRESHNESS})\n" if self.as_of else ""
        return head + lineage.render_text(self.view)

    def render(self) -> str:
        return self.text()


def lineage_view(project: "Project", token: str | None = None, *, format: str = "text",
                 as_of: str | None = None, freshness: bool = True) -> LineageResult:
    """The graph of the whole project, or of the handoffs connected to ``token``.

    Raises:
        InputError (exit 2): unknown format, or ``as_of`` is neither an event id nor a time.
        NotFound / AmbiguousId (exit 4).
    """
    if format not in FORMATS:
        raise InputError(f"`format` must be one of {', '.join(FORMATS)}, not {format!r}")
    if as_of is not None:
        missing = None
        with replayed_as_of(project, as_of) as runner:
            try:
                view, root = _view(project, runner, token, freshness=False)
            except NotFound as exc:
                missing = exc
        if missing is not None:
            raise not_yet(project, token or "", as_of, missing) from None
        return LineageResult(view, format, root, as_of)
    view, root = _view(project, project.reading(), token, freshness=freshness)
    return LineageResult(view, format, root)


def _view(project: "Project", runner: Any, token: str | None, *, freshness: bool) -> tuple[dict[str, Any], str | None]:
    root = resolve_handoff_id(runner, token) if token else None
    graph = load_graph(runner) if root is None else load_component(runner, [root])
    candidates = lineage.conflict_candidates(graph)
    ids = lineage.subgraph_ids(graph, root)
    states = _freshness(project, runner, ids) if freshness else {}
    return lineage.to_json(graph, ids, candidates, states), root


def _freshness(project: "Project", runner: Any, ids: set[str]) -> dict[str, str]:
    """The §10b freshness of each shown record that is ready or resumed (the
    ones a session would resume), derived now."""
    out: dict[str, str] = {}
    policy = project.policy
    chosen = [row.id for row in newest(runner.db, statuses=("ready", "resumed")) if row.id in ids][:FRESHNESS_SHOWN]
    for ident in chosen:
        doc = runner.get("handoffs", ident)
        if doc is None:
            continue
        try:
            out[ident] = live_freshness(project.paths.worktree, stored_handoff(doc), policy).state
        except BatonError:
            out[ident] = "unknown"
    return out
