"""An e-mail owner is one person in any letter case everywhere owners are compared
(tester-use16 U5; docs/batons.md, "Who a baton is for"): `handoff list --mine`, `--by` and the
"(you)" mark match the records captured under `alice@example.com` for a reader whose git
`user.email` is `ALICE@Example.com`, as batons and dismissals already do. Any other owner (a
git `user.name`) is compared exactly.
"""

from __future__ import annotations

from tests.app_support import init_project
from tests.cli_support import run, run_json
from tests.owner_support import git


def captured_by_alice(capsys, project):
    """A capture made under ``alice@example.com``; then the clone's e-mail is ``ALICE@Example.com``."""
    git(project, "init", "-q", "-b", "main")
    git(project, "config", "user.email", "alice@example.com")
    git(project, "config", "user.name", "Alice")
    init_project(project)
    ident = run_json(capsys, project, "checkpoint", "create", "--no-input", "--title", "Case", "--objective",
                     "Make the replay test pass")["id"]
    git(project, "config", "user.email", "ALICE@Example.com")
    return ident


def listed_ids(capsys, project, *args: str) -> list[str]:
    return [h["id"] for h in run_json(capsys, project, "handoff", "list", *args)["handoffs"]]


def test_mine_lists_the_records_captured_under_the_same_email_in_another_letter_case(capsys, project_dir):
    ident = captured_by_alice(capsys, project_dir)
    assert listed_ids(capsys, project_dir, "--mine") == [ident]


def test_by_matches_an_email_owner_in_any_letter_case(capsys, project_dir):
    ident = captured_by_alice(capsys, project_dir)
    assert listed_ids(capsys, project_dir, "--by", "alice@EXAMPLE.com") == [ident]


def test_the_you_mark_follows_an_email_owner_in_another_letter_case(capsys, project_dir):
    captured_by_alice(capsys, project_dir)
    [row] = run_json(capsys, project_dir, "handoff", "list")["handoffs"]
    assert row["mine"] is True
    code, out, _ = run(capsys, project_dir, "handoff", "list")
    assert code == 0 and "alice@example.com (you)" in out


def test_by_compares_a_name_owner_exactly(capsys, project_dir):
    git(project_dir, "init", "-q", "-b", "main")
    git(project_dir, "config", "user.name", "Alice")
    init_project(project_dir)
    ident = run_json(capsys, project_dir, "checkpoint", "create", "--no-input", "--title", "Name",
                     "--objective", "Make the replay test pass")["id"]
    rows = run_json(capsys, project_dir, "handoff", "list")["handoffs"]
    owner = rows[0]["owner"]
    assert listed_ids(capsys, project_dir, "--by", owner) == [ident]
    assert listed_ids(capsys, project_dir, "--by", owner.upper()) == []
