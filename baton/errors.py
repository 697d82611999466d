"""Every error Baton reports, as one small hierarchy that maps onto exit codes.

Exit codes follow the specification (§11): 2 input error, 3 validation
failure, 4 not found or conflict, 5 policy block. Storage failures that are not
the user's doing exit 1. Nothing above the ledger ever sees an ``OSError`` or a
``sqlite3`` error: they are translated here, at the boundary.
"""

from __future__ import annotations

from baton.domain.regexes import lazy

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (a prompt hook never needs it)
if TYPE_CHECKING:
    from typing import Any, Mapping

_PARAMETER = lazy(r"`([a-z][a-z0-9_]*)`")


def named_parameters(text: str, names: Mapping[str, str]) -> str:
    """``text`` with each parameter it names (`` `max_bytes` ``) spelled as ``names`` spells it
    (``--max-bytes``); one ``names`` lacks keeps its own name. An adapter's words for a message."""
    return _PARAMETER.sub(lambda m: names.get(m.group(1), m.group(1)), text)


class BatonError(Exception):
    """Base of every error Baton raises on purpose.

    A message names the use case's parameters in backquotes (`` `max_bytes`
    must be…``), never an adapter's spelling: each adapter names its own
    options with ``name_parameters`` (the CLI says ``--max-bytes``, MCP
    ``max_bytes``).
    """

    exit_code = 1
    code = "error"

    def __init__(self, message: str, *, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or {}

    def name_parameters(self, names: Mapping[str, str]) -> "BatonError":
        """Spell the parameters this message names as the adapter's caller knows them
        (a parameter ``names`` lacks keeps its own name); returns ``self``."""
        self.message = named_parameters(self.message, names)
        self.args = (self.message,)
        return self

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message, "exit_code": self.exit_code}
        if self.details:
            out["details"] = self.details
        return out


class InputError(BatonError):
    """The user's input is malformed or incomplete; nothing was written."""

    exit_code = 2
    code = "input_error"


class HandoffInputError(InputError):
    """A handoff body could not be read. ``problems`` lists every one of them
    as ``"<field path>: <message>"``; each is also attached as a note, the way
    an ``ExceptionGroup`` from cattrs carries one note per field."""

    code = "invalid_handoff"

    def __init__(self, problems: list[str], *, message: str | None = None) -> None:
        problems = list(problems)
        head = message or f"the handoff has {len(problems)} problem{'s' if len(problems) != 1 else ''}"
        super().__init__(head + (": " + "; ".join(problems) if problems else ""), details={"problems": problems})
        self.problems = problems
        for p in problems:
            self.add_note(p)


class EnvelopeError(InputError, ValueError):
    """A line or a draft is not a well-formed event envelope."""

    code = "bad_envelope"

    def __init__(self, message: str) -> None:
        super().__init__(message)


class ConfigError(InputError):
    """The project's configuration (``.baton/config.json``: the file, a section of it, the policy,
    ``.baton/policy.json``) does not read as one: every command stops (exit 4), naming the file and
    every problem; nothing is half-applied. An ``InputError`` (the user's own file) with its own code."""

    exit_code = 4
    code = "config_error"


class PolicyConfigError(InputError, ValueError):
    """A rule or policy setting is malformed (the caller names the file)."""

    code = "policy_config_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)


class ValidationFailed(BatonError):
    """A handoff or the ledger failed a check."""

    exit_code = 3
    code = "validation_failed"


class LedgerCorrupt(ValidationFailed):
    """A feed is damaged somewhere other than its tail: reported, never skipped."""

    code = "ledger_corrupt"


class PromotionRefused(ValidationFailed):
    """The record is in a promotable state but does not meet §7.2's ready requirements (exit 3)."""

    code = "not_ready"

    def __init__(self, handoff_id: str, problems: list[str]) -> None:
        fields = [problem.partition(": ")[0] for problem in problems]
        codes = [str(getattr(problem, "code", "") or "") for problem in problems]
        super().__init__(f"handoff {handoff_id} cannot become ready: " + "; ".join(problems),
                         details={"id": handoff_id, "problems": [str(p) for p in problems], "fields": fields,
                                  "codes": codes})
        self.problems = list(problems)
        self.fields = fields
        """The record field each of ``problems`` is about (``open_items``,
        ``work.title``, ``validation.status``…), in its order: each adapter
        says how its caller fills it (the command line its flag)."""
        self.codes = codes
        """What each of ``problems`` is (``domain.readiness``: ``missing``, ``not_validated``…; empty
        for a problem given as plain text): an adapter words it by field and code, not by its text."""
        for p in problems:
            self.add_note(p)


