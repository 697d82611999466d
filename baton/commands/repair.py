"""``baton repair``: set a damaged feed's bad lines aside, deliberately and on record.

See ``baton.ledger.repair`` for what is set aside and ``docs/ledger.md`` for
the quarantine's format. Never implicit: without ``--yes`` it only says what
it would do (``--dry-run`` says so on purpose, with exit 0).
"""

from __future__ import annotations

import os
import sqlite3
import stat
from hashlib import sha256
from typing import TYPE_CHECKING, Callable

import attrs
import orjson

from baton.commands import forget, forget_kept
from baton.commands.context import foreign_feed_name, foreign_refusal
from baton.commands.forget_kept import KEPT_PREFIX, kept_list_name
from baton.commands.repair_plan import caught_up_by_sync, feed_named, landed, plan_lines, repair_plans, seq_range
from baton.commands.synced_feed import synced_seq
from baton.commands.verify import verify_project
from baton.domain.wording import counted
from baton.errors import BatonError, InputError, NotFound, StorageError
from baton.events.names import handoff_stream
from baton.ledger import files
from baton.ledger.ids import uuid7
from baton.ledger.line_endings import crlf_feeds, put_back_lf
from baton.ledger.quarantined import held_handoff, read_copies, whole_streams
from baton.ledger.repair import (
    LINE_PROBLEMS,
    FeedRepair,
    Unfinished,
    same_plan,
    set_aside,
    unfinished_repairs,
)
from baton.ledger.verify import VerifyReport
from baton.model import frozen
from baton.sync.local import ledger_lock

if TYPE_CHECKING:
    from baton.commands.context import Project


