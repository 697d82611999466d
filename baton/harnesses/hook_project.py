"""The half of a hook that works on the project: find it, open the
application object, do what the event means, shape the context to inject.

``baton.harnesses.hook`` (the runner) loads this module only when an event
needs the project: an ordinary prompt (no handoff request) is answered from
its payload alone, without the application and its models.
"""

from __future__ import annotations

import os

from baton.app import Baton, Limits
from baton.domain.shell_words import quote
from baton.domain.short_ids import short_id
from baton.errors import FolderGone, InputError
from baton.gitinfo import inside, parents_of, plain_path, real_path
from baton.harnesses import notices
from baton.harnesses.hook import UNPROMPTED, mark_name, marked_folder
from baton.harnesses.protocol import (
    PRE_COMPACT,
    SESSION_END,
    SESSION_START,
    USER_PROMPT,
    CommandHookAdapter,
    SessionMetadata,
)
from baton.launch import harness_process as read_harness_process  # the `baton` program's entry: loaded already
from baton.project import git_toplevel, named_elsewhere, resolve_root, resolve_worktree

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any, Mapping


def project_root(project: str | os.PathLike | None, cwd: str | None,
                 project_dir: str | None = None) -> tuple[str, str]:
    """``project_found`` without saying how it was found."""
    root, worktree, _above = project_found(project, cwd, project_dir)
    return root, worktree


def project_found(project: str | os.PathLike | None, cwd: str | None,
                  project_dir: str | None = None) -> tuple[str, str, bool]:
    """The project's root (its ``.baton/``) and the worktree to open: ``--project``,
    else ``$BATON_PROJECT``, else the Baton project of the harness's project folder
    (``project_dir``: ``$CLAUDE_PROJECT_DIR``), else of the hook's own folder, each only
    when the payload's ``cwd`` lies inside it, else the git top level of the payload's
    ``cwd`` (else of ours).

    When the session's folder is gone but a folder above it still holds the project (a
    subfolder removed by a branch switch), that project (``_above_the_gone``), and the third
    value is True: the caller records nothing there but for a session begun there (a project
    moved away from inside another project's work tree is not that project).

    The session's ``cwd`` moves with its agent's ``cd``: into a submodule or a vendored
    clone its git top level is that nested repository, not the project the session's
    start was recorded in. The folder the harness names, or the hook runs in, stays put;
    never one the payload's ``cwd`` is outside of (no path beyond the session's project).

    In a linked worktree the worktree is that worktree's top level, which opens the
    shared project (the main worktree's ``.baton/``) with the linked worktree
    as the current one: its branch, head and changes are the session's.
    """
    if project:
        return resolve_root(project), plain_path(os.fspath(project)), False
    start = plain_path(cwd) if cwd and _a_folder(cwd) else None
    if not os.environ.get("BATON_PROJECT"):
        own = _own_folder()
        for folder in (project_dir, own):
            found = _holding(folder, start)
            if found is not None:
                return (*found, False)
        found = _above_the_gone(cwd, project_dir) if start is None else None
        if found is not None:
            return (*found, True)
        if start is None and own is None:
            raise FolderGone(folder_gone(cwd or project_dir))
    root = resolve_root(None, cwd=start)
    return root, resolve_worktree(root, None, cwd=start), False


def folder_gone(named: str | None) -> str:
    """Why a hook finds no project: the session's folder (the payload's ``cwd``, else
    ``$CLAUDE_PROJECT_DIR``) is gone, and the hook's own folder with it — the project was
    moved to another file system (or deleted) while its harness ran in it."""
    where = f"the project folder {named}" if named else "the project folder"
    return f"{where} this session works in is gone (moved or deleted), and so is the folder this hook runs in"


def _above_the_gone(*named: str | None) -> tuple[str, str] | None:
    """The Baton project (root, worktree) of the nearest folder that still exists above a
    session folder that is gone (the payload's ``cwd``, else ``$CLAUDE_PROJECT_DIR``), when
    that folder is in a git work tree: a subfolder a branch switch removed (``repo/web/`` on
    a branch without it) leaves the project where it was. None when that folder holds no
    initialised project (the project itself moved or was deleted)."""
    for gone in named:
        if not gone or not os.path.isabs(gone):
            continue
        for folder in parents_of(plain_path(gone)):
            if _a_folder(folder):  # a branch switch removes folders of a git work tree only
                found = _holding(folder, None) if git_toplevel(real_path(folder)) is not None else None
                if found is not None:
                    return found
                break
    return None


