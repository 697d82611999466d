"""``baton handoff validate ID [--recheck]``: run every §10 check and record it.

Facts are gathered *outside* the ledger lock (hashing files and re-running
allowlisted checks can take a while); the result is appended expecting the
stream version that was read, so a record that changed meanwhile is a
conflict (exit 4), never a stale report. Exit 0 for pass and warn, 3 for fail
(the failed report is still recorded: the record is flagged ``invalid``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from baton import gitinfo
from baton.commands.capture import HashedNow, hash_not_hashed_yet
from baton.commands.handoff_facts import now_timestamp, worktree_label
from baton.commands.identity import recorded_owner
from baton.commands.ids import load_handoff, refuse_latest
from baton.commands.lineage import conflict_banner, conflicts_for
from baton.commands.record import record
from baton.commands.validation_facts import (
    gather_validation_facts,
    recheck_requests,
    recheck_timeout,
    refuse_unlisted,
    run_recheck,
)
from baton.domain import lifecycle
from baton.domain.aggregates import handoff as aggregate
from baton.domain.brief import validated_on
from baton.domain.handoff import handoff_to_json, record_worktree
from baton.domain.readiness import ran_elsewhere
from baton.domain.short_ids import short_id
from baton.domain.validation import validate_handoff
from baton.domain.wording import counted
from baton.events.names import handoff_stream
from baton.model import frozen
from baton.policy import load_policy

if TYPE_CHECKING:
    from baton.commands.context import Project


_MARK = {"pass": "ok  ", "warn": "WARN", "fail": "FAIL"}


@frozen
class ValidateResult:
    handoff_id: str
    status: str  # the record's status after validation
    flags: tuple[str, ...]
    report: dict[str, Any]
    rechecks: tuple[dict[str, Any], ...] = ()
    elsewhere: bool = False
    """The validation ran in another worktree than the record's: recorded for
    that worktree only; the record's status and flags did not change."""
    record_worktree: str | None = None
    conflicts: tuple[dict[str, Any], ...] = ()
    """Conflict candidates the record carries (§14): shown, never a check result."""
    hashed: tuple[str, ...] = ()
    """Artifacts a hook's capture left not hashed yet that this validation hashed (and recorded)."""

    @property
    def exit_code(self) -> int:
        return 3 if self.report["status"] == "fail" else 0

    def to_json(self) -> dict[str, Any]:
        return {"id": self.handoff_id, "status": self.status, "flags": list(self.flags),
                "report": self.report, "rechecks": list(self.rechecks), "ran_on": self.report.get("ran_on"),
                "applies_to_record": not self.elsewhere, "conflicts": list(self.conflicts),
                "hashed": list(self.hashed)}

    def render(self) -> str:
        r = self.report
        quality = (r.get("quality") or {}).get("overall")
        head = (f"handoff {short_id(self.handoff_id)}: validation {r['status'].upper()}"
                + (f", continuity score {quality:g}/100" if quality is not None else "")
                + f", freshness {(r.get('freshness') or {}).get('state', 'unknown')}")
        lines = [head]
        where = validated_on({"ran_on": r.get("ran_on")})
        if where:
            lines.append(f"validated on {where}")
        if self.elsewhere:
            lines.append(f"This ran in another worktree than the handoff's ({self.record_worktree}): the result is "
                         f"recorded for this worktree only; the handoff stays {self.status}"
                         + (f" [{','.join(self.flags)}]" if self.flags else "") + ".")
        if self.hashed:
            lines.append(f"hashed {counted(len(self.hashed), 'artifact')} a hook's capture left not hashed yet "
                         f"(recorded): {', '.join(self.hashed)}")
        for check in r["checks"]:
            tag = " (advisory)" if check.get("advisory") else ""
            lines.append(f"  {_MARK.get(check['status'], check['status'])} {check['name']}{tag}: {check['detail']}")
        for run in self.rechecks:
            lines.append(f"  recheck {run['evidence_id']} `{run['ref']}`: {run['status']}"
                         + (f" (exit {run['exit_code']})" if run.get("exit_code") is not None else ""))
        if self.conflicts:
            lines.append(conflict_banner(self.conflicts))
        if self.elsewhere:
            return "\n".join(lines)
        if r["status"] == "fail":
            lines.append(f"Not promotable: fix the failures with `baton handoff amend {short_id(self.handoff_id)} ...`"
                         " and validate again.")
        elif r["status"] == "warn":
            lines.append(f"Next: baton handoff ready {short_id(self.handoff_id)} --accept-warnings \"<why the"
                         " warnings are acceptable>\"")
        else:
            lines.append(f"Next: baton handoff ready {short_id(self.handoff_id)}")
        return "\n".join(lines)


