"""Who wrote each handoff: every capture records the owner it was made under
(git ``user.email``, else ``user.name``...) as its event's actor, the
``handoffs`` projection keeps it with the capture's writer id, and
``handoff list``, ``status``, the status API and ``handoff show`` name it
and mark the reader's own. ``handoff list --by`` / ``--mine`` filter on it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from baton.app import Baton
from tests.handoff_support import payload
from tests.owner_support import anns_repository
from tests.owner_support import git as _git
from tests.secret_corpus import ALNUM


@pytest.fixture
def repo(project: Path) -> Path:
    return anns_repository(project)


def _capture(root: Path, title: str = "Resumable OAuth callback validation") -> str:
    body = payload()
    body["work"]["title"] = title
    with Baton.open(root) as app:
        return app.capture(body).handoff_id


def _listed(root: Path, **kw) -> list[dict]:
    with Baton.open(root) as app:
        return app.list_handoffs(kind="all", **kw).to_json()["handoffs"]


def test_a_capture_records_the_git_email_it_was_made_under_as_its_owner(repo):
    ident = _capture(repo)
    with Baton.open(repo) as app:
        writer = app.project.writer
        captured = [e for e in app.project.ledger.read_all() if e.stream == f"handoff/{ident}"][0]
    assert captured.actor == "ann@example.com"
    [row] = _listed(repo)
    assert (row["owner"], row["writer"], row["mine"]) == ("ann@example.com", writer, True)


def test_without_a_git_email_the_owner_is_the_git_name(repo):
    _git(repo, "config", "--unset", "user.email")
    _capture(repo)
    assert [r["owner"] for r in _listed(repo)] == ["Ann"]


def test_a_handoff_someone_else_captured_is_not_marked_mine(repo):
    _capture(repo)
    _git(repo, "config", "user.email", "bob@example.com")
    [row] = _listed(repo)
    assert row["owner"] == "ann@example.com" and row["mine"] is False


def test_an_owner_holding_a_secret_is_screened_before_it_is_recorded(repo):
    token = "ghp_" + (ALNUM * 2)[:36]
    _git(repo, "config", "--unset", "user.email")
    _git(repo, "config", "user.name", token)
    _capture(repo)
    ledger = b"".join(p.read_bytes() for p in (repo / ".baton" / "ledger").glob("*.jsonl"))
    assert token.encode() not in ledger
    assert [r["owner"] for r in _listed(repo)] == ["[REDACTED:github-token]"]


def test_list_by_an_owner_keeps_only_the_handoffs_captured_under_it(repo):
    ann = _capture(repo, "Ann's work")
    _git(repo, "config", "user.email", "bob@example.com")
    bob = _capture(repo, "Bob's work")
    assert [r["id"] for r in _listed(repo, by="ann@example.com")] == [ann]
    assert [r["id"] for r in _listed(repo, by="bob@example.com")] == [bob]
    assert [r["id"] for r in _listed(repo, mine=True)] == [bob]
    assert _listed(repo, by="carol@example.com") == []


def test_list_by_a_writer_id_keeps_that_feeds_handoffs(repo):
    ident = _capture(repo)
    with Baton.open(repo) as app:
        writer = app.project.writer
    assert [r["id"] for r in _listed(repo, by=writer)] == [ident]


def test_the_text_list_names_each_writer_and_marks_the_readers_own(repo, capsys):
    from baton.cli import main

    _capture(repo, "Ann's work")
    _git(repo, "config", "user.email", "bob@example.com")
    _capture(repo, "Bob's work")
    assert main(["handoff", "list", "--project", str(repo)]) == 0
    lines = capsys.readouterr().out.splitlines()
    bob_line = next(line for line in lines if "Bob's work" in line)
    ann_line = next(line for line in lines if "Ann's work" in line)
    assert "bob@example.com (you)" in bob_line
    assert "ann@example.com" in ann_line and "(you)" not in ann_line


def test_list_mine_and_by_together_are_refused_with_a_usage_error(repo, capsys):
    from baton.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["handoff", "list", "--mine", "--by", "x@example.com", "--project", str(repo)])
    assert exc.value.code == 2


def test_list_by_a_blank_owner_is_refused(repo, capsys):
    from baton.cli import main

    assert main(["handoff", "list", "--by", "  ", "--json", "--project", str(repo)]) == 2
    assert "owner" in capsys.readouterr().out + capsys.readouterr().err


def test_status_names_who_wrote_each_latest_handoff_in_text_and_json(repo, capsys):
    from baton.cli import main

    _capture(repo, "Ann's work")
    assert main(["status", "--json", "--project", str(repo)]) == 0
    [row] = json.loads(capsys.readouterr().out)["latestHandoffs"]
    assert row["owner"] == "ann@example.com" and row["mine"] is True and row["writer"]
    assert main(["status", "--project", str(repo)]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if "Ann's work" in line)
    assert line.split()[-3:] == ["you", "Ann's", "work"]
    _git(repo, "config", "user.email", "bob@example.com")
    assert main(["status", "--project", str(repo)]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if "Ann's work" in line)
    assert line.split()[-3:] == ["ann@example.com", "Ann's", "work"]


def test_a_pending_baton_says_who_left_it(repo):
    from baton.commands.status_page import status_overview

    with Baton.open(repo) as app:
        app.end_session("s1", {"nextSteps": ["carry on"]}, shared=True)
        [item] = status_overview(app.project).to_json()["items"]
    assert item["writtenBy"] == "ann@example.com" and item["mine"] is True and item["writer"]


def test_show_names_who_captured_the_handoff(repo, capsys):
    from baton.cli import main

    ident = _capture(repo)
    assert main(["handoff", "show", ident, "--json", "--project", str(repo)]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["owner"] == "ann@example.com" and shown["mine"] is True and shown["writer"]
    assert "owner" not in shown["handoff"]  # the canonical record is unchanged
    assert main(["handoff", "show", ident, "--format", "md", "--project", str(repo)]) == 0
    assert "- captured by: ann@example.com (you)" in capsys.readouterr().out


def test_a_revision_keeps_its_writer_and_a_corrected_child_is_written_by_whoever_amended(project):
    from tests.app_support import promote_handoff, validate_handoff_command
    from tests.handoff_support import git_init

    git_init(project, {"src/app.py": "x = 1\n"})
    _git(project, "config", "user.email", "ann@example.com")
    ident = _capture(project)
    validate_handoff_command(project, ident)
    promote_handoff(project, ident)
    draft = _capture(project, "A draft")
    _git(project, "config", "user.email", "bob@example.com")
    with Baton.open(project) as app:
        revised = app.amend(draft, changes={"summary": {"current_state": "Revised by Bob"}})
        child = app.amend(ident, changes={"summary": {"current_state": "Amended by Bob"}})
    assert revised.handoff_id == draft and child.handoff_id != ident
    owners = {r["id"]: r["owner"] for r in _listed(project)}
    assert owners == {ident: "ann@example.com", draft: "ann@example.com", child.handoff_id: "bob@example.com"}


def test_a_rebuilt_index_names_the_same_writers(repo):
    _capture(repo)
    before = _listed(repo)
    with Baton.open(repo) as app:
        app.rebuild()
    assert _listed(repo) == before


def test_the_status_text_marks_a_pending_baton_the_reader_left_and_names_who_left_a_shared_one(repo, capsys):
    from baton.cli import main

    with Baton.open(repo) as app:
        app.end_session("s1", {"nextSteps": ["private step"]})
        app.end_session("s2", {"nextSteps": ["shared step"]}, shared=True)
    assert main(["status", "--project", str(repo)]) == 0
    out = capsys.readouterr().out
    assert "ann@example.com on main (you)" in next(line for line in out.splitlines() if "private step" in line)
    assert "shared (you)" in next(line for line in out.splitlines() if "shared step" in line)
    _git(repo, "config", "user.email", "bob@example.com")
    assert main(["status", "--project", str(repo)]) == 0
    out = capsys.readouterr().out
    assert "shared, by ann@example.com" in next(line for line in out.splitlines() if "shared step" in line)
    private = next(line for line in out.splitlines() if "private step" in line)
    assert "ann@example.com on main" in private and "(you)" not in private
