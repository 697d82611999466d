"""docs/hooks.md's Cursor section names the hooks a default ``install-hooks --harness cursor``
writes, and how to get the prompt hook it leaves out (tester26 T7)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.conftest import run_baton

HOOKS_MD = Path(__file__).resolve().parents[1] / "docs" / "hooks.md"


def _cursor_section() -> str:
    text = HOOKS_MD.read_text()
    return text.split("\n## Cursor\n", 1)[1].split("\n## ", 1)[0]


def _default_install_sentence() -> str:
    flat = " ".join(_cursor_section().split())
    found = re.search(r"A default `install-hooks --harness cursor` writes [^.]*\.", flat)
    assert found, "the Cursor section says what a default install writes"
    return found.group(0)


def test_the_cursor_section_names_the_hooks_a_default_install_writes(project):
    r = run_baton("install-hooks", "--harness", "cursor", "--command", "baton", "--project", str(project))
    assert r.returncode == 0, r.stderr
    written = set(json.loads((project / ".cursor" / "hooks.json").read_text())["hooks"])

    named = set(re.findall(r"`([a-z][A-Za-z]+)`", _default_install_sentence()))

    assert named - {"beforeSubmitPrompt"} == written
    assert "beforeSubmitPrompt" not in written


def test_the_cursor_section_names_the_install_that_adds_the_prompt_hook(project):
    flat = " ".join(_cursor_section().split())
    assert "`install-hooks --harness cursor --events all`" in flat
    r = run_baton("install-hooks", "--harness", "cursor", "--command", "baton", "--events", "all",
                  "--project", str(project))
    assert r.returncode == 0, r.stderr
    assert "beforeSubmitPrompt" in json.loads((project / ".cursor" / "hooks.json").read_text())["hooks"]