def _a_folder(path: str) -> bool:
    """Whether ``path`` is a folder; False too when it cannot be one (a name longer than the
    file system allows, ``ENAMETOOLONG``: a payload's ``cwd`` of megabytes is a folder that is
    not there, not an internal error; ``os.path.isdir`` says False for every failure)."""
    try:
        return os.path.isdir(path)
    except (OSError, ValueError):  # ValueError: a NUL in the name
        return False


def _own_folder() -> str | None:
    """The hook process's working folder; None when it is gone (deleted under it)."""
    try:
        return os.getcwd()
    except OSError:
        return None


def _holding(folder: str | None, start: str | None) -> tuple[str, str] | None:
    """The Baton project (root, worktree) found from ``folder``, when ``start`` (the
    payload's ``cwd``) is that folder or inside it, and the project is initialised."""
    if not folder:
        return None
    try:
        here = real_path(folder)
        if not os.path.isdir(here) or (start is not None and not inside(real_path(start), here)):
            return None
        root = resolve_root(None, cwd=here)
        if not os.path.isfile(os.path.join(root, ".baton", "config.json")):
            return None
    except (OSError, RuntimeError):
        return None
    return root, resolve_worktree(root, None, cwd=here)


def amend_hint(draft: str) -> str:
    """How the agent completes the draft a prompt prepared: the command line,
    or over MCP a capture continuing it, which the session's end hands on like
    the draft itself. (MCP's ``handoff_amend`` would revise it in place too;
    this hook text is left as it is: tests/e2e/test_codex.py reads the draft's
    id from its `` `parent` ID``.)"""
    return (f" (`baton handoff amend {short_id(draft)} --input FILE`, or over MCP `handoff_capture` with "
            f"`parent` {draft})")


def session_hint(session_id: str) -> str:
    """The session line's way to pass the session id on the command line, beside the MCP
    tools' (``SessionStartResult.context_for``): a capture with it is the session's, so its
    end hands it on even while another session works on the branch."""
    return f", or `--session {quote(session_id)}` to `baton checkpoint create`"


RUN_IN_THEIR_PROCESS = frozenset({"claude-code", "codex", "gemini-cli"})
"""The harnesses whose hooks run as descendants of the process that holds the session (Claude Code's
and Gemini CLI's node process, through a shell; Codex's binary): the nearest ancestor of the hook
that is no shell or launcher (``launch.harness_process``) lives as long as the session does. Not
Cursor's, whose hooks an editor's helper processes run: its start records no process."""


def harness_process(harness: str | None) -> dict[str, object] | None:
    """The harness process this hook runs for, on this machine (``launch.harness_process``), for a
    harness of ``RUN_IN_THEIR_PROCESS``; None otherwise, or where it cannot be read."""
    return read_harness_process() if harness in RUN_IN_THEIR_PROCESS else None


def act(app: Any, metadata: SessionMetadata, *, no_request: bool = False) -> Any:
    """Call the application object's method for the event's kind. ``no_request``: an end
    whose session's start claimed a baton and that made no request since (its mark still
    there, ``hook_project.leave_mark``)."""
    if metadata.kind == SESSION_START:
        # The brief leaves room for the session line the answer ends with (``answer``): the id as the app checks it.
        also = session_hint(metadata.session_id.strip()) if metadata.session_id else ""
        return app.start_harness_session(metadata.session_id, harness=metadata.harness, source=metadata.source,
                                         also=also, process=harness_process(metadata.harness))
    if metadata.kind == PRE_COMPACT:
        # The draft and the detector's record of the compaction: one append.
        return app.prepare_for_compaction(metadata.session_id, harness=metadata.harness, trigger=metadata.trigger,
                                          event=metadata.event)
    if metadata.kind == USER_PROMPT:
        return app.detect({"handoff_request": 1.0 if metadata.handoff_request else None},
                          session=metadata.session_id, harness=metadata.harness, source="hook")
    if metadata.kind == SESSION_END:
        return app.finish_harness_session(metadata.session_id, harness=metadata.harness, reason=metadata.reason,
                                          event=metadata.event, unprompted=no_request)
    raise InputError(f"a {metadata.harness} {metadata.event} event means nothing to Baton")


