"""Whether signatures are required, asked by every brief that lists another writer's record
(``baton.policy.signing_required``): with no widening to judge and no trust record for this
root, the checked-out setting alone decides and the trust rules (``baton.domain.policy_trust``)
are not loaded; otherwise the answer is ``signing_in_force``'s, the trust rules loaded."""

from __future__ import annotations

import subprocess
import sys

import pytest

from baton.app import Baton
from baton.domain.policy_trust import REQUIRED_BY_KEPT_TRUST, REQUIRED_BY_SETTING, TrustRecord
from baton.policy import here_place, signing_in_force, signing_required, write_trust_record


def _both(root, required: bool) -> tuple[tuple[bool, str], tuple[bool, str]]:
    with Baton.open(root) as app:
        paths, policy = app.project.paths, app.project.policy
        in_force = signing_in_force(paths, policy, required)
        return signing_required(paths, policy, required), (bool(in_force.required), str(in_force.required_by))


@pytest.mark.parametrize("required", [False, True])
def test_with_no_trust_record_the_setting_alone_decides(project, required):
    fast, full = _both(project, required)
    assert fast == full == (required, REQUIRED_BY_SETTING if required else "")


@pytest.mark.parametrize("required", [False, True])
def test_a_trust_record_that_required_signatures_keeps_them_required(project, required):
    with Baton.open(project) as app:
        paths = app.project.paths
        write_trust_record(paths, TrustRecord("d" * 64, here_place(paths), {}, "2026-12-07T00:00:00Z",
                                              {"require_signatures": True}))
    fast, full = _both(project, required)
    assert fast == full
    assert fast[0] is True and (fast[1] == REQUIRED_BY_SETTING if required else fast[1] == REQUIRED_BY_KEPT_TRUST)


def test_a_trust_record_that_did_not_require_signatures_leaves_the_setting_to_decide(project):
    with Baton.open(project) as app:
        paths = app.project.paths
        write_trust_record(paths, TrustRecord("d" * 64, here_place(paths), {}, "2026-12-07T00:00:00Z", None))
    fast, full = _both(project, False)
    assert fast == full == (False, "")


def test_with_no_trust_record_asking_loads_no_trust_rules(project):
    code = ("import sys; from baton.app import Baton; from baton.policy import signing_required\n"
            f"with Baton.open({str(project)!r}) as app:\n"
            "    print(signing_required(app.project.paths, app.project.policy, True))\n"
            "print('baton.domain.policy_trust' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split("\n")[:2] == [f"(True, {REQUIRED_BY_SETTING!r})", "False"]
