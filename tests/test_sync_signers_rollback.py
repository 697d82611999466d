"""A branch cut before a key rotation carries an older allowed-signers file: trusting it must
never roll this clone's trust back silently (docs/sync.md, "Which signers apply").

The scene, with real ``ssh-keygen`` keys and real ``git``: Alice's clone requires signatures;
Bob's compromised key was rotated on ``main`` after ``old-feature`` was cut; Alice trusted the
signers on ``main`` and then checks out ``old-feature``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from baton.app import Baton
from tests.cli_support import run_here

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="needs OpenSSH's ssh-keygen")


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=Alice", "-c", "user.email=alice@ex.com", *args], cwd=cwd,
                          check=True, capture_output=True, text=True).stdout


def key(keys: Path, name: str) -> str:
    keys.mkdir(exist_ok=True)
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(keys / name)], check=True)
    return " ".join((keys / f"{name}.pub").read_text().split()[:2])


def show(root: Path) -> dict:
    code, out, err = run_here("policy", "show", "--json", "--project", str(root), cwd=root)
    assert code == 0, err
    return json.loads(out)


def trust(root: Path, *flags: str) -> tuple[int, str, str]:
    return run_here("policy", "trust", "--digest", show(root)["trust"]["digest"], *flags, "--project", str(root),
                    cwd=root)


def applied_keys(root: Path) -> list[str]:
    """The key blobs of the signer lines ``sync`` checks feeds against here."""
    data = show(root)
    lines = data["policy"]["allowed_signers"]
    if lines is None:
        lines = data["trust"]["settings"][".baton/allowed_signers"]["allowed_signers"]
    return [line.split()[-1] for line in lines]


@pytest.fixture(scope="module")
def rotated_template(tmp_path_factory) -> Path:
    made = tmp_path_factory.mktemp("rotated")
    keys = made / "keys"
    alice, old, new = key(keys, "alice"), key(keys, "bob-old"), key(keys, "bob-new")
    root = made / "p"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "commit", "-q", "--allow-empty", "-m", "i")
    Baton.init(root)
    config = root / ".baton" / "config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "sync": {"require_signatures": True}}))
    signers = root / ".baton" / "allowed_signers"
    signers.write_text(f"alice@ex.com {alice}\nbob@ex.com {old}\n")
    git(root, "add", "-f", ".baton/config.json", ".baton/allowed_signers")
    git(root, "commit", "-qm", "signers v1")
    git(root, "branch", "old-feature")
    signers.write_text(f"alice@ex.com {alice}\nbob@ex.com {new}\n")
    git(root, "commit", "-qam", "rotate bob's compromised key")
    (made / "old").write_text(old.split()[1])
    (made / "new").write_text(new.split()[1])
    return made


@pytest.fixture
def rotated(tmp_path, rotated_template) -> tuple[Path, str, str]:
    """Alice's clone on ``main`` (trusted after the rotation), and Bob's old and new key blobs."""
    shutil.copytree(rotated_template, tmp_path, symlinks=True, dirs_exist_ok=True)
    root = tmp_path / "p"
    code, _, err = trust(root)
    assert code == 0, err
    return root, (tmp_path / "old").read_text(), (tmp_path / "new").read_text()


def test_on_main_after_the_rotation_the_new_key_applies(rotated):
    root, old, new = rotated
    assert new in applied_keys(root) and old not in applied_keys(root)


def test_on_a_branch_cut_before_the_rotation_the_trusted_new_key_keeps_applying(rotated):
    root, old, new = rotated
    git(root, "checkout", "-q", "old-feature")
    assert new in applied_keys(root) and old not in applied_keys(root)


def test_on_the_old_branch_every_command_says_it_is_behind_and_to_merge_not_to_trust(rotated):
    root, _, _ = rotated
    git(root, "checkout", "-q", "old-feature")
    code, _, err = run_here("handoff", "list", "--project", str(root), cwd=root)
    assert code == 0, err
    assert "behind the trusted signers" in err and "Merge or rebase it" in err
    assert "branch main" in err
    assert "baton policy trust" not in err


def test_policy_show_json_says_the_old_branch_is_behind_and_which_revoked_key_it_brings_back(rotated):
    root, old, _ = rotated
    git(root, "checkout", "-q", "old-feature")
    trust_state = show(root)["trust"]
    assert trust_state["reason"] == "behind"
    assert trust_state["revoked_keys_brought_back"] == [old]


def test_trusting_the_old_branchs_signers_is_refused_and_rolls_nothing_back(rotated):
    root, old, new = rotated
    git(root, "checkout", "-q", "old-feature")
    code, _, err = trust(root)
    assert code == 4
    assert "--roll-back-signers" in err and "older than the one trusted" in err
    git(root, "checkout", "-q", "main")
    assert show(root)["trust"]["state"] == "trusted"
    assert new in applied_keys(root) and old not in applied_keys(root)


def test_roll_back_signers_trusts_the_old_file_with_a_warning_naming_the_revoked_key(rotated):
    root, old, _ = rotated
    git(root, "checkout", "-q", "old-feature")
    code, out, err = trust(root, "--roll-back-signers")
    assert code == 0, err
    assert "WARNING: rolled the trusted signers back" in out and old in out
    assert old in applied_keys(root)


def test_a_branch_that_only_adds_a_key_is_not_taken_for_an_older_one(rotated, tmp_path):
    root, _, _ = rotated
    git(root, "checkout", "-q", "-b", "carol-joins")
    carol = key(tmp_path / "more", "carol")
    with (root / ".baton" / "allowed_signers").open("a") as signers:
        signers.write(f"carol@ex.com {carol}\n")
    assert show(root)["trust"]["reason"] == "changed"
    code, _, err = trust(root)
    assert code == 0, err
