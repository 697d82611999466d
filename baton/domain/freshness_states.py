"""The four freshness states of a handoff (§10b), named apart from the rules
that derive them (``baton.domain.freshness``): a session-start brief names
them in a delivered baton's freshness line, and a start with no baton waiting
loads neither the rules nor their three model classes. Pure data."""

from __future__ import annotations

FRESH = "fresh"
PARTIALLY_STALE = "partially_stale"
STALE = "stale"
UNKNOWN = "unknown"
FRESHNESS_STATES = (FRESH, PARTIALLY_STALE, STALE, UNKNOWN)
