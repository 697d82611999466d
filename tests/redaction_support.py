"""What the redaction tests share: the default policy, what redacting a text under it
did (the cleaned text and the rules that fired), what a reader still sees of a redacted
text, and the redaction of an earlier commit (``redaction_at``), to hold this one to.

SYNTHETIC SECRETS ONLY: nothing here holds a credential.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from baton.domain.redaction import MARKER, RedactionPolicy, redact_payload

POLICY = RedactionPolicy()


def redacted(text: str) -> tuple[str, set[str]]:
    """``text`` redacted under ``POLICY``, and the names of the rules that fired."""
    outcome = redact_payload(text, POLICY)
    return outcome.payload, {r.rule for r in outcome.redactions}


def next_start(project: Path, session_id: str) -> subprocess.CompletedProcess[str]:
    """A new Claude Code session's SessionStart hook in ``project`` (in its own process, no
    hook server), as a user's next session runs it: its brief is in the JSON on stdout."""
    hook = {"session_id": session_id, "cwd": str(project), "hook_event_name": "SessionStart",
            "source": "startup", "transcript_path": "/dev/null"}
    return subprocess.run([sys.executable, "-m", "baton", "hook", "claude-code", "SessionStart"],
                          input=json.dumps(hook), capture_output=True, text=True, cwd=project, timeout=120,
                          env={**os.environ, "BATON_HOOK_SERVER": "0"})


def kept_whole(text: str) -> bool:
    """Whether redaction leaves ``text`` as it is: no rule fired, not a character changed."""
    return redacted(text) == (text, set())


def gone_for_good(text: str, token: str) -> None:
    """``token`` is not in ``text`` redacted, and redacting that again changes nothing."""
    once = redact_payload(text, POLICY)
    assert token not in once.payload
    again = redact_payload(once.payload, POLICY)
    assert again.payload == once.payload and again.redactions == ()


def in_clear(text: str) -> str:
    """What a reader still sees: the text without its markers (each a cut)."""
    return "\0".join(MARKER.split(text))


ROOT = Path(__file__).resolve().parent.parent

_WORKER = """
import sys, json
from baton.domain.redaction import RedactionPolicy, redact_payload
policy = RedactionPolicy()
for line in sys.stdin:
    print(json.dumps(redact_payload(json.loads(line), policy).payload), flush=True)
"""


def redaction_at(commit: str, folder: Path) -> Iterator[Callable[[str], str]]:
    """``redact_payload`` of ``commit``, in a process of its own (its ``baton`` package extracted
    from git into ``folder``), asked one text at a time; the test is skipped where ``commit`` is not
    in this checkout's git history. A module fixture's body: ``yield from redaction_at(…)``."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "baton"], capture_output=True)
    if archive.returncode != 0:
        pytest.skip(f"main's redaction ({commit}) is not in this checkout's git history")
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    worker = subprocess.Popen([sys.executable, "-c", _WORKER], cwd=folder, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env={"PYTHONPATH": str(folder)})

    def redact(text: str) -> str:
        assert worker.stdin is not None and worker.stdout is not None
        worker.stdin.write(json.dumps(text) + "\n")
        worker.stdin.flush()
        cleaned: str = json.loads(worker.stdout.readline())
        return cleaned

    assert redact("x") == "x"
    yield redact
    worker.stdin.close()  # type: ignore[union-attr]
    worker.wait(timeout=30)
