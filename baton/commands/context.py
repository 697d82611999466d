"""An opened project: paths, config, the ledger and the projection runner.

``Project.writing()`` is the read–decide–append step: it holds the ledger
lock, catches the projections up, and hands the command a ``WriteScope`` whose
``append`` checks stream versions and folds the new events at once, so the
command can read its own writes.

The index is the ledger's seed: taking the lock, a ledger that has read
nothing starts from the index's cursors (after checking the line at each), so
catching up reads only the bytes appended since, once — the ledger's read is
what the runner folds — and an append is folded from the events it returns.
A long-lived ``Project`` (the MCP server, the status page) keeps its ledger
and runner, so each later ``reading()``/``writing()`` reads only new bytes.
"""

from __future__ import annotations

import os
import stat
import sys
import time
from collections.abc import Callable
from contextlib import contextmanager

from baton import oplog
from baton.canonical import pretty_bytes
from baton.commands.identity import owner_stamp, owner_under
from baton.config import ProjectConfig, allowed_signers_setting, read_config, read_json, write_json_atomic
from baton.domain import identifiers as ids
from baton.domain.identifiers import event_identifiers
from baton.domain.paths import SYMLINK_ESCAPE
from baton.domain.percent import unquote
from baton.domain.redaction import redact_strings, rule_label
from baton.domain.visible import printable
from baton.errors import (
    ConfigError,
    DiskFull,
    IndexBehind,
    LedgerBusy,
    NotInitialized,
    PolicyBlock,
    ReadOnlyProject,
    RecordedNotIndexed,
    SecretInIdentifier,
    StorageError,
    UnsafePath,
)
from baton.ledger import files
from baton.ledger.clock import WallClock, system_clock
from baton.ledger.envelope import Event, EventDraft
from baton.ledger.feed import is_writer_id
from baton.ledger.protocol import LedgerTxn
from baton.ledger.store import Ledger
from baton.policy import load_policy, real_location_inside_root, trust_file
from baton.process_end import DoneSoFar
from baton.project import BATON_DIR, ProjectPaths, git_toplevel, not_a_directory, resolve_root, resolve_worktree
from baton.projections.registry import default_projections
from baton.projections.runner import CatchUp, Progress, ProjectionRunner, ledger_size
from baton.values import Value, replace

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Iterable, Iterator, Mapping

Deferral = Callable[[], "str | None"]
"""Work that must not be lost when a step's catch-up is handed to a process of
its own, or the ledger lock stays held past its wait (a hook's session end or
compaction: ``baton.commands.deferred``): kept by calling it, once, before that
process starts, so the process finds it when it is done. It returns what it
kept (None: nothing could be). Given to the one step (``Project.reading``,
``Project.writing``, ``Project.behind``, ``Project.busy``), never set on the
project."""


class Limits(Value):
    """How long a process waits for the ledger lock, and how much of the ledger
    a catch-up may fold: given when the project is opened (``Project.open``),
    or to one step (``Project.writing(limits)``), never changed on the opened
    project — so two callers of one long-lived project (the MCP server's
    tools) cannot see each other's limits."""

    write_wait: float | None = None
    """How long ``writing()`` waits for the ledger lock before ``LedgerBusy``
    (None: as long as it takes, as a command typed by a person does)."""
    read_wait: float | None = None
    """How long ``reading()`` waits for the lock to catch up; past it, the
    read answers from the index as the last writer left it (None: no limit).
    Every writer folds its events into the index before it lets go of the
    lock, so that index lacks only what the holder is writing now."""
    fold_limit: int | None = None
    """The most bytes of ledger a catch-up may fold (None: all of them). A
    hook sets it from its deadline: past it, ``IndexBehind``, and the
    catch-up is handed to a process of its own (``Project.behind``)."""


_CLEAN_KEPT = 4096
"""How many texts ``Project._clean_under`` keeps before it starts again (a bound on memory only)."""


class WriteScope:
    """One ``Project.writing()`` block: its ledger transaction, and the batch
    being gathered. A plain class (it changes while the block runs), as
    ``Project`` is: no attrs class is built on the hook path."""

    __slots__ = ("gathered", "project", "txn")

    def __init__(self, project: "Project", txn: LedgerTxn) -> None:
        self.project = project
        self.txn = txn
        self.gathered: GatheredBatch | None = None
        """While ``batch()`` is open: the appends gathered for its one write."""

    @property
    def runner(self) -> ProjectionRunner:
        return self.project.runner

    @contextmanager
    def batch(self) -> Iterator["GatheredBatch"]:
        """Gather every ``append`` made inside the block and write them, when
        it ends, as ONE batch: one ``write()``, all or nothing (a kill or an
        error in the middle leaves none of them). Nothing is appended when
        the block raises.

        Inside, nothing appended is folded yet: the projections read as they
        were when the block began, so a use case decides each stream once
        (appending twice to one stream in a block is refused) and reads its
        own writes after the block.
        """
        if self.gathered is not None:  # nested: the outer block writes
            yield self.gathered
            return
        gathered = GatheredBatch()
        self.gathered = gathered
        try:
            yield gathered
        finally:
            self.gathered = None
        gathered.events = self._write(gathered.drafts, expected=gathered.expected, durable=gathered.durable)

    def append(
        self,
        drafts: Iterable[EventDraft],
        *,
        expected: Mapping[str, int] | None = None,
        durable: bool = False,
    ) -> list[Event]:
        """Screen ``drafts`` (``Project.screen``) and append them; a draft that names no ``actor``
        records this clone's git identity (``identity.owner_under``), as every event does: who ran
        the command. Inside ``batch()``, gathered for its one write."""
        drafts = self._with_actor(list(drafts))
        if self.gathered is not None:
            self.gathered.add([self.project.screen(draft) for draft in drafts], expected or {}, durable)
            return []
        return self._write([self.project.screen(draft) for draft in drafts], expected=expected, durable=durable)

    def _with_actor(self, drafts: list[EventDraft]) -> list[EventDraft]:
        """``drafts``, each without an ``actor`` given this clone's owner (git's identity, resolved
        as batons take it, screened as the ledger records it: ``identity.recorded_owner``)."""
        if all(draft.actor is not None for draft in drafts):
            return drafts
        owner = owner_under(self.project, owner_stamp(self.project))
        return [draft if draft.actor is not None else draft._replace(actor=owner)  # type: ignore[attr-defined]
                for draft in drafts]

    def _write(self, screened: list[EventDraft], *, expected: Mapping[str, int] | None,
               durable: bool) -> list[Event]:
        events = self.txn.append(screened, expected=expected, durable=durable)
        if events:
            DoneSoFar.note("after its events were recorded in the ledger: that is done, do not run it again "
                           "(the index catches up at the next command)")
            try:
                self.project.runner.fold_appended(events)
            except StorageError as exc:
                raise RecordedNotIndexed.of(events, exc) from exc
            for event in events:
                family, _, key = event.stream.partition("/")
                self.project.log("info", "appended", type=event.type, id=event.id,
                                 handoff=key if family == "handoff" else None)
        return events


