"""``baton sync``: share the ledger's feeds through any git remote (docs/sync.md).

One round: fetch the remote's ledger ref (objects only: no branch, index or
working tree is touched), then, holding the ledger lock, compare every feed
three ways — the local file, the local ledger ref (what the last sync
published) and the remote's ref — import what the remote has beyond the
local file, publish what the local file has beyond the ref, and commit the
union to the local ref; release the lock, push the ref, and let the
projections catch up (they rebuild when imported events sort before folded
ones). A push that finds the remote moved starts the round again.

Every feed has one writer, so the union is a set of fast-forwards. A feed
that is not one (two machines writing under one writer id, a rewritten
history) is refused and reported, and the ref keeps what the remote holds
for it: nothing is merged by text, nothing a remote holds is dropped.
Imported bytes are verified — every line's hash and digest, the chain from
the local head, seq and hlc — before any of them is written, and nothing is
projected before that.

Cost: a feed whose file has not changed since the last sync (same inode and
size) and whose remote copy is the one already published is not opened at
all. Otherwise a feed is read once, from the point the ref already holds.
"""

from __future__ import annotations

import fcntl
import os
import re
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

import attrs
import orjson

from baton.model import frozen, mutable
from baton.config import read_json, write_json_atomic
from baton.errors import (InputError, LedgerCorrupt, NoSyncRemote, RemoteAuthFailed, RemoteRefRefused,
                          RemoteUnreachable, StorageError)
from baton.ledger import files
from baton.ledger.feed import FeedHead, FeedScan, line_ending_at, line_hashes_to, scan_bytes, scan_chunks
from baton.sync_signing import FeedSignatures, render_flagged

if TYPE_CHECKING:
    from baton.commands.context import Project
    from baton.ledger_ref import RefFeed

STATE_FILE = "sync-state.json"
ERASURE_PENDING = "sync-erasure.pending"
"""Written before a sync erases payloads in a local feed, removed once the
index, files and quarantine are scrubbed: a crash in between is finished by
the next sync."""
INCOMING_DIR = "sync-incoming"
ATTEMPTS = 3
_EVENT_ID = re.compile(rb'"hlc":\d+,"id":"([^"\\]{1,128})","prev":')
"""An event's own id in a canonical line: the member between ``hlc`` and ``prev``."""
_ID_CHUNK = 8 << 20
_FEW_IDS = 16
_CACHE_LAG = 1 << 20
"""The id cache is written only once the local feeds have gained more than
this since it last recorded them (or an import brings more): below it, their
new bytes are searched for the wanted ids instead. A write costs a
transaction and the checkpoint its connection's close runs (fsyncs), far more
than searching a MiB; so a sync importing one event writes nothing."""
ID_CACHE = "sync-ids.sqlite"
"""Every local feed's event ids up to where the last import looked (the duplicate check's cache)."""
_TAIL = 64
"""Up to this many ids, each is searched for in a local feed's bytes; more, every id there is read first."""
_KEEP_REMOTE = frozenset({"not_fast_forward", "unsigned", "unknown_key", "wrong_signer", "bad_signature"})
"""Refusals of a remote copy that is well formed but not taken: the ref keeps it as the remote holds it."""


@frozen
class RefusedFeed:
    """A feed sync would not take: not a fast-forward, or failing verification."""

    feed: str
    side: str
    """``remote`` (the remote's copy was refused) or ``local`` (the local file was)."""
    kind: str
    """``not_fast_forward``, or a verification problem (``bad_hash``, ``broken_chain``…)."""
    seq: int | None
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"feed": self.feed, "side": self.side, "kind": self.kind, "seq": self.seq, "message": self.message}


@mutable
class ReadCount:
    """What a sync read: local feed files opened and bytes read from them,
    segment blobs read from the object store."""

    feeds: set[str] = attrs.field(factory=set)
    feed_bytes: int = 0
    segments: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"feeds": sorted(self.feeds), "feed_bytes": self.feed_bytes, "segments": self.segments}


@frozen
class SyncResult:
    remote: str
    ref: str
    imported: dict[str, int]
    """Feed → events imported from the remote."""
    published: dict[str, int]
    """Feed → events the local ref gained from the local file."""
    refused: list[RefusedFeed]
    pushed: bool
    commit: str | None
    read: ReadCount
    rebuilt: bool
    attempts: int = 1
    erased: dict[str, int] = attrs.field(factory=dict)
    """Feed → payloads erased in the local file, as a ``handoff.forgotten`` in the union of feeds asks."""
    ref_erased: dict[str, int] = attrs.field(factory=dict)
    """Feed → payloads erased on the ref's copy (the local file had them erased already)."""
    signers: dict[str, Any] = attrs.field(factory=dict)
    """Signed feeds (``baton.sync_signing``): each feed's signer, the remote copies taken unsigned or badly signed."""
    dropped: list[str] = attrs.field(factory=list)
    """Remote feeds refused and left out of the ref this clone publishes: the remote no longer holds them."""
    behind: dict[str, dict[str, int]] = attrs.field(factory=dict)
    """Feeds the remote held less of than this clone had published (its ref went back): put back by the push."""
    cleaned_locks: list[str] = attrs.field(factory=list)
    """Stale pack index locks removed from a path remote (``baton.domain.remote_locks``)."""

    @property
    def exit_code(self) -> int:
        # A remote that went back lost events it had acknowledged: put back by
        # this push (a fast-forward from what it holds), but never a clean sync.
        if any(r.kind != "not_fast_forward" for r in self.refused) or self.behind:
            return 3
        return 4 if self.refused else 0

    def to_json(self) -> dict[str, Any]:
        return {"remote": self.remote, "ref": self.ref, "imported": dict(sorted(self.imported.items())),
                "published": dict(sorted(self.published.items())),
                "refused": [r.to_json() for r in self.refused], "pushed": self.pushed, "commit": self.commit,
                "read": self.read.to_json(), "projections_rebuilt": self.rebuilt, "attempts": self.attempts,
                "erased": dict(sorted(self.erased.items())), "ref_erased": dict(sorted(self.ref_erased.items())),
                "signers": self.signers, "dropped": sorted(self.dropped),
                "behind": dict(sorted(self.behind.items())), "cleaned_locks": list(self.cleaned_locks)}

    def render(self) -> str:
        lines = []
        if self.imported:
            total = sum(self.imported.values())
            lines.append(f"Imported {total} event(s) from {len(self.imported)} feed(s) of {self.remote}.")
        if self.published:
            total = sum(self.published.values())
            lines.append(f"Published {total} event(s) from {len(self.published)} feed(s) to {self.ref}.")
        if self.erased:
            lines.append(f"Erased {sum(self.erased.values())} payload(s) in {len(self.erased)} local feed(s), as "
                         "recorded handoff.forgotten events ask (`baton verify` reports them).")
        if self.ref_erased:
            lines.append(f"Erased {sum(self.ref_erased.values())} forgotten payload(s) from {len(self.ref_erased)} "
                         f"feed(s) on {self.ref} (its history still holds them: docs/sync.md).")
        for r in self.refused:
            seq = f" at seq {r.seq}" if r.seq is not None else ""
            lines.append(f"REFUSED {r.side} feed {r.feed}{seq}: {r.kind}: {r.message}")
        for feed, seqs in sorted(self.behind.items()):
            verb = "put back" if self.pushed else "to put back"
            lines.append(f"BEHIND remote feed {feed}: the remote held it to seq {seqs['remote_seq']}, this clone "
                         f"had published seq {seqs['published_seq']} ({verb}; its ref went back, or a clone "
                         "dropped a copy it refused)")
        for lock in self.cleaned_locks:
            lines.append(f"REMOVED stale lock {lock} on the remote (a pack index lock no process had written "
                         "to for 10 minutes: a full disk or a killed push left it)")
        for feed in sorted(self.dropped):
            lines.append(f"DROPPED remote feed {feed} from {self.ref}: this clone does not publish a copy it "
                         "refused (its writer's next sync publishes the feed again)")
        lines.extend(render_flagged(self.signers))  # signed feeds
        if not self.imported and not self.published and not self.refused and not self.erased \
                and not self.ref_erased and not self.behind and not self.pushed:
            lines.append(f"Already in sync with {self.remote} ({self.ref}).")
        elif self.pushed:
            lines.append(f"Pushed {self.ref} to {self.remote}.")
        return "\n".join(lines)


class _RemoteMoved(Exception):
    """The remote's ref changed between fetch and push: start the round again."""

    lock: str | None = None
    """A lock file on a path remote that blocked the push (kept: not provably stale)."""


class _Refuse(Exception):
    def __init__(self, refused: RefusedFeed) -> None:
        self.refused = refused


# -- git plumbing ------------------------------------------------------------------

def _open_repo(project: "Project"):
    from dulwich.errors import NotGitRepository
    from dulwich.repo import Repo

    from baton.gitinfo import locate

    where = locate(project.root)
    if where is None:
        raise NoSyncRemote(f"{project.root} is not in a git repository; `baton sync` shares the ledger "
                           "through a git remote", details={"root": str(project.root)})
    try:
        repo = Repo(str(where.common_dir))
    except (NotGitRepository, OSError, ValueError) as exc:
        raise NoSyncRemote(f"cannot open the git repository at {where.common_dir}: {exc}") from None
    _read_config_once(repo)
    _fast_loose_objects(repo)
    return repo


