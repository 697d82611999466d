"""Session batons: the pure rules (session-handoff-baton.txt).

A baton is a single-use, forward-looking transfer from one session to the next
on the same owner and branch (or, when shared, to anyone). This module holds
everything about batons that needs no disk, clock or git: parsing and
filtering the payload, the file/stream key encoding, which baton a session is
eligible for, the Markdown a session receives, and the byte-budgeted bootstrap
brief. Times and identities are parameters.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping  # not typing's: isinstance through its alias costs twice as much

from baton.domain.freshness_states import (
    FRESH,
    NOT_CHECKED,
    PARTIALLY_STALE,
    STALE,
    drift_listed,
    head_change,
    not_checked_words,
)
from baton.domain.percent import quote, unquote
from baton.domain.short_ids import id_key, short_id
from baton.values import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (baton/values.py)
if TYPE_CHECKING:
    from typing import Any, Callable, Container, Iterable, Sequence, TypeVar

    _Item = TypeVar("_Item")

SHARED_KEY = "_shared"
"""The one key (stream ``baton/_shared``, file ``_shared.json``) of shared batons."""

KEY_PART_MAX = 120
KEY_SEPARATOR = "__"
STEPS_REQUIRED = "handoff.nextSteps must contain at least one non-empty step."
HANDOFF_HEADING = "## 🤝 Active Session Handoff"
OBJECTIVE_HEADING = "## 🎯 Session Objective"
DECISIONS_HEADING = "## Recent decisions"
TRAPS_HEADING = "## ⚠️ Traps — do not retry"
DEFAULT_MAX_BYTES = 8192
MAX_MAX_BYTES = 16 * 1024 * 1024
"""A session-start brief larger than this would not fit any context window."""

PENDING = "pending"
CLAIMED = "claimed"
SUPERSEDED = "superseded"
CANCELLED = "cancelled"
DISMISSED = "dismissed"
STATUSES = (PENDING, CLAIMED, SUPERSEDED, CANCELLED, DISMISSED)
RESUMED_VIA = "resumed"
"""A dismissal's ``via`` when the handoff the baton carries was resumed another way
(``settled_by_resume``): the baton is settled, and its owner told once."""
SUPERSEDED_UNSEEN = "superseded-unseen"
"""How a listing shows a baton superseded before anyone on its key saw it (``superseded_unseen``)."""

# -- the command line's list flags ---------------------------------------------

def split_flag_list(text: str | Sequence[str] | None) -> list[str] | None:
    """A list flag's items; None when the flag was not given.

    Given once (``"A,B"``), it is split on commas, ``\\,`` standing for a
    comma inside an item; given several times (a sequence of values), each
    value is one item, commas and all. Entries are not filtered here:
    ``parse_payload`` filters and decides.
    """
    if text is None:
        return None
    if not isinstance(text, str):
        values = list(text)
        if len(values) != 1:
            return values
        text = values[0]
    return [part.replace("\x00", ",") for part in text.replace("\\,", "\x00").split(",")]


# -- keys ----------------------------------------------------------------------

_ENCODED: dict[str, str] = {}
"""``_encode_uri_component``'s answers so far (a replay encodes the same few
owners and branches for every session, objective and baton event: ~1.5 µs
each through ``quote``); emptied when it holds ``_ENCODED_KEPT``."""
_ENCODED_KEPT = 4096


def _encode_uri_component(text: str) -> str:
    encoded = _ENCODED.get(text)
    if encoded is None:
        if len(_ENCODED) >= _ENCODED_KEPT:
            _ENCODED.clear()
        encoded = _ENCODED[text] = quote(text, safe="-_.!~*'()")
    return encoded


def encode_key_part(value: str) -> str:
    """One side of a baton file name: slashes become ``_``, the rest is
    percent-encoded as JavaScript's ``encodeURIComponent`` does, capped at 120
    characters.

    A name longer than the cap keeps a prefix and ends with ``~`` and a short
    digest of the whole name, so two long branches that share their first 120
    characters still get different files (git forbids ``~`` in branch names,
    so a real branch never looks like a capped one).
    """
    plain = value.replace("/", "_")
    encoded = _encode_uri_component(plain)
    if len(encoded) <= KEY_PART_MAX:
        return encoded
    digest = hashlib.sha256(value.encode("utf-8")).hexdigest()[:12]
    room = KEY_PART_MAX - len(digest) - 1
    cut = ""
    for ch in plain:  # whole characters only: never half a UTF-8 sequence
        piece = _encode_uri_component(ch)
        if len(cut) + len(piece) > room:
            break
        cut += piece
    return f"{cut}~{digest}"


def context_key(owner: str, branch: str) -> str:
    """``{encodedOwner}__{encodedBranch}``: the key of a private baton and of an objective."""
    return f"{encode_key_part(owner)}{KEY_SEPARATOR}{encode_key_part(branch)}"


def session_doc_key(writer: str, session_id: str) -> str:
    """The key of the session ``session_id`` of the clone ``writer``: ``<writer>/<id>``
    (neither holds a ``/``, so no two pairs share one). Here, not with the session
    aggregate: a read finds a session's document without defining event classes."""
    return f"{writer}/{session_id}"


def objective_doc_key(owner: str, branch: str) -> str:
    """The key of the objective document of exactly ``owner`` and ``branch``:
    their stream's key (``context_key``), then ``/`` and each name
    percent-encoded whole (its ``/`` too, as ``%2F``), e.g.
    ``alice%40example.com__feature_x/alice%40example.com/feature%2Fx``.

    ``feature/x`` and ``feature_x`` share a key, so an objective stream
    (``objective/<key>``), but not this: each keeps its own objective. No
    stream key holds a ``/``, so this never equals one (an old event without
    its names folds under its stream's key)."""
    return f"{context_key(owner, branch)}/{_encode_uri_component(owner)}/{_encode_uri_component(branch)}"


def baton_key(owner: str, branch: str, shared: bool) -> str:
    """The key of a baton (its stream ``baton/<key>`` and its index document): ``_shared``, or
    ``context_key`` of an e-mail owner letter-folded first (``owner_match_key``: before a long
    owner is capped, so its spellings share one hash), so one person's batons on one branch
    share one key whatever the letter case their e-mail was given in."""
    return SHARED_KEY if shared else index_key(context_key(owner_match_key(owner), branch))


def index_key(key: str) -> str:
    """The baton index's document for the baton stream ``baton/<key>``: ``key`` with its owner
    side case-folded when that is an e-mail address (``owner_match_key``: ``Bob@Ex.com`` and
    ``bob@ex.com`` are one person), read from the key itself — so every event of a stream, a
    forgotten one (whose data is erased) or one of an unknown type too, folds into one document,
    and the streams older Batons wrote per letter case (``baton/Bob%40Ex.com__main``) fold into
    the one new batons are written to (``baton/bob%40ex.com__main``). The owner side ends at the
    first ``__``; any other key (``_shared``, an owner without ``@``) is returned as it is."""
    owner_part, sep, branch_part = key.partition(KEY_SEPARATOR)
    if not sep or "%40" not in owner_part:
        return key
    owner = unquote(owner_part)
    folded = owner_match_key(owner)
    return key if folded == owner else f"{encode_key_part(folded)}{KEY_SEPARATOR}{branch_part}"


def baton_stream(key: str) -> str:
    return f"baton/{key}"


def objective_stream(key: str) -> str:
    return f"objective/{key}"


def session_stream(session_id: str) -> str:
    return f"session/{session_id}"


FILE_STEM_MAX = 120
"""The longest materialized file stem: with the hash suffix, ``.json`` and a
temporary-file prefix a name stays far below every file system's 255 bytes."""


def bounded_file_stem(key: str) -> str:
    """``key`` as a file name stem of at most ``FILE_STEM_MAX`` characters
    plus, for a longer key, ``~`` and 12 hex digits of the whole key's sha256.

    A key is ASCII already (owners and branches are percent-encoded, each part
    capped at 120 characters), but two capped parts and the separator reach
    ~245 characters: with a suffix and a temporary prefix that is past the
    255-byte limit of ext4, APFS and NTFS (issue 9: "File name too long"
    after the events were appended). The cut never splits a ``%XX`` escape,
    and two long keys sharing their first 120 characters still differ.
    """
    if len(key) <= FILE_STEM_MAX:
        return key
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]
    cut = key[:FILE_STEM_MAX]
    escape = cut.rfind("%", len(cut) - 2)
    if escape != -1:
        cut = cut[:escape]
    return f"{cut}~{digest}"


def baton_file(key: str) -> str:
    """Where the materialized baton lives, relative to ``.baton/`` (a bounded name)."""
    return f"batons/{bounded_file_stem(key)}.json"


# -- records -----------------------------------------------------------------

def _strings(value: Any) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)):
        return ()
    return tuple(item for item in value if isinstance(item, str) and item.strip())


def _opt_str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None



def owner_match_key(owner: str) -> str:
    """The form two owners are compared in (``same_owner``): an e-mail address (``name@domain``)
    with its ASCII letters lower-cased whole (``_ASCII_LOWER``) — its domain is case-insensitive by RFC 5321, and as git's mailmap does
    (and as every common mail provider treats the local part) its local part too, so
    ``Bob@Ex.com`` and ``bob@ex.com`` are one person; any other owner as it is."""
    text = owner.strip()
    return text.translate(_ASCII_LOWER) if "@" in text else owner


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
"""ASCII letters to lower case, nothing else (as ``gitdir/i`` folds): ``str.casefold`` would
make ``straße@ex.com`` and ``strasse@ex.com``, two mailboxes, one owner."""


def same_owner(a: str, b: str) -> bool:
    """Whether the owners ``a`` and ``b`` are one person (``owner_match_key``); the stored text
    stays as given."""
    return owner_match_key(a) == owner_match_key(b)


def yours_to_end(owner: str, left_by: str | None, by: str) -> bool:
    """Whether ``by`` may end a baton for ``owner`` left by ``left_by`` (``None``: not known) without
    overriding: it is left for ``by``, or ``by`` left it (``same_owner``). The rule a dismissal, a
    cancellation and a resume's settling of a pending baton share (``aggregates.baton.may_dismiss``,
    ``settled_by_resume``): a teammate's baton is theirs (session-handoff-baton.txt: batons are owner/branch
    isolated so that teammates cannot take each other's context)."""
    return same_owner(owner, by) or (left_by is not None and same_owner(left_by, by))


