"""The lineage graph (spec §14): nodes, edges, conflict candidates, views, and
the bodies of fork and merge children. Pure: no file system, no clock, no index.

A node is what the ``lineage`` projection keeps of a handoff record: its
relation and parents, branch label, title, creation time and its decisions
reduced to an id, a normalized subject and a normalized choice. The graph is
built from nodes (plus each record's status and flags, which the handoff
projection owns) and answers the questions the commands ask: children,
ancestors, where branches diverge, and which decisions contradict.

Conflict candidates are computed at read, never stored: two decisions
contradict when they sit on *divergent* nodes — neither is an ancestor of the
other, and they share an ancestor (siblings, or descendants of siblings) —
and either carry the same decision id or the same normalized subject, with a
different choice. A candidate stands until a merge resolves it: a (not
archived) merge that has both nodes among its ancestors. Archived nodes take
part in no candidate. The tool flags; a person or agent writes the resolution.
"""

from __future__ import annotations

import copy
import re
import unicodedata
from collections import deque
from collections.abc import Mapping  # not typing's: isinstance through its alias costs twice as much
from typing import Any, Iterable, Iterator, Sequence

import orjson

from baton.domain.redaction.as_given import field_of, item_of
from baton.domain.short_ids import short_id
from baton.errors import InputError, MergeUnresolved
from baton.model import frozen

RELATIONS = ("root", "continue", "fork", "merge", "amend")
_WORD = re.compile(r"[^\w]+", re.UNICODE)
_SUBJECT_MAX = 80
_ASCII_NON_WORD = {c: " " for c in range(128) if not (chr(c).isalnum() or chr(c) == "_")}
"""What ``_WORD`` replaces in ASCII text (all but letters, digits and ``_``): a
space each, as one table lookup per character instead of a regex."""


# -- decisions: subjects and choices --------------------------------------------------

def normalize(text: Any) -> str:
    """Lower case, compatibility-folded, punctuation and spacing collapsed."""
    if not isinstance(text, str):
        return ""
    if text.isascii():  # its own NFKC form; its case fold is its lower case, its non-word characters these
        return " ".join(text.lower().translate(_ASCII_NON_WORD).split())
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(_WORD.sub(" ", folded).split())


def subject_and_choice(decision: Mapping[str, Any]) -> tuple[str | None, str]:
    """A decision's normalized subject (an explicit ``subject`` member, else the
    text before a ``:`` when it is short, as in ``"Token store: Redis"``) and its
    normalized choice (the rest, or the whole text)."""
    text = decision["decision"] if isinstance(decision.get("decision"), str) else ""
    subject = decision.get("subject")
    if isinstance(subject, str):
        normal = normalize(subject)
        if normal:
            return normal, normalize(text)
    head, sep, rest = text.partition(":")
    if sep and len(head.strip()) <= _SUBJECT_MAX:  # each part normalized once (a replay does it per decision)
        normal, choice = normalize(head), normalize(rest)
        if normal and choice:
            return normal, choice
    return None, normalize(text)


