"""``baton bootstrap``: peek, budget, claim only once the brief fits, degrade on failure."""

from __future__ import annotations

import orjson
import pytest

import baton.commands.bootstrap as bootstrap_module
from baton.domain.batons import HANDOFF_HEADING, render_baton_markdown
from baton.errors import InputError
from tests.app_support import bootstrap
from tests.batons_support import ALICE, active, append_raw, events, leave, start
from tests.cli_support import run


def test_session_end_then_two_bootstraps_the_first_gets_the_baton_the_second_does_not(project):
    record = leave(project, "s1", steps=["finish the parser"])
    first = start(project, session="s2")
    second = start(project, session="s3")
    assert first.record.id == record.id
    assert first.brief.text.startswith(HANDOFF_HEADING)
    assert "finish the parser" in first.brief.text
    assert second.record is None
    assert HANDOFF_HEADING not in second.brief.text
    assert len(events(project, "baton.claimed")) == 1


def test_json_result_has_the_spec_fields(project):
    leave(project)
    out = orjson.loads(orjson.dumps(start(project, session="s2").to_json()))
    assert {"brief", "bytes", "handoffMarkdown", "handoff", "sessionObjective"} <= set(out)
    assert out["bytes"] == len(out["brief"].encode("utf-8"))
    assert out["handoffMarkdown"] in out["brief"]
    assert out["handoff"]["claimed"] is True and out["handoff"]["claimedBySession"] == "s2"
    assert out["sessionObjective"] is None


def test_bootstrap_keeps_the_whole_handoff_when_forty_400_byte_traps_must_be_trimmed_to_fit_8_kb(project):
    # An earlier session's handoff carries forty 400-byte failed approaches...
    traps = [f"trap {i:02d}: " + "x" * 390 for i in range(40)]
    leave(project, "s1", steps=["old step"], failed=traps)
    start(project, session="s2", max_bytes=65536)  # ...delivered; its traps now belong to the project.
    steps = [f"step {i}: " + "s" * 80 for i in range(12)]
    record = leave(project, "s3", steps=steps, failed=["this baton's own trap"], questions=["q?"])

    result = start(project, session="s4", max_bytes=8192)

    markdown = render_baton_markdown(result.record)
    assert result.record.id == record.id
    assert markdown in result.brief.text                    # the whole handoff, untouched
    assert all(step in result.brief.text for step in steps)
    assert result.brief.bytes <= 8192
    assert 0 < result.brief.traps.shown < 40                # traps trimmed to fit
    assert result.brief.traps.omitted == 40 - result.brief.traps.shown
    assert "trap 00" in result.brief.text or "trap 39" in result.brief.text
    assert len(events(project, "baton.claimed")) == 2


def test_a_handoff_too_big_for_the_budget_is_not_claimed(project):
    leave(project, steps=["x" * 3000])
    result = start(project, session="s2", max_bytes=1024)
    assert result.record is None
    assert result.brief.bytes <= 1024
    assert "does not fit" in result.brief.text
    assert active(project).pending
    assert events(project, "baton.claimed") == []


def test_a_brief_whose_handoff_did_not_fit_never_says_there_is_no_session_handoff(project):
    # The notice says one is waiting; the body must not contradict it.
    leave(project, steps=["x" * 3000])
    text = start(project, session="s2", max_bytes=1024).brief.text
    assert "does not fit" in text
    assert "No session handoff waits" not in text and "No session objective, decisions or traps" in text


def test_a_new_baton_landing_between_peek_and_claim_degrades_to_a_notice_and_stays_pending(project, monkeypatch):
    old = leave(project, "s1", steps=["old"])
    landed = {}
    real_render = bootstrap_module.render_baton_markdown

    def render_then_another_terminal_ends_a_session(record, **kwargs):
        if not landed:  # bootstrap has peeked and is building its brief
            landed["new"] = leave(project, "s2", steps=["new"])
        return real_render(record, **kwargs)

    monkeypatch.setattr(bootstrap_module, "render_baton_markdown", render_then_another_terminal_ends_a_session)
    result = start(project, session="s3")

    assert result.record is None
    assert HANDOFF_HEADING not in result.brief.text
    assert result.brief.text.startswith("> ⚠️ The session handoff " + old.id + " was not delivered")
    assert "superseded" in result.brief.text
    now = active(project)
    assert now.id == landed["new"].id and now.pending
    assert events(project, "baton.claimed") == []


