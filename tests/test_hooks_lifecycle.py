"""``baton hook``: a harness's session lifecycle, run end to end from the synthetic fixtures.

Claude Code, Codex and Gemini CLI each: the brief arrives at session start
(claimed for the payload's session), a draft is prepared before compaction,
and the ready handoff the session wrote is left as a baton at its end.
"""

from __future__ import annotations

import time

import pytest

from baton.app import Baton
from baton.projections.sessions import session_doc
from tests.app_support import promote_handoff, validate_handoff_command
from tests.handoff_support import payload
from tests.harness_support import fixture, hook, injected

LIFECYCLES = {
    # harness: (start event, compaction event, end event)
    "claude-code": ("SessionStart", "PreCompact", "SessionEnd"),
    "codex": ("SessionStart", "PreCompact", "Stop"),
    "gemini-cli": ("SessionStart", "PreCompress", "SessionEnd"),
    "cursor": ("sessionStart", "preCompact", "sessionEnd"),
}


def _ids(harness, session):
    """The payload fields naming ``session`` (Cursor's session is its conversation)."""
    if not session:
        return {}
    return {"session_id": session, **({"conversation_id": session} if harness == "cursor" else {})}


def _start(repo, harness, session=None, source="startup"):
    start = LIFECYCLES[harness][0]
    name = start if harness == "cursor" else f"{start}.{source}"
    changes = _ids(harness, session)
    return hook(repo, harness, start, fixture(harness, name, repo, **changes))


# The trigger of a real compaction: Gemini CLI fires PreCompress ``auto`` before
# every turn (tests/test_gemini_hooks.py), so only its ``manual`` is one.
COMPACTION = {"gemini-cli": "manual"}


def _event(repo, harness, which, session=None, trigger=None):
    event = LIFECYCLES[harness][which]
    name = event if harness == "cursor" or which == 2 else f"{event}.{trigger or COMPACTION.get(harness, 'auto')}"
    changes = _ids(harness, session)
    return hook(repo, harness, event, fixture(harness, name, repo, **changes))


def _write_ready_handoff(repo, session):
    with Baton.open(repo) as app:
        handoff_id = app.capture(payload(), session=session).handoff_id
    validate_handoff_command(repo, handoff_id)
    promote_handoff(repo, handoff_id, accept_warnings="tests")
    return handoff_id


def _session(repo, session):
    with Baton.open(repo) as app:
        return session_doc(app.project.reading(), app.project.writer, session)


@pytest.mark.parametrize("harness", LIFECYCLES)
def test_a_session_start_injects_the_brief_in_the_harness_format(repo, harness):
    outcome = _start(repo, harness)
    assert outcome.problem is None
    assert injected(harness, outcome.answer).startswith("## Baton")


@pytest.mark.parametrize("harness", LIFECYCLES)
def test_the_baton_waiting_is_delivered_and_claimed_for_the_payloads_session(repo, harness):
    handoff_id = _write_ready_handoff(repo, "earlier")
    hook(repo, "claude-code", "SessionEnd", fixture("claude-code", "SessionEnd", repo, session_id="earlier"))
    outcome = _start(repo, harness, session="next-session")
    assert "Active Session Handoff" in injected(harness, outcome.answer)
    assert outcome.result.to_json()["handoffId"] == handoff_id
    assert _session(repo, "next-session")["receivedBaton"] == handoff_id


@pytest.mark.parametrize("source", ["compact", "resume", "clear"])
def test_the_same_session_never_gets_the_brief_twice(repo, source):
    first = _start(repo, "claude-code", session="s1")
    again = _start(repo, "claude-code", session="s1", source=source)
    assert injected("claude-code", first.answer)
    assert again.answer == "" and again.problem is None
    assert again.result.repeated


