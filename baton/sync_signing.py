"""Signed feeds: each published feed head signed with its writer's git signing key (docs/sync.md).

What is signed: the feed's **head** — its writer id, the seq and chain hash
of its last event and that event's hlc — as this text (``signed_message``)::

    baton feed head
    writer <writer id>
    seq <seq>
    hash <sha256:…>
    hlc <microseconds>

The chain hash covers every envelope field of the last event, ``prev``
included, so it commits to every event of the feed before it: one signature
vouches for the whole feed up to that seq. It does not cover the bytes'
length, so a ``baton forget`` that erases payloads (keeping each line's
``hash``) leaves the signature valid, and any replica may republish the
erased feed under its writer's signature.

How: as git signs a commit with ``gpg.format = ssh`` — ``ssh-keygen -Y sign
-n baton-feed -f <user.signingkey>`` (``-U`` and a temporary key file when
the key is given literally, ``key::ssh-…``), the armored signature stored as
``feeds/<writer>/head.sig`` beside ``head.json`` on the ledger ref — and
checked as git checks one: ``ssh-keygen -Y find-principals`` and ``-Y verify
-I <writer id>`` against the project's allowed-signers file (git's
``gpg.ssh.allowedSignersFile`` format, ``.baton/allowed_signers`` by
default), with ``-Overify-time`` at the head's hlc so that a key retired
with ``valid-before`` still vouches for the heads it signed while valid. The
namespace ``baton-feed`` keeps a feed signature from passing for a commit's,
and the other way round. With ``gpg.format = openpgp`` the head is signed
and checked as git does it with GnuPG (``gpg -bsau``, ``gpg --verify``), the
key bound to writers by an ``openpgp <fingerprint>`` line in the same file.
Git's configuration is read with dulwich; the programs spawned are the ones
git spawns to sign (``gpg.ssh.program``, ``gpg.program``).

A writer is bound to a key by a line of the allowed-signers file whose
principals match the writer id (``alice@example.com,alicebox-alice-1a2b3c
ssh-ed25519 AAAA…``); the signer shown is every principal of the key.

Results are kept in ``.baton/sync-signers.json`` (per feed: the head, the
signature, the verdict, and the allowed-signers file it was checked
against), so a sync with nothing new spawns nothing, and ``baton verify``
checks them again against the feeds and the current allowed signers.
"""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import tempfile
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from baton.config import WRITER_ID, read_json, write_json_atomic
from baton.errors import InputError
from baton.model import frozen
from baton.ledger.feed import FeedHead

if TYPE_CHECKING:
    from baton.commands.context import Project
    from baton.commands.sync import RefusedFeed
    from baton.ledger_ref import RefFeed

NAMESPACE = "baton-feed"
STATE_FILE = "sync-signers.json"
DEFAULT_ALLOWED_SIGNERS = ".baton/allowed_signers"
MAX_SIGNATURE_BYTES = 16 * 1024
"""An armored ssh signature is under 2 KiB even with an 8192-bit RSA key."""
PROGRAM_TIMEOUT = 120
"""Seconds one ``ssh-keygen`` may take (an agent may ask to confirm a use of the key)."""

GOOD = "good"
UNSIGNED = "unsigned"
UNKNOWN_KEY = "unknown_key"
"""Signed with a key the allowed-signers file does not list (or there is no such file)."""
WRONG_SIGNER = "wrong_signer"
"""Signed with a listed key whose principals do not include this writer."""
BAD_SIGNATURE = "bad_signature"
"""A signature by a key allowed for this writer that does not verify over this head (damaged, or moved
from another head), or an OpenPGP key since revoked."""
UNPUBLISHED = "unpublished"
"""This clone's own feed before its first publish."""
SIGNATURE_PROBLEMS = (UNSIGNED, UNKNOWN_KEY, WRONG_SIGNER, BAD_SIGNATURE)


def signed_message(writer: str, head: FeedHead) -> bytes:
    """The bytes a feed head's signature is made over."""
    return (f"baton feed head\nwriter {writer}\nseq {head.seq}\nhash {head.hash}\nhlc {head.hlc}\n").encode()


