"""``baton forget ID``: erase one handoff's payloads for good (spec §16).

For a leaked secret or a person's request to be forgotten. Under the ledger
lock, in this order:

1. find every event of the handoff's stream and of the batons that carried
   it (``baton.domain.forgetting``);
2. append ``handoff.forgotten`` naming their ids (durable): the erasure is
   recorded before it happens, so a crash can leave payloads that were to go,
   never an erasure nobody recorded;
3. rewrite each feed holding one of them without its ``data`` member
   (``baton.ledger.erase``; ``digest``, ``hash`` and ``prev`` are kept, so
   every chain still verifies);
4. delete ``index.sqlite`` (its free pages would still hold the text) and the
   damaged copies kept in ``cache/``, rebuild it from the erased ledger, and
   remove the materialized files no document shows any more;
5. in the copies ``baton repair`` set aside (``quarantine/*.repair``, read for
   the handoff's events in step 1 too, so a handoff whose every event was set
   aside is still found), erase those events' payloads and blank any other
   piece holding an erased string, manifests updated
   (``baton.ledger.quarantined``); remove the other quarantined fragments
   that hold one of the erased strings (a torn tail may be a prefix of one
   of those lines), and the temporary files a
   process killed before renaming them into place left under ``.baton/``
   holding one (a materialized handoff or baton written whole, never shown);
6. remove the files a repair kept from events the ledger lost
   (``quarantine/kept.*``, ``baton.commands.forget_kept``) that hold the
   handoff or a baton carrying it, and take them out of the list beside
   them; their strings are looked for in the quarantined pieces too (a
   torn piece of the lost event). A handoff only such a file still holds
   (its events lost, or only a torn piece of one set aside) is forgotten
   there alone: nothing is recorded, as the ledger holds nothing of it.

Without ``yes`` nothing is changed: the result is the plan.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import orjson

from baton.commands import forget_kept, forgotten_derived
from baton.commands.identity import context_of
from baton.commands.ids import place_of, resolve_handoff_id
from baton.commands.record import record
from baton.config import TEMPORARY_PREFIX, read_local_json, write_json_atomic
from baton.domain.forgetting import carries_handoff, payload_strings, plan_forget
from baton.domain.short_ids import short_id
from baton.domain.wording import counted
from baton.errors import BatonError, NotFound, RecordedNotIndexed, StorageError
from baton.events.names import handoff_stream
from baton.ledger import erase  # called as erase.erase_payloads: the seam tests cut (a crash mid-forget)
from baton.ledger.quarantined import COPY_SUFFIX, MANIFEST_SUFFIX, erase_in_copies, read_copies
from baton.model import frozen
from baton.process_end import DoneSoFar

if TYPE_CHECKING:
    from baton.commands.context import Project
    from baton.domain.forgetting import ForgetPlan


@frozen
class ForgetResult:
    plan: ForgetPlan
    done: bool
    reason: str | None = None
    feeds: dict[str, int] = attrs.field(factory=dict)
    removed_files: tuple[str, ...] = ()
    removed_quarantine: tuple[str, ...] = ()
    derived: tuple[str, ...] = ()
    removed_leftovers: tuple[str, ...] = ()
    """Temporary files a killed process left under ``.baton/`` holding erased text (paths under ``.baton/``)."""
    erased_quarantine: dict[str, int] = attrs.field(factory=dict)
    """Repair copies in ``quarantine/`` whose pieces of this handoff were erased or blanked: name → how many."""
    kept_files: tuple[str, ...] = ()
    """Files a repair kept from lost events (``quarantine/kept.*``) holding this handoff: removed
    (or, without ``yes``, to be), paths under ``.baton/``."""

    def to_json(self) -> dict[str, Any]:
        return {"handoff": self.plan.handoff, "forgotten": self.done, "reason": self.reason,
                "events": list(self.plan.events), "types": dict(self.plan.types),
                "already_erased": self.plan.already_erased, "feeds": dict(self.feeds),
                "removed_files": list(self.removed_files), "removed_quarantine": list(self.removed_quarantine),
                "removed_leftovers": list(self.removed_leftovers), "derived": list(self.derived),
                "erased_quarantine": dict(self.erased_quarantine), "kept_files": list(self.kept_files),
                "recorded": bool(self.plan.events) and self.done}

    def derived_line(self) -> str | None:
        """A forget erases one handoff; its forks, amendments, continuations and
        merges copied its content into their own records and keep it."""
        if not self.derived:
            return None
        ids = " ".join(short_id(h) for h in self.derived)
        return (f"  {counted(len(self.derived), 'handoff')} derived from it (fork, amend, continue, merge) "
                f"{'keeps its' if len(self.derived) == 1 else 'keep their'} own copy of its content: {ids}; forget them too if that text must go")

    def plan_line(self) -> str:
        """What forgetting would erase, without saying how to confirm (the
        caller asks, or says to pass --yes)."""
        kinds = ", ".join(f"{n} {t}" for t, n in sorted(self.plan.types.items())) or "none"
        kept = self.kept_line("would remove")
        if not self.plan.events:
            return (f"baton forget would remove the copies of handoff {self.plan.handoff} kept from events the "
                    f"ledger lost (it holds none of its events any more): {kept.strip()}")
        return (f"baton forget would erase the payloads of {counted(len(self.plan.events), 'event')} of handoff "
                f"{self.plan.handoff} ({kinds})" + (f" and {kept.strip()}" if kept else ""))

    def unconfirmed(self) -> str:
        """What an unconfirmed forget would do (the caller adds how to confirm)."""
        what = [f"erase {counted(len(self.plan.events), 'payload')}"] if self.plan.events or not self.kept_files else []
        if self.kept_files:
            what.append(f"remove {counted(len(self.kept_files), 'file')} kept from lost events")
        return f"forget would {' and '.join(what)} of handoff {self.plan.handoff} and cannot be undone"

    def kept_line(self, verb: str) -> str:
        """The kept files this forget removes (or, ``would remove``, would)."""
        if not self.kept_files:
            return ""
        return (f"  {verb} {counted(len(self.kept_files), 'file')} `baton repair` kept from events the ledger lost: "
                + ", ".join(".baton/" + f for f in self.kept_files))

    def render(self) -> str:
        kinds = ", ".join(f"{n} {t}" for t, n in sorted(self.plan.types.items())) or "none"
        derived = self.derived_line()
        if not self.done:
            return f"{self.plan_line()}; nothing was changed (pass --yes to erase)" + (
                f"\n{derived}" if derived else "")
        if not self.plan.events:
            lines = [f"forgot handoff {self.plan.handoff}: the ledger holds none of its events (they were lost), "
                     "so nothing was recorded"]
        else:
            lines = [f"forgot handoff {self.plan.handoff}: {counted(len(self.plan.events), 'payload')} erased ({kinds})"]
        if self.kept_files:
            lines.append(self.kept_line("removed"))
        if self.removed_files:
            lines.append(f"  removed {counted(len(self.removed_files), 'materialized file')}")
        if self.erased_quarantine:
            lines.append(f"  erased {counted(sum(self.erased_quarantine.values()), 'line')} of it that `baton repair` had "
                         f"set aside, in {', '.join('.baton/quarantine/' + n for n in sorted(self.erased_quarantine))}")
        if self.removed_quarantine:
            lines.append(f"  removed {counted(len(self.removed_quarantine), 'quarantined fragment')} holding erased text")
        if self.removed_leftovers:
            lines.append(f"  removed {counted(len(self.removed_leftovers), 'temporary file')} holding erased text, "
                         "left by a process killed before renaming it into place")
        if derived:
            lines.append(derived)
        lines.append("  every chain still verifies: `baton verify`")
        return "\n".join(lines)


def forget_handoff(project: "Project", token: str, *, reason: str | None = None, yes: bool = False) -> ForgetResult:
    """Raises: NotFound / AmbiguousId (exit 4), InputError (exit 2), StorageError (exit 1)."""
    reason = reason.strip() if reason and reason.strip() else None
    with project.writing() as scope:
        erased_before: NotFound | None = None
        try:
            handoff_id = _handoff_id(project, scope.runner, token)
        except NotFound as gone:
            erased = (gone.details or {}).get("erased") if isinstance(gone.details, dict) else None
            if not isinstance(erased, str):
                raise
            # named by its short id (what the withheld-revision line prints): forgotten again, it erases what
            # the ledger still holds of it (a revision made apart); with nothing left, it was erased
            handoff_id, erased_before = erased, gone
        # Only the events that carry the handoff are kept: the ledger is read a chunk of each feed at a
        # time (at 100,000 events holding them all was ~780 MB for a handful of payloads).
        events = [e for e in project.ledger.iter_all() if carries_handoff(e, handoff_id)]
        copies = read_copies(project.paths.quarantine_dir)
        seen = {e.id for e in events if not e.erased}  # an event erased in the ledger may be whole in a copy
        for copy_event in (e for c in copies for e in c.events() if carries_handoff(e, handoff_id)):
            if copy_event.id not in seen and not copy_event.erased:
                events.append(copy_event)
                seen.add(copy_event.id)
        plan = plan_forget(handoff_id, events)
        held = [c for c in forget_kept.kept_copies(project) if c.handoff == handoff_id]
        refused = forget_kept.refusal(held)
        if refused is not None:
            raise refused
        if not plan.events and not held and erased_before is not None:
            raise _with_derived(erased_before, scope.runner, handoff_id) from None
        if not plan.events and not held:
            raise _with_derived(NotFound(f"handoff {handoff_id} has no payload left to forget",
                                         details={"handoff": handoff_id, "already_erased": plan.already_erased}),
                                scope.runner, handoff_id)
        derived = _derived(scope.runner, handoff_id)
        kept = tuple(c.shown for c in held)
        if not yes:
            return ForgetResult(plan, False, reason, derived=derived, kept_files=kept)
        if not plan.events:  # only kept files hold it: nothing in the ledger to erase or record
            strings = _not_in_ledger(project, forget_kept.needles(held))
            in_copies = erase_in_copies(read_copies(project.paths.quarantine_dir), frozenset(), strings, handoff_id,
                                        markers_of(handoff_id))
            forget_kept.remove(project, held)
            quarantine, leftovers = _remove_erased_copies(project, [], frozenset({handoff_id}), strings,
                                                          markers_of(handoff_id))
            return ForgetResult(plan, True, reason, {}, (), tuple(quarantine), derived, tuple(leftovers), in_copies,
                                kept)
        erasing = set(plan.events)
        erased_data = [e.data for e in events if e.id in erasing]
        del events
        _mark_pending(project, handoff_id, True)  # until it is done, `baton sync` finishes it before publishing
        try:
            # Under the git identity it was run as (what another replica's sync names: as claimed).
            record(scope, [plan.forgotten(reason)], version=scope.txn.stream_version(handoff_stream(handoff_id)),
                   durable=True, actor=context_of(project).owner)
        except RecordedNotIndexed:
            pass  # recorded: the fold failed (a full disk), and the index is deleted and rebuilt below anyway
        DoneSoFar.note(next_command(handoff_id))
        feeds = erase.erase_payloads(project.paths.ledger_dir, plan.events)
        DoneSoFar.note("after the payloads were erased from the ledger: the forget is done, do not run it again "
                       "(the index is rebuilt at the next command)")
        shown = scope.runner.delete_index()
        _remove_index_copies(project)
        project.ledger._forget()  # what it read before the rewrite holds the payloads
        scope.txn.refresh()
        scope.runner.rebuild(reason="forget", progress=project.on_progress)  # ~15 s at 100k events: shown
        removed = scope.runner.prune_files(shown)
        strings = _not_in_ledger(project, forget_kept.needles(held))
        in_copies = erase_in_copies(read_copies(project.paths.quarantine_dir), frozenset(plan.events),
                                    _needles(project, erased_data) | strings, handoff_id, markers_of(handoff_id))
        forget_kept.remove(project, held)
        quarantine, leftovers = _remove_erased_copies(project, erased_data, frozenset({handoff_id}), strings,
                                                      markers_of(handoff_id))
        _mark_pending(project, handoff_id, False)
    return ForgetResult(plan, True, reason, feeds, tuple(removed), tuple(quarantine), derived, tuple(leftovers),
                        in_copies, kept)


PENDING_FILE = "forget.pending"
"""``.baton/forget.pending``: ``{"handoffs": [ids]}``, the forgets confirmed and not done yet
(written before ``handoff.forgotten`` is appended, cleared once the erasure is done): what
``baton sync`` finishes before it publishes anything (``finish_interrupted``)."""


def pending_forgets(project: "Project") -> list[str]:
    """The handoffs whose confirmed forget has not finished (``PENDING_FILE``); none when it is unreadable."""
    try:
        raw = read_local_json(project.paths.baton_dir / PENDING_FILE)
    except FileNotFoundError:
        return []
    except BatonError:
        return []
    listed = raw.get("handoffs") if isinstance(raw, dict) else None
    return [h for h in listed if isinstance(h, str)] if isinstance(listed, list) else []


def _mark_pending(project: "Project", handoff_id: str, pending: bool) -> None:
    """Add ``handoff_id`` to ``PENDING_FILE`` (durably, renamed into place) or take it out (the
    file removed once empty). The caller holds the ledger lock."""
    path = project.paths.baton_dir / PENDING_FILE
    ids = [h for h in pending_forgets(project) if h != handoff_id] + ([handoff_id] if pending else [])
    try:
        if ids:
            write_json_atomic(path, {"handoffs": ids})
        elif path.exists():
            os.unlink(path)
    except OSError as exc:
        raise StorageError(f"cannot write {path}: {exc}") from exc


@frozen
class FinishedForget:
    """A forget that was interrupted, finished by ``baton sync`` before it published."""

    handoff: str
    payloads: int

    def to_json(self) -> dict[str, Any]:
        return {"handoff": self.handoff, "payloads": self.payloads}


def finish_interrupted(project: "Project") -> list[FinishedForget]:
    """Finish every forget ``PENDING_FILE`` names, and every one the ledger alone shows was
    interrupted (``unfinished_in_ledger``: an older Baton wrote no ``PENDING_FILE``), whose
    ``handoff.forgotten`` was recorded and whose payloads the ledger still holds (it was
    interrupted before the rewrite): ``baton sync`` calls it first, so it never publishes what
    the user asked to erase. One never recorded (killed before its append), or already done, is
    only taken off the list. Only a forget this clone recorded (its ``handoff.forgotten`` in this
    clone's own feed) is finished here: another clone's is that clone's to finish (its next sync
    does), and finishing it here would record this clone's user as forgetting what they did not.

    Raises: StorageError (exit 1): the erasure cannot be finished (nothing is published then)."""
    done: list[FinishedForget] = []
    listed = pending_forgets(project)
    found = [h for h in unfinished_in_ledger(project) if h not in listed]
    if found:
        ours = erase.recorded_forgets([project.ledger.feed_path(project.writer)])
        found = [h for h in found if h in ours]
    for handoff_id in [*listed, *found]:
        if erase.unerased_named(project.ledger.feed_paths(), handoff_id):
            result = forget_handoff(project, handoff_id, yes=True)
            done.append(FinishedForget(handoff_id, len(result.plan.events)))
        else:
            with project.writing():
                _mark_pending(project, handoff_id, False)
    return done


CHECKED_FILE = "forgets-checked.json"
"""``.baton/cache/forgets-checked.json``: each feed's size, inode and modification time when the
ledger was last found to hold no unfinished forget (``unfinished_in_ledger``), so a sync whose
feeds have not changed since does not read them again."""


def unfinished_in_ledger(project: "Project") -> list[str]:
    """The handoffs whose recorded ``handoff.forgotten`` names payloads the feeds still hold
    (``erase.unfinished_forgets``): a byte search of each feed for the record's type, skipped
    while every feed is as it was when the last search found none (``CHECKED_FILE``)."""
    paths = project.ledger.feed_paths()
    stamp = _feed_stamps(paths)
    marker = project.paths.cache_dir / CHECKED_FILE
    try:
        if stamp is not None and read_local_json(marker) == {"feeds": stamp}:
            return []
    except (FileNotFoundError, BatonError):
        pass
    found = sorted(erase.unfinished_forgets(paths))
    if not found and stamp is not None:
        try:
            project.paths.cache_dir.mkdir(parents=True, exist_ok=True)
            write_json_atomic(marker, {"feeds": stamp})
        except (OSError, BatonError):
            pass  # only a cache: the next sync searches again
    return found


def _feed_stamps(paths: list[Path]) -> dict[str, list[int]] | None:
    """Each feed's size, inode and modification time (None when one cannot be read)."""
    out: dict[str, list[int]] = {}
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            return None
        out[path.name] = [st.st_size, st.st_ino, st.st_mtime_ns]
    return out


