"""A smart-HTTP git remote on loopback: real ``git http-backend`` behind Basic auth.

``serve(root, user, password)`` serves the bare repositories under ``root``
at ``http://127.0.0.1:PORT/<name>.git`` and answers 401 to any request
without those credentials (as a hosted remote does). ``tls`` serves https with a
certificate of the test's own (``self_signed``). ``answer(method, path)``,
when given, may return an HTTP status to send instead of git's answer (a
host that forbids a push, a failing proxy). Used as a context manager; the
server stops on exit.
"""

from __future__ import annotations

import base64
import subprocess
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable, Iterator
from urllib.parse import urlsplit


def _handler(root: Path, user: str, password: str, answer: Callable[[str, str], int | None] | None = None):
    expected = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # quiet
            pass

        def do_GET(self) -> None:
            self._cgi()

        def do_POST(self) -> None:
            self._cgi()

        def _cgi(self) -> None:
            status = answer(self.command, self.path) if answer else None
            if status is not None:
                # a 2xx stands for a static (dumb-http) server's file: empty, no refs
                body = b"" if 200 <= status < 300 else f"<html>{status}</html>".encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            if self.headers.get("Authorization") != expected:
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="git"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            url = urlsplit(self.path)
            env = {"GIT_PROJECT_ROOT": str(root), "GIT_HTTP_EXPORT_ALL": "1", "PATH_INFO": url.path,
                   "QUERY_STRING": url.query, "REQUEST_METHOD": self.command, "REMOTE_USER": user,
                   "REMOTE_ADDR": "127.0.0.1", "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                   "CONTENT_LENGTH": str(len(body)), "PATH": "/usr/bin:/bin",
                   "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
                   "GIT_HTTP_MAX_REQUEST_BUFFER": "100M"}
            done = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True, timeout=120)
            head, _, payload = done.stdout.partition(b"\r\n\r\n")
            if not _:
                head, _, payload = done.stdout.partition(b"\n\n")
            status = 200
            headers = []
            for line in head.decode("latin-1").splitlines():
                name, _, value = line.partition(":")
                if name.lower() == "status":
                    status = int(value.strip().split()[0])
                elif name:
                    headers.append((name, value.strip()))
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler


@contextmanager
def serve(root: Path, user: str, password: str,
          answer: Callable[[str, str], int | None] | None = None,
          tls: tuple[Path, Path] | None = None) -> Iterator[str]:
    """Yields the base URL (``http://127.0.0.1:PORT``) while the server runs;
    with ``tls`` (a certificate and its key), ``https://`` served with them."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(root, user, password, answer))
    if tls is not None:
        import ssl

        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(str(tls[0]), str(tls[1]))
        server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"{'https' if tls else 'http'}://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 that no system trusts, and its key (``openssl``)."""
    cert, key = folder / "server.crt", folder / "server.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
                    "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out",
                    str(cert)], check=True, capture_output=True, timeout=60)
    return cert, key