@frozen
class RepairResult:
    plans: list[FeedRepair]
    dry_run: bool
    repaired: bool
    quarantined: list[str | None]
    after: VerifyReport
    links: list[dict] = attrs.field(factory=list)
    """Feeds that were (or, without ``--yes``, are) symbolic links or not regular
    files: ``{"path", "what", "removed"}``; the link is removed, never its target."""
    synced_beyond: dict | None = None
    """This clone's own feed, when the repair would cut it before the seq its ledger ref
    holds: ``{"feed", "seq", "kept_seq"}`` (docs/sync.md, "A repair of a feed already synced")."""
    finished: list[Unfinished] = attrs.field(factory=list)
    """Repairs a killed ``baton repair --yes`` had cut or rewritten the feed for but not recorded:
    recorded by this run (or, with ``--dry-run``, to be)."""
    line_endings: dict[str, int] = attrs.field(factory=dict)
    """Feeds whose lines ended in CRLF → how many: put back to LF by this run (or, with
    ``--dry-run``, to be; ``baton.ledger.line_endings``)."""
    own: str | None = None
    """This clone's writer: the plan names its own feed as its own."""
    kept: list[dict] = attrs.field(factory=list)
    """Files a rebuild kept because the events that showed them are lost
    (``ProjectionRunner.kept_files``): ``{"path", "quarantine"}``, ``path`` relative to
    ``.baton/``, ``quarantine`` the name this run moved it to in ``.baton/quarantine/``
    (None: a dry run, or no loss recorded)."""

    @property
    def exit_code(self) -> int:
        return 0 if self.after.ok or (self.dry_run and (self.plans or self.links or self.line_endings)) else 3

    def to_json(self) -> dict:
        return {
            "dry_run": self.dry_run, "repaired": self.repaired, "links": self.links,
            "feeds": [dict(p.to_json(), quarantine=q) for p, q in
                      zip(self.plans, self.quarantined or [None] * len(self.plans))],
            "verified": self.after.ok,
            "problems_left": [p.to_json() for p in self.after.all_problems()],
            "synced_beyond": self.synced_beyond,
            "finished": [dict(u.repair.to_json(), quarantine=u.file) for u in self.finished],
            "line_endings": [{"feed": feed, "lines": n} for feed, n in self.line_endings.items()],
            "kept_files": self.kept,
        }

    def render(self) -> str:
        shown = [*self.line_ending_lines(), *(_link_line(link) for link in self.links)]
        for u in self.finished:  # repairs a killed ``repair --yes`` left unrecorded
            shown.extend(plan_lines(u.repair, "Would set aside" if self.dry_run else "Set aside", self.own))
            shown.append(f"  the bytes are in .baton/quarantine/{u.file} (manifest beside it): a `baton repair --yes` "
                         f"killed after changing feed {u.repair.feed} left this repair unrecorded; "
                         + ("`--yes` records it" if self.dry_run else "recorded now as a ledger.repaired event"))
        if shown and not self.plans:
            if self.dry_run or not (self.finished or self.line_endings or any(link["removed"] for link in self.links)):
                return "\n".join([*shown, "Nothing was changed (--dry-run)."] if self.dry_run else shown)
            return "\n".join(shown + ["The ledger verifies." if self.after.ok else "Problems remain: run `baton verify`."])
        if not self.plans:
            if self.after.ok:
                return "The ledger verifies: nothing to repair."
            return "\n".join(["Nothing here that a repair can set aside; these problems remain:"]
                             + [f"  {p.feed}{'' if p.seq is None else f' seq {p.seq}'}: {p.kind}: {p.message}"
                                for p in self.after.all_problems()] + gaps_left(self.after))
        lines = list(shown)
        verb = "Set aside" if self.repaired else "Would set aside"
        for plan, quarantined in zip(self.plans, self.quarantined or [None] * len(self.plans)):
            if plan.cut is not None:
                lines.extend(plan_lines(plan, verb, self.own))
            for head in plan.lost:
                lines.append(f"{'Acknowledged' if self.repaired else 'Would acknowledge'} as lost: {plan.feed} "
                             f"seq {head['seq']} (recorded by {head['source']})")
            for reason in plan.reasons:
                lines.append(f"  because: {reason}")
            if plan.erased:  # a backup from before a forget: the ref's copy is kept erased
                lines.append(f"  {'erased' if self.repaired else 'would erase'} "
                             f"{counted(len(plan.erased), 'payload')} the local file still held and a recorded "
                             "handoff.forgotten erased on the ref's copy (a backup taken before the forget): the "
                             "index, materialized files and quarantine are scrubbed as after `baton forget`")
            if quarantined:
                lines.append(f"  the bytes are in .baton/quarantine/{quarantined} (manifest beside it)")
            caught_up = caught_up_by_sync(plan, self.own, done=self.repaired)
            if caught_up:
                lines.append(caught_up)
        lines.extend(self.kept_lines())
        if self.repaired:
            lines.append("Recorded as a ledger.repaired event. "
                         + ("The ledger verifies." if self.after.ok else "Problems remain: run `baton verify`."))
            lines.extend(gaps_left(self.after))
        elif self.dry_run:
            if self.synced_beyond is not None:
                b = self.synced_beyond
                lines.append(f"This clone's own feed {b['feed']} was synced up to seq {b['seq']}: run `baton sync "
                             "--restore-own-feed` first, which takes those events back from the remote; this repair "
                             "would fork the feed against the remote's copy (`--despite-synced` does it anyway)")
            lines.append("Nothing was changed (--dry-run).")
        return "\n".join(lines)


    def kept_lines(self) -> list[str]:
        """The files written from events the ledger lost, kept by the reads since
        (``kept``): moved into quarantine by this run, or to be by ``--yes``."""
        lines = []
        for item in self.kept:
            if item["quarantine"] is None:
                lines.append(f"Would move .baton/{item['path']} into .baton/quarantine/: written from events the "
                             "ledger lost, the only whole copy of what they recorded")
            else:
                lines.append(f"Moved .baton/{item['path']} to .baton/quarantine/{item['quarantine']} (listed in "
                             f"{kept_list_name(item['quarantine'])} beside it): written from events the ledger "
                             "lost, the only whole copy of what they recorded")
        return lines

    def line_ending_lines(self) -> list[str]:
        """The feeds whose line endings this run put back (or would)."""
        done = "Would put back" if self.dry_run else "Put back"
        return [f"{done} the line endings of feed {feed} to LF ({counted(n, 'line')} ended in CRLF, \\r\\n: an "
                "editor or a line-ending conversion rewrote the file; no event changed)"
                for feed, n in self.line_endings.items()]


