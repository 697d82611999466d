"""Whose project a feed is: the one rule ``baton sync`` (a remote's feeds, this
clone's ledger ref, this clone's own files) and ``baton verify`` apply (pure: no I/O).

``baton init`` writes ``project.initialized`` (the project id of
``.baton/config.json``) as a new writer's first event, so a feed names the
project it was started in. A feed whose ``project.initialized`` events name
projects, none of them this one (nor the one a sync was told to accept, its
``accept_project``), is another Baton project's: merged, it would spread to
every clone of the team for good (the ledger is append-only). A feed naming
none (a writer that never ran ``baton init``) is nobody else's either.

Which feeds are asked (``unshared_feeds``): only those not shared already.
A feed this clone's ledger ref holds was checked on its way in (or accepted
on purpose), and this clone's own writer's feed is its own, whatever id its
first event names (two clones that ran ``baton init`` apart before the
config was committed: docs/sync.md, "Setting up a team").
"""

from __future__ import annotations

from typing import Iterable, Mapping


def other_project(ids: Iterable[str], project_id: str, accept: str | None = None) -> bool:
    """Whether a feed whose ``project.initialized`` events name ``ids`` is another project's:
    it names some, and none of them is ``project_id`` nor ``accept``."""
    named = set(ids)
    return bool(named) and project_id not in named and (accept is None or accept not in named)


def unshared_feeds(files: Iterable[str], shared: Iterable[str], own: str | None) -> list[str]:
    """The feeds among ``files`` (this clone's ``.baton/ledger/``) that nothing shared yet:
    not on this clone's ledger ref nor the remote (``shared``), nor this clone's own (``own``)."""
    held = set(shared)
    return sorted(name for name in files if name not in held and name != own)


def foreign_feeds(named: Mapping[str, Iterable[str]], project_id: str,
                  accept: str | None = None) -> dict[str, list[str]]:
    """Feed → the project ids it names, for each of ``named``'s feeds that is another project's
    (``other_project``)."""
    return {feed: sorted(set(ids)) for feed, ids in sorted(named.items())
            if other_project(ids, project_id, accept)}


def local_feed_problem(foreign: dict[str, list[str]], project_id: str) -> str:
    """What is wrong with this clone's ``foreign`` feeds (feed → the ids each names), and the way out:
    said alike by ``baton sync``'s refusal, ``baton verify`` and ``baton doctor``."""
    paths = ", ".join(f".baton/ledger/{feed}.jsonl" for feed in foreign)
    shown = ", ".join(repr(i) for i in sorted({i for ids in foreign.values() for i in ids}))
    one = len(foreign) == 1
    return (f"{paths} {'is a feed' if one else 'are feeds'} of another Baton project (initialised as project "
            f"{shown}; this project is {project_id!r}, .baton/config.json) that no sync shared: copied into "
            f".baton/ledger/ by hand? Move {'it' if one else 'them'} out of .baton/ (`mv {paths} ..`), then run "
            "`baton repair` given `yes`: it records those events as gone from this clone and moves the handoff files "
            "written from them into .baton/quarantine/.")
