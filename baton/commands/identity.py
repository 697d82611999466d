"""Who is working, and on which branch: the owner and branch a baton belongs to.

Resolved as session-handoff-baton.txt says — owner: the payload's, else git
``user.email``, else git ``user.name``, else the OS user name, else
``local``; branch: the payload's, else the current branch, else — HEAD
detached — the branch a rebase or bisect in progress detached it from, else
``(detached)`` (git forbids that name: no branch can receive what is left
there), else (no git repository) ``unknown``.
Git is read with dulwich (``baton.gitinfo``). Every failure falls back
silently to the next source: resolving an identity never stops a session.
Every source is held to the one rule an owner given with ``--owner`` is
(``identifiers.name_problem``: a visible character, no control character): a
git ``user.email`` with a newline or an ESC in it is passed over like an
unreadable one, for ``user.name``, then the OS user name — never stored as an
owner, which names a baton key, a stream and a file and is printed in output.
That is said, not silent (``passed_over_owner``): ``doctor`` warns, and
``session begin`` and ``bootstrap`` say it once, naming the setting, never its value.

Callers pass the current worktree (``ProjectPaths.worktree``), not the project
root: in a linked worktree the branch is that worktree's own HEAD, while the
owner's git config is the repository's shared one (git's common directory).
"""

from __future__ import annotations

import os

from baton import gitinfo
from baton.domain.identifiers import name_problem
from baton.domain.redaction import redact_strings
from baton.values import Value
from baton.writer_id import user_name

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook path's modules need none)
if TYPE_CHECKING:
    from typing import Callable

    from _typeshed import StrPath

FALLBACK_OWNER = "local"
FALLBACK_BRANCH = "unknown"
DETACHED_BRANCH = "(detached)"
"""The branch of a detached HEAD with no rebase or bisect in progress: git refuses the name
(``git check-ref-format --branch``), so no real branch is ever given what is left there."""


class SessionContext(Value):
    owner: str
    branch: str

    def to_json(self) -> dict:
        return {"owner": self.owner, "branch": self.branch}


def _clean(value: object) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _usable_owner(value: object) -> str | None:
    """A default owner's source (git's identity, the OS user) as an owner, or None when it
    is empty or breaks the identifier rule ``--owner`` is held to (``name_problem``)."""
    cleaned = _clean(value)
    return cleaned if cleaned is not None and name_problem(cleaned) is None else None


def resolve_owner(root: StrPath, explicit: str | None = None, *, cache: StrPath | None = None,
                  secret: Callable[[str], bool] | None = None) -> str:
    """``cache``: where git's identity may be kept between processes
    (``gitinfo.user_identity``); ``secret``: which values must never be kept there."""
    if _clean(explicit):
        return _clean(explicit)  # type: ignore[return-value]
    try:
        for value in gitinfo.user_identity(root, cache, secret=secret):
            if _usable_owner(value):
                return _usable_owner(value)  # type: ignore[return-value]
    except Exception:  # noqa: BLE001 - the spec: resolution failures fall back silently
        pass
    try:
        value = _usable_owner(user_name())
        if value:
            return value
    except Exception:  # noqa: BLE001
        pass
    return FALLBACK_OWNER


def passed_over_owner(root: StrPath, *, cache: StrPath | None = None,
                      secret: Callable[[str], bool] | None = None) -> str | None:
    """The one line that says a git identity setting was passed over for the default owner
    because it breaks the owner rule (``name_problem``), naming the setting and the owner
    Baton uses instead (and where that comes from); None when none was. Never the value."""
    try:
        email, name = gitinfo.user_identity(root, cache, secret=secret)
    except Exception:  # noqa: BLE001 - an unreadable identity is passed over silently, as by ``resolve_owner``
        return None
    passed: list[str] = []
    source = None
    for setting, value in (("user.email", email), ("user.name", name)):
        cleaned = _clean(value)
        if cleaned is None:
            continue
        problem = name_problem(cleaned)
        if problem is None:
            source = f"git {setting}"
            break
        passed.append(f"git {setting} {problem}")
    if not passed:
        return None
    owner = resolve_owner(root, cache=cache, secret=secret)
    if source is None:
        source = "the OS user name" if owner != FALLBACK_OWNER else "the last fallback"
    settings = " and ".join(f"`git config {p.split()[1]}`" for p in passed)
    return (f"{'; '.join(passed)}, which an owner may not hold: Baton uses {owner!r} ({source}) as the owner "
            f"instead; fix it with {settings}.")