GAP_LEFT = ("  a stream_gap left in feed {feed}: its events build on events the repair set aside; a repair sets "
            "them aside only from this clone's own feed, and only while its ledger ref does not hold them (once "
            "synced, teammates may have built on them), never from another writer's feed (docs/ledger.md, "
            "`baton repair`)")


def gaps_left(after: VerifyReport) -> list[str]:
    """Why a ``stream_gap`` a repair leaves is not a cut's to fix (``with_own_dependents``)."""
    return [GAP_LEFT.format(feed=feed) for feed in sorted({p.feed for p in after.all_problems()
                                                           if p.kind == "stream_gap"})]


def _link_line(link: dict) -> str:
    """What a repair did, or would do, about one foreign feed (``RepairResult.links``)."""
    path, what = link["path"], link["what"]
    if what == "a folder":  # never removed: the repair refuses it (``repair_project``)
        return (f"Would not remove {path}: it is a folder, not a feed; move it out of .baton/ (`mv {path} ..`): "
                "a repair refuses to run until then")
    left = " (the file it points to is left as it is)" if what.startswith("a symbolic") else ""
    return (f"{'Removed' if link['removed'] else 'Would remove'} {path}: it "
            f"{'was' if link['removed'] else 'is'} {what}, not a feed{left}")


def repair_project(project: "Project", *, feed: str | None = None, dry_run: bool = False,
                   yes: bool = False, progress: Callable[[int, int], None] | None = None,
                   despite_synced: bool = False) -> RepairResult:
    """``progress``: ``verify_ledger``'s, for the checks before and after. ``despite_synced``:
    repair this clone's own feed although its ledger ref holds it beyond the cut (docs/sync.md,
    "A repair of a feed already synced"): its ``ledger.repaired`` event then forks the feed.

    Raises:
        NotInitialized, NotFound: no feed ``feed``.
        UnsafePath (exit 5): a folder where a feed belongs (without ``dry_run``), before anything
            is done: it is moved out by hand, never removed.
        InputError (exit 2): something to set aside, and neither ``--yes`` nor ``--dry-run``; or
            ``--feed`` names one damaged feed while others are damaged too.
        InputError (exit 2): this clone's own feed would be cut before what its ledger ref holds
            (without ``despite_synced``): nothing changed.
        LedgerCorrupt, StorageError: the repair could not be recorded.
    """
    ledger_dir = project.paths.ledger_dir
    writer = project.writer  # a copied folder takes a new id as the repair records: its former feed is its own
    if feed is not None and feed not in (names := project.ledger.feed_names()) \
            and not os.path.lexists(ledger_dir / f"{feed}.jsonl"):  # said before the ledger is checked, not after
        raise NotFound(f"no feed {feed!r} in this ledger (feeds: {', '.join(sorted(names)) or 'none'})")
    crlf = put_back_line_endings(project, feed, dry_run=dry_run, yes=yes)  # first: then read as Baton wrote them
    before = verify_project(project, progress, plan=False).report
    finished = landed_repairs(project, before, dry_run=dry_run, yes=yes)
    known = {f.feed for f in before.feeds} | {p.feed for p in before.all_problems()}
    if feed is not None and feed not in known:
        raise NotFound(f"no feed {feed!r} in this ledger (feeds: {', '.join(sorted(known)) or 'none'})")
    links = [(rel, what) for rel, what in project.foreign_feeds if feed is None or foreign_feed_name(rel) == feed]
    plans = repair_plans(project, before, finished, feed=feed, despite_synced=despite_synced)
    listed = [{"path": rel, "what": what, "removed": False} for rel, what in links]
    folders = [(rel, what) for rel, what in links if what == "a folder"]
    if folders and not dry_run:  # refused before anything is removed or set aside
        raise foreign_refusal(*folders[0])
    restore = next((p for p in plans if p.restored), None)
    synced = synced_beyond_cut(project, plans)
    lost_files = kept_files(project) if plans else []
    if (not plans and not links) or dry_run:
        if finished and not dry_run:
            before = record_repairs(project, finished, [], [], progress)
        return RepairResult(plans, dry_run, bool(finished) and not dry_run, [], before, listed, synced_beyond(synced),
                            finished, crlf, project.writer, [{"path": rel, "quarantine": None} for rel in lost_files])
    if feed is not None:
        refuse_others_damaged(before, feed)
    if synced is not None and not despite_synced:
        own, seq, kept = synced
        raise InputError(f"this clone's own feed {own} was synced up to seq {seq} (its ledger ref holds it), "
                         f"and a repair would keep {seq_range(kept)} and record ledger.repaired as seq {kept + 1}, "
                         "forking the feed against the remote's copy: run `baton sync` given `restore_own_feed` "
                         "first, which takes the events back from the remote; `despite_synced` repairs anyway "
                         "(docs/sync.md)", details={"feed": own, "synced_seq": seq, "kept_seq": kept})
    if not yes and restore is not None:
        raise InputError(f"`baton repair` would restore {feed_named(restore.feed, project.writer)} as its ledger ref holds "
                         f"it (seq 1-{restore.restored}, the remote's copy at the last sync) and set "
                         f"{counted(len(restore.set_aside), 'line')} of the local file that cannot be proven to "
                         "follow it aside into .baton/quarantine/: `yes` does it, `dry_run` shows them first")
    if not yes:
        count = sum(len(p.set_aside) for p in plans)
        what = "it is not a feed; never what it points to" if len(links) == 1 else "not feeds; never what they point to"
        would = [f"remove {', '.join(rel for rel, _ in links)} ({what})"] if links else []
        if plans:
            would.append(f"set {counted(count, 'line')} of {', '.join(p.feed for p in plans)} aside into .baton/quarantine/")
        raise InputError(f"`baton repair` would {' and '.join(would)}: `yes` does it, `dry_run` shows them first")
    for (rel, _what), shown in zip(links, listed):
        remove_foreign_feed(project, rel)
        shown["removed"] = True
    project.foreign_feeds = [item for item in project.foreign_feeds if item not in links]
    moved = keep_in_quarantine(project, lost_files, [reason for plan in plans for reason in plan.reasons])
    unlanded = [u for u in unfinished_repairs(project.paths.baton_dir, before.quarantined) if not u.landed]
    quarantined = []
    for plan in plans:  # a repair killed before it changed the feed is done again with its own copy
        again = next((u for u in unlanded if same_plan(u.repair, plan)), None)
        quarantined.append(set_aside(project.paths.baton_dir, plan, reuse=again.name if again is not None else None))
    after = record_repairs(project, finished, plans, quarantined, progress)
    scrub_restored_erasures(project, plans)
    moved += release_set_aside(project, lost_files, [q for q in quarantined if q],
                               [reason for plan in plans for reason in plan.reasons])
    return RepairResult(plans, False, bool(plans) or bool(finished), quarantined, after, listed, None, finished, crlf,
                        writer, moved)


