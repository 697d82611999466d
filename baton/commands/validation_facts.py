"""What validation needs from the world besides a record's freshness: which
handoff ids exist (or were erased), what the current policy finds, and what
an allowlisted recheck returned. Freshness facts are ``handoff_facts``.

Rechecks (``validate --recheck``) are the only place Baton runs a program. It
runs a recorded evidence command only when the exact command is on the
policy's ``recheck_allowlist``; if any requested command is not, nothing runs
and the command exits 5. An allowed command runs without a shell
(``shlex.split``, ``shell=False``), in the current worktree (a linked
worktree's own folder, see ``ProjectPaths.worktree``), with a minimal
environment that carries no variables from the caller (no tokens, no keys),
stdin closed, and a timeout. Its output is kept only as a digest and a
bounded, redacted summary.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
from pathlib import Path
from typing import Any, Iterable

from baton import git_status, gitinfo
from baton.commands.handoff_facts import artifact_facts
from baton.domain.handoff import handoff_to_json
from baton.domain.redaction import rule_label
from baton.domain.redaction.summary import summarize_output
from baton.domain.validation import PolicyFinding, RecheckResult, ValidationFacts
from baton.domain.wording import counted
from baton.errors import InputError, PolicyBlock
from baton.events.names import handoff_stream
from baton.model import frozen
from baton.policy import trust_rules_hint

DEFAULT_RECHECK_TIMEOUT = 300
RECHECK_ENV_KEEP = ("PATH", "LANG", "LC_ALL", "TZ", "SYSTEMROOT")


# -- policy ----------------------------------------------------------------------

def policy_findings(handoff_json: dict[str, Any], policy: Any) -> list[Any]:
    """Secrets the *current* policy would still find in a stored record
    (the policy may have grown since capture)."""
    outcome = policy.redact(handoff_json)
    findings = [PolicyFinding(path=r.field, reason=rule_label(r.rule, r.reason), severity="block")
                for r in (*outcome.redactions, *outcome.blocked)]
    return findings


# -- rechecks --------------------------------------------------------------------

@frozen
class RecheckRun:
    """One allowlisted re-run: what validation judges, and what the report keeps."""

    evidence_id: str
    ref: str
    status: str  # pass | fail | error
    exit_code: int | None
    digest: str | None
    summary: str
    truncated: bool

    def to_result(self):
        detail = f"exit {self.exit_code}" if self.exit_code is not None else self.summary
        if self.digest:
            detail += f"; output {self.digest}"
        return RecheckResult(evidence_id=self.evidence_id, ref=self.ref, allowlisted=True,
                             status=self.status, detail=detail)

    def to_json(self) -> dict[str, Any]:
        return {"evidence_id": self.evidence_id, "ref": self.ref, "status": self.status,
                "exit_code": self.exit_code, "digest": self.digest, "summary": self.summary,
                "truncated": self.truncated}


def recheck_requests(handoff: Any) -> list[tuple[str, str]]:
    """``(evidence id, command)`` for every command/test evidence with a command."""
    return [(e.id, e.ref) for e in handoff.evidence
            if e.type in ("command", "test") and isinstance(e.ref, str) and e.ref.strip()]


def refuse_unlisted(requests: list[tuple[str, str]], policy: Any) -> None:
    """Raises PolicyBlock (exit 5), before anything runs, if any command is not allowlisted."""
    refused = [(eid, ref) for eid, ref in requests if not policy.allows_recheck(ref)]
    withheld = [(eid, ref) for eid, ref in refused if getattr(policy, "untrusted", False)
                and policy.withholds_recheck(ref)]
    if withheld:
        listed = "; ".join(f"{eid}: {ref!r}" for eid, ref in refused)
        files = " and ".join(policy.trust.widening.files)
        raise PolicyBlock(
            f"`recheck` refused: the recheck_allowlist of {files} is not trusted on this machine (a committed "
            f"policy's allowlist runs commands only once you trust it); nothing was run: {listed}. To apply it, "
            f"{trust_rules_hint()}",
            details={"refused": [{"evidence_id": eid, "ref": ref} for eid, ref in refused],
                     "allowlist": list(policy.recheck_allowlist), "untrusted_policy": policy.trust.to_json()},
        )
    if refused:
        listed = "; ".join(f"{eid}: {ref!r}" for eid, ref in refused)
        raise PolicyBlock(
            f"`recheck` refused: {counted(len(refused), 'evidence command')} {'is' if len(refused) == 1 else 'are'} not on the recheck allowlist "
            f"(policy recheck_allowlist); nothing was run: {listed}",
            details={"refused": [{"evidence_id": eid, "ref": ref} for eid, ref in refused],
                     "allowlist": list(policy.recheck_allowlist)},
        )


def recheck_env() -> dict[str, str]:
    env = {k: os.environ[k] for k in RECHECK_ENV_KEEP if k in os.environ}
    env.setdefault("PATH", os.defpath)
    env["BATON_RECHECK"] = "1"
    return env


def run_recheck(root: Path, evidence_id: str, ref: str, policy: Any, *, timeout: float) -> RecheckRun:
    """Run one allowlisted command without a shell and keep a redacted digest/summary."""
    if not policy.allows_recheck(ref):  # belt and braces: never run an unlisted command
        raise PolicyBlock(f"`recheck` refused: {ref!r} is not on the recheck allowlist")
    try:
        argv = shlex.split(ref)
    except ValueError as exc:
        return RecheckRun(evidence_id, ref, "error", None, None, f"cannot parse the command: {exc}", False)
    if not argv:
        return RecheckRun(evidence_id, ref, "error", None, None, "empty command", False)
    try:
        # Its own process group, so a timeout also stops whatever it spawned
        # (test runners fork workers that would otherwise hold the pipe open).
        proc = subprocess.Popen(argv, shell=False, cwd=root, env=recheck_env(), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    except OSError as exc:
        return RecheckRun(evidence_id, ref, "error", None, None, f"could not start: {exc.strerror or exc}", False)
    try:
        raw, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        raw, _ = proc.communicate()
        summary = summarize_output(raw.decode("utf-8", "replace"), policy=policy.redaction,
                                   field=f"rechecks.{evidence_id}")
        return RecheckRun(evidence_id, ref, "error", None, summary.digest,
                          f"timed out after {timeout:g}s; " + summary.summary, summary.truncated)
    summary = summarize_output(raw.decode("utf-8", "replace"), policy=policy.redaction,
                               field=f"rechecks.{evidence_id}")
    return RecheckRun(evidence_id, ref, "pass" if proc.returncode == 0 else "fail", proc.returncode,
                      summary.digest, summary.summary, summary.truncated)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        proc.kill()


def recheck_timeout(project: Any) -> float:
    """Seconds a recheck may run: ``config.json`` ``{"recheck": {"timeout_seconds": N}}`` (default 300)."""
    value = project.config.section("recheck").get("timeout_seconds", DEFAULT_RECHECK_TIMEOUT)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise InputError(f"{project.paths.config}: recheck.timeout_seconds must be a positive number")
    return float(value)


# -- everything validation needs ---------------------------------------------------

def _lineage_ids(handoff: Any) -> set[str]:
    lineage = getattr(handoff, "lineage", None)
    named = [*(getattr(lineage, "parents", None) or ()), *(getattr(lineage, "merge_basis", None) or ())]
    return {i for i in named if isinstance(i, str)}


def known_among(runner: Any, ids: Iterable[str]) -> frozenset[str]:
    """Which of ``ids`` are handoffs of this project: one indexed lookup each,
    never a read of every record (validation needs only the ids a lineage names)."""
    return frozenset(i for i in ids if runner.has("handoffs", i))


def erased_among(runner: Any, ids: Iterable[str]) -> frozenset[str]:
    """Which of ``ids`` name no handoff record but have a handoff stream: their
    capture was erased by ``baton forget`` (the stream and its
    ``handoff.forgotten`` event stay). One indexed lookup each."""
    if "streams" not in runner.by_name:
        return frozenset()
    return frozenset(i for i in ids if not runner.has("handoffs", i) and runner.has("streams", handoff_stream(i)))


def gather_validation_facts(project: Any, runner: Any, handoff: Any, policy: Any, *, now: str,
                            rechecks: Iterable[RecheckRun] = ()):
    root = project.paths.worktree  # git state and artifacts of the current worktree
    runs = tuple(rechecks)
    return ValidationFacts(
        now=now,
        artifacts=artifact_facts(root, handoff, policy, whole=True),
        git_head_now=gitinfo.head_commit(root),
        git_dirty_now=git_status.is_dirty(root),  # stops at the first change
        known_handoff_ids=known_among(runner, _lineage_ids(handoff)),
        erased_handoff_ids=erased_among(runner, _lineage_ids(handoff)),
        # Every run passed ``policy.allows_recheck`` (which ignores runs of
        # spaces); list its ref as written so the domain's exact check agrees.
        recheck_allowlist=tuple(dict.fromkeys((*policy.recheck_allowlist, *(r.ref for r in runs)))),
        rechecks=tuple(r.to_result() for r in runs),
        policy_findings=tuple(policy_findings(handoff_to_json(handoff), policy)),
    )
