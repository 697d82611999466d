"""The hook server: ``python -P -m baton.hook_server SOCKET``, started in the
background by a hook that found none (``baton.launch``).

It imports, once, everything a hook may need (the command line, the hook
handlers, the use cases, the folds, the ledger, the optional dependencies
they load where they use them) and waits on a Unix socket in a folder only
its user may enter. A child is forked ahead of each request (the spare): the
server hands it the request, the relaying ``baton`` process's standard
input, output and error and the connection (all passed over Unix sockets),
tells the relaying process which child runs it, and forks the next spare.
The child takes over the relaying process's working directory, umask,
environment and arguments, runs ``baton.cli.run`` and, just before it
ends, answers the relaying process with its exit status. A child is a whole
``baton`` process minus its imports: it opens the project, takes the
ledger's lock, appends and fsyncs, and ends with ``os._exit`` as a hook run
always does; the server itself opens nothing of any project, holds no lock
and writes nothing but its socket and lock file, so a child is exactly the
process the command would have been, and two commands relayed at once are
two processes as before.

It serves only its own user (the socket's folder is private, and each
connection's peer credentials are checked), only a caller confined as it is
(``confinement``: the same namespaces, root and sandbox flags — a command a
sandboxed agent runs stays inside its sandbox), only the commands of
``baton.launch.RELAYED`` (any other request is declined) and only while its
code is current: a request after any of its modules' files changed (an
upgrade, an edit) is declined, and the server ends; the command then runs in
its own process and starts a new server. It ends after
``BATON_HOOK_SERVER_IDLE`` seconds without a request (``IDLE_SECONDS``), or
at SIGTERM, removing its socket, its start mark and its lock file (the lock
file last, while still holding the lock: ``_hold_lock`` says why that is
safe); commands already running are processes of their own and run to their
end. A server that starts sweeps what servers of other installations that
provably no longer run left in the folder (``sweep_stale``, only while
holding that installation's lock), so one set of files per virtual
environment or checkout does not pile up; a server that ends removes only
files that are its own (``close_listener``, ``_remove_own_files``).

Peer credentials are Linux's (``SO_PEERCRED``): elsewhere the server does
not start, and every hook runs in its own process as before.
"""

from __future__ import annotations

import ctypes
import fcntl
import gc
import importlib
import io
import os
import pkgutil
import re
import resource
import select
import signal
import socket
import struct
import sys
import threading
import time
import traceback
from pathlib import Path

from baton.domain.handoff import converter, prepare_record_model
from baton.domain.identifiers import screen_identifiers
from baton.domain.redaction import RedactionPolicy, redact_payload, redact_strings
from baton.domain.regexes import LazyPattern
from baton.launch import (
    ACCEPTED,
    DECLINED,
    FORWARDED,
    PROTOCOL,
    RELAYED,
    SPAWN_INTERVAL,
    installation_key,
    private_folder,
    relaying,
)
from baton.process_end import DoneSoFar

IDLE_SECONDS = 3600.0
"""How long the server waits for a request before it ends (``BATON_HOOK_SERVER_IDLE`` overrides)."""
PACKAGES = ("baton.cli_handlers", "baton.commands", "baton.harnesses", "baton.projections", "baton.domain",
            "baton.events", "baton.ledger")
"""What is imported before serving: every module of these packages (and what they import)."""
NOT_LOADED = frozenset({"baton.cli_handlers.mcp", "baton.cli_handlers.demo"})
"""Modules a hook never runs: the MCP server's SDK and the demo's scratch repository."""
LAZY = ("cattrs", "cattrs.gen", "cattrs.preconf.orjson", "sqlite_utils", "dulwich.errors", "dulwich.repo",
        "dulwich.config", "dulwich.porcelain", "dulwich.filters", "dulwich.worktree")
"""The optional dependencies Baton's modules import only where they use them (``# lazy:``): a
refused record is reported by cattrs, a session's end reads git status with dulwich's
porcelain (which loads its filters and worktree modules when called), a new index builds its
tables with sqlite-utils. The server has them loaded too."""
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
    if len(argv) != 1 or not hasattr(socket, "SO_PEERCRED") or confinement(os.getpid()) is None:
        return 2
    address = argv[0]
    if not private_folder(os.path.dirname(address)):
        return 2
    started, pid = time.time_ns(), os.getpid()
    lock = _hold_lock(address + ".lock")
    if lock is None:
        return 0  # another server of this installation serves, or is still finishing its last hooks
    sweep_stale(os.path.dirname(address), address)
    os.chdir("/")
    modules = preload()
    server = Server(_bound(address), address, lock, modules, _idle_seconds())
    try:
        server.serve()
    finally:
        server.close_listener()
        if os.getpid() == pid:  # never in a child (none returns here: each ends with os._exit)
            _remove_own_files(address, lock, started)
    return 0


