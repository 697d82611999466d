"""UUIDv7 ids: time-ordered, so ids sort roughly by creation and make good
file-name suffixes, and random enough that two writers never collide.

Python 3.11 has no ``uuid.uuid7``; this follows RFC 9562 §5.7 with a
monotonic counter in ``rand_a`` (RFC 9562 §6.2, method 1) so ids minted in the same
millisecond by one process still sort in minting order.
"""

from __future__ import annotations

import os
import threading
import time
import uuid

_lock = threading.Lock()
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
    global _pool, _at
    _pool, _at = "", 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def uuid7(now_ns: int | None = None) -> str:
    global _last_ms, _counter, _pool, _at
    ms = (time.time_ns() if now_ns is None else now_ns) // 1_000_000
    with _lock:
        at = _at
        if len(_pool) - at < _ID_HEX:
            _pool, at = os.urandom(10 * _POOL_IDS).hex(), 0
        _at = at + _ID_HEX
        rand = _pool[at:at + _ID_HEX]
        if ms <= _last_ms:
            ms = _last_ms
            _counter += 1
            if _counter > 0xFFF:
                ms += 1
                _counter = 0
        else:
            _counter = int(rand[:4], 16) & 0x7FF
        _last_ms = ms
        counter = _counter
    # The 36 characters of str(uuid.UUID(int=...)) of the RFC 9562 layout,
    # written out directly: 48 bits of milliseconds, version 7, the 12-bit
    # counter, the variant and 62 random bits.
    t = f"{ms & 0xFFFFFFFFFFFF:012x}"
    return f"{t[:8]}-{t[8:]}-7{counter:03x}-{_VARIANT[int(rand[4], 16) & 3]}{rand[5:8]}-{rand[8:]}"


def is_uuid7(text: str) -> bool:
    try:
        parsed = uuid.UUID(text)
    except (ValueError, AttributeError, TypeError):
        return False
    return parsed.version == 7 and parsed.variant == uuid.RFC_4122 and str(parsed) == text


def uuid7_millis(text: str) -> int:
    return uuid.UUID(text).int >> 80
