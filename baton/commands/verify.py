"""``baton verify``: check every feed's chain, digests, sequence and streams."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

import attrs

from baton.commands.baton_cases import render_claim_conflicts
from baton.commands.context import foreign_feed_name
from baton.commands.leftovers import leftover_temporaries
from baton.commands.repair_plan import caught_up_by_sync, gaps_filled, landed, plan_lines, repair_plans
from baton.commands.synced_feed import behind_ref, behind_ref_advice, synced_heads, synced_seq
from baton.domain.clock_ahead import ahead_line, clocks_ahead, feeds_ahead
from baton.domain.feed_projects import foreign_feeds, local_feed_problem, unshared_feeds
from baton.domain.paths import SYMLINK_ESCAPE
from baton.domain.wording import counted
from baton.errors import BatonError, InputError, named_parameters
from baton.events.names import HANDOFF_FORGOTTEN, PROJECT_INITIALIZED
from baton.ledger import files
from baton.ledger.erase import recorded_forgets
from baton.ledger.feed import (
    FeedHead,
    FeedProblem,
    line_ending_at,
    line_hashes_to,
    scan_bytes,
    stray_files,
    wall_us_ending_at,
)
from baton.ledger.line_endings import crlf_feeds
from baton.ledger.repair import HEAD_PROBLEMS, LINE_PROBLEMS, FeedRepair
from baton.ledger.verify import RecordedHead, VerifyReport, verify_ledger
from baton.model import frozen
from baton.projections.batons import claim_conflicts
from baton.sync.signers import UNRECORDED, FeedSigner, feed_signers, render_signers
from baton.sync.signing import SIGNATURE_PROBLEMS, require_signatures, signers_problem

if TYPE_CHECKING:
    from baton.commands.context import Project


@frozen
class VerifyResult:
    report: VerifyReport
    claim_conflicts: list[dict] = attrs.field(factory=list)
    """Baton claims that lost to another replica's earlier claim (``baton sync``):
    shown, not failures — the ledger holds both, and every replica agrees which won."""
    signers: list[FeedSigner] = attrs.field(factory=list)
    """Signed feeds (docs/sync.md): each feed's signer, its signature checked again."""
    require_signatures: bool = False
    project_id: str | None = None
    """``.baton/config.json``'s ``project_id``."""
    ahead: list[tuple[str, int]] = attrs.field(factory=list)
    """Feeds stamped far ahead of this machine's clock, ``(feed, seconds)`` (``domain.clock_ahead``): told, not failures."""
    synced_beyond: dict[str, Any] | None = None
    """This clone's own feed, damaged, when its ledger ref (what the last sync saw) holds it
    beyond the sound end: ``{"feed", "seq", "sound_seq"}``; the remote has those events, and a
    sync given ``restore_own_feed`` takes them back (a repair first would fork the feed)."""
    repair: list[FeedRepair] = attrs.field(factory=list)
    """What ``baton repair`` would set aside and keep, per damaged feed: the same plan it carries out."""
    leftovers: list[str] = attrs.field(factory=list)
    """Temporary files a process killed mid-write left (``baton.commands.leftovers``), relative to
    ``.baton/``: named, not failures; ``baton rebuild`` removes them."""
    signers_damaged: str | None = None
    """What is wrong with ``.baton/sync-signers.json`` and what mends it (``signing.signers_problem``):
    no feed's verdict is known until the next sync (``UNRECORDED``)."""
    stray: dict[str, str | None] = attrs.field(factory=dict)
    """``*.jsonl`` files in the ledger folder that are no feed, each with the writer whose events
    it holds when it is named for another writer (a copy: ``cp A.jsonl B.jsonl``), else None (its
    name is no writer id: a cloud drive's conflicted copy, a ``.bak``): not read, never deleted
    (``feed.stray_files``)."""
    others_forgets: frozenset[str] = frozenset()
    """The handoffs of ``report.unfinished_forgets`` whose forget another clone recorded (its
    ``handoff.forgotten`` not in this clone's feed): that clone's to finish, by its next sync."""
    own: str | None = None
    """This clone's writer: the plan names its own feed as its own."""
    other_project: dict[str, list[str]] = attrs.field(factory=dict)
    """Feeds of another project that no sync shared (``baton.domain.feed_projects``: copied into
    ``.baton/ledger/`` by hand), each with the project ids it names: failures, never published."""
    behind_ref: list[dict[str, Any]] = attrs.field(factory=list)
    """Feeds this clone's ledger ref (what the last sync saw) holds beyond the file, or whose file
    is gone (deleted or replaced by git, a person): ``{"feed", "seq", "local_seq", "own"}``; failures."""

    @property
    def project_mismatch(self) -> list[tuple[str, int, Any]]:
        """Each ``project.initialized`` (writer, seq, its id) whose id is not the config's
        ``project_id``: the config was changed (a copy, a merge of another project's config) or
        the ledger is another project's. Handoffs written now would carry the config's id."""
        if self.project_id is None:
            return []
        others = [i for i in self.report.identities if i[2] != self.project_id]
        if len(others) < len(self.report.identities):
            # one init recorded the config's id: the others are clones that ran `baton init`
            # before the config was committed, shared by sync (docs/sync.md) — not a failure
            return []
        return others

    def project_problem(self) -> str | None:
        """The mismatch in one sentence, with what to do; None when the ids agree."""
        mismatch = self.project_mismatch
        if not mismatch:
            return None
        ledger = ", ".join(dict.fromkeys(repr(i[2]) for i in mismatch))
        where = ", ".join(f"{writer} seq {seq}" for writer, seq, _ in mismatch)
        back = ledger if len(set(i[2] for i in mismatch)) == 1 else f"one of {ledger}"
        return (f".baton/config.json says project_id {self.project_id!r}, but the ledger was initialised as "
                f"project {ledger} (project.initialized in {where}); if the ledger is this project's, set "
                f"project_id in .baton/config.json back to {back}, else this ledger belongs to another project")

    @property
    def unsigned(self) -> list[FeedSigner]:
        """Feeds whose signature is missing or not good, or not known (``sync-signers.json`` damaged),
        when the project requires signatures."""
        return [s for s in self.signers if s.status in (*SIGNATURE_PROBLEMS, UNRECORDED)] \
            if self.require_signatures else []

    @property
    def exit_code(self) -> int:
        return 0 if (self.report.ok and not self.unsigned and not self.project_mismatch and not self.other_project
                     and not self.behind_ref) else 3

    def to_json(self) -> dict:
        return {**self.report.to_json(), "claim_conflicts": list(self.claim_conflicts),
                "signers": [s.to_json() for s in self.signers], "require_signatures": self.require_signatures,
                "project": {"config_id": self.project_id,
                            "ledger_ids": list(dict.fromkeys(i[2] for i in self.report.identities)),
                            "problem": self.project_problem(),
                            "other_project_feeds": [{"feed": feed, "project_ids": ids,
                                                     "file": f".baton/ledger/{feed}.jsonl"}
                                                    for feed, ids in self.other_project.items()],
                            "other_project_problem": self.other_project_problem()},
                "behind_ref": [{**b, "advice": behind_ref_advice(b)} for b in self.behind_ref],
                "clock_ahead": [{"feed": feed, "seconds": seconds} for feed, seconds in self.ahead],
                "synced_beyond": self.synced_beyond, "repair": [plan.to_json() for plan in self.repair],
                "leftovers": self.leftovers, "signers_damaged": self.signers_damaged, "stray_files": list(self.stray),
                "stray_copies": {name: writer for name, writer in self.stray.items() if writer is not None},
                "unfinished_forgets_of_other_clones": sorted(self.others_forgets)}

    def other_project_problem(self) -> str | None:
        """``feed_projects.local_feed_problem`` for ``other_project``; None when there is none."""
        if not self.other_project or self.project_id is None:
            return None
        return local_feed_problem(self.other_project, self.project_id)

    def render(self) -> str:
        r = self.report
        lines = []
        filled = gaps_filled(self.repair, r.all_problems())  # a sound feed after a gap a restore fills
        failing = {p.feed for p in r.all_problems() if (p.feed, p.seq) not in filled}
        lost_heads = {p.feed for p in r.all_problems() if p.kind in HEAD_PROBLEMS}
        for f in r.feeds:
            note = ""
            if f.erased:
                note += f", {counted(f.erased, 'payload')} erased"
            if f.torn:
                # A tail holding lines the index acknowledged stops every write
                # (``Ledger._refuse_lost_heads``): only a repair sets it aside.
                fate = "set aside by a confirmed `baton repair`" if f.feed in lost_heads else "quarantined by the next write"
                note += f", torn tail of {counted(f.torn.length, 'byte')} at {f.torn.offset} ({fate})"
            mark = "FAIL" if f.feed in failing else "ok  "
            lines.append(f"{mark} {f.feed}: {counted(f.events, 'event')}, last seq {f.head.seq}{note}")
        for p in r.all_problems():
            where = f"byte {p.offset}" if p.offset >= 0 else "not read" if p.kind == SYMLINK_ESCAPE else "merged order"
            seq = f" seq {p.seq} ({where})" if p.seq is not None else \
                "" if p.kind == LINE_ENDINGS else f" ({where}, no seq: the line does not parse)"
            fill = filled.get((p.feed, p.seq))
            lines.append(f"  problem in {p.feed}{seq}: {p.kind}: {p.message}" + (f" ({fill})" if fill else ""))
        if r.erased_by_forget:
            n = r.erased_by_forget
            lines.append(f"{n} payload{'' if n == 1 else 's'} erased by forget")
        for handoff, n in sorted(r.unfinished_forgets.items()):
            if handoff in self.others_forgets:
                lines.append(f"  unfinished forget of handoff {handoff}: {counted(n, 'payload')} it names "
                             f"{'is' if n == 1 else 'are'} still in the ledger ({OTHERS_FORGET})")
                continue
            lines.append(f"  unfinished forget of handoff {handoff}: {counted(n, 'payload')} it names {'is' if n == 1 else 'are'} still in the ledger "
                         f"(it was interrupted); run `baton forget {handoff} --yes` again to erase them")
        for p in r.concurrent:
            lines.append(f"  concurrent in {p.feed} seq {p.seq}: {p.message} (replicas apart; not a failure)")
        lines.extend(render_claim_conflicts(list(self.claim_conflicts)))
        lines.extend(render_signers(self.signers, self.require_signatures))
        if self.signers_damaged is not None:
            lines.append(f"{'FAIL' if self.unsigned else 'note'} sync signers: {self.signers_damaged}")
        lines.extend(ahead_line(feed, seconds) for feed, seconds in self.ahead)
        if self.leftovers:
            lines.append(f"leftover temporary {'file' if len(self.leftovers) == 1 else 'files'} of a process killed "
                         f"mid-write (it may hold text a later forget erased): "
                         f"{', '.join('.baton/' + rel for rel in self.leftovers)}; `baton rebuild` removes them")
        feeds = {f.feed for f in r.feeds}
        lines.extend(f"  ignored {name}: {stray_note(name, writer, feeds)}" for name, writer in self.stray.items())
        problem = self.project_problem()
        if problem:
            lines.append(f"FAIL project id: {problem}")
        flags = {"restore_own_feed": "--restore-own-feed", "yes": "--yes"}  # a terminal's words for them
        if (other := self.other_project_problem()) is not None:
            lines.append(f"FAIL another project's feed: {named_parameters(other, flags)}")
        lines.extend(f"FAIL {named_parameters(behind_ref_advice(b), flags)}" for b in self.behind_ref)
        verdict = "ledger verified" if self.exit_code == 0 else "ledger has problems"
        lines.append(f"{verdict}: {counted(r.event_count, 'event')} in {counted(len(r.feeds), 'feed')}")
        kinds = {p.kind for p in r.all_problems()}
        if kinds & INDEX_PROBLEMS:
            lines.append("`baton rebuild` rebuilds the index from the ledger (docs/ledger.md)")
        if LINE_ENDINGS in kinds:
            lines.append("`baton repair --yes` puts the line endings back to LF; nothing else in the feed changes "
                         "(docs/ledger.md, \"Line endings\")")
        for plan in self.repair:  # the plan `baton repair` carries out (``repair_plans``)
            if plan.cut is not None:
                lines.extend(plan_lines(plan, "`baton repair --yes` would set aside", self.own))
            lines.extend(f"`baton repair --yes` would acknowledge as lost: {plan.feed} seq {head['seq']} "
                         f"(recorded by {head['source']})" for head in plan.lost)
            caught_up = caught_up_by_sync(plan, self.own, done=False)
            if caught_up:
                lines.append(caught_up)
        if self.synced_beyond is not None:
            s = self.synced_beyond
            lines.append(f"this clone's own feed {s['feed']} was synced up to seq {s['seq']} (its ledger ref holds it), "
                         f"beyond seq {s['sound_seq']}: `baton sync --restore-own-feed` takes those events back from "
                         "the remote, or `baton repair --yes` puts the feed back as the ledger ref holds it and sets "
                         "aside the local lines that do not follow it (a cut would fork the feed against the "
                         "remote's copy; docs/sync.md)")
        elif self.repair or kinds - INDEX_PROBLEMS - {LINE_ENDINGS}:
            lines.append("`baton repair --dry-run` shows what a repair would set aside (docs/ledger.md)")
        return "\n".join(lines)


