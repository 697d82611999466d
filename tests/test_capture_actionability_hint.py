"""A capture whose open items validation will find none actionable (plain text:
a description alone, the work not completed) says so at capture, not only at
validation: a hint, and on the command line the amend that fixes it."""

from __future__ import annotations

import json

from tests.conftest import run_baton
from tests.handoff_support import baton_json, git_init

ACTIONABLE = json.dumps({"description": "d", "suggested_action": "s", "acceptance_check": "a"})


def test_a_capture_with_a_plain_text_open_item_says_validation_will_fail_it(project):
    git_init(project)
    done = run_baton("checkpoint", "create", "--no-input", "--title", "T", "--objective", "O",
                     "--open-item", "patch parser", "--project", str(project))
    assert done.returncode == 0, done.stderr
    assert "hint: open_items: no open item has both suggested_action and acceptance_check" in done.stdout
    assert "so validation will fail its actionability check" in done.stdout
    assert "--open-item '{\"description\": …, \"suggested_action\": …, \"acceptance_check\": …}'" in done.stderr


def test_a_capture_with_an_actionable_open_item_gives_no_actionability_hint(project):
    git_init(project)
    out = baton_json(project, "checkpoint", "create", "--no-input", "--title", "T", "--objective", "O",
                     "--open-item", ACTIONABLE, "--open-item", "also this")
    assert not [hint for hint in out["hints"] if "actionability" in hint]
