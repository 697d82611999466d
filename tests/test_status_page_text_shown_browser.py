"""In a real Chromium, the status page shows a bidirectional control as the
command line prints it (``\\u202e``), so a step stored as ``Run <RLO>mr- fr- /<PDF>
cleanup`` cannot read "Run / -rf -rm cleanup" beside the Dismiss button, and a
long title is clipped in the Handoffs tab as ``handoff list`` clips it.

Skips when no Chromium is installed (as tests/test_status_page_browser.py).
"""

from __future__ import annotations

import pytest

from baton.app import Baton
from baton.domain.wording import TITLE_WIDTH
from tests.app_support import status_server
from tests.batons_support import leave
from tests.browser_support import IN_A_BROWSER, Browser, find_chromium
from tests.handoff_support import payload

CHROMIUM = find_chromium()
pytestmark = [IN_A_BROWSER, pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (apt-get install chromium, or "
                                                         "set BATON_CHROMIUM): the page's browser tests need one")]

RLO, PDF = "\u202e", "\u202c"


@pytest.fixture(scope="module")
def browser():
    opened = Browser(CHROMIUM)
    try:
        yield opened
    finally:
        opened.close()


def test_a_next_step_with_a_bidirectional_control_shows_it_escaped_on_the_card(project, browser):
    leave(project, "s-a", [f"Run {RLO}mr- fr- /{PDF} cleanup"])
    with status_server(project) as server:
        page = browser.open(server.url)
        page.wait_for("document.querySelector('#handoffs-list ol.steps li') !== null")
        step = page.eval("document.querySelector('#handoffs-list ol.steps li').innerText")
        whole = page.eval("document.body.innerText")
    assert step == "Run \\u202emr- fr- /\\u202c cleanup"
    assert RLO not in whole and PDF not in whole


def test_a_title_with_a_bidirectional_control_shows_it_escaped_in_the_handoffs_tab(project, browser):
    with Baton.open(project) as app:
        app.capture(payload(work={"title": f"Rotate keys {RLO}yalp{PDF} then deploy", "objective": "O"}))
    with status_server(project) as server:
        page = browser.open(server.url)
        page.eval("document.getElementById('tabbtn-handoffs').click()")
        page.wait_for("document.querySelectorAll('#latest-rows tr.row').length > 0")
        title = page.eval("document.querySelector('#latest-rows tr.row td.title').innerText")
    assert title == "Rotate keys \\u202eyalp\\u202c then deploy"


def test_a_long_title_is_clipped_in_the_handoffs_tab(project, browser):
    with Baton.open(project) as app:
        app.capture(payload(work={"title": "x" * 120_000, "objective": "O"}))
    with status_server(project) as server:
        page = browser.open(server.url)
        page.eval("document.getElementById('tabbtn-handoffs').click()")
        page.wait_for("document.querySelectorAll('#latest-rows tr.row').length > 0")
        title = page.eval("document.querySelector('#latest-rows tr.row td.title').innerText")
    assert title == "x" * (TITLE_WIDTH - 1) + "\u2026"
