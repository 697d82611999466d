"""The event envelope: the one shape every line of every feed has.

The chain hash covers every envelope field except ``hash`` itself and
``data``; ``digest`` stands in for ``data``. So an audited erase of a payload
(``data`` removed, ``digest`` kept) leaves every chain verifiable, while any
change to a payload that is present is caught by its digest.

Fields this version does not know are kept in ``extra`` and written back
unchanged, and they are covered by the hash like any other field.
"""

from __future__ import annotations

from collections.abc import Mapping
from hashlib import sha256 as _sha256

import orjson

from baton.canonical import CANONICAL, canonical_bytes, digest_of, sha256_tag
from baton.errors import EnvelopeError
from baton.ledger.clock import next_hlc
from baton.values import EMPTY_MAPPING, Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (a hook never needs it)
if TYPE_CHECKING:
    from typing import Any, Callable

ENVELOPE_VERSION = 1
_dumps = orjson.dumps

KNOWN_FIELDS = (
    "v", "id", "writer", "seq", "at", "hlc", "type", "stream", "stream_version",
    "actor", "session", "schema", "data", "digest", "prev", "hash",
)
_KNOWN = frozenset(KNOWN_FIELDS)
_REQUIRED = {
    "v": int, "id": str, "writer": str, "seq": int, "at": str, "hlc": int,
    "type": str, "stream": str, "stream_version": int, "digest": str, "hash": str,
}


class EventDraft(Value):
    """What a command asks the ledger to append; the ledger seals it (a named tuple: ``baton.values.Value``)."""

    type: str
    stream: str
    data: dict[str, Any]
    actor: str | None = None
    session: str | None = None
    schema: int = 1


_NO_EXTRA: Mapping[str, Any] = EMPTY_MAPPING
"""The ``extra`` of an event built without one: shared, so read-only."""


class Event(Value):
    """A sealed line of a feed (a named tuple: ``baton.values.Value``; built positionally
    on the read and append paths, in field order)."""

    v: int
    id: str
    writer: str
    seq: int
    at: str
    hlc: int
    type: str
    stream: str
    stream_version: int
    actor: str | None
    session: str | None
    data: dict[str, Any] | None
    digest: str
    prev: str | None
    hash: str
    schema: int = 1
    extra: Mapping[str, Any] = _NO_EXTRA

    @property
    def erased(self) -> bool:
        """True when the payload was deliberately removed (only ``digest`` remains)."""
        return self.data is None

    @property
    def merge_key(self) -> tuple[int, str, int]:
        return (self.hlc, self.writer, self.seq)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.extra)
        out.update(
            v=self.v, id=self.id, writer=self.writer, seq=self.seq, at=self.at,
            hlc=self.hlc, type=self.type, stream=self.stream,
            stream_version=self.stream_version, actor=self.actor,
            session=self.session, schema=self.schema, digest=self.digest,
            prev=self.prev, hash=self.hash,
        )
        if self.data is not None:
            out["data"] = self.data
        return out

    def chained_part(self) -> dict[str, Any]:
        out = self.to_dict()
        out.pop("hash", None)
        out.pop("data", None)
        return out

    def compute_hash(self) -> str:
        return sha256_tag(canonical_bytes(self.chained_part()))

    def data_intact(self) -> bool:
        return self.data is None or digest_of(self.data) == self.digest

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> "Event":
        """Raises: EnvelopeError when ``raw`` is not a well-formed envelope."""
        # Replay calls this once per line: a plain dict of exact types (what
        # orjson returns) takes the short path; anything else gets the
        # field-by-field checks and their precise error messages.
        if type(raw) is dict:
            get = raw.get
            v, id_, writer, seq, at, hlc = get("v"), get("id"), get("writer"), get("seq"), get("at"), get("hlc")
            type_, stream, version = get("type"), get("stream"), get("stream_version")
            digest, hash_, data, schema = get("digest"), get("hash"), get("data"), get("schema", 1)
            actor, session, prev = get("actor"), get("session"), get("prev")
            if (
                type(v) is int and type(seq) is int and type(hlc) is int and type(version) is int
                and type(schema) is int and type(id_) is str and type(writer) is str and type(at) is str
                and type(type_) is str and type(stream) is str and type(digest) is str and type(hash_) is str
                and (data is None or type(data) is dict) and (actor is None or type(actor) is str)
                and (session is None or type(session) is str) and (prev is None or type(prev) is str)
            ):
                return cls(  # positionally, in field order: a keyword call costs more, once per line
                    v, id_, writer, seq, at, hlc, type_, stream, version, actor, session, data, digest, prev, hash_,
                    schema, {} if raw.keys() <= _KNOWN else {k: x for k, x in raw.items() if k not in _KNOWN},
                )
        return cls._from_checked_dict(raw)

    @classmethod
    def _from_checked_dict(cls, raw: Mapping[str, Any]) -> "Event":
        if not isinstance(raw, Mapping):
            raise EnvelopeError("an event must be a JSON object")
        for name, kind in _REQUIRED.items():
            value = raw.get(name)
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                raise EnvelopeError(f"field {name!r} is missing or not a {kind.__name__}")
        data = raw.get("data")
        if data is not None and not isinstance(data, dict):
            raise EnvelopeError("field 'data' must be an object")
        for name in ("actor", "session", "prev"):
            if raw.get(name) is not None and not isinstance(raw.get(name), str):
                raise EnvelopeError(f"field {name!r} must be a string or null")
        schema = raw.get("schema", 1)
        if not isinstance(schema, int) or isinstance(schema, bool):
            raise EnvelopeError("field 'schema' must be an integer")
        return cls(
            v=raw["v"], id=raw["id"], writer=raw["writer"], seq=raw["seq"],
            at=raw["at"], hlc=raw["hlc"], type=raw["type"], stream=raw["stream"],
            stream_version=raw["stream_version"], actor=raw.get("actor"),
            session=raw.get("session"), data=data, digest=raw["digest"],
            prev=raw.get("prev"), hash=raw["hash"], schema=schema,
            extra={k: v for k, v in raw.items() if k not in _KNOWN},
        )


