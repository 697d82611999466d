"""A refusal says where the requirement for signatures comes from, truthfully, in each case
(docs/sync.md, "Which signers apply"): the checked-out ``sync.require_signatures``, or what this
clone trusted before — while a checkout names no allowed signers, or while an untrusted change
turns the requirement off. Real git remotes, real ssh-keygen keys."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from baton.domain.policy_trust import REQUIRED_BY_KEPT_TRUST, REQUIRED_BY_SETTING, REQUIRED_BY_TRUST
from tests.cli_support import run
from tests.test_sync_signing import (  # noqa: F401 - ``team`` is a fixture
    _checkout,
    _write_sync,
    checkpoint,
    mallory_forges_alice,
    require_signatures,
    sync,
    team,
    writer,
)

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="needs OpenSSH's ssh-keygen")


def _refusal(capsys, clone) -> dict:
    code, out, _err = run(capsys, clone, "sync", "--json")
    assert code == 3, out
    (refused,) = json.loads(out)["refused"]
    return refused


def test_a_refusal_under_the_checked_out_setting_names_the_setting(capsys, team, tmp_path):
    _remote, a, b, _keys = team
    mallory_forges_alice(capsys, team, tmp_path)
    require_signatures(b)
    refused = _refusal(capsys, b)
    assert refused["feed"] == writer(a) and refused["message"].endswith(f"({REQUIRED_BY_SETTING})")


def test_a_refusal_on_a_checkout_naming_no_signers_says_the_requirement_is_the_trusted_one(capsys, team, tmp_path):
    _remote, a, b, _keys = team
    mallory_forges_alice(capsys, team, tmp_path)
    require_signatures(b)
    _checkout(b, "both")  # a branch cut before the team signed: no file, no sync section
    refused = _refusal(capsys, b)
    assert refused["feed"] == writer(a)
    assert REQUIRED_BY_KEPT_TRUST in refused["message"] and REQUIRED_BY_SETTING not in refused["message"]


def test_a_refusal_while_an_untrusted_change_turns_signatures_off_says_the_requirement_is_the_trusted_one(
        capsys, team):
    _remote, a, b, _keys = team
    subprocess.run(["git", "-C", str(a), "config", "--unset", "user.signingkey"], check=True)
    checkpoint(capsys, a, "unsigned work")
    sync(capsys, a)
    require_signatures(b)
    _write_sync(b, require_signatures=False)  # a checked-out branch turns them off; not trusted here
    refused = _refusal(capsys, b)
    assert refused["feed"] == writer(a) and refused["kind"] == "unsigned"
    assert REQUIRED_BY_TRUST in refused["message"] and REQUIRED_BY_SETTING not in refused["message"]


def test_this_clones_own_unsigned_feed_held_back_on_a_checkout_naming_no_signers_says_why_truthfully(capsys, team):
    _remote, _a, b, _keys = team
    require_signatures(b)
    _checkout(b, "both")
    subprocess.run(["git", "-C", str(b), "config", "--unset", "user.signingkey"], check=True)
    checkpoint(capsys, b, "bob's work")
    refused = _refusal(capsys, b)
    assert refused["feed"] == writer(b) and refused["message"].startswith(REQUIRED_BY_KEPT_TRUST)
