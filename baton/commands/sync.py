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

The parts are ``baton.sync``'s modules (transport, the ref's format, the
per-feed decision, import, publish, erasures, signatures); this module is
the use case: one sync, its rounds, and its result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from baton.commands import archive_notices, forget, forget_notices, forgotten_derived, forgotten_withheld
from baton.commands.baton_cases import missed_after_claim
from baton.commands.batons import taken_up_in
from baton.commands.edits_apart import listed_edits, new_edits
from baton.commands.identity import context_of
from baton.commands.verify import stray_note
from baton.domain.batons import same_owner, scope_words, select_eligible, shown_name
from baton.domain.clock_ahead import ahead_line, clocks_ahead, feeds_ahead
from baton.domain.ledger_refs import DEFAULT_REF, ledger_ref_problem, local_ref_refusal
from baton.domain.lineage import brought_duplicates, duplicate_marks
from baton.domain.tracked_files import tracked_problem
from baton.domain.wording import counted
from baton.errors import BatonError, BatonTracked, InputError, LocalRefRefused, RemoteRefRefused, named_parameters
from baton.ledger.feed import wall_us_ending_at
from baton.model import frozen, mutable
from baton.process_end import DoneSoFar
from baton.projections.batons import baton_records
from baton.projections.lineage_graph import load_merges
from baton.sync import decide, publish, push_target, transport
from baton.sync.ledger_ref import BadRefFeed, UnknownFormat, local_ref, read_feeds
from baton.sync.local import ERASURE_PENDING, LocalFeeds, ReadCount, ledger_lock, unlink
from baton.sync.project_check import check_local_feeds, check_own_ref, check_remote_project
from baton.sync.refusals import RefusedFeed
from baton.sync.signatures import FeedSignatures
from baton.sync.signers import render_flagged
from baton.sync.stale_locks import clean_stale_pack_locks
from baton.sync.state import load_acked, load_state, own_entry, save_acked, save_own, save_state
from baton.sync.tracked import tracked_baton_files
from baton.sync.work import Round

