"""The hook server: ``python -P -m baton.hook_server SOCKET``, started in the
background by a hook that found none (``baton.launch``).

It imports, once, everything a hook may need (the command line, the hook
handlers, the use cases, the folds, the ledger) and waits on a Unix socket
in a folder only its user may enter. For each hook a ``baton`` process
relays, it forks a child that takes that process's standard input, output
and error (passed over the socket), working directory, umask, environment
and arguments and runs ``baton.cli.run`` — then reports the child's exit
status to the waiting process. A child is a whole ``baton`` process minus
its imports: it opens the project, takes the ledger's lock, appends and
fsyncs, and ends with ``os._exit`` as a hook run always does; the server
itself opens nothing of any project, holds no lock and writes nothing but
its socket, so a child is exactly the process the hook would have been, and
two hooks relayed at once are two processes as before.

It serves only its own user (the socket's folder is private, and each
connection's peer credentials are checked), only ``baton hook`` (any other
request is declined) and only while its code is current: a request after
any of its modules' files changed (an upgrade, an edit) is declined, and
the server ends; the hook then runs in its own process and starts a new
server. It ends after ``BATON_HOOK_SERVER_IDLE`` seconds without a request
(``IDLE_SECONDS``), or at SIGTERM, removing its socket; hooks already
running are processes of their own and run to their end.

The server needs ``os.pidfd_open`` (Linux 5.3 or later) to wait for its
children beside its socket; without it, it does not start, and every hook
runs in its own process as before.
"""

from __future__ import annotations

import fcntl
import gc
import importlib
import io
import os
import pkgutil
import select
import signal
import socket
import struct
import sys
import time
from pathlib import Path

from baton.domain.identifiers import screen_identifiers
from baton.domain.redaction import RedactionPolicy, redact_payload, redact_strings
from baton.domain.regexes import LazyPattern
from baton.launch import ACCEPTED, DECLINED, PROTOCOL, RELAYED, installation_key, private_folder

IDLE_SECONDS = 3600.0
"""How long the server waits for a request before it ends (``BATON_HOOK_SERVER_IDLE`` overrides)."""
PACKAGES = ("baton.cli_handlers", "baton.commands", "baton.harnesses", "baton.projections", "baton.domain",
            "baton.events", "baton.ledger")
"""What is imported before serving: every module of these packages (and what they import)."""
NOT_LOADED = frozenset({"baton.cli_handlers.mcp", "baton.cli_handlers.demo"})
"""Modules a hook never runs: the MCP server's SDK and the demo's scratch repository."""
LOCK_WAIT = 3.0
"""Seconds a starting server waits for the one before it to end."""
REQUEST_WAIT = 2.0
"""Seconds a connection has to send its whole request."""
MAX_REQUEST = 4 * 1024 * 1024
_CREDENTIALS = struct.Struct("3i")


class Declined(Exception):
    """A request the server does not run (the relaying process then runs it itself)."""


def main(argv: list[str]) -> int:
    """Serve the hook server at ``argv[0]`` (a socket path); 0 when another
    server of this installation serves it already, 2 when it cannot serve."""
    if len(argv) != 1 or not hasattr(os, "pidfd_open"):
        return 2
    address = argv[0]
    if not private_folder(os.path.dirname(address)):
        return 2
    lock = os.open(address + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    if not _locked(lock):
        return 0  # another server of this installation serves, or is still finishing its last hooks
    os.chdir("/")
    modules = preload()
    server = Server(_listen(address), address, lock, modules, _idle_seconds())
    try:
        server.serve()
    finally:
        server.close_listener()
    return 0


def _locked(lock: int, wait: float = LOCK_WAIT) -> bool:
    """Hold the installation's server lock (for the whole life of the process), waiting up to ``wait``
    seconds for a server that is ending (declining stale requests, finishing its children)."""
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except OSError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.05)


def preload() -> dict[str, tuple[int, int]]:
    """Import every module a hook may run, then freeze the heap (a child's
    collections never touch the server's objects' pages); the files of the
    ``baton`` modules loaded, with their modification times and sizes."""
    importlib.import_module("baton.cli")
    for name in PACKAGES:
        package = importlib.import_module(name)
        for info in pkgutil.walk_packages(package.__path__, name + "."):
            if info.name not in NOT_LOADED:
                importlib.import_module(info.name)
    warm()
    gc.collect()
    gc.freeze()
    return {path: stamp for path in loaded_files() if (stamp := _stamp(path)) is not None}


WARM_TEXT = ("warm-up: owner dev@example.com on feature/x, see src/app.py; token = 'not-a-secret-value-1234' "
             "https://example.com/path?q=1 -----BEGIN NOTHING----- eyJub3QiOiJhIHRva2VuIn0")
"""A text for the secret rules to read once in the server, so their patterns are compiled before any child runs."""


