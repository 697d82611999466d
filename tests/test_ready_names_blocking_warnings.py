"""``handoff ready`` on a warned validation without ``--accept-warnings`` names
the warnings that block it; an advisory check (``quality``) is reported by
``validate`` but does not block on its own, so it is not listed."""

from __future__ import annotations

import json

from dulwich import porcelain

from tests.conftest import run_baton


def test_the_accept_warnings_refusal_lists_only_the_blocking_warnings(tmp_path):
    porcelain.init(str(tmp_path)).close()  # no commit yet: the repository check warns
    assert run_baton("init", cwd=tmp_path).returncode == 0
    item = json.dumps({"description": "x", "suggested_action": "do it", "acceptance_check": "it passes"})
    hid = json.loads(run_baton("checkpoint", "create", "--no-input", "--title", "t", "--objective", "o",
                               "--open-item", item, "--json", cwd=tmp_path).stdout)["id"]
    report = json.loads(run_baton("handoff", "validate", hid, "--json", cwd=tmp_path).stdout)
    warned = {c["name"] for c in report["report"]["checks"] if c["status"] == "warn"}
    assert warned == {"repository", "quality"}  # both warn; only repository blocks
    r = run_baton("handoff", "ready", hid, cwd=tmp_path)
    assert r.returncode == 3
    assert "validation warned (repository:" in r.stderr
    assert "quality" not in r.stderr
