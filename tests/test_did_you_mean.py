"""A mistyped command or option is answered with the closest one (exit 2, nothing done)."""

from __future__ import annotations

import json

import pytest


@pytest.mark.parametrize("argv, meant", [
    (["handof", "list"], "'handoff'"),
    (["handoff", "lsit"], "'list'"),
    (["handoff", "list", "--jsn"], "'--json'"),
    (["resume", "latest", "--any-brnch"], "'--any-branch'"),
])
def test_a_mistyped_command_or_option_names_the_closest_one(baton_cli, project, argv, meant):
    done = baton_cli(*argv, cwd=project)
    assert done.returncode == 2
    assert f"(did you mean {meant}?)" in done.stderr


def test_a_word_like_no_command_suggests_nothing(baton_cli, project):
    done = baton_cli("zzzz", cwd=project)
    assert done.returncode == 2 and "did you mean" not in done.stderr


def test_the_json_error_carries_the_suggestion_too(baton_cli, project):
    done = baton_cli("--json", "handoff", "lsit", cwd=project)
    assert done.returncode == 2
    assert "did you mean 'list'" in json.loads(done.stdout)["error"]["message"]


@pytest.mark.parametrize("argv, usage", [
    (["handoff", "list", "--limt", "3"], "usage: baton handoff list "),
    (["log", "--limt", "2"], "usage: baton log "),
    (["install-hooks", "--harness", "codex", "--comand", "baton"], "usage: baton install-hooks "),
])
def test_a_mistyped_option_shows_its_commands_usage_not_the_top_level_one(baton_cli, project, argv, usage):
    done = baton_cli(*argv, cwd=project)
    assert done.returncode == 2
    assert done.stderr.startswith(usage), done.stderr
    assert "usage: baton [-h]" not in done.stderr
    assert f"{usage.split(': ', 1)[1].rstrip()}: error: unrecognized arguments: {argv[-2]} {argv[-1]}" in done.stderr
    assert "(did you mean '--" in done.stderr


def test_an_unexpected_word_after_a_command_shows_that_commands_usage(baton_cli, project):
    done = baton_cli("handoff", "list", "extra", cwd=project)
    assert done.returncode == 2
    assert done.stderr.startswith("usage: baton handoff list ")
    assert "baton handoff list: error: unrecognized arguments: extra" in done.stderr


def test_an_id_taken_by_an_option_of_several_values_says_which_option_took_it(baton_cli, project):
    # --decision takes every word up to the next option: "4a2b" became a second decision
    done = baton_cli("--json", "handoff", "amend", "--decision", "Use redis", "4a2b", cwd=project)
    assert done.returncode == 2
    message = json.loads(done.stdout)["error"]["message"]
    assert message.startswith("the following arguments are required: ID (--decision takes every word after it")
    assert "give ID before it, or put `--` before ID" in message


@pytest.mark.parametrize("argv", [
    ["handoff", "amend"],                                   # no option at all
    ["handoff", "amend", "--decision", "x", "--title", "t"],  # the last option takes one value
    ["handoff", "amend", "--decision=x"],                   # a value given with `=` is the only one
])
def test_a_missing_id_no_option_could_have_taken_gets_no_such_hint(baton_cli, project, argv):
    done = baton_cli(*argv, cwd=project)
    assert done.returncode == 2 and "required: ID" in done.stderr
    assert "takes every word" not in done.stderr


def test_an_option_of_a_subcommand_given_to_its_command_names_the_subcommand_that_takes_it(baton_cli, project):
    done = baton_cli("status", "--port", "8080", cwd=project)
    assert done.returncode == 2
    assert "(--port is an option of `baton status serve`)" in done.stderr


def test_the_closest_option_that_is_only_a_subcommands_says_whose_it_is(baton_cli, project):
    done = baton_cli("status", "--hots", cwd=project)
    assert done.returncode == 2
    assert "(did you mean '--host', an option of `baton status serve`?)" in done.stderr


@pytest.mark.parametrize("word, meant", [
    ("list", "`baton handoff list`"), ("end", "`baton session end`"), ("serve", "`baton status serve`"),
])
def test_a_subcommand_given_as_a_command_names_the_command_it_belongs_to(baton_cli, project, word, meant):
    done = baton_cli(word, cwd=project)
    assert done.returncode == 2
    assert f"(did you mean {meant}?)" in done.stderr


def test_a_subcommand_of_another_command_names_that_command(baton_cli, project):
    done = baton_cli("checkpoint", "list", cwd=project)
    assert done.returncode == 2
    assert "(did you mean `baton handoff list`?)" in done.stderr


def test_a_mistyped_subcommand_given_its_options_names_the_closest_subcommand(baton_cli, project):
    # --port is `baton status serve`'s: the mistyped "serv" before it is what went wrong
    done = baton_cli("status", "serv", "--port", "8080", cwd=project)
    assert done.returncode == 2
    assert "(did you mean 'serve'?)" in done.stderr
    assert "is an option of" not in done.stderr
