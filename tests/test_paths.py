"""Path containment (spec §10 Artifact/Policy checks, §16): paths stay inside
the project root unless the user configured allowed roots; every malicious
shape is refused with exit 5 and a message naming the path and why."""

from __future__ import annotations

import json
import os
import posixpath
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baton.domain.paths import normalize_project_path, project_path_problem
from baton.errors import PolicyBlock, UnsafePath
from baton.policy import check_path_inside_root

# -- pure normalisation -------------------------------------------------------------

@pytest.mark.parametrize("text,expected", [
    ("src/auth/callback.ts", "src/auth/callback.ts"),
    ("./src//auth/./callback.ts", "src/auth/callback.ts"),
    ("src/auth/", "src/auth"),
    (".", "."),
    ("./", "."),
    ("src/**", "src/**"),
    ("dir with space/ü.txt", "dir with space/ü.txt"),
    ("foo/~bar", "foo/~bar"),
    ("...", "..."),
])
def test_normalize_keeps_plain_project_paths(text, expected):
    assert normalize_project_path(text) == expected


@pytest.mark.parametrize("text,reason", [
    ("../secrets", "parent-reference"),
    ("src/../../etc/passwd", "parent-reference"),
    ("src/..", "parent-reference"),
    ("/etc/passwd", "absolute"),
    ("//server/share", "absolute"),
    ("src/a\x00.txt", "nul-byte"),
    ("src\\..\\..\\etc", "backslash"),
    ("..\\windows", "backslash"),
    ("C:/Windows/system32", "drive-letter"),
    ("c:secret", "drive-letter"),
    ("file:///etc/passwd", "url"),
    ("file:/etc/passwd", "url"),
    ("smb://server/share/x", "url"),
    ("~/.ssh/id_rsa", "home-reference"),
    ("~root/.bashrc", "home-reference"),
    ("src/a\nb", "control-character"),
    ("", "empty"),
])
def test_normalize_refuses_each_malicious_shape(text, reason):
    with pytest.raises(UnsafePath) as caught:
        normalize_project_path(text)
    assert caught.value.reason == reason
    assert caught.value.exit_code == 5
    assert repr(text)[1:-1] in caught.value.message or reason == "nul-byte"


def test_an_unsafe_path_is_a_policy_block():
    with pytest.raises(PolicyBlock):
        normalize_project_path("../x")


def test_project_path_problem_explains_without_raising():
    assert project_path_problem("src/a.py") is None
    assert "'..'" in project_path_problem("../a.py")


def test_a_non_string_path_is_refused():
    with pytest.raises(UnsafePath) as caught:
        normalize_project_path(None)  # type: ignore[arg-type]
    assert caught.value.reason == "not-text"


_PATH_ALPHABET = st.sampled_from(["a", "b", ".", "..", "/", "\\", "~", ":", "C:", "\x00", " ", "\n", "ü", "*"])


@given(st.one_of(st.lists(_PATH_ALPHABET, max_size=12).map("".join), st.text(max_size=30)))
def test_property_normalisation_never_returns_a_path_that_escapes(text):
    try:
        result = normalize_project_path(text)
    except UnsafePath:
        return
    assert not result.startswith("/")
    assert ".." not in result.split("/")
    assert "\\" not in result and "\x00" not in result and not result.startswith("~")
    assert posixpath.normpath(posixpath.join("/root", result)).startswith("/root")
    assert normalize_project_path(result) == result


# -- the file system: symlinks ------------------------------------------------------------

