"""What Baton ships for the shell and the agent: completion scripts, the manual page, the skill."""

from __future__ import annotations

import argparse

from baton.cli import build_parser
from baton.completion import completion_script, project_words
from baton.errors import InputError
from baton.harnesses.protocol import SkillText, skill_text
from baton.manual import manual_page


def skill(args: argparse.Namespace):
    return SkillText(skill_text())


def completion(args: argparse.Namespace):
    if args.words is not None:
        return project_words(args.project, args.words)
    if args.shell is None:
        raise InputError("give a SHELL (bash, zsh or fish), or --words KIND")
    return completion_script(build_parser(), args.shell)


def man(args: argparse.Namespace):
    return manual_page(args.path)
