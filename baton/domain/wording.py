"""Words for text output: a number with its noun (``1 handoff``, ``2
handoffs``), the names closest to one that names nothing (a typo), and a
title cut to the width of one line of a table or a list (``clipped``)."""

from __future__ import annotations

import difflib
from typing import Iterable

CLOSE = 0.6
"""How close (difflib's ratio) a name must be to another to be offered for it."""


def counted(n: int, singular: str, plural: str | None = None) -> str:
    """``n`` and the noun it takes: ``singular`` for exactly 1, else ``plural``
    (by default ``singular`` + ``s``)."""
    return f"{n} {singular if n == 1 else (plural if plural is not None else singular + 's')}"


def closest(given: str, known: Iterable[str], *, n: int = 3, cutoff: float = CLOSE) -> list[str]:
    """The names of ``known`` closest to ``given`` (at most ``n``, the closest
    first): what a mistyped name may have meant; none when nothing is close."""
    return difflib.get_close_matches(given, list(known), n=n, cutoff=cutoff)


TITLE_WIDTH = 120
"""A title in a text table or list is shown up to this many characters (``--json``
has it whole): a title has no length limit, and one pasted document must not be
the whole listing."""


def clipped(text: str, width: int = TITLE_WIDTH) -> str:
    """``text`` on one line (each run of whitespace, newlines too, one space) as it
    is when at most ``width`` characters, else its first ``width - 1`` and an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "\u2026"
