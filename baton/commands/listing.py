"""``baton handoff list [--status S] [--work QUERY] [--kind K] [--branch B] [--by OWNER | --mine] [--limit N] [--cursor C]``.

Newest first: the newest ``DEFAULT_LIMIT`` unless told otherwise (``limit``
0: every match); a listing its limit cut says how many match in all
(``total``) and where the next page starts (``next_cursor``, given back as
``cursor``: keyset paging on the newest-first order, ``handoffs.newest``). ``kind`` is ``handoff`` by default: the session batons every
``session end`` leaves are records too, but they are listed apart
(``--kind baton``) or together (``--kind all``). ``--work`` is a full-text search over title, objective and
summary (SQLite FTS5, kept by the ``handoffs`` projection): every word must
match, each as a prefix, so ``--work "oauth callb"`` finds "OAuth callback";
a word given twice is searched once, and a query over ``QUERY_MAX`` characters is refused.
The query is turned into quoted terms, so FTS syntax in user text can never
raise an error. Each row says who captured it (``owner``, ``writer``) and
whether that is the reader (``mine``: ``baton.domain.authorship``); ``by``
keeps one owner's (or writer id's) records, ``mine`` the reader's. A row
another clone's feed wrote that no trusted key vouches for says so (``feed``,
and "(not verified)" beside its author: ``baton.domain.feed_vouch``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable

import attrs

from baton.commands.feed_vouch import judged, verdicts_stamp
from baton.commands.identity import owner_stamp, owner_under
from baton.commands.lineage_conflicts import current_conflicts
from baton.domain.authorship import author_label, wrote
from baton.domain.handoff import STATUSES
from baton.domain.limits import HANDOFF_ID_MAX, QUERY_MAX
from baton.domain.lineage import conflicts_touching_each
from baton.domain.short_ids import short_id
from baton.domain.wording import TITLE_WIDTH, clipped, counted
from baton.errors import InputError
from baton.model import frozen
from baton.projections import handoffs

if TYPE_CHECKING:
    from collections.abc import Mapping

    from baton.commands.context import Project
    from baton.domain.feed_vouch import FeedVouch
    from baton.projections.handoffs import HandoffSummary

_WORD = re.compile(r"\w+", re.UNICODE)
SQLITE_INT_MAX = 2**63 - 1
DEFAULT_LIMIT = 50
"""How many a listing shows when not told (``handoff list``, MCP ``handoff_list``):
a year of a team's handoffs (13,000) is 6 MB of JSON, which no agent's context
holds, and a wall of text on a terminal. ``limit`` 0 lists every match."""
EVERY = 0
"""The ``limit`` that lists every match."""
REMEMBERED_LISTS = 16
"""Distinct lists a long-lived process keeps for an unchanged index."""


@frozen
class ListResult:
    rows: tuple["HandoffSummary", ...]
    status: str | None
    work: str | None
    conflicts: Any = attrs.field(factory=dict)
    """Per listed id, the conflict candidates it carries (§14; absent when none)."""
    exit_code: int = 0
    kind: str = "handoff"
    branch: str | None = None
    more: bool = False
    """More records match than the limit let through (after ``cursor``, when given)."""
    total: int | None = None
    """How many match in all, when ``more`` or ``cursor`` and counted (``count_total``); else ``None``."""
    cursor: str | None = None
    """The page asked for: the rows after this ``next_cursor`` of an earlier page."""
    next_cursor: str | None = None
    """When ``more``: where the next page starts (``cursor`` of the next call)."""
    reader: "Reader" = attrs.field(factory=lambda: Reader("", str))
    """Who reads the list: this clone's writer id and owner (``mine``)."""
    by: str | None = None
    mine_only: bool = False
    elsewhere: int = 0
    """When none of this ``kind`` match: how many records of the other kind
    (handoffs, session batons) match the same filters, which the text says,
    so that a session's baton is not taken for lost (0 with ``kind`` ``all``)."""
    feeds: "Mapping[str, FeedVouch]" = attrs.field(factory=dict)
    """Per listed id from a feed no trusted key vouches for (``baton.domain.feed_vouch``): why
    (absent when vouched for, or this clone's own)."""

    def to_json(self) -> dict[str, Any]:
        rows = []
        for r in self.rows:
            row = r.to_json()
            row["conflicts"] = self.conflicts.get(r.id, [])
            row["mine"] = self.mine(r)
            found = self.feeds.get(r.id)
            row["feed"] = found.to_json() if found is not None else None
            rows.append(row)
        return {"handoffs": rows,
                "count": len(self.rows),
                "more": self.more,
                "total": self.matched,
                "next_cursor": self.next_cursor,
                "filters": {"status": self.status, "work": self.work, "kind": self.kind, "branch": self.branch,
                            "by": self.by, "mine": self.mine_only, "cursor": self.cursor}}

    def mine(self, row: "HandoffSummary") -> bool:
        """Did the reader capture ``row``?"""
        # The reader's owner is resolved (git config read) only for a row that has an owner.
        return wrote(row.owner, row.writer, my_owner=self.reader.owner if row.owner else "",
                     my_writer=self.reader.writer)

    @property
    def matched(self) -> int | None:
        """How many match in all: the rows listed when the limit left none out
        (of a first page), else the count (``None`` when not counted: ``count_total``)."""
        return self.total if self.more or self.cursor is not None else len(self.rows)

    @property
    def noun(self) -> str:
        """What is listed, in the plural."""
        return NOUNS[self.kind]

    def render(self) -> str:
        if not self.rows:  # none listed; and where the other kind's matches are, if any
            noun = "handoffs or batons" if self.kind == "all" else self.noun
            filtered = bool(self.status or self.work or self.branch or self.by or self.mine_only)
            said = f"No {noun}" + (" match" if filtered else " yet")
            if not self.elsewhere:
                return said + "."
            other = OTHER_KIND[self.kind]
            others = counted(self.elsewhere, NOUN[other], NOUNS[other])
            if filtered:  # the way to them: add --kind baton, or drop it (handoffs are the default)
                way = f"add `--kind {other}`" if other != "handoff" else f"drop `--kind {self.kind}`"
                return f"{said}; {others} {'does' if self.elsewhere == 1 else 'do'}: {way}."
            return f"{said}; {others}: `baton handoff list" + (f" --kind {other}`." if other != "handoff" else "`.")
        states = [r.status + (f" [{','.join(r.flags)}]" if r.flags else "") for r in self.rows]
        width = max(len(s) for s in states)
        branches = [r.branch or "-" for r in self.rows]
        bwidth = min(max(len(b) for b in branches), 30)
        authors = [clipped(author_label(r.owner, r.writer), 30) + (" (you)" if self.mine(r) else "")
                   + _unverified(self.feeds.get(r.id)) for r in self.rows]
        awidth = max(len(a) for a in authors)
        lines = []
        for r, state, branch, author in zip(self.rows, states, branches, authors):
            kind = "baton  " if self.kind == "all" and r.baton else ("       " if self.kind == "all" else "")
            mark = f"  !! {counted(len(self.conflicts[r.id]), 'conflict candidate')}" if self.conflicts.get(r.id) else ""
            lines.append(f"{short_id(r.id)}  {kind}{state:<{width}}  {r.created_at}  {clipped(branch, 30):<{bwidth}}"
                         f"  {author:<{awidth}}  {clipped(r.title, TITLE_WIDTH)}{mark}")
        return "\n".join(lines)