def _screened_payload(draft: EventDraft, rules: Any) -> Any:
    """The payload's screen (``redact_strings``): the values a person, an agent or a harness could
    have written (``events.base.told_values``: not its members' names, its class's fields, nor the ids,
    times and words Baton mints, in their shape); should any of them hold a secret, the whole payload,
    so what is redacted is recorded exactly as a screen of the whole records it."""
    catalogue = sys.modules.get("baton.events.base")  # loaded with the event class that made the draft, if one did
    told = catalogue.told_values(draft.type, draft.data) if catalogue is not None else None
    if told is None:
        return redact_strings(draft.data, rules)
    outcome = redact_strings(told, rules)
    if outcome.redactions or outcome.blocked:
        return redact_strings(draft.data, rules)
    return replace(outcome, payload=draft.data)


class GatheredBatch:
    """The appends a ``WriteScope.batch()`` block gathered (screened already),
    and, once written, the events as readers will read them back (a plain
    class: it fills up while the block runs)."""

    __slots__ = ("drafts", "durable", "events", "expected")

    def __init__(self) -> None:
        self.drafts: list[EventDraft] = []
        self.expected: dict[str, int] = {}
        self.durable = False
        self.events: list[Event] = []

    def add(self, drafts: list[EventDraft], expected: Mapping[str, int], durable: bool) -> None:
        streams = {draft.stream for draft in drafts} | set(expected)
        again = sorted(streams & ({draft.stream for draft in self.drafts} | set(self.expected)))
        if again:  # its second decision would not have seen the first
            raise ValueError(f"one batch decides each stream once; {again} again")
        self.drafts.extend(drafts)
        self.expected.update(expected)
        self.durable = self.durable or durable


_BATON_PLACES = (".", "config.json", "local.json", "policy.json", "ledger", "handoffs", "batons",
                 "index.sqlite", "cache", "quarantine", ".gitignore", "deferred", "hook-notices.jsonl",
                 "policy-trust.json")
"""What ``.baton/`` holds that Baton reads or writes on every open (relative to it)."""

_BATON_FILES = ("config.json", "local.json", "policy.json", "index.sqlite", ".gitignore", "hook-notices.jsonl",
                "policy-trust.json", "ledger.lock", "allowed_signers",
                "index.sqlite-wal", "index.sqlite-shm", "index.sqlite-journal")
"""The files among them (and the lock, the default allowed signers and SQLite's files beside
the index): each must be a regular file itself, never a symbolic link, wherever the link leads
(else SQLite says only "unable to open database file")."""


_BATON_FOLDERS = ("ledger", "handoffs", "batons", "cache", "quarantine", "deferred")
"""The folders of ``.baton/``: each a folder itself, never a symbolic link, even to a
folder inside the project (``repair`` would cut, and ``gc`` remove, the files there)."""


ForeignFile = tuple[str, str]
"""A file of ``.baton/`` that is a symbolic link or not a regular file (a FIFO,
a device, a socket, a folder where a feed belongs): its path relative to the
project root (``.baton/ledger/x.jsonl``) and what it is (``a symbolic link to
/tmp/x``, ``a FIFO``…). A tuple, not a class: every hook's open defines it."""


def foreign_feed_name(rel: str) -> str | None:
    """The feed a foreign file stands in for, when it is in ``ledger/``."""
    folder, _, name = rel.rpartition("/")
    return name[: -len(".jsonl")] if folder == f"{BATON_DIR}/ledger" else None


def foreign_refusal(rel: str, what: str) -> UnsafePath:
    """The one line every command (but ``verify`` and ``repair``) stops with."""
    fix = (f"remove it (`rm {rel}`; the {'folder' if rel.rpartition('/')[2] in _BATON_FOLDERS else 'file'} "
           f"it points to is left alone)") if what.startswith("a symbolic") \
        else f"move it out of .baton/ (`mv {rel} ..`)"
    if foreign_feed_name(rel) is not None and what != "a folder":  # repair never removes a folder
        fix += ", or confirm a `baton repair`, which removes it"
    return UnsafePath(rel, SYMLINK_ESCAPE,
                      f"it is {what}, not a file of Baton's; Baton never reads or writes through it: {fix}",
                      what=what)


def foreign_files(paths: ProjectPaths) -> list[ForeignFile]:
    """Every file of ``.baton/`` Baton reads or writes (``_BATON_FILES`` and the
    ledger's feeds) that is a symbolic link — inside the project or out,
    dangling or not — or not a regular file: Baton would read another file's
    text as its own, or truncate and write through the link (``repair`` once
    emptied a committed feed link's target). Decided here, from the folders'
    listings (an entry's type, never following a link; ``lstat`` only to name
    what an odd one is); the feeds are opened with ``O_NOFOLLOW`` besides.

    Raises:
        StorageError: ``.baton/ledger/`` cannot be listed.
    """
    found = []
    # One listing per folder: an entry's type comes with it (no stat per file).
    for folder, rel, wanted in ((paths.baton_folder, BATON_DIR, _BATON_FILES.__contains__),
                                (paths.ledger_folder, f"{BATON_DIR}/ledger", lambda name: name.endswith(".jsonl"))):
        try:
            with os.scandir(folder) as entries:
                odd = sorted(e.name for e in entries if wanted(e.name) and not e.is_file(follow_symlinks=False)
                             and not _index_folder(e))
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as exc:
            raise StorageError(f"cannot list {folder}: {exc}") from exc
        for name in odd:
            if (what := _not_a_file(os.path.join(folder, name))) is not None:
                found.append((f"{rel}/{name}", what))
    return found


