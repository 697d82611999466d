"""A session whose agent ``cd``'d into a nested git repository (a submodule, a vendored
clone) still has its hooks served by the project it began in: the harness names that
project for every hook (Claude Code's ``$CLAUDE_PROJECT_DIR``, Gemini CLI's
``$GEMINI_PROJECT_DIR``), and the hook runs in it, while the payload's ``cwd`` follows
the agent. Through the hook command lines ``install-hooks`` writes, run by ``sh``
with harness-shaped payloads, as the harness runs them; real git for the submodule.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.cli_support import run_here


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", "-c", "user.email=a@example.com", "-c", "user.name=A", "-c", "protocol.file.allow=always",
                    *args], cwd=cwd, check=True, capture_output=True)


def here_json(*args: str, cwd: Path) -> dict:
    code, out, err = run_here(*args, "--json", cwd=cwd)
    assert code == 0, (code, out, err)
    return json.loads(out)


@pytest.fixture
def root(tmp_path) -> Path:
    """A Baton project whose repository has a submodule at ``lib`` (itself a git repository)."""
    origin, top = tmp_path / "origin", tmp_path / "proj"
    for repo in (origin, top):
        repo.mkdir()
        git("init", "-q", "-b", "main", cwd=repo)
        (repo / "f").write_text("1\n")
        git("add", "f", cwd=repo)
        git("commit", "-qm", "c1", cwd=repo)
    git("submodule", "add", "-q", origin.as_uri(), "lib", cwd=top)
    git("commit", "-qm", "submodule", cwd=top)
    here_json("init", cwd=top)
    for harness in ("claude-code", "gemini-cli"):
        here_json("install-hooks", "--harness", harness, cwd=top)
    return top


def hook_line(root: Path, harness: str, event: str) -> str:
    settings = root / (".claude" if harness == "claude-code" else ".gemini") / "settings.json"
    groups = json.loads(settings.read_text())["hooks"][event]
    return next(h["command"] for group in groups for h in group["hooks"] if " hook " in h["command"])


def fire(root: Path, harness: str, event: str, payload: dict, *, env: dict[str, str], run_in: Path) -> str:
    """The installed hook line, run by ``sh`` in ``run_in`` with ``env`` set, as the harness runs it."""
    done = subprocess.run(["sh", "-c", hook_line(root, harness, event)], input=json.dumps(payload), cwd=run_in,
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr
    return done.stdout


def claude(event: str, session: str, cwd: Path, **more: str) -> dict:
    return {"session_id": session, "transcript_path": "/t", "cwd": str(cwd), "hook_event_name": event, **more}


def ready_handoff(root: Path, session: str) -> str:
    made = here_json("checkpoint", "create", "--no-input", "--session", session, "--title", "t", "--objective", "o",
                     "--current-state", "s", "--completed", "c", "--open-item",
                     '{"description":"next","suggested_action":"a","acceptance_check":"b"}', cwd=root)
    here_json("handoff", "validate", made["id"], cwd=root)
    here_json("handoff", "ready", made["id"], cwd=root)
    return made["id"]


def pending(root: Path) -> list[dict]:
    return here_json("session", "handoff", "--all", cwd=root)["items"]


def test_a_claude_session_that_ended_in_a_submodule_leaves_its_baton_in_the_project_it_began_in(root):
    env = {"CLAUDE_PROJECT_DIR": str(root)}
    fire(root, "claude-code", "SessionStart", claude("SessionStart", "sm-1", root, source="startup"),
         env=env, run_in=root)
    ready_handoff(root, "sm-1")
    fire(root, "claude-code", "SessionEnd", claude("SessionEnd", "sm-1", root / "lib", reason="prompt_input_exit"),
         env=env, run_in=root)
    assert [item["sessionId"] for item in pending(root)] == ["sm-1"]


def test_a_clear_in_a_submodule_delivers_the_projects_brief_not_advice_to_init_the_submodule(root):
    env = {"CLAUDE_PROJECT_DIR": str(root)}
    fire(root, "claude-code", "SessionStart", claude("SessionStart", "sm-1", root, source="startup"),
         env=env, run_in=root)
    ready_handoff(root, "sm-1")
    fire(root, "claude-code", "SessionEnd", claude("SessionEnd", "sm-1", root, reason="clear"), env=env, run_in=root)
    out = fire(root, "claude-code", "SessionStart", claude("SessionStart", "sm-2", root / "lib", source="clear"),
               env=env, run_in=root / "lib")
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "Active Session Handoff" in context and "baton init" not in context
    assert not (root / "lib" / ".baton").exists()


def test_a_nested_baton_project_does_not_take_the_end_of_a_session_begun_in_the_enclosing_one(root):
    here_json("init", cwd=root / "lib")
    env = {"CLAUDE_PROJECT_DIR": str(root)}
    fire(root, "claude-code", "SessionStart", claude("SessionStart", "sm-1", root, source="startup"),
         env=env, run_in=root)
    ready_handoff(root, "sm-1")
    fire(root, "claude-code", "SessionEnd", claude("SessionEnd", "sm-1", root / "lib", reason="other"),
         env=env, run_in=root / "lib")
    assert [item["sessionId"] for item in pending(root)] == ["sm-1"]
    assert pending(root / "lib") == []


def test_without_a_project_dir_the_hooks_own_folder_names_the_project(root):
    fire(root, "claude-code", "SessionStart", claude("SessionStart", "sm-1", root, source="startup"),
         env={}, run_in=root)
    ready_handoff(root, "sm-1")
    fire(root, "claude-code", "SessionEnd", claude("SessionEnd", "sm-1", root / "lib", reason="other"),
         env={}, run_in=root)
    assert [item["sessionId"] for item in pending(root)] == ["sm-1"]


def test_gemini_clis_project_dir_names_the_project(root):
    env = {"GEMINI_PROJECT_DIR": str(root)}
    payload = {"session_id": "g-1", "transcript_path": "/t", "cwd": str(root), "hook_event_name": "SessionStart",
               "source": "startup"}
    fire(root, "gemini-cli", "SessionStart", payload, env=env, run_in=root)
    ready_handoff(root, "g-1")
    end = {**payload, "cwd": str(root / "lib"), "hook_event_name": "SessionEnd", "reason": "exit"}
    fire(root, "gemini-cli", "SessionEnd", end, env=env, run_in=root / "lib")
    assert [item["sessionId"] for item in pending(root)] == ["g-1"]


def test_a_project_dir_the_sessions_folder_is_outside_of_is_not_opened(root, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    here_json("init", cwd=other)
    fire(root, "claude-code", "SessionStart", claude("SessionStart", "sm-1", root, source="startup"),
         env={"CLAUDE_PROJECT_DIR": str(other)}, run_in=root)
    ready_handoff(root, "sm-1")
    fire(root, "claude-code", "SessionEnd", claude("SessionEnd", "sm-1", root, reason="other"),
         env={"CLAUDE_PROJECT_DIR": str(other)}, run_in=root)
    assert [item["sessionId"] for item in pending(root)] == ["sm-1"]
    assert pending(other) == []