if TYPE_CHECKING:
    from collections.abc import Mapping

    from baton.commands.context import Project
    from baton.projections.runner import Progress


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
    forgotten: list[Any] = attrs.field(factory=list)
    """The handoffs another writer's forget erased here (``baton.domain.forgetting.ForeignForget``)."""
    ref_erased: dict[str, int] = attrs.field(factory=dict)
    """Feed → payloads erased on the ref's copy (the local file had them erased already)."""
    signers: dict[str, Any] = attrs.field(factory=dict)
    """Signed feeds (``baton.sync.signatures``): each feed's signer, the remote copies taken unsigned or badly signed."""
    dropped: list[str] = attrs.field(factory=list)
    """Remote feeds refused and left out of the ref this clone publishes: the remote no longer holds them."""
    behind: dict[str, dict[str, int]] = attrs.field(factory=dict)
    """Feeds the remote held less of than this clone had published (its ref went back): put back by the push."""
    cleaned_locks: list[str] = attrs.field(factory=list)
    """Stale pack index locks removed from a path remote (``baton.domain.remote_locks``)."""
    ahead: list[tuple[str, int]] = attrs.field(factory=list)
    """Imported feeds stamped far ahead of this machine's clock, ``(feed, seconds)``
    (``domain.clock_ahead``): imported all the same, and told."""
    waiting: dict[str, Any] | None = None
    """After an import: the baton the next session here would receive (this clone's owner and
    branch, else a shared one), so the person knows a baton came (``waiting_baton``)."""
    after_claim: list[dict[str, Any]] = attrs.field(factory=list)
    """After an import: the batons for this clone's owner on its branch superseded unseen by a baton
    claimed before they arrived, no brief here has named yet (``arrived_after_claim``)."""
    stray: dict[str, str | None] = attrs.field(factory=dict)
    """The ``*.jsonl`` files in the ledger folder that are no feed (``decide.find_strays``), left where
    they are: file → the writer whose events it holds (a copy under another writer's name), or None."""
    stray_notes: dict[str, str] = attrs.field(factory=dict)
    """File → what ``verify`` says of it, the fix included (``verify.stray_note``)."""
    moved: list[dict[str, Any]] = attrs.field(factory=list)
    """Stray copies moved into ``.baton/quarantine/`` to import the remote's real feed of their name."""
    finished_forgets: list[Any] = attrs.field(factory=list)
    """Forgets interrupted before their rewrite, finished before anything was published
    (``forget.finish_interrupted``: ``FinishedForget``)."""
    derived: list[Any] = attrs.field(factory=list)
    """The records still holding content of a forgotten handoff that this sync brought together with
    its forget (``forgotten_derived.DerivedCopy``): a fork imported, or a forget imported over one held here."""
    withheld: list[Any] = attrs.field(factory=list)
    """Events of a forgotten handoff's own stream made apart (an amend on another clone before the
    forget reached it) that this sync brought together with its forget: still holding a payload,
    withheld from every record (``forgotten_withheld.brought_edits``)."""
    received: dict[str, int] = attrs.field(factory=dict)
    """Feed → events the remote gained by this sync's push (what it holds now beyond what it held
    before): all of every feed for a new or empty remote, whatever ``published`` says of the local ref."""
    edits_apart: list[dict[str, Any]] = attrs.field(factory=list)
    """After an import: the handoff edits made apart it brought to light (``edits_apart.new_edits``):
    a revision not applied, or overwritten, each with its handoff and the line that tells it."""
    duplicate_merges: list[dict[str, Any]] = attrs.field(factory=list)
    """After an import: the duplicate merges made apart it brought to light (``lineage.brought_duplicates``):
    a merge of the same handoffs as one here, or such merges each archived apart (none kept), each
    ``{merges, parents, none_kept, line}``."""
    archived: list[Any] = attrs.field(factory=list)
    """After an import: this clone's user's handoffs another writer archived (``archive_notices.collect``:
    ``teammate_archive.ForeignArchive``), kept until the next session start tells them."""

    @property
    def exit_code(self) -> int:
        # A remote that went back lost events it had acknowledged: put back by
        # this push (a fast-forward from what it holds), but never a clean sync.
        if any(r.kind != "not_fast_forward" for r in self.refused) or self.behind:
            return 3
        return 4 if self.refused else 0

    def named(self, names: "Mapping[str, str]") -> "SyncResult":
        """This result with the parameters its refusals name (`` `restore_own_feed` ``) spelled as
        an adapter's caller knows them (``names``: the command line's ``--restore-own-feed``)."""
        return attrs.evolve(self, refused=[attrs.evolve(r, message=named_parameters(r.message, names))
                                           for r in self.refused])

    def to_json(self) -> dict[str, Any]:
        return {"remote": self.remote, "ref": self.ref, "imported": dict(sorted(self.imported.items())),
                "published": dict(sorted(self.published.items())),
                "refused": [r.to_json() for r in self.refused], "pushed": self.pushed, "commit": self.commit,
                "read": self.read.to_json(), "projections_rebuilt": self.rebuilt, "attempts": self.attempts,
                "erased": dict(sorted(self.erased.items())), "ref_erased": dict(sorted(self.ref_erased.items())),
                "forgotten": [f.to_json() for f in self.forgotten],
                "signers": self.signers, "dropped": sorted(self.dropped),
                "behind": dict(sorted(self.behind.items())), "cleaned_locks": list(self.cleaned_locks),
                "waiting": self.waiting, "arrivedAfterClaim": list(self.after_claim), "stray_files": sorted(self.stray),
                "stray_copies": {name: writer for name, writer in sorted(self.stray.items()) if writer is not None},
                "stray_notes": dict(sorted(self.stray_notes.items())), "moved_aside": list(self.moved),
                "clock_ahead": [{"feed": feed, "seconds": seconds} for feed, seconds in self.ahead],
                "finished_forgets": [f.to_json() for f in self.finished_forgets],
                "derived_of_forgotten": [d.to_json() for d in self.derived],
                "withheld_of_forgotten": [w.to_json() for w in self.withheld],
                "received": dict(sorted(self.received.items())),
                "concurrent_edits": [{k: v for k, v in e.items() if k != "line"} for e in self.edits_apart],
                "duplicate_merges": [{k: v for k, v in d.items() if k != "line"} for d in self.duplicate_merges],
                "archived_by_teammates": [a.to_json() for a in self.archived]}

    def render(self) -> str:
        lines = [f"Finished the interrupted `baton forget` of handoff {f.handoff} before publishing: "
                 f"{counted(f.payloads, 'payload')} erased." for f in self.finished_forgets]
        if self.imported:
            total = sum(self.imported.values())
            lines.append(f"Imported {counted(total, 'event')} from {counted(len(self.imported), 'feed')} of {self.remote}.")
        if self.published:
            total = sum(self.published.values())
            lines.append(f"Published {counted(total, 'event')} from {counted(len(self.published), 'feed')} to {self.ref}.")
        if self.erased:
            lines.append(f"Erased {counted(sum(self.erased.values()), 'payload')} in {counted(len(self.erased), 'local feed')}, as "
                         "recorded handoff.forgotten events ask (`baton verify` reports them).")
            lines += [f"FORGOTTEN: {f.line()}." for f in self.forgotten]
        lines += [f"{d.line()}." for d in self.derived]
        lines += [f"{w.line()}." for w in self.withheld]
        if self.ref_erased:
            lines.append(f"Erased {counted(sum(self.ref_erased.values()), 'forgotten payload')} from "
                         f"{counted(len(self.ref_erased), 'feed')} on {self.ref} (its history still holds them: docs/sync.md).")
        for r in self.refused:
            seq = f" at seq {r.seq}" if r.seq is not None else ""
            lines.append(f"REFUSED {r.side} feed {r.feed}{seq}: {r.kind}: {r.message}")
        for feed, seqs in sorted(self.behind.items()):
            verb = "put back" if self.pushed else "to put back"
            held = f"held it to seq {seqs['remote_seq']}" if seqs["remote_seq"] else "no longer held it"
            lines.append(f"BEHIND remote feed {feed}: the remote {held}, this clone had seen it hold seq "
                         f"{seqs['published_seq']} ({verb}; its ref went back, or a clone dropped a copy it "
                         "refused)")
        for lock in self.cleaned_locks:
            lines.append(f"REMOVED stale lock {lock} on the remote (a pack index lock no process had written "
                         "to for 10 minutes: a full disk or a killed push left it)")
        for feed in sorted(self.dropped):
            lines.append(f"DROPPED remote feed {feed} from {self.ref}: this clone does not publish a copy it "
                         "refused (its writer's next sync publishes the feed again)")
        lines.extend(render_flagged(self.signers))  # signed feeds
        for moved in self.moved:
            lines.append(f"MOVED .baton/ledger/{moved['file']} to {moved['to']}: named for writer "
                         f"{moved['file'][:-6]} but holding writer {moved['writer']}'s events, so no feed; the "
                         f"remote's feed {moved['file'][:-6]} was imported in its place (a note beside it says so)")
        lines.extend(f"IGNORED .baton/ledger/{name}: {note}" for name, note in sorted(self.stray_notes.items()))
        lines.extend(ahead_line(feed, seconds) for feed, seconds in self.ahead)
        if not self.imported and not self.published and not self.refused and not self.erased \
                and not self.ref_erased and not self.behind and not self.pushed:
            lines.append(f"Already in sync with {self.remote} ({self.ref}).")
        elif self.pushed and self.received:
            lines.append(f"Pushed {self.ref} to {self.remote}: it received {counted(sum(self.received.values()), 'event')} "
                         f"of {counted(len(self.received), 'feed')}.")
        elif self.pushed:
            lines.append(f"Pushed {self.ref} to {self.remote}.")
        if self.waiting is not None:
            w = self.waiting
            whom = "every owner and branch" if w["shared"] else f"{shown_name(w['owner'])} on {shown_name(w['branch'])}"
            lines.append(f"A baton waits for {whom} (baton {w['handoff_id']}): the next session started here "
                         "receives it.")
        lines.extend(e["line"] for e in self.edits_apart)
        lines.extend(f"{named_parameters(d['line'], {'not_mine': '--not-mine'})}." for d in self.duplicate_merges)
        lines.extend(a.line() for a in self.archived)
        for u in self.after_claim:
            who = f"writer {u['writer']}" if u.get("writer") else "another clone"
            session = f" (session {shown_name(u['sessionId'])})" if u.get("sessionId") else ""
            lines.append(f"A baton for {scope_words(u)} left by {who}{session} (baton {u['id']}) arrived after the "
                         f"newer baton {u.get('supersededBy')} was claimed, so no session received it; the next "
                         f"session start here names it; read it with `baton resume {u['id']}` (or `baton handoff show "
                         f"{u['id']}`).")
        return "\n".join(lines)


