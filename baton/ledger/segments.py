"""Cutting a feed into segments: whole lines, at most ``SEGMENT_BYTES`` each.

``baton sync`` stores each feed on the ledger ref as a folder of segment
blobs rather than one blob, so a sync costs what the feed gained: closed
segments are never hashed or sent again, only the open (last) one and any
new ones. The cut is greedy and depends on the feed's bytes alone, so two
machines that pack the same feed get the same segments (and blob ids).

A segment is named by the byte offset it starts at, zero-padded so that
names sort in feed order (``000000000000.jsonl``, ``000001048517.jsonl``).
A line longer than a segment gets a segment of its own. Given the ends of
its batches, the packer cuts inside a batch only when the batch is longer
than a segment; such segments, and those an older packer cut inside a
batch, are read whole (``baton sync`` carries the batch to the next
segment).
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Iterator, Sequence

SEGMENT_BYTES = 1 << 20
"""The most a segment holds (unless one line is longer)."""

_NAME_DIGITS = 12


def segment_name(start: int) -> str:
    return f"{start:0{_NAME_DIGITS}d}.jsonl"


def segment_start(name: str) -> int | None:
    """The offset a segment's name says it starts at (None: not a segment name)."""
    stem, dot, ext = name.partition(".")
    if ext != "jsonl" or not dot or len(stem) != _NAME_DIGITS or not stem.isdigit():
        return None
    return int(stem)


class SegmentPacker:
    """Packs a feed's lines into segments as its bytes arrive.

    Start it with the feed's open segment (its start offset and bytes, or
    nothing for a new feed) and ``add`` whole lines in order; ``closed()``
    yields each segment as soon as the next line no longer fits, and
    ``finish()`` the last, open one. Memory: one segment.
    """

    def __init__(self, start: int = 0, open_bytes: bytes = b"", limit: int | None = None) -> None:
        self.start = start
        self.limit = SEGMENT_BYTES if limit is None else limit
        self._parts: list[bytes] = [open_bytes] if open_bytes else []
        self._size = len(open_bytes)
        self._closed: list[tuple[int, bytes]] = []

    @property
    def end(self) -> int:
        """The feed offset just after the last byte added."""
        return self.start + self._size

    def add(self, lines: bytes, cuts: Sequence[int] | None = None) -> None:
        """Add whole, newline-terminated lines (any number, possibly none).

        ``cuts``: the offsets in ``lines`` where a segment may end, rising,
        the last one ``len(lines)`` — the ends of whole batches, so that no
        batch straddles two segments. None: after any line. A batch longer
        than a segment is the exception: it is cut at its lines."""
        pos, size = 0, len(lines)
        while pos < size:
            room = self.limit - self._size
            if size - pos <= room:
                cut = size
            elif room > 0:
                cut = _last_cut(lines, cuts, pos, pos + room)
            else:
                cut = pos
            if cut > pos:
                self._parts.append(lines[pos:cut])
                self._size += cut - pos
                pos = cut
                continue
            if self._size:  # the next line (or batch) does not fit: close this segment,
                if cuts is not None and room > 0 and _next_cut(cuts, pos, size) - pos > self.limit:
                    # unless it is a batch no segment holds: cut at its lines from here
                    cut = _last_cut(lines, None, pos, pos + room)
                    if cut > pos:
                        self._parts.append(lines[pos:cut])
                        self._size += cut - pos
                        pos = cut
                        continue
                self._close()
                continue
            # An empty segment and a batch longer than a segment: cut at its lines
            # (an import carries a batch across segments); a line longer than a
            # segment goes alone.
            cut = _last_cut(lines, None, pos, pos + self.limit)
            if cut <= pos:
                cut = _line_end(lines, pos)
            self._parts.append(lines[pos:cut])
            self._size += cut - pos
            pos = cut
            self._close()

    def _close(self) -> None:
        data = b"".join(self._parts)
        self._closed.append((self.start, data))
        self.start += len(data)
        self._parts, self._size = [], 0

    def closed(self) -> Iterator[tuple[int, bytes]]:
        """The segments closed since the last call, as ``(start, bytes)``."""
        out, self._closed = self._closed, []
        return iter(out)

    def finish(self) -> tuple[int, bytes] | None:
        """The open segment (None when it is empty)."""
        if not self._size:
            return None
        return self.start, b"".join(self._parts)


def _last_cut(lines: bytes, cuts: Sequence[int] | None, pos: int, end: int) -> int:
    """The furthest place after ``pos`` and at most ``end`` a segment may end (``pos``: none)."""
    if cuts is None:
        return max(lines.rfind(b"\n", pos, end) + 1, pos)
    i = bisect_right(cuts, end) - 1
    return cuts[i] if i >= 0 and cuts[i] > pos else pos


def _next_cut(cuts: Sequence[int], pos: int, size: int) -> int:
    """The first allowed cut after ``pos`` (``size`` when none is listed)."""
    i = bisect_right(cuts, pos)
    return cuts[i] if i < len(cuts) else size


def _line_end(lines: bytes, pos: int) -> int:
    """Just past the line that begins at ``pos``."""
    nl = lines.find(b"\n", pos)
    return len(lines) if nl < 0 else nl + 1
