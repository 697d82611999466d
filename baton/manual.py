"""``baton man``: the manual page this Baton was installed with.

pip and pipx install ``docs/baton.1`` as ``<prefix>/share/man/man1/baton.1``,
where ``man baton`` finds it. ``uv tool install`` puts it in the tool's own
environment, which ``man`` does not search, so ``baton man | man -l -`` (or
``man "$(baton man --path)"``) shows it wherever Baton was installed from.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from attrs import frozen

from baton.errors import NotFound

PAGE = Path("share") / "man" / "man1" / "baton.1"


def manual_page_candidates() -> list[Path]:
    """Where the page may be: the environment's prefix (pip, pipx, uv), then a checkout's docs/."""
    checkout = Path(__file__).resolve().parent.parent / "docs" / "baton.1"
    return [Path(sys.prefix) / PAGE, checkout]


def manual_page_path() -> Path:
    for candidate in manual_page_candidates():
        if candidate.is_file():
            return candidate
    raise NotFound("no manual page installed with this Baton (looked in "
                   + ", ".join(str(c) for c in manual_page_candidates())
                   + "); docs/baton.1 in Baton's source is the same page")


@frozen
class ManualPage:
    """The page's path, and its roff source unless only the path was asked for."""

    path: Path
    text: str | None
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": str(self.path)}
        if self.text is not None:
            out["roff"] = self.text
        return out

    def render(self) -> str:
        return str(self.path) if self.text is None else self.text.rstrip("\n")


def manual_page(path_only: bool) -> ManualPage:
    path = manual_page_path()
    return ManualPage(path, None if path_only else path.read_text(encoding="utf-8"))
