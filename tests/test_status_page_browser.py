"""The status page in a real (headless) browser: the Handoffs tab's rows open a
handoff's view — the same content as ``handoff show --format md``, rendered
without raw HTML — with freshness, score and branch columns and a branch
filter; session batons have a panel of their own; the header holds together
on a 390 px wide phone.

Skips when no Chromium is installed (Debian: ``apt-get install chromium``;
or point ``BATON_CHROMIUM`` at one).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dulwich import porcelain

from tests.app_support import project_id_of, status_server
from tests.browser_support import IN_A_BROWSER, Browser, find_chromium
from tests.conftest import run_baton
from tests.handoff_support import git_commit, git_init

CHROMIUM = find_chromium()
pytestmark = [IN_A_BROWSER, pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (apt-get install chromium, or "
                                                         "set BATON_CHROMIUM): the page's browser tests need one")]

HOSTILE = 'Docs <img src=x onerror="document.title=\'pwned\'"> rewrite'


def cli(root: Path, *args: str, expect: int = 0):
    r = run_baton(*args, "--json", "--project", str(root))
    assert r.returncode == expect, (r.returncode, r.stdout, r.stderr)
    return json.loads(r.stdout)


def ready(root: Path, title: str, *, cwd_branch: str | None = None, item: str = "finish the work") -> str:
    hid = cli(root, "checkpoint", "create", "--no-input", "--title", title, "--objective", f"{title} works",
              "--artifact", "src/app.py", "--completed", "started", "--current-state", "half done",
              "--open-item", json.dumps({"description": item, "suggested_action": "write it",
                                         "acceptance_check": "its test passes"}))["id"]
    cli(root, "handoff", "validate", hid)
    cli(root, "handoff", "ready", hid, "--accept-warnings", "test repository")
    return hid


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A project with handoffs on two branches (one amended), a session baton,
    and its status server; plus one headless browser for the module."""
    import os

    root = tmp_path_factory.mktemp("site") / "proj"
    root.mkdir()
    git_init(root, {"src/app.py": "v1\n"})
    os.environ.setdefault("GIT_CONFIG_NOSYSTEM", "1")
    import subprocess

    subprocess.run(["git", "config", "user.email", "ann@example.com"], cwd=root, check=True)
    cli(root, "init")
    oauth = ready(root, "OAuth replay", item="add the replay fixture")
    porcelain.branch_create(str(root), "feature/docs")
    with porcelain.open_repo_closing(str(root)) as repo:
        repo.refs.set_symbolic_ref(b"HEAD", b"refs/heads/feature/docs")
    git_commit(root, {"docs/guide.md": "guide\n"}, message="docs")
    docs = ready(root, HOSTILE, item="**bold** and `code` and <script>alert(1)</script>")
    child = cli(root, "handoff", "amend", docs, "--close-item", "O-1", "--work-state", "completed")["id"]
    cli(root, "session", "end", "s-1", "--handoff-steps", "check the docs build")
    with status_server(root) as server:
        browser = Browser(CHROMIUM)
        try:
            yield {"root": root, "url": server.url, "oauth": oauth, "docs": docs, "child": child, "browser": browser,
                   "project_id": project_id_of(root)}
        finally:
            browser.close()


def open_handoffs_tab(site, *, width: int = 1280):
    page = site["browser"].open(site["url"], width=width)
    page.eval("document.getElementById('tabbtn-handoffs').click()")
    page.wait_for("document.querySelectorAll('#latest-rows tr.row').length > 0")
    return page


def rows(page) -> list[list[str]]:
    return page.eval("Array.from(document.querySelectorAll('#latest-rows tr.row')).map("
                     "tr => Array.from(tr.cells).map(td => td.textContent))")


def test_the_handoffs_tab_shows_freshness_score_and_branch_columns(site):
    page = open_handoffs_tab(site)
    heads = page.eval("Array.from(document.querySelectorAll('#latest-panel th')).map(th => th.textContent)")
    assert heads == ["ID", "Status", "Freshness", "Score", "Branch", "By", "Created", "Title"]
    by_title = {r[7]: r for r in rows(page)}
    oauth = by_title["OAuth replay"]
    assert oauth[0] == site["oauth"][-8:] and oauth[4] == "master"
    assert oauth[2] in ("fresh", "partially_stale", "stale", "unknown") and float(oauth[3]) > 0