def verify_project(project: "Project", progress: Callable[[int, int], None] | None = None, *,
                   plan: bool = True) -> VerifyResult:
    """``progress``: ``verify_ledger``'s. ``plan``: say what ``baton repair`` would do to a damaged
    ledger (``repair_plans``; ``repair`` itself, which plans once with its own options, does not ask).
    Raises: NotInitialized."""
    opened = project
    heads = index_heads(opened.paths.index, read_only=opened.read_only)
    report = verify_ledger(opened.paths.ledger_dir, erasure_type=HANDOFF_FORGOTTEN, recorded_heads=heads,
                           identity=(PROJECT_INITIALIZED, "project_id"), progress=progress, own=opened.writer)
    report.problems.extend(foreign_feed_problems(opened))
    report.problems.extend(line_ending_problems(opened.paths.ledger_dir))  # its index cursor is not "edited"
    damaged = {p.feed for p in report.all_problems()}
    report.problems.extend(p for p in index_problems(opened.paths.index, opened.paths.ledger_dir,
                                                     read_only=opened.read_only) if p.feed not in damaged)
    conflicts: list[dict] = []
    if report.concurrent:  # only replicas apart can lose a claim: the index is read only then
        try:
            conflicts = claim_conflicts(opened.reading().docs("batons"))
        except BatonError:
            conflicts = []  # a ledger verify reports as damaged cannot be folded; its report says why
    signers = feed_signers(opened, [f.feed for f in report.feeds], recheck=True)
    now_us = opened.clock() // 1000
    candidates = feeds_ahead(((f.feed, f.head.hlc) for f in report.feeds), now_us)
    read_to = {f.feed: f.head for f in report.feeds}
    ahead = clocks_ahead(((feed, read_to[feed].hlc,
                           wall_us_ending_at(opened.paths.ledger_dir / f"{feed}.jsonl", read_to[feed].offset))
                          for feed, _ in candidates), now_us)
    plans: list[FeedRepair] = []
    finished = landed(opened, report) if plan else []
    if plan and (finished or any(p.kind in LINE_PROBLEMS | HEAD_PROBLEMS for p in report.all_problems())):
        plans = repair_plans(opened, report, finished)  # said as `baton repair` would do it: the same plan
    return VerifyResult(report, conflicts, signers, bool(signers) and _required(opened), opened.config.project_id,
                        ahead, synced_beyond=synced_beyond(opened, report), repair=plans,
                        leftovers=leftover_temporaries(opened.paths), stray=stray_files(opened.paths.ledger_dir, opened.writer),
                        signers_damaged=signers_problem(opened), others_forgets=others_forgets(opened, report),
                        own=opened.writer, **against_ref(opened, report))


