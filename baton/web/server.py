"""``baton status serve``: the status page and its JSON API over the standard
library's ``HTTPServer`` with a bounded pool of workers, for one project, on
loopback only.

A thin adapter: each endpoint calls one method of the server's application
object (``baton.app.Baton``, kept for the server's life) and turns its result
(or its ``BatonError``) into an HTTP answer. What the adapter itself owns is HTTP hygiene:

- the ``Host`` header must name the bound loopback address or ``localhost``
  with the bound port (a DNS-rebinding page cannot talk to us: 403);
- a DELETE must come from the page's own origin (``Origin``), or carry no
  ``Origin`` but this server's random ``X-Baton-Token`` (curl, scripts); a
  foreign origin is refused even with the token (403);
- only ``GET /``, ``GET /api/handoffs``, ``GET /api/handoffs/{id}`` (one
  handoff's view) and ``DELETE /api/handoffs/{id}`` (dismiss a baton) exist; any other method is 405, any other path 404; nothing is served from
  the file system;
- every answer carries ``Cache-Control: no-store``, ``X-Content-Type-Options:
  nosniff``, ``X-Frame-Options: DENY`` and a strict Content-Security-Policy.

Slow and idle clients (``baton.web.server._Server``): one thread runs a
selector over every connection and reads each request in full — request line
and headers within ``HEADER_TIMEOUT``, a body within ``BODY_TIMEOUT`` — before a
worker sees it, and writes each answer out within ``WRITE_TIMEOUT``; workers
only ever run complete requests, so a client trickling bytes (slowloris),
sending nothing, or not reading its answer holds a connection slot, never a
worker. Past ``MAX_CONNECTIONS`` the connection that has been quiet longest is
closed to admit a new one.

Commands run one at a time (a lock around the command call): the status page
is a one-person tool, and the ledger serializes writers anyway.
"""

from __future__ import annotations

import errno
import hmac
import http.server
import io
import os
import queue
import re
import secrets
import selectors
import signal
import socket
import socketserver
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from email.utils import formatdate
from typing import Any, Callable, Self
from urllib.parse import parse_qs, unquote, urlsplit

import attrs
import orjson

from baton.app import Baton
from baton.commands.status_page import sanitize_for_project
from baton.domain.redaction import RedactionPolicy, screen_text
from baton.errors import (
    BatonError,
    BatonNotYours,
    Conflict,
    InputError,
    NotFound,
    PolicyBlock,
    PortInUse,
    StorageError,
    ValidationFailed,
)
from baton.model import frozen, mutable
from baton.process_end import InterruptsCount
from baton.web.page import API_CSP, PAGE_CSP, render_page

try:
    import resource
except ImportError:  # not on Windows: the descriptor limit is not read there
    resource = None  # type: ignore[assignment]

API_PATH = "/api/handoffs"
TOKEN_HEADER = "X-Baton-Token"
HEADER_TIMEOUT = 10.0
"""Seconds a connection has, from being accepted, to send its request line and
headers, however it trickles them in; then it is closed unanswered."""
BODY_TIMEOUT = 10.0
"""Seconds a request has, once its headers are in, to send the body its
``Content-Length`` announces."""
WRITE_TIMEOUT = 10.0
"""Seconds a client has to take in its whole answer; then the connection is closed."""
LINGER = 2.0
"""Seconds an answered connection is kept to take in (and drop) what the client
still sends, so that closing it does not reset it before the answer is read."""
MAX_CONNECTIONS = 1024
"""Connections held at once (reading a request, waiting for a worker, or
taking an answer). A new one past this closes the reading connection that has
been quiet longest; only when every connection is past reading is the new one
closed instead."""
MAX_WORKERS = 8
"""Complete requests handled at once."""
MAX_QUEUED = 256
"""Complete requests that may wait for a worker; past them a request is
answered 503 at once. Only a client that sent a whole request is counted, so
slow clients never fill it."""
SECURITY_HEADERS = (
    ("Cache-Control", "no-store"),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "no-referrer"),
    ("Cross-Origin-Resource-Policy", "same-origin"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
)
"""On every answer, with a Content-Security-Policy (the page's or the API's)."""
MAX_HEAD_BYTES = 64 * 1024
"""A request line and headers larger than this are answered 431."""
MAX_BODY_BYTES = 64 * 1024
"""A request body larger than this is answered 413 (no endpoint reads one)."""