@mutable
class _Erased:
    """What a sync did over every round (a push that finds the remote moved starts another, what the
    round before imported, erased and committed to the local ref already written): the payloads it
    erased in local feeds, the events it imported and published, the locks and copies it moved."""

    feeds: dict[str, int] = attrs.field(factory=dict)
    payloads: list[Any] = attrs.field(factory=list)
    ids: list[str] = attrs.field(factory=list)
    """The ids of the events whose payloads were erased in local feeds."""
    scrubbed: bool = False
    cleaned_locks: list[str] = attrs.field(factory=list)
    """Stale pack index locks a push removed from a path remote, over every round."""
    moved: list[dict[str, Any]] = attrs.field(factory=list)
    """Stray copies moved into ``quarantine/`` (``importing.move_stray_aside``), over every round."""
    imported: dict[str, int] = attrs.field(factory=dict)
    """Feed → events imported into the local files, over every round (a round that lost a push
    race had already imported what it fetched)."""
    published: dict[str, int] = attrs.field(factory=dict)
    """Feed → events the local ref gained from the local files, over every round (a raced round's
    commit stays on the local ref, and the next round's push carries it)."""
    ref_erased: dict[str, int] = attrs.field(factory=dict)
    """Feed → payloads erased on the ref's copy, over every round."""

    def add_round(self, work: Round) -> None:
        """What one round imported, published and erased on the ref, added to the rounds before."""
        for total, counts in ((self.imported, work.imported), (self.published, work.published),
                              (self.ref_erased, work.ref_erased)):
            for feed, n in counts.items():
                total[feed] = total.get(feed, 0) + n


