"""The ``baton`` program's entry point: a harness's hook is handed to the
running hook server, everything else runs here.

A harness starts ``baton hook HARNESS EVENT`` as a fresh process at each
session start and end. On the prescribed stack such a process costs ~90 ms
before it has done anything of its own: the interpreter (~11 ms), orjson
(~18 ms: it imports datetime, uuid, enum and dataclasses at load), attrs and
the ~50 model classes the hook needs, sqlite3, hashlib. The hook's own work
(catch-up, lock, one append and its fsync, the brief) is a few
milliseconds. So a hook is relayed, when it can be, to the hook server
(``baton.hook_server``): a process of this installation that has imported
everything a hook needs once, and forks a child for each hook. The child
takes this process's standard input, output and error (passed over a Unix
socket), its working directory, umask, environment and arguments, and runs
``baton.cli.run`` exactly as this process would have: the same code, the
same deadline, the same ledger lock and appends — only without the imports.
This process waits for the child and exits with its status.

Whatever stands in the way — no server running (the first hook after an
idle hour, a new machine), a server of another installation or version, a
socket directory that is not private to this user, an old kernel — the hook
runs here, in this process, as it always did, and a server is started in
the background for the next one (at most once every ``SPAWN_INTERVAL``
seconds). ``BATON_HOOK_SERVER=0`` turns the server off: every hook runs in
its own process and none is started. Nothing else is relayed: a command a
person types runs here.

This module is imported by every ``baton`` run, so it imports only what the
interpreter has already loaded (``os``, ``sys``), ``time`` and ``gc`` (built in); a relay
loads ``_socket``, the C module under ``socket`` (whose Python wrapper costs ~7 ms
of ``enum`` and ``selectors`` a relay does not need), when it asks a server, so a hook
run here with the server off (``BATON_HOOK_SERVER=0``) never loads it (a shared
library: ~1 M instructions); ``baton.cli`` is loaded only when the command runs here.
docs/hooks.md ("The hook server") tells the user's side.
"""

import _signal  # type: ignore[import-not-found]  # the C module under `signal` (which imports enum)
import gc
import os
import sys
import time

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    import _socket

RELAYED = frozenset({"hook", "bootstrap", "session", "resume"})
"""The commands relayed: what a harness runs at every session start and end (``baton.cli.HOOK_PATH_COMMANDS``)."""
SERVER_ENV = "BATON_HOOK_SERVER"
"""``0`` turns the hook server off (no relay, no server started)."""
PROTOCOL = b"baton-hook-server/1"
"""The first field of a request: a server answers only requests of its own protocol."""
ACCEPTED, DECLINED = b"+", b"-"
"""The server's first answer: it runs the command (then the child's pid, 4 bytes, and once it
has ended its exit status, 4 bytes), or not (then this process runs it)."""
CONNECT_WAIT = 2.0
"""Seconds to wait for the server to take the request before running the hook here."""
SPAWN_INTERVAL = 30.0
"""Seconds between two attempts to start a server (a server that cannot start is not started at every hook)."""
INTERRUPTED = (b"baton: interrupted before it recorded anything in the ledger: nothing was changed; run the "
               b"command again\n")
"""What a Ctrl-C before any server took the command says: ``baton.process_end.NOTHING_DONE``'s line, spelled
out here (a relay loads nothing it does not use; ``tests/test_hook_server.py`` holds the two the same)."""

MAX_ADDRESS = 100
"""The longest socket path used (the system's limit is 104–108 bytes)."""
_FDS = (0, 1, 2)


def run() -> None:
    """The ``baton`` program: a hook relayed to the hook server when one takes it, else ``baton.cli.run``."""
    words = sys.argv[1:]
    if words[:1] and words[0] in RELAYED and os.environ.get(SERVER_ENV) != "0" and piped():
        address = socket_path()
        if address is not None:
            try:
                status = relay(address, words)
            except KeyboardInterrupt:  # Ctrl-C while no server took it yet: the command line's own answer
                os.write(2, INTERRUPTED)
                os._exit(130)
            if status is not None:
                os._exit(status)
            start_server(address)
    gc.disable()  # the run's imports with the collector paused: cli_run.run collects again off the hook path
    __import__("baton.cli_run", fromlist=["run"]).run(collector_paused=True)


