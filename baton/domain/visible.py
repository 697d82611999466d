"""Text made visible before it reaches a terminal or a JSON reader: control
characters and invisible format characters (bidirectional controls,
zero-width spaces, tags) written as escapes. Pure and light (only ``re``,
through ``baton.domain.regexes``): a command prints with it without loading
the redaction rules.
"""

from __future__ import annotations

from baton.domain.regexes import lazy

INVISIBLE_FORMAT = ("\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b\u200e\u200f"
                    "\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
                    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
                    "\U000e0020-\U000e007f")
"""A regex class of the invisible format characters (Unicode's ``Cf``, as
of Unicode 15, and the line and paragraph separators): bidirectional
controls (U+202E shows the text after it reversed, "Trojan Source"),
zero-width spaces, the byte order mark, and the tag characters that can
smuggle ASCII past a reader. The two joiners (U+200C, U+200D) are left: they
shape Persian, Indic and emoji text and reorder nothing."""

_CONTROL_CLASS = f"\x00-\x08\x0b-\x1f\x7f-\x9f{INVISIBLE_FORMAT}"
_CONTROL = lazy(f"[{_CONTROL_CLASS}]")
_ASCII_CONTROL = lazy("[\x00-\x08\x0b-\x1f\x7f]")
"""``_CONTROL``'s ASCII members: all it can find in an ASCII text."""
_JSON_RAW_CONTROL = "\x7f-\x9f"
"""The control characters a JSON text may hold raw inside a string (DEL and the
C1 codes: JSON requires only U+0000–U+001F escaped, and orjson escapes no more)."""
_JSON_ESCAPED_CLASS = f"{_JSON_RAW_CONTROL}{INVISIBLE_FORMAT}"
_INVISIBLE = lazy(f"[{_JSON_ESCAPED_CLASS}]")


def _members(char_class: str) -> frozenset[str]:
    """The characters of a regex class body written as characters and
    ``a-b`` ranges (no escapes, no literal ``-``), as the classes above are."""
    found: set[str] = set()
    at = 0
    while at < len(char_class):
        if at + 2 < len(char_class) and char_class[at + 1] == "-":
            found.update(map(chr, range(ord(char_class[at]), ord(char_class[at + 2]) + 1)))
            at += 3
        else:
            found.add(char_class[at])
            at += 1
    return frozenset(found)


_ESCAPED = _members(_CONTROL_CLASS)
_INVISIBLE_CHARS = _members(_JSON_ESCAPED_CLASS)
"""The characters ``_CONTROL`` and ``_INVISIBLE`` match, as sets: a text with
none of them (most of what Baton prints) is shown as it is without compiling
either pattern. Their classes span the astral planes: compiling ``_CONTROL``
costs ~0.5 ms a process, and Baton's own brief (its dashes, its ⚠️) is not
ASCII; building the sets costs a twentieth of that."""


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(text: str) -> str:
    """``text`` safe for a terminal or a log line: every control character
    but newline and tab (ESC, NUL, carriage return, C1 codes) and every
    invisible format character (bidirectional controls, zero-width spaces,
    tags: ``INVISIBLE_FORMAT``) is shown as an escape such as ``\\x1b`` or
    ``\\u202e``, so a value in a handoff cannot recolour the terminal, move
    its cursor, hide a line or show itself as other text."""
    if _ESCAPED.isdisjoint(text):
        return text
    return (_ASCII_CONTROL if text.isascii() else _CONTROL).sub(lambda m: _escape(m.group()), text)


def _json_escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def visible_json(text: str) -> str:
    """JSON text with every invisible format character, DEL and C1 control
    code written as its ``\\uXXXX`` escape (a surrogate pair past U+FFFF):
    the same document to any JSON reader, but U+202E and its kind are visible
    to a person reading ``--json`` output, and no raw C1 code (U+009B starts
    a terminal's control sequence as ESC [ does) reaches a terminal. Such
    characters only ever stand inside JSON strings, so the replacement cannot
    touch the structure; ``printable``'s ``\\x7f`` would not be JSON."""
    if _INVISIBLE_CHARS.isdisjoint(text):
        return text
    return _INVISIBLE.sub(lambda m: _json_escape(m.group()), text)
