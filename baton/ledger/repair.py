"""``baton repair``: the deliberate, recorded way past a damaged feed.

Nothing here runs implicitly. A plan names, per damaged feed, the byte from
which its lines are set aside: the first bad line (a line that fails its hash,
digest, seq, ``prev`` or batch, or a payload erased without a recorded
forget), moved back to the start of the batch it belongs to. Everything from
there on — the bad line and every line after it, sound or not — is moved
byte for byte into ``quarantine/`` with a manifest, and the feed is cut there.
A feed found shorter than a recorded head, missing, or rewritten has nothing
to cut: the plan records the heads that can no longer be found (``lost``).

The caller then appends a ``ledger.repaired`` event naming the feed, the head
kept and every event set aside or lost, so ``verify`` stops reporting the
heads recorded before the repair. Problems across feeds (a stream forked by
two writers, an event id in two feeds) are not a cut's to fix: they are
reported as left.
"""

from __future__ import annotations

import fcntl
import os
from hashlib import sha256
from pathlib import Path
from typing import Any

import orjson

import baton.ledger.files as files
from baton.errors import StorageError
from baton.ledger.envelope import EventDraft
from baton.ledger.feed import FeedHead, FeedProblem, scan_bytes
from baton.ledger.ids import uuid7
from baton.ledger.integrity import REPAIRED_TYPE, ledger_stream
from baton.ledger.verify import VerifyReport
from baton.model import frozen

LINE_PROBLEMS = frozenset({
    "bad_json", "bad_envelope", "bad_hash", "bad_digest", "wrong_writer", "fork", "gap", "broken_chain",
    "hlc_regressed", "incomplete_batch", "bad_batch", "erased_without_forget",
})
"""Problems a cut fixes: they sit on a line of one feed."""
HEAD_PROBLEMS = frozenset({"truncated", "missing_feed", "rewritten"})
"""Problems a repair acknowledges: a recorded head the feed no longer has."""


@frozen
class FeedRepair:
    """What repairing one feed does."""

    feed: str
    cut: int | None
    """Byte from which the feed's lines are set aside (None: nothing to cut)."""
    length: int
    """Bytes set aside."""
    kept: FeedHead
    set_aside: list[dict[str, Any]]
    """Per line set aside: ``offset`` and ``bytes``, and ``seq``, ``id``,
    ``hash``, ``type`` when the line still parses as an envelope."""
    lost: list[dict[str, Any]]
    """Recorded heads ``{"seq", "hash", "source"}`` the kept feed does not hold."""
    reasons: list[str]

    def to_json(self) -> dict[str, Any]:
        return {
            "feed": self.feed, "cut_at": self.cut, "bytes": self.length,
            "kept": {"seq": self.kept.seq, "hash": self.kept.hash, "offset": self.kept.offset},
            "set_aside": self.set_aside, "lost": self.lost, "reasons": self.reasons,
        }

    def draft(self, writer: str, quarantined: str | None) -> EventDraft:
        """The ``ledger.repaired`` event that records this repair, on ``writer``'s stream."""
        return EventDraft(REPAIRED_TYPE, ledger_stream(writer), {
            "feed": self.feed,
            "kept": {"seq": self.kept.seq, "hash": self.kept.hash, "offset": self.kept.offset},
            "set_aside": [{k: item[k] for k in ("seq", "id", "hash") if k in item} for item in self.set_aside],
            "lost": [{"seq": h["seq"], "hash": h["hash"]} for h in self.lost],
            "bytes": self.length,
            "quarantine": quarantined,
            "reasons": self.reasons,
        })


def plan_repair(ledger_dir: Path, report: VerifyReport, feed: str | None = None,
                not_feeds: frozenset[str] = frozenset()) -> list[FeedRepair]:
    """One ``FeedRepair`` per feed (or just ``feed``) that a repair changes.
    ``not_feeds``: feeds whose file is a symbolic link or not a regular file,
    never read (the repair removes them): planned as missing."""
    line_problems: dict[str, list[FeedProblem]] = {}
    head_problems: dict[str, list[FeedProblem]] = {}
    for problem in report.all_problems():
        if feed is not None and problem.feed != feed:
            continue
        if problem.kind in LINE_PROBLEMS and problem.offset >= 0:
            line_problems.setdefault(problem.feed, []).append(problem)
        elif problem.kind in HEAD_PROBLEMS:
            head_problems.setdefault(problem.feed, []).append(problem)
    plans = []
    for name in sorted(set(line_problems) | set(head_problems)):
        path = Path(ledger_dir) / f"{name}.jsonl"
        try:
            raw = None if name in not_feeds else files.read_range(str(path), 0)
        except FileNotFoundError:
            raw = None
        except OSError as exc:
            raise StorageError(f"cannot read feed {path}: {exc}") from exc
        problems = sorted(line_problems.get(name, []), key=lambda p: p.offset)
        reasons = [f"{p.kind} at byte {p.offset}: {p.message}" for p in problems[:1]]
        reasons += [p.message for p in head_problems.get(name, [])]
        cut, kept, aside = None, FeedHead(), []
        if raw is not None:
            end = problems[0].offset if problems else len(raw)
            # The sound lines before the first bad one; an open batch there is set aside whole.
            before = scan_bytes(name, raw[:end], FeedHead())
            kept = before.head
            if problems or kept.offset < len(raw):
                cut = kept.offset
                aside = _lines(raw, cut)
        hashes = _kept_hashes(raw[:kept.offset] if raw is not None else b"", name)
        gone = {item.get("hash") for item in aside}
        lost = [{"seq": h.seq, "hash": h.hash, "source": h.source} for h in report.recorded
                if h.feed == name and hashes.get(h.seq) != h.hash and h.hash not in gone]
        lost = [dict(t) for t in {tuple(sorted(h.items())) for h in lost}]
        lost.sort(key=lambda h: (h["seq"], h["source"]))
        if cut is None and not lost:
            continue
        plans.append(FeedRepair(name, cut, len(raw) - cut if cut is not None and raw is not None else 0,
                                kept, aside, lost, reasons))
    return plans


