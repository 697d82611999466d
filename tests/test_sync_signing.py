"""Signed feeds (docs/sync.md, "Signed feeds"): real ``ssh-keygen`` keys, a bare remote, real clones."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from dulwich import porcelain
from dulwich.objects import Blob
from dulwich.repo import Repo

from baton.app import Baton
from baton.sync.ledger_ref import read_feeds, with_signature, write_commit
from baton.sync.signing import NAMESPACE, signed_message
from tests.app_support import init_project
from tests.cli_support import run, run_json
from tests.policy_support import trust_policy
from tests.sync_support import REF, make_team, remote_feeds, take_writer_id

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="needs OpenSSH's ssh-keygen")


# -- keys, git config and the allowed-signers file ---------------------------------------------

def keygen(keys: Path, name: str) -> Path:
    """A new ed25519 key pair without a passphrase; returns the private key's path."""
    keys.mkdir(exist_ok=True)
    path = keys / name
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(path)], check=True)
    return path


def public(key: Path) -> str:
    return " ".join(key.with_suffix(".pub").read_text().split()[:2])


def sign_with(clone: Path, key: Path | str) -> None:
    """``git config user.signingkey KEY`` and ``gpg.format ssh`` in ``clone``, as a user sets them."""
    with Repo(str(clone)) as repo:
        config = repo.get_config()
        config.set((b"user",), b"signingkey", str(key).encode())
        config.set((b"gpg",), b"format", b"ssh")
        config.write_to_path()


def allow(*clones: Path, lines: list[str]) -> None:
    """The project's ``.baton/allowed_signers`` (committed and pulled in real life), in every clone,
    trusted there as its user does (``baton policy trust``: docs/sync.md, "Which signers apply")."""
    for clone in clones:
        (clone / ".baton" / "allowed_signers").write_text("".join(line + "\n" for line in lines))
        trust_policy(clone)


def require_signatures(clone: Path, value: bool = True) -> None:
    """``sync.require_signatures`` set in ``clone``'s config and trusted there (it is trusted with
    the allowed-signers file)."""
    path = clone / ".baton" / "config.json"
    config = json.loads(path.read_text())
    config.setdefault("sync", {})["require_signatures"] = value
    path.write_text(json.dumps(config))
    trust_policy(clone)


def writer(project: Path) -> str:
    return json.loads((project / ".baton" / "local.json").read_text())["writer"]


def feed_file(project: Path, feed: str) -> Path:
    return project / ".baton" / "ledger" / f"{feed}.jsonl"


def checkpoint(capsys, project: Path, title: str) -> str:
    return run_json(capsys, project, "checkpoint", "create", "--title", title, "--objective", f"{title} objective",
                    "--no-input")["id"]


def titles(capsys, project: Path) -> list[str]:
    return [r["title"] for r in run_json(capsys, project, "handoff", "list")["handoffs"]]


def sync(capsys, project: Path) -> tuple[int, dict]:
    code, out, _ = run(capsys, project, "sync", "--json")
    return code, json.loads(out)


@pytest.fixture
def team(tmp_path):
    """(remote, a, b, keys): alice signs on clone a, bob on clone b; both
    clones allow each key for its clone's writer id."""
    remote, a, b = make_team(tmp_path)
    keys = tmp_path / "keys"
    alice, bob = keygen(keys, "alice"), keygen(keys, "bob")
    sign_with(a, alice)
    sign_with(b, bob)
    allow(a, b, lines=team_signers(a, b, keys))
    return remote, a, b, keys


def team_signers(a: Path, b: Path, keys: Path, alice: str = "alice") -> list[str]:
    """The allowed-signers lines of the team: ``alice``'s key for a's writer, bob's for b's."""
    return [f"alice@example.com,{writer(a)} {public(keys / alice)}",
            f"bob@example.com,{writer(b)} {public(keys / 'bob')}"]


def mallory_clone(tmp_path: Path, remote: Path, impersonate: Path) -> Path:
    """A clone whose writer id and feed are copied from ``impersonate``'s:
    what it appends is correctly chained onto that writer's feed."""
    m = tmp_path / "m"
    porcelain.clone(str(remote), str(m), errstream=io.BytesIO()).close()
    init_project(m)
    for f in (m / ".baton" / "ledger").glob("*.jsonl"):
        f.unlink()
    (m / ".baton" / "index.sqlite").unlink()
    take_writer_id(impersonate, m)
    feed = writer(impersonate)
    shutil.copyfile(feed_file(impersonate, feed), feed_file(m, feed))
    return m


# -- signing ----------------------------------------------------------------------------------


def mallory_forges_alice(capsys, team, tmp_path: Path) -> Path:
    """Alice publishes her work; mallory, a clone of hers signing with his own
    key, appends an event to alice's feed and publishes it. Returns mallory's key."""
    remote, a, _, keys = team
    checkpoint(capsys, a, "alice's work")
    sync(capsys, a)
    m = mallory_clone(tmp_path, remote, a)
    mallory = keygen(keys, "mallory")
    sign_with(m, mallory)
    checkpoint(capsys, m, "FORGED by mallory as alice")
    sync(capsys, m)
    return mallory

def test_a_published_feed_head_is_signed_with_the_writers_ssh_key_over_its_writer_seq_hash_and_hlc(capsys, team):
    remote, a, _b, keys = team
    checkpoint(capsys, a, "signed work")
    code, result = sync(capsys, a)
    assert code == 0
    feed = remote_feeds(remote)[writer(a)]
    assert feed.signature is not None
    with Repo(str(remote)) as repo:
        signature = repo.object_store[feed.signature].data
    assert signature.startswith(b"-----BEGIN SSH SIGNATURE-----")
    allowed = keys / "check_allowed"
    allowed.write_text(f"{writer(a)} {public(keys / 'alice')}\n")
    (keys / "head.sig").write_bytes(signature)
    checked = subprocess.run(["ssh-keygen", "-Y", "verify", "-n", NAMESPACE, "-f", str(allowed), "-I", writer(a),
                              "-s", str(keys / "head.sig")], input=signed_message(writer(a), feed.head),
                             capture_output=True)
    assert checked.returncode == 0, checked.stderr
    assert result["signers"]["feeds"][writer(a)]["status"] == "good"


def test_the_other_clone_verifies_the_imported_head_and_shows_its_signer(capsys, team):
    _remote, a, b, _keys = team
    checkpoint(capsys, a, "signed work")
    sync(capsys, a)
    code, result = sync(capsys, b)
    assert code == 0 and result["imported"][writer(a)] >= 1
    verdict = result["signers"]["feeds"][writer(a)]
    assert verdict["status"] == "good"
    assert verdict["signer"] == f"alice@example.com,{writer(a)}"
    assert result["signers"]["flagged"] == {}


def test_verify_audit_and_the_status_api_show_each_writers_signer(capsys, team):
    _remote, a, b, _keys = team
    checkpoint(capsys, a, "signed work")
    sync(capsys, a)
    sync(capsys, b)
    code, out, _ = run(capsys, b, "verify", "--json")
    assert code == 0
    signers = {s["feed"]: s for s in json.loads(out)["signers"]}
    assert signers[writer(a)]["status"] == "good"
    assert signers[writer(a)]["signer"] == f"alice@example.com,{writer(a)}"
    assert signers[writer(a)]["key"].startswith("SHA256:")
    assert signers[writer(b)]["signer"] == f"bob@example.com,{writer(b)}"
    audited = {s["feed"]: s for s in run_json(capsys, b, "audit")["signers"]}
    assert audited[writer(a)]["signer"] == f"alice@example.com,{writer(a)}"
    status = {s["feed"]: s for s in run_json(capsys, b, "status")["signers"]}
    assert status[writer(a)]["status"] == "good"
    assert (status[writer(a)]["key"], status[writer(a)]["signedSeq"]) == (signers[writer(a)]["key"],
                                                                          signers[writer(a)]["signed_seq"])
    code, text, _ = run(capsys, b, "verify")
    assert f"signer of {writer(a)}: signed by alice@example.com" in text


def test_a_sync_with_nothing_new_signs_nothing_again_and_pushes_nothing(capsys, team):
    remote, a, _b, _keys = team
    checkpoint(capsys, a, "signed work")
    sync(capsys, a)
    signature = remote_feeds(remote)[writer(a)].signature
    code, again = sync(capsys, a)
    assert code == 0 and again["pushed"] is False
    assert remote_feeds(remote)[writer(a)].signature == signature


