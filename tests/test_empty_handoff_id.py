"""An empty handoff id is refused the same way by every command that takes
one: `resume ''` does not silently fall back to the latest handoff."""

from __future__ import annotations

import pytest

from tests.conftest import run_baton


@pytest.mark.parametrize("command", [["resume"], ["handoff", "show"], ["fork"], ["handoff", "ready"]])
@pytest.mark.parametrize("empty", ["", "  "])
def test_an_empty_handoff_id_exits_2_saying_one_is_required(project, command, empty):
    run_baton("checkpoint", "create", "--title", "t", "--objective", "o", "--project", str(project))
    r = run_baton(*command, empty, "--project", str(project))
    assert r.returncode == 2, r.stdout + r.stderr
    assert "a handoff id is required" in r.stderr


def test_resume_without_an_id_still_means_latest(project):
    run_baton("checkpoint", "create", "--title", "t", "--objective", "o", "--project", str(project))
    r = run_baton("resume", "--project", str(project))
    assert "a handoff id is required" not in r.stderr
