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
traceback. A session start that finds the ledger locked is no failure: the
application still gives it the brief it read from the index, claiming and
recording nothing (its ``held_up``, said on stderr as well); so does one whose index
is too far behind to bring up to date in its time, when it can be read as it
stands (its ``behind``).

A hook never stalls its harness either. It waits for a ledger lock another
process holds at most ``BATON_HOOK_LOCK_WAIT`` seconds (reads do not wait:
they answer from the index; a session's end or a compaction's draft that
meets the lock held is kept by the application for a process that waits
for it: ``KEPT_WHILE_BUSY``), and the ``baton hook`` process has its own
deadline, ``BATON_HOOK_DEADLINE`` seconds (``DEADLINE_SECONDS``): past it, a
watchdog answers "nothing", writes its line to stderr and ends the process
with exit 0, whatever the hook was doing (a stalled file system, git, a
lock, a pattern match that holds the interpreter: the process's alarm,
``Watchdog``). The ledger is safe from that exit: each of a hook's writes is one
append (a session's end included), and an append cut short is a torn tail
the next writer sets aside.

Whatever failed is also left as a notice (``baton.harnesses.notices``): the
next session start that delivers a brief says it once, in front of the brief.
A session start that failed on the project (a damaged ledger, a malformed
config, a read-only or full disk) does not leave it: it answers with it,
first, then the notices waiting (``HookRun.failed_start``), at every start
until the project is fixed — no brief would ever come to deliver it.
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # signal's C module (loaded by every run: baton.launch)
import _thread  # threading's C module: its lock and thread, without ``threading`` (~3 M instructions a hook)
import os
import sys

import orjson

from baton.errors import BatonError, ConfigError, FolderGone, InputError, LedgerCorrupt, NotInitialized, UnsafePath
from baton.harnesses import HARNESSES
from baton.harnesses import adapter as adapter_named
from baton.harnesses.protocol import IGNORED, PRE_COMPACT, SESSION_END, SESSION_START, TURN_END, USER_PROMPT
from baton.process_end import exit_now
from baton.values import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (a prompt hook never needs it)
if TYPE_CHECKING:
    from typing import Any, Callable, Mapping

LOCK_WAIT_SECONDS = 3.0
"""How long a hook waits for a ledger another process holds (``BATON_HOOK_LOCK_WAIT`` overrides)."""
DEADLINE_SECONDS = 10.0
"""How long a ``baton hook`` process may run before it gives up (``BATON_HOOK_DEADLINE``
overrides). Below every timeout ``install-hooks`` writes, so Baton gives up — and
leaves its notice — before the harness kills it."""


class HookOutcome(Value):
    """What the hook prints: ``answer`` on stdout, ``problem`` (one line) on stderr."""

    answer: str
    problem: str | None = None
    result: Any = None
    exit_code: int = 0
    fixed: bool = False
    """The answer is the adapter's fixed "nothing" (``""``, ``{}``, ``{"continue": true}``):
    nothing of the payload or the project is in it, so the command line prints it as it
    is, without loading the secret screen (a prompt hook's answer to every ordinary prompt)."""

    def to_json(self) -> dict[str, Any]:
        return {"answer": self.answer, "problem": self.problem,
                "result": self.result.to_json() if self.result is not None else None}

    def render(self) -> str:
        return self.answer

    @property
    def answers_json(self) -> bool:
        """The answer is a JSON object (a brief a harness injects): the output screen reads it as
        one and screens its strings (``baton.cli_handlers.output.screened_json_answer``)."""
        return self.answer[:1] == "{"


def read_payload(raw: bytes) -> Mapping[str, Any]:
    """The hook's stdin as a JSON object (empty stdin is an empty object).

    Raises:
        InputError: not JSON, or not an object.
    """
    if not raw.strip():
        return {}
    try:
        payload = orjson.loads(raw)
    except orjson.JSONDecodeError:
        payload = _with_lone_surrogates_replaced(raw)
    if not isinstance(payload, dict):
        raise InputError(f"the hook's input on stdin was JSON but not an object (it began `{began(raw)}`)")
    return payload


def _with_lone_surrogates_replaced(raw: bytes) -> Any:
    """``raw`` parsed once its lone surrogate escapes (``"\\ud83d"``, half an emoji, as Node's
    ``JSON.stringify`` writes it; orjson refuses them) are U+FFFD (``baton.domain.lone_surrogates``).

    Raises:
        InputError: not JSON even so.
    """
    if b"\\u" in raw:
        try:
            return orjson.loads(_load("baton.domain.lone_surrogates").replaced(raw))
        except orjson.JSONDecodeError:
            pass
    # The parser's own words (``invalid literal, expected 'null'``) tell a person nothing: what came, does.
    raise InputError(f"the hook's input on stdin was not JSON (it began `{began(raw)}`)") from None


BEGAN_CHARS = 40
"""How much of a payload that is not JSON its notice quotes."""


def began(raw: bytes) -> str:
    """The first characters of ``raw`` as a notice may quote them: through the secret
    rules (before clipping, so a secret cut short is still found), on one line, no
    control character or backtick, at most ``BEGAN_CHARS`` (then ``…``)."""
    redaction = _load("baton.domain.redaction")  # only for a payload that is not JSON
    head = raw[:BEGAN_CHARS * 8].decode("utf-8", errors="replace")
    head = redaction.redact_text(head, redaction.RedactionPolicy())
    shown = " ".join("".join(c if c.isprintable() and c != "`" else " " for c in head).split())
    return shown if len(shown) <= BEGAN_CHARS and len(raw) <= BEGAN_CHARS * 8 else shown[:BEGAN_CHARS] + "…"


def _seconds(name: str, default: float) -> float:
    """``$name`` as seconds (a finite number ≥ 0), else ``default``; at most
    ``_thread.TIMEOUT_MAX`` (centuries: the longest a lock's wait may be
    given, past which it raises ``OverflowError``)."""
    try:
        value = float(os.environ.get(name, default))
    except ValueError:
        return default
    return min(value, _thread.TIMEOUT_MAX) if 0 <= value < float("inf") else default


LOCK_SHARE = 0.4
"""The most of an event's own limit (``event_limits``: Codex's ``Interrupt``, 3 s) a hook spends
waiting for the ledger lock: the rest starts the process that keeps its work (1.2 s of 3 s)."""


def lock_wait(limit: float | None = None) -> float:
    """How long a hook waits for the ledger lock: ``BATON_HOOK_LOCK_WAIT`` (3 s), and never more
    than ``LOCK_SHARE`` of the seconds the harness gives the event (``limit``), when it caps it."""
    wait = _seconds("BATON_HOOK_LOCK_WAIT", LOCK_WAIT_SECONDS)
    return wait if limit is None else min(wait, limit * LOCK_SHARE)


def hook_deadline() -> float:
    return _seconds("BATON_HOOK_DEADLINE", DEADLINE_SECONDS)


FOLD_BYTES_PER_SECOND = 8_000_000
"""A low estimate of how fast a catch-up folds the ledger, a full replay
included (~16 MB/s on the machine of ``docs/performance.md``): with half the
deadline, what a hook folds itself before it hands the rest to a process of
its own (``baton.background``)."""


def fold_limit() -> int:
    """The most bytes of ledger a hook folds itself: ``BATON_HOOK_FOLD_MB``
    megabytes, else half the deadline at ``FOLD_BYTES_PER_SECOND``."""
    default = hook_deadline() / 2 * FOLD_BYTES_PER_SECOND / 1e6
    return int(_seconds("BATON_HOOK_FOLD_MB", default) * 1e6)


def _load(module: str) -> Any:
    """Import ``module`` when the hook needs it: the project's half of a hook
    (``baton.harnesses.hook_project``, with the application object), the
    project's root (``baton.project``), and the lone-surrogate repair of a payload
    the parser refused (``baton.domain.lone_surrogates``). An ordinary prompt is answered from its
    payload alone and loads neither. ``__import__``, as ``baton.harnesses.adapter``."""
    return __import__(module, fromlist=["_"])


class HookRun:
    """What a running hook has learned so far, for its watchdog and its notice:
    the answer that means "nothing", the project's ``.baton/``, the session."""

    def __init__(self, harness: str, event: str) -> None:
        self.harness, self.event = harness, event
        self.empty = ""
        self.kind: str | None = None
        self.baton_dir: str | os.PathLike | None = None
        self.session: str | None = None
        self.project: str | os.PathLike | None = None
        self.adapter: Any = None
        self.opening = False
        self.elsewhere = False  # the project found is not the session's: nothing is left in it
        self.brief = ""  # the brief a start kept in its mark, for this first prompt (``prompted``)

    def leave_notice(self, problem: str, *, failed: bool = True, kept: str | None = None,
                     handoff: str | None = None, was: str | None = None) -> None:
        """Leave ``problem`` for the next session start: in the project the payload
        named, else the one the hook runs in (nothing outside a Baton project, nor
        in a project the session does not belong to: ``elsewhere``, stderr only)."""
        if self.elsewhere:
            return
        if self.baton_dir is None:
            try:
                root, _ = _load("baton.harnesses.hook_project").project_root(self.project, None)
            except Exception:  # noqa: BLE001 - no project to tell: stderr only
                return
            if not os.path.isfile(os.path.join(root, ".baton", "config.json")):
                return
            self.baton_dir = os.path.join(root, ".baton")
        write = _load("baton.harnesses.notices_write")
        write.leave(
            self.baton_dir, harness=self.harness, event=self.event, session=self.session,
            problem=problem, at=write.stamp(), failed=failed,
            kept=kept, handoff=handoff, was=was)

    def settle(self, handoffs: Any) -> None:
        """Record in the project's notices that a session's end handed ``handoffs`` on
        (``notices_write.settle``): the notices left about them are out of date."""
        write = _load("baton.harnesses.notices_write")
        write.settle(self.baton_dir, handoffs, at=write.stamp())

    def leave_kept(self, runs: Any) -> None:
        """Leave what the hooks kept for later and ran first have to tell the next start
        (``notices_write.leave_kept``). The notices' writer is loaded by the hooks that
        write one (this run's ``leave_notice`` too), not by every start and end."""
        write = _load("baton.harnesses.notices_write")
        write.leave_kept(self.baton_dir, runs, at=write.stamp())

    def failed_start(self, problem: str, *, take: bool = True) -> str:
        """The answer of a session start that failed: ``problem`` as a notice, first,
        then the notices other hooks left waiting (``baton.harnesses.notices``), as the
        session's whole context. Told at this start, not left for the next: a project
        that stays broken (a damaged ledger, a malformed config) says so at every
        start, until it is fixed. The harness's "nothing" when it cannot be shaped.
        ``take=False``: the start refused ``.baton/`` itself (a link out of the project,
        a foreign file: ``UnsafePath``), so nothing in it is read, let alone taken."""
        if self.adapter is None:
            return self.empty
        notices = _load("baton.harnesses.notices")
        waiting = notices.take(self.baton_dir) if take and self.baton_dir is not None else []
        metadata = _load("baton.harnesses.protocol").SessionMetadata(
            harness=self.harness, event=self.adapter.event_named(self.event) or self.event, kind=SESSION_START,
            session_id=self.session)
        # Through the secret rules, as a notice left on disk; a session id that looks like a secret is not named.
        _, _, shown, problem = _load("baton.harnesses.notices_write").screened(
            self.harness, self.event, self.session, problem)
        problem = " ".join(problem.split())  # on one line, whole: what to run is never cut off
        if problem.startswith("Baton could not"):  # its own words lead: what failed, then where
            session = f", session {shown}" if shown else ""
            first = f"> ⚠️ {problem} ({self.harness} {metadata.event} hook{session})\n"
        else:
            session = f" (session {shown})" if shown else ""
            first = f"> ⚠️ Baton's {self.harness} {metadata.event} hook{session} failed: {problem}\n"
        text = first + notices.render(waiting).rstrip("\n")
        return str(self.adapter.render_notice(metadata, text.rstrip("\n") + "\n"))


AFTER_GIVING_UP = {
    SESSION_START: "no brief was delivered",
    SESSION_END: "the session's end and its baton may not have been recorded",
    PRE_COMPACT: "no draft was prepared before compaction",
}
"""What a hook the watchdog ended may have left undone (it cannot tell how far it got)."""
LEFT_UNDONE = {
    SESSION_START: "no brief was delivered",
    SESSION_END: "the session's end was not recorded and no baton was left",
    PRE_COMPACT: "no draft was prepared before compaction",
}
"""What a hook that failed left undone (each of its writes is one append: all or nothing)."""
LEFT_FOR_THE_NEW_PLACE = {
    SESSION_END: "its end was not recorded: a session start in the project's new place ends this session and "
                 "hands on the handoff it readied once it can tell this session is over (its harness process "
                 "gone: docs/batons.md, \"A session that never ended\")",
    PRE_COMPACT: "no draft was prepared before compaction; the session's work stays where its last "
                 "capture left it, in the project's new place",
}
"""What a hook whose project folder is gone (``FolderGone``: moved to another file system
mid-session) left undone, and what the project's new place will still do."""
KEPT_FOR_LATER = {
    SESSION_END: "the session's end is kept: it will be recorded, and its baton left, once the index is up to date",
    PRE_COMPACT: "the draft before compaction is kept: it will be prepared once the index is up to date",
}
"""What a hook kept for the catch-up (``baton.commands.deferred``) will still do."""
KEPT_WHILE_BUSY = {
    SESSION_END: "the session's end is kept: it will be recorded, and its baton left, once the ledger is let go",
    PRE_COMPACT: "the draft before compaction is kept: it will be prepared once the ledger is let go",
}
"""What a hook kept while another process held the ledger lock will still do."""
KEPT_WHILE_PINNED = {
    SESSION_END: "the session's end is kept: it will be recorded, and its baton left, by that `baton rebuild`",
    PRE_COMPACT: "the draft before compaction is kept: it will be prepared by that `baton rebuild`",
}
"""What a hook kept while the index was pinned in the past (``rebuild --until``) will still do."""


def not_initialised(harness: str, root: str | None = None) -> str:
    """The one line a session start gives its agent in a folder ``root`` that has no ``.baton/``
    (never initialised, or removed), naming where the hooks that ran are (``wired_where``): the
    project's own files (``install-hooks`` there), the harness's user-level configuration (the
    same files in the home directory: ``install-hooks --user-level``, run in every folder), or
    neither — then it does not claim they are here (tester28 T1)."""
    where = wired_where(harness, root)
    if where == "":
        return (f"> ⚠️ Baton's hooks are installed here, but this project has no `.baton/`, so Baton keeps nothing "
                f"for this session: run `baton init` to use it, or remove the hooks "
                f"(`baton install-hooks --harness {harness} --remove`).\n")
    if where is not None:
        return (f"> ⚠️ Baton's hooks in your user-level {harness} configuration (`{where}`, read in every folder) "
                f"ran here, but this folder has no `.baton/`, so Baton keeps nothing for this session: run "
                f"`baton init` here to use Baton in it, or take the hooks out of `{where}` to stop them running "
                f"everywhere (`baton install-hooks --harness {harness} --remove --project ~`).\n")
    return (f"> ⚠️ Baton's {harness} hooks ran here, but this folder has no `.baton/` and none of its files holds "
            f"them (they come from a {harness} configuration outside it), so Baton keeps nothing for this session: "
            f"run `baton init` here to use Baton in it, or take Baton's hooks out of the configuration that holds "
            f"them.\n")


def wired_where(harness: str, root: str | None) -> str | None:
    """Where Baton's hooks for ``harness`` are, seen from the folder ``root`` a session start found
    no ``.baton/`` in: ``""`` when its own files hold them (or it is the home directory, or that
    cannot be told); the file, as ``~/.codex/hooks.json`` or, moved by the harness's own variable
    (``config_text.moved_home``: ``$CODEX_HOME``...), its absolute path, when only the harness's
    user-level configuration holds them; None when neither does. Read only on this failure path
    (``wiring.inspect_wiring``), never on a hook that finds its project."""
    if not root:
        return ""
    try:
        wiring = _load("baton.harnesses.wiring")
        home = os.path.expanduser("~")
        if os.path.realpath(root) == os.path.realpath(home) or wiring.inspect_wiring(root, harness).file_hooks:
            return ""
        found = next(iter(wiring.inspect_wiring(home, harness).file_hooks), None)
    except (OSError, BatonError, ValueError):
        return ""
    return None if found is None else wiring.user_level_name(harness, found)


JSON_KINDS = {bool: "true or false", int: "a number", float: "a number", dict: "an object", list: "an array"}
"""How a hook's refusal names a payload value of the wrong kind (never the value itself)."""


def no_project_named(root: str) -> str:
    """The one line a session start gives its agent when the project it was
    told to open (``--project`` or ``$BATON_PROJECT``) is not a directory, or
    not a Baton project: that setting is what to look at, not this folder."""
    what = "a Baton project (it has no `.baton/`)" if os.path.isdir(root) else "a directory"
    return (f"> ⚠️ Baton's hooks were told to open `{root}` (`--project` or `$BATON_PROJECT`), which is not "
            f"{what}, so Baton delivered nothing and keeps nothing for this session: correct or unset it "
            f"(or run `baton init` there, if that is the project).\n")


UNPROMPTED = (".baton", "cache", "unprompted")
"""Where a session start that claimed a baton before any prompt leaves its mark
(``hook_project.leave_mark``), under the project folder ``marked_folder`` names."""


def mark_name(session_id: str) -> str | None:
    """The file name of session ``session_id``'s mark: the id itself, when it is a plain one
    (letters, digits, ``-``, ``_``, ``.``; at most 128; not starting with ``.``), as every
    harness's is; None for any other (no mark is left, nor looked for)."""
    plain = 0 < len(session_id) <= 128 and session_id[0] != "." and all(
        c.isascii() and (c.isalnum() or c in "-_.") for c in session_id)
    return session_id if plain else None


def marked_folder(chosen: Any, payload: Mapping[str, Any], project: str | os.PathLike | None) -> str:
    """The folder whose ``.baton/`` holds a session's mark, as a prompt hook finds it without
    looking for the project: ``--project``, else ``$BATON_PROJECT``, else the harness's project
    folder (``$CLAUDE_PROJECT_DIR``), else the payload's ``cwd``, else the hook's own folder. A
    start leaves the mark only when that folder's ``.baton/`` is the project's."""
    where = chosen.get_project_context(payload)
    return str(project or os.environ.get("BATON_PROJECT") or where.project_dir or where.cwd or ".")


def prompted(chosen: Any, payload: Mapping[str, Any], project: str | os.PathLike | None, session_id: str) -> str:
    """A prompt of session ``session_id`` was submitted (or a turn of it ended, ``TURN_END``: the
    model answered): its mark, if its start left one, is removed — one ``unlink`` per prompt (the first removes it; each later one finds nothing),
    nothing written to the ledger. For a harness whose brief comes with the first prompt
    (``brief_with_first_prompt``), the mark is read first: the brief its start kept there, returned
    (every later prompt finds no mark, reads nothing, and gets ""). Never fails the prompt."""
    name = mark_name(session_id)
    if name is None:
        return ""
    path = os.path.join(marked_folder(chosen, payload, project), *UNPROMPTED, name)
    brief = ""
    try:
        if chosen.brief_with_first_prompt:
            with open(path, encoding="utf-8") as file:
                brief = file.read().partition("\n")[2]  # after the baton's id
        os.unlink(path)
    except (OSError, ValueError):
        pass
    return brief


def refused_line(run: HookRun, refused: tuple[str, str], stdin: bytes) -> InputError:
    """The failure of a hook whose command line the parser refused (``refused``: its words, shown,
    and why; ``baton.cli_run.refused_hook_run``), once what the line's harness and event say is
    known: the harness's "nothing" to answer, what the event leaves undone, the session the
    payload names (when it can be read) for the notice."""
    words, why = refused
    if run.harness in HARNESSES:
        chosen = adapter_named(run.harness)
        run.adapter, run.empty = chosen, chosen.empty_for(run.event)
        named = chosen.event_named(run.event)
        run.kind = chosen.kinds.get(named) if named else None
        try:
            run.session = chosen.get_session_metadata(named, read_payload(stdin)).session_id if named else None
        except Exception:  # noqa: BLE001 - the session is named when it can be; the line is what failed
            pass
    return InputError(f"its command line `{words}` is not one Baton reads ({why}); Baton's own is "
                      "`baton hook HARNESS EVENT`: correct the line in the harness's hook settings "
                      "(`baton doctor` names one kept beside Baton's own)")


def run_hook(harness: str, event: str, stdin: bytes, *, project: str | os.PathLike | None = None,
             run: HookRun | None = None, refused: tuple[str, str] | None = None) -> HookOutcome:
    """Handle one hook event; never raises (unless ``BATON_DEBUG`` is set).
    ``refused``: the parser refused the hook's command line (``refused_line``): it says so.

    A failure is also left as a notice for the next session start."""
    run = run or HookRun(harness, event)
    run.project = project
    try:
        if refused is not None:
            raise refused_line(run, refused, stdin)
        chosen = adapter_named(harness)
        run.adapter = chosen
        run.empty = chosen.empty_for(event)
        named = chosen.event_named(event)
        if named is None:
            raise InputError(f"{harness} has no {event!r} hook Baton handles; it handles: "
                             f"{', '.join(chosen.kinds)}")
        # Known from the event alone: a payload that does not parse still says what was left undone.
        run.kind = chosen.kinds.get(named)
        payload = read_payload(stdin)
        metadata = chosen.get_session_metadata(event, payload)
        run.kind, run.session = metadata.kind, metadata.session_id
        if metadata.kind == IGNORED:
            # An event that is not what it names (Gemini's PreCompress ``auto``
            # before every turn): nothing opened, nothing written.
            return HookOutcome(run.empty, fixed=True)
        if metadata.session_id is None:  # every event is a session's: without its id, nothing is done
            given = [name for name in chosen.session_fields if payload.get(name) not in (None, "")]
            if given:  # named, but not as a string with something in it (the value is never echoed)
                value = payload[given[0]]
                raise InputError(f"`{given[0]}` must be a non-empty string, not "
                                 + ("a blank one" if isinstance(value, str) else JSON_KINDS.get(type(value), "that")))
            if not stdin.strip():  # nothing came: said so, not as a payload that lacks its field
                raise InputError(f"the hook's input on stdin was empty ({harness} sends a JSON object naming "
                                 f"the session, `{chosen.session_fields[0]}`)")
            raise InputError(f"a session id is required (`{chosen.session_fields[0]}`)")
        if metadata.kind == TURN_END:
            # The model answered a turn of this session: its start's mark, if left, is removed (one
            # ``unlink``); nothing opened, nothing written, whatever the turn began with.
            if chosen.prompt_hook_files:
                prompted(chosen, payload, project, metadata.session_id)
            return HookOutcome(run.empty, fixed=True)
        brief = ""
        if metadata.kind == USER_PROMPT and chosen.prompt_hook_files:
            brief = prompted(chosen, payload, project, metadata.session_id)
        if metadata.kind == USER_PROMPT and not metadata.handoff_request:
            # The only signal a prompt carries is an explicit request: without
            # one the detector would score nothing, so nothing is opened.
            return HookOutcome(chosen.render_notice(metadata, brief) if brief else run.empty, fixed=True)
        run.brief = brief
        run.opening = True  # what fails from here is the project's (or its ledger's), not the payload's
        try:
            text, result = _load("baton.harnesses.hook_project").answer(
                chosen, metadata, payload, run, project=project, write_wait=lock_wait(chosen.event_limits.get(named)), fold_limit=fold_limit())
        except NotInitialized as exc:
            if metadata.kind != SESSION_START:
                raise
            # The hooks are wired (this one ran) but the project has no ``.baton/``: tell the agent, whose
            # person would otherwise never learn why no brief comes; every other hook stays quiet.
            said = exc.message.rstrip(". ")
            told_to = project or os.environ.get("BATON_PROJECT")  # a folder the hook was told to open
            root = exc.details.get("root")
            notice = no_project_named(str(root)) if told_to and root else not_initialised(harness, root)
            return HookOutcome(chosen.render_notice(metadata, notice),
                               f"baton hook {harness} {event}: {said}; no brief was delivered")
        # A start the ledger lock held up, or whose index was too far behind, still delivers its brief
        # (read from the index as it stands): said on stderr too.
        told = getattr(result, "said", None)
        return HookOutcome(text, f"baton hook {harness} {event}: {told}" if told else None, result=result)
    except BatonError as exc:
        return _baton_failed(run, exc)
    except Exception as exc:  # noqa: BLE001 - a hook never breaks its harness
        if os.environ.get("BATON_DEBUG"):
            raise
        problem = f"internal error: {type(exc).__name__}: {exc}"
        run.leave_notice(problem)
        return HookOutcome(run.empty, f"baton hook {harness} {event}: {problem}; nothing injected")


def _baton_failed(run: HookRun, exc: BatonError) -> HookOutcome:
    """What a hook answers when the application refused or failed (``BatonError``): the
    harness's "nothing" and a notice left for the next start, or, for a start that failed
    on the project, the notice itself as its context (``HookRun.failed_start``)."""
    harness, event = run.harness, run.event
    undone = LEFT_UNDONE.get(run.kind or "")
    if exc.code == FolderGone.code:
        undone = LEFT_FOR_THE_NEW_PLACE.get(run.kind or "", undone)
    said = exc.message.rstrip(". ")
    deferred = False  # a hook whose catch-up (and kept work) runs in the background: nothing failed
    kept = exc.details.get("deferred") is not None  # the application kept the hook's work for later
    if exc.code == "index_behind":  # what runs in the background, or what to run
        said += "; by hand: `baton rebuild --if-needed`"
        if kept:
            undone = KEPT_FOR_LATER.get(run.kind or "", undone)
    elif exc.code == "index_pinned":  # ``rebuild --until``: kept for the plain rebuild a person runs
        if kept:
            undone = KEPT_WHILE_PINNED.get(run.kind or "", undone)
            deferred = True  # nothing failed: it waits for that rebuild
    elif kept:  # the ledger busy: a process of its own waits for the lock, then does it
        undone = KEPT_WHILE_BUSY.get(run.kind or "", undone)
        if exc.details.get("background_pid") is None:
            said += "; by hand, once it is let go: `baton rebuild --if-needed`"
    if exc.code == "index_behind" or (kept and exc.code != "index_pinned"):
        deferred = ((run.kind == SESSION_START or kept) and exc.details.get("background_pid") is not None
                    and not exc.details.get("background_failed"))
    problem = said + (f"; {undone}" if undone else "")
    line = f"baton hook{''.join(f' {v}' for v in (harness, event) if v)}: {said}; {undone or 'nothing injected'}"
    broken = run.opening and (not isinstance(exc, InputError) or isinstance(exc, ConfigError))  # not the payload
    if run.kind == SESSION_START and broken and not (deferred or kept or exc.code == "index_behind"):
        # The project broken (a damaged ledger, a malformed config, a read-only or full disk): told
        # now, in front of the session's context, at every start until it is fixed. (A catch-up
        # in the background, or a payload the harness sent wrong, is left for the next start.)
        if isinstance(exc, LedgerCorrupt):  # the words the MCP ``bootstrap`` says on the same ledger
            problem = f"Baton could not read the ledger: {problem}"
        return HookOutcome(run.failed_start(problem, take=exc.code != UnsafePath.code), line)
    run.leave_notice(problem, failed=not deferred, kept=exc.details.get("deferred") if kept else None)
    return HookOutcome(run.empty, line)


class Watchdog:
    """The ``baton hook`` process's deadline: if the hook is still running
    ``seconds`` after it started, answer "nothing" on stdout, one line on
    stderr, leave the notice, and end the process (exit 0) — from a thread,
    so no blocking call of the main one (a lock, SQLite's busy wait, a
    stalled read) can hold it up (a signal's handler would run in the main
    thread, only once such a call returns); a hook the hook server runs tells
    the relaying process its status 0 first (``process_end.exit_now``), so the
    relay ends with it, not as with a killed child. ``settle`` stops it once
    the hook is done; if it already fired, ``settle`` never returns (the
    process is ending).

    The thread and its locks are ``_thread``'s, which ``threading`` wraps: a
    thread the interpreter does not wait for at exit (``threading``'s daemon),
    a wait on a lock with a timeout (``threading.Timer``'s), without importing
    ``threading`` on the hook path.

    A stall that holds the interpreter itself — a pattern match or other C
    code that runs for long without letting another thread take the
    interpreter — would keep that thread from ever running; so the process's
    alarm (``SIGALRM``, an interval timer set to the same deadline) does the same
    from the main thread: Python runs a signal's handler there as soon as
    the C code checks for signals (``re`` does, every few thousand steps; a
    blocking system call is interrupted by it). Whichever comes first
    answers; the other then does nothing. The alarm is set only in the main
    thread, and only when no other alarm is pending (a caller's own is left
    alone); ``settle`` cancels it and puts the handler back."""

    def __init__(self, run: HookRun, seconds: float) -> None:
        # What expiring needs is imported with this module (_thread):
        # the main thread, stalled, may hold an import lock the watchdog would
        # otherwise wait on.
        self.run, self.seconds = run, seconds
        self._answered = _thread.allocate_lock()
        self._settled = _thread.allocate_lock()
        self._settled.acquire()  # released by ``settle``: the watchdog's wait ends there

    def start(self) -> "Watchdog":
        _thread.start_new_thread(self._watch, ())
        self._alarm = self._set_alarm()
        return self

    def _set_alarm(self) -> list[object]:
        """``[handler SIGALRM had before]`` (to put back), or ``[]`` when no alarm was set."""
        try:
            if _signal.getitimer(_signal.ITIMER_REAL)[0]:
                return []  # someone else's alarm is pending: not ours to replace
            previous = _signal.signal(_signal.SIGALRM, self._on_alarm)
        except (ValueError, OSError):  # not the main thread: the watchdog's thread alone
            return []
        try:
            _signal.setitimer(_signal.ITIMER_REAL, self.seconds)
        except (ValueError, OSError, OverflowError):  # a deadline past what the timer holds: never reached
            _signal.signal(_signal.SIGALRM, previous)
            return []
        return [previous]

    def _on_alarm(self, signum: int, frame: object) -> None:
        self._expire()

    def _watch(self) -> None:
        if not self._settled.acquire(timeout=self.seconds):
            self._expire()

    def _expire(self) -> None:
        if not self._answered.acquire(blocking=False):
            return  # the hook finished first and is answering
        try:
            after = AFTER_GIVING_UP.get(self.run.kind or "", "")
            problem = (f"it gave up after {self.seconds:g} s (BATON_HOOK_DEADLINE), still running"
                       + (f"; {after}" if after else ""))
            sys.stdout.write(self.run.empty)
            sys.stdout.flush()
            sys.stderr.write(f"baton hook {self.run.harness} {self.run.event}: {problem}; nothing injected\n")
            sys.stderr.flush()
            # The notice last, and never waited on for long: the file system may be what stalled.
            written = _thread.allocate_lock()
            written.acquire()
            _thread.start_new_thread(self._leave_notice, (problem, written))
            written.acquire(timeout=NOTICE_WAIT_SECONDS)
        finally:
            exit_now(0)  # a relayed hook's relay is told 0 first: it ends as it does in its own process

    def _leave_notice(self, problem: str, written: _thread.LockType) -> None:
        try:
            self.run.leave_notice(problem)
        finally:
            written.release()

    def settle(self) -> None:
        self._answered.acquire()
        self._settled.release()
        for previous in self._alarm:
            _signal.setitimer(_signal.ITIMER_REAL, 0)
            _signal.signal(_signal.SIGALRM, previous if previous is not None else _signal.SIG_DFL)


NOTICE_WAIT_SECONDS = 1.0
"""How long a hook that gave up waits for its notice to be written before it exits anyway."""


def run_hook_process(harness: str, event: str, read: Callable[[], bytes], *,
                     project: str | os.PathLike | None = None,
                     refused: tuple[str, str] | None = None) -> HookOutcome:
    """``run_hook`` for the ``baton hook`` process, under its deadline (``Watchdog``),
    reading its payload with ``read`` (stdin) once the deadline runs."""
    run = HookRun(harness, event)
    watchdog = Watchdog(run, hook_deadline()).start()
    try:
        raw = read()
    except Exception:  # noqa: BLE001 - no readable stdin is an empty payload: the hook reports it, exit 0
        raw = b""
    outcome = run_hook(harness, event, raw, project=project, run=run, refused=refused)
    watchdog.settle()
    return outcome


def _at_terminal() -> bool:
    """Whether stdin is a terminal (not a harness's pipe; False when closed)."""
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (ValueError, OSError):
        return False


def hook_command(args: Any) -> HookOutcome:
    """``baton hook HARNESS EVENT``'s handler (``baton.cli``): the hook on the
    process's stdin. Its ``problem`` line is printed, screened, by the command
    line. It lives here, not with the other handlers: a prompt hook loads this
    module anyway, and nothing more."""
    refused = getattr(args, "refused", None)  # the parser refused the line (``baton.cli_run.refused_hook_run``)
    # A line refused at a terminal (a person trying it by hand) waits for no payload: it has nothing to read.
    typed = refused is not None and _at_terminal()
    return run_hook_process(args.harness, args.event, (lambda: b"") if typed else lambda: sys.stdin.buffer.read(),
                            project=args.project, refused=refused)
