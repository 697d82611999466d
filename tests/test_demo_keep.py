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
