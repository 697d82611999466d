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
_pool = b""
"""Random bytes from ``os.urandom`` not handed out yet: one system call for
64 ids (a call per id was a few percent of a durable append). Emptied in a
forked child, so parent and child never hand out the same bytes."""


def _forget_pool() -> None:
    global _pool
    _pool = b""


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def _entropy() -> int:
    """80 random bits (for ``rand_a``'s seed and ``rand_b``); call with ``_lock`` held."""
    global _pool
    if len(_pool) < 10:
        _pool = os.urandom(10 * _POOL_IDS)
    chunk, _pool = _pool[:10], _pool[10:]
    return int.from_bytes(chunk, "big")


def uuid7(now_ns: int | None = None) -> str:
    global _last_ms, _counter
    ms = (time.time_ns() if now_ns is None else now_ns) // 1_000_000
    with _lock:
        entropy = _entropy()
        if ms <= _last_ms:
            ms = _last_ms
            _counter += 1
            if _counter > 0xFFF:
                ms += 1
                _counter = 0
        else:
            _counter = (entropy >> 64) & 0x7FF
        _last_ms = ms
        counter = _counter
    rand_b = entropy & ((1 << 62) - 1)
    value = (ms & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76
    value |= counter << 64
    value |= 0b10 << 62
    value |= rand_b
    h = f"{value:032x}"  # what str(uuid.UUID(int=value)) gives, without building the object
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def is_uuid7(text: str) -> bool:
    try:
        parsed = uuid.UUID(text)
    except (ValueError, AttributeError, TypeError):
        return False
    return parsed.version == 7 and parsed.variant == uuid.RFC_4122 and str(parsed) == text


def uuid7_millis(text: str) -> int:
    return uuid.UUID(text).int >> 80
