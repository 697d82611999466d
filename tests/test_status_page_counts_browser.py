"""The Handoffs tab says how many of the project's handoffs its ten rows are:
at a year of a team's use it showed ten rows under "Latest handoffs" and
nothing said there were 13,336 (the text view says "Latest 10 of 13336").

Skips when no Chromium is installed (as tests/test_status_page_browser.py).
"""

from __future__ import annotations

import pytest

from baton.app import Baton
from tests.browser_support import IN_A_BROWSER, find_chromium, status_page_open
from tests.handoff_support import payload

CHROMIUM = find_chromium()
pytestmark = [IN_A_BROWSER, pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (apt-get install chromium, or "
                                                         "set BATON_CHROMIUM): the page's browser tests need one")]


def _count_shown(root) -> str:
    with status_page_open(root, CHROMIUM) as page:
        page.eval("document.getElementById('tabbtn-handoffs').click()")
        page.wait_for("document.querySelectorAll('#latest-rows tr.row').length > 0")
        return page.eval("document.getElementById('latest-count').textContent")


@pytest.mark.parametrize(("captured", "said"), [(12, "10 of 12"), (3, "3")])
def test_the_handoffs_tab_says_how_many_of_the_projects_handoffs_it_shows(project, captured, said):
    with Baton.open(project) as app:
        for _ in range(captured):
            app.capture(payload())
    assert _count_shown(project) == said
