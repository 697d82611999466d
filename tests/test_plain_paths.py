"""The hook path's paths are strings (``os.path``, no ``pathlib``): ``baton.gitinfo``'s
helpers spell, resolve, climb and compare them exactly as ``pathlib`` would, so that every
message, record and cache key reads as it did when they were ``Path`` objects."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baton.gitinfo import inside, parents_of, plain_path, real_path
from baton.project import ProjectPaths

_PARTS = st.sampled_from(["a", "b", ".", "..", "", "x.y", ".git", "  ", "é"])
_TEXTS = st.lists(_PARTS, max_size=6).map("/".join) | st.lists(_PARTS, min_size=1, max_size=6).map(
    lambda parts: "/" + "/".join(parts)) | st.lists(_PARTS, max_size=4).map(lambda parts: "//" + "/".join(parts))


@given(_TEXTS)
def test_a_path_is_spelled_as_pathlib_spells_it(text):
    assert plain_path(text) == str(PurePosixPath(text))


@given(_TEXTS)
def test_the_folders_above_an_absolute_path_are_pathlibs_parents(text):
    spelled = plain_path("/" + text.lstrip("/"))
    assert parents_of(spelled) == [str(p) for p in PurePosixPath(spelled).parents]


@given(_TEXTS, _TEXTS)
def test_a_path_is_inside_a_folder_as_pathlib_says(one, other):
    path, folder = plain_path("/" + one.lstrip("/")), plain_path("/" + other.lstrip("/"))
    assert inside(path, folder) == PurePosixPath(path).is_relative_to(folder)


def test_a_path_is_resolved_as_pathlib_resolves_it(tmp_path, monkeypatch):
    (tmp_path / "real" / "deep").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    monkeypatch.chdir(tmp_path)
    for named in ("link/deep", "link/../link/deep/.", str(tmp_path / "link" / "gone" / ".."), "", "real//deep/"):
        assert real_path(named) == str(Path(named).resolve())


def test_a_loop_of_links_is_refused_as_pathlib_refuses_it(tmp_path):
    (tmp_path / "one").symlink_to(tmp_path / "two")
    (tmp_path / "two").symlink_to(tmp_path / "one")
    with pytest.raises(RuntimeError):
        Path(tmp_path / "one").resolve()
    with pytest.raises(RuntimeError):
        real_path(tmp_path / "one")


@given(_TEXTS)
def test_a_projects_files_are_named_as_pathlib_named_them(text):
    root = "/" + text.lstrip("/")
    paths, baton = ProjectPaths(root), Path(root) / ".baton"
    assert paths.root_folder == str(Path(root)) and paths.worktree_folder == str(Path(root))
    assert [paths.baton_folder, paths.config_file, paths.local_file, paths.policy_file, paths.ledger_folder,
            paths.handoffs_folder, paths.batons_folder, paths.index_file, paths.cache_folder, paths.deferred_folder] \
        == [str(baton / name) for name in (".", "config.json", "local.json", "policy.json", "ledger", "handoffs",
                                           "batons", "index.sqlite", "cache", "deferred")]
    assert [paths.baton_dir, paths.config, paths.ledger_dir, paths.index] \
        == [baton, baton / "config.json", baton / "ledger", baton / "index.sqlite"]
