"""The status server under slow, idle and many clients (issue 25): a client
that trickles its request, sends nothing, or never finishes its body holds a
connection slot, never a worker, and is cut off at its deadline; a normal GET
is answered while hundreds of such clients are connected and while GETs
arrive 64 at a time.

Everything runs on 127.0.0.1 against a server in a thread of this process,
with a bounded number of clients that stop by themselves; no assertion is
about how long anything took.
"""

from __future__ import annotations

import http.client
import select
import socket
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from baton.web import server as web_server
from baton.web.server import bind_status_server
from tests.app_support import listen_target, project_id_of
from tests.batons_support import leave

SLOW_CLIENTS = 300
FLOOD_TOTAL = 500
FLOOD_AT_ONCE = 64


def _serve(project):
    server = bind_status_server(listen_target(project, host="127.0.0.1", port=0))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    return server, thread


@pytest.fixture
def served(project):
    server, thread = _serve(project)
    try:
        yield server
    finally:
        server.shutdown()
        thread.join(timeout=10)


def get(server, path: str, *, timeout: float = 60) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", server.app.port, timeout=timeout)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def open_slow_client(server, first: bytes = b"") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.app.port), timeout=10)
    if first:
        sock.sendall(first)
    return sock


def head_start(server) -> bytes:
    return f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{server.app.port}\r\n".encode()


def closed_by_server(sock: socket.socket, wait: float) -> bool:
    """The server closed ``sock`` (EOF or reset) within ``wait`` seconds, sending no answer."""
    sock.settimeout(wait)
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True
    except (socket.timeout, TimeoutError):
        return False


def still_open(socks: list[socket.socket]) -> bool:
    """No socket has anything to read: the server neither answered nor closed any."""
    poller = select.poll()
    for sock in socks:
        poller.register(sock, select.POLLIN | select.POLLHUP | select.POLLERR)
    return poller.poll(0) == []


class Trickle:
    """Slow clients sending one more header line every ``every`` seconds, at
    most ``rounds`` times, until stopped (a slowloris attack, bounded)."""

    def __init__(self, socks: list[socket.socket], *, every: float = 0.2, rounds: int = 100) -> None:
        self.socks = socks
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(every, rounds), daemon=True)

    def _run(self, every: float, rounds: int) -> None:
        for n in range(rounds):
            if self.stop.wait(every):
                return
            for sock in self.socks:
                try:
                    sock.send(f"X-Slow-{n}: a\r\n".encode())
                except OSError:
                    pass

    def __enter__(self) -> "Trickle":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=30)
        for sock in self.socks:
            sock.close()


def test_a_get_is_answered_while_300_clients_trickle_their_headers(project, monkeypatch):
    monkeypatch.setattr(web_server, "HEADER_TIMEOUT", 120.0)  # the slow clients stay for the whole test
    leave(project, "s-a", ["a step"])
    server, thread = _serve(project)
    try:
        pid = project_id_of(project)
        slow = [open_slow_client(server, head_start(server)) for _ in range(SLOW_CLIENTS)]
        with Trickle(slow):
            assert get(server, f"/api/handoffs?project={pid}")[0] == 200
            assert get(server, "/")[0] == 200
            assert get(server, f"/api/handoffs?project={pid}")[0] == 200
            assert still_open(slow)  # they were all connected while the GETs were answered
    finally:
        server.shutdown()
        thread.join(timeout=10)


def test_500_gets_arriving_64_at_a_time_are_all_answered(project, served):
    leave(project, "s-a", ["a step"])
    path = f"/api/handoffs?project={project_id_of(project)}"
    statuses: list[int] = []
    with ThreadPoolExecutor(FLOOD_AT_ONCE) as pool:
        for start in range(0, FLOOD_TOTAL, FLOOD_AT_ONCE):
            wave = min(FLOOD_AT_ONCE, FLOOD_TOTAL - start)
            together = threading.Barrier(wave, timeout=60)

            def one(_: int) -> int:
                together.wait()
                return get(served, path)[0]

            statuses.extend(pool.map(one, range(wave)))
    assert len(statuses) == FLOOD_TOTAL
    assert set(statuses) == {200}


def test_a_client_trickling_its_headers_is_cut_off_at_the_header_deadline(project, monkeypatch):
    monkeypatch.setattr(web_server, "HEADER_TIMEOUT", 0.5)
    server, thread = _serve(project)
    try:
        sock = open_slow_client(server, head_start(server))
        with Trickle([sock], every=0.05, rounds=400):  # would take 20 s to stop by itself
            assert closed_by_server(sock, wait=15)
    finally:
        server.shutdown()
        thread.join(timeout=10)


