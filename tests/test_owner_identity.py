"""The owner a capture is made under and the reader's owner: one lookup
(``identity.project_owner``), screened as the ledger records an event's actor
(``identity.recorded_owner``), read before the ledger lock is taken and only
when an answer needs it — and never kept unscreened under ``.baton/``."""

from __future__ import annotations

from pathlib import Path

import pytest

from baton import gitinfo
from baton.app import Baton
from baton.commands import identity
from baton.ledger.store import Ledger
from tests.app_support import end_session
from tests.handoff_support import payload
from tests.owner_support import anns_repository
from tests.owner_support import git as _git
from tests.secret_corpus import ALNUM

TOKEN = "ghp_" + (ALNUM * 2)[:36]


@pytest.fixture
def repo(project: Path) -> Path:
    return anns_repository(project)


@pytest.fixture
def identity_reads(monkeypatch) -> list[bool]:
    """Each read of git's identity, as whether the ledger lock was held then."""
    depth = [0]
    reads: list[bool] = []
    enter, leave, read = Ledger._enter_lock, Ledger._exit_lock, gitinfo.user_identity

    def entering(self, *args, **kw):
        enter(self, *args, **kw)
        depth[0] += 1

    def leaving(self, *args, **kw):
        depth[0] -= 1
        leave(self, *args, **kw)

    def reading(*args, **kw):
        reads.append(depth[0] > 0)
        return read(*args, **kw)

    monkeypatch.setattr(Ledger, "_enter_lock", entering)
    monkeypatch.setattr(Ledger, "_exit_lock", leaving)
    monkeypatch.setattr(gitinfo, "user_identity", reading)
    return reads


def _capture(root: Path) -> str:
    with Baton.open(root) as app:
        return app.capture(payload()).handoff_id


def test_capture_listing_and_batons_take_the_owner_from_one_lookup(repo, monkeypatch):
    monkeypatch.setattr(identity, "project_owner", lambda opened: "zed@example.com")
    ident = _capture(repo)
    with Baton.open(repo) as app:
        [row] = app.list_handoffs(kind="all").to_json()["handoffs"]
        assert identity.context_of(app.project).owner == "zed@example.com"
        assert app.show(ident).author[1:] == ("zed@example.com", True)
    assert (row["owner"], row["mine"]) == ("zed@example.com", True)


def test_a_capture_reads_the_git_identity_before_it_takes_the_ledger_lock(repo, identity_reads):
    _capture(repo)
    assert identity_reads and not any(identity_reads)


def test_a_baton_left_at_session_end_reads_the_git_identity_before_the_lock(repo, identity_reads):
    end_session(repo, "s-1", {"nextSteps": ["next"]}, owner="bob@example.com", branch="main")
    assert identity_reads and not any(identity_reads)


def test_a_listing_the_caller_does_not_render_reads_no_git_identity(repo, identity_reads):
    _capture(repo)
    identity_reads.clear()
    with Baton.open(repo) as app:
        listed = app.list_handoffs(kind="all")
        again = app.list_handoffs(kind="all")
        assert identity_reads == []
        assert [r["mine"] for r in again.to_json()["handoffs"]] == [True]
    assert len(listed.rows) == 1 and len(identity_reads) == 1


def test_status_overview_reads_the_readers_owner_once(repo, identity_reads):
    end_session(repo, "s-1", {"nextSteps": ["next"]}, branch="main")
    _capture(repo)
    identity_reads.clear()
    with Baton.open(repo) as app:
        overview = app.status_overview()
    assert len(identity_reads) == 1
    assert overview.payload["items"][0]["mine"] is True


def test_mine_and_you_find_captures_made_under_a_secret_like_git_identity(repo):
    _git(repo, "config", "--unset", "user.email")
    _git(repo, "config", "user.name", TOKEN)
    ident = _capture(repo)
    with Baton.open(repo) as app:
        assert [r.id for r in app.list_handoffs(kind="all", mine=True).rows] == [ident]
        assert [r["mine"] for r in app.list_handoffs(kind="all").to_json()["handoffs"]] == [True]
        assert app.show(ident).author[2] is True


def test_no_file_under_baton_holds_a_secret_like_git_identity(repo):
    _git(repo, "config", "--unset", "user.email")
    _git(repo, "config", "user.name", TOKEN)
    _capture(repo)
    with Baton.open(repo) as app:
        app.list_handoffs(kind="all", mine=True).to_json()
        app.status_overview()
    holding = [str(p.relative_to(repo)) for p in (repo / ".baton").rglob("*")
               if p.is_file() and TOKEN.encode() in p.read_bytes()]
    assert holding == []


def test_a_cached_identity_that_holds_a_secret_is_not_trusted_and_removed(repo):
    _git(repo, "config", "user.email", TOKEN)
    cache = repo / ".baton" / "cache" / "identity.json"
    (repo / ".baton" / "cache").mkdir(parents=True, exist_ok=True)
    gitinfo.user_identity(repo, cache)  # as an earlier version cached it, unscreened
    assert TOKEN.encode() in cache.read_bytes()
    with Baton.open(repo) as app:
        assert identity.recorded_owner(app.project) == "[REDACTED:github-token]"
    assert not cache.exists()


def test_a_baton_left_for_another_owner_is_recorded_as_its_capturers(repo):
    left = end_session(repo, "s-1", {"nextSteps": ["next"]}, owner="bob@example.com", branch="main")
    assert left.created is not None and left.created.record.owner == "bob@example.com"
    with Baton.open(repo) as app:
        assert [r.id for r in app.list_handoffs(kind="baton", by="ann@example.com").rows] == [left.created.record.id]
        assert app.list_handoffs(kind="baton", by="bob@example.com").rows == ()
        [row] = app.list_handoffs(kind="baton").to_json()["handoffs"]
    assert (row["owner"], row["mine"]) == ("ann@example.com", True)


def test_status_names_who_left_a_baton_for_another_owner(repo):
    end_session(repo, "s-1", {"nextSteps": ["next"]}, owner="bob@example.com", branch="main")
    with Baton.open(repo) as app:
        text = app.status_overview().render()
    assert "bob@example.com on main, by you" in text


def test_a_forgotten_capture_keeps_the_git_owner_it_was_made_under_as_its_actor(repo):
    """docs/security.md, "What forget cannot reach": forget erases ``data``, not the envelope."""
    ident = _capture(repo)
    with Baton.open(repo) as app:
        assert app.forget(ident, yes=True).done
        [captured] = [e for e in app.project.ledger.read_all() if e.stream == f"handoff/{ident}"
                      and e.type == "handoff.captured"]
    assert (captured.data, captured.actor) == (None, "ann@example.com")