def sync_ledger(project: "Project", *, remote: str = "origin", ref: str | None = None,
                restore_own_feed: bool = False, progress: "Progress | None" = None,
                publishing: "Progress | None" = None, accept_project: str | None = None,
                erasing: "Progress | None" = None) -> SyncResult:
    """Share the ledger's feeds with ``remote`` on ``ref`` (default ``refs/baton/ledger``): a
    configured remote's name, or a repository's path or URL (``transport.remote_url``).

    ``restore_own_feed``: this clone was restored from a backup; the remote's
    copy of its own feed may extend the local file (and is imported, verified).
    ``progress``: told how far the index's catch-up on what was imported went
    (a first sync of a large ledger folds every event of it). ``publishing``:
    told how far packing this clone's feeds onto the ref went (a first sync
    of a large local ledger reads and packs all of it). ``accept_project``: a
    project id the remote's ledger was initialised as, to merge although it is
    not this project's (``baton.sync.project_check``). ``erasing``: told how far
    checking a feed whose copies differ by erased payloads went (a forget's first sync reads
    the local file and each copy of the feed whole: ``baton.sync.erasures``).

    Raises:
        InputError: ``remote`` is empty, or ``ref`` is not a ref name under ``refs/baton/``
            (``baton.domain.ledger_refs``: a tag, a branch, the stash… are never Baton's to replace).
        LocalRefRefused (exit 3): this clone's ``ref`` exists and is not a Baton ledger commit:
            nothing imported or pushed, the ref as it was.
        NoSyncRemote (exit 4): no git repository, or no such remote (and `remote` is no path or URL).
        GitUnsupported (exit 4): this repository, or a path remote, stores SHA-256 objects: nothing written.
        InputError (exit 2): ``remote`` is this clone's own repository (``push_target``).
        RemoteOtherProject, FeedOtherProject, BatonTracked (exit 4): another project's ledger (the remote's, a working
            clone's, this clone's ref's, a feed copied here), or ``.baton/`` tracked by git: nothing imported or pushed.
        RemoteWorkingClone (exit 4): the path remote pushed to is a working clone holding a Baton project.
        RemoteUnreachable (exit 4): the remote cannot be fetched from or pushed to.
        GitLockHeld (exit 4): a lock file in this clone's git repository (a killed sync left it) stops a write.
        DiskFull, ReadOnlyProject (exit 1): a full disk or a read-only ``.baton/``: nothing fetched; or the disk
            filled while imported bytes were written: what was written is taken back, no staged file left.
    """
    ref = _checked_arguments(remote, ref, accept_project)
    project.require_writable("sync", "imports and records events")
    _check_untracked(project)  # git replacing the ledger under a sync: refused before anything is read
    finished = forget.finish_interrupted(project)  # a forget interrupted before its rewrite: never published
    held_before = {(d.handoff, d.forgotten) for d in forgotten_derived.held_copies(project.runner)}
    seen = {feed: cursor.head.hlc for feed, cursor in project.runner.cursors().items()}  # as the index read them
    repo, erased = transport.open_repo(project), _Erased()
    try:
        _check_local_ref(repo, ref.encode())  # before the remote is asked anything; again under the lock
        url, pushurl = transport.remote_url(repo, remote), transport.push_url(repo, remote)
        if not transport.is_named_remote(repo, remote):
            remote = transport.shown_url(url)  # a path or URL given for this sync: named as messages show it
        base = transport.relative_base(project)
        client, path = transport.client(repo, url, base)
        # where the round pushes: the remote's pushurl when git has one, as `git push` does
        to = (*transport.client(repo, pushurl or url, base, push=pushurl is None),
              transport.shown_url(pushurl or url))
        url = transport.shown_url(url)  # from here on, only for messages
        transport.check_remote_format(client, path, url)  # a SHA-256 remote: refused before any write
        transport.check_remote_format(to[0], to[1], to[2])
        # this clone's own repository, or a working clone's own ledger ref: refused before any read
        push_target.check_path_remotes(repo, (client, path, url), to, project.config.project_id)
        project.claim_writer()  # a copied clone publishes a feed of its own, never the original's
        count = ReadCount(publishing=publishing, erasing=erasing)
        with transport.local_locks():
            result = publish.retrying(lambda attempt: _round(project, repo, client, path, url, remote,
                                                             ref.encode(), count, attempt, erased,
                                                             restore_own_feed, to, accept_project), ref, to[2])
        archived = archive_notices.collect(project, seen, result.imported)  # before the index folds them
    finally:
        repo.close()
        forgotten = _foreign_forgets(project, erased)
        _scrub_erased(project, erased)
    rebuilt, apart, duplicates = False, list[dict[str, Any]](), list[dict[str, Any]]()
    if erased.scrubbed:
        result = attrs.evolve(result, erased=dict(erased.feeds), forgotten=forgotten)
        rebuilt = True
    elif result.imported:
        rebuilt, apart, duplicates = _caught_up(project, progress)
    moved = {m["file"] for m in erased.moved}
    stray = {name: writer for name, writer in result.stray.items() if name not in moved}
    return attrs.evolve(result, rebuilt=rebuilt, stray=stray, stray_notes=stray_notes(project, stray),
                        moved=list(erased.moved), finished_forgets=finished, edits_apart=apart, archived=archived,
                        duplicate_merges=duplicates, **_brought(project, result.imported, erased.scrubbed, held_before),
                        withheld=forgotten_withheld.brought_edits(project, seen, result.imported,
                                                                  [f.handoff for f in forgotten]))


