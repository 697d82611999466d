"""The ``baton`` command line: parse, call one function of ``baton.commands``,
print. No decisions are made here.

Every command takes ``--json`` (a stable shape on stdout) and ``--project``.
Errors go to stderr as one line, never a traceback (``BATON_DEBUG=1`` shows
one); with ``--json`` the error object is also printed on stdout. Exit codes:
0 ok, 2 input error, 3 validation failure, 4 not found or conflict, 5 policy
block, 1 anything else.

This module holds the command line's words (every command, its options and
help) and the run: parse, dispatch, print. What a command does is a handler
in ``baton.cli_handlers``, named where the command is defined
(``set_defaults(func="ledger:forget")``) and imported by ``handler``, the
one place this module loads anything lazily; what is printed goes through
``baton.cli_handlers.output``, loaded the same way when there is something
to screen. So ``baton --help`` builds parsers and nothing more, and a hook
loads its own handler and nothing of the other commands.
"""

from __future__ import annotations

import argparse
import os
import sys

from baton import __version__
from baton.cli_run import (  # noqa: F401 - the run's names, kept here where the parser's users find them
    ACTION_WORDS,
    COMMAND_FOR_ACTION,
    HANDLERS,
    HARNESSES,
    HOOK_FUNC,
    HOOK_PATH_COMMANDS,
    JSON_LINES_COMMANDS,
    OPENED,
    OUTPUT,
    PROJECTLESS,
    RECORD_FIELDS,
    SUBCOMMAND_GROUPS,
    USAGE,
    _command_word,
    _refusal,
    dispatch,
    fixed_run,
    handler,
    handler_name,
    hook_run,
    load,
    main,
    refused_hook_run,
    run,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (a prompt hook never needs it)
if TYPE_CHECKING:
    from typing import Any, Callable, Sequence

    Handler = Callable[..., Any]

def _common() -> argparse.ArgumentParser:
    common = _Parser(add_help=False)
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                        help="print a stable JSON result on stdout")
    common.add_argument("--project", metavar="DIR", default=argparse.SUPPRESS,
                        help="project root (default: $BATON_PROJECT, else the git top level, else the current directory)")
    return common


# -- ledger core -------------------------------------------------------------

def add_ledger_commands(sub, common) -> None:
    _add_ledger_core(sub, common)
    _add_ledger_care(sub, common)


def _add_ledger_core(sub, common) -> None:
    """init, log, verify, rebuild, sync: making, reading and sharing the ledger."""
    p = sub.add_parser("init", parents=[common], help="make this directory a Baton project",
                       description="Create .baton/ (config, ledger, ignore file) and record the first event. "
                                   "Running it again changes nothing. Never touches global git configuration.")
    p.add_argument("--project-id", metavar="ID", help="use this project id instead of a new UUIDv7")
    p.set_defaults(func="ledger:init")

    p = sub.add_parser("log", parents=[common], help="show the project's events in ledger order",
                       description="Events merged across every feed by (hlc, writer, seq): the newest 50 "
                                   "unless --limit says otherwise (--limit 0: every one). With --json, one "
                                   "event per line.")
    p.add_argument("--type", metavar="T", help="event type, exact or a glob such as 'handoff.*'")
    p.add_argument("--stream", metavar="S", help="stream, exact or a glob such as 'baton/*'")
    p.add_argument("--since", metavar="X", help="only events after this event id or RFC 3339 time")
    p.add_argument("--until", metavar="X", help="only events up to this event id or RFC 3339 time")
    p.add_argument("--limit", metavar="N", type=int,
                   help="only the newest N matching events (default 50; 0: every event); when some are left "
                        "out, stderr says how many (--json: a last line {\"truncated\": true, \"limit\", \"more\"})")
    p.set_defaults(func="ledger:log", json_lines=True)

    p = sub.add_parser("verify", parents=[common], help="check every feed's hash chain",
                       description="Check every feed's chain, digests, sequence gaps and forks, and every "
                                   "stream's versions. Exit 0 when all hold, 3 when any does not.")
    p.set_defaults(func="ledger:verify", feed_links=True)

    p = sub.add_parser("rebuild", parents=[common], help="drop and replay every projection",
                       description="Drop every projection and replay the ledger. With --until, show the "
                                   "project as of that event or time (the index stays pinned there until "
                                   "a plain rebuild). With --if-needed, only bring the index up to date: "
                                   "fold what the feeds gained, and replay only when the index must be "
                                   "(new, damaged, made by other projections, or a feed was rewritten).")
    p.add_argument("--until", metavar="ID|TIME", help="stop after this event id, or at this RFC 3339 time")
    p.add_argument("--if-needed", action="store_true",
                   help="bring the index up to date; replay only when it must be (what a hook starts in the "
                        "background when the index is too far behind for its time)")
    p.add_argument("--lock-wait", metavar="SECONDS", type=float,
                   help="give up (exit 4, ledger_busy) when another process holds the ledger lock that long; "
                        "default: wait as long as it takes")
    p.set_defaults(func="ledger:rebuild")

    p = sub.add_parser("sync", parents=[common], help="share the ledger's feeds through a git remote",
                       description="Fetch the remote's ledger ref, import the feeds it has beyond yours "
                                   "(verified first), publish yours, and push the union. Only the ledger ref "
                                   "moves: never a branch, the index or the working tree. Payloads a recorded "
                                   "`baton forget` erased on any replica are erased on every copy. Any "
                                   "other feed that is not a fast-forward is refused and named (exit 4; 3 "
                                   "when it fails verification). A remote that went back (holds less of a feed than it held) "
                                   "gets the feed back, and the sync exits 3. No remote, or one that cannot be "
                                   "reached: exit 4, nothing changed. See docs/sync.md.")
    p.add_argument("--remote", metavar="REMOTE", default="origin",
                   help="a git remote's name, or a repository's path or URL (a bare repository's path, file://, "
                        "http(s)://, ssh://, host:path) for this sync only, as `git fetch URL` takes one; "
                        "nothing is configured (default: origin)")
    p.add_argument("--ref", metavar="REF", default="refs/baton/ledger",
                   help="the ref the feeds live on, under refs/baton/ (default: refs/baton/ledger); a branch, "
                        "tag or any ref that is not a Baton ledger commit is refused, never replaced")
    p.add_argument("--restore-own-feed", action="store_true",
                   help="this clone was restored from a backup: take the events of its own feed the remote has "
                        "beyond the local file (verified; a copy that rewrites the feed is still refused). "
                        "Without it, such a copy is refused as own_feed")
    p.add_argument("--accept-project", metavar="ID",
                   help="merge the remote's ledger although its feeds were initialised as project ID, not "
                        "this one (two clones that ran `baton init` apart). Without it, a remote whose "
                        "ledger names only other projects is refused: remote_other_project, exit 4, "
                        "nothing imported or pushed. Given where the remote needs none (empty, sharing a "
                        "feed with this clone, or naming this project): input_error, exit 2")
    p.set_defaults(func="ledger:sync")


