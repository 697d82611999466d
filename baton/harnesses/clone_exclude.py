"""Keeping a harness's personal file out of git, for this clone only.

Claude Code keeps ``.claude/settings.local.json`` personal: it is the file of
one person's machine, and Claude Code has git ignore it. When
``install-hooks`` creates such a file (``ConfigFile.clone_only``) in a git
repository, it adds one line naming it to the clone's ``info/exclude`` —
git's per-clone ignore file, never committed; not ``.gitignore``, which is
the team's. A linked worktree's ``info/exclude`` is the one in the common git
directory, which every worktree of the clone reads. The repository is found
by reading files (``gitinfo.locate``), never by running git.

What was added is recorded under ``.baton/install-originals/`` (beside the
originals ``install-hooks`` keeps), so ``--remove`` takes out exactly that
line, and only when ``install-hooks`` added it: a line the user wrote is
never touched. When nothing else changed the file since, removal gives back
its bytes as they were (a file Baton created is deleted again).
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import orjson

from baton.config import write_bytes_atomic
from baton.errors import StorageError
from baton.gitinfo import locate
from baton.model import frozen

RECORD = "git-info-exclude.json"
"""The record of the line added, under the harness's ``install-originals`` folder."""


@frozen
class ExcludeEdit:
    """One change to a clone's ``info/exclude``: its bytes before and after
    (None: absent), as shown (``display``) and as recorded (``record``)."""

    exclude: Path
    old: bytes | None
    new: bytes | None
    display: str
    record: dict | None = None
    """What to record for ``--remove`` (None when taking the line out)."""

    @property
    def action(self) -> str:
        if self.new is None:
            return "deleted"
        return "created" if self.old is None else "updated"

    def diff(self) -> str:
        def lines(data: bytes | None) -> list[str]:
            return (data or b"").decode("utf-8", "replace").splitlines(keepends=True)

        return "".join(difflib.unified_diff(lines(self.old), lines(self.new),
                                            fromfile=f"a/{self.display}" if self.old is not None else "/dev/null",
                                            tofile=f"b/{self.display}" if self.new is not None else "/dev/null"))


def exclude_pattern(worktree: Path, file: Path) -> str:
    """The ``info/exclude`` line naming exactly ``file`` (anchored at the work
    tree's top, gitignore's special characters escaped)."""
    relative = file.relative_to(worktree).as_posix()
    escaped = "".join("\\" + c if c in "\\*?[" else c for c in relative)
    if escaped.endswith(" "):
        escaped = escaped[:-1] + "\\ "
    return "/" + escaped


def _shown(path: Path, base: Path) -> str:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return str(path)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StorageError(f"cannot read {path}: {exc.strerror or exc}") from exc


def plan_exclude(base: Path, file: Path) -> ExcludeEdit | None:
    """The line to add to the clone's ``info/exclude`` so git ignores ``file`` (a
    file of the worktree ``base`` that ``install-hooks`` creates), or None:
    outside a git work tree, or the line is there already."""
    where = locate(base)
    if where is None or where.worktree is None:
        return None
    resolved = Path(os.path.realpath(file))
    try:
        line = exclude_pattern(where.worktree, resolved)
    except ValueError:  # the file is not in that work tree
        return None
    exclude = where.common_dir / "info" / "exclude"
    old = _read(exclude)
    if old is not None and line.encode("utf-8") in old.splitlines():
        return None
    newline = old is not None and old != b"" and not old.endswith(b"\n")
    new = (old or b"") + (b"\n" if newline else b"") + line.encode("utf-8") + b"\n"
    record = {"exclude": str(exclude), "line": line, "created": old is None, "newline": newline}
    return ExcludeEdit(exclude, old, new, _shown(exclude, base), record)


def plan_unexclude(record_path: Path, base: Path) -> ExcludeEdit | None:
    """Taking out the line ``install-hooks`` recorded at ``record_path``, or None:
    nothing recorded, or the line is no longer there."""
    raw = _read(record_path)
    if raw is None:
        return None
    try:
        record = orjson.loads(raw)
        exclude, line = Path(record["exclude"]), str(record["line"]).encode("utf-8")
    except (orjson.JSONDecodeError, KeyError, TypeError):
        return None
    old = _read(exclude)
    if old is None:
        return None
    added = (b"\n" if record.get("newline") else b"") + line + b"\n"
    if old.endswith(added) and (not record.get("newline") or len(old) > len(added)):
        new: bytes | None = old[:-len(added)]  # nothing after it changed: the bytes as they were
    else:
        lines = old.splitlines(keepends=True)
        at = max((i for i, text in enumerate(lines) if text.rstrip(b"\r\n") == line), default=None)
        if at is None:
            return None
        new = b"".join(lines[:at] + lines[at + 1:])
    if record.get("created") and not new:
        new = None
    return ExcludeEdit(exclude, old, new, _shown(exclude, base))


def apply_edit(edit: ExcludeEdit, record_path: Path) -> None:
    """Write ``edit`` and, adding the line, its record at ``record_path`` (taking the line
    out, the caller deletes the record)."""
    try:
        if edit.new is None:
            edit.exclude.unlink(missing_ok=True)
        else:
            write_bytes_atomic(edit.exclude, edit.new)
        if edit.record is not None:
            write_bytes_atomic(record_path, orjson.dumps(edit.record))
    except OSError as exc:
        raise StorageError(f"cannot update {edit.exclude}: {exc.strerror or exc}") from exc
