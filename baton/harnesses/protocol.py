"""The adapter protocol (spec §15): what every harness integration provides.

A harness reports its session lifecycle by running ``baton hook HARNESS
EVENT`` with a JSON payload on stdin and reading the answer on stdout. An
adapter knows only that harness's shapes: which of its events mean a session
started, is about to be compacted, or ended (``kinds``); where the payload
keeps the working directory and the session id (``get_project_context``,
``get_session_metadata``); how the harness wants context answered
(``render_notice``); and which project files configure it
(``configuration``, used by ``baton install-hooks``). It decides nothing:
``baton.harnesses.hook`` hands the metadata to the application object.

``subscribe_events`` is the spec's optional push interface. Every shipped
harness pushes by running a command, so none has one (``None``).

No adapter reads the transcript: ``transcript_path`` is never opened.

The values here (the payload's context and metadata, an adapter's hooks and
files) are named tuples (``baton.values.Value``), not attrs classes: immutable, compared by
value, and defined without attrs, whose import and class building are about
half of a process that only answers a prompt. ``baton hook … UserPromptSubmit``
with an ordinary prompt imports no attrs at all (``docs/performance.md``).
"""

from __future__ import annotations

import os

import orjson

from baton.domain.shell_words import quote, split
from baton.values import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (a prompt hook never needs it)
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable, Mapping, Protocol
else:
    Protocol = object  # HarnessAdapter is an interface for type checkers; at run time a plain base


SESSION_START = "session_start"
PRE_COMPACT = "pre_compact"
SESSION_END = "session_end"
USER_PROMPT = "user_prompt"
TURN_END = "turn_end"
"""A turn's end after its request went out (Claude Code's ``Stop``, the model answered, or its
``Interrupt``, the person stopped the turn): the session made a request, as a
prompt says; the hook removes the start's mark (``baton.harnesses.hook.prompted``) and does nothing
else. Wired with the prompt hook (its role is ``prompt``): a session whose first input runs no prompt
hook (Claude Code's bash mode, ``! cmd``) still sends the model a turn, and that turn's end says so."""
IGNORED = "ignored"
KINDS = (SESSION_START, PRE_COMPACT, SESSION_END, USER_PROMPT, TURN_END)

HOOK_ROLES = {"start": SESSION_START, "end": SESSION_END, "compact": PRE_COMPACT, "prompt": USER_PROMPT}
"""``install-hooks --events``: the names of the four hook events, the same in every harness."""
REQUIRED_ROLES = ("start", "end")
"""The events a baton needs (the brief at a start, the baton at an end): always wired."""
OPTIONAL_ROLES = ("compact", "prompt")
"""The events ``--events`` may leave out (docs/hooks.md, "What each hook costs"): ``baton doctor``
says nothing of their absence."""
DEFAULT_ROLES = tuple(role for role in HOOK_ROLES if role != "prompt")
"""Wired without ``--events`` in every harness: start, end and compact (free unless the harness
compacts). The prompt hook is wired by default only where it keeps a baton
(``CommandHookAdapter.default_roles``): elsewhere it would cost every prompt and keep none
(docs/hooks.md, "What each hook costs")."""


class ProjectContext(Value):
    """Where the harness says the session works (its ``cwd``), if it says, and the
    project folder it names for every hook (``project_dir``: Claude Code's
    ``$CLAUDE_PROJECT_DIR``), which stays put while the session's ``cwd`` moves."""

    cwd: str | None
    project_dir: str | None = None


def workspace_root(roots: object) -> str | None:
    """The folder a session works in, from Cursor's ``workspace_roots`` (docs/hooks.md, "Cursor"):
    the root holding the hook's own folder (the deepest, when roots nest: Cursor runs a project's
    hooks in the folder whose ``.cursor/hooks.json`` names them), else the first root that is a
    Baton project (``.baton/config.json`` in it), else the first root. None when none is named."""
    named = [root for root in roots if isinstance(root, str) and root] if isinstance(roots, list) else []
    if not named:
        return None
    try:
        here = os.path.realpath(os.getcwd())
    except OSError:
        here = None
    if here is not None:
        holding = [root for root in named if os.path.isabs(root)
                   and os.path.commonpath((here, os.path.realpath(root))) == os.path.realpath(root)]
        if holding:
            return max(holding, key=lambda root: len(os.path.realpath(root)))
    return next((root for root in named if os.path.isabs(root)
                 and os.path.isfile(os.path.join(root, ".baton", "config.json"))), named[0])