def _add_ledger_care(sub, common) -> None:
    """doctor, audit, forget, gc, repair: looking after the project."""
    p = sub.add_parser("doctor", parents=[common], help="check the installation and the project",
                       description="Report what Baton sees here: versions, git, config, ledger, index.")
    p.set_defaults(func="doctor:doctor")

    p = sub.add_parser("audit", parents=[common], help="what the project holds: fields, redactions, references, policy",
                       description="Report the data fields the project's records hold, the redactions made "
                                   "(counts per rule, never values), external references, the policy in force "
                                   "and the records eligible for deletion (spec §16). Reads only.")
    p.set_defaults(func="ledger:audit")

    p = sub.add_parser("forget", parents=[common], help="erase one handoff's payloads for good (recorded)",
                       description="Erase the payloads of one handoff's events and of the batons that carried "
                                   "it, keeping every digest so all chains still verify, and record the erasure "
                                   "as a handoff.forgotten event. The index is rebuilt and materialized files "
                                   "and quarantined fragments holding the text are removed. Asks for "
                                   "confirmation on a terminal; elsewhere it needs --yes (exit 2 without it, "
                                   "showing the plan).")
    p.add_argument("id", metavar="ID", help="the handoff: full id, short id or unique prefix")
    p.add_argument("--reason", metavar="R", help="why (recorded in the event; screened for secrets)")
    p.add_argument("--yes", action="store_true", help="erase without asking")
    p.set_defaults(func="ledger:forget")

    p = sub.add_parser("gc", parents=[common], help="remove rebuildable caches (index, cache/)",
                       description="Remove only rebuildable local data: index.sqlite and .baton/cache/ "
                                   "(not the marks in cache/unprompted/). Never the ledger, quarantine or "
                                   "materialized records, and nothing while a feed fails its check (exit 3: "
                                   "run `baton verify`, then `baton repair`).")
    p.add_argument("--dry-run", action="store_true", help="say what would be removed; remove nothing")
    p.set_defaults(func="ledger:gc")

    p = sub.add_parser("repair", parents=[common], help="set a damaged feed's bad lines aside into quarantine",
                       description="Move every line of a damaged feed from its first bad line on, byte for "
                                   "byte, into .baton/quarantine/ with a manifest, cut the feed there and "
                                   "record a ledger.repaired event, so the ledger verifies again. A feed "
                                   "found shorter than a recorded head is acknowledged the same way; a feed "
                                   "that is a symbolic link is removed (never the file it points to). This "
                                   "clone's own feed, once synced, is put back as its ledger ref holds it, "
                                   "the local lines that do not follow it set aside. A repair killed midway "
                                   "is finished by running it again. Never "
                                   "implicit: without --yes it changes nothing. Exit 0 when the ledger then "
                                   "verifies, 2 without --yes, 3 when problems remain.")
    p.add_argument("--feed", metavar="F", help="repair only this feed (a writer id)")
    p.add_argument("--dry-run", action="store_true", help="show what would be set aside; change nothing")
    p.add_argument("--yes", action="store_true", help="do it: set the lines aside and record the repair")
    p.add_argument("--despite-synced", action="store_true",
                   help="cut this clone's own feed although the last sync saw it hold more than the cut "
                        "keeps (its ledger.repaired event then forks the feed against the remote's copy); "
                        "without it the repair puts the feed back as the ledger ref holds it instead")
    p.set_defaults(func="ledger:repair", feed_links=True)


# -- the policy and this clone's trust in it -------------------------------------

def add_policy_commands(sub, common) -> None:
    policy = sub.add_parser("policy", help="show the security policy; trust or untrust its widening settings",
                            description="The project's security policy (.baton/config.json's policy section and "
                                        ".baton/policy.json, both committed). Settings that widen what Baton "
                                        "reads or runs, or weaken what it redacts (allowed_roots, "
                                        "recheck_allowlist, disable_rules, actions that lower a block, "
                                        "entropy_threshold or min_secret_length above the defaults), apply "
                                        "only once this clone trusts exactly their values. See docs/security.md, "
                                        "\"Trusting a committed policy\".")
    psub = policy.add_subparsers(dest="policy_command", metavar="COMMAND")
    policy.set_defaults(func=None)

    p = psub.add_parser("show", parents=[common], help="the policy's sources, widening settings and trust",
                        description="Show where the policy comes from, the settings of it that widen what Baton "
                                    "does, whether this clone trusts them (trusted, untrusted, or none to "
                                    "trust), their digest, and the policy in force here. Changes nothing.")
    p.set_defaults(func="policy:policy_show", says_trust=True)

    p = psub.add_parser("trust", parents=[common], help="apply the policy's widening settings in this clone",
                        description="A person's decision: at a terminal it shows the widening settings and asks y/N; "
                                    "off a terminal (an agent, a script, --json) it needs --digest SHA, the digest "
                                    "`baton policy show` printed, and otherwise exits 2. It records their digest as "
                                    "trusted in the repository's git directory (<gitdir>/baton/policy-trust.json, "
                                    "which no clone brings; .baton/policy-trust.json outside git), bound to this "
                                    "project root. Any change to them makes them untrusted again. A "
                                    "policy that widens nothing has nothing to trust (exit 0, nothing written).")
    p.add_argument("--digest", metavar="SHA",
                   help="trust only if the settings' digest is SHA (as `baton policy show` printed it); "
                        "otherwise exit 4 (conflict) and trust nothing")
    p.add_argument("--roll-back-signers", action="store_true",
                   help="trust an allowed-signers file older than the one trusted in this clone (one that brings "
                        "back a key a later version revoked, as on a branch cut before a key rotation), which is "
                        "otherwise refused with exit 4: it re-trusts the revoked keys for this whole clone")
    p.set_defaults(func="policy:policy_trust", says_trust=True)

    p = psub.add_parser("untrust", parents=[common], help="stop applying the policy's widening settings here",
                        description="Remove this checkout's trust record (in its git directory): the widening "
                                    "settings stop applying and every command uses the safe values.")
    p.set_defaults(func="policy:policy_untrust", says_trust=True)


# -- sessions, batons, bootstrap, metrics --------------------------------------

def _context_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--owner", metavar="O", help="owner (default: git user.email, user.name, OS user, 'local')")
    p.add_argument("--branch", metavar="B", help="branch (default: the current git branch, else 'unknown')")