def seal(
    draft: EventDraft,
    *,
    event_id: str,
    writer: str,
    seq: int,
    at: str,
    hlc: int,
    stream_version: int,
    prev: str | None,
    batch: dict[str, Any] | None = None,
) -> Event:
    """``batch``: ``{"id", "n", "of"}`` when the event is one of several
    appended together (see ``seal_batch``); an envelope field like any other
    (kept in ``extra``, covered by the hash).

    Raises:
        EnvelopeError: the draft would make a line that readers reject (and
            so would lose as a torn tail); nothing is written.
    """
    check_draft(draft)
    return seal_checked(draft, event_id, writer, seq, at, hlc, stream_version, prev, batch, None)


def seal_checked(
    draft: EventDraft, event_id: str, writer: str, seq: int, at: str, hlc: int, stream_version: int,
    prev: str | None, batch: dict[str, Any] | None, lines: list[bytes] | None,
) -> Event:
    """``seal`` of a draft ``check_draft`` passed; appends the event's line to
    ``lines`` (``feed.encode_line`` of it, built from the same dict as its
    hash). The ledger's single-event append calls it directly (``seal_batch``
    is this in a loop)."""
    # canonical_bytes and sha256_tag, spelled out: four calls on every append's path.
    payload = _dumps(draft.data, option=CANONICAL)
    digest = "sha256:" + _sha256(payload).hexdigest()
    # The sealed event carries the payload as every reader will get it back
    # (never the caller's dict, which may change; a tuple comes back a list),
    # so folding it is folding a replay.
    data = orjson.loads(payload)
    # Exactly ``Event.chained_part()`` of the event below (a draft has no
    # unknown fields), built directly: sealing is on every append's path.
    chained = {
        "v": ENVELOPE_VERSION, "id": event_id, "writer": writer, "seq": seq, "at": at, "hlc": hlc,
        "type": draft.type, "stream": draft.stream, "stream_version": stream_version,
        "actor": draft.actor, "session": draft.session, "schema": draft.schema, "digest": digest, "prev": prev,
    }
    if batch is not None:
        chained["batch"] = batch
    chained_bytes = _dumps(chained, option=CANONICAL)
    hash_ = "sha256:" + _sha256(chained_bytes).hexdigest()
    if lines is not None:
        lines.append(_line_of(chained_bytes, payload, hash_))
    return Event(  # positionally, in field order (as ``from_dict``): a keyword call costs more
        ENVELOPE_VERSION, event_id, writer, seq, at, hlc, draft.type, draft.stream, stream_version,
        draft.actor, draft.session, data, digest, prev, hash_, draft.schema,
        {} if batch is None else {"batch": batch},
    )