def left_pending_line(record: "BatonRecord") -> str:
    """What ``resume --mark-resumed`` says of a teammate's pending baton carrying the handoff it
    resumed, which it left pending (``settled_by_resume``)."""
    left = f", left by {shown_name(record.left_by)}" if record.left_by else ""
    return (f"The pending baton {record.id} for {shown_name(record.owner)} on {shown_name(record.branch)}{left} "
            f"carries this handoff and stays pending: it is theirs, and their next session start receives it.")


def waits_for_them_line(record: "BatonRecord") -> str:
    """What a session start that claimed its baton says, in one line, of a teammate's pending baton
    carrying the same handoff, which the claim left pending (``left_to_their_owner``): whose it is and
    that it waits for them, never its content (a private baton is its owner's alone:
    session-handoff-baton.txt, "never sees or consumes a private baton")."""
    left = f", left by {shown_name(record.left_by)}" \
        if record.left_by and not same_owner(record.left_by, record.owner) else ""
    whose = f"The shared baton left by {shown_name(record.owner)}" if record.shared else \
        f"A baton for {shown_name(record.owner)} on {shown_name(record.branch)}{left}"
    return f"{whose} carries this handoff too and waits for them: it is theirs, so this start neither claimed it nor shows it."


def waiting_for_them_json(record: "BatonRecord") -> dict[str, Any]:
    """A teammate's baton a claim left pending (``waits_for_them_line``) as ``--json`` names it:
    whose it is and where, never its steps."""
    return {"id": record.id, "owner": record.owner, "branch": record.branch, "shared": record.shared,
            "leftBy": record.left_by}


class BatonRecord(Value):
    """A baton as the index keeps it: the spec's HandoffRecord plus a status.

    ``id`` is the id of the handoff record that carries the baton's content.
    """

    id: str
    key: str
    owner: str
    branch: str
    shared: bool
    next_steps: tuple[str, ...]
    failed_approaches: tuple[str, ...] = ()
    open_questions: tuple[str, ...] = ()
    harness: str | None = None
    session_id: str | None = None
    created_at: str = ""
    status: str = PENDING
    claimed_at: str | None = None
    claimed_by_session: str | None = None
    superseded_by: str | None = None
    ended_at: str | None = None
    """When it was cancelled or dismissed."""
    left_by: str | None = None
    """Who left it: the git identity (``actor``) of its ``baton.created`` event, when recorded."""
    ended_by: str | None = None
    """Who cancelled or dismissed it: that event's ``actor``, when recorded."""
    ended_by_writer: str | None = None
    """The writer (clone) whose feed holds the event that cancelled or dismissed it."""
    ended_via: str | None = None
    """How it was dismissed (the event's ``via``: ``cli``, ``archive``, ``resumed``, …), when recorded."""
    ended_by_session: str | None = None
    """The session that dismissed it (the event's ``session``; with ``via`` ``resumed``: the session that
    resumed its handoff), when recorded."""
    ended_with_resume: bool = False
    """Dismissed in the batch of the resume of its handoff (on the dismissing writer's clone), not met
    at a session start after a resume made apart."""
    replaced_unseen: tuple[dict[str, Any], ...] = ()
    """The pending batons of this key this one superseded although whoever left it never saw them
    (left on another replica while this one was apart: ``baton sync``), or that another session
    left and nobody read (``unread``: two terminals on one branch, a resumed conversation), each
    ``unseen_summary``; with the ones the baton it superseded had named (none is lost silently)."""
    stream_key: str | None = None
    """The key of the stream its ``baton.created`` is on when that is not ``key``'s: a baton an
    older Baton left for an e-mail owner as spelled (``Bob%40Ex.com__main``, folded into
    ``bob%40ex.com__main``: ``index_key``). Its claim, cancellation or dismissal is written there,
    where that older Baton reads it against its baton (``event_key``)."""
    missed_unseen: tuple[dict[str, Any], ...] = ()
    """Of ``replaced_unseen``, those the session that claimed this baton was never told of: they
    arrived (``baton sync``) after the claim, so no brief named them (``missed_by_claim``). Named
    by the next brief for this owner and branch, once, and listed until then; a newer baton of
    the key names them in its ``replaced_unseen``."""

    @property
    def claimed(self) -> bool:
        return self.status == CLAIMED

    @property
    def event_key(self) -> str:
        """The key of the stream an event about this baton is written to: its ``baton.created``'s."""
        return self.stream_key or self.key

    @property
    def pending(self) -> bool:
        return self.status == PENDING

    def to_json(self) -> dict[str, Any]:
        """The spec's HandoffRecord field names, plus ``status``, ``key`` and ``handoffId``."""
        return {
            "id": self.id,
            "handoffId": self.id,
            "key": self.key,
            "owner": self.owner,
            "branch": self.branch,
            "shared": self.shared,
            "nextSteps": list(self.next_steps),
            "failedApproaches": list(self.failed_approaches),
            "openQuestions": list(self.open_questions),
            "harness": self.harness,
            "sessionId": self.session_id,
            "createdAt": self.created_at,
            "status": self.status,
            "claimed": self.claimed,
            "claimedAt": self.claimed_at,
            "claimedBySession": self.claimed_by_session,
            "supersededBy": self.superseded_by,
            "endedAt": self.ended_at,
            **({"leftBy": self.left_by} if self.left_by else {}),
            **({"endedBy": self.ended_by} if self.ended_by else {}),
            **({"endedByWriter": self.ended_by_writer} if self.ended_by_writer else {}),
            **({"endedVia": self.ended_via} if self.ended_via else {}),
            **({"endedBySession": self.ended_by_session} if self.ended_by_session else {}),
            **({"endedWithResume": True} if self.ended_with_resume else {}),
            **({"replacedUnseen": [dict(u) for u in self.replaced_unseen]} if self.replaced_unseen else {}),
            **({"missedUnseen": [dict(u) for u in self.missed_unseen]} if self.missed_unseen else {}),
            **({"streamKey": self.stream_key} if self.stream_key else {}),
        }

    @classmethod
    def from_json(cls, raw: Any) -> "BatonRecord | None":
        """Read a record back; None when it is malformed (never raises)."""
        if not isinstance(raw, Mapping):
            return None
        ident, key, owner, branch = (raw[k] if isinstance(raw.get(k), str) else ""
                                     for k in ("id", "key", "owner", "branch"))
        if not all((ident, key, owner, branch)):
            return None
        status = raw["status"] if raw.get("status") in STATUSES else PENDING
        steps = _strings(raw.get("nextSteps"))
        if not steps:
            return None
        return cls(
            id=ident, key=key, owner=owner, branch=branch, shared=raw.get("shared") is True,
            next_steps=steps,
            failed_approaches=_strings(raw.get("failedApproaches")),
            open_questions=_strings(raw.get("openQuestions")),
            harness=_opt_str(raw.get("harness")),
            session_id=_opt_str(raw.get("sessionId")),
            created_at=raw["createdAt"] if isinstance(raw.get("createdAt"), str) else "",
            status=status,
            claimed_at=_opt_str(raw.get("claimedAt")),
            claimed_by_session=_opt_str(raw.get("claimedBySession")),
            superseded_by=_opt_str(raw.get("supersededBy")),
            ended_at=_opt_str(raw.get("endedAt")),
            left_by=_opt_str(raw.get("leftBy")),
            ended_by=_opt_str(raw.get("endedBy")),
            ended_by_writer=_opt_str(raw.get("endedByWriter")),
            ended_via=_opt_str(raw.get("endedVia")),
            ended_by_session=_opt_str(raw.get("endedBySession")),
            ended_with_resume=raw.get("endedWithResume") is True,
            replaced_unseen=_summaries(raw.get("replacedUnseen")),
            missed_unseen=_summaries(raw.get("missedUnseen")),
            stream_key=_opt_str(raw.get("streamKey")),
        )


def _summaries(raw: Any) -> tuple[dict[str, Any], ...]:
    """``replacedUnseen`` or ``missedUnseen`` read back: each summary that names an id."""
    return tuple(dict(u) for u in raw if isinstance(u, Mapping) and isinstance(u.get("id"), str)) \
        if isinstance(raw, list) else ()


UNSEEN_FIELDS = ("id", "owner", "branch", "shared", "createdAt", "sessionId", "harness")

REPLACED_KEPT = 5
"""Batons superseded unseen or unread one baton names (its own and those the one it replaced named)."""


RECORD_ONLY_STATUSES = frozenset({"archived", "superseded"})
"""A handoff's statuses ``baton resume`` refuses: a notice naming it then names ``baton handoff show``
(docs/batons.md, "Where a notice sends you")."""


def record_only(status: Any) -> bool:
    """Whether a handoff of ``status`` (its status in the index now; None when not there) is read
    only as the full record: ``baton resume`` refuses an archived or superseded one (exit 4)."""
    return status in RECORD_ONLY_STATUSES


def read_command(handoff_id: str, status: Any = None) -> str:
    """The command a notice names to read ``handoff_id`` whose handoff's status is ``status``:
    ``baton resume ID`` (the brief, to go on), or ``baton handoff show ID`` once ``baton resume``
    refuses it (``record_only``)."""
    return f"baton {'handoff show' if record_only(status) else 'resume'} {handoff_id}"


def read_words(shown: str, status: Any) -> str:
    """How a line about a replaced baton (``shown``: its id as shown) says to read it: resume first (the brief), the full record
    beside it — or, once its handoff is archived or superseded (``record_only``), the record alone."""
    if record_only(status):
        return f"its handoff is {_shown(status)} now, so `baton handoff show {shown}` reads it (the full record)"
    return f"read it with `baton resume {shown}` (or `baton handoff show {shown}`)"


def unseen_summary(record: BatonRecord, *, unread: bool = False) -> dict[str, Any]:
    """What a baton superseded unseen is remembered by (``BatonRecord.replaced_unseen``): its
    ``UNSEEN_FIELDS``, its first next step (``firstStep``) and, when it was replaced on this very
    clone although nobody read it (``superseded_unread``), ``unread``."""
    raw = record.to_json()
    return {**{k: raw.get(k) for k in UNSEEN_FIELDS}, "firstStep": record.next_steps[0] if record.next_steps else None,
            **({"unread": True} if unread else {})}


def superseded_unread(current: BatonRecord | None, new: BatonRecord) -> bool:
    """Whether a new baton replaces the key's pending ``current`` baton that another session left
    and no session has read (spec: a newer baton supersedes the older — two terminals on one
    branch, a resumed conversation that never received it): the new baton names it, so the brief
    that delivers the new one and the end that left it say so. Not when the same session leaves a
    baton again (it replaces its own), nor when neither baton names a session (nothing says they
    differ), nor when a baton replaces itself."""
    return (current is not None and current.pending and current.id != new.id
            and current.session_id != new.session_id)


