"""The two questions every command asks of the policy's settings, answered cheaply: whether a
policy document holds a setting that may widen it (only then are the trust rules of
``baton.domain.policy_trust`` loaded: ``baton.policy``), and whether a command is one a
``recheck_allowlist`` lists.

Apart from ``policy_trust`` so that a project whose policy widens nothing opens on the hook
path without loading the trust rules (``tests/test_hook_path_imports.py``). Pure.
"""

from __future__ import annotations

from typing import Any, Iterable

WIDENING_KEYS = ("allowed_roots", "recheck_allowlist", "disable_rules", "actions",
                 "entropy_threshold", "min_secret_length")
"""The policy keys whose values may widen or weaken the policy (``baton.domain.policy_trust``
judges which values do)."""


def may_widen(doc: dict[str, Any]) -> bool:
    """Whether a policy document holds a widening key with a value that is not an empty list
    or object (``baton init``'s ``"recheck_allowlist": []`` widens nothing)."""
    return any(key in doc and doc[key] not in ([], {}) for key in WIDENING_KEYS)


def lists_command(listed: Iterable[str], command: str) -> bool:
    """Whether ``command`` is one of ``listed``, exactly, after collapsing runs of whitespace:
    ``pytest -q`` does not list ``pytest -q; rm -rf ~``."""
    wanted = " ".join(command.split())
    return any(" ".join(allowed.split()) == wanted for allowed in listed)