def test_a_claim_lost_to_another_session_degrades_to_a_notice(project, monkeypatch):
    leave(project, "s1")
    real_render = bootstrap_module.render_baton_markdown
    raced = {}

    def render_while_another_session_claims(record, **kwargs):
        if not raced:
            raced["started"] = True
            raced["other"] = start(project, session="fast")
        return real_render(record, **kwargs)

    monkeypatch.setattr(bootstrap_module, "render_baton_markdown", render_while_another_session_claims)
    result = start(project, session="slow")
    assert raced["other"].record is not None
    assert result.record is None
    assert "already claimed by session fast" in result.brief.text
    assert [e.data["session"] for e in events(project, "baton.claimed")] == ["fast"]


def test_a_malformed_baton_event_never_crashes_bootstrap(project):
    append_raw(project, "baton.created", "baton/alice%40example.com__main",
               {"handoff_id": 42, "owner": ["x"], "payload": "nope"})
    append_raw(project, "baton.claimed", "baton/_shared", {"handoff_id": None})
    result = start(project, session="s1")
    assert result.record is None
    assert result.exit_code == 0
    # and a good baton after the bad one still arrives
    record = leave(project, "s2")
    assert start(project, session="s3").record.id == record.id


def test_a_malformed_handoff_record_in_the_projection_is_left_out(project):
    append_raw(project, "handoff.captured", "handoff/not-a-uuid", {"handoff": {"garbage": True}})
    leave(project, "s1", failed=["real trap"])
    result = start(project, session="s2")
    assert result.record is not None and result.exit_code == 0


def test_decisions_from_recent_validated_handoffs_fill_the_brief(project):
    from baton.commands.capture import capture_in_scope
    from baton.commands.context import Project
    from tests.app_support import validate_handoff_command

    opened = Project.open(project)
    with opened.writing() as scope:
        handoff_id = capture_in_scope(scope, {
            "work": {"title": "t", "objective": "o"},
            "open_items": [{"description": "next", "suggested_action": "do it", "acceptance_check": "it is done"}],
            "decisions": [{"decision": "Use timing-safe comparison", "rationale": "secrets"}],
            "failed_attempts": [{"approach": "Library X", "outcome": "failed",
                                 "reason": "no multi-tenant", "avoid_repeating": True}]}).handoff_id
    opened.close()
    assert validate_handoff_command(project, handoff_id).report["status"] == "pass"
    result = start(project, session="s1")
    assert "## Recent decisions" in result.brief.text and "Use timing-safe comparison" in result.brief.text
    assert "## ⚠️ Traps — do not retry" in result.brief.text and "Library X" in result.brief.text


def test_an_empty_project_gets_the_standard_brief(project):
    result = start(project, session="s1")
    assert result.record is None and "No session handoff waits for this session" in result.brief.text


@pytest.mark.parametrize("bad", [0, 100, 1023])
def test_max_bytes_below_1024_is_an_input_error(project, bad):
    with pytest.raises(InputError):
        bootstrap(project, max_bytes=bad, owner=ALICE, branch="main")


# -- malformed data never stops a session from starting -------------------------------------

def _corrupt_a_middle_feed_line(project) -> None:
    (feed,) = (project / ".baton" / "ledger").glob("*.jsonl")
    lines = feed.read_bytes().split(b"\n")
    assert len([line for line in lines if line]) >= 4
    lines[1] = b'{"garbage": tru'
    feed.write_bytes(b"\n".join(lines))