def add_session_commands(sub, common) -> None:
    session = sub.add_parser("session", help="begin and end sessions; pass batons between them",
                             description="Sessions, their objectives, and session batons: next steps, failed "
                                         "approaches and open questions handed from one session to the next "
                                         "on the same owner and branch, claimed exactly once.")
    ssub = session.add_subparsers(dest="session_command", metavar="COMMAND")
    session.set_defaults(func=None)

    p = ssub.add_parser("begin", parents=[common], help="begin a session; claim and print the baton waiting",
                        description="Record a session, set its objective (or clear a stale one), and claim "
                                    "the eligible baton: this owner's on this branch, else the newest shared one.")
    p.add_argument("--harness", metavar="H", help="the harness running the session (claude-code, codex...)")
    p.add_argument("--session-id", "--session", metavar="ID", help="an opaque session id (default: a new UUIDv7)")
    p.add_argument("session_id_positional", metavar="ID", nargs="?",
                   help="the session id as a positional argument (the same as --session-id ID)")
    p.add_argument("--objective", metavar="TEXT", help="what this session is for, bound to owner and branch")
    _context_flags(p)
    p.set_defaults(func="sessions:session_begin")

    p = ssub.add_parser("end", parents=[common], help="end a session, optionally leaving a baton",
                        description="Record the end of a session and clear its objective. With --handoff-* "
                                    "flags (comma-separated once, or one item per repeated flag) or "
                                    "--handoff-input, leave a baton for the next "
                                    "session; a newer baton for the same owner and branch supersedes the older.")
    p.add_argument("session_id", metavar="ID", nargs="?",
                   help="the session id (or --session-id ID, as `session begin` and `bootstrap` take it)")
    p.add_argument("--session-id", "--session", dest="session_id_option", metavar="ID",
                   help="the session id, as an option (the same as the positional ID)")
    p.add_argument("--handoff-steps", metavar="A,B", action="append",
                   help="next steps, comma-separated (required for a baton); repeat the flag to give one step "
                        "per flag (commas kept), or write \\, for a comma")
    p.add_argument("--handoff-failed", metavar="X,Y", action="append",
                   help="failed approaches not to retry, comma-separated, or one per repeated flag")
    p.add_argument("--handoff-questions", metavar="Q,R", action="append",
                   help="open questions, comma-separated, or one per repeated flag")
    p.add_argument("--handoff-input", metavar="FILE",
                   help="the handoff payload as JSON ({nextSteps, failedApproaches, openQuestions, owner, "
                        "branch, shared}); '-' reads stdin")
    p.add_argument("--shared", action="store_true", help="share the baton with every owner and branch")
    p.add_argument("--harness", metavar="H", help="the harness that ran the session")
    _context_flags(p)
    p.set_defaults(func="session_end:session_end")

    p = ssub.add_parser("handoff", parents=[common], help="show, list, cancel, dismiss or scope batons",
                        description="Without options, show the baton the next session here would receive "
                                    "(without claiming it). --all lists every pending baton; --cancel cancels "
                                    "this owner's baton on this branch; --dismiss ID dismisses one pending baton; "
                                    "--from ID hands an existing handoff on as a baton.")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--all", action="store_true", help="list every pending baton")
    what.add_argument("--cancel", action="store_true", help="cancel this owner's pending baton on this branch "
                                                            "(another owner's, with --owner, only one you left, "
                                                            "or with --not-mine)")
    what.add_argument("--dismiss", metavar="ID", help="dismiss one pending baton by id: one left for you or one you "
                                                      "left, shared or not (another owner's baton left by "
                                                      "someone else only with --not-mine)")
    what.add_argument("--from", dest="from_id", metavar="ID", help="scope an existing handoff as a baton")
    p.add_argument("--shared", action="store_true", help="with --from: share it with every owner and branch")
    p.add_argument("--not-mine", action="store_true",
                   help="with --dismiss or --cancel: end a baton left for another owner by someone else "
                        "(refused otherwise, exit 4); its owner is told at their next session start")
    _context_flags(p)
    p.set_defaults(func="sessions:session_handoff")


def add_bootstrap_command(sub, common) -> None:
    p = sub.add_parser("bootstrap", parents=[common], help="the session-start brief, with the baton waiting",
                       description="Build a brief within --max-bytes: the active session handoff (claimed "
                                   "exactly once, only when the brief fits), the session objective, recent "
                                   "decisions and traps (failed approaches not to retry). --peek shows the "
                                   "same brief without claiming anything.")
    p.add_argument("--session-id", "--session", metavar="ID",
                   help="the session claiming the baton (default: a new UUIDv7, shown in the output)")
    p.add_argument("session_id_positional", metavar="ID", nargs="?",
                   help="the session id as a positional argument (the same as --session-id ID)")
    p.add_argument("--peek", action="store_true",
                   help="show what would be delivered without claiming it (nothing is written)")
    p.add_argument("--max-bytes", metavar="N", type=int, default=8192, help="brief size limit in bytes (8192)")
    _context_flags(p)
    p.set_defaults(func="sessions:bootstrap")


def add_metrics_command(sub, common) -> None:
    p = sub.add_parser("metrics", parents=[common], help="local metrics: batons created and claimed, sessions",
                       description="Counts kept in this project's ledger (handoff_created, handoff_claimed, "
                                   "cancellations, dismissals, sessions, events). Local only: nothing is sent.")
    p.add_argument("--local", action="store_true", default=True, help="local metrics (the only kind there is)")
    p.set_defaults(func="sessions:metrics")


# -- handoff lifecycle ----------------------------------------------------------

REPLACE_FLAGS = {
    "open_items": ("--replace-open-items", "description"),
    "decisions": ("--replace-decisions", "decision"),
    "evidence": ("--replace-evidence", None),
    "failed_attempts": ("--replace-failed-attempts", "approach"),
    "risks": ("--replace-risks", "description"),
    "artifacts": ("--replace-artifacts", None),
}
"""Each list ``handoff amend`` can replace whole: its flag, and the field a plain string stands for."""

_ID_HELP = ("handoff id: the full id, the 8-character short id or a prefix of it of 4+ characters, a prefix of "
            "the full id of 8+ characters, or 'latest' (the newest ready handoff of this branch)")
_ID_HELP_NOT_READY = ("handoff id: the full id, the 8-character short id or a prefix of it of 4+ characters, or a "
                      "prefix of the full id of 8+ characters")