def _hold_lock(path: str, wait: float = LOCK_WAIT) -> int | None:
    """Hold the installation's server lock (for the whole life of the process), waiting up to ``wait``
    seconds for a server that is ending (declining stale requests, finishing its children): the
    descriptor of the file at ``path``, locked, or None when another server holds it.

    A server that ends removes its lock file while it still holds it (``_remove_own_files``), so
    a lock taken on a file no longer at ``path`` locks nothing: the file now at ``path`` (a new
    one, or one another starting server created and may hold) is taken instead."""
    deadline = time.monotonic() + wait
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.05)
            continue
        if _same_file(fd, path):
            return fd
        os.close(fd)  # removed by the server that held it as it ended: take the file at path now


def _identity(path: str) -> tuple[int, int] | None:
    """The device and inode of the file at ``path`` itself (not one a link points to); None when there is none."""
    try:
        found = os.lstat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


def _same_file(fd: int, path: str) -> bool:
    """Whether ``fd`` is the file at ``path`` (not one removed from there)."""
    try:
        here, there = os.fstat(fd), os.lstat(path)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def _remove_own_files(address: str, lock: int, started: int) -> None:
    """At a clean end, with the lock still held (nobody serves or starts serving meanwhile: a
    server waiting for the lock takes the file then at its path, ``_hold_lock``): the ``.started``
    mark of the start that brought this server up (not a newer one, which a hook made for a server
    to come) and the lock file go, then the lock. The socket went first (``close_listener``).
    Nothing goes when the lock file at the path is not this server's (something removed it and a
    successor took a new one): those files are the successor's."""
    path = address + ".lock"
    if _same_file(lock, path):
        mark = address + ".started"
        try:
            if os.stat(mark).st_mtime_ns <= started:
                os.unlink(mark)
        except OSError:
            pass
        try:
            os.unlink(path)
        except OSError:
            pass
    os.close(lock)


STALE_NAME = re.compile(r"hook-[0-9a-f]{16}\.sock(?:\.lock|\.started)?")
"""The files a hook server of some installation leaves in the socket folder."""


def sweep_stale(folder: str, own: str) -> list[str]:
    """Remove the files of other installations' servers that provably do not run and are not
    starting — their lock taken here (no server holds it) and their start mark, if any, older
    than ``SPAWN_INTERVAL`` (a server started since would have written a new one) — so one set
    per installation (every virtual environment, every checkout) does not pile up. Never fails;
    the names removed.

    Nothing of another installation is removed without holding its lock (``_sweep_installation``):
    a server of it starting meanwhile waits for the lock, finds its file gone once it gets it, and
    takes a new one (``_hold_lock``); one that got the lock first keeps its files."""
    removed: list[str] = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    own_name = os.path.basename(own)
    sockets = {name.split(".sock", 1)[0] + ".sock" for name in names if STALE_NAME.fullmatch(name)}
    for base in sorted(sockets - {own_name}):
        removed += _sweep_installation(os.path.join(folder, base))
    return removed


def _sweep_installation(address: str) -> list[str]:
    """Remove the socket, the start mark and (last, while held) the lock file of the installation
    served at ``address`` — only while holding its lock, taken on the file at its lock path (created
    there when there is none, as a starting server would): then no server of it serves (a server
    holds that file all its life, and nobody removes it without holding it), and none can start
    serving until it is let go. A lock held elsewhere, or a start mark younger than
    ``SPAWN_INTERVAL``, leaves everything."""
    if _recently_started(address):
        return []  # a server of it may be starting
    path = address + ".lock"
    try:
        lock = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError:  # not ours to open
        return []
    removed = []
    try:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held: a server of it serves, or is starting
            return []
        if not _same_file(lock, path) or _recently_started(address):
            return []  # removed by a server that ended meanwhile, or one was started since the check
        for name in (address, address + ".started", path):
            try:
                os.unlink(name)
                removed.append(os.path.basename(name))
            except OSError:
                pass
    finally:
        os.close(lock)
    return removed


