"""Each feed's signer as ``baton verify``, ``baton audit`` and the status page show it.

From what the last sync recorded (``.baton/sync-signers.json``); ``verify``
checks the recorded signatures again. Loads no dulwich unless it rechecks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

from baton.errors import InputError
from baton.ledger.feed import FeedHead, line_hashes_to
from baton.model import frozen
from baton.sync.signing import (
    BAD_SIGNATURE,
    DEFAULT_ALLOWED_SIGNERS,
    GOOD,
    SIGNATURE_PROBLEMS,
    SIGNERS_TRUST_STEPS,
    UNKNOWN_KEY,
    UNPUBLISHED,
    UNSIGNED,
    WRONG_SIGNER,
    AllowedSigners,
    Programs,
    SignerCheck,
    allowed_signers,
    check_head,
    key_fingerprint,
    read_record,
    require_signatures,
    signers_shown,
    signers_untrusted,
    signing_setup_at,
)

if TYPE_CHECKING:
    from baton.commands.context import Project


UNRECORDED = "unrecorded"
"""A feed's status while ``sync-signers.json`` is damaged: the last sync's verdict is not known here."""
UNRECORDED_MESSAGE = ("no verdict known: the last sync's record of it (.baton/sync-signers.json) is damaged; the "
                      "next `baton sync` checks its signature again")


@frozen
class FeedSigner:
    """One feed's signer as ``verify``, ``audit`` and the status page show it."""

    feed: str
    status: str
    signer: str | None
    key: str | None
    seq: int | None
    """The head the signature covers (the feed may have events after it, not yet published)."""
    message: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"feed": self.feed, "status": self.status, "signer": self.signer, "key": self.key,
                "signed_seq": self.seq, "message": self.message}


def feed_signers(project: "Project", feeds: list[str], *, recheck: bool = False) -> list[FeedSigner]:
    """Each feed's signer, from what the last sync recorded; with ``recheck``
    (``baton verify``) the recorded signature is checked again: that the
    feed holds the signed head's event, and against the allowed-signers file
    as it is now (only then is the copy ``ssh-keygen`` reads written). Empty
    when the project has no signing in play (no record, no allowed-signers
    file, signatures not required).

    Raises:
        StorageError: a signature is rechecked and the copy of the allowed-signers
            lines can be written nowhere (``AllowedSigners.copy``).
    """
    state, damaged = read_record(project)
    try:
        allowed = allowed_signers(project)
        required = require_signatures(project)
    except InputError:  # a malformed sync setting (every command says so): no line binds a key
        allowed, required = AllowedSigners(None, (), project.root / DEFAULT_ALLOWED_SIGNERS), False
    recorded = state.get("feeds") or {}
    if not recorded and not required and not allowed.listed:
        return []
    programs = _programs(project) if recheck else Programs()
    if damaged is not None:  # no verdict is known (not even "unsigned") until the next sync rewrites the record
        return [FeedSigner(feed, UNRECORDED, None, None, None, UNRECORDED_MESSAGE) for feed in sorted(set(feeds))]
    out = []
    for feed in sorted(set(feeds) | set(recorded)):
        entry = recorded.get(feed)
        if not isinstance(entry, dict):
            status = UNPUBLISHED if feed == project.writer else UNSIGNED
            out.append(FeedSigner(feed, status, None, None, None,
                                  "not published yet" if status == UNPUBLISHED else "no signature recorded"))
            continue
        head = FeedHead(seq=int(entry.get("seq") or 0), hash=entry.get("hash"), hlc=int(entry.get("hlc") or 0))
        signature = (entry.get("signature") or "").encode() or None
        if recheck:
            if not _feed_holds(project, feed, head):
                verdict = SignerCheck(BAD_SIGNATURE, (), key_fingerprint(signature) if signature else None,
                                      f"feed {feed} does not hold the signed head (seq {head.seq})")
            else:
                verdict = check_head(allowed, programs, feed, head, signature, shown=signers_shown(project),
                                     untrusted=signers_untrusted(project))
        else:
            verdict = SignerCheck(str(entry.get("status") or UNSIGNED), tuple(entry.get("principals") or ()),
                                  entry.get("key"), entry.get("message") or "")
        out.append(FeedSigner(feed, verdict.status, ",".join(verdict.principals) or None, verdict.key,
                              head.seq, verdict.message))
    return out