def _content_flags(p: argparse.ArgumentParser, *, required_hint: bool) -> None:
    more = " (asked on a terminal when missing)" if required_hint else ""
    work = p.add_argument_group("work")
    work.add_argument("--title", metavar="TEXT", help="a short name for the work item" + more)
    work.add_argument("--objective", metavar="TEXT", help="the measurable outcome being pursued" + more)
    work.add_argument("--scope", metavar="GLOB", nargs="+", action="extend", help="paths/globs in scope (from the current directory)")
    work.add_argument("--constraint", metavar="TEXT", nargs="+", action="extend", help="non-negotiable constraints")
    work.add_argument("--done", metavar="TEXT", nargs="+", action="extend", help="definition-of-done items")
    work.add_argument("--work-state", choices=("in_progress", "completed", "blocked"),
                      help="explicit work state ('completed' can stand in for an open item)")
    summary = p.add_argument_group("summary")
    summary.add_argument("--current-state", metavar="TEXT", help="where the work stands now")
    summary.add_argument("--completed", metavar="TEXT", nargs="+", action="extend", help="finished threads")
    summary.add_argument("--in-progress", metavar="TEXT", nargs="+", action="extend", help="unfinished threads")
    summary.add_argument("--discovery", metavar="TEXT", nargs="+", action="extend", help="things learned")
    summary.add_argument("--why-it-matters", metavar="TEXT", help="why the work matters")
    records = p.add_argument_group("records (JSON objects; plain text where noted)")
    records.add_argument("--decision", metavar="JSON|TEXT", nargs="+", action="extend",
                         help='{"decision", "rationale", "alternatives_considered", "evidence_ids"} or the decision text')
    records.add_argument("--artifact", metavar="JSON|PATH[:ROLE]", nargs="+", action="extend",
                         help='{"path", "role", "description"} or PATH (role modified) or PATH:ROLE; the path is '
                              'taken from the current directory')
    records.add_argument("--evidence", metavar="JSON", nargs="+", action="extend",
                         help='{"type", "claim", "ref", "result", "output"}; output is kept only as a digest '
                              'and a bounded, redacted summary')
    records.add_argument("--failed-attempt", metavar="JSON|TEXT", nargs="+", action="extend",
                         help='{"approach", "outcome", "reason", "evidence_ids"} or the approach (outcome failed)')
    records.add_argument("--open-item", metavar="JSON|TEXT", nargs="+", action="extend",
                         help='{"description", "priority", "suggested_action", "acceptance_check"} or the description; '
                              'validation needs one item with suggested_action and acceptance_check (JSON), '
                              'or the work completed')
    records.add_argument("--risk", metavar="JSON|TEXT", nargs="+", action="extend",
                         help='{"description", "severity", "mitigation"} or the description')
    origin = p.add_argument_group("origin")
    origin.add_argument("--harness", metavar="NAME", help="codex, claude-code, cursor, gemini-cli, generic...")
    origin.add_argument("--model", metavar="NAME", help="a descriptive model id")
    origin.add_argument("--actor-type", choices=("agent", "human", "mixed"), help="who wrote it")
    origin.add_argument("--session", "--session-id", metavar="ID", help="an opaque session id")
    p.add_argument("--input", metavar="FILE", help="the payload as a JSON object ('-' reads stdin); flags are "
                                                   "merged over it")


def add_handoff_commands(sub, common) -> None:
    _add_checkpoint_commands(sub, common)
    handoff = sub.add_parser("handoff", help="prepare, validate, promote, list, show and amend handoffs",
                             description="The handoff lifecycle: draft -> validated -> ready -> resumed -> "
                                         "superseded | archived.")
    hsub = handoff.add_subparsers(dest="handoff_command", metavar="COMMAND")
    handoff.set_defaults(func=None)
    _add_handoff_checks(hsub, common)
    _add_handoff_reads(hsub, common)
    _add_handoff_amend(hsub, common)
    p = hsub.add_parser("archive", parents=[common], help="archive a handoff (terminal)",
                        description="Archive a handoff: it stays in the ledger and on disk, but is no longer "
                                    "offered for resuming.")
    p.add_argument("id", metavar="ID", help=_ID_HELP)
    p.add_argument("--reason", metavar="TEXT", help="why it is archived (at most 500 characters)")
    p.add_argument("--not-mine", action="store_true",
                   help="archive it even when it is another owner's: captured by someone else and not "
                        "resumed yet, or carrying a baton left for another owner by someone else (refused "
                        "otherwise, exit 4, as dismissing that baton is); its owner is told at their next "
                        "session start")
    p.set_defaults(func="handoffs:handoff_archive")


def _add_checkpoint_commands(sub, common) -> None:
    checkpoint = sub.add_parser("checkpoint", help="capture draft handoffs during a session",
                                description="Checkpoints are draft handoffs: captured from flags or JSON, "
                                            "redacted and path-checked before anything is written.")
    csub = checkpoint.add_subparsers(dest="checkpoint_command", metavar="COMMAND")
    checkpoint.set_defaults(func=None)
    p = csub.add_parser("create", parents=[common], help="capture a draft handoff",
                        description="Capture a draft handoff from flags and/or --input JSON. Secrets are "
                                    "redacted (or the capture refused, exit 5) and paths outside the project "
                                    "refused (exit 5) before the event is appended; malformed input exits 2 "
                                    "with every problem listed and nothing written.")
    _content_flags(p, required_hint=True)
    p.add_argument("--from", dest="from_id", metavar="ID", help="continue from this handoff (lineage 'continue')")
    p.add_argument("--trigger", choices=("manual", "threshold", "hook", "timeout", "pre_compaction"),
                   default="manual", help="what prompted the capture (default manual)")
    p.add_argument("--no-input", action="store_true", help="never ask questions, even on a terminal")
    p.set_defaults(func="drafts:checkpoint_create")


def _add_handoff_checks(hsub, common) -> None:
    """prepare, validate, ready: from a template to an immutable handoff."""
    p = hsub.add_parser("prepare", parents=[common], help="a template prefilled with git state and the objective",
                        description="Print a handoff template: repository head, branch, dirty state and changed "
                                    "files, the current session objective, and what a person or agent must "
                                    "complete. Never invents summary facts; writes nothing to the ledger.")
    p.add_argument("--from", dest="from_id", metavar="ID", help="start from this checkpoint's content")
    p.add_argument("--trigger", choices=("manual", "threshold", "hook"), default="manual",
                   help="what prompted the handoff (default manual)")
    p.add_argument("--output", metavar="FILE", help="also write the template JSON to FILE (which must not exist)")
    p.add_argument("--force", action="store_true", help="let --output overwrite an existing FILE")
    p.set_defaults(func="handoffs:handoff_prepare")

    p = hsub.add_parser("validate", parents=[common], help="run every §10 check and record the report",
                        description="Schema, policy, artifacts, repository, evidence, actionability, lineage "
                                    "and the continuity score. Exit 0 for pass or warn, 3 for fail. --recheck "
                                    "re-runs recorded command evidence, only commands on the policy's "
                                    "recheck_allowlist (anything else: exit 5, nothing run).")
    p.add_argument("id", metavar="ID", help=_ID_HELP_NOT_READY)
    p.add_argument("--recheck", action="store_true", help="re-run allowlisted evidence commands (no shell)")
    p.set_defaults(func="handoffs:handoff_validate")

    p = hsub.add_parser("ready", parents=[common], help="promote a validated handoff to ready (immutable)",
                        description="Promote a validated handoff. A warn needs --accept-warnings REASON; a fail "
                                    "cannot be promoted (exit 3); from any other state exit 4. A ready handoff "
                                    "never changes: amend creates a corrected child.")
    p.add_argument("id", metavar="ID", help=_ID_HELP_NOT_READY)
    p.add_argument("--accept-warnings", metavar="REASON", help="why the validation warnings are acceptable")
    p.set_defaults(func="handoffs:handoff_ready")


