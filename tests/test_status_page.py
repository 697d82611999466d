"""The status page: `baton status`, `baton status serve`, its JSON API and its page
(session-handoff-baton.txt, "Status HTTP", "UI", "Cancellation and dismissal").

The server runs in a thread of this process on port 0; requests go through
http.client to 127.0.0.1, so every Host/Origin header is exactly what the test says.
"""

from __future__ import annotations

import http.client
import os
import signal
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import orjson
import pytest

from baton.commands.status_page import loopback_address
from baton.errors import PolicyBlock, PortInUse
from baton.web.page import PAGE_CSP, SCRIPT, STYLE, _source_hash, render_page
from baton.web.server import bind_status_server
from tests.app_support import listen_target, project_id_of, status_overview, status_server
from tests.batons_support import ALICE, BOB, events, leave, start
from tests.cli_support import run_here
from tests.conftest import run_baton


@pytest.fixture
def served(project):
    with status_server(project) as server:
        yield server


class Answer:
    def __init__(self, response: http.client.HTTPResponse) -> None:
        self.status = response.status
        self.headers = response.headers
        self.body = response.read()

    @property
    def json(self):
        return orjson.loads(self.body)


def request(server, method: str, path: str, *, headers: dict[str, str] | None = None,
            host: str | None = None) -> Answer:
    conn = http.client.HTTPConnection("127.0.0.1", server.app.port, timeout=10)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        conn.putheader("Host", host if host is not None else f"127.0.0.1:{server.app.port}")
        for name, value in (headers or {}).items():
            conn.putheader(name, value)
        conn.endheaders()
        return Answer(conn.getresponse())
    finally:
        conn.close()


def origin_of(server) -> str:
    return f"http://127.0.0.1:{server.app.port}"


def get_handoffs(server, project_id: str) -> Answer:
    return request(server, "GET", f"/api/handoffs?project={project_id}")


def dismiss(server, baton_id: str, project_id: str, **headers: str) -> Answer:
    sent = {"Origin": origin_of(server)} if not headers else {k.replace("_", "-"): v for k, v in headers.items()}
    return request(server, "DELETE", f"/api/handoffs/{baton_id}?project={project_id}", headers=sent)


# -- GET /api/handoffs ------------------------------------------------------------

def test_get_lists_the_pending_batons_newest_first_with_the_spec_fields(project, served):
    older = leave(project, "s-a", ["fix the parser", "run the tests"], failed=["regex approach"],
                  questions=["keep the old flag?"])
    newer = leave(project, "s-b", ["ship it"], owner=BOB, branch="feature/x")
    answer = get_handoffs(served, project_id_of(project))
    assert answer.status == 200
    assert answer.headers["Content-Type"] == "application/json"
    body = answer.json
    assert {"items", "total", "projectId", "lastSeenRoot"} <= set(body)
    assert body["projectId"] == project_id_of(project)
    assert body["lastSeenRoot"] == str(project.resolve())
    assert body["total"] == 2
    assert [i["id"] for i in body["items"]] == [newer.id, older.id]
    item = body["items"][1]
    assert item["owner"] == ALICE and item["branch"] == "main" and item["shared"] is False
    assert item["sessionId"] == "s-a"
    assert item["nextSteps"] == ["fix the parser", "run the tests"]
    assert item["failedApproaches"] == ["regex approach"]
    assert item["openQuestions"] == ["keep the old flag?"]
    assert item["handoffId"] == older.id and item["status"] == "pending"
    assert item["createdAt"] and item["handoffStatus"] == "draft"


def test_get_leaves_out_claimed_batons(project, served):
    leave(project, "s-a", ["claimed soon"])
    start(project, session="s-next")
    body = get_handoffs(served, project_id_of(project)).json
    assert body["items"] == [] and body["total"] == 0


def test_get_lists_the_latest_batons_apart_from_the_latest_handoffs(project, served):
    baton = leave(project, "s-a", ["a step"])
    body = get_handoffs(served, project_id_of(project)).json
    assert body["latestHandoffs"] == []
    assert [h["id"] for h in body["latestBatons"]] == [baton.id]


