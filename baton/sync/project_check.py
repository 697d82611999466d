"""Is the remote's ledger this project's? (docs/sync.md "A remote of another project").

A remote of another Baton project (a wrong URL, a template's ``.git/config``)
would merge two ledgers on both sides for good. Before anything is imported
or pushed, a remote whose ledger ref shares no feed with this clone's files
is asked which projects its feeds were
initialised as: the ``project.initialized`` events in the first segment of
each of its feeds (``baton init`` writes it as a new writer's first event).
When they name projects and none is this project's id (``.baton/config.json``)
nor the one the sync was told to accept, the sync is refused. A feed on this
clone's own ledger ref does not count as shared unless the files hold it too:
a plain ``git fetch`` of a teammate's ref puts feeds there that this clone
never imported, and the remote is asked as on a first sync (so
``accept_project`` is honoured there, not refused as needless).

This clone's own files are asked the same (``check_local_feeds``): a feed
another project's clone wrote, copied into ``.baton/ledger/`` by hand, would
else be published with this project's and imported by every teammate.

This clone's own ledger ref is asked the same of the feeds it holds that
this clone's files do not (``check_own_ref``): a push from another
project's clone (older versions wrote a working clone's ref) would else be
published with this project's to its team remote.

Cost: a remote that holds any feed this clone holds (every sync after the
first) is not read at all; otherwise one segment per remote feed, which an
accepted first sync imports anyway. The own ref's check reads nothing when
every feed on it is among this clone's files (after any sync that imported).
The files' check reads the start of each feed neither the ref nor the remote
holds, other than this clone's own (none, usually).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

import orjson

from baton.domain.feed_projects import foreign_feeds, local_feed_problem, other_project, unshared_feeds
from baton.errors import FeedOtherProject, InputError, RemoteOtherProject
from baton.events.names import PROJECT, PROJECT_INITIALIZED
from baton.sync.ledger_ref import BadRefFeed, RefFeed, feed_bytes

if TYPE_CHECKING:
    from pathlib import Path

    from dulwich.repo import Repo

    from baton.sync.local import ReadCount

_MARKER = b'"' + PROJECT_INITIALIZED.encode() + b'"'


def initialised_as(lines: bytes) -> list[str]:
    """The project ids the ``project.initialized`` events among ``lines`` (feed bytes) record."""
    out: list[str] = []
    for line in lines.split(b"\n"):
        if _MARKER not in line:
            continue
        try:
            raw = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue  # a torn or damaged line: the import's verification names it
        if not isinstance(raw, dict) or raw.get("type") != PROJECT_INITIALIZED or raw.get("stream") != PROJECT:
            continue
        data = raw.get("data")
        project_id = data.get("project_id") if isinstance(data, dict) else None
        if isinstance(project_id, str):
            out.append(project_id)
    return out


def remote_projects(repo: "Repo", feeds: dict[str, RefFeed], wanted: set[str],
                    count: "ReadCount | None" = None) -> tuple[bool, dict[str, list[str]]]:
    """Whether a remote feed's first segment records a ``project.initialized`` of one of the
    ``wanted`` ids (feeds are read until one does), and feed → the ids each feed read records
    (feeds naming none left out; the one that matched included). ``count``: the sync's reads, one segment per feed read."""
    out: dict[str, list[str]] = {}
    for name, feed in sorted(feeds.items()):
        if feed.problem is not None or not feed.segments:
            continue
        try:
            first = next(iter(feed_bytes(repo, feed)), None)
        except BadRefFeed:
            continue  # refused as that feed's problem by the round
        if count is not None:
            count.segments += 1
        ids = initialised_as(first[1]) if first is not None else []
        if ids:
            out[name] = ids
        if wanted.intersection(ids):
            return True, out
    return False, out


def check_remote_project(repo: "Repo", remote_feeds: dict[str, RefFeed], held: Iterable[str], project_id: str,
                         accept: str | None, url: str, ref: str, count: "ReadCount | None" = None,
                         accepted_locally: bool = False) -> None:
    """Refuse a remote whose ledger is another project's (nothing imported, nothing pushed).

    ``held``: the feeds this clone's files hold: a remote holding one of them shares this
    ledger already (one its own ref only carries does not: ``git fetch`` may have put it there). ``accept``: a project id the person chose to merge.

    Raises:
        RemoteOtherProject (exit 4): the remote's feeds name projects, none of them this one.
        InputError (exit 2): ``accept`` was given but the remote needs none (empty, sharing a feed
            with this clone, or naming this project): a mistyped id is never taken silently. Not
            when ``accepted_locally``: it let a feed of this clone's files through (``check_local_feeds``).
    """
    if not remote_feeds or not set(remote_feeds).isdisjoint(held):
        if accept is not None and not accepted_locally:
            _accept_not_needed(accept, url, "is empty" if not remote_feeds
                               else "already shares a feed with this clone (this project's ledger)")
        return
    wanted = {project_id} if accept is None else {project_id, accept}
    found_ours, named = remote_projects(repo, remote_feeds, wanted, count)
    ids = sorted({i for found in named.values() for i in found})
    if found_ours or not ids:
        if accept is not None and not accepted_locally and (project_id in ids or not ids):
            _accept_not_needed(accept, url, "names this project" if ids else "names no project")
        return
    shown = ", ".join(repr(i) for i in ids)
    raise RemoteOtherProject(
        f"the remote {url} holds the ledger of another Baton project ({ref}: initialised as project {shown}; "
        f"this project is {project_id!r}, .baton/config.json): nothing was imported or pushed. Check the "
        f"remote's URL (`git remote -v`). If that ledger is this project's (two clones ran `baton init` "
        f"apart before one config was committed: docs/sync.md), sync once given `accept_project` "
        f"{ids[0]!r} to merge the two for good",
        details={"url": url, "ref": ref, "project_id": project_id, "remote_project_ids": ids,
                 "feeds": {feed: found for feed, found in named.items()}})