def test_a_sync_with_nothing_new_runs_no_program(capsys, team, monkeypatch):
    from baton.sync import signing as sync_signing

    _remote, a, b, _keys = team
    checkpoint(capsys, a, "signed work")
    for project in (a, b, a, b):
        sync(capsys, project)
    monkeypatch.setattr(sync_signing, "_run", lambda *args, **kwargs: pytest.fail("ssh-keygen was run"))
    for project in (a, b):
        code, result = sync(capsys, project)
        assert code == 0 and result["signers"]["feeds"][writer(a)]["status"] == "good"


def test_the_allowed_signers_file_is_let_through_baton_s_gitignore(tmp_path):
    project = tmp_path / "p"
    project.mkdir()
    init_project(project)
    (project / ".baton" / "allowed_signers").write_text("")
    subprocess.run(["git", "-C", str(project), "init", "-q"], check=True)
    ignored = subprocess.run(["git", "-C", str(project), "check-ignore", "-q", ".baton/allowed_signers"])
    assert ignored.returncode == 1  # not ignored


def test_a_new_head_is_signed_again(capsys, team):
    remote, a, b, _keys = team
    checkpoint(capsys, a, "first")
    sync(capsys, a)
    first = remote_feeds(remote)[writer(a)]
    checkpoint(capsys, a, "second")
    sync(capsys, a)
    second = remote_feeds(remote)[writer(a)]
    assert second.head.seq > first.head.seq and second.signature != first.signature
    code, result = sync(capsys, b)
    assert code == 0 and result["signers"]["feeds"][writer(a)]["status"] == "good"


# -- forged, re-signed, unsigned -------------------------------------------------------------------

def _forged_by_mallory(capsys, team, tmp_path):
    """Alice publishes her work; mallory, a clone of hers signing with his own
    key, appends an event to alice's feed and publishes it. Alice and bob, after."""
    remote, a, b, keys = team
    checkpoint(capsys, a, "alice's work")
    sync(capsys, a)
    m = mallory_clone(tmp_path, remote, a)
    sign_with(m, keygen(keys, "mallory"))
    checkpoint(capsys, m, "FORGED by mallory as alice")
    sync(capsys, m)
    return a, b


def test_a_forged_extension_signed_with_another_key_is_refused_when_signatures_are_required(capsys, team,
                                                                                          tmp_path):
    a, b = _forged_by_mallory(capsys, team, tmp_path)  # the remote: alice's feed ends in mallory's event
    require_signatures(b)
    before = titles(capsys, b)
    code, result = sync(capsys, b)
    assert code == 3
    [refused] = result["refused"]
    assert (refused["feed"], refused["side"], refused["kind"]) == (writer(a), "remote", "unknown_key")
    assert "FORGED by mallory as alice" not in titles(capsys, b)
    assert titles(capsys, b) == before


def test_a_forged_extension_by_a_listed_key_of_another_writer_is_a_wrong_signer(capsys, team, tmp_path):
    remote, a, b, keys = team
    checkpoint(capsys, a, "alice's work")
    sync(capsys, a)
    m = mallory_clone(tmp_path, remote, a)
    mallory = keygen(keys, "mallory")
    sign_with(m, mallory)
    allow(b, lines=team_signers(a, b, keys) + [f"mallory@example.com,mallory-box-* {public(mallory)}"])
    checkpoint(capsys, m, "FORGED by mallory as alice")
    sync(capsys, m)
    require_signatures(b)
    code, result = sync(capsys, b)
    assert code == 3
    [refused] = result["refused"]
    assert (refused["feed"], refused["kind"]) == (writer(a), "wrong_signer")
    assert "mallory@example.com" in refused["message"]


def test_without_require_signatures_a_forged_extension_is_imported_and_flagged(capsys, team, tmp_path):
    a, b = _forged_by_mallory(capsys, team, tmp_path)
    code, result = sync(capsys, b)
    assert code == 0
    assert result["signers"]["flagged"][writer(a)]["status"] == "unknown_key"
    assert "FORGED by mallory as alice" in titles(capsys, b)
    signers = {s["feed"]: s for s in json.loads(run(capsys, b, "verify", "--json")[1])["signers"]}
    assert signers[writer(a)]["status"] == "unknown_key"
    code, text, _ = run(capsys, b, "sync")
    assert f"FLAGGED remote feed {writer(a)}: unknown_key" in text


def _re_sign_on_remote(remote: Path, feed: str, key: Path) -> None:
    """Replace ``feed``'s ``head.sig`` on the remote with a signature of the same head by ``key``."""
    with Repo(str(remote)) as repo:
        sha = repo.refs[REF]
        feeds = read_feeds(repo, sha)
        copy = feeds[feed]
        signed = subprocess.run(["ssh-keygen", "-Y", "sign", "-n", NAMESPACE, "-f", str(key)],
                                input=signed_message(feed, copy.head), capture_output=True, check=True).stdout
        blob = Blob.from_string(signed)
        repo.object_store.add_object(blob)
        feeds[feed] = with_signature(repo, copy, blob.id)
        repo.refs[REF] = write_commit(repo, feeds, [sha], "re-signed\n", b"m <m@m>", 0)


def test_a_forged_extension_carrying_the_writers_earlier_signature_is_a_bad_signature(capsys, team, tmp_path):
    remote, a, b, keys = team
    checkpoint(capsys, a, "alice's work")
    sync(capsys, a)
    alices = remote_feeds(remote)[writer(a)].signature
    m = mallory_clone(tmp_path, remote, a)  # mallory has no key: she moves alice's signature onto her head
    checkpoint(capsys, m, "FORGED by mallory as alice")
    sync(capsys, m)
    with Repo(str(remote)) as repo:
        sha = repo.refs[REF]
        feeds = read_feeds(repo, sha)
        feeds[writer(a)] = with_signature(repo, feeds[writer(a)], alices)
        repo.refs[REF] = write_commit(repo, feeds, [sha], "moved signature\n", b"m <m@m>", 0)
    require_signatures(b)
    code, result = sync(capsys, b)
    assert code == 3
    [refused] = result["refused"]
    assert (refused["feed"], refused["kind"]) == (writer(a), "bad_signature")
    assert "FORGED by mallory as alice" not in titles(capsys, b)


def test_a_feed_re_signed_by_another_key_is_refused_when_signatures_are_required(capsys, team):
    remote, a, b, keys = team
    checkpoint(capsys, a, "alice's work")
    sync(capsys, a)
    _re_sign_on_remote(remote, writer(a), keygen(keys, "mallory"))
    require_signatures(b)
    code, result = sync(capsys, b)
    assert code == 3
    assert [(r["feed"], r["kind"]) for r in result["refused"]] == [(writer(a), "unknown_key")]
    assert not feed_file(b, writer(a)).exists()


@pytest.mark.parametrize("required", [False, True], ids=["flagged", "required"])
def test_a_replica_holding_the_good_signature_puts_it_back_over_a_re_signed_copy(capsys, team, required):
    remote, a, b, keys = team
    checkpoint(capsys, a, "alice's work")
    sync(capsys, a)
    sync(capsys, b)
    require_signatures(b, required)
    good = remote_feeds(remote)[writer(a)].signature
    _re_sign_on_remote(remote, writer(a), keygen(keys, "mallory"))
    assert remote_feeds(remote)[writer(a)].signature != good
    code, result = sync(capsys, b)
    assert code == 0
    assert result["signers"]["flagged"][writer(a)]["status"] == "unknown_key"
    assert result["signers"]["feeds"][writer(a)]["status"] == "good"
    assert result["pushed"] is True
    assert remote_feeds(remote)[writer(a)].signature == good


def test_an_unsigned_feed_is_refused_when_signatures_are_required_and_flagged_when_not(capsys, team):
    _remote, a, b, _keys = team
    subprocess.run(["git", "-C", str(a), "config", "--unset", "user.signingkey"], check=True)  # alice signs nothing
    checkpoint(capsys, a, "unsigned work")
    sync(capsys, a)
    require_signatures(b)
    code, result = sync(capsys, b)
    assert code == 3
    assert [(r["feed"], r["kind"]) for r in result["refused"]] == [(writer(a), "unsigned")]
    require_signatures(b, False)
    code, result = sync(capsys, b)
    assert code == 0
    assert result["signers"]["flagged"][writer(a)]["status"] == "unsigned"
    assert "unsigned work" in titles(capsys, b)


