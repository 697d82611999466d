"""``baton handoff prepare [--from ID] [--trigger manual|threshold|hook]``.

Prepare gathers what Baton can *know* and hands back a template for what only
the person or agent can say. Prefilled: the repository head, branch, dirty
state and changed files (through dulwich: each a candidate artifact whose
role says what git saw — ``created`` for a new or untracked file, with every
file of an untracked directory listed, ``deleted``, ``modified``; an untracked
directory of more than ``PREPARE_FOLDER_FILES`` files is one entry of
``untracked_folders`` with its count instead, and the list stops at
``PREPARE_CHANGED_FILES``, tracked changes first, saying how many more; a harness's
configuration — ``.claude/``, ``.codex/``, ``.gemini/``, ``.cursor/``, ``.agents/``,
``.mcp.json``, which ``install-hooks`` and the harnesses write — is counted
among the changed files but never a candidate artifact; nor is a file a path
rule names, ``.env`` or a key, or one that leaves the worktree through a
symlink: a capture would keep only a marker of the first and refuse the
second, so they are listed under ``left_out`` with the rule or reason), the current
session objective of this owner and branch (if a session set one), the
trigger, and — with
``--from`` — the content of the checkpoint being continued. Everything a
successor needs that Baton cannot observe (current state, completed and
in-progress threads, decisions, evidence, next steps) is left empty and listed
under ``to_complete``: prepare never invents summary facts.

Prepare writes nothing. Complete the template and capture it with
``baton checkpoint create --input FILE`` (a new handoff) or, for a draft
given with ``--from``, ``baton handoff amend ID --input FILE``.
"""

from __future__ import annotations

import errno
import os
from typing import TYPE_CHECKING, Any

import orjson

from baton.canonical import pretty_bytes
from baton.commands.draft_fields import TO_COMPLETE, field_missing
from baton.commands.feed_vouch import check_copy
from baton.commands.identity import context_of
from baton.commands.ids import load_handoff, place_of
from baton.commands.objectives import get_session_objective
from baton.commands.project_snapshot import repository_snapshot
from baton.domain.handoff import handoff_to_json
from baton.domain.limits import PREPARE_CHANGED_FILES, PREPARE_COUNT_CAP, PREPARE_FOLDER_FILES
from baton.domain.paths import is_harness_configuration
from baton.domain.wording import counted
from baton.errors import InputError, StorageError, UnsafePath
from baton.model import frozen
from baton.policy import allowed_once_trusted, check_path_inside_root
from baton.repo_state import status_groups

if TYPE_CHECKING:
    from baton.commands.context import Deferral, Project

TRIGGERS = ("manual", "threshold", "hook")

_BASE_FIELDS = ("work", "summary", "decisions", "artifacts", "evidence", "failed_attempts", "open_items", "risks")


