"""An artifact's content hash that is no oracle for a secret in it.

A handoff records a hash of each artifact so that a later session can tell
whether the file changed (§10b). A hash of the raw bytes of a file holding a
short secret (``DB_PASSWORD=Winter2026!`` in ``config/database.yml``) would
let anyone who can read the ledger confirm a guessed password offline: hash
the file with the guess in it and compare. So the content is put through the
same secret screen as everything else Baton stores, and:

- a file in which the screen finds nothing keeps a plain ``sha256:<hex>`` of
  its bytes (what every record before this rule holds);
- a file in which it finds a secret gets ``sha256-redacted:<hex>``: the hash
  of the *screened* content, every secret replaced by its ``[REDACTED:rule]``
  marker. The drift check screens the current content under the project's
  policy before comparing, so an edit of any other line is still drift, and
  a change of the secret's value alone is not (a hash that could tell two
  values of a secret apart is the oracle this module exists to prevent);
- a file over :data:`SCREEN_LIMIT_BYTES` is not screened, so it is not
  hashed: the record says why instead (:func:`too_large_reason`).

Content that is not UTF-8 (a binary file) is screened as text all the same:
each undecodable byte stands for itself (``surrogateescape``), so a token in
an ASCII run of a database file is still found, and a clean binary file
round-trips to its own bytes and keeps a plain hash.

Pure: the bytes are given by the caller (``baton.commands.handoff_facts``
reads them, once, bounded).
"""

from __future__ import annotations

import hashlib

from baton.domain.limits import MAX_INPUT_BYTES
from baton.domain.redaction import RedactionPolicy, redact_payload
from baton.values import Value

PLAIN = "sha256"
"""The prefix of a hash of a file's raw bytes (no secret found in it)."""
SCREENED = "sha256-redacted"
"""The prefix of a hash of a file's content after the secret screen replaced what it found."""

SCREEN_LIMIT_BYTES = MAX_INPUT_BYTES
"""The largest file screened, and so hashed, at capture: the limit on any input
(1 MiB; screening one takes ~0.3-0.4 s on the 2-core development machine)."""


def hash_algorithm(tagged: str) -> str:
    """The prefix of a tagged hash, lowercased (``sha256``, ``sha256-redacted``), or ``""``."""
    head, sep, _ = tagged.strip().partition(":")
    return head.lower() if sep else ""


def is_screened(tagged: str | None) -> bool:
    """A hash of screened content (``sha256-redacted:``): the drift check must screen before comparing."""
    return bool(tagged) and hash_algorithm(tagged or "") == SCREENED


def is_plain(tagged: str | None) -> bool:
    """A hash of raw bytes (``sha256:``), as every record before the screen holds."""
    return bool(tagged) and hash_algorithm(tagged or "") == PLAIN


def plain_hash(data: bytes) -> str:
    return f"{PLAIN}:{hashlib.sha256(data).hexdigest()}"


class ScreenedContent(Value):
    """A file's content through the secret screen."""

    holds_secret: bool
    """The screen replaced something (a redact or a block rule fired)."""
    digest: str
    """``sha256-redacted:`` of the screened content (its hex equals the plain
    hash's when nothing was found)."""
    rules: tuple[str, ...] = ()
    """The names of the rules that fired (never the values)."""

    @property
    def content_hash(self) -> str:
        """What a capture records: the screened digest when a secret was found, else the plain hash."""
        if self.holds_secret:
            return self.digest
        return f"{PLAIN}:{self.digest.partition(':')[2]}"


def screen_content(data: bytes, policy: RedactionPolicy) -> ScreenedContent:
    """Screen ``data`` (at most :data:`SCREEN_LIMIT_BYTES`, the caller's bound)
    as text under ``policy`` and hash the result."""
    text = data.decode("utf-8", "surrogateescape")
    outcome = redact_payload(text, policy)
    fired = tuple(dict.fromkeys(r.rule for r in (*outcome.redactions, *outcome.blocked)))
    screened: str = outcome.payload
    body = data if not fired else screened.encode("utf-8", "surrogateescape")
    return ScreenedContent(bool(fired), f"{SCREENED}:{hashlib.sha256(body).hexdigest()}", fired)


TREE = "sha256-tree"
"""The prefix of a folder's hash: a digest over its files' paths (relative to
the folder) and each file's own content hash (plain or screened, as a file
artifact's), so a file changed, added, removed or renamed changes it."""

FOLDER_MAX_ENTRIES = 1000
"""The most files, links and empty folders a folder artifact is hashed with."""


def is_tree(tagged: str | None) -> bool:
    """A folder's hash (``sha256-tree:``): the drift check hashes the folder again to compare."""
    return bool(tagged) and hash_algorithm(tagged or "") == TREE


def tree_hash(entries: list[tuple[str, str]]) -> str:
    """A folder's hash from its ``(relative path, entry hash)`` pairs, in any order: one line per
    entry, sorted, hashed. An entry hash is a file's content hash, ``link:`` and the screened hash
    of a symlink's target text, or ``folder`` for an empty folder."""
    lines = sorted(f"{path}\0{digest}\n" for path, digest in entries)
    return f"{TREE}:{hashlib.sha256(''.join(lines).encode('utf-8', 'surrogateescape')).hexdigest()}"


def folder_too_large_reason(what: str) -> str:
    """Why a folder records no hash: it is over the bounds a folder is hashed within."""
    return (f"not hashed: the folder holds {what}, over the {FOLDER_MAX_ENTRIES} entries and "
            f"{SCREEN_LIMIT_BYTES} bytes a folder is hashed within (its files go through the secret screen); "
            "its changes cannot be checked: name the files in it you changed instead")


def too_large_reason(size: int) -> str:
    """Why a file records no hash: it is over the screen's limit."""
    return (f"not hashed: {size} bytes is over the {SCREEN_LIMIT_BYTES}-byte limit of the secret screen, "
            "and an unscreened hash could confirm a guess of a secret in the file")


def matches(recorded: str, current: str) -> bool:
    """Two tagged hashes of the same form are equal (case and spaces aside)."""
    return recorded.strip().lower() == current.strip().lower()


def withhold_current(recorded: str, current: str, data: bytes | None, policy: RedactionPolicy) -> bool:
    """Whether a file's current plain hash, ``current``, is kept out of reports
    when compared with a plain ``recorded`` one: it changed, and the file now
    holds a secret, or is too large to be screened (``data`` None) — such a hash
    could confirm a guess of what is in it. An unchanged hash is the recorded one."""
    if matches(recorded, current):
        return False
    return data is None or screen_content(data, policy).holds_secret