def next_command(handoff_id: str) -> str:
    """What a Ctrl-C between the forget's record and its erasure leaves, for the command line
    (``DoneSoFar``): the forget to run again."""
    return (f"after the forget was recorded, before its payloads were erased: run `baton forget {handoff_id} --yes` "
            "again to erase them")


def scrub_after_erasure(project: "Project", erased_data: list[Any],
                        ids: frozenset[str] = frozenset()) -> tuple[list[str], list[str]]:
    """Steps 4 and 5 above for payloads erased by someone else's forget that
    ``baton sync`` brought in (``ids``: those events'): the caller holds the
    ledger lock and has rewritten the feeds. Returns the materialized files
    (leftover temporary copies included) and the quarantined fragments removed.

    Raises: StorageError (exit 1).
    """
    runner = project.runner
    shown = runner.delete_index()
    _remove_index_copies(project)
    project.ledger._forget()  # what it read before the rewrite holds the payloads
    runner.rebuild(reason="forget")
    removed = runner.prune_files(shown)
    erase_in_copies(read_copies(project.paths.quarantine_dir), ids, _needles(project, erased_data), None)
    forgotten = forget_kept.handoffs_in(erased_data)
    kept = forget_kept.remove(project, [c for c in forget_kept.kept_copies(project)
                                        if c.in_quarantine and c.handoff in forgotten])
    quarantine, leftovers = _remove_erased_copies(project, erased_data, forgotten)
    return removed + leftovers, [name.removeprefix("quarantine/") for name in kept] + quarantine


