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


def _every_hook_words() -> list[list[str]]:
    from baton.harnesses import adapter

    return [["hook", name, hook.event] for name in cli.HARNESSES for hook in adapter(name).hooks]


@pytest.mark.parametrize("words", _every_hook_words(), ids=" ".join)
def test_a_hook_s_own_words_are_read_as_the_full_parser_reads_them(words):
    """Every command line ``install-hooks`` writes is recognised without a parser, with the arguments it gives."""
    assert vars(cli.hook_run(words)) == vars(cli.build_parser(words).parse_args(words))


@pytest.mark.parametrize("words", [
    ["hook", "claude-code"], ["hook", "claude-code", "SessionStart", "extra"], ["hook", "--help"],
    ["hook", "claude-code", "--help"], ["hook", "claude-code", "SessionStart", "--json"],
    ["--project", "x", "hook", "claude-code", "SessionStart"], ["hook", "no-such-harness", "SessionStart"],
    ["hook", "claude-code", "-x"], ["hook", "claude-code", ""], ["bootstrap", "--json", "x"],
], ids=" ".join)
def test_any_other_words_are_left_to_the_parser(words):
    assert cli.hook_run(words) is None


@pytest.mark.parametrize("words", [
    ["bootstrap", "--json"], ["bootstrap", "--json", "--session-id", "s2"], ["bootstrap", "--session", "s2", "--peek"],
    ["--project", "/p", "bootstrap", "--json"], ["bootstrap", "--json", "--project", "/p"], ["--json", "bootstrap"],
    ["session", "handoff", "--json"], ["session", "handoff"], ["session", "handoff", "--json", "--project", "/p"],
    ["hook", "codex", "Stop"], ["resume", "latest"], ["resume", "latest", "--json"], ["--json", "resume", "01abc"],
    ["resume", "--project", "/p", "latest"], ["session", "end", "s1"], ["session", "end", "s1", "--json"],
    ["session", "end", "--json", "s1", "--project", "/p"], ["session", "end", ""], ["resume", "help"],
], ids=" ".join)
def test_a_session_command_a_hook_runs_is_read_as_the_full_parser_reads_it(words):
    """``bootstrap --json``, ``session handoff --json`` and their few options are read without a parser."""
    assert vars(cli.fixed_run(words)) == vars(cli.build_parser(words).parse_args(words))


@pytest.mark.parametrize("words", [
    ["bootstrap", "--json", "x"], ["bootstrap", "--json", "--json"], ["bootstrap", "--session-id", "-x"],
    ["bootstrap", "--session-id=x"], ["bootstrap", "--session-id", "a", "--session", "b"], ["bootstrap", "--session-id"],
    ["bootstrap", "--max-bytes", "9"], ["--peek", "bootstrap"], ["bootstrap", "--help"], ["session", "handoff", "--all"],
    ["session"], ["help", "bootstrap"], ["bootstrap", "--session-id", "\udcff"],
    ["resume"], ["resume", "a", "b"], ["resume", "latest", "--format", "json"], ["resume", "latest", "--mark-resumed"],
    ["session", "end"], ["session", "end", "a", "b"], ["session", "end", "s1", "--handoff-steps", "x"],
    ["session", "end", "--session-id", "s1"], ["session", "end", "-x"], ["resume", "latest", "--help"],
], ids=" ".join)
def test_any_other_session_words_are_left_to_the_parser(words):
    assert cli.fixed_run(words) is None


def test_a_hook_run_builds_no_parser(monkeypatch, capsys, tmp_path):
    """An unknown event of a known harness: answered (exit 0, one line) without a parser built."""
    monkeypatch.chdir(tmp_path)  # no project here: no notice is left anywhere
    monkeypatch.delenv("BATON_PROJECT", raising=False)
    def refused(words=None):
        raise AssertionError("a parser was built")

    monkeypatch.setattr(cli, "build_parser", refused)
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO(""))
    assert cli.main(["hook", "claude-code", "NoSuchEvent"]) == 0
    assert "NoSuchEvent" in capsys.readouterr().err


def test_a_hook_s_words_with_help_still_get_the_parser_s_help(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["hook", "claude-code", "--help"])
    assert exit_.value.code == 0
    assert "usage: baton hook" in capsys.readouterr().out
