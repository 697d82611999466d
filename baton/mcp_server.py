"""``baton mcp``: Baton as a stdio MCP server (spec §13; the ``prompt`` and
``bootstrap`` tools of session-handoff-baton.txt).

A thin adapter, like ``cli.py``: each tool calls one method of the server's
application object (``baton.app.Baton``, opened once and kept, catching up
per call) and returns that result's ``to_json()`` as structured
content — the very object ``baton <command> --json`` prints — plus its
``render()`` as a short text. No decision is made here, so the CLI and MCP
cannot drift. A ``BatonError`` becomes a tool error result carrying its code,
message and exit code (never a traceback).

Guardrails:

- The server is bound to one project, resolved once at start
  (``--project``, ``$BATON_PROJECT``, the git top level, the current
  directory). No tool takes a path to another project.
- No tool runs a shell command: ``handoff_validate`` has no ``recheck``
  (re-running evidence commands is a deliberate CLI action,
  ``baton handoff validate ID --recheck``).
- Writes need an initialised project: every command raises
  ``not_initialized`` (exit 4) otherwise.
- One tool call runs at a time: the SDK runs each call on a worker thread,
  and the commands take the ledger lock anyway.
- No call waits on the ledger lock without limit. A read takes the lock only
  if it is free at once, to catch up; held by another process, the read
  answers from the index as the last writer left it. A write waits at most
  ``$BATON_MCP_LOCK_WAIT`` seconds (default ``LOCK_WAIT_SECONDS``), then
  fails with ``ledger_busy`` (exit 4), nothing written.

``handoff_amend``, ``handoff_fork``, ``handoff_merge`` and ``handoff_detect``
call the same methods as ``baton handoff amend``, ``baton fork``, ``baton
merge`` and ``baton detect``; as §13 says,
``handoff_detect`` does not create a draft unless ``prepare`` is true.

Importing this module imports ``mcp``; only the ``baton mcp`` handler does.
"""

from __future__ import annotations

import functools
import inspect
import os
import threading
from contextvars import ContextVar
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Callable, Literal

import anyio
import anyio.from_thread
import anyio.to_thread
import attrs
import orjson
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp.shared.exceptions import MCPError
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS, CallToolResult, Resource, TextContent, Tool, ToolAnnotations
from pydantic import Field

from baton import __version__
from baton.app import Baton, Limits
from baton.domain.batons import DEFAULT_MAX_BYTES
from baton.domain.limits import AGENT_LIST_MAX, MAX_INPUT_BYTES
from baton.domain.redaction import RedactionPolicy, screen_encoded, screen_output, screen_text, visible_json
from baton.domain.redaction.as_given import field_of, item_of, named_as_given
from baton.domain.wording import hashing_words
from baton.errors import BatonError, InputError, NotFound, TransitionError
from baton.gitinfo import locate, located_once
from baton.harnesses.notices import for_brief
from baton.harnesses.wiring import inspect_wiring
from baton.mcp_schemas import OUTPUT_SCHEMAS, SESSION_ACTION_ARGUMENTS, check_arguments, input_schemas
from baton.mcp_stdio import Unanswered, serve_until_answered
from baton.model import frozen
from baton.project import resolve_root, resolve_worktree
from baton.values import replace

if TYPE_CHECKING:
    from baton.domain.handoff import Status, Trigger

TOOL_NAMES = ("baton_status", "handoff_capture", "handoff_validate", "handoff_ready", "handoff_resume",
              "handoff_list", "handoff_amend", "handoff_fork", "handoff_merge", "handoff_detect", "baton_session",
              "bootstrap")

TOOL_ALIASES = {"prompt": "baton_session"}
"""Tools still answered under an older name but not listed: ``prompt`` (the name
session-handoff-baton.txt gives it) was easy to confuse with MCP prompts."""
PROMPT_NAMES = ("handoff", "resume", "brief", "pickup")
"""The MCP prompts (slash commands in harnesses that show them)."""
NOT_AVAILABLE: tuple[str, ...] = ()
LOCK_WAIT_SECONDS = 5.0
"""How long a tool that writes waits for a ledger lock another process holds
(``BATON_MCP_LOCK_WAIT`` overrides) before it answers ``ledger_busy``."""
MAX_ARGUMENT_BYTES = MAX_INPUT_BYTES
"""One tool call's arguments, as JSON. A handoff is state, not a transcript (spec §4)."""

INSTRUCTIONS = (
    "Baton keeps structured, verified handoffs between agent sessions in this project. "
    "At session start call `bootstrap` (it delivers and claims the session baton waiting for you), unless a "
    "hook already put Baton's brief in your context (its last line, \"This is HARNESS session …\", names "
    "your session id): that brief's "
    "baton is claimed, and `bootstrap` would show only what is left. "
    "To hand work over: `handoff_capture` (a draft), `handoff_validate`, `handoff_ready`; the next session "
    "calls `handoff_resume`. Pass `session_id` (the session-start brief names it) to `handoff_capture`: a "
    "session's ready handoff is handed on when the session ends. To leave quick next steps for the next "
    "session on this branch: `baton_session` with action `session_end` and a `handoff` object. Record only "
    "facts; never paste secrets or transcripts (secrets are redacted before anything is written). The prompts "
    "`handoff`, `resume`, `brief` and `pickup` are the same steps as slash commands; the resource "
    "`baton://brief/latest` is the latest ready handoff's resume brief."
)

# The tools' argument types, for the reader: what a tool accepts is its closed
# input schema (``baton.mcp_schemas.input_schemas``), checked before it runs.
Id = str  # any id form, or 'latest'
DraftId = str  # any id form but 'latest'
ResumeFormat = str  # one of baton.domain.limits.RESUME_FORMATS
PromptAction = Literal["session_start", "session_end", "cancel_handoff"]
Section = dict[str, Any]
Items = list[dict[str, Any]]
Text = str | None


# -- results ---------------------------------------------------------------------

def _plain_json(value: Any) -> Any:
    """``value`` as plain JSON types, exactly as the CLI's ``--json`` would print it."""
    return orjson.loads(orjson.dumps(value, default=str))


def structured(data: dict[str, Any], *, is_error: bool = False) -> CallToolResult:
    """``data`` as the structured content, and the same JSON as the text content
    (clients that read only text see exactly what structured clients see)."""
    text = orjson.dumps(data).decode()
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data, is_error=is_error)


class ScreenedResult(CallToolResult):
    """A tool result whose every string has been through the output screen
    already (``screened_answer``): ``BatonMCPServer.call_tool`` passes it on as is."""


def screened_answer(result: Any, policy: Any) -> ScreenedResult:
    """A command result as the caller may see it: its ``to_json()`` as plain
    JSON, every string through the secret screen (docs/security.md, "What
    comes out"), as structured content and as the same JSON text. The JSON
    is encoded once: when the screen changes nothing, the text is that
    encoding, and an answer screened clean before is not screened again."""
    value = result.to_json()
    raw = orjson.dumps(value if isinstance(value, dict) else {"result": value}, default=str)
    screened, clean = screen_encoded(raw, policy)
    # The same JSON, with U+202E and the other invisible format characters as visible escapes.
    text = visible_json(raw.decode() if clean else orjson.dumps(screened).decode())
    return ScreenedResult(content=[TextContent(type="text", text=text)], structured_content=screened)


