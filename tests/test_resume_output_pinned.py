"""``baton resume latest`` prints the same text and ``--json`` whatever its code path.

Pinned byte for byte (after the run's own ids, commit ids, times and paths are
named in order of appearance) for varied projects: a record with every section,
unicode and a redacted secret; the same record after the head moved and an
artifact changed (the history walk, through a pack and loose objects); a session baton named by its id; a project
outside git; a project whose only ready handoff is on another branch (``latest``'s notice); a
superseded handoff named by its id (the refusal, text and ``--json``). The files were written by the implementation before the hook
path's ``resume`` was made lighter (issue 27): any change to what a user reads
shows here. ``BATON_UPDATE_GOLDEN=1`` rewrites them.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.app_support import amend_handoff, end_session, promote_handoff, validate_handoff_command
from tests.conftest import run_baton
from tests.handoff_support import git_commit, git_init

GOLDEN = Path(__file__).parent / "golden" / "resume-pinned"

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"

FILES = {"src/app.py": "def handler(token):\n    return token\n", "README.md": "Résumé: 日本語 ✓\n"}


def every_section(commit: str | None = None) -> dict:
    """A capture payload with every section the brief can show, unicode, and a secret to redact;
    with ``commit``, evidence naming it."""
    body = {
        "work": {"title": "Härden the request handler — 日本語 ✓",
                 "objective": "Replayed tokens are rejected (naïve check replaced) and a test proves it",
                 "scope": ["src/**"], "constraints": ["Do not change the public API", "No new dependencies"],
                 "definition_of_done": ["Replay test passes", "Full suite passes"]},
        "summary": {"current_state": "The handler checks the token; the replay test is half written 🚧.",
                    "completed": ["Refactored the token check", "Wrote the helper's unit tests"],
                    "in_progress": ["Writing the replay test"],
                    "discoveries": ["The provider echoes the nonce once", f"The old config held {SECRET}"],
                    "why_it_matters": "A replayed request must never create a second session."},
        "decisions": [{"id": "D-001", "decision": "Compare tokens in constant time",
                       "rationale": "Avoid timing side channels", "evidence_ids": ["E-001"],
                       "alternatives_considered": ["Plain equality"]},
                      {"id": "D-002", "decision": "Keep the nonce store in the database",
                       "rationale": "Workers do not share memory"}],
        "failed_attempts": [{"id": "F-001", "approach": "Cache seen tokens in process memory",
                             "outcome": "abandoned", "reason": "Workers do not share memory",
                             "avoid_repeating": True}],
        "artifacts": [{"path": "src/app.py", "role": "modified", "description": "The handler"},
                      {"path": "README.md", "role": "read"}],
        "evidence": [{"id": "E-001", "type": "test", "claim": "The helper's tests pass", "ref": "pytest tests/unit",
                      "result": "pass"},
                     {"id": "E-002", "type": "observation", "claim": "The provider sends the nonce once",
                      "result": "observed"}],
        "risks": [{"description": "The nonce table grows without bound", "severity": "medium",
                   "mitigation": "Expire rows after ten minutes"},
                  {"description": "Clock skew", "severity": "low"}],
        "open_questions": ["Should expired nonces be logged?"],
        "open_items": [{"id": "O-001", "priority": "high", "description": "Write the replay test",
                        "suggested_action": "Replay one request twice, then run the suite",
                        "acceptance_check": "The second request is rejected"},
                       {"id": "O-002", "priority": "low", "description": "Document the nonce table — ça va"}],
    }
    if commit is not None:
        body["evidence"].append({"id": "E-003", "type": "commit", "claim": "The helper is committed", "ref": commit,
                                 "result": "pass"})
    return body


def _ready_id(root: Path) -> str:
    """The one ready handoff's id."""
    return json.loads(run_baton("resume", "latest", "--json", cwd=root, env={"BATON_HOOK_SERVER": "0"}).stdout)["id"]


def _ready(root: Path, body: dict) -> str:
    from baton.app import Baton

    with Baton.open(root) as app:
        handoff_id = app.capture(body).handoff_id
    validate_handoff_command(root, handoff_id)
    promote_handoff(root, handoff_id, accept_warnings="pinned")
    return handoff_id


