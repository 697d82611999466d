"""``baton doctor``'s reading of whether Codex trusts this project and Baton's hooks in it
(harness14 F11; the decision is ``baton.domain.codex_trust``).

It reads the user's Codex config, ``$CODEX_HOME/config.toml`` (``~/.codex/config.toml``
when ``CODEX_HOME`` is not set, as Codex reads it), and never writes it: the trust is the
person's to give, in Codex's ``/hooks`` screen.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

import orjson

from baton.domain.codex_trust import CodexHook, codex_trust
from baton.gitinfo import locate

HOOKS_FILE = ".codex/hooks.json"


def codex_home() -> Path:
    """Where Codex keeps the user's config: ``$CODEX_HOME``, else ``~/.codex``."""
    return Path(os.environ.get("CODEX_HOME") or Path("~/.codex").expanduser())


def _baton_hooks(config: Any, is_batons: Any) -> list[CodexHook]:
    found = []
    events = config.get("hooks") if isinstance(config, dict) else None
    for event, groups in (events or {}).items() if isinstance(events, dict) else ():
        for g, group in enumerate(groups if isinstance(groups, list) else []):
            inner = group.get("hooks") if isinstance(group, dict) else None
            for i, hook in enumerate(inner if isinstance(inner, list) else []):
                if isinstance(hook, dict) and is_batons(hook):
                    found.append(CodexHook(event, g, i, hook, group.get("matcher")))
    return found


def _forms(path: Path) -> list[str]:
    """A path as written and resolved (Codex names a folder by the path it was started in)."""
    forms = [str(path)]
    try:
        resolved = str(path.resolve())
    except OSError:
        return forms
    return forms if resolved in forms else forms + [resolved]


def _trust_roots(worktree: Path) -> list[str]:
    """Where Codex looks a folder inside a git repository up after the folder itself: the
    repository's root, a linked worktree's main checkout (codex ``resolve_root_git_project_for_trust``:
    the key its trust prompt writes for a folder in a repository)."""
    dirs = locate(worktree)
    if dirs is None or dirs.worktree is None:
        return []
    roots = _forms(Path(dirs.worktree))
    common = Path(dirs.common_dir)
    if common.name == ".git":
        roots += [f for f in _forms(common.parent) if f not in roots]
    return roots


def codex_trust_check(worktree: Path, root: Path, is_batons: Any) -> tuple[str, str, str] | None:
    """The ``harness codex (trust)`` check for Baton's hooks in ``worktree``'s hooks file
    (``is_batons``: whether a hook entry is one of Baton's), the project at ``root`` (a linked
    worktree's main checkout: Codex takes a folder's trust from it too). None: no hook of
    Baton's in the file (the ``harness codex`` check says what is missing)."""
    try:
        hooks = _baton_hooks(orjson.loads((worktree / HOOKS_FILE).read_bytes()), is_batons)
    except (OSError, orjson.JSONDecodeError):
        return None
    if not hooks:
        return None
    config = codex_home() / "config.toml"
    try:
        user_config = tomllib.loads(config.read_text(encoding="utf-8")) if config.is_file() else {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return ("harness codex (trust)", "warn", f"cannot read {config} ({exc}): whether Codex runs Baton's hooks "
                                                 "here is unknown")
    folders = _forms(worktree) + [f for f in _forms(root) if f not in _forms(worktree)]
    folders += [f for f in _trust_roots(worktree) if f not in folders]
    found = codex_trust(user_config, str(config), folders,
                        [f"{folder}/{HOOKS_FILE}" for folder in _forms(worktree)], hooks)
    once = " (`codex exec` alone: --dangerously-bypass-hook-trust)" if found.trust_step else ""
    return ("harness codex (trust)", found.status, found.detail + once)
