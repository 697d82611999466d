"""``baton sync`` transport failures (docs/sync.md, "Exit codes"): a push race on
a path remote is retried, a locked ref is an exit 4 with its reason, and
credentials a smart-HTTP remote refuses are exit 4 with a clear message
(real ``git http-backend`` on loopback)."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from baton.app import Baton
from tests.cli_support import run, run_json
from tests.http_git_support import serve
from tests.sync_support import REF, make_team, remote_feeds, set_remote, third_clone
from tests.sync_support import checkpoint as _checkpoint
from tests.sync_support import writer_of as _writer


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


def test_a_ref_moved_between_read_and_write_on_a_path_remote_is_retried(capsys, team, monkeypatch):
    """dulwich writes a path remote's ref with compare-and-swap: a push landing
    between its read and its write makes it answer "unable to set"."""
    remote, a, b = team
    _checkpoint(capsys, a, "from A")
    _checkpoint(capsys, b, "from B")
    run_json(capsys, b, "sync")

    def another_push():
        with Baton.open(b) as app:  # another clone's push lands in between
            _checkpoint(capsys, b, "from B, again")
            app.sync()

    raced = _race_the_push(monkeypatch, remote, another_push)
    result = run_json(capsys, a, "sync")
    assert raced and result["attempts"] == 2 and result["pushed"] is True
    assert {_writer(a), _writer(b)} <= set(remote_feeds(remote))
    assert remote_feeds(remote)[_writer(b)].head.seq == 3


def _race_the_push(monkeypatch, remote: Path, during) -> list[bool]:
    """``during()`` runs once, when a push is about to set the path remote's ledger ref: after this
    clone's fetch, before its push lands (dulwich sets it with compare-and-swap, so it finds the ref
    moved). The list holds True once it ran."""
    from dulwich.refs import DiskRefsContainer

    original = DiskRefsContainer.set_if_equals
    raced: list[bool] = []

    def racing(self, name, old, new, *args, **kwargs):
        if name == REF and not raced and Path(os.fsdecode(self.path)).resolve() == remote.resolve():
            raced.append(True)
            during()
        return original(self, name, old, new, *args, **kwargs)

    monkeypatch.setattr(DiskRefsContainer, "set_if_equals", racing)
    return raced


def _events(project: Path) -> int:
    return len((project / ".baton" / "ledger" / f"{_writer(project)}.jsonl").read_bytes().splitlines())


def _raced_by_a_third_clone(capsys, team, tmp_path, monkeypatch) -> tuple[Path, Path, Path]:
    """Clone A syncs while B's feed is on the remote; C's push lands between A's fetch and A's
    push (a real push race on the remote's ref), so A's sync takes a second round. (a, b, c)."""
    remote, a, b = team
    c = third_clone(remote, tmp_path)
    _checkpoint(capsys, a, "from A")
    _checkpoint(capsys, b, "from B")
    _checkpoint(capsys, c, "from C")
    run_json(capsys, b, "sync")

    def c_pushes():
        with Baton.open(c) as app:  # C's push lands between A's fetch and A's push
            app.sync()

    _race_the_push(monkeypatch, remote, c_pushes)
    return a, b, c


def test_a_sync_raced_into_a_second_round_reports_every_rounds_imports_and_what_it_published(
        capsys, team, tmp_path, monkeypatch):
    a, b, c = _raced_by_a_third_clone(capsys, team, tmp_path, monkeypatch)
    result = run_json(capsys, a, "sync")
    assert result["attempts"] == 2 and result["pushed"] is True
    assert result["imported"] == {_writer(b): _events(b), _writer(c): _events(c)}  # B's in round 1, C's in round 2
    assert result["published"] == {_writer(a): _events(a)}  # onto the ref in round 1, pushed in round 2
    assert result["received"] == {_writer(a): _events(a)}


def test_a_sync_raced_into_a_second_round_says_in_words_what_the_whole_sync_did(capsys, team, tmp_path,
                                                                                monkeypatch):
    a, b, c = _raced_by_a_third_clone(capsys, team, tmp_path, monkeypatch)
    code, out, err = run(capsys, a, "sync")
    assert code == 0, out + err
    assert f"Imported {_events(b) + _events(c)} events from 2 feeds of origin." in out
    assert f"Published {_events(a)} events from 1 feed to refs/baton/ledger." in out
    titles = [h["title"] for h in run_json(capsys, a, "handoff", "list")["handoffs"]]
    assert {"from B", "from C"} <= set(titles)  # the index caught up on both rounds' imports


def test_a_ref_lock_on_a_path_remote_is_never_removed_even_old_and_is_named_with_the_command(capsys, team):
    import shlex

    remote, a, _b = team
    _checkpoint(capsys, a, "from A")
    lock = remote / "refs" / "baton" / "ledger.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_bytes(b"")  # another push holds it (or died holding it, hours ago)
    old = time.time() - 7200
    os.utime(lock, (old, old))
    code, out, err = run(capsys, a, "sync", "--json")
    assert code == 4, out + err
    error = json.loads(out)["error"]
    assert error["code"] == "remote_unreachable" and error["details"]["lock"] == str(lock)
    assert f"rm -- {shlex.quote(str(lock))}" in error["message"] and "120 minutes old" in error["message"]
    assert lock.exists()  # as git: a ref's lock is the user's to remove
    lock.unlink()
    assert run(capsys, a, "sync", "--json")[0] == 0


def test_a_remote_lock_gone_by_the_time_it_is_told_is_not_given_an_rm_command(tmp_path):
    from baton.sync.stale_locks import held_lock_message

    lock = tmp_path / "objects" / "ad" / "28f84009c6fb0dd5481a319e5a3f04331bc432.lock"  # another push's, let go
    message = held_lock_message(str(lock), "refs/baton/ledger", 3)
    assert "was held by another push through 3 attempts" in message and "run `baton sync` again" in message
    assert "rm --" not in message and "died holding it" not in message


def _full_disk_leftover(remote: Path, a: Path, capsys, age: float, monkeypatch) -> Path:
    """What a push that hit a full disk leaves on a path remote: the pack moved
    in, its index never written, ``pack-<sha>.idx.lock`` in its place — and the
    ref not updated. The next push of the same objects makes the same pack.
    (Pushes of 100 objects or more are packs; these few are made one.)"""
    from dulwich.repo import Repo

    from baton.sync import transport

    monkeypatch.setattr(transport, "UNPACK_LIMIT", 1)

    _checkpoint(capsys, a, "from A")
    run_json(capsys, a, "sync")
    with Repo(str(remote)) as repo:
        del repo.refs[REF]
    newest = max((remote / "objects" / "pack").glob("pack-*.idx"), key=lambda p: p.stat().st_mtime)
    lock = newest.with_name(newest.name + ".lock")
    os.rename(newest, lock)
    then = time.time() - age
    os.utime(lock, (then, then))
    return lock


def test_a_stale_pack_index_lock_a_full_disk_left_on_a_path_remote_is_removed_and_the_push_goes_through(
        capsys, team, monkeypatch):
    remote, a, b = team
    lock = _full_disk_leftover(remote, a, capsys, age=3600, monkeypatch=monkeypatch)
    result = run_json(capsys, a, "sync")
    assert result["cleaned_locks"] == [str(lock)] and result["pushed"] is True
    assert not lock.exists() and lock.with_name(lock.name[:-len(".lock")]).exists()
    assert _writer(a) in remote_feeds(remote)
    checked = subprocess.run(["git", "-C", str(remote), "fsck", "--no-progress", "--no-dangling"],
                             capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert run_json(capsys, b, "sync")["imported"] == {_writer(a): 2}
    assert "REMOVED" not in run(capsys, a, "sync")[1]  # once gone, nothing more to say


def test_a_recent_pack_index_lock_is_kept_and_named_with_the_command_that_removes_it(capsys, team, monkeypatch):
    import shlex

    remote, a, _b = team
    lock = _full_disk_leftover(remote, a, capsys, age=30, monkeypatch=monkeypatch)  # a push may still be writing it
    code, out, err = run(capsys, a, "sync", "--json")
    assert code == 4, out + err
    error = json.loads(out)["error"]
    assert error["code"] == "remote_unreachable" and f"rm -- {shlex.quote(str(lock))}" in error["message"]
    assert lock.exists()


def test_only_an_idle_pack_index_lock_nobody_holds_open_may_be_removed():
    from baton.domain.remote_locks import STALE_AFTER_SECONDS, may_remove

    pack_lock = "objects/pack/pack-" + "ab" * 20 + ".idx.lock"
    assert may_remove(pack_lock, age_seconds=STALE_AFTER_SECONDS, held_open=False)
    assert not may_remove(pack_lock, age_seconds=STALE_AFTER_SECONDS - 1, held_open=False)
    assert not may_remove(pack_lock, age_seconds=10 * STALE_AFTER_SECONDS, held_open=True)
    for other in ("refs/baton/ledger.lock", "packed-refs.lock", "objects/pack/pack-x.idx.lock",
                  "objects/pack/pack-" + "ab" * 20 + ".pack.lock", "config.lock"):
        assert not may_remove(other, age_seconds=10 * STALE_AFTER_SECONDS, held_open=False), other


def test_a_lock_file_held_open_by_a_process_here_counts_as_held(tmp_path):
    from baton.sync.stale_locks import held_open

    lock = tmp_path / "pack.idx.lock"
    lock.write_bytes(b"")
    with open(lock, "rb"):
        assert held_open(str(lock))
    assert not held_open(str(lock))


@pytest.fixture
def http_remote(team):
    remote, a, b = team
    with serve(remote.parent, "alice", "s3cret-pass") as base:
        yield f"{base}/{remote.name}", remote, a, b


def test_smart_http_with_the_right_credentials_syncs(capsys, http_remote):
    url, remote, a, b = http_remote
    set_remote(a, url.replace("http://", "http://alice:s3cret-pass@"))
    _checkpoint(capsys, a, "over http")
    result = run_json(capsys, a, "sync")
    assert result["pushed"] is True and _writer(a) in remote_feeds(remote)


def test_a_credential_helper_git_would_use_is_not_run_and_the_message_says_how_to_give_credentials(
        capsys, http_remote, tmp_path, monkeypatch):
    url, _remote, a, _b = http_remote
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    (home / ".git-credentials").write_text(url.replace("http://", "http://alice:s3cret-pass@").rsplit("/", 1)[0]
                                           + "\n")
    subprocess.run(["git", "-C", str(a), "config", "credential.helper", "store"], check=True)
    set_remote(a, url)
    assert subprocess.run(["git", "-C", str(a), "ls-remote", "origin"], capture_output=True).returncode == 0
    code, out, _err = run(capsys, a, "sync", "--json")
    error = json.loads(out)["error"]
    assert (code, error["code"]) == (4, "remote_auth_failed")
    assert "runs none of git's credential helpers" in error["message"]
    assert "`user:token@` before its host" in error["message"] and "s3cret-pass" not in out


def test_a_push_a_server_hook_refuses_is_exit_4_with_the_hooks_own_words(capsys, http_remote):
    url, remote, a, _b = http_remote
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'policy: ledger pushes need approval from ops' >&2\nexit 1\n")
    hook.chmod(0o755)
    set_remote(a, url.replace("http://", "http://alice:s3cret-pass@"))
    _checkpoint(capsys, a, "over http")
    code, out, _err = run(capsys, a, "sync", "--json")
    error = json.loads(out)["error"]
    assert (code, error["code"]) == (4, "remote_unreachable")
    assert "pre-receive hook declined" in error["message"]
    assert "the remote said: policy: ledger pushes need approval from ops" in error["message"]
    assert "counting objects" not in error["message"]  # this clone's own progress is not the remote's word


@pytest.mark.parametrize("credentials", ["", "alice:not-the-pass-9@"], ids=["missing", "wrong"])
def test_credentials_the_http_remote_refuses_are_exit_4_with_a_clear_message(capsys, http_remote, credentials,
                                                                            monkeypatch):
    monkeypatch.setenv("GIT_TERMINAL_PROMPT", "0")
    url, _remote, a, _b = http_remote
    set_remote(a, url.replace("http://", f"http://{credentials}"))
    _checkpoint(capsys, a, "over http")
    code, out, err = run(capsys, a, "sync", "--json")
    assert code == 4, out + err
    error = json.loads(out)["error"]
    assert error["code"] == "remote_auth_failed"
    assert "refused the credentials" in error["message"]
    assert "not-the-pass-9" not in out  # a password is never shown
    code, out, err = run(capsys, a, "sync")
    assert code == 4 and "refused the credentials" in err and "internal error" not in err


def test_an_http_url_with_no_repository_behind_it_says_so_with_the_way_to_check_the_url(capsys, http_remote):
    url, _remote, a, _b = http_remote
    set_remote(a, url.replace("http://", "http://alice:s3cret-pass@").rsplit("/", 1)[0] + "/no-such.git")
    code, out, err = run(capsys, a, "sync", "--json")
    error = json.loads(out)["error"]
    assert (code, error["code"]) == (4, "remote_unreachable"), out + err
    assert "the server has no git repository at that URL" in error["message"]
    assert "`git ls-remote`" in error["message"] and "NotGitRepository" not in error["message"]


def test_an_http_remote_nobody_listens_on_says_it_cannot_connect_in_one_line(capsys, team):
    import socket

    _remote, a, _b = team
    with socket.socket() as sock:  # a loopback port just freed: nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    set_remote(a, f"http://127.0.0.1:{port}/team.git")
    code, out, err = run(capsys, a, "sync", "--json")
    error = json.loads(out)["error"]
    assert (code, error["code"]) == (4, "remote_unreachable"), out + err
    assert "cannot connect: Failed to establish a new connection" in error["message"]
    assert "Connection refused" in error["message"] and "`git ls-remote`" in error["message"]
    assert "Max retries exceeded" not in error["message"] and "HTTPConnectionPool" not in error["message"]


def test_a_token_given_as_the_user_of_an_http_remote_is_never_shown(capsys, http_remote, monkeypatch):
    # A token of no known shape (not a rule's): only its place in the URL says what it is.
    monkeypatch.setenv("GIT_TERMINAL_PROMPT", "0")
    url, _remote, a, _b = http_remote
    token = "Zq8vR1mJ3kP0xT7bN2cW5yH9dF4gL6sA1eU3iO8r"
    set_remote(a, url.replace("http://", f"http://{token}@"))
    _checkpoint(capsys, a, "over http")
    code, out, err = run(capsys, a, "sync", "--json")
    assert code == 4, out + err
    assert json.loads(out)["error"]["code"] == "remote_auth_failed"
    assert token not in out + err and "***@" in out


def test_a_shown_url_keeps_an_ssh_user_and_masks_http_credentials():
    from baton.sync.transport import shown_url

    assert shown_url("ssh://git@example.com/acme/app.git") == "ssh://git@example.com/acme/app.git"
    assert shown_url("https://tok3nValue@example.com:8443/a.git") == "https://***@example.com:8443/a.git"
    assert shown_url("https://oauth2:tok3nValue@example.com/a.git") == "https://oauth2:***@example.com/a.git"
    assert shown_url("https://example.com/a.git") == "https://example.com/a.git"


def _pack_objects(clone: Path, bare: bool = False) -> dict[str, int]:
    """Objects in each pack of ``clone`` (real git's ``show-index``)."""
    import subprocess

    counts = {}
    for idx in (clone / ("" if bare else ".git") / "objects" / "pack").glob("*.idx"):
        with open(idx, "rb") as fh:
            listed = subprocess.run(["git", "show-index"], stdin=fh, capture_output=True, check=True, timeout=60)
        counts[idx.name] = len(listed.stdout.splitlines())
    return counts


def test_an_incremental_sync_fetches_only_the_new_objects_not_the_whole_ledger_ref(capsys, team, monkeypatch):
    from baton.ledger import segments

    monkeypatch.setattr(segments, "SEGMENT_BYTES", 4096)
    remote, a, b = team
    for i in range(12):
        _checkpoint(capsys, a, f"checkpoint {i}")
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    assert len(remote_feeds(remote)[_writer(a)].segments) >= 4
    _checkpoint(capsys, a, "one more")
    run_json(capsys, a, "sync")
    before, loose_before = _pack_objects(b), _loose_objects(b)
    result = run_json(capsys, b, "sync")
    assert result["imported"] == {_writer(a): 1}
    fetched = sum(n for name, n in _pack_objects(b).items() if name not in before)
    fetched += len(_loose_objects(b) - loose_before)
    # the commit, the root, feeds/ and the feed's folder, head.json and the open segment (a sync
    # commit of b's own may bring a few more): never the closed segments again
    assert 0 < fetched <= 8


def test_a_few_objects_fetched_or_pushed_on_a_path_remote_are_stored_loose_not_as_one_more_pack(capsys, team):
    """As git's fetch.unpackLimit and receive.unpackLimit: a pack per incremental
    sync would make every later object lookup search one more pack index."""
    remote, a, b = team
    _checkpoint(capsys, a, "first")
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    packs, remote_packs = set(_pack_objects(b)), set(_pack_objects(remote, bare=True))
    for i in range(3):
        _checkpoint(capsys, a, f"more {i}")
        run_json(capsys, a, "sync")
        assert run_json(capsys, b, "sync")["imported"] == {_writer(a): 1}
    assert set(_pack_objects(b)) == packs and set(_pack_objects(remote, bare=True)) == remote_packs
    for repo in (b, remote):
        checked = subprocess.run(["git", "-C", str(repo), "fsck", "--no-progress", "--no-dangling"],
                                 capture_output=True, text=True, timeout=120)
        assert checked.returncode == 0, checked.stdout + checked.stderr
    assert run_json(capsys, b, "verify")["ok"]


def _loose_objects(clone: Path) -> set[str]:
    objects = clone / ".git" / "objects"
    return {d.name + f.name for d in objects.iterdir() if len(d.name) == 2 for f in d.iterdir()}


def test_a_push_race_over_smart_http_is_retried(capsys, http_remote, monkeypatch):
    """git's receive-pack answers "failed to update ref" when the ref moved
    after it advertised it: the round starts again."""
    from dulwich.client import AbstractHttpGitClient

    url, remote, a, b = http_remote
    set_remote(a, url.replace("http://", "http://alice:s3cret-pass@"))
    _checkpoint(capsys, a, "from A")
    _checkpoint(capsys, b, "from B")
    run_json(capsys, b, "sync")  # b reaches the same remote by its path
    original = AbstractHttpGitClient.send_pack
    raced = []

    def racing(self, path, update_refs, generate_pack_data, *args, **kwargs):
        def update(refs):
            wanted = update_refs(refs)
            if not raced:
                raced.append(True)
                with Baton.open(b) as app:  # b's push lands after the advertisement, before a's
                    _checkpoint(capsys, b, "from B, again")
                    app.sync()
            return wanted
        return original(self, path, update, generate_pack_data, *args, **kwargs)

    monkeypatch.setattr(AbstractHttpGitClient, "send_pack", racing)
    result = run_json(capsys, a, "sync")
    assert raced and result["attempts"] == 2 and result["pushed"] is True
    assert remote_feeds(remote)[_writer(b)].head.seq == 3 and _writer(a) in remote_feeds(remote)


def test_an_incremental_fetch_from_a_path_remote_reads_only_the_new_commit_however_long_the_history(
        capsys, team, monkeypatch):
    """dulwich's negotiation walks every commit both sides share (one per
    sync); the few-objects fetch stops at the first commit this clone has."""
    from dulwich.objects import Commit

    from baton.sync import transport

    remote, a, b = team
    for i in range(6):
        _checkpoint(capsys, a, f"round {i}")
        run_json(capsys, a, "sync")
        run_json(capsys, b, "sync")
    _checkpoint(capsys, a, "one more")
    run_json(capsys, a, "sync")
    read: list[bytes] = []
    original = transport.new_objects

    class Counted:
        def __init__(self, store):
            self.store = store

        def __contains__(self, sha):
            return sha in self.store

        def __getitem__(self, sha):
            obj = self.store[sha]
            if isinstance(obj, Commit):
                read.append(sha)
            return obj

    monkeypatch.setattr(transport, "new_objects",
                        lambda source, local, wants, limit: original(Counted(source), local, wants, limit))
    assert run_json(capsys, b, "sync")["imported"] == {_writer(a): 1}
    assert len(read) == 1
    checked = subprocess.run(["git", "-C", str(b), "fsck", "--no-progress", "--no-dangling"],
                             capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def _chain(store, n: int):
    from dulwich.objects import Blob, Commit, Tree

    commits, parent = [], None
    for i in range(n):
        blob = Blob.from_string(f"segment {i}\n".encode())
        inner = Tree()
        inner.add(b"0.jsonl", 0o100644, blob.id)
        root = Tree()
        root.add(b"feeds", 0o040000, inner.id)
        commit = Commit()
        commit.tree, commit.parents = root.id, [parent] if parent else []
        commit.author = commit.committer = b"t <t@x>"
        commit.author_time = commit.commit_time = 1
        commit.author_timezone = commit.commit_timezone = 0
        commit.message = b"m"
        for obj in (blob, inner, root, commit):
            store.add_object(obj)
        commits.append((blob, inner, root, commit))
        parent = commit.id
    return commits


def test_the_new_objects_of_a_fetch_come_each_after_the_objects_it_names_and_stop_at_what_the_clone_has():
    from dulwich.object_store import MemoryObjectStore

    from baton.sync.transport import new_objects

    source, local = MemoryObjectStore(), MemoryObjectStore()
    chain = _chain(source, 3)
    for obj in chain[0]:
        local.add_object(obj)
    found = new_objects(source, local, [chain[2][3].id], 256)
    assert {o.id for o in found} == {o.id for objs in chain[1:] for o in objs}
    position = {o.id: n for n, o in enumerate(found)}
    for blob, inner, root, commit in chain[1:]:
        assert position[blob.id] < position[inner.id] < position[root.id] < position[commit.id]
    assert position[chain[1][3].id] < position[chain[2][3].id]
    assert new_objects(source, local, [chain[2][3].id], 3) is None  # too many: the ordinary fetch


def test_a_commit_the_clone_holds_without_its_tree_is_fetched_again_not_trusted():
    from dulwich.object_store import MemoryObjectStore

    from baton.sync.transport import new_objects

    source, local = MemoryObjectStore(), MemoryObjectStore()
    chain = _chain(source, 2)
    local.add_object(chain[0][3])  # an interrupted copy: the commit alone
    found = new_objects(source, local, [chain[1][3].id], 256)
    assert {o.id for o in found} >= {o.id for o in chain[0][:3]}


def _fsynced(monkeypatch) -> list[str]:
    """Every path ``os.fsync`` is called on from now on (Linux: by /proc/self/fd)."""
    done: list[str] = []
    original = os.fsync

    def fsync(fd):
        try:
            done.append(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            done.append("?")
        return original(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return done


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="paths of fds read from /proc")
def test_an_imported_event_is_fsynced_once_in_its_feed_and_the_staged_copy_is_not(capsys, team, monkeypatch):
    remote, a, b = team
    _checkpoint(capsys, a, "first")
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    _checkpoint(capsys, a, "second")
    run_json(capsys, a, "sync")
    done = _fsynced(monkeypatch)
    assert run_json(capsys, b, "sync")["imported"] == {_writer(a): 1}
    feed = str((b / ".baton" / "ledger" / f"{_writer(a)}.jsonl").resolve())
    assert done.count(feed) == 1
    assert not [p for p in done if "sync-incoming" in p]
    assert str((b / ".baton" / "ledger").resolve()) not in done  # an append adds no entry to the folder


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="paths of fds read from /proc")
def test_a_newly_imported_feed_is_fsynced_before_it_is_renamed_into_place_and_so_is_the_folder(
        capsys, team, monkeypatch):
    remote, a, b = team
    _checkpoint(capsys, a, "first")
    run_json(capsys, a, "sync")
    done = _fsynced(monkeypatch)
    assert run_json(capsys, b, "sync")["imported"] == {_writer(a): 2}
    staged = [p for p in done if p.endswith(f"sync-incoming/{_writer(a)}.part")]
    assert len(staged) == 1
    assert str((b / ".baton" / "ledger").resolve()) in done[done.index(staged[0]):]


def test_a_feed_folder_both_the_remote_and_the_local_ref_hold_is_read_once_per_sync(capsys, team, monkeypatch):
    from collections import Counter

    import baton.sync.ledger_ref as ledger_ref

    remote, a, b = team
    _checkpoint(capsys, a, "from A")
    _checkpoint(capsys, b, "from B")
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    _checkpoint(capsys, a, "one more from A")
    run_json(capsys, a, "sync")
    reads: Counter[str] = Counter()
    original = ledger_ref._read_feed

    def counted(repo, writer, tree_id):
        reads[writer] += 1
        return original(repo, writer, tree_id)

    monkeypatch.setattr(ledger_ref, "_read_feed", counted)
    assert run_json(capsys, b, "sync")["imported"] == {_writer(a): 1}
    assert reads[_writer(b)] == 1  # unchanged on both refs
    assert reads[_writer(a)] == 2  # the remote's new folder, and the local ref's older one


def test_a_sync_reads_the_repositorys_config_file_once_after_opening_it(capsys, team, monkeypatch):
    from dulwich.config import ConfigFile

    remote, a, b = team
    _checkpoint(capsys, a, "from A")
    run_json(capsys, a, "sync")
    config = str((b / ".git" / "config").resolve())
    reads = []
    original = ConfigFile.from_path.__func__

    def counted(cls, path, *args, **kwargs):
        if os.path.realpath(os.fsdecode(path)) == config:
            reads.append(path)
        return original(cls, path, *args, **kwargs)

    monkeypatch.setattr(ConfigFile, "from_path", classmethod(counted))
    assert run_json(capsys, b, "sync")["imported"] == {_writer(a): 2}
    assert len(reads) <= 2  # dulwich's Repo reads it when it opens; the sync's questions, once more


def test_a_ref_lock_a_killed_sync_left_in_the_clones_repository_is_exit_4_naming_it_and_its_rm_command(
        capsys, team):
    """(A loose object's lock no longer stops a sync: tests/test_sync_killed.py.)"""
    remote, a, _b = team
    _checkpoint(capsys, a, "from A")
    lock = a / ".git" / "refs" / "baton" / "ledger.lock"  # what a sync killed while moving the ref leaves
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_bytes(b"")
    code, out, err = run(capsys, a, "sync", "--json")
    error = json.loads(out)["error"]
    assert (code, error["code"], error["details"]["lock"]) == (4, "git_lock_held", str(lock))
    assert f"rm -- {lock}" in error["message"] and "internal error" not in err
    assert _writer(a) not in remote_feeds(remote)
    lock.unlink()
    result = run_json(capsys, a, "sync")
    assert result["pushed"] is True and _writer(a) in remote_feeds(remote)


def test_a_push_raced_again_and_again_pauses_a_random_moment_below_a_doubling_bound_between_rounds():
    """Clones racing one remote (tests/test_sync_team_race.py) spread out instead of colliding in step."""
    from baton.errors import RemoteUnreachable
    from baton.sync import publish
    from baton.sync.transport import RemoteMoved

    pauses: list[float] = []
    rounds: list[int] = []

    def raced(n: int) -> str:
        rounds.append(n)
        raise RemoteMoved("failed to update ref")

    with pytest.raises(RemoteUnreachable) as raised:
        publish.retrying(raced, "refs/baton/ledger", "origin", pause=pauses.append)
    assert rounds == list(range(1, publish.ATTEMPTS + 1)) and len(pauses) == publish.ATTEMPTS - 1
    assert all(0 <= p <= publish.PAUSE * 2 ** i for i, p in enumerate(pauses))
    assert f"kept moving during {publish.ATTEMPTS} attempts" in str(raised.value)
    pauses.clear()
    assert publish.retrying(lambda n: n, "refs/baton/ledger", "origin", pause=pauses.append) == 1
    assert pauses == []  # a round nobody raced does not wait


def _connection_failure(reason: BaseException) -> str:
    """The message sync gives when dulwich's http client could not connect for ``reason`` (urllib3's)."""
    from urllib3.exceptions import MaxRetryError

    from baton.sync.transport import _failure

    try:
        try:
            raise MaxRetryError(None, "/team.git/info/refs", reason)  # type: ignore[arg-type]
        except MaxRetryError as cause:
            raise OSError("could not connect") from cause
    except OSError as exc:
        return _failure(exc, "fetch refs/baton/ledger from", "http://nowhere.invalid/team.git").message


def test_an_http_remote_whose_host_name_does_not_resolve_asks_about_the_name_not_the_server():
    import socket

    from urllib3.exceptions import NameResolutionError

    conn = "HTTPConnection(host='nowhere.invalid', port=80)"  # as urllib3 shows its connection
    message = _connection_failure(NameResolutionError("nowhere.invalid", conn, socket.gaierror(-2, "Name unknown")))  # type: ignore[arg-type]
    assert "cannot connect: Failed to resolve 'nowhere.invalid'" in message
    assert "is the host name right?" in message and "is the server up?" not in message


def test_an_https_remote_whose_tls_handshake_fails_is_not_asked_whether_the_server_is_up():
    from urllib3.exceptions import SSLError

    message = _connection_failure(SSLError("[SSL: WRONG_VERSION_NUMBER] wrong version number"))
    assert "cannot connect: [SSL: WRONG_VERSION_NUMBER]" in message and "is the server up?" not in message
    assert "`git ls-remote`" in message


# -- a server that does not accept pushes (team15 G1) ------------------------------------------------

def _no_smart_push(command: str, path: str) -> int | None:
    """A server whose receive-pack advertisement is a plain page (a dumb-http or read-only mirror,
    or a CGI wrapper that turns http-backend's 403 into a 200): dulwich falls back to its dumb client."""
    return 200 if command == "GET" and "service=git-receive-pack" in path else None


def test_a_server_that_offers_no_smart_push_is_a_clear_exit_4_after_importing_what_it_serves(capsys, team):
    remote, a, b = team
    _checkpoint(capsys, a, "published by path")
    run_json(capsys, a, "sync")  # a's feed is on the remote (a syncs by path)
    with serve(remote.parent, "alice", "s3cret-pass", answer=_no_smart_push) as base:
        set_remote(b, f"{base}/{remote.name}".replace("http://", "http://alice:s3cret-pass@"))
        _checkpoint(capsys, b, "cannot be pushed")
        code, out, err = run(capsys, b, "sync", "--json")
    error = json.loads(out)["error"]
    assert (code, error["code"]) == (4, "remote_unreachable"), out + err
    assert "does not accept pushes" in error["message"] and "internal" not in out + err
    assert "s3cret-pass" not in out + err
    assert (b / ".baton" / "ledger" / f"{_writer(a)}.jsonl").exists()  # fetched and imported all the same


def _empty_answers(command: str, path: str) -> int | None:
    """A broken ``git http-backend`` (a repository owned by another user — "dubious ownership" — or a
    CGI that fails before its headers): every request answered by an empty 200 (git: "return code 22")."""
    return 200


def test_a_server_that_answers_every_request_with_nothing_is_said_to_have_served_nothing(capsys, team):
    remote, a, b = team
    _checkpoint(capsys, a, "published by path")
    run_json(capsys, a, "sync")
    with serve(remote.parent, "alice", "s3cret-pass", answer=_empty_answers) as base:
        set_remote(b, f"{base}/{remote.name}")
        _checkpoint(capsys, b, "cannot be pushed")
        code, out, err = run(capsys, b, "sync", "--json")
    error = json.loads(out)["error"]
    assert (code, error["code"]) == (4, "remote_unreachable"), out + err
    assert "answered with nothing" in error["message"] and "nothing was fetched" in error["message"]
    assert "fetched and imported" not in error["message"] and "Traceback" not in err
    assert not (b / ".baton" / "ledger" / f"{_writer(a)}.jsonl").exists()