@frozen
class PrepareResult:
    template: dict[str, Any]
    repository: dict[str, Any] | None
    changed_files: tuple[str, ...]
    objective: dict[str, Any] | None
    source: str | None
    to_complete: tuple[dict[str, str], ...]
    revise_source: bool = False
    output: str | None = None
    left_out: tuple[dict[str, str], ...] = ()
    """Changed files kept out of the candidate artifacts: ``{path, reason}``,
    the reason a path rule's name (``dotenv-file``) or a path refusal's code
    (``symlink-escape``), with a ``note`` when the policy's untrusted ``allowed_roots``
    would allow the path."""
    exit_code: int = 0
    untracked_folders: tuple[dict[str, Any], ...] = ()
    """Untracked folders too full to list file by file: ``{path, files, at_least}``."""
    changed_files_more: int = 0
    """Changed files past ``PREPARE_CHANGED_FILES``, neither listed nor proposed."""
    unverified: tuple[str, ...] = ()
    """``--from`` a handoff no trusted key vouches for: the template continues an unverified
    handoff (``baton.domain.feed_vouch.copy_rule``)."""

    @property
    def next_command(self) -> str:
        if self.source and self.revise_source:
            return f"baton handoff amend {self.source} --input FILE"
        return "baton checkpoint create --input FILE"

    def to_json(self) -> dict[str, Any]:
        return {
            "template": self.template,
            "repository": self.repository,
            "changed_files": list(self.changed_files),
            "changed_files_more": self.changed_files_more,
            "untracked_folders": list(self.untracked_folders),
            "left_out": list(self.left_out),
            "session_objective": self.objective,
            "from": self.source,
            "to_complete": list(self.to_complete),
            "next": self.next_command,
            "output": self.output,
        } | ({"unverified": list(self.unverified)} if self.unverified else {})

    def render(self) -> str:
        lines = ["# Handoff template: Baton filled in what it observed; complete the rest, then run",
                 f"#   {self.next_command}"]
        repo = self.repository or {}
        if repo:
            lines.append(f"# repository: head {repo.get('head') or '(none)'}, branch {repo.get('branch') or '(none)'}, "
                         f"{'dirty' if repo.get('dirty') else 'clean'}, "
                         f"{counted(len(self.changed_files) + self.changed_files_more, 'changed file')}")
            if self.changed_files_more:
                lines.append(f"# changed files: the first {len(self.changed_files)} listed (tracked changes first), "
                             f"and {self.changed_files_more} more")
            if self.untracked_folders:
                lines.append("# untracked folders, not listed file by file: " + ", ".join(
                    f"{item['path']} ({item['files']}{' or more' if item['at_least'] else ''} files)"
                    for item in self.untracked_folders))
        else:
            lines.append("# repository: not a git repository")
        if self.left_out:
            lines.append("# not proposed as artifacts: " + ", ".join(
                f"{item['path']} ({item['reason']}{'; ' + item['note'] if item.get('note') else ''})"
                for item in self.left_out))
        lines += [f"# {line}" for line in self.unverified]
        if self.objective:
            lines.append(f"# session objective: {self.objective['objective']}")
        lines.append("# to complete:")
        lines += [f"#   {item['field']}: {item['hint']}" for item in self.to_complete]
        if self.output:
            lines.append(f"# template written to {self.output}")
        else:
            lines.append(orjson.dumps(self.template, option=orjson.OPT_INDENT_2).decode())
        return "\n".join(lines)


def prepare_handoff(
    project: "Project",
    *,
    source: str | None = None,
    trigger: str = "manual",
    output: str | None = None,
    force: bool = False,
    deferral: "Deferral | None" = None,
) -> PrepareResult:
    """``output``: also write the template (JSON) to this file, which must not
    exist yet unless ``force``. ``deferral``: a hook's (``Project.behind``).

    Raises: InputError (unknown trigger; ``output`` exists and no ``force``),
    NotFound / AmbiguousId for --from (exit 4); Conflict (exit 4): --from a withheld handoff.
    """
    if trigger not in TRIGGERS:
        raise InputError(f"`trigger` must be one of {', '.join(TRIGGERS)}, not {trigger!r}")
    runner = project.reading(deferral=deferral)
    repo = repository_snapshot(project.paths.worktree)
    groups = status_groups(project.paths.worktree, PREPARE_FOLDER_FILES, PREPARE_COUNT_CAP) if repo else None
    roles = changed_roles(groups) if groups is not None else {}
    changed, more = _bounded(roles, frozenset(groups.untracked) if groups is not None else frozenset())
    candidates, left_out = _artifact_candidates(project, changed)
    found = get_session_objective(runner, context_of(project))
    objective = found.to_json() if found is not None else None

    source_id = None
    unverified: tuple[str, ...] = ()
    if source is not None:
        parent = load_handoff(runner, source, here=place_of(project))
        source_id = parent.id
        unverified = check_copy(project, runner, [parent.id])
        template = _continuing_template(parent, trigger)
    else:
        template = _empty_template(objective, trigger)
    known = {a.get("path") for a in template.get("artifacts", []) if isinstance(a, dict)}
    template["artifacts"] = list(template.get("artifacts", [])) + [
        {"path": path, "role": roles[path]} for path in candidates if path not in known]
    if output is not None:
        _write_template(output, template, force=force)
    return PrepareResult(
        output=output,
        template=template,
        repository=repo,
        changed_files=tuple(changed),
        objective=objective,
        source=source_id,
        to_complete=tuple({"field": f, "hint": h} for f, h in TO_COMPLETE if field_missing(template, f)),
        revise_source=source_id is not None and "lineage" not in template,
        left_out=left_out,
        untracked_folders=tuple({"path": c.path, "files": c.files, "at_least": c.at_least}
                                for c in (groups.crowded if groups is not None else ())),
        changed_files_more=more,
        unverified=unverified,
    )