def answer(chosen: CommandHookAdapter, metadata: SessionMetadata, payload: Any, run: Any, *,
           project: str | os.PathLike | None, write_wait: float, fold_limit: int | None = None) -> tuple[str, Any]:
    """Open the project the payload names, do what the event means, and return
    the answer for the harness with the result it came from. ``run`` (the
    runner's ``HookRun``) learns the project's ``.baton/`` for its notices."""
    where = chosen.get_project_context(payload)
    root, worktree, above = project_found(project, where.cwd, where.project_dir)
    run.baton_dir = os.path.join(root, ".baton")
    # Never wait on another process without limit: reads answer from the
    # index, writes give up with LedgerBusy. Nor fold more of the ledger than
    # fits in the hook's time: the rest is handed to a process of its own (``IndexBehind``).
    limits = Limits(write_wait=write_wait, read_wait=0.0, fold_limit=fold_limit)
    with Baton.open(worktree, limits=limits) as app:
        if above and not a_new_session(metadata) and not app.begun_here(metadata.session_id):
            # Found above a gone folder, and the session did not begin here: its project moved away
            # from inside this one's work tree. Nothing is recorded here, no notice left nor taken: the
            # hook says its folder is gone, on stderr (a start: to its agent).
            run.baton_dir, run.elsewhere = None, True
            raise FolderGone(folder_gone(where.cwd or where.project_dir))
        run.baton_dir = app.project.paths.baton_folder
        # An end whose session's start claimed a baton and that made no request since: its mark still there.
        no_request = (metadata.kind == SESSION_END and bool(chosen.prompt_hook_files)
                      and marked(run.baton_dir, metadata.session_id))
        result = act(app, metadata, no_request=no_request)
        if no_request:  # the end ran: the mark has done its work
            take_mark(run.baton_dir, metadata.session_id)
        if app.project.writer_change is not None:  # a copied project's first write took an id of its own
            run.leave_notice(app.project.writer_change.message, failed=False)
        if metadata.kind == SESSION_END:
            for notice in result.told:  # what the end did not do, for the next start
                run.leave_notice(notice.text, failed=False, handoff=notice.handoff, was=notice.was)
            if result.settles:  # what it did that an earlier end's notice said was not done
                run.settle(result.settles)
        if getattr(result, "kept", ()):  # kept hooks the start ran first: said with this brief's notices
            run.leave_kept(result.kept)
        context = getattr(result, "context", None)
        if metadata.kind == SESSION_START and context:
            context = result.context_for(complete_with=amend_hint(result.draft) if result.draft else "",
                                         also=session_hint(result.session_id))
        elif metadata.kind == USER_PROMPT and context and getattr(result, "draft", None):
            context = result.notice(complete_with=amend_hint(result.draft))
        if metadata.kind == SESSION_START and context:
            delivered = getattr(getattr(result.delivered, "record", None), "id", None)  # the baton it delivers
            waiting = notices.still_so(run.baton_dir, notices.take(run.baton_dir), delivered)
            context = notices.render(as_now(app, waiting)) + context
            context = from_elsewhere(project, chosen.get_project_context(payload).cwd) + context
        if metadata.kind == SESSION_START and chosen.prompt_hook_files:
            claimed = getattr(getattr(result, "delivered", None), "record", None)
            if claimed is not None and not result.delivered.unrecorded and metadata.session_id:
                kept = (context or "") if chosen.brief_with_first_prompt else ""
                if leave_mark(chosen, payload, project, run.baton_dir, metadata.session_id.strip(), claimed.id,
                              brief=kept) and kept:
                    context = None  # the first prompt's hook gives it (``hook.prompted``)
        if metadata.kind == USER_PROMPT and run.brief:  # the brief the start kept (``hook.prompted``)
            context = run.brief + (context or "")
    return chosen.render_notice(metadata, context), result


NEW_SESSION_SOURCES = frozenset({"startup"})
"""The ``source`` of a session start that begins a new session (Claude Code's, Codex's and Gemini
CLI's ``startup``); any other (``compact``, ``clear``, ``resume``) starts a session again."""


def a_new_session(metadata: SessionMetadata) -> bool:
    """Whether the event begins a new session: a session start whose ``source`` is
    ``NEW_SESSION_SOURCES``' or that names none (a harness that does not say). A
    repeated start (after a compaction, ``/clear``, a resume) is of a session that
    began before, as every other event is: found above a gone folder (``answer``),
    it is recorded only in a project where the session began."""
    return metadata.kind == SESSION_START and (metadata.source is None or metadata.source in NEW_SESSION_SOURCES)


