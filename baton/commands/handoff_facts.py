"""What the world says about a handoff: gathered here, judged in ``domain/``.

The domain is pure, so every fact freshness and the brief need — the git
head now, whether an artifact exists and what its content hashes to — is
collected by this module and passed in as values. What validation needs
besides (which handoff ids exist, what the policy finds, what an
allowlisted recheck returned) is ``baton.commands.validation_facts``:
reading a record's freshness (``resume``, a session start) runs nothing.

The handoff a baton carries, as a session is shown it (``baton_freshness``,
``shown``, ``carried_lines``): its freshness line, read from the record only as
far as its freshness reads it (``domain.freshness.stored_record``: not the
record model, nor attrs), and its objective and state. The application loads
this only when there is a baton (a session start, ``session begin``,
``session handoff``) or a record to judge.
"""

from __future__ import annotations

import hashlib
import os
from itertools import islice

from baton import gitinfo
from baton.domain.batons import BatonRecord, carried_handoff_lines, freshness_line
from baton.domain.content_hash import (
    FOLDER_MAX_ENTRIES,
    SCREEN_LIMIT_BYTES,
    folder_too_large_reason,
    is_plain,
    is_screened,
    is_tree,
    matches,
    plain_hash,
    screen_content,
    too_large_reason,
    tree_hash,
    withhold_current,
)
from baton.domain.freshness import (
    REACHABLE,
    ArtifactFact,
    HistoryFacts,
    commit_evidence_refs,
    freshness_from_facts,
    heads_equal,
    stored_record,
)
from baton.domain.freshness_states import LEADS_OUTSIDE, NOT_CHECKED, RESOLVES_OUTSIDE
from baton.domain.paths import SYMLINK_ESCAPE
from baton.domain.redaction import MARKER, RedactionPolicy, replacement_for
from baton.errors import UnsafePath
from baton.ledger.clock import rfc3339_micros
from baton.policy import Policy, allowed_once_trusted, real_location_inside_root
from baton.values import replace

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (a session start judges a baton here)
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any, TypeVar

    from _typeshed import StrPath

    Shown = TypeVar("Shown")

_HASH_CHUNK = 1 << 20


def now_timestamp(clock_ns: int) -> str:
    """A record timestamp: UTC RFC 3339 to the second (``2026-09-02T14:30:00Z``)."""
    return rfc3339_micros(clock_ns)[:19] + "Z"


def sha256_file(path: StrPath) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(_HASH_CHUNK), b""):
            digest.update(chunk)
    return "sha256:" + digest.hexdigest()


def read_bounded(path: StrPath, limit: int = SCREEN_LIMIT_BYTES) -> tuple[bytes | None, int]:
    """A file's bytes and size, read once, or ``None`` (and its size) when it
    is over ``limit``: a file that large is not read at all (its size is asked
    of the open file, and a file growing as it is read is cut at ``limit + 1``).

    Raises:
        OSError: the file cannot be opened or read.
    """
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > limit:
            return None, size
        data = fh.read(limit + 1)
    if len(data) > limit:
        return None, len(data)
    return data, len(data)


def capture_content_hash(path: StrPath, policy: RedactionPolicy) -> tuple[str | None, str | None]:
    """What a capture records of a file's content: ``(content_hash, None)``,
    or ``(None, reason)`` for a file over the secret screen's limit. The hash
    is a plain ``sha256:`` when the screen finds nothing in the content, else
    ``sha256-redacted:`` of the screened content (``baton.domain.content_hash``).

    Raises:
        OSError: the file cannot be read.
    """
    data, size = read_bounded(path)
    if data is None:
        return None, too_large_reason(size)
    return screen_content(data, policy).content_hash, None


SKIPPED_FOLDERS = frozenset({".git", ".baton"})
"""Folders a folder artifact's hash leaves out: git's and Baton's own records, which change with every commit
and capture."""