def _with_derived(gone: NotFound, runner: Any, handoff_id: str) -> NotFound:
    """The refusal of a forget of a handoff already erased, naming the records that still hold its
    content (a fork made on another clone before the forget reached it, brought by a sync since:
    ``forgotten_derived``) and the forget that erases each; ``details.derived``: their ids."""
    derived = [d.handoff for d in forgotten_derived.held_copies(runner, handoff_id)]
    if not derived:
        return gone
    ids = ", ".join(short_id(h) for h in derived)
    again = " and ".join(f"`baton forget {short_id(h)}`" for h in derived)
    message = (f"{gone.message}; {counted(len(derived), 'handoff')} derived from it (fork, amend, continue, merge) "
               f"still {'holds' if len(derived) == 1 else 'hold'} a copy of its content: {ids}; {again} "
               f"{'erases it' if len(derived) == 1 else 'erase them'}")
    details = dict(gone.details) if isinstance(gone.details, dict) else {}
    return NotFound(message, details=details | {"derived": derived})


def _derived(runner: Any, handoff_id: str) -> tuple[str, ...]:
    """Every live record descending from ``handoff_id`` (children, their
    children...), oldest first: each copied content from its parent."""
    if "handoffs" not in runner.by_name:
        return ()
    children: dict[str, list[str]] = {}
    for key, doc in runner.docs("handoffs"):
        parents = ((doc.get("lineage") or {}).get("parents") or []) if isinstance(doc, dict) else []
        for parent in parents:
            if isinstance(parent, str):
                children.setdefault(parent, []).append(key)
    found: list[str] = []
    todo = [handoff_id]
    while todo:
        for child in sorted(children.get(todo.pop(), ())):
            if child not in found and child != handoff_id:
                found.append(child)
                todo.append(child)
    return tuple(sorted(found))