def _add_handoff_reads(hsub, common) -> None:
    """list, show."""
    p = hsub.add_parser("list", parents=[common], help="list handoffs, newest first",
                        description="List handoffs, newest first: the newest 50 unless --limit says otherwise "
                                    "(--limit 0 lists all; when some are left out, stderr says how many match). "
                                    "--work searches title, objective and summary "
                                    "(full text, every word as a prefix). Session batons are listed apart "
                                    "(--kind baton) or with the handoffs (--kind all). Each row names who "
                                    "captured it (the owner: git user.email, else user.name; else the writer "
                                    "id of its feed) and marks the reader's own \"(you)\".")
    p.add_argument("--status", metavar="S", help="draft, validated, ready, resumed, superseded or archived")
    p.add_argument("--work", metavar="QUERY", help="full-text search over title, objective and summary")
    p.add_argument("--kind", choices=("handoff", "baton", "all"), default="handoff",
                   help="handoffs (default), the session batons `session end` leaves, or all")
    p.add_argument("--branch", metavar="B", help="only records of this branch")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--by", metavar="OWNER", help="only records captured by this owner (git email or name) "
                                                   "or writer id")
    who.add_argument("--mine", action="store_true", help="only records you captured (your owner here)")
    p.add_argument("--limit", metavar="N", type=int,
                   help="at most N, the newest (default 50; 0 lists every match)")
    p.add_argument("--cursor", metavar="C",
                   help="the next page: the cursor a listing cut short by its limit gave (next_cursor), "
                        "with the same filters")
    p.set_defaults(func="handoffs:handoff_list")

    p = hsub.add_parser("show", parents=[common], help="show one handoff as json, yaml, md or prompt",
                        description="Show a handoff: the canonical JSON record, the same as YAML, a full "
                                    "Markdown view, or the bounded resume brief (prompt).")
    p.add_argument("id", metavar="ID", help=_ID_HELP)
    p.add_argument("--format", choices=("json", "yaml", "md", "prompt"), default="json", help="default json")
    p.add_argument("--max-tokens", metavar="N", type=int, help="token budget for --format prompt (default 1200)")
    p.add_argument("--as-of", metavar="EVENT_ID|TIME",
                   help="the record as it was after this event id or at this RFC 3339 time (a replay in memory; "
                        "the live index is not touched)")
    p.set_defaults(func="handoffs:handoff_show")


def _add_handoff_amend(hsub, common) -> None:
    p = hsub.add_parser("amend", parents=[common], help="revise a draft, or create a corrected child of a ready one",
                        description="A draft or validated handoff is revised in place (validate it again). A "
                                    "ready, resumed or superseded one never changes: the amendment is a new draft "
                                    "child with relation 'amend', which supersedes its parent once ready.")
    p.add_argument("id", metavar="ID", help=_ID_HELP)
    _content_flags(p, required_hint=False)
    edits = p.add_argument_group("taking things out (recorded with the amendment)")
    edits.add_argument("--close-item", metavar="ID", nargs="+", action="extend",
                       help="close an open item (e.g. O-1): it leaves the open items and its description joins "
                            "summary.completed")
    edits.add_argument("--drop", metavar="ID", nargs="+", action="extend",
                       help="remove any item by id (a decision D-2, evidence E-1, failed attempt F-1, open item O-3)")
    for section, (flag, _) in REPLACE_FLAGS.items():
        edits.add_argument(flag, dest="replace_" + section, metavar="FILE",
                           help=f"replace the {section.replace('_', ' ')} whole with FILE's JSON array ('-' reads "
                                "stdin)")
    p.add_argument("--no-input", action="store_true",
                   help="never ask questions, even on a terminal (as for checkpoint create; amend asks none)")
    p.set_defaults(func="drafts:handoff_amend")


def add_resume_command(sub, common) -> None:
    p = sub.add_parser("resume", parents=[common], help="render the resume brief of a ready handoff",
                       description="Render the bounded resume brief of a ready handoff, with its freshness "
                                   "(fresh, partially_stale, stale, unknown) derived now and flagged before the "
                                   "next actions. --mark-resumed records the resume.")
    p.add_argument("id", metavar="ID", nargs="?", default="latest", help=_ID_HELP + " (default latest)")
    p.add_argument("--format", choices=("prompt", "md", "json"), default="prompt", help="default prompt")
    p.add_argument("--mark-resumed", action="store_true", help="record that this session resumed the handoff")
    p.add_argument("--max-tokens", metavar="N", type=int, help="token budget for the brief (default 1200)")
    p.add_argument("--session", "--session-id", metavar="ID", help="the resuming session's opaque id (with --mark-resumed)")
    p.add_argument("--harness", metavar="NAME", help="the resuming harness (with --mark-resumed)")
    p.add_argument("--any-branch", action="store_true",
                   help="with latest: the project's newest ready handoff, not this branch's")
    p.set_defaults(func="resume:resume")


# -- lineage: fork, merge, the graph -------------------------------------------------

def add_lineage_commands(sub, common) -> None:
    p = sub.add_parser("fork", parents=[common], help="a draft child of a handoff on a new branch",
                       description="Create a draft child of ID with lineage relation 'fork' (the parent is never "
                                   "modified). It starts from the parent's work, summary, open items, failed "
                                   "attempts and risks; the parent's decisions are inherited as context.")
    p.add_argument("id", metavar="ID", help=_ID_HELP)
    p.add_argument("--label", metavar="L", help="what this branch is for")
    p.add_argument("--session", "--session-id", metavar="ID", help="an opaque session id")
    p.set_defaults(func="lineage:fork")

    p = sub.add_parser("merge", parents=[common], help="a draft child combining two or more handoffs",
                       description="Create a draft child of every ID with lineage relation 'merge'. Refused "
                                   "(exit 3, nothing written) until --resolution-file gives an explicit "
                                   "resolution decision; the conflict candidates between the parents are listed. "
                                   "Records the conflicts it resolves and the parents' evidence. Parents are "
                                   "never modified.")
    p.add_argument("ids", metavar="ID", nargs="+", help="two or more handoffs to merge")
    p.add_argument("--title", metavar="T", help="the merged work's title (default: the first parent's)")
    p.add_argument("--resolution-file", metavar="FILE",
                   help="the resolution: JSON {\"decision\", \"rationale\", \"resolves\", \"evidence\", "
                        "\"current_state\"} or plain text (the decision); '-' reads stdin")
    p.add_argument("--session", "--session-id", metavar="ID", help="an opaque session id")
    p.set_defaults(func="lineage:merge")

    p = sub.add_parser("lineage", parents=[common], help="the handoff graph: forks, merges, conflicts",
                       description="Show the lineage graph (the newest 50 handoffs, or the 50 nearest ID "
                                   "among those connected to it, unless --limit says otherwise) as an "
                                   "indented tree with status, freshness and conflict marks, or as json, "
                                   "mermaid or dot. --as-of answers from a replay up to that point without "
                                   "touching the live index.")
    p.add_argument("id", metavar="ID", nargs="?", help=_ID_HELP + " (default: every handoff)")
    p.add_argument("--format", choices=("text", "json", "mermaid", "dot"), default="text", help="default text")
    p.add_argument("--as-of", metavar="EVENT_ID|TIME", help="the graph after this event id or at this RFC 3339 time")
    p.add_argument("--limit", metavar="N", type=int,
                   help="show at most N handoffs: the newest, or with ID the nearest to it (default 50; 0: the "
                        "whole graph); when some are left out, stderr says how many")
    p.set_defaults(func="lineage:lineage")


