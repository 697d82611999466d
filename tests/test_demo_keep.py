"""``baton demo --keep DIR``: a DIR the demo cannot build in is an input error, not an internal one."""

from __future__ import annotations

from tests.cli_support import run


def test_demo_keep_naming_a_file_is_an_input_error(tmp_path, capsys):
    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine\n")
    code, out, err = run(capsys, tmp_path, "demo", "--keep", str(a_file))
    assert code == 2, err
    assert "it is a file, not a directory" in err and "internal error" not in err
    assert a_file.read_text() == "mine\n"


def test_demo_keep_under_a_file_is_an_input_error_saying_it_cannot_create_the_directory(tmp_path, capsys):
    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine\n")
    code, out, err = run(capsys, tmp_path, "demo", "--keep", str(a_file / "demo"))
    assert code == 2, err
    assert "cannot create the directory" in err and "internal error" not in err


def test_demo_keep_inside_a_folder_the_user_cannot_enter_is_an_input_error(tmp_path, capsys, monkeypatch):
    import errno
    import pathlib

    closed = tmp_path / "theirs"  # mode 700, owned by someone else: stat() of anything inside is refused
    closed.mkdir()
    real_stat = pathlib.Path.stat

    def stat(self, *args, **kwargs):
        if self != closed and closed in self.parents:
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real_stat(self, *args, **kwargs)

    monkeypatch.setattr(pathlib.Path, "stat", stat)
    code, out, err = run(capsys, tmp_path, "demo", "--keep", str(closed / "demo"))
    assert code == 2, err
    assert "Permission denied" in err and "internal error" not in err


def test_demo_keep_naming_an_empty_folder_on_a_read_only_mount_is_an_input_error(tmp_path, capsys, monkeypatch):
    import builtins
    import errno
    import io
    import os

    mounted = tmp_path / "ro"  # exists and is empty; every write inside it fails as on `mount -o ro`
    mounted.mkdir()
    real_open = io.open

    def read_only_open(file, mode="r", *args, **kwargs):
        inside = isinstance(file, (str, os.PathLike)) and str(mounted) in os.path.abspath(os.fspath(file))
        if inside and any(flag in mode for flag in "wax+"):
            raise OSError(errno.EROFS, "Read-only file system", os.fspath(file))
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(io, "open", read_only_open)
    monkeypatch.setattr(builtins, "open", read_only_open)
    code, out, err = run(capsys, tmp_path, "demo", "--keep", str(mounted))
    assert code == 2, err
    assert "Read-only file system" in err and "internal error" not in err
    assert list(mounted.iterdir()) == []
