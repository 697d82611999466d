"""Every path that delivers or claims a baton asks the one rule the session-start brief asks
(``feed_vouch.baton_vouch``): ``session begin`` (and MCP ``session_start``) marks the baton it
claims, or withholds it when signatures are required; a handoff handed on as a baton keeps its
feed's mark; ``session handoff --all`` marks its rows. And ``resume latest`` (the MCP tool too)
passes over a withheld handoff, saying which and why, while one named by its id is still
refused (docs/security.md, "Batons from unverified feeds"). Real git remotes, real ssh-keygen keys."""

from __future__ import annotations

import shutil

import pytest

from tests.cli_support import run, run_json
from tests.harness_support import fixture, hook, injected
from tests.test_feed_vouch import STEP, _baton_from_a
from tests.test_feed_vouch_reads import _handoff_from_a, _ready, _unsign, signing_team, unsigned_team  # noqa: F401
from tests.test_sync_signing import require_signatures, writer

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="needs OpenSSH's ssh-keygen")

BOB = ("--owner", "bob@example.com", "--branch", "main")
NOT_VERIFIED = "its author is not verified"
REQUIRED_BY = "this project requires signatures (sync.require_signatures is set)"


def _withheld_baton(capsys, team) -> tuple[object, str]:
    """(b, the baton a left for bob from an unsigned feed), b requiring signatures."""
    _remote, a, b = team
    _unsign(a)
    ident = _baton_from_a(capsys, a, b)  # imported flagged while signatures were not required
    require_signatures(b)
    return b, ident


def _pending(capsys, b) -> list[str]:
    return [item["id"] for item in run_json(capsys, b, "session", "handoff", "--all", "--json")["items"]]


# -- session begin ------------------------------------------------------------------------------

def test_session_begin_claims_a_baton_from_an_unsigned_feed_with_the_line_saying_its_author_is_not_verified(
        capsys, unsigned_team):
    _remote, a, b = unsigned_team
    ident = _baton_from_a(capsys, a, b)
    code, text, _ = run(capsys, b, "session", "begin", "--session-id", "s-b", *BOB)
    assert code == 0 and STEP in text
    assert f"From a feed no trusted key vouches for (writer `{writer(a)}`): {NOT_VERIFIED}" in text
    assert ident not in _pending(capsys, b)  # claimed all the same


def test_session_begin_json_carries_the_batons_feed(capsys, unsigned_team):
    _remote, a, b = unsigned_team
    _baton_from_a(capsys, a, b)
    out = run_json(capsys, b, "session", "begin", "--session-id", "s-b", *BOB)
    assert out["feed"] == {"writer": writer(a), "status": None, "verified": False, "withheld": False}
    assert NOT_VERIFIED in out["handoffMarkdown"]


def test_session_begin_of_a_baton_this_clone_left_has_no_feed(capsys, unsigned_team):
    _remote, a, _b = unsigned_team
    run_json(capsys, a, "session", "end", "s-a", "--handoff-steps", STEP, *BOB)
    out = run_json(capsys, a, "session", "begin", "--session-id", "s-a2", *BOB)
    assert out["handoff"] is not None and "feed" not in out and "not verified" not in out["handoffMarkdown"]


def test_with_signatures_required_session_begin_withholds_the_baton_and_claims_nothing(capsys, signing_team):
    b, ident = _withheld_baton(capsys, signing_team)
    code, text, _ = run(capsys, b, "session", "begin", "--session-id", "s-b", *BOB)
    assert code == 0 and STEP not in text
    assert f"A baton ({ident}) was withheld: it comes from an unsigned feed" in text and REQUIRED_BY in text
    assert ident in _pending(capsys, b)


def test_session_begin_withholds_in_the_words_session_handoff_uses(capsys, signing_team):
    b, _ident = _withheld_baton(capsys, signing_team)
    shown = run_json(capsys, b, "session", "handoff", *BOB)["withheld"]
    begun = run_json(capsys, b, "session", "begin", "--session-id", "s-b", *BOB)
    assert begun["withheld"] == shown and begun["handoff"] is None and begun["receivedBaton"] is None


@pytest.mark.anyio
async def test_the_mcp_session_start_withholds_the_baton_as_session_begin_does(capsys, signing_team):
    from mcp import Client

    from baton.mcp_server import build_server

    b, ident = _withheld_baton(capsys, signing_team)
    async with Client(build_server(b)) as client:
        started = await client.call_tool("baton_session", {"action": "session_start", "session_id": "s-m",
                                                           "owner": "bob@example.com", "branch": "main"})
    out = started.structured_content
    assert out["handoff"] is None and f"A baton ({ident}) was withheld" in out["withheld"]
    assert STEP not in str(out)