def build(kind: str, root: Path) -> list[str]:
    """The project ``kind`` in ``root``; the words after ``resume`` to pin."""
    if kind == "no-git":
        for rel, text in FILES.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
        _ready(root, every_section())
        return ["latest"]
    head = git_init(root, FILES)
    _ready(root, every_section(head))
    if kind == "stale":
        from dulwich import porcelain

        porcelain.repack(str(root))  # the captured commit packed, the ones after it loose
        git_commit(root, {"src/app.py": "def handler(token):\n    return check(token)\n"}, message="moved on")
        git_commit(root, {"docs/notes.md": "more\n"}, message="and on")
    if kind == "other-branch":  # none ready on this branch: the project's newest, with a notice
        subprocess.run(["git", "checkout", "-q", "-b", "elsewhere"], cwd=root, check=True)
    if kind == "superseded":  # amended and the amendment made ready: resuming the first is refused
        from baton.cli_input import ContentOptions

        first = _ready_id(root)
        amended = amend_handoff(root, first, content=ContentOptions(discoveries=["The nonce is per request"]))
        validate_handoff_command(root, amended.handoff_id)
        promote_handoff(root, amended.handoff_id, accept_warnings="pinned")
        return ["latest", first]
    if kind == "baton":
        left = end_session(root, "s1", {"nextSteps": ["carry on with the replay test — ✓"],
                                        "openQuestions": [f"Is the key {SECRET} still in the env?"]})
        return ["latest", left.to_json()["handoffId"]]
    return ["latest"]


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_SHA = re.compile(r"(?<![0-9a-f])[0-9a-f]{40}(?![0-9a-f])")
_HEX12 = re.compile(r"(?<![0-9a-f])[0-9a-f]{12}(?![0-9a-f])")
_OWNER = re.compile(r'"owner": "[^"]*"')
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)")


def normalised(text: str, root: Path) -> str:
    """The run's own values named in order of appearance: ids (and their short forms), commit ids
    (and their 12- and 7-digit forms; a head shown only in short), times, the project's path, its writer
    and an event's git identity (``owner``)."""
    text = text.replace(str(root.resolve()), "<root>").replace(str(root), "<root>")
    local = root / ".baton" / "local.json"
    if local.exists():  # the clone's writer id, and who made a record ready (``readied``: this machine's git identity)
        text = text.replace(json.loads(local.read_text())["writer"], "<writer>")
    text = _OWNER.sub('"owner": "<owner>"', text)
    for n, uuid in enumerate(dict.fromkeys(_UUID.findall(text)), 1):
        text = text.replace(uuid, f"<id{n}>").replace(uuid.replace("-", "")[-8:], f"<id{n}:short>")
    for n, sha in enumerate(dict.fromkeys(_SHA.findall(text)), 1):
        text = text.replace(sha, f"<commit{n}>").replace(sha[:12], f"<commit{n}:12>").replace(sha[:7], f"<commit{n}:7>")
    for n, short in enumerate(dict.fromkeys(_HEX12.findall(text)), 1):  # a head shown only in short
        text = text.replace(short, f"<head{n}:12>")
    return _TIME.sub("<time>", text)


def check(name: str, got: str) -> None:
    path = GOLDEN / name
    if os.environ.get("BATON_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(exist_ok=True)
        path.write_text(got, encoding="utf-8")
    assert path.exists(), f"{name} missing: run with BATON_UPDATE_GOLDEN=1 to create it"
    assert path.read_text(encoding="utf-8") == got, f"{name} differs from what resume printed before"


@pytest.mark.parametrize("kind", ["every-section", "stale", "baton", "no-git", "other-branch", "superseded"])
def test_resume_prints_what_it_printed_before(tmp_path, kind):
    """Every section of the brief (decisions, evidence, failed attempts, open items, risks,
    artifacts, freshness, a baton's questions, ``latest``'s notice), and a refusal's words."""
    from tests.app_support import init_project

    root = tmp_path / "p"
    root.mkdir()
    init_project(root)
    for n, token in enumerate(build(kind, root)):
        for json_flag in ([], ["--json"]):
            r = run_baton("resume", token, *json_flag, cwd=root, env={"BATON_HOOK_SERVER": "0"})
            refused = kind == "superseded" and n == 1
            assert r.returncode == (4 if refused else 0), r.stderr
            suffix = f"{n}.json" if json_flag else f"{n}.txt"
            check(f"{kind}-{suffix}", normalised(r.stdout + r.stderr if refused else r.stdout, root))