def _read_config_once(repo) -> None:
    """dulwich reads the config files again at every ``get_config`` (and the
    user's at every ``get_config_stack``); a sync asks four times (the remote's
    url, its transport, the loose objects' level, the signing key) and writes
    none: each is read once for this sync's repository object."""
    from dulwich.repo import Repo

    read: dict[str, Any] = {}

    def config():
        if "repo" not in read:
            read["repo"] = Repo.get_config(repo)
        return read["repo"]

    def stack():
        if "stack" not in read:
            read["stack"] = Repo.get_config_stack(repo)
        return read["stack"]

    repo.get_config = config
    repo.get_config_stack = stack


def _fast_loose_objects(repo) -> None:
    """Segments are written once as loose objects and soon packed by a push:
    zlib level 1 for them (half of a large first sync was spent compressing
    at the default level), unless the repository sets a level itself."""
    config = repo.get_config()
    for name in (b"looseCompression", b"compression"):
        try:
            config.get((b"core",), name)
            return
        except KeyError:
            continue
    if hasattr(repo.object_store, "loose_compression_level"):
        repo.object_store.loose_compression_level = 1


def _remote_url(repo, remote: str) -> str:
    try:
        url = repo.get_config().get((b"remote", remote.encode()), b"url")
    except KeyError:
        url = None
    if not url:
        raise NoSyncRemote(f"no git remote named {remote!r} is configured; add one with "
                           f"`git remote add {remote} URL`, or name another with `remote`",
                           details={"remote": remote})
    return url.decode("utf-8", "replace")


def _client(repo, url: str):
    from dulwich.client import get_transport_and_path

    try:
        return get_transport_and_path(url, config=repo.get_config_stack())
    except (ValueError, OSError) as exc:
        shown = shown_url(url)
        raise RemoteUnreachable(f"cannot reach remote {shown!r}: {transport_text(exc)}",
                                details={"url": shown}) from None


def shown_url(url: str) -> str:
    """``url`` as messages show it: a password in it (``https://user:secret@host``) never is."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        host = parts.hostname or ""
        if parts.port is not None:
            host = f"{host}:{parts.port}"
        return urlunsplit(parts._replace(netloc=f"{parts.username}:***@{host}"))
    except ValueError:
        return url


def _failure(exc: BaseException, action: str, url: str) -> RemoteUnreachable:
    """A transport error as the exit-4 error sync reports."""
    from dulwich.client import HTTPProxyUnauthorized, HTTPUnauthorized

    if isinstance(exc, (HTTPUnauthorized, HTTPProxyUnauthorized)):
        who = "the proxy" if isinstance(exc, HTTPProxyUnauthorized) else "the remote"
        return RemoteAuthFailed(
            f"cannot {action} {url!r}: {who} refused the credentials (none given, or wrong); give them as git "
            "does — a credential helper, or user and password in the remote's URL — and check them with "
            "`git ls-remote`", details={"url": url})
    return RemoteUnreachable(f"cannot {action} {url!r}: {transport_text(exc)}", details={"url": url})


def transport_text(exc: BaseException) -> str:
    """A transport error as one clean line: ssh and the remote's stderr end
    lines with carriage returns and may carry other control characters; each
    line is stripped of them and the lines are joined with ``; ``."""
    import re
    import unicodedata

    text = re.sub(r"\x1b\[[0-9;?]*[ -/]*[@-~]", "", str(exc))  # terminal colour and cursor codes
    lines = ("".join(ch for ch in line if ch == "\t" or unicodedata.category(ch) != "Cc").strip()
             for line in text.splitlines())
    return "; ".join(line for line in lines if line) or type(exc).__name__


def _transport_errors() -> tuple[type[BaseException], ...]:
    from dulwich import errors
    from dulwich.client import HTTPProxyUnauthorized, HTTPUnauthorized

    return (OSError, errors.GitProtocolError, errors.NotGitRepository, errors.HangupException,
            errors.SendPackError, errors.ObjectMissing, KeyError, ValueError, HTTPUnauthorized,
            HTTPProxyUnauthorized)


def _fetch(repo, client, path: str, ref: bytes, url: str) -> bytes | None:
    """Bring the remote's ledger ref's objects into the local store; its commit id (None: no ref)."""
    seen: dict[str, bytes | None] = {}

    def wants(refs, depth=None):
        sha = refs.get(ref)
        seen["sha"] = sha
        if sha is None or sha in repo.object_store:
            return []
        return [sha]

    # What this clone has: dulwich offers only its branches as "haves", so a
    # fetch would send the whole ledger ref again (every segment, compressed
    # anew). The ledger ref is offered too: only the new objects travel.
    from dulwich.repo import Repo

    heads = [sha for sha in repo.refs.as_dict(b"refs/heads").values() if sha in repo.object_store]
    mine = repo.refs.as_dict().get(ref)
    if mine is not None and mine in repo.object_store:
        heads.append(mine)
    repo.get_graph_walker = lambda heads_=None: Repo.get_graph_walker(repo, heads if heads_ is None else heads_)
    try:
        if not _fetch_few_locally(repo, client, path, wants):
            client.fetch(path, repo, determine_wants=wants)
    except _transport_errors() as exc:
        raise _failure(exc, f"fetch {ref.decode()} from", url) from None
    finally:
        del repo.get_graph_walker
    return seen.get("sha")


_FEW_OBJECTS = 256
_UNPACK_LIMIT = 100
"""Fewer objects than this are stored loose (git's ``fetch.unpackLimit`` default)."""


def _fetch_few_locally(repo, client, path: str, wants) -> bool:
    """A path remote's few new objects (an incremental sync), copied one by one.

    dulwich's local fetch builds a pack, and to reuse the remote's deltas it
    reads through the remote's whole pack; its negotiation also walks every
    commit the two sides have in common (one per sync: O(syncs)). Here the
    walk goes back from the remote's commit only until commits this clone
    already has (``_new_objects``), and a handful of objects is cheaper copied
    (each read by its pack index). Returns False when this is not a path
    remote, its ref is not a commit, or there are many objects: the ordinary
    fetch does it."""
    from dulwich.client import LocalGitClient
    from dulwich.repo import Repo

    if not isinstance(client, LocalGitClient):
        return False
    with Repo(os.fsdecode(path)) as source:
        refs = source.refs.as_dict()
        want = wants({name: sha for name, sha in refs.items() if sha in source.object_store})
        if not want:
            return True
        found = _new_objects(source.object_store, repo.object_store, want, _FEW_OBJECTS)
        if found is None:
            return False
        if len(found) < _UNPACK_LIMIT:
            # as git's fetch.unpackLimit: a few objects are stored loose, not as
            # one more small pack that every later lookup would have to search;
            # each after the objects it names, so a commit or tree this clone
            # has is whole (a walk stops there)
            for obj in found:
                repo.object_store.add_object(obj)
        else:
            repo.object_store.add_objects([(obj, None) for obj in found])
    return True


def _new_objects(source, local, wants: list[bytes], limit: int) -> list | None:
    """The objects reachable from ``wants`` in ``source`` that ``local`` lacks,
    each after every object it names (blobs and subtrees before their tree,
    a tree before its commit, parents before children); None when there are
    more than ``limit`` or the history is not plain commits and trees (the
    ordinary fetch copes with those).

    A commit ``local`` holds, with its tree, is not walked past, nor a tree it
    holds: what this clone has is whole, as git assumes of the commits it
    has. So one new event costs the new commit and the few trees and blobs it
    changed, whatever the length of the history or of the ref."""
    import stat

    from dulwich.objects import Commit, Tree

    commits: list = []
    seen: set[bytes] = set()
    stack = list(wants)
    while stack:
        sha = stack.pop()
        if sha in seen:
            continue
        seen.add(sha)
        if sha in local:
            obj = local[sha]
            if not isinstance(obj, Commit):
                return None
            if obj.tree in local:
                continue
        obj = source[sha]
        if not isinstance(obj, Commit) or len(seen) > limit:
            return None
        commits.append(obj)
        stack.extend(obj.parents)
    found: list = []

    def tree(sha: bytes) -> bool:
        if sha in seen or sha in local:
            return True
        seen.add(sha)
        obj = source[sha]
        if not isinstance(obj, Tree):
            return False
        for entry in obj.iteritems():
            if stat.S_ISDIR(entry.mode):
                if not tree(entry.sha):
                    return False
            elif stat.S_ISREG(entry.mode) or stat.S_ISLNK(entry.mode):
                if entry.sha not in seen and entry.sha not in local:
                    seen.add(entry.sha)
                    found.append(source[entry.sha])
            else:
                return False  # a submodule: not a ledger ref's shape
            if len(found) > limit:
                return False
        found.append(obj)
        return True

    for commit in reversed(commits):  # oldest first
        if not tree(commit.tree):
            return None
    order = {commit.id: n for n, commit in enumerate(reversed(commits))}
    found.extend(sorted(commits, key=lambda c: order[c.id]))
    return found if len(found) <= limit else None


def _pack_data_for(repo, client, path: str):
    """What a push sends: a pack, except to a path remote when the objects are
    few (fewer than git's ``receive.unpackLimit``, 100): they are written into
    its object store loose, before its ref moves, and the pack is empty (as
    git's receive-pack unpacks a small push, so the remote does not gain one
    more pack per sync for every later lookup to search)."""
    from dulwich.client import LocalGitClient

    if not isinstance(client, LocalGitClient):
        return repo.object_store.generate_pack_data

    def generate(have, want, *args, **kwargs):
        from dulwich.object_store import MissingObjectFinder
        from dulwich.repo import Repo

        found = []
        for oid, _hint in MissingObjectFinder(repo.object_store, haves=have, wants=want):
            found.append(oid)
            if len(found) >= _UNPACK_LIMIT:
                return repo.object_store.generate_pack_data(have, want, *args, **kwargs)
        if found:
            with Repo(os.fsdecode(path)) as target:
                for oid in found:
                    target.object_store.add_object(repo.object_store[oid])
        return 0, iter(())

    return generate


def _open_id_cache(path: Path):
    """The id cache (a write-ahead log: a crash loses at most the last
    transaction, whose ids and offsets go together, and never tears it)."""
    import sqlite3

    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
    except sqlite3.Error:
        db.close()
        raise
    return db


def _last_bytes(path: Path) -> bytes | None:
    """The last few bytes of a staged import (what the feed will end with), or None."""
    try:
        with open(path, "rb") as fh:
            size = fh.seek(0, os.SEEK_END)
            fh.seek(max(0, size - _TAIL))
            return fh.read()
    except OSError:
        return None


def _held_open(path: str) -> bool:
    """Does a process on this machine have ``path`` open? Without ``/proc``
    it cannot be told, and the answer is yes (nothing is removed)."""
    proc = Path("/proc")
    if not (proc / "self" / "fd").is_dir():
        return True
    try:
        target = os.path.realpath(path)
    except OSError:
        return True
    for pid in os.listdir(proc):
        if not pid.isdigit():
            continue
        try:
            fds = os.listdir(proc / pid / "fd")
        except OSError:
            continue  # gone, or another user's: its locks are its own
        for fd in fds:
            try:
                if os.readlink(proc / pid / "fd" / fd) == target:
                    return True
            except OSError:
                continue
    return False


def _local_remote_dir(client, path: str) -> str | None:
    """The control directory of a path (or ``file://``) remote, else None."""
    from dulwich.client import LocalGitClient
    from dulwich.repo import Repo

    if not isinstance(client, LocalGitClient):
        return None
    try:
        with Repo(path) as remote:
            return remote.controldir()
    except Exception:  # noqa: BLE001 - not a repository we can open: nothing to clean
        return None


def _remove_stale_lock(controldir: str, lock: str, cleaned: list[str]) -> bool:
    """Remove ``lock`` when ``baton.domain.remote_locks`` says it may; True if it went."""
    import time

    from baton.domain.remote_locks import may_remove

    try:
        rel = os.path.relpath(lock, controldir).replace(os.sep, "/")
        age = time.time() - os.stat(lock).st_mtime
    except (OSError, ValueError):
        return False
    if rel.startswith("../") or not may_remove(rel, age_seconds=age, held_open=_held_open(lock)):
        return False
    try:
        os.unlink(lock)
    except FileNotFoundError:
        pass
    except OSError:
        return False
    cleaned.append(lock)
    return True


def _clean_stale_pack_locks(client, path: str, cleaned: list[str]) -> None:
    """After a push to a path remote: remove the stale pack index locks it holds."""
    controldir = _local_remote_dir(client, path)
    if controldir is None:
        return
    pack_dir = os.path.join(controldir, "objects", "pack")
    try:
        names = [n for n in os.listdir(pack_dir) if n.endswith(".idx.lock")]
    except OSError:
        return
    for name in sorted(names):
        _remove_stale_lock(controldir, os.path.join(pack_dir, name), cleaned)


def _push(repo, client, path: str, ref: bytes, new: bytes, expected: bytes | None, url: str,
          cleaned: list[str] | None = None) -> None:
    from dulwich.objects import ZERO_SHA

    def update(refs):
        current = refs.get(ref)
        if current in (None, ZERO_SHA):
            current = None
        if current != expected:
            raise _RemoteMoved()
        return {ref: new}

    from dulwich.file import FileLocked

    try:
        result = client.send_pack(path, update, _pack_data_for(repo, client, path))
    except _RemoteMoved:
        raise
    except FileLocked as exc:  # a path remote: another push holds a lock (the ref's, a pack index's) right now
        lock = os.fsdecode(getattr(exc, "lockfilename", b"") or b"") or f"{ref.decode()}.lock"
        controldir = _local_remote_dir(client, path)
        if controldir is not None and cleaned is not None and _remove_stale_lock(controldir, lock, cleaned):
            raise _RemoteMoved(f"removed the stale lock {lock}") from None
        moved = _RemoteMoved(f"{lock} exists on the remote: another push holds it, or one died holding it")
        moved.lock = lock
        raise moved from None
    except _transport_errors() as exc:
        raise _failure(exc, f"push {ref.decode()} to", url) from None
    status = (getattr(result, "ref_status", None) or {}).get(ref)
    if status:
        # "stale info" / "non-fast-forward" / "failed to update ref" (git's receive-pack
        # over ssh or http: the ref moved after it was advertised), "unable to set" (a
        # path or file:// remote, written by dulwich, whose ref moved after it was read)
        if any(word in str(status) for word in ("stale", "fast", "failed to update ref", "unable to set")):
            raise _RemoteMoved(str(status))
        raise RemoteUnreachable(f"remote {url!r} refused {ref.decode()}: {status}", details={"url": url})


# -- the local side ------------------------------------------------------------------

@contextmanager
def _ledger_lock(project: "Project") -> Iterator[None]:
    """The ledger's write lock (the file ``Ledger.locked`` holds), without
    catching up: a sync with nothing new reads no feed."""
    path = project.paths.baton_dir / "ledger.lock"
    try:
        project.paths.ledger_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise StorageError(f"cannot open the ledger lock {path}: {exc}") from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)


