"""The ``baton`` run without a parser: read the words, call one handler,
print; every failure one line (``dispatch``). No decisions are made here.

A harness runs a few command lines at every session start and end — its
hook's own words, ``hook HARNESS EVENT`` as ``install-hooks`` writes them,
and ``bootstrap --json`` or ``session handoff --json`` — and each is read
here, word by word, into the arguments the full parser would give
(``fixed_run``; tests hold each form to the parser), so such a process
imports no ``argparse`` (~4 ms of CPU with ``gettext``, ~0.09x the stack's
floor: docs/performance.md). Every other command line — ``--help``, an
option or a word these forms do not know, a usage error — is the parser's:
``baton.cli.parse_and_run``, this module's one lazy dispatch (``load``).
``baton.launch`` and ``python -m baton`` start here; ``baton.cli`` keeps
every name of this module for the parser's users.
"""

from __future__ import annotations

import gc
import os
import sys
import time
from types import SimpleNamespace

from baton.domain.limits import MAX_INPUT_BYTES
from baton.errors import BatonError, PromotionRefused, TransitionError
from baton.process_end import (
    DoneSoFar,
    InterruptsCount,
    ends_with_exit,
    exit_now,
    guard_standard_streams,
    report_exit_to,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (a prompt hook never needs it)
if TYPE_CHECKING:
    from argparse import Namespace
    from types import ModuleType
    from typing import Any, Callable, Sequence

    Handler = Callable[..., Any]
    Args = Namespace | SimpleNamespace  # the parser's arguments, or a fixed run's

Arguments = SimpleNamespace
"""A fixed run's arguments (``fixed_run``), read by attribute as the handlers read the parser's ``argparse.Namespace``."""
CLI = "baton.cli"
"""The command line's parser: every command line that is not a fixed one (``fixed_run``)."""
HANDLERS = "baton.cli_handlers"
"""The package of the commands' handlers: ``func="module:function"`` names
``baton.cli_handlers.module.function`` (a dotted module is named whole)."""


OUTPUT = "baton.cli_handlers.output"
"""What prints and screens a result or a failure."""


RECORD_FIELDS = "baton.cli_handlers.record_fields"
"""How the command line fills a record's field (a promotion's refusal names the fields)."""


USAGE = "baton.cli_handlers.usage"
"""What words a usage error (screened, with the closest command or option)."""


OPENED = "baton.cli_handlers.opened"
"""What runs a handler on an opened project."""


def load(module: str) -> ModuleType:
    """Import ``module`` now: the one lazy import of the command line (a
    handler's module, the output screen), so a run loads what it uses.
    ``__import__``, not ``importlib.import_module``: the import system's C path."""
    return __import__(module, fromlist=["_"])


def handler(spec: str) -> Handler:
    """The handler ``spec`` names (``"ledger:forget"``), its module imported."""
    module, _, function = spec.partition(":")
    return getattr(load(module if "." in module else f"{HANDLERS}.{module}"), function)


def handler_name(spec: str) -> str:
    """The handler's function name (``forget``): what the command's log record calls it."""
    return spec.rpartition(":")[2]


HARNESSES = ("claude-code", "codex", "gemini-cli", "cursor")
"""The harnesses with an adapter (``baton.harnesses.ADAPTER_MODULES``, not imported here: ``--help`` stays fast)."""


HOOK_FUNC = "baton.harnesses.hook:hook_command"
"""The ``hook`` command's handler (``add_hook_command`` sets it; ``hook_run`` gives it)."""


def _command_word(words: Sequence[str]) -> str | None:
    """The top-level command ``words`` run (``bootstrap``), or None."""
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--project":
            i += 2
            continue
        if word.startswith("-"):
            i += 1
            continue
        return word
    return None


def _undecodable(argv: Sequence[str]) -> str | None:
    """An argument the OS could not decode as UTF-8 (Python keeps such bytes
    as lone surrogates, which no JSON can hold)."""
    for arg in argv:
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            return repr(os.fsencode(arg))
    return None


SUBCOMMAND_GROUPS = frozenset({"session", "checkpoint", "handoff", "policy"})
"""Commands that are only groups: each needs one of its subcommands."""


PROJECTLESS = frozenset({"init", "doctor", "demo", "mcp", "status_serve", "hook_command", "install_hooks",
                         "completion", "skill", "man"})
"""Handlers that take no opened project: they create one, diagnose one that
may not open, or build their own long-lived application object."""


COMMAND_FOR_ACTION = {
    "revise": "baton handoff amend",
    "validate": "baton handoff validate",
    "promote": "baton handoff ready",
    "resume": "baton resume",
    "archive": "baton handoff archive",
    "amend": "baton handoff amend",
}
"""The command that performs each action of the handoff state machine."""


ACTION_WORDS = {"promote": "cannot make handoff {id} ready", "revise": "cannot amend handoff {id}"}
"""The state machine's actions a command names otherwise (``handoff ready`` promotes)."""


def _name_commands(exc: Exception) -> None:
    """An illegal transition names the state machine's actions; a person at a
    terminal is told the commands that perform them instead (``details``
    keep the actions), and the action refused as its command says it."""
    if isinstance(exc, TransitionError):
        exc.name_actions(COMMAND_FOR_ACTION, ACTION_WORDS, key="commands")


JSON_LINES_COMMANDS = frozenset({"log"})
"""Commands whose ``--json`` is JSON Lines (their parsers say so: ``json_lines``): an error is one line too."""


HOOK_PATH_COMMANDS = frozenset({"bootstrap", "session", "resume", "hook"})
"""Commands a harness runs at every session start and end: short, with memory
bounded whatever the ledger's size (bounded queries, catch-up of new events
only). They run with the cyclic garbage collector paused — the collections it
triggers while a run defines a hundred classes and builds its objects cost
~5% of the run and free nothing that would not be freed at exit. Long-running
commands (``mcp``, ``status serve``, ``rebuild``…) keep it."""


def run(report: Callable[[int], None] | None = None, *, collector_paused: bool = False) -> None:
    """The ``baton`` process: ``main()`` on ``sys.argv``, then exit with its code.

    A hook-path command ends the process as soon as its output is flushed,
    without the interpreter's finalization: tearing down the ~200 modules and
    ~100 classes such a run loaded (a full garbage collection, every module's
    dictionary cleared) costs ~12 ms, a sixth of the command, and releases
    nothing the operating system does not release at exit. By then everything
    durable is already durable (the ledger's append is fsynced, the index's
    transactions committed, the log line written); the index's connection is
    left open to the end (``baton.process_end``: closing it would checkpoint
    the WAL, two fsyncs, for nothing);
    no hook-path command registers an exit handler, and the one thread a
    hook starts (its deadline's watchdog, ``baton.harnesses.hook``) is
    stopped before its answer is printed. Other
    commands exit the ordinary way. ``report`` is called with the exit status
    just before a hook-path command's process ends, by its own end or by its
    deadline (``process_end.exit_now``): the hook server's child answers the
    process that relayed the command (``baton.hook_server``).

    ``collector_paused``: the entry point (``baton.launch``, ``python -m
    baton``) paused the cyclic garbage collector before its first import,
    so that the collections the imports trigger (~10 M instructions, ~0.04x
    the stack's floor: docs/performance.md) do not run in a hook-path
    process (``HOOK_PATH_COMMANDS``), which keeps it paused to its end; any
    other command has it back before it runs.
    """
    guard_standard_streams()  # a reader that stops reading ends the output, not the command (baton.process_end)
    hook_path = _command_word(sys.argv[1:]) in HOOK_PATH_COMMANDS
    if collector_paused and not hook_path:
        gc.enable()
    if hook_path:
        ends_with_exit()
        if report is not None:  # told by whatever ends the process: this end, or the hook's deadline
            report_exit_to(report)
    code = main()
    if hook_path:
        try:
            for stream in (sys.stdout, sys.stderr):
                if stream is not None:  # None: started with the descriptor closed
                    stream.flush()
        except OSError:  # a closed pipe: the ordinary exit reports it, as before
            raise SystemExit(code) from None
        exit_now(code)
    raise SystemExit(code)


def main(argv: Sequence[str] | None = None) -> int:
    _standard_streams()
    words = list(sys.argv[1:] if argv is None else argv)
    paused = gc.isenabled() and _command_word(words) in HOOK_PATH_COMMANDS
    if paused:
        gc.disable()
    try:
        return _main(words)
    finally:
        if paused:
            gc.enable()


def _main(words: list[str]) -> int:
    args = fixed_run(words)
    if args is None:  # everything else: the parser's (its help, its errors, every other command)
        return load(CLI).parse_and_run(words)
    return dispatch(lambda: load(CLI).option_names_of(words), args)


def _standard_streams() -> None:
    """A process started with standard output or error closed (``baton log >&-``,
    a daemon) has None for it: what would be written there goes nowhere,
    instead of every command failing on it (an internal error, or a traceback
    while saying one)."""
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115 - for the process's life


def _refusal(words: list[str]) -> str | None:
    """Why ``words`` are refused before they are parsed, or None."""
    bad = _undecodable(words)
    if bad is not None:
        return f"an argument is not valid UTF-8: {bad}"
    size = sum(len(word.encode("utf-8")) for word in words)
    if size > MAX_INPUT_BYTES:
        return (f"the arguments are {size} bytes; the limit is {MAX_INPUT_BYTES} bytes (1 MiB) "
                "(link to repository artifacts instead of pasting them)")
    if len(words) >= 2 and words[0] in SUBCOMMAND_GROUPS and words[1].startswith("-") \
            and words[1] not in ("-h", "--help"):
        return (f"`baton {words[0]}` needs a subcommand before its options "
                f"(`baton {words[0]} COMMAND {words[1]}`; see `baton {words[0]} --help`)")
    return None


def hook_run(words: Sequence[str]) -> Arguments | None:
    """The arguments of ``words`` when they are exactly what a harness runs,
    ``hook HARNESS EVENT`` (``HarnessAdapter.command_lines``) for a harness of
    ``HARNESSES``, as the full parser would give them (a test holds them to
    it), else None: the parser then owns everything else — ``--help``,
    ``--project``, ``--json``, a missing or extra word, an option, an unknown
    harness. A hook runs at every session start and end and on every prompt,
    and building even the ``hook`` group's parser and parsing with it cost it
    ~1–1.5 ms of CPU (argparse builds its actions and formatters and compiles
    its patterns; docs/performance.md) for three words known in advance."""
    if len(words) != 3 or words[0] != "hook" or words[1] not in HARNESSES or words[2][:1] in ("", "-"):
        return None
    return Arguments(json=False, project=None, command="hook", harness=words[1], event=words[2], func=HOOK_FUNC)


def refused_hook_run(words: Sequence[str], why: str) -> Arguments:
    """The arguments of a ``hook`` command line the parser refused (``why``: an unknown option, a
    missing event, an extra word, an argument that is not UTF-8): the hook still runs, to say so
    (``baton.harnesses.hook.run_hook``'s ``refused``) — exit 0, the harness's "nothing", one line on
    stderr and a notice for the next brief — as a harness reads any other exit as a hook that
    blocked (Claude Code drops the prompt, refuses the Stop; Gemini CLI denies). Its harness and
    event are the first two words after ``hook`` that are no option, its project ``--project``'s
    value, when there."""
    plain: list[str] = []
    project = None
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--project" and i + 1 < len(words):
            project = words[i + 1]
            i += 2
            continue
        if word.startswith("--project="):
            project = word.partition("=")[2]
        elif not word.startswith("-"):
            plain.append(word)
        i += 1
    harness, event = ([*plain[plain.index("hook") + 1:], "", ""] if "hook" in plain else ["", ""])[:2]
    return Arguments(json="--json" in words, project=project or None, command="hook", harness=harness, event=event,
                     func=HOOK_FUNC, refused=(shown_words(words), why))


def shown_words(words: Sequence[str], limit: int = 200) -> str:
    """``baton WORDS`` as a notice shows a command line: joined, each undecodable byte as ``\\xNN``, clipped."""
    text = " ".join(["baton", *(os.fsencode(word).decode("utf-8", "backslashreplace") for word in words)])
    return text if len(text) <= limit else text[:limit] + "…"


FIXED_FORMS: dict[tuple[str, ...], tuple[dict[str, object], dict[str, str], dict[str, str]]] = {
    ("bootstrap",): ({"command": "bootstrap", "session_id": None, "session_id_positional": None, "peek": False,
                      "max_bytes": 8192, "owner": None, "branch": None, "func": "sessions:bootstrap"},
                     {"--peek": "peek"}, {"--session-id": "session_id", "--session": "session_id"}),
    ("session", "handoff"): ({"command": "session", "session_command": "handoff", "func": "sessions:session_handoff",
                              "all": False, "cancel": False, "dismiss": None, "from_id": None, "shared": False,
                              "not_mine": False, "owner": None, "branch": None}, {}, {}),
    ("session", "end"): ({"command": "session", "session_command": "end", "func": "session_end:session_end",
                          "session_id_option": None, "handoff_steps": None, "handoff_questions": None,
                          "handoff_failed": None, "handoff_input": None, "harness": None, "shared": False,
                          "owner": None, "branch": None}, {}, {}),
    ("resume",): ({"command": "resume", "func": "resume:resume", "any_branch": False, "format": "prompt",
                   "harness": None, "mark_resumed": False, "max_tokens": None, "session": None}, {}, {}),
}
"""The session commands a harness's hook may run in its own process, read without a parser: each
command's words, its arguments' defaults as the parser gives them, the flags it reads here and the
options with a value (each besides ``--json`` and ``--project DIR``). A test holds every form to the parser."""

FIXED_POSITIONAL = {("session", "end"): "session_id", ("resume",): "id"}
"""The forms read only with one word after their command's (``session end ID``, ``resume
latest``): the argument it is. Without it, or with more, the parser reads them."""


def fixed_run(words: Sequence[str]) -> Arguments | None:
    """The arguments of ``words`` when they are a hook's own (``hook_run``) or
    one of ``FIXED_FORMS`` with only the options it reads here, each once, as
    separate words (``--session-id ID``, not ``--session-id=ID``), no value
    starting with ``-``; else None, and the parser reads them (``baton.cli``)."""
    if _refusal(list(words)) is not None:  # refused as the parser's path refuses it
        return None
    hooked = hook_run(words)
    if hooked is not None:
        return hooked
    command: list[str] = []
    given: dict[str, object] = {"json": False, "project": None}
    seen: set[str] = set()
    i = 0
    while i < len(words):
        word = words[i]
        if not word.startswith("-"):
            command.append(word)
            i += 1
            continue
        form = FIXED_FORMS.get(tuple(command))
        flags, valued = (form[1], form[2]) if form is not None else ({}, {})
        if word in seen or word in ("--session", "--session-id") and seen & {"--session", "--session-id"}:
            return None
        seen.add(word)
        if word == "--json" or word in flags:
            given[flags.get(word, "json")] = True
            i += 1
        elif word == "--project" or word in valued:
            if i + 1 >= len(words) or words[i + 1].startswith("-"):
                return None
            given[valued.get(word, "project")] = words[i + 1]
            i += 2
        else:
            return None
    named = FIXED_POSITIONAL.get(tuple(command[:-1]))
    if named is not None:  # ``session end ID``, ``resume latest``: the last word is the argument
        given[named] = command.pop()
    elif tuple(command) in FIXED_POSITIONAL:
        return None
    form = FIXED_FORMS.get(tuple(command))
    if form is None:
        return None
    return Arguments(**{"json": given["json"], "project": given["project"], **form[0],
                        **{k: v for k, v in given.items() if k not in ("json", "project")}})


def _run(args: Args) -> Any:
    """Call the handler and print its result; the ones that work on a project
    get one ``Baton``, built once and closed when the command is done and
    its result printed (``baton.cli_handlers.opened``)."""
    chosen = handler(args.func)
    if handler_name(args.func) in PROJECTLESS:
        result = chosen(args)
        _print(args, result)
        return result
    return load(OPENED).run_on_project(chosen, args, lambda result: _print(args, result))


def _print(args: Args, result: Any) -> None:
    """Print the result; a hook's fixed "nothing" (with no problem to report) as it is, loading no screen.
    Not when the command was interrupted in a finalizer (``InterruptsCount``): it says so instead."""
    InterruptsCount.raise_noted()
    if getattr(result, "fixed", False) and not args.json and not getattr(result, "problem", None):
        text = result.render()
        if text:
            print(text)
        return
    load(OUTPUT).print_result(args, result)


def _log_command(args: Args, started: float, exit_code: int, code: str | None = None) -> None:
    """The command's one ``info`` record, when logging is on (``BATON_LOG``, or the project's ``log``)."""
    opened = getattr(args, "opened", None)
    if opened is None or not os.environ.get("BATON_LOG") and not opened.config.extra.get("log"):
        return
    load(OUTPUT).log_command(args, handler_name(args.func), started, exit_code, code)


def _end_progress_line() -> None:
    """A progress line a failure cut short is ended before the failure is
    said; none can be open unless ``OPENED`` was loaded."""
    opened = sys.modules.get(OPENED)
    if opened is not None:
        opened.end_progress_line()


def dispatch(option_names: Callable[[], dict[str, str]], args: Args) -> int:
    """Run the parsed command and print what it returns; every failure is one line, never a traceback.
    ``option_names``: each parameter as the command line spells it (``baton.cli._option_names``),
    asked only when a failure names its parameters (a fixed run builds no parser otherwise)."""
    started = time.perf_counter()
    DoneSoFar.forget()
    try:
        with InterruptsCount():  # a Ctrl-C landing in a library's finalizer interrupts too
            result = _run(args)
            InterruptsCount.raise_noted()
        if sys.stdout is not None:  # None: started with standard output closed; nothing to print to
            sys.stdout.flush()
        _log_command(args, started, int(getattr(result, "exit_code", 0)))
        return int(getattr(result, "exit_code", 0))
    except BatonError as exc:
        _end_progress_line()
        _log_command(args, started, exc.exit_code, exc.code)
        if isinstance(exc, PromotionRefused):  # the record's fields, as the flags that fill them
            load(RECORD_FIELDS).name_fields(exc)
        exc.name_parameters(option_names())
        _name_commands(exc)
        load(OUTPUT).print_failure(args, exc)
        return exc.exit_code
    except KeyboardInterrupt:
        _end_progress_line()
        print(DoneSoFar.interrupted_line(), file=sys.stderr)  # what it had done, or that nothing was changed
        return 130
    except Exception as exc:  # noqa: BLE001 - the last line of defence: no tracebacks for users
        _end_progress_line()
        if os.environ.get("BATON_DEBUG"):
            raise
        load(OUTPUT).print_internal_error(args, exc)
        return 1