def piped() -> bool:
    """Whether standard input, output and error are all open and none is a
    terminal, as a harness runs its hooks (pipes). A command at a terminal runs
    here: Ctrl-Z, the terminal's reads and its window stay the shell's job's."""
    for fd in _FDS:
        try:
            os.fstat(fd)
        except OSError:  # closed: a socket opened now would take its number
            return False
        if os.isatty(fd):
            return False
    return True


def socket_folder() -> str:
    """Where this user's hook servers listen: ``$XDG_RUNTIME_DIR/baton``, else ``$TMPDIR/baton-UID`` (or /tmp)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        return os.path.join(runtime, "baton")
    return os.path.join(os.environ.get("TMPDIR") or "/tmp", f"baton-{os.getuid()}")


def socket_path() -> str | None:
    """The socket of this installation's hook server (one per environment and
    ``baton`` package), or None when its path would be too long for a socket."""
    path = os.path.join(socket_folder(), f"hook-{installation_key()}.sock")
    return path if len(os.fsencode(path)) <= MAX_ADDRESS else None


def installation_key() -> str:
    """A short, stable name for this installation (FNV-1a over its environment's prefix and the package's folder)."""
    digest = 0xCBF29CE484222325
    for byte in os.fsencode(sys.prefix + "\0" + os.path.dirname(os.path.abspath(__file__))):
        digest = ((digest ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{digest:016x}"


def private_folder(folder: str) -> bool:
    """True when ``folder`` is a real directory of this user that no one else may enter."""
    try:
        st = os.lstat(folder)
    except OSError:
        return False
    return (st.st_mode & 0o170000) == 0o040000 and st.st_uid == os.getuid() and not st.st_mode & 0o077


def server_state() -> tuple[str, str, str]:
    """``baton doctor``'s line on this installation's hook server: running (its
    pid, the commands it took), not running (and why, when it can tell), or off."""
    if os.environ.get(SERVER_ENV) == "0":
        return ("hook server", "ok", f"off ({SERVER_ENV}=0): each hook runs in its own process")
    address = socket_path()
    if address is None:
        return ("hook server", "ok", f"not used: its socket's path would be too long ({socket_folder()})")
    folder = os.path.dirname(address)
    if os.path.lexists(folder) and not private_folder(folder):
        return ("hook server", "warn", f"not used: {folder} is not a folder of this user's with mode 0700 "
                                       "(fix or remove it, and the next hook starts a server)")
    try:
        with open(address + ".lock", "rb") as lock:
            pid, served = (int(word) for word in lock.read().split()[:2])
        os.kill(pid, 0)
        running = os.path.exists(address)
    except (OSError, ValueError):
        running = False
    if running:
        return ("hook server", "ok", f"running (pid {pid}, {served} command{'' if served == 1 else 's'} relayed) at {address}")
    try:
        tried = time.time() - os.stat(address + ".started").st_mtime
    except OSError:
        tried = None
    if tried is not None and tried < SPAWN_INTERVAL:
        return ("hook server", "ok", f"not running; one was started {tried:.0f} s ago (if none comes up, hooks "
                                     f"go on in their own process and the next start is tried after {SPAWN_INTERVAL:.0f} s)")
    return ("hook server", "ok", "not running; the next hook starts it (docs/hooks.md, \"The hook server\")")


def request(words: list[str]) -> bytes:
    """The request for the server: NUL-separated fields, length-prefixed (see ``baton.hook_server.read_request``)."""
    fields = [PROTOCOL, installation_key().encode(), os.fsencode(os.getcwd()), b"%d" % _umask(),
              _stream(sys.stdin), _stream(sys.stdout), _stream(sys.stderr),
              os.fsencode(sys.argv[0]), b"%d" % len(words), *map(os.fsencode, words),
              *(key + b"=" + value for key, value in os.environb.items())]
    body = b"\0".join(fields)
    return len(body).to_bytes(4, "big") + body


def relay(address: str, words: list[str]) -> int | None:
    """Hand the hook to the server at ``address`` and wait for it: the hook's
    exit status, or None when no server took it (then it runs here). Once the
    server has taken it, it is never run here as well.

    A signal meant for this process (Ctrl-C, a harness's cancel: ``FORWARDED``) reaches the
    command wherever it lands: one that arrives before the server has said which child runs
    the command is held, and forwarded once it has (the child holds it until the command
    runs: ``hook_server.run_spare``); when no server takes the command, the handlers are put
    back and a held signal is raised again here, where the command then runs. A child that
    ends without an exit status (killed by a signal forwarded to it, or by anything else)
    never reads as success: ``_ended_unanswered``."""
    if not private_folder(os.path.dirname(address)):
        return None
    sockets = __import__("_socket")  # only to ask a server: a hook run with the server off never loads it
    try:
        message = request(words)
        sock = sockets.socket(sockets.AF_UNIX, sockets.SOCK_STREAM)
    except (OSError, ValueError):
        return None
    held: list[int] = []
    forwarded: list[int] = []
    child = [0]

    def on_signal(signum: int, frame: object) -> None:
        if child[0]:
            forwarded.append(signum)
            _forward(child[0], signum)
        else:
            held.append(signum)

    previous = {signum: _signal.signal(signum, on_signal) for signum in FORWARDED}
    try:
        sock.settimeout(CONNECT_WAIT)
        sock.connect(address)
        fds = b"".join(fd.to_bytes(4, sys.byteorder, signed=True) for fd in _FDS)
        sent = sock.sendmsg([message], [(sockets.SOL_SOCKET, sockets.SCM_RIGHTS, fds)])
        if sent < len(message):
            sock.sendall(message[sent:])
        taken = sock.recv(1) == ACCEPTED
    except OSError:
        taken = False
    if not taken:
        sock.close()
        _restore(previous, held)
        return None
    sock.settimeout(None)
    child[0] = _number(sock) or 0
    if not child[0]:  # the server went away before naming the child: nothing to forward to
        _restore(previous, held)
    for signum in held if child[0] else ():
        forwarded.append(signum)
        _forward(child[0], signum)
    status = _number(sock)
    sock.close()
    if status is None:
        return _ended_unanswered(previous, forwarded)
    return status & 0xFF


def _ended_unanswered(previous: dict[int, object], forwarded: list[int]) -> int:
    """The end of a relayed command whose child ended without its exit status: killed.
    By a signal forwarded to it (a harness's timeout or cancel, SIGTERM; a closed terminal,
    SIGHUP; Ctrl-\\, SIGQUIT), this process ends by that signal too, its default action
    raised here, so its parent sees the wait status it would have seen with the command run
    in this process (else, the signal blocked, ``128 + N``). Killed by anything else (the
    server's child gone without a word: its own SIGKILL, the memory killer), it says so and
    fails (1). Never 0: the command did not finish."""
    _restore(previous, [])
    fatal = [signum for signum in forwarded if signum != _signal.SIGINT] or forwarded
    if fatal:
        _signal.signal(fatal[0], _signal.SIG_DFL)
        os.kill(os.getpid(), fatal[0])
        return 128 + fatal[0]
    os.write(2, b"baton: the hook server's process running this command ended without an exit status "
                b"(it was killed); the command did not finish\n")
    return 1


def _restore(previous: dict[int, object], held: list[int]) -> None:
    """Put back the handlers ``relay`` replaced, then raise here each signal it held."""
    for signum, handler in previous.items():
        _signal.signal(signum, _signal.SIG_DFL if handler is None else handler)
    for signum in held:
        os.kill(os.getpid(), signum)


def _number(sock: "_socket.socket") -> int | None:
    """The next 4-byte number the server sends; None when it went away first
    (its child, which holds the connection until it ends, ended without an answer)."""
    answer = b""
    try:
        while len(answer) < 4:
            chunk = sock.recv(4 - len(answer))
            if not chunk:
                return None
            answer += chunk
    except OSError:
        return None
    return int.from_bytes(answer, "big")


FORWARDED = (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP, _signal.SIGQUIT)
"""The signals passed on to the child running a relayed command (a SIGKILL cannot be: the child
then ends itself when this process's end of the connection goes, ``hook_server.watch_caller``)."""


def _forward(child: int, signum: int) -> None:
    try:
        os.kill(child, signum)
    except OSError:
        pass


def start_server(address: str) -> None:
    """Start this installation's hook server in the background, for the next
    hook (at most once every ``SPAWN_INTERVAL`` seconds); never fails. Not from
    a sandbox (a process that may gain no new privileges, as Landlock,
    bubblewrap and Codex's sandbox set): the server would be confined as it is."""
    folder = os.path.dirname(address)
    mark = address + ".started"
    if sandboxed():
        return
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        if not private_folder(folder):
            return
        try:
            if time.time() - os.stat(mark).st_mtime < SPAWN_INTERVAL:
                return
        except FileNotFoundError:
            pass
        os.close(os.open(mark, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
        pid = os.fork()
    except OSError:
        return
    if pid:
        return
    try:  # the child: its own session, no descriptor of the harness's, then the server
        os.setsid()
        null = os.open(os.devnull, os.O_RDWR)
        for fd in _FDS:
            os.dup2(null, fd)
        os.closerange(3, 65536)
        os.execv(sys.executable, [sys.executable, "-P", "-m", "baton.hook_server", address])
    finally:
        os._exit(127)


def sandboxed() -> bool:
    """Whether this process may gain no new privileges (``NoNewPrivs`` in ``/proc/self/status``)."""
    try:
        with open("/proc/self/status", "rb") as status:
            return any(line.split() == [b"NoNewPrivs:", b"1"] for line in status)
    except OSError:
        return False


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _stream(stream: object) -> bytes:
    """A standard stream's encoding and error handler, as this interpreter chose them from the environment."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    errors = getattr(stream, "errors", None) or "strict"
    return f"{encoding}:{errors}".encode()


# -- the harness process a hook runs for ----------------------------------------------------

_relayed_for: int | None = None
"""The pid of the ``baton`` process whose command a hook server's child runs (``relaying``)."""

PASSED_THROUGH = frozenset({
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "busybox", "env", "timeout", "nice", "nohup", "stdbuf",
    "ionice", "setsid", "time", "uv", "uvx", "pipx", "baton"})
"""The process names (``comm``) an ancestor of a hook is passed over for, walking up to the harness
process: the shell a harness runs a hook command through (Claude Code's and Gemini CLI's ``sh -c``)
and the launchers a hook command line may start ``baton`` with. Each lives only as long as the hook.
Any other launcher (``flock``, ``poetry run``, ``mise exec``, a wrapper script…) is passed over by
what it runs: its command line carries the hook's (``runs_the_hook``)."""

HARNESS_PROGRAMS = frozenset({b"claude", b"codex", b"gemini"})
"""The harness programs never passed over, whatever their command line ends with (a prompt given
as the last argument may end with the hook's words: ``claude "… baton hook claude-code SessionStart"``):
the process's name (``comm``: Codex's binary, a retitled node process) or its program — the first word
of its command line, or a script a JavaScript runtime (``SCRIPT_RUNNERS``) runs (``node …/bin/claude``),
without its ``.js``/``.mjs``/``.cjs``/``.exe``."""

SCRIPT_RUNNERS = frozenset({b"node", b"nodejs", b"bun", b"deno"})
"""The runtimes a harness program is run by as a script (its second word names the harness)."""

CMDLINE_READ = 65536
"""How much of an ancestor's command line is read (``/proc/PID/cmdline``), to tell a launcher of the
hook from the harness; never recorded."""

MAX_ANCESTORS = 8
"""How far up a hook's ancestors the harness process is looked for."""

BOOT_ID = "/proc/sys/kernel/random/boot_id"


def relaying(pid: int) -> None:
    """In a hook server's child: the command it runs is the relaying process's (``pid``), whose
    ancestors are the harness's (``harness_process``); the child's own parent is the server."""
    global _relayed_for
    _relayed_for = pid


def _read(path: str, size: int = 4096) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        return os.read(fd, size)
    except OSError:
        return None
    finally:
        os.close(fd)


def process_stat(pid: int) -> tuple[str, int, int] | None:
    """``(comm, ppid, start)`` of the live process ``pid`` from ``/proc/PID/stat`` (``start``:
    field 22, clock ticks after boot), or None when there is none (a zombie is none: it no
    longer runs) or it cannot be read."""
    raw = _read(f"/proc/{pid}/stat")
    if raw is None:
        return None
    head, _, tail = raw.rpartition(b")")
    fields = tail.split()
    if not head or len(fields) < 20 or fields[0] in (b"Z", b"X", b"x"):
        return None
    try:
        return head.partition(b"(")[2].decode("utf-8", "replace"), int(fields[1]), int(fields[19])
    except ValueError:
        return None


def host_now() -> tuple[str, int] | None:
    """This machine's boot id and this process's pid namespace (its inode), or None without ``/proc``
    (macOS): the frame a recorded pid means something in."""
    boot = _read(BOOT_ID)
    try:
        pidns = os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return None
    text = boot.decode("ascii", "replace").strip() if boot else ""
    return (text, pidns) if text and pidns else None


def harness_process() -> dict[str, object] | None:
    """The harness process this hook runs for, on this machine: ``{"pid", "start", "boot",
    "pidns"}`` — the nearest ancestor of the hook's ``baton`` process (the relaying process when a
    hook server's child runs it) that is not a shell or launcher: not one of ``PASSED_THROUGH``,
    and not a process that runs the hook (``runs_the_hook``: ``flock /tmp/x.lock baton hook …``,
    ``poetry run baton hook …``) — the Claude Code or Gemini CLI node process, the Codex binary.
    None without ``/proc``, or when the walk meets the root of the process tree first (a hook run
    detached from its harness): nothing is then recorded, and nothing is ever concluded from it."""
    here = host_now()
    if here is None:
        return None
    hook = hook_words(sys.argv[1:])
    pid = _relayed_for or os.getpid()
    below = pid
    for depth in range(MAX_ANCESTORS + 1):
        stat = process_stat(pid)
        if stat is None:
            return None
        comm, ppid, start = stat
        if depth and comm not in PASSED_THROUGH and (os.fsencode(comm) in HARNESS_PROGRAMS
                                                    or not runs_the_hook(pid, hook, below)):
            return {"pid": pid, "start": start, "boot": here[0], "pidns": here[1]}
        if ppid <= 1:
            return None
        below, pid = pid, ppid
    return None


def hook_words(words: list[str]) -> list[bytes]:
    """The words a process that runs this hook ends its command line with: the hook's own, from
    ``hook`` on (``hook HARNESS EVENT``, as ``install-hooks`` writes them after the program, and
    any option after them; a global option before ``hook`` is the program's); none for any other
    command (nothing is then passed over by its command line)."""
    if "hook" not in words:
        return []
    tail = words[words.index("hook"):]
    return [os.fsencode(word) for word in tail] if len(tail) >= 3 else []


def runs_the_hook(pid: int, hook: list[bytes], below: int | None = None) -> bool:
    """Whether the process ``pid`` is there only to run this hook: its command line ends with the
    hook's words (``hook_words``) and the process it started (``below``, the one before it on the
    walk up) was given them, as a launcher's (``flock /tmp/x.lock baton hook claude-code
    SessionStart``, ``poetry run baton hook …``) and a wrapper script's are — the words as
    separate arguments, passed on as separate arguments — or its last word is one command string
    ending with them (``flock -c "baton hook …"``) that it ran: the process below holds the same
    string as its last word (a shell given it) or is that string's command (a shell that ran it
    in its own place). A command line the process rewrote as one string (``npx``/``npm exec``,
    which retitle themselves ``npm exec baton hook …``; a ``setproctitle`` user) ends with the
    hook's words joined by spaces, and the process below was given them (either way). A harness's
    own prompt ending with the words is none of these: the hook it runs is a command string of its
    own (``sh -c "baton hook …"``), not its prompt. A harness program (``harness_program``: ``node
    …/claude "… baton hook claude-code SessionStart"``) never runs the hook, whatever its last
    argument says. A process whose command line cannot be read is not passed over."""
    if not hook:
        return False
    words = _command_line(pid)
    if not words:
        return False
    tail = b" " + b" ".join(hook)
    given = _command_line(below) if below is not None else []
    if len(words) == 1:  # retitled into one string (npm exec's process.title, setproctitle): its words
        return not harness_program(words[0].split()) and words[0].rstrip().endswith(tail) and \
            (given[-len(hook):] == hook or given[-1:] != [] and given[-1].rstrip().endswith(tail))
    args = words[1:]
    if harness_program(words):
        return False
    if args[-len(hook):] == hook:
        return given[-len(hook):] == hook
    return args[-1].rstrip().endswith(tail) and _ran(args[-1], given)


def _command_line(pid: int) -> list[bytes]:
    """The words of ``pid``'s command line (``/proc/PID/cmdline``); none when it cannot be read."""
    raw = _read(f"/proc/{pid}/cmdline", CMDLINE_READ)
    return raw.rstrip(b"\0").split(b"\0") if raw else []


def _ran(string: bytes, given: list[bytes]) -> bool:
    """Whether the process below was started for the command ``string``: a shell given it as its
    last word (``sh -c STRING``), or its command run in the shell's place (the shell's ``exec``:
    ``STRING``'s words, quotes, a leading ``exec`` and ``NAME=value`` settings aside; or the last
    command of a list, after ``&&``, ``||``, ``;``, ``&`` or ``|``). The command is compared with
    the process below as the kernel started it (``_as_said``): a console script or any script
    with a ``#!`` line (``baton``) runs as ``[interpreter, /path/to/baton, hook, …]``."""
    if not given:
        return False
    if given[-1] == string:
        return True
    said = string.replace(b"'", b"").replace(b'"', b"").split()
    while said and (said[0] == b"exec" or b"=" in said[0] and not said[0].startswith(b"=")):
        said = said[1:]
    return any(_ends_with(said, ran) for ran in _as_said(b" ".join(given).split()))


def _as_said(ran: list[bytes]) -> list[list[bytes]]:
    """The ways a command string may have named the process whose words are ``ran``: as they are
    (``python -m baton hook …``), and, for a script its interpreter runs (a console script's or
    ``#!`` script's ``[interpreter, options…, /path/to/script, args…]``), from the script on."""
    forms = [ran]
    start = 1
    while start < len(ran) and ran[start].startswith(b"-"):
        start += 1
    if start < len(ran):
        forms.append(ran[start:])
    return forms


def _ends_with(said: list[bytes], ran: list[bytes]) -> bool:
    """Whether the command string's words ``said`` are the command ``ran`` (its program by the
    same name, ``baton`` for ``/venv/bin/baton``, with the same arguments), or end with it as the
    last command of a list (``cd x && baton hook …``), which the shell ran in its own place."""
    if not ran or len(said) < len(ran):
        return False
    before, command = said[:len(said) - len(ran)], said[len(said) - len(ran):]
    if command[1:] != ran[1:] or command[0].rpartition(b"/")[2] != ran[0].rpartition(b"/")[2]:
        return False
    return not before or before[-1].endswith(_LIST_OPERATORS)


_LIST_OPERATORS = (b"&&", b"||", b";", b"&", b"|")
"""What ends the word before a command string's last command (``cd x && baton hook …``)."""


def harness_program(words: list[bytes]) -> bool:
    """Whether a command line's words run a harness program (``HARNESS_PROGRAMS``): its first
    word, or the script a JavaScript runtime runs (``node /usr/bin/claude``)."""
    names = [_program_name(word) for word in words[:2]]
    if not names:
        return False
    return names[0] in HARNESS_PROGRAMS or names[0] in SCRIPT_RUNNERS and names[1:2] != [] and \
        names[1] in HARNESS_PROGRAMS


def _program_name(word: bytes) -> bytes:
    name = word.rpartition(b"/")[2]
    for suffix in (b".js", b".mjs", b".cjs", b".exe"):
        if name.endswith(suffix):
            return name[:-len(suffix)]
    return name


def process_now(pid: int) -> tuple[str, int, int | None] | None:
    """What this machine says now of the recorded harness process ``pid``: its boot id, this
    process's pid namespace and the start time of the live process with that pid (None: there
    is none); None when this cannot be read (no ``/proc``)."""
    here = host_now()
    if here is None:
        return None
    if _read(f"/proc/{pid}/stat") is None and os.path.exists(f"/proc/{pid}"):
        return None  # there, but unreadable here: nothing said
    stat = process_stat(pid)
    return here[0], here[1], stat[2] if stat is not None else None
