"""A usage error's message: argparse's, screened, with the closest command or option."""

from __future__ import annotations

import argparse
import re
from typing import Sequence

from baton.cli import build_parser
from baton.cli_handlers.output import print_json
from baton.domain.close_names import closest
from baton.domain.redaction import RedactionPolicy, screen_text


def usage_error_message(parser: argparse.ArgumentParser, message: str, *, json_requested: bool,
                        words: Sequence[str] = ()) -> str:
    """argparse's ``message``, screened (it may quote the offending argument),
    with the closest command or option, or the option of ``words`` (the
    command's own arguments) that took a missing positional; the JSON error object is printed
    when ``--json`` was asked for."""
    message = screen_text(message, RedactionPolicy())
    # A mistyped subcommand is the first thing wrong: its options are in ``words`` too
    # (``baton status serv --port 8080``), so the closest subcommand comes before them.
    choice = message.startswith("argument ") and "invalid choice: " in message
    hint = did_you_mean(parser, message) if choice else None
    misplaced = None if hint else misplaced_option(parser, words)
    if not (choice or misplaced):
        hint = did_you_mean(parser, message) or stray_choice(parser, message, words)
    if misplaced:
        message = f"{message} ({misplaced})"
    elif hint:
        message = f"{message} (did you mean {hint}?)"
    swallowed = swallowing_options(parser, message, words)
    if swallowed:
        missing = message.rsplit(": ", 1)[1]
        message = (f"{message} ({swallowed} takes every word after it up to the next option: if it took "
                   f"your {missing}, give {missing} before it, or put `--` before {missing})")
    if json_requested:  # on one line for a command whose ``--json`` is JSON Lines (``log``)
        print_json({"error": {"code": "input_error", "message": message, "exit_code": 2}},
                   one_line=bool(parser.get_default("json_lines")))
    return message


def swallowing_options(parser: argparse.ArgumentParser, message: str, words: Sequence[str]) -> str | None:
    """When a positional is missing (``the following arguments are required: ID``)
    and an option of ``words`` (what this command was given) that takes several
    values took more than one, or took the last words, that option: ``baton handoff amend --decision "x" 4a2b`` reads
    ``4a2b`` as a second decision, and argparse then says the ID is missing."""
    missing = re.match(r"the following arguments are required: (.*)$", message)
    if not missing:
        return None
    positionals = {a.metavar or a.dest for a in parser._actions if not a.option_strings}
    if not any(name.strip() in positionals for name in missing.group(1).split(",")):
        return None
    greedy = {o for a in parser._actions if a.nargs in ("+", "*") for o in a.option_strings}
    found, option, taken = None, None, 0
    for word in [*words, None]:  # None: the end of the words
        if word is None or word.startswith("-"):
            # A greedy option that took several words, whatever came after it (--json, --no-input), or
            # took any word before the end, took the ID too (--decision=x took one word: it is not greedy).
            if option is not None and (taken >= 2 or (word is None and taken)):
                found = option
            option, taken = (word if word in greedy else None), 0
        else:
            taken += 1
    return found


def stray_choice(parser: argparse.ArgumentParser, message: str, words: Sequence[str]) -> str | None:
    """When a required option with choices is missing (``the following arguments are required:
    --harness``) and a bare word of ``words`` names one of its choices, or nearly
    (``baton install-hooks claude-code``), that option with it, quoted: ``--harness claude-code``."""
    missing = re.match(r"the following arguments are required: (.*)$", message)
    if not missing:
        return None
    takes_value = {o for a in parser._actions if a.nargs != 0 for o in a.option_strings}
    bare = [word for before, word in zip(["", *words], words)  # not an option, nor an option's value
            if not word.startswith("-") and before not in takes_value]
    for name in (n.strip() for n in missing.group(1).split(",")):
        action = next((a for a in parser._actions if name in a.option_strings and a.choices), None)
        if action is None:
            continue
        known = [str(c) for c in action.choices]  # type: ignore[union-attr]  # (checked just above)
        for word in bare:
            close = [word] if word in known else closest(word, known, n=1)
            if close:
                return f"`{name} {close[0]}`"
    return None