def owner_notice(opened) -> str | None:
    """``passed_over_owner`` in an opened project's current worktree, read as ``project_owner`` reads it."""
    return passed_over_owner(opened.paths.worktree_folder, cache=os.path.join(opened.paths.cache_folder, "identity.json"),
                             secret=lambda value: _screened(opened, value) != value)


def resolve_branch(root: StrPath, explicit: str | None = None) -> str:
    if _clean(explicit):
        return _clean(explicit)  # type: ignore[return-value]
    try:
        value = _clean(gitinfo.current_branch(root)) or _clean(gitinfo.branch_in_progress(root))
        if value:
            return value
        if gitinfo.head_detached(root):
            return DETACHED_BRANCH
    except Exception:  # noqa: BLE001
        pass
    return FALLBACK_BRANCH


def resolve_context(root: StrPath, *, owner: str | None = None, branch: str | None = None,
                    cache: StrPath | None = None) -> SessionContext:
    return SessionContext(owner=resolve_owner(root, owner, cache=cache), branch=resolve_branch(root, branch))


def context_of(opened, *, owner: str | None = None, branch: str | None = None) -> SessionContext:
    """The owner and branch in an opened project's current worktree (``project_owner``)."""
    return SessionContext(owner=_clean(owner) or project_owner(opened),
                          branch=resolve_branch(opened.paths.worktree_folder, branch))


def project_owner(opened) -> str:
    """The owner in an opened project's current worktree, as batons take it
    (refused there when it looks like a secret: ``check_identifiers``). git's
    identity is cached under ``.baton/cache`` — unless it looks like a secret."""
    return resolve_owner(opened.paths.worktree_folder, cache=os.path.join(opened.paths.cache_folder, "identity.json"),
                         secret=lambda value: _screened(opened, value) != value)


def recorded_owner(opened, owner: str | None = None) -> str:
    """``owner`` (else ``project_owner``) as the ledger records an event's
    ``actor``: screened by the text rules (``ProjectContext.screen``), so a git
    name or email that looks like a secret reads ``[REDACTED:…]`` — the form a
    reader's owner is compared in (``handoff list --mine``, "(you)")."""
    return _screened(opened, owner if owner is not None else project_owner(opened))


def owner_stamp(opened) -> tuple | None:
    """What the owner in an opened project's current worktree is read from, cheaply
    (``gitinfo.identity_stamp``: the git config files' stats and the OS user's environment);
    None when no stamp can tell (a config that includes another file, or an unreadable one)."""
    try:
        return gitinfo.identity_stamp(opened.paths.worktree_folder, opened.identity_includes)
    except Exception:  # noqa: BLE001 - as every identity read: a failure means "read it again"
        return None


def owner_under(opened, stamp: tuple | None) -> str:
    """``recorded_owner(opened)``, kept on the project with ``stamp`` (``owner_stamp``) and
    resolved again only under another stamp (None: every time). A long-lived process (the MCP
    server, the status page) thus sees ``git config user.email`` changed at its next answer,
    while an unchanged identity costs a few ``stat`` calls and no config parse."""
    kept = opened.known_owner
    if stamp is not None and kept is not None and kept[0] == stamp:
        return kept[1]
    owner = recorded_owner(opened)
    opened.known_owner = (stamp, owner)
    return owner


def _screened(opened, value: str) -> str:
    screened = redact_strings(value, opened.policy.redaction, at="actor").payload
    return screened if isinstance(screened, str) else value
