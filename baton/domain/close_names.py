"""The names closest to one that names nothing (a typo): every "did you mean"
Baton offers (a mistyped command or option, a remote, a handoff field, a log
filter) is found here, so all of them judge closeness alike. Pure.

Apart from ``baton.domain.wording`` (a noun's count, a clipped title), which
``resume`` and a brief load on the hook path: ``difflib`` is for a typo's hint
only."""

from __future__ import annotations

import difflib
from typing import Iterable

CLOSE = 0.6
"""How close (difflib's ratio) a name must be to another to be offered for it."""


def closest(given: str, known: Iterable[str], *, n: int = 3, cutoff: float = CLOSE) -> list[str]:
    """The names of ``known`` closest to ``given`` (at most ``n``, the closest
    first): what a mistyped name may have meant; none when nothing is close."""
    return difflib.get_close_matches(given, list(known), n=n, cutoff=cutoff)