def against_ref(project: "Project", report: VerifyReport) -> dict[str, Any]:
    """``VerifyResult.other_project`` and ``behind_ref``: the feeds of ``report`` held against this
    clone's ledger ref (read with dulwich only when the ref may be there: ``commands.synced_feed``)."""
    heads = synced_heads(project)
    local = {f.feed: f.head.seq for f in report.feeds}
    named: dict[str, list[str]] = {}
    for writer, _seq, project_id in report.identities:
        if isinstance(project_id, str):
            named.setdefault(writer, []).append(project_id)
    unshared = set(unshared_feeds(local, heads, project.writer))
    other = foreign_feeds({feed: ids for feed, ids in named.items() if feed in unshared},
                          project.config.project_id) if project.config.project_id else {}
    damaged = {p.feed for p in report.all_problems()}  # said by their problem, and a repair's plan
    return {"other_project": other, "behind_ref": behind_ref(project, heads, local, damaged)}


OTHERS_FORGET = ("another clone recorded this forget and was interrupted: that clone's next `baton sync` finishes "
                 "it, and a sync here then fetches the erasure")
"""What ``verify`` and ``doctor`` say of an unfinished forget another clone recorded (``others_forgets``)."""


def others_forgets(project: "Project", report: VerifyReport) -> frozenset[str]:
    """The unfinished forgets of ``report`` this clone did not record (no ``handoff.forgotten`` of
    theirs in its own feed): a sync here leaves them to the clone that did (``forget.finish_interrupted``)."""
    if not report.unfinished_forgets:
        return frozenset()
    ours = recorded_forgets([project.paths.ledger_dir / f"{project.writer}.jsonl"])
    return frozenset(h for h in report.unfinished_forgets if h not in ours)