def require_signatures(project: "Project") -> bool:
    """``sync.require_signatures`` in ``.baton/config.json``.

    Raises:
        InputError: the setting is not true or false.
    """
    value = project.config.section("sync").get("require_signatures", False)
    if not isinstance(value, bool):
        raise InputError(f"sync.require_signatures in .baton/config.json must be true or false, not {value!r}")
    return value


def allowed_signers_path(project: "Project") -> Path:
    """The allowed-signers file: ``sync.allowed_signers`` (relative to the
    project root, inside it), else ``.baton/allowed_signers``.

    Raises:
        InputError: the setting is not a relative path inside the project.
    """
    raw = project.config.section("sync").get("allowed_signers", DEFAULT_ALLOWED_SIGNERS)
    if not isinstance(raw, str) or not raw or os.path.isabs(raw) or ".." in Path(raw).parts:
        raise InputError("sync.allowed_signers in .baton/config.json must be a path relative to the project "
                         f"root, inside it, not {raw!r}")
    return project.root / raw


# -- the signing key, read from git's configuration --------------------------------------

SIGNING_FORMATS = ("ssh", "openpgp")


@frozen
class Programs:
    """The programs git would sign and check signatures with, per format."""

    ssh: str = "ssh-keygen"
    """``gpg.ssh.program``."""
    openpgp: str = "gpg"
    """``gpg.openpgp.program``, else ``gpg.program``."""


@frozen
class SigningKey:
    """What git would sign a commit with: ``user.signingkey`` under ``gpg.format``."""

    format: str
    key: str
    program: str

    @property
    def literal(self) -> bool:
        """The key is given as its public key text (git then signs through the agent)."""
        return self.key.startswith(("key::", "ssh-"))


def signing_setup(repo) -> tuple[SigningKey | None, Programs]:
    """The repository's signing key (None: no ``user.signingkey``) and
    programs, as git reads them (its config stack: the repository's, the
    user's, the system's). ``gpg.format`` defaults to ``openpgp``, as in git."""
    config = repo.get_config_stack()

    def get(section: tuple[bytes, ...], name: bytes) -> str | None:
        try:
            value = config.get(section, name)
        except KeyError:
            return None
        return value.decode("utf-8", "replace").strip() if value else None

    programs = Programs(ssh=get((b"gpg", b"ssh"), b"program") or "ssh-keygen",
                        openpgp=get((b"gpg", b"openpgp"), b"program") or get((b"gpg",), b"program") or "gpg")
    key = get((b"user",), b"signingkey")
    fmt = (get((b"gpg",), b"format") or "openpgp").lower()
    if not key:
        return None, programs
    program = programs.ssh if fmt == "ssh" else programs.openpgp if fmt == "openpgp" else fmt
    return SigningKey(format=fmt, key=key, program=program), programs


class SigningFailed(Exception):
    """``ssh-keygen`` or ``gpg`` could not sign (a missing key, a wrong passphrase, no agent)."""


def sign_head(key: SigningKey, writer: str, head: FeedHead) -> bytes:
    """The armored ssh (or OpenPGP) signature of ``head``, made as git makes a commit's.

    Raises:
        SigningFailed: the program failed or could not be run.
    """
    message = signed_message(writer, head)
    if key.format == "openpgp":
        return _sign_openpgp(key, message)
    with tempfile.TemporaryDirectory(prefix="baton-sign-") as tmp:
        args = [key.program, "-Y", "sign", "-n", NAMESPACE]
        if key.literal:  # as git: the public key in a file, the private one in the agent
            path = Path(tmp) / "signing-key.pub"
            path.write_text(key.key.removeprefix("key::") + "\n")
            args += ["-f", str(path), "-U"]
        else:
            args += ["-f", os.path.expanduser(key.key)]
        done = _run(args, message)
    if done is None:
        raise SigningFailed(f"cannot run {key.program!r} (gpg.ssh.program) to sign the feed")
    if done.returncode != 0 or b"-----BEGIN SSH SIGNATURE-----" not in done.stdout:
        raise SigningFailed(f"{key.program} could not sign with user.signingkey {key.key!r}: "
                            f"{_clean(done.stderr) or 'exit ' + str(done.returncode)}")
    return done.stdout


