"""Reading repository state with dulwich, degrading silently."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from dulwich import porcelain

from baton import git_status, gitinfo
from baton.repo_state import StatusGroups, repo_state, status_groups


def _commit(repo_dir: Path, name: str, text: str) -> str:
    (repo_dir / name).write_text(text)
    porcelain.add(str(repo_dir), [str(repo_dir / name)])
    return porcelain.commit(str(repo_dir), message=b"change", author=b"T <t@example.com>",
                            committer=b"T <t@example.com>").decode()


def _with_linked_worktree(tmp_path: Path) -> Path:
    """A repository ``main`` with one commit and a linked worktree ``linked`` on branch ``feature``."""
    main = tmp_path / "main"
    main.mkdir()
    porcelain.init(str(main))
    _commit(main, "a.txt", "one")
    porcelain.branch_create(str(main), "feature")
    porcelain.worktree_add(str(main), str(tmp_path / "linked"), branch="feature")
    return main


def test_outside_a_repository_everything_is_unknown(tmp_path):
    state = repo_state(tmp_path)
    assert state.vcs == "none" and state.head is None and state.branch is None


def test_unborn_branch_has_a_branch_but_no_head(tmp_path):
    porcelain.init(str(tmp_path))
    assert gitinfo.head_commit(tmp_path) is None
    assert gitinfo.current_branch(tmp_path) in ("master", "main")


def test_head_and_branch_follow_commits_and_checkouts(tmp_path):
    porcelain.init(str(tmp_path))
    sha = _commit(tmp_path, "a.txt", "one")
    assert gitinfo.head_commit(tmp_path) == sha
    porcelain.branch_create(str(tmp_path), "feature/x")
    porcelain.checkout(str(tmp_path), "feature/x")
    assert gitinfo.current_branch(tmp_path) == "feature/x"


def test_changed_files_lists_modified_and_untracked_but_not_baton(tmp_path):
    porcelain.init(str(tmp_path))
    _commit(tmp_path, "a.txt", "one")
    (tmp_path / "a.txt").write_text("two")
    (tmp_path / "new.txt").write_text("new")
    (tmp_path / ".baton").mkdir()
    (tmp_path / ".baton" / "config.json").write_text("{}")
    dirty, files = git_status.changed_files(tmp_path)
    assert dirty is True
    assert "a.txt" in files and "new.txt" in files
    assert not any(f.startswith(".baton") for f in files)


def test_clean_tree_is_not_dirty(tmp_path):
    porcelain.init(str(tmp_path))
    _commit(tmp_path, "a.txt", "one")
    assert git_status.changed_files(tmp_path) == (False, ())


def test_user_email_comes_from_the_repository_config(tmp_path):
    porcelain.init(str(tmp_path))
    (tmp_path / ".git" / "config").write_text(
        (tmp_path / ".git" / "config").read_text() + "[user]\n\temail = dev@example.com\n\tname = Dev\n")
    assert gitinfo.config_value(tmp_path, "user", "email") == "dev@example.com"
    assert gitinfo.config_value(tmp_path, "user", "name") == "Dev"


def test_remote_hint_strips_credentials_and_suffix():
    assert gitinfo.remote_hint("https://bob:secret@github.com/org/repo.git") == "github.com/org/repo"
    assert gitinfo.remote_hint("git@github.com:org/repo.git") == "github.com/org/repo"
    assert gitinfo.remote_hint(None) is None


def test_status_groups_tell_added_modified_deleted_and_untracked_apart(tmp_path):
    porcelain.init(str(tmp_path))
    _commit(tmp_path, "kept.txt", "one")
    _commit(tmp_path, "gone.txt", "one")
    _commit(tmp_path, "staged_gone.txt", "one")
    (tmp_path / "kept.txt").write_text("two")
    (tmp_path / "gone.txt").unlink()
    porcelain.remove(str(tmp_path), [str(tmp_path / "staged_gone.txt")])
    (tmp_path / "staged.txt").write_text("new")
    porcelain.add(str(tmp_path), [str(tmp_path / "staged.txt")])
    (tmp_path / "newdir" / "sub").mkdir(parents=True)
    (tmp_path / "newdir" / "a.txt").write_text("a")
    (tmp_path / "newdir" / "sub" / "b.txt").write_text("b")
    (tmp_path / ".baton").mkdir()
    (tmp_path / ".baton" / "config.json").write_text("{}")
    groups = status_groups(tmp_path)
    assert groups.added == ("staged.txt",)
    assert groups.modified == ("kept.txt",)
    assert groups.deleted == ("gone.txt", "staged_gone.txt")
    assert groups.untracked == ("newdir/a.txt", "newdir/sub/b.txt")


def test_status_groups_outside_a_repository_are_empty(tmp_path):
    assert status_groups(tmp_path) == StatusGroups((), (), (), ())


# -- locating without dulwich, and git's identity kept between processes ------------------

def test_locate_finds_the_repository_from_a_subfolder(tmp_path):
    porcelain.init(str(tmp_path))
    (tmp_path / "src" / "deep").mkdir(parents=True)
    where = gitinfo.locate(tmp_path / "src" / "deep")
    assert where.worktree == str(tmp_path.resolve()) and where.git_dir == str(tmp_path.resolve() / ".git")
    assert where.common_dir == where.git_dir and not where.bare


def test_locate_follows_a_linked_worktrees_gitdir_file_to_the_common_directory(tmp_path):
    main = _with_linked_worktree(tmp_path)
    where = gitinfo.locate(tmp_path / "linked")
    assert where.worktree == str((tmp_path / "linked").resolve())
    assert os.path.realpath(where.common_dir) == str((main / ".git").resolve())
    assert gitinfo.current_branch(tmp_path / "linked") == "feature"


def test_locate_outside_a_repository_is_none(tmp_path):
    assert gitinfo.locate(tmp_path) is None


def test_a_detached_head_has_no_branch(tmp_path):
    porcelain.init(str(tmp_path))
    sha = _commit(tmp_path, "a.txt", "one")
    (tmp_path / ".git" / "HEAD").write_text(sha + "\n")
    assert gitinfo.current_branch(tmp_path) is None


def test_a_branch_reached_through_a_symbolic_ref_is_the_branch_it_ends_at(tmp_path):
    porcelain.init(str(tmp_path))
    sha = _commit(tmp_path, "a.txt", "one")
    branch = gitinfo.current_branch(tmp_path)
    (tmp_path / ".git" / "refs" / "heads" / "alias").write_text(f"ref: refs/heads/{branch}\n")
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/alias\n")
    assert gitinfo.current_branch(tmp_path) == branch
    assert gitinfo.head_commit(tmp_path) == sha


def test_a_symbolic_ref_loop_stops_and_names_the_last_ref_read(tmp_path):
    porcelain.init(str(tmp_path))
    _commit(tmp_path, "a.txt", "one")
    heads = tmp_path / ".git" / "refs" / "heads"
    (heads / "a").write_text("ref: refs/heads/b\n")
    (heads / "b").write_text("ref: refs/heads/a\n")
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/a\n")
    assert gitinfo.current_branch(tmp_path) in ("a", "b")


def _with_identity(repo_dir: Path, email: str) -> None:
    config = repo_dir / ".git" / "config"
    config.write_text(config.read_text().split("[user]")[0] + f"[user]\n\temail = {email}\n\tname = Dev\n")


def test_git_identity_is_read_once_and_kept_while_the_config_is_unchanged(tmp_path, monkeypatch):
    porcelain.init(str(tmp_path))
    _with_identity(tmp_path, "dev@example.com")
    cache = tmp_path / "cache" / "identity.json"
    assert gitinfo.user_identity(tmp_path, cache) == ("dev@example.com", "Dev")
    monkeypatch.setattr(gitinfo, "config_value", lambda *a: pytest.fail("git config read again"))
    assert gitinfo.user_identity(tmp_path, cache) == ("dev@example.com", "Dev")


def test_a_changed_config_is_read_again(tmp_path):
    porcelain.init(str(tmp_path))
    _with_identity(tmp_path, "dev@example.com")
    cache = tmp_path / "cache" / "identity.json"
    gitinfo.user_identity(tmp_path, cache)
    _with_identity(tmp_path, "other@example.com")
    assert gitinfo.user_identity(tmp_path, cache)[0] == "other@example.com"


def test_a_config_with_includes_is_never_answered_from_the_cache(tmp_path, monkeypatch):
    porcelain.init(str(tmp_path))
    _with_identity(tmp_path, "dev@example.com")
    config = tmp_path / ".git" / "config"
    config.write_text(config.read_text() + "[include]\n\tpath = extra.conf\n")
    cache = tmp_path / "cache" / "identity.json"
    gitinfo.user_identity(tmp_path, cache)
    reads = []
    real = gitinfo.config_value
    monkeypatch.setattr(gitinfo, "config_value", lambda *a: reads.append(a) or real(*a))
    gitinfo.user_identity(tmp_path, cache)
    assert reads, "an included file could change the identity without the cache seeing it"


# -- HEAD's commit read from git's files, without dulwich ---------------------------------

def _dulwich_head(repo_dir: Path) -> str:
    from dulwich.repo import Repo

    with Repo(str(repo_dir)) as repo:
        return repo.head().decode()


def test_head_commit_reads_a_loose_branch_ref_as_dulwich_does(tmp_path):
    porcelain.init(str(tmp_path))
    _commit(tmp_path, "a.txt", "one")
    sha = _commit(tmp_path, "a.txt", "two")
    assert gitinfo.head_commit(tmp_path) == sha == _dulwich_head(tmp_path)


def test_head_commit_reads_a_branch_kept_only_in_packed_refs(tmp_path):
    porcelain.init(str(tmp_path))
    sha = _commit(tmp_path, "a.txt", "one")
    branch = gitinfo.current_branch(tmp_path)
    loose = tmp_path / ".git" / "refs" / "heads" / branch
    loose.unlink()
    (tmp_path / ".git" / "packed-refs").write_text(
        f"# pack-refs with: peeled fully-peeled sorted \n{'0' * 40} refs/heads/other\n{sha} refs/heads/{branch}\n")
    assert gitinfo.head_commit(tmp_path) == sha == _dulwich_head(tmp_path)


def test_a_loose_ref_wins_over_its_packed_copy(tmp_path):
    porcelain.init(str(tmp_path))
    old = _commit(tmp_path, "a.txt", "one")
    new = _commit(tmp_path, "a.txt", "two")
    branch = gitinfo.current_branch(tmp_path)
    (tmp_path / ".git" / "packed-refs").write_text(f"{old} refs/heads/{branch}\n")
    assert gitinfo.head_commit(tmp_path) == new == _dulwich_head(tmp_path)


def test_head_commit_of_a_detached_head_is_the_sha_it_names(tmp_path):
    porcelain.init(str(tmp_path))
    first = _commit(tmp_path, "a.txt", "one")
    _commit(tmp_path, "a.txt", "two")
    (tmp_path / ".git" / "HEAD").write_text(first + "\n")
    assert gitinfo.head_commit(tmp_path) == first


def test_head_commit_of_a_linked_worktree_is_its_own_branchs(tmp_path):
    main = _with_linked_worktree(tmp_path)
    feature = _commit(tmp_path / "linked", "b.txt", "two")
    assert gitinfo.head_commit(tmp_path / "linked") == feature == _dulwich_head(tmp_path / "linked")
    assert gitinfo.head_commit(main) != feature


def test_a_head_the_files_do_not_answer_is_asked_of_dulwich(tmp_path, monkeypatch):
    porcelain.init(str(tmp_path))
    sha = _commit(tmp_path, "a.txt", "one")
    branch = gitinfo.current_branch(tmp_path)
    (tmp_path / ".git" / "refs" / "heads" / "alias").write_text(f"ref: refs/heads/{branch}\n")
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/alias\n")
    asked = []
    real = gitinfo.open_repo
    monkeypatch.setattr(gitinfo, "open_repo", lambda start: asked.append(start) or real(start))
    assert gitinfo.head_commit(tmp_path) == sha
    assert asked


def test_within_located_once_each_start_is_located_once(tmp_path):
    (tmp_path / "repo").mkdir()
    start = tmp_path / "repo"
    with gitinfo.located_once():
        before = gitinfo.locate(start)
        porcelain.init(str(start))  # a repository made within the scope: the first answer holds
        within = gitinfo.locate(start)
    after = gitinfo.locate(start)
    assert before is None and within is None
    assert after is not None and after.worktree == str(start.resolve())


def test_outside_located_once_every_locate_walks_again(tmp_path):
    start = tmp_path / "repo"
    start.mkdir()
    before = gitinfo.locate(start)
    porcelain.init(str(start))
    assert before is None and gitinfo.locate(start) is not None