ARGUMENT_NAMES = {"session": "session_id", "handoff_id": "id", "token": "id"}
"""The use cases' parameters as the tools name their arguments (the rest are spelled alike)."""


TOOL_FOR_ACTION = {
    "revise": "handoff_amend",
    "validate": "handoff_validate",
    "promote": "handoff_ready",
    "resume": "handoff_resume",
    "archive": "`baton handoff archive` (command line)",
    "amend": "handoff_amend",
}
"""The tool that performs each action of the handoff state machine (archiving has
none: the command line's); the CLI's own table is ``cli.COMMAND_FOR_ACTION``."""

ACTION_WORDS = {"promote": "cannot make handoff {id} ready", "revise": "cannot amend handoff {id}"}
"""The state machine's actions a tool names otherwise (``handoff_ready`` promotes)."""


def tool_error(exc: BatonError) -> CallToolResult:
    """A ``BatonError`` as a tool error: ``{"error": {code, message, exit_code, details?}}``;
    an illegal transition names the tools that take the handoff on (``TOOL_FOR_ACTION``)."""
    exc.name_parameters(ARGUMENT_NAMES)
    if isinstance(exc, TransitionError):
        exc.name_actions(TOOL_FOR_ACTION, ACTION_WORDS, key="tools")
    return structured(_plain_json({"error": exc.to_json()}), is_error=True)


def _internal_error(exc: Exception) -> CallToolResult:
    error = {"code": "internal_error", "message": f"{type(exc).__name__}: {exc}", "exit_code": 1}
    return structured({"error": error}, is_error=True)


def prompt_error(exc: BatonError, policy: Any) -> MCPError:
    """A ``BatonError`` met getting a prompt or reading a resource, as the protocol error a client
    shows: invalid params (-32602), the message, and ``{"error": {code, message, exit_code}}`` in
    ``data``, through the secret screen (never a traceback)."""
    exc.name_parameters(ARGUMENT_NAMES)
    error = screen_output(_plain_json(exc.to_json()), policy)
    return MCPError(INVALID_PARAMS, error["message"], data={"error": error})


def resource_failure(exc: Exception, uri: Any, policy: Any) -> MCPError:
    """An unexpected failure reading a resource, as an internal error whose message and URI went
    through the secret screen (the SDK's own error repeats the URI)."""
    error = screen_output({"code": "internal_error", "message": f"cannot read resource {str(uri)!r}: "
                           f"{type(exc.__cause__ or exc).__name__}", "exit_code": 1, "details": {"uri": str(uri)}},
                          policy)
    return MCPError(INTERNAL_ERROR, error["message"], data={"error": error})


def screened_prompt(result: Any, policy: Any) -> Any:
    """A prompt's messages with every text through the secret screen, as tool answers are: the
    ``handoff`` prompt repeats the caller's ``focus``, which the harness sends to the model and
    keeps in its transcript (tester-use22 T6)."""
    messages = getattr(result, "messages", None)
    if not messages:
        return result
    screened = [m.model_copy(update={"content": TextContent(type="text", text=screen_text(m.content.text, policy))})
                if isinstance(m.content, TextContent) else m for m in messages]
    return result.model_copy(update={"messages": screened})


def argument_error(tool: str, problems: list[str]) -> CallToolResult:
    """Arguments that break a tool's input schema, as an ``input_error`` (exit 2, as argparse exits),
    listing every problem, each naming its argument."""
    return tool_error(InputError(f"invalid arguments for {tool}: " + "; ".join(problems),
                                 details={"tool": tool, "problems": problems}))


# -- the server ------------------------------------------------------------------

def screened_tool_result(result: Any, policy: Any) -> Any:
    """A tool's answer as the caller may see it: every string of the structured
    content and the text through the secret screen, and the text printable
    (docs/security.md, "What comes out")."""
    if not isinstance(result, CallToolResult) or isinstance(result, ScreenedResult):
        return result
    data = result.structured_content
    if isinstance(data, dict) and [getattr(c, "text", None) for c in result.content] == [orjson.dumps(data).decode()]:
        # The text is the structured JSON (``structured``): screen the values, then write the JSON again —
        # screening the JSON text itself would see the values through JSON's escapes.
        return structured(screen_output(data, policy), is_error=bool(result.is_error))
    content = [TextContent(type="text", text=screen_text(c.text, policy)) if isinstance(c, TextContent) else c
               for c in result.content]
    screened = screen_output(result.structured_content, policy) if result.structured_content else None
    return CallToolResult(content=content, structured_content=screened, is_error=result.is_error)


