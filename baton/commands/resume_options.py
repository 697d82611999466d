"""What ``baton resume`` accepts, checked before anything is read: the brief's
formats, and a session or harness only with ``--mark-resumed``.

Light on purpose: the MCP server's schemas name ``FORMATS``
(``baton.mcp_schemas``), and must not load the brief renderer for it
(``tests/test_mcp_imports.py``).
"""

from __future__ import annotations

from baton.errors import InputError

FORMATS = ("prompt", "md", "json")


def check_options(format: str, mark_resumed: bool, session: str | None, harness: str | None) -> None:
    """Raises InputError for an unknown format, or a session or harness given without ``mark_resumed``."""
    if format not in FORMATS:
        raise InputError(f"`format` must be one of {', '.join(FORMATS)}, not {format!r}")
    if not mark_resumed and (session is not None or harness is not None):
        given = " and ".join(f"`{n}`" for n, v in (("session", session), ("harness", harness)) if v is not None)
        raise InputError(f"{given} {'is' if ' and ' not in given else 'are'} recorded only with `mark_resumed`; "
                         "add it, or leave them out (nothing was written)")