# -- the detector ---------------------------------------------------------------------

SNOOZE_DEFAULT = float("-inf")
"""``--snooze`` given without MINUTES: the configured cooldown."""


def add_detector_command(sub, common) -> None:
    p = sub.add_parser("detect", parents=[common], help="score handoff pressure and readiness (§9)",
                       description="Score the normalized signals of --event (each 0-1 or null; unavailable "
                                   "signals are shown as such, never guessed) with the weights and thresholds "
                                   "of .baton/config.json. At pressure >= 0.70 a handoff is recommended; at "
                                   ">= 0.85 with readiness >= 0.80 (or with --prepare, or an explicit request) "
                                   "a draft is created. Repeats are suppressed for the cooldown or until a "
                                   "material event. Never ends or starts a session.")
    p.add_argument("--event", metavar="FILE|-", help="a JSON object of signals ('-' reads stdin)")
    p.add_argument("--prepare", action="store_true", help="create a draft whatever the score")
    p.add_argument("--session", "--session-id", metavar="ID", help="the session the signals are about")
    p.add_argument("--harness", metavar="NAME", help="the harness reporting them")
    p.add_argument("--snooze", metavar="MINUTES", type=float, nargs="?", const=SNOOZE_DEFAULT,
                   help="suppress recommendations for MINUTES (default: the cooldown)")
    p.add_argument("--disable-for-session", action="store_true", help="no recommendations for --session")
    p.add_argument("--enable", action="store_true", help="undo --disable-for-session")
    p.set_defaults(func="detector:detect")


# -- status page --------------------------------------------------------------------

def add_status_commands(sub, common) -> None:
    status = sub.add_parser("status", parents=[common], help="pending batons and latest handoffs; the status page",
                            description="Without a subcommand: the status API object for this project (pending "
                                        "batons, newest first, and the latest handoffs), redacted with the "
                                        "project's policy. `baton status serve` serves it as a page.")
    ssub = status.add_subparsers(dest="status_command", metavar="COMMAND")
    status.set_defaults(func="status:status")
    p = ssub.add_parser("serve", parents=[common], help="serve the status page on loopback",
                        description="Serve the status page and its JSON API (GET /api/handoffs, GET "
                                    "/api/handoffs/{id}, DELETE /api/handoffs/{id}) for this project until Ctrl-C "
                                    "(exit 0). Loopback only: any other --host exits 5. A port in use exits 4. "
                                    "--port 0 picks a free port. Prints the URL (with --json, one object {url, "
                                    "host, port, projectId, root, token}: the token is the X-Baton-Token header "
                                    "a DELETE without the page's Origin needs).")
    p.add_argument("--host", metavar="ADDR", default="127.0.0.1",
                   help="loopback address to listen on: 127.0.0.0/8, ::1 or localhost (default 127.0.0.1)")
    p.add_argument("--port", metavar="N", type=int, default=3124, help="port (default 3124; 0 picks a free one)")
    p.set_defaults(func="status_page:status_serve")


def add_demo_command(sub, common) -> None:
    p = sub.add_parser("demo", parents=[common], help="run the five-minute handoff in a temporary git project",
                       description="Create a temporary git project and run a real handoff end to end: init, "
                                   "checkpoint, validate, ready, resume (fresh, then stale after a commit), a "
                                   "session baton claimed exactly once, and verify. Each step is printed as typed.")
    p.add_argument("--keep", metavar="DIR", help="build the demo project in DIR (must be empty) and keep it")
    p.set_defaults(func="demo:demo")


# -- mcp ------------------------------------------------------------------------------

def add_mcp_command(sub, common) -> None:
    p = sub.add_parser("mcp", parents=[common], help="serve Baton's MCP tools on stdio",
                       description="Run a stdio MCP server bound to this project: Baton's tools (handoffs, "
                                   "status, the session baton, bootstrap), each calling the same command as the "
                                   "CLI, its prompts (slash commands: handoff, resume, brief, pickup) and its "
                                   "resources (the latest brief, each ready handoff); docs/mcp.md. No tool runs "
                                   "shell commands. With --json, print the tools with their input schemas, the "
                                   "prompts and the resources, and exit instead of serving.")
    p.set_defaults(func="mcp:mcp")


# -- harness integrations ---------------------------------------------------------------

def add_hook_command(sub, common) -> None:
    """``hook`` alone: a harness runs it at every session start and end and on every prompt."""
    p = sub.add_parser("hook", parents=[common], help="answer a harness's lifecycle hook (reads its JSON on stdin)",
                       description="Run by a harness, not by hand: read the harness's hook payload on stdin and "
                                   "answer in its format. A session start gets the bootstrap brief (once per "
                                   "session, claiming the baton waiting for it); before compaction a draft "
                                   "handoff is prepared for the session; a session end ends it and hands on "
                                   "the ready handoff it wrote as a baton; a prompt is scored by the detector "
                                   "(wired with install-hooks --events prompt or all). Whatever fails, its own "
                                   "command line included, it exits 0 with one line on stderr and injects "
                                   "nothing.")
    # Not argparse choices: an unknown harness, like an unknown event, exits 0 with one line (a hook never
    # breaks its harness).
    p.add_argument("harness", metavar="HARNESS",
                   help=f"the harness running the hook: {', '.join(HARNESSES)}").completions = HARNESSES
    p.add_argument("event", metavar="EVENT",
                   help="the harness's event: SessionStart, PreCompact, SessionEnd, UserPromptSubmit, "
                        "Stop, Interrupt (claude-code); SessionStart, PreCompact, Stop, Interrupt, UserPromptSubmit (codex); SessionStart, "
                        "PreCompress, SessionEnd, BeforeAgent (gemini-cli); sessionStart, preCompact, sessionEnd, "
                        "beforeSubmitPrompt (cursor)")
    p.set_defaults(func=HOOK_FUNC)


