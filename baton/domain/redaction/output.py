"""What leaves Baton: every answer screened by the same rules as the ledger
(``screen_output``, ``screen_encoded``, ``screen_text``). A command's output
kept as a digest and a bounded summary is ``baton.domain.redaction.summary``.
"""

from __future__ import annotations

import orjson

from baton.domain.redaction.policy import RedactionPolicy
from baton.domain.redaction.rules import Rule
from baton.domain.redaction.walk import per_policy, redact_strings, scrub_memo
from baton.domain.visible import printable

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the output screen never needs it)
if TYPE_CHECKING:
    from typing import Any, Mapping

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
        seen[encoded] = screened  # what this call gives back: a later call gives back the same object
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