def _handoff_id(project: "Project", runner: Any, token: str) -> str:
    """The id ``token`` names; one whose forget was interrupted (its record
    gone, payloads it names still in the ledger) however it is named, and a
    full id the projections no longer show (a capture erased before) is
    looked for in the ledger itself."""
    try:
        return resolve_handoff_id(runner, token, here=place_of(project))
    except NotFound as missing:
        unfinished = (missing.details or {}).get("unfinished_forget")
        if isinstance(unfinished, str):  # whichever id named it (short, prefix): this forget finishes it
            return unfinished
        wanted = (token or "").strip().lower()
        if len(wanted) < 8:
            kept = forget_kept.named(forget_kept.kept_copies(project), wanted) if wanted else set()
            if len(kept) == 1:  # the short id a kept file's name ends in
                return kept.pop()
            raise
        prefix = handoff_stream(wanted)
        held = [*project.ledger.iter_all(), *(e for c in read_copies(project.paths.quarantine_dir) for e in c.events())]
        found = {e.stream.partition("/")[2] for e in held if e.stream.startswith(prefix)}
        if len(found) == 1:  # one the projections no longer show (a forget that did not finish, a repair set it aside)
            return found.pop()
        kept = forget_kept.named(forget_kept.kept_copies(project), wanted)
        if len(kept) == 1:  # only a file kept from lost events holds it (``forget_kept``)
            return kept.pop()
        raise


