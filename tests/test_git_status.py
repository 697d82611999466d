"""Baton's lean work-tree status says what ``git status`` says, on repositories built with the git binary."""

from __future__ import annotations

import os
import shutil
import subprocess
from itertools import chain
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baton import git_status
from baton.repo_state import status_groups

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs the git binary")

ENV = {**os.environ, "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "T",
       "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
       "GIT_OPTIONAL_LOCKS": "0"}


def git(root: Path, *argv: str) -> str:
    return subprocess.run(["git", *argv], cwd=root, env=ENV, check=True, capture_output=True).stdout.decode()


def write(root: Path, name: str, text: str = "x\n") -> None:
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / name).write_text(text, encoding="utf-8")


def repo(tmp_path: Path, files: dict[str, str] | None = None) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for name, text in (files or {}).items():
        write(root, name, text)
    if files:
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "start")
    return root


def git_says(root: Path, untracked: str) -> set[str]:
    """``git status --porcelain=v1 -z --untracked-files=MODE``: every path it names (both sides
    of a rename), ``.baton/`` left out."""
    out = subprocess.run(["git", "status", "--porcelain=v1", "-z", f"--untracked-files={untracked}"],
                         cwd=root, env=ENV, check=True, capture_output=True).stdout
    items, paths = out.decode("utf-8", "surrogateescape").split("\0"), set()
    while items:
        item = items.pop(0)
        if item:
            paths.add(item[3:])
            if item[0] in "RC":
                paths.add(items.pop(0))
    return {p for p in paths if not p.startswith(".baton/")}


def baton_says(root: Path, untracked: str) -> set[str]:
    found = git_status.status(root, untracked)
    assert found is not None
    return set(chain.from_iterable(found))


def assert_agrees(root: Path) -> None:
    for mode in ("normal", "all"):
        ours = baton_says(root, mode)  # first: git status must not refresh the index before we read it
        assert ours == git_says(root, mode), mode
        assert git_status.is_dirty(root) is bool(ours)


def test_modified_staged_deleted_renamed_and_untracked_in_new_folders(tmp_path):
    root = repo(tmp_path, {"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n", "src/d.py": "d\n", "src/e.py": "e\n"})
    write(root, "a.txt", "changed\n")
    write(root, "b.txt", "staged\n")
    git(root, "add", "b.txt")
    git(root, "rm", "-q", "c.txt")
    git(root, "mv", "src/d.py", "src/moved.py")
    write(root, "new/deeper/f.py")
    write(root, "new/g.py")
    write(root, "src/untracked.py")
    os.remove(root / "src/e.py")
    write(root, "added.txt")
    git(root, "add", "added.txt")
    assert_agrees(root)
    assert "new/" in baton_says(root, "normal") and "new/deeper/f.py" in baton_says(root, "all")


def test_nested_gitignore_files_negations_and_ignored_folders(tmp_path):
    root = repo(tmp_path, {".gitignore": "*.log\nnode_modules/\nbuild/*\n!build/keep/\n", "src/a.py": "a\n",
                           "src/.gitignore": "generated/\n!important.log\n"})
    for i in range(30):
        write(root, f"node_modules/pkg{i}/index.js")
    write(root, "server.log")
    write(root, "src/important.log")
    write(root, "src/other.log")
    write(root, "src/generated/out.py")
    write(root, "build/tmp/x.o")
    write(root, "build/keep/kept.txt")
    write(root, "only-ignored/a.log")
    (root / "empty-folder").mkdir()
    assert_agrees(root)
    assert "only-ignored/" not in baton_says(root, "normal")


def test_an_ignored_folder_is_never_walked(tmp_path, monkeypatch):
    root = repo(tmp_path, {".gitignore": "node_modules/\n", "a.txt": "a\n"})
    write(root, "node_modules/dep/index.js")
    write(root, "new.txt")
    listed: list[bytes] = []
    real = git_status._listing
    monkeypatch.setattr(git_status, "_listing", lambda folder: listed.append(folder) or real(folder))
    assert baton_says(root, "all") == {"new.txt"}
    assert not any(b"node_modules" in folder for folder in listed)