# -- a handoff handed on as a baton ---------------------------------------------------------------

def test_a_handoff_from_an_unsigned_feed_handed_on_as_a_baton_keeps_its_mark(capsys, unsigned_team):
    _remote, a, b = unsigned_team
    ident = _handoff_from_a(capsys, a, b)
    code, text, _ = run(capsys, b, "session", "handoff", "--from", ident, *BOB)
    assert code == 0 and "continues an unverified handoff" in text
    brief = run_json(capsys, b, "bootstrap", "--peek", *BOB)["brief"]
    assert f"From a feed no trusted key vouches for (writer `{writer(a)}`): {NOT_VERIFIED}" in brief


def test_a_shared_baton_handed_on_from_a_teammates_handoff_names_that_handoffs_claimed_author(
        capsys, unsigned_team):
    _remote, a, b = unsigned_team
    ident = _handoff_from_a(capsys, a, b)
    author = next(h["owner"] for h in run_json(capsys, b, "handoff", "list", "--json")["handoffs"] if h["id"] == ident)
    run(capsys, b, "session", "handoff", "--from", ident, "--shared", *BOB)

    brief = run_json(capsys, b, "bootstrap", "--peek", *BOB)["brief"]
    line = next(line for line in brief.splitlines() if NOT_VERIFIED in line and "From " in line)
    assert f"(writer `{writer(a)}`)" in line and f"`{author}` is who it claims to be" in line
    assert "bob@example.com" not in line


def test_with_signatures_required_a_withheld_handoff_is_not_handed_on(capsys, signing_team):
    _remote, a, b = signing_team
    _unsign(a)
    ident = _handoff_from_a(capsys, a, b)
    require_signatures(b)
    _code, _out, resumed = run(capsys, b, "resume", ident)
    code, _out, err = run(capsys, b, "session", "handoff", "--from", ident, *BOB)
    assert code == 4 and err == resumed
    assert _pending(capsys, b) == []


def test_a_baton_handed_on_before_signatures_were_required_is_withheld_at_the_next_start(capsys, signing_team):
    _remote, a, b = signing_team
    _unsign(a)
    ident = _handoff_from_a(capsys, a, b)
    run_json(capsys, b, "session", "handoff", "--from", ident, *BOB)
    require_signatures(b)
    out = run_json(capsys, b, "session", "begin", "--session-id", "s-b", *BOB)
    assert out["handoff"] is None and f"A baton ({ident}) was withheld" in out["withheld"]


# -- session handoff --all ------------------------------------------------------------------------

def test_session_handoff_all_marks_a_pending_baton_from_an_unsigned_feed(capsys, unsigned_team):
    _remote, a, b = unsigned_team
    ident = _baton_from_a(capsys, a, b)
    _code, text, _ = run(capsys, b, "session", "handoff", "--all")
    row = next(line for line in text.splitlines() if line.startswith(ident))
    assert "(not verified)" in row and STEP in row
    item = run_json(capsys, b, "session", "handoff", "--all", "--json")["items"][0]
    assert item["feed"]["writer"] == writer(a) and item["feed"]["withheld"] is False


def test_session_handoff_all_shows_no_step_of_a_withheld_baton(capsys, signing_team):
    b, ident = _withheld_baton(capsys, signing_team)
    _code, text, _ = run(capsys, b, "session", "handoff", "--all")
    row = next(line for line in text.splitlines() if line.startswith(ident))
    assert "(not verified; withheld)" in row and STEP not in text


# -- resume latest --------------------------------------------------------------------------------

def _withheld_newest(capsys, team) -> tuple[object, str, str]:
    """(b, bob's own ready handoff, a newer one from a's unsigned feed), b requiring signatures."""
    _remote, a, b = team
    mine = _ready(capsys, b, "bob's own")
    _unsign(a)
    theirs = _handoff_from_a(capsys, a, b)
    require_signatures(b)
    return b, mine, theirs


def test_resume_latest_skips_a_withheld_handoff_and_says_which_and_why(capsys, signing_team):
    b, mine, theirs = _withheld_newest(capsys, signing_team)
    code, text, _ = run(capsys, b, "resume", "latest")
    assert code == 0 and "RESUME BRIEF: bob's own" in text
    notes = [line for line in text.splitlines() if theirs in line]
    assert len(notes) == 1 and notes[0].startswith("Note: Skipped the newest: ")
    assert f"A handoff ({theirs}) was withheld: it comes from an unsigned feed" in notes[0]
    assert REQUIRED_BY in notes[0] and "baton verify" in notes[0]


