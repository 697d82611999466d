"""The layers DESIGN.md draws: adapters (the CLI, the MCP server, the status page,
the harness hooks) call the application; nothing below them names one."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

BATON = Path(__file__).resolve().parents[1] / "baton"
ADAPTERS = ("baton.cli", "baton.cli_handlers", "baton.cli_input", "baton.cli_pipe", "baton.cli_read",
            "baton.completion", "baton.completion_words", "baton.mcp_server", "baton.mcp_prompts", "baton.mcp_schemas", "baton.web",
            "baton.harnesses")


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


@pytest.mark.parametrize("layer", ["domain", "ledger", "projections", "commands"])
def test_nothing_below_the_adapters_imports_one(layer):
    offenders = {str(p.relative_to(BATON)): sorted(m for m in _imports(p)
                                                  if any(m == a or m.startswith(a + ".") for a in ADAPTERS))
                 for p in (BATON / layer).rglob("*.py")}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_application_object_imports_no_adapter():
    imported = _imports(BATON / "app.py")
    assert sorted(m for m in imported if any(m == a or m.startswith(a + ".") for a in ADAPTERS)) == []


def test_the_ledger_imports_nothing_above_it():
    """DESIGN.md: ``ledger/`` knows envelopes, feeds, locks, hashes and replay;
    it imports only itself and the shared leaves (errors, canonical bytes, the
    model decorators and ``Value``), at the top of a module or inside a function."""
    allowed = ("baton.ledger", "baton.errors", "baton.canonical", "baton.model", "baton.values")
    offenders = {str(p.relative_to(BATON)): sorted(m for m in _imports(p) if m.startswith("baton")
                                                  and not any(m == a or m.startswith(a + ".") for a in allowed))
                 for p in (BATON / "ledger").rglob("*.py")}
    assert {k: v for k, v in offenders.items() if v} == {}
