"""Which files under ``.baton/`` git's index tracks by mistake (``baton.domain.tracked_files``),
for ``baton doctor``, ``baton status`` and ``baton sync``: git's index read with dulwich,
never a ``git`` process.

Cost: one read of the index file. Its bytes are searched for ``.baton/``'s
path first; the index is parsed only when they hold it (or are version 4,
whose paths are prefix-compressed), so a repository that tracks nothing
under ``.baton/`` (nearly all) pays one read and one search.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from baton.domain.tracked_files import tracked_by_mistake
from baton.gitinfo import locate

if TYPE_CHECKING:
    from baton.commands.context import Project


def baton_prefix(project: "Project") -> str | None:
    """``.baton/``'s path in the work tree as git's index spells it (``sub/.baton/``), or None
    outside a git work tree (or a ``.baton/`` outside it)."""
    where = locate(project.root)
    if where is None or where.worktree is None:
        return None
    rel = os.path.relpath(os.path.realpath(project.paths.baton_dir), os.path.realpath(where.worktree))
    if rel.startswith(".."):
        return None
    return rel.replace(os.sep, "/") + "/"


def tracked_baton_files(project: "Project") -> tuple[list[str], str]:
    """The files under ``.baton/`` git tracks that ``.baton/.gitignore`` ignores (paths relative to
    ``.baton/``), and ``.baton/``'s prefix in the work tree: ([], "") outside git, or when the
    index cannot be read (git itself then says why)."""
    prefix = baton_prefix(project)
    where = locate(project.root)
    if prefix is None or where is None:
        return [], ""
    index_path = os.path.join(where.git_dir, "index")
    try:
        with open(index_path, "rb") as f:
            data = f.read()
    except OSError:
        return [], ""
    if prefix.encode() not in data and data[4:8] != b"\0\0\0\4":
        return [], ""
    from dulwich.index import Index  # lazy: only when the index may track something under .baton/

    try:
        names = [bytes(path).decode("utf-8", "replace") for path in Index(index_path)]
    except (OSError, ValueError, AssertionError):
        return [], ""
    tracked = [name[len(prefix):] for name in names if name.startswith(prefix)]
    return tracked_by_mistake(tracked, _ignore_rules(project)), prefix


def _ignore_rules(project: "Project"):
    """``.baton/.gitignore``'s rules as a test (None: no such file, or it cannot be read)."""
    from dulwich.ignore import IgnoreFilter  # lazy: only when something under .baton/ is tracked

    try:
        with open(project.paths.gitignore, "rb") as f:
            rules = IgnoreFilter(f.read().splitlines())
    except OSError:
        return None
    return lambda path: bool(rules.is_ignored(path))