def _kept_hashes(raw: bytes, feed: str) -> dict[int, str]:
    return {e.seq: e.hash for e in scan_bytes(feed, raw, FeedHead()).events}


def _lines(raw: bytes, cut: int) -> list[dict[str, Any]]:
    out = []
    pos = cut
    while pos < len(raw):
        nl = raw.find(b"\n", pos)
        end = len(raw) if nl < 0 else nl + 1
        item: dict[str, Any] = {"offset": pos, "bytes": end - pos}
        try:
            parsed = orjson.loads(raw[pos:end])
        except orjson.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict):
            for key in ("seq", "id", "hash", "type"):
                if isinstance(parsed.get(key), (int, str)) and not isinstance(parsed.get(key), bool):
                    item[key] = parsed[key]
        out.append(item)
        pos = end
    return out


def set_aside(baton_dir: Path, repair: FeedRepair, *, fsync: bool = True) -> str | None:
    """Move ``repair``'s lines into ``quarantine/`` (with a manifest) and cut
    the feed, under the project's write lock. Returns the quarantine file's
    name (None when there was nothing to cut).

    Raises:
        StorageError: the feed changed since the plan, or a file operation failed
            (the feed is cut only after its bytes are safely in quarantine).
    """
    if repair.cut is None:
        return None
    ledger_dir = Path(baton_dir) / "ledger"
    path = ledger_dir / f"{repair.feed}.jsonl"
    quarantine = Path(baton_dir) / "quarantine"
    lock_path = Path(baton_dir) / "ledger.lock"
    try:
        lock = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise StorageError(f"cannot open the ledger lock {lock_path}: {exc}") from exc
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            raw = files.read_range(str(path), 0)
        except OSError as exc:
            raise StorageError(f"cannot read feed {path}: {exc}") from exc
        if len(raw) != repair.cut + repair.length:
            raise StorageError(f"feed {repair.feed} changed since the repair was planned; run `baton repair` again")
        tail = raw[repair.cut:]
        name = f"{repair.feed}.{repair.cut}.{uuid7()}"
        manifest = dict(repair.to_json(), sha256=sha256(tail).hexdigest(), file=f"{name}.repair")
        written: list[Path] = []  # removed again unless the feed is cut: no empty or partial copy is kept
        try:
            quarantine.mkdir(parents=True, exist_ok=True)
            _write_new(quarantine / f"{name}.repair", tail, fsync, written)
            _write_new(quarantine / f"{name}.manifest.json",
                       orjson.dumps(manifest, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n", fsync,
                       written)
            if fsync:
                files.fsync_dir(quarantine)
            files.cut(path, repair.cut, fsync=fsync)
            written.clear()  # the feed is cut: the copies are the only ones, kept
        except files.CutNotDurable as exc:  # cut all the same: the copies are the only ones, kept
            raise StorageError(f"the damaged lines of {path} were set aside in {quarantine / name}.repair "
                               f"and the feed cut, not yet durable: {exc}; run `baton repair` again") from exc
        except (OSError, StorageError) as exc:
            for copy in written:  # the feed still holds them
                files.remove_if_there(copy)
            raise StorageError(f"could not set aside the damaged lines of {path}: {exc}") from exc
        return f"{name}.repair"
    finally:
        try:
            fcntl.flock(lock, fcntl.LOCK_UN)
        finally:
            os.close(lock)


def _write_new(path: Path, data: bytes, fsync: bool, written: list[Path]) -> None:
    """``data`` in a new file ``path``, named in ``written`` once it exists (even empty)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    written.append(path)
    try:
        files.write_all(fd, data)
        if fsync:
            os.fsync(fd)
    finally:
        os.close(fd)
