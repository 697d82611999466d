"""A teammate's archive of your handoff, brought by ``baton sync``, is told (tester-team24 T3;
docs/sync.md, "A teammate archived your handoff"): once, at the next session start, naming who
archived it, when, the reason, and ``baton handoff show ID``; ``baton sync`` names it as it arrives,
``baton status`` shows it until a brief tells it, and ``resume latest`` says why nothing is ready.
An archive made apart that sorts after a ``ready`` made apart is told the same way, and a resume
made apart on a record archived on the other clone is named in a CONFLICT line.

Two clones of a real bare remote: Carol (``a``) captures, Bob (``b``) archives.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from baton.commands.bootstrap import read_told, spend_shown
from baton.commands.context import Project
from tests.cli_support import ledger_size, run, run_json
from tests.sync_support import writer_of as writer
from tests.test_sync_archive_apart import capture, ready, shared
from tests.test_sync_baton_owners import as_user

CAROL, BOB = "carol@example.com", "bob@example.com"


def team(capsys, tmp_path: Path, *, made_ready: bool = True) -> tuple[Path, Path, str]:
    """Carol captures a handoff (made ready, or a draft) on ``a``; both clones sync it."""
    return shared(capsys, tmp_path, made_ready=made_ready, users=(CAROL, BOB))


def bob_archives(capsys, a: Path, b: Path, ident: str) -> str:
    """Bob archives Carol's handoff and syncs; Carol syncs: what her sync said (text)."""
    run_json(capsys, b, "handoff", "archive", ident, "--reason", "stale", "--not-mine")
    run_json(capsys, b, "sync")
    code, out, err = run(capsys, a, "sync")
    assert code == 0, err
    return out


def test_the_owner_is_told_once_at_the_next_start_that_a_teammate_archived_their_ready_handoff(capsys, tmp_path):
    a, b, ident = team(capsys, tmp_path)
    bob_archives(capsys, a, b, ident)
    brief = run_json(capsys, a, "bootstrap")["brief"]
    assert (f"ARCHIVED: your handoff {ident} (ready here until then) was archived by writer {writer(b)} "
            f"({BOB}, as claimed) at " in brief)
    assert "(reason: stale)" in brief and f"`baton handoff show {ident}` reads it" in brief
    assert "ARCHIVED" not in run_json(capsys, a, "bootstrap")["brief"]


def test_the_sync_that_brings_a_teammates_archive_names_it(capsys, tmp_path):
    a, b, ident = team(capsys, tmp_path)
    told = bob_archives(capsys, a, b, ident)
    assert f"ARCHIVED: your handoff {ident} (ready here until then) was archived by writer {writer(b)}" in told


def test_status_shows_a_teammates_archive_until_a_brief_tells_it(capsys, tmp_path):
    a, b, ident = team(capsys, tmp_path)
    bob_archives(capsys, a, b, ident)
    (line,) = run_json(capsys, a, "status")["archivedByTeammates"]
    assert line.startswith(f"ARCHIVED: your handoff {ident}")
    assert "forgottenByTeammates" not in run_json(capsys, a, "status")
    run_json(capsys, a, "bootstrap")
    assert "archivedByTeammates" not in run_json(capsys, a, "status")


def test_resume_latest_says_the_newest_ready_handoff_was_archived_by_a_teammate(capsys, tmp_path):
    a, b, ident = team(capsys, tmp_path)
    bob_archives(capsys, a, b, ident)
    code, out, _ = run(capsys, a, "resume", "latest", "--json")
    assert code != 0
    message = json.loads(out)["error"]["message"]
    assert (f"the newest handoff made ready, {ident}, was archived by writer {writer(b)} ({BOB}, as claimed)"
            in message)
    assert "(reason: stale)" in message and f"`baton handoff show {ident}` reads it" in message


def test_the_clone_that_archived_is_told_nothing_of_its_own_archive(capsys, tmp_path):
    a, b, ident = team(capsys, tmp_path)
    bob_archives(capsys, a, b, ident)
    assert "ARCHIVED" not in run(capsys, b, "sync")[1]
    assert "ARCHIVED" not in run_json(capsys, b, "bootstrap")["brief"]


def test_a_teammates_archive_of_someone_elses_handoff_is_not_told_to_you(capsys, tmp_path):
    a, b, ident = team(capsys, tmp_path)
    as_user(a, "dave@example.com")  # the clone that syncs it is Dave's: not his handoff
    bob_archives(capsys, a, b, ident)
    assert "ARCHIVED" not in run_json(capsys, a, "bootstrap")["brief"]