def _brought(project: "Project", imported: dict[str, int], scrubbed: bool,
             held_before: set[tuple[str, str]]) -> dict[str, Any]:
    """What a sync that imported (or erased) something tells of it, as ``SyncResult`` members:
    the baton now waiting here (``waiting_baton``), those arrived after a claim, the feeds stamped
    ahead of this clock, and the handoffs still holding a forgotten one's content that were not
    held here before (``held_before``: ``forgotten_derived.held_copies``, as the sync began)."""
    if not imported and not scrubbed:
        return {}
    derived = [d for d in forgotten_derived.held_copies(project.runner) if (d.handoff, d.forgotten) not in held_before]
    if not imported:
        return {"derived": derived}
    return {"waiting": waiting_baton(project), "after_claim": arrived_after_claim(project),
            "ahead": imported_ahead(project, imported), "derived": derived}


def _caught_up(project: "Project", progress: "Progress | None") -> tuple[bool, list[dict[str, Any]],
                                                                         list[dict[str, Any]]]:
    """The index caught up with what a sync imported: whether it was rebuilt, the handoff
    edits made apart the import brought to light (``edits_apart.new_edits``), and the duplicate
    merges made apart it brought to light (``lineage.brought_duplicates``: the same decider as
    ``baton lineage``'s mark), read from the merge nodes alone before and after."""
    # Under the lock's file alone: ``Ledger.locked`` would first read every imported byte to learn
    # stream versions a read-only catch-up does not need, and the replay would read them all again.
    runner = project.runner
    with ledger_lock(project):
        listed = listed_edits(runner)
        merges = duplicate_marks(load_merges(runner))
        rebuilt = runner.catch_up(allow_pinned=True, progress=progress).rebuilt
        return rebuilt, new_edits(runner, listed), brought_duplicates(merges, load_merges(runner))


def _checked_arguments(remote: str, ref: str | None, accept_project: str | None) -> str:
    """The ledger ref a sync uses (``ref``, else the default), once its arguments are checked
    (``sync_ledger``'s input errors, before anything is read)."""
    if not (remote or "").strip():
        raise InputError("`remote` must name a git remote (for example origin) or give a repository's path or URL, "
                         "not an empty name")
    ref = DEFAULT_REF if ref is None else ref  # an empty name is refused below, as an empty remote is
    if (problem := ledger_ref_problem(ref)) is not None:
        raise InputError(f"`ref` {problem}", details={"ref": ref})
    if accept_project is not None and not accept_project.strip():
        raise InputError("`accept_project` must name a project id, not an empty one")
    return ref


