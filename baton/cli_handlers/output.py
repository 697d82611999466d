"""What the command line prints: a handler's result, a failure, and the
command's log record (a usage error: ``baton.cli_handlers.usage``).

Everything printed goes through the secret screen (and, as text, loses its
control characters): an echoed argument never shows more than the ledger
would hold (docs/security.md, "What comes out"). ``baton.cli`` loads this
module when there is something to print: a prompt hook that answers nothing
(every ordinary prompt) does not pay for the screen.
"""

from __future__ import annotations

import os
import sys

import orjson

from baton.domain.redaction import RedactionPolicy, screen_output, screen_text, visible_json
from baton.errors import BatonError
from baton.oplog import elapsed_ms
from baton.process_end import note_unread, output_gone
from baton.values import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    import argparse
    from typing import Any


class Noted(Value):
    """A handler's result with its word about the text printed: ``note``, said
    on stderr after the text (not with ``--json``, whose answer says it in its
    own fields) — ``handoff list``: how many matches the limit left out. (A value
    class: this module is on the hook path, which defines no attrs class and
    compiles no ``namedtuple``'s ``__new__``.)"""

    result: Any
    note: str | None = None

    @property
    def exit_code(self) -> int:
        return int(getattr(self.result, "exit_code", 0))


def print_json(value: Any, *, one_line: bool = False) -> None:
    """``--json`` output; invisible format characters (U+202E…) are written
    as ``\\u`` escapes, so they show (``redaction.visible_json``).
    ``one_line``: not indented (a line of JSON Lines)."""
    indent = 0 if one_line else orjson.OPT_INDENT_2
    sys.stdout.write(visible_json(orjson.dumps(value, option=indent | orjson.OPT_SORT_KEYS).decode()) + "\n")


def output_policy(app: Any = None) -> RedactionPolicy:
    """The rules what this command prints goes through: the project's
    policy, else (no project, or one whose policy does not load) the defaults."""
    if app is not None:
        try:
            return app.project.policy.redaction
        except BatonError:
            pass
    return RedactionPolicy()


def screened_json_lines(text: str, policy: RedactionPolicy) -> str:
    """One JSON document per line, each screened as a document (so a
    replacement never breaks its JSON)."""
    return "\n".join(screened_json_line(line, policy) for line in text.splitlines())


def screened_json_line(line: str, policy: RedactionPolicy) -> str:
    """One JSON document on one line, screened as a document."""
    screened = screen_output(line, policy)
    if screened != line:
        screened = orjson.dumps(screen_output(orjson.loads(line), policy)).decode()
    return visible_json(screened)


