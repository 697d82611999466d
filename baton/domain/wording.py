"""Words for text output: a number with its noun (``1 handoff``, ``2
handoffs``) and a title cut to the width of one line of a table or a list
(``clipped``). The names closest to a typo are ``baton.domain.close_names``'s
(``difflib``, which ``resume`` on the hook path does not need)."""

from __future__ import annotations


def counted(n: int, singular: str, plural: str | None = None) -> str:
    """``n`` and the noun it takes: ``singular`` for exactly 1, else ``plural``
    (by default ``singular`` + ``s``)."""
    return f"{n} {singular if n == 1 else (plural if plural is not None else singular + 's')}"


TITLE_WIDTH = 120
"""A title in a text table or list is shown up to this many characters (``--json``
has it whole): a title has no length limit, and one pasted document must not be
the whole listing."""


def clipped(text: str, width: int = TITLE_WIDTH) -> str:
    """``text`` on one line (each run of whitespace, newlines too, one space) as it
    is when at most ``width`` characters, else its first ``width - 1`` and an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "\u2026"


def hashing_words(done: int, total: int, path: str) -> str:
    """What a display of ``handoff validate``'s or ``handoff ready``'s hashing says as it begins the
    ``done + 1``-th of ``total`` artifacts a hook's capture left not hashed yet (``path``), and, once
    ``done`` is ``total``, that all are hashed: the command line's stderr and the MCP server's progress."""
    if done >= total:
        return f"hashed {counted(total, 'artifact')} a hook's capture left not hashed yet"
    return f"hashing {done + 1}/{total} artifacts a hook's capture left not hashed yet: {path}"
