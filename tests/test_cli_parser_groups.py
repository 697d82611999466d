"""A run builds only the parsers of its command's group; the map from command
to group is held to what the groups really add."""

from __future__ import annotations

import argparse

import pytest

from baton import cli


def test_every_command_is_mapped_to_the_group_that_adds_it():
    found = {}
    for group in cli.COMMAND_GROUPS:
        parser = argparse.ArgumentParser()
        sub = parser.add_subparsers()
        group(sub, cli._common())
        found.update(dict.fromkeys(sub.choices, group.__name__))
    assert found == cli.GROUP_OF_COMMAND


@pytest.mark.parametrize("words,group", [
    (["bootstrap", "--json"], "add_bootstrap_command"),
    (["session", "handoff", "--json"], "add_session_commands"),
    (["resume", "latest"], "add_resume_command"),
    (["--json", "--project", "resume", "handoff", "list"], "add_handoff_commands"),
    (["--project=/x", "hook", "claude-code", "SessionStart"], "add_hook_command"),
])
def test_the_group_of_a_run_is_found_past_the_top_level_options(words, group):
    assert cli._group_named(words).__name__ == group


@pytest.mark.parametrize("words", [[], ["--help"], ["no-such-command"], ["--project", "x"]])
def test_help_and_unknown_commands_build_every_group(words):
    assert cli._group_named(words) is None


def test_an_unknown_command_is_refused_with_every_choice_named(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["no-such-command"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice" in err and "bootstrap" in err and "install-hooks" in err


def test_a_hook_run_builds_the_hook_parser_alone():
    """A harness runs ``baton hook`` on every prompt: it builds no parser of
    ``install-hooks`` or ``skill``, whose help texts are long."""
    parser = cli.build_parser(["hook", "claude-code", "UserPromptSubmit"])
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) == {"hook"}
