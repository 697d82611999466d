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
Git's configuration is read as git reads it for the worktree
(``gitinfo.config_stack``: ``includeIf`` honoured in the user's files too);
the programs spawned are the ones git spawns to sign (``gpg.ssh.program``,
``gpg.program``).

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
import contextlib
import errno
import fcntl
import hashlib
import os
import re
import stat
import subprocess
import tempfile
from datetime import datetime
from fnmatch import fnmatchcase
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

import attrs

from baton.config import DEFAULT_ALLOWED_SIGNERS, allowed_signers_problem, read_local_json
from baton.domain.feed_vouch import signers_record_problem
from baton.domain.policy_keys import signer_lines
from baton.domain.policy_trust import KEPT_SIGNERS_NOTE, SIGNERS_TRUST_STEPS, SignersInForce
from baton.errors import BatonError, ConfigError, StorageError
from baton.gitinfo import config_stack, locate, open_repo
from baton.ledger.feed import FeedHead
from baton.model import frozen
from baton.policy import signing_in_force, trust_file

if TYPE_CHECKING:
    from baton.commands.context import Project

NAMESPACE = "baton-feed"
STATE_FILE = "sync-signers.json"
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
    """Whether a feed whose signature is not good is refused: ``sync.require_signatures`` in
    ``.baton/config.json``, or, while the allowed-signers file is not trusted here, whether
    signatures were required when this clone trusted its settings (``signers_in_force``).

    Raises:
        ConfigError: the setting is not true or false.
    """
    value = project.config.section("sync").get("require_signatures", False)
    if not isinstance(value, bool):
        raise ConfigError(f"sync.require_signatures in .baton/config.json must be true or false, not {value!r}")
    return _in_force(project, value).required


def required_by(project: "Project") -> str:
    """Where the requirement ``require_signatures`` answers comes from, as a refusal says it
    (``SignersInForce.required_by``: the checked-out setting, or what this clone trusted); empty
    when signatures are not required.

    Raises:
        ConfigError: the setting is not true or false.
    """
    value = project.config.section("sync").get("require_signatures", False)
    if not isinstance(value, bool):
        raise ConfigError(f"sync.require_signatures in .baton/config.json must be true or false, not {value!r}")
    return str(_in_force(project, value).required_by)


def committed_signers_path(project: "Project") -> Path:
    """The allowed-signers file the project names: ``sync.allowed_signers`` (relative to the
    project root, inside it), else ``.baton/allowed_signers`` (trusted or not).

    Raises:
        ConfigError: the setting is not a relative path inside the project.
    """
    raw = project.config.section("sync").get("allowed_signers", DEFAULT_ALLOWED_SIGNERS)
    if allowed_signers_problem(raw):
        raise ConfigError("sync.allowed_signers in .baton/config.json must be a path relative to the project "
                         f"root, inside it, not {raw!r}")
    return project.root / raw


def allowed_signers(project: "Project") -> "AllowedSigners":
    """The allowed-signers lines feeds are checked against: never the project's file itself
    (``committed_signers_path``) but exactly the key lines the trust digest covers and ``baton
    policy show`` shows (``baton.domain.policy_keys.signer_lines``, parsed as ``ssh-keygen``
    parses), so a line Baton would not read cannot bind a key: the project's lines when they
    are trusted here or there is nothing to trust; while they are not, the lines this clone
    trusted before (none when never: docs/sync.md, "Which signers apply"). No lines at all
    (``AllowedSigners.listed`` false) when the project has no allowed-signers file and none
    was trusted. Nothing is written here: the copy ``ssh-keygen`` reads is written when a
    signature is checked (``AllowedSigners.copy``).

    Raises:
        ConfigError: the setting is not a relative path inside the project.
    """
    committed = committed_signers_path(project)
    lines = _in_force(project, False).signers
    if lines is None:
        if not committed.is_file():
            return AllowedSigners(None, (), committed)
        trust = project.policy.trust
        lines = trust.widening.signers if trust is not None and trust.widening.signers is not None else ()
    places = tuple(dict.fromkeys((Path(trust_file(project.paths)).parent, project.paths.cache_dir)))
    return AllowedSigners("".join(line + "\n" for line in lines).encode(), places, committed)


COPY_PREFIX = "signers-"
"""The copy's name: ``signers-`` and the first 16 hex digits of the sha256 of its bytes."""
_COPY_NAMES = re.compile(r"(?:trusted-)?signers-[0-9a-f]{16}")
"""Copies Baton wrote: ``signers-…``, and ``trusted-signers-…`` of versions before it."""
HOLD_TRIES = 8
"""Times a copy is written again when another process removed it between the write and the hold."""


class AllowedSigners:
    """The allowed-signers lines feeds are checked against (``allowed_signers``), and the copy
    of them ``ssh-keygen`` is handed — written only when a signature is checked, at the first
    of ``places`` where it can be: the checkout's git directory beside the trust record
    (``<gitdir>/baton/``, where no clone brings one), else the project's ``.baton/cache/``
    (git-ignored; a read-only git directory, a full disk, a permission problem). Writing a
    copy removes the copies it supersedes there (other digests, ``trusted-signers-…`` of
    earlier versions), but never one in use: a process holds a shared ``flock`` on the copy
    while ``ssh-keygen`` reads it (``copy``), and a copy is removed only under an exclusive one."""

    def __init__(self, text: bytes | None, places: tuple[Path, ...], committed: Path) -> None:
        self.text = text
        """The lines, newline-terminated; None when no allowed-signers file applies."""
        self.places = places
        self.committed = committed
        """The project's allowed-signers file, as a message names it when it has none."""

    @property
    def listed(self) -> bool:
        """Whether an allowed-signers file applies (it may list no key)."""
        return self.text is not None

    @property
    def digest(self) -> str | None:
        """The sha256 of the lines (None: no file applies): what the verdicts kept are valid for."""
        return hashlib.sha256(self.text).hexdigest() if self.text is not None else None

    @contextlib.contextmanager
    def copy(self) -> Iterator[Path]:
        """The copy ``ssh-keygen`` reads, written now if it is not there already, and held
        (no other process removes it) until the block ends.

        Raises:
            StorageError: it can be written in none of ``places`` (the message says what to fix).
        """
        assert self.text is not None, "no allowed-signers file applies: nothing to copy"
        name = COPY_PREFIX + hashlib.sha256(self.text).hexdigest()[:16]
        problems = []
        for place in self.places:
            try:
                held = self._hold(place / name)
            except OSError as exc:
                problems.append(f"{place} ({exc.strerror or exc})")
                continue
            try:
                yield place / name
            finally:
                os.close(held)
            return
        raise StorageError(
            "cannot write the copy of the allowed-signers lines that feed signatures are checked against (ssh-keygen "
            f"reads only that copy) in {' nor in '.join(problems)}: make one of these folders writable by this user, "
            "or free space on its disk, then run the command again")

    def _hold(self, path: Path) -> int:
        """A descriptor of ``path``, under a shared lock, holding exactly the lines; written (and
        the copies it supersedes removed) when it does not.

        Raises:
            OSError: it cannot be written there.
        """
        assert self.text is not None
        for _ in range(HOLD_TRIES):
            held = _held_copy(path, self.text)
            if held is not None:
                return held
            _write_copy(path, self.text)
            for place in self.places:
                _remove_superseded(place, path.name)
        raise OSError(errno.EAGAIN, "the copy was removed each time it was written")


def _held_copy(path: Path, text: bytes) -> int | None:
    """A descriptor of the file at ``path`` under a shared lock, when it is a regular file (never a
    link followed) holding exactly ``text`` and still at ``path`` once locked; else None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)  # a remover holds its exclusive lock only to unlink
        st = os.fstat(fd)
        now = os.lstat(path)
        if stat.S_ISREG(st.st_mode) and (now.st_dev, now.st_ino) == (st.st_dev, st.st_ino) \
                and st.st_size == len(text) and os.pread(fd, len(text) + 1, 0) == text:
            fd, held = -1, fd
            return held
    except OSError:
        pass
    finally:
        if fd != -1:
            os.close(fd)
    return None


def _write_copy(path: Path, text: bytes) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename (over any link there, never through it).

    Raises:
        OSError: it cannot be written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".tmp.{os.getpid()}.{os.urandom(4).hex()}")
    try:
        with open(tmp, "xb") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def _remove_superseded(place: Path, current: str) -> None:
    """Remove the copies in ``place`` other than ``current`` that no process holds; never fails."""
    try:
        names = [name for name in os.listdir(place) if name != current and _COPY_NAMES.fullmatch(name)]
    except OSError:
        return
    for name in names:
        path = place / name
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:  # a link (never Baton's) or gone already
            with contextlib.suppress(OSError):
                if os.path.islink(path):
                    os.unlink(path)
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            st, now = os.fstat(fd), os.lstat(path)
            if (now.st_dev, now.st_ino) == (st.st_dev, st.st_ino):
                os.unlink(path)
        except OSError:  # held: a process checks against it now
            pass
        finally:
            os.close(fd)


def signers_untrusted(project: "Project") -> str:
    """Why the project's allowed-signers lines are not applied in this clone, so feeds are
    checked against only those trusted before (``signers_in_force``); empty when they apply."""
    in_force = _in_force(project, False)
    if in_force.signers is None:
        return ""
    if in_force.kept:
        return KEPT_SIGNERS_NOTE
    return project.policy.trust.signers_note() or UNTRUSTED_SIGNERS


def signers_shown(project: "Project") -> str:
    """The project's allowed-signers file as a message names it: its path from the project root."""
    try:
        return committed_signers_path(project).relative_to(project.root).as_posix()
    except (ConfigError, ValueError):
        return "the allowed-signers file"


UNTRUSTED_SIGNERS = f"the allowed-signers file is not trusted in this clone yet: {SIGNERS_TRUST_STEPS}"
"""What a feed's verdict adds while the project's signer lines were never trusted here
(``PolicyTrust.signers_note`` says why in each case; every note ends ``SIGNERS_TRUST_STEPS``)."""


def _in_force(project: "Project", required: bool) -> SignersInForce:
    return signing_in_force(project.paths, project.policy, required)


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


def signing_setup_at(start: Path, shared=None) -> tuple[SigningKey | None, Programs]:
    """``signing_setup`` for the repository (worktree) holding ``start``: git's
    defaults outside git or when the repository cannot be read.

    ``shared``: a sync's repository (``transport.open_repo``, opened at the
    common git directory, its ``get_config_stack`` being ``gitinfo.config_stack``
    read once); its configuration is used when it is this worktree's, so the
    sync reads no config file twice. A linked worktree's is read for it."""
    where = locate(start)
    if where is None:
        return None, Programs()
    if shared is not None and Path(shared.controldir()).resolve() == Path(where.git_dir).resolve():
        return _signing_from(shared.get_config_stack())
    repo = open_repo(start)
    if repo is None:
        return None, Programs()
    try:
        return signing_setup(repo)
    except (OSError, ValueError, KeyError):  # an unreadable config: git's defaults
        return None, Programs()
    finally:
        repo.close()


def signing_setup(repo) -> tuple[SigningKey | None, Programs]:
    """The repository's signing key (None: no ``user.signingkey``) and
    programs, as git reads them: its config stack as ``gitinfo.config_stack``
    reads it for the repository's worktree (``config.worktree``, the
    repository's, the user's, the system's, ``include`` and ``includeIf``
    honoured in each). ``gpg.format`` defaults to ``openpgp``, as in git."""
    return _signing_from(config_stack(repo))


def _signing_from(config) -> tuple[SigningKey | None, Programs]:
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
        raise SigningFailed(f"cannot run {key.program!r} (gpg.program) to sign the feed{_ssh_hint(key)}")
    if done.returncode != 0 or b"[GNUPG:] SIG_CREATED " not in done.stderr \
            or b"-----BEGIN PGP SIGNATURE-----" not in done.stdout:
        told = b"\n".join(line for line in done.stderr.splitlines() if not line.startswith(b"[GNUPG:]"))
        raise SigningFailed(f"{key.program} could not sign with user.signingkey {key.key!r}: "
                            f"{_clean(told) or 'exit ' + str(done.returncode)}{_ssh_hint(key)}")
    return done.stdout


def _ssh_hint(key: SigningKey) -> str:
    """When git signs with OpenPGP (``gpg.format`` unset means ``openpgp``, as in git) but the key
    is spelled as an ssh key (a key file's path, ``key::``, ``ssh-…``): the setting that was missed."""
    spelled = key.key.strip()
    if spelled.startswith(("/", "~", "./", "key::", "ssh-", "sk-ssh-", "ecdsa-sha2-")) or spelled.endswith(".pub"):
        return (" (user.signingkey looks like an ssh key, but git signs with gpg.format openpgp: "
                "`git config gpg.format ssh` if it is one)")
    return ""


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


def check_head(allowed: AllowedSigners, programs: Programs, writer: str, head: FeedHead,
               signature: bytes | None, *, shown: str = "the allowed-signers file",
               untrusted: str = "") -> SignerCheck:
    """Check ``signature`` over ``writer``'s ``head`` against the allowed-signers lines ``allowed``
    (``allowed_signers``: its copy is written when ``ssh-keygen`` is to read it); ``shown``: the
    file as messages name it; ``untrusted``: why the project's lines are not applied here
    (``signers_untrusted``), which a verdict that is not good adds.

    Raises:
        StorageError: the copy of the lines cannot be written anywhere (``AllowedSigners.copy``).
    """
    if untrusted:
        verdict = check_head(allowed, programs, writer, head, signature,
                             shown="the copy of the allowed-signers lines this clone trusted")
        if verdict.status in (UNKNOWN_KEY, WRONG_SIGNER):
            return attrs.evolve(verdict, message=f"{verdict.message}: {untrusted}")
        return verdict
    if not signature:
        return SignerCheck(UNSIGNED, message=f"feed {writer} has no signature at seq {head.seq}")
    if signature.lstrip().startswith(b"-----BEGIN PGP SIGNATURE-----"):
        return _check_openpgp(allowed, programs.openpgp, writer, head, signature, shown)
    program = programs.ssh
    fingerprint = key_fingerprint(signature)
    if fingerprint is None:
        return SignerCheck(BAD_SIGNATURE, message=f"the signature of feed {writer} is not an ssh signature")
    if not allowed.listed:
        return SignerCheck(UNKNOWN_KEY, key=fingerprint, message=f"no allowed-signers file at {allowed.committed}: "
                                                                 f"key {fingerprint} is bound to no writer")
    when = f"-Overify-time={verify_time(head)}"
    with allowed.copy() as copy, tempfile.TemporaryDirectory(prefix="baton-verify-") as tmp:
        sig = Path(tmp) / "head.sig"
        sig.write_bytes(signature)
        found = _run([program, "-Y", "find-principals", "-f", str(copy), "-s", str(sig), when], b"")
        if found is None:
            return SignerCheck(BAD_SIGNATURE, key=fingerprint, message=f"cannot run {program!r} to verify")
        principals = tuple(p for p in found.stdout.decode("utf-8", "replace").splitlines() if p.strip()) \
            if found.returncode == 0 else ()
        done = _run([program, "-Y", "verify", "-n", NAMESPACE, "-f", str(copy), "-I", writer, "-s", str(sig),
                     when], signed_message(writer, head))
    if done is not None and done.returncode == 0:
        return SignerCheck(GOOD, principals, fingerprint, f"signed by {','.join(principals) or writer}")
    if not principals:
        return SignerCheck(UNKNOWN_KEY, (), fingerprint,
                           f"feed {writer} is signed with key {fingerprint}, which {shown} does not list "
                           "(or not at the time the head was written)")
    if not any(_matches(writer, p) for p in principals):
        return SignerCheck(WRONG_SIGNER, principals, fingerprint,
                           f"feed {writer} is signed by {','.join(principals)} (key {fingerprint}), whom "
                           f"{shown} does not allow to sign for writer {writer}")
    return SignerCheck(BAD_SIGNATURE, principals, fingerprint,
                       f"the signature of feed {writer} by {','.join(principals)} does not verify over its head "
                       f"(seq {head.seq}): {_clean(done.stderr) if done is not None else 'not run'}")


def openpgp_signers(text: bytes | None) -> list[tuple[tuple[str, ...], str]]:
    """The OpenPGP lines of allowed-signers lines (``AllowedSigners.text``), Baton's one
    addition to git's format: ``<principals> [options] openpgp <fingerprint>`` (ssh-keygen
    skips such a line with an "invalid key" warning). Returns
    ``(principals, upper-case fingerprint)`` per line."""
    out = []
    for line in signer_lines(text or b""):
        words = [word for word in re.split(r"[ \t\r]+", line) if word]  # ssh-keygen's separators only
        if not words or "openpgp" not in words[1:-1]:
            continue
        fingerprint = words[words.index("openpgp", 1) + 1].upper()
        if all(c in "0123456789ABCDEF" for c in fingerprint) and len(fingerprint) >= 32:
            out.append((tuple(p for p in words[0].split(",") if p), fingerprint))
    return out


def _check_openpgp(allowed: AllowedSigners, program: str, writer: str, head: FeedHead, signature: bytes,
                   shown: str) -> SignerCheck:
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
    principals = tuple(p for names, fpr in openpgp_signers(allowed.text) if fpr in fingerprints for p in names)
    if not principals:
        return SignerCheck(UNKNOWN_KEY, (), key, f"feed {writer} is signed with OpenPGP key {key}, which "
                                                 f"{shown} does not list")
    if not any(_matches(writer, p) for p in principals):
        return SignerCheck(WRONG_SIGNER, principals, key,
                           f"feed {writer} is signed by {','.join(principals)} (key {key}), whom {shown} "
                           f"does not allow to sign for writer {writer}")
    if "REVKEYSIG" in status:
        return SignerCheck(BAD_SIGNATURE, principals, key, f"the OpenPGP key {key} that signed feed {writer} is "
                                                           "revoked")
    return SignerCheck(GOOD, principals, key, f"signed by {','.join(principals)}")


def _matches(writer: str, principal: str) -> bool:
    return fnmatchcase(writer, principal)


# -- what a sync keeps between runs -----------------------------------------------------------

SIGNERS_HINT = ("it is `baton sync`'s record of each feed's signature and the verdict on it: until the next "
                "`baton sync` checks every feed's signature again and rewrites it, no verdict is known here "
                "(the ledger loses nothing; removing the file does the same)")
"""What a damaged ``sync-signers.json`` costs, and what mends it."""


def read_record(project: "Project") -> tuple[dict[str, Any], str | None]:
    """The record the last sync kept (``{"allowed_signers", "feeds"}``) and what is wrong with
    the file. An absent file is an empty record and no problem; a damaged
    one (not JSON, out of shape: ``signers_record_problem``, a link, not a regular file, too
    large, unreadable) an empty record and the problem: it is read as no record at all."""
    path = project.paths.baton_dir / STATE_FILE
    try:
        raw = read_local_json(path)
    except FileNotFoundError:
        return {}, None
    except BatonError as exc:  # not JSON, a link, too large (InputError), or unreadable (StorageError)
        return {}, exc.message
    wrong = signers_record_problem(raw)
    if wrong is not None:
        return {}, f"{path} is damaged: {wrong}"
    return raw, None


def load_state(project: "Project") -> dict[str, Any]:
    """The record the last sync kept (``read_record``); empty when there is none or it is damaged."""
    return read_record(project)[0]


def signers_problem(project: "Project") -> str | None:
    """What is wrong with ``sync-signers.json`` (``read_record``) and what mends it
    (``SIGNERS_HINT``), None when it is absent or sound."""
    problem = read_record(project)[1]
    return f"{problem}; {SIGNERS_HINT}" if problem is not None else None
