"""UUIDv7 ids: time-ordered, so ids sort roughly by creation and make good
file-name suffixes, and random enough that two writers never collide.

Python 3.11 has no ``uuid.uuid7``; this follows RFC 9562 §5.7 with a
monotonic counter in ``rand_a`` (RFC 9562 §6.2, method 1) so ids minted in the same
millisecond by one process still sort in minting order.
"""

from __future__ import annotations

import _thread  # threading's C module: its lock, without ``threading`` on the hook path
import os
import time
import uuid

_lock = _thread.allocate_lock()
_last_ms = -1
_counter = 0
_POOL_IDS = 64
_ID_HEX = 20
"""Random hex digits an id takes (10 bytes, an 80-bit draw): bits 64-74
seed a new millisecond's counter, the low 62 bits are ``rand_b``."""
_pool = ""
"""Random bytes from ``os.urandom``, in hex, drawn for 64 ids at a time (one
system call, not one per id); ``_at`` is the next digit not handed out.
Emptied in a forked child, so parent and child never hand out the same ones."""
_at = 0
_VARIANT = "89ab"


def _forget_pool() -> None:
    global _pool, _at, _tails, _seeds
    _pool, _at, _tails, _seeds = "", 0, [], []


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def _draw() -> None:
    """Draw the random digits of the next ``_POOL_IDS`` ids, each id's tail
    (variant and ``rand_b``) written out once here rather than on every id."""
    global _pool, _at, _tails, _seeds
    _pool, _at = os.urandom(10 * _POOL_IDS).hex(), 0
    starts = range(0, len(_pool) - _ID_HEX + 1, _ID_HEX)
    _tails = [f"-{_VARIANT[int(_pool[i + 4], 16) & 3]}{_pool[i + 5:i + 8]}-{_pool[i + 8:i + _ID_HEX]}"
              for i in starts]
    _seeds = [int(_pool[i:i + 4], 16) & 0x7FF for i in starts]


_tails: list[str] = []
"""Each id's tail in ``_pool``, in order: the one at ``_pool[_at:]`` is ``_tails[_at // _ID_HEX]``."""
_seeds: list[int] = []
"""The counter a new millisecond starts from, per id in ``_pool`` (its first 11 random bits)."""
_stamp: tuple[int, str] = (-1, "")
"""The last millisecond an id carried, and its first 15 characters (the time and the version)."""


def uuid7(now_ns: int | None = None) -> str:
    global _last_ms, _counter, _at, _stamp
    ms = (time.time_ns() if now_ns is None else now_ns) // 1_000_000
    with _lock:
        at = _at
        if len(_pool) - at < _ID_HEX:
            _draw()
            at = 0
        _at = at + _ID_HEX
        if ms <= _last_ms:
            ms = _last_ms
            _counter += 1
            if _counter > 0xFFF:
                ms += 1
                _counter = 0
        else:
            _counter = _seeds[at // _ID_HEX]
        _last_ms = ms
        counter = _counter
        tail = _tails[at // _ID_HEX]
    # The 36 characters of str(uuid.UUID(int=...)) of the RFC 9562 layout,
    # written out directly: 48 bits of milliseconds, version 7, the 12-bit
    # counter, the variant and 62 random bits (the tail, made when drawn).
    stamp_ms, stamp = _stamp
    if stamp_ms != ms:
        t = (ms & 0xFFFFFFFFFFFF).to_bytes(6, "big").hex()
        stamp = t[:8] + "-" + t[8:] + "-7"
        _stamp = (ms, stamp)
    # The counter in three hex digits, formatted (0.16 µs): a table of all 4,096
    # was 0.02 µs an id but 0.8 ms to build in every process, a hook's few ids included.
    return stamp + f"{counter:03x}" + tail


def is_uuid7(text: str) -> bool:
    try:
        parsed = uuid.UUID(text)
    except (ValueError, AttributeError, TypeError):
        return False
    return parsed.version == 7 and parsed.variant == uuid.RFC_4122 and str(parsed) == text


def uuid7_millis(text: str) -> int:
    return uuid.UUID(text).int >> 80
