"""Leaving a notice for the next session start (``baton.harnesses.notices``):
one line appended to ``.baton/hook-notices.jsonl``, through the secret
screen first. Never raises: a notice that cannot be written is dropped.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable

import orjson

from baton.domain.identifiers import SESSION, screen_identifiers
from baton.domain.redaction import RedactionPolicy, redact_text
from baton.harnesses.notices import FILE_NAME

MAX_BYTES = 64 * 1024
"""The notice file's bound: past it new notices are dropped."""


def leave(baton_dir: str | os.PathLike, *, harness: str, event: str, session: str | None, problem: str,
          at: str, failed: bool = True) -> bool:
    """Append one notice; False when it could not be written (no ``.baton/``,
    read-only, full). Never raises. ``failed``: the hook failed (else it
    did its work and has something to say, e.g. a handoff it did not hand on)."""
    harness, event, session, problem = _screened(harness, event, session, problem)
    path = Path(baton_dir) / FILE_NAME
    line = orjson.dumps({"at": at, "harness": harness, "event": event, "session": session,
                         "problem": problem, "failed": failed}) + b"\n"
    try:
        if not Path(baton_dir).is_dir():
            return False
        try:
            if path.stat().st_size + len(line) > MAX_BYTES:
                return False
        except FileNotFoundError:
            pass
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)  # one small write on O_APPEND: whole lines, whoever writes at once
        finally:
            os.close(fd)
        return True
    except OSError:
        return False


def leave_kept(baton_dir: str | os.PathLike, runs: Iterable[Any], *, at: str) -> None:
    """What the hooks kept for later (the index too far behind, the ledger locked) have to tell the
    next session start once they ran (``baton.commands.deferred.DeferredRun``),
    as each hook would have left it: a session's end that did not hand a
    handoff on and why, or a hook that could not run and was set aside."""
    for run in runs:
        hook = run.hook
        said = list(getattr(run.result, "notices", ()) or ())
        if run.error is not None and not run.waiting:
            said.append(f"kept for later, it could not run: {run.error}; set aside "
                        f"in .baton/deferred/{hook.name}.failed")
        for problem in said:
            leave(baton_dir, harness=hook.harness or "", event=hook.event or hook.kind, session=hook.session,
                  problem=problem, at=at, failed=run.error is not None)


def _screened(harness: str, event: str, session: str | None, problem: str) -> tuple[str, str, str | None, str]:
    """What a notice may keep on disk: the texts through the secret rules, and
    no session id at all when it looks like a secret (an identifier is never
    stored redacted: ``baton.domain.identifiers``). The file is not the ledger,
    but it is under ``.baton/``, where no secret is ever written."""
    policy = RedactionPolicy()
    if session is not None and screen_identifiers({SESSION: session}, policy):
        session = None
    return redact_text(harness, policy), redact_text(event, policy), session, redact_text(problem, policy)