def _screened(exc: BaseException) -> str:
    """An exception as one log line: through the secret rules, control characters escaped."""
    return screen_text(f"{type(exc).__name__}: {exc}", RedactionPolicy()).replace("\n", " ")


def http_status_of(exc: BatonError) -> int:
    """The HTTP status for a command's error, by its family (exit code)."""
    if isinstance(exc, InputError):
        return 400
    if isinstance(exc, PolicyBlock):
        return 403
    if isinstance(exc, NotFound):
        return 404
    if isinstance(exc, Conflict):
        return 409
    if isinstance(exc, ValidationFailed):
        return 422
    return 500


def _host_port(value: str) -> tuple[str, int | None] | None:
    """``host[:port]`` / ``[v6][:port]`` from a Host or Origin authority; None when malformed."""
    value = value.strip()
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        host, rest = value[1:end], value[end + 1:]
        if rest and not rest.startswith(":"):
            return None
        port_text = rest[1:] if rest else ""
    else:
        host, _, port_text = value.partition(":")
        if ":" in port_text:
            return None
    if not host:
        return None
    if not port_text:
        return host.lower(), None
    if not port_text.isdigit() or len(port_text) > 5:
        return None
    return host.lower(), int(port_text)


@mutable
class StatusApp:
    """What every request needs: the project served, the bound address, the token.

    ``baton`` is the server's one application object, opened at the first
    request and kept: each request catches up with what other processes
    appended, reading only those bytes. Requests run one at a time (``lock``).
    """

    root: str
    project_id: str
    host: str
    port: int = 0
    token: str = attrs.field(factory=lambda: secrets.token_urlsafe(32))
    lock: threading.Lock = attrs.field(factory=threading.Lock)
    baton: Baton | None = None
    policy_stamp: Any = None
    """The stat of the policy's files as the open project's policy was read with."""

    def application(self) -> Baton:
        if self.baton is not None and self.baton.must_reopen:
            # A write that failed (a full disk, an I/O error) left the open ledger refusing every
            # later lock: this request opens the project afresh instead of failing like that one.
            self.baton.close()
            self.baton = None
        if self.baton is None:
            self.baton = Baton.open(self.root)
            self.policy_stamp = self.baton.project.policy_stamp()
        elif (stamp := self.baton.project.policy_stamp()) != self.policy_stamp:
            # ``baton policy trust`` / ``untrust`` or a policy edit under the running server:
            # the policy is read again before this request uses it, and ``config.json`` too when it
            # is what changed (its ``policy`` section). A config that no longer reads fails this
            # request, as it fails a command, and the next request tries again.
            if self.policy_stamp is None or stamp[0] != self.policy_stamp[0]:
                self.baton.project.reread_settings()
            else:
                self.baton.project.forget_policy()
            self.policy_stamp = stamp  # taken before reading: an edit since is seen at the next request
        return self.baton

    def sanitize(self, value: Any) -> Any:
        """Redact an answer with the project's policy (the built-in rules when
        the project could not be opened): an error body is never the one
        thing left unredacted."""
        if self.baton is None:
            return sanitize_for_project(None, value)
        return self.baton.sanitize(value)

    def close(self) -> None:
        if self.baton is not None:
            self.baton.close()
            self.baton = None

    @property
    def authority(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    @property
    def url(self) -> str:
        return f"http://{self.authority}/"

    def host_allowed(self, header: str | None) -> bool:
        parsed = _host_port(header or "")
        if parsed is None:
            return False
        host, port = parsed
        return host in (self.host, "localhost") and (port if port is not None else 80) == self.port

    def origin_allowed(self, origin: str) -> bool:
        parts = urlsplit(origin.strip())
        if parts.scheme != "http" or parts.path not in ("", "/") or parts.query or parts.username:
            return False
        return self.host_allowed(parts.netloc)

    def token_matches(self, value: str | None) -> bool:
        return value is not None and hmac.compare_digest(value.encode("utf-8", "replace"), self.token.encode())


class StatusRequestHandler(http.server.BaseHTTPRequestHandler):
    """One complete request, read by the server's front end, answered into a
    buffer that the front end then writes out: a handler never touches the
    client's socket, so no client can hold it."""

    server_version = "baton-status"
    default_request_version = "HTTP/1.0"
    """Never HTTP/0.9: the stdlib writes no status line and no header at all
    to a request it takes for one (``GET /``, or a line it cannot parse), so
    every answer would go out without the security headers."""
    app: StatusApp  # set on the subclass made per server

    # -- plumbing -------------------------------------------------------------
    def setup(self) -> None:
        job: _Job = self.request
        self.connection = None
        self.rfile = io.BytesIO(job.raw)
        self.wfile = job.answer

    def finish(self) -> None:
        """Nothing to flush or close: the front end owns the connection."""

    def version_string(self) -> str:
        return self.server_version  # no Python version in the Server header

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        """Quiet: a local tool's terminal is not an access log."""

    def _send(self, status: int, body: bytes, content_type: str, *, csp: str = API_CSP,
              extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in SECURITY_HEADERS:
            self.send_header(name, value)
        self.send_header("Content-Security-Policy", csp)
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def handle_one_request(self) -> None:
        """The stdlib's, and a 400 for a request it drops without a word (an empty request line)."""
        start = self.wfile.tell()
        super().handle_one_request()
        if self.raw_requestline and self.wfile.tell() == start:
            self.send_error(400)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Every error the stdlib raises while it reads a request (a bad request line
        or version, an over-long line, a malformed or too many headers) answered as
        every other error is: JSON, with a status line and the security headers,
        never the stdlib's HTML page. Its message is not repeated: it quotes the
        request's bytes (into the status line, too)."""
        self.close_connection = True
        if self.request_version in ("", "HTTP/0.9"):
            self.request_version = "HTTP/1.0"  # the stdlib writes no status line or header to HTTP/0.9
        code_name, text = _REQUEST_ERRORS.get(code, ("bad_request", "the request could not be read"))
        self._error(code, code_name, text)

    def _json(self, status: int, value: Any, *, extra: dict[str, str] | None = None) -> None:
        self._send(status, orjson.dumps(value), "application/json", extra=extra)

    def _error(self, status: int, code: str, message: str, *, extra: dict[str, str] | None = None) -> None:
        self._json(status, {"error": {"code": code, "message": message}}, extra=extra)

    def _command_error(self, exc: BatonError) -> None:
        with self.app.lock:
            body = self.app.sanitize({"error": exc.to_json()})
        self._json(http_status_of(exc), body)

    def _run(self, call: Callable[[Baton], Any]) -> None:
        """Call one use case of the server's application object and answer with its JSON or its error."""
        try:
            with self.app.lock:
                result = call(self.app.application())
        except BatonError as exc:
            self._command_error(exc)
            return
        except Exception as exc:  # noqa: BLE001 - never a traceback to the client
            sys.stderr.write(f"baton status: internal error: {_screened(exc)}\n")
            self._error(500, "internal_error", "internal error (see the server's terminal)")
            return
        with self.app.lock:
            body = self.app.sanitize(result.to_json())
        self._json(200, body)

    def _route(self) -> tuple[str, dict[str, list[str]]] | None:
        """The path and query of the request, after the Host check; None once answered."""
        hosts = self.headers.get_all("Host") or []
        if len(hosts) > 1:
            self._error(400, "bad_request", "more than one Host header")
            return None
        if not self.app.host_allowed(self.headers.get("Host")):
            self._error(403, "forbidden_host", "the Host header does not name this server")
            return None
        if not self.path.startswith("/"):
            # An absolute-form target names an authority of its own; this
            # server is no proxy and answers only for itself.
            self._error(400, "bad_request", "the request target must be a path")
            return None
        parts = urlsplit(self.path)
        return parts.path, parse_qs(parts.query, keep_blank_values=True)

    @staticmethod
    def _project_param(query: dict[str, list[str]]) -> str | None:
        values = query.get("project")
        if not values:
            return None
        if len(values) > 1:
            return ""  # ambiguous: the command treats it as missing (400)
        return values[0]

    # -- methods ----------------------------------------------------------------
    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        route = self._route()
        if route is None:
            return
        path, query = route
        if path == "/":
            body = render_page(project_id=self.app.project_id, token=self.app.token)
            self._send(200, body, "text/html; charset=utf-8", csp=PAGE_CSP)
            return
        if path == API_PATH:
            project = self._project_param(query)
            self._run(lambda baton: baton.status_overview(requested_project=project, check_project=True,
                                                             clip_titles=True))
            return
        if path.startswith(API_PATH + "/"):
            handoff_id = unquote(path[len(API_PATH) + 1:])
            if not handoff_id or "/" in handoff_id:
                self._error(404, "not_found", "no such page")
                return
            project = self._project_param(query)
            self._run(lambda baton: baton.handoff_view(project, handoff_id))
            return
        self._error(404, "not_found", "no such page")

    def do_DELETE(self) -> None:  # noqa: N802
        route = self._route()
        if route is None:
            return
        path, query = route
        if path in ("/", API_PATH):
            self._not_allowed("GET")
            return
        if not path.startswith(API_PATH + "/"):
            self._error(404, "not_found", "no such page")
            return
        if any(len(self.headers.get_all(name) or []) > 1 for name in ("Origin", TOKEN_HEADER)):
            # A browser sends one Origin; which of two would count is a guess, so neither does.
            self._error(400, "bad_request", f"more than one Origin or {TOKEN_HEADER} header")
            return
        origin = self.headers.get("Origin")
        token = self.headers.get(TOKEN_HEADER)
        if origin is not None:
            if not self.app.origin_allowed(origin):
                self._error(403, "forbidden_origin", "a DELETE must come from this page's own origin")
                return
            if token is not None and not self.app.token_matches(token):
                self._error(403, "bad_token", f"the {TOKEN_HEADER} header does not match this server")
                return
        elif not self.app.token_matches(token):
            self._error(403, "forbidden_origin",
                        f"a DELETE needs the page's Origin, or this server's {TOKEN_HEADER} header")
            return
        baton_id = unquote(path[len(API_PATH) + 1:])
        if not baton_id or "/" in baton_id:
            self._error(404, "not_found", "no such page")
            return
        project = self._project_param(query)

        def dismissing(baton: Baton) -> Any:
            try:
                return baton.dismiss_from_status_page(project, baton_id)
            except BatonNotYours as exc:  # the page has no `not_mine`: the command line that has it
                raise exc.name_parameters({"not_mine": (
                    f"`baton session handoff --dismiss {baton_id.lower()} --not-mine` at the command line "
                    "(the status page never dismisses another owner's baton)")}) from None

        self._run(dismissing)

    def _not_allowed(self, allow: str) -> None:
        self._error(405, "method_not_allowed", f"{self.command} is not allowed here", extra={"Allow": allow})

    def _any_other_method(self) -> None:
        if self._route() is None:
            return
        self._not_allowed("GET, DELETE")

    do_POST = do_PUT = do_PATCH = do_HEAD = do_OPTIONS = do_TRACE = do_CONNECT = _any_other_method  # noqa: N815

    def __getattr__(self, name: str) -> Any:
        # Any method we do not name (PROPFIND, custom verbs...) is a 405 too, not the stdlib's 501.
        if name.startswith("do_"):
            return self._any_other_method
        raise AttributeError(name)


_REQUEST_ERRORS = {
    400: ("bad_request", "malformed request: a request line of a method, a path and HTTP/1.0 or HTTP/1.1, "
                         "then well-formed headers"),
    414: ("request_line_too_long", "the request line is too long"),
    431: ("headers_too_large", "too many headers, or a header line too long"),
    505: ("http_version_not_supported", "only HTTP/1.0 and HTTP/1.1 are served"),
}
"""The errors ``http.server`` finds in a request, as ``send_error`` answers them."""


_HEAD_END = re.compile(rb"\n\r?\n")
"""The blank line that ends a request's headers (CRLF or bare LF, as ``http.server`` reads them)."""


class _Job:
    """A complete request handed to a worker, and the buffer its answer is written to."""

    __slots__ = ("raw", "answer")

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self.answer = io.BytesIO()


class _Conn:
    """One client connection, as the front end sees it.

    ``state`` is ``head`` (reading the request line and headers), ``body``
    (reading the announced body), ``work`` (a worker has the request: no
    deadline, the socket is not watched), ``write`` (sending the answer) or
    ``linger`` (answered; dropping what the client still sends until it closes).
    """

    __slots__ = ("sock", "address", "buf", "state", "deadline", "last", "scanned", "need", "out", "sent",
                 "watched", "closed")

    def __init__(self, sock: socket.socket, address: Any, now: float, header_timeout: float) -> None:
        self.sock = sock
        self.address = address
        self.buf = bytearray()
        self.state = "head"
        self.deadline = now + header_timeout
        self.last = now
        self.scanned = 0
        self.need = 0
        self.out = memoryview(b"")
        self.sent = 0
        self.watched = 0
        self.closed = False


def _content_length(head: bytes) -> int | None:
    """The body length a request head announces (0 when none); None when it
    announces one we cannot read safely (``Transfer-Encoding``, a malformed or
    contradictory ``Content-Length``)."""
    found: bytes | None = None
    for line in head.split(b"\n")[1:]:
        name, colon, value = line.partition(b":")
        if not colon:
            continue
        name = name.strip().lower()
        if name == b"transfer-encoding":
            return None
        if name == b"content-length":
            value = value.strip()
            if not value.isdigit() or (found is not None and found != value):
                return None
            found = value
    return int(found) if found is not None else 0


def _descriptors_for_clients() -> int:
    """How many client connections the process's descriptor limit leaves room
    for (64 kept for the index, the ledger, the workers and the rest)."""
    if resource is None:
        return MAX_CONNECTIONS
    try:
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (OSError, ValueError):
        return MAX_CONNECTIONS
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    return max(16, soft - 64)


def _error_answer(status: int, code: str, message: str, extra: dict[str, str] | None = None) -> bytes:
    """A whole HTTP/1.0 answer, for what the front end refuses before a worker sees it."""
    body = orjson.dumps({"error": {"code": code, "message": message}})
    lines = [f"HTTP/1.0 {status} {http.HTTPStatus(status).phrase}", f"Server: {StatusRequestHandler.server_version}",
             f"Date: {formatdate(usegmt=True)}", "Content-Type: application/json", f"Content-Length: {len(body)}",
             *(f"{name}: {value}" for name, value in SECURITY_HEADERS), f"Content-Security-Policy: {API_CSP}",
             "Connection: close", *(f"{name}: {value}" for name, value in (extra or {}).items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


class _Server(socketserver.TCPServer):
    """The status server: a selector-driven front end and a bounded pool of workers.

    One thread (the one in :meth:`serve_forever`) accepts connections, reads
    each request in full under its deadlines (``HEADER_TIMEOUT``, then
    ``BODY_TIMEOUT``), hands complete requests to at most ``MAX_WORKERS``
    workers (``MAX_QUEUED`` more may wait; past that 503), and writes each
    answer back within ``WRITE_TIMEOUT``. Workers never read from or write to a
    client, so a slow, idle or stalled client costs one connection slot, and
    past ``MAX_CONNECTIONS`` the reading connection quiet the longest is closed
    to admit a new one. One request per connection (HTTP/1.0, no keep-alive).
    """

    allow_reuse_address = True  # a restart right after Ctrl-C; a live listener still refuses the bind (Linux)
    request_queue_size = 128  # the listen backlog: a burst of connects waits in the kernel, not refused

    def __init__(self, server_address: Any, handler: type[StatusRequestHandler]) -> None:
        # The limits as the module states them when the server is made (tests lower them).
        self.header_timeout = HEADER_TIMEOUT
        self.body_timeout = BODY_TIMEOUT
        self.write_timeout = WRITE_TIMEOUT
        self.max_connections = MAX_CONNECTIONS
        self.max_workers = MAX_WORKERS
        self.max_queued = MAX_QUEUED
        self.max_head_bytes = MAX_HEAD_BYTES
        self.max_body_bytes = MAX_BODY_BYTES
        self.max_connections = min(self.max_connections, _descriptors_for_clients())
        super().__init__(server_address, handler)  # binds and listens; closes the socket if that fails
        self.socket.setblocking(False)
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._finished: queue.SimpleQueue[tuple[_Conn, bytes]] = queue.SimpleQueue()
        self.workers = ThreadPoolExecutor(self.max_workers, thread_name_prefix="baton-status")
        self._conns: dict[int, _Conn] = {}
        self._busy = 0  # requests a worker has or that wait for one
        self._selector: selectors.BaseSelector | None = None
        self._stopping = False
        self._stopped = threading.Event()
        self._stopped.set()

    # -- the loop -------------------------------------------------------------
    def serve_forever(self, poll_interval: float = 0.5) -> None:
        """Serve until :meth:`shutdown` (from another thread) or an exception (KeyboardInterrupt)."""
        self._stopped.clear()
        selector = self._selector = selectors.DefaultSelector()
        selector.register(self.socket, selectors.EVENT_READ, "accept")
        selector.register(self._wake_r, selectors.EVENT_READ, "wake")
        checked = time.monotonic()
        try:
            while not self._stopping:
                for key, events in selector.select(min(poll_interval, 0.25)):
                    if key.data == "accept":
                        self._accept()
                    elif key.data == "wake":
                        self._drain_wake()
                    elif events & selectors.EVENT_READ:
                        self._read(key.data)
                    else:
                        self._write(key.data)
                self._collect()
                now = time.monotonic()
                if now - checked >= 0.1:
                    checked = now
                    self._expire(now)
        finally:
            for conn in list(self._conns.values()):
                self._close(conn)
            selector.close()
            self._selector = None
            self._stopping = False
            self._stopped.set()

    def shutdown(self) -> None:
        """Stop :meth:`serve_forever` and wait until it has returned."""
        self._stopping = True
        self._wake()
        self._stopped.wait()

    def _wake(self) -> None:
        try:
            self._wake_w.send(b"\0")
        except (BlockingIOError, OSError):
            pass  # a wake is already pending, or the server is closed

    def _drain_wake(self) -> None:
        try:
            while self._wake_r.recv(4096):
                pass
        except (BlockingIOError, OSError):
            pass

    # -- connections ----------------------------------------------------------
    def _accept(self) -> None:
        for _ in range(64):  # a bounded batch: reading and writing go on under a flood of connects
            try:
                sock, address = self.socket.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                if exc.errno in (errno.EMFILE, errno.ENFILE):
                    self._evict_quietest()  # out of descriptors: the quietest reader makes room
                return
            if len(self._conns) >= self.max_connections and not self._evict_quietest():
                sock.close()  # every connection is past reading (working or answering)
                continue
            sock.setblocking(False)
            conn = _Conn(sock, address, time.monotonic(), self.header_timeout)
            self._conns[sock.fileno()] = conn
            self._watch(conn, selectors.EVENT_READ)

    def _evict_quietest(self) -> bool:
        """Close a connection already answered, else the one still sending its
        request that has sent nothing for the longest."""
        readers = [c for c in self._conns.values() if c.state in ("linger", "head", "body")]
        if not readers:
            return False
        self._close(min(readers, key=lambda c: (c.state != "linger", c.last)))
        return True

    def _watch(self, conn: _Conn, events: int) -> None:
        selector = self._selector
        if selector is None or conn.watched == events:
            return
        if not events:
            selector.unregister(conn.sock)
        elif conn.watched:
            selector.modify(conn.sock, events, conn)
        else:
            selector.register(conn.sock, events, conn)
        conn.watched = events

    def _close(self, conn: _Conn) -> None:
        if conn.closed:
            return
        conn.closed = True
        try:
            self._watch(conn, 0)
        except (KeyError, ValueError, OSError):
            pass
        self._conns.pop(conn.sock.fileno(), None)
        conn.sock.close()

    def _expire(self, now: float) -> None:
        for conn in [c for c in self._conns.values() if c.state != "work" and now >= c.deadline]:
            self._close(conn)

    # -- reading a request ----------------------------------------------------
    def _read(self, conn: _Conn) -> None:
        try:
            data = conn.sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self._close(conn)
            return
        if not data or conn.state == "linger":  # the client went away, or the answer is out already
            if not data:
                self._close(conn)
            return
        now = time.monotonic()
        conn.last = now
        conn.buf += data
        if conn.state == "head":
            found = _HEAD_END.search(conn.buf, max(0, conn.scanned - 2))
            if found is None or found.end() > self.max_head_bytes:
                conn.scanned = len(conn.buf)
                if len(conn.buf) > self.max_head_bytes:
                    self._answer(conn, _error_answer(431, "headers_too_large",
                                                     f"the request line and headers exceed {self.max_head_bytes} bytes"))
                return
            length = _content_length(bytes(conn.buf[:found.end()]))
            if length is None:
                self._answer(conn, _error_answer(400, "bad_request",
                                                 "a request body needs one valid Content-Length (no Transfer-Encoding)"))
                return
            if length > self.max_body_bytes:
                self._answer(conn, _error_answer(413, "body_too_large",
                                                 f"a request body may hold at most {self.max_body_bytes} bytes"))
                return
            conn.state = "body"
            conn.need = found.end() + length
            conn.deadline = now + self.body_timeout
        if conn.state == "body" and len(conn.buf) >= conn.need:
            self._dispatch(conn)

    def _dispatch(self, conn: _Conn) -> None:
        """A complete request: to a worker, or 503 when too many wait already."""
        if self._busy >= self.max_workers + self.max_queued:
            self._answer(conn, _error_answer(503, "busy", "too many requests at once; try again",
                                             {"Retry-After": "1"}))
            return
        self._watch(conn, 0)
        conn.state = "work"
        job = _Job(bytes(conn.buf[:conn.need]))
        conn.buf = bytearray()
        self._busy += 1
        self.workers.submit(self._work, conn, job)

    def _work(self: Self, conn: _Conn, job: _Job) -> None:
        """In a worker: run the handler on the request's bytes; the answer goes back to the loop."""
        try:
            self.RequestHandlerClass(job, conn.address, self)
        except Exception:  # noqa: BLE001 - reported by handle_error, never raised in a worker
            self.handle_error(job, conn.address)
        self._finished.put((conn, job.answer.getvalue()))
        self._wake()

    def _collect(self) -> None:
        while True:
            try:
                conn, answer = self._finished.get_nowait()
            except queue.Empty:
                return
            self._busy -= 1
            if conn.closed:
                continue
            if not answer:
                self._close(conn)
                continue
            self._answer(conn, answer)

    # -- writing an answer ----------------------------------------------------
    def _answer(self, conn: _Conn, answer: bytes) -> None:
        conn.state = "write"
        conn.out = memoryview(answer)
        conn.sent = 0
        conn.deadline = time.monotonic() + self.write_timeout
        self._watch(conn, selectors.EVENT_WRITE)
        self._write(conn)

    def _write(self, conn: _Conn) -> None:
        try:
            conn.sent += conn.sock.send(conn.out[conn.sent:])
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self._close(conn)
            return
        if conn.sent >= len(conn.out):
            self._linger(conn)

    def _linger(self, conn: _Conn) -> None:
        """The answer is out: say so (FIN), then read and drop what the client
        still sends until it closes, for at most ``LINGER``. Closing with
        unread bytes would reset the connection, and a reset can destroy an
        answer the client has not read yet (a refused oversized request)."""
        try:
            conn.sock.shutdown(socket.SHUT_WR)
        except OSError:
            self._close(conn)
            return
        conn.state = "linger"
        conn.buf = bytearray()
        conn.deadline = time.monotonic() + LINGER
        self._watch(conn, selectors.EVENT_READ)

    # -- errors and teardown --------------------------------------------------
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that disconnected or stalled is not an error; anything else is one line, no traceback."""
        exc = sys.exc_info()[1]
        if exc is None or isinstance(exc, (ConnectionError, TimeoutError, socket.timeout)):
            return
        sys.stderr.write(f"baton status: {_screened(exc)}\n")

    def server_close(self) -> None:
        super().server_close()
        for conn in list(getattr(self, "_conns", {}).values()):
            self._close(conn)
        for end in (getattr(self, "_wake_r", None), getattr(self, "_wake_w", None)):
            if end is not None:
                end.close()
        workers = getattr(self, "workers", None)  # absent when binding failed
        if workers is not None:
            workers.shutdown(wait=False, cancel_futures=True)

    def server_bind(self) -> None:
        # HTTPServer.server_bind asks DNS for the host's FQDN; a loopback literal needs no lookup.
        socketserver.TCPServer.server_bind(self)
        self.server_name = str(self.server_address[0])
        self.server_port = int(self.server_address[1])


class _Server6(_Server):
    address_family = socket.AF_INET6


@mutable
class StatusServer:
    """A bound, not yet serving, status server."""

    app: StatusApp
    httpd: "_Server"

    @property
    def url(self) -> str:
        return self.app.url

    def serve_forever(self, poll_interval: float = 0.2) -> None:
        """Serve until :meth:`shutdown` or KeyboardInterrupt (``poll_interval``
        bounds how long the loop sleeps between checks of its deadlines)."""
        self.httpd.serve_forever(poll_interval=poll_interval)

    def shutdown(self) -> None:
        """Stop ``serve_forever`` (from another thread) and close the socket."""
        self.httpd.shutdown()
        self.close()

    def close(self) -> None:
        self.httpd.server_close()
        with self.app.lock:
            self.app.close()


def bind_status_server(target) -> StatusServer:
    """Bind a server for a checked :class:`~baton.commands.status_page.ListenTarget`.

    Raises:
        PortInUse: the port is taken (exit 4).
        StorageError: any other bind failure (exit 1), e.g. a port below 1024.
    """
    app = StatusApp(root=target.root, project_id=target.project_id, host=target.host)
    handler = type("BoundStatusRequestHandler", (StatusRequestHandler,), {"app": app})
    server_class = _Server6 if target.family == socket.AF_INET6 else _Server
    try:
        httpd = server_class((target.host, target.port), handler)
    except OSError as exc:
        where = f"{target.host}:{target.port}" if ":" not in target.host else f"[{target.host}]:{target.port}"
        if exc.errno == errno.EADDRINUSE:
            raise PortInUse(f"port {target.port} on {target.host} is already in use; stop the other server "
                            f"or choose another with --port (0 picks a free one)",
                            details={"host": target.host, "port": target.port}) from None
        raise StorageError(f"cannot listen on {where}: {exc.strerror or exc}",
                           details={"host": target.host, "port": target.port}) from None
    app.port = httpd.server_address[1]
    return StatusServer(app, httpd)


@frozen
class ServeResult:
    """What ``baton status serve`` reports once stopped (the URL was printed at start)."""

    url: str
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"url": self.url, "stopped": True}

    def json_lines(self) -> str:
        return ""  # the one JSON object was printed when serving began

    def render(self) -> str:
        return ""


def serve_status_page(project_option: str | os.PathLike | None = None, *, host: str, port: int,
                      on_ready: Callable[[dict[str, Any]], None]) -> ServeResult:
    """Check the address, bind, announce, and serve until Ctrl-C or SIGTERM (then exit 0).

    Raises:
        PolicyBlock: a non-loopback host (exit 5).
        PortInUse: the port is taken (exit 4).
        InputError / NotInitialized / StorageError: as their names say.
    """
    baton = Baton.open(project_option)
    try:
        server = bind_status_server(baton.listen_target(host=host, port=port))
    except BaseException:
        baton.close()
        raise
    server.app.baton = baton
    previous = None

    def stop(signum, frame):  # SIGTERM: stop like Ctrl-C
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, stop)
    try:
        on_ready({"url": server.url, "host": server.app.host, "port": server.app.port,
                  "projectId": server.app.project_id, "root": server.app.root, "token": server.app.token})
        server.serve_forever()
    except KeyboardInterrupt:  # the normal stop: exit 0, even after a Ctrl-C a finalizer swallowed
        InterruptsCount.stopped()
    finally:
        server.close()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return ServeResult(server.url)
