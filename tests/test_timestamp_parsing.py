"""A record's timestamps are RFC 3339 date-times with a zone (``baton.domain.short_ids.parse_timestamp``).

They are read with string tests, not a compiled pattern (a pattern's compile is ~1 M
instructions of every hook-path process); these tests hold the reading to the pattern
it replaced (``RFC3339``), which stays here as the definition."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baton.domain.short_ids import parse_timestamp

RFC3339 = r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?([Zz]|[+-][0-9]{2}:[0-9]{2})"


def _by_the_pattern(text: str) -> datetime | None:
    """What the pattern's reading gave: the datetime, or None where it refused."""
    if not re.fullmatch(RFC3339, text):
        return None
    value = text[:-1] + "+00:00" if text[-1] in "Zz" else text
    m = re.match(r"^(.*?\.)(\d+)(.*)$", value) if "." in value else None
    if m and len(m.group(2)) > 6:
        value = m.group(1) + m.group(2)[:6] + m.group(3)
    try:
        return datetime.fromisoformat(value.replace("t", "T"))
    except ValueError:
        return None


def _read(text: str) -> datetime | None:
    try:
        return parse_timestamp(text)
    except ValueError:
        return None


@pytest.mark.parametrize("text, expected", [
    ("2026-09-02T14:30:00Z", datetime(2026, 9, 2, 14, 30, tzinfo=timezone.utc)),
    ("2026-09-02t14:30:00z", datetime(2026, 9, 2, 14, 30, tzinfo=timezone.utc)),
    ("2026-09-02T14:30:00.5+02:00", datetime(2026, 9, 2, 14, 30, 0, 500000, tzinfo=timezone(timedelta(hours=2)))),
    ("2026-09-02T14:30:00.123456789-05:30",
     datetime(2026, 9, 2, 14, 30, 0, 123456, tzinfo=timezone(-timedelta(hours=5, minutes=30)))),
])
def test_a_date_time_with_a_zone_is_read_to_the_microsecond(text, expected):
    assert parse_timestamp(text) == expected


@pytest.mark.parametrize("text", [
    "2026-09-02T14:30:00", "2026-09-02 14:30:00Z", "2026-09-02T14:30:00.Z", "2026-09-02T14:30:00.1234567890Z",
    "2026-09-02T14:30:00+0200", "2026-09-02T14:30:00Z\n", "２026-09-02T14:30:00Z", "2026-13-02T14:30:00Z",
    "2026-09-02T14:30:00+02:00 ", "", "2026-09-02",
])
def test_anything_else_is_refused_with_the_format_it_must_have(text):
    with pytest.raises(ValueError, match="RFC 3339 date-time with a zone"):
        parse_timestamp(text)


def test_a_value_that_is_not_text_is_refused():
    with pytest.raises(ValueError, match="RFC 3339"):
        parse_timestamp(20260902)  # type: ignore[arg-type]


_PARTS = st.sampled_from(["2026", "09", "02", "-", "T", "t", ":", "14", "30", "00", ".", "5", "123456789", "Z", "z",
                          "+02:00", "-05:30", "+", "1", "٣", " ", "\n", "x"])


@given(st.lists(_PARTS, max_size=14).map("".join))
def test_text_near_a_timestamp_is_read_as_the_pattern_read_it(text):
    assert _read(text) == _by_the_pattern(text)


@given(st.datetimes(timezones=st.timezones() | st.just(timezone.utc)), st.sampled_from(["", ".5", ".123456789"]),
       st.booleans())
def test_any_timestamp_is_read_as_the_pattern_read_it(moment, fraction, lower):
    text = moment.strftime("%Y-%m-%dT%H:%M:%S") + fraction
    offset = moment.utcoffset()
    if offset is None or offset == timedelta(0):
        text += "Z"
    else:
        sign, offset = ("-", -offset) if offset < timedelta(0) else ("+", offset)
        text += f"{sign}{offset.seconds // 3600:02d}:{offset.seconds % 3600 // 60:02d}"
    text = text.lower() if lower else text
    assert _read(text) == _by_the_pattern(text)