def _recently_started(address: str) -> bool:
    """Whether a hook started a server for ``address`` less than ``SPAWN_INTERVAL`` seconds ago."""
    try:
        return time.time() - os.stat(address + ".started").st_mtime < SPAWN_INTERVAL
    except OSError:
        return False


def preload() -> dict[str, tuple[int, int]]:
    """Import every module a hook may run, then freeze the heap (a child's
    collections never touch the server's objects' pages); what says the
    installation changed, with its modification time and size: the files of
    the ``baton`` modules loaded, and the folders the dependencies were loaded
    from (installing, upgrading or removing a package there changes the
    folder: its ``.dist-info`` is replaced)."""
    importlib.import_module("baton.cli")
    for name in PACKAGES:
        package = importlib.import_module(name)
        for info in pkgutil.walk_packages(package.__path__, name + "."):
            if info.name not in NOT_LOADED:
                importlib.import_module(info.name)
    for name in LAZY:
        importlib.import_module(name)
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
    the secret rules' table), the record model's converter (a catch-up that
    reads a record builds it) and the command lines' parsers. Only pure
    work: nothing here reads a project, the clock or the environment."""
    for item in gc.get_objects():
        if type(item) is LazyPattern:
            item.groups  # noqa: B018 - compiles the pattern
    policy = RedactionPolicy()
    redact_payload({"objective": WARM_TEXT, "artifacts": [{"path": "src/app.py"}]}, policy)
    redact_strings({"text": WARM_TEXT}, policy)
    screen_identifiers({"owner": "dev@example.com", "branch": "feature/x", "session": "warm-up"}, policy)
    converter()  # cattrs' detailed converter: what reports a refused record (a valid one is read without it)
    prepare_record_model()  # the writers and readers (a process makes those of what it reads and writes)
    cli = importlib.import_module("baton.cli")
    for command in RELAYED:
        cli.keep_parser([command])


def loaded_files() -> list[str]:
    """The source files of the ``baton`` modules this process has imported, and
    the folders its dependencies came from (``site-packages``)."""
    files = [path for name, module in list(sys.modules.items())
             if (name == "baton" or name.startswith("baton.")) and (path := getattr(module, "__file__", None))]
    folders = {os.path.dirname(os.path.dirname(path)) for name in DEPENDENCIES
               if (path := getattr(sys.modules.get(name), "__file__", None))}
    return files + sorted(folders)


DEPENDENCIES = ("attrs", "cattrs", "orjson", "sqlite_utils", "dulwich")
"""The packages a hook runs besides Baton (``pyproject.toml``'s, without the MCP SDK, which no hook loads)."""


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def _bound(address: str) -> socket.socket:
    """A socket bound at ``address``, not yet listening: a hook that connects before
    the server listens is refused and runs in its own process, as with no server."""
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
    return listener


def _idle_seconds() -> float:
    try:
        return max(1.0, float(os.environ.get("BATON_HOOK_SERVER_IDLE", IDLE_SECONDS)))
    except ValueError:
        return IDLE_SECONDS


class Server:
    """The accept loop. A child is forked ahead of each request (the spare), so a
    request waits for no fork: the server hands it the request, the relaying
    process's descriptors and the connection, and forks the next spare. The
    child reports its own exit status before it ends; children reap themselves."""

    def __init__(self, listener: socket.socket, address: str, lock: int, modules: dict[str, tuple[int, int]],
                 idle: float) -> None:
        self.listener: socket.socket | None = listener
        self.address, self.lock, self.modules, self.idle = address, lock, modules, idle
        self.socket_file = _identity(address)  # the file bound just now: only it is removed at the end
        self.served = 0
        self.confinement = confinement(os.getpid())
        self.spare: tuple[int, socket.socket] | None = None
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # no zombies: the server never waits for a child
        signal.signal(signal.SIGTERM, lambda *_: self.close_listener())
        self._record()  # before the first hook can connect: the lock names the server that answers it
        listener.listen(64)

    def serve(self) -> None:
        """Take requests until idle for ``idle`` seconds or told to stop."""
        last = time.monotonic()
        while self.listener is not None:
            if self.spare is None:
                try:
                    self.spare = self._fork_spare()
                except OSError:  # no process to spare now: requests are declined (run by their callers) meanwhile
                    self.spare = None
            try:
                ready, _, _ = select.select([self.listener], [], [], max(0.0, last + self.idle - time.monotonic()))
            except InterruptedError:
                continue
            except (OSError, ValueError):  # the listener was closed by SIGTERM
                break
            if not ready:
                self.close_listener()  # idle
                break
            last = time.monotonic()
            self._accept()

    def close_listener(self) -> None:
        """Take no more requests: the socket goes first (a hook then runs in its own process at once),
        and the spare child ends. Only this server's socket file is removed: a socket at the path that
        is another's (a successor's, after something removed this one's files) stays."""
        if self.listener is not None:
            try:
                if self.socket_file is not None and _identity(self.address) == self.socket_file:
                    os.unlink(self.address)
            except OSError:
                pass
            self.listener.close()
            self.listener = None
        if self.spare is not None:
            self.spare[1].close()  # the spare reads the end of its channel and exits
            self.spare = None

    def _fork_spare(self) -> tuple[int, socket.socket]:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        pid = os.fork()
        if pid == 0:
            ours.close()
            if self.listener is not None:
                self.listener.close()
            os.close(self.lock)
            run_spare(theirs)
        theirs.close()
        return pid, ours

    def _accept(self) -> None:
        assert self.listener is not None
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        fds: list[int] = []
        try:
            conn.settimeout(REQUEST_WAIT)
            caller = self._check_peer(conn)
            body, fds = read_request(conn)
            parse_request(body)
            if self._stale():
                self.close_listener()
                raise Declined("the installation changed")
            self._hand_over(caller.to_bytes(4, "big") + body, fds, conn)
        except (Declined, OSError, ValueError):
            _answer(conn, DECLINED)
            return
        finally:
            _close(fds)
            conn.close()
        self.served += 1
        self._record()

    def _hand_over(self, body: bytes, fds: list[int], conn: socket.socket) -> None:
        """Give the request, the relaying process's descriptors and the connection to the
        spare child, then tell the relaying process which child runs it; closing the
        channel after that tells the child it may answer on the connection. Raises
        OSError when no child took it (the relaying process then runs it itself)."""
        if self.spare is None:
            # Never forked here: a child forked now would hold this caller's connection and
            # streams while it waited for the next request (a harness reading the hook's output
            # to its end would wait with it).
            raise OSError("no spare child")
        pid, channel = self.spare
        self.spare = None
        try:
            message = len(body).to_bytes(4, "big") + body
            passed = struct.pack(f"{len(fds) + 1}i", *fds, conn.fileno())
            sent = channel.sendmsg([message], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, passed)])
            if sent < len(message):
                channel.sendall(message[sent:])
            _answer(conn, ACCEPTED + pid.to_bytes(4, "big"))  # a caller gone by now: the child runs on
        finally:
            channel.close()

    def _record(self) -> None:
        """The lock file says which process serves, and how many hooks it has taken (``baton doctor``).
        Only a report: a file system that refuses the write (full) does not stop the server."""
        line = b"%d %d\n" % (os.getpid(), self.served)
        try:
            os.ftruncate(self.lock, len(line))
            os.pwrite(self.lock, line, 0)
        except OSError:
            pass

    def _check_peer(self, conn: socket.socket) -> int:
        """The caller's pid, when the server may run its command: the same user, confined alike,
        and limits a child can take on (``adoptable``)."""
        pid, uid, _ = _CREDENTIALS.unpack(conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _CREDENTIALS.size))
        if uid != os.getuid():
            raise Declined("another user")
        if confinement(pid) != self.confinement:
            raise Declined("a caller confined otherwise (a sandbox, another namespace or root)")
        if not adoptable(pid):
            raise Declined("a caller with limits a child cannot take on")
        return pid

    def _stale(self) -> bool:
        return any(_stamp(path) != stamp for path, stamp in self.modules.items())


