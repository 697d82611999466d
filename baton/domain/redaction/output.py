"""What leaves Baton: a command's output kept as a digest and a bounded,
redacted summary, and every answer screened by the same rules as the ledger
(``screen_output``, ``screen_encoded``, ``screen_text``).
"""

from __future__ import annotations

import hashlib
from typing import Any, Iterator, Mapping

import orjson

from baton.domain.redaction.policy import RedactionPolicy
from baton.domain.redaction.rules import MARKER, Rule
from baton.domain.redaction.walk import Redaction, per_policy, redact_payload, redact_strings, scrub_memo
from baton.domain.regexes import compiled
from baton.domain.visible import printable
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


CLEAN_ENCODINGS = 32
"""Whole answers remembered clean per policy (``screen_encoded``), each at most ``CLEAN_ENCODING_BYTES``."""
CLEAN_ENCODING_BYTES = 1 << 20
_CLEAN: dict[tuple[int, float, int], tuple[tuple[Rule, ...], dict[bytes, Any]]] = {}


def _clean_encodings(policy: RedactionPolicy) -> dict[bytes, Any]:
    """The JSON encodings of answers ``screen_output`` found clean under this
    policy's rules (keyed as ``scrub_memo``; emptied when full)."""
    return per_policy(_CLEAN, policy)


def screen_encoded(encoded: bytes, policy: RedactionPolicy) -> tuple[Any, bool]:
    """``screen_output`` of the JSON ``encoded`` holds, and whether it was
    clean (the screen changed nothing: ``encoded`` is then its encoding too).

    An encoding found clean before under this policy's rules, byte for byte,
    gives back the value it was read as then — neither read nor walked again
    (screening is a pure function of the text and the rules). That value is
    shared: callers must not change it."""
    seen = _clean_encodings(policy) if len(encoded) <= CLEAN_ENCODING_BYTES else None
    if seen is not None:
        known = seen.get(encoded)
        if known is not None:
            return known, True
    value = orjson.loads(encoded)
    screened = screen_output(value, policy)
    clean = screened is value or screened == value
    if clean and seen is not None:
        if len(seen) >= CLEAN_ENCODINGS:
            seen.clear()
        seen[encoded] = value
    return screened, clean


def screen_output(value: Any, policy: RedactionPolicy) -> Any:
    """Every string of an answer (dict keys included) through the text rules,
    the same screen as the ledger's: what Baton prints never holds more than
    what it stores, even when it echoes an argument it was given.

    A message quoting a value with ``repr`` escapes its quotes
    (``api_key=\\'…\\'``), which hides an assignment from the rules; such
    a string is screened with the escapes undone.

    When every string of ``value`` was screened before under this policy and
    found clean (the common case in a long-lived server answering about the
    same handoffs), ``value`` itself is returned, unchanged and not copied
    (``screen_encoded`` also remembers whole answers)."""
    if _known_clean(value, scrub_memo(policy)):
        return value
    return redact_strings(value, policy, unescape=True).payload


def _known_clean(value: Any, memo: Mapping[str, tuple[str, tuple[Rule, ...]]]) -> bool:
    """Every string in ``value`` (keys included) is in ``memo`` as clean and
    holds no backslash (those are screened with escapes undone), and ``value``
    holds nothing but plain JSON types. One pass, no copy, no path spelled."""
    stack = [value]
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        item = pop()
        kind = type(item)
        if kind is str:
            known = memo.get(item)
            if known is None or known[1] or "\\" in item:
                return False
        elif kind is dict:
            for key, child in item.items():
                if type(key) is not str:
                    return False
                known = memo.get(key)
                if known is None or known[1] or "\\" in key:
                    return False
                push(child)
        elif kind is list:
            extend(item)
        elif item is None or kind is int or kind is float or kind is bool:
            continue
        else:
            return False
    return True


def screen_text(text: str, policy: RedactionPolicy) -> str:
    """A text rendering, screened and made printable."""
    return printable(screen_output(text, policy))