def stray_notes(project: "Project", stray: dict[str, str | None]) -> dict[str, str]:
    """What ``verify`` says of each stray file a sync left where it was, the fix included."""
    if not stray:
        return {}
    feeds = set(LocalFeeds(project, ReadCount()).names()) - {name[:-6] for name in stray}
    return {name: stray_note(name, writer, feeds) for name, writer in stray.items()}


def imported_ahead(project: "Project", imported: dict[str, int]) -> list[tuple[str, int]]:
    """The imported feeds whose writer's clock runs far ahead of this machine's (``clocks_ahead``): a
    feed stamped ahead only by an hlc it imported is not named. The newest event's line is read only
    for a feed whose hlc is ahead."""
    heads, now_us = project.ledger.heads(), project.clock() // 1000
    candidates = feeds_ahead(((feed, heads[feed].hlc) for feed in imported if feed in heads), now_us)
    return clocks_ahead(((feed, heads[feed].hlc,
                          wall_us_ending_at(project.paths.ledger_dir / f"{feed}.jsonl", heads[feed].offset))
                         for feed, _ in candidates), now_us)


def waiting_baton(project: "Project") -> dict[str, Any] | None:
    """The pending baton the next session started in this clone would receive and claim
    (``select_eligible``: this owner's on this branch, else a shared one), or None. Read,
    never claimed; not one whose handoff was resumed after it was left (the import brought the
    resume: ``batons.taken_up_in``), which that start dismisses instead. Git's identity is
    read only when some baton is pending."""
    runner = project.reading()
    pending = [record for record, _version in baton_records(runner.docs("batons")) if record.pending]
    if not pending:
        return None
    context = context_of(project)
    found = select_eligible(pending, context.owner, context.branch)
    if found is None or taken_up_in(runner, found):  # resumed since it was left: a start dismisses it
        return None
    return {"handoff_id": found.id, "owner": found.owner, "branch": found.branch, "shared": found.shared}


def arrived_after_claim(project: "Project") -> list[dict[str, Any]]:
    """The batons for this clone's owner on its branch that a claimed baton superseded unseen after
    its claim (``BatonRecord.missed_unseen``: a sync brought them in late) and no brief here has named
    yet, as ``baton_cases.missed_after_claim`` lists them. Git's identity is read only when some
    claimed baton names one."""
    runner = project.reading()
    claimed = [record for record, _version in baton_records(runner.docs("batons"))
               if record.claimed and record.missed_unseen and not record.shared]
    if not claimed:
        return []
    context = context_of(project)
    mine = [r for r in claimed if same_owner(r.owner, context.owner) and r.branch == context.branch]
    return missed_after_claim(project, runner, mine)


def _foreign_forgets(project: "Project", erased: _Erased) -> list[Any]:
    """The handoffs another replica's forget erased here (``forget_notices``), read from the index
    before the scrub deletes it; those this clone's user captured are kept for ``status`` and the brief."""
    if not erased.ids:
        return []
    try:
        found = forget_notices.collect(project, erased.ids)
        forget_notices.keep(project, found)
    except BatonError:  # the notice is lost, never the sync
        return []
    return found


def _scrub_erased(project: "Project", erased: _Erased) -> None:
    """Another replica's forget erased payloads here (in this round or one
    before a failed push): the index (its free pages too), the materialized
    files and the quarantined fragments that held them go, exactly as after a
    local `baton forget`."""
    pending = project.paths.baton_dir / ERASURE_PENDING
    if erased.feeds or pending.exists():
        with ledger_lock(project):
            forget.scrub_after_erasure(project, erased.payloads, frozenset(erased.ids))
            unlink(pending)
        erased.scrubbed = True


