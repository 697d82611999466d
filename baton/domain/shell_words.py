"""POSIX shell words, as ``shlex`` writes and reads them, without importing ``shlex``.

``quote`` is ``shlex.quote`` and ``split`` is ``shlex.split`` (``comments=False``),
character for character: ``tests/test_shell_words.py`` holds both to ``shlex`` on
generated text. The hook path quotes a session id in every start's session line
and a lock's path in the lock-wait message, and the adapters split the command
``install-hooks`` wires; ``shlex`` (with its ``re`` pattern compiled at import and
its lexer class) costs every hook ~1.1 M instructions (docs/performance.md).
"""

from __future__ import annotations

_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-")
"""What ``shlex.quote`` leaves unquoted: ``[\\w@%+=:,./-]`` with ``\\w`` in ASCII."""
_BLANKS = " \t\r\n"
"""What separates words (``shlex``'s ``whitespace``)."""


def quote(text: str) -> str:
    """``text`` as one shell word: unchanged when every character is safe, else in single quotes."""
    if not text:
        return "''"
    if _SAFE.issuperset(text):
        return text
    return "'" + text.replace("'", "'\"'\"'") + "'"


def split(line: str) -> list[str]:
    """The words of ``line`` as a POSIX shell reads them (quotes and backslashes, no comments).

    Raises:
        ValueError: an unclosed quote ("No closing quotation") or a backslash at the end
            ("No escaped character"), as ``shlex.split`` does.
    """
    words: list[str] = []
    word: str | None = None  # None: no word begun (an empty quoted word is "")
    at, end = 0, len(line)
    while at < end:
        char = line[at]
        at += 1
        if char in _BLANKS:
            if word is not None:
                words.append(word)
                word = None
        elif char == "\\":
            if at == end:
                raise ValueError("No escaped character")
            word = (word or "") + line[at]
            at += 1
        elif char == "'":
            close = line.find("'", at)
            if close < 0:
                raise ValueError("No closing quotation")
            word = (word or "") + line[at:close]
            at = close + 1
        elif char == '"':
            part, at = _double_quoted(line, at)
            word = (word or "") + part
        else:
            word = (word or "") + char
    if word is not None:
        words.append(word)
    return words


def _double_quoted(line: str, at: int) -> tuple[str, int]:
    """The text of the double-quoted part that starts at ``at`` (just after its ``"``), where a
    backslash escapes only ``"`` and ``\\``, and where the line goes on after its closing ``"``."""
    parts: list[str] = []
    end = len(line)
    while True:
        if at == end:
            raise ValueError("No closing quotation")
        char = line[at]
        at += 1
        if char == '"':
            return "".join(parts), at
        if char == "\\":
            if at == end:
                raise ValueError("No escaped character")
            escaped = line[at]
            at += 1
            parts.append(escaped if escaped in '"\\' else "\\" + escaped)
        else:
            parts.append(char)
