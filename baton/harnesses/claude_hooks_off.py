"""Whether Claude Code's own off switch, ``"disableAllHooks": true``, stops every hook in
this project (tester-use19 T14): then Baton's hooks never run — no brief at a session
start, no baton left at its end — while every file ``install-hooks`` wrote is in place.

Claude Code reads the key from the user's ``settings.json`` (in ``$CLAUDE_CONFIG_DIR``,
else ``~/.claude``), the project's ``.claude/settings.json`` and the clone's
``.claude/settings.local.json``, each later file overriding the one before; any value but
``false``, ``"false"`` or ``null`` turns hooks off (as Claude Code 2.1 reads it). Read only,
never written: the switch is the person's. A file that does not parse is passed over
(``baton doctor`` names it in its own check).
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson

KEY = "disableAllHooks"
PROJECT_FILES = (".claude/settings.json", ".claude/settings.local.json")


def user_settings() -> Path:
    """The user's Claude Code settings: ``$CLAUDE_CONFIG_DIR/settings.json``, else ``~/.claude/settings.json``."""
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path("~/.claude").expanduser()) / "settings.json"


def _value(path: Path) -> tuple[bool, object]:
    """(whether ``path`` sets the key, its value)."""
    try:
        config = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return False, None
    if not isinstance(config, dict) or KEY not in config:
        return False, None
    return True, config[KEY]


def hooks_off(base: Path) -> str | None:
    """What to tell the person when Claude Code would run no hook in the worktree ``base``
    (the file that turns them off named), else None."""
    setting: tuple[str, object] | None = None
    for path, shown in ((user_settings(), str(user_settings())),
                        *((base / name, name) for name in PROJECT_FILES)):
        found, value = _value(path)
        if found:
            setting = (shown, value)
    if setting is None or setting[1] is None or setting[1] is False or setting[1] == "false":  # 0 is not False here
        return None
    shown, value = setting
    return (f"Claude Code runs no hooks here: {shown} sets \"{KEY}\": {orjson.dumps(value).decode()}, so none of "
            "Baton's hooks run (no brief at a session start, no baton left at its end) though they are "
            f"wired; take the key out of {shown} (or set it to false) to turn hooks back on")
