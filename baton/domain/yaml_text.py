"""A tiny, deterministic YAML emitter for JSON-like values (``show --format yaml``).

Baton only ever *writes* YAML, and only for data that is already JSON, so a
60-line emitter beats a dependency: keys come out sorted, the same value
always gives the same bytes, and every scalar that could be misread
(``yes``, ``1e3``, ``- x``, ``a: b``, leading spaces, control characters) is
written double-quoted with escapes. Multi-line text becomes a literal block
when that is unambiguous.
"""

from __future__ import annotations

import re
from typing import Any

_PLAIN = re.compile(r"^[A-Za-z_./][A-Za-z0-9_./@+-]*(?:[ ][A-Za-z0-9_./@+()\[\],'-]+)*$")
_RESERVED = {
    "true", "false", "yes", "no", "on", "off", "null", "y", "n", "~",
    ".inf", ".nan", "-.inf", "+.inf",
}
_INDENT = "  "


def to_yaml(value: Any) -> str:
    """``value`` (dicts, lists, str, int, float, bool, None) as a YAML 1.2 document."""
    if isinstance(value, dict) and value or isinstance(value, list) and value:
        return "\n".join(_block(value, 0)) + "\n"
    return _scalar(value) + "\n"


def _block(value: Any, depth: int) -> list[str]:
    pad = _INDENT * depth
    lines: list[str] = []
    if isinstance(value, dict):
        for key in sorted(value):
            lines.extend(_entry(f"{pad}{_string(str(key))}:", value[key], depth))
    else:
        for item in value:
            if isinstance(item, dict) and item:
                inner = _block(item, depth + 1)
                # The first key rides on the dash: "- key: value".
                lines.append(f"{pad}- {inner[0][len(pad) + len(_INDENT):]}")
                lines.extend(inner[1:])
            elif isinstance(item, list) and item:
                lines.append(f"{pad}-")
                lines.extend(_block(item, depth + 1))
            else:
                lines.extend(_entry(f"{pad}-", item, depth))
    return lines


def _entry(head: str, value: Any, depth: int) -> list[str]:
    if isinstance(value, (dict, list)) and value:
        return [head] + _block(value, depth + 1)
    if isinstance(value, str) and _literal_ok(value):
        chomp = "" if value.endswith("\n") else "-"
        body = value[:-1] if value.endswith("\n") else value
        pad = _INDENT * (depth + 1)
        return [f"{head} |{chomp}"] + [f"{pad}{line}" if line else "" for line in body.split("\n")]
    return [f"{head} {_scalar(value)}"]


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        # "1.0e+16", not "1e16": YAML 1.1 readers need the dot and the sign.
        text = repr(value)
        if "e" in text:
            mantissa, exponent = text.split("e")
            text = (mantissa if "." in mantissa else mantissa + ".0") + "e" + exponent
        return text
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    raise TypeError(f"cannot write {type(value).__name__} as YAML")


def _string(text: str) -> str:
    if _PLAIN.fullmatch(text) and text.lower() not in _RESERVED and not _looks_numeric(text):
        return text
    return _quote(text)


_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}


def _quote(text: str) -> str:
    """A YAML double-quoted scalar: the JSON escapes, plus every character YAML
    does not allow raw in a stream (DEL, C1 controls, surrogates, U+FFFE/FFFF)
    and the Unicode line breaks a YAML 1.1 reader would fold."""
    out = ['"']
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif _yaml_printable(ch):
            out.append(ch)
        elif ord(ch) <= 0xFF:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) <= 0xFFFF:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    out.append('"')
    return "".join(out)


def _yaml_printable(ch: str) -> bool:
    code = ord(ch)
    return (0x20 <= code <= 0x7E or 0xA0 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD
            or 0x10000 <= code <= 0x10FFFF) and code not in (0x2028, 0x2029, 0xFEFF)


def _looks_numeric(text: str) -> bool:
    try:
        float(text.replace("_", ""))
        return True
    except ValueError:
        return text.lower().startswith(("0x", "0o", "0b"))


def _literal_ok(text: str) -> bool:
    """A literal block only for clean multi-line text: anything subtle is quoted."""
    if "\n" not in text.rstrip("\n") or text.endswith("\n\n"):
        return False
    if text[0] in " \t\n" or "\r" in text or "\t" in text:
        return False
    if any(line != line.rstrip() for line in text.split("\n")):
        return False
    return all(ch.isprintable() or ch == "\n" for ch in text)
