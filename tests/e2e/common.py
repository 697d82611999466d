"""The real harness programs, installed from the npm registry, against a scripted model on loopback.

Shared by the end-to-end suites under ``tests/e2e/`` (``pytest -m e2e tests/e2e``):

- ``harness_program(name)`` installs the pinned version of a harness from the
  npm registry into a cache (``BATON_E2E_CACHE``, default
  ``~/.cache/baton-e2e``) once, and returns the path of its executable. It
  skips the test, saying why, when node/npm is missing or the registry cannot
  be reached; any other install failure is an error.
- ``FakeModel`` is a small HTTP server on 127.0.0.1 that records every request
  and answers from a script; one subclass per model API (Anthropic Messages,
  OpenAI Responses, Gemini generateContent) lives beside the harness's suite.
- ``harness_env`` builds the environment a harness runs in: a scratch HOME,
  ``baton`` (this checkout's) first on PATH, no proxy, and nothing that would
  reach past loopback.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from baton.hook_server import stop_servers

#: harness -> (npm package, pinned version, executable name)
PINNED: dict[str, tuple[str, str, str]] = {
    "claude-code": ("@anthropic-ai/claude-code", "2.1.337", "claude"),
    "codex": ("@openai/codex", "0.171.0", "codex"),
    "gemini-cli": ("@google/gemini-cli", "0.61.0", "gemini"),
}

CACHE = Path(os.environ.get("BATON_E2E_CACHE") or Path.home() / ".cache" / "baton-e2e")
# The real home, read once at import: tests get a scratch HOME (tests/conftest.py),
# but the install cache must outlive a test.
_INSTALL_ROOT = CACHE / "npm"

#: The directory holding the ``baton`` this test run uses (the venv's bin).
BATON_BIN = Path(sys.executable).parent

#: The harnesses' ``XDG_RUNTIME_DIR``: where the hooks' hook server listens (docs/hooks.md, "The hook
#: server"); short (a socket's path is limited) and this run's own, its servers stopped at the end.
RUNTIME = Path(tempfile.mkdtemp(prefix="bte-", dir="/tmp"))


def stop_hook_servers(folder: Path = RUNTIME) -> None:
    """Stop the hook servers listening in ``folder`` (``baton.hook_server.stop_servers``)."""
    stop_servers(folder)


@atexit.register
def _runtime_removed() -> None:
    """Every process that imports this module (each xdist worker of the main suite too) made its
    own ``RUNTIME``: its servers are stopped and the folder removed when it exits, so runs do not
    leave ``/tmp/bte-*`` folders behind."""
    stop_hook_servers()
    shutil.rmtree(RUNTIME, ignore_errors=True)


class HarnessUnavailable(Exception):
    """node/npm missing, or the npm registry unreachable: the suite skips, saying so."""


_install_lock = threading.Lock()


def harness_program(name: str, version: str | None = None) -> Path:
    """The pinned harness's executable (or ``version``'s: a benchmark comparing two), installed
    into the cache on first use (or the test skips)."""
    package, pinned, executable = PINNED[name]
    version = version or pinned
    folder = _INSTALL_ROOT / f"{package.replace('/', '_').replace('@', '_')}_{version}"
    program = folder / "node_modules" / ".bin" / executable
    with _install_lock:
        if program.exists():
            return program
        npm = shutil.which("npm")
        if npm is None or shutil.which("node") is None:
            pytest.skip(f"{name}: node and npm are needed to install {package}@{version}; not found on PATH")
        folder.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", str(folder),
             f"{package}@{version}"],
            capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            text = done.stderr + done.stdout
            if any(sign in text for sign in ("ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ETIMEDOUT",
                                                "ECONNRESET", "network")):
                pytest.skip(f"{name}: the npm registry could not be reached to install {package}@{version}")
            raise RuntimeError(f"npm install {package}@{version} failed:\n{text[-4000:]}")
        if not program.exists():
            raise RuntimeError(f"npm installed {package}@{version} but {program} is missing")
        return program


# -- the scripted model ----------------------------------------------------------------------------

class Recorded:
    """One request the harness made of the model."""

    def __init__(self, method: str, path: str, headers: dict[str, str], body: bytes):
        self.method = method
        self.path = path
        self.headers = headers
        self.raw = body
        try:
            self.json: Any = json.loads(body) if body else None
        except ValueError:
            self.json = None

    def text(self) -> str:
        """Everything the request carried, as one string (to look for the brief in it)."""
        return self.raw.decode("utf-8", "replace")


class FakeModel:
    """An HTTP server on 127.0.0.1 that records every request and answers through ``self.respond``.

    Subclasses implement ``respond(handler, recorded)`` for one API; a test
    sets ``self.script`` (a list the subclass pops from, e.g. text replies or
    tool calls) before starting the harness. Use as a context manager.
    """

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.script: list[Any] = []
        self.lock = threading.Lock()
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                recorded = Recorded(self.command, self.path, {k.lower(): v for k, v in self.headers.items()},
                                    body)
                with model.lock:
                    model.requests.append(recorded)
                model.respond(self, recorded)

            do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _handle

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def next_reply(self, default: Any = None) -> Any:
        with self.lock:
            return self.script.pop(0) if self.script else default

    def respond(self, handler: BaseHTTPRequestHandler, recorded: Recorded) -> None:
        raise NotImplementedError

    # helpers for subclasses
    @staticmethod
    def send_json(handler: BaseHTTPRequestHandler, status: int, payload: Any) -> None:
        body = json.dumps(payload).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    @staticmethod
    def send_sse(handler: BaseHTTPRequestHandler, events: list[tuple[str | None, Any]]) -> None:
        """Server-sent events: ``(event name or None, data)``; the body is sent whole, then closed."""
        chunks = []
        for name, data in events:
            line = "" if name is None else f"event: {name}\n"
            chunks.append(f"{line}data: {data if isinstance(data, str) else json.dumps(data)}\n\n")
        body = "".join(chunks).encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Cache-Control", "no-cache")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    def __enter__(self) -> "FakeModel":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()

    def seen(self, needle: str) -> list[Recorded]:
        """The recorded requests that carry ``needle`` anywhere in their body."""
        with self.lock:
            return [r for r in self.requests if needle in r.text()]


class Held:
    """A scripted reply held open: the model's answer does not come until ``release()`` (a turn
    the person interrupts, or leaves running, while it waits). ``asked`` is set once the harness has
    asked for it; the request then waits (for ``release``, or ``limit`` seconds) and is answered
    ``answer`` (any scripted reply), or, with none, its connection is closed unanswered, as a
    connection the harness gave up on. A test releases it in a ``finally``."""

    def __init__(self, answer: Any = None, limit: float = 600) -> None:
        self.asked = threading.Event()
        self._released = threading.Event()
        self.answer = answer
        self.limit = limit

    def hold(self, handler: BaseHTTPRequestHandler) -> Any:
        """Hold ``handler``'s request (in the server's thread) until released; the answer to send
        then (``None``: hang up)."""
        self.asked.set()
        self._released.wait(self.limit)
        if self.answer is None:
            handler.close_connection = True
        return self.answer

    def wait_asked(self, timeout: float = 180) -> None:
        """Until the harness has asked for this reply; past ``timeout`` the test fails."""
        if not self.asked.wait(timeout):
            pytest.fail(f"the held reply was never asked for within {timeout:g} s")

    def release(self) -> None:
        self._released.set()


class ProxyTrap:
    """A "proxy" on 127.0.0.1 that records the first line of each request (``CONNECT host:443``) and hangs up."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.socket.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            with connection:
                connection.settimeout(10)
                try:
                    self.seen.append(connection.recv(4096).split(b"\r\n", 1)[0].decode("latin-1"))
                except OSError:
                    self.seen.append("(unreadable)")

    def close(self) -> None:
        self.socket.close()


