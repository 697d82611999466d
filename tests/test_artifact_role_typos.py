"""``--artifact PATH:ROLE`` with a word after the colon that is no role: refused
(exit 2, naming the roles) whenever the path before it names a file or the word
reads as a role — never stored as a file named ``a.txt:weird-role`` — while a
file whose name really holds that colon is still taken as its path."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_baton


def _checkpoint(project, *artifacts: str):
    flags = [arg for artifact in artifacts for arg in ("--artifact", artifact)]
    return run_baton("checkpoint", "create", "--no-input", "--json", "--title", "T", "--objective", "O", *flags,
                     cwd=project)


@pytest.mark.parametrize("typed", ["a.txt:weird-role", "a.txt:42", "a.txt:deleted_x", "a.txt:raed"])
def test_an_unknown_role_after_an_existing_file_is_refused_naming_the_roles(project, typed):
    (project / "a.txt").write_text("a\n")
    done = _checkpoint(project, typed)
    assert done.returncode == 2, done.stdout
    error = json.loads(done.stdout)["error"]
    assert error["details"]["roles"] == ["modified", "created", "read", "generated", "deleted"]
    assert "is not a role (the roles: modified, created, read, generated, deleted)" in error["message"]


def test_a_word_that_reads_as_a_role_is_refused_even_when_no_file_exists(project):
    done = _checkpoint(project, "gone.txt:weird-role")
    assert done.returncode == 2, done.stdout
    assert "'weird-role' is not a role" in json.loads(done.stdout)["error"]["message"]


def test_a_file_whose_name_holds_the_colon_is_taken_as_its_path(project):
    (project / "a.txt").write_text("a\n")
    (project / "a.txt:weird-role").write_text("a file so named\n")
    done = _checkpoint(project, "a.txt:weird-role")
    assert done.returncode == 0, done.stdout
    artifact = json.loads(done.stdout)["handoff"]["artifacts"][0]
    assert (artifact["path"], artifact["role"]) == ("a.txt:weird-role", "modified")
    assert "content_hash" in artifact


def test_a_known_role_after_an_existing_file_is_taken_as_its_role(project):
    (project / "a.txt").write_text("a\n")
    done = _checkpoint(project, "a.txt:read")
    assert done.returncode == 0, done.stdout
    artifact = json.loads(done.stdout)["handoff"]["artifacts"][0]
    assert (artifact["path"], artifact["role"]) == ("a.txt", "read")