def superseded_unseen(supersedes: Any, current: BatonRecord | None, new_id: str) -> bool:
    """Whether a new baton (``new_id``) replaces the key's pending ``current`` baton without its
    writer having seen it: the ``baton.created`` names the pending baton it supersedes as its writer
    read the key (``supersedes``), and two replicas apart each leave a baton on one key (``baton
    sync``) — the newer, in project order, names another one, or none. Not when both hand on the
    same handoff (two clones apart): a baton does not replace itself."""
    return current is not None and current.pending and current.id != new_id and supersedes != current.id


def missed_by_claim(record: BatonRecord, named: Any) -> tuple[dict[str, Any], ...]:
    """The batons ``record`` superseded unseen that the session claiming it was never told of: a
    claim records the ones its baton named when it was claimed (``named``: their ids, what that
    session's brief named), and a teammate's baton that a sync brings in after the claim sorts
    before it in project order (it was left earlier) — superseded by a baton already claimed, it
    would be named nowhere. A claim recorded before claims named them (``named`` not a list) is
    taken to have named them all."""
    if not isinstance(named, list):
        return ()
    return tuple(u for u in record.replaced_unseen if u.get("id") not in named)


# -- eligibility -----------------------------------------------------------------

def _newest(records: Iterable[BatonRecord]) -> BatonRecord | None:
    # UUIDv7 ids sort by creation, so they break createdAt ties deterministically.
    return max(records, key=lambda r: (r.created_at, r.id), default=None)


def select_eligible(records: Iterable[BatonRecord], owner: str, branch: str) -> BatonRecord | None:
    """The baton a session of ``owner`` on ``branch`` receives, if any.

    The newest unclaimed private baton of this owner (``same_owner``: an e-mail in any letter case)
    and exactly this branch; only
    when there is none, the newest unclaimed shared baton (whatever branch or
    owner left it). Matching compares the real owner and branch, never the
    encoded key, so two names that encode alike still never see each other's
    baton.
    """
    pending = [r for r in records if r.pending]
    own = _newest(r for r in pending if not r.shared and same_owner(r.owner, owner) and r.branch == branch)
    if own is not None:
        return own
    return _newest(r for r in pending if r.shared)


def active_for_context(records: Iterable[BatonRecord], owner: str, branch: str) -> BatonRecord | None:
    """The pending private baton of this owner and branch (what cancel removes)."""
    return _newest(
        r for r in records if r.pending and not r.shared and same_owner(r.owner, owner) and r.branch == branch
    )


# -- rendering -------------------------------------------------------------------

def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _one_line(text: str) -> str:
    return " ".join(text.split())


def shown_name(value: object) -> str:
    """A stored name (owner, branch, session id) as every output prints it: on one line
    (``_shown``). A default owner is held to ``--owner``'s rule now (``identity.resolve_owner``),
    but a ledger written before, or a teammate's synced feed, may hold a multi-line one."""
    return _shown(value)


def _shown(value: object) -> str:
    """A stored name (session id, harness, owner, branch, time, id) as the brief shows it: on one
    line. Names are refused with a line break when given (``identifiers.identifier_refusal``),
    but a ledger written before that may hold one, and a newline rendered raw would start a line
    of its own in the next session's brief — a heading, a next step nobody left."""
    return _one_line(str(value))