def scrub_restored_erasures(project: "Project", plans: list[FeedRepair]) -> None:
    """A restore kept the ref's copies of events a forget erased after the local file's backup was
    taken (``FeedRepair.erased``): their payloads go from the index, the materialized files and the
    quarantine, as after `baton forget` — never left as "the only whole copy" of a lost event."""
    erased = [item for plan in plans for item in plan.erased]
    if erased:
        payloads = [data for _id, data in erased]
        forgotten = forget_kept.handoffs_in(payloads)
        with ledger_lock(project):
            # the repair's own rebuild kept their files in place (their payloads went): they go too
            project.runner.release_kept([c.shown for c in forget_kept.kept_copies(project)
                                         if not c.in_quarantine and c.handoff in forgotten])
            forget.scrub_after_erasure(project, payloads, frozenset(ident for ident, _data in erased))


def refuse_others_damaged(before: VerifyReport, feed: str) -> None:
    """A repair of one feed (``feed``) refused while other feeds are damaged too.

    Raises:
        InputError (exit 2): another feed has a damaged line.
    """
    others = sorted({p.feed for p in before.all_problems() if p.feed != feed and p.kind in LINE_PROBLEMS})
    if others:
        which = f"feeds {', '.join(others)} are" if len(others) > 1 else f"feed {others[0]} is"
        raise InputError(f"{which} damaged too, and the repair of {feed} could not be "
                         "recorded past them: repair them all at once (leave out `feed`)")