def warm() -> None:
    """Fill, in the server, what a hook would otherwise build in each child:
    the patterns the loaded modules compile on first use (``regexes.lazy``,
    the secret rules' table) and the command line's ``hook`` parser. Only pure
    work: nothing here reads a project, the clock or the environment."""
    for item in gc.get_objects():
        if type(item) is LazyPattern:
            item.groups  # noqa: B018 - compiles the pattern
    policy = RedactionPolicy()
    redact_payload({"objective": WARM_TEXT, "artifacts": [{"path": "src/app.py"}]}, policy)
    redact_strings({"text": WARM_TEXT}, policy)
    screen_identifiers({"owner": "dev@example.com", "branch": "feature/x", "session": "warm-up"}, policy)
    cli = importlib.import_module("baton.cli")
    for command in RELAYED:
        cli.keep_parser([command])


def loaded_files() -> list[str]:
    """The source files of the ``baton`` modules this process has imported."""
    return [path for name, module in list(sys.modules.items())
            if (name == "baton" or name.startswith("baton.")) and (path := getattr(module, "__file__", None))]


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def _listen(address: str) -> socket.socket:
    try:
        os.unlink(address)  # a socket left by a server that died: the lock says none serves it
    except FileNotFoundError:
        pass
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        listener.bind(address)
    finally:
        os.umask(old)
    listener.listen(64)
    return listener


def _idle_seconds() -> float:
    try:
        return max(1.0, float(os.environ.get("BATON_HOOK_SERVER_IDLE", IDLE_SECONDS)))
    except ValueError:
        return IDLE_SECONDS


class Server:
    """The accept loop: a child per request, its exit status reported when it ends."""

    def __init__(self, listener: socket.socket, address: str, lock: int, modules: dict[str, tuple[int, int]],
                 idle: float) -> None:
        self.listener: socket.socket | None = listener
        self.address, self.lock, self.modules, self.idle = address, lock, modules, idle
        self.running: dict[int, tuple[int, socket.socket]] = {}  # pidfd -> (pid, the relaying connection)
        self.served = 0
        self.poller = select.poll()
        self.poller.register(listener, select.POLLIN)
        self._record()
        signal.signal(signal.SIGTERM, lambda *_: self.close_listener())

    def serve(self) -> None:
        """Take requests until idle for ``idle`` seconds or told to stop, then wait for the hooks still running."""
        last = time.monotonic()
        while self.listener is not None or self.running:
            wait = None if self.running else max(0.0, last + self.idle - time.monotonic())
            try:
                ready = self.poller.poll(None if wait is None else wait * 1000)
            except InterruptedError:
                continue
            if not ready and not self.running:
                self.close_listener()  # idle
                continue
            for fd, _ in ready:
                if self.listener is not None and fd == self.listener.fileno():
                    last = time.monotonic()
                    self._accept()
                elif fd in self.running:
                    self._ended(fd)

    def close_listener(self) -> None:
        """Take no more requests: the socket goes first (a hook then runs in its own process at once)."""
        if self.listener is None:
            return
        try:
            os.unlink(self.address)
        except OSError:
            pass
        self.poller.unregister(self.listener)
        self.listener.close()
        self.listener = None

    def _accept(self) -> None:
        assert self.listener is not None
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        fds: list[int] = []
        try:
            conn.settimeout(REQUEST_WAIT)
            self._check_peer(conn)
            body, fds = read_request(conn)
            request = parse_request(body)
            if self._stale():
                self.close_listener()
                raise Declined("the installation changed")
            pid = os.fork()
        except (Declined, OSError, ValueError):
            _close(fds)
            _answer(conn, DECLINED)
            conn.close()
            return
        if pid == 0:
            run_child(fds, request)
        _close(fds)
        pidfd = os.pidfd_open(pid)
        self.running[pidfd] = (pid, conn)
        self.poller.register(pidfd, select.POLLIN)
        _answer(conn, ACCEPTED + pid.to_bytes(4, "big"))
        self.served += 1
        self._record()

    def _ended(self, pidfd: int) -> None:
        pid, conn = self.running.pop(pidfd)
        self.poller.unregister(pidfd)
        os.close(pidfd)
        try:
            _, status = os.waitpid(pid, 0)
            code = os.waitstatus_to_exitcode(status)
        except ChildProcessError:
            code = 0
        _answer(conn, (code if code >= 0 else 128 - code).to_bytes(4, "big"))
        conn.close()

    def _record(self) -> None:
        """The lock file says which process serves, and how many hooks it has taken (``baton doctor``)."""
        line = b"%d %d\n" % (os.getpid(), self.served)
        os.ftruncate(self.lock, len(line))
        os.pwrite(self.lock, line, 0)

    def _check_peer(self, conn: socket.socket) -> None:
        if not hasattr(socket, "SO_PEERCRED"):
            raise Declined("no peer credentials")
        _, uid, _ = _CREDENTIALS.unpack(conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _CREDENTIALS.size))
        if uid != os.getuid():
            raise Declined("another user")

    def _stale(self) -> bool:
        return any(_stamp(path) != stamp for path, stamp in self.modules.items())


