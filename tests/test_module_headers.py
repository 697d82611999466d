"""A module's header says what it needs, and nothing is too long to read (issue 28).

Every import sits at the top of its module, except at the few places that
load a module on purpose later, each named here with its reason: the
application's and the CLI's dispatch to one use-case module per command,
optional heavy third-party modules marked ``# lazy: <reason>`` on the line,
and the loaders by name that keep the hook path to what a hook needs.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

BATON = pathlib.Path(__file__).resolve().parent.parent / "baton"

DISPATCHERS = {"app.py", "cli.py", "cli_run.py", "mcp_server.py"}
"""Where a use case is loaded when its command runs: ``from baton.commands import x``."""

LAZY_THIRD_PARTY = {"mcp", "dulwich", "sqlite_utils", "cattrs", "argparse_manpage"}
"""Heavy optional dependencies a path that does not use them must not pay for."""
LAZY_STANDARD = {"pathlib"}
"""The standard library's path objects: with ``urllib.parse`` and ``ipaddress``, which 3.11's
``pathlib`` imports, ~16 M instructions. The hook path holds its paths as strings
(``os.path``); what only a command off it runs turns one into a ``Path`` there."""

LOADERS_BY_NAME = {
    "events/names.py": "an event's family module, on first sight of its type",
    "projections/registry.py": "a projection's fold, on the first event it folds",
    "harnesses/__init__.py": "one harness adapter, the one a hook names",
    "harnesses/hook.py": "the hook's project half, only when an event needs the application; the notices' "
                         "writer, only when a hook leaves or settles a notice; the lone-surrogate repair, only for "
                         "a payload the parser refused",
    "cli_read.py": "the lone-surrogate repair, only for JSON the parser refused (off the hook path's imports)",
    "harnesses/protocol.py": "the recogniser of handoff requests, only for a prompt's metadata",
    "commands/lineage.py": "the lineage graph, only in a project with a branch",
    "commands/latest.py": "the archived-latest wording (teammate_archive), only when nothing is ready and the "
                          "newest handoff made ready was archived",
    "commands/context.py": "the writer-id claim, only when an id is minted or .baton/ is not where it was minted; "
                           "the background catch-up (baton.background), only when a command waits for the lock, its "
                           "index is behind past the fold limit or the lock is held past the wait",
    "policy.py": "the trust rules of a committed policy, only when a policy source holds a widening key",
    "launch.py": "the command line, when the command runs in this process (not relayed to the hook server); "
                 "the socket library (_socket), only to ask a hook server",
    "domain/lifecycle_table.py": "the handoff events' family, only when a claim records its handoff's resume (not "
                                 "for a session's draft)",
    "hook_server.py": "every module a hook may run, once, before the server takes requests",
    "commands/bootstrap.py": "the feed-vouch rule, only when another writer's handoff is among a brief's recent ones",
    "commands/harness_start.py": "the feed-vouch rule, only when a start that continues the conversation repeats "
                                 "a baton; a session's drafts (session_drafts), only after a compaction",
    "commands/ids.py": "the ledger's erasure scan, only when a token names a handoff with no record (a "
                       "forgotten one: is its forget unfinished?); the record model, only to read a record as one "
                       "(resume reads it as values: baton.domain.record_view)",
    "domain/record_view.py": "the record model (baton.domain.handoff), only for a stored record the values "
                             "decline (not shaped as a fold writes one)",
    "config.py": "the detector's settings checks, only for a config with a detector section",
    "commands/session_drafts.py": "what a draft still lacks (draft_fields), only when the session has a draft open",
    "commands/handoff_facts.py": "the repository's ignore rules (baton.git_status), only when a folder artifact "
                                 "is hashed; the record model (baton.domain.handoff), only for a carried record "
                                 "the stored reader declines (not shaped as a fold writes one)",
    "commands/synced_feed.py": "the ledger ref's reader (dulwich), only when this clone's own feed is damaged "
                               "and the ref may be there",
}
"""The loaders by module name (``__import__``), each with what it loads and when."""


def _modules():
    return sorted(p for p in BATON.rglob("*.py") if "__pycache__" not in p.parts)


def _names(node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    return ["." * node.level + (node.module or "")]


def _late_imports(path: pathlib.Path) -> list[str]:
    rel = path.relative_to(BATON).as_posix()
    source = path.read_text()
    lines = source.splitlines()
    late = []
    for function in ast.walk(ast.parse(source)):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            names = _names(node)
            line = lines[node.lineno - 1]
            if rel in DISPATCHERS and all(n.startswith("baton.commands") for n in names):
                continue
            if "# lazy:" in line and all(n.split(".")[0] in LAZY_THIRD_PARTY | LAZY_STANDARD for n in names):
                continue
            late.append(f"{rel}:{node.lineno}: {line.strip()}")
    return late


@pytest.mark.parametrize("path", _modules(), ids=lambda p: p.relative_to(BATON).as_posix())
def test_a_module_imports_what_it_needs_at_its_top(path):
    assert _late_imports(path) == []


def test_a_module_is_loaded_by_name_only_at_the_named_loaders():
    by_name = {p.relative_to(BATON).as_posix() for p in _modules()
               if "__import__(" in p.read_text() or "import_module(" in p.read_text()}
    assert by_name <= set(LOADERS_BY_NAME) | DISPATCHERS


def _module_name(path: pathlib.Path) -> str:
    parts = ["baton", *path.relative_to(BATON).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph() -> dict[str, set[str]]:
    """Which of Baton's modules each module imports when it is loaded."""
    modules = {_module_name(p): p for p in _modules()}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for statement in ast.parse(path.read_text()).body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            for node in ast.walk(statement):
                if isinstance(node, ast.ImportFrom):
                    base = node.module or ""
                    if node.level:
                        anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                        base = ".".join([*anchor, *([node.module] if node.module else [])])
                    targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
                elif isinstance(node, ast.Import):
                    targets = [alias.name for alias in node.names]
                else:
                    continue
                graph[name] |= {t for t in targets if t in modules and t != name}
    return graph


def test_no_module_imports_itself_through_others():
    graph = _import_graph()
    circles, done = [], set()
    for start in graph:  # a depth-first walk from each module, with an explicit stack
        stack, on_path = [(start, iter(sorted(graph[start])))], [start]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                on_path.pop()
                done.add(node)
            elif child in on_path:
                circles.append(on_path[on_path.index(child):] + [child])
            elif child not in done:
                stack.append((child, iter(sorted(graph[child]))))
                on_path.append(child)
    assert circles == []


LONGEST_FUNCTION = 80
"""Lines, decorators and docstring included: a longer one is split into named steps."""


def test_no_function_is_longer_than_eighty_lines():
    long = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - min([node.lineno, *(d.lineno for d in node.decorator_list)]) + 1
                if lines > LONGEST_FUNCTION:
                    long.append(f"{path.relative_to(BATON).as_posix()}:{node.lineno} {node.name} ({lines} lines)")
    assert long == []
