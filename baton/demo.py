"""``baton demo``: the five-minute handoff, end to end, in a temporary git project.

Every step is a real ``baton`` command run in a throw-away repository, printed
as a user would type it, with its real output. The demo stops with an error
the moment any step does not do what the step promises — it is the main job
the README runs on a fresh machine, so it must never pass by accident.
"""

from __future__ import annotations

import contextlib
import io
import os
import shlex
import shutil
import tempfile
from pathlib import Path
from typing import Any, Callable

import attrs
import orjson
from dulwich import porcelain

from baton.errors import BatonError, InputError, ValidationFailed
from baton.model import mutable
from baton.project import current_folder

APP = '''def check_state(expected: str, received: str) -> bool:
    """Compare OAuth state values."""
    return expected == received
'''
APP_FIXED = '''import hmac


def check_state(expected: str, received: str) -> bool:
    """Compare OAuth state values in constant time."""
    return hmac.compare_digest(expected, received)
'''


@mutable
class DemoResult:
    root: str
    kept: bool
    steps: list[dict[str, Any]] = attrs.field(factory=list)
    handoff_id: str | None = None
    exit_code: int = 0

    def to_json(self) -> dict:
        return {"project": self.root, "kept": self.kept, "handoff_id": self.handoff_id, "steps": self.steps}

    def render(self) -> str:
        if self.kept:
            return f"\nThe demo project is kept at {self.root}"
        return "\nDone. The temporary project was removed (use --keep DIR to keep one)."


def _commit(root: Path, message: str, files: dict[str, str]) -> str:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    porcelain.add(str(root), [str(root / name) for name in files])
    who = b"Baton Demo <demo@example.invalid>"
    return porcelain.commit(str(root), message=message.encode(), author=who, committer=who).decode()


INTERRUPTED = 130
"""The command line's exit code for Ctrl-C (128 + SIGINT): it catches the interrupt
in the step it ran, so the demo sees only this code."""

CommandLine = Callable[[list[str]], int]
"""The ``baton`` command line as a function (``baton.cli.main``): the demo runs
each step exactly as a person types it, and is handed the command line by
the adapter that runs it, so it never imports one."""


class _Runner:
    def __init__(self, result: DemoResult, echo: Callable[[str], None], command_line: CommandLine) -> None:
        self.result = result
        self.echo = echo
        self.main = command_line

    def say(self, text: str) -> None:
        self.echo(f"\n# {text}")

    def baton(self, *argv: str, expect: int = 0, show: bool = True, json_out: bool = False) -> Any:
        args = list(argv) + (["--json"] if json_out else [])
        if show:
            self.echo("$ " + shlex.join(["baton", *argv]))
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = self.main(args)
        self.result.steps.append({"command": shlex.join(["baton", *argv]), "exit_code": code})
        if code == INTERRUPTED:  # Ctrl-C reached the step: the demo is interrupted, not failed
            raise KeyboardInterrupt
        if show and not json_out:
            text = out.getvalue().rstrip()
            if text:
                self.echo(text)
        if err.getvalue().strip():
            self.echo(err.getvalue().rstrip())
        if code != expect:
            raise ValidationFailed(
                f"demo step `baton {' '.join(argv)}` exited {code}, expected {expect}",
                details={"stdout": out.getvalue()[-2000:], "stderr": err.getvalue()[-2000:]},
            )
        return orjson.loads(out.getvalue()) if json_out else out.getvalue()


def run_demo(command_line: CommandLine, *, keep: str | None = None,
             echo: Callable[[str], None] | None = None) -> DemoResult:
    """Run the five-minute handoff; raise ``ValidationFailed`` if a step misbehaves."""
    lines: list[str] = []

    def printed(text: str) -> None:
        print(text, flush=True)

    emit = echo or printed
    previous = current_folder()  # a folder that is gone: folder_gone (exit 4), as every command says it
    root = _demo_root(keep)
    result = DemoResult(str(root), kept=bool(keep))

    def say(text: str) -> None:
        lines.append(text)
        emit(text)

    run = _Runner(result, say, command_line)
    saved_env = os.environ.pop("BATON_PROJECT", None)
    try:
        porcelain.init(str(root))
        _commit(root, "Initial OAuth callback", {"src/auth/callback.py": APP, "README.md": "# demo app\n"})
        os.chdir(root)
        short = _first_session(run, root, emit)
        _resume_fresh_then_stale(run, root, short, emit)
        _session_baton(run, emit)
        run.say("Every step above is an event in a hash-chained ledger:")
        run.baton("verify")
        return result
    except BatonError:
        raise
    finally:
        os.chdir(previous)
        if saved_env is not None:
            os.environ["BATON_PROJECT"] = saved_env
        if not keep:
            shutil.rmtree(root, ignore_errors=True)


