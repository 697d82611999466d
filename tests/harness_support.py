"""Feeding the synthetic hook fixtures (tests/fixtures/hooks/) to ``baton hook``."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

FIXTURES = Path(__file__).parent / "fixtures" / "hooks"
PLACEHOLDER = "/path/to/project"


def fixture(harness: str, name: str, project: Path | None = None, **changes: Any) -> dict[str, Any]:
    """A fixture payload with the test project as its working directory."""
    text = (FIXTURES / harness / f"{name}.json").read_text()
    if project is not None:
        text = text.replace(PLACEHOLDER, str(project))
    return {**json.loads(text), **changes}


def every_fixture() -> list[tuple[str, str]]:
    return sorted((p.parent.name, p.stem) for p in FIXTURES.glob("*/*.json"))


def hook(project: Path, harness: str, event: str, payload: dict[str, Any] | bytes):
    """Run one hook in this process, as the harness would (the project comes from the payload's cwd)."""
    from baton.harnesses.hook import run_hook

    raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return run_hook(harness, event, raw)


def injected(harness: str, answer: str) -> str | None:
    """The context a harness would put in front of its agent, from the hook's stdout."""
    if not answer.strip():
        return None
    data = json.loads(answer)
    if harness == "cursor":
        return data.get("additional_context")
    return (data.get("hookSpecificOutput") or {}).get("additionalContext")


_HOLDER = (  # holds the lock until its stdin closes, 300 s at most (a regression fails, never hangs)
    "import fcntl, os, select, sys\n"
    "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)\n"
    "fcntl.flock(fd, fcntl.LOCK_EX)\n"
    "print('held', flush=True)\n"
    "select.select([sys.stdin], [], [], 300)\n"
)


@contextmanager
def lock_held_elsewhere(project: Path) -> Iterator[None]:
    """Another process holds the project's ledger lock (``.baton/ledger.lock``) until the block ends."""
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(Path(project) / ".baton" / "ledger.lock")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=60)


_CATCH_UP_HOLDER = (  # takes the catch-up lock as baton.background does, writes its pid; holds until stdin closes
    "import fcntl, os, select, sys\n"
    "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)\n"
    "fcntl.flock(fd, fcntl.LOCK_EX)\n"
    "os.ftruncate(fd, 0); os.pwrite(fd, f'{os.getpid()}\\n'.encode(), 0)\n"
    "print('held', flush=True)\n"
    "select.select([sys.stdin], [], [], 300)\n"
)


