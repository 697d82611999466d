"""``baton completion bash|zsh|fish``: scripts generated from the parser itself."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from baton.cli import build_parser
from baton.completion import completion_script
from tests.conftest import run_baton

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def _bash_complete(*words: str) -> list[str]:
    script = completion_script(build_parser(), "bash").script
    line = " ".join(f"'{w}'" for w in words)
    program = f'{script}\nCOMP_WORDS=(baton {line}); COMP_CWORD={len(words)}; _baton; echo "${{COMPREPLY[@]}}"'
    return subprocess.run(["bash", "-c", program], capture_output=True, text=True, check=True).stdout.split()


def test_bash_completes_commands():
    assert _bash_complete("inst") == ["install-hooks"]


def test_bash_completes_subcommands_and_their_options():
    assert "validate" in _bash_complete("handoff", "")
    assert _bash_complete("session", "end", "s1", "--handoff-s") == ["--handoff-steps"]


def test_bash_completes_the_choices_of_an_option_and_of_an_argument():
    assert _bash_complete("install-hooks", "--harness", "") == ["claude-code", "codex", "gemini-cli", "cursor"]
    assert _bash_complete("hook", "g") == ["gemini-cli"]


def test_zsh_uses_the_bash_function_through_bashcompinit():
    script = completion_script(build_parser(), "zsh").script
    assert script.startswith("#compdef baton") and "bashcompinit" in script and "complete -F _baton baton" in script


def test_fish_names_every_command_and_option():
    script = completion_script(build_parser(), "fish").script
    assert "-a 'init log" in script and "install-hooks" in script
    assert "-l harness -r -a 'claude-code codex gemini-cli cursor'" in script


def test_the_command_prints_the_script(capsys):
    from baton.cli import main

    assert main(["completion", "bash"]) == 0
    assert "complete -F _baton baton" in capsys.readouterr().out


def _bash_complete_in(project, *words: str) -> list[str]:
    """The same, run in ``project`` with this checkout's ``baton`` on PATH (the scripts ask it for values)."""
    import os
    import sys

    script = completion_script(build_parser(), "bash").script
    line = " ".join(f"'{w}'" for w in words)
    program = f'{script}\nCOMP_WORDS=(baton {line}); COMP_CWORD={len(words)}; _baton; echo "${{COMPREPLY[@]}}"'
    env = {**os.environ, "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")}
    return subprocess.run(["bash", "-c", program], capture_output=True, text=True, check=True, cwd=project,
                          env=env).stdout.split()


def _one_baton(project):
    from tests.app_support import end_session

    end_session(project, "s1", handoff={"nextSteps": ["Write the test"]}, owner="alice", branch="feat-x")


def test_bash_completes_handoff_ids_and_latest_where_a_command_takes_an_id(project):
    from baton.domain.short_ids import short_id
    from tests.app_support import list_handoffs

    _one_baton(project)
    [row] = list_handoffs(project, kind="all").rows
    assert _bash_complete_in(project, "resume", "") == ["latest", short_id(row.id)]
    assert _bash_complete_in(project, "handoff", "show", short_id(row.id)[:3]) == [short_id(row.id)]
    assert "latest" in _bash_complete_in(project, "session", "handoff", "--from", "")


def test_bash_offers_resume_only_the_handoffs_it_takes_not_drafts(project):
    from baton.domain.short_ids import short_id
    from tests.app_support import list_handoffs

    _one_baton(project)  # a session baton's record: a draft resume still reads
    run_baton("checkpoint", "create", "--title", "plain draft", "--objective", "o", "--project", str(project))
    rows = list_handoffs(project, kind="all").rows
    draft = next(r for r in rows if not r.baton)
    baton = next(r for r in rows if r.baton)
    offered = _bash_complete_in(project, "resume", "")
    assert short_id(draft.id) not in offered and short_id(baton.id) in offered
    assert short_id(draft.id) in _bash_complete_in(project, "handoff", "show", "")


def test_bash_completes_owners_and_branches_from_the_project(project):
    _one_baton(project)
    assert _bash_complete_in(project, "bootstrap", "--owner", "") == ["alice"]
    assert _bash_complete_in(project, "bootstrap", "--branch", "") == ["feat-x"]


def test_outside_a_project_a_tab_offers_no_values_and_prints_no_error(tmp_path):
    assert _bash_complete_in(tmp_path, "resume", "") == []


def test_words_of_an_unknown_kind_are_refused(baton_cli, project):
    assert baton_cli("completion", "--words", "colours", cwd=project).returncode == 2