class _LocalFeeds:
    """The ledger's feed files, every read counted."""

    def __init__(self, project: "Project", count: ReadCount) -> None:
        self.dir = project.paths.ledger_dir
        self.quarantine = project.paths.quarantine_dir
        self.count = count

    def path(self, feed: str) -> str:
        return f"{self.dir}/{feed}.jsonl"

    def names(self) -> list[str]:
        try:
            with os.scandir(self.dir) as entries:
                return sorted(e.name[:-6] for e in entries if e.name.endswith(".jsonl") and e.is_file())
        except FileNotFoundError:
            return []

    def stat(self, feed: str) -> os.stat_result | None:
        try:
            return os.stat(self.path(feed))
        except FileNotFoundError:
            return None

    def read(self, feed: str, at: int, size: int) -> bytes:
        data = files.read_range(self.path(feed), at, size)
        self.count.feeds.add(feed)
        self.count.feed_bytes += len(data)
        return data

    def holds(self, feed: str, head: FeedHead) -> bool:
        """The file has the line ``head`` stopped after (one line read)."""
        if not head.offset:
            return True
        line = line_ending_at(lambda at, n: self.read(feed, at, n), head.offset)
        return line_hashes_to(line, head.hash)

    def sound_lines(self, feed: str, start: FeedHead, size: int) -> Iterator[tuple[bytes, FeedScan]]:
        """The feed's sound lines after ``start``, a chunk at a time, with their scans.

        Raises:
            LedgerCorrupt: a line before the tail fails its checks.
        """
        buf = bytearray()
        base = start.offset

        def read(at: int, n: int) -> bytes:
            data = self.read(feed, at, n)
            buf.extend(data)
            return data

        for scan in scan_chunks(feed, read, start, size):
            take = scan.head.offset - base
            yield bytes(buf[:take]), scan
            del buf[:take]
            base = scan.head.offset


def batch_ends(scan: FeedScan, start: int) -> list[int]:
    """Where a segment may end in the bytes ``scan`` read from ``start``: after
    each event that is not inside a batch (a batch is all-or-nothing, so a
    segment holds the whole of it)."""
    cuts = []
    for event, end in zip(scan.events, scan.ends):
        batch = event.extra.get("batch") if event.extra else None
        if type(batch) is not dict or batch.get("n") == batch.get("of"):
            cuts.append(end - start)
    return cuts


def line_in_segment(data: bytes, end: int) -> bytes | None:
    """The whole line ending at ``end`` in a segment's ``data`` (without its
    newline), or None when no line ends there."""
    if end <= 0 or end > len(data) or data[end - 1:end] != b"\n":
        return None
    return data[data.rfind(b"\n", 0, end - 1) + 1:end - 1]


def _problem_of(feed: str, side: str, exc: LedgerCorrupt) -> RefusedFeed:
    details = exc.details or {}
    return RefusedFeed(feed, side, str(details.get("kind") or "corrupt"), details.get("seq"), exc.message)


# -- one round -------------------------------------------------------------------------