def _programs(project: "Project") -> Programs:
    """The programs git's configuration names for this worktree (the defaults outside git)."""
    return signing_setup_at(project.root)[1]


def _feed_holds(project: "Project", feed: str, head: FeedHead) -> bool:
    """The local feed has the event ``head`` names (its seq, with that hash)."""
    marker = f'"seq":{head.seq},'.encode()
    try:
        with open(project.paths.ledger_dir / f"{feed}.jsonl", "rb") as fh:
            for line in fh:
                if marker in line and line_hashes_to(line.rstrip(b"\n"), head.hash):
                    try:
                        if orjson.loads(line).get("seq") == head.seq:
                            return True
                    except orjson.JSONDecodeError:
                        continue
    except OSError:
        return False
    return False


def render_flagged(signers: dict[str, Any]) -> list[str]:
    """``baton sync``'s lines for feeds whose signature is not good."""
    lines = [f"NOTE {note}" for note in signers.get("notes") or []]
    for feed, verdict in (signers.get("flagged") or {}).items():
        lines.append(f"FLAGGED remote feed {feed}: {verdict['status']}: {verdict['message']} (taken: "
                     "sync.require_signatures is not set)")
    for feed, verdict in (signers.get("feeds") or {}).items():
        if verdict["status"] != GOOD and feed not in (signers.get("flagged") or {}):
            own = feed == signers.get("writer") and not (verdict.get("message") or "").endswith(SIGNERS_TRUST_STEPS)
            hint = _own_feed_hint(verdict["status"], signers) if own else ""
            lines.append(f"FLAGGED feed {feed}: {verdict['status']}: {verdict['message']}{hint}")
    return lines


OWN_FEED_HINTS = {
    UNSIGNED: " (this clone's feed: git names no signing key here; to sign it, set user.signingkey and "
              "gpg.format ssh in git's config, and add the key to the allowed-signers file: docs/sync.md, "
              "Signed feeds)",
    UNKNOWN_KEY: " (this clone's feed: add a line for its key, with this writer id among its principals, to the "
                 "allowed-signers file and commit it: docs/sync.md, Signed feeds)",
    WRONG_SIGNER: " (this clone's feed: the allowed-signers line for its key must name this writer id among its "
                  "principals: docs/sync.md, Signed feeds)",
}
"""What ``baton sync`` adds to a FLAGGED line of this clone's own feed: the way to a good signature."""
KEY_DID_NOT_SIGN = " (this clone's feed: the signing key git names did not sign it; see the NOTE above)"
"""The hint for this clone's unsigned feed when git does name a signing key (it failed, or its format is not one Baton signs with)."""


def _own_feed_hint(status: str, signers: dict[str, Any]) -> str:
    """The hint for a FLAGGED line of this clone's own feed; an unsigned one
    with a signing key set was not signed for the reason its NOTE gives."""
    if status == UNSIGNED and signers.get("signing_key") is not None:
        return KEY_DID_NOT_SIGN
    return OWN_FEED_HINTS.get(status, "")


def render_signers(signers: list[FeedSigner], required: bool) -> list[str]:
    """One line per feed: who signed it, or why its signature is not good."""
    lines = []
    for s in signers:
        if s.status == GOOD:
            lines.append(f"  signer of {s.feed}: signed by {s.signer} ({s.key}) through seq {s.seq}")
        else:
            mark = "FAIL" if required and s.status in (*SIGNATURE_PROBLEMS, UNRECORDED) else "note"
            lines.append(f"  {mark} signer of {s.feed}: {s.status}: {s.message}")
    return lines
