"""``--project`` (or ``$BATON_PROJECT``) naming a linked worktree opens the
shared project — the main worktree's ``.baton/`` — even when
``.baton/config.json`` is committed, so the worktree checks out its own copy.

Built with dulwich only; commands run from an unrelated directory.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dulwich import porcelain

from tests.conftest import run_baton
from tests.handoff_support import git_commit, git_init

OWNER = "alice@example.com"


def cli(*args: str, cwd: Path, env: dict | None = None, expect: int = 0):
    r = run_baton(*args, "--json", cwd=cwd, env=env)
    assert r.returncode == expect, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr
    return json.loads(r.stdout)


@pytest.fixture
def committed(tmp_path):
    """A project whose .baton/config.json is committed, with a checkpoint, and a
    linked worktree ``wt`` added after that commit."""
    main = tmp_path / "main"
    main.mkdir()
    git_init(main, {"src/app.py": "app\n"})
    (main / ".git" / "config").write_text(
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n[user]\n\temail = " + OWNER + "\n")
    cli("init", cwd=main)
    hid = cli("checkpoint", "create", "--no-input", "--title", "Shared work", "--objective", "it works",
              "--artifact", "src/app.py", "--completed", "started", "--current-state", "half done",
              cwd=main)["id"]
    git_commit(main, {".baton/config.json": (main / ".baton" / "config.json").read_text()},
               message="commit baton config")
    porcelain.branch_create(str(main), "b")
    porcelain.worktree_add(str(main), str(tmp_path / "wt"), branch="b")
    wt = (tmp_path / "wt").resolve()
    assert (wt / ".baton" / "config.json").exists()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    return main.resolve(), wt, elsewhere, hid


def test_project_flag_naming_a_linked_worktree_with_committed_config_opens_the_shared_project(committed):
    main, wt, elsewhere, hid = committed
    rows = cli("handoff", "list", "--project", str(wt), cwd=elsewhere)["handoffs"]
    assert [r["id"] for r in rows] == [hid]


def test_baton_project_naming_a_linked_worktree_with_committed_config_opens_the_shared_project(committed):
    main, wt, elsewhere, hid = committed
    rows = cli("handoff", "list", env={"BATON_PROJECT": str(wt)}, cwd=elsewhere)["handoffs"]
    assert [r["id"] for r in rows] == [hid]


def test_a_read_only_command_naming_a_linked_worktree_creates_nothing_in_it(committed):
    main, wt, elsewhere, hid = committed
    cli("handoff", "list", "--project", str(wt), cwd=elsewhere)
    assert sorted(p.name for p in (wt / ".baton").iterdir()) == ["config.json"]


def test_project_flag_and_cwd_in_the_linked_worktree_see_the_same_handoffs(committed):
    main, wt, elsewhere, hid = committed
    from_inside = cli("handoff", "list", cwd=wt)["handoffs"]
    named = cli("handoff", "list", "--project", str(wt), cwd=elsewhere)["handoffs"]
    assert [r["id"] for r in named] == [r["id"] for r in from_inside] == [hid]
