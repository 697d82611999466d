"""The status page says of a record from a feed no trusted key vouches for what the command line
says, in the same words (``baton.domain.feed_vouch``): opening a withheld handoff is refused as
``resume`` and ``handoff show`` refuse it; a pending baton's card says what a session would be
told of it (a withheld one's steps are not served); its rows carry the list's mark. Through the
page's HTTP answers (its server on a loopback port), with real git remotes and ssh-keygen keys."""

from __future__ import annotations

import shutil

import pytest

from baton.domain.short_ids import short_id
from tests.app_support import project_id_of, status_server
from tests.cli_support import run, run_json
from tests.test_feed_vouch import STEP, _baton_from_a
from tests.test_feed_vouch_reads import _handoff_from_a, _unsign, signing_team, unsigned_team  # noqa: F401
from tests.test_status_page import request
from tests.test_sync_signing import require_signatures

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="needs OpenSSH's ssh-keygen")

BOB = ("--owner", "bob@example.com", "--branch", "main")


def _get(b, path: str = ""):
    with status_server(b) as server:
        return request(server, "GET", f"/api/handoffs{path}?project={project_id_of(b)}")


def _withheld_handoff(capsys, team):
    _remote, a, b = team
    _unsign(a)
    ident = _handoff_from_a(capsys, a, b)
    require_signatures(b)
    return b, ident


def test_opening_a_withheld_handoff_is_refused_in_the_words_resume_uses(capsys, signing_team):
    b, ident = _withheld_handoff(capsys, signing_team)
    _code, _out, resumed = run(capsys, b, "resume", ident)
    answer = _get(b, f"/{ident}")
    assert answer.status == 409
    assert f"baton: {answer.json['error']['message']}\n" == resumed
    assert answer.json["error"]["details"]["feed"]["withheld"] is True


def test_the_pages_refusal_says_why_where_the_requirement_comes_from_and_what_to_do(capsys, signing_team):
    b, ident = _withheld_handoff(capsys, signing_team)
    message = _get(b, f"/{ident}").json["error"]["message"]
    assert f"A handoff ({ident}) was withheld: it comes from an unsigned feed" in message
    assert "this project requires signatures (sync.require_signatures is set)" in message
    assert "Run `baton verify`" in message and "`baton sync` takes it" in message


def test_the_latest_row_of_a_withheld_handoff_carries_the_mark_handoff_list_shows(capsys, signing_team):
    b, ident = _withheld_handoff(capsys, signing_team)
    row = next(r for r in _get(b).json["latestHandoffs"] if r["id"] == ident)
    _code, listed, _ = run(capsys, b, "handoff", "list")
    assert row["feedMark"] == " (not verified; withheld)"
    assert row["feedMark"] in next(line for line in listed.splitlines() if short_id(ident) in line)


def test_a_withheld_batons_card_says_why_in_the_words_session_handoff_uses_and_serves_no_step(
        capsys, signing_team):
    _remote, a, b = signing_team
    _unsign(a)
    ident = _baton_from_a(capsys, a, b)
    require_signatures(b)
    told = run_json(capsys, b, "session", "handoff", *BOB)["withheld"]
    answer = _get(b)
    card = next(item for item in answer.json["items"] if item["id"] == ident)
    assert card["feedNotice"] == told and card["nextSteps"] == []
    assert STEP.encode() not in answer.body


def test_an_unverified_batons_card_carries_the_line_a_session_is_told(capsys, unsigned_team):
    _remote, a, b = unsigned_team
    ident = _baton_from_a(capsys, a, b)
    shown = run_json(capsys, b, "session", "handoff", *BOB)["handoffMarkdown"]
    card = next(item for item in _get(b).json["items"] if item["id"] == ident)
    assert f"> {card['feedNotice']}" in shown and card["feedMark"] == " (not verified)"
    assert card["nextSteps"] == [STEP]


def test_a_card_of_a_baton_this_clone_left_has_no_feed(capsys, unsigned_team):
    _remote, _a, b = unsigned_team
    run_json(capsys, b, "session", "end", "s-b", "--handoff-steps", STEP, *BOB)
    card = _get(b).json["items"][0]
    assert "feed" not in card and "feedNotice" not in card


def test_baton_status_text_marks_a_withheld_baton_and_says_why(capsys, signing_team):
    _remote, a, b = signing_team
    _unsign(a)
    ident = _baton_from_a(capsys, a, b)
    require_signatures(b)
    _code, text, _ = run(capsys, b, "status")
    assert "(not verified; withheld)" in text and STEP not in text
    assert f"A baton ({ident}) was withheld" in text