def _round(project: "Project", repo, client, path: str, url: str, remote_name: str, ref: bytes,
           count: ReadCount, attempt: int, erased: _Erased, restore_own_feed: bool = False,
           to: tuple[Any, str, str] | None = None, accept_project: str | None = None) -> SyncResult:
    """One round: fetch, decide every feed under the ledger lock, commit, push (``to``: the
    client, path and shown URL pushed to, when not the ones fetched from)."""
    signatures = FeedSignatures.open(project, repo)  # signed feeds: git's signing key, the allowed signers
    remote_sha = transport.fetch(repo, client, path, ref, url, remote_name)
    try:
        remote_feeds = read_feeds(repo, remote_sha)
    except BadRefFeed as exc:
        way = "" if isinstance(exc, UnknownFormat) else (
            f". If something other than Baton was pushed there, put the ref back from a clone that synced "
            f"before (`git push -f {remote_name} {ref.decode()}` there), or delete it on the remote (`git "
            f"push {remote_name} :{ref.decode()}`): each clone's next sync publishes the feeds it holds")
        raise RemoteRefRefused(f"the remote's {ref.decode()} is not a Baton ledger ref this version reads: {exc}; "
                               f"nothing was imported or pushed{way}", details={"url": url, "ref": ref.decode()}) \
            from None
    acked_key = f"{url} {ref.decode()}"
    acked = load_acked(project, acked_key, repo.get_config_stack())
    held = {feed: f.head.seq for feed, f in remote_feeds.items() if f.problem is None and f.head is not None}
    # what the remote holds now counts as held even if this round's push fails
    seen = {**acked, **{feed: max(seq, acked.get(feed, 0)) for feed, seq in held.items()}}
    with ledger_lock(project):
        _check_local_ref(repo, ref)
        local_sha = repo.refs.as_dict().get(ref)
        try:
            base_feeds = read_feeds(repo, local_sha, known=remote_feeds)  # the folders both hold: read once
        except BadRefFeed:
            base_feeds, local_sha = {}, None  # a damaged local ref is rebuilt from the feeds
        # a remote of another project: refused before anything is imported or pushed
        files = LocalFeeds(project, ReadCount()).names()
        # held: the feeds this clone's files hold, not those its ref only carries (a plain `git fetch`
        # of a teammate's ref puts feeds there that this clone never imported nor checked)
        # a feed of another project copied into .baton/ledger/ by hand: never published
        accepted = check_local_feeds(project.paths.ledger_dir, files, {*base_feeds, *remote_feeds}, project.writer,
                                     project.config.project_id, accept_project, ref.decode())
        check_remote_project(repo, remote_feeds, files, project.config.project_id, accept_project, url,
                             ref.decode(), count, accepted_locally=accepted)
        # this clone's own ref holding another project's feeds: never published
        check_own_ref(repo, base_feeds, files, project.config.project_id, accept_project, ref.decode(), count)
        work = Round.start(project, repo, count, base_feeds, remote_feeds, load_state(project, ref.decode()),
                           signatures=signatures, restore_own=restore_own_feed, remote_exists=remote_sha is not None,
                           acked=acked)
        new_sha = _decide_and_commit(project, repo, work, signatures, local_sha, remote_sha)
        if new_sha is not None and new_sha != local_sha:
            repo.refs[ref] = new_sha
        erased.add_round(work)
        # with what the remote holds now: it counts as held even if this round's push fails
        own = remote_feeds.get(project.writer) if project.writer else None
        save_state(project, ref.decode(), work.new_state, (acked_key, seen) if seen != acked else None,
                   (acked_key, own_entry(remote_name, own.head if own is not None and own.problem is None else None)))
    DoneSoFar.note(_imported_not_pushed(erased.imported, remote_name))
    if work.erased:
        erased.payloads.extend(work.erased_payloads)
        erased.ids.extend(ident for ids in work.erased_ids.values() for ident in ids)
        for feed, n in work.erased.items():
            erased.feeds[feed] = erased.feeds.get(feed, 0) + n
    erased.moved.extend(work.moved)
    push_client, push_path, push_url = to or (client, path, url)
    received = _received(work, held)
    pushed = _push_and_record(project, repo, push_client, push_path, push_url, ref, work, new_sha, remote_sha,
                              erased, (acked_key, seen), received, remote_name)
    if not pushed:
        DoneSoFar.note(f"after the sync's import; {remote_name} already held what this clone holds, so there was "
                       "nothing to push: the sync is done (the index catches up at the next command)")
    received = received if pushed else {}
    # every round's imports and publications (a raced round's stay done), this round's refusals
    return SyncResult(remote=remote_name, ref=ref.decode(), imported=dict(erased.imported),
                      published=dict(erased.published), refused=work.refused, pushed=pushed,
                      commit=new_sha.decode() if new_sha else None, read=count, rebuilt=False, attempts=attempt,
                      erased=work.erased, ref_erased=dict(erased.ref_erased),
                      signers=signatures.to_json(), dropped=sorted(work.dropped), behind=work.behind,
                      cleaned_locks=list(erased.cleaned_locks), stray=dict(work.strays), received=received)


def _received(work: Round, held: dict[str, int]) -> dict[str, int]:
    """Feed → events a push gave the remote: the seq this clone's ref holds beyond the one the remote held."""
    now = {feed: f.head.seq for feed, f in work.out.items() if f.problem is None and f.head is not None}
    return {feed: seq - held.get(feed, 0) for feed, seq in now.items() if seq > held.get(feed, 0)}