class RemoteRefRefused(ValidationFailed):
    """The remote's ledger ref is not one this version can read (malformed, or
    another format): nothing is imported or pushed (exit 3)."""

    code = "remote_ref_refused"


class LocalRefRefused(ValidationFailed):
    """This clone already has a ref of the ledger ref's name that is not a Baton
    ledger commit (a tag, someone's commit, a symbolic ref): a sync would replace
    it, so nothing is imported or pushed (exit 3, as ``RemoteRefRefused``)."""

    code = "local_ref_refused"


class MergeUnresolved(ValidationFailed):
    """A merge without an explicit resolution decision (exit 3): nothing is written."""

    code = "merge_unresolved"


class NotFound(BatonError):
    exit_code = 4
    code = "not_found"


class NotInitialized(NotFound):
    code = "not_initialized"


class FolderGone(NotFound):
    """The folder a command runs in (or a hook's session works in) is gone — moved or
    deleted while a shell or harness was in it — and nothing else names the project
    (exit 4): said in words, never an internal error (``project.current_folder``)."""

    code = "folder_gone"


class NoSyncRemote(NotFound):
    """``baton sync`` has no git repository or no such remote to sync with (exit 4)."""

    code = "no_sync_remote"


class GitUnsupported(NoSyncRemote):
    """``baton sync`` in (or to) a git repository whose object format is not SHA-1 (exit 4):
    refused before anything is fetched or written."""

    code = "git_unsupported"


class RemoteUnreachable(NotFound):
    """The sync remote could not be read or written (exit 4); nothing changed locally."""

    code = "remote_unreachable"


class RemoteOtherProject(NoSyncRemote):
    """The sync remote's ledger is another Baton project's (exit 4): nothing imported or pushed."""

    code = "remote_other_project"


class FeedOtherProject(NoSyncRemote):
    """A feed in this clone's ``.baton/ledger/`` that no sync shared was initialised as another
    project only (copied in by hand): a sync never publishes it (docs/sync.md)."""

    code = "feed_other_project"


class BatonTracked(NoSyncRemote):
    """git tracks files under ``.baton/`` that ``.baton/.gitignore`` keeps out (``git add -f``):
    a sync is refused until they are untracked (docs/sync.md, "A .baton/ committed to git")."""

    code = "baton_tracked_by_git"


class RemoteWorkingClone(NoSyncRemote):
    """The sync remote is another clone's working repository holding a Baton project (exit 4):
    its ledger ref is that clone's own, never pushed into; nothing imported or pushed."""

    code = "remote_working_clone"


class RemoteAuthFailed(RemoteUnreachable):
    """The sync remote (or a proxy) refused the credentials (exit 4); nothing changed locally."""

    code = "remote_auth_failed"


class Conflict(BatonError):
    """The state changed under the caller (optimistic concurrency), or the
    requested transition is not allowed from the current state."""

    exit_code = 4
    code = "conflict"


class StreamVersionConflict(Conflict):
    code = "stream_version_conflict"

    def __init__(self, stream: str, expected: int, actual: int) -> None:
        super().__init__(
            f"stream {stream!r} is at version {actual}, but version {expected} was expected",
            details={"stream": stream, "expected": expected, "actual": actual},
        )
        self.stream = stream
        self.expected = expected
        self.actual = actual


SYSTEM_ACTIONS = ("supersede", "flag_conflicted")
"""State-machine actions Baton performs itself, never a person or agent."""


