"""The hybrid logical clock and the envelope's ``at`` timestamps."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime, timedelta, timezone

from baton.ledger.clock import hlc_of_datetime, next_hlc, parse_rfc3339, rfc3339_micros


def test_the_hlc_is_the_wall_clock_in_microseconds_when_it_is_ahead():
    assert next_hlc(1_700_000_000_123_456_789, 0) == 1_700_000_000_123_456


def test_the_hlc_is_one_above_the_highest_seen_when_the_wall_clock_is_behind():
    assert next_hlc(5_000_000, 7_000) == 7_001
    assert next_hlc(5_000_000, 4_999) == 5_000


def test_at_is_the_utc_time_to_the_microsecond():
    assert rfc3339_micros(1_700_000_000_123_456_789) == "2023-11-14T22:13:20.123456Z"
    assert rfc3339_micros(1_700_000_001_000_000_999) == "2023-11-14T22:13:21.000000Z"


def test_the_first_at_a_process_formats_is_right_even_at_the_epoch():
    """The date of the last second formatted is cached; the cache starts empty."""
    code = "from baton.ledger.clock import rfc3339_micros; print(rfc3339_micros(0))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "1970-01-01T00:00:00.000000Z"


def test_a_timestamp_without_an_offset_is_taken_as_utc():
    assert parse_rfc3339("2024-05-01T12:00:00").tzinfo == timezone.utc
    assert parse_rfc3339(" 2024-05-01T12:00:00z ") == datetime(2024, 5, 1, 12, tzinfo=timezone.utc)


def test_a_timestamp_with_an_offset_keeps_it():
    parsed = parse_rfc3339("2024-05-01T12:00:00+02:00")
    assert parsed.utcoffset() == timedelta(hours=2)
    assert hlc_of_datetime(parsed) == hlc_of_datetime(datetime(2024, 5, 1, 10, tzinfo=timezone.utc))
    assert hlc_of_datetime(datetime(1970, 1, 1, 0, 0, 1, 5, tzinfo=timezone.utc)) == 1_000_005
