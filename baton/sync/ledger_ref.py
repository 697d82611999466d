"""The ledger on a git ref: feeds as trees of segment blobs, read and written with dulwich.

``refs/baton/ledger`` (by default) names a commit whose tree is::

    format.json                      {"format": 1}
    feeds/<writer>/head.json         {"writer", "seq", "hash", "hlc", "bytes"}
    feeds/<writer>/head.sig          the head's ssh signature, when signed
                                     (``baton.sync.signing``)
    feeds/<writer>/<offset>.jsonl    the feed's bytes, cut into segments
                                     (``baton.ledger.segments``)

Nothing here touches a branch, the index or a working tree: objects go into
the repository's object store and the one ref is moved. ``head.json`` lets a
sync compare feeds without reading a segment; it is a claim, checked against
the segments' events whenever those are imported.
"""

from __future__ import annotations

import stat
from typing import TYPE_CHECKING, Iterator, Sequence, cast

import attrs
import orjson
from dulwich.objects import Blob, Commit, ObjectID, Tree

from baton.domain.ledger_refs import DEFAULT_REF as DEFAULT_REF  # spelled in the domain, read here by sync's modules
from baton.domain.ledger_refs import LocalRef
from baton.ledger.feed import FeedHead
from baton.ledger.segments import SegmentPacker, segment_name, segment_start
from baton.model import frozen

if TYPE_CHECKING:
    from dulwich.refs import Ref
    from dulwich.repo import Repo

FORMAT = 1
_FILE_MODE = 0o100644
_DIR_MODE = 0o040000
SIGNATURE_FILE = b"head.sig"
MAX_SEGMENT_BYTES = 16 << 20
"""The largest segment a sync reads from a remote (segments are cut at 1 MiB;
only an event line longer than that makes a longer one): a bigger one is
refused, by the sizes its name and the next one's claim before it is read."""


@frozen
class RefFeed:
    """One feed as a ledger ref holds it."""

    writer: str
    head: FeedHead
    """``offset`` is the feed's length in bytes."""
    tree: ObjectID
    """The feed folder's tree id: equal trees hold equal feeds."""
    segments: tuple[tuple[int, ObjectID], ...]
    """``(start offset, blob id)`` in feed order."""
    problem: str | None = None
    """Why this feed folder cannot be read (then ``head`` and ``segments`` are empty)."""
    signature: bytes | None = None
    """The blob id of ``head.sig``, the head's signature (``baton.sync.signing``), if the folder has one."""

    def to_json(self) -> dict:
        return {"writer": self.writer, "seq": self.head.seq, "hash": self.head.hash, "hlc": self.head.hlc,
                "bytes": self.head.offset}


class BadRefFeed(ValueError):
    """A feed folder on the ref that is not laid out as this module writes it."""


def head_bytes(writer: str, head: FeedHead) -> bytes:
    return orjson.dumps({"writer": writer, "seq": head.seq, "hash": head.hash, "hlc": head.hlc,
                         "bytes": head.offset}, option=orjson.OPT_SORT_KEYS) + b"\n"


def _is_file(mode: int) -> bool:
    return stat.S_ISREG(mode)


def _is_folder(mode: int) -> bool:
    return stat.S_ISDIR(mode)


def _blob_data(store, blob_id: bytes, what: str) -> bytes:
    obj = store[blob_id]
    if not isinstance(obj, Blob):
        raise BadRefFeed(f"{what} on the ledger ref is a {obj.type_name.decode()}, not a file")
    return obj.data