def from_elsewhere(project: str | os.PathLike | None, cwd: str | None) -> str:
    """The brief's first line when ``--project`` or ``$BATON_PROJECT`` opened a project
    other than the one the session works in (the payload's ``cwd``, else the hook's
    folder): what it says and claims is that project's (``named_elsewhere``). It is
    what the setting is for — Baton's project kept beside the code, or one project for
    several folders — so the start still claims; a leftover setting is seen at once."""
    start = plain_path(cwd) if cwd and _a_folder(cwd) else None
    elsewhere = named_elsewhere(project, cwd=start)
    if elsewhere is None:
        return ""
    setting, named, own = elsewhere
    return (f"> ⚠️ This brief comes from the Baton project in `{named}`, which `{setting}` names, not from "
            f"this session's folder (`{own}`): a baton it delivers is claimed there. Unset or correct "
            f"`{setting}` for this folder's own.\n\n")


def as_now(app: Baton, waiting: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The notices that say a handoff was not handed on, as they are true now
    (``Baton.notices_as_now``)."""
    return app.notices_as_now(waiting, notices.FATE_WORDING)


# -- a session whose start claimed a baton before any prompt: the mark that says no request was made yet
#
# Claude Code and Gemini CLI run ``SessionStart`` when their TUI opens, before anything is typed
# (``CommandHookAdapter.prompt_hook_files``): the brief a start delivers is put in front of the
# conversation's first prompt, and reaches no model when the conversation ends (or is replaced)
# before one. Where the harness's prompt hook is wired in the project, a start that claimed a baton
# leaves a mark, ``.baton/cache/unprompted/SESSION``; the session's first prompt hook removes it
# (``hook.prompted``: one ``unlink``, nothing read or written to the ledger), as does the end of a turn the
# model answered (Claude Code's ``Stop``, ``TURN_END``: its bash mode, ``! cmd``, runs no prompt hook). The session's end that
# still finds it hands the baton on again (``harness_finish``, ``again``), and takes it away.
#
# No mark is left when the prompt hook is not wired (an end could not tell a request from none), nor
# when the prompt hook would not find it (its folder's ``.baton/`` is not the project's: a linked
# worktree, a start whose ``cwd`` is below the project's root): the baton is then spent as before.


def prompt_wired(chosen: Any, folder: str) -> bool:
    """Whether one of ``chosen``'s hooks files in ``folder`` runs Baton's prompt hook (its
    command line ``… hook HARNESS EVENT``), as ``install-hooks --events prompt`` writes it."""
    event = next((name for name, kind in chosen.kinds.items() if kind == USER_PROMPT), None)
    if event is None:
        return False
    needle = f"hook {chosen.name} {event}"
    for relative in chosen.prompt_hook_files:
        try:
            with open(os.path.join(folder, relative), encoding="utf-8") as file:
                if needle in file.read():
                    return True
        except (OSError, UnicodeDecodeError):
            continue
    return False


def mark_path(baton_dir: str | os.PathLike, session_id: str | None) -> str | None:
    """Where session ``session_id``'s mark is in the project whose ``.baton/`` is ``baton_dir``."""
    name = mark_name(session_id.strip()) if isinstance(session_id, str) and session_id.strip() else None
    return os.path.join(baton_dir, *UNPROMPTED[1:], name) if name is not None else None


def leave_mark(chosen: Any, payload: Mapping[str, Any], project: str | os.PathLike | None,
               baton_dir: str | os.PathLike, session_id: str, baton_id: str, brief: str = "") -> bool:
    """After a start of ``session_id`` that claimed baton ``baton_id``: leave its mark, when the
    harness starts before its first prompt, its prompt hook is wired and would find the mark.
    Whether it was left. ``brief``: the start's context, kept after the id for the first prompt's
    hook to give (``brief_with_first_prompt``)."""
    path = mark_path(baton_dir, session_id)
    if not chosen.prompt_hook_files or path is None:
        return False
    folder = marked_folder(chosen, payload, project)
    try:
        if not os.path.samefile(os.path.join(folder, ".baton"), baton_dir) or not prompt_wired(chosen, folder):
            return False
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as file:
            file.write(baton_id + "\n" + brief)
    except OSError:
        return False
    return True


def marked(baton_dir: str | os.PathLike, session_id: str | None) -> bool:
    """Whether session ``session_id``'s mark is still there: its start claimed a baton and no
    prompt of it was submitted since."""
    path = mark_path(baton_dir, session_id)
    return path is not None and os.path.exists(path)


def take_mark(baton_dir: str | os.PathLike, session_id: str | None) -> None:
    """Remove session ``session_id``'s mark (its end ran)."""
    path = mark_path(baton_dir, session_id)
    if path is not None:
        try:
            os.unlink(path)
        except OSError:
            pass