class TransitionError(Conflict):
    """The action is not allowed from the record's current state (exit 4).

    ``allowed`` names the state machine's actions; adapters may add the
    commands that perform them (``hints``), since only they know their own
    command names."""

    code = "invalid_transition"

    def __init__(self, *, handoff_id: str, status: str, flags: tuple[str, ...], action: str,
                 allowed: tuple[str, ...], reason: str | None = None) -> None:
        state = status + (f" (flagged {', '.join(flags)})" if flags else "")
        message = f"cannot {action} handoff {handoff_id}: it is {state}"
        if reason:
            message += f"; {reason}"
        # Superseding and flagging a conflict are done by Baton itself (a
        # promoted amendment supersedes its parent; a merge of feeds flags a
        # conflict): no command performs them, so a message never offers them.
        offered = [a for a in allowed if a not in SYSTEM_ACTIONS]
        message += "; allowed: " + (", ".join(offered) if offered else "nothing (terminal state)")
        # ``allowed`` is the state machine's whole list; ``offered`` the part a
        # caller can ask for, which is what the message lists.
        super().__init__(message, details={"id": handoff_id, "status": status, "flags": list(flags),
                                           "action": action, "allowed": list(allowed), "offered": offered})
        self.status = status
        self.action = action
        self.allowed = allowed

    def name_actions(self, performers: Mapping[str, str], words: Mapping[str, str], *, key: str) -> None:
        """Say the state machine's actions as an adapter's caller performs them:
        ``performers`` maps an action to the adapter's command or tool, ``words``
        an action to how the refusal says it (``{id}``: the handoff). The list of
        allowed actions becomes "what it takes now: …" (``details[key]`` keeps
        the performers, ``details`` the actions)."""
        named = list(dict.fromkeys(performers[a] for a in self.allowed if a in performers))
        said = words.get(self.action)
        if said is not None:
            handoff_id = self.details.get("id")
            self.message = self.message.replace(f"cannot {self.action} handoff {handoff_id}",
                                                said.format(id=handoff_id), 1)
        if named:
            offered = self.details.get("offered") or []
            listed = "; allowed: " + ", ".join(offered)
            if self.message.endswith(listed) and all(a in performers for a in offered):
                self.message = f"{self.message[:-len(listed)]}; what it takes now: {', '.join(named)}"
            else:
                self.message = f"{self.message} ({key}: {', '.join(named)})"
            self.details = {**self.details, key: named}
        self.args = (self.message,)


class AmbiguousId(Conflict):
    code = "ambiguous_id"


class BatonAlreadyClaimed(Conflict):
    code = "baton_already_claimed"


class BatonSuperseded(Conflict):
    code = "baton_superseded"


class BatonNotPending(Conflict):
    code = "baton_not_pending"


class BatonNotYours(Conflict):
    """A dismissal of a private baton left for another owner by someone else, without the
    override that makes it deliberate (exit 4; docs/batons.md, "Dismissing a baton")."""

    code = "baton_not_yours"


class HandoffNotYours(Conflict):
    """An archive of a live handoff another owner captured, without the override that makes it
    deliberate (exit 4; docs/batons.md, "Dismissing a baton": the rule a dismissal is held to)."""

    code = "handoff_not_yours"


class BatonKeyHeld(Conflict):
    """A private baton's key holds a pending baton of another exact owner or branch that encodes
    alike (``feature/x`` and ``feature_x``): leaving this one would supersede it (exit 4)."""

    code = "baton_key_held"


class GitLockHeld(Conflict):
    """``baton sync`` found a git lock file in this clone's repository (exit 4):
    a git process writing there now, or one that died (a killed sync).
    Nothing was pushed; the message names the lock and how to remove it."""

    code = "git_lock_held"


class LedgerBusy(Conflict):
    """Another process held the ledger lock longer than the caller may wait (exit 4).

    Its message is ``reason`` (what happened) and, when given, ``advice``
    (what a person is to do about it) after it: a caller that does something
    else about it (a hook that keeps its work for a process that waits) says
    the ``reason`` with its own words instead of the advice."""

    code = "ledger_busy"
    TRY_AGAIN = "try again when it is done"
    """The advice of a lock a person's command met."""

    def __init__(self, reason: str, *, advice: str | None = None, details: dict[str, Any] | None = None) -> None:
        super().__init__(f"{reason}; {advice}" if advice else reason, details=details)
        self.reason = reason
        self.advice = advice

    @classmethod
    def reason_of(cls, said: str) -> str:
        """The reason in what another process said of a lock it met (a line of
        its log, where the error's parts are no longer apart): without the
        advice ``TRY_AGAIN`` and what the message says after it."""
        return said.partition(f"; {cls.TRY_AGAIN}")[0]