@contextmanager
def catch_up_running(project: Path) -> Iterator[int]:
    """Another process holds the background catch-up's lock (``.baton/cache/catch-up.lock``,
    its pid written there, as ``baton.background`` does) until the block ends; its pid."""
    cache = project / ".baton" / "cache"
    cache.mkdir(exist_ok=True)
    holder = subprocess.Popen([sys.executable, "-c", _CATCH_UP_HOLDER, str(cache / "catch-up.lock")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield holder.pid
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=60)


def process_running(pid: int) -> bool:
    """Whether process ``pid`` exists and has not ended (a zombie not yet reaped has; Linux ``/proc``)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def codex_start(project: Path, session: str):
    """Codex's SessionStart hook (a startup) run for ``session`` in ``project``, as Codex runs it."""
    return hook(project, "codex", "SessionStart", fixture("codex", "SessionStart.startup", project, session_id=session))


def codex_stop(project: Path, session: str):
    """Codex's Stop hook (the end of a turn) run for ``session`` in ``project``, as Codex runs it."""
    return hook(project, "codex", "Stop", fixture("codex", "Stop", project, session_id=session))


def codex_interrupt(project: Path, session: str):
    """Codex's Interrupt hook (a turn the person stopped: Esc, Ctrl-C's "Cancel task" or "Exit") run for
    ``session`` in ``project``, as Codex 0.171.0 runs it."""
    return hook(project, "codex", "Interrupt", fixture("codex", "Interrupt", project, session_id=session))


def unprompted_mark(project: Path, session: str) -> Path:
    """Where session ``session``'s start leaves its mark when it claims a baton before any prompt."""
    return project / ".baton" / "cache" / "unprompted" / session


def baton_left_by_a_claude_code_session(project: Path, session: str = "earlier") -> str:
    """A Claude Code session readies a handoff and ends (its ``SessionEnd`` hook): its baton waits.
    The handoff's id."""
    from baton.app import Baton
    from tests.app_support import promote_handoff, validate_handoff_command
    from tests.handoff_support import payload

    with Baton.open(project) as app:
        handoff_id = app.capture(payload(), session=session).handoff_id
    validate_handoff_command(project, handoff_id)
    promote_handoff(project, handoff_id, accept_warnings="tests")
    hook(project, "claude-code", "SessionEnd", fixture("claude-code", "SessionEnd", project, session_id=session))
    return handoff_id


def claude_start(project: Path, session: str):
    """Claude Code's SessionStart hook (a startup) run for ``session`` in ``project``, as Claude Code runs it."""
    return hook(project, "claude-code", "SessionStart", fixture("claude-code", "SessionStart.startup", project,
                                                                session_id=session))


def session_of(project: Path, session: str) -> dict[str, Any]:
    """Session ``session`` as the project's sessions projection reads it."""
    from baton.app import Baton
    from baton.projections.sessions import session_doc

    with Baton.open(project) as app:
        return session_doc(app.project.reading(), app.project.writer, session)


def next_start_leaves_its_handoff(project: Path, session: str) -> None:
    """``session``, whose harness still runs, readies a handoff; the next Claude Code start in ``project``
    (a second terminal's) leaves it to that session, open, and says so."""
    from tests.app_support import ready_handoff

    handoff_id = ready_handoff(project, session)
    started = claude_start(project, "next")
    assert started.result.delivered.record is None
    assert f"has not reported its end, and it readied handoff `{handoff_id}`" in injected("claude-code",
                                                                                           started.answer)
    assert session_of(project, session)["status"] == "open"


def next_start_takes_over_once_killed(project: Path, session: str, harness: subprocess.Popen) -> tuple[str, str]:
    """``session`` readies a handoff and its ``harness`` is killed (SIGKILL); the next Claude Code start in
    ``project`` takes the handoff over at once and says why. The handoff's id and what the start told."""
    from baton.domain.unended import HARNESS_GONE
    from tests.app_support import ready_handoff

    handoff_id = ready_handoff(project, session)
    harness.send_signal(signal.SIGKILL)
    harness.wait(60)
    started = claude_start(project, "next")
    assert started.result.delivered.record.id == handoff_id
    told = injected("claude-code", started.answer)
    assert told is not None
    assert f"never reported its end ({HARNESS_GONE}) after it readied handoff `{handoff_id}`" in told
    return handoff_id, told


@contextmanager
def killed_at_the_end(harness: subprocess.Popen) -> Iterator[subprocess.Popen]:
    """``harness`` runs through the block, then is killed (SIGKILL) and waited for, whatever the block did."""
    try:
        yield harness
    finally:
        harness.send_signal(signal.SIGKILL)
        harness.wait(60)


@contextmanager
def hook_server_runtime() -> Iterator[Path]:
    """A short, private socket folder for a test's own hook servers (a socket's path is limited to
    ~100 bytes), every server in it stopped and the folder removed at the end."""
    from baton.hook_server import stop_servers

    folder = Path(tempfile.mkdtemp(prefix="bh-", dir="/tmp"))
    try:
        yield folder
    finally:
        stop_servers(folder)
        shutil.rmtree(folder, ignore_errors=True)


def hook_server_started(runtime: Path, project: Path, env: dict[str, str]) -> int:
    """A hook server listening in ``runtime``, started the way a first hook (run with ``env``, which
    relays to a server there) starts it for the next: how many commands it has taken, once it says."""
    warm = subprocess.run([str(Path(sys.executable).parent / "baton"), "hook", "claude-code", "SessionStart"],
                          cwd=project, env=env, capture_output=True, text=True, timeout=60,
                          input=json.dumps(fixture("claude-code", "SessionStart.startup", project,
                                                   session_id="warm-up")))
    assert warm.returncode == 0, warm.stderr
    for _ in range(1200):
        served = hook_server_served(runtime)
        if list((runtime / "baton").glob("hook-*.sock")) and served is not None:
            return served
        time.sleep(0.05)
    raise AssertionError("no hook server started")


@contextmanager
def relayed_once(runtime: Path, project: Path, env: dict[str, str]) -> Iterator[None]:
    """A hook server listening in ``runtime`` before the block (started as a first hook run with ``env``
    starts it), that has taken exactly one command more at its end: the block's one hook was relayed to
    it and ran in its child, for the relaying process."""
    served = hook_server_started(runtime, project, env)
    yield
    assert hook_server_served(runtime) == served + 1


def stand_in_started(stand_in: str, project: Path, session: str, env: dict[str, str], *args: str) -> subprocess.Popen:
    """A process standing for a harness (the Python code ``stand_in``, given ``args``), started in ``project``
    as a terminal starts one, that has run its session's start: a Claude Code startup of ``session`` on its
    stdin, its hook's exit status (which must be 0) on its first line out."""
    payload = json.dumps(fixture("claude-code", "SessionStart.startup", project, session_id=session))
    harness = subprocess.Popen([sys.executable, "-c", stand_in, *args], cwd=project, env=env, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, start_new_session=True)
    assert harness.stdin is not None and harness.stdout is not None
    harness.stdin.write(payload.encode())
    harness.stdin.close()
    assert harness.stdout.readline().strip() == b"0", "the stand-in's SessionStart hook failed"
    return harness


def hook_server_served(runtime: Path) -> int | None:
    """How many commands the hook server in ``runtime`` has taken, as its lock file says; None before it says."""
    try:
        (lock,) = (runtime / "baton").glob("hook-*.sock.lock")
        return int(lock.read_text().split()[1])
    except (OSError, ValueError, IndexError):
        return None