NAMESPACES = ("mnt", "net", "pid", "user", "ipc", "uts", "cgroup")


def confinement(pid: int) -> tuple[object, ...] | None:
    """What confines process ``pid``, as far as the server must match it: its
    namespaces, its root folder, whether it may gain no new privileges (what
    Landlock, bubblewrap and Codex's sandbox set) and its seccomp mode. A
    caller whose confinement differs from the server's is declined: its
    command runs in its own process, inside its sandbox, never in a child of
    a server outside it. None when ``/proc`` does not say (then nothing matches)."""
    try:
        spaces = tuple(os.stat(f"/proc/{pid}/ns/{name}").st_ino for name in NAMESPACES)
        root = os.stat(f"/proc/{pid}/root")
        with open(f"/proc/{pid}/status", "rb") as status:
            fields = dict(line.split(b":", 1) for line in status.read().splitlines() if b":" in line)
    except (OSError, ValueError):
        return None
    return (*spaces, root.st_dev, root.st_ino, fields.get(b"NoNewPrivs", b"").strip(),
            fields.get(b"Seccomp", b"").strip(), _label(pid))


def _label(pid: int) -> bytes:
    """The security module's label of ``pid`` (AppArmor's profile, SELinux's context); empty without one."""
    try:
        with open(f"/proc/{pid}/attr/current", "rb") as label:
            return label.read().strip(b"\0\n ")
    except OSError:
        return b""


