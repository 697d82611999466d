"""Keeping a harness's personal file out of git, for this clone only.

Claude Code keeps ``.claude/settings.local.json`` personal: it is the file of
one person's machine, and Claude Code has git ignore it. When
``install-hooks`` creates such a file (``ConfigFile.clone_only``) in a git
repository, or finds one there that git neither tracks nor ignores
(``committable``), it adds one line naming it to the clone's ``info/exclude`` —
git's per-clone ignore file, never committed; not ``.gitignore``, which is
the team's. A linked worktree's ``info/exclude`` is the one in the common git
directory, which every worktree of the clone reads. The repository is found
by reading files (``gitinfo.locate``), never by running git.

What was added is recorded under ``.baton/install-originals/`` (beside the
originals ``install-hooks`` keeps), so ``--remove`` takes out exactly that
line, and only when ``install-hooks`` added it: a line the user wrote is
never touched. The record names the file relative to the git common
directory; ``--remove`` finds the clone's file again (``locate``), so a
copied or moved project only ever edits its own clone's file. When nothing
else changed the file since, removal gives back its bytes as they were (a
file Baton created is deleted again).

The file is edited in place, never replaced: the line is appended, and
removal rewrites the same inode, so its mode, owner and links stay.

The line is shared: every worktree of the clone reads the one
``info/exclude``. So ``--remove`` in one worktree keeps it while another
worktree of the repository still has the file (``sharing``), and hands its
record to that worktree's ``--remove``; the last one takes it out. A
symlinked ``info/exclude`` is followed only to a target inside the git
directory, and a file without write permission is left alone; both are
reported, never rewritten. The step is best effort: a failed write is a
warning, and the install finishes.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import orjson

from baton.config import write_bytes_atomic
from baton.errors import StorageError
from baton.gitinfo import locate, open_repo, work_trees
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
    skip: str = ""
    """Why the file is left as it is (a symlink out of the git directory, no write
    permission): then nothing is written and this is reported instead."""

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


def _clone_exclude(base: Path) -> tuple[Path, Path, Path] | None:
    """The clone's ``info/exclude`` for the worktree ``base``: (work tree, git common
    directory, the file), or None outside a git work tree."""
    where = locate(base)
    if where is None or where.worktree is None:
        return None
    return Path(where.worktree), Path(where.common_dir), Path(where.common_dir) / "info" / "exclude"


def _why_not(exclude: Path, common_dir: Path) -> str:
    """Why ``exclude`` cannot be edited in place ("" when it can): a symlink to a file
    outside the git directory, or a file without write permission (for this user, or
    marked read-only for everyone, which even root respects here)."""
    if exclude.is_symlink():
        target = Path(os.path.realpath(exclude))
        if not target.is_relative_to(Path(os.path.realpath(common_dir))):
            return f"{exclude} is a symlink to {target}, outside the git directory: left as it is"
    if exclude.exists() and (not os.access(exclude, os.W_OK) or not exclude.stat().st_mode & 0o222):
        return f"{exclude} is not writable: left as it is"
    return ""


def plan_exclude(base: Path, file: Path) -> ExcludeEdit | None:
    """The line to add to the clone's ``info/exclude`` so git ignores ``file`` (a
    personal file of the worktree ``base`` that ``install-hooks`` wrote into), or None:
    outside a git work tree, or the line is there already."""
    found = _clone_exclude(base)
    if found is None:
        return None
    worktree, common_dir, exclude = found
    resolved = Path(os.path.realpath(file))
    try:
        line = exclude_pattern(worktree, resolved)
    except ValueError:  # the file is not in that work tree
        return None
    old = _read(exclude)
    if old is not None and line.encode("utf-8") in old.splitlines():
        return None
    newline = old is not None and old != b"" and not old.endswith(b"\n")
    new = (old or b"") + (b"\n" if newline else b"") + line.encode("utf-8") + b"\n"
    record = {"exclude": "info/exclude", "line": line, "created": old is None, "newline": newline}
    return ExcludeEdit(exclude, old, new, _shown(exclude, base), record, _why_not(exclude, common_dir))


def plan_unexclude(record_path: Path, base: Path) -> ExcludeEdit | None:
    """Taking out of this clone's ``info/exclude`` (found again, whatever path the record
    names) the line ``install-hooks`` recorded at ``record_path``, or None: nothing
    recorded, outside git, or the line is no longer there."""
    raw = _read(record_path)
    if raw is None:
        return None
    try:
        record = orjson.loads(raw)
        line = str(record["line"]).encode("utf-8")
    except (orjson.JSONDecodeError, KeyError, TypeError):
        return None
    found = _clone_exclude(base)
    if found is None:
        return None
    _, common_dir, exclude = found
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
    return ExcludeEdit(exclude, old, new, _shown(exclude, base), skip=_why_not(exclude, common_dir))


def sharing(base: Path, relative: str) -> list[Path]:
    """The other worktrees of ``base``'s repository that still have the file ``relative``
    (the one the shared line ignores), main worktree first."""
    found = _clone_exclude(base)
    if found is None:
        return []
    here = os.path.realpath(found[0])
    return [Path(tree) for tree in work_trees(found[1])
            if os.path.realpath(tree) != here and os.path.lexists(os.path.join(tree, relative))]


def tracked(base: Path, relatives: list[str]) -> list[str]:
    """Those of ``relatives`` (files of the worktree ``base``) that git's index tracks: files the
    team commits, which a clone's own fix should not rewrite. None outside git."""
    repo = open_repo(base)
    if repo is None:
        return []
    try:
        index = repo.open_index()
        return [relative for relative in relatives if relative.encode("utf-8") in index]
    except (OSError, ValueError, KeyError):
        return []
    finally:
        repo.close()


