"""A handoff's names, in a module light enough for the hook path: its short
id, the prefixes that name it, its timestamp's compact form and the file it
is materialized in.

``baton.domain.handoff`` (the record model and its converter) re-exports
them; a session-start brief that only names a handoff, and a listing that
names each row's file, need not import the model. An item's id as it is matched
(``id_key``) lives here too, without a regular expression: the baton's next steps compare retired
ids through it.
"""

from __future__ import annotations

import functools
from datetime import datetime, timezone

HANDOFFS_DIR = ".baton/handoffs"


def short_id(handoff_id: str) -> str:
    """The 8-hex-digit short form of an id, used in file names and listings.

    A UUIDv7 starts with its timestamp, so two handoffs minted in the same
    minute share a prefix; the short id is taken from the random tail instead.
    """
    return handoff_id.replace("-", "")[-8:].lower()


MIN_PREFIX = 8
MIN_SHORT_PREFIX = 4
"""A prefix of the short id (its random tail) this long already names one record in practice."""


def id_matches(token: str, handoff_id: str) -> bool:
    """Does a user-typed token name this id? The full id, its short id, a
    prefix of the short id at least ``MIN_SHORT_PREFIX`` characters long (the
    short id is what lists show), or a prefix of the full id at least
    ``MIN_PREFIX`` characters long."""
    token = token.strip().lower()
    if not token:
        return False
    short = short_id(handoff_id)
    if token == handoff_id or token == short:
        return True
    if len(token) >= MIN_SHORT_PREFIX and short.startswith(token):
        return True
    return len(token) >= MIN_PREFIX and handoff_id.startswith(token)


@functools.lru_cache(maxsize=4096)
def compact_timestamp(ts: str) -> str:
    """``2026-09-02T14:30:00.123Z`` -> ``20260902T143000Z`` (UTC, whole seconds).

    Remembered (a pure function of its text): every listing names each row's
    materialized file by it, and a long-lived process lists the same rows often."""
    moment = parse_timestamp(ts).astimezone(timezone.utc)
    return moment.strftime("%Y%m%dT%H%M%SZ")


def file_name(created_at: str, handoff_id: str, *, short: str | None = None) -> str:
    """``<created-at without punctuation>--<short-id>.json`` (§7.1); ``short``:
    the id's ``short_id`` when the caller has it already (a listing row)."""
    return f"{compact_timestamp(created_at)}--{short or short_id(handoff_id)}.json"


_SHAPE = "dddd-dd-ddTdd:dd:dd"
"""An RFC 3339 date-time's first 19 characters: ``d`` an ASCII digit, ``T`` a ``T`` or
``t``, the rest themselves. Read with string tests, not a pattern: compiling one costs
a process ~1 M instructions (``re``'s compiler is Python), and every hook-path command
parses a timestamp."""
_DIGITS = frozenset("0123456789")
_MAX_FRACTION = 9
"""Fractional-second digits a timestamp may have (``datetime`` keeps 6: the rest are cut)."""


def _zone_at(text: str) -> int:
    """Where the zone (``Z``, ``z`` or ``±hh:mm``, required) starts in ``text``, an RFC 3339
    date-time ``YYYY-MM-DDThh:mm:ss[.1-9 digits]``; -1 when ``text`` is not one."""
    if len(text) < 20:
        return -1
    for c, shape in zip(text, _SHAPE):
        if not (c in _DIGITS if shape == "d" else c in "Tt" if shape == "T" else c == shape):
            return -1
    at = 19
    if text[at] == ".":
        at += 1
        while at < len(text) and text[at] in _DIGITS:
            at += 1
        if not 1 <= at - 20 <= _MAX_FRACTION:
            return -1
    zone = text[at:]
    if zone in ("Z", "z") or (len(zone) == 6 and zone[0] in "+-" and zone[3] == ":"
                              and all(zone[i] in _DIGITS for i in (1, 2, 4, 5))):
        return at
    return -1


def parse_timestamp(text: str) -> datetime:
    """Parse an RFC 3339 date-time (zone required) into an aware datetime.

    Raises:
        ValueError: the text is not an RFC 3339 date-time with a zone.
    """
    zone = _zone_at(text) if isinstance(text, str) else -1
    if zone < 0:
        raise ValueError("must be an RFC 3339 date-time with a zone, e.g. 2026-09-02T14:30:00Z")
    # fromisoformat takes at most 6 fractional digits
    value = text[:26] + text[zone:] if zone > 26 else text
    value = value[:-1] + "+00:00" if value[-1] in "Zz" else value
    try:
        return datetime.fromisoformat(value.replace("t", "T"))
    except ValueError as exc:
        raise ValueError("must be an RFC 3339 date-time with a zone, e.g. 2026-09-02T14:30:00Z") from exc


def id_key(ident: str) -> str:
    """An item id as it is matched, one normalisation for every use: ``O-1``, ``o-001`` and
    `` O-001 `` are all ``O-1`` (ASCII letters, a dash, a decimal number: case, leading zeros and
    surrounding blanks do not count); any other id compares with its blanks stripped, case folded.
    ``handoff amend``'s close/drop (``edits.same_id``), its keyed merge (``merge_changes``), the
    duplicate check (``duplicate_id_problems``), the ids a capture assigns past the retired ones and
    the blockers a retired id no longer blocks (``batons.open_blockers``) all use it."""
    text = ident.strip()
    prefix, dash, number = text.partition("-")
    if dash and prefix.isascii() and prefix.isalpha() and number.isdecimal():
        return f"{prefix.upper()}-{int(number)}"
    return text.casefold()