def test_each_handoff_row_says_who_wrote_it_and_marks_the_readers_own(site):
    page = open_handoffs_tab(site)
    assert {r[5] for r in rows(page)} == {"ann@example.com (you)"}
    assert page.eval("document.querySelectorAll('#latest-rows td.by.mine').length") == len(rows(page))
    page.wait_for("document.querySelectorAll('#baton-rows tr.row').length === 1")
    assert page.eval("document.querySelector('#baton-rows tr.row').cells[2].textContent") == "ann@example.com (you)"


def test_a_pending_batons_card_and_a_handoffs_view_say_who_wrote_them(site):
    page = site["browser"].open(site["url"], width=1280)
    page.wait_for("document.querySelectorAll('#handoffs-list article.baton').length === 1")
    meta = page.eval("document.querySelector('#handoffs-list article.baton .meta').textContent")
    assert "by ann@example.com (you)" in meta
    page = open_handoffs_tab(site)
    page.eval(f"document.querySelector('#latest-rows tr[data-id=\"{site['oauth']}\"]').click()")
    page.wait_for("!document.getElementById('handoff-view').hidden && "
                  "document.getElementById('view-facts').textContent.length > 0")
    assert "by: ann@example.com (you)" in page.eval("document.getElementById('view-facts').textContent")


def test_session_batons_have_their_own_panel(site):
    page = open_handoffs_tab(site)
    titles = [r[7] for r in rows(page)]
    assert not any(t.startswith("Session baton") for t in titles)
    page.wait_for("document.querySelectorAll('#baton-rows tr.row').length === 1")
    baton_titles = page.eval("Array.from(document.querySelectorAll('#baton-rows tr.row')).map(tr => tr.cells[4]"
                             ".textContent)")
    assert len(baton_titles) == 1


def test_the_branch_filter_keeps_the_rows_of_one_branch(site):
    page = open_handoffs_tab(site)
    options = page.eval("Array.from(document.getElementById('branch-filter').options).map(o => o.value)")
    assert options == ["", "feature/docs", "master"]
    page.eval("var s = document.getElementById('branch-filter'); s.value = 'master';"
              "s.dispatchEvent(new Event('change'))")
    assert [r[4] for r in rows(page)] == ["master"]
    page.eval("var s = document.getElementById('branch-filter'); s.value = '';"
              "s.dispatchEvent(new Event('change'))")
    assert {r[4] for r in rows(page)} == {"master", "feature/docs"}


def test_a_row_opens_the_handoffs_view_with_the_content_of_show_md(site):
    page = open_handoffs_tab(site)
    page.eval(f"document.querySelector('#latest-rows tr[data-id=\"{site['oauth']}\"]').click()")
    page.wait_for("!document.getElementById('handoff-view').hidden")
    view_text = page.eval("document.getElementById('view-body').textContent")
    md = run_baton("handoff", "show", site["oauth"], "--format", "md", "--project", str(site["root"])).stdout
    for line in md.splitlines():
        words = line.lstrip("#>-* ").replace("**", "").replace("`", "").strip()
        if len(words) > 2 and words[0] == words[-1] == "_":  # emphasis, shown as italics
            words = words[1:-1]
        if words:
            assert words in view_text
    facts = page.eval("document.getElementById('view-facts').textContent")
    assert "freshness: " in facts and "score: " in facts and "branch: master" in facts
    assert "validated on master@" in facts


def test_the_view_renders_data_as_text_never_as_html(site):
    page = open_handoffs_tab(site)
    page.eval(f"document.querySelector('#latest-rows tr[data-id=\"{site['docs']}\"]').click()")
    page.wait_for("!document.getElementById('handoff-view').hidden")
    assert page.eval("document.querySelectorAll('img, script:not(:first-of-type), iframe').length") == 0
    assert page.eval("document.querySelectorAll('#view-body script, #view-body img').length") == 0
    assert page.eval("document.title") == "Baton status"
    assert HOSTILE in page.eval("document.getElementById('view-title').textContent")
    body = page.eval("document.getElementById('view-body').textContent")
    assert "<script>alert(1)</script>" in body


def test_lineage_links_open_the_related_handoff(site):
    page = open_handoffs_tab(site)
    page.eval(f"document.querySelector('#latest-rows tr[data-id=\"{site['child']}\"]').click()")
    page.wait_for(f"document.getElementById('handoff-view').getAttribute('data-id') === '{site['child']}'")
    page.eval(f"document.querySelector('#view-links [data-open=\"{site['docs']}\"]').click()")
    page.wait_for(f"document.getElementById('handoff-view').getAttribute('data-id') === '{site['docs']}'")
    page.eval("document.getElementById('view-back').click()")
    assert page.eval("document.getElementById('handoff-view').hidden") is True
    assert page.eval("document.getElementById('latest-panel').hidden") is False