def test_resume_latest_json_names_the_handoff_it_skipped(capsys, signing_team):
    b, mine, theirs = _withheld_newest(capsys, signing_team)
    out = run_json(capsys, b, "resume")
    assert out["id"] == mine and [s["id"] for s in out["latest"]["skipped"]] == [theirs]
    assert out["latest"]["skipped"][0]["feed"]["withheld"] is True


def test_resume_of_a_withheld_handoff_named_by_its_id_is_still_refused(capsys, signing_team):
    b, _mine, theirs = _withheld_newest(capsys, signing_team)
    code, _out, err = run(capsys, b, "resume", theirs)
    assert code == 4 and f"A handoff ({theirs}) was withheld" in err


def test_resume_latest_with_only_withheld_handoffs_ready_says_none_may_be_resumed(capsys, signing_team):
    _remote, a, b = signing_team
    _unsign(a)
    theirs = _handoff_from_a(capsys, a, b)
    require_signatures(b)
    code, out, err = run(capsys, b, "resume", "latest")
    assert code == 4 and out == ""
    assert "no ready handoff may be resumed here" in err and f"A handoff ({theirs}) was withheld" in err


def test_resume_latest_of_an_unsigned_feed_without_the_requirement_resumes_it_marked(capsys, unsigned_team):
    _remote, a, b = unsigned_team
    _ready(capsys, b, "bob's own")
    theirs = _handoff_from_a(capsys, a, b)
    out = run_json(capsys, b, "resume")
    assert out["id"] == theirs and "skipped" not in out["latest"] and out["feed"]["withheld"] is False


@pytest.mark.anyio
async def test_the_mcp_handoff_resume_tool_skips_a_withheld_latest_as_the_cli_does(capsys, signing_team):
    from mcp import Client

    from baton.mcp_server import build_server

    b, mine, theirs = _withheld_newest(capsys, signing_team)
    async with Client(build_server(b)) as client:
        resumed = await client.call_tool("handoff_resume", {})
        named = await client.call_tool("handoff_resume", {"id": theirs})
    out = resumed.structured_content
    assert out["id"] == mine and f"A handoff ({theirs}) was withheld" in out["latest"]["skippedNotice"]
    assert named.is_error and f"A handoff ({theirs}) was withheld" in str(named.structured_content)


@pytest.fixture
def anyio_backend():
    return "asyncio"


# -- a repeated start that continues the conversation (the SessionStart hook) -----------------------

def _received_at_a_hooked_start(capsys, a, b) -> str:
    """A baton a (an unsigned feed) left for b's owner and branch, received by a Claude Code start on b."""
    here = run_json(capsys, b, "session", "handoff")
    ident = run_json(capsys, a, "session", "end", "s-a", "--handoff-steps", STEP, "--owner", here["owner"],
                     "--branch", here["branch"])["handoffId"]
    run(capsys, a, "sync", "--json")
    run(capsys, b, "sync", "--json")
    started = injected("claude-code", _hooked_start(b, "startup").answer) or ""
    assert ident in started and NOT_VERIFIED in started
    return ident


def _hooked_start(clone, source: str):
    return hook(clone, "claude-code", "SessionStart", fixture("claude-code", f"SessionStart.{source}", clone))


def test_the_start_after_a_compaction_repeats_the_received_batons_mark_with_its_steps(capsys, unsigned_team):
    _remote, a, b = unsigned_team
    _received_at_a_hooked_start(capsys, a, b)
    text = injected("claude-code", _hooked_start(b, "compact").answer) or ""
    assert STEP in text and text.index(NOT_VERIFIED) < text.index(STEP)


def test_the_start_after_a_compaction_repeats_no_step_of_a_baton_withheld_since(capsys, signing_team):
    _remote, a, b = signing_team
    _unsign(a)
    ident = _received_at_a_hooked_start(capsys, a, b)
    require_signatures(b)
    text = injected("claude-code", _hooked_start(b, "compact").answer) or ""
    assert f"received baton `{ident}`" in text and STEP not in text


def test_the_start_after_a_compaction_says_why_a_baton_withheld_since_cannot_be_read(capsys, signing_team):
    _remote, a, b = signing_team
    _unsign(a)
    ident = _received_at_a_hooked_start(capsys, a, b)
    require_signatures(b)
    text = injected("claude-code", _hooked_start(b, "compact").answer) or ""
    line = next(line for line in text.splitlines() if f"received baton `{ident}`" in line)
    assert f"A baton ({ident}) was withheld" in line and REQUIRED_BY in line
    assert "`baton handoff show" not in line