class BatonMCPServer(MCPServer):
    """The SDK's server with Baton's strict surface (``baton.mcp_schemas``): closed input
    schemas from the record schema, declared output schemas, descriptions without
    docstring indentation, and arguments checked against the closed schema before a
    tool runs — a failure is reported like every other error: ``{"error": {code,
    message, exit_code}}``;
    and every answer screened for secrets.

    Baton's tools are plain functions kept here (``baton_tool``), not registered
    with the SDK's tool manager: it would build a pydantic model and a JSON
    Schema per tool at start-up, and validate every call against that model,
    when the closed schemas published here are what a call is held to. Listing
    and calling go through ``list_tools`` and ``call_tool``, the server's own
    methods the SDK's request handlers call."""

    output_policy: Callable[[], Any] | None = None
    """The rules answers go through (the project's policy once it is open)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.baton_tools: dict[str, tuple[Callable[..., Any], ToolAnnotations]] = {}

    ready_handoffs: Callable[[], list[dict[str, Any]]] | None = None
    """The ready handoffs ``list_resources`` adds as ``baton://handoff/{id}`` (``build_server`` sets it)."""

    async def list_resources(self) -> list[Any]:
        """The fixed resources, then each ready handoff (newest first) as ``baton://handoff/ID``."""
        fixed = await super().list_resources()
        if self.ready_handoffs is None:
            return fixed
        rows = await anyio.to_thread.run_sync(self.ready_handoffs)
        return fixed + [Resource(uri=HANDOFF_URI.format(id=row["id"]), name=f"handoff-{row.get('short_id') or row['id']}",
                                 title=row.get("title") or None, mime_type="text/markdown",
                                 description=f"Ready handoff {row.get('short_id') or row['id']}"
                                             + (f" on {row['branch']}" if row.get("branch") else "")
                                             + (f", {row['created_at']}" if row.get("created_at") else ""))
                        for row in rows]

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None, context: Any = None) -> Any:
        """A prompt, once its name and arguments are known to be ones it takes: an unknown prompt, or an
        argument the prompt does not take, is the protocol's invalid-params error (-32602) naming the
        prompts or arguments there are, with Baton's error in ``data`` — not the SDK's code 0 and a
        traceback on stderr (tester-use18 T5)."""
        prompt = self._prompt_manager.get_prompt(name)
        if prompt is None:
            raise prompt_error(NotFound(f"unknown prompt {name!r}; the prompts are: {', '.join(PROMPT_NAMES)}",
                                        details={"prompt": name, "prompts": list(PROMPT_NAMES)}), self.policy())
        taken = [argument.name for argument in prompt.arguments or []]
        problems = [f"{key}: unknown argument (allowed: {', '.join(taken) or 'none'})"
                    for key in (arguments or {}) if key not in taken]
        if problems:
            raise prompt_error(InputError(f"invalid arguments for prompt {name}: " + "; ".join(problems),
                                          details={"prompt": name, "problems": problems}), self.policy())
        return screened_prompt(await super().get_prompt(name, arguments, context), self.policy())

    async def read_resource(self, uri: Any, context: Any = None) -> Any:
        """A resource's contents; a URI no resource or template matches is Baton's own invalid-params
        error, worded here with the URI through the secret screen — not the SDK's ``Unknown resource:
        <uri>``, which repeats the whole URI, secret included (tester-use22 T6)."""
        try:
            return await super().read_resource(uri, context)
        except ResourceNotFoundError:
            raise prompt_error(NotFound(
                f"unknown resource {str(uri)!r}; the resources are {BRIEF_URI} and {HANDOFF_URI} "
                "(an id holds no '/')", details={"uri": str(uri), "resources": [BRIEF_URI, HANDOFF_URI]}),
                self.policy()) from None
        except ResourceError as exc:
            raise resource_failure(exc, uri, self.policy()) from None

    call_order: Any = None
    """``mcp_stdio.CallOrder`` when serving stdio: tool calls then run in the order they were read."""

    def baton_tool(self, fn: Callable[..., Any], annotations: ToolAnnotations) -> None:
        """Serve ``fn`` as the tool of its name; its docstring is the description."""
        self.baton_tools[fn.__name__] = (fn, annotations)

    def policy(self) -> Any:
        """The rules answers go through now (``output_policy``)."""
        return self.output_policy() if self.output_policy else RedactionPolicy()

    async def list_tools(self) -> list[Any]:
        inputs = input_schemas()
        return [Tool(name=name, title=annotations.title, description=inspect.cleandoc(fn.__doc__ or ""),
                     input_schema=inputs[name],
                     output_schema=OUTPUT_SCHEMAS[name], annotations=annotations)
                for name, (fn, annotations) in self.baton_tools.items()]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        result = await self.checked_call_tool(name, arguments, context)
        if isinstance(result, ScreenedResult):  # a tool's answer: screened where it was made
            return result
        return screened_tool_result(result, self.output_policy() if self.output_policy else RedactionPolicy())

    async def checked_call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        name = TOOL_ALIASES.get(name, name)
        if name not in TOOL_NAMES:
            later = " (not available yet)" if name in NOT_AVAILABLE else ""
            return tool_error(NotFound(f"unknown tool {name!r}{later}; the tools are: {', '.join(TOOL_NAMES)}",
                                       details={"tool": name, "tools": list(TOOL_NAMES)}))
        try:
            size = len(orjson.dumps(arguments or {}))
        except TypeError:
            size = 0  # not JSON at all: the schema check below reports it
        if size > MAX_ARGUMENT_BYTES:
            return tool_error(InputError(
                f"arguments for {name} are {size} bytes; the limit is {MAX_ARGUMENT_BYTES} "
                "(link to repository artifacts instead of pasting them)",
                details={"tool": name, "bytes": size, "limit": MAX_ARGUMENT_BYTES}))
        problems = check_arguments(input_schemas()[name], arguments if arguments is not None else {})
        if problems:
            return argument_error(name, problems)
        # As the SDK runs a synchronous tool: on a worker thread, the event loop free meanwhile;
        # after every call read before this one (its answer is written after this returns).
        fn = self.baton_tools[name][0]
        request_id = getattr(context, "request_id", None) if self.call_order is not None else None
        told = HASHING_PROGRESS.set(self.hashing_progress(context))  # copied to the worker thread the tool runs on
        try:
            if request_id is None:
                return await anyio.to_thread.run_sync(functools.partial(fn, **(arguments or {})))
            await self.call_order.turn(request_id)
            try:
                return await anyio.to_thread.run_sync(functools.partial(fn, **(arguments or {})))
            finally:
                self.call_order.done(request_id)
        finally:
            HASHING_PROGRESS.reset(told)

    def hashing_progress(self, context: Any) -> Callable[[int, int, str], None] | None:
        """The display of a tool's hashing of artifacts a hook's capture left not hashed yet
        (``handoff_validate``, ``handoff_ready``): each step sent to the client as the protocol's
        progress notification (``notifications/progress``, the SDK's ``report_progress``: nothing is
        sent unless the call carried a ``progressToken``), its message through the secret screen.
        None outside a request (a call made in process without one)."""
        try:
            context.request_context  # noqa: B018 - raises outside a request
        except (AttributeError, ValueError):
            return None

        def show(done: int, total: int, path: str) -> None:
            message = screen_text(hashing_words(done, total, path), self.policy())
            try:  # from the tool's worker thread, on the event loop
                anyio.from_thread.run(context.report_progress, done, total, message)
            except Exception:  # noqa: BLE001 - a display: a client gone never fails the call
                pass

        return show


HASHING_PROGRESS: ContextVar[Callable[[int, int, str], None] | None] = ContextVar("baton_hashing_progress",
                                                                                  default=None)
"""The display of the current tool call's hashing (``BatonMCPServer.hashing_progress``), set around the call."""


def _annotations(title: str, *, read_only: bool = False, destructive: bool = False,
                 idempotent: bool = False) -> ToolAnnotations:
    """A tool's MCP annotations, every hint stated (a client assumes the worst of a missing one:
    destructive, not idempotent). Nothing reaches outside the project (``open_world_hint`` false)."""
    return ToolAnnotations(title=title, read_only_hint=read_only, destructive_hint=destructive,
                           idempotent_hint=read_only or idempotent, open_world_hint=False)


ANNOTATIONS = {
    "baton_status": _annotations("Project status", read_only=True),
    "handoff_capture": _annotations("Capture a draft handoff"),
    "handoff_validate": _annotations("Validate a handoff"),  # records a new report each time
    "handoff_ready": _annotations("Promote a handoff to ready", idempotent=True),  # a second call changes nothing (it answers invalid_transition)
    "handoff_resume": _annotations("Resume a ready handoff"),  # writes only with mark_resumed
    "handoff_list": _annotations("List handoffs", read_only=True),
    # A draft is revised in place (its earlier content stays in the ledger); a ready one gets a child.
    "handoff_amend": _annotations("Amend a handoff"),
    "handoff_fork": _annotations("Fork a handoff"),
    "handoff_merge": _annotations("Merge handoffs"),
    "handoff_detect": _annotations("Score handoff pressure"),  # records the recommendation it shows
    # cancel_handoff withdraws a pending baton (an appended event: nothing is ever deleted)
    "baton_session": _annotations("Begin or end a session; leave a baton", destructive=True),
    "bootstrap": _annotations("Session-start brief (claims the waiting baton)"),
}
"""Every tool's annotations (``title``, read-only, destructive, idempotent)."""