def test_with_signatures_required_a_clone_without_a_signing_key_does_not_publish_its_feed(capsys, team):
    remote, _a, b, _keys = team
    subprocess.run(["git", "-C", str(b), "config", "--unset", "user.signingkey"], check=True)
    require_signatures(b)
    checkpoint(capsys, b, "bob's unsigned work")
    code, result = sync(capsys, b)
    assert code == 3
    [refused] = result["refused"]
    assert (refused["feed"], refused["side"], refused["kind"]) == (writer(b), "local", "unsigned")
    assert "user.signingkey" in refused["message"]
    assert result["published"] == {} and writer(b) not in remote_feeds(remote)


def test_with_signatures_required_a_key_that_cannot_sign_keeps_the_feed_unpublished_and_says_why(capsys, team,
                                                                                                  tmp_path):
    remote, a, _b, _keys = team
    sign_with(a, tmp_path / "no-such-key")
    require_signatures(a)
    checkpoint(capsys, a, "alice's work")
    code, result = sync(capsys, a)
    assert code == 3
    [refused] = result["refused"]
    assert (refused["feed"], refused["side"], refused["kind"]) == (writer(a), "local", "signing_failed")
    assert "no-such-key" in refused["message"]
    assert writer(a) not in remote_feeds(remote)


def test_an_ssh_key_with_gpg_format_left_unset_is_refused_with_the_setting_that_was_missed(capsys, team):
    remote, a, _b, _keys = team
    subprocess.run(["git", "-C", str(a), "config", "--unset", "gpg.format"], check=True)
    subprocess.run(["git", "-C", str(a), "config", "gpg.program", "baton-test-no-such-gpg"], check=True)
    require_signatures(a)
    checkpoint(capsys, a, "alice's work")
    code, result = sync(capsys, a)
    assert code == 3
    [refused] = result["refused"]
    assert refused["kind"] == "signing_failed" and "`git config gpg.format ssh`" in refused["message"]
    assert writer(a) not in remote_feeds(remote)


def test_with_signatures_required_a_key_the_allowed_signers_file_lacks_keeps_the_feed_unpublished(capsys, team):
    remote, a, _b, keys = team
    stranger = keygen(keys, "stranger")
    sign_with(a, stranger)  # a key nobody added to .baton/allowed_signers
    require_signatures(a)
    checkpoint(capsys, a, "signed by a stranger's key")
    code, result = sync(capsys, a)
    assert code == 3
    [refused] = result["refused"]
    assert (refused["feed"], refused["side"], refused["kind"]) == (writer(a), "local", "unknown_key")
    assert result["published"] == {} and writer(a) not in remote_feeds(remote)


def test_the_refusal_of_an_unlisted_key_names_the_key_the_writer_the_file_and_the_way_to_publish(capsys, team):
    _remote, a, _b, keys = team
    stranger = keygen(keys, "stranger")
    sign_with(a, stranger)
    require_signatures(a)
    checkpoint(capsys, a, "signed by a stranger's key")
    [refused] = sync(capsys, a)[1]["refused"]
    fingerprint = subprocess.run(["ssh-keygen", "-lf", f"{stranger}.pub"], check=True, capture_output=True,
                                 text=True).stdout.split()[1]
    message = refused["message"]
    assert fingerprint in message and str(stranger) in message and writer(a) in message
    assert ".baton/allowed_signers does not list" in message and "not published" in message
    assert "baton policy trust" in message and "set user.signingkey" in message


def test_with_signatures_required_a_teammates_key_is_a_wrong_signer_and_the_feed_stays_unpublished(capsys, team):
    remote, a, _b, keys = team
    sign_with(a, keys / "bob")  # bob's key: listed, but for b's writer only
    require_signatures(a)
    checkpoint(capsys, a, "signed with bob's key")
    code, result = sync(capsys, a)
    assert code == 3
    [refused] = result["refused"]
    assert (refused["feed"], refused["side"], refused["kind"]) == (writer(a), "local", "wrong_signer")
    assert "bob@example.com" in refused["message"] and "not published" in refused["message"]
    assert writer(a) not in remote_feeds(remote)


def test_a_clone_refused_for_its_own_key_still_imports_its_teammates_feeds(capsys, team):
    _remote, a, b, keys = team
    checkpoint(capsys, b, "bob's work")
    sync(capsys, b)
    sign_with(a, keygen(keys, "stranger"))
    require_signatures(a)
    checkpoint(capsys, a, "alice's unpublishable work")
    code, result = sync(capsys, a)
    assert code == 3 and list(result["imported"]) == [writer(b)]
    assert "bob's work" in titles(capsys, a)


def test_the_text_of_a_refused_own_feed_says_refused_not_flagged(capsys, team):
    _remote, a, _b, keys = team
    sign_with(a, keygen(keys, "stranger"))
    require_signatures(a)
    checkpoint(capsys, a, "signed by a stranger's key")
    code, text, _err = run(capsys, a, "sync")
    assert code == 3
    assert any(ln.startswith(f"REFUSED local feed {writer(a)} at seq ") and ": unknown_key: " in ln
               for ln in text.splitlines())
    assert not any(ln.startswith(f"FLAGGED feed {writer(a)}") for ln in text.splitlines())


def test_once_the_key_is_listed_and_trusted_the_held_back_feed_is_published_and_taken(capsys, team):
    remote, a, b, keys = team
    stranger = keygen(keys, "stranger")
    sign_with(a, stranger)
    require_signatures(a)
    require_signatures(b)
    checkpoint(capsys, a, "held back")
    assert sync(capsys, a)[0] == 3
    allow(a, b, lines=[*team_signers(a, b, keys), f"{writer(a)} {public(stranger)}"])
    code, result = sync(capsys, a)
    assert (code, result["refused"]) == (0, []) and writer(a) in remote_feeds(remote)
    assert sync(capsys, b)[0] == 0 and "held back" in titles(capsys, b)


def test_without_require_signatures_a_key_that_cannot_sign_publishes_the_feed_unsigned_and_says_why(capsys, team,
                                                                                                     tmp_path):
    remote, a, _b, _keys = team
    sign_with(a, tmp_path / "no-such-key")
    checkpoint(capsys, a, "alice's work")
    code, result = sync(capsys, a)
    assert code == 0 and result["published"][writer(a)] >= 1
    assert remote_feeds(remote)[writer(a)].signature is None
    assert any("no-such-key" in note for note in result["signers"]["notes"])
    assert result["signers"]["feeds"][writer(a)]["status"] == "unsigned"


# -- the allowed signers change ----------------------------------------------------------------------

def test_a_removed_signer_fails_verify_and_the_next_import_when_signatures_are_required(capsys, team):
    _remote, a, b, keys = team
    checkpoint(capsys, a, "alice's work")
    sync(capsys, a)
    sync(capsys, b)
    allow(b, lines=team_signers(a, b, keys)[1:])  # alice's line removed in review
    require_signatures(b)
    code, out, _ = run(capsys, b, "verify", "--json")
    assert code == 3
    signers = {s["feed"]: s for s in json.loads(out)["signers"]}
    assert signers[writer(a)]["status"] == "unknown_key"
    checkpoint(capsys, a, "after removal")
    sync(capsys, a)
    code, result = sync(capsys, b)
    assert code == 3
    assert [(r["feed"], r["kind"]) for r in result["refused"]] == [(writer(a), "unknown_key")]
    assert "after removal" not in titles(capsys, b)


def test_a_key_rotated_by_removing_the_old_key_re_signs_the_feed_with_the_new_one(capsys, team):
    remote, a, b, keys = team
    checkpoint(capsys, a, "alice's work")
    sync(capsys, a)
    sync(capsys, b)
    old = remote_feeds(remote)[writer(a)]
    new_key = keygen(keys, "alice-2026")
    allow(a, b, lines=team_signers(a, b, keys, alice="alice-2026"))
    sign_with(a, new_key)
    code, result = sync(capsys, a)  # nothing new: the same head, signed again with the new key
    assert code == 0 and result["pushed"] is True
    resigned = remote_feeds(remote)[writer(a)]
    assert (resigned.head, resigned.signature != old.signature) == (old.head, True)
    require_signatures(b)
    code, result = sync(capsys, b)
    assert code == 0 and result["signers"]["feeds"][writer(a)]["status"] == "good"
    assert run(capsys, b, "verify")[0] == 0