def release_set_aside(project: "Project", moved: list[str], copies: list[str], reasons: list[str]) -> list[dict]:
    """After the record: the files the repair's own rebuild kept (between its cut and its
    record the feed is shorter than the index acknowledged) other than ``moved``, those the
    loss had kept before. One whose handoff's events are whole in the ``.repair`` copies just
    written (``copies``: a cut sets aside whole lines) goes as a rebuild removed it before — a
    ``forget`` reaches that copy. When a piece of those copies is an event cut short (garbage
    earlier in the feed and its last line torn), or the copies hold no whole event of its
    handoff, the file may be the only whole copy of an acknowledged capture: it is moved into
    quarantine as a kept file (``keep_in_quarantine``) and returned, never removed."""
    try:
        left = [rel for rel in project.runner.kept_files() if rel not in moved]
        if not left:
            return []
        streams, torn = whole_streams(c for c in read_copies(project.paths.quarantine_dir) if c.path.name in copies)
        whole = [rel for rel in left if not torn
                 and handoff_stream(held_handoff(project.paths.baton_dir / rel) or "") in streams]
        if whole:
            project.runner.release_kept(whole)
        return keep_in_quarantine(project, [rel for rel in left if rel not in whole], reasons)
    except (BatonError, sqlite3.Error):
        return []  # left as kept files: listed by the next repair, never lost


def kept_files(project: "Project") -> list[str]:
    """The files (relative to ``.baton/``) a rebuild kept because the ledger lost the
    events that showed them (``ProjectionRunner.kept_files``), after a catch-up — the
    one that finds the loss, when no command read since the feed was cut. A ledger
    too damaged to read (the catch-up refuses it) rebuilt nothing, so removed nothing:
    the files kept before are listed, if any."""
    told, project.on_damage = project.on_damage, None  # the repair says what it finds itself
    try:
        return project.reading().kept_files()
    except BatonError:
        try:
            return project.runner.kept_files()
        except (BatonError, sqlite3.Error):
            return []
    finally:
        project.on_damage = told