def test_a_session_batons_row_carries_its_baton_state_not_only_its_draft_record(project, served):
    baton = leave(project, "s-a", ["a step"])
    row = get_handoffs(served, project_id_of(project)).json["latestBatons"][0]
    assert row["id"] == baton.id and row["status"] == "draft" and row["batonStatus"] == "pending"
    start(project, session="s-next")
    row = get_handoffs(served, project_id_of(project)).json["latestBatons"][0]
    assert row["batonStatus"] == "claimed"


def test_a_session_batons_view_carries_its_baton_state(project, served):
    baton = leave(project, "s-a", ["a step"])
    view = request(served, "GET", f"/api/handoffs/{baton.id}?project={project_id_of(project)}").json
    assert view["kind"] == "baton" and view["batonStatus"] == "pending"


@pytest.mark.parametrize("query", ["", "?project=", "?project=all", "?project=ALL", "?project=a&project=b"])
def test_get_without_exactly_one_project_is_400(project, served, query):
    answer = request(served, "GET", f"/api/handoffs{query}")
    assert answer.status == 400
    assert answer.json["error"]["code"] == "input_error"


def test_get_for_another_project_id_is_404(project, served):
    answer = get_handoffs(served, "01900000-0000-7000-8000-000000000000")
    assert answer.status == 404
    assert answer.json["error"]["code"] == "not_found"


# -- DELETE /api/handoffs/{id} --------------------------------------------------------

def test_delete_from_the_page_origin_dismisses_the_baton(project, served):
    baton = leave(project, "s-a", ["to be dismissed"])
    pid = project_id_of(project)
    answer = dismiss(served, baton.id, pid)
    assert answer.status == 200
    assert answer.json["dismissed"] is True and answer.json["handoffId"] == baton.id
    assert get_handoffs(served, pid).json["items"] == []
    dismissed = events(project, "baton.dismissed")
    assert len(dismissed) == 1
    assert dismissed[0].data["handoff_id"] == baton.id and dismissed[0].data["via"] == "status"


def test_delete_with_the_token_and_no_origin_dismisses(project, served):
    baton = leave(project, "s-a", ["from a script"])
    answer = dismiss(served, baton.id, project_id_of(project), X_Baton_Token=served.app.token)
    assert answer.status == 200


def test_delete_from_localhost_origin_is_accepted(project, served):
    baton = leave(project, "s-a", ["from localhost"])
    port = served.app.port
    answer = request(served, "DELETE", f"/api/handoffs/{baton.id}?project={project_id_of(project)}",
                     host=f"localhost:{port}", headers={"Origin": f"http://localhost:{port}"})
    assert answer.status == 200


def test_delete_of_a_claimed_baton_is_409(project, served):
    baton = leave(project, "s-a", ["claimed first"])
    start(project, session="s-next")
    answer = dismiss(served, baton.id, project_id_of(project))
    assert answer.status == 409
    assert answer.json["error"]["code"] == "baton_already_claimed"
    assert events(project, "baton.dismissed") == []


def test_delete_of_a_superseded_baton_is_409(project, served):
    old = leave(project, "s-a", ["old plan"])
    leave(project, "s-b", ["new plan"])
    answer = dismiss(served, old.id, project_id_of(project))
    assert answer.status == 409


def test_delete_twice_is_409_the_second_time(project, served):
    baton = leave(project, "s-a", ["once"])
    pid = project_id_of(project)
    assert dismiss(served, baton.id, pid).status == 200
    assert dismiss(served, baton.id, pid).status == 409


def test_delete_of_an_unknown_baton_is_404(project, served):
    answer = dismiss(served, "01900000-0000-7000-8000-000000000000", project_id_of(project))
    assert answer.status == 404


def test_delete_by_a_prefix_names_nothing(project, served):
    baton = leave(project, "s-a", ["exact ids only"])
    answer = dismiss(served, baton.id[:13], project_id_of(project))
    assert answer.status == 404
    assert get_handoffs(served, project_id_of(project)).json["total"] == 1


