"""Canonical JSON: the one byte form that hashes and digests are taken over.

Canonical means orjson with sorted keys and no extra whitespace. Every hash in
Baton is ``sha256:<hex>`` of these bytes, so any implementation that can sort
keys can check a ledger.
"""

from __future__ import annotations

import hashlib

import orjson

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any

CANONICAL = orjson.OPT_SORT_KEYS
"""The orjson option that makes the canonical form (for code that calls
orjson itself on a hot path)."""
_CANON = CANONICAL


def canonical_bytes(value: Any) -> bytes:
    return orjson.dumps(value, option=_CANON)


def sha256_tag(raw: bytes) -> str:
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def digest_of(value: Any) -> str:
    return sha256_tag(canonical_bytes(value))


def pretty_bytes(value: Any) -> bytes:
    """Stable, human-readable JSON for materialized files (sorted, indented, newline)."""
    return orjson.dumps(value, option=_CANON | orjson.OPT_INDENT_2) + b"\n"


def loads(raw: bytes | str) -> Any:
    return orjson.loads(raw)
