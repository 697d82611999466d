"""While a ``baton forget`` is unfinished (killed after its ``handoff.forgotten`` append, before the
rewrite: payloads still in the ledger), ``baton lineage`` in every format and the status page (its
JSON and its page) say so: the parent's placeholder is ``erasing`` ("forget unfinished"), never
``erased``, as ``handoff show`` and ``verify`` already say. Once the forget is run again it is ``erased``.

The forget is a real process killed with SIGKILL at ``tests/test_forget.py``'s seam.
"""

from __future__ import annotations

import json

import pytest

from baton.domain.lineage import ERASED, ERASING, PLACEHOLDERS
from tests.app_support import project_id_of, status_server
from tests.browser_support import IN_A_BROWSER, find_chromium, status_page_open
from tests.cli_support import forked_twice, run, run_json
from tests.conftest import run_baton
from tests.test_forget import SECRET_TEXT, _forget_killed_after_its_record, files_holding


@pytest.fixture
def interrupted(capsys, project):
    """Parent P forked twice, then a forget of P killed before its rewrite: (P's id, the forks' ids)."""
    parent, forks = forked_twice(capsys, project, objective=f"Parent objective here {SECRET_TEXT}")
    _forget_killed_after_its_record(project, parent[-8:])
    assert files_holding(project / ".baton" / "ledger", SECRET_TEXT)
    return parent, forks


def _node(view: dict, ident: str) -> dict:
    [node] = [n for n in view["nodes"] if n["id"] == ident]
    return node


def test_lineage_json_labels_a_parent_whose_forget_is_unfinished_erasing(capsys, project, interrupted):
    parent, forks = interrupted
    view = run_json(capsys, project, "lineage", "--format", "json")
    node = _node(view, parent)
    assert node["status"] == ERASING and node["relation"] == ERASING
    assert sorted(e["child"] for e in view["edges"] if e["parent"] == parent) == sorted(forks)


def test_lineage_text_says_the_forget_is_unfinished_and_to_run_it_again(capsys, project, interrupted):
    parent, _ = interrupted
    code, out, err = run(capsys, project, "lineage")
    assert code == 0, err
    assert out.splitlines()[0] == f"{parent[-8:]} (forget unfinished: run `baton forget` again)"
    assert "erased by" not in out


def test_lineage_mermaid_and_dot_say_erasing_not_erased(capsys, project, interrupted):
    parent, _ = interrupted
    _, mermaid, _ = run(capsys, project, "lineage", "--format", "mermaid")
    _, dot, _ = run(capsys, project, "lineage", "--format", "dot")
    assert f'n{parent[-8:]}["{parent[-8:]} erasing: forget unfinished: run baton forget again"]' in mermaid
    assert f'"{parent}" [label="{parent[-8:]} erasing\\nforget unfinished: run baton forget again"];' in dot
    assert "erased by" not in mermaid + dot


def test_lineage_of_the_interrupted_handoff_itself_shows_it_erasing(capsys, project, interrupted):
    parent, _ = interrupted
    view = run_json(capsys, project, "lineage", parent[-8:], "--format", "json")
    assert view["root"] == parent and _node(view, parent)["status"] == ERASING


def test_status_json_lineage_labels_the_unfinished_forget_erasing(capsys, project, interrupted):
    parent, _ = interrupted
    assert _node(run_json(capsys, project, "status")["lineage"], parent)["status"] == ERASING


def test_once_the_forget_is_run_again_lineage_says_erased(capsys, project, interrupted):
    parent, _ = interrupted
    run_json(capsys, project, "forget", parent[-8:], "--yes")
    assert _node(run_json(capsys, project, "lineage", "--format", "json"), parent)["status"] == ERASED


def test_the_status_servers_api_labels_the_unfinished_forget_erasing(project, interrupted):
    import http.client

    parent, _ = interrupted
    with status_server(project) as server:
        conn = http.client.HTTPConnection("127.0.0.1", server.app.port, timeout=10)
        conn.request("GET", f"/api/handoffs?project={project_id_of(project)}")
        body = json.loads(conn.getresponse().read())
        conn.close()
    [node] = [n for n in body["lineage"]["nodes"] if n["id"] == parent]
    assert node["status"] == ERASING


CHROMIUM = find_chromium()


@IN_A_BROWSER
@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (apt-get install chromium, or set BATON_CHROMIUM)")
def test_the_status_page_reads_the_unfinished_forget_as_forget_unfinished(tmp_path):
    root = tmp_path / "proj"
    root.mkdir()

    def cli(*args: str) -> dict:
        r = run_baton(*args, "--json", "--project", str(root))
        assert r.returncode == 0, (r.stdout, r.stderr)
        return json.loads(r.stdout)

    cli("init")
    parent = cli("checkpoint", "create", "--no-input", "--title", "Parent plan",
                 "--objective", f"Parent plan objective {SECRET_TEXT}")["id"]
    cli("fork", parent, "--label", "redis")
    _forget_killed_after_its_record(root, parent[-8:])
    with status_page_open(root, CHROMIUM) as page:
        page.eval("document.getElementById('tabbtn-lineage').click()")
        page.wait_for("document.querySelectorAll('#lineage-tree li').length > 0")
        first = page.eval("Array.from(document.querySelector('#lineage-tree li').childNodes)"
                          ".filter(c => c.tagName !== 'UL').map(c => c.textContent).join('')")
    assert first == f"{parent[-8:]} ({PLACEHOLDERS[ERASING]})"
