"""`--project` or `$BATON_PROJECT` naming a path too long for the OS (ENAMETOOLONG) is answered
as a missing directory — "… is not a Baton project: no such directory", exit 4 — not as an
internal error (tester-use18 T8). The one place a named root is resolved
(``baton.project.resolve_root``) says so, for every command."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_baton


@pytest.mark.parametrize("name", ["a" * 300, "a/" * 3000], ids=["a component too long", "a path too long"])
def test_a_project_name_too_long_for_the_os_exits_4_as_no_such_directory(tmp_path, name):
    r = run_baton("status", "--project", str(tmp_path / name))
    assert r.returncode == 4
    assert r.stderr.rstrip().endswith("is not a Baton project: no such directory")


def test_baton_project_too_long_for_the_os_is_not_initialized_in_json(tmp_path):
    r = run_baton("handoff", "list", "--json", env={"BATON_PROJECT": str(tmp_path / ("a" * 300))})
    error = json.loads(r.stdout)["error"]
    assert (error["code"], error["exit_code"]) == ("not_initialized", 4)


@pytest.mark.parametrize("command", [["init"], ["doctor"], ["mcp"]], ids=" ".join)
def test_commands_that_resolve_a_project_give_the_same_answer_to_a_name_too_long(tmp_path, command):
    r = run_baton(*command, "--project", str(tmp_path / ("a" * 300)), input="")
    assert r.returncode == 4 and "no such directory" in r.stderr and "internal error" not in r.stderr