def _stamp(seconds: float) -> str:
    return time.strftime("%Y%m%d%H%M%S", time.gmtime(seconds)) + "Z"


def test_a_key_rotated_with_valid_before_and_valid_after_vouches_for_the_heads_written_while_it_was_valid(
        capsys, team):
    _remote, a, b, keys = team
    old_key, new_key = keys / "alice", keygen(keys, "alice-next")
    cut = time.time() + 3600  # the old key retires an hour from now
    allow(a, b, lines=[f'alice@example.com,{writer(a)} valid-before="{_stamp(cut)}" {public(old_key)}',
                       f'alice@example.com,{writer(a)} valid-after="{_stamp(cut)}" {public(new_key)}',
                       *team_signers(a, b, keys)[1:]])
    require_signatures(b)
    checkpoint(capsys, a, "before the rotation")
    sync(capsys, a)
    code, result = sync(capsys, b)
    assert code == 0 and result["signers"]["feeds"][writer(a)]["status"] == "good"

    later = lambda: int((cut + 3600) * 1_000_000_000)  # noqa: E731 - two hours from now
    with Baton.open(a, clock=later) as app:
        app.capture({"work": {"title": "after the rotation, old key", "objective": "too late"}})
    sync(capsys, a)  # still signed with the retired key
    require_signatures(b, False)
    code, result = sync(capsys, b)
    assert code == 0
    assert result["signers"]["flagged"][writer(a)]["status"] == "unknown_key"

    sign_with(a, new_key)
    sync(capsys, a)  # the same head, signed again with the key valid when it was written
    require_signatures(b)
    code, result = sync(capsys, b)
    assert code == 0 and result["signers"]["feeds"][writer(a)]["status"] == "good"
    assert "after the rotation, old key" in titles(capsys, b)


@pytest.fixture
def ssh_agent(monkeypatch):
    """An ssh-agent of the test's own, in ``SSH_AUTH_SOCK``; stopped after."""
    import os
    import signal

    if shutil.which("ssh-agent") is None:
        pytest.skip("needs OpenSSH's ssh-agent")
    told = subprocess.run(["ssh-agent", "-s"], capture_output=True, text=True, check=True).stdout
    env = dict(part.strip().split("=", 1) for part in told.replace("\n", ";").split(";")
               if part.strip().startswith("SSH_") and "=" in part)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    yield
    os.kill(int(env["SSH_AGENT_PID"]), signal.SIGTERM)


def test_a_key_given_literally_signs_through_the_agent_as_git_does(capsys, team, ssh_agent):
    remote, a, _b, keys = team
    subprocess.run(["ssh-add", "-q", str(keys / "alice")], check=True, capture_output=True)
    sign_with(a, f"key::{public(keys / 'alice')}")
    checkpoint(capsys, a, "signed through the agent")
    code, result = sync(capsys, a)
    assert code == 0, result
    assert result["signers"]["feeds"][writer(a)]["status"] == "good"
    assert remote_feeds(remote)[writer(a)].signature is not None


def test_a_project_without_signing_runs_no_program_and_shows_no_signers(capsys, tmp_path, monkeypatch):
    from baton.sync import signing as sync_signing

    remote, a, b = make_team(tmp_path)
    monkeypatch.setattr(sync_signing, "_run", lambda *args, **kwargs: pytest.fail("ssh-keygen was run"))
    checkpoint(capsys, a, "plain work")
    assert sync(capsys, a)[0] == 0
    code, result = sync(capsys, b)
    assert code == 0 and result["signers"]["feeds"] == {}
    assert json.loads(run(capsys, b, "verify", "--json")[1])["signers"] == []
    assert remote_feeds(remote)[writer(a)].signature is None


def test_the_allowed_signers_file_can_live_elsewhere_in_the_project(capsys, team):
    _remote, a, b, keys = team
    (b / ".baton" / "allowed_signers").unlink()
    (b / "keys").mkdir()
    (b / "keys" / "allowed_signers").write_text("".join(line + "\n" for line in team_signers(a, b, keys)))
    path = b / ".baton" / "config.json"
    config = json.loads(path.read_text())
    config["sync"] = {"allowed_signers": "keys/allowed_signers", "require_signatures": True}
    path.write_text(json.dumps(config))
    trust_policy(b)
    checkpoint(capsys, a, "signed work")
    sync(capsys, a)
    code, result = sync(capsys, b)
    assert code == 0 and result["signers"]["feeds"][writer(a)]["status"] == "good"


@pytest.mark.parametrize("setting", ["../outside", "/etc/allowed_signers", 7])
def test_an_allowed_signers_setting_outside_the_project_is_a_config_error(capsys, team, setting):
    _remote, a, _b, _keys = team
    path = a / ".baton" / "config.json"
    config = json.loads(path.read_text())
    config["sync"] = {"allowed_signers": setting}
    path.write_text(json.dumps(config))
    code, out, _ = run(capsys, a, "sync", "--json")
    assert code == 4 and json.loads(out)["error"]["code"] == "config_error"
    assert "sync.allowed_signers" in json.loads(out)["error"]["message"]


def test_a_malformed_require_signatures_setting_is_a_config_error(capsys, team):
    _remote, a, _b, _keys = team
    path = a / ".baton" / "config.json"
    config = json.loads(path.read_text())
    config["sync"] = {"require_signatures": "yes"}
    path.write_text(json.dumps(config))
    code, out, _ = run(capsys, a, "sync", "--json")
    assert code == 4 and json.loads(out)["error"]["code"] == "config_error"
    assert "require_signatures" in json.loads(out)["error"]["message"]


def test_a_forget_on_another_replica_republishes_the_erased_feed_under_its_writers_signature(capsys, team):
    remote, a, b, _keys = team
    secret = checkpoint(capsys, a, "zzPLANTED-signed-forget")
    checkpoint(capsys, a, "a plan everyone keeps")
    sync(capsys, a)
    sync(capsys, b)
    signed = remote_feeds(remote)[writer(a)]
    run_json(capsys, b, "forget", secret, "--yes")  # bob erases alice's payload and publishes her feed
    code, result = sync(capsys, b)
    assert code == 0 and result["ref_erased"] == {writer(a): 1}
    erased = remote_feeds(remote)[writer(a)]
    assert erased.head.offset < signed.head.offset and erased.signature == signed.signature
    require_signatures(a)
    code, result = sync(capsys, a)
    assert code == 0 and result["erased"] == {writer(a): 1}
    assert result["signers"]["feeds"][writer(a)]["status"] == "good"
    assert result["signers"]["feeds"][writer(b)]["status"] == "good"


# -- OpenPGP (gpg.format openpgp), when gpg is installed -------------------------------------------

@pytest.fixture
def gnupg(monkeypatch):
    """A GnuPG home of its own (short path: gpg-agent's socket lives in it), its agent stopped after."""
    import os
    import tempfile

    if shutil.which("gpg") is None:
        pytest.skip("needs GnuPG")
    home = tempfile.mkdtemp(prefix="g")
    os.chmod(home, 0o700)
    monkeypatch.setenv("GNUPGHOME", home)
    yield Path(home)
    subprocess.run(["gpgconf", "--kill", "gpg-agent"], capture_output=True, check=False)
    shutil.rmtree(home, ignore_errors=True)


def gpg_key(uid: str) -> str:
    """A new OpenPGP signing key without a passphrase; returns its fingerprint."""
    subprocess.run(["gpg", "--batch", "--pinentry-mode", "loopback", "--passphrase", "", "--quick-gen-key", uid,
                    "ed25519", "sign", "never"], check=True, capture_output=True)
    listed = subprocess.run(["gpg", "--list-keys", "--with-colons", uid], check=True, capture_output=True,
                            text=True).stdout
    return next(line.split(":")[9] for line in listed.splitlines() if line.startswith("fpr:"))