class SessionMetadata(Value):
    harness: str
    event: str
    """The event as the harness names it (``SessionStart``, ``PreCompress``…)."""
    kind: str
    """What it means to Baton: one of ``KINDS``, or ``ignored``."""
    session_id: str | None
    source: str | None = None
    """A start: startup, resume, clear or compact."""
    trigger: str | None = None
    """A compaction: manual or auto."""
    reason: str | None = None
    """An end: the harness's reason (exit, clear, logout…; ``turn`` for an end-of-turn hook)."""
    handoff_request: bool | None = None
    """A prompt: whether it is an explicit handoff request (§9.1). The prompt
    itself is never kept: only this conclusion leaves the adapter."""


class HookCommand(Value):
    """One hook ``install-hooks`` writes: the harness's event, an optional matcher."""

    event: str
    matcher: str | None = None
    timeout: int | None = None
    """How long the harness lets the command run, in the harness's unit, when Baton
    sets it for this event rather than for every hook (``matcher_groups``'s ``extra``)."""


class ConfigFile(Value):
    """A project file ``install-hooks`` merges into: JSON members, or a TOML table appended when missing."""

    path: str
    """Relative to the project root."""
    merge: Mapping[str, Any] | None = None
    """JSON: members to add where missing; Baton's hook in each ``hooks`` list and its
    ``mcpServers.baton`` entry replace the ones there (``baton.harnesses.install``)."""
    toml_table: str | None = None
    """TOML: a dotted table name (``mcp_servers.baton``) and ``toml_body``: appended when the
    table is absent, its keys' lines replaced when it is there."""
    toml_body: str = ""
    text: str | None = None
    """A whole file Baton owns (a rule file): written when absent or different."""
    note: str | None = None
    """One line ``install-hooks`` prints when it changes this file: what the change means."""
    omitted: tuple[tuple[str, ...], ...] = ()
    """JSON hooks: the signatures (``config_text.hook_signature``) of Baton's hooks to take out of the
    file, for the events ``install-hooks --events`` leaves out."""
    clone_only: bool = False
    """A file personal to this clone (this machine's settings, as the harness keeps them): when
    ``install-hooks`` creates it in a git repository it adds it to the clone's ``info/exclude``
    (``baton.harnesses.clone_exclude``), and ``--remove`` takes that line out again."""
    personal_hooks: bool = False
    """JSON: a file of the person's own where Baton's hooks may be kept instead of the harness's
    hooks file (moved there by hand, hooks for oneself rather than the team: Claude Code's
    ``settings.local.json``). Baton's hooks found there count as installed: ``install-hooks``
    updates them there and adds no copy to the hooks file (taking one out that is there too),
    ``baton doctor`` counts them, ``--remove`` takes them out (``baton.harnesses.install``)."""


class HarnessAdapter(Protocol):
    name: str
    kinds: Mapping[str, str]
    """Each hook event of the harness that Baton handles, with its kind."""
    subscribe_events: Callable[..., Any] | None

    def get_project_context(self, payload: Mapping[str, Any]) -> ProjectContext: ...

    def get_session_metadata(self, event: str, payload: Mapping[str, Any]) -> SessionMetadata: ...

    def render_notice(self, metadata: SessionMetadata, context: str | None) -> str:
        """The answer on stdout: ``context`` in the harness's shape, or its empty answer."""
        ...

    def configuration(self, command: str, roles: Iterable[str] | None = None,
                      hook_command: str | None = None) -> list[ConfigFile]:
        """The files to merge; ``roles`` (``HOOK_ROLES`` names, None: all) the hook events wired;
        ``hook_command`` what the hooks run when it is not ``command``."""
        ...