_DIGEST_MEMBER = b',"digest":"'
_TAG_LEN = len("sha256:") + 64


def _line_of(chained: bytes, payload: bytes, hash_: str) -> bytes:
    """The event's canonical line (``feed.encode_line``), spliced from the
    bytes its hash and digest were taken over instead of serialized again.

    With sorted keys, ``data`` is the member just before ``digest`` (after
    ``actor``, ``at`` and ``batch``) and ``hash`` the one just after it; a
    sealed draft has no other fields, and no string can hold the unescaped
    quotes of the member name, so ``,"digest":"`` occurs once.
    """
    cut = chained.index(_DIGEST_MEMBER)
    end = cut + len(_DIGEST_MEMBER) + _TAG_LEN + 1  # past the digest's closing quote
    return b"".join((chained[:cut], b',"data":', payload, chained[cut:end],
                     b',"hash":"', hash_.encode(), b'"', chained[end:], b"\n"))


def seal_batch(
    drafts: list[EventDraft],
    *,
    writer: str,
    seq: int,
    prev: str | None,
    max_hlc: int,
    clock: Callable[[], int],
    version_of: Callable[[str], int],
    new_id: Callable[[int], str],
    timestamp: Callable[[int], str],
    lines: list[bytes] | None = None,
) -> tuple[list[Event], dict[str, int]]:
    """Seal the events of one append, after the feed head ``(seq, prev)``.

    Several events appended together carry ``batch = {"id": <first event's
    id>, "n": <1-based position>, "of": <count>}``: readers treat a batch as
    all-or-nothing (an incomplete one at the end of a feed is a torn tail, one
    in the middle is corruption), so a writer killed mid-``write()`` never
    leaves half a command behind as complete lines. Returns the sealed events
    and the new version of each stream they touch; when ``lines`` is a list,
    each event's line (``feed.encode_line`` of it) is appended to it.

    Raises:
        EnvelopeError: a draft is malformed; nothing is sealed.
    """
    for draft in drafts:
        check_draft(draft)  # all of them before any id or clock tick is spent
    versions: dict[str, int] = {}
    sealed: list[Event] = []
    batch_id: str | None = None
    size = len(drafts)
    for draft in drafts:
        now = clock()
        hlc = next_hlc(now, max_hlc)
        known = versions.get(draft.stream)
        version = (known if known is not None else version_of(draft.stream)) + 1
        event_id = new_id(now)
        batch = None
        if size > 1:
            batch_id = batch_id or event_id
            batch = {"id": batch_id, "n": len(sealed) + 1, "of": size}
        event = seal_checked(  # each draft was checked above
            draft, event_id, writer, seq + 1 + len(sealed), timestamp(now), hlc, version,
            sealed[-1].hash if sealed else prev, batch, lines,
        )
        versions[draft.stream] = version
        max_hlc = hlc
        sealed.append(event)
    return sealed, versions


def check_draft(draft: EventDraft) -> None:
    """Raises: EnvelopeError when the draft would make a line readers reject."""
    # The drafts commands make pass on exact types (one test per field);
    # anything else gets the checks below and their precise messages.
    actor, session, schema = draft.actor, draft.session, draft.schema
    if (
        type(draft.type) is str and draft.type and type(draft.stream) is str and draft.stream
        and type(draft.data) is dict and type(schema) is int
        and (actor is None or type(actor) is str) and (session is None or type(session) is str)
    ):
        return
    if not isinstance(draft.type, str) or not draft.type:
        raise EnvelopeError("an event type must be a non-empty string")
    if not isinstance(draft.stream, str) or not draft.stream:
        raise EnvelopeError("an event stream must be a non-empty string")
    if not isinstance(draft.data, dict):
        raise EnvelopeError(f"event data must be a JSON object, not {type(draft.data).__name__}")
    for name in ("actor", "session"):
        value = getattr(draft, name)
        if value is not None and not isinstance(value, str):
            raise EnvelopeError(f"event {name} must be a string or None")
    if not isinstance(draft.schema, int) or isinstance(draft.schema, bool):
        raise EnvelopeError("event schema must be an integer")