@pytest.mark.parametrize("query", ["", "?project=all"])
def test_delete_without_a_project_is_400(project, served, query):
    baton = leave(project, "s-a", ["kept"])
    answer = request(served, "DELETE", f"/api/handoffs/{baton.id}{query}", headers={"Origin": origin_of(served)})
    assert answer.status == 400
    assert events(project, "baton.dismissed") == []


def test_delete_for_another_project_is_404(project, served):
    baton = leave(project, "s-a", ["kept"])
    answer = dismiss(served, baton.id, "01900000-0000-7000-8000-000000000000")
    assert answer.status == 404
    assert events(project, "baton.dismissed") == []


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "https://127.0.0.1:{port}",
                                    "http://127.0.0.1:1", "http://127.0.0.1.evil.example:{port}"])
def test_delete_from_a_foreign_origin_is_403_even_with_the_token(project, served, origin):
    baton = leave(project, "s-a", ["kept"])
    answer = dismiss(served, baton.id, project_id_of(project), Origin=origin.format(port=served.app.port),
                     X_Baton_Token=served.app.token)
    assert answer.status == 403
    assert events(project, "baton.dismissed") == []


@pytest.mark.parametrize("token", [None, "", "wrong-token"])
def test_delete_without_origin_needs_the_right_token(project, served, token):
    baton = leave(project, "s-a", ["kept"])
    headers = {} if token is None else {"X-Baton-Token": token}
    answer = request(served, "DELETE", f"/api/handoffs/{baton.id}?project={project_id_of(project)}", headers=headers)
    assert answer.status == 403
    assert events(project, "baton.dismissed") == []


# -- Host, methods, paths, headers ----------------------------------------------------------

@pytest.mark.parametrize("host", ["evil.example:{port}", "evil.example", "127.0.0.1:1", "localhost.evil:{port}",
                                  "127.0.0.1:{port}@evil.example", ""])
@pytest.mark.parametrize("path", ["/", "/api/handoffs?project=x"])
def test_a_foreign_host_header_is_403(project, served, host, path):
    answer = request(served, "GET", path, host=host.format(port=served.app.port))
    assert answer.status == 403


def test_a_foreign_host_header_cannot_dismiss(project, served):
    baton = leave(project, "s-a", ["kept"])
    answer = request(served, "DELETE", f"/api/handoffs/{baton.id}?project={project_id_of(project)}",
                     host="evil.example", headers={"Origin": "http://evil.example", "X-Baton-Token": served.app.token})
    assert answer.status == 403
    assert events(project, "baton.dismissed") == []


def test_the_localhost_host_header_is_accepted(project, served):
    answer = request(served, "GET", f"/api/handoffs?project={project_id_of(project)}",
                     host=f"localhost:{served.app.port}")
    assert answer.status == 200


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "HEAD", "OPTIONS", "TRACE", "PROPFIND"])
def test_any_other_method_is_405(project, served, method):
    answer = request(served, method, f"/api/handoffs?project={project_id_of(project)}")
    assert answer.status == 405
    assert answer.headers["Allow"]


@pytest.mark.parametrize("path", ["/index.html", "/.baton/config.json", "/../.baton/config.json", "/api",
                                  "/static/app.js", "/api/handoffs/x/y", "/%2e%2e/.baton/config.json"])
def test_nothing_but_the_page_and_the_api_is_served(project, served, path):
    answer = request(served, "GET", path)
    assert answer.status in (404, 405)
    assert b"project_id" not in answer.body