@mutable
class _Round:
    project: "Project"
    repo: Any
    local: _LocalFeeds
    base: dict[str, "RefFeed"]
    remote: dict[str, "RefFeed"]
    state: dict[str, Any]
    out: dict[str, "RefFeed"] = attrs.field(factory=dict)
    imported: dict[str, int] = attrs.field(factory=dict)
    published: dict[str, int] = attrs.field(factory=dict)
    refused: list[RefusedFeed] = attrs.field(factory=list)
    staged: list[tuple[str, Path, FeedHead, int]] = attrs.field(factory=list)
    new_state: dict[str, Any] = attrs.field(factory=dict)
    erased: dict[str, int] = attrs.field(factory=dict)
    ref_erased: dict[str, int] = attrs.field(factory=dict)
    rewrites: dict[str, bytes] = attrs.field(factory=dict)
    """Feed → the whole new file: its lines with payloads erased (written with the staged imports)."""
    erased_payloads: list[Any] = attrs.field(factory=list)
    forgotten: set[str] | None = None
    """Every event id a sound ``handoff.forgotten`` names, in the local feeds or the remote's (read once, when needed)."""
    signatures: Any = None
    """Signed feeds: the round's ``baton.sync_signing.FeedSignatures``."""
    dropped: list[str] = attrs.field(factory=list)
    """Remote feeds refused and not carried on the ref this clone pushes (the remote loses them)."""
    imported_ids: dict[str, list[tuple[str, int]]] = attrs.field(factory=dict)
    """Feed → the (id, seq) of every event staged for import."""
    local_trees: dict[str, "RefFeed"] = attrs.field(factory=dict)
    keep_remote: set[str] = attrs.field(factory=set)
    restore_own: bool = False
    remote_exists: bool = True
    """The remote has the ledger ref (a remote without it is not "behind")."""
    id_db: Any = None
    """The id cache's connection, open from the duplicate check to the end of ``run``."""
    acked: dict[str, int] = attrs.field(factory=dict)
    """Feed → the highest seq this clone has seen the remote hold (fetched, or taken by a push of this clone)."""
    behind: dict[str, dict[str, int]] = attrs.field(factory=dict)
    """Feed → what the remote held of it and what this clone had published: the remote went back."""
    """``sync --restore-own-feed``: the remote's copy may extend this clone's own feed (restored from a backup)."""
    """Feeds refused but kept as the remote holds them (two remote feeds repeating each other's ids)."""
    """Feed → its folder packed from the local file (what this clone publishes of it)."""

    def run(self) -> None:
        names = sorted(set(self.local.names()) | set(self.base) | set(self.remote))
        for feed in names:
            try:
                self._feed(feed)
            except _Refuse as refusal:
                self._refused(feed, refusal.refused)
            else:
                self._note_behind(feed)
        try:
            for feed, refused in self._repeated_ids():
                self._refused(feed, refused)
            appended = {feed: (local.offset, _last_bytes(staging)) for feed, staging, local, size in self.staged
                        if size == local.offset}
            self._write_staged()
            if appended and self.imported_ids and self.id_db is not None:
                self._cache_imported(appended)
        finally:
            if self.id_db is not None:
                self.id_db.close()
                self.id_db = None

    def _note_behind(self, feed: str) -> None:
        """The remote holds less of ``feed`` than it held before, as this clone
        saw it (its ref was reset, or another clone dropped a copy it refused):
        the push puts it back, and the sync says so. What the remote *held*
        counts, not what this clone's ref holds: a commit whose push failed
        (a race, a refused push) was never the remote's."""
        remote, out, acked = self.remote.get(feed), self.out.get(feed), self.acked.get(feed)
        if not self.remote_exists or acked is None or out is None or out.problem is not None:
            return
        had = remote.head.seq if remote is not None and remote.problem is None else 0
        if had < acked <= out.head.seq:
            self.behind[feed] = {"remote_seq": had, "published_seq": acked}

    def _refused(self, feed: str, refused: RefusedFeed) -> None:
        self.refused.append(refused)
        self.out.pop(feed, None)
        self.published.pop(feed, None)
        kept = self._kept(feed, refused)
        if kept is not None:
            self.out[feed] = kept
        elif feed in self.remote:
            self.dropped.append(feed)
        self._drop_staged(feed)
        self.imported_ids.pop(feed, None)

    def _repeated_ids(self) -> list[tuple[str, RefusedFeed]]:
        """Imported feeds repeating an event id another event already has (in
        a local feed, in another imported feed, or earlier in the same feed):
        an id names one event in the whole ledger. Read only when something is
        imported: every local feed's ids, then each staged event's."""
        if not self.imported_ids:
            return []
        importing = set(self.imported_ids)
        wanted = {event_id for ids in self.imported_ids.values() for event_id, _ in ids}
        seen = self._known_ids(wanted)
        problems: dict[str, RefusedFeed] = {}

        def refuse(feed: str, event_id: str, seq: int, other: str) -> None:
            where = "earlier in the same feed" if other == feed else f"in feed {other}"
            problems.setdefault(feed, RefusedFeed(feed, "remote", "duplicate_id", seq,
                                                  f"the remote's feed {feed} repeats event id {event_id}, "
                                                  f"already {where}"))

        staged: dict[str, tuple[str, int]] = {}
        for feed in sorted(importing):
            for event_id, seq in self.imported_ids[feed]:
                if event_id in seen:
                    refuse(feed, event_id, seq, seen[event_id])
                elif event_id in staged:  # two feeds of the remote: neither can be told the original,
                    other, other_seq = staged[event_id]  # so neither is taken, and the ref keeps both
                    refuse(feed, event_id, seq, other)
                    if other != feed:
                        refuse(other, event_id, other_seq, feed)
                        self.keep_remote.update((feed, other))
                else:
                    staged[event_id] = (feed, seq)
        return sorted(problems.items())

    def _known_ids(self, wanted: set[str]) -> dict[str, str]:
        """Those of ``wanted`` that are the id of an event of a local feed → that feed.

        From ``.baton/sync-ids.sqlite``, which holds every local feed's event
        ids up to where it last looked (the file's inode, that offset and the
        bytes just before it): only what a feed gained since is read (each
        line parsed, so an id a payload quotes is not taken for an event's),
        and a feed replaced or cut shorter is read again from its start.
        Without the cache (it cannot be opened), every feed is searched."""
        import sqlite3

        path = self.project.paths.baton_dir / ID_CACHE
        try:
            db = _open_id_cache(path)
        except sqlite3.Error:
            return self._scanned_ids(wanted)
        try:
            found = self._cached_ids(db, wanted)
        except sqlite3.Error:
            db.close()
            for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
                _unlink(leftover)  # a damaged cache is only a cache
            return self._scanned_ids(wanted)
        self.id_db = db  # kept open for the ids this round imports (closed by ``run``)
        return found

    def _cache_imported(self, appended: dict[str, tuple[int, bytes | None]]) -> None:
        """Add the ids just imported to the id cache, for each feed the cache
        had read up to where the import appended: the next import then reads
        none of these bytes again (a fresh clone's first import included)."""
        import sqlite3

        db = self.id_db
        if sum(self.out[feed].head.offset - start for feed, (start, _tail) in appended.items()
               if feed in self.out) <= _CACHE_LAG:
            return  # a small import: the next one searches these bytes (``_cached_ids``)
        try:
            db.execute("BEGIN")
            for feed, (start, tail) in appended.items():
                ids = self.imported_ids.get(feed)
                if not ids or not tail:
                    continue
                row = db.execute("SELECT ino, offset FROM scanned WHERE feed = ?", (feed,)).fetchone()
                if (row[1] if row else 0) != start:
                    continue  # the cache had not read this feed up to there: the next import will
                st = self.local.stat(feed)
                if st is None:
                    continue
                if start and row[0] != st.st_ino:
                    continue
                db.executemany("INSERT OR IGNORE INTO ids VALUES (?, ?)", [(i, feed) for i, _seq in ids])
                db.execute("INSERT OR REPLACE INTO scanned VALUES (?, ?, ?, ?)", (feed, st.st_ino, st.st_size, tail))
            db.execute("COMMIT")
        except (sqlite3.Error, OSError):
            try:  # only a cache: the next import reads the feed instead
                if db.in_transaction:
                    db.execute("ROLLBACK")
            except sqlite3.Error:
                pass

    def _scanned_ids(self, wanted: set[str]) -> dict[str, str]:
        seen: dict[str, str] = {}
        for name in self.local.names():
            for event_id in self._local_ids(name, wanted):
                seen.setdefault(event_id, name)
        return seen

    def _cached_ids(self, db, wanted: set[str]) -> dict[str, str]:
        db.execute("CREATE TABLE IF NOT EXISTS scanned (feed TEXT PRIMARY KEY, ino INTEGER, "
                   "offset INTEGER, tail BLOB)")
        db.execute("CREATE TABLE IF NOT EXISTS ids (id TEXT PRIMARY KEY, feed TEXT) WITHOUT ROWID")
        db.execute("BEGIN")
        names = self.local.names()
        scanned = {feed: (ino, offset, tail) for feed, ino, offset, tail
                   in db.execute("SELECT feed, ino, offset, tail FROM scanned")}
        for gone in set(scanned) - set(names):
            db.execute("DELETE FROM ids WHERE feed = ?", (gone,))
            db.execute("DELETE FROM scanned WHERE feed = ?", (gone,))
        gained: list[tuple[str, os.stat_result, tuple | None, int, bytes]] = []
        replaced = False
        for feed in names:
            st = self.local.stat(feed)
            if st is None:
                continue
            known = scanned.get(feed)
            ino, offset, tail = known or (None, 0, b"")
            if offset and (ino != st.st_ino or offset > st.st_size
                           or self.local.read(feed, offset - len(tail), len(tail)) != tail):
                db.execute("DELETE FROM ids WHERE feed = ?", (feed,))
                offset, tail, replaced = 0, b"", True
            if offset < st.st_size or (known is not None and known != (st.st_ino, offset, tail)):
                gained.append((feed, st, known, offset, tail))
        lazy: list[tuple[str, int, int]] = []
        if not replaced and sum(st.st_size - offset for _feed, st, _known, offset, _tail in gained) <= _CACHE_LAG:
            lazy = [(feed, offset, st.st_size) for feed, st, _known, offset, _tail in gained]
        else:
            for feed, st, known, offset, tail in gained:
                if offset < st.st_size:
                    offset, tail = self._cache_lines(db, feed, offset, st.st_size, tail)
                if known != (st.st_ino, offset, tail):
                    db.execute("INSERT OR REPLACE INTO scanned VALUES (?, ?, ?, ?)",
                               (feed, st.st_ino, offset, tail))
        found: dict[str, str] = {}
        ordered = sorted(wanted)
        for at in range(0, len(ordered), 500):
            part = ordered[at:at + 500]
            found.update(db.execute(f"SELECT id, feed FROM ids WHERE id IN ({','.join('?' * len(part))})",
                                    part).fetchall())
        db.execute("COMMIT")
        for feed, offset, size in lazy:  # what feeds gained since the cache recorded them: searched, not recorded
            for event_id in self._local_ids(feed, wanted - set(found), offset, size):
                found.setdefault(event_id, feed)
        return found

    def _cache_lines(self, db, feed: str, offset: int, size: int, tail: bytes) -> tuple[int, bytes]:
        """Record the ids of the whole lines of ``feed`` from ``offset`` to ``size``:
        the new offset (after the last whole line) and the bytes before it."""
        carry = b""
        at = offset
        while at < size:
            data = self.local.read(feed, at, min(_ID_CHUNK, size - at))
            if not data:
                break
            at += len(data)
            data = carry + data
            cut = data.rfind(b"\n") + 1
            rows = []
            for line in data[:cut].splitlines():
                try:
                    raw = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue
                event_id = raw.get("id") if isinstance(raw, dict) else None
                if isinstance(event_id, str):
                    rows.append((event_id, feed))
            db.executemany("INSERT OR IGNORE INTO ids VALUES (?, ?)", rows)
            if cut:
                offset += cut
                tail = (tail + data[:cut])[-_TAIL:]
            carry = data[cut:]
        return offset, tail

    def _local_ids(self, feed: str, wanted: set[str], start: int = 0, end: int | None = None) -> Iterator[str]:
        """Those of ``wanted`` that are the id of an event of a local feed.

        Found by their place in a line rather than by parsing every line (a
        tenth of the time): lines are written canonical (sorted keys), so an
        event's own id sits between its ``hlc`` and its ``prev``; with many
        ids, every id in that place is read first to keep the candidates. A
        line where a candidate is found is then parsed, so an id a payload
        merely quotes is not taken for an event's. The feed was verified
        when it was written. ``start`` (a line's first byte) and ``end``:
        only that part of the feed (by default, all of it)."""
        if end is None:
            st = self.local.stat(feed)
            if st is None:
                return
            end = st.st_size
        found: set[str] = set()
        at, carry = start, b""
        while at < end and len(found) < len(wanted):
            data = self.local.read(feed, at, min(_ID_CHUNK, end - at))
            if not data:
                break
            at += len(data)
            data = carry + data
            cut = data.rfind(b"\n") + 1 if at < end else len(data)
            candidates = wanted - found
            if len(candidates) > _FEW_IDS:
                candidates &= {m.group(1).decode("utf-8", "replace") for m in _EVENT_ID.finditer(data, 0, cut)}
            for event_id in sorted(candidates):
                needle = f',"id":"{event_id}","prev":'.encode()
                hit = data.find(needle, 0, cut)
                while hit >= 0:
                    begin = data.rfind(b"\n", 0, hit) + 1
                    stop = data.find(b"\n", hit, cut)
                    try:
                        raw = orjson.loads(data[begin:stop if stop >= 0 else cut])
                    except orjson.JSONDecodeError:
                        raw = None
                    if isinstance(raw, dict) and raw.get("id") == event_id:
                        found.add(event_id)
                        yield event_id
                        break
                    hit = data.find(needle, hit + 1, cut)  # quoted inside a payload: read on
            carry = data[cut:]

    def _kept(self, feed: str, refused: RefusedFeed) -> "RefFeed | None":
        """What the ref holds for a refused feed. Never a folder that could
        not be read (it would be written back in another shape), and never a
        remote copy that failed verification (the clone would spread it): then
        the copy this clone published before, if it differs, else nothing —
        the remote loses that copy, and its writer's next sync publishes the
        feed again. A copy that is sound but not taken (not a fast-forward,
        not signed as required) stays as the remote holds it."""
        remote, base = self.remote.get(feed), self.base.get(feed)
        remote = remote if remote is not None and remote.problem is None else None
        base = base if base is not None and base.problem is None else None
        if refused.side == "local":
            return remote or base
        if feed == self.project.writer:  # the local file is authoritative for this clone's own feed
            mine = self.local_trees.get(feed) or base
            if mine is not None:
                return mine
            return remote if refused.kind in _KEEP_REMOTE or refused.kind == "own_feed" else None
        if (refused.kind in _KEEP_REMOTE or feed in self.keep_remote) and remote is not None:
            return remote
        if base is not None and (remote is None or base.tree != remote.tree):
            return base
        return None

    def _feed(self, feed: str) -> None:
        # -- signed feeds (baton/sync_signing.py): the remote's head checked before any of it is taken
        if self.signatures is not None:
            unsigned = self.signatures.check_remote(feed, self.remote.get(feed), self.base.get(feed))
            if unsigned is not None:
                raise _Refuse(unsigned)
        try:
            self._fast_forward(feed)
        except _Refuse as refusal:
            if refusal.refused.kind != "not_fast_forward":
                raise
            self._drop_staged(feed)
            self.published.pop(feed, None)
            if not self._reconcile_erasures(feed, refusal.refused):
                if feed == self.project.writer and refusal.refused.side == "remote":
                    raise _Refuse(self._own_feed(feed)) from None
                raise

    def _own_feed(self, feed: str) -> RefusedFeed:
        """This clone's own feed is written here alone: a remote copy that
        extends or rewrites it is refused, and the ref gets the local file's."""
        remote = self.remote[feed]
        return RefusedFeed(feed, "remote", "own_feed", remote.head.seq,
                           f"the remote's copy of this clone's own feed {feed} (seq {remote.head.seq}) is not a "
                           "prefix of the local file: events written elsewhere under this writer id (a copied "
                           ".baton/local.json) or forged; this clone publishes its own copy in its place (a clone "
                           "restored from a backup takes its published events back with a sync given "
                           "`restore_own_feed`)")

    def _fast_forward(self, feed: str) -> None:
        from baton.config import WRITER_ID
        from baton.ledger_ref import FeedTreeWriter

        base, remote = self.base.get(feed), self.remote.get(feed)
        if not WRITER_ID.match(feed):  # a name from a remote becomes a file name: never a path
            raise _Refuse(RefusedFeed(feed, "remote", "bad_ref", None,
                                      f"{feed!r} is not a writer id ([a-z0-9-], at most 64)"))
        malformed = None
        if remote is not None and remote.problem is not None:
            malformed = RefusedFeed(feed, "remote", "bad_ref", None, remote.problem)
            if feed != self.project.writer:
                raise _Refuse(malformed)
            remote = None  # this clone's own feed: refused once its own copy is packed (the ref gets that)
        if base is not None and base.problem is not None:
            base = None  # our own ref's copy is unreadable: rebuilt from the file
        st = self.local.stat(feed)
        size = st.st_size if st is not None else 0
        known = self.state.get(feed)
        if st is not None and base is not None and known == {"ino": st.st_ino, "size": size, "hash": base.head.hash} \
                and base.head.offset == size:
            local = base.head  # unchanged since the last sync: not opened
            tree = base
        elif st is None:
            local, tree = FeedHead(), None
        elif self.restore_own and feed == self.project.writer and any(
                c is not None and c.head.offset > size for c in (base, remote)):
            local, tree = self._file_head(feed, size), None  # restored from a backup: the rest comes from the remote
        else:
            local, tree = self._publish(feed, base, remote, size, FeedTreeWriter)
        if tree is not None:
            self.local_trees[feed] = tree
        if malformed is not None:
            raise _Refuse(malformed)
        if remote is not None and remote.head.offset > local.offset:
            if feed == self.project.writer and not self.restore_own:  # nobody else appends to it
                raise _Refuse(RefusedFeed(feed, "remote", "not_fast_forward", remote.head.seq,
                                          f"the remote's copy of feed {feed} is longer than the local file"))
            self._import(feed, remote, local, st)
            self.out[feed] = remote
            return
        if remote is not None and not self._extends(feed, remote, local, tree, base):
            raise _Refuse(RefusedFeed(feed, "remote", "not_fast_forward", remote.head.seq,
                                      f"the remote's feed {feed} (seq {remote.head.seq}) is not a prefix of the "
                                      f"local one (seq {local.seq}): two writers share this id, or a history "
                                      "was rewritten"))
        if tree is None:
            if base is not None:  # the local file is gone: the ref keeps what it had
                self.out[feed] = base
            return
        self.out[feed] = tree
        if st is not None:
            self.new_state[feed] = {"ino": st.st_ino, "size": tree.head.offset, "hash": tree.head.hash}

    def _file_head(self, feed: str, size: int) -> FeedHead:
        head = FeedHead()
        try:
            for _lines, scan in self.local.sound_lines(feed, head, size):
                head = scan.head
        except LedgerCorrupt as exc:
            raise _Refuse(_problem_of(feed, "local", exc)) from None
        return head

    def _extends(self, feed: str, remote: "RefFeed", local: FeedHead, tree: "RefFeed | None",
                 base: "RefFeed | None") -> bool:
        """The remote's copy is a prefix of the local feed (it is not longer)."""
        if (remote.head.offset, remote.head.hash) == (local.offset, local.hash):
            return True
        for known in (base, tree):
            if known is not None and known.tree == remote.tree:
                return True
        if remote.head.offset == local.offset:
            return False
        return self.local.holds(feed, remote.head)

    def _publish(self, feed: str, base: "RefFeed | None", remote: "RefFeed | None", size: int,
                 writer_cls) -> tuple[FeedHead, "RefFeed"]:
        """Read what the local file has beyond the longest copy it extends
        (the local ref's or the remote's) and pack it onto that copy."""
        start = None
        candidates = sorted((c for c in (base, remote) if c is not None and c.head.offset <= size),
                            key=lambda c: -c.head.offset)
        for candidate in candidates:
            if self.local.holds(feed, candidate.head):
                start = candidate
                break
        if start is None and base is not None:
            hint = (" (a clone restored from a backup takes its published events back with a sync given "
                    "`restore_own_feed`)") if feed == self.project.writer else ""
            raise _Refuse(RefusedFeed(feed, "local", "not_fast_forward", base.head.seq,
                                      f"the local feed {feed} no longer extends what was synced before "
                                      f"(seq {base.head.seq}): it was rewritten or cut{hint}"))
        head = start.head if start is not None else FeedHead()
        writer = writer_cls(self.repo, feed, start)
        events = 0
        try:
            for lines, scan in self.local.sound_lines(feed, head, size):
                writer.add(lines, batch_ends(scan, head.offset))
                events += len(scan.events)
                head = scan.head
        except LedgerCorrupt as exc:
            raise _Refuse(_problem_of(feed, "local", exc)) from None
        if start is not None and not events:
            return head, start
        if events and (remote is None or head.offset > remote.head.offset):
            self.published[feed] = events
        return head, writer.finish(head)

    def _import(self, feed: str, remote: "RefFeed", local: FeedHead, st: os.stat_result | None) -> None:
        """Verify the remote's bytes after ``local`` and stage them (written
        once every feed is verified)."""
        from baton.ledger_ref import BadRefFeed, feed_bytes

        folder = self.project.paths.baton_dir / INCOMING_DIR
        folder.mkdir(parents=True, exist_ok=True)
        staging = folder / f"{feed}.part"
        head, events = local, 0
        # A batch a segment ends inside (the packer cuts at any line): its first
        # lines are carried and read whole with the next segment.
        carry = b""
        ids: list[tuple[str, int]] = []
        try:
            with open(staging, "wb") as out:
                for offset, data in feed_bytes(self.repo, remote, self._segment_before(remote, local.offset)):
                    self.local.count.segments += 1
                    if offset < head.offset:  # the segment holding the local head's line: check it, skip it
                        line = line_in_segment(data, head.offset - offset)
                        if not line_hashes_to(line, local.hash):
                            raise _Refuse(RefusedFeed(
                                feed, "remote", "not_fast_forward", local.seq,
                                f"the remote's feed {feed} differs from the local one at or before seq "
                                f"{local.seq}: two writers share this id, or a history was rewritten"))
                        data, offset = data[head.offset - offset:], head.offset
                        if not data:
                            continue
                    if offset != head.offset + len(carry):
                        raise _Refuse(RefusedFeed(feed, "remote", "not_fast_forward", remote.head.seq,
                                                  f"the remote's feed {feed} does not continue the local one "
                                                  f"at byte {head.offset + len(carry)}"))
                    if carry:
                        data, carry = carry + data, b""
                    scan = scan_bytes(feed, data, head, at_end=False)
                    if scan.torn is not None:
                        raise _Refuse(RefusedFeed(feed, "remote", "torn", head.seq + 1,
                                                  f"the remote's feed {feed} has a line cut short at byte "
                                                  f"{scan.torn.offset}"))
                    read = scan.head.offset - head.offset
                    ids.extend((event.id, event.seq) for event in scan.events)
                    out.write(data[:read] if read < len(data) else data)
                    carry = data[read:] if read < len(data) else b""
                    head, events = scan.head, events + len(scan.events)
                if carry:
                    raise _Refuse(RefusedFeed(feed, "remote", "torn", head.seq + 1,
                                              f"the remote's feed {feed} ends inside a batch begun at byte "
                                              f"{head.offset}"))
                # not fsynced here: the feed it is appended to is (once per import), and a
                # new feed's staged file just before it is renamed into place
        except LedgerCorrupt as exc:
            problem = _problem_of(feed, "remote", exc)
            if problem.kind in ("fork", "broken_chain") and problem.seq == local.seq + 1:
                problem = attrs.evolve(problem, kind="not_fast_forward",
                                       message=f"the remote's feed {feed} does not continue the local one "
                                               f"after seq {local.seq}: {problem.message}")
            raise _Refuse(problem) from None
        except BadRefFeed as exc:
            raise _Refuse(RefusedFeed(feed, "remote", "bad_ref", None, str(exc))) from None
        except OSError as exc:
            raise StorageError(f"cannot stage the remote's feed {feed}: {exc}") from exc
        if (head.offset, head.seq, head.hash) != (remote.head.offset, remote.head.seq, remote.head.hash):
            raise _Refuse(RefusedFeed(feed, "remote", "bad_head", remote.head.seq,
                                      f"the remote's feed {feed} ends at seq {head.seq}, its head.json says "
                                      f"seq {remote.head.seq}"))
        self.staged.append((feed, staging, local, st.st_size if st is not None else 0))
        self.imported[feed] = events
        self.imported_ids[feed] = ids

    # -- copies that differ by erased payloads (``baton forget``) ---------------------

    def _reconcile_erasures(self, feed: str, refused: RefusedFeed) -> bool:
        """A feed that is no fast-forward only because a ``baton forget`` (here
        or on another replica) erased payloads in one copy: every copy becomes
        the line-by-line union — a line erased where either copy erased it —
        plus the longer copy's further lines. The local file is rewritten
        (staged, like an import) and the ref gets the merged feed.

        Returns False when no copy differs by an erasure (the refusal stands).

        Raises:
            _Refuse: a difference that is not an erasure a ``handoff.forgotten`` names.
        """
        from baton.ledger.erase import NotAnErasure, erase_lines, merge_erasures
        from baton.ledger_ref import BadRefFeed, FeedTreeWriter

        base, remote = self.base.get(feed), self.remote.get(feed)
        base = base if base is not None and base.problem is None else None
        remote = remote if remote is not None and remote.problem is None else None
        st = self.local.stat(feed)
        raw = self.local.read(feed, 0, st.st_size) if st is not None else b""
        try:
            local_head = scan_bytes(feed, raw, FeedHead()).head
        except LedgerCorrupt as exc:
            raise _Refuse(_problem_of(feed, "local", exc)) from None
        ours, torn = raw[:local_head.offset], raw[local_head.offset:]
        copies: list[tuple[str, RefFeed]] = [(side, c) for side, c in (("local", base), ("remote", remote))
                                             if c is not None]
        forgotten = _LazyIds(self._forgotten_ids)  # read only if some line differs
        merged = ours
        erased_here: list[str] = []
        remote_bytes = base_bytes = None
        ref_erased = 0
        touched = False
        try:
            for side, copy in copies:
                data = self._ref_bytes(copy)
                if side == "remote":
                    remote_bytes = data
                else:
                    base_bytes = data
                try:
                    scan_bytes(feed, data, FeedHead(), at_end=False)  # every line of the copy sound
                except LedgerCorrupt as exc:
                    raise _Refuse(_problem_of(feed, "remote" if side == "remote" else "local", exc)) from None
                try:
                    merge = merge_erasures(merged, data, forgotten)
                except NotAnErasure as exc:
                    if not exc.unnamed:
                        return False  # not an erasure at all: the fast-forward refusal stands
                    blame = "local" if exc.side == "ours" or side == "local" else "remote"
                    raise _Refuse(RefusedFeed(feed, blame, "not_fast_forward", exc.seq,
                                              f"the {blame} feed {feed} differs from the other copy by an "
                                              f"erasure nobody recorded: {exc.message}")) from None
                if side == "local" and merge.theirs_lines > merge.ours_lines:
                    return False  # the local file lost lines it had published: cut, not erased
                if merge.erased_in_ours or merge.erased_in_theirs:
                    touched = True
                if side == "remote" or remote is None:
                    ref_erased = len(merge.erased_in_theirs)
                erased_here.extend(merge.erased_in_ours)
                self.erased_payloads.extend(merge.erased_payloads)
                merged = merge.data
        except BadRefFeed as exc:
            raise _Refuse(RefusedFeed(feed, "remote", "bad_ref", None, str(exc))) from None
        if not touched:
            return False
        try:
            head = scan_bytes(feed, merged, FeedHead(), at_end=False).head
        except LedgerCorrupt as exc:  # the longer copy's further lines do not continue the other's
            raise _Refuse(_problem_of(feed, "remote", exc)) from None
        local_lines = ours.count(b"\n")
        cut = 0
        for _ in range(local_lines):
            cut = merged.index(b"\n", cut) + 1
        prefix, tail = merged[:cut], merged[cut:]
        if erased_here:
            rewritten, _count = erase_lines(ours, frozenset(erased_here))
            if rewritten != prefix:  # the erased lines are not byte for byte what this version writes
                raise _Refuse(RefusedFeed(feed, "remote", "not_fast_forward", refused.seq,
                                          f"the erased lines of feed {feed} are not written as this version "
                                          "writes them; upgrade Baton on every replica"))
            self.rewrites[feed] = prefix + torn
            self.erased[feed] = len(erased_here)
        if tail and feed == self.project.writer and not self.restore_own:
            raise _Refuse(self._own_feed(feed))
        if tail:
            self._stage_tail(feed, tail, scan_bytes(feed, prefix, FeedHead()).head, len(prefix) + len(torn))
        # what the ref holds from now on
        if remote is not None and merged == remote_bytes:
            self.out[feed] = remote
        elif base is not None and merged == base_bytes and remote is None:
            self.out[feed] = base
        else:
            writer = FeedTreeWriter(self.repo, feed, None)
            writer.add(merged)
            self.out[feed] = writer.finish(head)
            if ref_erased:
                self.ref_erased[feed] = ref_erased
            shared = (remote_bytes if remote is not None else base_bytes) or b""
            beyond = merged.count(b"\n") - shared.count(b"\n")
            if beyond > 0 and not tail:
                self.published[feed] = beyond
        if st is not None and feed not in self.rewrites and not tail:
            self.new_state[feed] = {"ino": st.st_ino, "size": head.offset, "hash": head.hash}
        return True

    def _ref_bytes(self, copy: "RefFeed") -> bytes:
        from baton.ledger_ref import feed_bytes

        parts = []
        for _, data in feed_bytes(self.repo, copy):
            self.local.count.segments += 1
            parts.append(data)
        return b"".join(parts)

    def _stage_tail(self, feed: str, tail: bytes, after: FeedHead, size: int) -> None:
        folder = self.project.paths.baton_dir / INCOMING_DIR
        staging = folder / f"{feed}.part"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            with open(staging, "wb") as out:
                out.write(tail)
                out.flush()
                os.fsync(out.fileno())
        except OSError as exc:
            raise StorageError(f"cannot stage the remote's feed {feed}: {exc}") from exc
        self.staged.append((feed, staging, after, size))
        self.imported[feed] = tail.count(b"\n")
        self.imported_ids[feed] = [(e.id, e.seq) for e in scan_bytes(feed, tail, after).events]

    def _forgotten_ids(self) -> set[str]:
        """Every id a sound ``handoff.forgotten`` names, in the local feeds and
        the remote's (a forget recorded on any replica)."""
        from baton.ledger.erase import forgotten_ids
        from baton.ledger_ref import BadRefFeed

        if self.forgotten is not None:
            return self.forgotten
        found: set[str] = set()
        for name in self.local.names():
            st = self.local.stat(name)
            if st is None:
                continue
            for line in self.local.read(name, 0, st.st_size).split(b"\n"):
                found.update(forgotten_ids(line))
        for copy in self.remote.values():
            if copy.problem is not None:
                continue
            try:
                data = self._ref_bytes(copy)
            except BadRefFeed:
                continue
            for line in data.split(b"\n"):
                found.update(forgotten_ids(line))
        self.forgotten = found
        return found

    @staticmethod
    def _segment_before(remote: "RefFeed", offset: int) -> int:
        """Where to start reading ``remote`` to see the line ending at ``offset`` too."""
        if not offset:
            return 0
        return max((start for start, _ in remote.segments if start < offset), default=0)

    def _drop_staged(self, feed: str) -> None:
        self.rewrites.pop(feed, None)
        self.erased.pop(feed, None)
        self.ref_erased.pop(feed, None)
        for entry in [s for s in self.staged if s[0] == feed]:
            self.staged.remove(entry)
            self.imported.pop(feed, None)
            _unlink(entry[1])
        _unlink(self.project.paths.baton_dir / INCOMING_DIR / f"{feed}.part")

    def _write_staged(self) -> None:
        """Every remote feed checked out: now the verified bytes join the local
        feeds (the erasures first: an import may append to an erased feed)."""
        from baton.ledger.erase import replace_feed

        if self.rewrites:
            _touch(self.project.paths.baton_dir / ERASURE_PENDING)
        for feed, data in self.rewrites.items():
            replace_feed(Path(self.local.path(feed)), data)
            if not any(s[0] == feed for s in self.staged):
                st = os.stat(self.local.path(feed))
                tree = self.out[feed]
                self.new_state[feed] = {"ino": st.st_ino, "size": tree.head.offset, "hash": tree.head.hash}
        renamed = bool(self.rewrites)  # a file renamed into (or created in) the feeds' folder: it is fsynced too
        for feed, staging, local, size in self.staged:
            target = self.local.path(feed)
            try:
                if size == 0 and local.offset == 0:
                    fd = os.open(staging, os.O_RDONLY)
                    try:
                        os.fsync(fd)
                    finally:
                        os.close(fd)
                    os.replace(staging, target)
                    renamed = True
                else:
                    if size > local.offset:
                        self._quarantine_tail(feed, local.offset)
                        renamed = True
                    with open(staging, "rb") as source:
                        fd = os.open(target, os.O_WRONLY | os.O_APPEND)
                        try:
                            while chunk := source.read(1 << 20):
                                files.write_all(fd, chunk)
                            os.fsync(fd)
                        finally:
                            os.close(fd)
                    _unlink(staging)
            except OSError as exc:
                raise StorageError(f"cannot write the imported feed {target}: {exc}") from exc
            st = os.stat(target)
            remote = self.out[feed]
            self.new_state[feed] = {"ino": st.st_ino, "size": remote.head.offset, "hash": remote.head.hash}
        if renamed:  # an append to a feed changes no entry of the folder: the feed's own fsync holds it
            files.fsync_dir(self.local.dir)

    def _quarantine_tail(self, feed: str, offset: int) -> None:
        """Bytes after the sound end of a feed sync appends to (an import cut
        short by a crash): kept in ``quarantine/``, then cut off."""
        from baton.ledger.ids import uuid7

        path = self.local.path(feed)
        tail = files.read_range(path, offset)
        self.local.quarantine.mkdir(parents=True, exist_ok=True)
        (self.local.quarantine / f"{feed}.{offset}.{uuid7()}.torn").write_bytes(tail)
        os.truncate(path, offset)


