"""``baton lineage`` (spec §14): the graph (text, json, mermaid, dot) from the
``lineage`` projection, with each record's status, freshness and conflict
marks; ``--as-of`` answers from a replay up to that point
(``projections.as_of``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

from baton.commands.handoff_facts import live_freshness
from baton.commands.ids import Place, not_yet, place_of, resolve_handoff_id
from baton.domain import lineage
from baton.domain.handoff import stored_handoff
from baton.errors import BatonError, InputError, NotFound
from baton.model import frozen
from baton.projections.as_of import replayed_as_of
from baton.projections.handoffs import newest
from baton.projections.lineage import component_ids
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
    total: int | None = None
    """How many handoffs the view covers in all (the project's, or those connected to ``root``)."""
    limit: int = 0
    """The most it shows (``lineage.limited_ids``; 0: all)."""

    @property
    def shown(self) -> int:
        return len(self.view["nodes"])

    @property
    def more(self) -> int:
        """The handoffs the limit left out."""
        return max(0, (self.total if self.total is not None else self.shown) - self.shown)

    def to_json(self) -> dict[str, Any]:
        out = {"root": self.root, "as_of": self.as_of, **self.view, "truncated": self.more > 0,
               "shown": self.shown, "total": self.total if self.total is not None else self.shown,
               "more": self.more, "limit": self.limit}
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
                 as_of: str | None = None, freshness: bool = True, limit: int | None = None) -> LineageResult:
    """The graph of the whole project, or of the handoffs connected to ``token``: at most
    ``limit`` of them (None: ``lineage.DEFAULT_LIMIT``; 0: all), the newest, or those nearest
    ``token`` (``lineage.limited_ids``); the result says how many were left out.

    Raises:
        InputError (exit 2): unknown format, a negative limit, or ``as_of`` is neither an event id nor a time.
        NotFound / AmbiguousId (exit 4).
    """
    if format not in FORMATS:
        raise InputError(f"`format` must be one of {', '.join(FORMATS)}, not {format!r}")
    limit = lineage.DEFAULT_LIMIT if limit is None else limit
    lineage.limited_ids(lineage.Graph(()), set(), None, limit)  # a bad limit refused before anything is read
    if as_of is not None:
        missing = None
        with replayed_as_of(project, as_of) as runner:
            try:
                view, root, total = _view(project, runner, token, freshness=False, limit=limit)
            except NotFound as exc:
                missing = exc
        if missing is not None:
            raise not_yet(project, token or "", as_of, missing) from None
        return LineageResult(view, format, root, as_of, total=total, limit=limit)
    view, root, total = _view(project, project.reading(), token, freshness=freshness, limit=limit)
    return LineageResult(view, format, root, total=total, limit=limit)


def _root(runner: Any, token: str, *, here: Place | None = None) -> str:
    """The handoff ``token`` names; an erased one too (``baton forget``) when a handoff names it as a
    parent: its placeholder is a node of the graph, whose edges stay (one erased with no child is in
    no graph: the refusal says it was erased)."""
    try:
        return resolve_handoff_id(runner, token, here=here)
    except NotFound as exc:
        details = exc.details if isinstance(exc.details, dict) else {}
        erased = details.get("erased") or details.get("unfinished_forget")  # its forget interrupted: no record either
        if isinstance(erased, str) and len(component_ids(runner.db, [erased])) > 1:
            return erased
        raise


def _view(project: "Project", runner: Any, token: str | None, *, freshness: bool,
          limit: int) -> tuple[dict[str, Any], str | None, int]:
    root = _root(runner, token, here=place_of(project)) if token else None
    graph = load_graph(runner) if root is None else load_component(runner, [root])
    candidates = lineage.conflict_candidates(graph)
    ids = lineage.subgraph_ids(graph, root)
    shown = lineage.limited_ids(graph, ids, root, limit)
    states = _freshness(project, runner, shown) if freshness else {}
    return lineage.to_json(graph, shown, candidates, states), root, len(ids)


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
            out[ident] = live_freshness(project.paths.worktree, stored_handoff(doc), policy, history=False).state
        except BatonError:
            out[ident] = "unknown"
    return out