def read_feeds(repo: Repo, commit_id: bytes | None, known: dict[str, RefFeed] | None = None) -> dict[str, RefFeed]:
    """Every feed of the ledger ref's commit ``commit_id`` (None: no ref yet).

    ``known``: feeds already read (of another commit): a feed whose folder is
    the same tree is taken from there, not read again (a feed is its tree).

    A malformed feed folder is returned with its ``problem`` (that feed is
    refused, not the ref); a malformed ref — no commit, a root or ``feeds``
    that is not a folder, a missing or unknown ``format.json`` — raises.

    Raises:
        BadRefFeed: the commit's tree is not a ledger ref of this format.
    """
    if commit_id is None:
        return {}
    store = repo.object_store
    try:
        commit = store[ObjectID(commit_id)]
        root = store[commit.tree] if isinstance(commit, Commit) else None
    except KeyError as exc:
        raise BadRefFeed(f"object {exc} of the ledger ref is missing") from None
    if not isinstance(commit, Commit) or not isinstance(root, Tree):
        raise BadRefFeed("the ledger ref does not name a commit")
    _check_format(store, root)
    if b"feeds" not in root:
        return {}
    mode, feeds_id = root[b"feeds"]
    try:
        folder = store[feeds_id] if _is_folder(mode) else None
    except KeyError:
        raise BadRefFeed("the ledger ref's feeds/ folder is missing") from None
    if not isinstance(folder, Tree):
        raise BadRefFeed("the ledger ref's feeds/ is not a folder")
    out: dict[str, RefFeed] = {}
    for entry in folder.iteritems():
        writer = entry.path.decode("utf-8", "replace")
        same = known.get(writer) if known else None
        if same is not None and same.tree == entry.sha and _is_folder(entry.mode):
            out[writer] = same
            continue
        try:
            if not _is_folder(entry.mode):
                raise BadRefFeed(f"feed {writer!r} on the ledger ref is not a folder")
            out[writer] = _read_feed(repo, writer, entry.sha)
        except (BadRefFeed, KeyError) as exc:  # one bad folder: that feed is refused, not the ref
            problem = str(exc) if isinstance(exc, BadRefFeed) else f"object {exc} of feed {writer!r} is missing"
            out[writer] = RefFeed(writer, FeedHead(), entry.sha, (), problem)
    return out


def feed_head(repo: Repo, commit_id: bytes | None, writer: str) -> FeedHead | None:
    """The head of ``writer``'s feed on the ledger ref's commit ``commit_id``, reading that feed's
    ``head.json`` only; None when the commit holds no such feed or cannot be read as a ledger ref."""
    if commit_id is None:
        return None
    store = repo.object_store
    try:
        commit = store[ObjectID(commit_id)]
        root = store[commit.tree] if isinstance(commit, Commit) else None
        if not isinstance(root, Tree) or b"feeds" not in root:
            return None
        folder = store[root[b"feeds"][1]]
        if not isinstance(folder, Tree) or writer.encode() not in folder:
            return None
        return _read_feed(repo, writer, folder[writer.encode()][1]).head
    except (KeyError, ValueError, BadRefFeed):
        return None


def local_ref(repo: Repo, name: bytes) -> LocalRef | None:
    """What this clone's ref ``name`` holds (None: no such ref), for
    ``baton.domain.ledger_refs.local_ref_refusal``: a symbolic ref is not
    followed, an object that is missing is named so (``kind`` None)."""
    raw = repo.refs.read_ref(cast("Ref", name))
    if raw is None:
        return None
    if raw.startswith(b"ref: "):
        return LocalRef(symbolic_target=raw[5:].decode("utf-8", "replace").strip())
    store = repo.object_store
    try:
        obj = store[ObjectID(raw)]
        if not isinstance(obj, Commit):
            return LocalRef(kind=obj.type_name.decode())
        root = store[obj.tree]
    except (KeyError, ValueError):
        return LocalRef()
    return LocalRef(kind="commit", has_format=isinstance(root, Tree) and b"format.json" in root)


class UnknownFormat(BadRefFeed):
    """The ledger ref was written in a format this version does not read."""


def _check_format(store, root: Tree) -> None:
    if b"format.json" not in root:
        raise BadRefFeed("the ledger ref has no format.json")
    mode, blob_id = root[b"format.json"]
    try:
        data = _blob_data(store, blob_id, "format.json") if _is_file(mode) else None
        raw = orjson.loads(data) if data is not None and len(data) < 4096 else None
    except KeyError:
        raise BadRefFeed("the ledger ref's format.json is missing") from None
    except orjson.JSONDecodeError:
        raw = None
    if not isinstance(raw, dict) or type(raw.get("format")) is not int:
        raise BadRefFeed("the ledger ref's format.json is unreadable")
    if raw["format"] != FORMAT:
        raise UnknownFormat(f"the ledger ref is in format {raw['format']}, this version of Baton reads format "
                            f"{FORMAT}: upgrade Baton")