def _index_folder(entry: os.DirEntry[str]) -> bool:
    """A real folder (not a link) where the index or its SQLite files belong: nothing is read
    or written through it, and the index is a projection — opening it moves the folder aside
    and rebuilds (``projections.runner``), so it is not refused here."""
    return entry.name.startswith("index.sqlite") and entry.is_dir(follow_symlinks=False)


def _not_a_file(path: str) -> str | None:
    """What ``path`` is when it is there and not a regular file (None otherwise)."""
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        return f"a file that cannot be looked at ({exc.strerror})"
    if stat.S_ISREG(st.st_mode):
        return None
    if stat.S_ISLNK(st.st_mode):
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        return "a symbolic link to " + printable(target).replace("\n", "\\n")
    kind = "a folder" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode) \
        else "a socket" if stat.S_ISSOCK(st.st_mode) else "a device" if stat.S_ISBLK(st.st_mode) or stat.S_ISCHR(st.st_mode) \
        else "not a regular file"
    return kind


def check_baton_folder_inside(paths: ProjectPaths, *, feeds: bool = True) -> list[ForeignFile]:
    """Refuse a ``.baton/`` — or one of its folders — that is a symbolic link leading
    outside the project root: a repository cloned with a committed ``.baton`` link
    (``.baton -> ~/.ssh``) would otherwise have every command, and every harness hook, read
    its config and policy there and write a ledger, an index and files into it. Refuse
    a folder of it (``_BATON_FOLDERS``) that is a symbolic link at all, even inside the
    project: ``repair`` once emptied the user's own ``data/*.jsonl`` through
    ``.baton/ledger -> ../data``. Refuse
    too a file of it that is a symbolic link anywhere, or not a regular file
    (``foreign_files``): a committed ``.baton/ledger/x.jsonl -> ~/.ssh/authorized_keys``.

    ``feeds=False`` (``verify``, ``repair``): a feed that is such a file is
    returned instead of refused, for them to report and remove.

    Raises:
        UnsafePath (exit 5): naming the place, where it resolves and the link
            (``symlink-escape``), or the file, what it is and what to do.
    """
    for place in _BATON_PLACES:
        rel = BATON_DIR if place == "." else f"{BATON_DIR}/{place}"
        where = os.path.join(paths.root_folder, rel)
        if os.path.lexists(where):
            real_location_inside_root(paths.root_folder, rel)
            if place in _BATON_FOLDERS and os.path.islink(where):
                raise foreign_refusal(rel, _not_a_file(where) or "a symbolic link")
    found = foreign_files(paths)
    for rel, what in found:
        if feeds or foreign_feed_name(rel) is None:
            raise foreign_refusal(rel, what)
    return found