def adoptable(pid: int) -> bool:
    """Whether a child can take on ``pid``'s resource limits and priority
    (``adopt_limits``): no hard limit above the server's (a process cannot raise
    its own) and a niceness no lower than the server's."""
    try:
        if os.getpriority(os.PRIO_PROCESS, pid) < os.getpriority(os.PRIO_PROCESS, 0):
            return False
        if any(resource.prlimit(pid, limit)[0] != resource.RLIM_INFINITY for limit in MEMORY_LIMITS):
            return False  # sized for a fresh process: a child of the larger server could not keep to it
        for limit in LIMITS:
            wanted, mine = resource.prlimit(pid, limit)[1], resource.getrlimit(limit)[1]
            if mine != resource.RLIM_INFINITY and (wanted == resource.RLIM_INFINITY or wanted > mine):
                return False
    except (OSError, ValueError):
        return False
    return True


def adopt_limits(pid: int) -> None:
    """Take on ``pid``'s resource limits and niceness (the caller, alive: it waits for the answer)."""
    for limit in LIMITS:
        resource.setrlimit(limit, resource.prlimit(pid, limit))
    os.setpriority(os.PRIO_PROCESS, 0, os.getpriority(os.PRIO_PROCESS, pid))


LIMITS = tuple(getattr(resource, name) for name in dir(resource) if name.startswith("RLIMIT_"))
"""Every resource limit this system has (``RLIMIT_NOFILE``, ``RLIMIT_AS``…)."""
MEMORY_LIMITS = tuple(getattr(resource, name) for name in ("RLIMIT_AS", "RLIMIT_DATA") if hasattr(resource, name))


