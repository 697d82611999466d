"""Naming a handoff on the command line: full id, short id, prefix or ``latest``.

- the full UUID, or the 8-character short id shown by ``handoff list`` and in
  file names, or a prefix of that short id of at least 4 characters;
- a prefix of the full id of at least 8 characters (``baton.domain.handoff.
  MIN_PREFIX``: shorter prefixes of a UUIDv7 only name a minute of time);
- ``latest``: the newest handoff that is ready to resume (status ``ready`` or
  ``resumed``; not superseded or archived), newest by ``created_at`` then id
  (``baton.commands.latest``).

A token that names several handoffs is a conflict (exit 4) whose message and
details list the candidates; one that names none is not found (exit 4); one
longer than a full id (36 characters) is bad input (exit 2), refused before
any query.
"""

from __future__ import annotations

from baton import gitinfo
from baton.commands.feed_vouch import withheld_among
from baton.commands.handoff_facts import worktree_label
from baton.commands.latest import LATEST, LatestChoice, resolve_latest
from baton.domain.limits import HANDOFF_ID_MAX
from baton.domain.record_view import read_record
from baton.domain.short_ids import MIN_PREFIX, MIN_SHORT_PREFIX, short_id
from baton.domain.wording import clipped, counted
from baton.errors import AmbiguousId, InputError, NotFound
from baton.events.names import handoff_stream
from baton.projections import handoffs
from baton.values import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (resume loads this)
if TYPE_CHECKING:
    from typing import Any

_MAX_LISTED = 10


class Candidate(Value):
    id: str
    status: str
    created_at: str
    title: str

    def line(self) -> str:
        # the title as the handoff list shows it: a pasted document is not the whole error
        return f"{short_id(self.id)}  {self.id}  {self.status:<10}  {self.created_at}  {clipped(self.title)}"


def _candidate(row: Any) -> Candidate:
    return Candidate(id=row.id, status=row.status, created_at=row.created_at, title=row.title)


class Place(Value):
    """Where a command runs — the current branch and worktree label (what
    ``latest`` prefers) — and the project whose reader's rule says which
    handoffs ``latest`` passes over (withheld: ``feed_vouch.withheld_among``)."""

    branch: str | None
    worktree: str | None
    project: Any = None


def place_of(project: Any) -> Place:
    """Where a command on ``project`` runs (``Place``)."""
    return Place(gitinfo.current_branch(project.paths.worktree_folder), worktree_label(project.paths), project)


def latest_here(runner: Any, here: Place, *, any_branch: bool = False) -> LatestChoice:
    """The one resolution of ``latest`` every command that takes it goes through
    (``resume``, ``handoff show``, ``fork``, ``amend``…): the newest ready handoff
    where ``here`` stands (``resolve_latest``), passing over one withheld (from a
    feed no trusted key vouches for while signatures are required), which the
    choice names (``LatestChoice.skipped_line``).

    Raises:
        NotFound: none is ready, or every ready one is withheld.
    """
    project = here.project
    withheld = (lambda ids: withheld_among(project, runner, ids)) if project is not None else (lambda ids: {})
    return resolve_latest(runner, branch=here.branch, worktree=here.worktree, any_branch=any_branch,
                          withheld=withheld)


HANDOFF_ID_REQUIRED = "a handoff id is required (a full id, a unique prefix, a short id, or 'latest')"
"""The refusal of an empty handoff id, in every command that takes one."""


def too_long_message(length: int) -> str:
    """The refusal of a token longer than any handoff id (``HANDOFF_ID_MAX``); the token
    itself is not repeated (it may be a pasted document)."""
    return (f"a handoff id is at most {HANDOFF_ID_MAX} characters (the full id); this one is {length}: give the "
            "full id, the short id, or a prefix of either")


_HEX = frozenset("0123456789abcdef-")