@pytest.mark.parametrize("harness", LIFECYCLES)
def test_before_compaction_a_draft_is_prepared_and_nothing_is_injected(repo, harness):
    (repo / "src" / "app.py").write_text("x = 2\n")
    outcome = _event(repo, harness, 1)
    assert outcome.problem is None
    assert outcome.answer == ("{}" if harness in ("gemini-cli", "cursor") else "")
    with Baton.open(repo) as app:
        draft = app.show(outcome.result.handoff_id).to_json()["handoff"]
    assert draft["status"] == "draft"
    assert draft["automation"]["trigger"] == "hook"
    assert draft["origin"]["harness"] == harness
    assert [a["path"] for a in draft["artifacts"]] == ["src/app.py"]


def test_before_compaction_a_draft_is_prepared_beside_a_symlink_out_of_the_project(repo, tmp_path):
    (tmp_path / "elsewhere.txt").write_text("not the project's\n")
    (repo / "notes").symlink_to(tmp_path / "elsewhere.txt")
    (repo / "src" / "app.py").write_text("x = 2\n")
    outcome = _event(repo, "claude-code", 1)
    assert outcome.problem is None and outcome.result.handoff_id
    with Baton.open(repo) as app:
        draft = app.show(outcome.result.handoff_id).to_json()["handoff"]
    assert [a["path"] for a in draft["artifacts"]] == ["src/app.py"]


def test_a_second_compaction_keeps_the_sessions_draft(repo):
    first = _event(repo, "claude-code", 1, session="s1")
    second = _event(repo, "claude-code", 1, session="s1")
    assert second.result.handoff_id == first.result.handoff_id and not second.result.created


def test_the_draft_records_what_the_detector_was_told(repo):
    manual = hook(repo, "claude-code", "PreCompact", fixture("claude-code", "PreCompact.manual", repo))
    with Baton.open(repo) as app:
        automation = app.show(manual.result.handoff_id).to_json()["handoff"]["automation"]
    assert automation["score"] == 1.0 and automation["inputs"] == {"handoff_request": 1.0}


def test_the_draft_takes_the_objective_of_the_handoff_the_session_received(repo):
    _write_ready_handoff(repo, "earlier")
    hook(repo, "claude-code", "SessionEnd", fixture("claude-code", "SessionEnd", repo, session_id="earlier"))
    _start(repo, "claude-code", session="s2")
    draft = _event(repo, "claude-code", 1, session="s2")
    with Baton.open(repo) as app:
        work = app.show(draft.result.handoff_id).to_json()["handoff"]["work"]
    assert work["objective"] == payload()["work"]["objective"]


@pytest.mark.parametrize("harness", LIFECYCLES)
def test_a_session_end_ends_the_session_and_hands_on_the_ready_handoff_it_wrote(repo, harness):
    session = fixture(harness, LIFECYCLES[harness][2])
    sid = session.get("session_id") or session["conversation_id"]
    _start(repo, harness)
    handoff_id = _write_ready_handoff(repo, sid)
    outcome = _event(repo, harness, 2)
    assert outcome.problem is None
    assert outcome.result.baton == handoff_id
    assert _session(repo, sid)["status"] == "ended"
    with Baton.open(repo) as app:
        assert app.active_baton().to_json()["handoff"]["id"] == handoff_id


def test_a_session_that_wrote_no_ready_handoff_ends_without_a_baton(repo):
    _start(repo, "claude-code", session="s1")
    _event(repo, "claude-code", 1, session="s1")  # a draft is not verified: never handed on
    outcome = _event(repo, "claude-code", 2, session="s1")
    assert outcome.result.ended and outcome.result.baton is None
    with Baton.open(repo) as app:
        assert app.pending_batons().to_json()["items"] == []


