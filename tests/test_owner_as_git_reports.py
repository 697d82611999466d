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
