"""Result objects: what every command returns to its adapter.

Each has ``to_json()`` (the stable ``--json`` shape) and ``render()`` (the
terse terminal text), plus an ``exit_code`` for outcomes that are reported
rather than raised (``verify`` finding a broken chain still prints its report).
"""

from __future__ import annotations

from typing import Any, Protocol


class Result(Protocol):
    exit_code: int

    def to_json(self) -> Any: ...

    def render(self) -> str: ...
