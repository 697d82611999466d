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

import inspect
import os
import threading
from typing import Annotated, Any, Callable, Literal

import orjson
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from baton.model import frozen
from baton import __version__
from baton.commands.resume import FORMATS
from baton.domain.batons import DEFAULT_MAX_BYTES
from baton.domain.handoff import Status, Trigger
from baton.domain.limits import MAX_INPUT_BYTES
from baton.app import Baton
from baton.errors import BatonError, InputError, NotFound

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

# Argument types, at module level so the SDK can read the annotations.
Id = Annotated[str, Field(description="handoff id: full id, 8-character short id, a unique prefix, or 'latest' "
                                      "(the newest ready handoff of the current branch)")]
DraftId = Annotated[str, Field(description="handoff id: full id, 8-character short id, or a unique prefix ('latest' "
                                           "names a ready handoff, never one to validate or promote)")]
ResumeFormat = Literal[FORMATS]  # type: ignore[valid-type]  # the command's own list of formats
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
    is encoded once: when the screen changes nothing, the text is the
    encoding the plain JSON was read back from."""
    from baton.domain.redaction import screen_output

    raw = orjson.dumps(result.to_json(), default=str)
    data = orjson.loads(raw)
    if not isinstance(data, dict):
        data, raw = {"result": data}, b""
    screened = screen_output(data, policy, encoded=raw or None)
    text = raw.decode() if screened is data and raw else orjson.dumps(screened).decode()
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


def validation_problems(exc: ValidationError) -> list[str]:
    return [f"{'.'.join(str(part) for part in err['loc']) or '(arguments)'}: {err['msg']}" for err in exc.errors()]


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
    and every answer screened for secrets."""

    output_policy: Callable[[], Any] | None = None
    """The rules answers go through (the project's policy once it is open)."""

    async def list_tools(self) -> list[Any]:
        from baton.mcp_schemas import OUTPUT_SCHEMAS, input_schemas

        inputs = input_schemas()
        listed = await super().list_tools()
        return [tool.model_copy(update={"input_schema": inputs[tool.name], "output_schema": OUTPUT_SCHEMAS[tool.name],
                                        "description": inspect.cleandoc(tool.description or "")})
                for tool in listed]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        from baton.domain.redaction import RedactionPolicy

        result = await self.checked_call_tool(name, arguments, context)
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
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                return argument_error(name, validation_problems(exc.__cause__))
            raise


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
            opened.append(Baton.open(root))
        return opened[0]

    def output_policy() -> Any:
        from baton.domain.redaction import RedactionPolicy

        try:
            return opened[0].project.policy.redaction if opened else RedactionPolicy()
        except BatonError:
            return RedactionPolicy()

    def run(command: Callable[[Baton], Any]) -> CallToolResult:
        with serial:
            try:
                result = command(app())
                return screened_answer(result, output_policy())
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
        work: Annotated[Section, Field(description="{title, objective, scope[], constraints[], "
                                                   "definition_of_done[], state?}; title and objective required")],
        summary: Annotated[Section | None, Field(description="{current_state, completed[], in_progress[], "
                                                             "discoveries[], why_it_matters}")] = None,
        decisions: Annotated[Items | None, Field(description="[{decision, rationale, alternatives_considered[], "
                                                             "evidence_ids[]}]")] = None,
        artifacts: Annotated[Items | None, Field(description="[{path (inside the project), role: modified|created|"
                                                             "read|generated|deleted, description}]")] = None,
        evidence: Annotated[Items | None, Field(description="[{type: command|test|file|commit|url|human|observation, "
                                                            "claim, ref, result: pass|fail|observed, output?}]; "
                                                            "output is kept only as a digest and a bounded, "
                                                            "redacted summary")] = None,
        failed_attempts: Annotated[Items | None, Field(description="[{approach, outcome: failed|regressed|abandoned, "
                                                                   "reason, evidence_ids[]}]")] = None,
        open_items: Annotated[Items | None, Field(description="[{description, priority: high|medium|low, "
                                                              "suggested_action, acceptance_check}]")] = None,
        risks: Annotated[Items | None, Field(description="[{description, severity, mitigation}]")] = None,
        parent: Annotated[Text, Field(description="continue from this handoff (any id form)")] = None,
        trigger: Annotated[Trigger, Field(description="what prompted the capture")] = "manual",
        session_id: Annotated[Text, Field(description="the capturing session's opaque id")] = None,
        harness: Annotated[Text, Field(description="codex, claude-code, cursor, gemini-cli, generic...")] = None,
        model: Annotated[Text, Field(description="a descriptive model id")] = None,
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
        accept_warnings: Annotated[Text, Field(description="required when validation warned: why the warnings "
                                                           "are acceptable")] = None,
    ) -> CallToolResult:
        """Promote a validated handoff to ready (then it never changes). A failed validation cannot be
        promoted (exit 3); a warn needs accept_warnings; from any other state conflict (exit 4)."""
        return run(lambda baton: baton.promote(id, accept_warnings=accept_warnings))

    def handoff_resume(
        id: Id = "latest",
        format: Annotated[ResumeFormat, Field(description="prompt (a bounded brief), md, or json")] = "prompt",
        max_tokens: Annotated[int | None, Field(description="token budget for the brief (default 1200, "
                                                            "at least 500)")] = None,
        mark_resumed: Annotated[bool, Field(description="record that this session resumed the handoff "
                                                        "(the only write this tool makes)")] = False,
        session_id: Annotated[Text, Field(description="the resuming session's opaque id")] = None,
        harness: Annotated[Text, Field(description="the resuming harness")] = None,
        any_branch: Annotated[bool, Field(description="with id 'latest': the project's newest ready handoff, "
                                                      "not this branch's")] = False,
    ) -> CallToolResult:
        """The resume brief of a ready handoff with its freshness derived now (fresh, partially_stale,
        stale, unknown) and its continuity score. 'latest' is the newest ready handoff of the current
        branch (falling back to the project's, with latest.notice saying so). Writes nothing unless
        mark_resumed."""
        return run(lambda baton: baton.resume(id, format=format, mark_resumed=mark_resumed, max_tokens=max_tokens,
                                              session=session_id, harness=harness, any_branch=any_branch))

    def handoff_list(
        status: Annotated[Status | None, Field(description="only handoffs in this state")] = None,
        work: Annotated[Text, Field(description="full-text search over title, objective and summary")] = None,
        limit: Annotated[int | None, Field(description="at most this many")] = None,
        kind: Annotated[Literal["handoff", "baton", "all"], Field(
            description="handoffs (default), session batons, or all")] = "handoff",
        branch: Annotated[Text, Field(description="only records of this branch")] = None,
    ) -> CallToolResult:
        """Handoff summaries, newest first: id, status, flags, title, dates, validation, lineage, branch. No
        evidence payloads. Session batons only with kind baton or all."""
        return run(lambda baton: baton.list_handoffs(status=status, work=work, limit=limit, kind=kind,
                                                     branch=branch))

    def handoff_fork(
        id: Id,
        label: Annotated[Text, Field(description="what this branch is for")] = None,
        session_id: Annotated[Text, Field(description="the forking session's opaque id")] = None,
    ) -> CallToolResult:
        """Create a DRAFT child of a handoff with lineage relation fork (the parent is never modified).
        It starts from the parent's work, summary, open items, failed attempts and risks; the parent's
        decisions are inherited as context. Next: handoff_validate."""
        return run(lambda baton: baton.fork(id, label=label, session=session_id))

    def handoff_merge(
        ids: Annotated[list[str], Field(description="two or more handoff ids to merge")],
        resolution: Annotated[Section | None, Field(description="{decision (required: the explicit resolution), "
                                                                "rationale, resolves[], current_state, "
                                                                "evidence[], decisions[]}")] = None,
        title: Annotated[Text, Field(description="the merged work's title (default: the first parent's)")] = None,
        session_id: Annotated[Text, Field(description="the merging session's opaque id")] = None,
    ) -> CallToolResult:
        """Create a DRAFT child of two or more handoffs with lineage relation merge. Refused with
        merge_unresolved (exit 3, nothing written, the conflict candidates in details) until resolution
        holds an explicit decision; records the conflicts it resolves and the parents' evidence. Parents
        are never modified."""
        return run(lambda baton: baton.merge(list(ids), title=title, resolution=resolution, session=session_id))

    def handoff_detect(
        signals: Annotated[dict[str, float | bool | None], Field(
            description="normalized signals, each 0-1 or null (unavailable): context_pressure, turn_pressure, "
                        "elapsed_pressure, work_boundary, handoff_request, change_pressure, stuck_signal, "
                        "resume_readiness, semantic_phase_change, unresolved_questions, session_age_pressure")],
        prepare: Annotated[bool, Field(description="create the draft when the outcome is auto_prepare or an "
                                                   "explicit request (default: report only)")] = False,
        session_id: Annotated[Text, Field(description="the session the signals are about")] = None,
        harness: Annotated[Text, Field(description="the harness reporting them")] = None,
    ) -> CallToolResult:
        """Score handoff pressure and readiness (spec §9) with the project's weights and thresholds: the
        score, the inputs used, unavailable signals, reasons and the recommended action (none, recommend,
        auto_prepare, prepare), suppressed during the session's cooldown, snooze or disable. Creates a
        draft only with prepare. Never ends or starts a session."""
        return run(lambda baton: baton.detect(signals, prepare=prepare, session=session_id, harness=harness,
                                              source="mcp", create_drafts=prepare))

    def prompt(
        action: Annotated[PromptAction, Field(description="session_start, session_end or cancel_handoff")],
        session_id: Annotated[Text, Field(description="the session's opaque id (required for session_end; "
                                                      "session_start mints one when absent)")] = None,
        objective: Annotated[Text, Field(description="session_start: what this session is for (bound to "
                                                     "owner and branch; absent clears a stale one)")] = None,
        handoff: Annotated[Section | None, Field(description="session_end: the baton for the next session, "
                                                             "{nextSteps[] (required), failedApproaches[], "
                                                             "openQuestions[], branch, owner, shared}")] = None,
        shared: Annotated[bool | None, Field(description="session_end: share the baton with every owner "
                                                         "and branch")] = None,
        harness: Annotated[Text, Field(description="the harness running the session")] = None,
        owner: Annotated[Text, Field(description="owner (default: git user.email, user.name, OS user, "
                                                 "'local')")] = None,
        branch: Annotated[Text, Field(description="branch (default: the current git branch, else "
                                                  "'unknown')")] = None,
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
        session_id: Annotated[Text, Field(description="the starting session's opaque id (the claim names it; "
                                                      "absent: a new UUIDv7, returned as sessionId)")] = None,
        max_bytes: Annotated[int, Field(description="the brief's byte budget (at least 1024)")] = DEFAULT_MAX_BYTES,
        owner: Annotated[Text, Field(description="owner (default: git user.email, user.name, OS user, "
                                                 "'local')")] = None,
        branch: Annotated[Text, Field(description="branch (default: the current git branch)")] = None,
        peek: Annotated[bool, Field(description="show what would be delivered without claiming it "
                                                "(nothing is written)")] = False,
    ) -> CallToolResult:
        """The session-start brief: the session baton waiting for this owner and branch (rendered as
        '## 🤝 Active Session Handoff' and claimed exactly once, only when it fits max_bytes), the
        session objective, recent decisions and do-not-retry traps. Returns brief, bytes,
        handoffMarkdown, handoff, sessionObjective and sessionId. With peek, nothing is claimed."""
        return run(lambda baton: baton.bootstrap(session_id=session_id, max_bytes=max_bytes, owner=owner,
                                                 branch=branch, peek=peek))

    server.add_tool(baton_status, annotations=_READ_ONLY)
    server.add_tool(handoff_capture, annotations=_WRITES)
    server.add_tool(handoff_validate, annotations=_WRITES)
    server.add_tool(handoff_ready, annotations=_WRITES)
    server.add_tool(handoff_resume, annotations=_WRITES)
    server.add_tool(handoff_list, annotations=_READ_ONLY)
    server.add_tool(handoff_fork, annotations=_WRITES)
    server.add_tool(handoff_merge, annotations=_WRITES)
    server.add_tool(handoff_detect, annotations=_WRITES)
    server.add_tool(prompt, annotations=_MAY_CANCEL)
    server.add_tool(bootstrap, annotations=_WRITES)
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
