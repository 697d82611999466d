"""A hook's work that must not be lost (its ``Deferral``: a session's end, the
draft before a compaction) is given to its own reading and writing steps,
never set on the project: two callers of one long-lived project (the MCP
server's tools, the hook server) cannot keep, or lose, each other's work.
In process: the background catch-up is not started (``start_catch_up``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from baton import background
from baton.app import Baton, Limits
from baton.commands import deferred, harness_finish
from baton.errors import IndexBehind, LedgerBusy
from tests.app_support import promote_handoff, validate_handoff_command
from tests.background_support import kept_hooks
from tests.handoff_support import git_init, payload

FAR_BEHIND = Limits(fold_limit=1)  # one byte: any catch-up is past it


@pytest.fixture
def behind(project, monkeypatch):
    """A project with a ready handoff whose index is lost (a full replay, past
    ``FAR_BEHIND``), where no background catch-up is started."""
    git_init(project, {"src/app.py": "x = 1\n"})
    with Baton.open(project) as app:
        handoff_id = app.capture(payload(), session="s-work").handoff_id
    validate_handoff_command(project, handoff_id)
    promote_handoff(project, handoff_id, accept_warnings="tests")
    for path in (project / ".baton").glob("index.sqlite*"):
        path.unlink()
    monkeypatch.setattr(background, "start_catch_up", lambda root, baton_dir: (4242, None))
    return project


def test_the_project_has_no_deferral_a_caller_could_set(project):
    with Baton.open(project) as app:
        assert not hasattr(app.project, "deferral")


def test_a_read_by_another_caller_while_a_hook_runs_keeps_nothing_of_the_hooks(behind: Path, monkeypatch):
    """The MCP server's tool reading the shared project, far behind, while a
    session end runs on it: its catch-up is handed on, and the session end is
    not kept by it; the session end, far behind in turn, keeps itself."""
    seen: list[IndexBehind] = []
    real = harness_finish.finish_session

    def finish_session(opened, *args, **kwargs):
        with pytest.raises(IndexBehind) as other:
            opened.reading()  # another caller of the same project, meanwhile
        seen.append(other.value)
        assert kept_hooks(behind) == []
        return real(opened, *args, **kwargs)

    monkeypatch.setattr(harness_finish, "finish_session", finish_session)
    with Baton.open(behind, limits=FAR_BEHIND) as app:
        with pytest.raises(IndexBehind) as ended:
            app.finish_harness_session("s-work", harness="claude-code", event="SessionEnd")
        [kept] = deferred.pending(app.project.paths)
    [other] = seen
    assert other.details["deferred"] is None and other.details["background_pid"] == 4242
    assert ended.value.details["deferred"] == kept.name and kept.kind == deferred.SESSION_END


def test_a_compaction_far_behind_keeps_itself_from_its_first_reading(behind: Path):
    with Baton.open(behind, limits=FAR_BEHIND) as app:
        with pytest.raises(IndexBehind) as held:
            app.prepare_for_compaction("s-work", harness="claude-code", trigger="auto", event="PreCompact")
        [kept] = deferred.pending(app.project.paths)
    assert held.value.details["deferred"] == kept.name and kept.kind == deferred.PRE_COMPACT


def test_a_session_end_that_is_not_a_hooks_keeps_nothing_far_behind(behind: Path):
    with Baton.open(behind, limits=FAR_BEHIND) as app:
        with pytest.raises(IndexBehind) as held:
            app.finish_harness_session("s-work", harness="claude-code")  # no ``event``: not a hook
    assert held.value.details["deferred"] is None and kept_hooks(behind) == []


def test_a_lock_held_past_the_wait_is_kept_only_for_the_step_given_a_deferral(project, monkeypatch):
    started: list[tuple] = []
    monkeypatch.setattr(background, "start_catch_up", lambda root, baton_dir: started.append((root, baton_dir))
                        or (4242, None))
    kept: list[str] = []
    busy = LedgerBusy("the ledger stayed locked by another process for 1 s")
    with Baton.open(project) as app:
        assert app.project.busy(busy) is busy  # a command's step: as it is
        assert app.project.busy(busy, lambda: None) is busy  # nothing could be kept: as it is too
        assert started == []
        said = app.project.busy(busy, lambda: kept.append("s-work") or "s-work")
        assert said is not busy and isinstance(said, LedgerBusy)
        assert said.details["deferred"] == "s-work" and said.details["background_pid"] == 4242
        assert "a process of its own (pid 4242) waits for it" in said.message
        assert kept == ["s-work"] and started == [(app.project.root, app.project.paths.baton_folder)]
        assert app.project.busy(busy) is busy  # the next step, given none: nothing kept, nothing started
    assert kept == ["s-work"] and len(started) == 1