@pytest.mark.parametrize("harness", ["claude-code", "codex", "gemini-cli"])
def test_a_session_that_ends_with_baton_s_draft_unfinished_tells_the_next_session(repo, harness):
    """The draft saved before a compaction the person asked for (or for a person's "continue
    later") is not handed on while it is a draft; the next session start says so, once, naming it."""
    from baton.domain.short_ids import short_id

    _start(repo, harness, session="s1")
    _event(repo, harness, 1, session="s1", trigger="manual")
    with Baton.open(repo) as app:
        [draft] = [h["id"] for h in app.list_handoffs(status="draft").to_json()["handoffs"]]
    ended = _event(repo, harness, 2, session="s1")
    assert ended.result.baton is None
    [said] = ended.result.notices
    assert said.startswith(f"Handoff {short_id(draft)} was not handed on")
    assert f"`baton handoff show {short_id(draft)}`" in said
    brief = injected("claude-code", _start(repo, "claude-code", session="s2").answer)
    assert f"Handoff {short_id(draft)} was not handed on" in brief
    assert "was not handed on" not in (injected("claude-code", _start(repo, "claude-code", session="s3").answer) or "")


def test_a_session_end_s_notice_of_an_unfinished_draft_names_the_draft_and_its_status_with_it(repo):
    """One record per notice: its text, the handoff it is about and that handoff's status then."""
    from baton.commands.harness_finish import EndNotice

    _start(repo, "claude-code", session="s1")
    _event(repo, "claude-code", 1, session="s1", trigger="manual")
    with Baton.open(repo) as app:
        [draft] = [h["id"] for h in app.list_handoffs(status="draft").to_json()["handoffs"]]
    ended = _event(repo, "claude-code", 2, session="s1")
    [told] = ended.result.told
    assert isinstance(told, EndNotice) and (told.handoff, told.was) == (draft, "draft")
    assert ended.result.notices == (told.text,)
    document = ended.result.to_json()
    assert document["notices"] == [told.text] and document["noticesAbout"] == [draft]


def test_a_session_whose_draft_was_completed_and_handed_on_says_nothing_of_it(repo):
    _start(repo, "claude-code", session="s1")
    _event(repo, "claude-code", 1, session="s1")
    handoff_id = _write_ready_handoff(repo, "s1")
    ended = _event(repo, "claude-code", 2, session="s1")
    assert ended.result.baton == handoff_id and ended.result.notices == ()


def _ready_the_draft(repo, session):
    """The draft Baton prepared for ``session``, completed in place (``handoff amend``), validated, made ready."""
    with Baton.open(repo) as app:
        [draft] = [h["id"] for h in app.list_handoffs(status="draft").to_json()["handoffs"]]
        app.amend(draft, replacement=payload(), session=session)
    validate_handoff_command(repo, draft)
    promote_handoff(repo, draft, accept_warnings="tests")
    return draft


def test_a_codex_draft_readied_and_handed_on_at_a_later_stop_leaves_no_stale_notice(repo):
    """Codex fires Stop after every turn: the first says the draft is unfinished; once a
    later turn makes it ready and a later Stop hands it on, the next start has the baton
    and no word of the draft "not handed on"."""
    from baton.domain.short_ids import short_id

    _start(repo, "codex", session="t1")
    _event(repo, "codex", 1, session="t1", trigger="manual")
    first = _event(repo, "codex", 2, session="t1")
    [said] = first.result.notices
    draft = _ready_the_draft(repo, "t1")
    assert said.startswith(f"Handoff {short_id(draft)} was not handed on")
    assert _event(repo, "codex", 2, session="t1").result.baton == draft
    started = _start(repo, "codex", session="t2")
    assert started.result.delivered.record.id == draft
    assert "was not handed on" not in injected("codex", started.answer)


def test_a_codex_draft_still_unfinished_at_the_next_start_is_still_said(repo):
    from baton.domain.short_ids import short_id

    _start(repo, "codex", session="t1")
    _event(repo, "codex", 1, session="t1", trigger="manual")
    _event(repo, "codex", 2, session="t1")
    with Baton.open(repo) as app:
        [draft] = [h["id"] for h in app.list_handoffs(status="draft").to_json()["handoffs"]]
    assert _event(repo, "codex", 2, session="t1").result.baton is None
    brief = injected("codex", _start(repo, "codex", session="t2").answer)
    assert f"Handoff {short_id(draft)} was not handed on" in brief