_PROMPT_ARGUMENTS = {action: set(taken) for action, taken in SESSION_ACTION_ARGUMENTS.items()}


def lock_wait() -> float:
    """``$BATON_MCP_LOCK_WAIT`` seconds (a number ≥ 0), else ``LOCK_WAIT_SECONDS``."""
    try:
        value = float(os.environ.get("BATON_MCP_LOCK_WAIT", LOCK_WAIT_SECONDS))
    except ValueError:
        return LOCK_WAIT_SECONDS
    return value if value >= 0 and value == value and value != float("inf") else LOCK_WAIT_SECONDS


def build_server(project: str | os.PathLike | None = None) -> BatonMCPServer:
    """An MCP server bound to the project ``project`` resolves to (as ``--project`` does)."""
    # Named by its current worktree: a linked worktree opens the shared .baton/
    # but keeps its own branch, head and files (docs/architecture.md).
    calls = ProjectCalls(str(resolve_worktree(resolve_root(project), project)))
    calls.launched_below, calls.launched_at = _launched_in(calls.root, project)
    server = BatonMCPServer("baton", title="Baton", version=__version__, instructions=INSTRUCTIONS,
                            log_level="WARNING")
    server.output_policy = calls.output_policy
    tools = BatonTools(calls)
    for name in TOOL_NAMES:
        server.baton_tool(getattr(tools, name), ANNOTATIONS[name])
    register_prompts(server, calls.text_of)
    register_resources(server, calls.text_of)
    server.ready_handoffs = calls.ready_handoffs
    return server


LAUNCH_SLACK_SECONDS = 60
"""How long before this server started a session's start counts as its own: the harness
runs the start hook and starts its MCP servers side by side."""


def _launched_in(root: str, project: str | os.PathLike | None) -> tuple[str | None, str]:
    """Where the harness started this server, as a subfolder of the worktree ``root`` (None: at
    the root, elsewhere, or a project named with ``--project`` / ``$BATON_PROJECT``), and when
    (less ``LAUNCH_SLACK_SECONDS``, RFC 3339 UTC)."""
    at = (datetime.now(timezone.utc) - timedelta(seconds=LAUNCH_SLACK_SECONDS)).strftime("%Y-%m-%dT%H:%M:%SZ")
    if project or os.environ.get("BATON_PROJECT"):
        return None, at
    try:
        below = Path.cwd().resolve().relative_to(Path(root).resolve())
    except (OSError, ValueError):
        return None, at
    return (below.as_posix() if below.parts else None), at


START_NOTICE_KEY = "start_hook_notice"
"""The key of the first answer that says the session's start hook did not run (``unhooked_notice``):
beside the result's own keys (the output schemas are open), as Claude Code shows the model the
structured answer only."""


def unhooked_notice(found: Any) -> str:
    """What the first answer of a session whose start hook did not run says (``baton.domain.start_hooks``)."""
    return (f"⚠️ Baton's SessionStart hook did not run for this session: {found.harness_name} was started in "
            f"{found.folder}, a subfolder of the project, and runs the project's hooks (.claude/settings.json) "
            f"only when started at its root ({found.root}). So no brief was delivered at its start, and the "
            "handoff made ready here will not be handed on as a baton when it ends. Tell the person: start "
            f"{found.harness_name} at the project root. Meanwhile `bootstrap` (with a session_id) gives the brief "
            "and `baton_session` (action session_end) hands a baton on. (Said once.)")


def _writer_of(text: bytes) -> Any:
    """The writer id ``local.json`` names (None: not JSON, or no writer)."""
    try:
        local = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return local.get("writer") if isinstance(local, dict) else None


