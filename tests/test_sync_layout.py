"""``baton/sync/`` is a subsystem below the use cases (docs/architecture.md):
``commands/sync.py`` orchestrates it, nothing in it names a use case or an
adapter, and what the commands that do not sync import from it loads no
dulwich."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

BATON = Path(__file__).resolve().parents[1] / "baton"
ABOVE = ("baton.commands", "baton.app", "baton.cli", "baton.mcp_server", "baton.web", "baton.harnesses")


def _runtime_imports(path: Path) -> set[str]:
    """The modules ``path`` imports when it runs (not those under ``if TYPE_CHECKING:``)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text()))
    return found


def test_nothing_in_baton_sync_imports_a_use_case_the_application_or_an_adapter():
    offenders = {p.name: sorted(m for m in _runtime_imports(p) if any(m == a or m.startswith(a + ".") for a in ABOVE))
                 for p in (BATON / "sync").glob("*.py")}
    assert {name: found for name, found in offenders.items() if found} == {}


def test_the_signers_verify_audit_and_the_status_page_read_load_no_dulwich():
    code = ("import sys, baton.commands.verify, baton.commands.audit, baton.sync.signers\n"
            "print(sorted(m for m in sys.modules if m == 'dulwich' or m.startswith('dulwich.')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
