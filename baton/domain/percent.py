"""Percent-escapes (RFC 3986) of text: ``urllib.parse``'s ``quote`` and
``unquote`` for ``str``, to the character, without importing ``urllib.parse``.

``urllib.parse`` loads ``ipaddress`` with it (~10 M instructions a process,
issue 27): the hook path escapes a baton's key and decodes a stream's name,
nothing more. ``tests/test_percent_escapes.py`` holds both functions to
``urllib.parse``'s for any text, and :func:`escapes` to the pattern it
reads without compiling. Pure.
"""

from __future__ import annotations

_ALWAYS_SAFE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~")
"""RFC 3986's unreserved characters: never escaped."""

_HEX_DIGITS = frozenset("0123456789ABCDEFabcdef")


def quote(text: str, safe: str = "/") -> str:
    """``text`` with every byte of its UTF-8 but an unreserved character or
    one of ``safe`` (its ASCII characters) written ``%XX``. A lone surrogate
    raises ``UnicodeEncodeError``, as ``urllib.parse.quote`` does."""
    if not text:
        return text
    keep = _ALWAYS_SAFE | frozenset(safe.encode("ascii", "ignore"))
    return "".join([chr(byte) if byte in keep else f"%{byte:02X}" for byte in text.encode("utf-8")])


def unquote(text: str) -> str:
    """``text`` with each ``%XX`` (two hex digits) read as a byte: a run of
    ASCII characters is decoded as UTF-8 (a byte that is not: U+FFFD), a
    character outside ASCII is kept as it is, a ``%`` not followed by two hex
    digits too."""
    if "%" not in text:
        return text
    out: list[str] = []
    run = bytearray()  # the bytes of the ASCII run being read
    at, end = 0, len(text)
    while at < end:
        char = text[at]
        if char > "\x7f":
            if run:
                out.append(run.decode("utf-8", "replace"))
                run.clear()
            out.append(char)
        elif char == "%" and at + 2 < end and text[at + 1] in _HEX_DIGITS and text[at + 2] in _HEX_DIGITS:
            run.append(int(text[at + 1:at + 3], 16))
            at += 3
            continue
        else:
            run.append(ord(char))
        at += 1
    if run:
        out.append(run.decode("utf-8", "replace"))
    return "".join(out)


def escapes(text: str) -> list[tuple[int, int]]:
    """The spans ``re.finditer(r"%(?:25)*[0-9A-Fa-f]{2}", text)`` finds: each
    percent escape, encoded once or more (``%3D``, ``%253D``), with string
    tests instead of a compiled pattern (~1 M instructions a process, issue
    27). The pattern's ``(?:25)*`` is greedy: the longest run of ``25`` is
    taken when two hex digits follow it, else its last ``25`` is the digits."""
    spans: list[tuple[int, int]] = []
    at = text.find("%")
    while at >= 0:
        past = at + 1
        while text.startswith("25", past):
            past += 2
        if past + 1 < len(text) and text[past] in _HEX_DIGITS and text[past + 1] in _HEX_DIGITS:
            end = past + 2
        elif past > at + 1:
            end = past
        else:
            at = text.find("%", at + 1)
            continue
        spans.append((at, end))
        at = text.find("%", end)
    return spans
