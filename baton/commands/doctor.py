"""``baton doctor``: what Baton sees here and whether it can work.

Runs without an initialised project (it then says how to make one). Each
check is ``ok``, ``warn`` or ``fail``; any ``fail`` exits 3.
"""

from __future__ import annotations

import os
import shlex
import sys
from importlib import metadata  # 20 ms: only doctor imports this module, and it is on no hook path
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from baton import __version__
from baton.background import running
from baton.commands import deferred
from baton.commands.context import Limits, Project, read_local
from baton.commands.identity import owner_notice
from baton.commands.leftovers import leftover_temporaries
from baton.commands.verify import OTHERS_FORGET, VerifyResult, behind_ref_advice, stray_note, verify_project
from baton.commands.writer_claim import place_check, takes_new_writer
from baton.domain.policy_trust import NOTHING_TO_TRUST, UNTRUSTED
from baton.domain.tracked_files import tracked_problem
from baton.domain.wording import counted
from baton.domain.writer_place import writer_finding
from baton.errors import BatonError
from baton.gitinfo import config_problem, environment_problem, object_format
from baton.ledger.files import DISK_FULL_ADVICE
from baton.model import frozen
from baton.policy import trust_file
from baton.project import ProjectPaths, git_toplevel, resolve_root
from baton.projections.runner import Progress
from baton.sync.signing import signers_problem
from baton.sync.state import diverged_line, sharing, state_problem
from baton.sync.tracked import tracked_baton_files

if TYPE_CHECKING:
    from baton.projections.runner import ProjectionRunner


@frozen
class Check:
    name: str
    status: str
    detail: str
    handoff: str | None = None
    """The handoff the check is about (an interrupted forget's), for an adapter's advice."""

    def to_json(self) -> dict:
        found = {"name": self.name, "status": self.status, "detail": self.detail}
        return found if self.handoff is None else {**found, "handoff": self.handoff}


@frozen
class DoctorResult:
    root: str
    initialized: bool
    checks: list[Check]

    @property
    def exit_code(self) -> int:
        return 3 if any(c.status == "fail" for c in self.checks) else 0

    def to_json(self) -> dict:
        status = "fail" if self.exit_code else ("warn" if any(c.status == "warn" for c in self.checks) else "ok")
        return {"version": __version__, "root": self.root, "initialized": self.initialized,
                "status": status, "checks": [c.to_json() for c in self.checks]}

    def render(self) -> str:
        lines = [f"baton {__version__} — project root {self.root}"]
        for c in self.checks:
            lines.append(f"  {c.status:<4}  {c.name}: {c.detail.replace('`restore_own_feed`', '--restore-own-feed')}")
        return "\n".join(lines)


def _versions() -> str:
    parts = []
    for dist in ("attrs", "cattrs", "orjson", "sqlite-utils", "dulwich", "mcp"):
        try:
            parts.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            parts.append(f"{dist} MISSING")
    return ", ".join(parts)


LOCK_WAIT = 5.0
"""How long doctor waits for the ledger lock to bring the index up to date:
past it, it reports the index as the last writer left it, and says the lock
is held (a holder that is stuck does not stop the diagnosis)."""


ExtraChecks = Callable[[Path, "str | os.PathLike | None"], list[tuple[str, str, str]]]
"""Checks an adapter adds (``baton.harnesses.wiring.doctor_checks``: the harness
wiring of this worktree), as ``(name, status, detail)``; given the project root
and the ``--project`` the user passed."""


def _git_checks(root: Path) -> list[Check]:
    """Whether ``root`` is in a git repository, and whether its own config can be read."""
    top = git_toplevel(root)
    found = [Check("git", "ok" if top else "warn",
                   f"repository at {top}" if top else "not a git repository: freshness checks will say 'unknown'")]
    unused = environment_problem(root)
    if unused:
        found.append(Check("git environment", "warn", unused))
    found_format = object_format(root) if top else None
    if found_format not in (None, "sha1"):
        found.append(Check("git object format", "warn", f"{found_format} (extensions.objectFormat): `baton sync` "
                           "supports SHA-1 repositories only, not yet SHA-256, and refuses to run here"))
    broken = config_problem(root) if top else None
    if broken:
        found.append(Check("git config", "warn", f"{broken}: git refuses this repository (`git status` says "
                           "why); Baton records handoffs as outside git (no head, branch or dirty state) "
                           "and takes the owner from your user config (~/.gitconfig), else the OS user. "
                           "Fix the file"))
    return found