@pytest.mark.parametrize("path", ["/", "/api/handoffs?project={pid}", "/api/handoffs", "/nope"])
def test_every_answer_carries_the_security_headers(project, served, path):
    answer = request(served, "GET", path.format(pid=project_id_of(project)))
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    assert answer.headers["X-Frame-Options"] == "DENY"
    assert answer.headers["Cache-Control"] == "no-store"
    csp = answer.headers["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert "Python" not in answer.headers["Server"]


# -- redaction (sanitizeToolOutput) ----------------------------------------------------------

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def test_a_secret_in_a_next_step_never_appears_in_the_api(project, served):
    leave(project, "s-a", [f"push with token {SECRET}"], failed=[f"export GITHUB_TOKEN={SECRET}"])
    answer = get_handoffs(served, project_id_of(project))
    assert answer.status == 200
    assert SECRET.encode() not in answer.body
    assert b"[REDACTED" in answer.body


def _add_policy_rule(project: Path, name: str, regex: str) -> None:
    (project / ".baton" / "policy.json").write_bytes(
        orjson.dumps({"rules": [{"name": name, "regex": regex, "reason": "internal code name"}]}))


def test_a_policy_rule_added_after_the_baton_was_left_redacts_the_api(project, served):
    leave(project, "s-a", ["brief the falcon-team about it"])
    _add_policy_rule(project, "codename", r"falcon-\w+")
    listed = get_handoffs(served, project_id_of(project))
    assert listed.status == 200
    assert b"falcon-" not in listed.body
    assert listed.json["items"][0]["nextSteps"] == ["brief the [REDACTED:codename] about it"]


def test_an_error_body_is_redacted_too(project, served):
    baton = leave(project, "s-a", ["a step"])
    start(project, session="falcon-session")
    _add_policy_rule(project, "codename", r"falcon-\w+")
    answer = dismiss(served, baton.id, project_id_of(project))  # the 409 names the claiming session
    assert answer.status == 409
    assert b"falcon-" not in answer.body and b"[REDACTED:codename]" in answer.body


def test_baton_status_prints_the_redacted_api_object(project):
    leave(project, "s-a", [f"push with token {SECRET}"])
    result = run_baton("status", "--json", cwd=project)
    assert result.returncode == 0, result.stderr
    body = orjson.loads(result.stdout)
    assert body == status_overview(project).to_json()
    assert {"items", "total", "projectId", "lastSeenRoot", "latestHandoffs"} <= set(body)
    assert SECRET not in result.stdout


def test_baton_status_text_lists_pending_batons_and_latest_handoffs(project):
    baton = leave(project, "s-a", ["fix the parser"], owner=BOB, branch="dev")
    result = run_baton("status", cwd=project)
    assert result.returncode == 0, result.stderr
    assert "Pending batons: 1" in result.stdout
    assert f"{BOB} on dev" in result.stdout and "fix the parser" in result.stdout
    assert baton.id[-8:] in result.stdout
    assert "Latest handoffs: none yet" in result.stdout  # a baton's record is not a handoff of the list


# -- the page ----------------------------------------------------------------------------------

class _PageScan(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.stack: list[dict[str, str | None]] = []
        self.ids: dict[str, list[str]] = {}
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag, attrs):
        attrs_d = dict(attrs)
        self.tags.append((tag, attrs_d))
        if tag in ("script", "style"):
            self._in = tag
        if tag in ("meta", "link", "br", "img", "input"):
            return
        self.stack.append({"tag": tag, **attrs_d})
        if attrs_d.get("id"):
            self.ids[attrs_d["id"]] = [a.get("id") or "" for a in self.stack]

    def handle_endtag(self, tag):
        self._in = None
        while self.stack:
            if self.stack.pop()["tag"] == tag:
                break

    def handle_data(self, data):
        if self._in == "script":
            self.scripts.append(data)
        elif self._in == "style":
            self.styles.append(data)


def test_the_page_holds_the_active_handoffs_panel_on_its_first_tab(project, served):
    answer = request(served, "GET", "/")
    assert answer.status == 200
    assert answer.headers["Content-Type"].startswith("text/html")
    page = answer.body.decode()
    scan = _PageScan()
    scan.feed(page)
    # The spec's ids (data-tab="tab-prompts"), under a label a user understands.
    assert any(t == "button" and a.get("data-tab") == "tab-prompts" for t, a in scan.tags)
    assert 'data-tab="tab-prompts" aria-controls="tab-prompts" aria-selected="true">Active handoffs<' in page
    assert "Prompts &amp; Intent Stories" not in page
    assert "tab-prompts" in scan.ids["handoffs-panel"]
    assert "handoffs-panel" in scan.ids["handoffs-list"]


def test_the_page_loads_no_external_resource(project, served):
    answer = request(served, "GET", "/")
    page = answer.body.decode()
    scan = _PageScan()
    scan.feed(page)
    for tag, attrs in scan.tags:
        for name in ("src", "href", "action", "srcset", "data", "poster"):
            assert name not in attrs, f"<{tag} {name}=...> loads a resource"
        assert tag not in ("link", "iframe", "object", "embed", "img")
    assert "http://" not in page and "https://" not in page and "//" not in "".join(scan.styles)
    assert "@import" not in page and "url(" not in page
    csp = answer.headers["Content-Security-Policy"]
    assert csp == PAGE_CSP
    assert scan.scripts == [SCRIPT] and scan.styles == [STYLE]
    assert _source_hash(SCRIPT) in csp and _source_hash(STYLE) in csp


def test_the_page_renders_data_as_text_never_as_html():
    assert "innerHTML" not in SCRIPT and "outerHTML" not in SCRIPT and "insertAdjacentHTML" not in SCRIPT
    assert "document.write" not in SCRIPT and "eval(" not in SCRIPT
    assert "textContent" in SCRIPT


def test_the_page_sends_its_token_with_dismiss(project, served):
    page = request(served, "GET", "/").body.decode()
    assert f'<meta name="baton-token" content="{served.app.token}">' in page
    assert "X-Baton-Token" in SCRIPT and 'method: "DELETE"' in SCRIPT


def test_the_embedded_project_id_is_escaped():
    page = render_page(project_id='"><script>alert(1)</script>', token="t@TOKEN@").decode()
    assert "<script>alert(1)" not in page
    assert 'content="&quot;&gt;&lt;script&gt;' in page
    assert 'content="t@TOKEN@"' in page


# -- where the server may listen, and how it stops ---------------------------------------------

@pytest.mark.parametrize("host,bound", [("127.0.0.1", "127.0.0.1"), ("127.8.9.10", "127.8.9.10"), ("::1", "::1"),
                                        ("[::1]", "::1"), ("localhost", "127.0.0.1"), ("LOCALHOST", "127.0.0.1")])
def test_loopback_hosts_are_accepted(host, bound):
    assert loopback_address(host)[0] == bound


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.10", "10.0.0.1", "example.com", "localhost.example",
                                  "::ffff:127.0.0.1", "", "127.0.0.1.nip.io"])