# -- the project and the environment ---------------------------------------------------------------

def git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """Real ``git`` (``env``: a harness's environment, e.g. to read that user's ``~/.gitconfig``)."""
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def set_git_identity(env: dict[str, str], email: str, name: str) -> None:
    """The person's identity in their own git config, as ``git config --global`` writes it
    (``~/.gitconfig`` of the environment's HOME): where a clone with no identity of its own
    gets it, and where Baton reads a baton's owner."""
    for key, value in (("user.email", email), ("user.name", name)):
        git(Path(env["HOME"]), "config", "--global", key, value, env=env)


def git_project(root: Path) -> Path:
    """A git repository with one commit, not yet a Baton project (an existing one is
    returned as it is: several harnesses can share one project, as in a relay)."""
    if (root / ".git").exists():
        return root
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "dev@example.test")
    git(root, "config", "user.name", "Dev")
    (root / "README.md").write_text("# demo\n")
    git(root, "add", "README.md")
    git(root, "commit", "-q", "-m", "first")
    return root


def harness_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment a harness runs in: scratch HOME, this checkout's ``baton`` first on PATH, no proxies."""
    home.mkdir(parents=True, exist_ok=True)
    node_dir = Path(shutil.which("node") or "/usr/bin/node").parent
    env = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_RUNTIME_DIR": str(RUNTIME),
        "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "PATH": os.pathsep.join(dict.fromkeys([str(BATON_BIN), str(node_dir), "/usr/local/bin", "/usr/bin", "/bin"])),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "CI": "1",
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }
    env.update(extra)
    return env


