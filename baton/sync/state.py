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

from pathlib import Path
from typing import TYPE_CHECKING, Any

from baton.config import read_local_json, write_json_atomic
from baton.errors import BatonError

if TYPE_CHECKING:
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


def load_acked(project: "Project", key: str) -> dict[str, int]:
    remotes = _state_file(project.paths.baton_dir / STATE_FILE).get(ACKED_KEY)
    feeds = remotes.get(key) if isinstance(remotes, dict) else None
    if not isinstance(feeds, dict):
        return {}
    return {f: n for f, n in feeds.items() if isinstance(f, str) and isinstance(n, int) and not isinstance(n, bool)}


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
                held: tuple[str, dict[str, int]] | None = None) -> None:
    path = project.paths.baton_dir / STATE_FILE
    raw = _state_file(path)
    raw[ref] = feeds
    remotes = raw.get(ACKED_KEY)
    remotes = dict(remotes) if isinstance(remotes, dict) else {}
    if held is not None:
        remotes[held[0]] = dict(sorted(held[1].items()))
    raw[ACKED_KEY] = remotes  # present even when empty: its absence marks an older Baton's state (``sharing``)
    write_json_atomic(path, raw)


def sharing(project: "Project") -> dict[str, Any] | None:
    """How much of this clone's own feed a remote holds, for ``baton status``:
    ``{"writer", "seq", "sharedSeq", "unshared"}`` — the feed's last seq the
    index folded (its checked head: a torn or damaged tail is not counted),
    the most of it any remote was seen to hold (a fetch, or a push it took: a
    commit whose push failed does not count), and the events between. None
    when this clone never synced (no ``sync-state.json``). Reads the state
    file and the index's head of the feed, nothing else.

    A state file with no ``remotes`` section was written by an older Baton
    (before 2026-12-04), which recorded what it published but not what a remote
    took (it saved its state before pushing): nothing here tells how much a
    remote holds, so ``sharedSeq`` and ``unshared`` are None and
    ``sharedUnknown`` is True until the next sync records it."""
    raw = _state_file(project.paths.baton_dir / STATE_FILE)
    if not raw:
        return None
    writer = project.writer
    remotes = raw.get(ACKED_KEY)
    if remotes is None:
        seq = project.runner.feed_heads().get(writer, (0, None, 0))[0]
        return {"writer": writer, "seq": seq, "sharedSeq": None, "unshared": None, "sharedUnknown": True}
    held = [feeds.get(writer) for feeds in remotes.values() if isinstance(feeds, dict)] \
        if isinstance(remotes, dict) else []
    shared = max((n for n in held if isinstance(n, int) and not isinstance(n, bool)), default=0)
    seq = project.runner.feed_heads().get(writer, (0, None, 0))[0]
    return {"writer": writer, "seq": seq, "sharedSeq": shared, "unshared": max(0, seq - shared)}