class ProjectCalls:
    """The server's project: its one application object, opened at the first
    call that finds the project initialised and kept (each call then catches
    up with what other processes appended, reading only those bytes), and
    calls to it one at a time, answered through the secret screen."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.serial = threading.Lock()
        self.opened: list[Baton] = []
        self.seen_files = {}
        self.last: list[Any] = []
        """The last answer given, with the result object and policy it was made
        from: a command that hands back the very same (immutable) result object
        (``handoff list`` on an unchanged index) gets the same answer, neither
        encoded nor screened again."""

    def app(self) -> Baton:
        if self.opened and (self.opened[0].must_reopen
                            or self.project_identity(self.opened[0]) != self.opened_identity):
            # A write that failed (a full disk, an I/O error) left the open ledger refusing every
            # later lock; or ``.baton/`` was made again under the running server (removed, then
            # ``baton init``): another project id, writer and ledger. Open it afresh either way.
            self.opened.pop().close()
        if not self.opened:
            # Reads never wait: the index answers.
            baton = Baton.open(self.root, limits=Limits(write_wait=lock_wait(), read_wait=0.0))
            self.opened.append(baton)
            self.opened_identity = self.project_identity(baton)
            self.policy_stamp = self.policy_files(baton)
        elif (stamp := self.policy_files(self.opened[0])) != self.policy_stamp:
            # ``policy.json``, this checkout's trust record or the allowed-signers file changed
            # (``baton policy trust`` / ``untrust`` in a shell): the policy is read again before this call uses it.
            self.opened[0].project.forget_policy()
            self.policy_stamp = stamp
        return self.opened[0]

    policy_stamp: tuple[Any, ...] | None = None
    """``policy.json``'s, the trust record's and the allowed-signers file's text as the open
    project's policy was read with."""

    def policy_files(self, baton: Baton) -> tuple[Any, ...]:
        """``policy.json``'s, the trust record's and the allowed-signers file's bytes now (each read
        again only when its stat moved)."""
        return tuple(self.read_once(path, lambda text: text) for path in self.policy_paths(baton))

    _policy_paths: tuple[tuple[Any, Any, Any], tuple[str, ...]] | None = None
    """The question ``policy_paths`` last answered (the open application object, its config, where
    the repository is), and its answer."""

    def policy_paths(self, baton: Baton) -> tuple[str, ...]:
        """``Project.policy_files()`` as the paths stat takes, spelled again only when what they are
        made of moved: another open project or config (the allowed-signers setting), or the
        repository found elsewhere (the trust record's place, ``policy.trust_location``). Spelling
        them was most of what a call to an unchanged project did before its query."""
        project = baton.project
        asked = (baton, project.config, locate(project.paths.root))
        kept = self._policy_paths
        if kept is None or kept[0][0] is not asked[0] or kept[0][1] is not asked[1] or kept[0][2] != asked[2]:
            kept = self._policy_paths = (asked, tuple(str(path) for path in project.policy_files()))
        return kept[1]

    opened_identity: tuple[Any, Any] | None = None
    """What the open project was read as: ``config.json``'s text (its project id, and any edit)
    and ``local.json``'s writer id."""

    seen_files: dict[str, tuple[tuple[int, int, int, int], Any]]
    """Per file, the stat it was last read at and what was read: a call stats the two files and
    reads one again only when its (inode, size, mtime, ctime) moved."""

    def project_identity(self, baton: Baton) -> tuple[Any, Any] | None:
        """What identifies the project on disk now (None: ``config.json`` gone). Not the file's
        inode: a ``.baton/`` made again mostly gets the freed one back (ext4)."""
        kept = self._identity_paths
        if kept is None or kept[0] is not baton:
            paths = baton.project.paths
            kept = self._identity_paths = (baton, str(paths.config), str(paths.local))
        config = self.read_once(kept[1], lambda text: text)
        if config is None:
            return None
        return (config, self.read_once(kept[2], _writer_of))

    _identity_paths: tuple[Baton, str, str] | None = None
    """The open application object's ``config.json`` and ``local.json``, as stat takes them."""

    def read_once(self, path: str, meaning: Callable[[bytes], Any]) -> Any:
        """``meaning`` of the file's bytes, read again only when its stat changed (None: unreadable)."""
        try:
            found = os.stat(path)
        except OSError:
            self.seen_files.pop(path, None)
            return None
        stamp = (found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)
        seen = self.seen_files.get(path)
        if seen is not None and seen[0] == stamp:
            return seen[1]
        try:
            with open(path, "rb") as handle:
                value = meaning(handle.read())
        except OSError:
            return None
        self.seen_files[path] = (stamp, value)
        return value

    def output_policy(self) -> Any:
        try:
            return self.opened[0].project.policy.redaction if self.opened else RedactionPolicy()
        except BatonError:
            return RedactionPolicy()

    launched_below: str | None = None
    """Where the harness started this server, below the worktree (``_launched_in``)."""
    launched_at: str = ""
    start_checked = False
    """Whether the first answer looked for a start hook that did not run (``start_notice``)."""

    def start_notice(self, baton: Baton) -> str | None:
        """Once, at the first answer: the notice that the session's start hook did not run
        (Claude Code started in a subfolder of a project wired at its root)."""
        if self.start_checked:
            return None
        self.start_checked = True
        if self.launched_below is None:
            return None
        wired = "SessionStart" in inspect_wiring(self.root, "claude-code").hooks
        try:
            found = baton.start_hook_missing(harness="claude-code", start_hook_wired=wired,
                                             launched_below=self.launched_below, launched_at=self.launched_at)
        except BatonError:
            return None
        return None if found is None else screen_text(unhooked_notice(found), self.output_policy())

    def run(self, command: Callable[[Baton], Any]) -> CallToolResult:
        """A tool's call: the command's result, screened, or its error as a tool error."""
        with self.serial, located_once():  # the trust record and git's identity both locate the repository
            try:
                result = command(self.app())
                policy = self.output_policy()
                notice = self.start_notice(self.app()) if not self.start_checked else None
                if self.last and self.last[0] is result and self.last[1] is policy and notice is None:
                    return self.last[2]
                answer = screened_answer(result, policy)
                self.last[:] = (result, policy, answer)
                if notice is not None:  # in the answer itself: Claude Code shows the model only its JSON
                    told = {**(answer.structured_content or {}), START_NOTICE_KEY: notice}
                    return ScreenedResult(content=[TextContent(type="text", text=visible_json(orjson.dumps(told).decode()))],
                                          structured_content=told)
                return answer
            except BatonError as exc:
                return tool_error(exc)
            except Exception as exc:  # noqa: BLE001 - as in the CLI: no tracebacks for the caller
                if os.environ.get("BATON_DEBUG"):
                    raise
                return _internal_error(exc)

    def text_of(self, command: Callable[[Baton], Any]) -> str:
        """A command's rendered text for a prompt or a resource, through the secret screen;
        a ``BatonError`` becomes the protocol error a client shows (its code, message and
        exit code in ``data``), never a traceback."""
        with self.serial:
            try:
                return screen_text(command(self.app()).render(), self.output_policy())
            except BatonError as exc:
                raise prompt_error(exc, self.output_policy()) from None

    def ready_handoffs(self) -> list[dict[str, Any]]:
        """The newest ready handoffs (id, short_id, title…), screened; none when the project
        cannot be read (not initialised yet): listing resources never fails."""
        with self.serial:
            try:
                listed = self.app().list_handoffs(status="ready", limit=LISTED_HANDOFFS, count_total=False).to_json()
            except BatonError:
                return []
            rows = [h for h in listed.get("handoffs", []) if isinstance(h, dict) and h.get("id")]
            return screen_output(_plain_json(rows), self.output_policy())