def test_a_link_to_a_handoff_opens_its_view(site):
    page = site["browser"].open(site["url"] + "#handoff=" + site["oauth"])
    page.wait_for(f"document.getElementById('handoff-view').getAttribute('data-id') === '{site['oauth']}'")
    assert page.eval("document.getElementById('tab-handoffs').hidden") is False


def test_the_header_holds_together_on_a_390px_phone(site):
    page = site["browser"].open(site["url"], width=390, height=844)
    page.wait_for("document.getElementById('project-line').textContent.indexOf(' · ') > 0")
    assert page.eval("document.documentElement.clientWidth") == 390
    title = page.eval("document.querySelector('header h1').getBoundingClientRect().height")
    line_height = page.eval("parseFloat(getComputedStyle(document.querySelector('header h1')).lineHeight)")
    assert title < 1.5 * line_height  # one line, not one character per line
    assert page.eval("document.getElementById('project-line').getBoundingClientRect().width") > 200


def test_the_page_loads_nothing_from_anywhere_else(site):
    page = open_handoffs_tab(site)
    origins = page.eval("Array.from(new Set(performance.getEntriesByType('resource').map(e => new URL(e.name).origin)))")
    assert origins == [site["url"].rstrip("/")]


# -- a phone and a desktop (issue 26): nothing sideways, no column squeezed -------------------------

LAYOUT_PROBLEMS = r"""
(function () {
  var problems = [], doc = document.documentElement;
  function name(e) { return e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") +
    (e.className && typeof e.className === "string" ? "." + e.className.split(" ").join(".") : ""); }
  function shown(e) { return e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden"; }
  if (doc.scrollWidth > doc.clientWidth) {
    problems.push("the page scrolls sideways: " + doc.scrollWidth + " > " + doc.clientWidth);
  }
  document.querySelectorAll("body *").forEach(function (e) {
    if (!shown(e)) { return; }
    var style = getComputedStyle(e), box = e.getBoundingClientRect();
    if ((style.overflowX === "auto" || style.overflowX === "scroll") && e.scrollWidth > e.clientWidth + 1) {
      problems.push(name(e) + " scrolls sideways (" + e.scrollWidth + " > " + e.clientWidth + ")");
    }
    if (box.width > 0 && (box.right > doc.clientWidth + 1 || box.left < -1)) {
      problems.push(name(e) + " sticks out of the page (" + Math.round(box.left) + ".." + Math.round(box.right) + ")");
    }
  });
  // Every piece of text at least as wide as its shortest word: a column squeezed
  // narrower than that breaks every word of it, letter by letter.
  var walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (var node = walker.nextNode(); node; node = walker.nextNode()) {
    var parent = node.parentElement, words = node.textContent.split(/\s+/).filter(Boolean);
    if (!words.length || !parent || !shown(parent) || /^(SCRIPT|STYLE|OPTION|SELECT)$/.test(parent.tagName)) {
      continue;
    }
    var probe = document.createElement("span");
    probe.style.whiteSpace = "nowrap";
    parent.appendChild(probe);
    var shortest = Infinity, word = "";
    words.forEach(function (w) {
      probe.textContent = w;
      var width = probe.getBoundingClientRect().width;
      if (width < shortest) { shortest = width; word = w; }
    });
    parent.removeChild(probe);
    var range = document.createRange();
    range.selectNodeContents(node);
    var used = range.getBoundingClientRect().width;
    if (used + 1 < Math.min(shortest, doc.clientWidth / 2)) {  // a word longer than half the page may wrap
      problems.push(name(parent) + " is " + Math.round(used) + " px wide, narrower than its shortest word " +
        JSON.stringify(word) + " (" + Math.round(shortest) + " px)");
    }
  }
  return problems;
})()
"""

VIEWS = ["tab-prompts", "tab-handoffs", "tab-batons", "tab-lineage", "handoff"]