def test_a_change_of_the_executable_bit_alone_is_a_change(tmp_path):
    root = repo(tmp_path, {"run.sh": "echo hi\n", "plain.txt": "p\n"})
    os.chmod(root / "run.sh", 0o755)
    assert_agrees(root)
    assert baton_says(root, "normal") == {"run.sh"}


def test_symlinks_tracked_retargeted_and_untracked(tmp_path):
    root = repo(tmp_path, {"target.txt": "t\n", "other.txt": "o\n", "dir/f.txt": "f\n"})
    os.symlink("target.txt", root / "link")
    git(root, "add", "link")
    git(root, "commit", "-q", "-m", "link")
    os.remove(root / "link")
    os.symlink("other.txt", root / "link")
    os.symlink("dir", root / "dirlink")
    assert_agrees(root)
    assert baton_says(root, "all") == {"link", "dirlink"}


def test_an_untracked_nested_repository_is_its_folder(tmp_path):
    root = repo(tmp_path, {"a.txt": "a\n"})
    nested = root / "vendor" / "lib"
    nested.mkdir(parents=True)
    git(nested, "init", "-q")
    write(nested, "inside.txt")
    write(root, "tracked-dir/one.txt")
    git(root, "add", "tracked-dir/one.txt")
    sub = root / "tracked-dir" / "sub"
    sub.mkdir()
    git(sub, "init", "-q")
    assert_agrees(root)


def test_prepare_groups_list_untracked_files_never_a_nested_repository_folder(tmp_path):
    root = repo(tmp_path, {"a.txt": "a\n"})
    (root / "vendor").mkdir()
    git(root / "vendor", "init", "-q")
    write(root, "new/file.txt")
    assert status_groups(root).untracked == ("new/file.txt",)


def test_unicode_and_spaced_names(tmp_path):
    root = repo(tmp_path, {"café/naïve file.txt": "a\n", "日本.txt": "b\n"})
    write(root, "café/naïve file.txt", "changed\n")
    write(root, "новый/файл.txt")
    write(root, "émoji 🎉.md")
    assert_agrees(root)


def test_a_same_size_edit_with_its_mtime_restored_is_seen_through_ctime(tmp_path):
    root = repo(tmp_path, {"a.txt": "aaaa\n"})
    before = os.stat(root / "a.txt")
    write(root, "a.txt", "bbbb\n")
    os.utime(root / "a.txt", ns=(before.st_atime_ns, before.st_mtime_ns))
    assert_agrees(root)
    assert baton_says(root, "normal") == {"a.txt"}


def test_a_racy_entry_is_read_not_trusted(tmp_path):
    """An entry as new as the index itself: its stat cannot vouch for its content (git's racy
    rule), so a same-size edit with mtime restored is found even with ctime not trusted."""
    root = repo(tmp_path, {"a.txt": "aaaa\n"})
    git(root, "config", "core.trustctime", "false")
    before = os.stat(root / "a.txt")
    write(root, "a.txt", "bbbb\n")
    os.utime(root / "a.txt", ns=(before.st_atime_ns, before.st_mtime_ns))
    os.utime(root / ".git" / "index", ns=(before.st_atime_ns, before.st_mtime_ns))
    assert baton_says(root, "normal") == {"a.txt"}
    assert_agrees(root)


def test_a_touched_file_with_the_same_content_is_not_a_change(tmp_path):
    root = repo(tmp_path, {"a.txt": "same\n"})
    os.utime(root / "a.txt", ns=(1, 1))
    assert_agrees(root)
    assert git_status.is_dirty(root) is False


def test_an_empty_repository_with_no_commit(tmp_path):
    root = repo(tmp_path)
    assert git_status.status(root, "normal") == git_status.Status((), (), (), (), ())
    assert git_status.is_dirty(root) is False
    write(root, "staged.txt")
    git(root, "add", "staged.txt")
    write(root, "loose/file.txt")
    assert_agrees(root)