class _LazyIds:
    """A set of ids computed the first time it is asked about."""

    def __init__(self, compute) -> None:
        self._compute = compute
        self._ids: set[str] | None = None

    def __contains__(self, item: object) -> bool:
        if self._ids is None:
            self._ids = self._compute()
        return item in self._ids


def _touch(path: Path) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        files.fsync_dir(path.parent)
    except OSError as exc:
        raise StorageError(f"cannot write {path}: {exc}") from exc


def _unlink(path: Path) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _load_state(project: "Project", ref: str) -> dict[str, Any]:
    try:
        raw = read_json(project.paths.baton_dir / STATE_FILE)
    except (FileNotFoundError, ValueError, OSError):
        return {}
    feeds = raw.get(ref) if isinstance(raw, dict) else None
    return feeds if isinstance(feeds, dict) else {}


ACKED_KEY = "remotes"
"""Sync state: ``"<remote url> <ref>"`` → feed → the highest seq this clone has seen that remote hold."""


def _load_acked(project: "Project", key: str) -> dict[str, int]:
    try:
        raw = read_json(project.paths.baton_dir / STATE_FILE)
    except (FileNotFoundError, ValueError, OSError):
        return {}
    remotes = raw.get(ACKED_KEY) if isinstance(raw, dict) else None
    feeds = remotes.get(key) if isinstance(remotes, dict) else None
    if not isinstance(feeds, dict):
        return {}
    return {f: n for f, n in feeds.items() if isinstance(f, str) and isinstance(n, int) and not isinstance(n, bool)}


