"""Where a replay stops (``--until``, ``--since``, ``baton log``, ``as_of``).

Apart from ``baton.projections.runner`` (which takes one, and only reads
it), so that a command that replays nothing up to a bound — every hook —
does not define it.
"""

from __future__ import annotations

from datetime import date

from baton.errors import InputError
from baton.ledger.clock import hlc_of_datetime, parse_rfc3339
from baton.model import frozen


@frozen
class Until:
    """Where a replay stops: after the event with this id, or at this time."""

    event_id: str | None = None
    hlc: int | None = None
    label: str = ""

    @classmethod
    def parse(cls, text: str, *, option: str = "until") -> "Until":
        """An event id (36 characters, four dashes) or an RFC 3339 time, taken
        as the end of its precision (``precision``: ``…T10:11:09Z`` is up to
        ``…T10:11:09.999999Z``).

        Raises:
            InputError (exit 2): neither; the message names ``option``, the
                parameter the text came from (adapters name their own option).
        """
        text = text.strip()
        if len(text) == 36 and text.count("-") == 4:
            return cls(event_id=text, label=text)
        if len(text) == 10 and text[4] == "-" and text[7] == "-" and _a_date(text):  # which moment of it, in which zone?
            raise InputError(f"`{option}` takes an event id or an RFC 3339 time, a date and a time of day "
                             f"(e.g. {text}T00:00:00Z), not a date alone ({text!r})")
        try:
            return cls(hlc=hlc_of_datetime(parse_rfc3339(text)) + precision(text) - 1, label=text)
        except ValueError:
            raise InputError(f"`{option}` takes an event id or an RFC 3339 time, not {text!r}") from None


UNITS = {2: 3_600_000_000, 4: 60_000_000, 6: 1_000_000}
"""A time of day's digits (``10``, ``10:11``, ``10:11:09``) → the microseconds its last one spans."""


def precision(text: str) -> int:
    """How many microseconds the time ``text`` names: a time is the whole of
    its last unit, so ``10:11:09Z`` (as Baton prints ``created_at``) is that
    second up to its last microsecond, ``10:11Z`` that minute, ``10:11:09.5Z``
    that tenth. A bound is the END of it: ``--until``/``--as-of`` take in what
    happened within it, ``--since`` (exclusive) what happened after it. 1 (the
    microsecond itself) for six digits of fraction or more, or a form not told."""
    clock = text[11:] if len(text) > 10 and text[10] in "Tt " else text.partition("T")[2]
    for zone in "Zz+-":  # the offset after the time of day is no part of its precision
        clock = clock.partition(zone)[0]
    whole, dot, fraction = clock.replace(",", ".").partition(".")
    if dot:
        digits = len(fraction.strip())
        return 10 ** (6 - digits) if 0 < digits < 6 else 1
    return UNITS.get(sum(c.isdigit() for c in whole), 1)


def _a_date(text: str) -> bool:
    """Whether ``text`` is a calendar date (``2026-12-05``, not ``2026-13-05``)."""
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True