def test_other_hosts_are_a_policy_block(host):
    with pytest.raises(PolicyBlock):
        loopback_address(host)


def test_serve_refuses_a_non_loopback_host_with_exit_5(project):
    result = run_baton("status", "serve", "--host", "0.0.0.0", "--port", "0", cwd=project)
    assert result.returncode == 5
    assert "loopback" in result.stderr and "Traceback" not in result.stderr


def test_a_port_in_use_is_a_conflict(project, served):
    with pytest.raises(PortInUse) as caught:
        bind_status_server(listen_target(project, host="127.0.0.1", port=served.app.port))
    assert caught.value.exit_code == 4


def test_serve_prints_the_url_and_stops_cleanly_on_ctrl_c(project):
    proc = subprocess.Popen([sys.executable, "-m", "baton", "status", "serve", "--port", "0", "--json"],
                            cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ})
    try:
        first = proc.stdout.readline()
        lines = [first]
        while not lines[-1].startswith("}") and lines[-1]:
            lines.append(proc.stdout.readline())
        info = orjson.loads("".join(lines))
        assert info["url"] == f"http://127.0.0.1:{info['port']}/" and info["port"] > 0
        assert info["projectId"] == project_id_of(project)
        conn = http.client.HTTPConnection("127.0.0.1", info["port"], timeout=10)
        conn.request("GET", f"/api/handoffs?project={info['projectId']}")
        assert conn.getresponse().status == 200
        conn.close()
        # The token it prints is the one a DELETE without the page's Origin needs.
        conn = http.client.HTTPConnection("127.0.0.1", info["port"], timeout=10)
        conn.request("DELETE", f"/api/handoffs/{'0' * 8}-0000-7000-8000-{'0' * 12}?project={info['projectId']}",
                     headers={"X-Baton-Token": info["token"]})
        assert conn.getresponse().status == 404  # past the token check: no such baton
        conn.close()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "Traceback" not in err