def folder_content_hash(folder: StrPath, policy: RedactionPolicy, *, leave_ignored_out: bool = True,
                        named: str = "", budget: HashBudget | None = None) -> tuple[str | None, str | None]:
    """What a capture records of a folder's content (``sha256-tree:``, ``baton.domain.content_hash.tree_hash``),
    or ``(None, reason)`` for a folder over the bounds: at most ``FOLDER_MAX_ENTRIES`` entries and
    ``SCREEN_LIMIT_BYTES`` of file content in all, each file screened as a file artifact is, and at most
    ``FOLDER_MAX_LISTED`` entries listed by the walk, ignored ones included. Symlinks are never followed (a link
    is hashed as its screened target text), so nothing outside the folder is read. A child a path rule names as
    a secret (``.env``, ``id_rsa``: the path ``named`` — the folder as the artifact names it — joined with the
    child's) is never opened: it enters the hash by its path and the rule's marker alone.

    What the repository's ignore rules leave out below the folder (``__pycache__``, build output:
    ``baton.git_status.ignore_filter``) is neither hashed nor counted toward the first two bounds, unless
    ``leave_ignored_out`` is False (how a record captured before that rule hashed it). A folder the repository
    itself ignores (``dist/``, or one inside an ignored folder), or one whose every entry is ignored (its own
    ``.gitignore`` of ``*``), is hashed whole: never as the empty tree while it holds entries.

    ``budget``: the total work one freshness check may still do (``HashBudget``), charged for every entry listed
    and every byte read; None (a capture) charges nothing.

    Raises:
        OSError: the folder or a file in it cannot be read.
        BudgetSpent: ``budget`` ran out before the folder was hashed.
    """
    ignored = None
    if leave_ignored_out:
        # ``__import__``: the ignore rules (``baton.git_status``) load only when a folder artifact is hashed,
        # never on a hook path's read of a record without one.
        ignored = __import__("baton.git_status", fromlist=["ignore_filter"]).ignore_filter(folder)
        if ignored is not None and ignored(folder, True):
            ignored = None
    walk = _FolderWalk(folder, policy, ignored, named, budget)
    found = walk.hash()
    if ignored is not None and walk.left_out and not walk.entries:
        found = _FolderWalk(folder, policy, None, named, budget).hash()
    return found


START_BUDGET_ENTRIES = 4 * FOLDER_MAX_ENTRIES
START_BUDGET_BYTES = 4 * SCREEN_LIMIT_BYTES
START_BUDGET_LISTED = 2 * 10 * FOLDER_MAX_ENTRIES
"""What one bounded freshness check (a session start's brief, ``status``, ``show``) may hash in all, across every
artifact of the record: entries hashed, bytes read, and names listed by folder walks (ignored ones included). About
four full folders: each folder is bounded on its own too (``FOLDER_MAX_ENTRIES``, ``SCREEN_LIMIT_BYTES``,
``FOLDER_MAX_LISTED``), but a record may name many (tester-use23 T5)."""


class BudgetSpent(Exception):
    """A bounded freshness check's ``HashBudget`` ran out."""


class HashBudget:
    """The work left to one freshness check: entries to hash, bytes to read, names to list. Charged as it goes;
    once any runs out, ``BudgetSpent`` is raised and every later artifact is left unchecked."""

    def __init__(self, entries: int, data: int, listed: int) -> None:
        self.entries, self.data, self.listed = entries, data, listed
        self.spent = False

    def charge(self, *, entries: int = 0, data: int = 0, listed: int = 0) -> None:
        """Take work from the budget.

        Raises:
            BudgetSpent: the budget is now overdrawn (and stays spent).
        """
        self.entries -= entries
        self.data -= data
        self.listed -= listed
        if self.entries < 0 or self.data < 0 or self.listed < 0:
            self.spent = True
        if self.spent:
            raise BudgetSpent()

    def room_for_data(self, limit: int) -> int:
        """The most bytes one read may take: ``limit``, or less when the budget has less left."""
        return max(0, min(limit, self.data))


FOLDER_MAX_LISTED = 10 * FOLDER_MAX_ENTRIES
"""The most entries a folder's walk lists, ignored ones included: a folder full of ignored build output costs
every freshness check at most this many names."""