STRAY_NOTE = ("in the ledger folder but named no writer id, so no feed (a cloud drive's conflicted copy, a backup): "
              "not read, and left where it is; move it out of .baton/ledger/ once you no longer need it")
"""What ``verify`` and ``doctor`` say of a stray ``*.jsonl`` file whose name is no writer id (``feed.stray_files``)."""


def stray_note(name: str, writer: str | None, feeds: Iterable[str]) -> str:
    """What ``verify`` and ``doctor`` say of the stray file ``name``: ``STRAY_NOTE``, or, for a file
    named for one writer holding ``writer``'s events, why it is no feed and the fix — move it out
    when ``writer``'s own feed is among the ledger's ``feeds``, else rename it to that feed's name
    (a teammate's feed saved under the wrong name)."""
    if writer is None:
        return STRAY_NOTE
    why = (f"named for writer {name[:-6]} but holding writer {writer}'s events, so no feed (a copy saved under "
           f"another writer's name): not read as {name[:-6]}'s, and left where it is; ")
    if writer in feeds:
        return why + f"{writer}.jsonl is there, so move this copy out of .baton/ledger/ once you no longer need it"
    return why + (f"if it is {writer}'s feed, rename it: `mv .baton/ledger/{name} .baton/ledger/{writer}.jsonl`; "
                  "else move it out of .baton/ledger/")