def _state_file(path: Path) -> dict[str, Any]:
    """The sync state file as a dict; an absent, unreadable or malformed one is empty
    (it is a cache of what sync saw: the next sync rebuilds what it needs)."""
    try:
        raw = read_json(path)
    except (FileNotFoundError, ValueError, OSError):
        return {}
    return raw if isinstance(raw, dict) else {}


def _save_acked(project: "Project", key: str, feeds: dict[str, int]) -> None:
    path = project.paths.baton_dir / STATE_FILE
    raw = _state_file(path)
    remotes = raw.get(ACKED_KEY)
    remotes = dict(remotes) if isinstance(remotes, dict) else {}
    remotes[key] = dict(sorted(feeds.items()))
    raw[ACKED_KEY] = remotes
    write_json_atomic(path, raw)


def _save_state(project: "Project", ref: str, feeds: dict[str, Any],
                held: tuple[str, dict[str, int]] | None = None) -> None:
    path = project.paths.baton_dir / STATE_FILE
    raw = _state_file(path)
    raw[ref] = feeds
    if held is not None:
        remotes = raw.get(ACKED_KEY)
        remotes = dict(remotes) if isinstance(remotes, dict) else {}
        remotes[held[0]] = dict(sorted(held[1].items()))
        raw[ACKED_KEY] = remotes
    write_json_atomic(path, raw)


