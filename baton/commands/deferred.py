"""Hooks kept for later: a session's end (or the draft before a compaction)
that met an index too far behind to fold in the hook's time (``IndexBehind``),
a ledger lock another process held past the hook's wait (``LedgerBusy``),
or an index pinned in the past (``IndexPinned``: ``rebuild --until``; kept
for the plain ``rebuild`` that returns it to the present, no process started).

Without this, such a hook folds nothing and records nothing: a session's end
would hand no baton on, and the session's work would be lost for the next
one. Instead, before the catch-up is handed to a process of its own
(``Project.behind``; ``Project.busy``: one that waits for the lock), what
the hook needs to do its work again is kept in ``.baton/deferred/``, one
file per hook, written atomically (a temporary file, fsynced, renamed); that
process, once it holds the lock and the index is up to date, runs them
oldest first and removes each (the application's ``run_deferred_hooks``).

What is kept is what the hook acts on, never the harness's whole payload
(which names a transcript outside the project): the harness, its event,
the session id (screened as every identifier is, before anything is kept),
the end's reason or the compaction's trigger (through the secret rules), and
the worktree the hook ran in (relative to the project root when inside it).

Run at most once in effect: a crash after a hook ran and before its file
was removed runs it again, and the ledger makes that second run a no-op (a
session ends once and hands a handoff on once; a session's draft is prepared
once). A hook that cannot run for good (the policy now refuses it, say) is
set aside as ``<name>.failed`` with its error, for ``baton doctor`` to report;
``.baton/deferred/`` is not a cache (``gc`` leaves it alone).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import orjson

from baton.domain.redaction import redact_text
from baton.errors import BatonError, ConfigError, InputError, LedgerBusy, PolicyBlock
from baton.project import KEPT_HOOK_SUFFIX, KEPT_PRE_COMPACT, KEPT_SESSION_END, ProjectPaths, resolve_root
from baton.values import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook path's modules need none)
if TYPE_CHECKING:
    from typing import Any, Callable

    from baton.commands.context import Project

SESSION_END = KEPT_SESSION_END
PRE_COMPACT = KEPT_PRE_COMPACT
KINDS = (SESSION_END, PRE_COMPACT)
"""What a hook may leave for later: the work that is lost if it is not done."""
SUFFIX = KEPT_HOOK_SUFFIX
FAILED = ".failed"


class DeferredHook(Value):
    """One hook kept for later (a file of ``.baton/deferred/``)."""

    name: str
    """The file's name: the time it was kept (ns) and the hook's pid, so names sort oldest first."""
    kind: str
    harness: str | None
    event: str | None
    """The event as the harness names it (``SessionEnd``, ``Stop``…)."""
    session: str
    at: str
    worktree: str = "."
    """Where the hook ran: relative to the project root, or absolute for a linked worktree outside it."""
    reason: str | None = None
    trigger: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "harness": self.harness, "event": self.event,
                "session": self.session, "at": self.at, "worktree": self.worktree, "reason": self.reason,
                "trigger": self.trigger}

    def worktree_in(self, root: Path) -> Path:
        """The worktree to run it in: the one the hook ran in while it is still
        one of this project's, else the project root."""
        where = root / self.worktree
        try:
            if where.is_dir() and resolve_root(where) == os.fspath(root):
                return where
        except Exception:  # noqa: BLE001 - a worktree removed or moved since: the project's own
            pass
        return root


class DeferredRun(Value):
    """A kept hook run by the catch-up: what it did, or why it was set aside."""

    hook: DeferredHook
    result: Any = None
    error: str | None = None
    waiting: bool = False
    """With ``error``: it still waits (the ledger busy, a damaged feed…), for the
    next catch-up or session start; else it was set aside for good."""
    busy: str | None = None
    """With ``waiting``, when what stopped it was the ledger lock, held by another
    process past the wait: why, without advice to a person (``LedgerBusy.reason``)."""

    def to_json(self) -> dict[str, Any]:
        done = self.result.to_json() if self.result is not None else None
        return {**self.hook.to_json(), "result": done, "error": self.error, "waiting": self.waiting}

    def render(self) -> str:
        what = f"{self.hook.harness or 'a harness'} {self.hook.event or self.hook.kind} of session {self.hook.session}"
        if self.error is not None and self.waiting:
            return f"The kept {what} still waits (it is tried again at the next catch-up): {self.error}"
        if self.error is not None:
            return f"Set aside the kept {what}: {self.error}"
        return f"Ran the kept {what}: {self.result.render()}" if self.result is not None else f"Ran the kept {what}."


def directory(paths: ProjectPaths) -> Path:
    return paths.deferred_dir


def keep(project: "Project", *, kind: str, harness: str | None, event: str | None, session: str,
         reason: str | None = None, trigger: str | None = None) -> str:
    """Keep a hook for the catch-up to run; its file's name. The session id and
    harness are screened first (``SecretInIdentifier``, as the hook itself
    would be refused), the free texts go through the secret rules.

    Raises:
        SecretInIdentifier: the session id or harness looks like a secret.
        OSError: the file could not be written (nothing is kept).
    """
    project.check_identifiers(session=session, harness=harness)
    rules = project.policy.redaction
    worktree = project.paths.worktree
    try:
        where = worktree.relative_to(project.root).as_posix() or "."
    except ValueError:
        where = str(worktree)
    now = time.time_ns()
    hook = DeferredHook(
        name=f"{now:020d}-{os.getpid()}", kind=kind, harness=harness,
        event=redact_text(event, rules) if event else None, session=session,
        at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now // 1_000_000_000)), worktree=where,
        reason=redact_text(reason, rules) if reason else None, trigger=redact_text(trigger, rules) if trigger else None)
    _write_durably(directory(project.paths), hook.name + SUFFIX, orjson.dumps(hook.to_json()))
    return hook.name