def ignored(base: Path, relative: str) -> bool | None:
    """Whether git ignores the file ``relative`` of the worktree ``base`` (its ignore files,
    ``info/exclude``, the user's excludes file), or None: outside git, or the index tracks it."""
    repo = open_repo(base)
    if repo is None:
        return None
    try:
        from dulwich import ignore as rules  # lazy: doctor only
        if relative.encode("utf-8") in repo.open_index():
            return None
        config = repo.get_config_stack()
        # the common directory's info/exclude, which git reads in a linked worktree too
        # (dulwich's ``from_repo`` reads the worktree's own git directory's)
        filters = []
        for path in (os.path.join(repo.commondir(), "info", "exclude"), rules.default_user_ignore_filter_path(config)):
            try:
                filters.append(rules.IgnoreFilter.from_path(os.path.expanduser(path)))
            except OSError:
                continue
        manager = rules.IgnoreFilterManager(repo.path, filters, config.get_boolean(b"core", b"ignorecase", False))
        return bool(manager.is_ignored(relative))
    except (OSError, ValueError, KeyError):
        return None
    finally:
        repo.close()


def committable(base: Path, relative: str) -> bool:
    """Whether the file ``relative`` of the worktree ``base`` is there and git neither tracks nor
    ignores it (``ignored``): ``git add -A`` would commit it. A personal file so is what ``doctor``
    warns of, and what ``install-hooks`` adds the line for (tester28 T3)."""
    return os.path.lexists(base / relative) and ignored(base, relative) is False


def apply_edit(edit: ExcludeEdit, record_path: Path) -> None:
    """Write ``edit`` in place and, adding the line, its record at ``record_path`` (taking
    the line out, the caller deletes the record). Raises StorageError when a write fails."""
    try:
        if edit.new is None and not edit.exclude.is_symlink():
            edit.exclude.unlink(missing_ok=True)
        elif edit.new is None:  # a link someone made since: emptied, the link kept
            with open(edit.exclude, "r+b") as fh:
                fh.truncate()
        elif edit.old is None:
            edit.exclude.parent.mkdir(parents=True, exist_ok=True)
            with open(edit.exclude, "xb") as fh:
                fh.write(edit.new)
        elif edit.new.startswith(edit.old):
            with open(edit.exclude, "ab") as fh:  # appending: the file stays the same file
                fh.write(edit.new[len(edit.old):])
        else:
            with open(edit.exclude, "r+b") as fh:  # the same inode, its mode and links kept
                fh.write(edit.new)
                fh.truncate()
        if edit.record is not None:
            write_bytes_atomic(record_path, orjson.dumps(edit.record))
    except OSError as exc:
        raise StorageError(f"cannot update {edit.exclude}: {exc.strerror or exc}") from exc
