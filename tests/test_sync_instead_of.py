"""A remote spelled through git's ``url.<base>.insteadOf`` (docs/sync.md, "Shared with which remote"): a
team's ``origin`` configured as ``gh:team/remote.git`` with ``[url "<folder>/"] insteadOf = gh:team/`` —
in the clone's config, the user's ``~/.gitconfig`` or ``$XDG_CONFIG_HOME/git/config`` — is contacted where
git would contact it, and recognised as the repository the rule names: a sync that spells that repository
as its path counts as shared with ``origin``, and what the clone saw it hold is kept under either spelling.
Real bare remotes and real git config files, read through dulwich (Baton never runs git; the test asks git
itself that the rule is one it applies)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from dulwich.config import ConfigFile
from dulwich.repo import Repo

from tests.cli_support import run, run_json
from tests.sync_support import checkpoint as _checkpoint
from tests.sync_support import make_team, remote_feeds, set_remote, synced_then_remote_rolled_back
from tests.sync_support import writer_of as _writer

SHORT = "gh:team/"


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


def _rule_in(path: Path, folder: Path) -> None:
    """``[url "<folder>/"] insteadOf = gh:team/`` added to the git config file at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    config = ConfigFile.from_path(str(path)) if path.exists() else ConfigFile()
    config.set((b"url", f"{folder}/".encode()), b"insteadOf", SHORT.encode())
    config.write_to_path(str(path))


def _spelled_short(a: Path, remote: Path) -> str:
    url = f"{SHORT}{remote.name}"
    set_remote(a, url)
    return url


@pytest.fixture(params=["clone", "home", "xdg"])
def rule_place(request, team, isolated_home, monkeypatch):
    """Where the rule is written: the clone's own config, ``~/.gitconfig`` (HOME), or
    ``$XDG_CONFIG_HOME/git/config``; ``origin`` spelled through it."""
    remote, a, _b = team
    if request.param == "clone":
        _rule_in(a / ".git" / "config", remote.parent)
    else:
        monkeypatch.delenv("GIT_CONFIG_GLOBAL")  # git then reads ~/.gitconfig and the XDG file
        where = isolated_home / ".gitconfig" if request.param == "home" else isolated_home / ".config" / "git" / "config"
        _rule_in(where, remote.parent)
    return _spelled_short(a, remote)


def test_git_itself_applies_the_rule_the_clone_is_given(team, rule_place):
    remote, a, _b = team
    listed = subprocess.run(["git", "ls-remote", "--get-url", "origin"], cwd=a, capture_output=True, text=True,
                            check=True)
    assert listed.stdout.strip() == f"{remote}"


def test_origin_spelled_through_an_instead_of_rule_is_synced_where_git_would_reach_it(capsys, team, rule_place):
    remote, a, b = team
    _checkpoint(capsys, a, "from A")
    assert run_json(capsys, a, "sync")["pushed"] is True
    assert _writer(a) in remote_feeds(remote)
    assert run_json(capsys, b, "sync")["imported"]


def test_a_sync_with_the_path_the_rule_names_counts_as_shared_with_origin(capsys, team, rule_place):
    remote, a, _b = team
    run_json(capsys, a, "sync")
    _checkpoint(capsys, a, "published through the path")
    assert run_json(capsys, a, "sync", "--remote", str(remote))["pushed"] is True
    sync = run_json(capsys, a, "status")["sync"]
    assert sync["remote"] == "origin" and sync["unshared"] == 0


def test_a_sync_spelled_through_the_rule_counts_for_a_remote_configured_by_its_path(capsys, team):
    remote, a, _b = team
    _rule_in(a / ".git" / "config", remote.parent)
    run_json(capsys, a, "sync")  # origin is the path itself
    _checkpoint(capsys, a, "published through the short spelling")
    assert run_json(capsys, a, "sync", "--remote", f"{SHORT}{remote.name}")["pushed"] is True
    sync = run_json(capsys, a, "status")["sync"]
    assert sync["remote"] == "origin" and sync["unshared"] == 0


def test_a_remote_that_went_back_is_reported_when_origin_is_spelled_through_the_rule(capsys, team, rule_place):
    remote, a, _b = team
    synced_then_remote_rolled_back(capsys, remote, a)
    code, text, _ = run(capsys, a, "sync", "--remote", str(remote))
    assert code == 3 and f"BEHIND remote feed {_writer(a)}: the remote held it to seq 2" in text


def test_a_push_instead_of_rule_alone_does_not_make_two_repositories_one(capsys, team, tmp_path):
    """``pushInsteadOf`` says where pushes go, not which repository a URL names: a remote fetched from
    another repository is not taken for origin's."""
    remote, a, _b = team
    other = tmp_path / "other.git"
    Repo.init_bare(str(other), mkdir=True).close()
    with Repo(str(a)) as repo:
        config = repo.get_config()
        config.set((b"url", str(remote).encode()), b"pushInsteadOf", str(other).encode())
        config.write_to_path()
    _checkpoint(capsys, a, "to the other")
    run_json(capsys, a, "sync", "--remote", str(other))
    assert run_json(capsys, a, "status")["sync"]["remote"] != "origin"