def sign_with_openpgp(clone: Path, fingerprint: str) -> None:
    with Repo(str(clone)) as repo:
        config = repo.get_config()
        config.set((b"user",), b"signingkey", fingerprint.encode())
        config.set((b"gpg",), b"format", b"openpgp")
        config.write_to_path()


def test_an_openpgp_signing_key_signs_the_head_and_an_openpgp_line_binds_it_to_the_writer(capsys, team, gnupg):
    remote, a, b, keys = team
    fingerprint = gpg_key("Alice <alice@example.com>")
    sign_with_openpgp(a, fingerprint)
    allow(a, b, lines=[f"alice@example.com,{writer(a)} openpgp {fingerprint}", *team_signers(a, b, keys)[1:]])
    require_signatures(b)
    checkpoint(capsys, a, "signed with gpg")
    sync(capsys, a)
    with Repo(str(remote)) as repo:
        signature = repo.object_store[remote_feeds(remote)[writer(a)].signature].data
    assert signature.startswith(b"-----BEGIN PGP SIGNATURE-----")
    code, result = sync(capsys, b)
    assert code == 0, result["refused"]
    verdict = result["signers"]["feeds"][writer(a)]
    assert (verdict["status"], verdict["signer"], verdict["key"]) == (
        "good", f"alice@example.com,{writer(a)}", fingerprint)
    assert "signed with gpg" in titles(capsys, b)
    signers = {s["feed"]: s for s in json.loads(run(capsys, b, "verify", "--json")[1])["signers"]}
    assert signers[writer(a)]["status"] == "good"


def test_an_openpgp_key_the_allowed_signers_file_does_not_bind_is_refused_when_required(capsys, team, gnupg,
                                                                                      tmp_path):
    remote, a, b, keys = team
    checkpoint(capsys, a, "alice's work")
    sync(capsys, a)
    m = mallory_clone(tmp_path, remote, a)
    sign_with_openpgp(m, gpg_key("Mallory <mallory@example.com>"))
    checkpoint(capsys, m, "FORGED by mallory as alice")
    sync(capsys, m)
    require_signatures(b)
    code, result = sync(capsys, b)
    assert code == 3
    assert [(r["feed"], r["kind"]) for r in result["refused"]] == [(writer(a), "unknown_key")]
    assert "FORGED by mallory as alice" not in titles(capsys, b)


def test_the_status_page_lists_each_writers_signer_as_text(capsys, team):
    from tests.browser_support import chromium_or_skip, status_page_open

    chromium = chromium_or_skip()
    _remote, a, b, _keys = team
    checkpoint(capsys, a, "signed work")
    sync(capsys, a)
    sync(capsys, b)
    with status_page_open(b, chromium) as page:
        page.wait_for("document.querySelectorAll('#signers-list p').length > 0")
        shown = page.eval("Array.from(document.querySelectorAll('#signers-list p')).map("
                          "p => [p.getAttribute('data-signer-feed'), p.textContent])")
    lines = dict(shown)
    assert lines[writer(a)].startswith(f"Feed {writer(a)}: signed by alice@example.com,{writer(a)} (SHA256:")
    assert lines[writer(b)].startswith(f"Feed {writer(b)}: signed by bob@example.com")


def test_a_forged_extension_of_alices_own_feed_is_replaced_by_her_copy_under_her_good_signature(capsys, team,
                                                                                                tmp_path):
    a, b = _forged_by_mallory(capsys, team, tmp_path)
    code, result = sync(capsys, a)
    assert code == 3 and [(r["feed"], r["kind"]) for r in result["refused"]] == [(writer(a), "own_feed")]
    assert result["signers"]["feeds"][writer(a)]["status"] == "good"  # her copy, signed by her
    require_signatures(b)
    code, result = sync(capsys, b)
    assert code == 0, result["refused"]
    assert "FORGED by mallory as alice" not in titles(capsys, b) and "alice's work" in titles(capsys, b)


def test_a_feed_refused_unsigned_is_imported_once_its_writer_signs_again(capsys, team):
    _remote, a, b, keys = team
    checkpoint(capsys, a, "signed work")
    sync(capsys, a)
    require_signatures(b)
    assert sync(capsys, b)[0] == 0  # b holds a's feed, signed
    subprocess.run(["git", "-C", str(a), "config", "--unset", "user.signingkey"], check=True)
    checkpoint(capsys, a, "unsigned work")
    sync(capsys, a)
    code, result = sync(capsys, b)
    assert code == 3 and [(r["feed"], r["kind"]) for r in result["refused"]] == [(writer(a), "unsigned")]
    sign_with(a, keys / "alice")  # alice's key is back: her next head is signed
    checkpoint(capsys, a, "signed again")
    sync(capsys, a)
    code, result = sync(capsys, b)
    assert (code, result["refused"]) == (0, [])
    assert result["imported"] == {writer(a): 2}
    assert {"unsigned work", "signed again"} <= set(titles(capsys, b))
    assert run(capsys, b, "verify")[0] == 0


# -- git's configuration as git reads it: includeIf in the user's own file ----------------------

def _include_for(clone: Path, name: str, settings: str) -> None:
    """``[includeIf "gitdir:<clone>/"]`` in the user's ``~/.gitconfig``, naming a file that holds
    ``settings``: the clone's signing configuration lives nowhere else (not in the repository)."""
    user_config = Path(os.environ["GIT_CONFIG_GLOBAL"])
    included = user_config.parent / f".gitconfig-{name}"
    included.write_text(settings)
    with user_config.open("a") as fh:
        fh.write(f'[includeIf "gitdir:{clone}/"]\n\tpath = {included}\n')


def _git_says(clone: Path, key: str) -> str:
    return subprocess.run(["git", "-C", str(clone), "config", key], capture_output=True, text=True).stdout.strip()


@pytest.fixture
def included_team(tmp_path):
    """(remote, a, b, keys) as ``team``, each clone's signing key set only through an
    ``includeIf`` in the user's config; b's ``gpg.ssh.program`` is a logging wrapper."""
    remote, a, b = make_team(tmp_path)
    keys = tmp_path / "keys"
    alice, bob = keygen(keys, "alice"), keygen(keys, "bob")
    wrapper = keys / "ssh-keygen-logged"
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> "{keys / "program.log"}"\nexec ssh-keygen "$@"\n')
    wrapper.chmod(0o755)
    _include_for(a, "alice", f"[user]\n\tsigningkey = {alice}\n[gpg]\n\tformat = ssh\n")
    _include_for(b, "bob", f"[user]\n\tsigningkey = {bob}\n[gpg]\n\tformat = ssh\n"
                           f"[gpg \"ssh\"]\n\tprogram = {wrapper}\n")
    assert _git_says(a, "user.signingkey") == str(alice) and _git_says(b, "gpg.ssh.program") == str(wrapper)
    allow(a, b, lines=team_signers(a, b, keys))
    return remote, a, b, keys


def test_a_signing_key_set_only_through_an_include_if_in_the_users_config_signs_the_feed(capsys, included_team):
    remote, a, b, _keys = included_team
    checkpoint(capsys, a, "signed work")
    code, result = sync(capsys, a)
    assert code == 0 and result["signers"]["feeds"][writer(a)]["status"] == "good"
    assert remote_feeds(remote)[writer(a)].signature is not None
    code, result = sync(capsys, b)
    assert code == 0 and result["signers"]["feeds"][writer(a)]["signer"] == f"alice@example.com,{writer(a)}"


def test_verify_checks_with_the_ssh_program_an_include_if_names(capsys, included_team):
    _remote, a, b, keys = included_team
    checkpoint(capsys, a, "signed work")
    sync(capsys, a)
    sync(capsys, b)
    log = keys / "program.log"
    log.unlink(missing_ok=True)  # what sync ran: only verify's runs count below
    code, out, _ = run(capsys, b, "verify", "--json")
    assert code == 0
    assert {s["feed"]: s["status"] for s in json.loads(out)["signers"]}[writer(a)] == "good"
    assert "-Y verify" in (log.read_text() if log.exists() else "")  # git's gpg.ssh.program for this clone, not a bare ssh-keygen