def test_bootstrap_on_a_ledger_with_a_corrupt_middle_line_prints_a_brief_with_a_notice_and_exits_0(project):
    from tests.conftest import run_baton

    leave(project, "s1")
    _corrupt_a_middle_feed_line(project)
    r = run_baton("bootstrap", "--project", str(project), "--owner", ALICE, "--branch", "main")
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    assert r.stdout.startswith("> ⚠️ Baton could not read the ledger: ")
    assert "baton verify" in r.stdout


def test_bootstrap_json_on_a_corrupt_ledger_keeps_the_documented_shape_with_notices(project):
    from tests.conftest import run_baton

    leave(project, "s1")
    _corrupt_a_middle_feed_line(project)
    r = run_baton("bootstrap", "--json", "--project", str(project), "--owner", ALICE, "--branch", "main")
    assert r.returncode == 0, r.stderr
    out = orjson.loads(r.stdout)
    assert {"brief", "bytes", "handoffMarkdown", "handoff", "sessionObjective", "notices"} <= set(out)
    assert out["handoff"] is None and out["handoffMarkdown"] is None and out["claimed"] is False
    assert out["bytes"] == len(out["brief"].encode("utf-8"))
    assert any(n.startswith("Baton could not read the ledger: ") for n in out["notices"])


def test_bootstrap_on_a_garbage_index_file_still_prints_a_brief_and_exits_0(project):
    from tests.conftest import run_baton

    leave(project, "s1")
    (project / ".baton" / "index.sqlite").write_bytes(b"this is not a database\n" * 64)
    r = run_baton("bootstrap", "--json", "--project", str(project), "--owner", ALICE, "--branch", "main")
    assert r.returncode == 0, r.stderr
    out = orjson.loads(r.stdout)
    assert out["brief"] and out["bytes"] <= 8192


def test_a_storage_error_while_reading_degrades_to_a_notice_and_claims_nothing(project, monkeypatch):
    from baton.commands.context import Project
    from baton.errors import StorageError

    leave(project, "s1")

    def unreadable(self, **kwargs):
        raise StorageError("cannot open the index: file is not a database")

    monkeypatch.setattr(Project, "reading", unreadable)
    result = start(project, session="s2")
    assert result.exit_code == 0 and result.record is None
    assert result.notices[0].startswith("Baton could not read the ledger: cannot open the index")
    assert "no session handoff" in result.brief.text.lower()
    monkeypatch.undo()
    assert active(project).pending
    assert events(project, "baton.claimed") == []


# -- freshness of a delivered handoff -----------------------------------------------------------

@pytest.fixture
def git_project(tmp_path):
    from tests.app_support import init_project
    from tests.handoff_support import git_init

    root = tmp_path / "repo"
    root.mkdir()
    git_init(root)
    init_project(root)
    return root


RICH = {
    "work": {"title": "OAuth callback", "objective": "Reject replayed callbacks"},
    "summary": {"current_state": "Helper written; fixture missing."},
    "open_items": [{"description": "Add the duplicate-callback fixture", "suggested_action": "Write it",
                    "acceptance_check": "A replayed callback is rejected"}],
}


def _capture_and_scope(root) -> str:
    from baton.commands.capture import capture_in_scope
    from baton.commands.context import Project
    from tests.app_support import scope_handoff_as_baton

    opened = Project.open(root)
    try:
        with opened.writing() as scope:
            handoff_id = capture_in_scope(scope, RICH).handoff_id
    finally:
        opened.close()
    from tests.test_batons_scope import make_ready

    make_ready(root, handoff_id)  # only a handoff its receiver can resume is handed on
    scope_handoff_as_baton(root, handoff_id, owner=ALICE, branch="main")
    return handoff_id


def test_a_delivered_handoff_whose_repository_head_advanced_carries_a_stale_notice(git_project):
    from tests.handoff_support import git_commit

    handoff_id = _capture_and_scope(git_project)
    git_commit(git_project, {"src/new.py": "x = 1\n"}, message="moved on")
    result = start(git_project, session="s2")
    assert result.record.id == handoff_id
    section = result.brief.text.split("### Next steps")[0]
    assert "Freshness: STALE" in section
    assert "repository head advanced since capture" in section
    assert "1 commit ahead; the captured commit is in its history" in section