def add_harness_commands(sub, common) -> None:
    p = sub.add_parser("install-hooks", parents=[common], help="configure a harness for this project",
                       description="Write the harness's project-local configuration: hooks that run `baton "
                                   "hook`, the `baton mcp` server and the agent skill (claude-code: "
                                   ".claude/settings.json, .mcp.json, .claude/settings.local.json (the personal "
                                   "approval of the `baton` server; one it creates in a git repository is added to "
                                   "the clone's .git/info/exclude), .claude/skills/baton/SKILL.md; codex: "
                                   ".codex/hooks.json, .codex/config.toml; gemini-cli: .gemini/settings.json; "
                                   "cursor: .cursor/mcp.json, .cursor/rules/baton.mdc, .cursor/hooks.json; codex, "
                                   "gemini-cli and cursor: .agents/skills/baton/SKILL.md), and initialise the "
                                   "project. Other keys and hooks are kept; Baton's own hooks and `baton` server "
                                   "are replaced, never duplicated (claude-code: hooks moved by hand into "
                                   ".claude/settings.local.json are updated there, with no copy in "
                                   ".claude/settings.json); running it twice changes nothing; nothing "
                                   "outside the project is touched. --remove takes exactly Baton's part out again.")
    p.add_argument("--harness", required=True, choices=HARNESSES, help="the harness to configure")
    p.add_argument("--dry-run", action="store_true", help="print the changes as a diff; write nothing")
    p.add_argument("--command", metavar="CMD", default=None,
                   help="how the harness runs Baton (default: the absolute path of this baton, so the harness finds it "
                        "whatever its PATH; 'baton' for files a team commits): an existing file is one word, "
                        "spaces and all; any other value is split as a shell would; a warning says when its "
                        "program is not found on PATH")
    p.add_argument("--events", metavar="LIST", default=None,
                   help="the hook events to wire, comma-separated, among start,end,compact,prompt, or all "
                        "(default: all for claude-code and gemini-cli, start,end,compact for codex and cursor); "
                        "start and end are always needed; compact (a draft before compaction) can be left out; "
                        "prompt (a hook run on every prompt: a handoff request in it, and, in claude-code and "
                        "gemini-cli, what keeps a baton claimed by a session closed before its first prompt) "
                        "can be left out. Baton's hooks for an event left out are taken out")
    p.add_argument("--user-level", action="store_true",
                   help="the project folder is your home directory and you mean it: write the harness's "
                        "user-level configuration there (~/.claude/settings.json, ~/.codex/hooks.json...; where "
                        "$CLAUDE_CONFIG_DIR, $CODEX_HOME or $GEMINI_CLI_HOME puts it, when set), which it "
                        "reads in every folder, so Baton's hooks run in every project (refused without it, exit 5)")
    p.add_argument("--remove", action="store_true",
                   help="take Baton's wiring out again: its hooks (claude-code: from .claude/settings.local.json "
                        "too), its `baton` MCP server, its skill and rule files; everything else is kept")
    p.set_defaults(func="harness:install_hooks")

    p = sub.add_parser("skill", parents=[common], help="print the agent skill (SKILL.md) this Baton ships",
                       description="Print Baton's agent skill (spec 12: when to hand off, the commands, with "
                                   "examples), as installed with this Baton. `install-hooks` writes it where each "
                                   "harness reads skills (.claude/skills/baton/SKILL.md for claude-code, "
                                   ".agents/skills/baton/SKILL.md for codex, gemini-cli and cursor); this is for "
                                   "any other place.")
    p.set_defaults(func="shell:skill")


def add_completion_command(sub, common) -> None:
    p = sub.add_parser("completion", parents=[common], help="print a shell completion script (bash, zsh, fish)",
                       description="Print the completion script for SHELL, generated from this CLI's own commands "
                                   "and options. bash: `eval \"$(baton completion bash)\"` in ~/.bashrc; zsh: "
                                   "`eval \"$(baton completion zsh)\"` in ~/.zshrc; fish: `baton completion fish > "
                                   "~/.config/fish/completions/baton.fish`.")
    p.add_argument("shell", nargs="?", choices=("bash", "zsh", "fish"), help="the shell")
    p.add_argument("--words", metavar="KIND", choices=("ids", "resumable", "owners", "branches"),
                   help="print the project's values for KIND, one a line (what the scripts ask at a TAB): "
                        "ids (the newest handoff short ids and latest), resumable (those `resume` takes), "
                        "owners, branches")
    p.set_defaults(func="completion:completion")

    p = sub.add_parser("man", parents=[common], help="print the manual page (roff) this Baton was installed with",
                       description="Print the manual page installed with this Baton, as roff: `baton man | man -l -`. "
                                   "A regular install by pip or pipx (from a wheel or sdist) puts it in "
                                   "PREFIX/share/man/man1, where `man baton` finds it while PREFIX/bin is on "
                                   "PATH; an editable install (`pip install -e`) installs no page (this prints "
                                   "the checkout's docs/baton.1) and uv tool keeps it inside the tool's "
                                   "environment: there use `baton man | man -l -` or "
                                   "`man \"$(baton man --path)\"`.")
    p.add_argument("--path", action="store_true", help="print only where the page is")
    p.set_defaults(func="shell:man")


COMMAND_GROUPS: list[Callable[[Any, argparse.ArgumentParser], None]] = [
    add_ledger_commands,
    add_policy_commands,
    add_demo_command,
    add_session_commands,
    add_bootstrap_command,
    add_metrics_command,
    add_handoff_commands,
    add_resume_command,
    add_lineage_commands,
    add_detector_command,
    add_status_commands,
    add_mcp_command,
    add_hook_command,
    add_harness_commands,
    add_completion_command,
]


GROUP_OF_COMMAND: dict[str, str] = {
    **dict.fromkeys(("init", "log", "verify", "rebuild", "sync", "doctor", "gc", "repair", "audit", "forget"),
                    "add_ledger_commands"),
    "policy": "add_policy_commands",
    "demo": "add_demo_command",
    "session": "add_session_commands",
    "bootstrap": "add_bootstrap_command",
    "metrics": "add_metrics_command",
    **dict.fromkeys(("checkpoint", "handoff"), "add_handoff_commands"),
    "resume": "add_resume_command",
    **dict.fromkeys(("fork", "merge", "lineage"), "add_lineage_commands"),
    "detect": "add_detector_command",
    "status": "add_status_commands",
    "mcp": "add_mcp_command",
    "hook": "add_hook_command",
    **dict.fromkeys(("install-hooks", "skill"), "add_harness_commands"),
    **dict.fromkeys(("completion", "man"), "add_completion_command"),
}
"""Which of ``COMMAND_GROUPS`` adds each top-level command (a test holds this to
the groups). A run builds only its command's group: argparse spends most of
a hook's parsing time building the parsers of commands it will not run."""


def _group_named(words: Sequence[str]) -> Callable[[Any, argparse.ArgumentParser], None] | None:
    """The group of the command ``words`` run, or None (help, a typo: build everything)."""
    name = GROUP_OF_COMMAND.get(_command_word(words) or "")
    return next((g for g in COMMAND_GROUPS if g.__name__ == name), None) if name else None


