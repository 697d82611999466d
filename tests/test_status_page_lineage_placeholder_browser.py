"""The status page's Lineage panel, in a real (headless) browser, shows a parent
with no record as ``baton lineage`` does: ``22e3997c (erased by `baton
forget`)`` for one ``baton forget`` erased, ``(not in this ledger)`` for one
missing, with its forks below it, never as ``erased 22e3997c erased · ``.

Skips when no Chromium is installed (Debian: ``apt-get install chromium``;
or point ``BATON_CHROMIUM`` at one).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.app_support import status_server
from tests.browser_support import IN_A_BROWSER, Browser, find_chromium
from tests.conftest import run_baton

CHROMIUM = find_chromium()
pytestmark = [IN_A_BROWSER, pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (apt-get install chromium, or "
                                                         "set BATON_CHROMIUM): the page's browser tests need one")]

TREE_LINES = ("Array.from(document.querySelectorAll('#lineage-tree li')).map("
              "li => Array.from(li.childNodes).filter(c => c.tagName !== 'UL').map(c => c.textContent).join(''))")


def cli(root: Path, *args: str) -> dict:
    r = run_baton(*args, "--json", "--project", str(root))
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
    return json.loads(r.stdout)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A project whose captured parent was forked twice and then forgotten; its status server and a browser."""
    root = tmp_path_factory.mktemp("placeholder") / "proj"
    root.mkdir()
    cli(root, "init")
    parent = cli(root, "checkpoint", "create", "--no-input", "--title", "Parent plan",
                 "--objective", "Parent plan objective here")["id"]
    forks = [cli(root, "fork", parent, "--label", label)["id"] for label in ("redis", "pg")]
    cli(root, "forget", parent, "--yes")
    with status_server(root) as server:
        browser = Browser(CHROMIUM)
        try:
            yield {"url": server.url, "parent": parent, "forks": forks, "browser": browser}
        finally:
            browser.close()


def open_lineage_tab(site):
    page = site["browser"].open(site["url"])
    page.eval("document.getElementById('tabbtn-lineage').click()")
    page.wait_for("document.querySelectorAll('#lineage-tree li').length > 0")
    return page


def test_a_forgotten_parent_reads_as_erased_by_baton_forget_with_its_forks_below_it(site):
    page = open_lineage_tab(site)
    short = site["parent"][-8:]
    lines = page.eval(TREE_LINES)
    assert lines[0] == f"{short} (erased by `baton forget`)"
    below = page.eval("Array.from(document.querySelectorAll('#lineage-tree > ul > li > ul > li > code'))"
                      ".map(c => c.textContent)")
    assert sorted(below) == sorted(fork[-8:] for fork in site["forks"])


def test_a_parent_missing_from_the_ledger_reads_as_not_in_this_ledger(site):
    page = open_lineage_tab(site)
    # No command leaves a parent with neither record nor stream (a damaged or partial
    # ledger does): the page's own API answer, with the placeholder's status made `missing`.
    page.eval("""(function () {
      var real = window.fetch;
      window.fetch = function (url, init) {
        return real(url, init).then(function (r) {
          if (String(url).indexOf('/api/handoffs?') !== 0) { return r; }
          return r.json().then(function (body) {
            body.lineage.nodes.forEach(function (n) {
              if (n.status === 'erased') { n.status = 'missing'; n.relation = 'missing'; }
            });
            return new Response(JSON.stringify(body), {status: r.status, headers: {'Content-Type': 'application/json'}});
          });
        });
      };
      document.getElementById('refresh').click();
      return true;
    })()""")
    short = site["parent"][-8:]
    page.wait_for("document.querySelector('#lineage-tree li').textContent.indexOf('not in this ledger') >= 0")
    assert page.eval(TREE_LINES)[0] == f"{short} (not in this ledger)"