def test_a_linked_worktree_signs_with_the_key_an_onbranch_include_names_for_its_branch(tmp_path):
    from baton.sync.signing import signing_setup_at

    main_tree, linked = tmp_path / "main", tmp_path / "linked"
    main_tree.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(main_tree)], check=True)
    subprocess.run(["git", "-C", str(main_tree), "-c", "user.name=A", "-c", "user.email=a@example.test", "commit",
                    "-q", "--allow-empty", "-m", "first"], check=True)
    subprocess.run(["git", "-C", str(main_tree), "worktree", "add", "-q", "-b", "release", str(linked)], check=True)
    key = keygen(tmp_path / "keys", "release")
    user_config = Path(os.environ["GIT_CONFIG_GLOBAL"])
    included = user_config.parent / ".gitconfig-release"
    included.write_text(f"[user]\n\tsigningkey = {key}\n[gpg]\n\tformat = ssh\n")
    user_config.write_text(f'[includeIf "onbranch:release"]\n\tpath = {included}\n')
    assert (_git_says(linked, "user.signingkey"), _git_says(main_tree, "user.signingkey")) == (str(key), "")
    signing, _programs = signing_setup_at(linked)
    assert signing is not None and (signing.key, signing.format) == (str(key), "ssh")
    assert signing_setup_at(main_tree)[0] is None


# -- this clone's own feed flagged: the way to a good signature ------------------------------


def test_a_clone_without_a_signing_key_is_told_how_to_sign_its_own_flagged_feed(capsys, team):
    _remote, a, _b, _keys = team
    subprocess.run(["git", "-C", str(a), "config", "--unset", "user.signingkey"], check=True)
    checkpoint(capsys, a, "unsigned work")

    code, text, err = run(capsys, a, "sync")

    assert code == 0, err
    [line] = [ln for ln in text.splitlines() if ln.startswith(f"FLAGGED feed {writer(a)}: unsigned")]
    assert "this clone's feed" in line and "user.signingkey" in line and "allowed-signers" in line


def test_a_clone_whose_named_signing_key_failed_is_not_told_git_names_no_key(capsys, team, tmp_path):
    _remote, a, _b, _keys = team
    sign_with(a, tmp_path / "no-such-key")  # git names a key; ssh-keygen cannot load it
    checkpoint(capsys, a, "signing fails")

    code, text, err = run(capsys, a, "sync")

    assert code == 0, err
    assert any(ln.startswith("NOTE ssh-keygen could not sign") for ln in text.splitlines())
    [line] = [ln for ln in text.splitlines() if ln.startswith(f"FLAGGED feed {writer(a)}: unsigned")]
    assert "git names no signing key" not in line and "see the NOTE above" in line


def test_a_clone_whose_key_the_allowed_signers_file_lacks_is_told_to_add_a_line_for_it(capsys, team):
    _remote, a, b, keys = team
    allow(a, lines=[f"bob@example.com,{writer(b)} {public(keys / 'bob')}"])  # no line for alice's key
    checkpoint(capsys, a, "signed by an unlisted key")

    code, text, err = run(capsys, a, "sync")

    assert code == 0, err
    [line] = [ln for ln in text.splitlines() if ln.startswith(f"FLAGGED feed {writer(a)}: unknown_key")]
    assert "add a line for its key" in line and writer(a) in line


def test_a_teammates_flagged_feed_carries_no_hint_meant_for_this_clone(capsys, team):
    _remote, a, b, _keys = team
    subprocess.run(["git", "-C", str(b), "config", "--unset", "user.signingkey"], check=True)
    checkpoint(capsys, b, "bob unsigned")
    run(capsys, b, "sync")

    code, text, err = run(capsys, a, "sync")

    assert code == 0, err
    flagged = [ln for ln in text.splitlines() if writer(b) in ln and "FLAGGED" in ln]
    assert flagged and not any("this clone's feed" in ln for ln in flagged)
    assert sync(capsys, a)[1]["signers"]["writer"] == writer(a)


# -- which signers apply: the allowed-signers file and the sync section are trusted ---------------

def _write_signers(clone: Path, lines: list[str]) -> None:
    """The allowed-signers file as a checked-out branch or a clone brings it: not trusted here."""
    (clone / ".baton" / "allowed_signers").write_text("".join(line + "\n" for line in lines))


def _write_sync(clone: Path, **settings) -> None:
    path = clone / ".baton" / "config.json"
    config = json.loads(path.read_text())
    config["sync"] = settings
    path.write_text(json.dumps(config))


def test_a_key_an_untrusted_allowed_signers_file_lists_does_not_vouch_for_a_feed(capsys, team, tmp_path):
    remote, a, b, keys = team
    mallory = mallory_forges_alice(capsys, team, tmp_path)
    require_signatures(b)
    # A branch b checks out binds mallory's key to alice's writer id; b's user has not trusted it.
    _write_signers(b, [f"mallory@example.com,{writer(a)} {public(mallory)}", *team_signers(a, b, keys)])
    code, out, err = run(capsys, b, "sync", "--json")
    result = json.loads(out)
    assert code == 3
    assert [(r["feed"], r["kind"]) for r in result["refused"]] == [(writer(a), "unknown_key")]
    assert "FORGED by mallory as alice" not in titles(capsys, b)
    assert "allowed_signers" in err and "baton policy show" in err
    assert result["untrusted_policy"]["settings"][".baton/allowed_signers"]["allowed_signers"][0].startswith(
        "mallory@example.com")


def test_while_the_allowed_signers_file_is_untrusted_the_signers_trusted_before_still_vouch(capsys, team):
    _remote, a, b, keys = team
    checkpoint(capsys, a, "alice's work")
    sync(capsys, a)
    _write_signers(b, [*team_signers(a, b, keys), "carol@example.com,carol-* ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA"])
    code, result = sync(capsys, b)
    assert code == 0 and result["signers"]["feeds"][writer(a)]["status"] == "good"
    assert result["untrusted_policy"]["reason"] == "changed"


def test_a_never_trusted_allowed_signers_file_vouches_for_no_feed(capsys, team):
    _remote, a, b, _keys = team
    checkpoint(capsys, a, "alice's work")
    sync(capsys, a)
    run(capsys, b, "policy", "untrust")
    code, result = sync(capsys, b)
    assert code == 0 and result["signers"]["flagged"][writer(a)]["status"] == "unknown_key"
    assert result["untrusted_policy"]["reason"] == "never"


def test_a_change_that_stops_requiring_signatures_keeps_them_required_until_trusted(capsys, team):
    _remote, a, b, _keys = team
    subprocess.run(["git", "-C", str(a), "config", "--unset", "user.signingkey"], check=True)  # alice signs nothing
    checkpoint(capsys, a, "unsigned work")
    sync(capsys, a)
    require_signatures(b)  # trusted with signatures required
    _write_sync(b, require_signatures=False)  # then a checked-out branch turns them off
    code, result = sync(capsys, b)
    assert code == 3
    assert [(r["feed"], r["kind"]) for r in result["refused"]] == [(writer(a), "unsigned")]
    assert "unsigned work" not in titles(capsys, b)
    trust_policy(b)  # the user reviews and trusts the change
    code, result = sync(capsys, b)
    assert code == 0 and result["signers"]["flagged"][writer(a)]["status"] == "unsigned"


# A branch cut before the team adopted signing: no allowed-signers file, no ``sync`` section (or ``false``).
# Its absence widens as ``false`` does, so the requirement trusted here keeps holding (team14 F3).
CHECKOUTS_THAT_NAME_NO_SIGNERS = {
    "both": (True, None),
    "falsenofile": (True, {"require_signatures": False}),
    "nosync": (False, None),
    "nofile": (True, {"require_signatures": True}),
    "false": (False, {"require_signatures": False}),
}


def _checkout(clone: Path, variant: str) -> None:
    """What a checked-out branch does to ``clone``'s signer settings (``CHECKOUTS_THAT_NAME_NO_SIGNERS``)."""
    remove_file, section = CHECKOUTS_THAT_NAME_NO_SIGNERS[variant]
    if remove_file:
        (clone / ".baton" / "allowed_signers").unlink()
    path = clone / ".baton" / "config.json"
    config = json.loads(path.read_text())
    config.pop("sync", None)
    if section is not None:
        config["sync"] = section
    path.write_text(json.dumps(config))