def test_a_hand_on_with_no_notice_waiting_leaves_no_notice_file(repo):
    """What an end settles is recorded only beside notices waiting: a steady session
    start still finds no file to take."""
    _start(repo, "codex", session="t1")
    handoff_id = _write_ready_handoff(repo, "t1")
    ended = _event(repo, "codex", 2, session="t1")
    assert ended.result.baton == handoff_id and ended.result.settles == (handoff_id,)
    assert not (repo / ".baton" / "hook-notices.jsonl").exists()


def test_a_notice_of_a_draft_made_ready_is_not_said_with_the_brief_that_delivers_it(repo):
    """Made ready by hand once the session ended (no later end hands it on): the start
    that delivers it as the session's baton-less brief says nothing of it "not handed on"."""
    _start(repo, "claude-code", session="s1")
    _event(repo, "claude-code", 1, session="s1")
    _event(repo, "claude-code", 2, session="s1")
    draft = _ready_the_draft(repo, "s1")
    with Baton.open(repo) as app:
        app.hand_on(draft)
    started = _start(repo, "claude-code", session="s2")
    assert started.result.delivered.record.id == draft
    assert "was not handed on" not in injected("claude-code", started.answer)


def test_a_session_end_reads_no_handoff_record_captured_before_the_session_began(repo, monkeypatch):
    """A session's handoffs are captured while it is open: at the end of one that
    captured nothing, the handoffs written before it are not even read."""
    from baton.projections.runner import ProjectionRunner

    an_hour_ago = time.time_ns() - 3600 * 10**9
    for session in (None, "an-earlier-session"):
        with Baton.open(repo, clock=lambda: an_hour_ago) as app:
            handoff_id = app.capture(payload(), session=session).handoff_id
        validate_handoff_command(repo, handoff_id)
        promote_handoff(repo, handoff_id, accept_warnings="tests")
    _start(repo, "claude-code", session="s1")
    read = []
    real_get = ProjectionRunner.get
    monkeypatch.setattr(ProjectionRunner, "get", lambda self, projection, key: read.append(projection)
                        or real_get(self, projection, key))
    outcome = _event(repo, "claude-code", 2, session="s1")
    assert outcome.result.ended and outcome.result.baton is None
    assert "handoffs" not in read


def test_codex_stop_after_every_turn_ends_the_session_once(repo):
    _start(repo, "codex", session="t1")
    first = _event(repo, "codex", 2, session="t1")
    second = _event(repo, "codex", 2, session="t1")
    assert first.result.ended and not second.result.ended


def test_a_handoff_written_after_the_first_stop_is_handed_on_at_the_next(repo):
    _start(repo, "codex", session="t1")
    _event(repo, "codex", 2, session="t1")
    handoff_id = _write_ready_handoff(repo, "t1")
    assert _event(repo, "codex", 2, session="t1").result.baton == handoff_id


def _events_of(repo, event_type, stream):
    import json

    found = []
    for feed in (repo / ".baton" / "ledger").glob("*.jsonl"):
        for line in feed.read_bytes().splitlines():
            event = json.loads(line)
            if event.get("type") == event_type and stream in (None, event.get("stream")):
                found.append(event)
    return found


