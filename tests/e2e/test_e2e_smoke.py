"""The suite's own plumbing: the pinned harnesses install and start."""

from __future__ import annotations

import pytest

from tests.e2e.common import PINNED, harness_program, run_harness


@pytest.mark.parametrize("name", sorted(PINNED))
def test_each_pinned_harness_installs_and_reports_its_version(name, tmp_path):
    program = harness_program(name)
    done = run_harness([str(program), "--version"], cwd=tmp_path, env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
                       timeout=120)
    assert done.returncode == 0, done.stderr
    assert PINNED[name][1] in done.stdout