def start_failed(harness_name: str) -> "Callable[[str], str]":
    """After a SessionStart hook's command line (POSIX sh), for a harness that hands a start hook's
    plain stdout on status 0 to the model as context and shows the person nothing of a failing
    hook (Codex 0.171.0: ``hook: SessionStart Failed``, never its stderr; Claude Code: its stderr
    in verbose mode only): when the command cannot run, the agent is told why. Given the program
    the command line runs (its first word), the shell words that say it: for a bare name
    (``baton``), that it was not found on the ``PATH`` the harness runs hooks with; for a path
    (what ``install-hooks`` writes by default), what is wrong with the file there, found when it
    fails — no file, a file that is not executable, or one there that did not run (the Python its
    first line names gone with a virtualenv). No backquote nor apostrophe in the text: it sits
    in double quotes (the path reaches it through a shell variable). Baton's own hook always
    exits 0, so this runs only when the command itself cannot."""
    told = (", so this session got no brief and Baton will not record it. "
            'Tell the person to run baton doctor in this project."; exit 0; }')

    def suffix(program: str) -> str:
        if "/" not in program:
            return (f' || {{ echo "Baton could not run its SessionStart hook (exit status $?; 127: the command was '
                    f'not found on the PATH {harness_name} runs hooks with){told}')
        return (f' || {{ s=$?; p={quote(program)}; if [ ! -f "$p" ]; then w="no file exists at $p"; '
                'elif [ ! -x "$p" ]; then w="the file $p is not executable"; '
                'else w="the file $p is there but did not run: the Python its first line names may be gone"; fi; '
                f'echo "Baton could not run its SessionStart hook (exit status $s: $w){told}')
    return suffix


NONBLOCKING_SUFFIX = " || exit 1"
"""For a harness that takes a hook's exit status 2 and above as "deny" (Gemini CLI:
a ``baton`` missing from PATH exits 127 and would block every prompt): any failure
of the command becomes status 1, which such a harness reports as a warning. Baton's
own hook always exits 0."""


def text_field(payload: Mapping[str, Any], *names: str) -> str | None:
    """The first of ``names`` that holds a non-empty string."""
    for name in names:
        value = payload.get(name)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


