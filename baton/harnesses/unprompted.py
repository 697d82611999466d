"""A session whose start claimed a baton before any prompt: the mark that says no request was made yet.

Claude Code and Gemini CLI run ``SessionStart`` when their TUI opens, before anything is typed
(``CommandHookAdapter.prompt_hook_files``): the brief a start delivers is put in front of the
conversation's first prompt, and reaches no model when the conversation ends (or is replaced)
before one. Where the harness's prompt hook is wired in the project, a start that claimed a baton
leaves a mark, ``.baton/cache/unprompted/SESSION``; the session's first prompt hook removes it
(``hook.prompted``: one ``unlink``, nothing read or written to the ledger). The session's end that
still finds it hands the baton on again (``harness_finish``, ``again``), and takes it away.

No mark is left when the prompt hook is not wired (an end could not tell a request from none), nor
when the prompt hook would not find it (its folder's ``.baton/`` is not the project's: a linked
worktree, a start whose ``cwd`` is below the project's root): the baton is then spent as before.
"""

from __future__ import annotations

import os

from baton.harnesses.hook import UNPROMPTED, mark_name, marked_folder
from baton.harnesses.protocol import USER_PROMPT

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any, Mapping


def prompt_wired(chosen: Any, folder: str) -> bool:
    """Whether one of ``chosen``'s hooks files in ``folder`` runs Baton's prompt hook (its
    command line ``… hook HARNESS EVENT``), as ``install-hooks --events prompt`` writes it."""
    event = next((name for name, kind in chosen.kinds.items() if kind == USER_PROMPT), None)
    if event is None:
        return False
    needle = f"hook {chosen.name} {event}"
    for relative in chosen.prompt_hook_files:
        try:
            with open(os.path.join(folder, relative), encoding="utf-8") as file:
                if needle in file.read():
                    return True
        except (OSError, UnicodeDecodeError):
            continue
    return False


def mark_path(baton_dir: str | os.PathLike, session_id: str | None) -> str | None:
    """Where session ``session_id``'s mark is in the project whose ``.baton/`` is ``baton_dir``."""
    name = mark_name(session_id.strip()) if isinstance(session_id, str) and session_id.strip() else None
    return os.path.join(baton_dir, *UNPROMPTED[1:], name) if name is not None else None


def leave_mark(chosen: Any, payload: Mapping[str, Any], project: str | os.PathLike | None,
               baton_dir: str | os.PathLike, session_id: str, baton_id: str) -> bool:
    """After a start of ``session_id`` that claimed baton ``baton_id``: leave its mark, when the
    harness starts before its first prompt, its prompt hook is wired and would find the mark.
    Whether it was left."""
    path = mark_path(baton_dir, session_id)
    if not chosen.prompt_hook_files or path is None:
        return False
    folder = marked_folder(chosen, payload, project)
    try:
        if not os.path.samefile(os.path.join(folder, ".baton"), baton_dir) or not prompt_wired(chosen, folder):
            return False
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as file:
            file.write(baton_id + "\n")
    except OSError:
        return False
    return True


def marked(baton_dir: str | os.PathLike, session_id: str | None) -> bool:
    """Whether session ``session_id``'s mark is still there: its start claimed a baton and no
    prompt of it was submitted since."""
    path = mark_path(baton_dir, session_id)
    return path is not None and os.path.exists(path)


def take_mark(baton_dir: str | os.PathLike, session_id: str | None) -> None:
    """Remove session ``session_id``'s mark (its end ran)."""
    path = mark_path(baton_dir, session_id)
    if path is not None:
        try:
            os.unlink(path)
        except OSError:
            pass
