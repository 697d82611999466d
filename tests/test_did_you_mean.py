"""One did-you-mean helper: every "did you mean" Baton offers (a mistyped
command or option, a remote, a handoff field, a log filter) is found by
``baton.domain.close_names.closest``, so all of them judge closeness alike."""

from __future__ import annotations

import ast
from pathlib import Path

BATON = Path(__file__).resolve().parents[1] / "baton"


def test_every_did_you_mean_goes_through_close_names_closest():
    calls = [f"{p.relative_to(BATON)}:{node.lineno}" for p in sorted(BATON.rglob("*.py"))
             if p != BATON / "domain" / "close_names.py"
             for node in ast.walk(ast.parse(p.read_text()))
             if isinstance(node, ast.Attribute) and node.attr == "get_close_matches"
             or isinstance(node, ast.alias) and node.name == "get_close_matches"]
    assert calls == []