@pytest.mark.parametrize("variant", sorted(CHECKOUTS_THAT_NAME_NO_SIGNERS))
def test_a_checkout_without_the_signer_settings_keeps_a_forged_feed_refused(capsys, team, tmp_path, variant):
    _remote, a, b, _keys = team
    mallory_forges_alice(capsys, team, tmp_path)
    require_signatures(b)  # trusted with signatures required
    assert sync(capsys, b)[0] == 3
    _checkout(b, variant)
    code, result = sync(capsys, b)
    assert code == 3
    assert [(r["feed"], r["kind"]) for r in result["refused"]] == [(writer(a), "unknown_key")]
    assert "FORGED by mallory as alice" not in titles(capsys, b)


def test_a_checkout_without_the_signer_settings_still_takes_feeds_the_trusted_signers_vouch_for(capsys, team):
    _remote, a, b, _keys = team
    require_signatures(b)
    _checkout(b, "both")
    checkpoint(capsys, a, "alice's signed work")
    sync(capsys, a)
    code, result = sync(capsys, b)
    assert code == 0 and result["signers"]["feeds"][writer(a)]["status"] == "good"
    assert "alice's signed work" in titles(capsys, b)


def test_a_refusal_on_a_checkout_without_signer_settings_says_the_trusted_ones_still_apply(capsys, team, tmp_path):
    _remote, a, b, _keys = team
    mallory_forges_alice(capsys, team, tmp_path)
    require_signatures(b)
    _checkout(b, "both")
    code, out, err = run(capsys, b, "sync")
    assert code == 3
    assert "names no allowed signers" in out + err and "baton policy untrust" in out + err


def test_policy_show_on_a_checkout_without_signer_settings_says_signatures_stay_required(capsys, team):
    _remote, a, b, keys = team
    require_signatures(b)
    _checkout(b, "both")
    shown = run_json(capsys, b, "policy", "show")
    assert shown["policy"]["require_signatures"] is True
    assert shown["policy"]["allowed_signers"] == team_signers(a, b, keys)
    code, text, _ = run(capsys, b, "policy", "show")
    assert "sync checks feeds against only the 2 signer lines trusted here before, signatures required" in text
    assert "names no allowed signers" in text and "baton policy untrust" in text


def test_untrusting_lets_a_checkout_without_signer_settings_stop_requiring_signatures(capsys, team, tmp_path):
    _remote, a, b, _keys = team
    mallory_forges_alice(capsys, team, tmp_path)
    require_signatures(b)
    _checkout(b, "both")
    run(capsys, b, "policy", "untrust")  # the user's decision, as trusting ``false`` would be
    code, result = sync(capsys, b)
    assert code == 0 and result["signers"]["flagged"][writer(a)]["status"] == "unknown_key"


def test_policy_show_lists_the_allowed_signers_lines_to_trust(capsys, team):
    _remote, a, b, keys = team
    _write_signers(b, team_signers(a, b, keys)[:1])
    shown = run_json(capsys, b, "policy", "show")
    assert shown["trust"]["state"] == "untrusted"
    assert shown["trust"]["settings"] == {".baton/allowed_signers": {"allowed_signers": team_signers(a, b, keys)[:1]},
                                          ".baton/config.json": {"sync": {"require_signatures": False,
                                                                          "allowed_signers": ".baton/allowed_signers"}}}
    code, text, _ = run(capsys, b, "policy", "show")
    assert f".baton/allowed_signers: allowed_signers = {team_signers(a, b, keys)[0]!r}" in text


def test_policy_show_says_which_signers_sync_checks_against_while_the_file_is_untrusted(capsys, team):
    _remote, a, b, keys = team
    require_signatures(b)
    _write_signers(b, team_signers(a, b, keys)[:1])
    in_force = run_json(capsys, b, "policy", "show")["policy"]
    assert in_force["allowed_signers"] == team_signers(a, b, keys) and in_force["require_signatures"] is True
    code, text, _ = run(capsys, b, "policy", "show")
    assert "sync checks feeds against only the 2 signer lines trusted here before, signatures required" in text


# -- the allowed-signers file is read as ssh-keygen reads it, and ssh-keygen reads only Baton's copy ----