@pytest.fixture
def tree(tmp_path):
    """root/ with real files and symlinks; outside/ next to it."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print()\n")
    outside.mkdir()
    (outside / "secret.txt").write_text("synthetic\n")
    return root, outside


def test_a_plain_path_inside_the_root_is_returned_resolved(tree):
    root, _ = tree
    assert check_path_inside_root(root, "src/app.py") == root.resolve() / "src" / "app.py"


def test_a_missing_path_inside_the_root_is_still_judged_by_where_it_would_be(tree):
    root, _ = tree
    assert check_path_inside_root(root, "src/deleted.py") == root.resolve() / "src" / "deleted.py"


def test_a_parent_escape_is_refused(tree):
    root, _ = tree
    with pytest.raises(UnsafePath) as caught:
        check_path_inside_root(root, "../outside/secret.txt")
    assert caught.value.reason == "parent-reference"
    assert "../outside/secret.txt" in caught.value.message


def test_an_absolute_path_is_refused(tree):
    root, outside = tree
    with pytest.raises(UnsafePath) as caught:
        check_path_inside_root(root, str(outside / "secret.txt"))
    assert caught.value.reason == "absolute"


def test_a_directory_symlink_that_escapes_is_refused(tree):
    root, outside = tree
    (root / "vendor").symlink_to(outside, target_is_directory=True)
    with pytest.raises(UnsafePath) as caught:
        check_path_inside_root(root, "vendor/secret.txt")
    assert caught.value.reason == "symlink-escape"
    assert caught.value.exit_code == 5
    assert "vendor/secret.txt" in caught.value.message and "symlink" in caught.value.message


def test_a_file_symlink_that_escapes_is_refused(tree):
    root, outside = tree
    (root / "src" / "notes.txt").symlink_to(outside / "secret.txt")
    with pytest.raises(UnsafePath) as caught:
        check_path_inside_root(root, "src/notes.txt")
    assert caught.value.reason == "symlink-escape"
    assert caught.value.details["symlink"].endswith("notes.txt")


def test_a_relative_symlink_climbing_out_is_refused(tree):
    root, _ = tree
    (root / "src" / "up").symlink_to("../../outside")
    with pytest.raises(UnsafePath) as caught:
        check_path_inside_root(root, "src/up/secret.txt")
    assert caught.value.reason == "symlink-escape"


def test_a_dangling_symlink_pointing_outside_is_refused(tree):
    root, outside = tree
    (root / "ghost").symlink_to(outside / "not-yet-there")
    with pytest.raises(UnsafePath) as caught:
        check_path_inside_root(root, "ghost")
    assert caught.value.reason == "symlink-escape"


def test_a_symlink_loop_is_refused(tree):
    root, _ = tree
    (root / "loop-a").symlink_to("loop-b")
    (root / "loop-b").symlink_to("loop-a")
    with pytest.raises(UnsafePath) as caught:
        check_path_inside_root(root, "loop-a/file")
    assert caught.value.reason == "symlink-loop"
    assert "loop" in caught.value.message


def test_a_symlink_to_itself_is_a_loop(tree):
    root, _ = tree
    (root / "self").symlink_to("self")
    with pytest.raises(UnsafePath) as caught:
        check_path_inside_root(root, "self")
    assert caught.value.reason == "symlink-loop"


def test_a_symlink_that_stays_inside_the_root_is_allowed(tree):
    root, _ = tree
    (root / "lib").symlink_to("src", target_is_directory=True)
    (root / "main.py").symlink_to("src/app.py")
    assert check_path_inside_root(root, "lib/app.py") == root.resolve() / "src" / "app.py"
    assert check_path_inside_root(root, "main.py") == root.resolve() / "src" / "app.py"


def test_a_symlinked_project_root_is_not_an_escape(tree, tmp_path):
    root, _ = tree
    alias = tmp_path / "alias"
    alias.symlink_to(root, target_is_directory=True)
    assert check_path_inside_root(alias, "src/app.py") == root.resolve() / "src" / "app.py"


def test_an_allowed_root_admits_a_symlink_into_it(tree):
    root, outside = tree
    (root / "shared").symlink_to(outside, target_is_directory=True)
    assert check_path_inside_root(root, "shared/secret.txt", [outside]) == outside.resolve() / "secret.txt"


def test_an_allowed_root_admits_absolute_and_parent_paths_into_it(tree):
    root, outside = tree
    assert check_path_inside_root(root, "../outside/secret.txt", [outside]) == outside.resolve() / "secret.txt"
    assert check_path_inside_root(root, str(outside / "secret.txt"), [outside]) == outside.resolve() / "secret.txt"


def test_an_allowed_root_does_not_admit_anything_else(tree, tmp_path):
    root, outside = tree
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with pytest.raises(UnsafePath) as caught:
        check_path_inside_root(root, "../elsewhere/x", [outside])
    assert caught.value.reason == "outside-root"


def test_allowed_roots_never_admit_backslashes_or_home_references(tree):
    root, outside = tree
    for bad in ("..\\outside\\secret.txt", "~/secret.txt"):
        with pytest.raises(UnsafePath):
            check_path_inside_root(root, bad, [outside])


@pytest.fixture(scope="module")
def link_farm(tmp_path_factory):
    """A fixed tree of links in and out of the root, for the property below."""
    base = tmp_path_factory.mktemp("farm")
    root, outside = base / "root", base / "outside"
    (root / "d" / "e").mkdir(parents=True)
    (root / "d" / "f.txt").write_text("")
    (outside / "o").mkdir(parents=True)
    (root / "in").symlink_to("d")
    (root / "d" / "up").symlink_to("..")
    (root / "out").symlink_to(outside)
    (root / "d" / "back").symlink_to("../../root/d")
    (outside / "o" / "home").symlink_to(root)
    return root, outside


@given(st.lists(st.sampled_from(["d", "e", "f.txt", "in", "up", "out", "back", "o", "home", "..", ".", "x"]),
                min_size=1, max_size=7))
def test_property_a_checked_path_agrees_with_the_kernel_and_never_escapes(link_farm, parts):
    root, outside = link_farm
    rel = "/".join(parts)
    real_root, real_outside = Path(os.path.realpath(root)), Path(os.path.realpath(outside))
    expected = Path(os.path.realpath(root / rel))
    for allowed in ((), (outside,)):
        try:
            got = check_path_inside_root(root, rel, allowed)
        except UnsafePath:
            inside = expected == real_root or real_root in expected.parents
            if not allowed and ".." not in parts:
                assert not inside
            continue
        assert got == expected
        assert any(got == b or b in got.parents for b in (real_root, *[real_outside][:len(allowed)]))


def test_a_file_url_as_an_artifact_is_refused_and_nothing_is_written(capsys, project):
    from tests.cli_support import run

    before = sorted(p.name for p in (project / ".baton" / "ledger").iterdir())
    code, out, _err = run(capsys, project, "checkpoint", "create", "--no-input", "--json", "--title", "t",
                          "--objective", "o", "--artifact", "file:///etc/passwd")
    error = json.loads(out)["error"]
    assert (code, error["code"]) == (5, "unsafe_path") and "URL" in error["message"]
    assert sorted(p.name for p in (project / ".baton" / "ledger").iterdir()) == before
    assert not list((project / ".baton").glob("handoffs/*.json"))


@pytest.mark.parametrize(("text", "reason"), [
    ("src/\x7fapp.py", "control-character"), ("src/\x1fapp.py", "control-character"),
    ("src/\u200bapp.py", None),  # not printable, but no control character
    ("C:app.py", "drive-letter"), ("c:/app.py", "drive-letter"), ("src/c:app.py", None),
    ("file:///etc/passwd", "url"), ("smb://host/share", "url"), ("notes:/x", "url"), ("a/b:/c", None),
])
def test_each_textual_hazard_is_found_as_its_pattern_finds_it(text, reason):
    """``lexical_problem`` asks each hazard's pattern only when a plain string test says it may
    match (so a steady start compiles none of them): the hazards found are the patterns' own."""
    from baton.domain.paths import lexical_problem

    found = lexical_problem(text)
    assert (found[0] if found else None) == reason
