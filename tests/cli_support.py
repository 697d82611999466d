"""Drive the real command line in-process (``baton.cli.main``), as a user types it.

Tests written this way hold the CLI's behaviour — exit codes, printed text,
the ``--json`` shapes — whatever the modules behind it look like.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pty
import subprocess
import sys
from pathlib import Path
from typing import Any

from baton.cli import main


def run(capsys, project: Path, *args: str) -> tuple[int, str, str]:
    """``baton ARGS --project PROJECT``; returns (exit code, stdout, stderr)."""
    capsys.readouterr()  # drop anything printed before
    code = main([*args, "--project", str(project)])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, project: Path, *args: str, expect: int = 0) -> Any:
    """``baton ARGS --json --project PROJECT``, asserting the exit code; returns the parsed JSON."""
    code, out, err = run(capsys, project, *args, "--json")
    assert code == expect, (code, out, err)
    return json.loads(out)


def run_here(*args: str, cwd: Path) -> tuple[int, str, str]:
    """``baton ARGS`` typed in ``cwd``, run in this process (no capsys needed): for the steps
    that set a scene up, where a child process would prove nothing more; returns
    (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def forked_twice(capsys, project: Path, objective: str = "Parent objective here") -> tuple[str, list[str]]:
    """A parent P captured (title ``Parent``, ``objective``) and forked twice, ``redis`` and ``pg``:
    (P's id, the forks' ids)."""
    parent = run_json(capsys, project, "checkpoint", "create", "--no-input", "--title", "Parent",
                      "--objective", objective)["id"]
    forks = [run_json(capsys, project, "fork", parent, "--label", label)["id"] for label in ("redis", "pg")]
    return parent, forks


def ledger_size(project: Path) -> int:
    """Lines in every feed: what a refused command must leave unchanged."""
    return sum(len(p.read_bytes().splitlines()) for p in (project / ".baton" / "ledger").glob("*.jsonl"))


def on_a_terminal(*args: str, answer: bytes = b"", timeout: float = 120) -> tuple[int, bytes, bytes]:
    """Run ``baton ARGS`` in a child process with its standard input and error on
    a pseudo-terminal, as a person at one, with ``answer`` typed ahead; returns
    (exit code, what the terminal showed, standard output)."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "baton", *args], stdin=follower, stdout=subprocess.PIPE,
                            stderr=follower)
    os.close(follower)
    os.write(leader, answer)
    out, _ = proc.communicate(timeout=timeout)
    shown = b""
    try:
        while chunk := os.read(leader, 65536):
            shown += chunk
    except OSError:
        pass
    os.close(leader)
    return proc.returncode, shown, out
