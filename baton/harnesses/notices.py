"""What a hook that failed leaves for the next session start to say, once.

A hook never breaks its harness: whatever goes wrong, it exits 0 and answers
"nothing". Its one line on stderr is seldom seen (harnesses show hook stderr
only in a debug view), so it also appends a notice to
``.baton/hook-notices.jsonl``: the next session start that delivers a brief
takes the file (renamed away first, so two starts at once never both show
it) and puts its notices in front of the brief.

This file is not the ledger: a hook that gave up because the ledger was
locked can still write it, and nothing in it is history — a notice is gone
once shown. It is bounded (``notices_write.MAX_BYTES``; past it new notices are dropped);
a notice goes through the secret screen (the default rules) before it is
written, and again, as all hook output does, when it is shown
(``baton.harnesses.notices_write``: a hook loads the screen only when it
has a notice to leave).
"""

from __future__ import annotations

import os
import stat

import orjson

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (a prompt hook never needs it)
if TYPE_CHECKING:
    from typing import Any

FILE_NAME = "hook-notices.jsonl"
SHOWN = 5
PROBLEM_MAX = 300
"""At most this many notices reach one brief (the newest), with a count of the rest."""


KEPT_DIR, KEPT_SUFFIXES = "deferred", (".json", ".failed")
"""Where a kept hook waits, and its file's endings (``baton.commands.deferred``'s
``directory``, ``SUFFIX`` and ``FAILED``; a test holds them equal)."""


def still_so(baton_dir: str | os.PathLike, notices: list[dict[str, Any]],
             delivered: str | None = None) -> list[dict[str, Any]]:
    """``notices`` without those that say a kept hook will still run when it
    has run since (its file gone from ``.baton/deferred/``, neither waiting nor
    set aside): the brief they come with already holds what it did, its baton.
    Nor those that say the handoff this brief delivers (``delivered``, as the
    application said) was not handed on: it was, since."""
    folder = os.path.join(baton_dir, KEPT_DIR)
    return [item for item in notices if (not delivered or item.get("handoff") != delivered)
            and (not isinstance(item.get("kept"), str) or "/" in item["kept"]
                 or any(os.path.exists(os.path.join(folder, item["kept"] + suffix)) for suffix in KEPT_SUFFIXES))]


def take(baton_dir: str | os.PathLike) -> list[dict[str, Any]]:
    """The notices left since the last start, removed from the file (so they
    are said once). Malformed lines are skipped, and so are the notices about
    a handoff (``handoff``) a later session's end said it handed on (a line
    ``{"settled": [ids]}``, ``notices_write.settle``). Never raises."""
    path = os.path.join(baton_dir, FILE_NAME)
    taken = os.path.join(baton_dir, f"{FILE_NAME}.{os.getpid()}.taken")
    if not own_file(path):
        return []
    try:
        os.rename(path, taken)
    except OSError:
        return []
    try:
        fd = os.open(taken, os.O_RDONLY | NOFOLLOW | os.O_NONBLOCK)
    except OSError:  # a link (or a FIFO) put there since: put back as it was, never read or removed
        try:
            os.rename(taken, path)
        except OSError:
            pass
        return []
    try:
        raw = read_regular(fd)
    finally:
        os.close(fd)
        try:
            os.unlink(taken)
        except OSError:
            pass
    return _parsed(raw)


FATE_WORDING = {
    "made_ready": ("Handoff {short} was not handed on: the session ended while it was an unfinished draft. It has "
                   "been made ready since, but no baton carries it: `baton resume {short}` reads it, and `baton "
                   "session handoff --from {short}` hands it on to the next session here"),
    "continued": ("Handoff {short} was not handed on: the session ended while it was an unfinished draft. It has "
                  "been continued since by ready handoff {by}, but no baton carries it: `baton resume {by}` reads "
                  "it, and `baton session handoff --from {by}` hands it on to the next session here"),
}
"""What a start says, now, of a notice about an unfinished draft a session ended with
(``Baton.notices_as_now``): made ready since, or continued since by a ready handoff."""


def for_brief(app: Any, *, use_up: bool) -> list[str]:
    """The notices failed hooks left, as a harness's start puts them in front of its brief — only
    those still so (``still_so``, ``Baton.notices_as_now``) — for a brief ``baton bootstrap`` builds
    (the command line, the MCP ``bootstrap`` tool), which lists them first among its own.
    ``use_up``: a start that delivers a brief takes them (said once, as a start hook's does); a
    peek (``use_up`` False) leaves them for it. Never raises."""
    baton_dir = app.project.paths.baton_folder
    waiting = take(baton_dir) if use_up else peek(baton_dir)
    if not waiting:
        return []
    return texts(app.notices_as_now(still_so(baton_dir, waiting), FATE_WORDING))


def peek(baton_dir: str | os.PathLike) -> list[dict[str, Any]]:
    """The notices ``take`` would return now, left in the file for the start that takes them
    (``bootstrap --peek``: the brief a start would receive now). Never raises."""
    path = os.path.join(baton_dir, FILE_NAME)
    if not own_file(path):
        return []
    try:
        fd = os.open(path, os.O_RDONLY | NOFOLLOW | os.O_NONBLOCK)
    except OSError:  # none left (no file), or a link put there: never read
        return []
    try:
        return _parsed(read_regular(fd))
    finally:
        os.close(fd)


