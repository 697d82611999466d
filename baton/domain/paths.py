"""Project-relative paths as plain strings: normalise them or refuse them.

A path in a handoff (an artifact, a file evidence ref, a scope entry) names a
place *inside* the project root, written with ``/``. This module is pure: it
looks only at the text. Whether a path really stays inside the root once
symlinks are followed is a question for the file system, answered by
``baton.policy.check_path_inside_root``.

``..`` is refused outright rather than collapsed: ``a/../b`` is ``b`` only when
``a`` is not a symlink, and the text alone cannot say. No honest handoff needs
it, so refusing costs nothing and removes a whole class of escapes.
"""

from __future__ import annotations

from baton.domain.regexes import lazy
from baton.errors import UnsafePath

# Codes carried by UnsafePath.reason, stable for --json consumers.
EMPTY = "empty"
NUL_BYTE = "nul-byte"
CONTROL_CHARACTER = "control-character"
BACKSLASH = "backslash"
HOME_REFERENCE = "home-reference"
ABSOLUTE = "absolute"
DRIVE_LETTER = "drive-letter"
URL = "url"
PARENT_REFERENCE = "parent-reference"
NOT_TEXT = "not-text"
# Used by baton.policy when the file system is consulted.
OUTSIDE_ROOT = "outside-root"
SYMLINK_ESCAPE = "symlink-escape"
SYMLINK_LOOP = "symlink-loop"

_CONTROL = lazy(r"[\x01-\x1f\x7f]")
_DRIVE = lazy(r"^[A-Za-z]:")
_URL = lazy(r"^[A-Za-z][A-Za-z0-9+.\-]+:/")
"""A URL (``file:///etc/passwd``, ``smb://host/share``): the scheme has two characters or more,
one is a drive letter. Taken as a relative path it would name a folder ``file:`` in the
project, while a person or a tool reading it follows the URL out of it."""


def lexical_problem(text: object, *, allow_outside: bool = False) -> tuple[str, str] | None:
    """The first textual hazard of ``text`` as ``(reason, explanation)``, or None.

    With ``allow_outside`` (the user configured allowed roots), absolute paths
    and ``..`` are left for the file-system check to judge; every other hazard
    is still refused.
    """
    if not isinstance(text, str):
        return NOT_TEXT, f"a path must be a string, not {type(text).__name__}"
    if text == "":
        return EMPTY, "a path must not be empty"
    if "\x00" in text:
        return NUL_BYTE, "it contains a NUL byte, which would truncate it at the operating system"
    if not text.isprintable() and _CONTROL.search(text):  # a control character is never printable
        return CONTROL_CHARACTER, "it contains a control character"
    if "\\" in text:
        return BACKSLASH, "it contains a backslash; write project paths with '/' (a backslash can hide '..\\' or a Windows drive)"
    if text.startswith("~"):
        return HOME_REFERENCE, "it starts with '~', a home-directory reference outside the project"
    if text[1:2] == ":" and _DRIVE.match(text):
        return DRIVE_LETTER, "it starts with a drive letter, which is absolute (or drive-relative) on Windows"
    if ":/" in text and _URL.match(text):
        return URL, "it is a URL, not a project path (a URL belongs in an evidence item of type 'url')"
    if not allow_outside:
        if text.startswith("/"):
            return ABSOLUTE, "it is absolute; project paths are relative to the project root"
        if ".." in text.split("/"):
            return PARENT_REFERENCE, "it contains a '..' component, which can climb out of the project root"
    return None


def project_path_problem(text: object) -> str | None:
    """Why ``text`` is not an acceptable project path, or None when it is."""
    problem = lexical_problem(text)
    return None if problem is None else problem[1]


def normalize_project_path(text: str) -> str:
    """The canonical form of a project-relative path: ``/``-separated, no
    ``.`` components, no repeated or trailing slashes; ``"."`` for the root.

    Raises:
        UnsafePath: the path is empty, absolute, has a ``..`` component, a NUL
            or control character, a backslash, a leading ``~``, a drive letter or a URL scheme.
    """
    problem = lexical_problem(text)
    if problem is not None:
        raise UnsafePath(text, *problem)
    parts = [p for p in text.split("/") if p not in ("", ".")]
    return "/".join(parts) if parts else "."


HARNESS_FOLDERS = frozenset({".claude", ".codex", ".gemini", ".cursor", ".agents"})
"""Folders that hold a coding harness's own configuration (settings, hooks, MCP
servers, skills, rules; ``.agents/skills/`` is where Codex, Gemini CLI and Cursor
read skills): what ``baton install-hooks`` writes, and what the
harness writes for itself (``.claude/settings.local.json``)."""
HARNESS_FILES = frozenset({".mcp.json"})
"""Files that configure a harness outside those folders (Claude Code's project MCP servers)."""


def is_harness_configuration(path: str) -> bool:
    """Whether the project path ``path`` configures a coding harness (``.claude/…``,
    ``.codex/…``, ``.gemini/…``, ``.cursor/…``, ``.agents/…``, ``.mcp.json``), at the root or in a
    subfolder: the harness's setup, never the work a handoff hands over. The
    instructions a person writes for agents (``AGENTS.md``, ``CLAUDE.md``,
    ``GEMINI.md``) are the project's own and are not."""
    parts = [p for p in path.split("/") if p not in ("", ".")]
    return bool(parts) and (parts[-1] in HARNESS_FILES or any(p in HARNESS_FOLDERS for p in parts[:-1]))