def _sign_openpgp(key: SigningKey, message: bytes) -> bytes:
    """``gpg --status-fd=2 -bsau <key>``, as git signs a commit with ``gpg.format openpgp``."""
    done = _run([key.program, "--status-fd=2", "-bsau", key.key], message)
    if done is None:
        raise SigningFailed(f"cannot run {key.program!r} (gpg.program) to sign the feed")
    if done.returncode != 0 or b"[GNUPG:] SIG_CREATED " not in done.stderr \
            or b"-----BEGIN PGP SIGNATURE-----" not in done.stdout:
        told = b"\n".join(line for line in done.stderr.splitlines() if not line.startswith(b"[GNUPG:]"))
        raise SigningFailed(f"{key.program} could not sign with user.signingkey {key.key!r}: "
                            f"{_clean(told) or 'exit ' + str(done.returncode)}")
    return done.stdout


def _run(args: list[str], stdin: bytes) -> subprocess.CompletedProcess | None:
    try:
        return subprocess.run(args, input=stdin, capture_output=True, timeout=PROGRAM_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None


def _clean(text: bytes) -> str:
    lines = (line.strip() for line in text.decode("utf-8", "replace").splitlines())
    return "; ".join(line for line in lines if line and line.isprintable())[:500]


# -- checking a head -----------------------------------------------------------------------

@frozen
class SignerCheck:
    """The verdict on one feed head's signature."""

    status: str
    principals: tuple[str, ...] = ()
    """Every principal the allowed-signers file gives the signing key: who signed."""
    key: str | None = None
    """The signing key's fingerprint (``SHA256:…``), read from the signature."""
    message: str = ""

    @property
    def good(self) -> bool:
        return self.status == GOOD

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "signer": ",".join(self.principals) or None, "key": self.key,
                "message": self.message}


def key_fingerprint(signature: bytes) -> str | None:
    """``SHA256:…`` of the public key an armored ssh signature carries (None: not one)."""
    try:
        text = signature.decode("ascii")
        body = text.split("-----BEGIN SSH SIGNATURE-----", 1)[1].split("-----END SSH SIGNATURE-----", 1)[0]
        raw = base64.b64decode("".join(body.split()), validate=True)
        if raw[:6] != b"SSHSIG":
            return None
        size = int.from_bytes(raw[10:14], "big")
        public = raw[14:14 + size]
        if len(public) != size or not size:
            return None
    except (UnicodeDecodeError, IndexError, ValueError):
        return None
    return "SHA256:" + base64.b64encode(hashlib.sha256(public).digest()).decode().rstrip("=")


def verify_time(head: FeedHead) -> str:
    """``-Overify-time``: when the head was written (its hlc, microseconds),
    in local time without a zone as git passes it (older ``ssh-keygen``
    reads no ``Z`` suffix)."""
    return datetime.fromtimestamp(head.hlc / 1_000_000).strftime("%Y%m%d%H%M%S")


