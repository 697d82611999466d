"""One sync round's signatures: the two hooks ``baton sync`` calls (docs/sync.md "Signed feeds").

``check_remote`` judges a remote feed's head before any of it is taken;
``settle`` gives every feed the ref will hold the best signature of its head,
signing this clone's own, and ``save`` keeps the verdicts for ``verify``.
Keys, signing and checking are ``baton.sync.signing``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs
from dulwich.objects import Blob

from baton.config import write_json_atomic
from baton.domain.policy_trust import REQUIRED_BY_SETTING
from baton.ledger.feed import FeedHead, is_writer_id
from baton.sync.ledger_ref import with_signature
from baton.sync.refusals import RefusedFeed
from baton.sync.signing import (
    BAD_SIGNATURE,
    GOOD,
    MAX_SIGNATURE_BYTES,
    SIGNATURE_PROBLEMS,
    SIGNING_FORMATS,
    STATE_FILE,
    UNKNOWN_KEY,
    UNSIGNED,
    WRONG_SIGNER,
    AllowedSigners,
    Programs,
    SignerCheck,
    SigningFailed,
    SigningKey,
    allowed_signers,
    check_head,
    read_record,
    require_signatures,
    required_by,
    sign_head,
    signers_shown,
    signers_untrusted,
    signing_setup_at,
)

if TYPE_CHECKING:
    from baton.commands.context import Project
    from baton.sync.ledger_ref import RefFeed


@attrs.define
class FeedSignatures:
    """One sync round's signatures: checks every remote head before its feed
    is taken (``check_remote``), then gives every feed the ref will hold the
    best signature of its head, signing this clone's own (``settle``)."""

    project: "Project"
    repo: Any
    writer: str
    key: SigningKey | None
    programs: Programs
    required: bool
    allowed: AllowedSigners
    """The allowed-signers lines; their copy is written only when a signature is checked."""
    allowed_digest: str | None
    state: dict[str, Any]
    checks: dict[str, SignerCheck] = attrs.field(factory=dict)
    """Feed → the verdict on the signature the ref holds for it after this round."""
    flagged: dict[str, SignerCheck] = attrs.field(factory=dict)
    """Feed → the verdict on a remote copy taken although its signature is not good."""
    rejudged: dict[str, SignerCheck] = attrs.field(factory=dict)
    """Feed → the verdict, under the allowed-signers lines in force now, on the head the last sync
    recorded for a feed this round did not settle (refused): kept in the record in place of the
    verdict reached under other lines (``rejudge``)."""
    notes: list[str] = attrs.field(factory=list)
    own_signature: bytes | None = None
    """The blob of the signature this clone's key made (or made before) over its own feed's head."""
    _cache: dict[tuple, SignerCheck] = attrs.field(factory=dict)
    untrusted: str = ""
    """Why the project's allowed-signers lines are not applied here (``signers_untrusted``): a verdict says so."""
    shown: str = "the allowed-signers file"
    """The project's allowed-signers file as messages name it (never the copy ``ssh-keygen`` reads)."""
    required_by: str = REQUIRED_BY_SETTING
    """Where the requirement comes from, as a refusal says it (``signing.required_by``)."""
    damaged: bool = False
    """The record the last sync kept was damaged (``read_record``): it is written afresh even when
    signing is not in play."""

    @classmethod
    def open(cls, project: "Project", repo) -> "FeedSignatures":
        """Raises: InputError (a malformed ``sync`` setting)."""
        allowed = allowed_signers(project)
        key, programs = signing_setup_at(project.root, repo)  # this worktree's config, as git reads it
        untrusted = signers_untrusted(project)
        digest = allowed.digest
        record, damaged = read_record(project)
        signatures = cls(project, repo, project.writer, key, programs, require_signatures(project), allowed,
                         f"{digest}:untrusted" if untrusted and digest is not None else digest, record,
                         untrusted=untrusted, shown=signers_shown(project),
                         required_by=required_by(project) or REQUIRED_BY_SETTING)
        if damaged is not None:
            signatures.damaged = True
            signatures.notes.append(f"{damaged}: read as no record; this sync checks every feed's signature "
                                    "again and writes the record afresh")
        if key is not None and key.format not in SIGNING_FORMATS:
            signatures.notes.append(f"git signs with gpg.format {key.format}; Baton signs feeds with ssh or "
                                    "openpgp keys only: this clone's feed is published unsigned")
        return signatures

    @property
    def in_play(self) -> bool:
        """Signing concerns this project: a signing key, an allowed-signers
        file, or signatures required. Otherwise nothing is checked (no
        program is run) and signatures the ref holds are only carried along."""
        return self.key is not None or self.required or self.allowed_digest is not None

    @property
    def signing(self) -> SigningKey | None:
        """The key this clone signs its feed with (None: git would not sign in a format Baton makes)."""
        return self.key if self.key is not None and self.key.format in SIGNING_FORMATS else None

    def check(self, writer: str, head: FeedHead, blob_id: bytes | None, signature: bytes | None) -> SignerCheck:
        """The verdict on one signature of one head, each asked once per
        allowed-signers file (kept between syncs)."""
        key = (writer, head.seq, head.hash, blob_id)
        if key in self._cache:
            return self._cache[key]
        if blob_id is not None and signature is None:
            verdict = SignerCheck(BAD_SIGNATURE, message=f"the head.sig of feed {writer} is not a readable signature "
                                                         f"(not a blob, missing, or over {MAX_SIGNATURE_BYTES} bytes)")
        else:
            verdict = self._recorded(writer, head, blob_id) or \
                check_head(self.allowed, self.programs, writer, head, signature, shown=self.shown,
                           untrusted=self.untrusted)
        self._cache[key] = verdict
        return verdict

    def _recorded(self, writer: str, head: FeedHead, blob_id: bytes | None) -> SignerCheck | None:
        """The verdict the last sync kept for this very signature of this
        head, if the allowed-signers file has not changed since."""
        known = (self.state.get("feeds") or {}).get(writer)
        if blob_id is None or not isinstance(known, dict) or \
                self.state.get("allowed_signers") != self.allowed_digest:
            return None
        if (known.get("seq"), known.get("hash"), known.get("blob")) != (head.seq, head.hash, blob_id.decode()):
            return None
        if known.get("status") not in SIGNATURE_PROBLEMS + (GOOD,):
            return None
        return SignerCheck(known["status"], tuple(known.get("principals") or ()), known.get("key"),
                           known.get("message") or "")

    def check_remote(self, feed: str, remote: "RefFeed | None",
                     base: "RefFeed | None" = None) -> "RefusedFeed | None":
        """Hook 1, before a remote feed is taken: the verdict on its head's
        signature; a refusal when ``sync.require_signatures`` is set and the
        signature is not good (None: take the feed; a bad one is flagged).
        A remote copy of a head this clone already holds with a good
        signature (``base``, the local ref's copy) brings nothing to take:
        it is flagged, and ``settle`` puts the good signature back."""
        if not self.in_play or remote is None or remote.problem is not None or feed == self.writer \
                or not is_writer_id(feed):
            return None  # a folder sync refuses anyway, or this clone's own feed (signed by ``settle``)
        verdict = self.check(feed, remote.head, remote.signature, self._signature_of(remote.signature))
        if verdict.good:
            return None
        if self.required and not self._holds_good(feed, remote.head, base):
            return RefusedFeed(feed, "remote", verdict.status, remote.head.seq,
                               f"{verdict.message} ({self.required_by})")
        self.flagged[feed] = verdict
        return None

    def _holds_good(self, feed: str, head: FeedHead, base: "RefFeed | None") -> bool:
        for blob in self._candidates(head, base):
            if self.check(feed, head, blob, self._signature_of(blob)).good:
                return True
        return False

    def settle(self, out: dict[str, "RefFeed"], base: dict[str, "RefFeed"], remote: dict[str, "RefFeed"],
               refused: list["RefusedFeed"]) -> list[str]:
        """Hook 2, once every feed of the round is decided and before the
        commit: each feed the ref will hold gets the best signature of its
        head — this clone's own signed with its key (once per head and key),
        another writer's the good one among the copies (the remote's first,
        so two replicas never undo each other) — and the verdicts are kept
        for ``verify``, ``audit`` and the status page.

        Returns the feeds it refused (this clone's own, when it cannot be
        signed): the ref keeps what it held for them."""
        def unsigned(r: "RefusedFeed") -> bool:
            # A refused remote copy of this clone's own feed is replaced by the local
            # copy, which is signed as always; the remote's copy itself never is.
            if r.feed != self.writer or r.side != "remote":
                return True
            copy, theirs = out.get(r.feed), remote.get(r.feed)
            return copy is None or (theirs is not None and copy.tree == theirs.tree)

        skip = {r.feed for r in refused if unsigned(r)}
        held_back: list[str] = []
        for feed in sorted(out):
            if feed in skip:
                continue
            copy = out[feed]
            if feed == self.writer:
                try:
                    blob, verdict = self._own(copy, base.get(feed), remote.get(feed))
                except SigningFailed as exc:
                    if self.required:
                        refused.append(RefusedFeed(feed, "local", "signing_failed", copy.head.seq,
                                                   f"{exc} ({self.required_by}: not published)"))
                        self._keep_published(out, feed, base, remote)
                        held_back.append(feed)
                        continue
                    self.notes.append(f"{exc}: this clone's feed is published unsigned")
                    blob, verdict = self._best(feed, copy, base.get(feed), remote.get(feed))
                if verdict.status == UNSIGNED and self.required:
                    refused.append(RefusedFeed(
                        feed, "local", UNSIGNED, copy.head.seq,
                        f"{self.required_by} and git has no signing key (user.signingkey, with "
                        "gpg.format ssh or openpgp): this clone's feed is not published"))
                    self._keep_published(out, feed, base, remote)
                    held_back.append(feed)
                    continue
                if not verdict.good and self.required:
                    # Signed, but not as the trusted signer lines allow for this writer: every
                    # teammate requiring signatures would refuse it, and `verify` here fails.
                    refused.append(RefusedFeed(feed, "local", verdict.status, copy.head.seq,
                                               self._own_refusal(verdict)))
                    self._keep_published(out, feed, base, remote)
                    held_back.append(feed)
                    continue
            else:
                blob, verdict = self._best(feed, copy, base.get(feed), remote.get(feed))
            if blob != copy.signature:
                out[feed] = with_signature(self.repo, copy, blob)
            if self.in_play:
                self.checks[feed] = verdict
        self.rejudge()
        return held_back

    def rejudge(self) -> None:
        """The verdict, under the allowed-signers lines in force now, on each recorded head of a feed
        this round left unsettled (refused): checked again when those lines are not the ones its
        verdict was reached under (else the recorded verdict, nothing spawned). The record is stamped
        with the lines in force, so a verdict kept from other lines (a removed signer's ``good``)
        would vouch for the feed at every later sync and on every surface that reads it (docs/sync.md,
        "Key rotation")."""
        if not self.in_play:
            return
        for feed, entry in (self.state.get("feeds") or {}).items():
            if feed in self.checks or not isinstance(entry, dict):
                continue
            head = FeedHead(seq=int(entry.get("seq") or 0), hash=entry.get("hash"), hlc=int(entry.get("hlc") or 0))
            blob = (entry.get("blob") or "").encode() or None
            signature = self._signature_of(blob) or (entry.get("signature") or "").encode() or None
            self.rejudged[feed] = self.check(feed, head, blob if signature is not None else None, signature)

    def _own_refusal(self, verdict: SignerCheck) -> str:
        """Why this clone's own feed, signed but not good, is not published, and what to do."""
        key = f"key {verdict.key or 'unknown'}" + (f" (user.signingkey {self.key.key})" if self.key else "")
        if verdict.status == UNKNOWN_KEY:
            what = f"is signed with {key}, which {self.shown} does not list for this clone's writer {self.writer}"
            fix = (f"add a line for that key with {self.writer} among its principals to {self.shown} (`{self.writer} "
                   f"<its public key>`), commit it and trust it here (`baton policy trust`), or set user.signingkey "
                   f"to a key {self.shown} lists for {self.writer}")
        elif verdict.status == WRONG_SIGNER:
            what = (f"is signed with {key}, which {self.shown} allows only for {','.join(verdict.principals)}, "
                    f"not for this clone's writer {self.writer}")
            fix = (f"add {self.writer} to that key's principals in {self.shown}, commit it and trust it here "
                   f"(`baton policy trust`), or set user.signingkey to the key {self.shown} lists for {self.writer}")
        else:
            what = f"has a signature that does not verify ({verdict.message})"
            fix = f"check user.signingkey and the line for {self.writer} in {self.shown}"
        untrusted = f"; {self.untrusted}" if self.untrusted else ""
        return (f"this clone's feed {self.writer} {what}{untrusted}: teammates requiring signatures would refuse "
                f"it, so it is not published ({self.required_by}; the ref keeps what it held). To "
                f"publish it, {fix}, then sync again")

    def _keep_published(self, out: dict[str, "RefFeed"], feed: str, base: dict, remote: dict) -> None:
        kept = remote.get(feed) or base.get(feed)
        if kept is not None and kept.problem is None:
            out[feed] = kept
        else:
            out.pop(feed, None)

    def _candidates(self, head: FeedHead, *copies: "RefFeed | None") -> list[bytes]:
        seen: list[bytes] = []
        for copy in copies:
            if copy is not None and copy.problem is None and copy.signature is not None and \
                    (copy.head.seq, copy.head.hash) == (head.seq, head.hash) and copy.signature not in seen:
                seen.append(copy.signature)
        return seen

    def _own(self, copy: "RefFeed", base: "RefFeed | None",
             remote: "RefFeed | None") -> tuple[bytes | None, SignerCheck]:
        head = copy.head
        known = self.state.get("feeds", {}).get(self.writer) or {}
        key = self.signing
        if key is None:  # signed earlier with a key since unset: a good signature of this head is kept
            return self._best(self.writer, copy, base, remote)
        mine = (known.get("blob") or "").encode() if known.get("signed_with") == key.key and \
            (known.get("seq"), known.get("hash")) == (head.seq, head.hash) else None
        if mine and mine in self.repo.object_store:
            blob = mine
        else:
            signed = Blob.from_string(sign_head(key, self.writer, head))
            self.repo.object_store.add_object(signed)
            blob = signed.id
        self.own_signature = blob
        return blob, self.check(self.writer, head, blob, self._signature_of(blob))

    def _best(self, feed: str, copy: "RefFeed", base: "RefFeed | None",
              remote: "RefFeed | None") -> tuple[bytes | None, SignerCheck]:
        head = copy.head
        candidates = self._candidates(head, remote, copy, base)
        stored = (self.state.get("feeds", {}).get(feed) or {})
        if (stored.get("seq"), stored.get("hash")) == (head.seq, head.hash) and stored.get("blob"):
            blob = stored["blob"].encode()
            if blob not in candidates and blob in self.repo.object_store:
                candidates.append(blob)
        if not self.in_play:
            return (candidates[0] if candidates else None), SignerCheck(UNSIGNED)
        verdicts = [(blob, self.check(feed, head, blob, self._signature_of(blob))) for blob in candidates]
        for blob, verdict in verdicts:
            if verdict.good:
                return blob, verdict
        if verdicts:
            return verdicts[0]
        return None, self.check(feed, head, None, None)

    def _signature_of(self, blob_id: bytes | None) -> bytes | None:
        """The signature text of a ``head.sig`` blob (None: missing, not a
        blob, or larger than any ssh signature, never handed to a program)."""
        if blob_id is None:
            return None
        try:
            obj = self.repo.object_store[blob_id]
        except KeyError:
            return None
        if obj.type_name != b"blob" or len(obj.data) > MAX_SIGNATURE_BYTES:
            return None
        return obj.data

    def save(self, out: dict[str, "RefFeed"]) -> None:
        """Keep the verdicts (and this clone's own signature) for the next sync and for ``verify``;
        when signing is not in play, only a damaged record is written (empty) in place of the damage."""
        if not self.in_play:
            if self.damaged:
                write_json_atomic(self.project.paths.baton_dir / STATE_FILE,
                                  {"allowed_signers": self.allowed_digest, "feeds": {}})
            return
        feeds = dict(self.state.get("feeds") or {})
        for feed, verdict in self.checks.items():
            copy = out.get(feed)
            if copy is None:
                continue
            entry = {"seq": copy.head.seq, "hash": copy.head.hash, "hlc": copy.head.hlc,
                     "blob": copy.signature.decode() if copy.signature else None,
                     "signature": (self._signature_of(copy.signature) or b"").decode("ascii", "replace") or None,
                     "status": verdict.status, "principals": list(verdict.principals), "key": verdict.key,
                     "message": verdict.message}
            if feed == self.writer and self.signing is not None and copy.signature == self.own_signature:
                entry["signed_with"] = self.signing.key
            feeds[feed] = entry
        for feed, verdict in self.rejudged.items():
            if feed not in self.checks:
                feeds[feed] = {**feeds[feed], "status": verdict.status, "principals": list(verdict.principals),
                               "key": verdict.key, "message": verdict.message}
        write_json_atomic(self.project.paths.baton_dir / STATE_FILE,
                          {"allowed_signers": self.allowed_digest, "feeds": dict(sorted(feeds.items()))})

    def to_json(self) -> dict[str, Any]:
        """``signers`` in ``baton sync --json``: every feed's verdict, the
        remote copies taken with a signature that is not good, and whether
        signatures are required."""
        return {"require_signatures": self.required, "writer": self.writer,
                "signing_key": self.signing.key if self.signing is not None else None,
                "feeds": {feed: v.to_json() for feed, v in sorted({**self.rejudged, **self.checks}.items())},
                "flagged": {feed: v.to_json() for feed, v in sorted(self.flagged.items())},
                "notes": list(self.notes)}