def test_an_archive_made_apart_sorting_after_a_ready_made_apart_is_told_to_who_made_it_ready(capsys, tmp_path):
    a, b, ident = team(capsys, tmp_path, made_ready=False)
    ready(capsys, a, ident)  # Carol makes it ready; Bob, apart, archives the draft he read
    run_json(capsys, b, "handoff", "archive", ident, "--reason", "stale", "--not-mine")
    run(capsys, a, "sync")
    run(capsys, b, "sync")
    told = run(capsys, a, "sync")[1]
    held = run_json(capsys, a, "handoff", "show", ident)["handoff"]
    assert held["status"] == "archived" and "conflicted" in held["flags"]
    (edit,) = held["concurrent_edits"]
    assert (edit["action"], edit["outcome"], edit["writer"]) == ("promoted", "archived_over", writer(a))
    assert f"CONFLICT handoff {ident[-8:]}: {CAROL} (writer {writer(a)})'s promotion to ready" in told
    assert "was archived over" in told
    brief = run_json(capsys, a, "bootstrap")["brief"]
    assert f"ARCHIVED: your handoff {ident} (ready here until then) was archived by writer {writer(b)}" in brief


def test_a_resume_made_apart_on_a_record_archived_on_the_other_clone_is_named_not_applied(capsys, tmp_path):
    a, b, ident = team(capsys, tmp_path)
    run_json(capsys, b, "handoff", "archive", ident, "--reason", "stale", "--not-mine")
    run_json(capsys, a, "resume", ident, "--mark-resumed")  # apart: Carol's clone has not the archive
    run(capsys, b, "sync")
    told_a = run(capsys, a, "sync")[1]
    told_b = run(capsys, b, "sync")[1]
    held = run_json(capsys, a, "handoff", "show", ident)["handoff"]
    assert held == run_json(capsys, b, "handoff", "show", ident)["handoff"]
    assert held["status"] == "archived"
    (edit,) = held["concurrent_edits"]
    assert (edit["action"], edit["outcome"]) == ("resumed", "not_applied")
    line = (f"(writer {writer(a)})'s resume ({edit['at']}, event {edit['event']}) was not applied: {BOB} "
            f"(writer {writer(b)}) archived it on another clone, and the archive stands")
    assert line in told_a and line in told_b


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_the_mcp_tools_say_what_the_cli_says_of_a_teammates_archive(capsys, tmp_path):
    from mcp import Client

    from baton.mcp_server import build_server

    a, b, ident = team(capsys, tmp_path)
    bob_archives(capsys, a, b, ident)
    said = f"ARCHIVED: your handoff {ident} (ready here until then) was archived by writer {writer(b)}"
    async with Client(build_server(a)) as client:
        status = await client.call_tool("baton_status", {})
        resumed = await client.call_tool("handoff_resume", {"id": "latest"})
        brief = await client.call_tool("bootstrap", {"session_id": "m-1"})
    (line,) = status.structured_content["archived_by_teammates"]
    assert line.startswith(said)
    assert resumed.is_error and f"the newest handoff made ready, {ident}, was archived by writer {writer(b)}" \
        in resumed.structured_content["error"]["message"]
    assert said in brief.structured_content["brief"]


def test_archiving_a_ready_handoff_a_teammate_captured_is_refused_and_writes_nothing(capsys, tmp_path):
    _a, b, ident = team(capsys, tmp_path)
    before = ledger_size(b)
    code, out, _ = run(capsys, b, "handoff", "archive", ident, "--reason", "stale", "--json")
    assert code == 4
    error = json.loads(out)["error"]
    assert error["code"] == "handoff_not_yours"
    assert (f"handoff {ident} was captured by {CAROL}: not yours ({BOB}) to archive" in error["message"]
            and "--not-mine" in error["message"])
    assert ledger_size(b) == before
    assert run_json(capsys, b, "handoff", "show", ident)["handoff"]["status"] == "ready"


def test_a_handoff_a_teammate_captured_and_you_resumed_is_yours_to_archive(capsys, tmp_path):
    _a, b, ident = team(capsys, tmp_path)
    run_json(capsys, b, "resume", ident, "--mark-resumed")
    assert run_json(capsys, b, "handoff", "archive", ident)["status"] == "archived"