def test_baton_folder_is_left_out_and_a_clean_tree_is_clean(tmp_path):
    root = repo(tmp_path, {"a.txt": "a\n"})
    write(root, ".baton/ledger/feed.jsonl", "{}\n")
    assert git_status.changed_files(root) == (False, ())
    assert git_status.is_dirty(root) is False


def test_outside_a_repository_nothing_is_known(tmp_path):
    assert git_status.status(tmp_path) is None
    assert git_status.is_dirty(tmp_path) is None
    assert git_status.changed_files(tmp_path) == (None, ())


NAMES = st.sampled_from(["a.txt", "b.py", "d/c.txt", "d/e/f.txt", "g/h.log", "i/j.txt", "k.log"])
EDITS = st.lists(st.tuples(st.sampled_from(["write", "remove", "stage", "chmod", "add-new"]), NAMES), max_size=6)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(committed=st.sets(NAMES, min_size=1, max_size=5), edits=EDITS)
def test_any_small_tree_with_edits_agrees_with_git(tmp_path_factory, committed, edits):
    tmp_path = tmp_path_factory.mktemp("tree")
    root = repo(tmp_path, {".gitignore": "*.log\n!k.log\n", **{name: f"{name}\n" for name in committed}})
    for step, (action, name) in enumerate(edits):
        path = root / name
        if action == "write" or action == "add-new":
            if path.parent.is_file():
                continue
            write(root, name, f"edit {step}\n")
            if action == "add-new":
                git(root, "add", "-f", name)
        elif action == "remove" and path.is_file():
            path.unlink()
        elif action == "stage" and (path.exists() or name in git(root, "ls-files")):
            git(root, "add", "-A", "-f", name)
        elif action == "chmod" and path.is_file():
            os.chmod(path, 0o755)
    assert_agrees(root)


# -- submodules: git's default ``--ignore-submodules=none`` -------------------------------

def with_submodule(tmp_path: Path) -> Path:
    """A repository whose ``sub`` is a submodule (a repository of one commit, ``lib.txt``)."""
    lib = tmp_path / "lib"
    lib.mkdir()
    git(lib, "init", "-q", "-b", "main")
    write(lib, "lib.txt", "lib\n")
    git(lib, "add", "-A")
    git(lib, "commit", "-q", "-m", "lib")
    root = repo(tmp_path, {"a.txt": "a\n"})
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "sub")
    git(root, "commit", "-q", "-m", "sub")
    return root


def test_a_clean_submodule_is_clean(tmp_path):
    root = with_submodule(tmp_path)
    assert_agrees(root)
    assert git_status.is_dirty(root) is False


def test_a_submodule_at_another_commit_is_modified(tmp_path):
    root = with_submodule(tmp_path)
    git(root / "sub", "commit", "-q", "--allow-empty", "-m", "moved")
    assert_agrees(root)
    assert baton_says(root, "normal") == {"sub"}


def test_a_submodule_with_an_edited_file_is_modified(tmp_path):
    root = with_submodule(tmp_path)
    write(root / "sub", "lib.txt", "edited\n")
    assert_agrees(root)
    assert baton_says(root, "normal") == {"sub"}


def test_a_submodule_with_an_untracked_file_is_modified_and_its_files_are_not_untracked(tmp_path):
    root = with_submodule(tmp_path)
    write(root / "sub", "deep/new.txt")
    assert_agrees(root)
    assert baton_says(root, "all") == {"sub"}


def test_a_submodule_with_a_staged_file_is_modified(tmp_path):
    root = with_submodule(tmp_path)
    write(root / "sub", "added.txt")
    git(root / "sub", "add", "added.txt")
    assert_agrees(root)
    assert baton_says(root, "normal") == {"sub"}


def test_a_submodule_not_initialised_is_clean(tmp_path):
    root = with_submodule(tmp_path)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(root), str(clone))  # no --recurse-submodules: ``sub`` is an empty folder
    assert (clone / "sub").is_dir() and not any((clone / "sub").iterdir())
    assert_agrees(clone)
    assert git_status.is_dirty(clone) is False


