"""What a command redacted, named as its caller gave it.

A redaction names the record ``field`` it replaced (``open_items[0].description``):
the record's name, which is not what every caller typed. Each adapter holds its
own mapping from a record field to its own input — the command line to the flag
(``cli_handlers.record_fields``), the MCP server to its tool's argument path
(``mcp_server``) — and adds that name beside ``field`` with ``named_as_given``:
one walk, one mapping per surface. Pure: no adapter is imported here.
"""

from __future__ import annotations

import re
from typing import Any, Callable

_INDEX = re.compile(r"^[^\[]*\[(\d+)\]")


def field_of(path: str) -> str:
    """``open_items[0].acceptance_check`` → ``open_items``; ``work.title`` stays itself."""
    return path.split("[", 1)[0]


def item_of(path: str) -> int | None:
    """The list index a record path names first (``open_items[2].description`` → 2), or None."""
    found = _INDEX.match(path)
    return int(found[1]) if found else None


def named_as_given(redactions: Any, name_of: Callable[[str], str | None], key: str) -> list[Any]:
    """``redactions`` (each a mapping naming the record ``field`` it replaced), each whose field
    ``name_of`` names (a surface's mapping: None for a field the caller did not give by another
    name) with that name added under ``key``; ``field`` stays the record path."""
    named = []
    for item in redactions or ():
        field = item.get("field") if isinstance(item, dict) else None
        name = name_of(field) if isinstance(field, str) else None
        named.append({**item, key: name} if name else item)
    return named