def read_request(conn: socket.socket, count: int = 3) -> tuple[bytes, list[int]]:
    """The request's body and the descriptors that came with it: ``count`` of them
    (the relaying process's standard input, output and error; for a child, then
    the connection it answers on). Raises ValueError on a cut or malformed one."""
    fds: list[int] = []
    data = b""
    while len(data) < 4 or len(data) < 4 + int.from_bytes(data[:4], "big"):
        if len(data) >= 4 and int.from_bytes(data[:4], "big") > MAX_REQUEST:
            _close(fds)
            raise ValueError("request too large")
        chunk, ancillary, _, _ = conn.recvmsg(65536, socket.CMSG_SPACE(count * 4))
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.extend(struct.unpack(f"{len(payload) // 4}i", payload[: len(payload) // 4 * 4]))
        if not chunk:
            _close(fds)
            raise ValueError("request cut short")
        data += chunk
    if len(fds) != count:
        _close(fds)
        raise ValueError(f"a request passes {count} descriptors")
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


def run_spare(channel: socket.socket) -> None:
    """A spare child: wait for the request the server hands over, become the
    relaying process and run the command line; never returns. The server
    closing the channel first (it ended) ends the spare.

    The signals a relaying process forwards (``launch.FORWARDED``: Ctrl-C, a harness's
    cancel) are held, blocked, until the command is about to run (``run_child``): the
    relaying process learns this child's pid as soon as the server has handed the request
    over, and may forward a Ctrl-C before this child has even read it. Taken here, it would
    end the spare with no answer (the relaying process then exits 0, the command never
    run); held, it interrupts the command as soon as it starts (``baton: interrupted``, 130)."""
    try:
        signal.pthread_sigmask(signal.SIG_BLOCK, FORWARDED)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        if not select.select([channel], [], [], PREFAULT_AFTER)[0]:
            prefault(channel)
        body, fds = read_request(channel, count=4)
        caller, request = int.from_bytes(body[:4], "big"), parse_request(body[4:])
    except BaseException:  # noqa: BLE001 - the server ended, or handed over nothing usable
        os._exit(0)
    run_child(fds[:3], request, Answer(channel, fds[3]), caller)


def watch_caller(answer: "Answer") -> None:
    """A thread that ends this child (SIGKILL, as the relaying process was)
    when the relaying process's end of the connection closes before the child
    answered: the relaying process was killed, and its command goes with it,
    as it would have in its own process. Never when the child answered first."""
    def watch() -> None:
        poller = select.poll()
        poller.register(answer.connection, select.POLLRDHUP | select.POLLHUP)
        while True:
            try:
                if poller.poll():
                    break
            except InterruptedError:
                continue
        if not answer.sent:
            os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, name="baton-caller-watch", daemon=True).start()


PREFAULT_AFTER = 0.25
"""Seconds a spare waits for a request before it copies its pages (``prefault``): by then the command
handed to the spare before it has mostly run, and the copying does not take its processor."""


def prefault(channel: socket.socket | None = None) -> int:
    """Copy now the private writable pages this spare shares with the server,
    which a command would otherwise copy one fault at a time while it runs:
    reading Python objects writes their reference counts, and each first write
    to a page shared since the fork copies it (~9,000 pages, 4–5 ms of a hook's
    ~13). Each page's first byte is written back unchanged, in this process
    only, before any other thread exists. ~30 ms of CPU and ~35 MB of memory
    per spare, spent while it waits; it stops as soon as a request arrives on
    ``channel`` (which then waits for nothing). The number of pages copied."""
    size = os.sysconf("SC_PAGE_SIZE")
    copied = 0
    with open("/proc/self/maps", "rb") as maps:
        regions = [line.split() for line in maps]
    for fields in regions:
        low, high = (int(edge, 16) for edge in fields[0].split(b"-"))
        name = fields[5] if len(fields) > 5 else b""
        if fields[1][:2] != b"rw" or fields[1][3:4] != b"p" or name.startswith((b"[stack", b"[v")):
            continue  # only this process's own writable memory, not the kernel's pages or the stack
        pages = (ctypes.c_char * (high - low)).from_address(low)
        for offset in range(0, high - low, size):
            pages[offset] = pages[offset]
            copied += 1
            if channel is not None and not copied % 256 and select.select([channel], [], [], 0)[0]:
                return copied
    return copied


class Answer:
    """How the child tells the relaying process its exit status: once the server
    has closed the channel (it has told the relaying process which child runs
    the command), 4 bytes on the connection."""

    def __init__(self, channel: socket.socket, connection: int) -> None:
        self.channel, self.connection, self.sent = channel, connection, False

    def keeps(self) -> tuple[int, int]:
        return self.channel.fileno(), self.connection

    def __call__(self, code: int) -> None:
        if self.sent:
            return
        self.sent = True
        try:
            self.channel.settimeout(REQUEST_WAIT)
            while self.channel.recv(64):
                pass
            os.write(self.connection, (code & 0xFF).to_bytes(4, "big"))
        except OSError:
            pass


def run_child(fds: list[int], request: Request, answer: Answer, caller: int) -> None:
    """In the child: become the relaying process (its descriptors, directory,
    umask, environment, arguments, resource limits and niceness), run the
    command line and answer with its exit status; end at once if the relaying
    process is killed first (``watch_caller``). Never returns."""
    code = 1
    try:
        adopt_limits(caller)
        relaying(caller)  # the hook's harness is the relaying process's ancestor (``launch.harness_process``)
        watch_caller(answer)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        kept = sorted(answer.keeps())
        os.closerange(3, kept[0])  # everything else of the server's
        os.closerange(kept[0] + 1, kept[1])
        os.closerange(kept[1] + 1, os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 65536)
        os.chdir(request.cwd)
        os.umask(request.umask)
        os.environb.clear()
        os.environb.update(request.environ)
        time.tzset()
        sys.argv = [os.fsdecode(request.program), *map(os.fsdecode, request.words)]
        _standard_streams(request.streams)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, FORWARDED)  # one forwarded meanwhile is taken now (run_spare)
        importlib.import_module("baton.cli").run(report=answer)
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
    except KeyboardInterrupt:  # forwarded before the command's own handling began: its answer all the same
        code = 130
        print(DoneSoFar.interrupted_line(), file=sys.stderr)
    except BaseException:  # noqa: BLE001 - a child never returns into the server's loop
        code = 1
        traceback.print_exc()  # what the interpreter prints for an exception nothing caught
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:  # noqa: BLE001
            pass
        answer(code)
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
