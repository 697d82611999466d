"""What a sync keeps between runs in ``.baton/sync-state.json`` (a cache: a lost one is rebuilt).

Per ledger ref, each feed's inode, size and hash when last synced (a feed
unchanged since is not opened); per remote and ref, the highest seq of each
feed this clone has seen the remote hold (a remote that went back is reported).

A damaged file (not JSON, not an object: an editor, a disk) is read as an
absent one — the next ``baton sync`` reads every feed and writes it afresh —
and ``state_problem`` says what is wrong with it, for ``baton status`` and
``baton doctor`` to tell.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, cast

from dulwich.errors import NotGitRepository
from dulwich.repo import Repo

import baton.ledger.files as files
from baton.config import read_local_json, write_json_atomic
from baton.domain.ledger_refs import DEFAULT_REF
from baton.errors import BatonError
from baton.gitinfo import locate
from baton.ledger.erase import forgotten_ids, prefix_but_erased
from baton.ledger.feed import line_ending_at, line_hashes_to
from baton.sync.ledger_ref import feed_bytes, feed_head, read_feeds
from baton.sync.transport import location_of, relative_base, remote_locations, url_rewrites

if TYPE_CHECKING:
    from dulwich.refs import Ref

    from baton.commands.context import Project

STATE_FILE = "sync-state.json"


STATE_HINT = ("it is `baton sync`'s local bookkeeping (which feeds it last synced, what each remote "
              "held): the next `baton sync` rebuilds it, reading every feed once (the ledger "
              "loses nothing; removing the file does the same)")
"""What a damaged ``sync-state.json`` costs, and what mends it."""


def state_problem(project: "Project") -> str | None:
    """What is wrong with ``sync-state.json``, with ``STATE_HINT``; None when it is
    absent or reads as an object."""
    try:
        raw = read_local_json(project.paths.baton_dir / STATE_FILE)
    except FileNotFoundError:
        return None
    except BatonError as exc:  # not JSON, a link, too large (InputError), or unreadable (StorageError)
        return f"{exc.message}; {STATE_HINT}"
    if not isinstance(raw, dict):
        return f"{project.paths.baton_dir / STATE_FILE} is not a JSON object; {STATE_HINT}"
    return None


def load_state(project: "Project", ref: str) -> dict[str, Any]:
    raw = _state_file(project.paths.baton_dir / STATE_FILE)
    feeds = raw.get(ref)
    return feeds if isinstance(feeds, dict) else {}


ACKED_KEY = "remotes"
"""Sync state: ``"<remote url> <ref>"`` → feed → the highest seq this clone has seen that remote hold."""


def load_acked(project: "Project", key: str, rewrites: Any = None) -> dict[str, int]:
    """What this clone has seen the remote of ``key`` (``"<url> <ref>"``) hold: under every key naming
    the same repository and ref, however the URL was spelled (``transport.location_of``, with git's
    ``insteadOf`` rules of ``rewrites``: ``transport.url_rewrites``), the most of each feed."""
    remotes = _state_file(project.paths.baton_dir / STATE_FILE).get(ACKED_KEY)
    if not isinstance(remotes, dict):
        return {}
    url, _, ref = key.rpartition(" ")
    base = relative_base(project)
    at = location_of(url, base, rewrites)
    out: dict[str, int] = {}
    for other, feeds in remotes.items():
        if not isinstance(other, str) or not isinstance(feeds, dict):
            continue
        other_url, _, other_ref = other.rpartition(" ")
        if other != key and (other_ref != ref or location_of(other_url, base, rewrites) != at):
            continue
        for f, n in feeds.items():
            if isinstance(f, str) and type(n) is int:
                out[f] = max(n, out.get(f, 0))
    return out


def _state_file(path: Path) -> dict[str, Any]:
    """The sync state file as a dict; an absent, unreadable or malformed one is empty
    (it is a cache of what sync saw: the next sync rebuilds what it needs)."""
    try:
        raw = read_local_json(path)
    except (FileNotFoundError, BatonError, ValueError, OSError):
        return {}
    return raw if isinstance(raw, dict) else {}


def save_acked(project: "Project", key: str, feeds: dict[str, int]) -> None:
    path = project.paths.baton_dir / STATE_FILE
    raw = _state_file(path)
    remotes = raw.get(ACKED_KEY)
    remotes = dict(remotes) if isinstance(remotes, dict) else {}
    remotes[key] = dict(sorted(feeds.items()))
    raw[ACKED_KEY] = remotes
    write_json_atomic(path, raw)


def save_state(project: "Project", ref: str, feeds: dict[str, Any],
                held: tuple[str, dict[str, int]] | None = None, own: tuple[str, dict[str, Any]] | None = None) -> None:
    path = project.paths.baton_dir / STATE_FILE
    raw = _state_file(path)
    raw[ref] = feeds
    remotes = raw.get(ACKED_KEY)
    remotes = dict(remotes) if isinstance(remotes, dict) else {}
    if held is not None:
        remotes[held[0]] = dict(sorted(held[1].items()))
    raw[ACKED_KEY] = remotes  # present even when empty: its absence marks an older Baton's state (``sharing``)
    if own is not None:
        _put_own(raw, project, *own)
    write_json_atomic(path, raw)


OWN_KEY = "own"
"""Sync state: writer id → ``"<remote url> <ref>"`` → ``{"remote", "seq", "hash", "offset"}``: the
writer's own feed as that remote held it after this clone's last sync with it under that id (its
head line; seq 0: none of it), the remote's name as the sync was given it, and ``order``: the
highest is the remote synced last (the file's keys are written sorted). Keyed by writer: a folder
that takes a new id (a copy, a restored backup) never measures its new feed against what a remote
held of its former one (``own_by_writer`` reads the older shape)."""

DEFAULT_REMOTE = "origin"
"""The remote ``baton sync`` syncs with when given none: the one ``status`` counts as "shared"."""


def own_entry(remote: str, head: Any) -> dict[str, Any]:
    """What ``OWN_KEY`` records of a remote: ``head`` is its copy's ``FeedHead`` (None: it holds none)."""
    if head is None or not head.seq:
        return {"remote": remote, "seq": 0, "hash": None, "offset": 0}
    return {"remote": remote, "seq": head.seq, "hash": head.hash, "offset": head.offset}


def save_own(project: "Project", key: str, entry: dict[str, Any]) -> None:
    path = project.paths.baton_dir / STATE_FILE
    raw = _state_file(path)
    _put_own(raw, project, key, entry)
    write_json_atomic(path, raw)


def _put_own(raw: dict[str, Any], project: "Project", key: str, entry: dict[str, Any]) -> None:
    own = own_by_writer(raw.get(OWN_KEY), project)
    writer = project.writer or ""
    mine = {k: v for k, v in own.get(writer, {}).items() if k != key}
    # the file is written with its keys sorted: ``order`` tells which remote was synced last
    mine[key] = {**entry, "order": 1 + max((_order(e) for e in mine.values()), default=0)}
    own[writer] = mine
    raw[OWN_KEY] = own


def own_by_writer(own: Any, project: "Project") -> dict[str, dict[str, Any]]:
    """``OWN_KEY``'s section as writer id → ``"<remote url> <ref>"`` → entry. A file written before
    2026-12-08 keyed its entries by remote alone, for the writer of the time: read as this clone's
    writer's, unless ``local.json`` says this folder took its writer id as a copy since
    (``copied_from``): then they are the former id's, and count for it alone."""
    if not isinstance(own, dict):
        return {}
    out: dict[str, dict[str, Any]] = {}
    legacy: dict[str, Any] = {}
    for key, value in own.items():
        if not isinstance(key, str) or not isinstance(value, dict):
            continue
        if _is_entry(value):
            legacy[key] = value
        else:
            out[key] = {k: v for k, v in value.items() if isinstance(k, str) and _is_entry(v)}
    if legacy:
        former = _copied_from(project)
        owner = former if former is not None else project.writer
        if owner is not None:
            out[owner] = {**legacy, **out.get(owner, {})}
    return out


def _is_entry(value: Any) -> bool:
    """An ``OWN_KEY`` entry: what a remote held of a feed (not a writer's section of them)."""
    return isinstance(value, dict) and isinstance(value.get("remote"), str) and type(value.get("seq")) is int \
        and type(value.get("offset")) is int


def _copied_from(project: "Project") -> str | None:
    """The writer id ``local.json`` says this folder held before it took its own as a copy; None
    when it never did (or the file cannot be read)."""
    try:
        local = read_local_json(project.paths.baton_dir / "local.json")
    except (FileNotFoundError, BatonError, ValueError, OSError):
        return None
    came = local.get("copied_from") if isinstance(local, dict) else None
    writer = came.get("writer") if isinstance(came, dict) else None
    return writer if isinstance(writer, str) and writer != project.writer else None


def _order(entry: Any) -> int:
    """``OWN_KEY``'s sync order of an entry (0: none, written before it was kept)."""
    order = entry.get("order") if isinstance(entry, dict) else None
    return order if type(order) is int else 0


def sharing(project: "Project", *, copied: bool = False) -> dict[str, Any] | None:
    """How much of this clone's own feed a remote holds, for ``baton status``:
    ``{"writer", "seq", "sharedSeq", "unshared"}`` — the feed's last seq the
    index folded (its checked head: a torn or damaged tail is not counted),
    the most of it any remote was seen to hold (a fetch, or a push it took: a
    commit whose push failed does not count), and the events between. None
    when this clone never synced (no ``sync-state.json``). Reads the state
    file, the index's head of the feed, git's configured remotes and the head
    of this clone's feed on its ledger ref: never a remote.

    A state file with no ``remotes`` section was written by an older Baton
    (before 2026-12-04), which recorded what it published but not what a remote
    took (it saved its state before pushing): nothing here tells how much a
    remote holds, so ``sharedSeq`` and ``unshared`` are None and
    ``sharedUnknown`` is True until the next sync records it.

    ``copied``: this ``.baton/`` folder is a copy of the one its writer id was minted in (its next
    write takes a new id: ``baton.domain.writer_place``); a diverged feed's ``wayBack`` is then
    ``NEW_WRITER``, else ``RESTORE_OWN_FEED`` or ``REPAIR`` (``diverged_line``)."""
    raw = _state_file(project.paths.baton_dir / STATE_FILE)
    if not raw:
        return None
    writer = project.writer
    with _git(project) as repo:  # opened once: its remotes, and this clone's ledger ref
        counted = _counted_remote(raw.get(OWN_KEY), project, repo)
        if counted is not None:
            return _shared_with(project, counted, repo, copied)
    remotes = raw.get(ACKED_KEY)
    if remotes is None:
        seq = project.runner.feed_heads().get(writer, (0, None, 0))[0]
        return {"writer": writer, "seq": seq, "sharedSeq": None, "unshared": None, "sharedUnknown": True}
    held = [feeds.get(writer) for feeds in remotes.values() if isinstance(feeds, dict)] \
        if isinstance(remotes, dict) else []
    shared = max((n for n in held if isinstance(n, int) and not isinstance(n, bool)), default=0)
    seq = project.runner.feed_heads().get(writer, (0, None, 0))[0]
    return {"writer": writer, "seq": seq, "sharedSeq": shared, "unshared": max(0, seq - shared)}


NEW_WRITER = "new_writer"
"""``wayBack`` of a diverged feed in a folder that is a copy (a backup restored beside or in place of
the original): its next sync takes a new writer id and catches the former feed up from the remote."""
RESTORE_OWN_FEED = "restore_own_feed"
"""``wayBack``: the file is the first lines of what was published (nothing written since a restore in
place): ``baton sync`` given ``restore_own_feed`` takes the rest back."""
REPAIR = "repair"
"""``wayBack``: the file forked from what was published: ``baton repair`` puts it back."""


def diverged_line(sync: dict[str, Any]) -> str:
    """``status``'s and ``doctor``'s words for this clone's own feed no longer continuing the copy the
    counted remote holds (``baton.sync.state.sharing``: ``diverged``), with what the next sync does
    and what mends it (``wayBack``). Parameters are named as the application names them
    (`` `restore_own_feed` ``): an adapter spells them its own way (``errors.named_parameters``)."""
    said = (f"Not shared: this clone's feed {sync['writer']} (seq {sync['seq']}) does not continue the copy "
            f"{sync.get('remote') or 'the remote'} holds (seq {sync['remoteSeq']}) — ")
    way = sync.get("wayBack")
    if way == NEW_WRITER:
        return said + ("this .baton folder is a copy of the one that writer id was minted in (a backup restored): "
                       "the next `baton sync` gives it a writer id of its own, catches feed "
                       f"{sync['writer']} up from the remote like any teammate's (nothing is lost), and publishes "
                       "what is written here from then on; no `baton repair` is needed")
    if way == RESTORE_OWN_FEED:
        return said + ("a backup of .baton/ restored in place, nothing written here since: a plain `baton sync` is "
                       "refused, and nothing written here reaches a teammate, until `baton sync` given "
                       "`restore_own_feed` takes the published events back from the remote")
    return said + ("a backup of .baton/ restored in place and written to since, or a fork: every `baton sync` is "
                   "refused, and nothing written here reaches a teammate, until `baton repair` puts the feed back "
                   "as the remote holds it (it keeps every local event that follows that copy, sets those that do "
                   "not aside into .baton/quarantine/, and lists them before it changes anything); then `baton sync`")


@contextmanager
def _git(project: "Project") -> Iterator[Any]:
    """This clone's git repository, or None outside one (or when it cannot be opened)."""
    where = locate(project.root)
    try:
        repo = Repo(str(where.common_dir)) if where is not None else None
    except (NotGitRepository, OSError, ValueError):
        repo = None
    try:
        yield repo
    finally:
        if repo is not None:
            repo.close()


def _counted_remote(own: Any, project: "Project", repo: Any) -> tuple[str, dict[str, Any]] | None:
    """The remote whose copy ``status`` counts (docs/sync.md, "Shared"): of the remotes this clone
    synced with on the default ref (else on any), the configured remote it synced with last —
    recognised by the repository it names, however the sync spelled it (a path or URL given for one
    sync names the configured remote at that location), and named by its configured name (``origin``
    first); a path or URL naming no configured remote (a scratch copy) counts only when the clone
    never synced with one. None when the state records no remote's copy (written by a Baton before
    2026-12-07: ``sharing`` then counts as it did)."""
    if not isinstance(own, dict) or project.writer is None:
        return None
    entries = list(own_by_writer(own, project).get(project.writer, {}).items())
    entries = [(key, e) for key, e in entries if key.endswith(" " + DEFAULT_REF)] or entries
    entries.sort(key=lambda item: _order(item[1]))  # stable: entries without an order keep the file's
    if not entries:
        return None
    base = relative_base(project)
    configured = remote_locations(repo, base) if repo is not None else {}
    rewrites = url_rewrites(repo)
    named: list[tuple[str, dict[str, Any]]] = []
    for key, entry in entries:
        at = location_of(key.rsplit(" ", 1)[0], base, rewrites)
        names = [name for name, location in configured.items() if location == at]
        if names:
            name = entry["remote"] if entry["remote"] in names else min(names, key=lambda n: (n != DEFAULT_REMOTE, n))
            named.append((key, {**entry, "remote": name}))
    return (named or entries)[-1]


def _shared_with(project: "Project", counted: tuple[str, dict[str, Any]], repo: Any, copied: bool) -> dict[str, Any]:
    """``sharing`` for the remote ``counted`` names: the events beyond its copy, when the local file
    continues that copy (it holds the copy's last line); else ``diverged`` — the copies forked (a
    backup restored in place, then written to), or the remote holds more than the file: nothing of
    this feed is published until the way back (``wayBack``) is taken (docs/sync.md)."""
    key, entry = counted
    writer = project.writer
    ref = key.rsplit(" ", 1)[-1]
    seq = project.runner.feed_heads().get(writer, (0, None, 0))[0]
    out: dict[str, Any] = {"writer": writer, "seq": seq, "remote": entry["remote"]}
    shared = entry["seq"]
    feed = project.paths.ledger_dir / f"{writer}.jsonl"
    if shared and not _file_holds(feed, entry):
        return {**out, "sharedSeq": None, "unshared": None, "diverged": True, "remoteSeq": shared,
                "wayBack": _way_back(repo, ref, writer, feed, copied)}
    # this clone's ledger ref holds more of the feed than the state says the remote held: a push that
    # failed (the file still holds it), or the state restored with a backup of .baton/ (it does not)
    published = _published_head(repo, ref, writer) if repo is not None else None
    if published is not None and published.seq > shared and not _file_holds(
            feed, {"seq": published.seq, "hash": published.hash, "offset": published.offset}):
        return {**out, "sharedSeq": None, "unshared": None, "diverged": True, "remoteSeq": published.seq,
                "wayBack": _way_back(repo, ref, writer, feed, copied)}
    return {**out, "sharedSeq": shared, "unshared": max(0, seq - shared)}


def _way_back(repo: Any, ref: str, writer: str, path: Path, copied: bool) -> str:
    """What mends a diverged feed (``diverged_line``): a copied folder's next sync; a file that is the
    first lines of its ledger ref's copy (payloads a forget erased since left as the backup has them),
    a sync given ``restore_own_feed``; anything else, ``baton repair``. Both copies are read whole:
    only for a feed that diverged."""
    if copied:
        return NEW_WRITER
    try:
        sha = repo.refs.read_ref(cast("Ref", ref.encode())) if repo is not None else None
        copy = read_feeds(repo, sha).get(writer) if sha is not None and not sha.startswith(b"ref: ") else None
        if copy is None or copy.problem is not None:
            return REPAIR
        theirs = b"".join(data for _, data in feed_bytes(repo, copy))
        ours = files.read_range(str(path), 0)
    except (OSError, ValueError, KeyError):
        return REPAIR
    forgotten = {ident for data in (ours, theirs) for line in data.split(b"\n") for ident in forgotten_ids(line)}
    return RESTORE_OWN_FEED if theirs.startswith(ours) or prefix_but_erased(ours, theirs, forgotten) else REPAIR


def _published_head(repo: Any, ref: str, writer: str) -> Any:
    """The head of this clone's own feed on its ledger ref ``ref`` (what its syncs committed to
    publish; read from git's objects, no remote asked); None when there is none to read."""
    try:
        sha = repo.refs.read_ref(cast("Ref", ref.encode()))
        return feed_head(repo, sha, writer) if sha is not None and not sha.startswith(b"ref: ") else None
    except (OSError, ValueError, KeyError):
        return None


def _file_holds(path: Path, entry: dict[str, Any]) -> bool:
    """The feed file holds the remote copy's last line: where the copy ends (one line read), or —
    a forget here erased payloads since, moving the lines — anywhere, by its hash and seq."""
    try:
        line = line_ending_at(lambda at, n: files.read_range(str(path), at, n), entry["offset"])
        if line_hashes_to(line, entry.get("hash"), seq=entry["seq"]):
            return True
        raw = files.read_range(str(path), 0)
    except (OSError, ValueError):
        return False
    needle = b'"hash":"' + str(entry.get("hash")).encode() + b'"'
    at = raw.find(needle)
    while at >= 0:
        start, end = raw.rfind(b"\n", 0, at) + 1, raw.find(b"\n", at)
        if end > 0 and line_hashes_to(raw[start:end], entry.get("hash"), seq=entry["seq"]):
            return True
        at = raw.find(needle, at + 1)
    return False