def test_hooks_of_one_session_starting_at_once_deliver_one_brief_and_one_claim(repo):
    import json
    import os
    import subprocess
    import sys

    handoff_id = _write_ready_handoff(repo, "earlier")
    hook(repo, "claude-code", "SessionEnd", fixture("claude-code", "SessionEnd", repo, session_id="earlier"))
    for round_ in range(4):  # the first session finds the baton; the others, the plain brief
        session = f"twice-{round_}"
        raw = json.dumps(fixture("claude-code", "SessionStart.startup", repo, session_id=session)).encode()
        procs = [subprocess.Popen([sys.executable, "-m", "baton", "hook", "claude-code", "SessionStart"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  cwd=repo, env=dict(os.environ)) for _ in range(6)]
        answers = [p.communicate(raw, timeout=120) for p in procs]
        assert all(p.returncode == 0 for p in procs), answers
        delivered = [b for b in (injected("claude-code", out.decode()) for out, _err in answers) if b]
        assert len(delivered) == 1, (session, delivered)
        assert "not delivered" not in delivered[0]
        assert len(_events_of(repo, "session.begun", f"session/{session}")) == 1
    assert _session(repo, "twice-0")["receivedBaton"] == handoff_id


def test_a_start_recorded_by_another_process_after_the_first_look_delivers_nothing_more(repo, monkeypatch):
    from baton.commands import harness_start

    handoff_id = _write_ready_handoff(repo, "earlier")
    hook(repo, "claude-code", "SessionEnd", fixture("claude-code", "SessionEnd", repo, session_id="earlier"))
    first_look = harness_start.started_before
    other = []

    def began_elsewhere_meanwhile(runner, writer, sid):
        seen = first_look(runner, writer, sid)
        if not other:  # this process looked; before it takes the lock, another hook of the session starts it
            other.append(None)
            other[0] = _start(repo, "claude-code", session="raced")
        return seen

    monkeypatch.setattr(harness_start, "started_before", began_elsewhere_meanwhile)
    late = _start(repo, "claude-code", session="raced")
    assert "Active Session Handoff" in injected("claude-code", other[0].answer)
    assert not injected("claude-code", late.answer)
    assert len(_events_of(repo, "session.begun", "session/raced")) == 1
    assert _session(repo, "raced")["receivedBaton"] == handoff_id


def test_a_compaction_draft_prepared_by_another_process_after_the_first_look_is_kept_not_doubled(repo, monkeypatch):
    from baton.commands import harness_compaction

    first_look = harness_compaction._compaction_draft
    other = []

    def prepared_elsewhere_meanwhile(runner, writer, sid):
        seen = first_look(runner, writer, sid)
        if not other:  # this process looked; before it takes the lock, another hook of the session compacts
            other.append(None)
            other[0] = _event(repo, "claude-code", 1, session="squeezed")
        return seen

    monkeypatch.setattr(harness_compaction, "_compaction_draft", prepared_elsewhere_meanwhile)
    late = _event(repo, "claude-code", 1, session="squeezed")
    assert other[0].result.to_json()["created"] is True
    assert late.result.to_json() == {**other[0].result.to_json(), "created": False}
    drafts = [e for e in _events_of(repo, "handoff.captured", None)]
    assert len(drafts) == 1


def test_a_cursor_session_is_its_conversation_for_every_event(repo):
    ids = {"conversation_id": "cursor-conv", "session_id": "cursor-other-id"}
    hook(repo, "cursor", "sessionStart", fixture("cursor", "sessionStart", repo, **ids))
    compacted = hook(repo, "cursor", "preCompact", fixture("cursor", "preCompact", repo, conversation_id="cursor-conv"))
    assert compacted.result.session_id == "cursor-conv"
    handoff_id = _write_ready_handoff(repo, "cursor-conv")
    ended = hook(repo, "cursor", "sessionEnd", fixture("cursor", "sessionEnd", repo, **ids))
    assert ended.result.to_json()["batonHandoffId"] == handoff_id
    assert _session(repo, "cursor-conv")["endedAt"] and _session(repo, "cursor-conv")["beganAt"]
    assert _session(repo, "cursor-other-id") is None


def test_the_next_session_starts_knowing_the_objective_of_the_handoff_handed_on_at_the_end(repo):
    _start(repo, "claude-code", session="s1")
    _write_ready_handoff(repo, "s1")
    _event(repo, "claude-code", 2, session="s1")
    brief = injected("claude-code", _start(repo, "claude-code", session="s2").answer)
    assert f"**Objective:** {payload()['work']['objective']}" in brief


def test_hooks_in_a_linked_worktree_are_that_worktrees_branch_not_the_main_ones(repo, tmp_path):
    from dulwich import porcelain

    handoff_id = _write_ready_handoff(repo, "earlier")
    hook(repo, "claude-code", "SessionEnd", fixture("claude-code", "SessionEnd", repo, session_id="earlier"))
    porcelain.branch_create(str(repo), "feature")
    porcelain.worktree_add(str(repo), str(tmp_path / "wt"), branch="feature")
    wt = (tmp_path / "wt").resolve()

    started = hook(wt, "claude-code", "SessionStart", fixture("claude-code", "SessionStart.startup", wt,
                                                              session_id="in-wt"))
    assert started.problem is None and started.result.to_json()["handoffId"] is None  # main's baton stays main's
    asked = hook(wt, "claude-code", "UserPromptSubmit", fixture("claude-code", "UserPromptSubmit", wt,
                                                                session_id="in-wt", prompt="handoff"))
    with Baton.open(repo) as app:
        repository = app.show(asked.result.draft).to_json()["handoff"]["project"]["repository"]
    assert repository["branch"] == "feature" and repository["worktree"] != "."
    on_main = _start(repo, "claude-code", session="on-main")
    assert on_main.result.to_json()["handoffId"] == handoff_id


def test_the_brief_names_the_command_lines_session_flag_and_a_checkpoint_with_it_is_handed_on(repo, capsys):
    """Beside the MCP tools' ``session_id``, the session line gives the CLI's ``--session``: a
    checkpoint the agent creates with it is its session's, handed on at the end even while
    another session of the same owner works on the branch (without it, nobody's)."""
    from tests.cli_support import run_json

    told = injected("codex", _start(repo, "codex", session="s1").answer)
    assert "or `--session s1` to `baton checkpoint create`: the handoff you make ready" in told
    _start(repo, "codex", session="s2")  # another session at work on the same branch
    handoff_id = run_json(capsys, repo, "checkpoint", "create", "--session", "s1", "--no-input", "--title", "T",
                          "--objective", "The parser resumes after a bad token", "--current-state", "Statements done",
                          "--open-item", '{"description": "Recover inside expressions", "suggested_action": "Sync at '
                          'operators", "acceptance_check": "A bad token mid-expression parses the rest"}')["id"]
    validate_handoff_command(repo, handoff_id)
    promote_handoff(repo, handoff_id, accept_warnings="tests")
    assert _event(repo, "codex", 2, session="s1").result.baton == handoff_id


def test_a_session_end_on_a_branch_whose_key_holds_another_branchs_baton_keeps_both_and_says_so(repo):
    from dulwich import porcelain

    porcelain.branch_create(str(repo), "feature/x")
    porcelain.checkout(str(repo), "feature/x")
    with Baton.open(repo) as app:
        waiting = app.end_session("s0", {"nextSteps": ["Underscore work"]}, branch="feature_x").created.record.id
    _start(repo, "claude-code", session="s1")
    handoff_id = _write_ready_handoff(repo, "s1")
    ended = _event(repo, "claude-code", 2, session="s1")
    assert ended.result.ended and ended.result.baton is None
    [said] = ended.result.notices
    assert said.startswith(f"Handoff {handoff_id} was not handed on") and "'feature_x'" in said
    with Baton.open(repo) as app:
        assert app.show(handoff_id).to_json()["handoff"]["status"] == "ready"  # still resumable
        assert [b["id"] for b in app.pending_batons().to_json()["items"]] == [waiting]


@pytest.mark.parametrize("harness", ["claude-code", "codex"])
def test_an_automatic_compactions_draft_is_not_told_to_the_next_session_as_unfinished(repo, harness):
    """Tester harness15 G8: a draft Baton saved defensively before an automatic compaction, in a
    session that carried on and ended normally, is no failed handoff: the end says nothing of it
    and the next session is not told to complete it (it stays a draft: ``baton handoff list``)."""
    _start(repo, harness, session="s1")
    _event(repo, harness, 1, session="s1", trigger="auto")
    ended = _event(repo, harness, 2, session="s1")
    assert ended.result.ended and ended.result.baton is None and ended.result.notices == ()
    brief = injected(harness, _start(repo, harness, session="s2").answer) or ""
    assert "was not handed on" not in brief
    with Baton.open(repo) as app:
        assert len(app.list_handoffs(status="draft").to_json()["handoffs"]) == 1