def _write_durably(folder: Path, name: str, data: bytes) -> None:
    """``data`` as ``folder/name``, whole or not at all, on disk before this returns."""
    folder.mkdir(mode=0o700, exist_ok=True)
    tmp = folder / f".{name}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, folder / name)
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise
    try:
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError:
        pass


def _names(paths: ProjectPaths, suffix: str) -> list[str]:
    try:
        found = os.listdir(directory(paths))
    except OSError:  # none kept (no folder), or none readable
        return []
    return sorted(n for n in found if n.endswith(suffix) and not n.startswith("."))


def any_pending(paths: ProjectPaths) -> bool:
    """Whether a hook waits to run (one ``listdir``; a session start asks ``ProjectPaths.hooks_waiting``,
    the same question, without loading this module)."""
    return paths.hooks_waiting()


def waiting(paths: ProjectPaths) -> list[str]:
    """The names of the files of the hooks waiting to run, oldest first (read nothing, change nothing)."""
    return _names(paths, SUFFIX)


def pending(paths: ProjectPaths) -> list[DeferredHook]:
    """The hooks waiting to run, oldest first. A file that does not read as
    one (damaged by hand) is set aside as it is (``<name>.failed``)."""
    hooks = []
    for name in _names(paths, SUFFIX):
        path = directory(paths) / name
        try:
            raw = orjson.loads(path.read_bytes())
            hook = DeferredHook(name=name[: -len(SUFFIX)], kind=raw["kind"], harness=raw.get("harness"),
                                event=raw.get("event"), session=raw["session"], at=raw.get("at") or "",
                                worktree=raw.get("worktree") or ".", reason=raw.get("reason"),
                                trigger=raw.get("trigger"))
        except FileNotFoundError:  # run and removed meanwhile by another process
            continue
        except (OSError, ValueError, KeyError, TypeError):
            try:  # kept as it is, for a person to read: ``failed`` reports it
                os.replace(path, path.with_name(name[: -len(SUFFIX)] + FAILED))
            except OSError:
                pass
            continue
        if hook.kind not in KINDS or not isinstance(hook.session, str):
            set_aside(paths, hook, f"{hook.kind!r} is not a hook Baton keeps")
            continue
        hooks.append(hook)
    return hooks


def failed(paths: ProjectPaths) -> list[dict[str, Any]]:
    """The hooks set aside: each as kept, with its ``error``."""
    found = []
    for name in _names(paths, FAILED):
        try:
            raw = orjson.loads((directory(paths) / name).read_bytes())
        except (OSError, ValueError):
            raw = {}
        found.append({"name": name, **(raw if isinstance(raw, dict) else {})})
    return found


def done(paths: ProjectPaths, hook: DeferredHook) -> None:
    """Remove a hook that ran (gone already: another process ran it too, which the ledger made a no-op)."""
    try:
        (directory(paths) / (hook.name + SUFFIX)).unlink()
    except FileNotFoundError:
        pass


def set_aside(paths: ProjectPaths, hook: DeferredHook, error: str) -> None:
    """Keep a hook that cannot run as ``<name>.failed``, with its error: no catch-up tries it again."""
    try:
        _write_durably(directory(paths), hook.name + FAILED, orjson.dumps({**hook.to_json(), "error": error}))
        done(paths, hook)
    except OSError:
        pass


ROUNDS = 20
"""How many times ``run_pending`` looks again for hooks kept while it ran
(each look that finds none ends it)."""


def run_pending(paths: ProjectPaths, run: Callable[[DeferredHook], Any]) -> tuple[DeferredRun, ...]:
    """Run every hook waiting, oldest first, with ``run`` (the application's),
    removing each once it ran; then look again, for hooks kept meanwhile by
    a hook that found this catch-up running (and so started none of its own).

    A hook refused for good (an input error, the secret policy) is set aside
    with its error. Any other error of Baton's that stops one (the ledger
    busy, still far behind, a damaged feed) stops them all: they stay, for
    the next catch-up or session start, and the last run says why. The
    catch-up itself succeeded: its command does not fail for them.
    """
    ran: list[DeferredRun] = []
    seen: set[str] = set()
    for _ in range(ROUNDS):
        hooks = [hook for hook in pending(paths) if hook.name not in seen]
        if not hooks:
            break
        for hook in hooks:
            seen.add(hook.name)
            try:
                result = run(hook)
            except BatonError as exc:
                # The project's configuration may be fixed, the ledger let go, a feed repaired: it waits.
                if not isinstance(exc, (InputError, PolicyBlock)) or isinstance(exc, ConfigError):
                    busy = exc.reason if isinstance(exc, LedgerBusy) else None
                    ran.append(DeferredRun(hook, error=exc.message, waiting=True, busy=busy))
                    return tuple(ran)
                set_aside(paths, hook, exc.message)
                ran.append(DeferredRun(hook, error=exc.message))
                continue
            done(paths, hook)
            ran.append(DeferredRun(hook, result))
    return tuple(ran)
