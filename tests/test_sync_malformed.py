"""A malformed ledger ref on the remote is refused and never spreads (docs/sync.md, "Refused feeds").

Every shape git allows — a file where a folder belongs and a folder where a
file belongs, at every level, an unknown format, an oversized segment — is
refused with exit 3 and named; nothing of it is written back, and ``git
fsck`` of the remote (real git) stays clean after every sync.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import orjson
import pytest
from dulwich.objects import Blob, Commit, Tree
from dulwich.repo import Repo
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baton.sync.ledger_ref import read_feeds
from tests.cli_support import run, run_json
from tests.sync_support import REF, make_team, remote_feeds, synced_then_remote_rolled_back
from tests.sync_support import checkpoint as _checkpoint
from tests.sync_support import writer_of as _writer

_FILE, _DIR = 0o100644, 0o040000


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


def fsck(remote: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(remote), "fsck", "--no-progress", "--no-dangling"],
                          capture_output=True, text=True, timeout=120)


def _blob(store, data: bytes) -> bytes:
    blob = Blob.from_string(data)
    store.add_object(blob)
    return blob.id


def _tree(store, entries: dict[bytes, tuple[int, bytes]]) -> bytes:
    tree = Tree()
    for name, (mode, sha) in entries.items():
        tree.add(name, mode, sha)
    store.add_object(tree)
    return tree.id


def _entries(store, tree_id: bytes) -> dict[bytes, tuple[int, bytes]]:
    return {e.path: (e.mode, e.sha) for e in store[tree_id].iteritems()}


def reshape_remote(remote: Path, change) -> None:
    """Commit on the remote's ledger ref a tree ``change(store, root entries)``
    made from its current one: what a hostile or broken client could push."""
    with Repo(str(remote)) as repo:
        store = repo.object_store
        sha = repo.refs[REF]
        root = _entries(store, store[sha].tree)
        change(store, root)
        commit = Commit()
        commit.tree = _tree(store, root)
        commit.parents = [sha]
        commit.author = commit.committer = b"x <x@x>"
        commit.author_time = commit.commit_time = 0
        commit.author_timezone = commit.commit_timezone = 0
        commit.message = b"reshaped\n"
        store.add_object(commit)
        repo.refs[REF] = commit.id


def _in_feed(writer: str, change):
    """A ``reshape_remote`` change of ``writer``'s feed folder entries."""
    def apply(store, root):
        feeds = _entries(store, root[b"feeds"][1])
        folder = _entries(store, feeds[writer.encode()][1])
        change(store, folder)
        feeds[writer.encode()] = (_DIR, _tree(store, folder))
        root[b"feeds"] = (_DIR, _tree(store, feeds))
    return apply


def _feed_as_file(writer):
    def apply(store, root):
        feeds = _entries(store, root[b"feeds"][1])
        feeds[writer.encode()] = (_FILE, _blob(store, b"not a folder\n"))
        root[b"feeds"] = (_DIR, _tree(store, feeds))
    return apply


def _head_as_folder(store, folder):
    folder[b"head.json"] = (_DIR, _tree(store, {b"x": (_FILE, _blob(store, b"x"))}))


def _segment_as_folder(store, folder):
    name = sorted(n for n in folder if n.endswith(b".jsonl"))[0]
    folder[name] = (_DIR, _tree(store, {b"x": (_FILE, _blob(store, b"x"))}))


def _signature_as_folder(store, folder):
    folder[b"head.sig"] = (_DIR, _tree(store, {b"x": (_FILE, _blob(store, b"x"))}))


def _head_not_an_object(store, folder):
    folder[b"head.json"] = (_FILE, _blob(store, b"[1, 2, 3]\n"))


def _head_negative(store, folder):
    raw = orjson.loads(store[folder[b"head.json"][1]].data)
    raw["bytes"] = -5
    folder[b"head.json"] = (_FILE, _blob(store, orjson.dumps(raw)))