class Project:
    def __init__(self, paths: ProjectPaths, config: ProjectConfig, writer: str, clock: WallClock = system_clock,
                 *, unsettled: os.stat_result | None = None, limits: Limits = Limits(),
                 foreign_feeds: list[ForeignFile] | None = None) -> None:
        self._read_only: bool | None = None
        self._limits = limits
        self.foreign_feeds = list(foreign_feeds or ())
        """Feeds that are symbolic links or not regular files, found when opened
        with ``feed_links`` (the ledger never reads them: ``listing``)."""
        self.paths = paths
        self.config = config
        self.writer = writer
        self.clock = clock
        self._unsettled = unsettled
        """The ``.baton`` folder's ``stat`` when it is not the folder (device
        and inode) ``local.json`` records ``writer`` was minted in — a copy, a
        ``local.json`` that records none, a remount — until the first write
        settles it (``claim_writer``); None in that folder, the steady case."""
        self.writer_change: Any = None
        """The new writer id this process took, once it has
        (``baton.commands.writer_claim.WriterChange``)."""
        self.on_writer_change: Callable[[Any], None] | None = None
        """Told once, when this process takes a new writer id (the command line says it on stderr)."""
        self._ledger: Ledger | None = None
        self._runner: ProjectionRunner | None = None
        self._policy = None
        self._screened_clean: tuple[Any, set[str]] | None = None
        """The texts the identifier screen found clean in this process, with the redaction rules that
        screened them (``check_identifiers``): a policy read again starts an empty set."""
        self.known_owner: tuple[Any, str] | None = None
        """The reader's owner as last resolved (``identity.owner_under``), with the stamp of git's
        identity it was resolved under: a long-lived process resolves it again only when that moves."""
        self.identity_includes: dict[str, tuple[tuple[int, ...], bool]] = {}
        """Per git config file, the stat it was last read at and whether it includes another
        (``gitinfo.identity_stamp``)."""
        self._caught_up_at: tuple | None = None
        """The feeds and the index as the last catch-up under the lock left
        them (``reading``): while both are unchanged, a reading needs no catch-up."""
        self.on_wait: Callable[..., None] | None = None
        """Told, before a catch-up waits without limit for the ledger lock,
        that another process holds it (the command line says so on a
        terminal: a background replay may hold it for seconds), with who may:
        ``on_wait(catch_up=, pid=, lock=)`` — whether a background catch-up
        runs (``baton.background.running``), its pid, and the lock file."""
        self._said_waiting = False
        self.on_disk_full: Callable[[str], None] | None = None
        """Told once, by a reading command on a full disk (``disk_full``), why it
        answers from a replay in memory (the command line writes it on stderr)."""
        self._disk_full: str | None = None
        self._room_at: int | None = None
        """The bytes free when a write of the index failed for want of space
        (``became_full``): the disk is full for Baton until it has more."""
        self.on_damage: Callable[[str, list[str]], None] | None = None
        """A reading command found a feed that lost events the index acknowledged:
        why, and the files a rebuild kept because those events showed them
        (``ProjectionRunner.kept_files``)."""
        """Told, by a reading command, after its catch-up, that a feed lost
        lines the index acknowledged (the refusal a write
        would meet): the read still answers, from what the feeds hold, but
        says so (the command line writes it on stderr) — once per damage in this process, however
        many reads a command makes (``baton status`` makes several: tester25 T9)."""
        self._damage_told: set[str] = set()
        self.on_progress: Progress | None = None
        """Told how a catch-up goes (events folded, of about how many) when a
        command brings the index up to date without a progress of its own (the
        command line shows a long one on a terminal: a replay after an upgrade
        takes seconds)."""
        self._handed_on: tuple[int, str] | None = None
        """The catch-up this process started (``behind``) and what the one
        before it failed with: a second ``behind`` here (a session start
        that first ran a kept hook) finds that catch-up running, and says
        the failure again rather than promise the brief once more."""

    @property
    def root(self) -> Path:
        return self.paths.root

    @property
    def limits(self) -> Limits:
        """The waits and fold limit the project was opened with (``Limits``)."""
        return self._limits

    @property
    def write_wait(self) -> float | None:
        return self._limits.write_wait

    @property
    def read_wait(self) -> float | None:
        return self._limits.read_wait

    @property
    def fold_limit(self) -> int | None:
        return self._limits.fold_limit

    @classmethod
    def open(cls, project: str | os.PathLike | None = None, *, clock: WallClock = system_clock,
             limits: Limits = Limits(), feed_links: bool = False, initializing: bool = False) -> "Project":
        """Open an initialised project, waiting for its lock and folding as ``limits`` say.
        ``feed_links``: a feed that is a symbolic link (or not a regular file) is
        kept in ``foreign_feeds`` instead of refused (``verify``, ``repair``).
        ``initializing``: ``baton init`` opens the project it is making (``init.pending`` allowed).

        Raises:
            NotInitialized: there is no ``.baton/config.json`` at the root, or a ``baton init``
                did not finish there (``ProjectPaths.init_pending``).
        """
        root = resolve_root(project)
        paths = ProjectPaths(root, resolve_worktree(root, project))
        if not os.path.isdir(paths.root_folder):  # a mistyped --project or $BATON_PROJECT: `baton init` would refuse it too
            raise not_a_directory(paths.root_folder)
        if not os.path.isfile(paths.config_file):
            raise _not_a_project(paths.root)
        if not initializing and os.path.lexists(paths.init_pending_file):
            raise NotInitialized(f"`baton init` did not finish in {paths.root} (.baton/init.pending: it stopped "
                                 "before recording project.initialized): run `baton init` again, which completes "
                                 "it", details={"root": str(paths.root), "init_pending": True})
        foreign = check_baton_folder_inside(paths, feeds=not feed_links)
        config = read_config(paths.config_file)
        try:
            local = ensure_local(paths)
        except StorageError:
            if baton_dir_writable(paths):
                raise
            # nothing will be written: the id is never recorded
            return cls(paths, config, READ_ONLY_WRITER, clock, limits=limits, foreign_feeds=foreign)
        try:
            st = os.stat(paths.baton_folder)
        except OSError as exc:
            raise StorageError(f"cannot look at {paths.baton_folder}: {exc}") from exc
        minted = local.get("minted_in")
        settled = isinstance(minted, dict) and minted.get("dev") == st.st_dev and minted.get("ino") == st.st_ino
        return cls(paths, config, local["writer"], clock, unsettled=None if settled else st, limits=limits,
                   foreign_feeds=foreign)

    @property
    def read_only(self) -> bool:
        """``.baton/`` (its lock, its ledger) cannot be written by this process, or
        the disk holding it is full (``disk_full``): reading commands answer from a
        replay in memory, writing ones refuse."""
        if self._read_only is None:
            self._disk_full = files.disk_full(self.paths.baton_folder)
            self._read_only = self._disk_full is not None or not baton_dir_writable(self.paths)
        return self._read_only

    @property
    def disk_full(self) -> str | None:
        """``the disk holding … is full (N bytes free)`` when it has less than
        ``files.LOW_SPACE`` free as this process opened the project (it is then
        ``read_only``), else None."""
        return self._disk_full if self.read_only else None

    def became_full(self, exc: DiskFull) -> None:
        """The index could not be written for want of space though the disk had more
        than ``files.LOW_SPACE`` free (a replay after a projection's version moved needs
        about the index's size again): from now on this process treats the disk as
        full, as if it had been when the project was opened — reads from a replay in
        memory, writes refused (``disk_full``)."""
        self._disk_full = str(exc.details.get("disk") or exc.message)
        free = exc.details.get("free")
        self._room_at = free if isinstance(free, int) else None
        self._read_only = True
        if self._runner is not None:
            self._runner.close()
            self._runner = None
        if self._ledger is not None:  # seeded from the index: a replay in memory reads every feed afresh
            self._ledger.close()
            self._ledger = None
        self._caught_up_at = None

    def require_writable(self, command: str = "this command", does: str = "records events") -> None:
        """Raises: DiskFull (exit 1) when the disk holding ``.baton/`` is full,
        ReadOnlyProject (exit 1) on a read-only ``.baton/``; nothing is written.
        ``does``: what ``command`` would write (``rebuild`` writes the index, records no event)."""
        if self.disk_full is not None:
            raise DiskFull(f"{self.disk_full}: {command} {does} and cannot run; {files.DISK_FULL_ADVICE} "
                           "(reading commands still work, in memory)",
                           details={"baton_dir": self.paths.baton_folder})
        if self.read_only:
            raise ReadOnlyProject(
                f"{self.paths.baton_folder} is read-only here: {command} {does} and cannot run "
                "(reading commands still work, in memory)",
                details={"baton_dir": self.paths.baton_folder})

    @property
    def ledger(self) -> Ledger:
        if self._ledger is None:
            self._ledger = Ledger(self.paths.baton_folder, self.writer, fsync=self.config.fsync, clock=self.clock)
        return self._ledger

    @property
    def runner(self) -> ProjectionRunner:
        if self._runner is None:
            if self.read_only:
                self._runner = ProjectionRunner(self.paths.baton_folder, self.ledger, default_projections(),
                                                in_memory=True)
            else:
                self._runner = ProjectionRunner(self.paths.baton_folder, self.ledger, default_projections())
                self.ledger.seed_from(self._runner)
        return self._runner

    @property
    def policy(self):
        """The project's redaction and path policy (``baton.policy.Policy``)."""
        if self._policy is None:
            self._policy = load_policy(self.paths, self.config)
        return self._policy

    def policy_files(self) -> tuple[str, ...]:
        """The files besides ``config.json`` the policy is read from: ``policy.json``, this
        checkout's trust record and the allowed-signers file, trusted with it (a long-running
        process stats them to notice a change)."""
        signers = allowed_signers_setting(self.config)
        return (self.paths.policy_file, trust_file(self.paths),
                *((os.path.join(self.paths.root_folder, signers),) if signers is not None else ()))

    def policy_stamp(self) -> tuple[Any, ...]:
        """The stat of each file the policy is read from (``config.json``, ``policy.json``, the
        trust record): a long-running process compares it to notice a change."""
        stamps: list[Any] = []
        for path in (self.paths.config_file, *self.policy_files()):
            try:
                found = os.stat(path)
            except OSError:
                stamps.append(None)
                continue
            stamps.append((found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns))
        return tuple(stamps)

    def forget_policy(self) -> None:
        """Read the policy again at its next use (a long-running process whose
        ``policy.json`` or trust record changed under it: ``baton policy untrust``)."""
        self._policy = None

    def reread_settings(self) -> None:
        """Read ``config.json`` again and the policy at its next use (a long-running process whose
        ``config.json`` was edited under it: its ``policy`` or ``sync`` section).

        Raises:
            ConfigError: ``config.json`` no longer reads as a valid config (the settings read
                before are kept).
            StorageError: it cannot be read.
            NotInitialized: it is gone (a ``git checkout`` of a branch that does not track it): said
                as a command opening the project says it, with how to restore it.
        """
        try:
            self.config = read_config(self.paths.config_file)
        except FileNotFoundError:
            raise _not_a_project(self.root) from None
        self._policy = None

    @property
    def loaded_policy(self):
        """The policy if this process has loaded it, else None (loads nothing)."""
        return self._policy

    def screen(self, draft: EventDraft) -> EventDraft:
        """The last check before anything reaches the ledger (DESIGN.md:
        redaction happens before append). Commands clean what people and
        agents send with the full rules; this pass runs the text rules over
        every string of every event anyway — objectives, reasons, session
        ids, owner and branch names — so nothing that slipped past a command
        is ever persisted. What it replaces is recorded under ``_redacted``
        (field path, rule, reason; never the value).

        Identifiers (owner, branch, session id, harness, label, the stream's
        key) are not redacted but refused (``check_identifiers``).

        Raises:
            SecretInIdentifier: an identifier the event carries, or a name
                derived from one (key, stream, file name), looks like a secret.
            PolicyBlock: a "block" rule matched.
        """
        self.check_identifiers(event_identifiers(draft.stream, draft.session, draft.data))
        rules = self.policy.redaction
        clean = self._clean_under(rules)  # an actor or session the identifier screen passed: nothing to redact
        outcome = _screened_payload(draft, rules)
        actor = redact_strings(draft.actor, rules, at="actor") if draft.actor and draft.actor not in clean else None
        session = redact_strings(draft.session, rules, at="session") \
            if draft.session and draft.session not in clean else None
        # A stream name holds percent-encoded owners and branches ("ci%20AKIA…"),
        # where "%20" glues a token to its neighbour: screen the decoded name too.
        stream = redact_strings([draft.stream, unquote(draft.stream)], rules, at="stream")
        blocked = [r for o in (outcome, actor, session, stream) if o is not None for r in o.blocked]
        if stream.redactions:
            blocked.extend(_stream_name_findings(draft.stream, stream.redactions))
        if blocked:
            listed = ", ".join(f"{r.field} ({rule_label(r.rule, r.reason)})" for r in blocked)
            raise PolicyBlock(f"refused by secret policy: {listed}",
                              details={"blocked": [r.to_json() for r in blocked]})
        records = [r.to_json() for o in (outcome, actor, session) if o is not None for r in o.redactions]
        if not records:
            return draft
        data = dict(outcome.payload)
        data["_redacted"] = list(data.get("_redacted") or []) + records
        return draft._replace(  # type: ignore[attr-defined]  # a named tuple's (a value class)
            data=data, actor=actor.payload if actor else draft.actor,
            session=session.payload if session else draft.session)

    def log(self, level: str, event: str, **fields: object) -> None:
        """A local log record (``BATON_LOG``; ids, names and timings only: ``baton.oplog``)."""
        if oplog.enabled(level, self.config.extra.get("log")) and not self.read_only:
            oplog.write(self.paths.baton_folder, level, event, configured=self.config.extra.get("log"), **fields)

    def _caught_up(self, done: CatchUp, started: float) -> None:
        self.log("debug", "catch_up", events=done.events, rebuilt=done.rebuilt, ms=oplog.elapsed_ms(started))

    def check_identifiers(self, identifiers=None, /, **fields: object) -> None:
        """The one screen of identifiers (``baton.domain.identifiers``): each
        owner, branch, session id, harness id and label, as given and in
        every form Baton derives from it (baton key, stream name, file name,
        URL). Commands call it with what they were given before they append
        anything; ``screen`` calls it again on every event. A text found clean once is
        not screened again under the same rules (``screen_identifiers``' ``clean``): a session
        start that claims a baton appends two events naming the same session, owner and branch.

        ``identifiers`` is a list of ``(field, value)``; keyword fields are
        ``owner``, ``branch``, ``session``, ``harness``, ``label``.

        Raises:
            SecretInIdentifier (exit 5): names the fields, never a value.
        """
        named = {"owner": ids.OWNER, "branch": ids.BRANCH, "session": ids.SESSION, "harness": ids.HARNESS,
                 "label": ids.LABEL}
        pairs = list(identifiers or []) + [(named[k], v) for k, v in fields.items()]
        rules = self.policy.redaction
        findings = ids.screen_identifiers(pairs, rules, clean=self._clean_under(rules))
        if findings:
            raise SecretInIdentifier(ids.describe(findings), details={
                "fields": list(dict.fromkeys(f.field for f in findings)),
                "blocked": [f.to_json() for f in findings]})

    def _clean_under(self, rules: Any) -> set[str]:
        """The texts ``rules`` found nothing in, in this process (``check_identifiers``): empty again
        once the policy is read anew, or past ``_CLEAN_KEPT`` texts (a long-running server's sessions).
        A text's screen depends on the text and the rules alone."""
        if self._screened_clean is None or self._screened_clean[0] is not rules \
                or len(self._screened_clean[1]) > _CLEAN_KEPT:
            self._screened_clean = (rules, set())
        return self._screened_clean[1]

    def check_streams(self, *streams: str) -> None:
        """Refuse, before anything is appended, the streams a command is about
        to write when ``screen`` would refuse their names (an owner or branch
        that looks like a secret): a command that appends several times must
        not leave its first events behind and then fail on a later one.

        Raises:
            SecretInIdentifier: a stream's key, in any of its forms, looks like a secret.
        """
        self.check_identifiers([pair for stream in streams for pair in event_identifiers(stream, None, None)])

    def claim_writer(self, limits: Limits | None = None) -> None:
        """Before this process first writes, in a ``.baton`` folder other than the
        one ``local.json`` records its writer id was minted in: a copy takes a
        new id; a ``local.json`` that records no place, or a remount, records
        this one (``baton.commands.writer_claim``, loaded only then). Nothing
        to do, and no system call, in the folder the id was minted in.
        It waits for the ledger lock as ``limits`` say (None: ``self.limits``).

        Raises:
            ConfigError: ``local.json`` no longer reads as one.
            LedgerBusy: the lock stayed held past the write wait.
            StorageError: ``local.json`` cannot be written.
        """
        if self._unsettled is None or self.read_only:
            return
        _claims().claim(self, self._unsettled, (limits or self._limits).write_wait)
        self._unsettled = None

    @property
    def opened_ledger(self) -> Ledger | None:
        """The ledger, if this process has opened it (``ledger`` opens it)."""
        return self._ledger

    def adopt_writer(self, writer: str) -> None:
        """Write from now on as ``writer`` (``claim_writer``): a ledger this process
        already opened under the old id appends under the new one."""
        if self._ledger is not None:
            self._ledger.become(writer)
        self.writer = writer

    @contextmanager
    def writing(self, limits: Limits | None = None, *, deferral: Deferral | None = None) -> Iterator[WriteScope]:
        """The read–decide–append step, waiting for the lock and folding as
        ``limits`` say (None: as the project was opened with, ``self.limits``).
        ``deferral``: the work to keep should its catch-up be handed on (``behind``)."""
        limits = limits or self._limits
        self.require_writable()
        self.claim_writer(limits)
        runner = self.runner  # before the lock: the ledger seeds from the index as it takes it
        try:
            if limits.fold_limit is not None:
                runner.check_fold_limit(limits.fold_limit)
            self.say_if_waiting(limits.write_wait)
            with self.ledger.locked(wait=limits.write_wait) as txn:
                started = time.perf_counter()
                room: DiskFull | None = None
                try:
                    done = runner.catch_up(progress=self.on_progress, fold_limit=limits.fold_limit)
                except DiskFull as full:
                    room = full
                else:
                    self._caught_up(done, started)
                    yield WriteScope(self, txn)
            if room is not None:  # the lock let go: refused as on a disk found full, nothing recorded
                self.became_full(room)
                self.require_writable()
        except IndexBehind as exc:
            if "background_pid" in exc.details:  # already handed on (a reading inside this write)
                raise
            raise self.behind(exc, deferral) from None

    def reading(self, *, progress: Progress | None = None, deferral: Deferral | None = None) -> ProjectionRunner:
        """Bring projections up to date (briefly under the lock) and return them.
        ``deferral``: the work to keep should the catch-up be handed on (``behind``).

        On a read-only ``.baton/`` (or a full disk) there is no lock to take and
        no index to update: the index is copied into memory and what the feeds
        gained past it folded there, or, with no index of this Baton to copy,
        the whole ledger is replayed there (``ProjectionRunner._memory_index``)."""
        runner = self.runner
        started = time.perf_counter()
        progress = progress or self.on_progress
        if self.read_only:
            if self.disk_full is not None and self.on_disk_full is not None:
                self.on_disk_full(self.disk_full)
                self.on_disk_full = None  # once a command
            if self.fold_limit is not None:  # no index to hand a replay to: none past the limit either
                try:
                    runner.check_fold_limit(self.fold_limit)
                except IndexBehind as exc:
                    if self.disk_full is not None:
                        raise DiskFull(
                            f"{self.disk_full}, and a replay in memory of {ledger_size(exc.details['bytes'])} of "
                            f"ledger is more than this command folds in its time "
                            f"({ledger_size(exc.details['limit'])}); {files.DISK_FULL_ADVICE}",
                            details={"baton_dir": self.paths.baton_folder, **exc.details}) from None
                    raise ReadOnlyProject(
                        f"{self.paths.baton_folder} is read-only here, and a replay in memory of "
                        f"{ledger_size(exc.details['bytes'])} of ledger is more than this command folds in its "
                        f"time ({ledger_size(exc.details['limit'])})",
                        details={"baton_dir": self.paths.baton_folder, **exc.details}) from None
            runner.catch_up(progress=progress, allow_pinned=True)
            return runner
        if self._caught_up_at is not None and self._quiet_since() == self._caught_up_at:
            # A long-lived process (the MCP server, the status page) reading
            # again: no feed gained a byte and no one touched the index since
            # the last catch-up, so there is nothing to fold (a stat per feed
            # and one pragma, no lock). Appends take the lock and grow a feed,
            # and a rebuild or ``gc`` changes the index: either one ends this.
            return runner
        try:
            if self.fold_limit is not None:
                runner.check_fold_limit(self.fold_limit)
            self.say_if_waiting(self.read_wait)
            with self.ledger.locked(wait=self.read_wait):
                done = runner.catch_up(progress=progress, allow_pinned=True, fold_limit=self.fold_limit)
                self._caught_up_at = self._quiet_since()
                if self.on_damage is not None:  # one query of feed_heads; a feed read only when one is short
                    lost = getattr(self.ledger, "lost_acknowledged", None)
                    found = lost() if lost is not None else None
                    if found and found not in self._damage_told:
                        self._damage_told.add(found)
                        self.on_damage(found, runner.kept_files())
        except IndexBehind as exc:
            if "background_pid" in exc.details:
                raise
            raise self.behind(exc, deferral) from None
        except DiskFull as full:  # the index could not be written: read from a replay in memory
            self.became_full(full)
            return self.reading(progress=progress, deferral=deferral)
        except LedgerBusy:
            if self.read_wait is None:  # pragma: no cover - an unbounded wait never gives up
                raise
            # Another process holds the lock: answer from the index as it is (WAL:
            # its last commit), without waiting for the holder.
            self.log("info", "read_without_lock", wait=self.read_wait)
            return runner
        self._caught_up(done, started)
        return runner

    def say_if_waiting(self, wait: float | None = None) -> None:
        """Before taking the ledger lock for as long as ``wait`` (None: no
        limit), tell ``on_wait`` that another process holds it."""
        if self.on_wait is not None and wait is None:
            probe = getattr(self.ledger, "held_elsewhere", None)  # a file ledger's: its lock is a file
            if probe is not None and probe():
                self.said_waiting()

    def said_waiting(self) -> None:
        """Tell ``on_wait`` that this command waits for the ledger lock, once
        per command (a command that takes the lock several times says it once)."""
        if self.on_wait is not None and not self._said_waiting:
            self._said_waiting = True
            catch_up, pid = _background().running(self.paths.baton_folder)
            self.on_wait(catch_up=catch_up, pid=pid, lock=os.path.join(self.paths.baton_folder, "ledger.lock"))

    def behind(self, exc: IndexBehind, deferral: Deferral | None = None) -> IndexBehind:
        """``exc`` (a catch-up past ``fold_limit``, nothing folded, the lock let
        go), once the catch-up has been handed to a process of its own
        (``baton.background``): what it says names that process, or the
        command to run when it could not be started. ``deferral`` (given by
        the caller of this one step, never kept on the project: two callers
        of one long-lived project cannot keep each other's work) is kept
        first (``details["deferred"]``): kept before the process starts, it
        is there when the process looks once the index is up to date."""
        kept = deferral() if deferral is not None else None
        room = _background().failed_for_room(self.paths.baton_folder)
        if room is not None and not self._more_room_than(room[1]):
            # the last catch-up failed for want of space and the disk has no more now: not started again
            self.log("info", "catch_up_not_restarted", bytes=exc.details.get("bytes"), free=room[1])
            self.became_full(DiskFull(room[0], details={"disk": room[0], "free": room[1]}))
            raise DiskFull(f"the index could not be brought up to date in the background: {room[0]}; it is not "
                           f"tried again until that disk has more room; {files.DISK_FULL_ADVICE}", details={**exc.details, "deferred": kept,
                                                                                  "baton_dir": self.paths.baton_folder})
        pid, failed = _background().start_catch_up(self.root, self.paths.baton_folder)
        if failed is None and self._handed_on is not None and self._handed_on[0] == pid:
            failed = self._handed_on[1]  # the one this process started, after a failure it already said
        elif failed is not None and pid is not None:
            self._handed_on = (pid, failed)
        self.log("info", "catch_up_elsewhere", pid=pid, bytes=exc.details.get("bytes"), failed=failed is not None)
        details = {**exc.details, "background_pid": pid, "background_failed": failed, "deferred": kept}
        if failed is not None:  # the last one ended in an error: that is said, not the promise again
            again = "tried again" if pid is not None else "and no process could be started to try again"
            return IndexBehind(f"the index could not be brought up to date in the background: {failed}; {again}",
                               details=details)
        then = (f"it is being brought up to date in the background (pid {pid}); the next session start has it"
                if pid is not None else "and no process could be started to bring it up to date")
        return IndexBehind(f"{exc.message}: {then}", details=details)

    def busy(self, exc: LedgerBusy, deferral: Deferral | None = None) -> LedgerBusy:
        """``exc`` (the ledger lock held by another process past ``write_wait``),
        once the work that must not be lost (``deferral``) is kept and a process
        of its own (``baton.background``) started to wait for the lock and run
        it: what it says names that process. Without ``deferral`` (a hook whose
        work is not kept, or a command), ``exc`` as it is."""
        kept = deferral() if deferral is not None else None
        if kept is None:
            return exc
        pid, failed = _background().start_catch_up(self.root, self.paths.baton_folder)
        self.log("info", "kept_while_busy", pid=pid, failed=failed is not None)
        details = {**exc.details, "background_pid": pid, "background_failed": failed, "deferred": kept}
        held = exc.reason  # not its advice to a person: this hook's work is tried again
        if failed is not None:  # a line of the last catch-up's log: text, its advice dropped too
            failed = LedgerBusy.reason_of(failed)
            again = (f"tried again (pid {pid})" if pid is not None
                     else "and no process could be started to try again")
            return LedgerBusy(f"{held}, and the last catch-up in the background failed: {failed}; {again}",
                              details=details)
        then = (f"a process of its own (pid {pid}) waits for it" if pid is not None
                else "and no process could be started to wait for it")
        return LedgerBusy(f"{held}: {then}", details=details)

    def _quiet_since(self) -> tuple | None:
        """The feeds' ``(name, inode, size, mtime)`` and the index's ``content_token``
        (None when either cannot be told without reading)."""
        stats = getattr(self.ledger, "feed_stats", None)
        token = self.runner.content_token()
        if stats is None or token is None:
            return None
        return stats(), token

    @property
    def must_reopen(self) -> bool:
        """The ledger this project opened refuses every later lock (a write of
        it failed: the page cache may hold bytes the disk does not); a process
        that keeps the project open closes it and opens it again to go on. So too
        once the disk it found full (``disk_full``: it reads from a replay in memory and
        refuses writes) has room again: opened afresh, it writes as before."""
        if self._disk_full is not None and (self._more_room_than(self._room_at) if self._room_at is not None
                                            else files.disk_full(self.paths.baton_folder) is None):
            return True
        return self._ledger is not None and self._ledger.poisoned is not None

    def _more_room_than(self, free: int) -> bool:
        """The disk holding ``.baton/`` has at least ``files.LOW_SPACE`` more free than
        ``free`` (the bytes free when a write of the index failed for want of space)."""
        now = files.free_bytes(self.paths.baton_folder)
        return now is not None and now >= free + files.LOW_SPACE

    def close(self) -> None:
        if self._runner is not None:
            self._runner.close()
        if self._ledger is not None:
            self._ledger.close()


