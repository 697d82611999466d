"""``baton handoff show``'s record keeps the freshness found at validation; what it is now
is given beside it (docs/cli.md ``handoff show``): ``--json`` has the live ``freshness``, as
``resume --json`` does, and the json and yaml views say on stderr that the recorded block is not now.
"""

from __future__ import annotations

import json

from tests.cli_support import run, run_json
from tests.handoff_support import git_commit, git_init


def _validated_then_moved(capsys, project) -> str:
    git_init(project, {"src/app.py": "x = 1\n"})
    hid = run_json(capsys, project, "checkpoint", "create", "--no-input", "--title", "t", "--objective", "o",
                   "--artifact", "src/app.py", "--current-state", "half way",
                   "--open-item", json.dumps({"description": "next", "suggested_action": "do",
                                              "acceptance_check": "check"}))["id"]
    run_json(capsys, project, "handoff", "validate", hid)
    git_commit(project, {"src/app.py": "x = 2\n"})
    return hid


def test_show_json_gives_the_live_freshness_beside_the_recorded_one(capsys, project):
    hid = _validated_then_moved(capsys, project)
    shown = run_json(capsys, project, "handoff", "show", hid)
    assert shown["handoff"]["validation"]["freshness"]["state"] == "fresh"
    assert shown["freshness"]["state"] != "fresh"


def test_the_record_view_says_its_recorded_freshness_is_not_now(capsys, project):
    hid = _validated_then_moved(capsys, project)
    code, out, err = run(capsys, project, "handoff", "show", hid)
    assert code == 0 and json.loads(out)["validation"]["freshness"]["state"] == "fresh"
    assert "validation.freshness is as recorded when the handoff was validated" in err
    assert "not now: now it is stale" in err


def test_a_record_never_validated_gets_no_note(capsys, project):
    git_init(project)
    hid = run_json(capsys, project, "checkpoint", "create", "--no-input", "--title", "t", "--objective", "o")["id"]
    code, _, err = run(capsys, project, "handoff", "show", hid)
    assert code == 0 and "validation.freshness" not in err
