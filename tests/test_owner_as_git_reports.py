"""The owner is the ``user.email`` git reports for the repository, however git's config
reaches it — real ``git config`` is the oracle throughout:

- through a conditional include in the user's own config (``[includeIf "gitdir:~/work/"]``
  in ``~/.gitconfig``: a work identity beside a personal one). dulwich evaluates such
  conditions only in a repository's own file; read naively, the user's file answered its
  unconditional email, and a baton left by the same person on a machine configured the
  plain way never reached them on this one (docs/batons.md, "Who and where");
- through a worktree's own ``config.worktree`` (``git config --worktree``), which git ranks
  above the repository's file.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from baton import gitinfo
from baton.commands.identity import resolve_owner


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def work_repo(isolated_home: Path) -> Path:
    """A repository at ``~/work/repo`` on branch ``feature/login``; the user's config names a
    personal email, and a work one in ``~/.gitconfig-work``."""
    repo = isolated_home / "work" / "repo"
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "feature/login")
    (isolated_home / ".gitconfig-work").write_text("[user]\n\temail = alice@work.example\n")
    return repo


def _user_config(home: Path, condition: str) -> None:
    Path(os.environ["GIT_CONFIG_GLOBAL"]).write_text(
        f"[user]\n\temail = alice@home.example\n[includeIf \"{condition}\"]\n\tpath = .gitconfig-work\n")


@pytest.mark.parametrize("condition", [
    "gitdir:~/work/", "gitdir:work/", "gitdir:~/work/repo/.git", "gitdir:~/work/*/.git", "gitdir:~/work/**",
    "gitdir/i:~/WORK/", "gitdir:./work/", "onbranch:feature/", "onbranch:feature/*", "onbranch:feature/login",
])
def test_an_identity_a_matching_conditional_include_sets_is_the_owner(work_repo, isolated_home, condition):
    _user_config(isolated_home, condition)
    assert _git(work_repo, "config", "user.email") == "alice@work.example"  # what git says
    assert gitinfo.config_value(work_repo, "user", "email") == "alice@work.example"
    assert resolve_owner(work_repo) == "alice@work.example"


@pytest.mark.parametrize("condition", [
    "gitdir:~/other/", "gitdir:~/WORK/", "gitdir:~/work/repo", "onbranch:main", "onbranch:feature",
    "gitdir:./other/",
])
def test_a_conditional_include_that_does_not_match_leaves_the_plain_identity(work_repo, isolated_home, condition):
    _user_config(isolated_home, condition)
    assert _git(work_repo, "config", "user.email") == "alice@home.example"
    assert resolve_owner(work_repo) == "alice@home.example"


def test_the_owner_follows_the_branch_an_onbranch_include_names(work_repo, isolated_home):
    _user_config(isolated_home, "onbranch:feature/")
    (work_repo / "README.md").write_text("# demo\n")
    _git(work_repo, "add", "README.md")
    _git(work_repo, "-c", "user.name=A", "commit", "-q", "-m", "first")
    _git(work_repo, "checkout", "-q", "-b", "main")
    assert resolve_owner(work_repo) == "alice@home.example" == _git(work_repo, "config", "user.email")


def test_the_sync_transport_reads_the_users_config_with_its_conditions(work_repo, isolated_home):
    """``baton sync`` reads the user's config for the remote (``url.<base>.insteadOf``) and the
    signing key through the same stack."""
    from dulwich.repo import Repo

    from baton.sync.transport import _read_config_once

    _user_config(isolated_home, "gitdir:~/work/")
    with Repo(str(work_repo)) as repo:
        _read_config_once(repo)
        assert repo.get_config_stack().get((b"user",), b"email") == b"alice@work.example"


def test_a_worktrees_own_config_wins_over_the_repositorys_as_in_git(tmp_path, isolated_home):
    main, linked = tmp_path / "main", tmp_path / "linked"
    main.mkdir()
    _git(main, "init", "-q", "-b", "main")
    (main / "README.md").write_text("# demo\n")
    _git(main, "add", "README.md")
    _git(main, "-c", "user.name=A", "-c", "user.email=a@example.test", "commit", "-q", "-m", "first")
    _git(main, "config", "extensions.worktreeConfig", "true")
    _git(main, "config", "user.email", "repo@example.test")
    _git(main, "config", "--worktree", "user.email", "main-worktree@example.test")
    _git(main, "worktree", "add", "-q", str(linked), "-b", "feature")
    _git(linked, "config", "--worktree", "user.email", "linked-worktree@example.test")
    for place, email in ((main, "main-worktree@example.test"), (linked, "linked-worktree@example.test")):
        assert _git(place, "config", "user.email") == email
        assert resolve_owner(place) == email


@pytest.mark.parametrize("condition", ["gitdir:~/work/", "gitdir:./work/"])
def test_a_conditional_include_matches_under_a_symlinked_home_as_in_git(work_repo, isolated_home, monkeypatch,
                                                                        condition):
    """git expands ``~/`` to the home folder's real path, and ``./`` to the real path of the
    file that holds it: a home reached through a symlink (``/home -> /data/home``) matches."""
    link = isolated_home.parent / f"{isolated_home.name}-link"
    link.symlink_to(isolated_home)
    monkeypatch.setenv("HOME", str(link))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(link / ".gitconfig"))
    _user_config(isolated_home, condition)
    for place in (work_repo, link / "work" / "repo"):
        assert _git(place, "config", "user.email") == "alice@work.example"
        assert resolve_owner(place) == "alice@work.example"


@pytest.mark.parametrize(("remote", "condition", "email"), [
    ("git@github.com:workorg/repo.git", "hasconfig:remote.*.url:git@github.com:workorg/**", "alice@work.example"),
    ("https://github.com/workorg/repo", "hasconfig:remote.*.url:https://github.com/workorg/*", "alice@work.example"),
    ("https://github.com/workorg/deep/repo", "hasconfig:remote.*.url:https://github.com/workorg/*",
     "alice@home.example"),
    ("https://github.com/other/repo", "hasconfig:remote.*.url:https://github.com/workorg/**", "alice@home.example"),
    (None, "hasconfig:remote.*.url:**", "alice@home.example"),
])
def test_an_identity_an_include_on_the_remotes_url_sets_is_the_owner_as_in_git(work_repo, isolated_home, remote,
                                                                              condition, email):
    """``[includeIf "hasconfig:remote.*.url:…"]`` in ``~/.gitconfig`` (a work identity chosen by
    the remote's organisation): the remote is in the repository's config, which dulwich did not
    look in for a condition in the user's file."""
    _user_config(isolated_home, condition)
    if remote is not None:
        _git(work_repo, "remote", "add", "origin", remote)
    assert _git(work_repo, "config", "user.email") == email
    assert resolve_owner(work_repo) == email


@pytest.fixture
def woerk_repo(isolated_home: Path) -> Path:
    """A repository at ``~/wörk dir/repo`` (a non-ASCII letter in its path), with the work identity
    in ``~/.gitconfig-work``, as ``work_repo``."""
    repo = isolated_home / "wörk dir" / "repo"
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    (isolated_home / ".gitconfig-work").write_text("[user]\n\temail = alice@work.example\n")
    return repo


def test_gitdir_i_folds_only_ascii_letters_as_git_does_so_a_non_ascii_letter_in_another_case_does_not_match(
        woerk_repo, isolated_home):
    _user_config(isolated_home, f"gitdir/i:{isolated_home}/WÖRK DIR/**")
    assert _git(woerk_repo, "config", "user.email") == "alice@home.example"  # what git says
    assert resolve_owner(woerk_repo) == "alice@home.example"


def test_gitdir_i_matches_a_non_ascii_path_whose_ascii_letters_differ_in_case(woerk_repo, isolated_home):
    _user_config(isolated_home, f"gitdir/i:{isolated_home}/wöRK DIR/**")
    assert _git(woerk_repo, "config", "user.email") == "alice@work.example"  # what git says
    assert resolve_owner(woerk_repo) == "alice@work.example"