def open_view(site, view: str, width: int):
    if view == "handoff":
        page = site["browser"].open(site["url"] + "#handoff=" + site["docs"], width=width, height=844)
        page.wait_for(f"document.getElementById('handoff-view').getAttribute('data-id') === '{site['docs']}'")
        return page
    page = site["browser"].open(site["url"], width=width, height=844)
    page.wait_for("document.querySelectorAll('#latest-rows tr.row').length > 0 && "
                  "document.querySelectorAll('#handoffs-list article').length > 0")
    page.eval(f"document.querySelector('[data-tab=\"{view}\"]').click()")
    return page


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("view", VIEWS)
def test_nothing_overflows_sideways_and_no_column_is_narrower_than_its_shortest_word(site, view, width):
    page = open_view(site, view, width)
    assert page.eval("window.innerWidth") == width
    assert page.eval(LAYOUT_PROBLEMS) == []


def test_on_a_phone_each_handoff_is_a_card_with_labelled_lines(site):
    page = open_view(site, "tab-handoffs", 390)
    assert page.eval("getComputedStyle(document.querySelector('#latest-panel thead')).position") == "absolute"
    labels = page.eval("Array.from(document.querySelector('#latest-rows tr.row').cells).map("
                       "td => td.getAttribute('data-label'))")
    assert labels == ["ID", "Status", "Freshness", "Score", "Branch", "By", "Created", "Title"]
    first = page.eval("(function () { var tr = document.querySelector('#latest-rows tr.row');"
                      "var top = Array.from(tr.cells).map(td => td.getBoundingClientRect().top);"
                      "return top.indexOf(Math.min.apply(null, top)); })()")
    assert first == 7  # the title leads the card


def test_the_tabs_say_what_they_hold(site):
    page = site["browser"].open(site["url"])
    labels = page.eval("Array.from(document.querySelectorAll('[role=tab]')).map(t => t.textContent)")
    assert labels == ["Active handoffs", "Handoffs", "Batons", "Lineage"]
    assert page.eval("document.querySelector('#handoffs-panel h2').textContent").startswith("Active handoffs")


def test_a_pending_baton_shows_as_pending_never_as_draft(site):
    page = open_view(site, "tab-batons", 1280)
    page.wait_for("document.querySelectorAll('#baton-rows tr.row').length === 1")
    assert page.eval("document.querySelector('#baton-rows tr.row').cells[1].textContent") == "pending"
    cards = page.eval("document.getElementById('handoffs-list').textContent")
    assert "draft" not in cards


def test_the_view_renders_markdown_emphasis_instead_of_showing_it(site):
    baton = cli(site["root"], "handoff", "list", "--kind", "baton")["handoffs"][0]["id"]
    page = site["browser"].open(site["url"] + "#handoff=" + baton)
    page.wait_for(f"document.getElementById('handoff-view').getAttribute('data-id') === '{baton}'")
    emphasis = page.eval("Array.from(document.querySelectorAll('#view-body em')).map(e => e.textContent)")
    assert any(e.startswith("Baton handoff ") and " head " in e for e in emphasis)
    body = page.eval("document.getElementById('view-body').textContent")
    assert "_Baton handoff" not in body
    facts = page.eval("document.getElementById('view-facts').textContent")
    assert "baton: pending" in facts and "status: draft" not in facts


def test_an_underscore_inside_a_word_is_not_emphasis(site):
    page = site["browser"].open(site["url"] + "#handoff=" + site["docs"])
    page.wait_for(f"document.getElementById('handoff-view').getAttribute('data-id') === '{site['docs']}'")
    assert "evidence_coverage" in page.eval("document.getElementById('view-body').textContent") or \
        "not_run" in page.eval("document.getElementById('view-body').textContent")
    assert page.eval("Array.from(document.querySelectorAll('#view-body em')).every("
                     "e => !/^(coverage|run)$/.test(e.textContent))")


def test_an_open_view_of_a_handoff_forgotten_meanwhile_closes_at_the_next_refresh(site, tmp_path):
    root = tmp_path / "forgetting"
    root.mkdir()
    cli(root, "init")
    planted = "PLANTED-IN-THE-VIEW-3e9a"
    gone = cli(root, "checkpoint", "create", "--no-input", "--title", f"{planted} plan",
               "--objective", f"{planted} works")["id"]
    with status_server(root) as server:
        page = site["browser"].open(server.url + "#handoff=" + gone)
        page.wait_for(f"document.getElementById('handoff-view').getAttribute('data-id') === '{gone}'")
        assert planted in page.eval("document.getElementById('view-body').textContent")
        cli(root, "forget", gone, "--yes")
        page.eval("document.getElementById('refresh').click()")
        page.wait_for("document.getElementById('handoff-view').hidden")
        assert planted not in page.eval("document.body.textContent")
        assert "no longer there" in page.eval("document.getElementById('status-line').textContent")
