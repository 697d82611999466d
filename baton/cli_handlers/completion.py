"""``baton completion``: a shell's completion script, or the project's words it asks for at a TAB."""

from __future__ import annotations

import argparse

from baton.cli import build_parser
from baton.completion import completion_script
from baton.completion_words import project_words
from baton.errors import InputError


def completion(args: argparse.Namespace):
    if args.words is not None:
        return project_words(args.project, args.words)
    if args.shell is None:
        raise InputError("give a SHELL (bash, zsh or fish), or --words KIND")
    return completion_script(build_parser(), args.shell)