def test_the_freshness_notice_is_part_of_the_reserved_handoff_markdown(git_project):
    from tests.handoff_support import git_commit

    _capture_and_scope(git_project)
    git_commit(git_project, {"src/new.py": "x = 1\n"}, message="moved on")
    out = start(git_project, session="s2").to_json()
    assert "Freshness: STALE" in out["handoffMarkdown"]
    assert out["brief"].startswith(out["handoffMarkdown"])


def test_a_delivered_handoff_captured_at_the_current_head_is_shown_fresh(git_project):
    _capture_and_scope(git_project)
    section = start(git_project, session="s2").brief.text.split("### Next steps")[0]
    assert "Freshness: fresh" in section
    assert "STALE" not in section


def test_a_delivered_handoff_that_recorded_no_repository_head_gets_no_freshness_line(project):
    leave(project, "s1")  # not a git repository: nothing recorded to compare
    result = start(project, session="s2")
    assert result.record is not None
    assert "Freshness" not in result.brief.text


def test_session_begin_shows_the_stale_notice_of_the_handoff_it_claims(git_project):
    from tests.app_support import begin_session
    from tests.handoff_support import git_commit

    _capture_and_scope(git_project)
    git_commit(git_project, {"src/new.py": "x = 1\n"}, message="moved on")
    result = begin_session(git_project, session_id="s2", owner=ALICE, branch="main")
    assert result.record is not None
    assert "Freshness: STALE" in result.render()
    assert "Freshness: STALE" in result.to_json()["handoffMarkdown"]


def test_session_handoff_shows_the_stale_notice_of_the_waiting_handoff(git_project):
    from tests.app_support import show_active_baton
    from tests.handoff_support import git_commit

    _capture_and_scope(git_project)
    git_commit(git_project, {"src/new.py": "x = 1\n"}, message="moved on")
    shown = show_active_baton(git_project, owner=ALICE, branch="main")
    assert "Freshness: STALE" in shown.render()


def test_bootstrap_on_an_index_pinned_to_the_past_says_so_and_claims_nothing(project, baton_cli):
    leave(project, "s1", steps=["an early step"])
    first = events(project, "baton.created")[0].id
    leave(project, "s1b", steps=["a later step"])
    pinned = baton_cli("rebuild", "--until", first, "--project", str(project))
    assert pinned.returncode == 0, pinned.stderr
    result = start(project, session="s2")
    assert result.record is None and events(project, "baton.claimed") == []
    assert any("shows the project as of" in n and "baton rebuild" in n for n in result.notices)
    assert "shows the project as of" in result.brief.text


def test_a_handoff_too_big_for_the_budget_names_the_commands_that_read_and_claim_it(project):
    # Every session start would withhold it again: the notice must say what to run.
    record = leave(project, steps=["x" * 3000])
    text = start(project, session="s2", max_bytes=1024).brief.text
    assert record.id in text
    assert "`baton session handoff`" in text
    assert "`baton session begin s2`" in text
    assert "larger byte budget (`max_bytes`)" in text


def test_session_begin_as_the_too_big_notice_says_claims_the_withheld_handoff(project, capsys):
    record = leave(project, steps=["x" * 3000])
    start(project, session="s2", max_bytes=1024)
    code, out, err = run(capsys, project, "session", "begin", "s2", "--owner", ALICE, "--branch", "main")
    assert code == 0, err
    assert "x" * 3000 in out
    assert [e.data["handoff_id"] for e in events(project, "baton.claimed")] == [record.id]


def test_the_too_big_notice_on_the_command_line_names_its_option_not_the_mcp_argument(project, capsys):
    leave(project, steps=["x" * 3000])
    code, out, err = run(capsys, project, "bootstrap", "--session-id", "s2", "--max-bytes", "1024", "--peek",
                         "--owner", ALICE, "--branch", "main")
    assert code == 0, err
    assert "larger byte budget (`--max-bytes`)" in out
    assert "`max_bytes`" not in out