def _owner_checks(opened: Project) -> list[Check]:
    """A default owner's source that breaks the owner rule (git's ``user.email``): passed over, said here."""
    passed_over = owner_notice(opened)
    return [Check("owner", "warn", passed_over)] if passed_over is not None else []


def _set_aside_checks(paths: ProjectPaths) -> list[Check]:
    """The quarantine (kept on purpose), and the temporary files a process killed mid-write left."""
    checks = []
    quarantined = list(paths.quarantine_dir.glob("*")) if paths.quarantine_dir.is_dir() else []
    if quarantined:
        checks.append(Check("quarantine", "warn", f"{counted(len(quarantined), 'file')} kept in .baton/quarantine/ "
                                                     "(torn tails and repairs; see docs/ledger.md)"))
    leftovers = leftover_temporaries(paths)
    if leftovers:
        checks.append(Check("leftovers", "warn", f"{counted(len(leftovers), 'leftover temporary file')} of a process "
                            f"killed mid-write (e.g. .baton/{leftovers[0]}; it may hold text a later forget erased): "
                            "`baton rebuild` removes them"))
    return checks


def _folder_checks(opened: Project, paths: ProjectPaths) -> list[Check]:
    """What is wrong with ``.baton/`` as a place to write: a full disk, a read-only
    folder, a missing ``.gitignore``, a damaged ``sync-state.json``."""
    found: list[Check] = []
    if opened.disk_full is not None:
        found.append(Check("disk", "fail", f"{opened.disk_full}: reading commands answer from memory (the index copied "
                           "there, or the ledger replayed), "
                           f"writing commands exit 1 (disk_full); {DISK_FULL_ADVICE}"))
    elif opened.read_only:
        found.append(Check("writable", "warn", f"{paths.baton_dir} is read-only here: reading commands answer from "
                           "memory (the index copied there, or the ledger replayed), writing commands exit 1 (read_only)"))
    if not paths.gitignore.exists():
        found.append(Check("gitignore", "warn", ".baton/.gitignore is missing; rerun `baton init`"))
    tracked, prefix = tracked_baton_files(opened)  # committed by mistake: git replaces or deletes them
    if tracked:
        found.append(Check("git tracking", "fail", tracked_problem(tracked, prefix)))
    if (damaged := state_problem(opened)) is not None:
        found.append(Check("sync state", "warn", damaged))
    if (damaged := signers_problem(opened)) is not None:
        found.append(Check("sync signers", "warn", damaged))
    return found