class CommandHookAdapter(Value):
    """A harness whose hooks are commands fed a JSON object on stdin (all four shipped ones).

    They differ in event names, the payload's field names, the answer's shape,
    and the files that configure them; those are the parameters.
    """

    name: str
    kinds: Mapping[str, str]
    hooks: tuple[HookCommand, ...]
    files: Callable[[str, tuple[HookCommand, ...], tuple[str, ...]], list[ConfigFile]]
    """Given the command prefix (a shell command line, each word quoted), the hooks to wire
    and each one's full command line, the files to merge."""
    answer: Callable[[SessionMetadata, str], dict[str, Any]]
    """The harness's JSON answer carrying ``context`` at a session start."""
    empty_answer: str = ""
    """What stdout holds when there is nothing to inject ("" or "{}" for harnesses that parse stdout)."""
    empty_answers: Mapping[str, str] = {}
    """Per event, an answer other than ``empty_answer`` (a prompt hook whose harness
    reads its stdout as a verdict: Cursor's ``beforeSubmitPrompt`` wants ``{"continue": true}``)."""
    prompt_context: bool = True
    """Whether the prompt hook's answer can carry context to the agent (Cursor's cannot)."""
    session_fields: tuple[str, ...] = ("session_id",)
    start_field: str = "source"
    end_field: str = "reason"
    end_reason: str | None = None
    """A fixed reason for an end event whose payload has none (an end-of-turn ``Stop``)."""
    compaction_triggers: tuple[str, ...] | None = None
    """The compaction event's ``trigger`` values that mean a compaction really happens
    (None: every one). Any other is ``ignored``: Gemini CLI 0.61 fires PreCompress
    ``auto`` before every turn, ahead of its own threshold check, and the payload
    carries no size to tell a real one apart."""
    contextless_sources: tuple[str, ...] = ()
    """Start ``source`` values whose answer the harness gives to no model: such a start is
    ``ignored`` (nothing claimed, nothing recorded), so a baton waiting is left for a start that
    can deliver it. Gemini CLI 0.61's ``/clear`` fires SessionStart ``clear`` and shows only the
    answer's ``systemMessage``, dropping its ``additionalContext``."""
    unwrap_prompt: Callable[[str], str] | None = None
    """The person's own text of a prompt the harness hands over with context in front of
    it (Gemini CLI's ``<hook_context>…</hook_context>``), before detection."""
    user_steps: tuple[str, ...] = ()
    """What the user must still do before the harness runs the hooks (one line each;
    ``install-hooks`` prints them)."""
    command_suffix: str = ""
    """Shell words after each hook command line: Gemini CLI's ``|| exit 1`` (``NONBLOCKING_SUFFIX``)."""
    event_suffixes: "Mapping[str, Callable[[str], str]]" = {}
    """Per event, given the program the command line runs (its first word), the shell words after
    that hook's command line, from ``||`` (Codex's and Claude Code's SessionStart: what to tell the
    agent when the command cannot run, ``start_failed``)."""
    project_dir_env: tuple[str, ...] = ()
    """The environment variables, first set first, in which the harness names the session's
    project folder for every hook (Claude Code's ``CLAUDE_PROJECT_DIR``): where the session
    began, not where its agent has ``cd``'d since (``ProjectContext.project_dir``)."""
    prompt_hook_files: tuple[str, ...] = ()
    """A harness whose session start runs before its first prompt (Claude Code's and Gemini CLI's
    ``SessionStart``, when the TUI opens): the project files its prompt hook may be wired in. A
    start that claims a baton there, with that hook wired, leaves a mark the session's first
    prompt hook removes (``hook_project.leave_mark``); an end that still finds it made no
    request, and hands the baton on again (docs/batons.md, "A baton spent without reaching a
    model"). Empty: the start comes with a prompt (Codex) or is not known to (Cursor)."""
    brief_with_first_prompt: bool = False
    """Where the start left its mark: its brief is kept in the mark and given to the agent by the
    session's first prompt hook, in that prompt, not by the start. Gemini CLI 0.61.0 puts a start's
    context in the conversation's history, which ``/chat resume TAG`` (no hook runs for it) replaces
    by the saved conversation's; a ``BeforeAgent`` context is part of the prompt it comes with, so
    the brief reaches the model whatever was loaded before (docs/batons.md, "A baton spent without
    reaching a model")."""
    event_limits: Mapping[str, float] = {}
    """The seconds the harness gives an event's hook whatever ``install-hooks`` writes (Codex
    0.171.0 gives ``Interrupt`` at most 3 s): the hook waits for a ledger lock another process
    holds for at most ``LOCK_SHARE`` of it (``baton.harnesses.hook``), so a hook that meets the
    ledger busy keeps its work for a process that waits, before the harness kills it."""
    subscribe_events: Callable[..., Any] | None = None

    def default_roles(self) -> tuple[str, ...]:
        """``install-hooks``' events without ``--events``: ``DEFAULT_ROLES``, and the prompt hook
        where the session start runs before its first prompt (``prompt_hook_files``: Claude Code,
        Gemini CLI), whose end it tells whether the baton the start claimed reached a model
        (docs/batons.md, "A baton spent without reaching a model")."""
        return tuple(HOOK_ROLES) if self.prompt_hook_files else DEFAULT_ROLES

    def event_named(self, event: str) -> str | None:
        """The harness's own spelling of ``event`` (matched without regard to case), or None."""
        return next((known for known in self.kinds if known.lower() == event.lower()), None)

    def empty_for(self, event: str) -> str:
        """What stdout holds for ``event`` when Baton has nothing to say, or failed."""
        return self.empty_answers.get(self.event_named(event) or event, self.empty_answer)

    def get_project_context(self, payload: Mapping[str, Any]) -> ProjectContext:
        cwd = text_field(payload, "cwd")
        if cwd is None:
            cwd = workspace_root(payload.get("workspace_roots"))
        named = next((os.environ[name] for name in self.project_dir_env if os.environ.get(name, "").strip()), None)
        return ProjectContext(cwd, named)

    def get_session_metadata(self, event: str, payload: Mapping[str, Any]) -> SessionMetadata:
        named = self.event_named(event) or event
        kind = self.kinds.get(named, IGNORED)
        trigger = text_field(payload, "trigger") if kind == PRE_COMPACT else None
        if kind == PRE_COMPACT and self.compaction_triggers is not None and trigger not in self.compaction_triggers:
            kind = IGNORED
        source = text_field(payload, self.start_field) if kind == SESSION_START else None
        if source is not None and source in self.contextless_sources:
            kind = IGNORED
        return SessionMetadata(
            harness=self.name, event=named, kind=kind, session_id=text_field(payload, *self.session_fields),
            source=source,
            trigger=trigger,
            reason=(text_field(payload, self.end_field) or self.end_reason) if kind == SESSION_END else None,
            handoff_request=_asks_for_handoff(payload, self.unwrap_prompt) if kind == USER_PROMPT else None,
        )

    def render_notice(self, metadata: SessionMetadata, context: str | None) -> str:
        if metadata.kind not in (SESSION_START, USER_PROMPT) or not context or (
                metadata.kind == USER_PROMPT and not self.prompt_context):
            return self.empty_for(metadata.event)
        return orjson.dumps(self.answer(metadata, context)).decode()

    def event_suffix(self, event: str, command: str) -> str:
        """What follows ``command``'s line for ``event`` after ``command_suffix`` ("" for most)."""
        made = self.event_suffixes.get(event)
        return made(split(command)[0]) if made is not None else ""

    def command_lines(self, command: str, hooks: tuple[HookCommand, ...] | None = None) -> tuple[str, ...]:
        return tuple(f"{command} hook {self.name} {hook.event}{self.command_suffix}{self.event_suffix(hook.event, command)}"
                     for hook in (self.hooks if hooks is None else hooks))

    def role(self, hook: HookCommand) -> str:
        """The ``HOOK_ROLES`` name of one of this harness's hooks (a turn's end's: ``prompt``)."""
        kind = self.kinds[hook.event]
        if kind == TURN_END:
            return "prompt"
        return next(role for role, known in HOOK_ROLES.items() if known == kind)

    def configuration(self, command: str, roles: Iterable[str] | None = None,
                      hook_command: str | None = None) -> list[ConfigFile]:
        """``hook_command``: what the hooks run when it is not ``command`` (the MCP server's)."""
        wanted = set(HOOK_ROLES if roles is None else roles)
        hooks = tuple(hook for hook in self.hooks if self.role(hook) in wanted)
        files = self.files(command, hooks, self.command_lines(hook_command or command, hooks))
        omitted = tuple(("hook", self.name, hook.event) for hook in self.hooks if hook not in hooks)
        if not omitted:
            return files
        return [spec._replace(omitted=omitted)  # type: ignore[attr-defined]  # a named tuple's (a value class)
                if spec.merge and "hooks" in spec.merge else spec for spec in files]