def _demo_root(keep: str | None) -> Path:
    """``--keep DIR`` (empty, made if missing), else a new temporary folder."""
    if not keep:
        return Path(tempfile.mkdtemp(prefix="baton-demo-"))
    root = Path(keep).expanduser().resolve()
    try:  # a folder the user cannot enter raises on exists() itself
        if root.exists() and not root.is_dir():
            raise InputError(f"--keep {root}: it is a file, not a directory; name a new or empty directory")
        if root.exists() and any(root.iterdir()):
            raise InputError(f"--keep {root}: the directory exists and is not empty")
        root.mkdir(parents=True, exist_ok=True)
        probe = root / ".baton-demo-probe"  # an existing empty folder on a read-only mount
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:  # a read-only place, a parent that is a file, no such filesystem
        raise InputError(f"--keep {root}: cannot create the directory ({exc.strerror or exc}); "
                         "name one where you can write") from None
    return root


def _first_session(run: _Runner, root: Path, emit: Callable[[str], None]) -> str:
    """Session 1: init, capture a handoff, validate and promote it; its short id."""
    run.say(f"A git project at {root}. Session 1 starts working and must stop.")
    run.baton("init")
    (root / "src/auth/callback.py").write_text(APP_FIXED)
    run.say("Session 1 records what it knows — state, decisions, evidence, a failed attempt, the next step:")
    captured = run.baton(
        "checkpoint", "create", "--no-input",
        "--title", "Reject replayed OAuth callbacks",
        "--objective", "A replayed OAuth callback is rejected, and a test proves it",
        "--constraint", "Do not change the public callback URL",
        "--done", "Replay test passes", "--done", "Full suite passes",
        "--current-state", "State comparison is constant-time; the replay test is not written yet",
        "--completed", "Switched check_state to hmac.compare_digest",
        "--decision", '{"id": "D-001", "decision": "Compare state values in constant time", '
                      '"rationale": "Avoid timing side channels on a secret-derived value", "evidence_ids": ["E-001"]}',
        "--artifact", "src/auth/callback.py:modified",
        "--evidence", '{"id": "E-001", "type": "test", "claim": "Existing auth tests pass after the change", '
                      '"ref": "pytest tests/auth", "result": "pass"}',
        "--failed-attempt", '{"id": "F-001", "approach": "Cache seen state values in process memory", '
                            '"outcome": "abandoned", "reason": "Workers do not share memory", "avoid_repeating": true}',
        "--open-item", '{"id": "O-001", "priority": "high", "description": "Write the duplicate-callback test", '
                       '"suggested_action": "Add a fixture that replays one callback twice, then run the suite", '
                       '"acceptance_check": "The second callback is rejected"}',
        json_out=True,
    )
    short = captured["short_id"]
    run.result.handoff_id = captured["id"]
    emit(f"Captured draft handoff {short} ({captured['id']}), file {captured['file']}")
    run.baton("handoff", "validate", short)
    report = run.baton("handoff", "show", short, "--format", "json", json_out=True, show=False)
    status = ((report.get("handoff") or report).get("validation") or {}).get("status")
    run.say("It validates; promote it to ready (immutable from now on):")
    if status == "warn":
        run.baton("handoff", "ready", short, "--accept-warnings", "demo: working tree is dirty on purpose")
    else:
        run.baton("handoff", "ready", short)
    return short


def _resume_fresh_then_stale(run: _Runner, root: Path, short: str, emit: Callable[[str], None]) -> None:
    """Session 2 resumes from the brief; after a commit, the resume is flagged stale."""
    run.say("Session 2 — any terminal, any harness — resumes from the brief, not the old conversation:")
    brief = run.baton("resume", short)
    if "OBJECTIVE" not in brief or "DO NOT RETRY" not in brief:
        raise ValidationFailed("demo: the resume brief lacks its objective or do-not-retry section")
    run.say("Someone commits meanwhile; resuming now flags the stale state before the next actions:")
    _commit(root, "Unrelated change", {"README.md": "# demo app\n\nchanged\n"})
    stale = run.baton("resume", short, json_out=True)
    if stale.get("freshness_state") != "stale":
        raise ValidationFailed(f"demo: expected a stale resume, got {stale.get('freshness_state')!r}")
    emit(stale["brief"]["text"].split("\n\n")[1] if isinstance(stale.get("brief"), dict) else "")


def _session_baton(run: _Runner, emit: Callable[[str], None]) -> None:
    """Session 2 leaves a baton; session 3's bootstrap claims it, exactly once."""
    run.say("A session baton: session 2 (begun here) ends and leaves next steps for the next session on this branch:")
    run.baton("session", "begin", "--session-id", "demo-session-2")
    run.baton("session", "end", "demo-session-2", "--handoff-steps", "Write the replay test,Run the suite",
              "--handoff-failed", "In-memory state cache")
    run.say("Session 3 starts: bootstrap delivers the baton and claims it, exactly once.")
    first = run.baton("bootstrap", "--session-id", "demo-session-3", json_out=True)
    if not first.get("claimed"):
        raise ValidationFailed("demo: the first bootstrap did not claim the baton")
    emit(first["brief"].split("## Recent decisions")[0].rstrip())
    second = run.baton("bootstrap", "--session-id", "demo-session-4", json_out=True)
    if second.get("claimed"):
        raise ValidationFailed("demo: the baton was delivered twice")
    emit("A second bootstrap gets the standard brief: the baton was already claimed.")
