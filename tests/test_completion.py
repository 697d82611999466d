"""``baton completion bash|zsh|fish``: scripts generated from the parser itself."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from baton.cli import build_parser
from baton.completion import completion_script

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
