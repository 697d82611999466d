"""What a session start says of a project it was told to open that is none
(``baton.harnesses.hook.no_project_named``): a directory without ``.baton/``,
or no directory at all. Asked of the file system with ``os.path.isdir`` (the
prompt hook's module imports no ``pathlib``), as ``Path.is_dir`` answered, but
for a name too long for the OS, on which ``Path.is_dir`` raised (the start
answered "internal error")."""

from __future__ import annotations

import os

import pytest

from baton.harnesses.hook import no_project_named

A_DIRECTORY = "a Baton project (it has no `.baton/`)"


@pytest.mark.parametrize("name", ["with spaces", "ünïcødé 名前", "trailing-slash/"])
def test_an_odd_directory_name_is_named_a_directory_without_baton(tmp_path, name):
    folder = tmp_path / name.rstrip("/")
    folder.mkdir()
    said = no_project_named(str(tmp_path) + os.sep + name)
    assert A_DIRECTORY in said


def test_the_file_system_root_is_a_directory(tmp_path):
    assert A_DIRECTORY in no_project_named("/")


def test_a_symlink_to_a_directory_is_a_directory(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert A_DIRECTORY in no_project_named(str(tmp_path / "link"))


@pytest.mark.parametrize("name", ["missing", "a-file", "dangling", "nul\0byte", "x" * 5000])
def test_a_missing_file_dangling_or_unnameable_path_is_not_a_directory(tmp_path, name):
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    said = no_project_named(str(tmp_path) + os.sep + name)
    assert "which is not a directory" in said
