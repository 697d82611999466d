"""Wall time and the hybrid logical clock.

The HLC here is an integer count of microseconds that never goes below any
event already seen: ``next = max(wall_us, highest_seen + 1)``. It is the
classic HLC with the logical counter folded into the low digits, which keeps
it a single sortable integer in every envelope. When a clock steps backwards,
events keep their order; their ``at`` field still says the wall time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, timezone

WallClock = Callable[[], int]
"""Returns the current time in nanoseconds since the epoch."""


system_clock: WallClock = time.time_ns
"""The wall clock itself (no Python function around it: it is read on every append)."""


def next_hlc(wall_ns: int, highest_seen: int) -> int:
    return max(wall_ns // 1000, highest_seen + 1)


_last_second: tuple[int, str] = (-1, "")


def rfc3339_micros(ns: int) -> str:
    global _last_second
    seconds = ns // 1_000_000_000
    cached, prefix = _last_second
    if seconds != cached:  # appends come many to a second: format the date once
        prefix = datetime.fromtimestamp(seconds, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
        _last_second = (seconds, prefix)
    return prefix + "." + str(1_000_000 + ns // 1000 % 1_000_000)[1:] + "Z"


def parse_rfc3339(text: str) -> datetime:
    """Parse an RFC 3339 timestamp; a naive one is taken as UTC."""
    value = text.strip()
    if value.endswith(("Z", "z")):
        value = value[:-1] + "+00:00"
    parsed = datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed


def hlc_of_datetime(dt: datetime) -> int:
    return int(dt.timestamp() * 1_000_000)