def _parsed(raw: bytes) -> list[dict[str, Any]]:
    """The notices of the file's bytes: malformed lines skipped, and those about a handoff a later
    line says was handed on (``settled``) left out."""
    notices: list[dict[str, Any]] = []
    settled: set[str] = set()
    for line in raw.splitlines():
        try:
            item = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(item, dict) and isinstance(item.get("problem"), str):
            notices.append(item)
        elif isinstance(item, dict) and isinstance(item.get("settled"), list):
            settled.update(handoff for handoff in item["settled"] if isinstance(handoff, str))
    return [item for item in notices if item.get("handoff") not in settled]


NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def own_file(path: str) -> bool:
    """``path`` (the notice file) is Baton's to read and take: not a symbolic link
    itself, and inside the project (``.baton/``'s parent) once links are followed —
    a ``.baton`` linked out of the project, or a notice file linked anywhere, is
    another file, never read into a brief nor removed. True when it is not there."""
    if os.path.islink(path):
        return False
    root = os.path.realpath(os.path.dirname(os.path.dirname(path)))
    return os.path.realpath(path).startswith(root.rstrip(os.sep) + os.sep)


def read_regular(fd: int) -> bytes:
    """The bytes of the regular file open on ``fd`` (nothing for anything else, or on a failure)."""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b""
        parts = []
        while chunk := os.read(fd, 65536):
            parts.append(chunk)
        return b"".join(parts)
    except OSError:
        return b""


def _clipped(problem: str) -> str:
    """``problem`` in at most ``PROBLEM_MAX`` characters. A hook's notice ends
    with what it left undone (``…; no brief was delivered``, ``…; the
    session's end was not recorded and no baton was left``), and its clauses
    before that say what to run (``…; fix it, or put back the committed one
    (git checkout -- .baton/config.json)``): the last clauses are kept whole,
    as many as fit in two thirds of it, and the cause before them is clipped
    (``_cut``: never inside a command or a path)."""
    if len(problem) <= PROBLEM_MAX:
        return problem
    clauses = problem.split("; ")
    tail: list[str] = []
    while len(clauses) > 1 and len("; ".join([clauses[-1], *tail])) <= PROBLEM_MAX * 2 // 3:
        tail.insert(0, clauses.pop())
    kept = "; " + "; ".join(tail) if tail else ""
    return _cut("; ".join(clauses), PROBLEM_MAX - len(kept) - 1) + "…" + kept


def _cut(text: str, room: int) -> str:
    """``text``'s first ``room`` characters at most, ended between words outside any
    `` `command` `` or ``(…)``: the last such end, when it falls in the second half of
    ``room`` or ``room`` ends inside a command; else where ``room`` ends (inside one
    long word: a blob, never a sentence)."""
    end, depth, ticks = None, 0, 0
    for i, char in enumerate(text[:room + 1]):
        if char == " " and depth <= 0 and ticks % 2 == 0:
            end = i
        depth += (char == "(") - (char == ")")
        ticks += char == "`"
    inside = depth > 0 or ticks % 2 == 1
    if end is not None and (end >= room // 2 or inside):
        return text[:end].rstrip(" ;:,")
    return text[:room]


SESSIONS_NAMED = 3
"""At most this many sessions are named for one notice said for several."""


def _sessions(ids: list[Any]) -> str:
    """`` (session ID)``, or, for the same notice left by several sessions (two
    sessions' ends kept at once), `` (sessions A, B)``: none hidden behind the last."""
    named = list(dict.fromkeys(str(i) for i in ids if i))
    if not named:
        return ""
    if len(named) == 1:
        return f" (session {named[0]})"
    more = f" and {len(named) - SESSIONS_NAMED} more" if len(named) > SESSIONS_NAMED else ""
    return f" (sessions {', '.join(named[:SESSIONS_NAMED])}{more})"


def render(notices: list[dict[str, Any]]) -> str:
    """The notices as the lines put in front of a brief (empty when none): the
    same failure of the same hook said once, with how often it happened."""
    if not notices:
        return ""
    return "\n".join(f"> ⚠️ {line}" for line in texts(notices)) + "\n\n"


def texts(notices: list[dict[str, Any]]) -> list[str]:
    """``render``'s lines without their ``> ⚠️`` mark: what a brief built by ``baton bootstrap``
    lists among its own notices (``hook_project.for_brief``)."""
    grouped: dict[tuple, list[dict[str, Any]]] = {}
    for item in notices:
        problem = _clipped(" ".join(item["problem"].split()))
        grouped.setdefault((item.get("harness"), item.get("event"), problem, item.get("failed") is not False),
                           []).append(item)
    lines = []
    groups = list(grouped.items())
    for (harness, event, problem, failed), items in groups[-SHOWN:]:
        last = items[-1]
        where = " ".join(str(v) for v in (harness, event) if v)
        session = _sessions([item.get("session") for item in items])
        when = f" at {last['at']}" if last.get("at") else ""
        times = f" ({len(items)} times, the last{when})" if len(items) > 1 else when
        verb = " failed" if failed else ""
        lines.append(f"Baton's {where + ' ' if where else ''}hook{session}{verb}{times}: {problem}")
    if len(groups) > SHOWN:
        hidden = len(groups) - SHOWN
        lines.append(f"… and {hidden} other hook notice{'' if hidden == 1 else 's'}.")
    return lines