def _segment_oversized(store, folder):
    raw = orjson.loads(store[folder[b"head.json"][1]].data)
    raw["bytes"] = 1 << 30  # the one segment claims a GiB
    folder[b"head.json"] = (_FILE, _blob(store, orjson.dumps(raw)))


FEED_SHAPES = {
    "feed folder is a file": lambda w: _feed_as_file(w),
    "head.json is a folder": lambda w: _in_feed(w, _head_as_folder),
    "a segment is a folder": lambda w: _in_feed(w, _segment_as_folder),
    "head.sig is a folder": lambda w: _in_feed(w, _signature_as_folder),
    "head.json is not an object": lambda w: _in_feed(w, _head_not_an_object),
    "head.json has negative bytes": lambda w: _in_feed(w, _head_negative),
    "a segment claims more than the limit": lambda w: _in_feed(w, _segment_oversized),
}


@pytest.mark.parametrize("shape", sorted(FEED_SHAPES))
def test_a_malformed_feed_folder_is_refused_dropped_and_the_remote_stays_clean(capsys, team, shape):
    remote, a, b = team
    _checkpoint(capsys, a, "from A")
    run_json(capsys, a, "sync")
    _checkpoint(capsys, b, "from B")
    run_json(capsys, b, "sync")
    reshape_remote(remote, FEED_SHAPES[shape](_writer(a)))
    assert fsck(remote).returncode == 0  # a shape git allows
    code, out, err = run(capsys, b, "sync", "--json")
    result = json.loads(out)
    assert code == 3, (out, err)
    assert [(r["feed"], r["kind"]) for r in result["refused"]] == [(_writer(a), "bad_ref")]
    checked = fsck(remote)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # b had imported a's feed: it publishes its own verified copy in place of the malformed one
    assert remote_feeds(remote)[_writer(a)].problem is None
    for project in (a, b):
        assert run(capsys, project, "sync", "--json")[0] == 0
    assert fsck(remote).returncode == 0


def test_a_malformed_feed_this_clone_never_had_is_dropped_and_its_writer_publishes_it_again(capsys, team):
    remote, a, b = team
    _checkpoint(capsys, a, "from A")
    run_json(capsys, a, "sync")
    reshape_remote(remote, _feed_as_file(_writer(a)))
    code, out, _ = run(capsys, b, "sync", "--json")
    result = json.loads(out)
    assert code == 3 and result["dropped"] == [_writer(a)]
    assert _writer(a) not in remote_feeds(remote) and fsck(remote).returncode == 0
    with Repo(str(b)) as repo:  # b's own ref does not hold it either
        assert _writer(a) not in read_feeds(repo, repo.refs[REF])
    code, out, err = run(capsys, b, "sync")
    assert code == 0, out + err  # nothing refused any more: the remote was left clean
    # a publishes its feed again, and says the remote had lost it (exit 3)
    assert run_json(capsys, a, "sync", expect=3)["behind"] == {_writer(a): {"remote_seq": 0, "published_seq": 2}}
    assert run_json(capsys, b, "sync")["imported"] == {_writer(a): 2}
    assert fsck(remote).returncode == 0


def test_a_repaired_remote_does_not_get_the_refused_feed_back(capsys, team):
    remote, a, b = team
    _checkpoint(capsys, a, "from A")
    run_json(capsys, a, "sync")
    reshape_remote(remote, _feed_as_file(_writer(a)))
    assert run(capsys, b, "sync", "--json")[0] == 3

    def remove(store, root):
        feeds = _entries(store, root[b"feeds"][1])
        feeds.pop(_writer(a).encode(), None)
        root[b"feeds"] = (_DIR, _tree(store, feeds))

    reshape_remote(remote, remove)
    code, out, err = run(capsys, b, "sync", "--json")
    assert code == 0, out + err
    assert _writer(a) not in remote_feeds(remote)


def _feeds_as_file(store, root):
    root[b"feeds"] = (_FILE, _blob(store, b"feeds\n"))


