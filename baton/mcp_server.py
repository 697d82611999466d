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

``handoff_fork``, ``handoff_merge`` and ``handoff_detect`` call the same
methods as ``baton fork``, ``baton merge`` and ``baton detect``; as §13 says,
``handoff_detect`` does not create a draft unless ``prepare`` is true.

Importing this module imports ``mcp``; only the ``baton mcp`` handler does.
"""

from __future__ import annotations

import functools
import inspect
import os
import threading
from typing import TYPE_CHECKING, Any, Callable, Literal

import anyio.to_thread
import orjson
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent, Tool, ToolAnnotations

from baton.model import frozen
from baton import __version__
from baton.domain.batons import DEFAULT_MAX_BYTES
from baton.domain.limits import MAX_INPUT_BYTES
from baton.errors import BatonError, InputError, NotFound

if TYPE_CHECKING:
    from baton.app import Baton
    from baton.domain.handoff import Status, Trigger

TOOL_NAMES = ("baton_status", "handoff_capture", "handoff_validate", "handoff_ready", "handoff_resume",
              "handoff_list", "handoff_fork", "handoff_merge", "handoff_detect", "prompt", "bootstrap")
NOT_AVAILABLE: tuple[str, ...] = ()
MAX_ARGUMENT_BYTES = MAX_INPUT_BYTES
"""One tool call's arguments, as JSON. A handoff is state, not a transcript (spec §4)."""

INSTRUCTIONS = (
    "Baton keeps structured, verified handoffs between agent sessions in this project. "
    "At session start call `bootstrap` (it delivers and claims the session baton waiting for you). "
    "To hand work over: `handoff_capture` (a draft), `handoff_validate`, `handoff_ready`; the next session "
    "calls `handoff_resume`. To leave quick next steps for the next session on this branch: "
    "`prompt` with action `session_end` and a `handoff` object. Record only facts; never paste secrets "
    "or transcripts (secrets are redacted before anything is written)."
)

# The tools' argument types, for the reader: what a tool accepts is its closed
# input schema (``baton.mcp_schemas.input_schemas``), checked before it runs.
Id = str  # any id form, or 'latest'
DraftId = str  # any id form but 'latest'
ResumeFormat = str  # one of baton.commands.resume.FORMATS
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
    from baton.domain.redaction import screen_encoded, visible_json

    value = result.to_json()
    raw = orjson.dumps(value if isinstance(value, dict) else {"result": value}, default=str)
    screened, clean = screen_encoded(raw, policy)
    # The same JSON, with U+202E and the other invisible format characters as visible escapes.
    text = visible_json(raw.decode() if clean else orjson.dumps(screened).decode())
    return ScreenedResult(content=[TextContent(type="text", text=text)], structured_content=screened)


ARGUMENT_NAMES = {"session": "session_id", "handoff_id": "id", "token": "id"}
"""The use cases' parameters as the tools name their arguments (the rest are spelled alike)."""


def tool_error(exc: BatonError) -> CallToolResult:
    """A ``BatonError`` as a tool error: ``{"error": {code, message, exit_code, details?}}``."""
    exc.name_parameters(ARGUMENT_NAMES)
    return structured(_plain_json({"error": exc.to_json()}), is_error=True)


def _internal_error(exc: Exception) -> CallToolResult:
    error = {"code": "internal_error", "message": f"{type(exc).__name__}: {exc}", "exit_code": 1}
    return structured({"error": error}, is_error=True)


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
    from baton.domain.redaction import screen_output, screen_text

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

    def baton_tool(self, fn: Callable[..., Any], annotations: ToolAnnotations) -> None:
        """Serve ``fn`` as the tool of its name; its docstring is the description."""
        self.baton_tools[fn.__name__] = (fn, annotations)

    async def list_tools(self) -> list[Any]:
        from baton.mcp_schemas import OUTPUT_SCHEMAS, input_schemas

        inputs = input_schemas()
        return [Tool(name=name, description=inspect.cleandoc(fn.__doc__ or ""), input_schema=inputs[name],
                     output_schema=OUTPUT_SCHEMAS[name], annotations=annotations)
                for name, (fn, annotations) in self.baton_tools.items()]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        result = await self.checked_call_tool(name, arguments, context)
        if isinstance(result, ScreenedResult):  # a tool's answer: screened where it was made
            return result
        from baton.domain.redaction import RedactionPolicy

        return screened_tool_result(result, self.output_policy() if self.output_policy else RedactionPolicy())

    async def checked_call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
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
        from baton.mcp_schemas import check_arguments, input_schemas

        problems = check_arguments(input_schemas()[name], arguments if arguments is not None else {})
        if problems:
            return argument_error(name, problems)
        # As the SDK runs a synchronous tool: on a worker thread, the event loop free meanwhile.
        fn = self.baton_tools[name][0]
        return await anyio.to_thread.run_sync(functools.partial(fn, **(arguments or {})))


_READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
_WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
_MAY_CANCEL = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)

_PROMPT_ARGUMENTS = {
    "session_start": {"session_id", "objective", "harness", "owner", "branch"},
    "session_end": {"session_id", "handoff", "shared", "harness", "owner", "branch"},
    "cancel_handoff": {"session_id", "owner", "branch"},
}


def build_server(project: str | os.PathLike | None = None) -> BatonMCPServer:
    """An MCP server bound to the project ``project`` resolves to (as ``--project`` does)."""
    from baton.project import resolve_root, resolve_worktree

    # Named by its current worktree: a linked worktree opens the shared .baton/
    # but keeps its own branch, head and files (docs/architecture.md).
    root = str(resolve_worktree(resolve_root(project), project))
    serial = threading.Lock()
    opened: list[Baton] = []
    """The server's one application object, opened at the first call that
    finds the project initialised and kept: each call then catches up with
    what other processes appended, reading only those bytes."""

    def app() -> Baton:
        if not opened:
            from baton.app import Baton

            opened.append(Baton.open(root))
        return opened[0]

    def output_policy() -> Any:
        from baton.domain.redaction import RedactionPolicy

        try:
            return opened[0].project.policy.redaction if opened else RedactionPolicy()
        except BatonError:
            return RedactionPolicy()

    last: list[Any] = []
    """The last answer given, with the result object and policy it was made
    from: a command that hands back the very same (immutable) result object
    (``handoff list`` on an unchanged index) gets the same answer, neither
    encoded nor screened again."""

    def run(command: Callable[[Baton], Any]) -> CallToolResult:
        with serial:
            try:
                result = command(app())
                policy = output_policy()
                if last and last[0] is result and last[1] is policy:
                    return last[2]
                answer = screened_answer(result, policy)
                last[:] = (result, policy, answer)
                return answer
            except BatonError as exc:
                return tool_error(exc)
            except Exception as exc:  # noqa: BLE001 - as in the CLI: no tracebacks for the caller
                if os.environ.get("BATON_DEBUG"):
                    raise
                return _internal_error(exc)

    server = BatonMCPServer("baton", title="Baton", version=__version__, instructions=INSTRUCTIONS,
                       log_level="WARNING")

    server.output_policy = output_policy

    def baton_status() -> CallToolResult:
        """The project at a glance: config and policy summary, handoff counts by status, the latest
        ready handoff with its freshness now (fresh, partially_stale, stale, unknown), and the number
        of pending session batons. Read-only."""
        return run(lambda baton: baton.status())

    def handoff_capture(
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
        policy, or the capture refused (policy_block, exit 5), and paths outside the project are
        refused, before anything is written; malformed input is an input_error (exit 2) listing
        every problem. Next: handoff_validate."""
        sections = {"work": work, "summary": summary, "decisions": decisions, "artifacts": artifacts,
                    "evidence": evidence, "failed_attempts": failed_attempts, "open_items": open_items,
                    "risks": risks}
        payload = {k: v for k, v in sections.items() if v is not None}
        origin = {"harness": harness, "model": model}

        return run(lambda baton: baton.capture(payload, trigger=trigger, parent=parent, origin=origin,
                                                       session=session_id))

    def handoff_validate(id: DraftId) -> CallToolResult:
        """Run every check (schema, policy, artifacts, repository, evidence, actionability, lineage,
        continuity score, freshness) and record the report. A failed report is a result, not a tool
        error: read report.status (pass, warn, fail). Recorded command evidence is never re-run here
        (that is `baton handoff validate ID --recheck`, allowlisted commands only)."""
        return run(lambda baton: baton.validate(id, recheck=False))

    def handoff_ready(
        id: DraftId,
        accept_warnings: Text = None,
    ) -> CallToolResult:
        """Promote a validated handoff to ready (then it never changes). A failed validation cannot be
        promoted (exit 3); a warn needs accept_warnings; from any other state conflict (exit 4)."""
        return run(lambda baton: baton.promote(id, accept_warnings=accept_warnings))

    def handoff_resume(
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
        branch (falling back to the project's, with latest.notice saying so). Writes nothing unless
        mark_resumed."""
        return run(lambda baton: baton.resume(id, format=format, mark_resumed=mark_resumed, max_tokens=max_tokens,
                                              session=session_id, harness=harness, any_branch=any_branch))

    def handoff_list(
        status: Status | None = None,
        work: Text = None,
        limit: int | None = None,
        kind: Literal["handoff", "baton", "all"] = "handoff",
        branch: Text = None,
    ) -> CallToolResult:
        """Handoff summaries, newest first: id, status, flags, title, dates, validation, lineage, branch. No
        evidence payloads. Session batons only with kind baton or all."""
        return run(lambda baton: baton.list_handoffs(status=status, work=work, limit=limit, kind=kind,
                                                     branch=branch))

    def handoff_fork(
        id: Id,
        label: Text = None,
        session_id: Text = None,
    ) -> CallToolResult:
        """Create a DRAFT child of a handoff with lineage relation fork (the parent is never modified).
        It starts from the parent's work, summary, open items, failed attempts and risks; the parent's
        decisions are inherited as context. Next: handoff_validate."""
        return run(lambda baton: baton.fork(id, label=label, session=session_id))

    def handoff_merge(
        ids: list[str],
        resolution: Section | None = None,
        title: Text = None,
        session_id: Text = None,
    ) -> CallToolResult:
        """Create a DRAFT child of two or more handoffs with lineage relation merge. Refused with
        merge_unresolved (exit 3, nothing written, the conflict candidates in details) until resolution
        holds an explicit decision; records the conflicts it resolves and the parents' evidence. Parents
        are never modified."""
        return run(lambda baton: baton.merge(list(ids), title=title, resolution=resolution, session=session_id))

    def handoff_detect(
        signals: dict[str, float | bool | None],
        prepare: bool = False,
        session_id: Text = None,
        harness: Text = None,
    ) -> CallToolResult:
        """Score handoff pressure and readiness (spec §9) with the project's weights and thresholds: the
        score, the inputs used, unavailable signals, reasons and the recommended action (none, recommend,
        auto_prepare, prepare), suppressed during the session's cooldown, snooze or disable. Creates a
        draft only with prepare. Never ends or starts a session."""
        return run(lambda baton: baton.detect(signals, prepare=prepare, session=session_id, harness=harness,
                                              source="mcp", create_drafts=prepare))

    def prompt(
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
                                           owner=owner, branch=branch)
            if action == "session_end":
                return baton.end_session(session_id, handoff, harness=harness, owner=owner, branch=branch,
                                         shared=shared)
            return baton.cancel_baton(owner=owner, branch=branch, session=session_id)

        return run(act)

    def bootstrap(
        session_id: Text = None,
        max_bytes: int = DEFAULT_MAX_BYTES,
        owner: Text = None,
        branch: Text = None,
        peek: bool = False,
    ) -> CallToolResult:
        """The session-start brief: the session baton waiting for this owner and branch (rendered as
        '## 🤝 Active Session Handoff' and claimed exactly once, only when it fits max_bytes), the
        session objective, recent decisions and do-not-retry traps. Returns brief, bytes,
        handoffMarkdown, handoff, sessionObjective and sessionId. With peek, nothing is claimed."""
        return run(lambda baton: baton.bootstrap(session_id=session_id, max_bytes=max_bytes, owner=owner,
                                                 branch=branch, peek=peek))

    server.baton_tool(baton_status, _READ_ONLY)
    server.baton_tool(handoff_capture, _WRITES)
    server.baton_tool(handoff_validate, _WRITES)
    server.baton_tool(handoff_ready, _WRITES)
    server.baton_tool(handoff_resume, _WRITES)
    server.baton_tool(handoff_list, _READ_ONLY)
    server.baton_tool(handoff_fork, _WRITES)
    server.baton_tool(handoff_merge, _WRITES)
    server.baton_tool(handoff_detect, _WRITES)
    server.baton_tool(prompt, _MAY_CANCEL)
    server.baton_tool(bootstrap, _WRITES)
    return server


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
    from baton.project import resolve_root

    server = build_server(project)
    server.run("stdio")
    return ServeResult(str(resolve_root(project)))


@frozen
class ToolListResult:
    root: str
    tools: tuple[dict[str, Any], ...]
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"server": "baton", "version": __version__, "transport": "stdio", "root": self.root,
                "tools": list(self.tools), "not_available": list(NOT_AVAILABLE)}

    def render(self) -> str:
        lines = [f"baton mcp (stdio) for {self.root}: {len(self.tools)} tools"]
        for tool in self.tools:
            lines.append(f"  {tool['name']}: {tool['description'].split('.')[0]}.")
        if NOT_AVAILABLE:
            lines.append(f"Not available yet: {', '.join(NOT_AVAILABLE)}")
        return "\n".join(lines)


def describe_tools(project: str | os.PathLike | None = None) -> ToolListResult:
    """The tools ``baton mcp`` serves, with their input schemas (``baton mcp --json``)."""
    import anyio

    from baton.project import resolve_root

    server = build_server(project)
    listed = anyio.run(server.list_tools)
    tools = tuple({"name": t.name, "description": t.description or "",
                   "inputSchema": t.input_schema, "outputSchema": t.output_schema,
                   "annotations": t.annotations.model_dump(by_alias=True, exclude_none=True) if t.annotations else {}}
                  for t in listed)
    return ToolListResult(str(resolve_root(project)), tools)