def run_baton(cwd: Path, env: dict[str, str], *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """This checkout's ``baton``, as the harness's hooks find it on PATH."""
    return subprocess.run([str(BATON_BIN / "baton"), *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def run_harness(argv: list[str], cwd: Path, env: dict[str, str], *, timeout: float = 180,
                input: str | None = None) -> subprocess.CompletedProcess:
    """Run a harness to completion (headless), with a bound; the output is kept for the failure message."""
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                          input=input if input is not None else "", start_new_session=True)


def ledger_events(project: Path, env: dict[str, str]) -> list[dict[str, Any]]:
    """Every event of the project's ledger, oldest first (``baton log --json``)."""
    done = run_baton(project, env, "log", "--limit", "0", "--json")
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def event_types(project: Path, env: dict[str, str]) -> list[str]:
    return [e.get("type") for e in ledger_events(project, env)]


@contextmanager
def cpu_hog(seconds: int = 900) -> Iterator[None]:
    """Every core kept busy (one spinning process each, at the same priority as the harness)
    while the block runs; each spinner also stops by itself after ``seconds``, should the
    test process die first."""
    spin = f"import time\nend = time.time() + {seconds}\nwhile time.time() < end: pass"
    hogs = [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(os.cpu_count() or 2)]
    try:
        yield
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def no_baton_lost_beside_a_cpu_hog(hand_off: Callable[[], Any], types: Callable[[], list[str]],
                                   sessions: int = 3) -> None:
    """The load scenario, for any harness: ``sessions`` sessions in a row, each handing off
    (``hand_off``: one whole session whose agent readies a handoff) while every core is busy.
    Each session's end leaves its baton (``types``: the ledger's event types, oldest first),
    and each session after the first received the one before. No assertion is about time:
    a lost baton shows as a missing ``baton.created``, a stall as the run's own timeout."""
    with cpu_hog():
        for n in range(1, sessions + 1):
            hand_off()
            created = types().count("baton.created")
            assert created == n, f"session {n} of {sessions} under load: {created} batons created, not {n}"
    assert types().count("baton.claimed") == sessions - 1  # each later session received the one before


Replier = Callable[[Recorded], Any]
