"""Each stream's current version, as far as one ledger instance knows.

Expected-version checks must be exact, but a process should not read every
event ever written to learn them. Read cold, every version comes from the
events read. Seeded from an index (``Seed``), a stream's version is the
greater of what the index folded — looked up the first time the stream is
asked for, then remembered — and what this instance read or appended after
the index's cursors. The index only ever folds a prefix of the feeds at or
beyond those cursors, so the greater of the two is the version over every
event in the feeds.
"""

from __future__ import annotations

from baton.ledger.protocol import Seed


class StreamVersions:
    def __init__(self) -> None:
        self.seen: dict[str, int] = {}
        """Highest version among the events read or appended by this
        instance (after the seed's cursors, or since byte 0 without one)."""
        self._folded: dict[str, int] = {}
        self.seed: Seed | None = None

    def reset(self, seed: Seed | None = None) -> None:
        self.seen.clear()
        self._folded.clear()
        self.seed = seed

    def note(self, stream: str, version: int) -> None:
        if version > self.seen.get(stream, 0):
            self.seen[stream] = version

    def get(self, stream: str) -> int | None:
        """The stream's version, or None when the seed was withdrawn (the
        index forgot what it folded) and the feeds must be read again."""
        seen = self.seen.get(stream, 0)
        if self.seed is None:
            return seen
        folded = self._folded.get(stream)
        if folded is None:
            folded = self.seed.stream_version(stream)
            if folded is None:
                return None
            self._folded[stream] = folded
        return max(seen, folded)
