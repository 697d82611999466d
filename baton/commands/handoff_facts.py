"""What the world says about a handoff: gathered here, judged in ``domain/``.

The domain is pure, so every fact freshness and the brief need — the git
head now, whether an artifact exists and what its content hashes to — is
collected by this module and passed in as values. What validation needs
besides (which handoff ids exist, what the policy finds, what an
allowlisted recheck returned) is ``baton.commands.validation_facts``:
reading a record's freshness (``resume``, a session start) runs nothing.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, Iterable

from baton import gitinfo
from baton.domain.freshness import ArtifactFact, freshness_from_facts
from baton.domain.redaction import MARKER
from baton.errors import UnsafePath
from baton.ledger.clock import rfc3339_micros
from baton.policy import check_path_inside_root
from baton.repo_state import repo_state

_HASH_CHUNK = 1 << 20


def now_timestamp(clock_ns: int) -> str:
    """A record timestamp: UTC RFC 3339 to the second (``2026-09-02T14:30:00Z``)."""
    return rfc3339_micros(clock_ns)[:19] + "Z"


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(_HASH_CHUNK), b""):
            digest.update(chunk)
    return "sha256:" + digest.hexdigest()


def is_marker(text: Any) -> bool:
    """A value redaction replaced: it names no real file."""
    return isinstance(text, str) and bool(MARKER.search(text))


# -- repository ----------------------------------------------------------------

def repository_snapshot(worktree: Path) -> dict[str, Any] | None:
    """``project.repository`` at capture: vcs, head, dirty, remote hint and branch
    of the current worktree (``ProjectPaths.worktree``, not the main one)."""
    state = repo_state(worktree)
    if state.vcs == "none":
        return None
    repo: dict[str, Any] = {"vcs": state.vcs}
    if state.remote_hint:
        repo["remote_hint"] = state.remote_hint
    if state.head:
        repo["head"] = state.head
    if state.dirty is not None:
        repo["dirty"] = state.dirty
    if state.branch:
        repo["branch"] = state.branch
    return repo


def worktree_label(paths: Any) -> str:
    """The current worktree as records name it: its path relative to the
    project root (``.`` for the main worktree), so the label means the same on
    every machine that lays its worktrees out alike."""
    if paths.worktree == paths.root:
        return "."
    return os.path.relpath(paths.worktree, paths.root)


def project_snapshot(project: Any) -> dict[str, Any]:
    """The record's ``project`` object for a capture made now."""
    out: dict[str, Any] = {"id": project.config.project_id, "root_hint": "."}
    repo = repository_snapshot(project.paths.worktree)
    if repo is not None:
        repo["worktree"] = worktree_label(project.paths)
        out["repository"] = repo
    return out


# -- artifacts -----------------------------------------------------------------

def artifact_fact(worktree: Path, rel: str, allowed_roots: Iterable[Path] = ()):
    """Observe one artifact path, relative to the current worktree: inside it
    (symlinks followed)? exists? hash?"""
    try:
        real = check_path_inside_root(worktree, rel, tuple(allowed_roots))
    except UnsafePath:
        return ArtifactFact(exists=False, inside_root=False, readable=False)
    if not real.exists():
        return ArtifactFact(exists=False)
    if not real.is_file():
        return ArtifactFact(exists=True)
    try:
        return ArtifactFact(exists=True, sha256=sha256_file(real))
    except OSError:
        return ArtifactFact(exists=True, readable=False)


def artifact_facts(worktree: Path, handoff: Any, allowed_roots: Iterable[Path] = ()) -> dict[str, Any]:
    """Facts for every artifact of a record, except paths redaction replaced."""
    roots = tuple(allowed_roots)
    out: dict[str, Any] = {}
    for artifact in handoff.artifacts:
        if artifact.path in out or is_marker(artifact.path):
            continue
        out[artifact.path] = artifact_fact(worktree, artifact.path, roots)
    return out


def live_freshness(worktree: Path, handoff: Any, allowed_roots: Iterable[Path] = ()):
    """The §10b freshness of a record right now in the current worktree
    (``FreshnessReport``): its HEAD and its files, not the main worktree's."""
    return freshness_from_facts(handoff, artifact_facts(worktree, handoff, allowed_roots),
                                gitinfo.head_commit(worktree))