def validate_handoff_command(
    project: "Project",
    token: str = "",
    *,
    recheck: bool = False,
    on_hashing: Callable[[int, int, str], None] | None = None,
) -> ValidateResult:
    """``on_hashing(done, total, path)``: told before each artifact a hook's capture left not hashed yet is
    hashed (``hash_not_hashed_yet``), and once all are: a display of long work.

    Raises:
        NotFound / AmbiguousId / TransitionError (exit 4): unknown id, or a
            record that is not a draft or validated.
        PolicyBlock (exit 5): --recheck met a command not on the allowlist
            (nothing was run).
        StreamVersionConflict (exit 4): the record changed while validating.
    """
    refuse_latest(token, "validation", "a draft or validated handoff")
    opened = project
    runner = opened.reading()
    handoff = load_handoff(runner, token)
    if lifecycle.VALIDATE not in lifecycle.allowed_actions(handoff):
        raise lifecycle.transition_error(handoff, lifecycle.VALIDATE,
                                        "a ready record never changes; resume it, or amend it"
                                        if handoff.status in ("ready", "resumed") else None)
    version = (runner.get("streams", handoff_stream(handoff.id)) or {}).get("version", 0)
    policy = load_policy(opened.paths, opened.config)
    runs = []
    if recheck:
        requests = recheck_requests(handoff)
        refuse_unlisted(requests, policy)
        timeout = recheck_timeout(opened)
        runs = [run_recheck(opened.paths.worktree, eid, ref, policy, timeout=timeout) for eid, ref in requests]
    own = record_worktree(handoff_to_json(handoff))
    here = worktree_label(opened.paths)
    # Artifacts a hook's capture left not hashed yet are hashed here, in the record's worktree (outside the
    # lock: hashing takes a while), recorded with the validation and validated as hashed: never a hash of
    # another worktree's files. One over the bounds is given the reason an amend records (no hash).
    found = HashedNow({}, {}) if ran_elsewhere(own, {"ran_on": {"worktree": here}}) else hash_not_hashed_yet(
        opened.paths.worktree, handoff, policy, on_step=on_hashing)
    hashes = found.hashes
    checked = aggregate.with_artifact_hashes(handoff, hashes, found.skipped)
    facts = gather_validation_facts(opened, runner, checked, policy,
                                    now=now_timestamp(opened.clock()), rechecks=runs)
    report = validate_handoff(checked, facts).to_json()
    if runs:
        report["rechecks"] = [r.to_json() for r in runs]
    report["ran_on"] = {"worktree": here,
                        "branch": gitinfo.current_branch(opened.paths.worktree),
                        "head": facts.git_head_now}
    actor = recorded_owner(opened)  # who validated, named to another clone's reader (an edit made apart)
    with opened.writing() as scope:
        # Decided on the record read before the checks ran (outside the lock:
        # they read git and hash files); ``version`` refuses the append if the
        # record changed meanwhile.
        record(scope, aggregate.decide(handoff, aggregate.RecordValidation(report, hashes, found.skipped),
                                       now=report.get("validated_at") or now_timestamp(opened.clock())),
               version=version, actor=actor)
        doc = scope.runner.get("handoffs", handoff.id) or {}
        conflicts = conflicts_for(scope.runner, handoff.id)
    return ValidateResult(handoff.id, doc.get("status", handoff.status), tuple(doc.get("flags", ())), report,
                          tuple(r.to_json() for r in runs), elsewhere=ran_elsewhere(own, report), record_worktree=own,
                          conflicts=tuple(conflicts), hashed=tuple(sorted(hashes)))
