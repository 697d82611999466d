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

Requests run one at a time (a lock around the command call): the status page
is a one-person tool, and the ledger serializes writers anyway.
"""

from __future__ import annotations

import errno
import hmac
import http.server
import secrets
import socket
import socketserver
import sys
import os
import threading
from typing import Any, Callable
from urllib.parse import parse_qs, unquote, urlsplit

import attrs
import orjson

from baton.model import frozen, mutable
from baton.app import Baton
from baton.errors import (
    BatonError, Conflict, InputError, NotFound, PolicyBlock, PortInUse, StorageError, ValidationFailed,
)
from baton.web.page import API_CSP, PAGE_CSP, render_page

API_PATH = "/api/handoffs"
TOKEN_HEADER = "X-Baton-Token"
REQUEST_TIMEOUT = 10.0
"""Seconds a connection may take to send its whole request, however it
trickles it in: past them the connection is cut (a stalled client holds one
worker for at most this long, never the server)."""
MAX_WORKERS = 8
"""Requests handled at once; the rest wait for a worker."""
MAX_WAITING = 32
"""Connections that may wait for a worker; past them a new connection is closed at once."""


def _screened(exc: BaseException) -> str:
    """An exception as one log line: through the secret rules, control characters escaped."""
    from baton.domain.redaction import RedactionPolicy, screen_text

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

    def application(self) -> Baton:
        if self.baton is None:
            self.baton = Baton.open(self.root)
        return self.baton

    def sanitize(self, value: Any) -> Any:
        """Redact an answer with the project's policy (the built-in rules when
        the project could not be opened): an error body is never the one
        thing left unredacted."""
        if self.baton is None:
            from baton.commands.status_page import sanitize_for_project

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
    server_version = "baton-status"
    timeout = REQUEST_TIMEOUT
    app: StatusApp  # set on the subclass made per server

    # -- plumbing -------------------------------------------------------------
    def setup(self) -> None:
        super().setup()
        # The per-request deadline: ``timeout`` bounds each read, this bounds
        # them all together, so a client sending a byte every few seconds is
        # cut off too. Cancelled once the request line and headers are in.
        self._deadline = threading.Timer(REQUEST_TIMEOUT, self._cut_off)
        self._deadline.daemon = True
        self._deadline.start()

    def _cut_off(self) -> None:
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def parse_request(self) -> bool:
        self._deadline.cancel()
        return super().parse_request()

    def finish(self) -> None:
        self._deadline.cancel()
        super().finish()

    def version_string(self) -> str:
        return self.server_version  # no Python version in the Server header

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        """Quiet: a local tool's terminal is not an access log."""

    def _send(self, status: int, body: bytes, content_type: str, *, csp: str = API_CSP,
              extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Content-Security-Policy", csp)
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

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
            self._run(lambda baton: baton.status_overview(requested_project=project, check_project=True))
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
        self._run(lambda baton: baton.dismiss_from_status_page(project, baton_id))

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


class _Server(http.server.HTTPServer):
    """An HTTP server with a bounded pool of workers (the standard library's
    threading server starts a thread per connection, without limit), and
    quiet about clients that go away."""

    allow_reuse_address = True  # a restart right after Ctrl-C; a live listener still refuses the bind (Linux)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        from concurrent.futures import ThreadPoolExecutor

        super().__init__(*args, **kwargs)
        self.workers = ThreadPoolExecutor(MAX_WORKERS, thread_name_prefix="baton-status")
        self.slots = threading.BoundedSemaphore(MAX_WORKERS + MAX_WAITING)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.slots.acquire(blocking=False):
            self.shutdown_request(request)  # too many connections: this one is closed at once
            return
        self.workers.submit(self._work, request, client_address)

    def _work(self, request: Any, client_address: Any) -> None:
        try:
            self.finish_request(request, client_address)
        except Exception:  # noqa: BLE001 - reported by handle_error, never raised in a worker
            self.handle_error(request, client_address)
        finally:
            self.shutdown_request(request)
            self.slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that disconnected or stalled is not an error; anything else is one line, no traceback."""
        exc = sys.exc_info()[1]
        if exc is None or isinstance(exc, (ConnectionError, TimeoutError, socket.timeout)):
            return
        sys.stderr.write(f"baton status: {_screened(exc)}\n")

    def server_close(self) -> None:
        super().server_close()
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
    httpd: http.server.HTTPServer

    @property
    def url(self) -> str:
        return self.app.url

    def serve_forever(self, poll_interval: float = 0.2) -> None:
        """Serve until :meth:`shutdown` (which waits up to ``poll_interval``) or KeyboardInterrupt."""
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
    import signal

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
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return ServeResult(server.url)
