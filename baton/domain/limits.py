"""The one size limit every entry point applies to what it is given.

A handoff is a summary, not an archive: 1 MiB holds any real one many times
over (the largest example in ``examples/`` is under 4 KB), and past it the
cost of redaction, hashing and rendering grows with no benefit. The CLI
(arguments, ``--input``, ``--handoff-input``) and the MCP server (a tool's
arguments) refuse a larger input with exit 2 before reading any of it into a
command.
"""

from __future__ import annotations

from baton.errors import InputError

MAX_INPUT_BYTES = 1024 * 1024


def check_input_size(what: str, size: int, *, hint: str = "") -> None:
    """Raises:
        InputError (exit 2): ``size`` bytes is over :data:`MAX_INPUT_BYTES`.
    """
    if size > MAX_INPUT_BYTES:
        raise InputError(f"{what} is {size} bytes; the limit is {MAX_INPUT_BYTES} bytes (1 MiB)"
                         + (f" ({hint})" if hint else ""),
                         details={"bytes": size, "limit": MAX_INPUT_BYTES})