class BatonTools:
    """The tools, one method each (``TOOL_NAMES``): its parameters are the
    tool's arguments (held to the closed schema of ``baton.mcp_schemas``), its
    docstring the tool's description; each calls one method of the
    application object through ``ProjectCalls.run``."""

    def __init__(self, calls: ProjectCalls) -> None:
        self.run = calls.run

    def baton_status(self) -> CallToolResult:
        """The project at a glance: config and policy summary, handoff counts by status, the latest
        ready handoff with its freshness now (fresh, partially_stale, stale, unknown), the number
        of pending session batons, and superseded_unseen: batons a newer one replaced before anyone
        on their owner and branch saw them (left on another clone while apart, then synced; or
        left by another session here and read by none: unread), each
        with who left it (writer, session_id), its objective and how to read it (handoff_resume with
        its id). Read-only."""
        return self.run(lambda baton: baton.status())

    def handoff_capture(
        self,
        work: Section,
        summary: Section | None = None,
        decisions: Items | None = None,
        artifacts: Items | None = None,
        evidence: Items | None = None,
        failed_attempts: Items | None = None,
        open_items: Items | None = None,
        risks: Items | None = None,
        parent: Text = None,
        trigger: Trigger = "manual",
        session_id: Text = None,
        harness: Text = None,
        model: Text = None,
    ) -> CallToolResult:
        """Capture a DRAFT handoff (never ready by itself). Secrets are redacted by the project's
        policy, or the capture refused (policy_block, exit 5), and a path outside the project
        (unsafe_path, exit 5) refused, before anything is written; malformed input is an input_error (exit 2) listing
        every problem. Pass session_id: your session's id, which the brief at session start names
        ("This is … session `ID`"); the ready handoff of a session is handed on to the next session
        when it ends. The record is echoed as handoff unless it is over 32 KiB as JSON (then null, and
        record_omitted true). Next: handoff_validate."""
        sections = {"work": work, "summary": summary, "decisions": decisions, "artifacts": artifacts,
                    "evidence": evidence, "failed_attempts": failed_attempts, "open_items": open_items,
                    "risks": risks}
        payload = {k: v for k, v in sections.items() if v is not None}
        origin = {"harness": harness, "model": model}

        return self.run(lambda baton: baton.capture(payload, trigger=trigger, parent=parent, origin=origin,
                                                    session=session_id).for_agent())

    def handoff_validate(self, id: DraftId) -> CallToolResult:
        """Run every check (schema, policy, artifacts, repository, evidence, actionability, lineage,
        continuity score, freshness) and record the report. A failed report is a result, not a tool
        error: read report.status (pass, warn, fail). Recorded command evidence is never re-run here
        (that is `baton handoff validate ID --recheck`, allowlisted commands only)."""
        shown = HASHING_PROGRESS.get()
        return self.run(lambda baton: baton.validate(id, recheck=False, on_hashing=shown))

    def handoff_ready(
        self,
        id: DraftId,
        accept_warnings: Text = None,
    ) -> CallToolResult:
        """Promote a validated handoff to ready (then it never changes). A failed validation cannot be
        promoted (exit 3); a warn needs accept_warnings; from any other state conflict (exit 4)."""
        shown = HASHING_PROGRESS.get()
        return self.run(lambda baton: baton.promote(id, accept_warnings=accept_warnings, on_hashing=shown))

    def handoff_resume(
        self,
        id: Id = "latest",
        format: ResumeFormat = "prompt",
        max_tokens: int | None = None,
        mark_resumed: bool = False,
        session_id: Text = None,
        harness: Text = None,
        any_branch: bool = False,
    ) -> CallToolResult:
        """The resume brief of a ready handoff with its freshness derived now (fresh, partially_stale,
        stale, unknown) and its continuity score. 'latest' is the newest ready handoff of the current
        branch (falling back to the project's, with latest.notice saying so). The whole record (handoff)
        only with format json: otherwise it is null and record_omitted true, the brief (bounded by
        max_tokens) being what to read. Writes nothing unless mark_resumed."""
        return self.run(lambda baton: baton.resume(id, format=format, mark_resumed=mark_resumed, max_tokens=max_tokens,
                                                   session=session_id, harness=harness,
                                                   any_branch=any_branch).for_agent())

    def handoff_list(
        self,
        status: Status | None = None,
        work: Text = None,
        limit: int | None = None,
        kind: Literal["handoff", "baton", "all"] = "handoff",
        branch: Text = None,
        cursor: Text = None,
    ) -> CallToolResult:
        """Handoff summaries, newest first: id, status, flags, title, dates, validation, lineage, branch. No
        evidence payloads. Session batons only with kind baton or all. At most limit (default 50, at most 200
        an answer); more is true when more match, total says how many, and next_cursor is where the next page
        starts: call again with the same arguments and cursor set to it, until more is false."""
        # Without a limit, the use case's default (``listing.DEFAULT_LIMIT``, 50), as on the command line;
        # past AGENT_LIST_MAX, that many (``more`` and ``total`` tell the rest).
        if isinstance(limit, int) and not isinstance(limit, bool) and limit > AGENT_LIST_MAX:
            limit = AGENT_LIST_MAX
        return self.run(lambda baton: baton.list_handoffs(status=status, work=work, kind=kind, branch=branch,
                                                          limit=limit, cursor=cursor))

    def handoff_amend(
        self,
        id: Id,
        changes: Section | None = None,
        replacement: Section | None = None,
        close_items: list[str] | None = None,
        drop_items: list[str] | None = None,
        replace_lists: Section | None = None,
        session_id: Text = None,
    ) -> CallToolResult:
        """Amend a handoff (as `baton handoff amend`). A draft or validated one is revised in place (its
        validation resets: call handoff_validate again); a ready, resumed or superseded one never changes:
        the amendment is a new DRAFT child with lineage relation amend, which supersedes its parent once
        ready. Give at least one of changes (merged over the record), replacement (sections replaced
        whole), close_items, drop_items or replace_lists. Refused, nothing written: an archived handoff
        (invalid_transition, exit 4), no change at all, an unknown field or an id the record lacks
        (input_error, exit 2), a secret matching a block rule (policy_block, exit 5) or a path outside the
        project (unsafe_path, exit 5). Secrets are otherwise redacted. The record is echoed as handoff unless it is over 32 KiB
        as JSON (then null, and record_omitted true). Next: handoff_validate with the id returned."""
        def act(baton: Baton):
            amended = baton.amend(id, replacement=replacement, changes=changes, session=session_id,
                                  close_items=tuple(close_items or ()), drop_items=tuple(drop_items or ()),
                                  replace_lists=replace_lists).for_agent()
            named = named_as_given(amended.redactions, amend_argument(changes, replacement, replace_lists),
                                   "argument")
            return attrs.evolve(amended, redactions=named)

        return self.run(act)

    def handoff_fork(
        self,
        id: Id,
        label: Text = None,
        session_id: Text = None,
    ) -> CallToolResult:
        """Create a DRAFT child of a handoff with lineage relation fork (the parent is never modified).
        It starts from the parent's work, summary, open items, failed attempts and risks; the parent's
        decisions are inherited as context. Next: handoff_validate."""
        return self.run(lambda baton: baton.fork(id, label=label, session=session_id).for_agent())

    def handoff_merge(
        self,
        ids: list[str],
        resolution: Section | None = None,
        title: Text = None,
        session_id: Text = None,
    ) -> CallToolResult:
        """Create a DRAFT child of two or more handoffs with lineage relation merge. Refused with
        merge_unresolved (exit 3, nothing written, the conflict candidates in details) until resolution
        holds an explicit decision; records the conflicts it resolves and the parents' evidence. Parents
        are never modified."""
        def act(baton: Baton):
            merged = baton.merge(list(ids), title=title, resolution=resolution, session=session_id).for_agent()
            if not merged.given_as:
                return merged
            # Each redaction of what the caller gave names its argument (``title``, ``resolution.rationale``).
            named = named_as_given(merged.capture.redactions, merged.given_as.get, "argument")
            return attrs.evolve(merged, capture=attrs.evolve(merged.capture, redactions=named))

        return self.run(act)

    def handoff_detect(
        self,
        signals: dict[str, float | bool | None],
        prepare: bool = False,
        session_id: Text = None,
        harness: Text = None,
    ) -> CallToolResult:
        """Score handoff pressure and readiness (spec §9) with the project's weights and thresholds: the
        score, the inputs used, unavailable signals, reasons and the recommended action (none, recommend,
        auto_prepare, prepare), suppressed during the session's cooldown, snooze or disable. Creates a
        draft only with prepare. Never ends or starts a session."""
        return self.run(lambda baton: baton.detect(signals, prepare=prepare, session=session_id, harness=harness,
                                                   source="mcp", create_drafts=prepare))

    def baton_session(
        self,
        action: PromptAction,
        session_id: Text = None,
        objective: Text = None,
        handoff: Section | None = None,
        shared: bool | None = None,
        harness: Text = None,
        owner: Text = None,
        branch: Text = None,
    ) -> CallToolResult:
        """Session lifecycle. session_start: record the session, set its objective, and claim the
        baton waiting for this owner and branch (else the newest shared one). session_end: end the
        session and, with a handoff object, leave a single-use baton for the next session (a newer
        one for the same owner and branch supersedes it). cancel_handoff: cancel this owner's pending
        baton on this branch ({"cancelled": false} when there is none)."""
        given = {name for name, value in (("session_id", session_id), ("objective", objective),
                                          ("handoff", handoff), ("shared", shared), ("harness", harness),
                                          ("owner", owner), ("branch", branch)) if value is not None}
        stray = sorted(given - _PROMPT_ARGUMENTS[action])

        def act(baton: Baton):
            if stray:
                raise InputError(f"action {action} does not take {', '.join(stray)}",
                                 details={"action": action, "unexpected": stray})
            if action == "session_start":
                return baton.begin_session(session_id=session_id, harness=harness, objective=objective,
                                           owner=owner, branch=branch, wording=MCP_START_WORDING)
            if action == "session_end":
                ended = baton.end_session(session_id, handoff, harness=harness, owner=owner, branch=branch,
                                          shared=shared)
                if ended.created is None or not ended.created.redactions:
                    return ended
                named = named_as_given(ended.created.redactions, handoff_argument(handoff), "argument")
                return replace(ended, created=replace(ended.created, redactions=named))
            return baton.cancel_baton(owner=owner, branch=branch, session=session_id)

        return self.run(act)

    def bootstrap(
        self,
        session_id: Text = None,
        max_bytes: int = DEFAULT_MAX_BYTES,
        owner: Text = None,
        branch: Text = None,
        peek: bool = False,
    ) -> CallToolResult:
        """The session-start brief: the session baton waiting for this owner and branch (rendered as
        '## 🤝 Active Session Handoff' and claimed exactly once, only when it fits max_bytes), the
        session objective, recent decisions and do-not-retry traps. Returns brief, bytes,
        handoffMarkdown, handoff, sessionObjective and sessionId. With peek, nothing is claimed. Not needed
        when a session-start hook already put Baton's brief in your context (its last line, "This is
        HARNESS session …", names your session id): its baton is claimed, so this would show only
        what is left."""
        return self.run(lambda baton: baton.bootstrap(session_id=session_id, max_bytes=max_bytes, owner=owner,
                                                      branch=branch, peek=peek, wording=MCP_START_WORDING,
                                                      told=lambda: for_brief(baton, use_up=not peek)))