def erased_named_by(runner: Any, token: str) -> list[str]:
    """The handoffs ``token`` names as ``named_by`` would (the full id, the short id, a prefix of
    either) whose record ``baton forget`` erased: a handoff stream stays, no record does (what
    ``baton lineage`` shows as an ``erased`` placeholder). Asked only once no record matched."""
    token = token.strip().lower()
    if "streams" not in getattr(runner, "by_name", {}) or len(token) < MIN_SHORT_PREFIX or not set(token) <= _HEX:
        return []
    base = handoff_stream("")
    clauses, args = ["key = ?", "substr(key, -8) LIKE ?"], [base + token, token + "%"]
    if len(token) >= MIN_PREFIX:
        clauses.append("key LIKE ?")
        args.append(base + token + "%")
    rows = runner.db.execute(f"SELECT key FROM docs WHERE projection = 'streams' AND key LIKE ? AND "
                             f"({' OR '.join(clauses)}) LIMIT 3", [base + "%", *args]).fetchall()
    found = sorted({key[len(base):] for (key,) in rows})
    return [ident for ident in found if not runner.has("handoffs", ident)]


def erased_message(handoff_id: str) -> str:
    """What a command asked for a handoff whose record ``baton forget`` erased says (exit 4)."""
    return f"handoff {short_id(handoff_id)} ({handoff_id}) was erased by `baton forget`: its record is gone"


def left_by_forget(runner: Any, handoff_id: str) -> int:
    """How many payloads a recorded forget of ``handoff_id`` names that the ledger still holds (its
    ``baton forget`` was interrupted before the rewrite: ``erase.unerased_named``); 0 when it
    finished. Read only once a token names a handoff with no record (a forgotten one)."""
    ledger = getattr(runner, "ledger", None)
    if ledger is None:
        return 0
    # ``__import__``: the erasure scan is loaded only here, never on a read of a live handoff (the hook path).
    erase = __import__("baton.ledger.erase", fromlist=["unerased_named"])
    return erase.unerased_named(ledger.feed_paths(), handoff_id)


def unfinished_forget_message(handoff_id: str, payloads: int) -> str:
    """What a command asked for a handoff whose ``baton forget`` was interrupted says (exit 4): not
    that it was erased, while the ledger still holds what it names, and how to finish it (the
    full id: what ``verify`` and ``doctor`` name too)."""
    return (f"handoff {short_id(handoff_id)} ({handoff_id}) is not shown: a `baton forget` of it was interrupted "
            f"and {counted(payloads, 'payload')} it names {'is' if payloads == 1 else 'are'} still in the ledger; "
            f"forgetting it again (`baton forget {handoff_id}`, confirmed) erases them")