def _imported_not_pushed(imported: dict[str, int], remote: str) -> str:
    """What a Ctrl-C between a round's import and its push leaves (``DoneSoFar``)."""
    events = sum(imported.values())
    if not events:
        return f"before anything was pushed to {remote}; nothing was imported: run `baton sync` again"
    return (f"after the import ({counted(events, 'event')} from {counted(len(imported), 'feed')} are in this "
            f"clone's ledger), before anything was pushed to {remote}: run `baton sync` again to publish")


def _pushing(imported: dict[str, int], remote: str) -> str:
    """What a Ctrl-C during a round's push leaves (``DoneSoFar``): the remote may have taken the push
    before the interruption (a server answers after it took it), so nothing says it did not."""
    events = sum(imported.values())
    done = (f"after the import ({counted(events, 'event')} from {counted(len(imported), 'feed')} are in this "
            "clone's ledger), " if events else "")
    return (f"{done}during the push to {remote}: it may have been pushed (the remote can take a push before it "
            "answers); run `baton sync` again: it finds out, and publishes what the remote lacks")


def _check_untracked(project: "Project") -> None:
    """Refuse to sync while git tracks files under ``.baton/`` that its ``.gitignore`` keeps out
    (``baton.sync.tracked``): a teammate's checkout may have replaced this clone's feeds and
    writer id already, and a sync would import onto, and publish, what git put there.

    Raises:
        BatonTracked (exit 4): naming the files and the fix; nothing fetched, imported or pushed.
    """
    paths, prefix = tracked_baton_files(project)
    if paths:
        raise BatonTracked(f"{tracked_problem(paths, prefix)}. Nothing was fetched, imported or pushed: a "
                           "checkout or pull may have replaced this clone's feeds or writer id already, and a sync "
                           "would publish what git put there. Once they are untracked, run `baton verify`, "
                           "then `baton sync`",
                           details={"tracked": [prefix + path for path in paths]})


def _check_local_ref(repo, ref: bytes) -> None:
    """Refuse to replace this clone's ``ref`` unless it holds a Baton ledger commit
    (``baton.domain.ledger_refs.local_ref_refusal``).

    Raises:
        LocalRefRefused (exit 3): it is a tag, a symbolic ref, a commit of another history.
    """
    refusal = local_ref_refusal(ref.decode(), local_ref(repo, ref))
    if refusal is not None:
        raise LocalRefRefused(refusal, details={"ref": ref.decode()})


def _decide_and_commit(project: "Project", repo, work: Round, signatures: FeedSignatures,
                       local_sha: bytes | None, remote_sha: bytes | None) -> bytes | None:
    """Every feed decided and staged bytes written, every head signed: the commit the ref moves to."""
    try:
        decide.run(work)
    finally:
        for _feed, staging, *_ in work.staged:
            unlink(staging)
    # -- signed feeds: every head the ref will hold gets its signature (this clone's own signed now)
    for feed in signatures.settle(work.out, work.base, work.remote, work.refused):
        work.published.pop(feed, None)
    signatures.save(work.out)
    return publish.commit_for(repo, work, local_sha, remote_sha, project)


def _push_and_record(project: "Project", repo, client, path: str, url: str, ref: bytes, work: Round,
                     new_sha: bytes | None, remote_sha: bytes | None, erased: _Erased,
                     acked: tuple[str, dict[str, int]], received: dict[str, int], remote_name: str) -> bool:
    """Push the new commit (if the remote lacks it), showing how far (``received``: what it is to
    receive, feed → events); record what the remote now holds (this clone's own feed as
    ``remote_name`` holds it too, for ``status``). True if pushed."""
    pushed = False
    if new_sha is not None and new_sha != remote_sha:
        transport.push(repo, client, path, ref, new_sha, remote_sha, url, erased.cleaned_locks,
                       show=work.local.count.publishing, events=sum(received.values()),
                       sending=lambda: DoneSoFar.note(_pushing(work.imported, remote_name)))
        DoneSoFar.note(f"after the push to {url}: the sync is done, do not run it again (the index catches up "
                       "at the next command)")
        pushed = True
        clean_stale_pack_locks(client, path, erased.cleaned_locks)
    if new_sha is not None and (pushed or new_sha == remote_sha):
        # the remote holds exactly what this clone committed: a feed left out (dropped) is no longer held
        acked_key, seen = acked
        now_held = {feed: f.head.seq for feed, f in work.out.items() if f.problem is None and f.head is not None}
        own = work.out.get(project.writer) if project.writer else None
        with ledger_lock(project):
            if now_held != seen:
                save_acked(project, acked_key, now_held)
            save_own(project, acked_key, own_entry(remote_name, own.head if own is not None and own.problem is None
                                                   else None))
    return pushed