SESSION_END_MEMBERS = {"open_items": "nextSteps", "work.objective": "nextSteps",
                       "failed_attempts": "failedApproaches", "open_questions": "openQuestions"}
"""Each record field ``session_end``'s baton fills, as the member of its ``handoff`` argument that
carried it: the next steps become open items (the first one the objective, unless the session had
one), the failed approaches failed attempts, the questions open questions. The command line's
twin is ``record_fields.SESSION_END_DESTS``."""


def handoff_argument(handoff: Any) -> Callable[[str], str | None]:
    """The argument path a ``session_end`` caller gave a redacted record field in
    (``open_items[1].description`` → ``handoff.nextSteps[2]`` when the caller's second entry was
    blank, and dropped), for ``named_as_given``; None for a field no ``handoff`` member filled."""
    def argument_of(field: str) -> str | None:
        member = SESSION_END_MEMBERS.get(field_of(field))
        entries = handoff.get(member) if member is not None and isinstance(handoff, dict) else None
        if not isinstance(entries, list):
            return None
        kept = [i for i, entry in enumerate(entries) if isinstance(entry, str) and entry.strip()]
        at = 0 if field_of(field) == "work.objective" else item_of(field)
        return f"handoff.{member}[{kept[at]}]" if at is not None and at < len(kept) else f"handoff.{member}"

    return argument_of


def amend_argument(changes: Any, replacement: Any, replace_lists: Any) -> Callable[[str], str | None]:
    """The argument a ``handoff_amend`` caller gave a redacted record field in: the record path
    under ``replacement``, ``replace_lists`` or ``changes`` (``work.title`` →
    ``changes.work.title``; a list item as its list, ``changes.open_items``: an item ``changes``
    adds is appended, so its index in the record is not the caller's). None for a field none of
    them filled."""
    def argument_of(field: str) -> str | None:
        section = field_of(field)
        top = section.split(".", 1)[0]
        return next((f"{name}.{section}" for name, given in (("replacement", replacement),
                                                             ("replace_lists", replace_lists), ("changes", changes))
                     if isinstance(given, dict) and top in given), None)

    return argument_of


MCP_START_WORDING = {"see_baton": "Baton's `handoff_resume` tool, with `id` {id}, reads it",
                     "begin_as": "Baton's `baton_session` tool (action `session_start`, `owner` {owner}) claims it"}
"""What ``bootstrap``'s notices of a lost claim and of a baton left for another owner tell the
agent to call, in this server's tools and arguments (the command line says its options)."""


# -- prompts and resources ------------------------------------------------------------

HANDOFF_SECTIONS_ASSIGNED = frozenset({"id", "made_at", "captured_at", "digest", "content_hash"})
"""Fields Baton fills in itself; the handoff prompt does not ask for them."""


def handoff_fields() -> list[tuple[str, list[str]]]:
    """Each section ``handoff_capture`` takes, with its fields (required ones marked), read from
    the tool's own input schema so the prompt never names a field the tool refuses."""
    sections = []
    properties = input_schemas()["handoff_capture"]["properties"]
    for name, schema in properties.items():
        body = schema.get("items", schema) if schema.get("type") in ("array", "object") else None
        if not body or "properties" not in body:
            continue
        required = set(body.get("required", ()))
        fields = [f"{field} (required)" if field in required else field
                  for field in body["properties"] if field not in HANDOFF_SECTIONS_ASSIGNED]
        sections.append((f"{name}[]" if schema.get("type") == "array" else name, fields))
    return sections


def handoff_request_text(focus: str | None = None) -> str:
    """The ``handoff`` prompt: what the agent writes, in which fields, with which tools."""
    lines = [
        "Write a Baton handoff of this session now, so that the next session (yours or another agent's) can "
        "continue without this conversation. Record facts only: the commands you ran and their real results, "
        "the decisions made and why, what failed and why. Never paste secrets, transcripts or whole files: "
        "link repository files by path.",
        "",
        "1. If Baton already prepared a draft for this session (`handoff_list` with status `draft`), complete "
        "it in place: call `handoff_amend` with `id` set to the draft's id and the sections below as "
        "`replacement` (or `handoff_capture` with `parent` set to the draft's id). Otherwise call "
        "`handoff_capture`.",
        "   Pass `session_id`: this session's id, as the session-start brief names it (its last line, \"This "
        "is HARNESS session …\"), so the handoff is handed on to the next session when this one ends.",
        "   Its sections and their fields:",
    ]
    lines += [f"   - {name}: {', '.join(fields)}" for name, fields in handoff_fields()]
    lines += [
        "   Fill `work.objective` with what the work is for, `summary.current_state` with where it stands, "
        "and at least one open item with a `suggested_action` and an `acceptance_check`: the next session "
        "starts from it.",
        "2. Call `handoff_validate` with the draft's id. If the report fails, fix what it names in place with "
        "`handoff_amend` (`id`: the draft, the fixes as `changes`) and validate again. Do not work around a "
        "policy block.",
        "3. Call `handoff_ready` with the id (`accept_warnings` only with the real reason the warnings stand).",
        "4. Tell the user the handoff's short id, and that the next session resumes it with the `resume` "
        "prompt, the `handoff_resume` tool or `baton resume latest`.",
    ]
    if focus:
        lines += ["", f"The user asks the handoff to cover in particular: {focus}"]
    return "\n".join(lines)


