"""The status page's Active handoffs panel shows a baton superseded unseen (docs/sync.md
"Batons left apart on one owner/branch") as ``baton status`` words it: who left it, its
objective, what replaced it and how to read it, with a button that opens it. Real clones and a
real remote (``tests/sync_support``), the page in a real headless Chromium.

Skips when no Chromium is installed (as tests/test_status_page_browser.py).
"""

from __future__ import annotations

import json

import pytest

from tests.app_support import status_server
from tests.browser_support import IN_A_BROWSER, Browser, find_chromium
from tests.cli_support import run_json
from tests.sync_support import BATON_OWNER, batons_left_apart, leave_baton_for, make_team, writer_of

CHROMIUM = find_chromium()
pytestmark = [IN_A_BROWSER, pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (apt-get install chromium, or "
                                                         "set BATON_CHROMIUM): the page's browser tests need one")]


@pytest.fixture(scope="module")
def browser():
    opened = Browser(CHROMIUM)
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


def _card(baton_id: str) -> str:
    return json.dumps(f'#unseen-list article[data-unseen-id="{baton_id}"]')


def test_the_panel_shows_a_baton_superseded_unseen_with_who_left_it_and_how_to_read_it(capsys, team, browser):
    a, b, alices, bobs = batons_left_apart(capsys, team)
    with status_server(b) as server:
        page = browser.open(server.url)
        page.wait_for(f"document.querySelector({_card(alices)}) !== null")
        text = page.eval(f"document.querySelector({_card(alices)}).textContent")
        heading = page.eval("document.querySelector('#unseen-list h3').textContent")
    assert heading == "Superseded unseen1"  # the title and its count chip
    assert f"by writer {writer_of(a)} (session alice-s)" in text and f"for {BATON_OWNER} on main" in text
    assert "Objective: alice's step for bob" in text
    assert f"Replaced by baton {bobs}, left apart without seeing it" in text
    assert f"Read it with baton resume {alices} (or baton handoff show {alices})." in text


def test_the_open_button_of_a_baton_superseded_unseen_shows_its_record(capsys, team, browser):
    _a, b, alices, _bobs = batons_left_apart(capsys, team)
    with status_server(b) as server:
        page = browser.open(server.url)
        button = f'#unseen-list button.open-unseen[data-open="{alices}"]'
        page.wait_for(f"document.querySelector({json.dumps(button)}) !== null")
        page.click(button)
        page.wait_for(f"document.getElementById('handoff-view').getAttribute('data-id') === {json.dumps(alices)}")
        body = page.eval("document.getElementById('view-body').textContent")
    assert "alice's step for bob" in body


def test_the_panel_shows_the_older_as_replaced_unread_when_the_newer_batons_writer_saw_it(
        capsys, team, browser):
    _remote, a, b = team
    leave_baton_for(capsys, a, "alice-s", "alice's step for bob")
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")  # bob's clone sees alice's baton before he leaves his own
    bobs = leave_baton_for(capsys, b, "bob-s", "bob's own step")
    with status_server(b) as server:
        page = browser.open(server.url)
        page.wait_for(f"document.querySelector('#handoffs-list [data-baton-id=\"{bobs}\"]') !== null")
        assert page.eval("document.getElementById('unseen-list').children.length") == 1  # nobody read it
        assert "before any session read this one" in page.eval("document.getElementById('unseen-list').textContent")