@mutable
class _Erased:
    """Payloads a sync erased in local feeds, over every round (a push that
    finds the remote moved starts another, the erasure already written)."""

    feeds: dict[str, int] = attrs.field(factory=dict)
    payloads: list[Any] = attrs.field(factory=list)
    scrubbed: bool = False
    cleaned_locks: list[str] = attrs.field(factory=list)
    """Stale pack index locks a push removed from a path remote, over every round."""


def sync_ledger(project: "Project", *, remote: str = "origin", ref: str | None = None,
                restore_own_feed: bool = False) -> SyncResult:
    """Share the ledger's feeds with ``remote`` on ``ref`` (default ``refs/baton/ledger``).

    ``restore_own_feed``: this clone was restored from a backup; the remote's
    copy of its own feed may extend the local file (and is imported, verified).

    Raises:
        InputError: ``ref`` is not a ref name under ``refs/``.
        NoSyncRemote (exit 4): no git repository, or no such remote.
        RemoteUnreachable (exit 4): the remote cannot be fetched from or pushed to.
    """
    from baton.ledger_ref import DEFAULT_REF

    ref = ref or DEFAULT_REF
    if not ref.startswith("refs/") or ref.startswith("refs/heads/") or ".." in ref or ref.endswith("/") \
            or any(c in ref for c in " ~^:?*[\\"):
        raise InputError(f"`ref` must be a ref name under refs/ other than a branch, not {ref!r}")
    repo = _open_repo(project)
    erased = _Erased()
    try:
        url = _remote_url(repo, remote)
        client, path = _client(repo, url)
        url = shown_url(url)  # from here on, only for messages
        count = ReadCount()
        for attempt in range(1, ATTEMPTS + 1):
            try:
                result = _round(project, repo, client, path, url, remote, ref.encode(), count, attempt, erased,
                                restore_own_feed)
                break
            except _RemoteMoved as moved:
                if attempt == ATTEMPTS and moved.lock is not None:
                    raise RemoteUnreachable(_held_lock_message(moved.lock, ref, ATTEMPTS),
                                            details={"url": url, "lock": moved.lock}) from None
                if attempt == ATTEMPTS:
                    why = f" (last: {transport_text(moved)})" if str(moved) else ""
                    raise RemoteUnreachable(f"the remote's {ref} kept moving during {ATTEMPTS} attempts{why}; "
                                            "run `baton sync` again", details={"url": url}) from None
    finally:
        repo.close()
        pending = project.paths.baton_dir / ERASURE_PENDING
        if erased.feeds or pending.exists():
            # Another replica's forget erased payloads here (in this round or
            # one before a failed push): the index (its free pages too), the
            # materialized files and the quarantined fragments that held them
            # go, exactly as after a local `baton forget`.
            from baton.commands.forget import scrub_after_erasure

            with _ledger_lock(project):
                scrub_after_erasure(project, erased.payloads)
                _unlink(pending)
            erased.scrubbed = True
    rebuilt = False
    if erased.scrubbed:
        result = attrs.evolve(result, erased=dict(erased.feeds))
        rebuilt = True
    elif result.imported:
        # Under the lock's file alone: ``Ledger.locked`` would first read every
        # imported byte to learn stream versions a read-only catch-up does not
        # need, and the replay would read them all again.
        runner = project.runner
        with _ledger_lock(project):
            rebuilt = runner.catch_up(allow_pinned=True).rebuilt
    return attrs.evolve(result, rebuilt=rebuilt)


