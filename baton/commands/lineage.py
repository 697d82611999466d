"""``baton fork``, ``baton merge`` and ``baton lineage`` (spec §14).

A fork is a new draft child of one handoff (relation ``fork``, an optional
branch label), starting from the parent's work, summary, open items, failed
attempts and risks. A merge is a new draft child of two or more handoffs
(relation ``merge``) and is refused (exit 3, nothing written) until an
explicit resolution decision is supplied; it records the conflict candidates
it settles and the parents' evidence of reconciled work. Parents are never
modified: both are ``handoff.captured`` events on the child's own stream,
appended through the same capture path as ``checkpoint create`` (redaction,
path checks, the strict model).

``lineage`` shows the graph (text, json, mermaid, dot) from the ``lineage``
projection, with each record's status, freshness and conflict marks;
``--as-of`` answers from a replay up to that point (``projections.as_of``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from baton.model import frozen

if TYPE_CHECKING:
    from baton.commands.capture import CaptureResult
    from baton.commands.context import Project

FORMATS = ("text", "json", "mermaid", "dot")
FRESHNESS_SHOWN = 100
"""At most this many (the newest) ready or resumed handoffs get their freshness derived in a view:
deriving it reads git and hashes artifacts."""


# -- conflicts, as every reader sees them ----------------------------------------------

def current_conflicts(runner: Any, around: Sequence[str] | None = None) -> tuple[Any, list[Any]]:
    """The graph (all of it, or the part connected to ``around``) and its
    unresolved conflict candidates — none, cheaply, when no handoff has two
    children."""
    from baton.domain.lineage import Graph, conflict_candidates
    from baton.projections.lineage import load_component, load_graph

    if not _branched(runner):
        return Graph(()), []
    graph = load_graph(runner) if around is None else load_component(runner, around)
    return graph, conflict_candidates(graph)


def _branched(runner: Any) -> bool:
    """Whether any handoff has two children (without which nothing can conflict)."""
    from baton.projections.lineage import has_branches

    if "lineage" not in runner.by_name:
        return False
    memo = getattr(runner, "memo", None)  # kept while the index is unchanged (a long-lived server)
    return memo("lineage.has_branches", lambda: has_branches(runner.db)) if memo else has_branches(runner.db)


def conflicts_for(runner: Any, handoff_id: str) -> list[dict[str, Any]]:
    """The conflict candidates a record carries (on it or an ancestor), as JSON."""
    if not _branched(runner):
        return []  # the common case, decided without the lineage domain's classes
    from baton.domain.lineage import conflicts_touching

    graph, candidates = current_conflicts(runner, [handoff_id])
    return [c.to_json() for c in conflicts_touching(candidates, graph, handoff_id)] if candidates else []


def conflict_banner(conflicts: Sequence[Mapping[str, Any]]) -> str:
    """The lines shown before next actions when a record carries conflict candidates."""
    if not conflicts:
        return ""
    from baton.domain.short_ids import short_id

    lines = [f"CONFLICT CANDIDATES: {len(conflicts)} decision(s) contradict a sibling branch; "
             "resolve them with `baton merge` before relying on either:"]
    for c in conflicts:
        a, b = c["decisions"]
        what = f"decision {c['key']}" if c["basis"] == "id" else f"subject '{c['key']}'"
        lines.append(f"  - {what}: {short_id(a['handoff'])} says {a['decision']!r}; {short_id(b['handoff'])} says "
                     f"{b['decision']!r}")
    return "\n".join(lines)


# -- fork -----------------------------------------------------------------------------------

def fork_handoff(project: "Project", token: str, *, label: str | None = None,
                 session: str | None = None) -> CaptureResult:
    """A new draft child of ``token`` with relation ``fork``.

    Raises:
        InputError (exit 2): ``label`` given but empty, or over ``BRANCH_LABEL_MAX`` characters.
        NotFound / AmbiguousId (exit 4); TransitionError (exit 4) for an archived parent;
        PolicyBlock (exit 5) as a capture.
    """
    from baton.commands.capture import capture_in_scope
    from baton.commands.ids import load_handoff
    from baton.domain import lineage
    from baton.domain.handoff import handoff_to_json
    from baton.domain.limits import BRANCH_LABEL_MAX
    from baton.errors import InputError, TransitionError

    if label is not None and not label.strip():
        raise InputError("`label` is empty: leave it out, or say what this branch is for")
    if label is not None and len(label.strip()) > BRANCH_LABEL_MAX:
        raise InputError(f"`label` is {len(label.strip())} characters; the limit is {BRANCH_LABEL_MAX} "
                         "(name the branch; the handoff holds its story)")
    label = label.strip() if label else None
    with project.writing() as scope:
        parent = load_handoff(scope.runner, token)
        if parent.status == "archived":
            raise TransitionError(handoff_id=parent.id, status=parent.status, flags=tuple(parent.flags),
                                  action="fork", allowed=(), reason="an archived handoff is not forked")
        body = lineage.fork_body(handoff_to_json(parent), label=label)
        return capture_in_scope(scope, body, session=session)


# -- merge ----------------------------------------------------------------------------------

@frozen
class MergeResult:
    capture: CaptureResult
    conflicts: tuple[dict[str, Any], ...]
    exit_code: int = 0

    @property
    def handoff_id(self) -> str:
        return self.capture.handoff_id

    def to_json(self) -> dict[str, Any]:
        return {**self.capture.to_json(), "resolved_conflicts": list(self.conflicts)}

    def render(self) -> str:
        lines = self.capture.render().splitlines()
        lines.insert(-1, f"  resolves {len(self.conflicts)} conflict candidate(s)" if self.conflicts
                     else "  no conflict candidates between the parents")
        return "\n".join(lines)


def merge_handoffs(project: "Project", tokens: Sequence[str], *, title: str | None = None,
                   resolution: Mapping[str, Any] | None = None, session: str | None = None) -> MergeResult:
    """A new draft child of every handoff in ``tokens`` with relation ``merge``.

    Raises:
        InputError (exit 2): fewer than two distinct handoffs, a parent that is
            an ancestor of another, or a live merge of exactly these parents.
        MergeUnresolved (exit 3): no resolution decision; the conflict
            candidates between the parents are in the error's details.
        NotFound / AmbiguousId / TransitionError (exit 4); PolicyBlock (exit 5).
    """
    from baton.commands.capture import capture_in_scope
    from baton.commands.ids import load_handoff
    from baton.domain import lineage
    from baton.domain.handoff import handoff_to_json
    from baton.errors import InputError, TransitionError

    with project.writing() as scope:
        parents: list[Any] = []  # Handoff records
        for token in tokens:
            parent = load_handoff(scope.runner, token)
            if parent.status == "archived":
                raise TransitionError(handoff_id=parent.id, status=parent.status, flags=tuple(parent.flags),
                                      action="merge", allowed=(), reason="an archived handoff is not merged")
            if all(p.id != parent.id for p in parents):
                parents.append(parent)
        if len(parents) < 2:
            raise InputError("a merge needs at least two distinct handoffs")
        ids = [p.id for p in parents]
        graph, candidates = current_conflicts(scope.runner, ids)
        refusal = lineage.merge_refusal(graph, ids)
        if refusal:
            raise InputError(refusal)
        relevant = _between(graph, candidates, ids)
        basis = graph.common_ancestors(ids) if all(i in graph for i in ids) else []
        body = lineage.merge_body([handoff_to_json(p) for p in parents], resolution=dict(resolution or {}),
                                  conflicts=relevant, basis=basis, title=title)
        captured = capture_in_scope(scope, body, session=session)
        return MergeResult(captured, tuple(c.to_json() for c in relevant))


def _between(graph: Any, candidates: Sequence[Any], ids: Sequence[str]) -> list[Any]:
    """The candidates a merge of ``ids`` settles: each side on (or an ancestor of)
    a different parent."""
    lines = {i: ({i} | set(graph.ancestors(i))) if i in graph else {i} for i in ids}
    out = []
    for c in candidates:
        sides_a = {i for i, line in lines.items() if c.a in line}
        sides_b = {i for i, line in lines.items() if c.b in line}
        if sides_a and sides_b and (sides_a | sides_b) != sides_a & sides_b:
            out.append(c)
    return out


# -- the view -----------------------------------------------------------------------------

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
        from baton.domain import lineage

        if self.format == "mermaid":
            return lineage.render_mermaid(self.view)
        if self.format == "dot":
            return lineage.render_dot(self.view)
        if self.format == "json":
            import orjson

            return orjson.dumps(self.to_json(), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode()
        head = f"lineage as of {self.as_of}\n" if self.as_of else ""
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
    from baton.errors import InputError

    if format not in FORMATS:
        raise InputError(f"`format` must be one of {', '.join(FORMATS)}, not {format!r}")
    if as_of is not None:
        from baton.projections.as_of import replayed_as_of

        with replayed_as_of(project, as_of) as runner:
            view, root = _view(project, runner, token, freshness=False)
        return LineageResult(view, format, root, as_of)
    view, root = _view(project, project.reading(), token, freshness=freshness)
    return LineageResult(view, format, root)


def _view(project: "Project", runner: Any, token: str | None, *, freshness: bool) -> tuple[dict[str, Any], str | None]:
    from baton.commands.ids import resolve_handoff_id
    from baton.domain import lineage
    from baton.projections.lineage import load_component, load_graph

    root = resolve_handoff_id(runner, token) if token else None
    graph = load_graph(runner) if root is None else load_component(runner, [root])
    candidates = lineage.conflict_candidates(graph)
    ids = lineage.subgraph_ids(graph, root)
    states = _freshness(project, runner, ids) if freshness else {}
    return lineage.to_json(graph, ids, candidates, states), root


def _freshness(project: "Project", runner: Any, ids: set[str]) -> dict[str, str]:
    """The §10b freshness of each shown record that is ready or resumed (the
    ones a session would resume), derived now."""
    from baton.commands.handoff_facts import live_freshness
    from baton.domain.handoff import handoff_from_json
    from baton.errors import BatonError

    out: dict[str, str] = {}
    roots = project.policy.allowed_roots
    from baton.projections.handoffs import newest

    chosen = [row.id for row in newest(runner.db, statuses=("ready", "resumed")) if row.id in ids][:FRESHNESS_SHOWN]
    for ident in chosen:
        doc = runner.get("handoffs", ident)
        if doc is None:
            continue
        try:
            out[ident] = live_freshness(project.paths.worktree, handoff_from_json(doc), roots).state
        except BatonError:
            out[ident] = "unknown"
    return out