def unseen_lines(record: BatonRecord, left_by: Mapping[str, str] | None = None,
                 objectives: Mapping[str, str] | None = None,
                 statuses: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The lines a baton's section names each baton it superseded unseen with: its id, who left it
    (``left_by``: baton id → a writer or owner; else its session), its objective (``objectives``:
    baton id → the objective of the handoff it carries) and how to read it (``statuses``: baton id →
    its handoff's status now, ``read_command``)."""
    out = []
    for u in record.replaced_unseen:
        ident = str(u.get("id"))
        objective = (objectives or {}).get(ident)
        status = (statuses or {}).get(ident)
        shown = _shown(ident)
        if u.get("unread"):
            out.append(unread_line(u, objective, status))
            continue
        who = (left_by or {}).get(ident) or (f"session `{_shown(u['sessionId'])}`" if u.get("sessionId")
                                             else "another session")
        about = f", objective: {_clipped(objective)}" if objective else ""
        out.append(f"> ⚠️ This baton replaced baton `{shown}`, left by {_shown(who)} at "
                   f"{_shown(u.get('createdAt') or 'an unknown time')} {_for_whom(u)}{about}, which was never seen here (left on another "
                   f"clone while this one was apart). {_capital(read_words(shown, status))}.")
    return tuple(out)


def missed_notice(record: BatonRecord, unseen: Mapping[str, Any], left_by: str | None = None,
                  objective: str | None = None, status: str | None = None) -> str:
    """The brief's line naming a baton ``record`` superseded unseen after its claim
    (``missed_by_claim``): whose it was, when and for whom, what about, and how to read it
    (``status``: its handoff's status now, ``read_command``)."""
    shown = _shown(unseen.get("id"))
    who = left_by or (f"session `{_shown(unseen['sessionId'])}`" if unseen.get("sessionId") else "another session")
    about = f", objective: {_clipped(objective)}" if objective else ""
    by = f" by session `{_shown(record.claimed_by_session)}`" if record.claimed_by_session else ""
    return (f"Baton `{shown}`, left by {_shown(who)} at {_shown(unseen.get('createdAt') or 'an unknown time')} for "
            f"{scope_words(unseen)}{about}, arrived (by `baton sync`) after the newer baton `{_shown(record.id)}` "
            f"had been claimed{by}, so no brief named it; {read_words(shown, status)}.")


def collided_unseen(record: BatonRecord | None, owner: str, branch: str) -> list[dict[str, Any]]:
    """The batons for ``owner`` on ``branch`` that ``record`` — the current baton of their key, for
    *another* owner or branch whose names share the key (docs/batons.md "Names that share a key")
    — superseded unseen: left on two clones apart (``baton sync``), where one clone would have
    refused the second (``check_key_free``). No session of ``owner`` on ``branch`` receives them."""
    if record is None or record.shared or (same_owner(record.owner, owner) and record.branch == branch):
        return []
    return [u for u in record.replaced_unseen
            if u.get("shared") is not True and isinstance(u.get("owner"), str) and same_owner(u["owner"], owner)
            and u.get("branch") == branch]


def collided_notice(record: BatonRecord, unseen: Mapping[str, Any], left_by: str | None = None,
                    objective: str | None = None, status: str | None = None) -> str:
    """The line a start of the owner and branch of ``unseen`` is told of it (``collided_unseen``):
    whose it was, that the baton for another owner or branch sharing its key replaced it, and how
    to read it (``status``: its handoff's status now, ``read_command``)."""
    shown = _shown(unseen.get("id"))
    who = left_by or (f"session `{_shown(unseen['sessionId'])}`" if unseen.get("sessionId") else "another session")
    about = f", objective: {_clipped(objective)}" if objective else ""
    return (f"Baton `{shown}`, left by {_shown(who)} at {_shown(unseen.get('createdAt') or 'an unknown time')} for "
            f"{scope_words(unseen)}{about}, was replaced (by `baton sync`: the two were left on clones apart) by "
            f"baton `{_shown(record.id)}` for {scope_words({'owner': record.owner, 'branch': record.branch})}, "
            f"whose names share one baton key ({_shown(record.key)}), so no session of {scope_words(unseen)} "
            f"receives it; {read_words(shown, status)}.")


def scope_words(unseen: Mapping[str, Any]) -> str:
    """Whom a baton is for, as a listing names it: ``owner on branch``, or, for a shared baton
    (everyone's), ``shared (left on branch by owner)``."""
    owner, branch = _shown(unseen.get("owner")), _shown(unseen.get("branch"))
    return f"shared (left on {branch} by {owner})" if unseen.get("shared") is True else f"{owner} on {branch}"


def _for_whom(u: Mapping[str, Any]) -> str:
    """Whom a replaced baton was for, in a brief's line: an owner on a branch, or everyone (shared)."""
    if u.get("shared") is True:
        return f"as a shared baton (for every owner) on `{_shown(u.get('branch'))}`"
    return f"for `{_shown(u.get('owner'))}` on `{_shown(u.get('branch'))}`"


def unread_line(unseen: Mapping[str, Any], objective: str | None = None, status: str | None = None) -> str:
    """The line naming a baton this one replaced unread (``superseded_unread``): whose it was, what
    it was about (its handoff's ``objective``, else its first next step) and how to read it
    (``status``: its handoff's status now — archived or superseded, ``baton resume`` refuses it)."""
    shown = _shown(unseen.get("id"))
    session = unseen.get("sessionId")
    who = f"session `{_shown(session)}`" if session else "another session"
    if unseen.get("harness"):
        who += f" ({_shown(unseen['harness'])})"
    title = objective or unseen.get("firstStep")
    about = f" ({_clipped(str(title))})" if title else ""
    return (f"> ⚠️ This baton replaced an unread baton from {who}{about}, left at "
            f"{_shown(unseen.get('createdAt') or 'an unknown time')} and never delivered: "
            + (f"{read_words(shown, status)}." if record_only(status) else
               f"`baton resume {shown}` continues it (`baton handoff show {shown}` is the full record)."))


def replaced_unread_notice(unread: Mapping[str, Any]) -> str:
    """What leaving a baton says when it replaced an unread one (``superseded_unread``), in plain
    text: whose it was, its first next step, and how to read it (``handoffStatus``: its handoff's
    status as the baton was left, ``read_command``); the next session's brief names it too."""
    ident = _shown(unread.get("id"))
    status = unread.get("handoffStatus")
    session = unread.get("sessionId")
    who = f"session {_shown(session)}" if session else "another session"
    if unread.get("harness"):
        who += f" ({_shown(unread['harness'])})"
    step = unread.get("firstStep")
    about = f" ({_clipped(str(step))})" if step else ""
    return (f"It replaced an unread baton from {who}{about}, left at {_shown(unread.get('createdAt') or '?')}: "
            f"no session received it, and the brief of the next one names it. "
            + (f"Its handoff is {_shown(status)} now: `{read_command(ident, status)}` reads the full record."
               if record_only(status) else f"`{read_command(ident, status)}` reads it."))


WORKING_CONTEXT = "Treat it as working context, not unquestionable truth."
"""How a session takes the baton it receives (spec §12, as ``baton resume``'s preamble
says): a baton may come from a teammate through sync, while a harness presents hook
output as the user's."""


def render_baton_markdown(record: BatonRecord, *, freshness: str | None = None,
                          carried: Sequence[str] = (), unseen: Sequence[str] = (), unverified: str = "") -> str:
    """The section a session receives at the top of its brief.

    ``freshness`` is one line (see ``freshness_line``) shown right under who
    left the baton; ``carried`` are the lines of ``carried_handoff_lines``
    (the objective and state of a rich handoff handed on as this baton),
    shown under it. ``unseen``: the lines of ``unseen_lines`` (the batons this one superseded
    that whoever left it never saw), shown first. ``unverified``: the line saying its feed is
    not vouched for by a trusted key (``baton.domain.feed_vouch.FeedVouch.line``), shown right
    under who left it. All are part of the section, so the brief reserves them with the handoff
    and never trims them.
    """
    by = f"session `{_shown(record.session_id)}`" if record.session_id else "a previous session"
    if record.harness and _shown(record.harness):
        by += f" ({_shown(record.harness)})"
    if record.left_by and _shown(record.left_by):
        by += f" of `{_shown(record.left_by)}`"
    when = _shown(record.created_at or "an unknown time")
    owner, branch = _shown(record.owner), _shown(record.branch)
    if record.shared:
        scope = f"on `{branch}` by `{owner}`, shared with every owner and branch"
    else:
        scope = f"for `{owner}` on `{branch}`"
    lines = [
        HANDOFF_HEADING,
        "",
        f"Left by {by} at {when}, {scope} (baton `{_shown(record.id)}`). {WORKING_CONTEXT}",
        "",
    ]
    if unverified:
        lines += [_one_line(unverified), ""]
    if unseen:
        lines += [*unseen, ""]
    if freshness and freshness.strip():
        lines += [_one_line(freshness), ""]
    if carried:
        lines += [*carried, ""]
    lines += ["### Next steps"]
    lines += [f"{i}. {_one_line(step)}" for i, step in enumerate(record.next_steps, 1)]
    if record.failed_approaches:
        lines += ["", "### Failed approaches — do not retry"]
        lines += [f"- {_one_line(item)}" for item in record.failed_approaches]
    if record.open_questions:
        lines += ["", "### Open questions"]
        lines += [f"- {_one_line(item)}" for item in record.open_questions]
    return "\n".join(lines) + "\n"


CARRIED_TEXT_MAX = 400
"""Characters of a carried handoff's objective or current state shown in the baton section."""


def _clipped(text: str) -> str:
    one = _one_line(text)
    return one if len(one) <= CARRIED_TEXT_MAX else one[:CARRIED_TEXT_MAX - 1].rstrip() + "…"


def clipped_text(text: str) -> str:
    """``text`` on one line, clipped as a baton section clips what it carries (``CARRIED_TEXT_MAX``)."""
    return _clipped(text)


def unseen_left_by(unseen: Mapping[str, Any]) -> str:
    """Who left a baton superseded unseen, in plain text (``unseen_details``: its ``writer``, else
    its session): what ``unseen_lines`` says in Markdown."""
    session = unseen.get("sessionId")
    if unseen.get("writer"):
        return f"writer {unseen['writer']}" + (f" (session {session})" if session else "")
    return f"session {session}" if session else "another session"


def handoff_objective(record: Any) -> str | None:
    """The objective of a handoff record (the index's document), or None."""
    work = record.get("work") if isinstance(record, Mapping) else None
    objective = work.get("objective") if isinstance(work, Mapping) else None
    return objective if isinstance(objective, str) and objective.strip() else None


def carried_handoff_lines(record: Mapping[str, Any] | None) -> tuple[str, ...]:
    """What a baton section adds when the baton hands on a rich handoff.

    A baton scoped from a handoff the session captured (``handoff baton``, or
    the end hook handing on the session's ready handoff) carries only next
    steps, failed approaches and open questions; the handoff also says what
    the work is for and where it stands. Those two lines, clipped, and where
    the rest is: so the next session starts knowing the objective, not only
    the steps. A baton written from a session-end payload (it carries the
    scope field) has nothing more to say, and a missing or malformed record
    gives nothing.
    """
    if not isinstance(record, Mapping) or is_session_baton(record):
        return ()
    lines: list[str] = []
    work = record.get("work")
    objective = work.get("objective") if isinstance(work, Mapping) else None
    if isinstance(objective, str) and objective.strip():
        lines.append(f"**Objective:** {_clipped(objective)}")
    summary = record.get("summary")
    state = summary.get("current_state") if isinstance(summary, Mapping) else None
    if isinstance(state, str) and state.strip():
        lines.append(f"**Current state:** {_clipped(state)}")
    handoff_id = record.get("id")
    if lines and isinstance(handoff_id, str) and handoff_id:
        successor = record.get("superseded_by")
        if record.get("status") == "superseded" and isinstance(successor, str) and successor:
            # Amended (or continued) since it was handed on: the lines above are
            # the old version, and `baton resume` of it would be refused.
            lines.append(f"Superseded since it was handed on: the current version is `baton resume "
                         f"{short_id(successor)}` (its state, decisions, artifacts, evidence and risks).")
        elif record.get("status") == "archived":
            lines.append(f"Archived since it was handed on: `baton handoff show {short_id(handoff_id)}` "
                         "has the record.")
        else:
            lines.append("Completed work, decisions, artifacts, evidence and risks: "
                         f"`baton resume {short_id(handoff_id)}`.")
    return tuple(lines)


def freshness_line(report: Any, handoff_id: str) -> str | None:
    """One line on whether the world moved since a delivered handoff was captured.

    ``report`` is the handoff's live ``FreshnessReport`` (§10b). None when the
    handoff recorded no repository head: there is nothing to compare, and a
    baton left outside git says nothing about code it never saw.
    """
    if not report.captured_head:
        return None
    short = short_id(handoff_id)
    captured = report.captured_head[:12]
    check = f"re-check before acting (`baton resume {short}` has the details)."
    flagged = _flagged_evidence_words(report)
    if report.state == FRESH and flagged:
        return (f"> ⚠️ **Freshness: fresh** — repository head `{captured}` is unchanged since this handoff was "
                f"captured{flagged}; {check}")
    if report.state == FRESH:
        return f"Freshness: fresh — repository head `{captured}` is unchanged since this handoff was captured."
    unchecked = not_checked_words(report.drift, short)
    drift = tuple(d for d in report.drift if d.detail != NOT_CHECKED)
    drifted = f"; drifted artifact{'s' if len(drift) != 1 else ''}: {drift_listed(drift)}" if drift else ""
    drifted += unchecked
    if report.state == STALE and report.head_moved:
        return f"> ⚠️ **Freshness: STALE** — {head_change(report, '`')}{drifted}{flagged}; {check}"
    if report.state == STALE:
        why = "changes since capture could not be classified" if drift else \
            f"the repository head `{captured}` is unchanged, but not every artifact was checked"
        return f"> ⚠️ **Freshness: STALE** — {why}{drifted}{flagged}; {check}"
    if report.state == PARTIALLY_STALE:
        return (f"> ⚠️ **Freshness: PARTIALLY STALE** — the repository head is unchanged, but "
                f"{len(drift)} referenced artifact{'' if len(drift) == 1 else 's'} changed since capture: "
                f"{drift_listed(drift)}{flagged}; {check}")
    reason = report.reasons[0] if report.reasons else "it could not be evaluated"
    return f"> ⚠️ **Freshness: unknown** — {_one_line(reason)}; {check}"


def _flagged_evidence_words(report: Any) -> str:
    """``; commit evidence E1 (`abc123`) is not in the history of HEAD`` for each
    commit evidence whose commit is missing or not in HEAD's history; empty when none."""
    words = {"missing": "is not in this repository", "unreachable": "is not in the history of HEAD",
             "unknown": "may not be in the history of HEAD (too much history to walk)"}
    return "".join(f"; commit evidence {_one_line(e.id)} (`{e.ref[:12]}`) {words[e.reach]}"
                   for e in getattr(report, "commit_evidence", ()) if e.reach in words)


def render_objective_markdown(objective: str) -> str:
    return f"{OBJECTIVE_HEADING}\n\n{objective.strip()}\n"


def objective_stands_notice(holder: str, harness: str | None = None) -> str:
    """What a session's start without an objective, or its end, says when it left the objective of
    another session, still open, standing (``aggregates.session.keeps_objective``; ``holder``: that
    session's id, ``harness`` its harness when known); and what a start's brief says above that
    objective, so it reads as that other session's, not this one's."""
    by = f"{holder} ({harness})" if harness else holder
    return (f"The objective session {by} set for this owner and branch stands: that session is still open, "
            "and its own end retires it.")


LATEST_HEADING = "## Latest ready handoff"
LATEST_TITLE_MAX = 120


def lost_claim_reason(winner: Mapping[str, Any]) -> str:
    """Why a claim made apart lost, from the baton's state it met in
    project order (a lost claim's ``winner``): another replica's earlier
    claim, or the baton superseded, cancelled or dismissed there first."""
    status = winner.get("status")
    if status == SUPERSEDED:
        newer = winner.get("supersededBy")
        return f"it had been superseded by baton {newer} first" if newer else "it had been superseded first"
    if status in (CANCELLED, DISMISSED):
        return f"it had been {status} first"
    by = winner.get("claimedBySession")
    return f"session {by} claimed it first" if by else "another claim came first"


SEE_BATON = "`baton resume {id}` reads it"
"""Where the baton a start's notice (``lost_claim_notices``, ``left_here_for_another_owner``)
is about is seen, as a surface that passes no wording of its own (a harness's start hook, the
library) says it: a command without options. ``{id}``: the baton. Each surface passes its own
(``see_baton``), as ``too_big_notice``'s ``budget`` spells ``max_bytes``: the command line its
options, the MCP server its tools and arguments; the domain names neither."""
BEGIN_AS = "`baton session begin` with {owner} as its owner claims it"
"""How a session of ``{owner}`` (not this session's owner) claims a baton left for them
(``left_here_for_another_owner``; each surface passes its own, ``begin_as``)."""


def lost_claim_notices(conflicts: Iterable[Mapping[str, Any]], *, writer: str,
                       told: Iterable[str], see_baton: str = SEE_BATON,
                       statuses: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """The lost claims this clone has not been told of yet: ``(event id, notice)``
    for each claim its own writer made that lost to another replica's (the
    ``conflicts`` of the baton index, after ``baton sync``), oldest first.
    ``statuses``: handoff id → its status now; an archived or superseded one (a teammate's archive
    dismissed the baton) is read with ``baton handoff show`` (``read_command``), not ``see_baton``.

    A lost claim is told once, at the losing clone's next session start: the
    caller records the event ids it showed and passes them back as ``told``."""
    seen = set(told)
    out = []
    for c in sorted((c for c in conflicts if isinstance(c, Mapping)),
                    key=lambda c: (c.get("hlc") if isinstance(c.get("hlc"), int) else 0, str(c.get("eventId")))):
        event_id = c.get("eventId")
        if c.get("writer") != writer or not isinstance(event_id, str) or event_id in seen:
            continue
        seen.add(event_id)
        winner = c["winner"] if isinstance(c.get("winner"), Mapping) else {}
        if winner.get("status") in (SUPERSEDED, CANCELLED, DISMISSED):
            newer = winner.get("supersededBy")
            after = (f"; baton {newer} is the current one" if newer else "") + \
                ", so this session worked from a baton that was no longer pending"
            when = ""
        else:
            after, when = "; the earlier claim holds everywhere, so two sessions worked from this baton", \
                f" (at {winner.get('claimedAt')})"
        out.append((event_id, f"Claim conflict: baton {c.get('handoffId')} was claimed here by session "
                              f"{c.get('sessionId')} at {c.get('claimedAt')}, but on another clone "
                              f"{lost_claim_reason(winner)}{when}{after}. "
                              f"{_sentence(_see_claimed(see_baton, str(c.get('handoffId')), statuses))}"))
    return out


def _see_claimed(see_baton: str, handoff_id: str, statuses: Mapping[str, str] | None) -> str:
    """``see_baton`` for ``handoff_id``, or, its handoff archived or superseded now, the record's command."""
    status = (statuses or {}).get(handoff_id)
    return _reads_it(handoff_id, status) if record_only(status) else see_baton.format(id=handoff_id)


def left_here_for_another_owner(records: Iterable[BatonRecord], creators: Mapping[str, str],
                                session_owners: Mapping[str, str], *, writer: str, owner: str, branch: str,
                                told: Iterable[str], see_baton: str = SEE_BATON,
                                begin_as: str = BEGIN_AS) -> list[tuple[str, str]]:
    """The pending private batons on ``branch`` that this clone's sessions left
    for themselves under an owner other than this session's, not told of yet:
    ``(baton id, notice)``, oldest first.

    ``creators`` maps a baton's id to the writer that created it;
    ``session_owners`` a session id to the owner that session had. The case it
    is for: the same person's owner resolved differently before — a baton
    left under a plain ``user.email`` before Baton honoured an ``includeIf``
    in the user's git config, or before that email changed — which no session
    of theirs receives any more. A baton a teammate's clone left is never
    named (its writer is another), nor one left here for someone else on
    purpose (for another owner than its session's, or scoped from a handoff
    with no session); each is told once (the caller records the ids shown and
    passes them back as ``told``)."""
    seen = set(told)
    out = []
    for r in sorted(records, key=lambda r: (r.created_at, r.id)):
        if (not r.pending or r.shared or r.branch != branch or same_owner(r.owner, owner) or r.id in seen
                or creators.get(r.id) != writer or r.session_id is None
                or session_owners.get(r.session_id) != r.owner):
            continue
        seen.add(r.id)
        out.append((r.id, f"A baton this clone left for {_shown(r.owner)} on {_shown(r.branch)} (baton {r.id}, at "
                          f"{r.created_at}) is pending, but this session's owner here is {_shown(owner)}, so it was not "
                          f"delivered. If both are you (your git config changed, or an includeIf in it now applies), "
                          f"{begin_as.format(owner=_shown(r.owner), id=r.id)}; otherwise it waits for "
                          f"{_shown(r.owner)}. {_sentence(see_baton.format(id=r.id, owner=_shown(r.owner)))}"))
    return out


def _sentence(text: str) -> str:
    """``text`` as a sentence: its first letter a capital (a command in backticks stays as it is), a full stop."""
    return (text[:1].upper() + text[1:] if text[:1].isalpha() else text) + "."


def dismissed_elsewhere(records: Iterable[BatonRecord], *, writer: str, owner: str,
                        told: Iterable[str], lost_claims: Iterable[Mapping[str, Any]] = (),
                        statuses: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """``(mark, notice)`` for each baton left for ``owner`` or left by them (``same_owner``)
    that a writer other than ``writer`` (a teammate's clone, by ``baton sync``) dismissed or
    cancelled (``session handoff --cancel --owner``), not told yet (``told`` holds the marks
    shown: ``dismissed:ID``, ``cancelled:ID``), oldest first.

    ``lost_claims``: the baton index's lost claims (``claim_conflicts``). A claim that lost to
    the dismissal or cancellation still gave its session the baton, so the notice names that
    session (``session S here had already received it``) instead of saying no session
    receives it, as the claim conflict told beside it says (team23 T7). ``statuses``: baton id →
    its handoff's status now; a teammate's archive dismisses the baton of the handoff it archives,
    and an archived or superseded handoff is read with ``baton handoff show`` (``read_command``)."""
    seen = set(told)
    received: dict[str, list[Mapping[str, Any]]] = {}
    for c in lost_claims:
        if isinstance(c, Mapping) and isinstance(c.get("handoffId"), str) and isinstance(c.get("sessionId"), str):
            received.setdefault(c["handoffId"], []).append(c)
    out = []
    for r in sorted(records, key=lambda r: (r.ended_at or "", r.id)):
        mark = f"{r.status}:{r.id}"
        if (r.status not in (DISMISSED, CANCELLED) or mark in seen or r.ended_by_writer in (None, writer)
                or r.ended_via == RESUMED_VIA):
            continue
        mine = not r.shared and same_owner(r.owner, owner)
        left = r.left_by is not None and same_owner(r.left_by, owner)
        if not (mine or left):
            continue
        seen.add(mark)
        by = f"writer {_shown(r.ended_by_writer)}" + (f" ({_shown(r.ended_by)}, as claimed)" if r.ended_by else "")
        whose = (f"the baton {'you left for yourself' if left else _shown(r.left_by or 'a teammate') + ' left for you'}"
                 if mine else f"the baton you left for {_shown(r.owner)}")
        out.append((mark, f"{r.status.upper()}: {whose} on {_shown(r.branch)} (baton {r.id}, at {r.created_at}) was "
                          f"{r.status} by {by} at {r.ended_at or 'an unknown time'}, "
                          f"{_received_anyway(received.get(r.id, ()), r.status, writer)}; "
                          f"{_reads_it(r.id, (statuses or {}).get(r.id))}."))
    return out


def _reads_it(handoff_id: str, status: Any) -> str:
    """"`baton resume ID` reads it", or, its handoff archived or superseded now, the record's command."""
    if record_only(status):
        return f"its handoff is {_shown(status)} now, so `{read_command(handoff_id, status)}` reads it"
    return f"`{read_command(handoff_id, status)}` reads it"


def _received_anyway(claims: Iterable[Mapping[str, Any]], status: str, writer: str) -> str:
    """What became of a baton dismissed or cancelled (``status``) elsewhere: no session receives
    it, unless claims made apart (lost claims, oldest first) had already given it to theirs."""
    names = [f"session {c['sessionId']} " + ("here" if c.get("writer") == writer
                                             else f"on the clone of writer {_shown(str(c.get('writer')))}")
             for c in sorted(claims, key=lambda c: (c.get("hlc") if isinstance(c.get("hlc"), int) else 0,
                                                    str(c.get("eventId"))))]
    if not names:
        return "so no session receives it"
    had = "had" if len(names) == 1 else "each had"
    return (f"so no other session receives it, but {' and '.join(names)} {had} already received it "
            f"before the {'dismissal' if status == DISMISSED else 'cancellation'} reached "
            f"{'it' if len(names) == 1 else 'them'} (the claim conflict names it)")


def taken_up_notices(records: Iterable[BatonRecord], *, owner: str, told: Iterable[str],
                     writer: str | None = None) -> list[tuple[str, str]]:
    """``(mark, notice)`` for each baton left for ``owner`` (or a shared one, or one they left)
    that a resume of its handoff settled, not told yet (``told``: the marks shown), oldest first.
    ``writer``: this clone's, so a resume recorded here is said to be on this clone."""
    seen = set(told)
    out = []
    for r in sorted(records, key=lambda r: (r.ended_at or "", r.id)):
        mark = f"taken-up:{r.id}"
        if r.status != DISMISSED or r.ended_via != RESUMED_VIA or mark in seen:
            continue
        if not (r.shared or same_owner(r.owner, owner) or (r.left_by is not None and same_owner(r.left_by, owner))):
            continue
        seen.add(mark)
        out.append((mark, taken_up_notice(r, writer=writer)))
    return out


def taken_up_notice(r: BatonRecord, *, writer: str | None = None) -> str:
    """One line: the baton was not delivered because its handoff was taken up elsewhere, by whom
    (the resuming session and its git identity, when the resume settled it; a resume that named no
    session, on this clone (``writer``) or another; else a resume made apart on another clone, which
    a session start here met after ``baton sync``)."""
    whose = "the shared baton" if r.shared else f"the baton for {r.owner} on {r.branch}"
    when = f" at {r.ended_at}" if r.ended_at else ""
    by_writer = f", writer {r.ended_by_writer}" if r.ended_by_writer else ""
    if r.ended_by_session:
        who = f" ({r.ended_by}{by_writer})" if r.ended_by else (f" ({by_writer[2:]})" if by_writer else "")
        how = f"its handoff was resumed by session {r.ended_by_session}{who}{when}"
    elif r.ended_with_resume:
        where = ("on this clone" if writer is not None and r.ended_by_writer == writer
                 else f"on the clone of writer {r.ended_by_writer}" if r.ended_by_writer else "on another clone")
        by = f" by {r.ended_by}" if r.ended_by else ""
        how = f"its handoff was resumed {where}{by} without a session id (a resume by hand that named no session){when}"
    else:
        how = (f"its handoff was resumed after it was left, by a session on another clone (the resume came with "
               f"`baton sync`; set aside{when}{by_writer})")
    return (f"Taken up elsewhere: {whose} (baton {r.id}) was not delivered, because {how}; "
            f"`baton handoff show {r.id}` reads it.")


def left_on_a_branch_gone(records: Iterable[BatonRecord], creators: Mapping[str, str], *, writer: str,
                          owner: str, branch: str, told: Iterable[str]) -> list[BatonRecord]:
    """The pending private batons this clone left for ``owner`` on a branch other
    than ``branch``, not told of yet, oldest first: the candidates of a baton
    stranded by a branch rename (``git branch -m``), once the caller has kept
    those whose branch no longer exists here (``gone_branch_notice``)."""
    seen = set(told)
    return [r for r in sorted(records, key=lambda r: (r.created_at, r.id))
            if r.pending and not r.shared and same_owner(r.owner, owner) and r.branch != branch and r.id not in seen
            and creators.get(r.id) == writer]


def gone_branch_notice(r: BatonRecord, branch: str) -> str:
    """What a session start on ``branch`` is told, once, of a baton this clone left
    for its owner on a branch that does not exist here: renamed, deleted, or never committed to
    (left on an unborn branch — ``git switch --orphan``, a fresh ``git init`` — then switched away)."""
    return (f"A baton this clone left for {_shown(r.owner)} on {_shown(r.branch)} (baton {r.id}, at {r.created_at}) is pending, "
            f"but no branch {r.branch} exists here (renamed with `git branch -m`, deleted, or never committed to: "
            f"an unborn branch), so it "
            f"was not delivered on {branch}. `baton session begin` with {r.branch} as its branch claims it here.")


def detached_left_notice(owner: str, branch: str) -> str:
    """What leaving a private baton on a plain detached ``HEAD`` says of where it went: keyed to
    ``branch`` (``(detached)``, a name no real branch has), it waits for the next session of ``owner``
    started on a detached ``HEAD`` in this project; a session on a branch whose tip is the commit it
    was left at is told of it (``left_at_this_tip_notice``); the command that claims it anywhere."""
    return (f"HEAD is detached here (no branch checked out, no rebase or bisect in progress), so this baton is "
            f"for {branch}, not for a branch: the next session of {owner} started on a detached HEAD in this "
            "project receives it, whatever commit HEAD is at then. A session started on a branch whose tip is "
            "the commit HEAD is at now (`git switch -c NAME` here, say) is told once that it waits; "
            f"`baton session begin` with {branch} as its branch claims it from any branch.")


def left_at_this_tip_notice(r: BatonRecord, branch: str, tip: str) -> str:
    """What a session start on ``branch``, whose tip is ``tip``, is told, once, of a baton this clone
    left for its owner on a plain detached ``HEAD`` at that same commit: it is not delivered here
    (the spec's eligible set is this owner and branch), so the command that claims it."""
    return (f"A baton this clone left for {r.owner} on a detached HEAD at commit {tip[:12]}, the tip of {branch} "
            f"(baton {r.id}, at {r.created_at}), is pending: it is for {r.branch}, so only a session started on "
            f"a detached HEAD receives it. `baton session begin` with {r.branch} as its branch claims it here; "
            f"`baton resume {r.id}` reads it.")


def render_latest_markdown(record: Mapping[str, Any] | None, *, elsewhere: bool = False, unverified: str = "") -> str:
    """The section a brief without a session handoff gains when the project
    has a ready handoff (spec §12: a session starts from the most recent
    ready handoff): its title, where it was captured, and the command that
    reads it. ``elsewhere``: it is the project's newest, from another branch
    (none is ready on this one). ``unverified``: the line saying its feed is one no
    trusted key vouches for (``FeedVouch.line``), under the heading. Empty for a missing
    or malformed record."""
    if not isinstance(record, Mapping) or not isinstance(record.get("id"), str):
        return ""
    work = record.get("work")
    title = work.get("title") if isinstance(work, Mapping) else None
    title = _one_line(title) if isinstance(title, str) and title.strip() else "(untitled)"
    if len(title) > LATEST_TITLE_MAX:
        title = title[:LATEST_TITLE_MAX - 1].rstrip() + "…"
    project = record.get("project")
    repository = project.get("repository") if isinstance(project, Mapping) else None
    branch = repository.get("branch") if isinstance(repository, Mapping) else None
    where = f" on branch `{branch}`" if isinstance(branch, str) and branch else ""
    when = record.get("created_at") if isinstance(record.get("created_at"), str) else None
    captured = f"captured{where}" + (f" at {when}" if when else "")
    note = (" (none on this branch is ready for this session to read; this is the project's newest)"
            if elsewhere else "")
    warned = f"{_one_line(unverified)}\n\n" if unverified else ""
    return (f"{LATEST_HEADING}\n\n{warned}**{title}**, {captured}{note}. Read it if this session continues that "
            f"work: `baton resume {short_id(record['id'])}`.\n")


# -- decisions and traps from recent handoffs -------------------------------------

def _created(record: Mapping[str, Any]) -> str:
    value = record.get("created_at")
    return value if isinstance(value, str) else ""


def recent_handoffs(records: Iterable[Any], *, limit: int | None = 20) -> list[Mapping[str, Any]]:
    """The newest ``limit`` (None: all) well-formed handoff records, newest first (archived ones left out)."""
    usable = [r for r in records if isinstance(r, Mapping) and isinstance(r.get("id"), str)
              and r.get("status") != "archived"]
    usable.sort(key=lambda r: (_created(r), r["id"]), reverse=True)
    return usable if limit is None else usable[:limit]


def _scope_admits(scope: Any, owner: str, branch: str) -> bool:
    """Does one baton scoping of a handoff let a session of ``owner`` on ``branch`` see it?

    Only ``shared: true``, or exactly this owner and branch. Anything else —
    another owner or branch, or a scope that cannot be read — does not.
    """
    if not isinstance(scope, Mapping):
        return False
    if scope.get("shared") is True:
        return True
    return scope.get("owner") == owner and scope.get("branch") == branch


def handoff_visible(record: Mapping[str, Any], scopes: Iterable[Any], *, owner: str, branch: str) -> bool:
    """May a session of ``owner`` on ``branch`` see this handoff's content (traps, decisions)?

    ``scopes`` are the times the baton index scoped this handoff as a baton
    (``{owner, branch, shared}`` each); the record's own ``baton`` field (a
    session-end baton) is one more. A handoff never scoped is an ordinary
    handoff: everyone sees it. A scoped one is seen only when one of its
    scopes is shared or is exactly this owner and branch — pending, claimed
    or gone, a private baton's content never crosses owners or branches. A
    ``baton`` field that cannot be read hides the record (fail closed).
    """
    known = list(scopes)
    if record.get(SCOPE_FIELD) is not None:
        known.append(record.get(SCOPE_FIELD))
    if not known:
        return True
    return any(_scope_admits(scope, owner, branch) for scope in known)


def visible_handoffs(
    records: Iterable[Any],
    scopes_by_id: Mapping[str, Iterable[Any]],
    *,
    owner: str,
    branch: str,
    limit: int = 20,
) -> list[Mapping[str, Any]]:
    """The newest ``limit`` handoffs a session of ``owner`` on ``branch`` may see, newest first.

    Filtered before the limit is applied, so other people's private batons
    never crowd the caller's recent handoffs out of the window.
    """
    usable = recent_handoffs(records, limit=None)
    return [r for r in usable
            if handoff_visible(r, scopes_by_id.get(r["id"], ()), owner=owner, branch=branch)][:limit]


PROMOTED_STATES = ("ready", "resumed", "superseded")
"""A handoff in one of these states was made ready at some point."""


def passed_validation(record: Mapping[str, Any]) -> bool:
    """Did this handoff's content pass validation — a pass, or a warn accepted when it was made ready?

    A record flagged ``invalid`` (its last validation failed), never
    validated, or revised since (validation reset to ``not_run``) did not;
    nor did a warn nobody accepted by promoting it.
    """
    flags = record.get("flags")
    if isinstance(flags, (list, tuple)) and "invalid" in flags:
        return False
    validation = record.get("validation")
    state = validation.get("status") if isinstance(validation, Mapping) else None
    if state == "pass":
        return True
    return state == "warn" and record.get("status") in PROMOTED_STATES


def is_session_baton(record: Mapping[str, Any]) -> bool:
    """Was this handoff left as a session baton (it carries the baton scope field)?"""
    return record.get(SCOPE_FIELD) is not None


def brief_may_use(record: Any) -> bool:
    """May any of this handoff's content (decisions or traps) reach a bootstrap brief?

    Only what passed validation (``passed_validation``) — plus a session
    baton's failed approaches, which are the point of a baton: a baton is a
    draft by design and is delivered without validation. A draft that failed
    validation, or was never validated, contributes nothing.
    """
    return isinstance(record, Mapping) and (passed_validation(record) or is_session_baton(record))


UNVERIFIED_MARK = "author not verified"
"""What a decision or trap line carries beside its handoff's id when that handoff comes from a feed
no trusted key vouches for (``baton.domain.feed_vouch``)."""


def _from(record: Mapping[str, Any], unverified: Container[str]) -> str:
    """Where a decision or trap line comes from: its handoff, and ``UNVERIFIED_MARK`` when that
    handoff's feed is one no trusted key vouches for (its id in ``unverified``)."""
    mark = f", {UNVERIFIED_MARK}" if record.get("id") in unverified else ""
    return f" (handoff `{str(record['id'])[:13]}`{mark})"


def collect_traps(records: Sequence[Mapping[str, Any]], *, exclude: Iterable[str] = (),
                  unverified: Container[str] = frozenset()) -> list[str]:
    """Failed attempts marked ``avoid_repeating`` across ``records`` (newest first), one line each.

    A trap repeated by several handoffs is listed once. ``exclude`` names
    handoffs whose traps are shown elsewhere (the active baton's own);
    ``unverified`` those from a feed no trusted key vouches for (``baton.domain.feed_vouch``),
    whose lines say so.
    """
    skip = set(exclude)
    seen: set[str] = set()
    out: list[str] = []
    for record in records:
        if record.get("id") in skip:
            continue
        attempts = record.get("failed_attempts")
        if not isinstance(attempts, list):
            continue
        for attempt in attempts:
            if not isinstance(attempt, Mapping) or attempt.get("avoid_repeating") is False:
                continue
            approach = attempt.get("approach")
            if not isinstance(approach, str) or not approach.strip():
                continue
            norm = _one_line(approach).casefold()
            if norm in seen:
                continue
            seen.add(norm)
            reason = attempt.get("reason")
            line = f"- **{_one_line(approach)}**"
            if isinstance(reason, str) and reason.strip():
                line += f" — {_one_line(reason)}"
            out.append(line + _from(record, unverified))
    return out


def collect_decisions(records: Sequence[Mapping[str, Any]], *, unverified: Container[str] = frozenset()) -> list[str]:
    """Decisions across ``records`` (newest handoff first), one line each, deduplicated; a line from a
    handoff in ``unverified`` says its author is not verified (``collect_traps``)."""
    seen: set[str] = set()
    out: list[str] = []
    for record in records:
        decisions = record.get("decisions")
        if not isinstance(decisions, list):
            continue
        for decision in decisions:
            if not isinstance(decision, Mapping):
                continue
            text = decision.get("decision")
            if not isinstance(text, str) or not text.strip():
                continue
            norm = _one_line(text).casefold()
            if norm in seen:
                continue
            seen.add(norm)
            line = f"- {_one_line(text)}"
            rationale = decision.get("rationale")
            if isinstance(rationale, str) and rationale.strip():
                line += f" — {_one_line(rationale)}"
            out.append(line + _from(record, unverified))
    return out


# -- the byte-budgeted brief -------------------------------------------------------

def _size(text: str) -> int:
    return len(text.encode("utf-8"))


class FittedSection(Value):
    text: str
    shown: int
    omitted: int


def fit_section(heading: str, items: Sequence[str], budget: int, *, more_hint: str) -> FittedSection:
    """As many of ``items`` (in order) as fit in ``budget`` bytes, with a note
    saying how many were left out. Empty text when not even the heading and
    one line fit.

    One pass over the items' sizes (a running sum), then the text is joined
    once: a handoff with tens of thousands of decisions costs no more per
    decision than one with ten.
    """
    if not items or budget <= 0:
        return FittedSection("", 0, len(items))
    total = len(items)
    head = _size(heading) + 2  # the heading, its newline, and the blank line's newline
    sizes = [_size(item) + 1 for item in items]  # each line and its newline
    shown, used = 0, head
    for size in sizes:  # the longest prefix that could fit at all (notes only shrink it)
        if used + size > budget:
            break
        used += size
        shown += 1
    while shown > 0:
        note = "" if shown == total else _more_line(total - shown, more_hint)
        if used + (_size(note) + 1 if note else 0) <= budget:
            lines = [heading, "", *items[:shown]] + ([note] if note else [])
            return FittedSection("\n".join(lines) + "\n", shown, total - shown)
        shown -= 1
        used -= sizes[shown]
    return FittedSection("", 0, total)


def _more_line(left_out: int, more_hint: str) -> str:
    return f"- … {left_out} more left out to fit the brief ({more_hint})"


class AssembledBrief(Value):
    text: str
    bytes: int
    handoff_included: bool
    objective_truncated: bool
    decisions: FittedSection
    traps: FittedSection
    notices_shown: int = 0
    """How many of the notices given (the first ones, in order) the brief shows, the first perhaps
    shortened: those left out to fit are counted by a line, and a notice told once is spent only when shown."""

    def to_json(self) -> dict[str, Any]:
        return {
            "handoffIncluded": self.handoff_included,
            "objectiveTruncated": self.objective_truncated,
            "decisions": {"shown": self.decisions.shown, "omitted": self.decisions.omitted},
            "traps": {"shown": self.traps.shown, "omitted": self.traps.omitted},
        }


EMPTY_BRIEF = (
    "## Baton\n\nNo session handoff waits for this session, and no objective, decisions or traps apply "
    "to its owner and branch yet (handoffs of other owners and branches, if any: `baton handoff list`). "
    "Leave one for the next session when this one ends, with its next steps.\n"
)
"""The brief with nothing for this owner and branch: never "for this project", which a project full of
other owners' and branches' handoffs made untrue (tester-use17 T9)."""


NOTHING_MORE_BRIEF = "## Baton\n\nNo session objective, decisions or traps to add.\n"
"""The body of a brief whose notices say what happened (a session handoff that did
not fit, a claim another session won): "no active session handoff … yet" would
contradict them."""


UNREADABLE_BRIEF = (
    "## Baton\n\nBaton could not read its ledger, so this brief carries no session handoff, objective, "
    "decisions or traps. A baton waiting for this session stays pending for the next start.\n"
)


def held_up_notice(session_id: str, waiting: str | None) -> str:
    """The one line a harness's session start puts in its brief when another
    process held the ledger lock past the start's wait (a long ``sync``,
    ``rebuild`` or ``gc``): the brief was read from the index as the last
    writer left it (which may be behind the ledger) and nothing was claimed
    or recorded, so the baton waiting for this owner and branch — ``waiting``,
    the one the index shows, or one it does not show yet (a session's end
    kept while the ledger was busy, a sync under way) — is delivered later:
    by the next session start, or claimed for this session by hand: with
    ``baton session begin ID``, which records the session's start as the hook
    would have, in the same append (a claim alone, ``baton bootstrap ID``,
    would leave the start unrecorded, and the session's next start — after a
    compaction — would deliver a brief again instead of naming its draft)."""
    which = (f"the baton {waiting} waiting for this owner and branch stays pending" if waiting
             else "a baton may be waiting for this owner and branch")
    return (f"Another process held Baton's ledger, so this brief was read without it (it may be behind) and "
            f"claims nothing: {which}; the next session start delivers it, or once the ledger is free run "
            f"`baton session begin {_shell_word(session_id)}` (or Baton's `baton_session` tool, action "
            "`session_start`, with this session's id) to claim it now.")


def too_big_notice(session_id: str, waiting: str, size: int, max_bytes: int, budget: str = "max_bytes") -> str:
    """The one line a brief carries in place of the session handoff ``waiting``
    when its section (``size`` bytes) cannot fit the brief's ``max_bytes`` even
    alone: nothing is claimed, so it stays pending, and every session start
    would say the same; the line names how to read it (``baton session
    handoff``) and how to claim it for this session without a byte budget
    (``baton session begin ID``, or the MCP tool's ``session_start``), or with
    a larger one (``budget``: the byte budget as the surface that asked spells
    it, the command line's ``--max-bytes``; else ``max_bytes``, the MCP
    ``bootstrap`` tool's argument)."""
    return (f"A session handoff ({waiting}, {size} bytes) does not fit in {max_bytes} bytes; it stays pending. "
            f"Read it with `baton session handoff`; claim it for this session, whole, with "
            f"`baton session begin {_shell_word(session_id)}` (or Baton's `baton_session` tool, action "
            f"`session_start`, with this session's id), or give the brief a larger byte budget (`{budget}`).")


def behind_notice(session_id: str, waiting: str | None, *, catching_up: bool) -> str:
    """The one line a harness's session start puts in its brief when the index
    was too far behind the ledger for the hook to bring up to date in its
    time (after an upgrade that changed projections the brief does not read,
    or a large sync): the brief was read from the index as it stands, which
    may lack the newest events, and nothing was claimed or recorded — a
    claim needs the index up to date. ``catching_up``: a process of its own
    is bringing it up to date (else it could not be started, or its last
    attempt failed). The baton waiting — ``waiting``, the one the index shows,
    or one it does not show yet — is delivered by the next session start, or
    claimed by hand as ``held_up_notice`` says."""
    how = ("is being brought up to date in the background" if catching_up
           else "is behind the ledger and could not be brought up to date in the background")
    which = (f"the baton {waiting} waiting for this owner and branch stays pending" if waiting
             else "a baton may be waiting for this owner and branch")
    return (f"Baton's index {how}, so this brief was read from the index as it stands and may miss the newest "
            f"events; it claims nothing: {which}; the next session start delivers it, or once the index is up to "
            f"date run `baton session begin {_shell_word(session_id)}` (or Baton's `baton_session` tool, action "
            "`session_start`, with this session's id) to claim it now.")


def _shell_word(word: str) -> str:
    """``word`` as one word of a POSIX shell command line (``shlex.quote``'s rule,
    without loading ``shlex`` on a hook's path)."""
    if word and all(c.isascii() and (c.isalnum() or c in "@%+=:,./-_") for c in word):
        return word
    return "'" + word.replace("'", "'\\''") + "'"


def _join(parts: Iterable[str]) -> str:
    return "\n".join(p for p in parts if p)


def _truncate_utf8(text: str, limit: int) -> str:
    raw = text.encode("utf-8")
    if len(raw) <= limit:
        return text
    return raw[: max(0, limit)].decode("utf-8", "ignore")


def _more_notices(left_out: int) -> str:
    return f"> ⚠️ … {left_out} more notice{'s' if left_out != 1 else ''} left out to fit the brief\n"


def _fit_notices(notices: Sequence[str], max_bytes: int) -> tuple[str, int]:
    """The brief's notice lines within ``max_bytes``, and how many of ``notices`` they show: all of them
    when they fit (as they do but for a teammate's long text or very many of them: tester25 T3); else as
    many as fit in order, with a line counting those left out, the first one shortened (``…``) when even
    it does not fit alone."""
    lines = [f"> ⚠️ {_one_line(n)}\n" for n in notices]
    if sum(map(_size, lines)) <= max_bytes:
        return "".join(lines), len(lines)
    kept: list[str] = []
    used = 0
    for i, line in enumerate(lines):
        rest = len(lines) - i - 1
        tail = _more_notices(rest) if rest else ""
        if used + _size(line) + _size(tail) <= max_bytes:
            kept.append(line)
            used += _size(line)
        elif kept:
            return "".join(kept) + _more_notices(len(lines) - i), len(kept)
        else:  # the first one alone is longer than the brief: shortened to fit
            room = max_bytes - _size(tail) - _size("…\n")
            return (_truncate_utf8(line.rstrip("\n"), room) + "…\n" if room > 0 else "") + tail, int(room > 0)
    return "".join(kept), len(kept)


def assemble_brief(
    *,
    handoff_markdown: str | None,
    objective: str | None,
    decisions: Sequence[str],
    traps: Sequence[str],
    max_bytes: int = DEFAULT_MAX_BYTES,
    notices: Sequence[str] = (),
    empty_text: str = EMPTY_BRIEF,
    latest_markdown: str | None = None,
) -> AssembledBrief:
    """Build the bootstrap brief inside ``max_bytes`` (UTF-8).

    The handoff and the objective are reserved first and never trimmed: the
    handoff is shown whole or not at all (``handoff_included`` False when it
    cannot fit even alone, so the caller leaves it unclaimed). Without a
    handoff, ``latest_markdown`` (``render_latest_markdown``) takes its
    place when it fits. Decisions and traps then share what is left — each
    may use half, and either may use what the other leaves — trimmed oldest
    first.
    """
    notice_text, notices_shown = _fit_notices(notices, max_bytes)
    objective_text = render_objective_markdown(objective) if objective and objective.strip() else ""
    objective_truncated = False
    handoff_text = handoff_markdown or ""

    def fixed(h: str, o: str) -> str:
        return _join([notice_text, h, o])

    if handoff_text and _size(fixed(handoff_text, objective_text)) > max_bytes:
        handoff_text = ""
    if not handoff_text and latest_markdown and _size(fixed(latest_markdown, objective_text)) <= max_bytes:
        handoff_text = latest_markdown
    if objective_text and _size(fixed(handoff_text, objective_text)) > max_bytes:
        marker = "… [objective truncated to fit the brief]\n"
        room = max_bytes - _size(fixed(handoff_text, "")) - _size(OBJECTIVE_HEADING + "\n\n" + marker) - 2
        head = _truncate_utf8(objective.strip() if objective else "", room) if room > 0 else ""
        objective_text = f"{OBJECTIVE_HEADING}\n\n{head}{marker}" if room > 0 else ""
        objective_truncated = True
    base = fixed(handoff_text, objective_text)
    # Each further section is joined with one blank line.
    remaining = max_bytes - _size(base) - (1 if base else 0)
    hint = "see `baton handoff list`"
    d_share = remaining // 2 if traps else remaining
    dec = fit_section(DECISIONS_HEADING, decisions, d_share, more_hint=hint)
    trp = fit_section(TRAPS_HEADING, traps, remaining - _size(dec.text) - (1 if dec.text else 0), more_hint=hint)
    if dec.omitted:
        dec = fit_section(DECISIONS_HEADING, decisions,
                          remaining - _size(trp.text) - (1 if trp.text else 0), more_hint=hint)
    text = _join([base, dec.text, trp.text])
    if not text:
        text = empty_text if _size(empty_text) <= max_bytes else ""
    elif not (handoff_text or objective_text or dec.text or trp.text):
        body = NOTHING_MORE_BRIEF if empty_text == EMPTY_BRIEF else empty_text
        text = _join([notice_text, body]) if _size(_join([notice_text, body])) <= max_bytes else text
    return AssembledBrief(
        text=text, bytes=_size(text), handoff_included=bool(handoff_text) and handoff_text != latest_markdown,
        objective_truncated=objective_truncated, decisions=dec, traps=trp,
        notices_shown=notices_shown,
    )


# -- a baton is a handoff -----------------------------------------------------------

OPEN_QUESTIONS_FIELD = "open_questions"
"""Top-level extension field of a handoff record that keeps a baton's open questions."""
SCOPE_FIELD = "baton"
"""Top-level extension field naming the owner/branch (or shared) scope of a baton handoff."""


PRIORITY_RANK = {"high": 0, "medium": 1, "low": 2}
"""The order open items are taken in by priority; an item without one comes after ``low``."""


def ordered_open_items(items: Sequence[_Item], blocked: Callable[[_Item], bool],
                       priority: Callable[[_Item], str]) -> list[_Item]:
    """Open items in the order a successor should take them: unblocked before blocked, then
    high, medium, low, unprioritised, then as recorded. The first one is "the first next action":
    the resume brief's (``baton.domain.quality.order_open_items``) and a handed-on baton's first
    next step (``baton_content_of_handoff``) — one rule, so both harnesses are told the same thing first."""
    order = sorted(range(len(items)), key=lambda i: (1 if blocked(items[i]) else 0,
                                                     PRIORITY_RANK.get(priority(items[i]), 3), i))
    return [items[i] for i in order]


def open_blockers(blockers: Any, retired: Any) -> list[str]:
    """The ids in an item's ``blocked_by`` that still block it: a retired id (an item closed, dropped or
    replaced away by an amendment: the record's ``retired_ids``) is done or gone, and blocks nothing. Ids
    compare as amend compares them (``short_ids.id_key``: ``o-2`` names ``O-002``)."""
    gone = {id_key(r) for r in retired or () if isinstance(r, str)}
    return [b.strip() for b in blockers or () if isinstance(b, str) and b.strip() and id_key(b) not in gone]


def _blocked_in(record: Mapping[str, Any]) -> Callable[[Mapping[str, Any]], bool]:
    retired = record.get("retired_ids")
    return lambda item: isinstance(item.get("blocked_by"), list) and bool(open_blockers(item["blocked_by"], retired))


def _priority(item: Mapping[str, Any]) -> str:
    priority = item.get("priority")
    return priority.strip() if isinstance(priority, str) else ""


def baton_content_of_handoff(record: Mapping[str, Any]) -> dict[str, list[str]]:
    """The baton fields a handoff record carries (the mapping above, read back).

    Works on any handoff, not only one captured as a baton, so a rich handoff
    can be scoped and delivered at session start: open items give the next
    steps (their suggested action when they have one), in the order the resume
    brief takes them (``ordered_open_items``), each marked with its priority
    when it has one (``[high] …``) — except in the record of a baton left
    with next steps (``SCOPE_FIELD``), whose priorities Baton gave in the
    steps' own order: those come back as written; failed attempts to avoid
    give the failed approaches.
    """
    steps: list[str] = []
    items = [item for item in record.get("open_items") or [] if isinstance(item, Mapping)]
    marked = SCOPE_FIELD not in record
    for item in ordered_open_items(items, _blocked_in(record), _priority):
        text = item.get("description")
        action = item.get("suggested_action")
        if isinstance(text, str) and text.strip():
            if isinstance(action, str) and action.strip() and action.strip() != text.strip():
                text = f"{text.strip()} — {action.strip()}"
            priority = _priority(item)
            steps.append(f"[{priority}] {text.strip()}" if marked and priority in PRIORITY_RANK else text.strip())
    failed: list[str] = []
    for attempt in record.get("failed_attempts") or []:
        if isinstance(attempt, Mapping) and attempt.get("avoid_repeating", True) is not False:
            text = attempt.get("approach")
            reason = attempt.get("reason")
            if isinstance(text, str) and text.strip():
                if isinstance(reason, str) and reason.strip():
                    text = f"{text.strip()} — {reason.strip()}"
                failed.append(text.strip())
    questions = [q.strip() for q in record.get(OPEN_QUESTIONS_FIELD) or [] if isinstance(q, str) and q.strip()]
    return {"nextSteps": steps, "failedApproaches": failed, "openQuestions": questions}


_MICROS = len("2026-09-02T14:31:07.123456Z")


def taken_up_before(record: BatonRecord, handoff: Mapping[str, Any] | None, resumed: str | None = None) -> bool:
    """Whether the pending baton ``record`` met at a session start carries a handoff resumed
    after the baton was left (the rule: below, with ``settled_by_resume``; here, beside the notices, so a
    start loads no module for it). ``handoff``: its record as the handoff index holds it; ``resumed``:
    its newest ``handoff.resumed`` event's ``at``, microseconds, when the index holds it)."""
    if not record.pending or not isinstance(handoff, Mapping) or handoff.get("status") != "resumed":
        return False
    by = handoff.get("resumed_by")
    resumer = by.get("owner") if isinstance(by, Mapping) else None
    if isinstance(resumer, str) and resumer and not yours_to_end(record.owner, record.left_by, resumer):
        return False  # a teammate's resume: the baton stays its owner's (``settled_by_resume``); unknown: as before
    if isinstance(resumed, str) and len(resumed) == _MICROS and len(record.created_at) == _MICROS:
        return resumed > record.created_at
    resumed_at = handoff.get("resumed_at")
    if not isinstance(resumed_at, str) or len(resumed_at) < 19 or len(record.created_at) < 19:
        return False
    return resumed_at[:19] > record.created_at[:19]


# -- a handoff resumed while a pending baton carries it ------------------------------
#
# A handoff resumed while a pending baton carries it: the baton is settled, and its owner told once.
#
# A baton is claimed exactly once (session-handoff-baton.txt). A handoff handed on
# as a baton (``session handoff --from``, a session's end) can also be resumed
# another way while the baton waits: ``baton resume --mark-resumed`` in another
# terminal, the MCP ``handoff_resume`` tool with ``mark_resumed``, or the claim of
# *another* baton carrying the same handoff (a private and a shared one). Left
# pending, the baton would hand the same work to a second session as fresh
# work. The rule, pure (the baton and the handoff's record are parameters):
#
# - **at the resume** (``settled_by_resume``): every pending baton carrying the
#   resumed handoff is dismissed in the same batch as ``handoff.resumed``, with
#   ``via: "resumed"`` and the resuming session; a claim settles the other batons
#   carrying its handoff the same way. These are events, so ``baton rebuild``
#   replays the same outcome, and ``baton sync`` carries it to every clone that
#   has the baton;
# - **at a session start** (``taken_up_before``, above, beside the notices, so a start that
#   meets no resumed handoff loads no module for it): a baton left on one clone while
#   another clone, apart, resumed its handoff (``baton sync`` brought the two
#   together, and the resume there never saw the baton) is met pending with its
#   handoff resumed *after* it was left: it is dismissed the same way instead of
#   claimed. A handoff resumed *before* the baton was left was handed on again on
#   purpose (``--from`` of a resumed handoff) and is delivered. Times compare at
#   the events' own precision, microseconds: the newest ``handoff.resumed``
#   event's ``at`` (the handoff index's ``resumed``) against the baton's
#   ``createdAt`` (its ``baton.created`` event's ``at``), so a resume in the same
#   second as the baton, after it, still settles it; only without the precise
#   time (an index written before it was kept) do the record's whole seconds
#   decide, a resume in the baton's second counting as before it;
# - **told once** (``baton.domain.batons.taken_up_notices``, beside the other
#   notices a session start reads, so a start loads no module for it): the
#   next session start of the baton's owner (or of whoever left it; every
#   owner's, for a shared baton) reads one line saying the handoff was taken
#   up elsewhere, by which session and who, instead of receiving it.


def settled_by_resume(current: BatonRecord | None, handoff_id: str, resumer: str | None = None) -> bool:
    """Whether resuming ``handoff_id`` settles ``current`` (a key's current baton): it is
    pending and carries that handoff, and it is the resumer's (``resumer``: who resumes it by
    hand, ``resume --mark-resumed``) to end — left for them, or left by them (``yours_to_end``).
    A teammate's pending baton stays pending: batons are owner-scoped, so another owner's resume
    never takes its context from them (tester26 T9); its owner receives it at their next start.
    ``resumer`` None (a claim settling the other batons of the handoff it received): any."""
    if current is None or not current.pending or current.id != handoff_id:
        return False
    return resumer is None or yours_to_end(current.owner, current.left_by, resumer)


def left_to_their_owner(current: BatonRecord | None, handoff_id: str, resumer: str) -> bool:
    """Whether ``current``, pending with ``handoff_id``, is left pending by ``resumer``'s resume: a
    teammate's baton (``settled_by_resume``), which the resume's output names."""
    return current is not None and current.pending and current.id == handoff_id \
        and not settled_by_resume(current, handoff_id, resumer)
