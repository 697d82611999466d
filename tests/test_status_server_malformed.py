"""A request the status server cannot read — a bad request line or version, a
line it takes for HTTP/0.9, an empty one, a malformed header block, too many
headers — is answered like every other error: a status line, the security
headers docs/status-page.md promises "on every response", and a JSON error;
never http.server's HTML page, sent without a status line or a header to
what it takes for HTTP/0.9, nor the request's bytes echoed into the status
line. Sent through a raw socket to the real server on 127.0.0.1."""

from __future__ import annotations

import socket

import orjson
import pytest

from baton.web.server import SECURITY_HEADERS
from tests.app_support import status_server


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    from tests.app_support import init_project

    root = tmp_path_factory.mktemp("status") / "p"
    root.mkdir()
    init_project(root)
    with status_server(root) as server:
        yield server


def _exchange(server, data: bytes) -> tuple[bytes, dict[str, str], bytes]:
    """Send ``data``, read the whole answer: (status line, headers, body)."""
    with socket.create_connection(("127.0.0.1", server.app.port), timeout=10) as sock:
        sock.sendall(data)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    status, *lines = head.split(b"\r\n")
    headers = {k.decode().lower(): v.decode().strip() for k, _, v in (line.partition(b":") for line in lines)}
    return status, headers, body


MALFORMED = {
    "unknown HTTP version": (b"GET / HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n", 505),
    "bytes before the method": (b"\xff\xfe GET / HTTP/1.0\r\n\r\n", 400),
    "a request line of four words": (b"GET / HTTP/1.0 extra\r\n\r\n", 400),
    "an HTTP/0.9 request of another method": (b"POST /\r\n\r\n", 400),
    "an empty request line": (b"\r\n\r\n", 400),
    "too many headers": (b"GET / HTTP/1.0\r\n" + b"".join(b"X-%d: y\r\n" % i for i in range(120)) + b"\r\n", 431),
    "a request line over the head limit": (b"GET /" + b"a" * 70000 + b" HTTP/1.0\r\n\r\n", 431),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_a_malformed_request_gets_a_status_line_the_security_headers_and_a_json_error(served, name):
    data, expected = MALFORMED[name]
    status, headers, body = _exchange(served, data)
    assert status.startswith(b"HTTP/1.0 %d " % expected), status
    for header, value in SECURITY_HEADERS:
        assert headers[header.lower()] == value, header
    assert "default-src 'none'" in headers["content-security-policy"]
    assert headers["content-type"] == "application/json"
    assert set(orjson.loads(body)["error"]) == {"code", "message"}


def test_the_status_line_never_echoes_the_request(served):
    status, _headers, body = _exchange(served, b"\xff\xfe<script> GET / HTTP/1.0\r\n\r\n")
    assert status == b"HTTP/1.0 400 Bad Request"
    assert b"script" not in body


def test_a_request_without_a_version_is_answered_with_a_status_line_and_headers(served):
    status, headers, _body = _exchange(served, b"GET /\r\n\r\n")
    assert status.startswith(b"HTTP/1.0 ") and headers["x-frame-options"] == "DENY"