READ_ONLY_WRITER = "read-only"


def baton_dir_writable(paths: ProjectPaths) -> bool:
    """Whether this process may write ``.baton/``: the lock it opens for
    every command (or the folder, before the lock exists) and the ledger's
    folder. ``os.access`` also says no on a read-only mount, even to root."""
    lock = os.path.join(paths.baton_folder, "ledger.lock")
    targets = [lock if os.path.exists(lock) else paths.baton_folder]
    if os.path.exists(paths.ledger_folder):
        targets.append(paths.ledger_folder)
    return all(os.access(t, os.W_OK) for t in targets)


def _not_a_project(root: Path) -> NotInitialized:
    """``root`` has no ``.baton/config.json``: say so, and when the git work
    tree it is in is a Baton project (a project root named one folder too
    deep), name that project's root rather than only offer ``baton init``,
    which would make a second project inside it."""
    from pathlib import Path  # lazy: a project not found, off the hook path

    found = git_toplevel(root)
    top = Path(found) if found is not None else None
    if top is not None and top != root and (top / ".baton" / "config.json").is_file():
        return NotInitialized(f"{root} is not a Baton project (no .baton/config.json); it is inside the Baton "
                              f"project at {top}: name that folder as the project root",
                              details={"root": str(root), "project_root": str(top)})
    ledger = root / ".baton" / "ledger"
    if ledger.is_dir() and any(ledger.glob("*.jsonl")):
        return NotInitialized(
            f"{root} has a Baton ledger (.baton/ledger/) but no .baton/config.json: it is tracked on another "
            "branch, or was deleted. Restore it from a branch that has it (`git checkout <branch> -- "
            ".baton/config.json`), or run `baton init`, which recreates it with the project id the ledger "
            "recorded", details={"root": str(root), "ledger": True})
    return NotInitialized(f"{root} is not a Baton project (no .baton/config.json); run `baton init` first",
                          details={"root": str(root)})