def check_head(allowed: Path, programs: Programs, writer: str, head: FeedHead,
               signature: bytes | None) -> SignerCheck:
    """Check ``signature`` over ``writer``'s ``head`` against the allowed-signers file ``allowed``."""
    if not signature:
        return SignerCheck(UNSIGNED, message=f"feed {writer} has no signature at seq {head.seq}")
    if signature.lstrip().startswith(b"-----BEGIN PGP SIGNATURE-----"):
        return _check_openpgp(allowed, programs.openpgp, writer, head, signature)
    program = programs.ssh
    fingerprint = key_fingerprint(signature)
    if fingerprint is None:
        return SignerCheck(BAD_SIGNATURE, message=f"the signature of feed {writer} is not an ssh signature")
    if not allowed.is_file():
        return SignerCheck(UNKNOWN_KEY, key=fingerprint,
                           message=f"no allowed-signers file at {allowed}: key {fingerprint} is bound to no writer")
    when = f"-Overify-time={verify_time(head)}"
    with tempfile.TemporaryDirectory(prefix="baton-verify-") as tmp:
        sig = Path(tmp) / "head.sig"
        sig.write_bytes(signature)
        found = _run([program, "-Y", "find-principals", "-f", str(allowed), "-s", str(sig), when], b"")
        if found is None:
            return SignerCheck(BAD_SIGNATURE, key=fingerprint, message=f"cannot run {program!r} to verify")
        principals = tuple(p for p in found.stdout.decode("utf-8", "replace").splitlines() if p.strip()) \
            if found.returncode == 0 else ()
        done = _run([program, "-Y", "verify", "-n", NAMESPACE, "-f", str(allowed), "-I", writer, "-s", str(sig),
                     when], signed_message(writer, head))
    if done is not None and done.returncode == 0:
        return SignerCheck(GOOD, principals, fingerprint, f"signed by {','.join(principals) or writer}")
    if not principals:
        return SignerCheck(UNKNOWN_KEY, (), fingerprint,
                           f"feed {writer} is signed with key {fingerprint}, which {allowed.name} does not list "
                           "(or not at the time the head was written)")
    if not any(_matches(writer, p) for p in principals):
        return SignerCheck(WRONG_SIGNER, principals, fingerprint,
                           f"feed {writer} is signed by {','.join(principals)} (key {fingerprint}), whom "
                           f"{allowed.name} does not allow to sign for writer {writer}")
    return SignerCheck(BAD_SIGNATURE, principals, fingerprint,
                       f"the signature of feed {writer} by {','.join(principals)} does not verify over its head "
                       f"(seq {head.seq}): {_clean(done.stderr) if done is not None else 'not run'}")


def openpgp_signers(allowed: Path) -> list[tuple[tuple[str, ...], str]]:
    """The allowed-signers file's OpenPGP lines, Baton's one addition to
    git's format: ``<principals> [options] openpgp <fingerprint>`` (ssh-keygen
    skips such a line with an "invalid key" warning). Returns
    ``(principals, upper-case fingerprint)`` per line."""
    out = []
    try:
        text = allowed.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    for line in text.splitlines():
        words = line.split()
        if not words or words[0].startswith("#") or "openpgp" not in words[1:-1]:
            continue
        fingerprint = words[words.index("openpgp", 1) + 1].upper()
        if all(c in "0123456789ABCDEF" for c in fingerprint) and len(fingerprint) >= 32:
            out.append((tuple(p for p in words[0].split(",") if p), fingerprint))
    return out