MACHINE_PROMPTS = frozenset({"system", "loop_wakeup", "schedule_wakeup", "poll_event"})
"""A prompt's ``source`` when the harness, not the person, wrote it: Claude Code (2.1.332 does,
2.1.197 did not) says who authored a UserPromptSubmit prompt — ``user`` (typed), ``sdk``
(``claude -p``, the Agent SDK), or one of these: a task notification, a peer or channel
message, an auto-continuation, a ``/loop`` or scheduled wakeup, a polled event."""


RECOGNISER = "baton.domain.handoff_requests"
"""The prompt's recogniser (``is_explicit_request``), imported by the metadata of a prompt
only, as ``baton.harnesses.adapter`` imports the one adapter a hook names: with
``unicodedata`` it is ~1.3 M instructions that a session's start, end or compaction,
which read no prompt, would load for nothing (docs/performance.md)."""


def _asks_for_handoff(payload: Mapping[str, Any], unwrap: Callable[[str], str] | None = None) -> bool:
    """Whether the prompt is the person's explicit request for a handoff. A
    prompt a subagent is given (Codex sends ``agent_id`` and ``agent_type``
    with those) was written by the parent agent, not the person: never one;
    nor is a prompt the harness itself injected (``MACHINE_PROMPTS``)."""
    if text_field(payload, "agent_id", "agent_type") or payload.get("source") in MACHINE_PROMPTS:
        return False
    prompt = payload.get("prompt")
    if not isinstance(prompt, str):
        return False
    # __import__, not importlib.import_module: the import system's C path, as ``adapter``'s.
    recogniser = __import__(RECOGNISER, fromlist=["is_explicit_request"])
    return bool(recogniser.is_explicit_request(unwrap(prompt) if unwrap is not None else prompt))