def _bounded(roles: dict[str, str], untracked: frozenset[str]) -> tuple[tuple[str, ...], int]:
    """The changed paths to list, sorted, at most ``PREPARE_CHANGED_FILES`` of them: tracked
    changes first (modified, deleted, staged), then untracked files; and how many were left off."""
    untracked_last = sorted(roles, key=lambda path: (path in untracked, path))
    kept = untracked_last[:PREPARE_CHANGED_FILES]
    return tuple(sorted(kept)), len(roles) - len(kept)


def _artifact_candidates(project: "Project", changed: tuple[str, ...]) -> tuple[list[str], tuple[dict[str, str], ...]]:
    """The changed files a capture would take as artifacts, and the others
    with why: a harness's configuration is left out silently; a file a path
    rule names (``.env``, ``id_rsa``: a capture keeps only a marker, or refuses
    a ``block`` rule) and one that leaves the worktree (a symlink out: a
    capture refuses it, exit 5) are left out and named, so the template, a
    detector's draft and a compaction draft capture."""
    policy = project.policy
    kept: list[str] = []
    left_out: list[dict[str, str]] = []
    for path in changed:
        if is_harness_configuration(path):
            continue
        rule = next((r for r in policy.redaction.path_rules if r.matches(path)), None)
        if rule is not None:
            left_out.append({"path": path, "reason": rule.name})
            continue
        try:
            check_path_inside_root(project.paths.worktree, path, policy.allowed_roots)
        except UnsafePath as exc:
            note = allowed_once_trusted(policy, project.paths.worktree, path)
            left_out.append({"path": path, "reason": exc.reason, **({"note": note} if note else {})})
            continue
        kept.append(path)
    return kept, tuple(left_out)


def _continuing_template(parent: Any, trigger: str) -> dict[str, Any]:
    """The ``--from`` handoff's own sections; a ready (or later) one is continued
    by a child (``lineage``), a draft or validated one is revised."""
    record = handoff_to_json(parent)
    template = {k: record[k] for k in _BASE_FIELDS if k in record}
    template["automation"] = {"trigger": trigger}
    if parent.status not in ("draft", "validated"):
        template["lineage"] = {"parents": [parent.id], "relation": "continue"}
    return template


def _empty_template(objective: dict[str, Any] | None, trigger: str) -> dict[str, Any]:
    """Every section empty, but the session's objective when one was set."""
    return {
        "work": {"title": "", "objective": objective["objective"] if objective else "",
                 "scope": [], "constraints": [], "definition_of_done": []},
        "summary": {"current_state": "", "completed": [], "in_progress": [], "discoveries": []},
        "decisions": [], "evidence": [], "failed_attempts": [], "open_items": [], "risks": [],
        "artifacts": [],
        "automation": {"trigger": trigger},
    }


def _write_template(output: str, template: dict[str, Any], *, force: bool) -> None:
    """Raises: InputError (``output`` exists and no ``force``; its folder is
    missing or not a folder; it is a folder), StorageError."""
    try:
        with open(output, "wb" if force else "xb") as out:
            out.write(pretty_bytes(template))
    except FileExistsError:
        if os.path.isdir(output):  # no ``force`` would write it: say so, not "pass force"
            raise InputError(f"cannot write the template to {output}: {os.strerror(errno.EISDIR)}",
                             details={"output": str(output)}) from None
        raise InputError(f"`output` {output} already exists; pass `force` to overwrite it",
                         details={"output": str(output)}) from None
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError) as exc:  # the path given, not the machine
        raise InputError(f"cannot write the template to {output}: {exc.strerror or exc}",
                         details={"output": str(output)}) from None
    except OSError as exc:
        raise StorageError(f"cannot write the template to {output}: {exc.strerror or exc}") from exc


def changed_roles(groups: Any) -> dict[str, str]:
    """Each changed path (a ``repo_state.StatusGroups``) with its artifact role:
    a staged new or an untracked file is ``created``, a missing one ``deleted``,
    any other change ``modified``."""
    roles = {path: "modified" for path in groups.modified}
    roles.update((path, "created") for path in (*groups.added, *groups.untracked))
    roles.update((path, "deleted") for path in groups.deleted)
    return roles