def _check_openpgp(allowed: Path, program: str, writer: str, head: FeedHead, signature: bytes) -> SignerCheck:
    """``gpg --status-fd=1 --verify``, as git checks an OpenPGP-signed commit;
    the key (the signing key's or its primary key's fingerprint) must be in
    the verifier's keyring and bound to the writer by an ``openpgp`` line."""
    with tempfile.TemporaryDirectory(prefix="baton-verify-") as tmp:
        sig = Path(tmp) / "head.asc"
        sig.write_bytes(signature)
        done = _run([program, "--status-fd=1", "--verify", str(sig), "-"], signed_message(writer, head))
    if done is None:
        return SignerCheck(BAD_SIGNATURE, message=f"cannot run {program!r} (gpg.program) to verify")
    status: dict[str, list[str]] = {}
    for line in done.stdout.decode("utf-8", "replace").splitlines():
        if line.startswith("[GNUPG:] "):
            word, *fields = line[9:].split()
            status.setdefault(word, fields)
    valid = status.get("VALIDSIG")
    if valid is None or "BADSIG" in status:
        if "BADSIG" not in status and ("ERRSIG" in status or "NO_PUBKEY" in status):
            missing = (status.get("ERRSIG") or status.get("NO_PUBKEY") or ["?"])[0]
            return SignerCheck(UNKNOWN_KEY, key=missing,
                               message=f"feed {writer} is signed with OpenPGP key {missing}, which is not in this "
                                       "machine's keyring")
        return SignerCheck(BAD_SIGNATURE, message=f"the OpenPGP signature of feed {writer} does not verify over "
                                                  f"its head (seq {head.seq})")
    fingerprints = {valid[0].upper()} | ({valid[9].upper()} if len(valid) > 9 else set())
    key = valid[9].upper() if len(valid) > 9 else valid[0].upper()
    principals = tuple(p for names, fpr in openpgp_signers(allowed) if fpr in fingerprints for p in names)
    if not principals:
        return SignerCheck(UNKNOWN_KEY, (), key, f"feed {writer} is signed with OpenPGP key {key}, which "
                                                 f"{allowed.name} does not list")
    if not any(_matches(writer, p) for p in principals):
        return SignerCheck(WRONG_SIGNER, principals, key,
                           f"feed {writer} is signed by {','.join(principals)} (key {key}), whom {allowed.name} "
                           f"does not allow to sign for writer {writer}")
    if "REVKEYSIG" in status:
        return SignerCheck(BAD_SIGNATURE, principals, key, f"the OpenPGP key {key} that signed feed {writer} is "
                                                           "revoked")
    return SignerCheck(GOOD, principals, key, f"signed by {','.join(principals)}")


def _matches(writer: str, principal: str) -> bool:
    from fnmatch import fnmatchcase

    return fnmatchcase(writer, principal)


# -- what a sync keeps between runs -----------------------------------------------------------

def load_state(project: "Project") -> dict[str, Any]:
    try:
        raw = read_json(project.paths.baton_dir / STATE_FILE)
    except (FileNotFoundError, InputError, OSError):
        return {}
    return raw if isinstance(raw, dict) and isinstance(raw.get("feeds"), dict) else {}


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


# -- the two hooks ``baton sync`` calls -------------------------------------------------------

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
    allowed: Path
    allowed_digest: str | None
    state: dict[str, Any]
    checks: dict[str, SignerCheck] = attrs.field(factory=dict)
    """Feed → the verdict on the signature the ref holds for it after this round."""
    flagged: dict[str, SignerCheck] = attrs.field(factory=dict)
    """Feed → the verdict on a remote copy taken although its signature is not good."""
    notes: list[str] = attrs.field(factory=list)
    own_signature: bytes | None = None
    """The blob of the signature this clone's key made (or made before) over its own feed's head."""
    _cache: dict[tuple, SignerCheck] = attrs.field(factory=dict)

    @classmethod
    def open(cls, project: "Project", repo) -> "FeedSignatures":
        """Raises: InputError (a malformed ``sync`` setting)."""
        allowed = allowed_signers_path(project)
        key, programs = signing_setup(repo)
        signatures = cls(project, repo, project.writer, key, programs, require_signatures(project), allowed,
                         _digest(allowed), load_state(project))
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
                check_head(self.allowed, self.programs, writer, head, signature)
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
        from baton.commands.sync import RefusedFeed

        if not self.in_play or remote is None or remote.problem is not None or feed == self.writer \
                or not WRITER_ID.match(feed):
            return None  # a folder sync refuses anyway, or this clone's own feed (signed by ``settle``)
        verdict = self.check(feed, remote.head, remote.signature, self._signature_of(remote.signature))
        if verdict.good:
            return None
        if self.required and not self._holds_good(feed, remote.head, base):
            return RefusedFeed(feed, "remote", verdict.status, remote.head.seq,
                               f"{verdict.message} (sync.require_signatures is set)")
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
        from baton.commands.sync import RefusedFeed
        from baton.ledger_ref import with_signature

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
                                                   f"{exc} (sync.require_signatures is set: not published)"))
                        self._keep_published(out, feed, base, remote)
                        held_back.append(feed)
                        continue
                    self.notes.append(f"{exc}: this clone's feed is published unsigned")
                    blob, verdict = self._best(feed, copy, base.get(feed), remote.get(feed))
                if verdict.status == UNSIGNED and self.required:
                    refused.append(RefusedFeed(
                        feed, "local", UNSIGNED, copy.head.seq,
                        "sync.require_signatures is set and git has no signing key (user.signingkey, with "
                        "gpg.format ssh or openpgp): this clone's feed is not published"))
                    self._keep_published(out, feed, base, remote)
                    held_back.append(feed)
                    continue
            else:
                blob, verdict = self._best(feed, copy, base.get(feed), remote.get(feed))
            if blob != copy.signature:
                out[feed] = with_signature(self.repo, copy, blob)
            if self.in_play:
                self.checks[feed] = verdict
        return held_back

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
        from dulwich.objects import Blob

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
        """Keep the verdicts (and this clone's own signature) for the next sync and for ``verify``."""
        if not self.in_play:
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
        write_json_atomic(self.project.paths.baton_dir / STATE_FILE,
                          {"allowed_signers": self.allowed_digest, "feeds": dict(sorted(feeds.items()))})

    def to_json(self) -> dict[str, Any]:
        """``signers`` in ``baton sync --json``: every feed's verdict, the
        remote copies taken with a signature that is not good, and whether
        signatures are required."""
        return {"require_signatures": self.required,
                "signing_key": self.signing.key if self.signing is not None else None,
                "feeds": {feed: v.to_json() for feed, v in sorted(self.checks.items())},
                "flagged": {feed: v.to_json() for feed, v in sorted(self.flagged.items())},
                "notes": list(self.notes)}