def _unverified(found: "FeedVouch | None") -> str:
    """The author column's mark for a record from a feed no trusted key vouches for."""
    return found.mark if found is not None else ""


OTHER_KIND = {"handoff": "baton", "baton": "handoff"}
"""The kind listed apart from each (``all`` has none)."""
NOUN = {"handoff": "handoff", "baton": "session baton"}
NOUNS = {"handoff": "handoffs", "baton": "session batons", "all": "handoffs and batons"}


_UNSPACED = re.compile("[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf"
                       "\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002fa1f]")
"""Scripts written without spaces between words (Thai, Lao, Myanmar, Khmer, kana,
CJK ideographs; Hangul, whose particles are glued to the word)."""


def _words(text: str) -> list[str]:
    """The words of ``text``, each once, in order: a word said again adds nothing to an
    all-words match, only a term to evaluate."""
    return list(dict.fromkeys(_WORD.findall(text)))


def fts_query(text: str) -> str | None:
    """User text as a safe FTS5 query: each word quoted, as a prefix, all
    required — the words of spaced scripts only (``unspaced_words`` has the rest)."""
    words = [w for w in _words(text) if not _UNSPACED.search(w)]
    if not words:
        return None
    return " ".join('"' + w.replace('"', '""') + '"*' for w in words)