def _remove_index_copies(project: "Project") -> None:
    """Damaged indexes moved aside into ``cache/`` hold payloads too."""
    cache = project.paths.cache_dir
    if not cache.is_dir():
        return
    for path in cache.glob("index.sqlite.damaged.*"):
        try:
            os.unlink(path)
        except OSError as exc:
            raise StorageError(f"cannot remove {path}: {exc}") from exc


def _holds(raw: bytes, needle: bytes, shortest: int = 8) -> bool:
    """``raw`` holds ``needle``, or ends inside it (a torn tail cut mid-string)."""
    if needle in raw:
        return True
    tail = raw[-len(needle):]
    return any(tail.endswith(needle[:k]) for k in range(len(needle) - 1, shortest - 1, -1))


def markers_of(handoff_id: str) -> frozenset[bytes]:
    """What only a line of the handoff's own events holds, as an envelope spells it: its stream,
    or a baton event's ``handoff_id`` naming it (``erase_in_copies``'s ``markers``)."""
    return frozenset({orjson.dumps({"stream": handoff_stream(handoff_id)})[1:-1],
                      orjson.dumps({"handoff_id": handoff_id})[1:-1]})


def _remove_erased_copies(project: "Project", erased: list[Any], forgotten: frozenset[str],
                          more: frozenset[bytes] | set[bytes] = frozenset(),
                          markers: frozenset[bytes] = frozenset()) -> tuple[list[str], list[str]]:
    """Remove the quarantined fragments and the leftover temporary files
    (``TEMPORARY_PREFIX``) that hold erased text (or one of ``more``: a kept
    file's strings; or one of ``markers`` whole); the fragments' names and the
    leftovers' paths under ``.baton/``. A kept file holding a handoff other than
    the ``forgotten`` ones is never removed for sharing a string with them (two
    captures in the same second share their timestamps): it may be the only
    copy of that handoff (``forget_kept.others_kept``)."""
    folder = project.paths.quarantine_dir
    spared = forget_kept.others_kept(project, forgotten)
    fragments = [(path, path.name) for path in sorted(folder.iterdir())  # repair copies: ``erase_in_copies``
                 if not path.name.endswith((COPY_SUFFIX, MANIFEST_SUFFIX)) and path.name not in spared] \
        if folder.is_dir() else []
    leftovers = _leftover_temporaries(project)
    if not fragments and not leftovers:
        return [], []
    needles = _needles(project, erased) | set(more)
    return _remove_holding(fragments, needles, markers), _remove_holding(leftovers, needles, markers)


