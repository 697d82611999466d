"""Reading a file the command line names, or stdin (``-``), never more than
the input limit into memory: ``--input``, ``--handoff-input``, ``--event``,
``--resolution-file``, ``--replace-*``. Kept apart from ``baton.cli_input``
(the content flags and the capture payload), so a handler that reads one
file loads nothing more.
"""

from __future__ import annotations

import codecs
import os
import stat
import sys
from typing import Any

import orjson

from baton.domain.limits import MAX_INPUT_BYTES, check_input_size
from baton.errors import InputError


def read_bounded(source: str, flag: str, *, stdin: Any = None) -> bytes:
    """The bytes of ``source`` (a path, or ``-`` for stdin), never more than
    the input limit (``baton.domain.limits``) read into memory.

    A UTF-8 byte order mark at the start is dropped.

    Raises:
        InputError (exit 2): unreadable, over the limit, or not UTF-8 text.
    """
    where = "stdin" if source == "-" else source
    whole: int | None = None
    try:
        if source == "-":
            stream = stdin if stdin is not None else sys.stdin
            if stream is None:  # started with standard input closed (``<&-``)
                raise InputError(f"cannot read {flag} stdin: standard input is closed; pipe the input in, "
                                 "or name a file")
            raw = stream.buffer.read(MAX_INPUT_BYTES + 1) if hasattr(stream, "buffer") \
                else stream.read(MAX_INPUT_BYTES + 1)
        else:
            with open(source, "rb") as fh:
                raw = fh.read(MAX_INPUT_BYTES + 1)
                if len(raw) > MAX_INPUT_BYTES and stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                    whole = os.fstat(fh.fileno()).st_size
    except OSError as exc:
        raise InputError(f"cannot read {flag} {where}: {exc.strerror or exc}") from exc
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "surrogateescape")
    if len(raw) > MAX_INPUT_BYTES:
        # Read one byte past the limit, never further: the size is a regular
        # file's own, else only known to be over the limit (a pipe, stdin).
        check_input_size(f"{flag} {where}", whole if whole is not None and whole > MAX_INPUT_BYTES else None,
                         hint="link to repository artifacts instead of pasting them")
    raw = raw.removeprefix(codecs.BOM_UTF8)  # an editor's byte order mark: JSON (RFC 8259) lets a reader ignore it
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:  # a binary file, another encoding: say so, not the JSON parser's riddle
        raise InputError(f"cannot read {flag} {where}: it is not UTF-8 text (byte {exc.start} is not valid UTF-8)",
                         details={"offset": exc.start}) from None
    return raw


def read_json_bounded(source: str, flag: str, *, stdin: Any = None, raw: bytes | None = None) -> Any:
    """The JSON value in ``source`` (as ``read_bounded`` reads it; ``raw``: its
    bytes already read and prepared).

    Raises:
        InputError (exit 2): unreadable, empty, or not JSON — naming ``flag`` and where it read.
    """
    where = "stdin" if source == "-" else source
    if raw is None:
        raw = read_bounded(source, flag, stdin=stdin)
    if not raw.strip():  # a pipe that gave nothing, an empty file: not the parser's "zero-length document"
        raise InputError(f"{flag} {where} is empty: it must hold JSON", details={"input": where})
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        said = str(exc)
    if b"\\u" in raw:  # a lone surrogate escape (half an emoji, as Node writes it) is JSON: made U+FFFD
        try:
            return orjson.loads(__import__("baton.domain.lone_surrogates", fromlist=["_"]).replaced(raw))
        except orjson.JSONDecodeError:
            pass
    raise InputError(f"{flag} {where} is not valid JSON: {said}", details={"input": where})