def folder_too_crowded_reason() -> str:
    """Why a folder records no hash: its walk lists more entries than it is bounded to."""
    return (f"not hashed: the folder lists more than {FOLDER_MAX_LISTED} entries (files git ignores included), "
            "more than a folder is walked to hash it; its changes cannot be checked: name the files in it you "
            "changed instead")


class _FolderWalk:
    """One bounded walk of a folder: its ``(relative path, entry hash)`` pairs, and whether the ignore test
    left anything out."""

    def __init__(self, folder: StrPath, policy: RedactionPolicy, ignored: Any, named: str,
                 budget: HashBudget | None = None) -> None:
        self.folder, self.policy, self.ignored, self.budget = folder, policy, ignored, budget
        base = os.path.normpath(named.replace("\\", "/")).replace(os.sep, "/") if named else os.path.basename(os.fspath(folder))
        self.base = "" if base in (".", "") else base.rstrip("/") + "/"
        self.entries: list[tuple[str, str]] = []
        self.left_out = False
        self.listed = 0
        self.total = 0

    def hash(self) -> tuple[str | None, str | None]:
        pending = [(self.folder, "")]
        while pending:
            here, prefix = pending.pop()
            children = self._listing(here)
            if children is None:
                return None, folder_too_crowded_reason()
            if not children and prefix:
                self.entries.append((prefix.rstrip("/"), "folder"))
            for child in children:
                over = self._take(child, prefix, pending)
                if over:
                    return None, over
        return tree_hash(self.entries), None

    def _listing(self, here: StrPath) -> list[os.DirEntry[str]] | None:
        """A folder's entries by name, or None once the walk has listed more than ``FOLDER_MAX_LISTED``."""
        room = FOLDER_MAX_LISTED - self.listed
        with os.scandir(here) as listing:
            children = list(islice(listing, room + 1))
        self.listed += len(children)
        if self.budget is not None:
            self.budget.charge(listed=len(children))
        if self.listed > FOLDER_MAX_LISTED:
            return None
        return sorted(children, key=lambda e: e.name)

    def _take(self, child: os.DirEntry[str], prefix: str, pending: list[tuple[StrPath, str]]) -> str | None:
        """Hash one entry (or queue a folder); the reason the folder is over the bounds, else None."""
        rel = prefix + child.name
        is_folder = child.is_dir(follow_symlinks=False)
        if self.ignored is not None and self.ignored(child.path, is_folder):
            self.left_out = True
            return None
        if len(self.entries) >= FOLDER_MAX_ENTRIES:
            return folder_too_large_reason(f"more than {FOLDER_MAX_ENTRIES} entries")
        if self.budget is not None:
            self.budget.charge(entries=1)
        secret = self._secret_name(rel)
        if secret is not None:
            self.entries.append((rel, secret))
        elif child.is_symlink():
            self.entries.append((rel, "link:" + screen_content(os.fsencode(os.readlink(child.path)),
                                                               self.policy).digest))
        elif is_folder:
            if child.name not in SKIPPED_FOLDERS:
                pending.append((child.path, rel + "/"))
        elif child.is_file(follow_symlinks=False):
            room = SCREEN_LIMIT_BYTES - self.total
            data, size = read_bounded(child.path, room if self.budget is None else self.budget.room_for_data(room))
            if self.budget is not None and (data is not None or size <= room):
                self.budget.charge(data=size)  # what was read, or what the budget had no room left to read
            self.total += size
            if data is None:
                return folder_too_large_reason(f"more than {SCREEN_LIMIT_BYTES} bytes")
            self.entries.append((rel, screen_content(data, self.policy).content_hash))
        return None

    def _secret_name(self, rel: str) -> str | None:
        """The entry hash of a child a path rule names as a secret (``unread:`` and the rule's marker), else None."""
        for rule in self.policy.path_rules:
            if rule.matches(self.base + rel):
                return "unread:" + replacement_for(rule.name)
        return None


CONTENT_HASH_SKIPPED = "content_hash_skipped"
"""The artifact field that says why a file records no ``content_hash`` (over the screen's limit)."""