def synced_beyond(project: "Project", report: VerifyReport) -> dict[str, Any] | None:
    """``VerifyResult.synced_beyond``: read from git only when this clone's own feed is damaged."""
    own = project.writer
    if own not in {p.feed for p in report.all_problems() if p.kind not in INDEX_PROBLEMS | {LINE_ENDINGS}}:
        return None
    sound = next((f.head.seq for f in report.feeds if f.feed == own), 0)
    seq = synced_seq(project, own)  # dulwich only when the ledger ref may be there (``commands.synced_feed``)
    return {"feed": own, "seq": seq, "sound_seq": sound} if seq > sound else None


LINE_ENDINGS = "line_endings"
"""A feed whose lines end in CRLF (``baton.ledger.line_endings``): every event verifies; ``repair --yes`` fixes it."""


def line_ending_problems(ledger_dir: Path) -> list[FeedProblem]:
    """A ``line_endings`` problem per feed with lines ending in CRLF, naming the cause and the fix."""
    return [FeedProblem(feed, 0, None, LINE_ENDINGS,
                        f"{counted(n, 'line')} of feed {feed} end in CRLF (\\r\\n), not LF: the file was rewritten "
                        "(an editor on Windows, or a line-ending conversion such as git's core.autocrlf or "
                        "unix2dos); every event is intact, but each line is a byte longer, so the index's cursor "
                        "no longer sits between events and a sync refuses the feed as rewritten; `baton repair` "
                        "given `yes` puts the line endings back to LF")
            for feed, n in crlf_feeds(ledger_dir).items()]


def foreign_feed_problems(project: "Project") -> list[FeedProblem]:
    """A ``symlink-escape`` problem per feed that is a symbolic link or not a
    regular file (``Project.foreign_feeds``): never read, so never checked;
    ``baton repair --yes`` removes the link, never the file it points to."""
    return [FeedProblem(foreign_feed_name(rel) or rel, -1, None, SYMLINK_ESCAPE,
                        f"{rel} is {what}, not a feed: it was not read; {foreign_feed_fix(rel, what)}")
            for rel, what in project.foreign_feeds]


def foreign_feed_fix(rel: str, what: str) -> str:
    """What to do about a foreign feed: a link or a FIFO is removed (by hand or by
    ``baton repair``), a folder moved out by hand (``repair`` refuses it)."""
    if what == "a folder":
        return f"move it out of .baton/ (`mv {rel} ..`): `baton repair` does not remove a folder"
    left = "; the file it points to is left alone" if what.startswith("a symbolic") else ""
    return f"remove it (`rm {rel}`{left}) or confirm a `baton repair`, which removes it"


def _required(project: "Project") -> bool:
    try:
        return require_signatures(project)
    except InputError:
        return True  # a malformed setting asks for more, not less


INDEX_PROBLEMS = frozenset({"index_cursor", "index_head"})
"""Problems of the index alone (``baton rebuild`` fixes them; the ledger is sound)."""


