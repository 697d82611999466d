"""A command's output kept as a digest and a bounded, redacted summary
(``summarize_output``): what a validation records of the commands it ran.

Apart from the screen every answer passes (``baton.domain.redaction.output``),
so that a command that runs nothing — every hook — does not define
``OutputSummary``.
"""

from __future__ import annotations

import hashlib
from typing import Iterator

from baton.domain.redaction.policy import RedactionPolicy
from baton.domain.redaction.rules import MARKER
from baton.domain.redaction.walk import Redaction, redact_payload
from baton.domain.regexes import compiled
from baton.model import frozen

_ANSI = r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"

DEFAULT_SUMMARY_LIMIT = 2000


@frozen
class OutputSummary:
    """What Baton keeps of a command's output: a digest and a bounded summary.

    ``digest`` is ``sha256:`` of the *redacted* (and ANSI-stripped) full
    output, never of the raw bytes: a digest of raw output that held a short
    secret would let anyone with the ledger confirm a guess of it offline.
    """

    digest: str
    summary: str
    truncated: bool
    original_chars: int
    redactions: tuple[Redaction, ...] = ()
    blocked: tuple[Redaction, ...] = ()

    def __iter__(self) -> Iterator[str]:  # ``digest, summary = summarize_output(...)``
        return iter((self.digest, self.summary))


def summarize_output(text: str, limit: int = DEFAULT_SUMMARY_LIMIT,
                     policy: RedactionPolicy | None = None, *, field: str = "$") -> OutputSummary:
    """Redact the whole output first (so a PEM block cut by truncation is still
    caught), then keep its head and its tail (test runners print their verdict
    last) within ``limit`` characters, marking what was left out."""
    policy = policy or RedactionPolicy()
    plain = compiled(_ANSI).sub("", text)
    outcome = redact_payload(plain, policy, at=field)
    redacted: str = outcome.payload
    digest = "sha256:" + hashlib.sha256(redacted.encode("utf-8", "surrogatepass")).hexdigest()
    summary, truncated = _bounded(redacted, max(limit, 0))
    return OutputSummary(digest=digest, summary=summary, truncated=truncated, original_chars=len(text),
                         redactions=outcome.redactions, blocked=outcome.blocked)


def _bounded(text: str, limit: int) -> tuple[str, bool]:
    if len(text) <= limit:
        return text, False
    omitted = len(text)  # upper bound for the width of the count
    note = f"\n[... {omitted} characters omitted ...]\n"
    room = limit - len(note)
    if room < 8:
        return _clip_markers(text, 0, limit), True
    head_len = room // 4
    tail_len = room - head_len
    head = _clip_markers(text, 0, head_len)
    tail_start = len(text) - tail_len
    tail = _clip_markers(text, tail_start, len(text))
    note = f"\n[... {len(text) - len(head) - len(tail)} characters omitted ...]\n"
    return head + note + tail, True


def _clip_markers(text: str, start: int, stop: int) -> str:
    """``text[start:stop]``, shrunk so that no redaction marker is cut in half."""
    for m in MARKER.finditer(text):
        if m.start() < start < m.end():
            start = m.end()
        if m.start() < stop < m.end():
            stop = m.start()
    return text[start:max(start, stop)]