def resolve_handoff_id(runner: Any, token: str, *, here: Place | None = None) -> str:
    """The full id ``token`` names among the project's handoffs; with ``here``
    (``place_of``), ``latest`` is that branch's, withheld handoffs passed over (``latest_here``).

    Raises:
        InputError: the token is empty, or longer than any id (``HANDOFF_ID_MAX``): it never reaches the index.
        NotFound: no handoff matches (or, for ``latest``, none is ready).
        AmbiguousId: several match; the message lists them (exit 4).
    """
    token = (token or "").strip()
    if not token:
        raise InputError(HANDOFF_ID_REQUIRED)
    if len(token) > HANDOFF_ID_MAX:
        raise InputError(too_long_message(len(token)), details={"characters": len(token), "limit": HANDOFF_ID_MAX})

    if token.lower() == LATEST:  # without ``here``: the project's newest (nobody's place, no reader's rule)
        return latest_here(runner, here or Place(None, None), any_branch=here is None).id
    count, matches = handoffs.named_by(runner.db, token, limit=_MAX_LISTED)
    exact = [m for m in matches if m.id == token.lower()]
    if exact:
        return exact[0].id
    if count == 1:
        return matches[0].id
    if count == 0:
        erased = erased_named_by(runner, token)
        if len(erased) == 1:
            left = left_by_forget(runner, erased[0])
            if left:
                raise NotFound(unfinished_forget_message(erased[0], left),
                               details={"token": token, "unfinished_forget": erased[0], "payloads": left})
            raise NotFound(erased_message(erased[0]), details={"token": token, "erased": erased[0]})
        hint = ""
        if len(token) < MIN_SHORT_PREFIX:
            hint = (f" (a prefix of the short id needs at least {MIN_SHORT_PREFIX} characters; "
                    "the handoff list shows them)")
        elif len(token) < MIN_PREFIX and handoffs.begins_a_full_id(runner.db, token):
            hint = (f" (a prefix of the full id needs at least {MIN_PREFIX} characters, a prefix of the "
                    f"8-character short id, which ends the full id, {MIN_SHORT_PREFIX}: the handoff list shows both)")
        raise NotFound(f"no handoff matches {token!r}{hint}", details={"token": token})
    listed = "\n".join("  " + _candidate(m).line() for m in matches)
    more = f"\n  ... and {count - _MAX_LISTED} more" if count > _MAX_LISTED else ""
    raise AmbiguousId(
        f"{token!r} matches {count} handoffs; give more of the id:\n{listed}{more}",
        details={"token": token, "candidates": [m.id for m in matches], "matches": count},
    )


def not_yet(project: Any, token: str, as_of: str, missing: NotFound) -> NotFound:
    """The error for a ``token`` no handoff matched in the replay up to ``as_of``:
    when it names a handoff now, that this one did not exist yet at that point
    (it was captured later), rather than that no handoff matches; else ``missing``."""
    if (token or "").strip().lower() == LATEST:
        return missing
    try:
        now = resolve_handoff_id(project.reading(), token)
    except (NotFound, AmbiguousId, InputError):
        return missing
    return NotFound(f"handoff {short_id(now)} did not exist yet at {as_of} (it was captured later; "
                    "a later point shows it)", details={"token": token, "as_of": as_of, "id": now})


def refuse_latest(token: str | None, action: str, what: str) -> None:
    """``latest`` names the newest *ready* handoff: it can never be what ``action`` takes.

    Raises:
        InputError: the token is ``latest``.
    """
    if (token or "").strip().lower() == LATEST:
        raise InputError(f"'latest' names the newest ready handoff, which cannot be what {action} takes "
                         f"({what}): give its id (the handoff list shows them)", details={"token": token})


def load_handoff(runner: Any, token: str, *, here: Place | None = None):
    """Resolve ``token`` and read the record as a model (``Handoff``).

    Raises:
        NotFound, AmbiguousId, InputError: as ``resolve_handoff_id``.
    """
    # ``__import__``: the record model is loaded by the commands that read a record as one, not by ``resume``.
    model = __import__("baton.domain.handoff", fromlist=["stored_handoff"])
    return model.stored_handoff(_stored_doc(runner, token, here))


def load_record_view(runner: Any, token: str, *,
                     here: Place | None = None) -> tuple[Any, dict[str, Any]]:
    """Resolve ``token``: the record read as ``resume`` reads it (``record_view.read_record``: value
    classes, not the model), and its JSON as the index holds it (a new object), which is what
    ``handoff_to_json`` of the model gives, without writing it again.

    Raises:
        NotFound, AmbiguousId, InputError: as ``resolve_handoff_id``.
        HandoffInputError: the index holds a document that is not a record.
    """
    doc = _stored_doc(runner, token, here)
    return read_record(doc), doc


def _stored_doc(runner: Any, token: str, here: Place | None) -> dict[str, Any]:
    handoff_id = resolve_handoff_id(runner, token, here=here)
    doc = runner.get("handoffs", handoff_id)
    if doc is None:  # pragma: no cover - resolve_handoff_id read the same docs
        raise NotFound(f"handoff {handoff_id} not found")
    return doc