def node_decisions(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The decisions of a record as a node keeps them."""
    out = []
    for item in record.get("decisions") or ():
        if not isinstance(item, Mapping):
            continue
        subject, choice = subject_and_choice(item)
        out.append({"id": item.get("id") if isinstance(item.get("id"), str) else None,
                    "subject": subject, "choice": choice,
                    "text": item.get("decision") if isinstance(item.get("decision"), str) else "",
                    "kind": item.get("kind") if isinstance(item.get("kind"), str) else None})
    return out


def node_of(record: Mapping[str, Any]) -> dict[str, Any]:
    """The projection document of one handoff record (a pure function of it)."""
    lineage = record["lineage"] if isinstance(record.get("lineage"), Mapping) else {}
    work = record["work"] if isinstance(record.get("work"), Mapping) else {}
    parents = [p for p in lineage.get("parents") or () if isinstance(p, str)]
    relation = lineage.get("relation") if lineage.get("relation") in RELATIONS else ("continue" if parents else "root")
    label = lineage.get("branch_label") if isinstance(lineage.get("branch_label"), str) else None
    return {
        "id": record.get("id"),
        "relation": relation,
        "parents": list(dict.fromkeys(parents)),
        "merge_basis": [m for m in lineage.get("merge_basis") or () if isinstance(m, str)],
        "branch_label": label,
        "title": work.get("title") if isinstance(work.get("title"), str) else "",
        "created_at": record.get("created_at") if isinstance(record.get("created_at"), str) else "",
        "decisions": node_decisions(record),
    }


# -- the graph ----------------------------------------------------------------------------

ERASED = "erased"
"""The status (and relation) of a placeholder node: a parent whose capture ``baton forget`` erased."""
MISSING = "missing"
"""The status (and relation) of a placeholder node: a parent this ledger holds no record of."""
ERASING = "erasing"
"""The status (and relation) of a placeholder node: a parent whose ``baton forget`` was interrupted
before its rewrite: its record is gone from the index, its payloads are still in the ledger."""
PLACEHOLDERS = {ERASED: "erased by `baton forget`", MISSING: "not in this ledger",
                ERASING: "forget unfinished: run `baton forget` again"}
"""What a view says of a placeholder node, which has no record (nor title) of its own."""


@frozen
class Node:
    id: str
    relation: str
    parents: tuple[str, ...]
    branch_label: str | None
    title: str
    created_at: str
    decisions: tuple[Mapping[str, Any], ...]
    status: str = ""
    flags: tuple[str, ...] = ()
    merge_basis: tuple[str, ...] = ()

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any], *, status: str = "", flags: Sequence[str] = ()) -> "Node":
        return cls(doc["id"], doc.get("relation") or "root", tuple(doc.get("parents") or ()),
                   doc.get("branch_label"), doc.get("title") or "", doc.get("created_at") or "",
                   tuple(doc.get("decisions") or ()), status, tuple(flags), tuple(doc.get("merge_basis") or ()))

    @classmethod
    def placeholder(cls, ident: str, kind: str) -> "Node":
        """The node of a parent a handoff names but no record holds (``kind``:
        ``ERASED``, ``ERASING`` or ``MISSING``), so that every edge of the graph resolves:
        no parents, title, decisions or label of its own."""
        return cls(ident, kind, (), None, "", "", (), kind)


def with_placeholders(nodes: Sequence[Node], erased: Iterable[str], erasing: Iterable[str] = ()) -> list[Node]:
    """``nodes``, and a placeholder for each parent they name that is not among
    them: ``ERASING`` when it is one of ``erasing`` (its ``baton forget`` was
    interrupted, payloads still in the ledger), ``ERASED`` when it is one of
    ``erased`` (its capture erased by ``baton forget``), else ``MISSING``."""
    gone, going = set(erased), set(erasing)
    return [*nodes, *(Node.placeholder(ident, ERASING if ident in going else ERASED if ident in gone else MISSING)
                      for ident in sorted(absent_parents(nodes)))]


def absent_parents(nodes: Iterable[Node]) -> set[str]:
    """The parents ``nodes`` name that are not among them (erased, or never in this ledger)."""
    listed = list(nodes)
    known = {node.id for node in listed}
    return {parent for node in listed for parent in node.parents if parent not in known}


@frozen
class ConflictCandidate:
    """Two decisions on divergent nodes that contradict each other."""

    a: str
    b: str
    basis: str
    """``id`` (same decision id) or ``subject`` (same normalized subject)."""
    key: str
    decision_a: str
    decision_b: str
    text_a: str
    text_b: str

    def involves(self, ids: Iterable[str]) -> bool:
        wanted = set(ids)
        return self.a in wanted or self.b in wanted

    def to_json(self) -> dict[str, Any]:
        return {"handoffs": [self.a, self.b], "basis": self.basis, "key": self.key,
                "decisions": [{"handoff": self.a, "id": self.decision_a, "decision": self.text_a},
                              {"handoff": self.b, "id": self.decision_b, "decision": self.text_b}]}

    def line(self) -> str:
        what = f"decision {self.key}" if self.basis == "id" else f"subject '{self.key}'"
        return (f"{what}: {short_id(self.a)} says {self.text_a!r}, "
                f"{short_id(self.b)} says {self.text_b!r}")


class Graph:
    """Nodes by id, with children and ancestry computed on demand.

    Ancestry is answered without materialising ancestor sets (a continuation
    chain can be 100,000 deep): a spanning forest over each node's first
    parent, numbered in pre/post order by an iterative walk, answers "is a an
    ancestor of b along first parents" in O(1); every other parent edge (a
    merge's second parent, an edge closing a cycle in damaged data) is a
    *secondary* edge, followed explicitly. Parents that are not nodes (an
    erased handoff) are ancestors like any other, with no parents of their own.
    """

    def __init__(self, nodes: Iterable[Node]) -> None:
        self.nodes: dict[str, Node] = {n.id: n for n in nodes}
        self.children: dict[str, list[str]] = {}
        for node in sorted(self.nodes.values(), key=lambda n: (n.created_at, n.id)):
            for parent in node.parents:
                self.children.setdefault(parent, []).append(node.id)
        self._ancestors: dict[str, frozenset[str]] = {}
        self._numbered = False
        self._tips: dict[str, tuple[str, ...]] = {}
        self._roots: dict[str, frozenset[str]] = {}

    def __contains__(self, ident: str) -> bool:
        return ident in self.nodes

    # -- the forest index ---------------------------------------------------------------

    def _number(self) -> None:
        """Pre/post numbers and tree roots over first-parent edges; secondary edges apart."""
        if self._numbered:
            return
        parents = {i: n.parents for i, n in self.nodes.items()}
        for node in list(self.nodes.values()):
            for p in node.parents:
                parents.setdefault(p, ())  # an erased parent: an ancestor with none of its own
        tree_children: dict[str, list[str]] = {}
        for ident in parents:
            if parents[ident]:
                tree_children.setdefault(parents[ident][0], []).append(ident)
        pre: dict[str, int] = {}
        post: dict[str, int] = {}
        root: dict[str, str] = {}
        clock = 0

        def walk(start: str) -> None:
            nonlocal clock
            pre[start], root[start] = clock, start
            clock += 1
            stack = [(start, iter(tree_children.get(start, ())))]
            while stack:
                ident, pending = stack[-1]
                child = next(pending, None)
                if child is None:
                    post[ident] = clock
                    clock += 1
                    stack.pop()
                elif child not in pre:
                    pre[child], root[child] = clock, root[start]
                    clock += 1
                    stack.append((child, iter(tree_children.get(child, ()))))

        for ident in sorted(parents):
            if not parents[ident]:
                walk(ident)
        for ident in sorted(parents):  # only a cycle (damaged data) leaves nodes unreached
            if ident not in pre:
                walk(ident)
        secondary: dict[str, tuple[str, ...]] = {}
        for ident, ps in parents.items():
            tree_parent = ps[0] if ps and root[ident] != ident else None
            extra = tuple(p for p in ps if p != tree_parent)
            if extra:
                secondary[ident] = extra
        self._pre, self._post, self._root, self._parents = pre, post, root, parents
        self._secondary = secondary
        self._joins = sorted(secondary, key=lambda i: pre[i])
        self._numbered = True

    def _on_path(self, a: str, x: str) -> bool:
        """Whether ``a`` is ``x`` or an ancestor of ``x`` along first parents."""
        return self._pre[a] <= self._pre[x] and self._post[x] <= self._post[a]

    def _tips_of(self, x: str) -> tuple[str, ...]:
        """The nodes whose first-parent paths together hold every ancestor of ``x`` (and ``x``)."""
        known = self._tips.get(x)
        if known is not None:
            return known
        tips, queue = {x: None}, [x]
        while queue:
            t = queue.pop()
            for join in self._joins:
                if self._on_path(join, t):
                    for p in self._secondary[join]:
                        if p not in tips:
                            tips[p] = None
                            queue.append(p)
        out = self._tips[x] = tuple(tips)
        return out

    def is_ancestor(self, a: str, b: str) -> bool:
        """Whether ``a`` is a (strict) ancestor of ``b``."""
        if a == b or b not in self.nodes:
            return False
        self._number()
        if a not in self._pre:
            return False
        return any(self._on_path(a, t) for t in self._tips_of(b))

    def _roots_above(self, x: str) -> frozenset[str]:
        """The forest roots among ``x``'s strict ancestors (two nodes share an ancestor iff they share one)."""
        known = self._roots.get(x)
        if known is not None:
            return known
        self._number()
        out = {self._root[t] for t in self._tips_of(x) if t != x}
        if self._parents.get(x) and self._root[x] != x:
            out.add(self._root[x])
        out.discard(x)
        found = self._roots[x] = frozenset(out)
        return found

    # -- questions ----------------------------------------------------------------------

    def ancestors(self, ident: str) -> frozenset[str]:
        """Every node reachable through parents (not ``ident`` itself). O(ancestors):
        for one node's line; ancestry tests between many nodes use ``is_ancestor``."""
        known = self._ancestors.get(ident)
        if known is not None:
            return known
        seen: set[str] = set()
        queue = deque(self.nodes[ident].parents if ident in self.nodes else ())
        while queue:
            current = queue.popleft()
            if current in seen:
                continue
            seen.add(current)
            node = self.nodes.get(current)
            if node is not None:
                queue.extend(node.parents)
        out = self._ancestors[ident] = frozenset(seen)
        return out

    def line_within(self, ident: str, budget: int) -> set[str] | None:
        """``ident`` and its ancestors, or None once they are more than ``budget``."""
        seen = {ident}
        queue = deque(self.nodes[ident].parents if ident in self.nodes else ())
        while queue:
            current = queue.popleft()
            if current in seen:
                continue
            seen.add(current)
            if len(seen) > budget:
                return None
            node = self.nodes.get(current)
            if node is not None:
                queue.extend(node.parents)
        return seen

    def descendants(self, ident: str) -> set[str]:
        seen: set[str] = set()
        queue = deque(self.children.get(ident, ()))
        while queue:
            current = queue.popleft()
            if current not in seen:
                seen.add(current)
                queue.extend(self.children.get(current, ()))
        return seen

    def roots(self) -> list[str]:
        """Nodes with no known parent, oldest first."""
        out = [n for n in self.nodes.values() if not any(p in self.nodes for p in n.parents)]
        return [n.id for n in sorted(out, key=lambda n: (n.created_at, n.id))]

    def component(self, ident: str) -> set[str]:
        """Every node connected to ``ident`` (through parents or children)."""
        seen: set[str] = set()
        queue = deque([ident])
        while queue:
            current = queue.popleft()
            if current in seen or current not in self.nodes:
                continue
            seen.add(current)
            queue.extend(self.nodes[current].parents)
            queue.extend(self.children.get(current, ()))
        return seen

    def parts(self) -> dict[str, str]:
        """Each node's (and erased parent's) connected part, named by one of its
        members: two nodes in different parts have no common ancestor. One
        union-find pass over the parent edges, without recursion."""
        known: dict[str, str] | None = getattr(self, "_parts", None)
        if known is not None:
            return known
        leader: dict[str, str] = {}

        def find(x: str) -> str:
            leader.setdefault(x, x)
            while leader[x] != x:
                leader[x] = leader[leader[x]]  # path halving
                x = leader[x]
            return x

        for node in self.nodes.values():
            for parent in node.parents:
                a, b = find(node.id), find(parent)
                if a != b:
                    leader[max(a, b)] = min(a, b)
        out = self._parts = {x: find(x) for x in [*self.nodes, *leader]}
        return out

    def graph_relation(self, ident: str) -> str:
        """The relation as the graph sees it: a second ``continue`` from one
        parent is a fork, whatever command made it."""
        node = self.nodes[ident]
        if node.relation == "continue" and len(node.parents) == 1:
            siblings = [c for c in self.children.get(node.parents[0], ())
                        if self.nodes[c].relation in ("continue", "fork")]
            if len(siblings) > 1:
                return "fork"
        return node.relation

    def divergent(self, a: str, b: str) -> bool:
        """Neither is the other's ancestor, and they share one."""
        if a == b or a not in self.nodes or b not in self.nodes:
            return False
        if self.is_ancestor(a, b) or self.is_ancestor(b, a):
            return False
        return bool(self._roots_above(a) & self._roots_above(b))

    def merged(self, a: str, b: str) -> bool:
        """A live merge has both among its ancestors."""
        below = self._merges_below()
        shared = below.get(a, 0) & below.get(b, 0) & ~self._merge_bit.get(a, 0) & ~self._merge_bit.get(b, 0)
        return bool(shared)

    def _merges_below(self) -> dict[str, int]:
        """Each node's (and erased parent's) live merges among its descendants,
        as a bitmask over the live merges: one pass from the leaves up, so
        "is some live merge below both" is one ``&`` instead of an ancestry
        test per merge per pair. A node's own bit is set only when it lies on
        a cycle (damaged data), which ``merged`` discounts: no node is its own
        ancestor."""
        found: dict[str, int] | None = getattr(self, "_below", None)
        if found is not None:
            return found
        bit = self._merge_bit = {m.id: 1 << i for i, m in enumerate(self._live_merges())}
        parents = {i: tuple(dict.fromkeys(n.parents)) for i, n in self.nodes.items()}
        below: dict[str, int] = dict.fromkeys(parents, 0)
        waiting: dict[str, int] = dict.fromkeys(parents, 0)
        for ps in parents.values():
            for p in ps:
                below.setdefault(p, 0)
                if p in waiting:
                    waiting[p] += 1
        ready = [i for i, n in waiting.items() if not n]
        while ready:  # children before parents (Kahn's order)
            x = ready.pop()
            give = below[x] | bit.get(x, 0)
            for p in parents[x]:
                below[p] |= give
                if p in waiting:
                    waiting[p] -= 1
                    if not waiting[p]:
                        ready.append(p)
        stuck = deque(i for i, n in waiting.items() if n)  # on or above a cycle: to a fixed point
        queued = set(stuck)
        while stuck:
            x = stuck.popleft()
            queued.discard(x)
            give = below[x] | bit.get(x, 0)
            for p in parents[x]:
                if below[p] | give != below[p]:
                    below[p] |= give
                    if p in parents and p not in queued:
                        queued.add(p)
                        stuck.append(p)
        self._below = below
        return below

    def _live_merges(self) -> list[Node]:
        found = getattr(self, "_merges", None)
        if found is None:
            found = self._merges = [n for n in self.nodes.values() if n.relation == "merge" and n.status != "archived"]
        return found

    def common_ancestors(self, ids: Sequence[str]) -> list[str]:
        """The nearest ancestors every one of ``ids`` shares (the fork points)."""
        sets = [self.ancestors(i) | {i} for i in ids]
        shared = set.intersection(*map(set, sets)) if sets else set()
        nearest = {s for s in shared if not any(s in self.ancestors(o) for o in shared if o != s)}
        return sorted(nearest)


def merge_refusal(graph: Graph, ids: Sequence[str]) -> str | None:
    """Why a merge of ``ids`` must not be made, or None.

    A merge joins divergent branches: a parent that is an ancestor of another
    parent is already part of it, and a live merge of exactly these parents
    already stands (amend that draft, or archive it first).
    """
    known = [i for i in ids if i in graph]
    for a in known:
        for b in known:
            if a != b and a in graph.ancestors(b):
                return (f"{short_id(a)} is an ancestor of {short_id(b)}: its work is already part of "
                        f"{short_id(b)}; a merge joins divergent branches (continue {short_id(b)} instead)")
    wanted = set(ids)
    standing = sorted(node.id for node in graph.nodes.values()
                      if node.relation == "merge" and node.status != "archived" and set(node.parents) == wanted)
    if len(standing) == 1:
        return (f"{short_id(standing[0])} already merges these handoffs; amend it, or archive it "
                "before merging them again")
    if standing:
        return (f"{' and '.join(short_id(i) for i in standing)} already merge these handoffs (merges made apart, "
                "on clones that had not synced: each is a duplicate of the others); keep one and archive the "
                f"others ({ARCHIVE_A_DUPLICATE}), amend the one kept, or archive them all before merging them again")
    return None


ARCHIVE_A_DUPLICATE = ("`baton handoff archive ID`, with `not_mine` for a merge another writer made: archiving it is "
                       "refused as not yours without it")
"""How a duplicate merge is archived, as the lines that name duplicates say it (``not_mine``: an adapter
spells it its own way, the command line ``--not-mine``)."""


def duplicate_merges(graph: Graph) -> dict[str, list[str]]:
    """Each live (not archived) merge that another live merge duplicates — exactly the same
    parents, as two clones apart make it, each refused a second one only by what it has seen —
    and those others, by id; and, where every merge of the same parents is archived and there are
    two or more (each clone archived the one it took for the duplicate, apart: none is kept), each
    of those archived ones with the others. A group with one live merge is settled: no mark. One
    pass over the nodes."""
    by_parents: dict[frozenset[str], list[Node]] = {}
    for node in graph.nodes.values():
        if node.relation == "merge":
            by_parents.setdefault(frozenset(node.parents), []).append(node)
    out: dict[str, list[str]] = {}
    for same in by_parents.values():
        live = [n.id for n in same if n.status != "archived"]
        marked = live if len(live) > 1 else [n.id for n in same] if not live and len(same) > 1 else []
        out.update({i: sorted(x for x in marked if x != i) for i in marked})
    return out


NONE_KEPT = "all archived: none kept (merge the parents again to keep one)"
"""What ``baton lineage`` and ``baton sync`` say of duplicate merges each archived apart."""


def duplicate_mark(others: Sequence[str], archived: bool) -> str:
    """``baton lineage``'s mark of a merge ``duplicate_merges`` pairs with ``others`` (an archived one:
    every merge of its parents is archived, none kept)."""
    text = f"duplicate merge of {', '.join(short_id(i) for i in others)}"
    return f"{text}, {NONE_KEPT}" if archived else text


DuplicateMarks = Mapping[str, tuple[tuple[str, ...], bool]]
"""Per merge ``duplicate_merges`` marks: the others, and whether it is archived (``duplicate_marks``)."""


def duplicate_marks(graph: Graph) -> dict[str, tuple[tuple[str, ...], bool]]:
    """``duplicate_merges`` with each merge's archived state: what changes when a duplicate arrives
    or each is archived apart (``brought_duplicates`` compares two)."""
    return {ident: (tuple(others), graph.nodes[ident].status == "archived")
            for ident, others in duplicate_merges(graph).items()}


def brought_duplicates(before: DuplicateMarks, graph: Graph) -> list[dict[str, Any]]:
    """The groups of duplicate merges (``duplicate_merges``: the same parents, made apart) marked in
    ``graph`` as they were not in ``before`` (``duplicate_marks`` of the graph before, say, a sync's
    import): a duplicate that arrived, or duplicates each archived apart that are now all archived.
    Each ``{merges, parents, none_kept, line}``, ``line`` saying it as ``baton lineage`` marks it."""
    now = duplicate_marks(graph)
    groups: dict[frozenset[str], list[str]] = {}
    for ident in now:
        groups.setdefault(frozenset(graph.nodes[ident].parents), []).append(ident)
    out = []
    for parents, merges in groups.items():
        if all(before.get(i) == now[i] for i in merges):
            continue
        merges = sorted(merges)
        none_kept = all(now[i][1] for i in merges)
        out.append({"merges": merges, "parents": sorted(parents), "none_kept": none_kept,
                    "line": _duplicates_line(merges, sorted(parents), none_kept)})
    return sorted(out, key=lambda group: group["merges"])


def _duplicates_line(merges: Sequence[str], parents: Sequence[str], none_kept: bool) -> str:
    which = " and ".join(short_id(i) for i in merges)
    of = " and ".join(short_id(p) for p in parents)
    if none_kept:
        return (f"DUPLICATE MERGES of {of}: {which}, made apart on clones that had not synced, were each archived "
                f"apart: {NONE_KEPT}")
    return (f"DUPLICATE MERGES of {of}: {which} each merge them, made apart on clones that had not synced: each "
            f"is a duplicate of the others; keep one and archive the others ({ARCHIVE_A_DUPLICATE}; "
            f"`baton lineage` marks them)")


def archived_duplicates(graph: Graph, ids: Sequence[str]) -> list[str]:
    """The merges of exactly ``ids`` when there are two or more and every one is archived
    (``duplicate_merges``: archived apart, none kept), by id; else none."""
    wanted = set(ids)
    same = [n for n in graph.nodes.values() if n.relation == "merge" and set(n.parents) == wanted]
    return sorted(n.id for n in same) if len(same) > 1 and all(n.status == "archived" for n in same) else []


def conflict_candidates(graph: Graph) -> list[ConflictCandidate]:
    """Every unresolved pair of contradicting decisions on divergent nodes.

    Decisions are indexed by id and by subject, and within one key split by
    connected part of the graph (nodes with no edge path between them share
    no ancestor, so never diverge: a project of many separate lines, each
    handoff recording its own ``D-001``, compares none of them). Within a
    part, nodes are taken in first-parent pre-order, so a node's tree
    ancestors are the ones still open on a stack and only nodes on other
    branches (closed before it) are paired with it, bucketed by choice: the
    work is proportional to the pairs that differ within a part, never to
    every pair of handoffs.
    """
    by_key: dict[tuple[str, str], dict[str, list[Mapping[str, Any]]]] = {}
    for node in graph.nodes.values():
        if node.status == "archived":
            continue
        for decision in node.decisions:
            if decision.get("kind") == "merge_resolution":
                continue
            if decision.get("id"):
                by_key.setdefault(("id", decision["id"]), {}).setdefault(node.id, []).append(decision)
            if decision.get("subject"):
                by_key.setdefault(("subject", decision["subject"]), {}).setdefault(node.id, []).append(decision)
    found: dict[tuple[str, str, str, str], ConflictCandidate] = {}
    part: dict[str, str] = {}
    if any(len(on) > 1 for on in by_key.values()):
        graph._number()
        part = graph.parts()
    for (basis, key), on in sorted(by_key.items()):
        if len(on) < 2:
            continue
        by_part: dict[str, list[str]] = {}
        for ident in on:
            by_part.setdefault(part[ident], []).append(ident)
        for members in by_part.values():
            if len(members) < 2:
                continue
            open_: list[str] = []
            closed: dict[Any, list[tuple[str, Mapping[str, Any]]]] = {}
            for b in sorted(members, key=lambda i: graph._pre[i]):
                while open_ and graph._post[open_[-1]] < graph._pre[b]:
                    done = open_.pop()
                    for d in on[done]:
                        closed.setdefault(d.get("choice"), []).append((done, d))
                for db in on[b]:
                    for choice, entries in closed.items():
                        if choice == db.get("choice"):
                            continue
                        for a, da in entries:
                            _consider(graph, found, basis, key, a, da, b, db)
                open_.append(b)
    # One pair contradicting on the same decision by id and by subject is one candidate.
    out: dict[tuple[str, str, str, str], ConflictCandidate] = {}
    for c in found.values():
        same = (c.a, c.b, c.decision_a, c.decision_b)
        if same not in out or c.basis == "id":
            out[same] = c
    return sorted(out.values(), key=lambda c: (c.a, c.b, c.basis, c.key))


def _consider(graph: Graph, found: dict[tuple[str, str, str, str], ConflictCandidate], basis: str, key: str,
              a: str, da: Mapping[str, Any], b: str, db: Mapping[str, Any]) -> None:
    """Record the pair as a candidate when its nodes diverge and no live merge joined them."""
    first, second = sorted([(a, da), (b, db)], key=lambda x: x[0])
    slot = (first[0], second[0], basis, key)
    if slot in found or not graph.divergent(a, b) or graph.merged(a, b):
        return
    found[slot] = ConflictCandidate(first[0], second[0], basis, key,
                                    first[1].get("id") or "", second[1].get("id") or "",
                                    first[1].get("text") or "", second[1].get("text") or "")


def conflicts_touching(candidates: Sequence[ConflictCandidate], graph: Graph, ident: str) -> list[ConflictCandidate]:
    """The candidates a record carries: those on it or on one of its ancestors
    (a branch inherits its ancestors' unresolved contradictions)."""
    if ident not in graph:
        return []

    def on_line(x: str) -> bool:
        return x == ident or graph.is_ancestor(x, ident)

    # On the line, and not past it: a record descending from both sides merged them.
    return [c for c in candidates if (on_line(c.a) or on_line(c.b)) and not (on_line(c.a) and on_line(c.b))]


def conflicts_touching_each(candidates: Sequence[ConflictCandidate], graph: Graph,
                            idents: Iterable[str]) -> dict[str, list[ConflictCandidate]]:
    """``conflicts_touching`` for many records at once (a listing): candidates
    are indexed by the handoffs they name, and each record's line — itself and
    its ancestors — is walked for them while it is shorter than the list of
    candidates (else the candidates are tested one by one, as for one record),
    so a listing costs the lines walked, not every record times every candidate."""
    at: dict[str, list[int]] = {}
    for i, c in enumerate(candidates):
        at.setdefault(c.a, []).append(i)
        if c.b != c.a:
            at.setdefault(c.b, []).append(i)
    out: dict[str, list[ConflictCandidate]] = {}
    for ident in idents:
        if ident not in graph:
            out[ident] = []
            continue
        line = graph.line_within(ident, len(candidates))
        if line is None:
            out[ident] = conflicts_touching(candidates, graph, ident)
            continue
        hits = sorted({i for x in line for i in at.get(x, ())})
        out[ident] = [candidates[i] for i in hits if (candidates[i].a in line) != (candidates[i].b in line)]
    return out


# -- views --------------------------------------------------------------------------------

def subgraph_ids(graph: Graph, ident: str | None) -> set[str]:
    return set(graph.nodes) if ident is None else graph.component(ident)


DEFAULT_LIMIT = 50
"""How many handoffs a lineage view shows unless told otherwise (``limit`` 0: all), as ``handoff list``."""


def limited_ids(graph: Graph, ids: set[str], around: str | None, limit: int) -> set[str]:
    """The handoffs of ``ids`` a view shows under ``limit`` (0: all of them): the newest ``limit`` by
    creation or, around one handoff (``around``), it and the ``limit - 1`` nearest it along parent
    and child edges (breadth first; at one distance, the newer first) — the graph around the newest
    work, or around the handoff asked about, never the whole history of a long project.

    Raises:
        InputError: ``limit`` is negative.
    """
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise InputError("`limit` must be a positive number of handoffs, or 0 for the whole graph")
    if limit == 0 or len(ids) <= limit:
        return ids
    if around is None:
        newest = sorted((graph.nodes[i] for i in ids), key=lambda n: (n.created_at, n.id), reverse=True)
        return {n.id for n in newest[:limit]}
    shown: set[str] = {around}
    layer = [around]
    while layer and len(shown) < limit:
        found = {x for ident in layer for x in (*graph.nodes[ident].parents, *graph.children.get(ident, ()))
                 if x in ids and x not in shown}
        layer = [n.id for n in sorted((graph.nodes[x] for x in found), key=lambda n: (n.created_at, n.id),
                                      reverse=True)][:limit - len(shown)]
        shown.update(layer)
    return shown


def to_json(graph: Graph, ids: set[str], candidates: Sequence[ConflictCandidate],
            freshness: Mapping[str, str] | None = None) -> dict[str, Any]:
    conflicted = {x for c in candidates for x in (c.a, c.b)}
    duplicates = duplicate_merges(graph)
    nodes: list[dict[str, Any]] = []
    for node in sorted((graph.nodes[i] for i in ids), key=lambda n: (n.created_at, n.id)):
        nodes.append({"id": node.id, "short_id": short_id(node.id), "title": node.title, "status": node.status,
                      "flags": list(node.flags), "relation": node.relation,
                      "graph_relation": graph.graph_relation(node.id), "branch_label": node.branch_label,
                      "parents": list(node.parents), "created_at": node.created_at,
                      "freshness": (freshness or {}).get(node.id),
                      "conflicted": node.id in conflicted, "duplicate_of": duplicates.get(node.id, [])})
    edges = [{"parent": p, "child": n["id"], "relation": n["graph_relation"]}
             for n in nodes for p in n["parents"] if p in ids]  # a parent the limit left out: in `parents` only
    return {"nodes": nodes, "edges": edges,
            "conflicts": [c.to_json() for c in candidates if c.a in ids or c.b in ids]}


def _one_line(text: object) -> str:
    """A stored label or title on one line of the tree (a ledger may hold one with a line break)."""
    return " ".join(str(text).split())


def render_text(view: Mapping[str, Any]) -> str:
    """An indented tree: status, freshness and conflict marks; the children of
    a node with two or more (its branches) are indented under it, a lone child
    continues in its parent's column; a node with two parents (a merge) is
    shown under each, the second time as a reference."""
    nodes = {n["id"]: n for n in view["nodes"]}
    children: dict[str, list[str]] = {}
    for edge in view["edges"]:
        if edge["parent"] in nodes:
            children.setdefault(edge["parent"], []).append(edge["child"])
    roots = [n["id"] for n in view["nodes"] if not any(p in nodes for p in n["parents"])]
    lines: list[str] = []
    shown: set[str] = set()

    def mark(n: Mapping[str, Any]) -> str:
        if n["status"] in PLACEHOLDERS and not n["parents"]:  # a placeholder: no record to describe
            return f"{n['short_id']} ({PLACEHOLDERS[n['status']]})"
        bits = [n["status"] or "?"]
        if n.get("freshness"):
            bits.append(n["freshness"])
        bits.extend(f for f in n["flags"])
        text = f"{n['short_id']} {n['graph_relation']}"
        if n.get("branch_label"):
            text += f" [{_one_line(n['branch_label'])}]"
        title = _one_line(n["title"] or "")
        text += f" ({', '.join(bits)}) {title if len(title) <= 120 else title[:119] + '…'}"
        if n["conflicted"]:
            text += "  !! conflict candidate"
        if n.get("duplicate_of"):  # an archived one: every merge of these parents archived (apart), none kept
            text += f"  !! {duplicate_mark(n['duplicate_of'], n['status'] == 'archived')}"
        return text

    def walk(root: str) -> None:
        """Depth first, children in order, with an explicit stack (a chain may be 100,000 deep)."""
        stack = [(root, 0)]
        while stack:
            ident, depth = stack.pop()
            n = nodes[ident]
            if ident in shown:
                lines.append("  " * depth + f"{n['short_id']} (see above)")
                continue
            shown.add(ident)
            lines.append("  " * depth + mark(n))
            kids = children.get(ident, ())
            step = 1 if len(kids) > 1 else 0  # a continuation chain stays in its column; branches indent
            stack.extend((child, depth + step) for child in reversed(kids))

    for root in roots:
        walk(root)
    if not lines:
        lines.append("no handoffs")
    for c in view["conflicts"]:
        lines.append(f"conflict candidate: {c['basis']} {c['key']!r} between "
                     f"{short_id(c['handoffs'][0])} and {short_id(c['handoffs'][1])}")
    return "\n".join(lines)


def _title(n: Mapping[str, Any]) -> str:
    """A diagram node's title: a placeholder's, what it stands for."""
    if n["status"] in PLACEHOLDERS and not n["parents"] and not n["title"]:
        return PLACEHOLDERS[n["status"]].replace("`", "")
    return str(n["title"])


def _head(n: Mapping[str, Any]) -> str:
    """A diagram node's first words: short id, ``[branch label]``, status."""
    label = f" [{_one_line(n['branch_label'])}]" if n.get("branch_label") else ""
    return f"{n['short_id']}{label} {n['status']}"


_MERMAID_ENTITIES = {"#": "#35;", "<": "#lt;", ">": "#gt;", "&": "#amp;", '"': "#quot;", "\\": "#92;"}
"""Mermaid reads a label as markup: ``<b>`` would be a tag, ``#lt;`` an entity and
``"`` the label's end (``q"] --> X["`` a node and an edge of its own), so these
characters go in as mermaid's own entity codes (``#quot;``, a character's
decimal code ``#92;``), which show them as written."""


def _mermaid_text(text: str, width: int = 60) -> str:
    """``text`` on one line, its first ``width`` characters, as a quoted mermaid label holds
    them: ``"``, ``\\``, ``#``, ``<``, ``>``, ``&`` as entity codes (``_MERMAID_ENTITIES``),
    and a control character as its visible escape (``\\x1b``, its backslash a code too), so
    the label shows the text as written and nothing in it ends the label."""
    text = " ".join(text.split("\n"))[:width]
    return "".join(_MERMAID_ENTITIES.get(c) or (f"#92;x{ord(c):02x}" if _is_control(c) else c) for c in text)


def render_mermaid(view: Mapping[str, Any]) -> str:
    lines = ["graph TD"]
    for n in view["nodes"]:
        label = _mermaid_text(f"{_head(n)}: {_title(n)}")
        lines.append(f'  n{n["short_id"]}["{label}"]')
    by_id = {n["id"]: n for n in view["nodes"]}
    for e in view["edges"]:
        parent, child = by_id.get(e["parent"]), by_id[e["child"]]
        if parent is not None:
            lines.append(f"  n{parent['short_id']} -->|{e['relation']}| n{child['short_id']}")
    for n in view["nodes"]:
        if n["conflicted"]:
            lines.append(f"  class n{n['short_id']} conflict")
    if any(n["conflicted"] for n in view["nodes"]):
        lines.append("  classDef conflict stroke:#c00,stroke-width:3px")
    return "\n".join(lines)


def _dot_text(text: str, width: int = 60) -> str:
    """``text`` on one line, its first ``width`` characters, as a DOT string holds them: a
    backslash doubled and a quote escaped (DOT's string rules: both then show as written),
    and a control character written as its visible escape (``\\x1b``, shown as ``\x1b``), so
    nothing in a title reaches a terminal or an SVG as a control character."""
    text = " ".join(text.split("\n"))[:width]
    return "".join(_DOT_ESCAPES.get(c) or (f"\\\\x{ord(c):02x}" if _is_control(c) else c) for c in text)


_DOT_ESCAPES = {"\\": "\\\\", '"': '\\"'}


def _is_control(char: str) -> bool:
    return ord(char) < 0x20 or 0x7F <= ord(char) < 0xA0


def render_dot(view: Mapping[str, Any]) -> str:
    lines = ["digraph lineage {", "  rankdir=TB;", "  node [shape=box];"]
    for n in view["nodes"]:
        head = _head(n)[:60]
        # dot's "\n" joins the two lines; the texts themselves never hold one
        # (a user's backslash is doubled: ``feat\new`` shows as written, not as two lines).
        label = f"{_dot_text(head)}\\n{_dot_text(_title(n), max(0, 58 - len(head)))}"
        style = ', color="red", penwidth=2' if n["conflicted"] else ""
        lines.append(f'  "{n["id"]}" [label="{label}"{style}];')
    for e in view["edges"]:
        lines.append(f'  "{e["parent"]}" -> "{e["child"]}" [label="{e["relation"]}"];')
    lines.append("}")
    return "\n".join(lines)


# -- bodies of fork and merge children ---------------------------------------------------

_CARRIED = ("work", "summary", "open_items", "failed_attempts", "risks")


def fork_body(parent: Mapping[str, Any], *, label: str | None) -> dict[str, Any]:
    """A fork child's body: the parent's work, summary, open items, failed
    attempts and risks (what the branch starts from). Decisions are inherited
    as context through the lineage, not copied (§14)."""
    body = {k: _copy(parent[k]) for k in _CARRIED if k in parent}
    lineage: dict[str, Any] = {"parents": [parent["id"]], "relation": "fork"}
    if label:
        lineage["branch_label"] = label
    body["lineage"] = lineage
    return body


def merge_body(parents: Sequence[Mapping[str, Any]], *, resolution: Mapping[str, Any],
               conflicts: Sequence[ConflictCandidate], basis: Sequence[str], title: str | None,
               retired: Iterable[str] = ()) -> dict[str, Any]:
    """A merge child's body: the first parent's work (with ``title``), the
    parents' summaries, open items, artifacts and evidence combined (evidence
    renumbered, each naming the handoff it came from), the resolution decision
    (kind ``merge_resolution``, listing what it resolves) and the conflicts it
    settles under ``lineage.conflicts``.

    ``retired``: the ids the child starts with retired (``merge_retired``, the union of
    the parents' ``retired_ids``): the renumbering gives none of them to an item, so an id
    a parent retired never comes to name another item. An open item's ``blocked_by``
    follows its blocker's new id (an id its parent does not hold is kept as written).

    Raises:
        MergeUnresolved: ``resolution`` has no decision text.
    """
    text = resolution.get("decision")
    if not isinstance(text, str) or not text.strip():
        listed = "".join(f"; conflict candidate {c.line()}" for c in conflicts)
        # Given but blank (an empty file, `{"decision": ""}`) is not "not given".
        lead = ("the `resolution` given has an empty decision: write how the parents are reconciled "
                if "decision" in resolution else "a merge needs an explicit resolution decision: give `resolution` ")
        raise MergeUnresolved(
            lead + "({\"decision\": ..., \"rationale\": ...}, or plain text from a file)" + listed,
            details={"conflicts": [c.to_json() for c in conflicts]})
    first = parents[0]
    work = dict(_copy(first.get("work") or {}))
    if title:
        work["title"] = title
    summary: dict[str, Any] = {"completed": [], "in_progress": [], "discoveries": []}
    for p in parents:
        for key in ("completed", "in_progress", "discoveries"):
            for item in (p.get("summary") or {}).get(key) or ():
                if item not in summary[key]:
                    summary[key].append(item)
    current = resolution.get("current_state")
    summary["current_state"] = current if isinstance(current, str) and current.strip() else text.strip()
    evidence: list[dict[str, Any]] = []
    for p in parents:
        for item in p.get("evidence") or ():
            if isinstance(item, Mapping):
                evidence.append({**{k: v for k, v in item.items() if k != "id"}, "source_handoff": p["id"]})
    for item in resolution.get("evidence") or ():
        if isinstance(item, Mapping):
            evidence.append({k: v for k, v in item.items() if k != "id"})
    gone = {r for r in retired if isinstance(r, str)}
    evidence = [{"id": ident, **item} for ident, item in zip(_fresh_ids("E", gone), evidence, strict=False)]
    open_items = _merged_open_items(parents, gone)
    artifacts: dict[str, Any] = {}
    for p in parents:
        for item in p.get("artifacts") or ():
            if isinstance(item, Mapping) and isinstance(item.get("path"), str):
                artifacts[item["path"]] = dict(item)
    resolves = list(dict.fromkeys([*(c.key for c in conflicts),
                                   *(r for r in resolution.get("resolves") or () if isinstance(r, str))]))
    decision_ids = _fresh_ids("D", gone)
    decision: dict[str, Any] = {"id": next(decision_ids), "decision": text.strip(), "kind": "merge_resolution",
                                "resolves": resolves,
                                "evidence_ids": [e["id"] for e in evidence if "source_handoff" not in e]}
    if isinstance(resolution.get("rationale"), str) and resolution["rationale"].strip():
        decision["rationale"] = resolution["rationale"].strip()
    decisions = [decision]
    for extra in resolution.get("decisions") or ():
        if isinstance(extra, Mapping):
            decisions.append({"id": next(decision_ids), **{k: v for k, v in extra.items() if k != "id"}})
    body: dict[str, Any] = {"work": work, "summary": summary, "decisions": decisions, "evidence": evidence,
                            "open_items": open_items, "artifacts": list(artifacts.values())}
    lineage: dict[str, Any] = {"parents": [p["id"] for p in parents], "relation": "merge",
                               "conflicts": [c.to_json() for c in conflicts]}
    if basis:
        lineage["merge_basis"] = list(basis)
    body["lineage"] = lineage
    if resolution.get("work_state") == "completed":
        body["work"]["state"] = "completed"
    return body


def merge_retired(parents: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    """The ids a merge child starts with retired: every id a parent retired (its ``retired_ids``), so
    no item of the child, renumbered or new, takes one (docs/handoffs.md "Retired ids")."""
    return tuple(sorted({r for p in parents for r in p.get("retired_ids") or () if isinstance(r, str)}))


def _fresh_ids(prefix: str, retired: set[str]) -> Iterator[str]:
    """``PREFIX-001``, ``PREFIX-002``, … skipping every id in ``retired``."""
    n = 0
    while True:
        n += 1
        if f"{prefix}-{n:03d}" not in retired:
            yield f"{prefix}-{n:03d}"


def _merged_open_items(parents: Sequence[Mapping[str, Any]], retired: set[str]) -> list[dict[str, Any]]:
    """The parents' open items, one per description (the first parent's first), numbered past
    ``retired``; each ``blocked_by`` names its blocker's new id (a duplicate's blocker: the item kept)."""
    kept: list[tuple[dict[str, Any], int]] = []  # (item without its id, its parent's index)
    by_description: dict[Any, int] = {}
    renamed: dict[tuple[int, str], int] = {}  # (parent index, old id) -> index in kept
    for at, p in enumerate(parents):
        for item in p.get("open_items") or ():
            if not isinstance(item, Mapping):
                continue
            index = by_description.get(item.get("description"))
            if index is None:
                index = by_description[item.get("description")] = len(kept)
                kept.append(({k: v for k, v in item.items() if k != "id"}, at))
            if isinstance(item.get("id"), str):
                renamed[(at, _item_key(item["id"]))] = index
    ids = [ident for ident, _ in zip(_fresh_ids("O", retired), kept, strict=False)]
    out = []
    for ident, (item, at) in zip(ids, kept, strict=True):
        blockers = item.get("blocked_by")
        if isinstance(blockers, list):
            item["blocked_by"] = [ids[renamed[(at, _item_key(b))]] if isinstance(b, str) and (at, _item_key(b)) in renamed
                                  else b for b in blockers]
        out.append({"id": ident, **item})
    return out


def _item_key(ident: str) -> str:
    """An item id as a merge matches it: ``O-1``, ``o-001`` and `` O-001 `` are one (``handoff.id_key``'s rule)."""
    found = re.match(r"^\s*([A-Za-z])-0*(\d+)\s*$", ident)
    return f"{found.group(1).upper()}-{int(found.group(2))}" if found else ident.strip().casefold()


def merge_given_as(field: str, *, resolution: Mapping[str, Any], title: str | None,
                   parent_evidence: int) -> str | None:
    """Where the caller gave a merge child's record ``field`` (a redaction's path), as ``merge_body``
    builds it: ``title``, or ``resolution.<member>`` (a list entry with the caller's index:
    ``evidence[3]`` → ``resolution.evidence[1]`` after two from the parents); None for what the
    parents brought (their summaries, open items, evidence, artifacts). Each surface turns it into
    its own name (the command line's ``--title`` / ``--resolution-file``, MCP's argument path)."""
    section = field_of(field)
    if field == "work.title":
        return "title" if title else None
    if field == "summary.current_state":
        given = resolution.get("current_state")
        return "resolution.current_state" if isinstance(given, str) and given.strip() else "resolution.decision"
    at = item_of(field)
    if section == "decisions" and at is not None:
        if at == 0:
            member = field.split(".", 1)[1].split("[", 1)[0] if "." in field else "decision"
            return f"resolution.{member}" if member in ("decision", "rationale", "resolves") else "resolution"
        extras = [i for i, d in enumerate(resolution.get("decisions") or ()) if isinstance(d, Mapping)]
        return f"resolution.decisions[{extras[at - 1]}]" if at - 1 < len(extras) else "resolution.decisions"
    if section == "evidence" and at is not None and at >= parent_evidence:
        given = [i for i, e in enumerate(resolution.get("evidence") or ()) if isinstance(e, Mapping)]
        mine = at - parent_evidence
        return f"resolution.evidence[{given[mine]}]" if mine < len(given) else "resolution.evidence"
    return None


RESOLUTION_FIELDS = ("decision", "rationale", "resolves", "current_state", "evidence", "decisions", "work_state")
"""What a merge's resolution may hold (the MCP ``resolution`` object has the same closed shape)."""


def resolution_from_text(raw: str) -> dict[str, Any]:
    """A resolution file: a JSON object, or plain text (the decision itself).

    Raises:
        InputError: JSON that is not an object.
    """
    stripped = raw.strip()
    if stripped.startswith("{") or stripped.startswith("["):
        try:
            value = orjson.loads(stripped)
        except orjson.JSONDecodeError as exc:
            raise InputError(f"the resolution file is not valid JSON: {exc}") from None
        if not isinstance(value, dict):
            raise InputError("the resolution file must be a JSON object or plain text")
        unknown = sorted(k for k in value if k not in RESOLUTION_FIELDS)
        if unknown:
            raise InputError(f"the resolution file has unknown {'field' if len(unknown) == 1 else 'fields'} {', '.join(unknown)} "
                             f"(known: {', '.join(RESOLUTION_FIELDS)})", details={"unknown": unknown})
        return value
    return {"decision": stripped}  # an empty file is a blank decision, refused as such by merge_body


def _copy(value: Any) -> Any:
    return copy.deepcopy(value)


def iter_edges(doc: Mapping[str, Any]) -> Iterator[tuple[str, str, str]]:
    for parent in doc.get("parents") or ():
        yield parent, doc["id"], doc.get("relation") or "continue"
