"""The Handoffs tab says how many of the project's handoffs its ten rows are:
at a year of a team's use it showed ten rows under "Latest handoffs" and
nothing said there were 13,336 (the text view says "Latest 10 of 13336").

Skips when no Chromium is installed (as tests/test_status_page_browser.py).
"""

from __future__ import annotations

import threading

import pytest

from baton.app import Baton
from tests.app_support import listen_target
from tests.browser_support import Browser, find_chromium
from tests.handoff_support import payload

CHROMIUM = find_chromium()
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (apt-get install chromium, or "
                                                         "set BATON_CHROMIUM): the page's browser tests need one")


def _count_shown(root) -> str:
    from baton.web.server import bind_status_server

    server = bind_status_server(listen_target(root, host="127.0.0.1", port=0))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    browser = Browser(CHROMIUM)
    try:
        page = browser.open(server.url)
        page.eval("document.getElementById('tabbtn-handoffs').click()")
        page.wait_for("document.querySelectorAll('#latest-rows tr.row').length > 0")
        return page.eval("document.getElementById('latest-count').textContent")
    finally:
        browser.close()
        server.shutdown()
        thread.join(timeout=10)


@pytest.mark.parametrize(("captured", "said"), [(12, "10 of 12"), (3, "3")])
def test_the_handoffs_tab_says_how_many_of_the_projects_handoffs_it_shows(project, captured, said):
    with Baton.open(project) as app:
        for _ in range(captured):
            app.capture(payload())
    assert _count_shown(project) == said
