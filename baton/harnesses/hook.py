"""``baton hook HARNESS EVENT``: one harness event, read from stdin, answered on stdout.

The harness's adapter reads the payload into ``SessionMetadata``; the
application object does what the event means (``start_harness_session``,
``prepare_for_compaction``, ``finish_harness_session``); the adapter shapes
the answer. Nothing here decides.

A hook must never break the harness that runs it: whatever goes wrong — an
unknown harness or event, a payload that is not JSON, a directory that is
not a Baton project or not a git repository, a ledger another process keeps
locked, a damaged index — the hook exits 0, writes one line to stderr and
answers the harness's "nothing" (an empty stdout, ``{}`` where the
harness parses stdout, ``{"continue": true}`` for Cursor's prompt hook, which
would otherwise hold the prompt back). ``BATON_DEBUG=1`` raises instead, for a
traceback.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, Mapping

from baton.model import frozen

from baton.errors import BatonError, InputError, LedgerBusy
from baton.harnesses.protocol import (
    IGNORED, PRE_COMPACT, SESSION_END, SESSION_START, USER_PROMPT, SessionMetadata,
)

LOCK_WAIT_SECONDS = 3.0
"""How long a hook waits for a ledger another process holds (``BATON_HOOK_LOCK_WAIT`` overrides)."""


@frozen
class HookOutcome:
    """What the hook prints: ``answer`` on stdout, ``problem`` (one line) on stderr."""

    answer: str
    problem: str | None = None
    result: Any = None
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"answer": self.answer, "problem": self.problem,
                "result": self.result.to_json() if self.result is not None else None}

    def render(self) -> str:
        return self.answer


def read_payload(raw: bytes) -> Mapping[str, Any]:
    """The hook's stdin as a JSON object (empty stdin is an empty object).

    Raises:
        InputError: not JSON, or not an object.
    """
    import orjson

    if not raw.strip():
        return {}
    try:
        payload = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise InputError(f"the hook payload on stdin is not JSON ({exc})") from None
    if not isinstance(payload, dict):
        raise InputError("the hook payload on stdin is not a JSON object")
    return payload


def wait_for_ledger(lock_path: str | os.PathLike, seconds: float) -> None:
    """Return once nobody holds the ledger lock, or raise after ``seconds``.

    The lock is taken without waiting and let go at once: a hook then runs
    its step like any command, but never hangs its harness behind a long
    writer (a rebuild, a stuck process).

    Raises:
        LedgerBusy: the lock stayed held.
    """
    import fcntl

    try:
        fd = os.open(lock_path, os.O_RDWR)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise LedgerBusy(f"cannot open the ledger lock: {exc.strerror or exc}") from None
    deadline = time.monotonic() + seconds
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(fd, fcntl.LOCK_UN)
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LedgerBusy(f"the ledger stayed locked by another process for {seconds:g} s") from None
                time.sleep(0.05)
    finally:
        os.close(fd)


def _lock_wait() -> float:
    try:
        return max(0.0, float(os.environ.get("BATON_HOOK_LOCK_WAIT", LOCK_WAIT_SECONDS)))
    except ValueError:
        return LOCK_WAIT_SECONDS


def _project_root(project: str | os.PathLike | None, cwd: str | None) -> Path:
    """``--project``, else ``$BATON_PROJECT``, else the git top level of the payload's ``cwd`` (else of ours).

    In a linked worktree this is that worktree's top level, which opens the
    shared project (the main worktree's ``.baton/``) with the linked worktree
    as the current one: its branch, head and changes are the session's.
    """
    from baton.project import resolve_root, resolve_worktree

    if project:
        return Path(project)
    start = Path(cwd) if cwd and Path(cwd).is_dir() else None
    root = resolve_root(None, cwd=start)
    return resolve_worktree(root, None, cwd=start)


def amend_hint(draft: str) -> str:
    """How the agent completes the draft a prompt prepared: the command line,
    or over MCP (which has no amend) a capture continuing it, which the
    session's end hands on like the draft itself."""
    from baton.domain.short_ids import short_id

    return (f" (`baton handoff amend {short_id(draft)} --input FILE`, or over MCP `handoff_capture` with "
            f"`parent` {draft})")


def act(app: Any, metadata: SessionMetadata) -> Any:
    """Call the application object's method for the event's kind."""
    if metadata.kind == SESSION_START:
        return app.start_harness_session(metadata.session_id, harness=metadata.harness, source=metadata.source)
    if metadata.kind == PRE_COMPACT:
        prepared = app.prepare_for_compaction(metadata.session_id, harness=metadata.harness, trigger=metadata.trigger)
        feed_detector_compaction(app, metadata, prepared.handoff_id)
        return prepared
    if metadata.kind == USER_PROMPT:
        return app.detect({"handoff_request": 1.0 if metadata.handoff_request else None},
                          session=metadata.session_id, harness=metadata.harness, source="hook")
    if metadata.kind == SESSION_END:
        return app.finish_harness_session(metadata.session_id, harness=metadata.harness, reason=metadata.reason)
    raise InputError(f"a {metadata.harness} {metadata.event} event means nothing to Baton")


def feed_detector_compaction(app: Any, metadata: SessionMetadata, draft: str | None) -> None:
    """Tell the detector what a compaction means (``detector_inputs``), naming
    the draft the compaction prepared: the recommendation is recorded (and
    starts the session's cooldown) like any other."""
    from baton.commands.harness_sessions import detector_inputs

    signals = detector_inputs(metadata.trigger)["inputs"]
    app.detect(signals, session=metadata.session_id, harness=metadata.harness, source="hook", create_drafts=False,
               prepared_draft=draft)


def run_hook(harness: str, event: str, stdin: bytes, *, project: str | os.PathLike | None = None) -> HookOutcome:
    """Handle one hook event; never raises (unless ``BATON_DEBUG`` is set)."""
    from baton.harnesses import adapter as adapter_named

    empty = ""
    try:
        chosen = adapter_named(harness)
        empty = chosen.empty_for(event)
        if chosen.event_named(event) is None:
            raise InputError(f"{harness} has no {event!r} hook Baton handles; it handles: "
                             f"{', '.join(chosen.kinds)}")
        payload = read_payload(stdin)
        metadata = chosen.get_session_metadata(event, payload)
        if metadata.kind == IGNORED:
            # An event that is not what it names (Gemini's PreCompress ``auto``
            # before every turn): nothing opened, nothing written.
            return HookOutcome(empty)
        if metadata.session_id is None:  # every event is a session's: without its id, nothing is done
            raise InputError(f"a session id is required (`{chosen.session_fields[0]}`)")
        if metadata.kind == USER_PROMPT and not metadata.handoff_request:
            # The only signal a prompt carries is an explicit request: without
            # one the detector would score nothing, so nothing is opened.
            return HookOutcome(empty)
        from baton.app import Baton

        with Baton.open(_project_root(project, chosen.get_project_context(payload).cwd)) as app:
            wait_for_ledger(app.project.ledger.lock_path, _lock_wait())
            result = act(app, metadata)
        context = getattr(result, "context", None)
        if metadata.kind == USER_PROMPT and context and getattr(result, "draft", None):
            context = result.notice(complete_with=amend_hint(result.draft))
        return HookOutcome(chosen.render_notice(metadata, context), result=result)
    except BatonError as exc:
        return HookOutcome(empty, f"baton hook {harness} {event}: {exc.message}; nothing injected")
    except Exception as exc:  # noqa: BLE001 - a hook never breaks its harness
        if os.environ.get("BATON_DEBUG"):
            raise
        return HookOutcome(empty, f"baton hook {harness} {event}: internal error: {type(exc).__name__}: {exc}; "
                                  "nothing injected")
