"""Leaving a notice for the next session start (``baton.harnesses.notices``):
one line appended to ``.baton/hook-notices.jsonl``, through the secret
screen first. Never raises: a notice that cannot be written is dropped.
"""

from __future__ import annotations

import os
import stat
from datetime import datetime, timezone

import orjson

from baton.domain.identifiers import SESSION, screen_identifiers
from baton.domain.redaction import RedactionPolicy, redact_text
from baton.harnesses.notices import FILE_NAME, NOFOLLOW, own_file, read_regular

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any, Iterable

MAX_BYTES = 64 * 1024
"""The notice file's bound: past it new notices are dropped."""


def stamp() -> str:
    """The time a notice is left or settled: now, UTC, to the second (``2026-12-05T10:31:00Z``)."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def leave(baton_dir: str | os.PathLike, *, harness: str, event: str, session: str | None, problem: str,
          at: str, failed: bool = True, kept: str | None = None, handoff: str | None = None,
          was: str | None = None) -> bool:
    """Append one notice; False when it could not be written (no ``.baton/``,
    read-only, full). Never raises. ``failed``: the hook failed (else it
    did its work and has something to say, e.g. a handoff it did not hand on).
    ``kept``: the name of the kept hook (``baton.commands.deferred``) the
    notice says will still run; once it has, the notice is not shown.
    ``handoff``: the id of the handoff the notice says was not handed on; once a
    later end says it handed it on (``settle``), the notice is not shown. ``was``: that
    handoff's status then; a start that finds it changed says what is true now
    (``baton.harnesses.hook_project``)."""
    harness, event, session, problem = screened(harness, event, session, problem)
    notice: dict[str, Any] = {"at": at, "harness": harness, "event": event, "session": session,
                              "problem": problem, "failed": failed}
    if kept:
        notice["kept"] = kept
    if handoff:
        notice["handoff"] = handoff
        if was:
            notice["was"] = was
    return _append(baton_dir, orjson.dumps(notice) + b"\n")


def settle(baton_dir: str | os.PathLike, handoffs: Iterable[str], *, at: str) -> bool:
    """Record that a session's end handed these handoffs on (``SessionFinishResult.settles``):
    the notices left about them (``handoff``) are out of date, and ``notices.take`` drops them.
    Only when a notice waiting names one of them: else there is nothing to settle, and a
    session start finds no file (its steady cost: one failed rename). Never raises."""
    ids = {str(handoff) for handoff in handoffs}
    waiting = _read(os.path.join(baton_dir, FILE_NAME)).splitlines() if ids else []
    named = set()
    for raw in waiting:
        try:
            item = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if isinstance(item, dict) and item.get("handoff") in ids:
            named.add(item["handoff"])
    if not named:
        return False
    return _append(baton_dir, orjson.dumps({"at": at, "settled": sorted(named)}) + b"\n", create=False)


def _append(baton_dir: str | os.PathLike, line: bytes, *, create: bool = True) -> bool:
    """``line`` appended to the notice file, within its bound; False when it was not."""
    path = os.path.join(baton_dir, FILE_NAME)
    try:
        # Inside the project once links are followed (a ``.baton`` linked out of it gets no
        # notice: ``baton.commands.context.check_baton_folder_inside``), and the file itself,
        # never through a link to another file (``O_NOFOLLOW``: the notice is dropped).
        if not os.path.isdir(baton_dir) or not own_file(path):
            return False
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | NOFOLLOW | os.O_NONBLOCK
                     | (os.O_CREAT if create else 0), 0o644)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_size + len(line) > MAX_BYTES:
                return False
            os.write(fd, line)  # one small write on O_APPEND: whole lines, whoever writes at once
        finally:
            os.close(fd)
        return True
    except OSError:
        return False


def _read(path: str) -> bytes:
    """The notice file's bytes, read as itself (never through a link; nothing on a failure)."""
    if not own_file(path):
        return b""
    try:
        fd = os.open(path, os.O_RDONLY | NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return b""
    try:
        return read_regular(fd)
    finally:
        os.close(fd)


def leave_kept(baton_dir: str | os.PathLike, runs: Iterable[Any], *, at: str) -> None:
    """What the hooks kept for later (the index too far behind, the ledger locked) have to tell the
    next session start once they ran (``baton.commands.deferred.DeferredRun``),
    as each hook would have left it: a session's end that did not hand a
    handoff on and why, or a hook that could not run and was set aside."""
    for run in runs:
        hook = run.hook
        said = [(notice.text, notice.handoff, notice.was) for notice in getattr(run.result, "told", ())]
        if run.error is not None and not run.waiting:
            said.append((f"kept for later, it could not run: {run.error}; set aside "
                         f"in .baton/deferred/{hook.name}.failed", None, None))
        for problem, handoff, was in said:
            leave(baton_dir, harness=hook.harness or "", event=hook.event or hook.kind, session=hook.session,
                  problem=problem, at=at, failed=run.error is not None, handoff=handoff, was=was)
        settle(baton_dir, getattr(run.result, "settles", ()) or (), at=at)


def screened(harness: str, event: str, session: str | None, problem: str) -> tuple[str, str, str | None, str]:
    """What a notice may keep on disk: the texts through the secret rules, and
    no session id at all when it looks like a secret (an identifier is never
    stored redacted: ``baton.domain.identifiers``). The file is not the ledger,
    but it is under ``.baton/``, where no secret is ever written."""
    policy = RedactionPolicy()
    if session is not None and screen_identifiers({SESSION: session}, policy):
        session = None
    return redact_text(harness, policy), redact_text(event, policy), session, redact_text(problem, policy)
