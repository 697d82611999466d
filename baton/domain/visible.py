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

_CONTROL = lazy(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{INVISIBLE_FORMAT}]")
_ASCII_CONTROL = lazy("[\x00-\x08\x0b-\x1f\x7f]")
"""``_CONTROL``'s ASCII members: all it can find in an ASCII text. Compiling
``_CONTROL`` (its class spans the astral planes) costs ~0.7 ms, a tenth of
that; an ASCII brief, the usual one, never compiles it."""
_INVISIBLE = lazy(f"[{INVISIBLE_FORMAT}]")


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
    return (_ASCII_CONTROL if text.isascii() else _CONTROL).sub(lambda m: _escape(m.group()), text)


def _json_escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def visible_json(text: str) -> str:
    """JSON text with every invisible format character written as its
    ``\\uXXXX`` escape (a surrogate pair past U+FFFF): the same document to
    any JSON reader, but U+202E and its kind are visible to a person reading
    ``--json`` output. Such characters only ever stand inside JSON strings,
    so the replacement cannot touch the structure."""
    return _INVISIBLE.sub(lambda m: _json_escape(m.group()), text) if _INVISIBLE.search(text) else text