LOCAL_HINT = ("; it holds this machine's writer id: put back the file from a backup, or remove it and "
              "Baton mints a new writer id (this machine then writes a new feed; nothing is lost)")


def read_local(paths: ProjectPaths) -> dict:
    """``local.json`` as it is (``{}`` when there is none), its writer id checked; writes nothing.

    Raises:
        ConfigError: ``local.json`` does not parse, is not an object, or names no valid writer id.
    """
    try:
        local = read_json(paths.local_file, ConfigError)
    except FileNotFoundError:
        return {}
    except ConfigError as exc:
        raise ConfigError(exc.message + LOCAL_HINT) from None
    if not isinstance(local, dict):
        raise ConfigError(f"{paths.local_file} must hold a JSON object" + LOCAL_HINT)
    writer = local.get("writer")
    if writer is not None and not (isinstance(writer, str) and is_writer_id(writer)):
        raise ConfigError(f"{paths.local_file}: writer {writer!r} is not a valid writer id ([a-z0-9-], ≤ 64)" + LOCAL_HINT)
    return local


def ensure_writer(paths: ProjectPaths) -> str:
    """This machine's writer id, minted once and kept in ``local.json``.

    Raises:
        ConfigError: ``local.json`` does not parse, is not an object, or names no valid writer id.
    """
    return ensure_local(paths)["writer"]