def test_your_own_archive_made_on_another_clone_is_not_told_as_a_teammates(capsys, tmp_path):
    a, b, ident = shared(capsys, tmp_path, made_ready=True, users=(CAROL, CAROL))  # Carol's second clone
    told = bob_archives(capsys, a, b, ident)
    assert "ARCHIVED" not in told
    assert "archivedByTeammates" not in run_json(capsys, a, "status")
    assert "ARCHIVED" not in run_json(capsys, a, "bootstrap", "--peek")["brief"]


def test_an_archive_reason_over_the_limit_is_refused_and_writes_nothing(capsys, tmp_path):
    _a, b, ident = team(capsys, tmp_path)
    before = ledger_size(b)
    code, out, _ = run(capsys, b, "handoff", "archive", ident, "--not-mine", "--reason", "q" * 30000, "--json")
    assert code == 2
    error = json.loads(out)["error"]
    assert "reason is 30000 characters; the limit is 500" in error["message"]
    assert ledger_size(b) == before


def _two_archives(capsys, tmp_path: Path) -> tuple[Path, str]:
    """Bob archives two of Carol's handoffs, the second one first, with a long reason: Carol's clone, and
    the first handoff."""
    a, b, first = team(capsys, tmp_path)
    second = capture(capsys, a, "more state")
    ready(capsys, a, second)
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    run_json(capsys, b, "handoff", "archive", second, "--reason", "r" * 500, "--not-mine")
    bob_archives(capsys, a, b, first)
    return a, first


def test_the_brief_with_archive_notices_stays_within_its_byte_budget(capsys, tmp_path):
    a, _ = _two_archives(capsys, tmp_path)
    out = run_json(capsys, a, "bootstrap", "--peek", "--max-bytes", "1024")
    assert out["bytes"] == len(out["brief"].encode()) <= 1024
    assert "ARCHIVED: your handoff" in out["brief"]


def test_a_long_reason_recorded_before_the_limit_is_shortened_wherever_it_is_told(capsys, tmp_path, monkeypatch):
    a, b, ident = team(capsys, tmp_path)
    monkeypatch.setattr("baton.commands.amend.check_reason", lambda _reason: None)  # as an older Baton recorded it
    run_json(capsys, b, "handoff", "archive", ident, "--reason", "q" * 30000, "--not-mine")
    run_json(capsys, b, "sync")
    code, told, err = run(capsys, a, "sync")
    assert code == 0, err
    assert f"(reason: {'q' * 500}…)" in told and "q" * 501 not in told
    (line,) = run_json(capsys, a, "status")["archivedByTeammates"]
    assert f"(reason: {'q' * 500}…)" in line and len(line) < 1000
    out = run_json(capsys, a, "bootstrap", "--peek")
    assert f"(reason: {'q' * 500}…)" in out["brief"] and out["bytes"] <= 8192


def _two_archives_told_in_a_small_brief(capsys, tmp_path: Path) -> tuple[Path, str, dict]:
    """``_two_archives``; Carol's next start has room in its 1024 bytes for one of the two notices: that
    brief, and the archive it left out."""
    a, first = _two_archives(capsys, tmp_path)
    return a, first, run_json(capsys, a, "bootstrap", "--max-bytes", "1024")


def test_an_archive_notice_the_brief_leaves_out_to_fit_is_counted_and_not_spent(capsys, tmp_path):
    a, first, small = _two_archives_told_in_a_small_brief(capsys, tmp_path)
    assert "1 more notice left out to fit the brief" in small["brief"]
    assert f"ARCHIVED: your handoff {first}" not in small["brief"]
    (line,) = run_json(capsys, a, "status")["archivedByTeammates"]  # still to be told
    assert line.startswith(f"ARCHIVED: your handoff {first}")


def test_an_archive_notice_left_out_to_fit_is_told_at_the_next_start_that_has_room_and_then_never(capsys, tmp_path):
    a, first, small = _two_archives_told_in_a_small_brief(capsys, tmp_path)
    assert small["brief"].count("ARCHIVED: your handoff") == 1  # the one shown is spent
    roomy = run_json(capsys, a, "bootstrap")["brief"]
    assert roomy.count("ARCHIVED: your handoff") == 1 and f"ARCHIVED: your handoff {first}" in roomy
    assert "ARCHIVED" not in run_json(capsys, a, "bootstrap")["brief"]
    assert "archivedByTeammates" not in run_json(capsys, a, "status")


