"""What Baton ships for people and agents to read: the manual page, the agent skill."""

from __future__ import annotations

import argparse

from baton.harnesses.protocol import SkillText, skill_text
from baton.manual import manual_page


def skill(args: argparse.Namespace):
    return SkillText(skill_text())


def man(args: argparse.Namespace):
    return manual_page(args.path)