def screened_json_answer(text: str, policy: RedactionPolicy) -> str:
    """A hook's JSON answer (``answers_json``: the brief a harness injects),
    screened as a document, string by string, then made visible as JSON
    (``visible_json``: DEL, C1 codes and invisible format characters as
    ``\\u`` escapes, so the answer stays JSON for the harness): the brief
    is screened once, as the text it is. Screened as one text, JSON's escaped
    quotes would have it screened twice, with the escapes undone and as it
    is (``screen_output``), each pass over the whole brief (~4 M instructions
    at a session start: docs/performance.md). The answer stays as it was
    when the screen changes nothing in it; one that is not JSON is screened
    as text."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return screen_text(text, policy)
    screened = screen_output(value, policy)
    return visible_json(text if screened is value or screened == value else orjson.dumps(screened).decode())


STREAM_BATCH = 256
"""Lines a streamed result writes at a time: printed as it is read, in writes large enough to cost nothing."""


def print_stream(args: argparse.Namespace, result: Any) -> None:
    """A result read as it is printed (``baton log``): each line screened
    on its own — the unit ``--json``'s JSON Lines were always screened in —
    and written a batch at a time, so what is held is a batch, not the
    output. A failure while reading (a damaged feed) leaves the lines
    already read printed, then goes to ``print_failure`` as any other. Once
    the reader of standard output has gone (``baton.process_end``), nothing
    more is read. Then, without ``--json``, the result's ``after_note()`` (when it has one) on stderr,
    unless nobody reads the lines (``process_end.note_unread``: ``baton log | head -1``)."""
    policy = _policy(args)
    if args.json:
        lines = (screened_json_line(line, policy) for line in result.json_line_iter())
    else:
        lines = (screen_text(line, policy) for line in result.text_lines())
    batch: list[str] = []
    try:
        for line in lines:
            batch.append(line)
            if len(batch) >= STREAM_BATCH:
                sys.stdout.write("\n".join(batch) + "\n")
                batch.clear()
                if output_gone():  # the reader has all it wanted (``baton log | head``): read no further
                    return
    except BatonError:
        if batch:
            sys.stdout.write("\n".join(batch) + "\n")
        raise
    if batch:
        sys.stdout.write("\n".join(batch) + "\n")
    after = getattr(result, "after_note", None)
    note = after() if after is not None and not args.json and not note_unread() else None
    if note:  # the result's word about the lines just printed (``baton log``: how many the limit left out)
        sys.stdout.flush()
        print(f"baton: {screen_text(note, policy)}", file=sys.stderr)


def _policy(args: argparse.Namespace) -> RedactionPolicy:
    return getattr(args, "output_policy", None) or output_policy()


def print_result(args: argparse.Namespace, result: Any) -> None:
    """A handler's result: its JSON (``--json``), else its text. A result's
    ``problem`` (a hook's one line) goes to stderr first; a ``Noted`` result's
    note goes to stderr after the text (not with ``--json``, nor when nobody reads the
    text: ``process_end.note_unread``).

    A text rendering that is the JSON answer itself (``lineage --format
    json``) is screened as a document, string by string, exactly as
    ``--json`` is — not as one long text: a 4 MB answer screened as text
    cost more than building it, and a replacement could break its JSON."""
    note = None
    if isinstance(result, Noted):
        result, note = result.result, result.note
    problem = getattr(result, "problem", None)
    if problem:
        print(screen_text(" ".join(problem.split()), output_policy()), file=sys.stderr)
    if getattr(result, "json_line_iter", None) is not None:
        print_stream(args, result)
        return
    if args.json or getattr(result, "renders_json", False):
        policy = _policy(args)
        lines = getattr(result, "json_lines", None)
        if lines is not None:
            text = lines()
            if text:
                sys.stdout.write(screened_json_lines(text, policy) + "\n")
        else:
            print_json(screen_output(_with_writer_change(args, result.to_json()), policy))
        return
    text = result.render()
    if text and getattr(result, "fixed", False):  # a hook's fixed "nothing": nothing to screen
        print(text)
    elif text and getattr(result, "answers_json", False):  # a hook's JSON answer: the brief in it as text
        print(screened_json_answer(text, _policy(args)))
    elif text:
        print(screen_text(text, _policy(args)))
    if note and not note_unread():  # a word about the text just printed (``handoff list``: how many were left out)
        sys.stdout.flush()
        print(f"baton: {screen_text(note, _policy(args))}", file=sys.stderr)


def _with_writer_change(args: argparse.Namespace, document: Any) -> Any:
    """A command's JSON object, with ``writer_changed`` when this command took
    a new writer id for a copied project (``Project.claim_writer``), and
    ``untrusted_policy`` when the project's policy holds widening settings
    this clone has not trusted (not applied; ``baton policy`` commands say it themselves)."""
    opened = getattr(args, "opened", None)
    if opened is None or not isinstance(document, dict):
        return document
    change = getattr(opened, "writer_change", None)
    if change is not None:
        document = {**document, "writer_changed": change.to_json()}
    policy = getattr(opened, "loaded_policy", None)
    if policy is not None and policy.untrusted and not getattr(args, "says_trust", False):
        document = {**document, "untrusted_policy": policy.trust.to_json()}
    return document


def print_failure(args: argparse.Namespace, exc: BatonError) -> None:
    """A use case's refusal: one line on stderr; with ``--json``, the error
    object on stdout too (on one line for a command whose ``--json`` is JSON
    Lines: ``args.json_lines``)."""
    policy = _policy(args)
    if getattr(args, "json", False):
        _json_if_it_can({"error": screen_output(exc.to_json(), policy)}, one_line=getattr(args, "json_lines", False))
    print(f"baton: {screen_text(exc.message, policy)}", file=sys.stderr)


def print_internal_error(args: argparse.Namespace, exc: Exception) -> None:
    """The last line of defence: no traceback for users."""
    message = screen_text(f"{type(exc).__name__}: {exc}", output_policy())
    if getattr(args, "json", False):
        _json_if_it_can({"error": {"code": "internal_error", "message": message, "exit_code": 1}},
                        one_line=getattr(args, "json_lines", False))
    print(f"baton: internal error: {message} (set BATON_DEBUG=1 for a traceback)", file=sys.stderr)


def _json_if_it_can(value: Any, *, one_line: bool) -> None:
    """An error's JSON object on standard output, unless standard output is what
    failed (a full disk, ``> /dev/full``, an I/O error): then the stderr line
    says it alone, and what was left unwritten is dropped rather than failing
    again when the process ends."""
    try:
        print_json(value, one_line=one_line)
        sys.stdout.flush()
    except OSError:
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - for the rest of the process


def print_input_error(message: str, *, json_requested: bool, one_line: bool = False) -> None:
    """A refusal before the words are parsed: one line on stderr (and the JSON error object, ``one_line``: not indented)."""
    if json_requested:
        print_json({"error": {"code": "input_error", "message": message, "exit_code": 2}}, one_line=one_line)
    print(f"baton: {message}", file=sys.stderr)


def log_command(args: argparse.Namespace, command: str, started: float, exit_code: int,
                code: str | None = None) -> None:
    """The command's one ``info`` record (``BATON_LOG``): its name, exit code,
    error code and time — never its arguments or output."""
    args.opened.log("info", "command", command=command, exit_code=exit_code, code=code, ms=elapsed_ms(started))

