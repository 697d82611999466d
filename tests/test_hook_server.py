"""The hook server: a `baton hook` relayed to a process that imported
everything once, and every hook it cannot take run in its own process as
before (docs/hooks.md, "The hook server").

Each test gets a socket folder of its own (``XDG_RUNTIME_DIR``) and stops the
servers started there. ``RELAY`` is a real client that says whether the
server took the hook (exit 97 when it did not), so a test knows which path
answered.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from baton.hook_server import stop_servers
from baton.process_end import NOTHING_DONE
from tests.app_support import init_project
from tests.cli_support import run_here
from tests.handoff_support import git_init
from tests.harness_support import lock_held_elsewhere

BATON = Path(sys.executable).parent / "baton"
NOT_RELAYED = 97
OTHER_KEY = "0123456789abcdef"
"""Another installation's key (another virtual environment or checkout of Baton): its files are not this server's."""
RELAY = ("import sys\nfrom baton import launch\nstatus = launch.relay(launch.socket_path(), sys.argv[1:])\n"
         f"sys.exit({NOT_RELAYED} if status is None else status)\n")

REAL_SERVERS = pytest.mark.slow(reason="a hook server's lifecycle: real servers and clients, started, "
                                         "timed out, killed and waited for")
"""Run by the README's slow command (CI runs it), with the crash loops and races: each such test
starts real processes and waits for them (a server's start, idle end, death). The relayed
commands' list stays in the main suite; the relay's fallback is also held there by the
hooks' tests, which run each hook in its own process (``BATON_HOOK_SERVER=0``)."""


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    git_init(root, {"src/app.py": "x = 1\n"})
    init_project(root)
    return root


def _env(runtime: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "XDG_RUNTIME_DIR": str(runtime), "BATON_HOOK_SERVER": "1",
            "BATON_HOOK_SERVER_IDLE": "120", **extra}


def _payload(event: str, session: str, cwd: Path) -> str:
    return json.dumps({"session_id": session, "cwd": str(cwd), "hook_event_name": event, "source": "startup",
                       "reason": "other", "transcript_path": "/nonexistent"})


def _hook(cwd: Path, runtime: Path, event: str, session: str, **env: str) -> subprocess.CompletedProcess:
    """The `baton` program, as a harness runs it."""
    return subprocess.run([str(BATON), "hook", "claude-code", event], input=_payload(event, session, cwd),
                          cwd=cwd, env=_env(runtime, **env), capture_output=True, text=True, timeout=60)


def _relay(cwd: Path, runtime: Path, words: list[str], stdin: str = "", **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", RELAY, *words], input=stdin, cwd=cwd, env=_env(runtime, **env),
                          capture_output=True, text=True, timeout=60)


def _relay_hook(cwd: Path, runtime: Path, event: str, session: str, **env: str) -> subprocess.CompletedProcess:
    return _relay(cwd, runtime, ["hook", "claude-code", event], _payload(event, session, cwd), **env)


def _socket(runtime: Path) -> Path | None:
    found = [p for p in (runtime / "baton").glob("hook-*.sock") if OTHER_KEY not in p.name]
    return found[0] if found else None


def _server_pid(lock: Path) -> int | None:
    try:
        return int(lock.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "Z" not in Path(f"/proc/{pid}/stat").read_text().split()[2]


def _serving(runtime: Path, timeout: float = 20) -> int:
    """The pid of the server listening in ``runtime``, once it listens."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        sock = _socket(runtime)
        if sock is not None:
            pid = _server_pid(Path(f"{sock}.lock"))
            if pid and _alive(pid):
                return pid
        time.sleep(0.05)
    raise AssertionError(f"no hook server listens in {runtime}")


def _start_server(runtime: Path, cwd: Path) -> int:
    """A server, started the way a first hook starts it."""
    first = _hook(cwd, runtime, "SessionStart", "warm-up")
    assert first.returncode == 0, first.stderr
    return _serving(runtime)


def _events(root: Path) -> list[str]:
    """The types of the project's events, read in this process (what is asserted is what the hooks left)."""
    code, out, err = run_here("log", "--json", "--project", str(root), cwd=root)
    assert code == 0, err
    return [json.loads(line)["type"] for line in out.splitlines() if line.strip()]


@REAL_SERVERS
def test_the_first_hook_runs_in_its_own_process_and_starts_a_server_for_the_next(repo, runtime):
    done = _hook(repo, runtime, "SessionStart", "s1")
    assert done.returncode == 0, done.stderr
    assert "session `s1`" in json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert _serving(runtime)


def _twin_projects(tmp_path: Path) -> tuple[Path, Path]:
    """Two projects alike: one answers a command in its own process, the other relayed."""
    twins = tmp_path / "a", tmp_path / "b"
    for root in twins:
        root.mkdir()
        git_init(root, {"src/app.py": "x = 1\n"})
        init_project(root)
    return twins


@REAL_SERVERS
def test_a_relayed_hook_answers_as_the_same_hook_in_its_own_process(tmp_path, runtime):
    mine, other = _twin_projects(tmp_path)
    _start_server(runtime, tmp_path)
    own = _hook(mine, runtime, "SessionStart", "s1", BATON_HOOK_SERVER="0")
    relayed = _relay_hook(other, runtime, "SessionStart", "s1")
    assert relayed.returncode == own.returncode == 0, relayed.stderr
    assert relayed.stdout == own.stdout.replace(str(mine), str(other))
    assert _events(other) == _events(mine)


@REAL_SERVERS
def test_a_relayed_hook_runs_in_its_callers_folder_with_its_environment_and_umask(repo, runtime):
    _start_server(runtime, repo.parent)
    log = repo / ".baton" / "logs" / "baton.jsonl"
    done = subprocess.run(["sh", "-c", 'umask 077 && exec "$0" -c "$1" hook claude-code SessionStart',
                           sys.executable, RELAY], input=_payload("SessionStart", "s1", repo), cwd=repo,
                          env=_env(runtime, BATON_LOG="info"), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert '"session.begun"' in log.read_text()  # BATON_LOG came from the caller, the project from its folder
    assert log.stat().st_mode & 0o777 == 0o600  # created under the caller's umask


@REAL_SERVERS
def test_a_relayed_hook_exits_with_its_own_status_and_its_own_error(repo, runtime):
    _start_server(runtime, repo.parent)
    # A usage error (a hook's own exits 0 with a notice: tests/test_hook_command_line.py).
    own = subprocess.run([str(BATON), "bootstrap", "--bogus"], cwd=repo, env=_env(runtime, BATON_HOOK_SERVER="0"),
                         capture_output=True, text=True, timeout=60)
    relayed = _relay(repo, runtime, ["bootstrap", "--bogus"])
    assert relayed.returncode == own.returncode == 2
    assert relayed.stderr == own.stderr and "--bogus" in relayed.stderr


@REAL_SERVERS
def test_the_server_runs_only_the_commands_of_a_sessions_start_and_end(repo, runtime):
    _start_server(runtime, repo.parent)
    assert _relay(repo, runtime, ["status", "--json"]).returncode == NOT_RELAYED
    assert _relay(repo, runtime, ["install-hooks", "--harness", "codex"]).returncode == NOT_RELAYED


def test_the_relayed_commands_are_the_hook_path_commands():
    from baton.cli import HOOK_PATH_COMMANDS
    from baton.launch import RELAYED

    assert RELAYED == HOOK_PATH_COMMANDS


@REAL_SERVERS
@pytest.mark.parametrize("words", [["resume", "latest"], ["bootstrap", "--peek"], ["session", "handoff", "--json"]],
                         ids=" ".join)
def test_a_relayed_session_command_answers_as_in_its_own_process(tmp_path, runtime, words):
    mine, other = _twin_projects(tmp_path)
    _start_server(runtime, tmp_path)
    own = subprocess.run([str(BATON), *words], cwd=mine, env=_env(runtime, BATON_HOOK_SERVER="0"),
                         capture_output=True, text=True, timeout=60)
    relayed = _relay(other, runtime, words)
    assert relayed.returncode == own.returncode, relayed.stderr
    assert relayed.stdout == own.stdout.replace(str(mine), str(other))
    assert relayed.stderr == own.stderr.replace(str(mine), str(other))


def _served(runtime: Path) -> int:
    """How many commands the server in ``runtime`` has taken, as its lock file says (``_record``):
    it counts one once it has told the relaying process which child runs it."""
    sock = _socket(runtime)
    try:
        return int(Path(f"{sock}.lock").read_text().split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def _relayed_and_waiting(repo: Path, runtime: Path, words: list[str]) -> subprocess.Popen:
    """A relay the server took, still running (its standard input stays open): returned once
    the server counts it taken, so a signal sent to it now goes through the relay's forwarding,
    however late each process is scheduled. On a loaded machine the server may not take a
    request within the relay's connect wait (the relay then exits NOT_RELAYED, and a hook would
    run in its own process): ask again."""
    for _ in range(10):
        before = _served(runtime)
        waiting = subprocess.Popen([sys.executable, "-c", RELAY, *words], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=repo, env=_env(runtime),
                                   text=True)
        deadline = time.monotonic() + 120
        while waiting.poll() is None and _served(runtime) == before and time.monotonic() < deadline:
            time.sleep(0.02)
        if waiting.poll() is None and _served(runtime) > before:
            return waiting
        waiting.communicate()  # closes its standard input (closed first, communicate would flush it: ValueError)
        assert waiting.returncode == NOT_RELAYED, waiting.returncode
    raise AssertionError("the server never took the relayed command")


@REAL_SERVERS
def test_ctrl_c_on_a_relayed_command_interrupts_it(repo, runtime):
    _start_server(runtime, repo.parent)
    waiting = _relayed_and_waiting(repo, runtime, ["session", "end", "s1", "--handoff-input", "-"])
    try:
        assert waiting.poll() is None
        waiting.send_signal(signal.SIGINT)
        waiting.wait(timeout=30)  # its standard input still open: only the interrupt ends it
        err = waiting.stderr.read()
    finally:
        waiting.kill()
        waiting.stdin.close()
    assert waiting.returncode == 130, err
    assert "interrupted" in err
    assert "session.ended" not in _events(repo)


@REAL_SERVERS
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT], ids=["SIGTERM", "SIGHUP", "SIGQUIT"])
def test_a_relayed_command_killed_by_a_forwarded_signal_ends_by_that_signal_as_in_its_own_process(repo, runtime,
                                                                                                  signum):
    _start_server(runtime, repo.parent)
    waiting = _relayed_and_waiting(repo, runtime, ["session", "end", "s1", "--handoff-input", "-"])
    try:
        waiting.send_signal(signum)
        waiting.wait(timeout=60)  # its standard input still open: only the signal ends it
        out = waiting.stdout.read()
    finally:
        waiting.kill()
        waiting.stdin.close()
    assert waiting.returncode == -signum, out
    assert "session.ended" not in _events(repo)


def _running_child(server: int, repo: Path) -> int:
    """The server's child running a command relayed from ``repo`` (a spare's folder is the server's)."""
    for pid in Path(f"/proc/{server}/task/{server}/children").read_text().split():
        try:
            if os.readlink(f"/proc/{pid}/cwd") == str(repo):
                return int(pid)
        except OSError:
            continue
    return 0


@REAL_SERVERS
def test_a_relayed_command_whose_child_is_killed_before_it_answers_fails_and_says_so(repo, runtime):
    server = _start_server(runtime, repo.parent)
    waiting = _relayed_and_waiting(repo, runtime, ["session", "end", "s1", "--handoff-input", "-"])
    try:
        _until(lambda: _running_child(server, repo), "no child of the server runs the command")
        os.kill(_running_child(server, repo), signal.SIGKILL)
        waiting.wait(timeout=60)
        err = waiting.stderr.read()
    finally:
        waiting.kill()
        waiting.stdin.close()
    assert waiting.returncode == 1, err
    assert "ended without an exit status" in err
    assert "session.ended" not in _events(repo)


STALLED = {"BATON_HOOK_LOCK_WAIT": "60", "BATON_HOOK_DEADLINE": "2"}
"""A session start that waits for the ledger lock past its deadline: its watchdog ends it."""


def _relayed_run(runtime: Path, run) -> subprocess.CompletedProcess:
    """``run(attempt)``'s process, once the server took it (on a loaded machine a relay may
    not connect within its wait, and then runs in its own process: ask again)."""
    for attempt in range(5):
        before = _served(runtime)
        done = run(attempt)
        if _served(runtime) > before:
            return done
    raise AssertionError("the server never took the relayed command")


@REAL_SERVERS
def test_a_relayed_hook_that_meets_its_deadline_ends_as_it_does_in_its_own_process(repo, runtime):
    _start_server(runtime, repo.parent)
    with lock_held_elsewhere(repo):
        relayed = _relayed_run(runtime, lambda n: _hook(repo, runtime, "SessionStart", f"s-relayed-{n}", **STALLED))
        alone = _hook(repo, runtime, "SessionStart", "s-alone", BATON_HOOK_SERVER="0", **STALLED)
    assert (relayed.returncode, relayed.stdout) == (alone.returncode, alone.stdout) == (0, "")
    assert "gave up after 2 s (BATON_HOOK_DEADLINE)" in relayed.stderr
    assert relayed.stderr == alone.stderr  # one line, and no "ended without an exit status (it was killed)"


@REAL_SERVERS
def test_an_installed_start_hook_that_meets_its_deadline_in_the_server_injects_no_failure_notice(repo, runtime):
    code, _, err = run_here("install-hooks", "--harness", "claude-code", "--project", str(repo), cwd=repo)
    assert code == 0, err
    line = json.loads((repo / ".claude" / "settings.json").read_text())["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    _start_server(runtime, repo.parent)

    def start(attempt: int) -> subprocess.CompletedProcess:
        return subprocess.run(["sh", "-c", line], input=_payload("SessionStart", f"s-{attempt}", repo), cwd=repo,
                              env=_env(runtime, **STALLED), capture_output=True, text=True, timeout=60)

    with lock_held_elsewhere(repo):
        done = _relayed_run(runtime, start)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""  # not "Baton could not run its SessionStart hook … run baton doctor"
    assert "gave up after 2 s" in done.stderr and "ended without an exit status" not in done.stderr


@REAL_SERVERS
def test_doctor_says_whether_the_hook_server_runs(repo, runtime):
    def line(**env: str) -> str:
        done = subprocess.run([sys.executable, "-m", "baton", "doctor", "--json"], cwd=repo,
                              env=_env(runtime, **env), capture_output=True, text=True, timeout=120)
        return next(c["detail"] for c in json.loads(done.stdout)["checks"] if c["name"] == "hook server")

    assert line().startswith("not running")
    pid = _start_server(runtime, repo.parent)
    assert line().startswith(f"running (pid {pid}, 0 commands relayed)")  # the first hook ran in its own process
    assert _relay_hook(repo, runtime, "SessionStart", "s1").returncode == 0
    assert line().startswith(f"running (pid {pid}, 1 command relayed)")
    assert line(BATON_HOOK_SERVER="0").startswith("off")
    (runtime / "baton").chmod(0o755)
    assert line().startswith("not used:") and "0700" in line()


@REAL_SERVERS
def test_hooks_relayed_at_once_deliver_each_session_its_brief_once(repo, runtime):
    _start_server(runtime, repo.parent)
    sessions = [f"s{n}" for n in range(6)]
    with ThreadPoolExecutor(max_workers=12) as pool:
        runs = list(pool.map(lambda s: _relay_hook(repo, runtime, "SessionStart", s), sessions * 2))
    assert {r.returncode for r in runs} == {0}, [r.stderr for r in runs]
    for session in sessions:
        briefs = [r for r in runs if f"session `{session}`" in r.stdout]
        assert len(briefs) == 1
    code, out, err = run_here("verify", "--project", str(repo), cwd=repo)
    assert code == 0, out + err
    assert _events(repo).count("session.begun") == len(sessions)


@REAL_SERVERS
def test_a_server_whose_code_changed_declines_and_ends(repo, runtime):
    import baton.launch

    pid = _start_server(runtime, repo.parent)
    module = Path(baton.launch.__file__)
    st = module.stat()
    os.utime(module, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    try:
        assert _relay_hook(repo, runtime, "SessionStart", "s1").returncode == NOT_RELAYED
        _stop_waiting = time.monotonic() + 10
        while _alive(pid) and time.monotonic() < _stop_waiting:
            time.sleep(0.05)
        assert not _alive(pid)
        assert _socket(runtime) is None
    finally:
        os.utime(module, ns=(st.st_atime_ns, st.st_mtime_ns))
    done = _hook(repo, runtime, "SessionStart", "s1")  # runs in its own process, as if no server had been
    assert done.returncode == 0 and "session `s1`" in done.stdout


@REAL_SERVERS
def test_a_socket_folder_others_may_enter_is_neither_used_nor_served(repo, runtime):
    _start_server(runtime, repo.parent)
    (runtime / "baton").chmod(0o755)
    assert _relay_hook(repo, runtime, "SessionStart", "s1").returncode == NOT_RELAYED
    marks = {p.name: p.stat().st_mtime_ns for p in (runtime / "baton").glob("*.started")}
    done = _hook(repo, runtime, "SessionStart", "s2", BATON_HOOK_SERVER="1")
    assert done.returncode == 0 and "session `s2`" in done.stdout
    assert {p.name: p.stat().st_mtime_ns for p in (runtime / "baton").glob("*.started")} == marks


@REAL_SERVERS
def test_BATON_HOOK_SERVER_0_runs_each_hook_in_its_own_process_and_starts_no_server(repo, runtime):
    done = _hook(repo, runtime, "SessionStart", "s1", BATON_HOOK_SERVER="0")
    assert done.returncode == 0 and "session `s1`" in done.stdout
    assert not (runtime / "baton").exists()


@REAL_SERVERS
def test_the_server_ends_when_idle_and_takes_its_socket_away(repo, runtime):
    done = _hook(repo, runtime, "SessionStart", "s1", BATON_HOOK_SERVER_IDLE="1")
    assert done.returncode == 0
    pid = _serving(runtime)
    deadline = time.monotonic() + 20
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(pid)
    assert _socket(runtime) is None


@REAL_SERVERS
def test_a_hook_after_the_server_was_killed_runs_in_its_own_process(repo, runtime):
    pid = _start_server(runtime, repo.parent)
    os.kill(pid, signal.SIGKILL)
    while _alive(pid):
        time.sleep(0.05)
    assert _socket(runtime) is not None  # left behind: nothing listens on it
    assert _relay_hook(repo, runtime, "SessionStart", "s1").returncode == NOT_RELAYED
    done = _hook(repo, runtime, "SessionStart", "s1")
    assert done.returncode == 0 and "session `s1`" in done.stdout


def _no_new_privileges() -> None:
    """In the child before it runs: it may gain no new privileges, as a Landlock or bubblewrap sandbox sets."""
    import ctypes

    assert ctypes.CDLL(None, use_errno=True).prctl(38, 1, 0, 0, 0) == 0  # PR_SET_NO_NEW_PRIVS


@REAL_SERVERS
def test_a_sandboxed_caller_is_not_served_and_starts_no_server(repo, runtime):
    _start_server(runtime, repo.parent)
    marks = {p.name: p.stat().st_mtime_ns for p in (runtime / "baton").glob("*.started")}
    relayed = subprocess.run([sys.executable, "-c", RELAY, "hook", "claude-code", "SessionStart"],
                             input=_payload("SessionStart", "s1", repo), cwd=repo, env=_env(runtime),
                             capture_output=True, text=True, timeout=60, preexec_fn=_no_new_privileges)
    assert relayed.returncode == NOT_RELAYED
    (runtime / "baton" / next(iter(marks))).unlink()  # a server may be started again at once, but not from here
    own = subprocess.run([str(BATON), "hook", "claude-code", "SessionStart"], input=_payload("SessionStart", "s2", repo),
                         cwd=repo, env=_env(runtime), capture_output=True, text=True, timeout=60,
                         preexec_fn=_no_new_privileges)
    assert own.returncode == 0 and "session `s2`" in own.stdout
    assert not list((runtime / "baton").glob("*.started"))


@REAL_SERVERS
def test_a_caller_in_another_mount_namespace_is_not_served(repo, runtime):
    unshare = shutil.which("unshare")
    probe = subprocess.run([unshare, "--mount", "true"], capture_output=True) if unshare else None
    if probe is None or probe.returncode != 0:
        pytest.skip("no `unshare --mount` here (it needs root or a user namespace)")
    _start_server(runtime, repo.parent)
    relayed = subprocess.run([unshare, "--mount", sys.executable, "-c", RELAY, "hook", "claude-code", "SessionStart"],
                             input=_payload("SessionStart", "s1", repo), cwd=repo, env=_env(runtime),
                             capture_output=True, text=True, timeout=60)
    assert relayed.returncode == NOT_RELAYED


@REAL_SERVERS
def test_a_command_at_a_terminal_or_with_a_closed_stream_is_not_relayed():
    import pty

    probe = "from baton.launch import piped; import os; os.write(2, str(piped()).encode())"
    main, secondary = pty.openpty()
    try:
        at_terminal = subprocess.run([sys.executable, "-c", probe], stdin=subprocess.DEVNULL, stdout=secondary,
                                     stderr=subprocess.PIPE, timeout=60)
    finally:
        os.close(main)
        os.close(secondary)
    closed = subprocess.run(["sh", "-c", 'exec "$0" -c "$1" <&-', sys.executable, probe], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, timeout=60)
    piped = subprocess.run([sys.executable, "-c", probe], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
    assert (at_terminal.stderr, closed.stderr, piped.stderr) == (b"False", b"False", b"True")


@REAL_SERVERS
def test_a_hook_with_standard_input_closed_answers_at_once(repo, runtime):
    _start_server(runtime, repo.parent)
    done = subprocess.run(["sh", "-c", 'exec "$0" hook claude-code SessionStart <&-', str(BATON)], cwd=repo,
                          env=_env(runtime), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert "gave up" not in done.stderr


@REAL_SERVERS
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_a_relayed_command_ends_with_the_process_that_relayed_it(repo, runtime, signum):
    _start_server(runtime, repo.parent)
    waiting = subprocess.Popen([sys.executable, "-c", RELAY, "session", "end", "s1", "--handoff-input", "-"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=repo,
                               env=_env(runtime))
    try:
        time.sleep(1.0)
        waiting.send_signal(signum)
        waiting.wait(timeout=30)
        time.sleep(0.5)
        waiting.stdin.write(b'{"nextSteps": ["carry on"]}')  # the child, were it alive, would read this
        waiting.stdin.close()
    except BrokenPipeError:  # nothing reads standard input any more: the child is gone too
        pass
    finally:
        waiting.kill()
    time.sleep(1.0)
    assert "session.ended" not in _events(repo)


@REAL_SERVERS
def test_a_relayed_command_failing_under_BATON_DEBUG_prints_its_traceback(repo, runtime):
    _start_server(runtime, repo.parent)
    with open("/dev/full", "w") as full:  # writing the brief fails: no space left
        own = subprocess.run([str(BATON), "bootstrap", "--peek"], cwd=repo, stdout=full, stderr=subprocess.PIPE,
                             text=True, env=_env(runtime, BATON_DEBUG="1", BATON_HOOK_SERVER="0"), timeout=60)
        relayed = subprocess.run([sys.executable, "-c", RELAY, "bootstrap", "--peek"], cwd=repo, stdout=full,
                                 stderr=subprocess.PIPE, text=True, env=_env(runtime, BATON_DEBUG="1"), timeout=60)
    assert relayed.returncode == own.returncode == 1
    assert "Traceback" in relayed.stderr and "Traceback" in own.stderr


LIMITS_PROBE = """
import os, resource, subprocess, sys
from baton import hook_server
caller = subprocess.Popen(["sleep", "30"], preexec_fn=lambda: (resource.setrlimit(resource.RLIMIT_NOFILE, (97, 98)),
                                                             os.nice(3)))
try:
    adoptable = hook_server.adoptable(caller.pid)
    hook_server.adopt_limits(caller.pid)
    print(adoptable, resource.getrlimit(resource.RLIMIT_NOFILE), os.getpriority(os.PRIO_PROCESS, 0))
    os.nice(5)  # now nicer than the caller: its niceness cannot be taken on
    print(hook_server.adoptable(caller.pid))
finally:
    caller.kill()
"""


@REAL_SERVERS
def test_a_child_takes_on_the_callers_limits_and_niceness_and_declines_what_it_cannot():
    done = subprocess.run([sys.executable, "-c", LIMITS_PROBE], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["True (97, 98) 3", "False"]


PRELOADED = """
import io, json, os, sys
from baton import hook_server
hook_server.preload()
before = set(sys.modules)
import baton.cli
from baton.harnesses import ADAPTER_MODULES, adapter
for n, harness in enumerate(ADAPTER_MODULES):
    for hook in adapter(harness).hooks:
        payload = {"session_id": f"s{n}", "cwd": os.getcwd(), "hook_event_name": hook.event, "source": "startup",
                   "trigger": "manual", "reason": "other", "prompt": "continue later, hand this off"}
        read, write = os.pipe()
        os.write(write, json.dumps(payload).encode())
        os.close(write)
        os.dup2(read, 0)
        sys.stdin = io.TextIOWrapper(io.open(0, "rb", closefd=False), "utf-8")
        baton.cli.main(["hook", harness, hook.event])
for words in (["bootstrap", "--json", "--session-id", "b1"], ["session", "handoff", "--json"], ["resume", "latest"],
              ["session", "end", "b1", "--handoff-steps", "carry on"], ["resume", "latest"]):
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    baton.cli.main(words)
print(json.dumps(sorted(m for m in set(sys.modules) - before
                        if m.split(".")[0] in ("baton", "mcp", "dulwich", "cattrs", "sqlite_utils"))),
      file=sys.__stderr__)
"""


@REAL_SERVERS
def test_the_server_preloads_every_module_a_hook_or_session_command_runs_and_never_the_mcp_sdk(repo):
    done = subprocess.run([sys.executable, "-c", PRELOADED], cwd=repo, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stderr.strip().splitlines()[-1]) == []
    check = subprocess.run([sys.executable, "-c", "import sys\nfrom baton import hook_server\nhook_server.preload()\n"
                            "print(sorted({m.split('.')[0] for m in sys.modules} & {'mcp', 'pydantic', 'starlette'}))"],
                           capture_output=True, text=True, timeout=120)
    assert check.stdout.strip() == "[]", check.stderr


PREFAULT = """
import json, socket
from baton import hook_server
whole = hook_server.prefault()
waiting, sender = socket.socketpair()
sender.sendall(b"x")  # a request is there: the copying stops at once
cut = hook_server.prefault(waiting)
print(json.dumps({"whole": whole, "cut": cut, "still": json.loads(json.dumps({"a": [1, 2]}))}))
"""


@REAL_SERVERS
def test_a_spare_copies_its_pages_ahead_and_stops_when_a_request_arrives():
    done = subprocess.run([sys.executable, "-c", PREFAULT], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["whole"] > 1000 and found["cut"] <= 256 and found["still"] == {"a": [1, 2]}


# -- the files a server leaves in the socket folder (docs/hooks.md, "The hook server") ----------

def _files(runtime: Path) -> list[str]:
    return sorted(p.name for p in (runtime / "baton").iterdir())


def _another_installations_files(runtime: Path, started_ago: float) -> Path:
    """What a server of another installation left: its socket, its lock file and its start
    mark, written ``started_ago`` seconds ago; returns its socket's path."""
    import socket as socket_module

    folder = runtime / "baton"
    folder.mkdir(mode=0o700, exist_ok=True)
    address = folder / f"hook-{OTHER_KEY}.sock"
    listener = socket_module.socket(socket_module.AF_UNIX, socket_module.SOCK_STREAM)
    listener.bind(str(address))
    listener.close()  # the socket file stays, as a killed server leaves it
    Path(f"{address}.lock").write_text("999999 3\n")
    mark = Path(f"{address}.started")
    mark.write_bytes(b"")
    then = time.time() - started_ago
    os.utime(mark, (then, then))
    return address


@REAL_SERVERS
def test_a_server_that_ends_cleanly_leaves_no_file_behind(repo, runtime):
    pid = _start_server(runtime, repo.parent)
    assert any(name.endswith(".sock.lock") for name in _files(runtime))
    assert stop_servers(runtime) == [pid]
    assert _files(runtime) == []


@REAL_SERVERS
def test_a_starting_server_sweeps_the_files_of_another_installations_dead_server(repo, runtime):
    _another_installations_files(runtime, started_ago=3600)
    _start_server(runtime, repo.parent)
    assert not [name for name in _files(runtime) if OTHER_KEY in name]


@REAL_SERVERS
def test_a_starting_server_leaves_the_files_of_a_server_that_holds_its_lock(repo, runtime):
    import fcntl

    address = _another_installations_files(runtime, started_ago=3600)
    with open(f"{address}.lock", "rb") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # as the running server of that installation holds it
        _start_server(runtime, repo.parent)
        assert [name for name in _files(runtime) if OTHER_KEY in name] == [
            f"hook-{OTHER_KEY}.sock", f"hook-{OTHER_KEY}.sock.lock", f"hook-{OTHER_KEY}.sock.started"]


@REAL_SERVERS
def test_a_starting_server_leaves_the_files_of_a_server_just_started(repo, runtime):
    _another_installations_files(runtime, started_ago=0)
    _start_server(runtime, repo.parent)
    assert len([name for name in _files(runtime) if OTHER_KEY in name]) == 3


@REAL_SERVERS
def test_a_server_that_waited_for_an_ending_one_holds_the_lock_file_now_at_its_path(tmp_path, monkeypatch):
    import fcntl

    from baton import hook_server

    path = tmp_path / "hook-x.sock.lock"
    ending = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(ending, fcntl.LOCK_EX)

    def ended(_seconds: float) -> None:
        """While this one waits, the server before it ends: it removes its lock file, then lets go."""
        if path.exists():
            path.unlink()
            os.close(ending)

    monkeypatch.setattr(hook_server.time, "sleep", ended)
    held = hook_server._hold_lock(str(path))
    assert held is not None
    assert os.fstat(held).st_ino == os.stat(path).st_ino  # not the removed file, which locks nothing
    os.close(held)


def _server_process(address: Path) -> subprocess.Popen:
    """A server of the installation served at ``address``, started as a hook starts one."""
    return subprocess.Popen([sys.executable, "-P", "-m", "baton.hook_server", str(address)], cwd="/",
                            env={**os.environ, "BATON_HOOK_SERVER_IDLE": "120"},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _listening(address: Path, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 30
    while not address.exists():
        assert process.poll() is None and time.monotonic() < deadline, "the server did not come up"
        time.sleep(0.01)


@REAL_SERVERS
def test_a_sweep_removes_nothing_of_a_server_that_starts_between_its_check_and_its_removals(runtime, monkeypatch):
    from baton import hook_server

    folder = runtime / "baton"
    folder.mkdir(mode=0o700)
    other = folder / f"hook-{OTHER_KEY}.sock"
    mark = Path(f"{other}.started")
    mark.write_bytes(b"")  # only an old start mark: that installation's last server ended cleanly
    then = time.time() - 3600
    os.utime(mark, (then, then))
    servers: list[subprocess.Popen] = []
    real_stat = os.stat

    def stat(path, *args, **kwargs):
        found = real_stat(path, *args, **kwargs)
        if str(path) == str(mark) and not servers:
            # the sweeper is paused right after it found the mark old; meanwhile a hook of that
            # installation writes a new mark and starts its server, which comes up
            os.utime(mark)
            servers.append(_server_process(other))
            _listening(other, servers[0])
        return found

    try:
        monkeypatch.setattr(hook_server.os, "stat", stat)
        swept = hook_server.sweep_stale(str(folder), str(folder / "hook-aaaaaaaaaaaaaaaa.sock"))
        monkeypatch.undo()
        assert servers, "the pause was not reached"
        assert swept == []
        assert other.exists() and _server_pid(Path(f"{other}.lock")) == servers[0].pid
        second = _server_process(other)  # the next hook of that installation: one serves already
        servers.append(second)
        assert second.wait(timeout=60) == 0 and servers[0].poll() is None
    finally:
        monkeypatch.undo()
        for server in servers:
            server.terminate()
            server.wait(timeout=30)


@REAL_SERVERS
def test_a_server_that_ends_cleanly_leaves_the_socket_of_a_server_that_took_over(runtime):
    folder = runtime / "baton"
    folder.mkdir(mode=0o700)
    address = folder / f"hook-{OTHER_KEY}.sock"
    first = _server_process(address)
    servers = [first]
    try:
        _listening(address, first)
        while _server_pid(Path(f"{address}.lock")) != first.pid:
            time.sleep(0.01)
        # something removes its files while it serves (a sweep of an older Baton took no lock)
        for name in (address, Path(f"{address}.lock")):
            name.unlink()
        successor = _server_process(address)
        servers.append(successor)
        _listening(address, successor)
        taken = address.stat().st_ino
        first.terminate()
        assert first.wait(timeout=30) == 0
        assert address.exists() and address.stat().st_ino == taken
        assert _server_pid(Path(f"{address}.lock")) == successor.pid and successor.poll() is None
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=30)


def _signal_state(pid: int, field: str, signum: int) -> bool:
    """Whether ``signum`` is set in the ``field`` mask (``SigCgt``: caught; ``SigBlk``: blocked; ``ShdPnd``:
    pending) of ``pid``."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    return False


def _until(condition, what: str) -> None:
    deadline = time.monotonic() + 120
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


@REAL_SERVERS
def test_ctrl_c_forwarded_before_the_child_has_read_the_command_interrupts_it(repo, runtime):
    server = _start_server(runtime, repo.parent)
    _until(lambda: Path(f"/proc/{server}/task/{server}/children").read_text().split(), "no spare child")
    spare = int(Path(f"/proc/{server}/task/{server}/children").read_text().split()[0])
    _until(lambda: _signal_state(spare, "SigBlk", signal.SIGINT), "the spare child never held the interrupt")
    os.kill(spare, signal.SIGSTOP)  # the child the server hands the command to, not yet scheduled
    try:
        before = _served(runtime)
        waiting = subprocess.Popen([sys.executable, "-c", RELAY, "session", "end", "s1", "--handoff-input", "-"],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=repo,
                                   env=_env(runtime), text=True)
        _until(lambda: _served(runtime) > before, "the server never took the relayed command")
        waiting.send_signal(signal.SIGINT)
        _until(lambda: _signal_state(spare, "ShdPnd", signal.SIGINT), "the interrupt never reached the child")
    finally:
        os.kill(spare, signal.SIGCONT)
    try:
        waiting.wait(timeout=60)
        err = waiting.stderr.read()
    finally:
        waiting.kill()
        waiting.stdin.close()
    assert waiting.returncode == 130, err
    assert err == f"baton: interrupted {NOTHING_DONE}\n"  # nothing was recorded: said so
    assert "session.ended" not in _events(repo)


@REAL_SERVERS
def test_ctrl_c_while_no_server_takes_the_command_yet_ends_baton_as_interrupted(repo, runtime):
    server = _start_server(runtime, repo.parent)
    os.kill(server, signal.SIGSTOP)  # it takes nothing: the relay waits, then gives up
    try:
        waiting = subprocess.Popen([str(BATON), "session", "end", "s1", "--handoff-input", "-"],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=repo,
                                   env=_env(runtime), text=True)
        _until(lambda: waiting.poll() is not None or _signal_state(waiting.pid, "SigCgt", signal.SIGHUP),
               "the relay never began")
        waiting.send_signal(signal.SIGINT)
        waiting.wait(timeout=60)
    finally:
        os.kill(server, signal.SIGCONT)  # it then takes the request it holds and closes the streams sent with it
        if waiting.poll() is None:
            waiting.kill()
    _, err = waiting.communicate(timeout=60)
    assert waiting.returncode == 130, err
    assert err == f"baton: interrupted {NOTHING_DONE}\n"  # nothing was recorded: said so
    assert "session.ended" not in _events(repo)


def test_the_relays_own_interrupted_line_is_the_command_lines():
    from baton.launch import INTERRUPTED

    assert INTERRUPTED == f"baton: interrupted {NOTHING_DONE}\n".encode()