def _needles(project: "Project", erased: list[Any]) -> set[bytes]:
    """The strings of the ``erased`` payloads, as text and as JSON spells them, that no feed still holds
    (a string other events hold is not what went)."""
    needles = set()
    for data in erased:
        for text in payload_strings(data):
            needles.add(text.encode("utf-8"))
            needles.add(orjson.dumps(text)[1:-1])
    return _not_in_ledger(project, needles)


def _not_in_ledger(project: "Project", needles: set[bytes]) -> set[bytes]:
    """``needles`` that no feed holds (a string other events hold is not what went)."""
    if not needles:
        return needles
    ledger = b"".join(p.read_bytes() for p in project.paths.ledger_dir.glob("*.jsonl"))
    return {n for n in needles if n not in ledger}


def _remove_holding(candidates: list[tuple[Path, str]], needles: set[bytes],
                    markers: frozenset[bytes] = frozenset()) -> list[str]:
    """Remove each of ``candidates`` (a path and the name to report) that holds one of ``needles``
    (or ends inside one), or one of ``markers`` whole."""
    removed = []
    for path, name in candidates:
        if not (needles or markers) or not path.is_file():
            continue
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise StorageError(f"cannot read {path}: {exc}") from exc
        if any(m in raw for m in markers) or any(_holds(raw, n) for n in needles):
            try:
                os.unlink(path)
            except OSError as exc:
                raise StorageError(f"cannot remove {path}: {exc}") from exc
            removed.append(name)
    return removed


def _leftover_temporaries(project: "Project") -> list[tuple[Path, str]]:
    """The temporary files under ``.baton/`` (outside the ledger and the
    quarantine) that a killed writer never renamed into place."""
    base = project.paths.baton_dir
    skip = {project.paths.ledger_dir, project.paths.quarantine_dir}
    found = []
    for folder, subfolders, names in os.walk(base):
        here = Path(folder)
        subfolders[:] = sorted(d for d in subfolders if here / d not in skip)
        found += [(here / n, str((here / n).relative_to(base))) for n in sorted(names)
                  if n.startswith(TEMPORARY_PREFIX)]
    return found
