"""Harness integrations: one adapter module per harness (``baton.harnesses.protocol``
is the interface), the ``baton hook`` runner and ``baton install-hooks``.

Only the adapter a hook names is imported: a hook is one process per event.
"""

from __future__ import annotations

from baton.errors import InputError

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from baton.harnesses.protocol import CommandHookAdapter

ADAPTER_MODULES = {
    "claude-code": "baton.harnesses.claude_code",
    "codex": "baton.harnesses.codex",
    "gemini-cli": "baton.harnesses.gemini_cli",
    "cursor": "baton.harnesses.cursor",
}
HARNESSES = tuple(ADAPTER_MODULES)


def adapter(name: str) -> CommandHookAdapter:
    """The adapter of harness ``name``.

    Raises:
        InputError: no harness has that name.
    """
    module = ADAPTER_MODULES.get(name)
    if module is None:
        raise InputError(f"unknown harness {name!r}; the harnesses are: {', '.join(HARNESSES)}",
                         details={"harness": name, "harnesses": list(HARNESSES)})
    # __import__, not importlib.import_module: the import system's C path, which
    # `python -X importtime` reports (the hook's import test relies on it).
    return __import__(module, fromlist=["ADAPTER"]).ADAPTER
