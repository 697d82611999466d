"""Whether Codex will run Baton's hooks in a project (harness14 F11): Codex loads a
project's ``.codex/`` (hooks and MCP servers) only in a folder the person trusted, and
runs each hook only while the hash of its definition equals the ``trusted_hash`` its
``/hooks`` screen recorded in the user's ``config.toml``. An untrusted folder, a hook never
trusted, or one whose definition changed since (an ``install-hooks`` that rewrote it) is
skipped without a word; ``baton doctor`` says which, and what to do.

The hash and the key are Codex 0.171.0's (openai/codex ``codex-rs/hooks/src/engine/
discovery.rs``, checked against ``hooks/list``'s ``currentHash`` of the real binary):
``sha256:`` and the SHA-256 of the compact JSON, keys sorted, of ``{"event_name":
"<event in snake_case>", "matcher": …, "hooks": [{"type": "command", "command": …,
"timeout": <seconds, 600 when unset>, "async": …, "statusMessage": …}]}`` — the matcher only
for the events that use one, ``statusMessage`` only when set; the key is
``<hooks file>:<event in snake_case>:<group index>:<hook index>``.

Pure: the adapter (``baton.harnesses.codex_trust``) reads the files and passes them parsed.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Sequence

import orjson

from baton.model import frozen

MATCHER_EVENTS = frozenset({"permission_request", "post_compact", "post_tool_use", "pre_compact", "pre_tool_use",
                            "session_start"})
"""The events whose matcher Codex keeps (and hashes); the others' matcher is ignored."""

TIMEOUTS = {"interrupt": (1, 3)}
"""Events whose hooks Codex gives a timeout of their own, and hashes with it: (the timeout without
one, the most it allows). 0.171.0 reports an ``Interrupt`` hook written without a timeout as
``timeoutSec`` 1 in ``hooks/list``, and one written with ``"timeout": 30`` as 3 — its trusted hash is
of that."""

DEFAULT_TIMEOUT = 600
"""Codex's timeout for a hook that names none, in seconds (part of the hash)."""


@frozen
class CodexHook:
    """One of Baton's hooks as a hooks file holds it, where it sits in it."""

    event: str
    """As the file names it: ``SessionStart``."""
    group: int
    """The matcher group's index under the event."""
    index: int
    """The hook's index in its group."""
    hook: dict[str, Any]
    """The hook's entry (``type``, ``command``, ``timeout``, …)."""
    matcher: Any = None


def event_label(event: str) -> str:
    """Codex's name for an event in keys and hashes: ``SessionStart`` → ``session_start``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()


def hook_key(hooks_file: str, hook: CodexHook) -> str:
    """The key Codex records the hook's trust under (``[hooks.state."<key>"]``)."""
    return f"{hooks_file}:{event_label(hook.event)}:{hook.group}:{hook.index}"


def hook_hash(hook: CodexHook) -> str:
    """The hash Codex pins a trusted hook to (``trusted_hash``)."""
    label = event_label(hook.event)
    timeout = hook.hook.get("timeout", hook.hook.get("timeoutSec"))
    default, most = TIMEOUTS.get(label, (DEFAULT_TIMEOUT, None))
    seconds = max(1, timeout) if isinstance(timeout, int) else default
    handler: dict[str, Any] = {"type": "command", "command": hook.hook.get("command"),
                               "timeout": seconds if most is None else min(seconds, most),
                               "async": bool(hook.hook.get("async", False))}
    if isinstance(hook.hook.get("statusMessage"), str):
        handler["statusMessage"] = hook.hook["statusMessage"]
    identity: dict[str, Any] = {"event_name": label, "hooks": [handler]}
    if label in MATCHER_EVENTS and isinstance(hook.matcher, str):
        identity["matcher"] = hook.matcher
    return "sha256:" + hashlib.sha256(orjson.dumps(identity, option=orjson.OPT_SORT_KEYS)).hexdigest()


@frozen
class CodexTrust:
    """What Codex will do with Baton's hooks here, as ``baton doctor`` says it."""

    status: str
    """``ok`` or ``warn``."""
    detail: str
    trust_step: bool = False
    """Whether trusting in Codex is the fix (the adapter adds how to run once without it)."""


def _table(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def codex_trust(user_config: dict[str, Any], config_name: str, folders: Sequence[str], hooks_files: Sequence[str],
                hooks: Sequence[CodexHook]) -> CodexTrust:
    """Whether Codex, given the user's parsed ``config.toml`` (``config_name``: how to name it;
    ``{}`` when there is none), trusts the project — ``folders``: the worktree and, for a linked
    one, its main checkout, either of which Codex takes the trust from — and runs each of
    ``hooks`` (Baton's, in the hooks file Codex names by each of ``hooks_files``: the path as
    written and resolved, whichever Codex used)."""
    if _table(user_config.get("features")).get("hooks") is False:
        return CodexTrust("warn", f"Codex runs no hooks: `[features] hooks = false` in {config_name}; Baton's "
                                  "MCP tools still work, but no brief at a session's start and nothing handed on at its end")
    projects = _table(user_config.get("projects"))
    level = next((_table(projects[f]).get("trust_level") for f in folders if f in projects), None)
    if level != "trusted":
        said = (f"marked `trust_level = {orjson.dumps(level).decode()}`" if level is not None
                else "not trusted")
        return CodexTrust("warn", f"Codex will load neither Baton's hooks nor its MCP server here: this folder is {said} "
                                  f"in {config_name}. Run `codex` here and trust the folder when it asks, then type "
                                  f"/hooks and trust Baton's {len(hooks)} hooks", True)
    states = _table(_table(user_config.get("hooks")).get("state"))
    untrusted, changed, off = [], [], []
    for hook in hooks:
        state = next((_table(states[k]) for k in (hook_key(f, hook) for f in hooks_files) if k in states), {})
        if state.get("enabled") is False:
            off.append(hook.event)
        elif "trusted_hash" not in state:
            untrusted.append(hook.event)
        elif state["trusted_hash"] != hook_hash(hook):
            changed.append(hook.event)
    if not (untrusted or changed or off):
        return CodexTrust("ok", f"Codex trusts this folder and Baton's {len(hooks)} hooks ({config_name})")
    parts = []
    if untrusted:
        parts.append(f"{', '.join(untrusted)} not trusted")
    if changed:
        parts.append(f"{', '.join(changed)} trusted as an earlier version of the hook (an `install-hooks` changed "
                     "it since)")
    if off:
        parts.append(f"{', '.join(off)} turned off")
    fix = "trust them" + (" and turn them on" if off else "")
    return CodexTrust("warn", f"Codex will skip Baton's hooks here: {'; '.join(parts)} (in {config_name}). Run "
                              f"`codex` here, type /hooks and {fix}", True)