def _read_feed(repo: Repo, writer: str, tree_id: ObjectID) -> RefFeed:
    store = repo.object_store
    tree = store[tree_id]
    if not isinstance(tree, Tree) or b"head.json" not in tree:
        raise BadRefFeed(f"feed {writer!r} on the ledger ref has no head.json")
    mode, head_id = tree[b"head.json"]
    if not _is_file(mode):
        raise BadRefFeed(f"feed {writer!r} on the ledger ref: head.json is not a file")
    data = _blob_data(store, head_id, f"feed {writer!r}'s head.json")
    try:
        raw = orjson.loads(data) if len(data) < 4096 else None
        if not isinstance(raw, dict):
            raise TypeError
        head = FeedHead(offset=_count(raw["bytes"]), seq=_count(raw["seq"]), hash=raw.get("hash"),
                        hlc=_count(raw.get("hlc") or 0))
        if head.hash is not None and type(head.hash) is not str:
            raise TypeError
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        raise BadRefFeed(f"feed {writer!r} on the ledger ref has an unreadable head.json") from None
    if raw.get("writer") != writer:
        raise BadRefFeed(f"feed {writer!r} on the ledger ref names writer {raw.get('writer')!r}")
    segments = []
    for entry in tree.iteritems():
        name = entry.path.decode("utf-8", "replace")
        start = segment_start(name)
        if start is not None:
            if not _is_file(entry.mode):
                raise BadRefFeed(f"feed {writer!r} on the ledger ref: segment {name} is not a file")
            segments.append((start, entry.sha))
    segments.sort()
    for index, (start, _) in enumerate(segments):  # sizes the names claim, checked before any is read
        end = segments[index + 1][0] if index + 1 < len(segments) else head.offset
        if end - start > MAX_SEGMENT_BYTES:
            raise BadRefFeed(f"feed {writer!r} on the ledger ref: segment at {start} holds {end - start} bytes, "
                             f"more than the limit of {MAX_SEGMENT_BYTES}")
    signature = None
    if SIGNATURE_FILE in tree:
        mode, signature = tree[SIGNATURE_FILE]
        if not _is_file(mode):
            raise BadRefFeed(f"feed {writer!r} on the ledger ref: head.sig is not a file")
        _blob_data(store, signature, f"feed {writer!r}'s head.sig")
    return RefFeed(writer, head, tree_id, tuple(segments), signature=signature)


def _count(value: object) -> int:
    """A non-negative integer of head.json (a bool or a float is not one)."""
    if type(value) is not int or value < 0:
        raise ValueError(value)
    return value


def feed_bytes(repo: Repo, feed: RefFeed, start: int = 0) -> Iterator[tuple[int, bytes]]:
    """The feed's bytes from ``start`` on, one segment blob at a time, as
    ``(offset, bytes)`` (the first one cut to begin at ``start``). Each blob
    is read once; memory holds one segment.

    Raises:
        BadRefFeed: a segment is missing, or segments do not follow each other.
    """
    store = repo.object_store
    expected = 0
    for index, (seg_start, blob_id) in enumerate(feed.segments):
        if seg_start != expected:
            raise BadRefFeed(f"feed {feed.writer!r} on the ledger ref: segment at {seg_start} "
                             f"does not follow the one ending at {expected}")
        nxt = feed.segments[index + 1][0] if index + 1 < len(feed.segments) else None
        if nxt is not None and nxt <= start:
            expected = nxt  # wholly before ``start``: never read
            continue
        try:
            data = _blob_data(store, blob_id, f"feed {feed.writer!r}'s segment at {seg_start}")
        except KeyError:
            raise BadRefFeed(f"feed {feed.writer!r} on the ledger ref: segment at {seg_start} is missing") from None
        if len(data) > MAX_SEGMENT_BYTES:
            raise BadRefFeed(f"feed {feed.writer!r} on the ledger ref: segment at {seg_start} holds {len(data)} "
                             f"bytes, more than the limit of {MAX_SEGMENT_BYTES}")
        expected = seg_start + len(data)
        if expected <= start:
            continue
        yield (max(start, seg_start), data[start - seg_start:] if start > seg_start else data)
    if expected != feed.head.offset:
        raise BadRefFeed(f"feed {feed.writer!r} on the ledger ref holds {expected} bytes, "
                         f"its head.json says {feed.head.offset}")


