"""The record's ``project`` object as a capture or an amend takes it now (git's
head, dirtiness, branch and remote, screened by the policy).

Apart from ``baton.commands.handoff_facts`` (what freshness and the brief
need) so that reading a record (``resume``, a session start) loads no git
status machinery (``baton.repo_state``, ``baton.git_status``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from baton.commands.handoff_facts import worktree_label
from baton.domain.redaction import redact_strings, rule_label
from baton.errors import PolicyBlock
from baton.policy import Policy, load_policy
from baton.repo_state import repo_state


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


def project_snapshot(project: Any, policy: Policy | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The record's ``project`` object for a capture made now, redacted by
    ``policy`` (the project's when omitted), and the redaction records of what
    was replaced: git names what Baton reads here (a branch, a remote's path)
    and they can hold a token, which the handoff's ``redactions`` must list
    like any field of the payload (``project.repository.branch``).

    Raises:
        PolicyBlock (exit 5): a "block" rule matched a repository field.
    """
    out: dict[str, Any] = {"id": project.config.project_id, "root_hint": "."}
    repo = repository_snapshot(project.paths.worktree)
    if repo is None:
        return out, []
    repo["worktree"] = worktree_label(project.paths)
    if policy is None:
        policy = load_policy(project.paths, project.config)
    # The text rules the last screen (``Project.screen``) applies, so the
    # value stored is the one this records.
    outcome = redact_strings(repo, policy.redaction, at="project.repository")
    if outcome.blocked:
        listed = ", ".join(f"{r.field} ({rule_label(r.rule, r.reason)})" for r in outcome.blocked)
        raise PolicyBlock(f"refused by secret policy: {listed}",
                          details={"blocked": [r.to_json() for r in outcome.blocked]})
    out["repository"] = outcome.payload
    return out, outcome.records()


def with_snapshot_redactions(redactions: Any, records: list[dict[str, Any]]) -> list[Any]:
    """A record's ``redactions`` with those of its current ``project`` snapshot:
    the previous snapshot's entries (``project.…``) are replaced, as the snapshot is."""
    kept = [r for r in (redactions if isinstance(redactions, list) else [])
            if not (isinstance(r, dict) and str(r.get("field", "")).startswith("project."))]
    return kept + records
