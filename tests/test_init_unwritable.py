"""``baton init`` where ``.baton/`` cannot be created (a read-only mount, a
folder of another user's): a ``read_only`` error naming the folder (exit 1),
never an internal error.

Tests run as root here, and root ignores ``chmod``: the in-process test makes
creating a folder under the project fail as a read-only mount does (EROFS);
the ``chmod`` test runs only as an ordinary user.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_support import run, run_json


def test_init_on_a_read_only_file_system_is_a_read_only_error_naming_the_folder(capsys, tmp_path, monkeypatch):
    real = Path.mkdir

    def mkdir(self, *args, **kwargs):
        if str(self).startswith(str(tmp_path)):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", mkdir)
    out = run_json(capsys, tmp_path, "init", expect=1)
    assert out["error"]["code"] == "read_only"
    assert f"cannot create {tmp_path / '.baton'}: Read-only file system" in out["error"]["message"]
    code, _, err = run(capsys, tmp_path, "init")
    assert code == 1 and "internal error" not in err
    assert not (tmp_path / ".baton").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores chmod; the EROFS test above covers this")
def test_init_in_a_folder_this_user_cannot_write_is_a_read_only_error(tmp_path):
    tmp_path.chmod(0o555)
    try:
        done = subprocess.run([sys.executable, "-m", "baton", "init", "--project", str(tmp_path)],
                              capture_output=True, text=True, timeout=120)
    finally:
        tmp_path.chmod(0o755)
    assert done.returncode == 1
    assert "cannot create" in done.stderr and "internal error" not in done.stderr


def test_init_inside_a_folder_this_user_cannot_enter_is_a_read_only_error_naming_the_folder(capsys, tmp_path,
                                                                                          monkeypatch):
    closed = tmp_path / "theirs"  # mode 700, another user's: stat() of anything inside it is refused
    closed.mkdir()
    real_stat, real_lstat = os.stat, os.lstat

    def refused(real):
        def stat(path, *args, **kwargs):
            if isinstance(path, (str, os.PathLike)) and str(closed) + os.sep in os.fspath(path):
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(path))
            return real(path, *args, **kwargs)
        return stat

    monkeypatch.setattr(os, "stat", refused(real_stat))
    monkeypatch.setattr(os, "lstat", refused(real_lstat))
    out = run_json(capsys, closed / "sub", "init", expect=1)
    assert out["error"]["code"] == "read_only"
    assert str(closed / "sub") in out["error"]["message"]
    code, _, err = run(capsys, closed / "sub", "init")
    assert code == 1 and "internal error" not in err