def _format_as_folder(store, root):
    root[b"format.json"] = (_DIR, _tree(store, {b"x": (_FILE, _blob(store, b"x"))}))


def _format_99(store, root):
    root[b"format.json"] = (_FILE, _blob(store, b'{"format": 99}\n'))


def _format_missing(store, root):
    del root[b"format.json"]


REF_SHAPES = {"feeds/ is a file": _feeds_as_file, "format.json is a folder": _format_as_folder,
              "format 99": _format_99, "no format.json": _format_missing}


@pytest.mark.parametrize("shape", sorted(REF_SHAPES))
def test_a_malformed_ledger_ref_is_refused_whole_and_nothing_is_pushed_over_it(capsys, team, shape):
    remote, a, b = team
    _checkpoint(capsys, a, "from A")
    run_json(capsys, a, "sync")
    reshape_remote(remote, REF_SHAPES[shape])
    served = dict(Repo(str(remote)).get_refs())[REF]
    _checkpoint(capsys, b, "from B")
    before = dict(Repo(str(b)).get_refs()).get(REF)
    code, out, err = run(capsys, b, "sync", "--json")
    assert code == 3, out + err
    error = json.loads(out)["error"]
    assert error["code"] == "remote_ref_refused" and "Traceback" not in err
    if shape == "format 99":
        assert "upgrade Baton" in error["message"] and "git push" not in error["message"]
    else:  # the way back: the ref put back from a clone, or deleted and republished
        assert f"git push -f origin {REF.decode()}" in error["message"]
        assert f"git push origin :{REF.decode()}" in error["message"]
    assert dict(Repo(str(remote)).get_refs())[REF] == served  # not pushed over
    assert dict(Repo(str(b)).get_refs()).get(REF) == before
    assert fsck(remote).returncode == 0


# -- a fuzz over ref trees: any entry replaced by a file or a folder, at any level --------------------------

def _paths(store, tree_id: bytes, prefix: tuple[bytes, ...] = ()) -> list[tuple[bytes, ...]]:
    out = []
    for name, (mode, sha) in sorted(_entries(store, tree_id).items()):
        out.append(prefix + (name,))
        if mode == _DIR:
            out.extend(_paths(store, sha, prefix + (name,)))
    return out


def _replace(store, root: dict, path: tuple[bytes, ...], entry: tuple[int, bytes] | None) -> None:
    """Set ``path`` (under the root entries ``root``) to ``entry`` (None: remove it)."""
    name, rest = path[0], path[1:]
    if not rest:
        if entry is None:
            root.pop(name, None)
        else:
            root[name] = entry
        return
    inner = _entries(store, root[name][1])
    _replace(store, inner, rest, entry)
    root[name] = (_DIR, _tree(store, inner))


_FUZZ = {}


