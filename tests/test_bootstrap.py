"""``baton bootstrap``: peek, budget, claim only once the brief fits, degrade on failure."""

from __future__ import annotations

import orjson
import pytest

import baton.commands.bootstrap as bootstrap_module
from baton.commands.bootstrap import bootstrap
from baton.domain.batons import HANDOFF_HEADING, render_baton_markdown
from baton.errors import InputError
from tests.batons_support import ALICE, active, append_raw, events, leave, start


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


def test_a_new_baton_landing_between_peek_and_claim_degrades_to_a_notice_and_stays_pending(project, monkeypatch):
    old = leave(project, "s1", steps=["old"])
    landed = {}
    real_render = bootstrap_module.render_baton_markdown

    def render_then_another_terminal_ends_a_session(record):
        if not landed:  # bootstrap has peeked and is building its brief
            landed["new"] = leave(project, "s2", steps=["new"])
        return real_render(record)

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

    def render_while_another_session_claims(record):
        if not raced:
            raced["started"] = True
            raced["other"] = start(project, session="fast")
        return real_render(record)

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


def test_decisions_from_recent_handoffs_fill_the_brief(project):
    from baton.commands.capture import capture_in_scope
    from baton.commands.context import Project

    opened = Project.open(project)
    with opened.writing() as scope:
        capture_in_scope(scope, {"work": {"title": "t", "objective": "o"},
                                 "decisions": [{"decision": "Use timing-safe comparison", "rationale": "secrets"}],
                                 "failed_attempts": [{"approach": "Library X", "outcome": "failed",
                                                      "reason": "no multi-tenant", "avoid_repeating": True}]})
    opened.close()
    result = start(project, session="s1")
    assert "## Recent decisions" in result.brief.text and "Use timing-safe comparison" in result.brief.text
    assert "## ⚠️ Traps — do not retry" in result.brief.text and "Library X" in result.brief.text


def test_an_empty_project_gets_the_standard_brief(project):
    result = start(project, session="s1")
    assert result.record is None and "No active session handoff" in result.brief.text


@pytest.mark.parametrize("bad", [0, 100, 1023])
def test_max_bytes_below_1024_is_an_input_error(project, bad):
    with pytest.raises(InputError):
        bootstrap(project, max_bytes=bad, owner=ALICE, branch="main")