_KEPT_PARSERS: dict[Any, argparse.ArgumentParser] = {}
"""Parsers built ahead (``keep_parser``): the hook server builds the ``hook``
command's once, and each hook it forks parses with its own copy."""


def keep_parser(words: Sequence[str]) -> None:
    """Build the parser of ``words``' command group now and keep it for every later
    ``build_parser`` of that group in this process (and the processes it forks)."""
    only = _group_named(words)
    _KEPT_PARSERS.pop(only, None)
    _KEPT_PARSERS[only] = build_parser(words)


def build_parser(words: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The whole command line; given the words of one run, only the group of its command."""
    only = _group_named(words) if words is not None else None
    if only in _KEPT_PARSERS:
        return _KEPT_PARSERS[only]
    common = _common()
    parser = _Parser(
        prog="baton",
        description="Portable, verified continuity for AI coding agents: structured handoffs "
                    "in an append-only, hash-chained ledger.",
        epilog="`baton help COMMAND` (or `baton COMMAND --help`) explains a command. "
               "Exit codes: 0 ok, 1 storage or internal failure, 2 input error, 3 validation failure, "
               "4 not found, conflict or a malformed config, 5 policy block.",
    )
    parser.add_argument("--version", action=_Version, help="show program's version number and exit")
    parser.add_argument("--json", action="store_true", help="print a stable JSON result on stdout")
    parser.add_argument("--project", metavar="DIR", help="project root")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in COMMAND_GROUPS if only is None else [only]:
        add(sub, common)
    return parser


def _terminal_columns() -> int:
    """``shutil.get_terminal_size().columns``, without importing ``shutil``:
    ``$COLUMNS``, else the terminal's width, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]  # None: caught
        except (AttributeError, ValueError, OSError):
            columns = 80
    return columns


class _Formatter(argparse.HelpFormatter):
    """argparse's help layout at the width argparse would choose. argparse
    imports ``shutil`` (and with it zlib, bz2 and lzma, ~2 ms) to size every
    formatter it makes — one per ``add_argument`` — so the width is read here."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position,
                         _terminal_columns() - 2 if width is None else width)


class _Version(argparse.Action):
    """``--version``: ``baton 0.1.0``, or ``{"version": "0.1.0"}`` with ``--json``
    (before or after it), as every command answers."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: str = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        if _Parser.json_requested:
            load(OUTPUT).print_json({"version": __version__})
        else:
            print(f"baton {__version__}")
        parser.exit()


class _HookLineRefused(Exception):
    """The parser refused a ``hook`` command line (its message): the hook runs to say so (``refused_hook_run``)."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error with ``--json`` also prints the JSON error
    object, so automation gets the same shape for every failure; on a ``hook``
    command line (``hook_line``) it is the hook's to say (``_HookLineRefused``)."""

    json_requested = False
    hook_line = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def parse_known_args(self, args=None, namespace=None):
        """A command's parser (not ``baton`` itself) refuses what it does not know at once, so the
        error shows that command's usage (``baton handoff list --limt``), not the top-level line:
        a command takes every word after its name, so nothing it leaves is anyone else's."""
        self.words = list(sys.argv[1:] if args is None else args)  # what a usage error may point into
        namespace, extras = super().parse_known_args(args, namespace)
        if extras and self.prog != "baton":
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras

    def error(self, message: str):
        if _Parser.hook_line:
            raise _HookLineRefused(message)
        message = load(USAGE).usage_error_message(self, message, json_requested=_Parser.json_requested,
                                                  words=getattr(self, "words", ()))
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def _subcommand_parser(parser: argparse.ArgumentParser, command: str | None) -> argparse.ArgumentParser | None:
    """The parser of ``command`` (``handoff``), when it is a group of subcommands."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            chosen = action.choices[command]
            if any(isinstance(a, argparse._SubParsersAction) for a in chosen._actions):
                return chosen
    return None


def _option_names(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Each parameter of the use cases as this command line spells it (``max_bytes`` → ``--max-bytes``)."""
    # ``not_mine``: named by a refusal of a command without it too (a merge of duplicates: archive them)
    names: dict[str, str] = {"handoff_id": "--from", "resolution": "--resolution-file", "not_mine": "--not-mine"}
    parsers = [parser]
    while parsers:
        current = parsers.pop()
        for action in current._actions:
            if isinstance(action, argparse._SubParsersAction):
                parsers.extend(action.choices.values())
            elif action.option_strings and action.dest not in ("help", "version"):
                names.setdefault(action.dest, max(action.option_strings, key=len))
    return names


def parse_and_run(words: list[str]) -> int:
    """Every command line but a fixed one (``baton.cli_run.fixed_run``): ``baton help``, the
    refusals, the parser's own errors and help, then the parsed command run by ``cli_run.dispatch``."""
    words = _help_asked(words)
    _Parser.json_requested = "--json" in words
    hook = _command_word(words) == "hook"
    refused = _refusal(words)
    if refused is not None and hook:
        return dispatch(dict, refused_hook_run(words, refused))
    if refused is not None:
        load(OUTPUT).print_input_error(refused, json_requested=_Parser.json_requested,
                                       one_line=_command_word(words) in JSON_LINES_COMMANDS)
        return 2
    parser = build_parser(words)
    _Parser.hook_line = hook
    try:
        args = parser.parse_args(words)
    except _HookLineRefused as exc:  # a hook exits 0 whatever fails: its own command line too
        return dispatch(dict, refused_hook_run(words, str(exc)))
    finally:
        _Parser.hook_line = False
    if not getattr(args, "func", None):
        return _no_command(parser, args)
    return dispatch(lambda: _option_names(parser), args)


def option_names_of(words: Sequence[str]) -> dict[str, str]:
    """``_option_names`` of the parser of ``words``' command: what a fixed run's failure names its parameters by."""
    return _option_names(build_parser(words))


def _help_asked(words: list[str]) -> list[str]:
    """``baton help [COMMAND ...]`` as ``baton [COMMAND ...] --help`` (as ``git help`` is asked)."""
    if _command_word(words) != "help":
        return words
    at = words.index("help")
    rest = words[at + 1:]
    if rest[:1] == ["help"]:  # ``baton help help``: the help of help is the top-level help
        rest = rest[1:]
    return [*words[:at], *rest, "--help"]


def _no_command(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """A group without its subcommand, or no command at all: its help (or the JSON error), exit 2."""
    group = _subcommand_parser(parser, getattr(args, "command", None))
    if _Parser.json_requested:
        message = (f"`baton {args.command}` needs a subcommand (see `baton {args.command} --help`)"
                   if group is not None else "no command given (see `baton --help`)")
        load(OUTPUT).print_json({"error": {"code": "input_error", "exit_code": 2, "message": message}})
        return 2
    (group or build_parser()).print_help(sys.stderr)
    return 2

