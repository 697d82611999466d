"""Which of ``.baton/``'s files git may track, and what to say of those it must not (pure: no I/O).

``.baton/.gitignore`` (``baton init``) lets through the files a team commits
— ``config.json``, ``policy.json``, ``allowed_signers`` and itself — and
ignores the rest: the ledger, ``local.json`` (this clone's writer id), the
index, ``sync-state.json``. A file it ignores that git tracks anyway was
added on purpose past it (``git add -f .baton``), by mistake: git counts a
teammate's copies of those files as *ignored*, and overwrites or deletes
ignored files without asking — a ``git pull`` replaces this clone's writer
id and feeds with the committer's, a ``git stash`` or ``git checkout`` of a
branch without the commit cuts or deletes them (docs/sync.md, "A .baton/
committed to git"). A team that commits its feeds on purpose (docs/sync.md,
"Alternative: committing .baton/ledger/") un-ignores them in that file, so
they are not mistakes here.
"""

from __future__ import annotations

from typing import Callable, Iterable

MEANT_TO_BE_COMMITTED = (".gitignore", "config.json", "policy.json", "allowed_signers")
"""What ``.baton/.gitignore`` lets through as ``baton init`` writes it: the rule when that file is missing."""


def tracked_by_mistake(tracked: Iterable[str], ignored: Callable[[str], bool] | None) -> list[str]:
    """Those of ``tracked`` (paths relative to ``.baton/`` that git's index holds) that
    ``.baton/.gitignore`` ignores (``ignored``; None when that file is missing or unreadable:
    anything but ``MEANT_TO_BE_COMMITTED``), in order."""
    def mistake(path: str) -> bool:
        return ignored(path) if ignored is not None else path not in MEANT_TO_BE_COMMITTED

    return sorted(path for path in tracked if mistake(path))


def shown_paths(paths: list[str], prefix: str, most: int = 6) -> str:
    """``paths`` (relative to ``.baton/``) as git names them (``prefix``: ``.baton/``'s path in
    the work tree), the first ``most`` of them and how many more."""
    shown = ", ".join(prefix + path for path in paths[:most])
    return shown + (f" and {len(paths) - most} more" if len(paths) > most else "")


def tracked_problem(paths: list[str], prefix: str) -> str:
    """What ``baton doctor``, ``baton status`` and ``baton sync`` say of ``.baton/`` files git
    tracks by mistake: which, why it loses data, and the fix (``prefix``: ``.baton/`` in the work tree)."""
    return (f"git tracks {len(paths)} {'file' if len(paths) == 1 else 'files'} under {prefix} that "
            f"{prefix}.gitignore keeps out of git ({shown_paths(paths, prefix)}): committed by mistake (`git add "
            f"-f`)? A `git pull`, `git checkout` or `git stash` then replaces or deletes this clone's ledger, "
            f"writer id and index without asking. Untrack them, keeping the files, from the repository's top: "
            f"{untrack_command(prefix)}, and commit (docs/sync.md, \"A .baton/ committed to git\")")


def untrack_command(prefix: str) -> str:
    """The commands that untrack what ``.baton/.gitignore`` keeps out and keep the rest tracked
    (``prefix``: ``.baton/`` in the work tree); the files stay on disk."""
    return "`git rm -r -q --cached FOLDER && git add FOLDER`".replace("FOLDER", prefix.rstrip("/"))