def test_a_client_that_sends_nothing_is_cut_off_at_the_header_deadline(project, monkeypatch):
    monkeypatch.setattr(web_server, "HEADER_TIMEOUT", 0.5)
    server, thread = _serve(project)
    try:
        with open_slow_client(server) as sock:
            assert closed_by_server(sock, wait=15)
    finally:
        server.shutdown()
        thread.join(timeout=10)


def test_a_client_that_never_sends_its_announced_body_is_cut_off(project, monkeypatch):
    monkeypatch.setattr(web_server, "BODY_TIMEOUT", 0.5)
    server, thread = _serve(project)
    try:
        with open_slow_client(server, head_start(server) + b"Content-Length: 10\r\n\r\nabc") as sock:
            assert closed_by_server(sock, wait=15)
    finally:
        server.shutdown()
        thread.join(timeout=10)


def test_at_capacity_the_connection_quiet_longest_makes_room_for_a_new_one(project, monkeypatch):
    monkeypatch.setattr(web_server, "MAX_CONNECTIONS", 20)
    monkeypatch.setattr(web_server, "HEADER_TIMEOUT", 120.0)
    server, thread = _serve(project)
    idle = []
    try:
        quietest = open_slow_client(server)  # connected first, never sends a byte
        idle = [quietest] + [open_slow_client(server, b"G") for _ in range(19)]
        for sock in idle[1:]:
            sock.sendall(b"ET")  # the others have spoken since
        assert get(server, "/")[0] == 200
        assert closed_by_server(quietest, wait=15)
        assert still_open(idle[1:])
    finally:
        for sock in idle:
            sock.close()
        server.shutdown()
        thread.join(timeout=10)


def test_a_request_past_the_worker_queue_is_answered_503_not_dropped(project, monkeypatch):
    monkeypatch.setattr(web_server, "MAX_WORKERS", 1)
    monkeypatch.setattr(web_server, "MAX_QUEUED", 1)
    server, thread = _serve(project)
    path = f"/api/handoffs?project={project_id_of(project)}"
    pool = ThreadPoolExecutor(2)
    try:
        with server.app.lock:  # the one worker waits on the command lock
            waiting = [pool.submit(get, server, path) for _ in range(2)]
            for _ in range(600):  # both taken in (one working, one queued), or give up after ~30 s
                if server.httpd._busy == 2:
                    break
                threading.Event().wait(0.05)
            status, body = get(server, path)
            assert status == 503 and b'"busy"' in body
        assert [f.result(timeout=60)[0] for f in waiting] == [200, 200]
    finally:
        pool.shutdown(wait=True)
        server.shutdown()
        thread.join(timeout=10)


def _raw_answer(server, request: bytes) -> int:
    with socket.create_connection(("127.0.0.1", server.app.port), timeout=10) as sock:
        sock.sendall(request)
        status_line = sock.makefile("rb").readline().decode()
    return int(status_line.split()[1])


def test_a_body_over_the_limit_is_413(project, served):
    request = head_start(served) + f"Content-Length: {web_server.MAX_BODY_BYTES + 1}\r\n\r\n".encode()
    assert _raw_answer(served, request) == 413


def test_headers_over_the_limit_are_431(project, served):
    request = head_start(served) + b"X-Big: " + b"a" * web_server.MAX_HEAD_BYTES + b"\r\n\r\n"
    assert _raw_answer(served, request) == 431


def test_a_chunked_body_is_refused_with_400(project, served):
    request = head_start(served) + b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
    assert _raw_answer(served, request) == 400


def test_a_request_with_a_short_body_is_answered_once_the_body_is_in(project, served):
    request = head_start(served) + b"Content-Length: 3\r\n\r\nabc"
    assert _raw_answer(served, request) == 200


def test_the_front_end_answers_carry_the_security_headers(project, served):
    request = head_start(served) + f"Content-Length: {web_server.MAX_BODY_BYTES + 1}\r\n\r\n".encode()
    with socket.create_connection(("127.0.0.1", served.app.port), timeout=10) as sock:
        sock.sendall(request)
        answer = http.client.HTTPResponse(sock)
        answer.begin()
        headers = answer.headers
    assert headers["X-Frame-Options"] == "DENY" and headers["Cache-Control"] == "no-store"
    assert headers["Content-Security-Policy"].startswith("default-src 'none'")
    assert headers["Content-Type"] == "application/json"
