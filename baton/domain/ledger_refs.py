"""Which git ref ``baton sync`` may own, and which ref it must never replace (pure: no I/O).

A sync moves its ledger ref to a commit of its own making — parentless the
first time — and pushes it. Pointed at a name git or a person already uses
(a tag, a branch, a remote-tracking ref, the stash, notes), it would replace
that ref's commit, here and on the remote: data loss. So Baton owns one
namespace, ``refs/baton/``, and a ledger ref must be a well-formed name in
it (``ledger_ref_problem``); and whatever the name, a ref that already
exists in this clone is replaced only when it holds a Baton ledger commit
(``local_ref_refusal``), as a remote's ref without ``format.json`` is
refused (``remote_ref_refused``).
"""

from __future__ import annotations

from baton.model import frozen

NAMESPACE = "refs/baton/"
"""The refs Baton owns: every ledger ref is one of them."""
DEFAULT_REF = NAMESPACE + "ledger"
"""The ledger ref a sync uses unless told another (``--ref``)."""

_FORBIDDEN = " ~^:?*[\\"
_OWNED_BY_OTHERS = (
    ("refs/heads/", "a branch"),
    ("refs/tags/", "a git tag"),
    ("refs/remotes/", "a remote-tracking ref"),
    ("refs/notes/", "git notes"),
    ("refs/stash/", "git's stash"),
    ("refs/replace/", "a git replace ref"),
    ("refs/bisect/", "a git bisect mark"),
    ("refs/original/", "a backup filter-branch keeps"),
)
"""Well-known namespaces of git and its users, named in a refusal so the person sees what was at stake."""


def _shape_problem(name: str) -> str | None:
    """Why ``name`` is not a ref name git accepts (``git check-ref-format``'s rules), or None."""
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in name):
        return "it contains a control character"
    if any(c in name for c in _FORBIDDEN):
        return "it contains a space or one of ~ ^ : ? * [ \\"
    if ".." in name or "@{" in name:
        return "it contains `..` or `@{`"
    if name.endswith(("/", ".")):
        return "it ends with `/` or `.`"
    for part in name.split("/"):
        if not part:
            return "it has an empty component (`//`)"
        if part.startswith("."):
            return "a component starts with `.`"
        if part.endswith(".lock"):
            return "a component ends with `.lock`"
    return None


def ledger_ref_problem(name: str) -> str | None:
    """Why ``name`` cannot be the ledger ref, worded to follow the parameter's name, or None: it
    must be a well-formed ref name under ``refs/baton/`` (``refs/baton/<name>``). Everything else
    belongs to git or to a person — branches, tags, remote-tracking refs,
    the stash, notes, ``HEAD`` and every name outside ``refs/`` — or to a
    hosting service (``refs/pull/``, ``refs/for/``, ``refs/meta/``…)."""
    way = (f"must be a ref under {NAMESPACE} (the default is {DEFAULT_REF}; another ledger on the same remote: "
           f"{NAMESPACE}<name>, for example {NAMESPACE}team)")
    if not name:
        return f"{way}, not {name!r} (an empty name)"
    if name.startswith(NAMESPACE) and len(name) > len(NAMESPACE):
        shape = _shape_problem(name)
        return None if shape is None else f"{way}: {name!r} is not a ref name git accepts ({shape})"
    if not name.startswith("refs/"):
        what = "a name outside refs/ (HEAD, FETCH_HEAD…) is git's own"
    else:
        owner = next((what for prefix, what in _OWNED_BY_OTHERS
                      if name.startswith(prefix) or name == prefix.rstrip("/")), None)
        what = (f"{name} is {owner}" if owner else
                f"{name} is outside {NAMESPACE}, where git, a person or a hosting service may keep refs")
    return (f"{way}, not {name!r}: {what}, and a sync replaces its ref's commit with a ledger commit of its own "
            "and pushes it")


@frozen
class LocalRef:
    """What this clone's ref of the ledger ref's name holds, as git stores it."""

    symbolic_target: str | None = None
    """The ref a symbolic ref points at (moving it would move that one)."""
    kind: str | None = None
    """The type of the object the ref names (``commit``, ``tag``, ``tree``, ``blob``), None when missing."""
    has_format: bool = False
    """The commit's tree holds a ``format.json`` file: a Baton ledger commit (the remote's test too)."""


def local_ref_refusal(name: str, found: LocalRef | None) -> str | None:
    """Why this clone's existing ref ``name`` must not be replaced by a ledger commit, or None
    (``found`` None: there is no such ref). Only a Baton ledger commit (a commit whose tree holds
    ``format.json``) is replaced; a ref whose object is missing is a ledger ref damaged here, rebuilt
    from the feeds. Anything else — a symbolic ref, an annotated tag, a commit of some other history
    — is someone's data: the sync stops before anything is imported or pushed."""
    if found is None:
        return None
    remove = f"git update-ref -d {name}"
    if found.symbolic_target is not None:
        what = f"is a symbolic ref to {found.symbolic_target} (a sync would move that ref)"
        remove = f"git symbolic-ref -d {name}"  # never update-ref: it would delete the ref it points at
    elif found.kind is None or (found.kind == "commit" and found.has_format):
        return None
    elif found.kind == "commit":
        what = "names a commit that is not a Baton ledger commit (its tree has no format.json)"
    else:
        what = f"names {'an annotated tag' if found.kind == 'tag' else 'a ' + found.kind}, not a Baton ledger commit"
    return (f"this clone's {name} {what}: it is not Baton's to replace, so nothing was imported or pushed and "
            f"the ref is as it was. Sync on another ledger ref under {NAMESPACE} (`ref`), or, if that ref is a "
            f"leftover nobody needs, delete it (`{remove}`) and sync again")