def read_request(conn: socket.socket) -> tuple[bytes, list[int]]:
    """The request's body and the descriptors that came with it (three: the
    relaying process's standard input, output and error)."""
    fds: list[int] = []
    data = b""
    while len(data) < 4 or len(data) < 4 + int.from_bytes(data[:4], "big"):
        if len(data) >= 4 and int.from_bytes(data[:4], "big") > MAX_REQUEST:
            _close(fds)
            raise ValueError("request too large")
        chunk, ancillary, _, _ = conn.recvmsg(65536, socket.CMSG_SPACE(3 * 4))
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.extend(struct.unpack(f"{len(payload) // 4}i", payload[: len(payload) // 4 * 4]))
        if not chunk:
            _close(fds)
            raise ValueError("request cut short")
        data += chunk
    if len(fds) != 3:
        _close(fds)
        raise ValueError("a request passes three descriptors")
    return data[4:], fds


class Request:
    """A relayed hook, read (``parse_request``)."""

    def __init__(self, cwd: bytes, umask: int, streams: list[tuple[str, str]], program: bytes,
                 words: list[bytes], environ: dict[bytes, bytes]) -> None:
        self.cwd, self.umask, self.streams = cwd, umask, streams
        self.program, self.words, self.environ = program, words, environ


def parse_request(body: bytes) -> Request:
    fields = body.split(b"\0")
    if len(fields) < 9 or fields[0] != PROTOCOL or fields[1] != installation_key().encode():
        raise Declined("another protocol or installation")
    count = int(fields[8])
    words = fields[9:9 + count]
    if count < 1 or len(words) != count or words[0].decode("utf-8", "replace") not in RELAYED:
        raise Declined("only the commands of a session's start and end are relayed")
    environ = dict(entry.partition(b"=")[::2] for entry in fields[9 + count:] if entry)
    streams = []
    for field in fields[4:7]:
        encoding, _, errors = field.decode("ascii").partition(":")
        streams.append((encoding, errors))
    return Request(fields[2], int(fields[3]), streams, fields[7], words, environ)


def run_child(fds: list[int], request: Request) -> None:
    """In the forked child: become the relaying process (its descriptors,
    directory, umask, environment, arguments) and run the command line.
    Never returns."""
    code = 1
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        os.closerange(3, os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 65536)  # the server's own
        os.chdir(request.cwd)
        os.umask(request.umask)
        os.environb.clear()
        os.environb.update(request.environ)
        time.tzset()
        sys.argv = [os.fsdecode(request.program), *map(os.fsdecode, request.words)]
        _standard_streams(request.streams)
        importlib.import_module("baton.cli").run()
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
    except BaseException:  # noqa: BLE001 - a child never returns into the server's loop
        code = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:  # noqa: BLE001
            pass
        os._exit(code)


def _standard_streams(streams: list[tuple[str, str]]) -> None:
    """Standard streams on descriptors 0–2, with the encodings the relaying process had."""
    (in_enc, in_err), (out_enc, out_err), (err_enc, err_err) = streams
    sys.stdin = io.TextIOWrapper(io.open(0, "rb", closefd=False), in_enc, in_err)
    sys.stdout = io.TextIOWrapper(io.open(1, "wb", closefd=False), out_enc, out_err, line_buffering=os.isatty(1))
    sys.stderr = io.TextIOWrapper(io.open(2, "wb", closefd=False), err_enc, err_err, line_buffering=True)
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr  # type: ignore[misc]


def stop_servers(folder: str | os.PathLike[str], wait: float = 15.0) -> list[int]:
    """Stop the hook servers listening under ``folder`` (an ``XDG_RUNTIME_DIR``:
    their pid is in their lock file) and wait for them to end; their pids.
    What a test suite or a benchmark that started servers calls at its end
    (``kill PID`` does the same; ``baton doctor`` names the pid)."""
    stopped = []
    for lock in sorted(Path(folder, "baton").glob("hook-*.sock.lock")):
        try:
            pid = int(lock.read_text().split()[0])
            os.kill(pid, signal.SIGTERM)
        except (OSError, ValueError, IndexError):
            continue
        stopped.append(pid)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and Path(f"/proc/{pid}").exists():
            time.sleep(0.05)
    return stopped


def _answer(conn: socket.socket, data: bytes) -> None:
    try:
        conn.sendall(data)
    except OSError:
        pass


def _close(fds: list[int]) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
