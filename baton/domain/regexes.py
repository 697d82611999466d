"""Regular expressions compiled on first use, not at import.

Compiling is most of what importing a rule table costs (``re`` keeps no cache
across processes), and a hook-path process uses few of the patterns it
imports: a prompt too long to be a handoff request never compiles the
request phrases, a brief with no assignment in it never compiles the
assignment scanner. ``lazy(regex, flags)`` is spelled like ``re.compile``
and behaves like its pattern; ``compiled`` is the shared cache behind it
(the secret rules' patterns use it directly). Pure: only ``re`` and
``functools``.
"""

from __future__ import annotations

import functools
import re

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook path needs none)
if TYPE_CHECKING:
    from typing import Any


@functools.lru_cache(maxsize=None)
def compiled(regex: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(regex, flags)``, once per process."""
    return re.compile(regex, flags)


class LazyPattern:
    """A pattern compiled the first time one of its methods (``match``,
    ``search``, ``sub``, ``finditer``…) or attributes is used."""

    __slots__ = ("regex", "flags", "_pattern")

    def __init__(self, regex: str, flags: int = 0) -> None:
        self.regex, self.flags = regex, flags
        self._pattern: re.Pattern[str] | None = None

    @property
    def compiled(self) -> bool:
        """Whether the pattern has been compiled yet (tests hold the laziness to it)."""
        return self._pattern is not None

    def __getattr__(self, name: str) -> Any:
        pattern = self._pattern
        if pattern is None:
            pattern = self._pattern = compiled(self.regex, self.flags)
        return getattr(pattern, name)

    def __repr__(self) -> str:
        return f"lazy({self.regex!r}, {self.flags})"


if TYPE_CHECKING:
    def lazy(regex: str, flags: int = 0) -> re.Pattern[str]:
        """To a type checker, the pattern it behaves as."""
else:
    lazy = LazyPattern  # spelled like the ``re.compile`` it stands for