def unspaced_words(text: str) -> tuple[str, ...]:
    """The words of ``text`` in a script written without spaces (``_UNSPACED``):
    the tokenizer keeps a run of them as one token, so each is searched as a
    substring (``画面`` inside ``ログイン画面のバグ修正``)."""
    return tuple(w for w in _words(text) if _UNSPACED.search(w))


def _search_of(work: str | None) -> tuple[str | None, tuple[str, ...]]:
    """``--work``'s FTS5 query and its words searched as substrings (``unspaced_words``).

    Raises: InputError (no word in it, or longer than ``QUERY_MAX`` characters)."""
    if work is None:
        return None, ()
    if len(work) > QUERY_MAX:
        raise InputError(f"`work` is {len(work)} characters; the limit is {QUERY_MAX} (search for a few words "
                         "of the title, objective or summary)", details={"characters": len(work), "limit": QUERY_MAX})
    query, contains = fts_query(work), unspaced_words(work)
    if query is None and not contains:
        raise InputError("`work` needs at least one word to search for")
    return query, contains


def list_handoffs(
    project: "Project",
    *,
    status: str | None = None,
    work: str | None = None,
    limit: int | None = None,
    kind: str = "handoff",
    branch: str | None = None,
    count_total: bool = True,
    by: str | None = None,
    mine: bool = False,
    owner: str | None = None,
    cursor: str | None = None,
) -> ListResult:
    """``limit``: at most this many (``None``: ``DEFAULT_LIMIT``; ``EVERY``, 0: every match).
    ``cursor``: the ``next_cursor`` of the page before, for the next one (the same filters
    and ``limit`` expected; the rows after that page's last, however many were captured
    since: they are newer, on the first page).
    ``by``: only records captured under this owner (or by this writer id);
    ``mine``: only the reader's (``ListResult.mine``); ``owner``: the reader's
    owner when the caller already resolved it (``identity.recorded_owner``).
    ``count_total``: when the limit leaves matches out, count them all (``total``:
    one ``COUNT`` over the matches; a caller that shows only the rows skips it).

    Raises: InputError (unknown status or kind, empty query, bad limit)."""
    if status is not None and status not in STATUSES:
        raise InputError(f"`status` must be one of {', '.join(STATUSES)}, not {status!r}")
    if kind not in handoffs.KINDS:
        raise InputError(f"`kind` must be one of {', '.join(handoffs.KINDS)}, not {kind!r}")
    limit = _limit_of(limit)
    query, contains = _search_of(work)
    before = parse_cursor(cursor)
    _check_authors(by, mine)
    runner = project.reading()
    branch = branch or None
    reader, who = _reader(project, owner)
    authors: handoffs.Authors | None = ((by.strip(), None) if by is not None
                                        else (reader.owner, reader.writer) if mine else None)

    def listed() -> ListResult:
        # One row past the limit says whether more match (``more``); only then are they counted (``total``).
        rows = handoffs.newest(runner.db, status=status, search=query, contains=contains,
                               limit=None if limit is None else limit + 1,
                               kind=kind, branch=branch, by=authors, before=before)
        more = limit is not None and len(rows) > limit
        rows = rows[:limit] if more else rows
        total = (handoffs.matching(runner.db, status=status, search=query, contains=contains, kind=kind,
                                   branch=branch, by=authors)
                 if (more or before is not None) and count_total else None)
        elsewhere = (handoffs.matching(runner.db, status=status, search=query, contains=contains, kind=OTHER_KIND[kind],
                                       branch=branch,
                                       by=authors)
                     if not rows and kind in OTHER_KIND else 0)  # one COUNT, only when none are listed
        feeds = judged(project, {r.id: r.writer or None for r in rows})
        return ListResult(tuple(rows), status, work, listed_conflicts(runner, [r.id for r in rows]),
                          kind=kind, branch=branch, more=more, total=total, elsewhere=elsewhere, reader=reader,
                          by=by.strip() if by is not None else None, mine_only=mine, feeds=feeds, cursor=cursor,
                          next_cursor=f"{rows[-1].hlc}.{rows[-1].id}" if more and rows else None)

    memo = getattr(runner, "memo", None)
    if memo is None or who is None:  # None: no stamp tells when git's identity changes
        return listed()
    # A long-lived process (the MCP server, the status page) asking the same
    # question of an unchanged index gets the same (immutable) answer back,
    # without a query: the answers are kept per index state (``runner.memo``).
    answers = memo("listing.answers", dict)
    # The reader is part of the question (``_reader``): a cached answer is given back as it is
    # (the MCP server then reuses its last reply for that very object), with the reader it was
    # made for — no git config is read to answer it again. Once ``git config user.email``
    # changes, so does ``who``, and the "(you)" marks (``mine``) are made afresh.
    # The feeds' verdicts (``feeds``) change with sync's record of them, which need not change the index.
    key = (status, work, limit, kind, branch, count_total, by, mine, authors if mine else None, who,
           verdicts_stamp(project), cursor)
    found = answers.get(key)
    if found is None:
        if len(answers) >= REMEMBERED_LISTS:
            answers.clear()
        found = answers[key] = listed()
    return found