def screened_given_hash(path: StrPath, given: str, policy: RedactionPolicy) -> str:
    """A ``content_hash`` a caller supplied, as it may be recorded: a plain
    hash of this very file's bytes, when the screen finds a secret in them,
    becomes the hash of the screened content; anything else is kept as given
    (a hash of another revision says nothing Baton can check).

    Raises:
        OSError: the file cannot be read.
    """
    if not is_plain(given):
        return given
    data, _ = read_bounded(path)
    if data is None or not matches(given, plain_hash(data)):
        return given
    return screen_content(data, policy).content_hash


def is_marker(text: Any) -> bool:
    """A value redaction replaced: it names no real file."""
    return isinstance(text, str) and bool(MARKER.search(text))


# -- the worktree's label ---------------------------------------------------------

def worktree_label(paths: Any) -> str:
    """The current worktree as records name it: its path relative to the
    project root (``.`` for the main worktree), so the label means the same on
    every machine that lays its worktrees out alike."""
    if paths.worktree_folder == paths.root_folder:
        return "."
    return os.path.relpath(paths.worktree_folder, paths.root_folder)


# -- artifacts -----------------------------------------------------------------

def artifact_fact(worktree: StrPath, rel: str, allowed_roots: Iterable[StrPath] = (), *,
                  recorded: str | None = None, redaction: RedactionPolicy | None = None,
                  policy: Policy | None = None, budget: HashBudget | None = None) -> ArtifactFact:
    """Observe one artifact path, relative to the current worktree: inside it
    (symlinks followed)? exists? and its content hashed the way ``recorded``
    was (not read when nothing was recorded: there is nothing to compare).

    A ``sha256-redacted:`` record is compared with the current content screened
    under ``redaction`` (the project's policy); a file now over the screen's
    limit cannot be, and is unreadable for the comparison. Any other record is
    compared with the hash of the raw bytes; when those changed, the content is
    screened too (files within the limit), and a file that now holds a secret,
    or could not be screened, has its current hash withheld from reports. ``policy``: the
    project's, to say when its untrusted ``allowed_roots`` would allow a path outside the root. ``budget``: what
    the check may still hash (``HashBudget``); an artifact it has no room for is not checked (``NOT_CHECKED``)."""
    try:
        real = real_location_inside_root(worktree, rel, tuple(allowed_roots))
    except UnsafePath as exc:
        return ArtifactFact(exists=False, inside_root=False, readable=False,
                            note=LEADS_OUTSIDE if exc.reason == SYMLINK_ESCAPE else RESOLVES_OUTSIDE,
                            allowed_once_trusted=allowed_once_trusted(policy, worktree, rel) if policy else "")
    if not os.path.exists(real):
        return ArtifactFact(exists=False)
    if os.path.isdir(real) and is_tree(recorded):
        return _folder_fact(real, recorded or "", redaction or RedactionPolicy(), rel, budget)
    if not recorded and os.path.isfile(real) and _over_the_screen(real):
        return ArtifactFact(exists=True, note=TOO_LARGE_TO_HASH)
    if not os.path.isfile(real) or not recorded:
        return ArtifactFact(exists=True)
    if budget is not None and budget.spent:
        return _NOT_CHECKED_FACT
    try:
        return _content_fact(real, recorded, redaction or RedactionPolicy(), budget)
    except OSError:
        return ArtifactFact(exists=True, readable=False)


TOO_LARGE_TO_HASH = (f"it is over the secret screen's {SCREEN_LIMIT_BYTES}-byte limit, so validation cannot hash it "
                     "(a hash is taken only of screened content); `baton handoff validate` in the handoff's worktree "
                     "(or `baton handoff amend ID`) records it as a capture outside a hook does: without a hash, its "
                     "changes unchecked")
"""The note on a file recorded without a hash that is over the secret screen's limit: what a validation of a
draft a hook's capture left it not hashed yet in, run in another worktree than the handoff's (so recording
nothing of its artifacts), says in place of "validation hashes it"."""


def _over_the_screen(real: str) -> bool:
    try:
        return os.stat(real).st_size > SCREEN_LIMIT_BYTES
    except OSError:
        return False


