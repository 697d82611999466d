"""Every command is documented in docs/cli.md and has help text (as in sqlite-utils)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from baton.cli import build_parser

DOCS = Path(__file__).resolve().parent.parent / "docs" / "cli.md"


def _commands(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            for name, sub in action.choices.items():
                yield prefix + (name,), helps.get(name), sub
                yield from _commands(sub, prefix + (name,))


COMMANDS = list(_commands(build_parser()))


@pytest.mark.parametrize("words,help_text,sub", COMMANDS, ids=[" ".join(c[0]) for c in COMMANDS])
def test_every_command_has_help_text(words, help_text, sub):
    assert help_text, f"`baton {' '.join(words)}` has no help"
    assert sub.description, f"`baton {' '.join(words)}` has no description"


@pytest.mark.parametrize("words,help_text,sub", COMMANDS, ids=[" ".join(c[0]) for c in COMMANDS])
def test_every_command_is_in_the_cli_reference(words, help_text, sub):
    assert f"`baton {' '.join(words)}" in DOCS.read_text(), f"`baton {' '.join(words)}` is missing from docs/cli.md"


@pytest.mark.parametrize("words,help_text,sub", COMMANDS, ids=[" ".join(c[0]) for c in COMMANDS])
def test_every_command_takes_json(words, help_text, sub):
    if any(isinstance(a, argparse._SubParsersAction) for a in sub._actions):
        return  # a group: its leaves are checked
    assert any("--json" in a.option_strings for a in sub._actions)


def test_the_skill_names_every_heading_a_hook_brief_can_open_with():
    """An agent told not to bootstrap again when a hook put the brief in its
    context must recognise the brief whatever it opens with."""
    from baton.domain.batons import (
        DECISIONS_HEADING,
        HANDOFF_HEADING,
        LATEST_HEADING,
        OBJECTIVE_HEADING,
        TRAPS_HEADING,
    )

    skill = " ".join((DOCS.parents[1] / "skills" / "baton" / "SKILL.md").read_text().split())
    for heading in (HANDOFF_HEADING, LATEST_HEADING, OBJECTIVE_HEADING, DECISIONS_HEADING, TRAPS_HEADING,
                    "## Baton"):
        assert f'"{heading}"' in skill, heading


def test_the_skill_lists_every_exit_code_the_cli_reference_names():
    """docs/cli.md's table and `baton --help` name 0-5; the skill an agent reads names them too."""
    skill = " ".join((DOCS.parents[1] / "skills" / "baton" / "SKILL.md").read_text().split())
    codes = skill.split("## Exit codes", 1)[1]
    for code in range(6):
        assert f"{code} " in codes, code
    assert "1 storage or internal failure" in codes


def test_the_skill_says_how_to_complete_a_prepared_draft_over_mcp():
    """docs/hooks.md: an MCP agent completes the draft with handoff_amend (in place, as the CLI
    does) or handoff_capture and `parent`, and only such a capture is handed on at the end."""
    skill = " ".join((DOCS.parents[1] / "skills" / "baton" / "SKILL.md").read_text().split())
    assert "`handoff_capture` with `parent` set to the draft's full id" in skill
    assert "`handoff_amend` with the draft's id" in skill


def test_every_subcommand_the_documentation_names_exists():
    """A reader copies `baton handoff capture` from docs/batons.md and gets
    `invalid choice`: every `baton GROUP SUB` the README, docs/ and the skill
    name (GROUP one of session, checkpoint, handoff, status) is a real one."""
    import re

    groups = {words[0]: set() for words, _, sub in COMMANDS if len(words) == 2}
    for words, _, _ in COMMANDS:
        if len(words) == 2:
            groups[words[0]].add(words[1])
    root = DOCS.parents[1]
    unknown = []
    for path in [root / "README.md", *sorted((root / "docs").glob("*.md")), *sorted((root / "skills").rglob("*.md"))]:
        text = path.read_text()
        for found in re.finditer(r"(?<![\w/.-])baton ([a-z][a-z-]*) ([a-z][a-z-]*)", text):
            group, sub = found.groups()
            if group in groups and sub not in groups[group]:
                unknown.append(f"{path.relative_to(root)}:{text.count(chr(10), 0, found.start()) + 1}: {found.group(0)}")
    assert unknown == []


OWNER_PAIRS = re.compile(r"`([^`\s]+@[^`\s]+)` and\s+`([^`\s]+@[^`\s]+)` are (one|two) (?:owners?|persons?|people)")


def test_every_pair_of_owners_the_documentation_compares_is_compared_so_by_the_code():
    """An example of two e-mail owners said to be "one owner" (or "two owners") holds for
    ``same_owner``, the one rule every comparison of owners uses."""
    from baton.domain.batons import same_owner

    said = [(m.group(1), m.group(2), m.group(3), page.name)
            for page in sorted(DOCS.parent.glob("*.md"))
            for m in OWNER_PAIRS.finditer(" ".join(page.read_text().split()))]
    assert said, "no owner pair found: the pattern no longer matches docs/batons.md"
    wrong = [(a, b, count, page) for a, b, count, page in said if same_owner(a, b) != (count == "one")]
    assert wrong == []
