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