# -- what verify, audit and the status page show ---------------------------------------------

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
    as it is now. Empty when the project has no signing in play (no record,
    no allowed-signers file, signatures not required)."""
    state = load_state(project)
    try:
        allowed = allowed_signers_path(project)
        required = require_signatures(project)
    except InputError:
        allowed, required = project.root / DEFAULT_ALLOWED_SIGNERS, False
    recorded = state.get("feeds") or {}
    if not recorded and not required and not allowed.is_file():
        return []
    programs = _programs(project) if recheck else Programs()
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
                verdict = check_head(allowed, programs, feed, head, signature)
        else:
            verdict = SignerCheck(str(entry.get("status") or UNSIGNED), tuple(entry.get("principals") or ()),
                                  entry.get("key"), entry.get("message") or "")
        out.append(FeedSigner(feed, verdict.status, ",".join(verdict.principals) or None, verdict.key,
                              head.seq, verdict.message))
    return out


def _programs(project: "Project") -> Programs:
    """The programs git's configuration names (the defaults outside git)."""
    from baton.gitinfo import locate

    where = locate(project.root)
    if where is None:
        return Programs()
    from dulwich.errors import NotGitRepository
    from dulwich.repo import Repo

    try:
        with Repo(str(where.common_dir)) as repo:
            return signing_setup(repo)[1]
    except (NotGitRepository, OSError, ValueError, KeyError):  # an unreadable repository: git's defaults
        return Programs()


def _feed_holds(project: "Project", feed: str, head: FeedHead) -> bool:
    """The local feed has the event ``head`` names (its seq, with that hash)."""
    import orjson

    from baton.ledger.feed import line_hashes_to

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
            lines.append(f"FLAGGED feed {feed}: {verdict['status']}: {verdict['message']}")
    return lines


def render_signers(signers: list[FeedSigner], required: bool) -> list[str]:
    """One line per feed: who signed it, or why its signature is not good."""
    lines = []
    for s in signers:
        if s.status == GOOD:
            lines.append(f"  signer of {s.feed}: signed by {s.signer} ({s.key}) through seq {s.seq}")
        else:
            mark = "FAIL" if required and s.status in SIGNATURE_PROBLEMS else "note"
            lines.append(f"  {mark} signer of {s.feed}: {s.status}: {s.message}")
    return lines