def test_a_submodule_whose_folder_is_gone_is_deleted(tmp_path):
    root = with_submodule(tmp_path)
    shutil.rmtree(root / "sub")
    assert_agrees(root)
    assert status_groups(root).deleted == ("sub",)


def test_an_edit_in_a_nested_submodule_makes_its_parent_submodule_modified(tmp_path):
    root = with_submodule(tmp_path)
    (tmp_path / "elsewhere").mkdir()
    inner = with_submodule(tmp_path / "elsewhere")  # a repository with a submodule of its own
    sub = root / "sub"
    git(sub, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner), "inner")
    git(sub, "commit", "-q", "-m", "inner")
    git(root, "commit", "-q", "-am", "sub moved")
    git(sub / "inner", "-c", "protocol.file.allow=always", "submodule", "update", "-q", "--init")
    assert git_status.is_dirty(root) is False
    write(sub / "inner" / "sub", "lib.txt", "edited deep down\n")
    assert_agrees(root)
    assert baton_says(root, "normal") == {"sub"}


@pytest.mark.parametrize(("where", "value", "dirty"), [
    ("config", "all", False), ("config", "dirty", False), ("config", "untracked", False),
    ("gitmodules", "dirty", False), ("diff", "untracked", False), ("diff", "none", True),
])
def test_an_ignore_setting_for_a_submodule_with_untracked_content_is_read_as_git_reads_it(
        tmp_path, where, value, dirty):
    root = with_submodule(tmp_path)
    write(root / "sub", "new.txt")
    if where == "config":
        git(root, "config", "submodule.sub.ignore", value)
    elif where == "gitmodules":
        git(root, "config", "-f", ".gitmodules", "submodule.sub.ignore", value)
        git(root, "commit", "-q", "-am", "ignore")
    else:
        git(root, "config", "diff.ignoreSubmodules", value)
    assert_agrees(root)
    assert git_status.is_dirty(root) is dirty


def test_the_repository_config_s_ignore_wins_over_gitmodules(tmp_path):
    root = with_submodule(tmp_path)
    write(root / "sub", "lib.txt", "edited\n")
    git(root, "config", "-f", ".gitmodules", "submodule.sub.ignore", "all")
    git(root, "commit", "-q", "-am", "ignore all")
    git(root, "config", "submodule.sub.ignore", "none")
    assert_agrees(root)
    assert baton_says(root, "normal") == {"sub"}


def test_a_modified_submodule_is_a_modified_path_for_prepare(tmp_path):
    root = with_submodule(tmp_path)
    write(root / "sub", "lib.txt", "edited\n")
    write(root / "sub", "loose.txt")
    groups = status_groups(root)
    assert (groups.modified, groups.untracked) == (("sub",), ())


# -- core.ignorecase (set by git on macOS and Windows; set here on a case-sensitive disk) ------

def ignoring_case(tmp_path: Path) -> Path:
    root = repo(tmp_path, {"README.md": "r\n", "Src/a.py": "a\n", "Src/b.py": "b\n", ".gitignore": "*.LOG\n"})
    git(root, "config", "core.ignorecase", "true")
    return root


def test_under_ignorecase_a_file_renamed_in_case_only_is_deleted_and_not_untracked(tmp_path):
    root = ignoring_case(tmp_path)
    os.rename(root / "README.md", root / "readme.md")
    assert_agrees(root)
    assert baton_says(root, "all") == {"README.md"}


def test_under_ignorecase_a_second_file_differing_only_in_case_is_not_untracked(tmp_path):
    root = ignoring_case(tmp_path)
    write(root, "readme.MD", "another\n")
    assert_agrees(root)
    assert git_status.is_dirty(root) is False