def _index_rows(index: Path, query: str, *, read_only: bool) -> list[tuple] | None:
    if not index.is_file():
        return None
    try:
        # On a read-only .baton/ even mode=ro would create the WAL's -shm file:
        # read the database file alone (what the last checkpoint holds).
        uri = f"{index.as_uri()}?mode=ro&immutable=1" if read_only else f"{index.as_uri()}?mode=ro"
        conn = sqlite3.connect(uri, uri=True)
        try:
            return conn.execute(query).fetchall()
        finally:
            conn.close()
    except sqlite3.Error:
        return None


def index_problems(index: Path, ledger_dir: Path, *, read_only: bool = False) -> list:
    """Edits to the index alone: each feed's cursor must sit after a line of
    the feed that carries the cursor's seq, hash and hlc (an edited offset,
    seq, hash or hlc would have a writer leave a gap, fork the chain or turn
    its clock back), and the feed's recorded head (``feed_heads``) must not be
    behind its cursor, nor differ from it at the same seq (a lowered or
    edited row would let a later loss pass). ``baton rebuild`` fixes both
    from the ledger (the commands also stop trusting such a cursor and
    rebuild by themselves)."""
    cursors = _index_rows(index, "SELECT feed, offset, seq, hash, hlc, line FROM cursors", read_only=read_only)
    if not cursors:
        return []
    recorded = {feed: (seq, hash_, offset) for feed, seq, hash_, offset in
                _index_rows(index, "SELECT feed, seq, hash, offset FROM feed_heads", read_only=read_only) or ()}
    problems = []
    fix = "; `baton rebuild` rebuilds the index from the ledger"
    for feed, offset, seq, hash_, hlc, length in sorted(cursors):
        if not seq:
            continue
        path = str(Path(ledger_dir) / f"{feed}.jsonl")
        try:
            line = line_ending_at(lambda at, size: files.read_range(path, at, size), offset, length or 0)
        except Exception:  # noqa: BLE001 - an unreadable cursor is reported, not raised
            line = None
        if not line_hashes_to(line, hash_, seq=seq, hlc=hlc or 0) and not _moved_by_erasure(path, feed, seq, hash_,
                                                                                               hlc or 0):
            problems.append(FeedProblem(feed, offset, seq, "index_cursor",
                                        f"the index's cursor of feed {feed!r} (seq {seq}, byte {offset}) is not "
                                        f"after that event of the feed: the index was edited{fix}"))
            continue
        head = recorded.get(feed)
        if head is None or head[0] < seq:
            shown = "is missing" if head is None else f"is at seq {head[0]}, behind its cursor (seq {seq})"
            problems.append(FeedProblem(feed, offset, seq, "index_head",
                                        f"the index's recorded head of feed {feed!r} {shown}: the index was "
                                        f"edited{fix}"))
        elif head[0] == seq and (head[1], head[2]) != (hash_, offset):
            problems.append(FeedProblem(feed, offset, seq, "index_head",
                                        f"the index's recorded head of feed {feed!r} at seq {seq} differs from "
                                        f"its cursor: the index was edited{fix}"))
    return problems


def _moved_by_erasure(path: str, feed: str, seq: int, hash_: str | None, hlc: int) -> bool:
    """The cursor's event is in the feed, with its hash and hlc, and only moved:
    a payload at or before it was erased (``baton forget`` rewrites a feed
    shorter) and the index has not caught up yet — stale, not edited."""
    try:
        scan = scan_bytes(feed, files.read_range(path, 0), FeedHead())
    except Exception:  # noqa: BLE001 - unreadable: the ledger's own checks report it
        return False
    erased = False
    for event in scan.events:
        erased = erased or event.erased
        if event.seq == seq:
            return erased and event.hash == hash_ and (not hlc or event.hlc == hlc)
    return False


def index_heads(index: Path, *, read_only: bool = False) -> list[RecordedHead]:
    """The furthest head of each feed the index has folded (none without an
    index: then only the ledger's own ``ledger.heads`` events vouch)."""
    if not index.is_file():
        return []
    try:
        # On a read-only .baton/ even mode=ro would create the WAL's -shm file:
        # read the database file alone (what the last checkpoint holds).
        query = "?mode=ro&immutable=1" if read_only else "?mode=ro"
        conn = sqlite3.connect(f"{index.as_uri()}{query}", uri=True)
        try:
            rows = conn.execute("SELECT feed, seq, hash, offset FROM feed_heads").fetchall()
        finally:
            conn.close()
    except sqlite3.Error:
        return []  # an index from before feed heads were kept, or a damaged one: nothing recorded
    return [RecordedHead(feed, seq, hash_, offset, "the index") for feed, seq, hash_, offset in rows]