def keep_in_quarantine(project: "Project", kept: list[str], reasons: list[str]) -> list[dict]:
    """Move ``kept`` (relative to ``.baton/``) into ``.baton/quarantine/`` before the loss is
    recorded (after it, a rebuild would remove them): first the list
    ``kept.<uuid>.files.json`` (each file's ``path``, its name in quarantine ``file``,
    ``bytes`` and ``sha256``; the repair's ``reasons``), fsynced, then each file renamed to
    ``kept.<uuid>.<name>``. Returns ``RepairResult.kept``.

    Raises:
        StorageError: the list could not be written or a file moved (nothing is removed:
            a file not moved stays where it was).
    """
    if not kept:
        return []
    quarantine = project.paths.quarantine_dir
    run = uuid7()
    items: list[dict[str, str | int]] = []
    moves: list[tuple[str, str]] = []
    for rel in kept:
        source = project.paths.baton_dir / rel
        try:
            data = source.read_bytes()
        except OSError as exc:
            raise StorageError(f"cannot read .baton/{rel} to keep it in quarantine: {exc}") from exc
        moves.append((rel, f"{KEPT_PREFIX}{run}.{source.name}"))
        items.append({"path": rel, "file": moves[-1][1], "bytes": len(data), "sha256": sha256(data).hexdigest()})
    listing = quarantine / f"{KEPT_PREFIX}{run}.files.json"
    try:
        quarantine.mkdir(parents=True, exist_ok=True)
        fd = os.open(listing, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            files.write_all(fd, orjson.dumps({"kept": items, "reasons": reasons},
                                             option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n")
            os.fsync(fd)
        finally:
            os.close(fd)
        for rel, name in moves:
            os.replace(project.paths.baton_dir / rel, quarantine / name)
    except OSError as exc:
        raise StorageError(f"cannot move the files written from lost events into {quarantine}: {exc}; nothing "
                           "was set aside or recorded, and no file was removed") from exc
    files.fsync_dir(quarantine)
    project.runner.forget_kept(kept)
    return [{"path": rel, "quarantine": name} for rel, name in moves]


def put_back_line_endings(project: "Project", feed: str | None, *, dry_run: bool, yes: bool) -> dict[str, int]:
    """The feeds (``feed`` alone, when given) whose lines end in CRLF, each with how many:
    with ``yes`` put back to LF (``baton.ledger.line_endings``), the index caught up to the
    bytes moved; with ``dry_run`` only named.

    Raises:
        InputError (exit 2): some, and neither ``yes`` nor ``dry_run``; nothing changed.
        StorageError: a feed could not be rewritten (it is as it was).
    """
    crlf = {name: n for name, n in crlf_feeds(project.paths.ledger_dir).items() if feed is None or name == feed}
    if not crlf or dry_run:
        return crlf
    if not yes:
        raise InputError(f"`baton repair` would put the line endings of feed {', '.join(crlf)} back to LF "
                         f"({counted(sum(crlf.values()), 'line')} end in CRLF; no event changes): `yes` does "
                         "it, `dry_run` shows it first")
    for name in crlf:
        put_back_lf(project.paths.baton_dir, name, fsync=project.config.fsync != "never")
    try:  # the index's cursors sat at the CRLF file's bytes: it finds them off and rebuilds
        project.runner.catch_up()
    except BatonError:
        pass  # a feed damaged besides: the repair goes on to say so, and sets its lines aside
    return crlf


def record_repairs(project: "Project", finished: list[Unfinished], plans: list[FeedRepair],
                   quarantined: list[str | None], progress: Callable[[int, int], None] | None) -> VerifyReport:
    """The run's one append: the ``ledger.repaired`` events of the repairs a killed run left
    unrecorded (``finished``), then of ``plans`` — after the cuts, so a restore never sets one
    aside. Returns the ledger's check afterwards."""
    if plans or finished:
        with project.writing() as scope:
            scope.append([u.repair.draft(project.writer, u.file) for u in finished]
                         + [plan.draft(project.writer, name) for plan, name in zip(plans, quarantined)], durable=True)
    return verify_project(project, progress, plan=False).report


def landed_repairs(project: "Project", before: VerifyReport, *, dry_run: bool, yes: bool) -> list[Unfinished]:
    """The repairs a killed ``baton repair --yes`` cut or rewrote a feed for but never recorded
    (``unfinished_repairs``): ``--yes`` records their ``ledger.repaired`` events, from their
    manifests, in the run's one append, after anything it sets aside (``--dry-run`` says so).

    Raises:
        InputError (exit 2): there are some, and neither ``--yes`` nor ``--dry-run``.
    """
    done = landed(project, before)
    if done and not dry_run and not yes:
        raise InputError(f"`baton repair` would record the repair of {', '.join(u.repair.feed for u in done)} "
                         "that a repair killed mid-way left unrecorded (its lines are already in "
                         f"{', '.join('.baton/quarantine/' + u.file for u in done)}): `yes` does it, "
                         "`dry_run` shows it first")
    return done


def synced_beyond(synced: tuple[str, int, int] | None) -> dict | None:
    return None if synced is None else {"feed": synced[0], "seq": synced[1], "kept_seq": synced[2]}


def synced_beyond_cut(project: "Project", plans: list[FeedRepair]) -> tuple[str, int, int] | None:
    """(feed, synced seq, kept seq) when a plan cuts this clone's own feed before
    the seq its ledger ref holds (``baton.commands.synced_feed``), else None."""
    own = next((plan for plan in plans if plan.feed == project.writer), None)
    if own is None:
        return None
    seq = synced_seq(project, own.feed)
    return (own.feed, seq, own.kept.seq) if seq > own.kept.seq else None


def remove_foreign_feed(project: "Project", rel: str) -> None:
    """Remove the symbolic link (or FIFO, socket…) at ``rel`` that stands where a
    feed belongs: the link itself (``unlink`` never follows one), never the file
    it points to, whose bytes Baton never reads. A folder is not removed.

    Raises:
        StorageError: it is a folder, or it could not be removed.
    """
    path = project.paths.root / rel
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StorageError(f"cannot look at {rel}: {exc}") from exc
    if stat.S_ISREG(st.st_mode):
        return  # a feed again (replaced since it was found): the ledger's to check
    if stat.S_ISDIR(st.st_mode):
        raise StorageError(f"{rel} is a folder where a feed belongs: move it out of .baton/ by hand, then run "
                           "`baton verify`")
    try:
        os.unlink(path)
    except OSError as exc:
        raise StorageError(f"cannot remove {rel}: {exc}; remove it by hand (`rm {rel}`)") from exc