def ensure_local(paths: ProjectPaths) -> dict:
    """``local.json`` with a writer id: the file as it is when it names one,
    else with one minted now and the place it was minted in (``minted_in``).

    Raises:
        ConfigError: ``local.json`` does not parse, is not an object, or names no valid writer id.
    """
    local = read_local(paths)
    if isinstance(local.get("writer"), str):
        return local
    local = _claims().minted_here(paths, local)
    if not os.path.exists(paths.local_file):
        # Two first commands at once must agree on one id: publish with an
        # exclusive link and let the loser read the winner's file.
        tmp = os.path.join(paths.baton_folder, f".local.{os.getpid()}.tmp")
        try:
            with open(tmp, "wb") as fh:
                fh.write(pretty_bytes(local))
            os.link(tmp, paths.local_file)
        except FileExistsError:
            return ensure_local(paths)
        except OSError as exc:
            raise StorageError(f"cannot write {paths.local_file}: {exc}") from exc
        finally:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        return local
    write_json_atomic(paths.local_file, local)
    return local


def _background():
    """``baton.background``, loaded when a command waits for the ledger lock, its
    index is behind past the fold limit or the lock is held past the wait: never
    on the steady path. ``__import__``, as ``baton.commands.lineage``."""
    return __import__("baton.background", fromlist=["start_catch_up"])


def _claims():
    """``baton.commands.writer_claim``, loaded when an id is minted or a copy
    found: never on the steady path. ``__import__``, as ``baton.commands.lineage``."""
    return __import__("baton.commands.writer_claim", fromlist=["claim"])


# What a stream name is built from, by its kind (``session/<id>``, ``baton/<owner>__<branch>``...).
_STREAM_SOURCES = {"session": "the session id", "detector": "the session id", "baton": "the owner or branch",
                   "objective": "the owner or branch"}


def _stream_name_findings(stream: str, redactions) -> list:
    """A refusal of a stream name, worded for the person who typed its parts.

    The name is screened twice (as written and percent-decoded), so one token
    fires on ``stream[0]`` and ``stream[1]``: one finding per rule is kept, and
    its field names what the stream was built from (``stream name (from the
    session id)``), never the value.
    """
    kind = stream.split("/", 1)[0]
    field = f"stream name (from {_STREAM_SOURCES.get(kind, 'an id, owner or branch')})"
    seen: dict[str, object] = {}
    for r in redactions:
        seen.setdefault(r.rule, r._replace(field=field))  # a named tuple's (a value class)
    return list(seen.values())

