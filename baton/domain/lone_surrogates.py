"""JSON text with its lone UTF-16 surrogate escapes made U+FFFD, for a parser that refuses them.

Node's ``JSON.stringify`` (Claude Code, Gemini CLI) writes a string cut in the
middle of an emoji as a lone surrogate escape (``"x\\ud83d"``): JSON by RFC
8259's grammar, which Python's ``json`` reads, but orjson refuses it ("not
JSON"), and a lone surrogate is no character UTF-8 can hold (the ledger is
UTF-8). ``replaced`` makes each *lone* one — a ``\\uD800``–``\\uDBFF`` escape
not followed at once by a ``\\uDC00``–``\\uDFFF`` one, or a ``\\uDC00``–``\\uDFFF``
escape not preceded by one — the replacement character escape ``\\ufffd``, as
a decoder does with bytes it cannot read; a pair (a whole emoji), every other
escape and every other byte are left as they are. Escapes are read left to
right, each backslash with the character after it, so ``\\\\ud83d`` (an
escaped backslash, then the letters ``ud83d``) is no escape. One pass, no
backtracking. A caller runs it only on text its parser refused, and parses
again. Pure: only ``re`` (compiled at import: the module is
loaded only for a text its parser refused).
"""

from __future__ import annotations

import re

_ESCAPE = re.compile(rb"\\(?:u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|(u[dD][89a-fA-F][0-9a-fA-F]{2})|.)",
                     re.DOTALL)  # a backslash takes the character after it, whatever it is
"""An escape: a surrogate pair (kept), a lone surrogate (group 1: replaced) or any other (kept)."""

REPLACEMENT = rb"\ufffd"


def replaced(text: bytes) -> bytes:
    """``text`` with each lone surrogate escape ``\\ufffd`` (module docstring)."""
    if b"\\" not in text:
        return text
    return _ESCAPE.sub(_one, text)


def _one(escape: re.Match[bytes]) -> bytes:
    return REPLACEMENT if escape.group(1) is not None else escape.group()