def test_under_ignorecase_a_folder_renamed_in_case_is_walked_as_a_tracked_folder(tmp_path):
    root = ignoring_case(tmp_path)
    os.rename(root / "Src", root / "src")
    write(root, "src/new.py")
    assert_agrees(root)
    assert baton_says(root, "normal") == {"Src/a.py", "Src/b.py", "src/new.py"}


def test_under_ignorecase_an_ignore_rule_matches_any_case(tmp_path):
    root = ignoring_case(tmp_path)
    write(root, "server.log")
    assert_agrees(root)
    assert git_status.is_dirty(root) is False


def test_without_ignorecase_a_name_differing_in_case_is_untracked(tmp_path):
    root = ignoring_case(tmp_path)
    git(root, "config", "core.ignorecase", "false")
    write(root, "readme.MD", "another\n")
    assert_agrees(root)
    assert baton_says(root, "all") == {"readme.MD"}


# -- a crowded untracked folder: listed once, with its count (``handoff prepare``'s bound) --------

def git_counts_untracked_under(root: Path, folder: str) -> int:
    return sum(1 for p in git_says(root, "all") if p.startswith(folder))


def test_an_untracked_folder_over_the_limit_is_listed_once_with_its_count(tmp_path):
    root = repo(tmp_path, {".gitignore": "*.o\n", "a.txt": "a\n"})
    for i in range(5):
        write(root, f"build/deep/f{i}.txt")
    write(root, "build/skipped.o")
    write(root, "loose.txt")
    found = git_status.status(root, "all", folder_limit=3)
    assert found is not None
    assert set(found.untracked) == {"build/", "loose.txt"} == git_says(root, "normal")
    assert found.crowded == (git_status.Crowded("build/", git_counts_untracked_under(root, "build/"), False),)


def test_an_untracked_folder_within_the_limit_is_listed_file_by_file(tmp_path):
    root = repo(tmp_path, {".gitignore": "*.o\n", "a.txt": "a\n"})
    for i in range(3):
        write(root, f"build/deep/f{i}.txt")
    write(root, "build/skipped.o")
    found = git_status.status(root, "all", folder_limit=3)
    assert found is not None
    assert set(found.untracked) == git_says(root, "all") and found.crowded == ()


def test_the_count_of_a_crowded_folder_stops_at_its_cap(tmp_path):
    root = repo(tmp_path, {"a.txt": "a\n"})
    for i in range(10):
        write(root, f"build/f{i}.txt")
    found = git_status.status(root, "all", folder_limit=2, count_cap=4)
    assert found is not None and found.crowded == (git_status.Crowded("build/", 4, True),)


def test_a_tracked_folder_s_untracked_files_are_never_folded(tmp_path):
    root = repo(tmp_path, {"src/a.py": "a\n"})
    for i in range(5):
        write(root, f"src/new{i}.py")
    found = git_status.status(root, "all", folder_limit=2)
    assert found is not None
    assert set(found.untracked) == git_says(root, "all") and found.crowded == ()


def _sha256_repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo256"
    root.mkdir()
    git(root, "init", "-q", "-b", "main", "--object-format=sha256")
    write(root, "a.txt", "a\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    return root


def test_a_sha256_repository_has_no_status_rather_than_a_crash(tmp_path):
    """dulwich reads SHA-1 objects only: a clean SHA-256 repository's tree raised
    ObjectFormatException through every capture (tester team14 F14's neighbour)."""
    root = _sha256_repo(tmp_path)
    assert git_status.is_dirty(root) is None
    assert git_status.status(root) is None
    assert git_status.changed_files(root) == (None, ())


def test_a_capture_in_a_sha256_repository_records_its_state_as_unknown(tmp_path):
    from tests.conftest import run_baton

    root = _sha256_repo(tmp_path)
    assert run_baton("init", cwd=root).returncode == 0
    made = run_baton("checkpoint", "create", "--no-input", "--title", "t", "--objective", "o", "--json", cwd=root)
    assert made.returncode == 0, made.stderr
    import json

    repository = json.loads(made.stdout)["handoff"]["project"]["repository"]
    assert repository.get("dirty") is None and len(repository["head"]) == 64
