"""A usage error's message: argparse's, screened, with the closest command or option."""

from __future__ import annotations

import argparse
import difflib
import re

from baton.cli_handlers.output import print_json
from baton.domain.redaction import RedactionPolicy, screen_text


def usage_error_message(parser: argparse.ArgumentParser, message: str, *, json_requested: bool) -> str:
    """argparse's ``message``, screened (it may quote the offending argument),
    with the closest command or option; the JSON error object is printed
    when ``--json`` was asked for."""
    message = screen_text(message, RedactionPolicy())
    hint = did_you_mean(parser, message)
    if hint:
        message = f"{message} (did you mean {hint}?)"
    if json_requested:  # on one line for a command whose ``--json`` is JSON Lines (``log``)
        print_json({"error": {"code": "input_error", "message": message, "exit_code": 2}},
                   one_line=bool(parser.get_default("json_lines")))
    return message


def did_you_mean(parser: argparse.ArgumentParser, message: str) -> str | None:
    """The closest command or option to a mistyped one, quoted, or None."""
    choice = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)$", message)
    if choice:
        given, known = choice.group(1), re.findall(r"'([^']*)'", choice.group(2))
    else:
        unknown = re.match(r"unrecognized arguments: (\S+)", message)
        if not unknown or not unknown.group(1).startswith("--"):
            return None
        given, known = unknown.group(1).split("=", 1)[0], sorted(option_strings(parser))
    close = difflib.get_close_matches(given, known, n=1, cutoff=0.6)
    return f"'{close[0]}'" if close else None


def option_strings(parser: argparse.ArgumentParser) -> set[str]:
    """Every long option of ``parser`` and of the commands below it."""
    found: set[str] = set()
    for action in parser._actions:
        found.update(o for o in action.option_strings if o.startswith("--"))
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= option_strings(sub)
    return found