def misplaced_option(parser: argparse.ArgumentParser, words: Sequence[str]) -> str | None:
    """An option of ``words`` this command lacks but one of its subcommands has,
    and which ones (``baton status --port 8080``: ``--port`` is ``baton status
    serve``'s), or None. Not for ``baton`` itself: every command is below it."""
    if parser.prog == "baton":
        return None
    own = {o for action in parser._actions for o in action.option_strings}
    for word in words:
        name = word.split("=", 1)[0]
        if not name.startswith("--") or name in own:
            continue
        owners = _owners(parser, name)
        if owners:
            return f"{name} is an option of {owners}"
    return None


def _nested_command(parser: argparse.ArgumentParser, word: str) -> str | None:
    """The commands one level down named ``word`` (``baton handoff list`` for
    ``list``), quoted, or None."""
    found = [group.choices[word].prog for action in parser._actions
             if isinstance(action, argparse._SubParsersAction) for sub in dict.fromkeys(action.choices.values())
             for group in sub._actions if isinstance(group, argparse._SubParsersAction) and word in group.choices]
    return " or ".join(f"`{prog}`" for prog in dict.fromkeys(found)) or None


def _sibling_command(parser: argparse.ArgumentParser, word: str) -> str | None:
    """The subcommands named ``word`` of the commands beside ``parser``'s
    (``baton handoff list`` for ``baton checkpoint list``), quoted, or None.
    The whole command line's parser is built for it: only on this error."""
    found = _nested_command(build_parser(), word)
    return found if found and f"`{parser.prog} {word}`" not in found else None


def _owners(parser: argparse.ArgumentParser, option: str) -> str:
    """The subcommands of ``parser`` that take ``option``, quoted (empty: none)."""
    subs = [sub for action in parser._actions if isinstance(action, argparse._SubParsersAction)
            for sub in dict.fromkeys(action.choices.values())]
    return " and ".join(f"`{sub.prog}`" for sub in subs if option in option_strings(sub))


SEARCH_COMMAND = "`baton handoff list --work QUERY`"

COMMAND_POINTERS = {"search": SEARCH_COMMAND, "find": SEARCH_COMMAND, "grep": SEARCH_COMMAND,
                    "query": SEARCH_COMMAND}
"""Commands people reach for that Baton spells otherwise: the command that does it (a
spelling match would point elsewhere: ``search`` is closest to ``archive``)."""


def did_you_mean(parser: argparse.ArgumentParser, message: str) -> str | None:
    """The closest command or option to a mistyped one, among those valid where it was
    given, quoted, or None."""
    choice = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)$", message)
    if choice:
        given, known = choice.group(1), re.findall(r"'([^']*)'", choice.group(2))
    else:
        unknown = re.match(r"unrecognized arguments: (\S+)", message)
        if not unknown or not unknown.group(1).startswith("--"):
            return None
        # ``baton`` reports only what came before a command (each command refuses its own
        # extras): there, only its own options are valid, not those of the commands below it.
        below = parser.prog != "baton"
        given = unknown.group(1).split("=", 1)[0]
        known = sorted(option_strings(parser) if below else
                       {o for a in parser._actions for o in a.option_strings if o.startswith("--")})
    if choice is not None and given.lower() in COMMAND_POINTERS:
        return COMMAND_POINTERS[given.lower()]
    if choice is not None and (nested := _nested_command(parser, given)):
        return nested  # ``baton list``: ``baton handoff list``
    close = closest(given, known, n=1)
    if not close and choice is not None and parser.prog != "baton":
        return _sibling_command(parser, given)  # ``baton checkpoint list``: ``baton handoff list``
    if not close:
        return None
    if choice is None and parser.prog != "baton" and not any(close[0] in a.option_strings for a in parser._actions):
        return f"'{close[0]}', an option of {_owners(parser, close[0])}"  # not this command's own
    return f"'{close[0]}'"


def option_strings(parser: argparse.ArgumentParser) -> set[str]:
    """Every long option of ``parser`` and of the commands below it."""
    found: set[str] = set()
    for action in parser._actions:
        found.update(o for o in action.option_strings if o.startswith("--"))
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= option_strings(sub)
    return found