def too_large_to_screen(worktree: StrPath, rel: str) -> bool:
    """``rel`` is a file inside ``worktree`` over the secret screen's limit: one no capture or validation hashes."""
    try:
        real = real_location_inside_root(worktree, rel, ())
    except UnsafePath:
        return False
    return os.path.isfile(real) and _over_the_screen(real)


_NOT_CHECKED_FACT = ArtifactFact(exists=True, readable=False, note=NOT_CHECKED)


_TOO_LARGE_NOW = (f"its hash is of screened content, and it is now over the secret screen's {SCREEN_LIMIT_BYTES}-byte "
                  "limit, so it cannot be screened to compare")


def _folder_fact(real: str, recorded: str, redaction: RedactionPolicy, named: str,
                 budget: HashBudget | None) -> ArtifactFact:
    """A folder artifact hashed again to compare; one now over the bounds cannot be compared, nor one past the
    check's ``budget`` (not checked). A hash that differs is taken again with the ignored files in: a record
    captured before ignored files were left out matches that way when nothing in the folder changed."""
    if budget is not None and budget.spent:
        return _NOT_CHECKED_FACT
    try:
        current, over = folder_content_hash(real, redaction, named=named, budget=budget)
        if current is None or not matches(recorded, current):
            with_ignored, _ = folder_content_hash(real, redaction, leave_ignored_out=False, named=named,
                                                  budget=budget)
            if with_ignored is not None and matches(recorded, with_ignored):
                current, over = with_ignored, None
    except BudgetSpent:
        return _NOT_CHECKED_FACT
    except OSError:
        return ArtifactFact(exists=True, readable=False)
    if current is None:
        return ArtifactFact(exists=True, readable=False, note=f"the folder cannot be compared now: {over}")
    return ArtifactFact(exists=True, sha256=current)


def _content_fact(real: str, recorded: str, redaction: RedactionPolicy, budget: HashBudget | None) -> ArtifactFact:
    data, size = read_bounded(real)
    if budget is not None:
        try:
            budget.charge(entries=1, data=size)  # a file is hashed whole once begun: the budget is spent after it
        except BudgetSpent:
            pass
    if is_screened(recorded):
        if data is None:
            return ArtifactFact(exists=True, readable=False, note=_TOO_LARGE_NOW)
        return ArtifactFact(exists=True, sha256=screen_content(data, redaction).digest)
    current = sha256_file(real) if data is None else plain_hash(data)
    return ArtifactFact(exists=True, sha256=current,
                        withhold_hash=withhold_current(recorded, current, data, redaction))


def artifact_facts(worktree: StrPath, handoff: Any, policy: Policy | None = None, *, whole: bool = False) -> dict[str, Any]:
    """Facts for every artifact of a record, except paths redaction replaced.
    ``policy`` is the project's ``baton.policy.Policy``: its allowed roots and
    its redaction rules (which screen a ``sha256-redacted:`` artifact's content).

    The check is bounded (``HashBudget``: a session start must stay fast whatever the record names): artifacts
    past its budget are not checked (``NOT_CHECKED``). ``whole``: hash every artifact, each within its own
    bounds only (an explicit ``resume``, ``handoff validate``, ``handoff ready``)."""
    roots = policy.allowed_roots if policy is not None else ()
    redaction = policy.redaction if policy is not None else None
    budget = None if whole else HashBudget(START_BUDGET_ENTRIES, START_BUDGET_BYTES, START_BUDGET_LISTED)
    out: dict[str, Any] = {}
    for artifact in handoff.artifacts:
        if artifact.path in out or is_marker(artifact.path):
            continue
        out[artifact.path] = artifact_fact(worktree, artifact.path, roots,
                                           recorded=artifact.content_hash, redaction=redaction, policy=policy,
                                           budget=budget)
    return out


def live_freshness(worktree: StrPath, handoff: Any, policy: Policy | None = None, *, history: bool = True,
                   whole: bool = False):
    """The §10b freshness of a record right now in the current worktree
    (``FreshnessReport``): its HEAD and its files, not the main worktree's.
    ``policy``, ``whole``: as ``artifact_facts``. ``history=False`` skips how the head
    moved and the commit evidence (``history_facts``): for a listing that
    shows only each row's state, which they never change."""
    head_now = gitinfo.head_commit(worktree)
    return freshness_from_facts(handoff, artifact_facts(worktree, handoff, policy, whole=whole), head_now,
                                history_facts(worktree, handoff, head_now) if history else None)


