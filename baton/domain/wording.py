"""A number with its noun, for text output: ``1 handoff``, ``2 handoffs``, ``0 handoffs``."""

from __future__ import annotations


def counted(n: int, singular: str, plural: str | None = None) -> str:
    """``n`` and the noun it takes: ``singular`` for exactly 1, else ``plural``
    (by default ``singular`` + ``s``)."""
    return f"{n} {singular if n == 1 else (plural if plural is not None else singular + 's')}"