def register_prompts(server: MCPServer, text_of: Callable[[Callable[["Baton"], Any]], str]) -> None:
    """The MCP prompts: hand off now, resume a handoff, read the brief, pick up the baton."""
    @server.prompt(name="handoff", title="Hand off this session",
                   description="Ask the agent to write a structured, validated handoff of the current session "
                               "(handoff_capture, handoff_validate, handoff_ready).")
    def handoff_prompt(focus: Annotated[str | None, Field(
            description="what the handoff should cover in particular (optional)")] = None) -> str:
        return handoff_request_text(focus)

    @server.prompt(name="resume", title="Resume a handoff",
                   description="The resume brief of a ready handoff (default: the latest), with its freshness "
                               "derived now, to continue the work from. Writes nothing.")
    def resume_prompt(id: Annotated[str, Field(
            description="the handoff: full id, short id, unique prefix, or 'latest' (default)")] = "latest") -> str:
        brief = text_of(lambda baton: baton.resume(id or "latest", format="prompt"))
        return ("Continue the work from this Baton handoff. Treat it as working context, not unquestionable "
                "truth: if it says the repository moved since (stale), verify before acting, and do not retry "
                "what it lists as failed without new evidence.\n\n" + brief)

    @server.prompt(name="brief", title="Session brief",
                   description="The session-start brief (the baton waiting for this owner and branch, the "
                               "latest ready handoff, recent decisions, traps) without claiming anything.")
    def brief_prompt() -> str:
        brief = text_of(lambda baton: baton.bootstrap(peek=True))
        return ("Here is Baton's session-start brief for this project. Read it as working context; nothing "
                "was claimed (call the `bootstrap` tool with your session id to claim the baton it shows).\n\n"
                + brief)

    @server.prompt(name="pickup", title="Pick up the baton",
                   description="Ask the agent to claim the session baton waiting for it (the bootstrap tool) "
                               "and continue from it.")
    def pickup_prompt() -> str:
        return ("Pick up the session baton waiting for you: call Baton's `bootstrap` tool (with your session "
                "id as `session_id` if you know it). It claims the baton left for this owner and branch, exactly "
                "once, and returns the brief; called again with the same session id, it claims nothing more and "
                "shows the baton this session already received. Then continue from its next steps; treat it as "
                "working context, and verify anything its freshness line calls stale before acting. If it holds no "
                "baton, say so and offer the latest ready handoff (the `resume` prompt or `handoff_resume`).")


BRIEF_URI = "baton://brief/latest"
HANDOFF_URI = "baton://handoff/{id}"
LISTED_HANDOFFS = 50
"""At most this many ready handoffs are listed as resources (newest first); any other is read by its URI."""


def register_resources(server: MCPServer, text_of: Callable[[Callable[["Baton"], Any]], str]) -> None:
    """``baton://brief/latest`` and ``baton://handoff/{id}``; ready handoffs are listed by ``list_resources``."""

    @server.resource(BRIEF_URI, name="latest-brief", title="Latest resume brief", mime_type="text/plain",
                     description="The resume brief of the newest ready handoff of the current branch (else the "
                                 "project's), with its freshness derived when read.")
    def latest_brief() -> str:
        return text_of(lambda baton: baton.resume("latest", format="prompt"))

    @server.resource(HANDOFF_URI, name="handoff", title="A ready handoff", mime_type="text/markdown",
                     description="A ready handoff's resume brief as Markdown, with its freshness derived when "
                                 "read (any id form).")
    def handoff_text(id: str) -> str:
        return text_of(lambda baton: baton.resume(id, format="md"))



# -- the `baton mcp` command ----------------------------------------------------------

@frozen
class ServeResult:
    """What ``baton mcp`` returns once the client closes stdin: nothing to print."""

    root: str
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"root": self.root, "stopped": True}

    def render(self) -> str:
        return ""


def serve_stdio(project: str | os.PathLike | None = None) -> ServeResult:
    """Serve MCP on stdin/stdout until the client closes the stream."""
    server = build_server(project)
    try:
        unanswered = Unanswered()
        server.call_order = unanswered.calls  # tool calls then run in the order they were read
        anyio.run(serve_until_answered, server, unanswered)
    except* (BrokenPipeError, ConnectionResetError):
        pass  # the client stopped reading stdout: nobody is left to answer
    return ServeResult(str(resolve_root(project)))


@frozen
class ToolListResult:
    root: str
    tools: tuple[dict[str, Any], ...]
    exit_code: int = 0
    prompts: tuple[dict[str, Any], ...] = ()
    resources: tuple[str, ...] = ()
    """The fixed resources' URIs and the templates' (``baton://handoff/{id}``)."""

    def to_json(self) -> dict[str, Any]:
        return {"server": "baton", "version": __version__, "transport": "stdio", "root": self.root,
                "tools": list(self.tools), "prompts": list(self.prompts), "resources": list(self.resources),
                "not_available": list(NOT_AVAILABLE)}

    def render(self) -> str:
        lines = [f"baton mcp (stdio) for {self.root}: {len(self.tools)} tools"]
        for tool in self.tools:
            lines.append(f"  {tool['name']}: {tool['description'].split('.')[0]}.")
        if self.prompts:
            lines.append(f"Prompts: {', '.join(p['name'] for p in self.prompts)}")
        if self.resources:
            lines.append(f"Resources: {', '.join(self.resources)}")
        if NOT_AVAILABLE:
            lines.append(f"Not available yet: {', '.join(NOT_AVAILABLE)}")
        return "\n".join(lines)


def describe_tools(project: str | os.PathLike | None = None) -> ToolListResult:
    """The tools ``baton mcp`` serves, with their input schemas (``baton mcp --json``)."""
    server = build_server(project)
    listed = anyio.run(server.list_tools)
    tools = tuple({"name": t.name, "description": t.description or "",
                   "inputSchema": t.input_schema, "outputSchema": t.output_schema,
                   "annotations": t.annotations.model_dump(by_alias=True, exclude_none=True) if t.annotations else {}}
                  for t in listed)
    prompts = tuple({"name": p.name, "title": p.title, "description": p.description,
                     "arguments": [{"name": a.name, "description": a.description, "required": bool(a.required)}
                                   for a in p.arguments or []]}
                    for p in anyio.run(server.list_prompts))
    resources = (BRIEF_URI, HANDOFF_URI)
    return ToolListResult(str(resolve_root(project)), tools, prompts=prompts, resources=resources)