class FeedTreeWriter:
    """Writes one feed's folder: the segments of a base (kept as they are,
    never re-hashed), the base's open segment grown with new lines, new
    segments, and ``head.json``."""

    def __init__(self, repo: Repo, writer: str, base: RefFeed | None) -> None:
        self.repo = repo
        self.writer = writer
        self.kept: list[tuple[int, ObjectID]] = []
        start, open_bytes = 0, b""
        if base is not None and base.segments:
            self.kept = list(base.segments[:-1])
            start, last = base.segments[-1]
            open_bytes = _blob_data(repo.object_store, last, f"feed {writer!r}'s segment at {start}")
        self.packer = SegmentPacker(start, open_bytes)
        self.written: list[tuple[int, ObjectID]] = []

    def add(self, lines: bytes, cuts: Sequence[int] | None = None) -> None:
        """Whole lines; ``cuts``: where a segment may end in them (``SegmentPacker.add``)."""
        self.packer.add(lines, cuts)
        for start, data in self.packer.closed():
            self.written.append((start, self._blob(data)))

    def _blob(self, data: bytes) -> ObjectID:
        blob = Blob.from_string(data)
        self.repo.object_store.add_object(blob)
        return blob.id

    def finish(self, head: FeedHead) -> RefFeed:
        if head.offset != self.packer.end:
            raise ValueError(f"feed {self.writer!r}: head at {head.offset}, segments end at {self.packer.end}")
        last = self.packer.finish()
        if last is not None:
            self.written.append((last[0], self._blob(last[1])))
        segments = self.kept + self.written
        tree = Tree()
        for start, blob_id in segments:
            tree.add(segment_name(start).encode(), _FILE_MODE, blob_id)
        tree.add(b"head.json", _FILE_MODE, self._blob(head_bytes(self.writer, head)))
        self.repo.object_store.add_object(tree)
        return RefFeed(self.writer, head, tree.id, tuple(segments))


def with_signature(repo: Repo, feed: RefFeed, signature: bytes | None) -> RefFeed:
    """``feed``'s folder with ``head.sig`` set to the blob ``signature`` (None: without one)."""
    store = repo.object_store
    tree = Tree()
    for entry in cast(Tree, store[feed.tree]).iteritems():  # a feed's folder
        if entry.path != SIGNATURE_FILE:
            tree.add(entry.path, entry.mode, entry.sha)
    if signature is not None:
        tree.add(SIGNATURE_FILE, _FILE_MODE, ObjectID(signature))
    store.add_object(tree)
    return attrs.evolve(feed, tree=tree.id, signature=signature)


def write_commit(repo: Repo, feeds: dict[str, RefFeed], parents: list[bytes], message: str,
                 author: bytes, when: int) -> bytes:
    """A commit of ``feeds`` with ``parents``; returns its id (no ref moves)."""
    store = repo.object_store
    folder = Tree()
    for writer in sorted(feeds):
        folder.add(writer.encode(), _DIR_MODE, feeds[writer].tree)
    store.add_object(folder)
    fmt = Blob.from_string(orjson.dumps({"format": FORMAT}) + b"\n")
    store.add_object(fmt)
    root = Tree()
    root.add(b"feeds", _DIR_MODE, folder.id)
    root.add(b"format.json", _FILE_MODE, fmt.id)
    store.add_object(root)
    commit = Commit()
    commit.tree = root.id
    commit.parents = cast("list[ObjectID]", parents)
    commit.author = commit.committer = author
    commit.author_time = commit.commit_time = when
    commit.author_timezone = commit.commit_timezone = 0
    commit.encoding = b"UTF-8"
    commit.message = message.encode("utf-8")
    store.add_object(commit)
    return commit.id


def tree_of(repo: Repo, commit_id: bytes | None) -> bytes | None:
    if commit_id is None:
        return None
    return cast(Commit, repo.object_store[ObjectID(commit_id)]).tree  # the ledger ref names a commit