def _fuzz_team(tmp_path_factory):
    if "team" not in _FUZZ:
        _FUZZ["team"] = make_team(tmp_path_factory.mktemp("fuzz"))
        _FUZZ["synced"] = False
    return _FUZZ["team"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(picks=st.lists(st.tuples(st.integers(min_value=0, max_value=10_000),
                                st.sampled_from(["file", "folder", "remove", "junk-json"]),
                                st.binary(max_size=64)), min_size=1, max_size=3))
def test_no_shape_of_remote_ref_makes_sync_crash_or_dirties_the_remote(capsys, tmp_path_factory, picks):
    remote, a, b = _fuzz_team(tmp_path_factory)
    if not _FUZZ["synced"]:
        _checkpoint(capsys, a, "from A")
        run_json(capsys, a, "sync")
        _checkpoint(capsys, b, "from B")
        run_json(capsys, b, "sync")
        with Repo(str(remote)) as repo:
            _FUZZ["synced"] = repo.refs[REF]
    with Repo(str(remote)) as repo:  # every example starts from the sound ref, shaped anew
        repo.refs[REF] = _FUZZ["synced"]

    def mutate(store, root):
        for index, kind, data in picks:
            paths = [p for p in _paths(store, _tree(store, root)) if p]
            if not paths:
                return
            path = paths[index % len(paths)]
            if kind == "file":
                entry = (_FILE, _blob(store, data))
            elif kind == "folder":
                entry = (_DIR, _tree(store, {b"x": (_FILE, _blob(store, data))}))
            elif kind == "junk-json":
                entry = (_FILE, _blob(store, b'{"format": 1, "bytes": "%d", "seq": []}' % len(data)))
            else:
                entry = None
            _replace(store, root, path, entry)

    reshape_remote(remote, mutate)
    assert fsck(remote).returncode == 0
    for project in (b, a):
        code, out, err = run(capsys, project, "sync", "--json")
        assert code in (0, 3, 4), out + err
        assert "internal_error" not in out and "Traceback" not in err
        checked = fsck(remote)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        with Repo(str(project)) as repo:  # the clone's own ref stays readable
            sha = repo.refs.as_dict().get(REF)
            for feed in read_feeds(repo, sha).values():
                assert feed.problem is None


def test_a_remote_that_went_back_is_put_back_reported_and_exits_3_every_time(capsys, team):
    remote, a, b = team
    synced_then_remote_rolled_back(capsys, remote, a)
    with Repo(str(remote)) as repo:
        earlier = repo.refs[REF]
    code, out, err = run(capsys, a, "sync", "--json")
    result = json.loads(out)
    assert code == 3, out + err
    assert result["behind"] == {_writer(a): {"remote_seq": 2, "published_seq": 3}} and result["pushed"] is True
    assert remote_feeds(remote)[_writer(a)].head.seq == 3
    code, text, _ = run(capsys, a, "sync")
    assert code == 0 and "BEHIND" not in text  # once put back, resolved: nothing more to say
    with Repo(str(remote)) as repo:
        repo.refs[REF] = earlier
    code, text, _ = run(capsys, a, "sync")
    assert code == 3 and f"BEHIND remote feed {_writer(a)}: the remote held it to seq 2, this clone had seen it hold seq 3" in text


def test_a_feed_the_remote_no_longer_holds_at_all_is_reported_as_no_longer_held_not_seq_0(capsys, team):
    remote, a, b = team
    _checkpoint(capsys, a, "first")
    run_json(capsys, a, "sync")
    with Repo(str(remote)) as repo:
        del repo.refs[REF]  # the ref deleted on the remote, then republished by a clone that never imported a's feed
    _checkpoint(capsys, b, "b's")
    run_json(capsys, b, "sync")
    assert _writer(a) not in remote_feeds(remote)
    code, text, _ = run(capsys, a, "sync")
    assert code == 3
    assert f"BEHIND remote feed {_writer(a)}: the remote no longer held it, this clone had seen it hold seq 2" \
        in text and "seq 0" not in text
    assert remote_feeds(remote)[_writer(a)].head.seq == 2


def test_a_remote_without_the_ledger_ref_is_not_reported_behind(capsys, team):
    remote, a, _b = team
    _checkpoint(capsys, a, "first")
    run_json(capsys, a, "sync")
    with Repo(str(remote)) as repo:
        del repo.refs[REF]
    result = run_json(capsys, a, "sync")
    assert result["behind"] == {} and result["pushed"] is True
    assert _writer(a) in remote_feeds(remote)


def test_a_malformed_copy_of_this_clones_own_feed_is_replaced_by_the_local_copy(capsys, team):
    remote, a, _b = team
    _checkpoint(capsys, a, "from A")
    run_json(capsys, a, "sync")
    reshape_remote(remote, _in_feed(_writer(a), _head_as_folder))
    _checkpoint(capsys, a, "more from A")
    code, out, _ = run(capsys, a, "sync", "--json")
    assert code == 3 and [r["kind"] for r in json.loads(out)["refused"]] == ["bad_ref"]
    feed = remote_feeds(remote)[_writer(a)]
    assert feed.problem is None and feed.head.seq == 3  # a's own copy, with its new event
    assert fsck(remote).returncode == 0