def test_only_the_told_once_marks_of_notices_a_brief_showed_are_recorded_as_told(project):
    opened = Project.open(project)
    try:
        spend_shown(opened, [("a lost claim shown", "claim-1"), ("a lost claim left out", "claim-2")],
                    ["a lost claim shown"])
        assert read_told(opened) == ["claim-1"]
    finally:
        opened.close()


def test_handoff_show_names_the_archiver_as_the_actor_its_event_names(capsys, tmp_path):
    """tester25 T9: ``archived_by`` named the archiver under ``owner`` only; events say ``actor``."""
    a, b, ident = team(capsys, tmp_path)
    bob_archives(capsys, a, b, ident)
    for clone in (a, b):
        archived_by = run_json(capsys, clone, "handoff", "show", ident)["handoff"]["archived_by"]
        assert archived_by["actor"] == BOB and archived_by["writer"] == writer(b)


def fresh_clone(tmp_path: Path, a: Path, email: str) -> Path:
    """A new clone of the team's remote, of the user ``email``, that never synced."""
    from dulwich import porcelain

    from tests.app_support import init_project
    from tests.sync_support import _quiet

    clone = tmp_path / f"fresh-{email.split('@')[0]}"
    porcelain.clone(str(tmp_path / "remote.git"), str(clone), **_quiet()).close()
    init_project(clone)
    as_user(clone, email)
    return clone


def test_a_first_sync_into_an_empty_index_tells_a_teammates_archive_of_your_handoff(capsys, tmp_path):
    a, b, ident = team(capsys, tmp_path)
    bob_archives(capsys, a, b, ident)
    carol_again = fresh_clone(tmp_path, a, CAROL)
    code, out, err = run(capsys, carol_again, "sync")
    assert code == 0, err
    assert (f"ARCHIVED: your handoff {ident} (new to this clone, whose first sync brought it) was archived by "
            f"writer {writer(b)} ({BOB}, as claimed)") in out


def test_a_first_sync_into_an_empty_index_tells_no_archive_of_someone_elses_handoff(capsys, tmp_path):
    a, b, ident = team(capsys, tmp_path)
    bob_archives(capsys, a, b, ident)
    dave = fresh_clone(tmp_path, a, "dave@example.com")
    code, out, err = run(capsys, dave, "sync")
    assert code == 0, err
    assert "ARCHIVED" not in out


def archived_over(capsys, a: Path, b: Path, ident: str) -> tuple[str, dict]:
    """Both clones sync (a, b, a): what ``a``'s last sync said, and the one edit made apart the
    archived, conflicted record lists (the same on both clones)."""
    run(capsys, a, "sync")
    run(capsys, b, "sync")
    told = run(capsys, a, "sync")[1]
    held = run_json(capsys, a, "handoff", "show", ident)["handoff"]
    assert held == run_json(capsys, b, "handoff", "show", ident)["handoff"]
    assert held["status"] == "archived" and "conflicted" in held["flags"]
    (edit,) = held["concurrent_edits"]
    return told, edit


def test_an_archive_made_apart_sorting_after_a_validation_made_apart_is_a_conflict_line(capsys, tmp_path):
    a, b, ident = team(capsys, tmp_path, made_ready=False)
    run_json(capsys, a, "handoff", "validate", ident)  # Carol validates; Bob, apart, archives the draft he read
    run_json(capsys, b, "handoff", "archive", ident, "--reason", "stale", "--not-mine")
    told, edit = archived_over(capsys, a, b, ident)
    assert (edit["action"], edit["outcome"], edit["writer"]) == ("validated", "archived_over", writer(a))
    assert f"CONFLICT handoff {ident[-8:]}: {CAROL} (writer {writer(a)})'s validation" in told
    assert "was archived over" in told


def test_an_archive_made_apart_sorting_after_a_resume_made_apart_is_a_conflict_line(capsys, tmp_path):
    a, b, ident = team(capsys, tmp_path)
    run_json(capsys, b, "resume", ident, "--mark-resumed")  # Bob resumes; Carol, apart, archives the ready one
    run_json(capsys, a, "handoff", "archive", ident, "--reason", "stale")
    told, edit = archived_over(capsys, a, b, ident)
    assert (edit["action"], edit["outcome"], edit["writer"]) == ("resumed", "archived_over", writer(b))
    assert f"CONFLICT handoff {ident[-8:]}: {BOB} (writer {writer(b)})'s resume" in told
    assert "was archived over" in told