def diagnose(project: str | os.PathLike | None = None, *, extra: ExtraChecks | None = None,
             on_wait: Callable[..., None] | None = None, on_progress: Progress | None = None,
             verifying: Progress | None = None) -> DoctorResult:
    paths = ProjectPaths(resolve_root(project))
    root = paths.root
    checks = [Check("python", "ok" if sys.version_info >= (3, 11) else "fail", sys.version.split()[0])]
    deps = _versions()
    checks.append(Check("dependencies", "fail" if "MISSING" in deps else "ok", deps))
    checks += _git_checks(root)
    if extra is not None:
        checks += [Check(*found) for found in extra(root, project)]
    if not root.is_dir():  # a mistyped project path: `baton init` there would be refused too
        checks.append(Check("project", "fail", f"{root}: {'not a directory' if root.exists() else 'no such directory'}"))
        return DoctorResult(str(root), False, checks)
    if not paths.config.is_file():
        checks.append(Check("project", "warn", "not initialised; run `baton init`"))
        return DoctorResult(str(root), False, checks)
    try:
        opened = Project.open(root, limits=Limits(read_wait=LOCK_WAIT))  # see ``_index_check``
    except BatonError as exc:
        checks.append(Check("config", "fail", exc.message))
        return DoctorResult(str(root), True, checks)
    opened.on_wait, opened.on_progress = on_wait, on_progress
    checks.append(Check("config", "ok", f"project {opened.config.project_id}, fsync {opened.config.fsync}"))
    try:
        sources = opened.policy.sources
    except BatonError as exc:
        checks.append(Check("policy", "fail", exc.message))
        return DoctorResult(str(root), True, checks)
    checks += [Check("policy", "ok", ", ".join(sources) if sources else "the defaults"), _trust_check(opened)]
    checks += [Check("writer", *_writer_finding(opened)), *_owner_checks(opened)]
    checks += _folder_checks(opened, paths)
    try:
        verified = verify_project(opened, verifying)
        report = verified.report
        if problem := verified.project_problem():
            checks.append(Check("project id", "fail", problem))
        if (other := verified.other_project_problem()) is not None:
            checks.append(Check("ledger", "fail", other))
        checks.extend(Check("ledger", "fail", behind_ref_advice(b)) for b in verified.behind_ref)
        torn = [f.feed for f in report.feeds if f.torn]
        if report.ok:
            detail = f"{counted(report.event_count, 'event')} in {counted(len(report.feeds), 'feed')}, every chain verified"
            if torn:
                detail += f"; torn tail pending quarantine in {', '.join(torn)}"
            checks.append(Check("ledger", "warn" if torn else "ok", detail))
            feeds = {f.feed for f in report.feeds}
            for name, writer in verified.stray.items():
                checks.append(Check("ledger", "warn", f"{name}: {stray_note(name, writer, feeds)}"))
            checks.extend(_unfinished_forgets(verified))
        else:
            checks.append(Check("ledger", "fail", f"{counted(len(report.all_problems()), 'problem')}; run `baton verify`, "
                                                  "then a dry run of `baton repair` to see what it sets aside"))
    except BatonError as exc:
        checks.append(Check("ledger", "fail", exc.message))
    checks += _set_aside_checks(paths)
    pinned: str | None = None
    try:
        runner = _index_check(opened, paths, checks)
        pinned = runner.pinned_until
        unwritten = runner.unwritten()
        if unwritten:
            first = unwritten[0]
            checks.append(Check("unwritten", "warn", f"{counted(len(unwritten), 'materialized file')} could not be written "
                                f"(e.g. {first['path']}: {first['error']}); the ledger and the index hold "
                                "their content"))
        missing = runner.missing_materialized()
        if missing:
            checks.append(Check("materialized", "warn", f"{counted(len(missing), 'materialized file')} missing "
                                f"(e.g. {missing[0]}); run `baton rebuild` to restore them"))
        # this clone's own feed no longer continuing the remote's copy: never published
        shared = sharing(opened, copied=takes_new_writer(opened))
        if shared is not None and shared.get("diverged"):
            checks.append(Check("sync", "warn", diverged_line(shared)))
    except BatonError as exc:
        checks.append(Check("index", "fail", exc.message))
    finally:
        opened.close()
    checks += _kept_hooks(paths, pinned)
    return DoctorResult(str(root), True, checks)


def _index_check(opened: Project, paths: ProjectPaths, checks: list[Check]) -> "ProjectionRunner":
    """The index brought up to date, its check appended to ``checks``. A lock
    another process holds past ``LOCK_WAIT`` (a stuck one, say) is not waited
    for: the index is read as the last writer left it, and that is said."""
    opened.say_if_waiting()  # on a terminal, when another process holds the lock: for LOCK_WAIT at most
    runner = opened.reading()
    pinned = runner.pinned_until
    held = getattr(opened.ledger, "held_elsewhere", None)
    if not opened.read_only and held is not None and held():  # still held after the wait: the index as it is
        catch_up, pid = running(paths.baton_dir)
        # The catch-up may hold the lock (a replay) or wait for it like this command (a session's end
        # kept while another process held it): which one, the lock does not tell.
        lock = shlex.quote(str(paths.baton_dir / "ledger.lock"))
        who = (f"a catch-up in the background{f', pid {pid},' if pid is not None else ''} replays the ledger, "
               f"or waits for the process holding it (`lsof {lock}` names it): "
               "run `baton doctor` again when it ends" if catch_up else
               "a `baton rebuild`, `sync` or `gc` running, or a process stuck holding .baton/ledger.lock")
        checks.append(Check("index", "warn", f"not brought up to date: another process held the ledger lock "
                            f"for more than {LOCK_WAIT:g} s ({who}); shown as the last writer left it"))
    elif pinned:
        checks.append(Check("index", "warn", f"pinned at {pinned}; run `baton rebuild` to return to the present"))
    elif opened.read_only:  # no index is written: a copy in memory, or a replay there, answers
        why = "the disk holding .baton/ is full" if opened.disk_full is not None else ".baton/ is read-only here"
        if getattr(runner, "copied", False):
            checks.append(Check("index", "ok", f"{paths.index.name} read into memory and brought up to date there "
                                f"(not written: {why})"))
        else:
            checks.append(Check("index", "ok", f"replayed in memory ({paths.index.name} is not used: {why})"))
        if opened.disk_full is not None and not any(c.name == "disk" for c in checks):
            # the disk had room when the project was opened, too little for a write of the index
            checks.append(_folder_checks(opened, paths)[0])
    else:
        checks.append(Check("index", "ok", f"{paths.index.name} up to date"))
    return runner