def hook_specific_output(metadata: SessionMetadata, context: str) -> dict[str, Any]:
    """Claude Code's and Codex's answer: ``hookSpecificOutput`` naming the event."""
    return {"hookSpecificOutput": {"hookEventName": metadata.event, "additionalContext": context}}


def matcher_groups(hooks: tuple[HookCommand, ...], lines: tuple[str, ...], **extra: Any) -> dict[str, list]:
    """``{event: [{matcher?, hooks: [{type: command, command, …extra}]}]}``, the shape
    Claude Code, Codex and Gemini CLI share."""
    groups: dict[str, list] = {}
    for hook, line in zip(hooks, lines):
        group: dict[str, Any] = {"matcher": hook.matcher} if hook.matcher else {}
        own = {"timeout": hook.timeout} if hook.timeout is not None else {}
        group["hooks"] = [{"type": "command", "command": line, **own, **extra}]
        groups[hook.event] = [group]
    return groups


SKILL_PATH = "skill/SKILL.md"
"""The agent skill (spec §12) inside the package; ``skills/baton/SKILL.md`` in the
source tree is a link to it, so a wheel and a checkout carry the same text."""


def skill_text() -> str:
    """The agent skill, as shipped in the package: read through this module's
    loader (a folder or a zip), as ``pkgutil.get_data`` does, with text
    mode's newlines; ``importlib.resources`` would cost ~12 ms to import."""
    path = os.path.join(os.path.dirname(os.path.dirname(__file__)), *SKILL_PATH.split("/"))
    text = __loader__.get_data(path).decode("utf-8")  # type: ignore[name-defined]  # every module has one
    return text.replace("\r\n", "\n").replace("\r", "\n")


AGENTS_SKILL_FILE = ".agents/skills/baton/SKILL.md"
"""Where Codex, Gemini CLI and Cursor find a project's skills (``.agents/skills/NAME/SKILL.md``);
the harnesses that read it share the one file."""


def agents_skill() -> "ConfigFile":
    """The agent skill in ``.agents/skills/``, a whole file Baton owns."""
    return ConfigFile(AGENTS_SKILL_FILE, text=skill_text())


class SkillText(Value):
    """``baton skill``: the agent skill's text, to put where a harness reads it."""

    text: str
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"name": "baton", "skill": self.text}

    def render(self) -> str:
        return self.text.rstrip("\n")


def mcp_server(command: str) -> dict[str, Any]:
    """``baton mcp`` over stdio, as harnesses configure a server: a program and its arguments."""
    program, *args = split(command)
    return {"command": program, "args": [*args, "mcp"]}


def mcp_servers(command: str) -> dict[str, Any]:
    """The ``mcpServers`` member most harnesses read."""
    return {"mcpServers": {"baton": mcp_server(command)}}