def _limit_of(limit: int | None) -> int | None:
    """The rows a listing may hold: ``DEFAULT_LIMIT`` when not told, None for every match (``EVERY``).

    Raises: InputError (a negative limit)."""
    if limit is None:
        limit = DEFAULT_LIMIT
    if limit < 0:
        raise InputError("`limit` must be a positive number, or 0 for every match")
    return None if limit == EVERY else min(limit, SQLITE_INT_MAX - 1)  # "at most N": past SQLite's integers, every row is at most N


def _check_authors(by: str | None, mine: bool) -> None:
    """Raises: InputError (``by`` and ``mine`` together, or a blank ``by``)."""
    if by is not None and mine:
        raise InputError("give `by` or `mine`, not both")
    if by is not None and not by.strip():
        raise InputError("`by` needs an owner (a git email or name) or a writer id")


_CURSOR = re.compile(rf"(\d{{1,19}})\.([0-9a-f-]{{1,{HANDOFF_ID_MAX}}})")


def parse_cursor(cursor: str | None) -> tuple[int, str] | None:
    """A page's ``next_cursor`` (``<hlc>.<id>`` of its last row) as the ``(hlc, id)`` the next
    page starts after; None for the first page.

    Raises: InputError (not a cursor a listing gave)."""
    if cursor is None:
        return None
    found = _CURSOR.fullmatch(cursor) if isinstance(cursor, str) else None
    if found is None or int(found[1]) > SQLITE_INT_MAX:
        shown = cursor[:60] + "…" if isinstance(cursor, str) and len(cursor) > 60 else cursor
        raise InputError(f"`cursor` must be the `next_cursor` of a listing's page, not {shown!r}",
                         details={"cursor": shown})
    return int(found[1]), found[2]


def _reader(project: "Project", owner: str | None) -> tuple["Reader", Any]:
    """Who reads a list, and what stands for them in a kept answer's question: the stamp of git's
    identity (``identity.owner_stamp``, None when no stamp can tell), whose owner is resolved
    only when a row needs it — or, when the caller gave the owner, the owner itself."""
    if owner is not None:
        return Reader(project.writer, lambda: owner), owner
    stamp = owner_stamp(project)
    # No stamp (a config with ``include``): still resolved only when a row needs it, and the
    # answer is never kept (``who`` None), as nothing would tell when the identity changes.
    return Reader(project.writer, lambda: owner_under(project, stamp)), stamp


class Reader:
    """Who reads a list: this clone's writer id and its owner as the ledger
    records one (``identity.recorded_owner``), resolved on first use only."""

    __slots__ = ("writer", "_resolve", "_owner")

    def __init__(self, writer: str, resolve: Callable[[], str]) -> None:
        self.writer = writer
        self._resolve = resolve
        self._owner: str | None = None

    @property
    def owner(self) -> str:
        if self._owner is None:
            self._owner = self._resolve()
        return self._owner


def listed_conflicts(runner: Any, ids: list[str]) -> dict[str, list[dict[str, Any]]]:
    """The conflict candidates each of ``ids`` carries (only ids that carry some)."""
    graph, candidates = current_conflicts(runner, ids)
    if not candidates:
        return {}
    return {ident: [c.to_json() for c in found]
            for ident, found in conflicts_touching_each(candidates, graph, ids).items() if found}