def _accept_not_needed(accept: str, url: str, why: str) -> None:
    raise InputError(f"--accept-project {accept!r} is not needed: the remote {url} {why}, so there is no other "
                     f"project to accept; nothing was imported or pushed. Sync without --accept-project",
                     details={"url": url, "accept_project": accept})


def check_own_ref(repo: "Repo", ref_feeds: dict[str, RefFeed], files: Iterable[str], project_id: str,
                  accept: str | None, ref: str, count: "ReadCount | None" = None) -> None:
    """Refuse to publish this clone's ledger ref when a feed on it that this clone's ``files`` lack
    was initialised as another project only (nothing imported or pushed).

    Raises:
        RemoteOtherProject (exit 4): naming the feeds and their projects, and the way to rebuild the ref.
    """
    held = set(files)
    wanted = {project_id} if accept is None else {project_id, accept}
    foreign: dict[str, list[str]] = {}
    for name, feed in sorted(ref_feeds.items()):
        if name in held:
            continue
        _, named = remote_projects(repo, {name: feed}, wanted, count)
        ids = named.get(name, [])
        if other_project(ids, project_id, accept):
            foreign[name] = ids
    if not foreign:
        return
    ids = sorted({i for found in foreign.values() for i in found})
    shown = ", ".join(repr(i) for i in ids)
    raise RemoteOtherProject(
        f"this clone's {ref} holds feeds of another Baton project ({', '.join(sorted(foreign))}: initialised as "
        f"project {shown}; this project is {project_id!r}, .baton/config.json), put there by another project's "
        f"sync or a `git fetch` of its ref: nothing was imported or pushed. Delete this clone's ref (`git update-ref -d {ref}`): the next "
        f"sync builds it again from this clone's feeds and the remote's",
        details={"ref": ref, "project_id": project_id, "remote_project_ids": ids, "feeds": foreign,
                 "own_ref": True})


LOCAL_HEAD = 65536
"""How much of a local feed is read for the ``project.initialized`` ``baton init`` writes first."""


def local_projects(ledger_dir: "Path", feeds: Iterable[str]) -> dict[str, list[str]]:
    """Feed → the project ids the first lines of its file in ``ledger_dir`` record (``initialised_as``;
    feeds naming none, or that cannot be read, left out: verify names an unreadable feed)."""
    out: dict[str, list[str]] = {}
    for name in feeds:
        try:
            with open(ledger_dir / f"{name}.jsonl", "rb") as f:
                head = f.read(LOCAL_HEAD)
        except OSError:
            continue
        ids = initialised_as(head[:head.rfind(b"\n") + 1])
        if ids:
            out[name] = ids
    return out


def check_local_feeds(ledger_dir: "Path", files: Iterable[str], shared: Iterable[str], own: str | None,
                      project_id: str, accept: str | None, ref: str) -> bool:
    """Refuse to publish a feed of this clone's files that neither the ref nor the remote holds
    (``unshared_feeds``) and that was initialised as another project only (nothing imported or
    pushed). True when ``accept`` let such a feed through (so it was needed).

    Raises:
        FeedOtherProject (exit 4): naming the feeds, their projects, and the way out.
    """
    named = local_projects(ledger_dir, unshared_feeds(files, shared, own))
    if accept is not None and foreign_feeds(named, project_id) and not foreign_feeds(named, project_id, accept):
        return True
    foreign = foreign_feeds(named, project_id, accept)
    if not foreign:
        return False
    raise FeedOtherProject(local_feed_problem(foreign, project_id) + " Nothing was imported or pushed. If that "
                           f"feed is this project's (a clone that ran `baton init` apart: docs/sync.md), sync once "
                           f"given `accept_project` {sorted({i for ids in foreign.values() for i in ids})[0]!r} to "
                           "publish it for good",
                           details={"ref": ref, "project_id": project_id, "feeds": foreign,
                                    "files": [f".baton/ledger/{feed}.jsonl" for feed in foreign],
                                    "remote_project_ids": sorted({i for ids in foreign.values() for i in ids}),
                                    "local": True})