def _held_lock_message(lock: str, ref: str, attempts: int) -> str:
    """The lock a push to a path remote kept finding, with the command that removes it."""
    import shlex
    import time

    try:
        minutes = f"{int((time.time() - os.stat(lock).st_mtime) // 60)} minute(s) old"
    except OSError:
        minutes = "gone by now"
    return (f"the remote's {ref} could not be pushed: {lock} exists ({minutes}) through {attempts} attempts. "
            "If no `baton sync`, `git push` or other git process is writing to that repository, one died "
            f"holding it (a full disk, a killed push): remove it with `rm -- {shlex.quote(lock)}` and run "
            "`baton sync` again. Baton does not remove it itself, as git does not: a live lock guards an update")


def _round(project: "Project", repo, client, path: str, url: str, remote_name: str, ref: bytes,
           count: ReadCount, attempt: int, erased: "_Erased", restore_own_feed: bool = False) -> SyncResult:
    from baton.ledger_ref import BadRefFeed, read_feeds, tree_of, write_commit

    signatures = FeedSignatures.open(project, repo)  # signed feeds: git's signing key, the allowed signers
    remote_sha = _fetch(repo, client, path, ref, url)
    try:
        remote_feeds = read_feeds(repo, remote_sha)
    except BadRefFeed as exc:
        raise RemoteRefRefused(f"the remote's {ref.decode()} is not a Baton ledger ref this version reads: {exc}; "
                               "nothing was imported or pushed", details={"url": url, "ref": ref.decode()}) from None
    acked_key = f"{url} {ref.decode()}"
    acked = _load_acked(project, acked_key)
    held = {feed: f.head.seq for feed, f in remote_feeds.items() if f.problem is None and f.head is not None}
    with _ledger_lock(project):
        # what the remote holds now counts as held even if this round's push fails
        seen = {**acked, **{feed: max(seq, acked.get(feed, 0)) for feed, seq in held.items()}}
        local_sha = repo.refs.as_dict().get(ref)
        try:
            base_feeds = read_feeds(repo, local_sha, known=remote_feeds)  # the folders both hold: read once
        except BadRefFeed:
            base_feeds, local_sha = {}, None  # a damaged local ref is rebuilt from the feeds
        work = _Round(project, repo, _LocalFeeds(project, count), base_feeds, remote_feeds,
                      _load_state(project, ref.decode()), signatures=signatures, restore_own=restore_own_feed,
                      remote_exists=remote_sha is not None, acked=acked)
        try:
            work.run()
        finally:
            for feed, staging, *_ in work.staged:
                _unlink(staging)
        # -- signed feeds: every head the ref will hold gets its signature (this clone's own signed now)
        for feed in signatures.settle(work.out, work.base, work.remote, work.refused):
            work.published.pop(feed, None)
        signatures.save(work.out)
        new_sha = _commit(repo, work, local_sha, remote_sha, project, write_commit, tree_of)
        if new_sha is not None and new_sha != local_sha:
            repo.refs[ref] = new_sha
        # with what the remote holds now: it counts as held even if this round's push fails
        _save_state(project, ref.decode(), work.new_state, (acked_key, seen) if seen != acked else None)
    if work.erased:
        erased.payloads.extend(work.erased_payloads)
        for feed, n in work.erased.items():
            erased.feeds[feed] = erased.feeds.get(feed, 0) + n
    pushed = False
    if new_sha is not None and new_sha != remote_sha:
        _push(repo, client, path, ref, new_sha, remote_sha, url, erased.cleaned_locks)
        pushed = True
        _clean_stale_pack_locks(client, path, erased.cleaned_locks)
    if new_sha is not None and (pushed or new_sha == remote_sha):
        # the remote holds exactly what this clone committed: a feed left out (dropped) is no longer held
        now_held = {feed: f.head.seq for feed, f in work.out.items() if f.problem is None and f.head is not None}
        if now_held != seen:
            with _ledger_lock(project):
                _save_acked(project, acked_key, now_held)
    return SyncResult(remote=remote_name, ref=ref.decode(), imported=work.imported, published=work.published,
                      refused=work.refused, pushed=pushed, commit=new_sha.decode() if new_sha else None,
                      read=count, rebuilt=False, attempts=attempt, erased=work.erased, ref_erased=work.ref_erased,
                      signers=signatures.to_json(), dropped=sorted(work.dropped), behind=work.behind,
                      cleaned_locks=list(erased.cleaned_locks))


def _commit(repo, work: _Round, local_sha: bytes | None, remote_sha: bytes | None, project: "Project",
            write_commit, tree_of) -> bytes | None:
    """The commit the ref moves to: the remote's when the union is what it
    holds, the local ref's when nothing changed, else a new one on both."""
    if not work.out:
        return remote_sha or local_sha
    ours = {feed: f.tree for feed, f in work.out.items()}
    if remote_sha is not None and ours == {feed: f.tree for feed, f in work.remote.items()}:
        return remote_sha
    if local_sha is not None and ours == {feed: f.tree for feed, f in work.base.items()} and remote_sha is None:
        return local_sha
    parents = [sha for sha in dict.fromkeys((local_sha, remote_sha)) if sha is not None]
    writer = project.writer
    message = f"baton sync: {len(work.out)} feed(s)\n"
    return write_commit(repo, work.out, parents, message, f"baton {writer} <{writer}@baton.invalid>".encode(),
                        project.clock() // 1_000_000_000)
