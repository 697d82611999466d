"""``baton sync --ref`` never replaces a ref Baton does not own (docs/sync.md, "The ledger ref").

Real git: a bare remote, a clone that tags, stashes and fetches with the git
binary, as a user does; the tag, the stash and the remote-tracking ref must
come out of a refused sync exactly as they went in, here and on the remote.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from baton.domain.ledger_refs import LocalRef, ledger_ref_problem, local_ref_refusal
from tests.cli_support import run, run_json
from tests.sync_support import REF, make_team, refs_of


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


def _git(clone: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(clone), *args], check=True, capture_output=True, text=True,
                          env={**os.environ, "GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@example.com",
                               "GIT_COMMITTER_NAME": "A", "GIT_COMMITTER_EMAIL": "a@example.com"}).stdout.strip()


def _checkpoint(capsys, project: Path, title: str) -> None:
    run_json(capsys, project, "checkpoint", "create", "--title", title, "--objective", "o", "--no-input")


def _stash(clone: Path) -> None:
    """A real ``git stash``: a tracked file changed, then stashed."""
    (clone / "notes.txt").write_text("one\n")
    _git(clone, "add", "notes.txt")
    _git(clone, "commit", "-qm", "notes")
    (clone / "notes.txt").write_text("work in progress\n")
    _git(clone, "stash", "-q")


# -- the name: only refs/baton/… ------------------------------------------------------------------

@pytest.mark.parametrize("name", ["refs/tags/v1", "refs/remotes/origin/master", "refs/stash", "refs/notes/commits",
                                  "refs/heads/master", "HEAD", "FETCH_HEAD", "ledger", "refs/pull/1/head",
                                  "refs/baton", "refs/baton/", "refs/baton//x", "refs/baton/x.lock",
                                  "refs/baton/.hidden", "refs/baton/a@{1}", "refs/baton/a\nb", ""])
def test_a_ledger_ref_outside_refs_baton_or_malformed_is_refused_by_name(name):
    problem = ledger_ref_problem(name)
    assert problem is not None and "refs/baton/" in problem and "refs/baton/ledger" in problem


@pytest.mark.parametrize("name", ["refs/baton/ledger", "refs/baton/team", "refs/baton/team/ledger"])
def test_a_ledger_ref_under_refs_baton_is_accepted(name):
    assert ledger_ref_problem(name) is None


@pytest.mark.parametrize(("name", "says"), [("refs/tags/v1", "a git tag"), ("refs/stash", "git's stash"),
                                            ("refs/remotes/origin/master", "a remote-tracking ref"),
                                            ("HEAD", "outside refs/")])
def test_a_refused_name_says_what_it_belongs_to(name, says):
    assert says in ledger_ref_problem(name)


@pytest.mark.parametrize("name", ["refs/tags/v1", "refs/remotes/origin/master", "refs/stash"])
def test_sync_onto_a_users_tag_remote_tracking_ref_or_stash_exits_2_and_leaves_every_ref_as_it_was(
        capsys, team, name):
    remote, a, _b = team
    _git(a, "tag", "-a", "v1", "-m", "release one")
    _git(a, "fetch", "-q", "origin")
    _stash(a)
    _checkpoint(capsys, a, "work")
    before, remote_before = refs_of(a), refs_of(remote)
    assert name.encode() in before

    code, out, err = run(capsys, a, "sync", "--ref", name, "--json")

    error = json.loads(out)["error"]
    assert (code, error["code"]) == (2, "input_error"), out + err
    assert "--ref must be a ref under refs/baton/" in error["message"] and "refs/baton/ledger" in error["message"]
    assert (refs_of(a), refs_of(remote)) == (before, remote_before)
    assert _git(a, "cat-file", "-t", "v1") == "tag" and _git(a, "stash", "list")


def test_the_refusal_on_the_terminal_names_the_namespace_to_use(capsys, team):
    _remote, a, _b = team
    code, _out, err = run(capsys, a, "sync", "--ref", "refs/tags/v1")
    assert code == 2 and "refs/tags/v1 is a git tag" in err and "refs/baton/team" in err and "Traceback" not in err


# -- the ref this clone has: only a ledger commit is replaced -------------------------------------

def test_an_existing_local_ref_that_is_not_a_ledger_commit_is_refused_with_exit_3_and_kept(capsys, team):
    remote, a, _b = team
    master = _git(a, "rev-parse", "HEAD")
    _git(a, "update-ref", "refs/baton/ledger", master)  # someone's commit, under Baton's own name
    _checkpoint(capsys, a, "work")
    remote_before = refs_of(remote)

    code, out, err = run(capsys, a, "sync", "--json")

    error = json.loads(out)["error"]
    assert (code, error["code"]) == (3, "local_ref_refused"), out + err
    assert "not a Baton ledger commit" in error["message"] and "git update-ref -d" in error["message"]
    assert error["details"]["ref"] == "refs/baton/ledger"
    assert refs_of(a)[REF] == master.encode() and refs_of(remote) == remote_before


def test_an_annotated_tag_under_the_ledger_refs_name_is_refused(capsys, team):
    _remote, a, _b = team
    _git(a, "tag", "-a", "v1", "-m", "release one")
    tag = _git(a, "rev-parse", "v1")
    _git(a, "update-ref", "refs/baton/ledger", tag)
    code, out, _err = run(capsys, a, "sync", "--json")
    error = json.loads(out)["error"]
    assert (code, error["code"]) == (3, "local_ref_refused") and "annotated tag" in error["message"]
    assert refs_of(a)[REF] == tag.encode()


def test_a_symbolic_ledger_ref_is_refused_and_the_branch_it_names_does_not_move(capsys, team):
    _remote, a, _b = team
    master = _git(a, "rev-parse", "refs/heads/master")
    _git(a, "symbolic-ref", "refs/baton/ledger", "refs/heads/master")
    _checkpoint(capsys, a, "work")
    code, out, _err = run(capsys, a, "sync", "--json")
    error = json.loads(out)["error"]
    assert (code, error["code"]) == (3, "local_ref_refused") and "symbolic ref to refs/heads/master" in error["message"]
    assert _git(a, "rev-parse", "refs/heads/master") == master


def test_a_ledger_ref_a_sync_wrote_is_replaced_as_always(capsys, team):
    remote, a, _b = team
    _checkpoint(capsys, a, "first")
    run_json(capsys, a, "sync")
    _checkpoint(capsys, a, "second")
    result = run_json(capsys, a, "sync")
    assert result["pushed"] is True and refs_of(a)[REF] == refs_of(remote)[REF]


@pytest.mark.parametrize(("found", "refused"), [
    (None, False), (LocalRef(kind="commit", has_format=True), False), (LocalRef(), False),
    (LocalRef(kind="commit"), True), (LocalRef(kind="tag"), True), (LocalRef(kind="tree"), True),
    (LocalRef(symbolic_target="refs/heads/main"), True)])
def test_only_a_ledger_commit_or_a_missing_object_may_be_replaced(found, refused):
    assert (local_ref_refusal("refs/baton/ledger", found) is not None) is refused