class IndexBehind(Conflict):
    """The index is further behind the ledger than the caller may fold in its
    time (a hook under its deadline: ``fold_limit``); nothing was folded (exit 4).
    ``details``: ``bytes`` to fold, ``limit``, ``rebuild`` (whether it is a full
    replay) and ``reason``."""

    code = "index_behind"


class IndexPinned(Conflict):
    """A write met an index pinned in the past (``baton rebuild --until``): writes
    wait for a plain ``baton rebuild`` to return it to the present (exit 4).
    ``details``: ``pinned_until``, and, for a hook whose work was kept for that
    rebuild (``baton.commands.deferred``), ``deferred``."""

    code = "index_pinned"


class PortInUse(Conflict):
    """The port is taken by another program (exit 4)."""

    code = "port_in_use"


class PolicyBlock(BatonError):
    """A security or privacy policy refused the operation."""

    exit_code = 5
    code = "policy_block"


class SecretInIdentifier(PolicyBlock):
    """An owner, branch, session id, harness id or label looks like a secret
    (exit 5). An identifier becomes a key, a stream and a file name and is
    never stored redacted, so it is refused; ``details`` names the fields,
    the forms and the rules, never the value (``baton.domain.identifiers``)."""

    code = "secret_in_identifier"


class UnsafePath(PolicyBlock):
    """A path was refused by the path policy (exit 5).

    ``reason`` is a code of ``baton.domain.paths``; ``path`` is the text as
    given, shown with ``repr`` in the message so a control character cannot
    forge output.
    """

    code = "unsafe_path"

    def __init__(self, path: object, reason: str, why: str, **details: object) -> None:
        shown = path if isinstance(path, str) else repr(path)
        super().__init__(f"path {shown!r} refused: {why}",
                         details={"path": shown, "reason": reason, **details})
        self.path = shown
        self.reason = reason


class StorageError(BatonError):
    """The disk or the index failed; the operation did not complete."""

    exit_code = 1
    code = "storage_error"


class WriteFailed(StorageError):
    """Appending to a feed failed (the file system refused the write, or did not confirm it).
    ``details``: ``path``, ``errno`` (its name: ``EFBIG``, ``ENOSPC``, ``EIO``…) and
    ``recorded``: false when the write itself failed (nothing was recorded: a line it cut
    short is set aside by the next write), null when only its sync did (the events were
    written but the disk did not confirm them)."""

    code = "write_failed"


class RecordedNotIndexed(StorageError):
    """The command's events ARE in the ledger (appended and synced), but the
    index failed while folding them (a full disk, say): exit 1 all the same,
    saying so, because running the command again would record it twice. The
    index only lags; the next command that can write it catches up.
    ``details``: ``recorded`` (the event ids), ``handoffs`` (the handoffs they
    name) and ``index_error``."""

    code = "recorded_not_indexed"

    @classmethod
    def of(cls, events: Any, exc: StorageError) -> "RecordedNotIndexed":
        ids = [event.id for event in events]
        handoffs = sorted({event.stream.partition("/")[2] for event in events
                           if event.stream.startswith("handoff/")})
        named = f" (handoff {', '.join(handoffs)})" if handoffs else ""
        message = (f"recorded in the ledger: {len(ids)} event{'' if len(ids) == 1 else 's'}{named}, but {exc.message}. "
                   "Do not run the command again: it is done. The index catches up at the next "
                   "command once it can be written (a full disk, a read-only index file: fix that first).")
        return cls(message, details={"recorded": ids, "handoffs": handoffs, "index_error": exc.message})


class ReadOnlyProject(StorageError):
    """A writing command on a ``.baton/`` this process may not write (exit 1).

    Reading commands still answer, from a replay in memory."""

    code = "read_only"


class DiskFull(ReadOnlyProject):
    """A writing command when the disk holding ``.baton/`` is full (``files.disk_full``):
    refused before it writes a byte (exit 1). Reading commands still answer, from a
    replay in memory, as on a read-only ``.baton/``."""

    code = "disk_full"