def _unfinished_forgets(verified: VerifyResult) -> list[Check]:
    """A ``forget`` warning per unfinished forget: forget it again, or (another clone's) that clone's next sync finishes it."""
    checks = []
    for handoff, n in sorted(verified.report.unfinished_forgets.items()):
        left = f"{counted(n, 'payload')} it names {'is' if n == 1 else 'are'} still in the ledger"
        if handoff in verified.others_forgets:
            checks.append(Check("forget", "warn", f"the forget of handoff {handoff} is unfinished: {left}; "
                                f"{OTHERS_FORGET}"))
        else:
            checks.append(Check("forget", "warn", f"the forget of handoff {handoff} was interrupted: {left}"
                                f"{FORGET_AGAIN}", handoff=handoff))
    return checks


FORGET_AGAIN = "; forgetting it again erases them"
"""How an interrupted forget's detail ends (the command line adds the command, with what it needs to run unasked)."""

KEPT_WAITING = ": a catch-up brings the index up to date and runs them"
"""How the waiting kept hooks' detail ends (the command line adds how to run the catch-up by hand)."""


def _kept_hooks(paths: ProjectPaths, pinned: str | None = None) -> list[Check]:
    """Hooks kept while the index was too far behind, pinned (``pinned``: until when, while it still is)
    or the ledger locked (``baton.commands.deferred``): waiting for a catch-up — for the plain
    ``rebuild`` that unpins the index, while it is pinned — or set aside because they could not run."""
    found = []
    waiting = deferred.waiting(paths)
    if waiting:
        then = (f": the index is pinned at {pinned}; the plain `baton rebuild` that returns it to the present "
                "runs them" if pinned else KEPT_WAITING)
        found.append(Check("deferred hooks", "warn", f"{counted(len(waiting), 'hook')} kept while the index was too far "
                           "behind, pinned or the ledger locked (a session's end, a draft before compaction) wait in "
                           f".baton/deferred/{then}"))
    failed = deferred.failed(paths)
    if failed:
        first = failed[0]
        found.append(Check("deferred hooks", "warn", f"{counted(len(failed), 'kept hook')} could not run and were set aside "
                           f"in .baton/deferred/ (e.g. {first['name']}: {first.get('error') or 'unreadable'}); "
                           "delete the file once you have done its work by hand"))
    return found


def _trust_check(opened: Project) -> Check:
    """Whether this clone trusts the policy's widening settings (``baton.domain.policy_trust``)."""
    trust = opened.policy.trust or NOTHING_TO_TRUST
    return Check("policy trust", "warn" if trust.state == UNTRUSTED else "ok",
                 f"{trust.summary()} (trust is kept in {trust_file(opened.paths)})")


def _writer_finding(opened: Project) -> tuple[str, str]:
    """Whether this clone writes under an id of its own (``baton.domain.writer_place``)."""
    try:
        local = read_local(opened.paths)
        check = place_check(opened.paths, local) if local.get("writer") == opened.writer else None
    except BatonError:
        return "ok", opened.writer
    return writer_finding(opened.writer, check, local.get("copied_from"))