HIDDEN_LEADS = ["\xa0", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\u2028", "\u3000"]
"""Characters ``str.strip()`` and ``str.splitlines()`` treat as space or a line break and ``ssh-keygen`` does not."""


def _forged_signers(key: Path, lead: str) -> bytes:
    """The reviewer's file: a comment, then ``<lead>#,* <key>``: ``ssh-keygen`` reads ``<lead>#`` and ``*``
    as principals, binding the key to every writer."""
    return f"# team\n{lead}#,* {public(key)}\n".encode()


@pytest.mark.parametrize("lead", HIDDEN_LEADS, ids=[f"U+{ord(c):04X}" for c in HIDDEN_LEADS])
def test_a_line_ssh_keygen_reads_as_a_key_line_is_a_key_line_to_baton(tmp_path, lead):
    from baton.domain.policy_keys import signer_lines

    key = keygen(tmp_path / "keys", "m")
    committed = tmp_path / "allowed_signers"
    committed.write_bytes(_forged_signers(key, lead))
    signed = subprocess.run(["ssh-keygen", "-Y", "sign", "-n", NAMESPACE, "-f", str(key)], input=b"x",
                            capture_output=True, check=True).stdout
    (tmp_path / "x.sig").write_bytes(signed)
    found = subprocess.run(["ssh-keygen", "-Y", "find-principals", "-f", str(committed), "-s", str(tmp_path / "x.sig")],
                           capture_output=True)
    assert found.returncode == 0  # ssh-keygen binds the key through this line...
    assert signer_lines(committed.read_bytes()) == (f"{lead}#,* {public(key)}",)  # ...so Baton digests and shows it


def test_ssh_keygen_lines_split_on_newline_only_and_skip_only_blank_and_hash_lines():
    from baton.domain.policy_keys import signer_lines

    text = b" \t# c\n\r\n\t\r#x\nalice k1\r\n  bob\tk2 \t\nx\x0by k3\ncarol k4\x00#tail\n\x00hidden k5"
    assert signer_lines(text) == ("alice k1", "bob\tk2", "x\x0by k3", "carol k4")


@pytest.mark.parametrize("lead", ["\xa0", "\x0b", "\u2028"], ids=["U+00A0", "U+000B", "U+2028"])
def test_a_feed_forged_under_a_line_hidden_from_str_strip_is_not_good_in_a_clone_with_nothing_trusted(
        capsys, team, tmp_path, lead):
    remote, a, b, keys = team
    mallory = mallory_forges_alice(capsys, team, tmp_path)
    run(capsys, b, "policy", "untrust")  # b as a fresh clone: nothing trusted here
    require_signatures(b)
    (b / ".baton" / "allowed_signers").write_bytes(_forged_signers(mallory, lead))
    shown = run_json(capsys, b, "policy", "show")
    assert shown["trust"]["state"] == "untrusted"
    assert shown["trust"]["settings"][".baton/allowed_signers"]["allowed_signers"] == [f"{lead}#,* {public(mallory)}"]
    code, result = sync(capsys, b)
    assert code == 3
    assert [(r["feed"], r["kind"]) for r in result["refused"]] == [(writer(a), "unknown_key")]
    assert "FORGED by mallory as alice" not in titles(capsys, b)


def test_a_feed_forged_under_a_hidden_line_is_not_good_after_the_team_file_was_trusted(capsys, team, tmp_path):
    remote, a, b, keys = team
    mallory = mallory_forges_alice(capsys, team, tmp_path)
    team_file = (b / ".baton" / "allowed_signers").read_bytes()
    (b / ".baton" / "allowed_signers").write_bytes(team_file + _forged_signers(mallory, "\xa0"))
    code, result = sync(capsys, b)
    assert result["untrusted_policy"]["reason"] == "changed"  # the hidden line changes the digest
    assert result["signers"]["flagged"][writer(a)]["status"] == "unknown_key"


def test_ssh_keygen_is_handed_baton_s_copy_of_the_parsed_lines_never_the_committed_file(capsys, team):
    from baton.commands.context import Project
    from baton.sync.signing import allowed_signers

    _remote, a, _b, keys = team
    committed = a / ".baton" / "allowed_signers"
    committed.write_bytes(b"# team\n" + committed.read_bytes())
    trust_policy(a)
    project = Project.open(a)
    try:
        with allowed_signers(project).copy() as allowed:
            assert allowed != committed
            assert allowed.read_text() == "".join(line + "\n" for line in team_signers(a, _b, keys))
    finally:
        project.close()


def test_a_feed_refused_while_the_signer_file_is_untrusted_says_so_without_naming_baton_s_copy(capsys, team):
    _remote, a, b, _keys = team
    checkpoint(capsys, a, "alice's work")
    sync(capsys, a)
    run(capsys, b, "policy", "untrust")
    code, result = sync(capsys, b)
    message = result["signers"]["flagged"][writer(a)]["message"]
    assert message.endswith("the allowed-signers file is not trusted in this clone yet: baton policy show, "
                            "then baton policy trust")
    assert "signers-" not in message
    code, text, _ = run(capsys, b, "sync")
    assert "not trusted in this clone yet" in text and "trusted-signers-" not in text


def test_policy_show_shows_a_changed_sync_section_and_says_the_trust_covers_it(capsys, team):
    _remote, _a, b, _keys = team
    require_signatures(b)  # trusted with signatures required
    _write_sync(b, require_signatures=False)  # a checked-out branch turns them off
    shown = run_json(capsys, b, "policy", "show")
    assert shown["trust"]["reason"] == "changed"
    assert shown["trust"]["settings"][".baton/config.json"]["sync"]["require_signatures"] is False
    code, text, _ = run(capsys, b, "policy", "show")
    assert '.baton/config.json: sync = require_signatures: false, allowed_signers: ".baton/allowed_signers"' in text
    assert "the signer lines of .baton/allowed_signers and config.json's sync section whole" in text


# -- the copy of the signer lines ssh-keygen reads (docs/sync.md, "How the file is read") ----------

def copy_name(a: Path, b: Path, keys: Path) -> str:
    """The name of the copy of the team's signer lines (``signers-`` and 16 hex digits of their sha256)."""
    import hashlib

    text = "".join(line + "\n" for line in team_signers(a, b, keys)).encode()
    return "signers-" + hashlib.sha256(text).hexdigest()[:16]


def copies(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("*signers-*")) if folder.is_dir() else []


def block_copy(folder: Path, name: str) -> None:
    """Make the copy impossible to write in ``folder``, whoever runs (root too): a non-empty
    folder stands where it would be renamed to."""
    in_the_way = folder / name
    if in_the_way.is_file():
        in_the_way.unlink()
    (in_the_way / "in-the-way").mkdir(parents=True)


def test_a_sync_that_cannot_write_the_copy_in_the_git_dir_checks_against_one_in_baton_cache(capsys, team):
    _remote, a, b, keys = team
    checkpoint(capsys, a, "alice's work")
    sync(capsys, a)
    name = copy_name(a, b, keys)
    block_copy(b / ".git" / "baton", name)
    code, result = sync(capsys, b)
    assert code == 0
    assert result["signers"]["feeds"][writer(a)]["status"] == "good"
    assert (b / ".baton" / "cache" / name).read_text() == "".join(line + "\n" for line in team_signers(a, b, keys))


def test_verify_rechecks_against_a_copy_in_baton_cache_when_the_git_dir_refuses_one(capsys, team):
    _remote, a, b, keys = team
    checkpoint(capsys, a, "alice's work")
    sync(capsys, a)
    sync(capsys, b)
    block_copy(b / ".git" / "baton", copy_name(a, b, keys))
    verified = run_json(capsys, b, "verify")
    assert {s["feed"]: s["status"] for s in verified["signers"]}[writer(a)] == "good"
    assert copies(b / ".baton" / "cache") == [copy_name(a, b, keys)]


def test_a_sync_that_can_write_the_copy_nowhere_says_what_to_fix_in_one_line(capsys, team):
    _remote, a, b, keys = team
    checkpoint(capsys, a, "alice's work")
    sync(capsys, a)
    name = copy_name(a, b, keys)
    block_copy(b / ".git" / "baton", name)
    block_copy(b / ".baton" / "cache", name)
    code, out, err = run(capsys, b, "sync")
    assert code == 1 and "Traceback" not in err and err.count("\n") == 1
    assert f"in {b / '.git' / 'baton'} (" in err and f"nor in {b / '.baton' / 'cache'} (" in err
    assert "make one of these folders writable by this user, or free space on its disk" in err
    assert "alice's work" not in titles(capsys, b)


def test_a_sync_with_no_signature_left_to_check_writes_no_copy(capsys, team):
    _remote, a, b, keys = team
    checkpoint(capsys, a, "alice's work")
    sync(capsys, a)
    sync(capsys, b)  # every verdict of this allowed-signers file is kept: the next sync runs no program
    name = copy_name(a, b, keys)
    block_copy(b / ".git" / "baton", name)
    block_copy(b / ".baton" / "cache", name)
    code, result = sync(capsys, b)
    assert code == 0 and result["signers"]["feeds"][writer(a)]["status"] == "good"


def test_a_project_without_signatures_to_check_verifies_with_no_copy_written(capsys, team):
    _remote, a, b, keys = team
    name = copy_name(a, b, keys)
    block_copy(b / ".git" / "baton", name)
    block_copy(b / ".baton" / "cache", name)
    code, out, err = run(capsys, b, "verify")
    assert code == 0, out + err


def test_writing_a_copy_removes_the_ones_it_supersedes_and_those_of_earlier_versions(capsys, team):
    _remote, a, b, keys = team
    checkpoint(capsys, a, "alice's work")
    sync(capsys, a)
    git_baton, cache = b / ".git" / "baton", b / ".baton" / "cache"
    cache.mkdir(exist_ok=True)
    for folder in (git_baton, cache):
        for stale in ("trusted-signers-0123456789abcdef", "signers-fedcba9876543210"):
            (folder / stale).write_text("old lines\n")
    (git_baton / "policy-trust.json.bak").write_text("{}")  # not a copy: left alone
    sync(capsys, b)
    assert copies(git_baton) == [copy_name(a, b, keys)]
    assert copies(cache) == []
    assert (git_baton / "policy-trust.json.bak").exists()


def test_a_superseded_copy_another_process_still_reads_is_left_for_a_later_write(capsys, team):
    import fcntl

    _remote, a, b, keys = team
    checkpoint(capsys, a, "alice's work")
    sync(capsys, a)
    git_baton = b / ".git" / "baton"
    git_baton.mkdir(exist_ok=True)
    stale = git_baton / "signers-fedcba9876543210"
    stale.write_text("the lines another check reads\n")
    with open(stale, "rb") as reading:
        fcntl.flock(reading, fcntl.LOCK_SH)  # as a check running now holds the copy it reads
        sync(capsys, b)
        assert stale.read_text() == "the lines another check reads\n"
    (git_baton / copy_name(a, b, keys)).unlink()
    checkpoint(capsys, a, "more of alice's work")
    sync(capsys, a)
    sync(capsys, b)  # writes the copy again: nobody holds the old one now
    assert copies(git_baton) == [copy_name(a, b, keys)]


def test_a_link_planted_where_the_copy_goes_is_replaced_never_followed(capsys, team, tmp_path):
    _remote, a, b, keys = team
    checkpoint(capsys, a, "alice's work")
    sync(capsys, a)
    outside = tmp_path / "outside-the-project"
    outside.write_text("".join(line + "\n" for line in team_signers(a, b, keys)))
    git_baton = b / ".git" / "baton"
    git_baton.mkdir(exist_ok=True)
    (git_baton / copy_name(a, b, keys)).symlink_to(outside)
    code, result = sync(capsys, b)
    assert result["signers"]["feeds"][writer(a)]["status"] == "good"
    assert not (git_baton / copy_name(a, b, keys)).is_symlink()
    assert outside.read_text() == "".join(line + "\n" for line in team_signers(a, b, keys))


def test_trusting_a_checkout_without_signer_settings_says_signatures_stay_required(capsys, team):
    _remote, _a, b, _keys = team
    require_signatures(b)
    _checkout(b, "both")
    code, text, _ = run(capsys, b, "policy", "trust", "--digest", "none")
    assert code == 0 and "nothing to trust. Signatures stay required" in text
    assert run_json(capsys, b, "policy", "show")["policy"]["require_signatures"] is True