def _raw(server, lines: list[str]) -> int:
    import socket

    with socket.create_connection(("127.0.0.1", server.app.port), timeout=10) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        status_line = sock.makefile("rb").readline().decode()
    return int(status_line.split()[1])


def test_two_host_headers_are_a_bad_request(project, served):
    pid = project_id_of(project)
    port = served.app.port
    assert _raw(served, [f"GET /api/handoffs?project={pid} HTTP/1.1", f"Host: 127.0.0.1:{port}",
                         "Host: evil.example", "Connection: close"]) == 400


def test_an_absolute_form_request_target_is_a_bad_request(project, served):
    pid = project_id_of(project)
    port = served.app.port
    assert _raw(served, [f"GET http://evil.example/api/handoffs?project={pid} HTTP/1.1",
                         f"Host: 127.0.0.1:{port}", "Connection: close"]) == 400


# -- GET /api/handoffs/{id}: one handoff's view ------------------------------------------------

def test_get_one_handoff_answers_its_show_md_content(project, served):
    baton = leave(project, "s-a", ["fix the parser"])
    answer = request(served, "GET", f"/api/handoffs/{baton.id}?project={project_id_of(project)}")
    assert answer.status == 200
    body = answer.json
    assert body["id"] == baton.id and body["kind"] == "baton"
    shown = run_baton("handoff", "show", baton.id, "--format", "md", "--project", str(project))
    assert body["markdown"] == shown.stdout.rstrip("\n")
    assert {"freshness", "score", "branch", "lineage", "checks", "validatedOn"} <= set(body)


def test_get_one_handoff_takes_only_a_full_id(project, served):
    baton = leave(project, "s-a", ["fix the parser"])
    answer = request(served, "GET", f"/api/handoffs/{baton.id[-8:]}?project={project_id_of(project)}")
    assert answer.status == 404


def test_get_one_handoff_needs_the_project(project, served):
    baton = leave(project, "s-a", ["fix the parser"])
    assert request(served, "GET", f"/api/handoffs/{baton.id}").status == 400


def test_the_text_status_says_how_many_of_how_many_handoffs_it_lists(project):
    for i in range(12):  # in this process: the status commands below are what is proved, as real processes
        code, out, err = run_here("checkpoint", "create", "--title", f"t{i}", "--objective", "o", "--project",
                                  str(project), cwd=project)
        assert code == 0, (out, err)
    result = run_baton("status", "--project", str(project))
    assert "Latest 10 of 12 handoffs" in result.stdout
    status = orjson.loads(run_baton("status", "--json", "--project", str(project)).stdout)
    assert status["handoffTotal"] == 12 and len(status["latestHandoffs"]) == 10


def test_two_origin_headers_on_a_delete_are_a_bad_request_and_dismiss_nothing(project, served):
    baton = leave(project, "s-a", ["not to be dismissed"])
    pid = project_id_of(project)
    port = served.app.port
    for origins in ([f"http://127.0.0.1:{port}", "http://evil.example"],
                    ["http://evil.example", f"http://127.0.0.1:{port}"]):
        assert _raw(served, [f"DELETE /api/handoffs/{baton.id}?project={pid} HTTP/1.1", f"Host: 127.0.0.1:{port}",
                             *(f"Origin: {o}" for o in origins), "Connection: close"]) == 400
    assert events(project, "baton.dismissed") == []


def test_a_redaction_rule_added_to_config_json_applies_to_the_running_servers_next_answer(project, served):
    """The server re-reads ``config.json`` when its stat moves, as it re-reads ``policy.json``
    and the trust record (docs/security.md, "Trusting a committed policy")."""
    leave(project, steps=("close TKT-0badf00d",))
    assert b"TKT-0badf00d" in get_handoffs(served, project_id_of(project)).body
    path = project / ".baton" / "config.json"
    config = orjson.loads(path.read_bytes())
    config["policy"] = {"rules": [{"name": "ticket-id", "regex": "TKT-[0-9a-f]{8}", "action": "redact",
                                   "reason": "internal ticket ids"}]}
    path.write_bytes(orjson.dumps(config))
    answer = get_handoffs(served, project_id_of(project))
    assert answer.status == 200
    assert b"TKT-0badf00d" not in answer.body