def history_facts(worktree: StrPath, handoff: Any, head_now: str | None) -> HistoryFacts | None:
    """What git tells of HEAD's history for a record's freshness: whether its
    captured head and its commit evidence are in HEAD's history (a bounded
    walk, ``gitinfo.reach_from_head``), and the branches then and now. Nothing
    is walked when the head did not move and no commit evidence names another
    commit (the steady case opens no repository). None without a head now."""
    repo = handoff.project.repository
    captured = (repo.head or "").strip() if repo is not None else ""
    if not head_now:
        return None
    reach: dict[str, str] = {}
    targets: list[str] = []
    if captured and not heads_equal(captured, head_now):
        targets.append(captured)
    for _, ref in commit_evidence_refs(handoff):
        if heads_equal(ref, head_now):
            reach[ref] = REACHABLE
        elif ref not in targets:
            targets.append(ref)
    ahead = None
    if targets:
        found = gitinfo.reach_from_head(worktree, targets, ahead_of=captured or None, head=head_now)
        if found is not None:
            reach.update(found[0])
            ahead = found[1]
    return HistoryFacts(reach=reach, commits_ahead=ahead, captured_branch=_captured_branch(handoff),
                        branch_now=gitinfo.current_branch(worktree))


def _captured_branch(handoff: Any) -> str | None:
    """The branch checked out where a record was captured, else the branch its session baton was left for."""
    repo = handoff.project.repository
    branch = (repo.extra or {}).get("branch") if repo is not None else None
    if not (isinstance(branch, str) and branch):
        scope = (handoff.extra or {}).get("baton")
        branch = scope.get("branch") if isinstance(scope, dict) else None
    return branch if isinstance(branch, str) and branch else None


# -- the handoff a baton carries, as a session is shown it ---------------------------

def baton_freshness(opened, runner, record: BatonRecord) -> str | None:
    """The one-line freshness of the handoff a baton carries (``domain.batons.freshness_line``).

    None when that handoff recorded no repository head. Reads git and the
    artifacts of the current worktree now, as ``baton resume`` does.
    """
    doc = runner.get("handoffs", record.id) if "handoffs" in runner.by_name else None
    if not isinstance(doc, dict):
        return None
    handoff: Any = stored_record(doc)
    if handoff is None:  # not shaped as the fold writes a record: read by the model, which says why
        handoff = __import__("baton.domain.handoff", fromlist=["stored_handoff"]).stored_handoff(doc)
    repo = handoff.project.repository
    if repo is None or not repo.head:
        return None
    report = live_freshness(opened.paths.worktree_folder, handoff, opened.policy)
    return freshness_line(report, record.id)


def quiet_freshness(opened, runner, record: BatonRecord | None) -> str | None:
    """``baton_freshness`` for views that must never fail on it (session begin, show): None on any error."""
    if record is None:
        return None
    try:
        return baton_freshness(opened, runner, record)
    except Exception:  # noqa: BLE001 - a freshness we cannot compute is left out, never an error
        return None


def shown(opened, shown_baton: Shown) -> Shown:
    """A result showing a baton (``record``), with the freshness line and the
    carried handoff's lines it shows beside it (``freshness``, ``carried``):
    ``session handoff`` and ``session begin`` read them only when there is one."""
    view: Any = shown_baton
    runner, record = opened.runner, view.record
    return replace(view, freshness=quiet_freshness(opened, runner, record), carried=carried_lines(runner, record))


def carried_lines(runner, record: BatonRecord | None) -> tuple[str, ...]:
    """The objective and state of the rich handoff a baton hands on
    (``domain.batons.carried_handoff_lines``); nothing on any error: a view
    never fails on them."""
    if record is None or "handoffs" not in runner.by_name:
        return ()
    try:
        return carried_handoff_lines(runner.get("handoffs", record.id))
    except Exception:  # noqa: BLE001 - an unreadable record adds nothing to the section
        return ()
