"""``baton policy show|trust|untrust``: what the project's policy holds, and this
clone's trust in the settings of it that widen what Baton reads or runs.

A committed policy arrives with a clone, so its widening settings
(``baton.domain.policy_trust``) apply only once this clone trusts exactly
their values. ``trust`` shows them and records their digest, bound to this
project root, in this checkout's git directory (``<gitdir>/baton/policy-trust.json``,
which no clone brings; ``.baton/policy-trust.json`` outside git; never in the
ledger, never synced); ``untrust`` removes the record. Neither appends
an event: trust is this machine's, not the project's history.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from baton.canonical import canonical_bytes
from baton.commands.handoff_facts import now_timestamp
from baton.domain.policy_trust import (
    KEPT_SIGNERS_NOTE,
    NONE,
    SIGNERS_KEY,
    SYNC_LABEL,
    TRUST_COMMAND,
    UNTRUSTED,
    PolicyTrust,
    revoked_keys,
    trust_record,
)
from baton.domain.regexes import lazy
from baton.errors import Conflict, InputError, StorageError
from baton.gitinfo import current_branch, head_commit
from baton.model import frozen
from baton.policy import (
    build_policy,
    here_place,
    judge_policy_trust,
    kept_signing_trust,
    policy_sources,
    policy_widening,
    read_trust_record,
    remove_trust_record,
    signer_history,
    signing_in_force,
    source_labels,
    trust_file,
    write_trust_record,
)

if TYPE_CHECKING:
    from baton.commands.context import Project

@frozen
class PolicyShowResult:
    sources: tuple[str, ...]
    trust: PolicyTrust
    policy: dict[str, Any]
    trust_file: str = ""
    """Where this checkout keeps its trust record."""
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"sources": list(self.sources), "trust": self.trust.to_json(), "trust_file": self.trust_file,
                "policy": self.policy}

    def render(self) -> str:
        lines = [f"Policy sources: {', '.join(self.sources) if self.sources else 'none (the defaults)'}"]
        if self.trust.state == NONE:
            lines.append("Widening settings: none (nothing to trust)")
        else:
            lines.append(f"Widening settings ({self.trust.state}{self.trust.reason_note}):")
            lines += _settings_lines(self.trust)
            lines.append(f"Digest: {self.trust.digest}")
        p = self.policy
        lines.append("In force here: "
                     f"{p.get('rule_count')} redaction rules, entropy_threshold {p.get('entropy_threshold')}, "
                     f"min_secret_length {p.get('min_secret_length')}, allowed_roots "
                     f"{p.get('allowed_roots') or 'none'}, recheck_allowlist {p.get('recheck_allowlist') or 'none'}; "
                     f"sync checks feeds against {_signers_shown(p.get('allowed_signers'), p.get('signers_from'))}, "
                     "signatures "
                     f"{'required' if p.get('require_signatures') else 'not required'}")
        if p.get("signers_note"):
            lines.append(f"Signers: {p['signers_note']}.")
        if self.trust.state == UNTRUSTED:
            lines.append(f"Not applied until trusted: run `{TRUST_COMMAND}` to apply them.")
        return "\n".join(lines)

DIGEST = lazy(r"sha256:[0-9a-f]{64}")
"""The shape of a digest ``policy show`` prints: what ``--digest`` must look like."""


@frozen
class PolicyTrustResult:
    action: str
    """``trust`` or ``untrust``."""
    trust: PolicyTrust
    """The trust state after the command."""
    changed: bool
    """Whether the trust record was written (``trust``) or removed (``untrust``)."""
    trust_file: str = ""
    """Where this checkout keeps its trust record."""
    removed: dict[str, Any] | None = None
    """``untrust``: the settings the removed record trusted (``{file: {setting: value}}``), which
    may differ from the files now."""
    signers_note: str = ""
    """``trust`` with nothing to trust: the signers and requirement trusted before that still apply
    (``KEPT_SIGNERS_NOTE``)."""
    rolled_back: str = ""
    """``trust --roll-back-signers`` of signer lines older than those trusted before: the warning
    (which revoked keys came back, which trusted keys no longer apply)."""
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        out = {"action": self.action, "changed": self.changed, "trust_file": self.trust_file, **self.trust.to_json()}
        if self.rolled_back:
            out["warning"] = self.rolled_back
        if self.removed is not None:
            out["removed_settings"] = self.removed
        if self.signers_note:
            out["signers_note"] = self.signers_note
        return out

    def render(self) -> str:
        if self.action == "trust":
            if self.trust.state == NONE:
                kept = f" Signatures stay required: {self.signers_note}." if self.signers_note else ""
                return "No setting of the policy widens it: nothing to trust." + kept
            lines = [f"Trusted in this clone ({self.trust_file}), digest {self.trust.digest}:"]
            lines += _settings_lines(self.trust)
            lines.append("These settings now apply; any change to them needs trusting again.")
            if self.rolled_back:
                lines.append(f"WARNING: {self.rolled_back}")
            return "\n".join(lines)
        if not self.changed:
            return "No trust was recorded in this clone: nothing changed."
        if self.trust.state == NONE:
            return f"Trust removed ({self.trust_file}); no setting of the policy widens it."
        if self.removed is None:  # a record that named no settings
            lines = [f"Trust removed ({self.trust_file}); these settings no longer apply:"]
            lines += _settings_lines(self.trust)
            return "\n".join(lines)
        lines = [f"Trust removed ({self.trust_file}); the settings it trusted no longer apply:"]
        lines += [f"  {label}: {key} = {_value(value)}" for label, found in self.removed.items()
                  if isinstance(found, dict) for key, value in found.items()]
        return "\n".join(lines)


def _signers_shown(lines: Any, source: Any) -> str:
    if source == "file":
        return "the allowed-signers file as it is"
    return f"only the {len(lines)} signer lines trusted here before" if lines else "no signer (none trusted here)"


def _settings_lines(trust: PolicyTrust) -> list[str]:
    widening = trust.widening
    lines = [f"  {label}: {key} = {_value(value)}" for label, found in widening.settings for key, value in found.items()]
    lines += [f"  allowed root {written!r} resolves to {real}" for written, real in widening.resolved_roots]
    lines += [f"  custom rule these settings refer to: {canonical_bytes(spec).decode()}" for spec in widening.related_rules]
    sync = widening.sync_settings
    if sync is not None:
        lines.append(f"  {SYNC_LABEL}: sync = " + ", ".join(f"{k}: {canonical_bytes(v).decode()}" for k, v in sync.items()))
    if lines:
        covered = "both policy documents whole"
        if sync is not None:
            covered += f", the signer lines of {sync['allowed_signers']} and config.json's sync section whole"
        lines.append(f"  (the trust covers {covered}: any change to them needs trusting again)")
    return lines


def _value(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(repr(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {v}" for k, v in value.items())
    return str(value)


def show_policy(project: "Project") -> PolicyShowResult:
    """The policy's sources, its widening settings and their trust, and what is in force here.

    Raises:
        ConfigError (exit 4): a policy source is malformed.
    """
    policy = project.policy
    trust = policy.trust if policy.trust is not None else PolicyTrust(NONE)
    labels = source_labels(project.paths, policy_sources(project.paths, project.config))
    # The allowed-signers file is a source too once it binds a key (its lines apply once trusted).
    labels += [label for label, found in trust.widening.settings if SIGNERS_KEY in found and label not in labels]
    in_force = {k: v for k, v in policy.to_json().items() if k not in ("rules", "trust", "sources")}
    rules = policy.redaction.rules
    in_force.update(rule_count=len(rules), blocking_rules=[r.name for r in rules if r.action == "block"])
    signing = signing_in_force(project.paths, policy, project.config.section("sync").get("require_signatures") is True)
    # The lines that apply, whichever way: the file's own once trusted (None only without any), or
    # those trusted before; ``signers_from`` says which.
    applied = signing.signers if signing.signers is not None else trust.widening.signers
    in_force.update(allowed_signers=None if applied is None else list(applied),
                    signers_from="file" if signing.signers is None else "trusted_before",
                    require_signatures=signing.required)
    if signing.kept:
        in_force["signers_note"] = KEPT_SIGNERS_NOTE
    return PolicyShowResult(tuple(labels), trust, in_force, str(trust_file(project.paths)))


def trust_policy(project: "Project", *, digest: str | None = None, roll_back_signers: bool = False) -> PolicyTrustResult:
    """Trust the policy's widening settings as they are now, in this clone.

    ``digest``: trust only if the settings' digest is this one (what ``policy show``
    printed), so what is trusted is exactly what was reviewed. ``roll_back_signers``: trust
    signer lines older than those trusted here (they bring back a key a later version revoked),
    which is otherwise refused; the answer then warns which keys came back.

    Raises:
        ConfigError (exit 4): a policy source is malformed (nothing is trusted).
        Conflict (exit 4): ``digest`` is not the settings' digest now, or the signer lines are
            older than the trusted ones without ``roll_back_signers`` (nothing is trusted).
        StorageError (exit 1): the trust file cannot be written.
    """
    paths = project.paths
    sources = policy_sources(paths, project.config)
    build_policy(sources, root=paths.root)  # a malformed policy is never trusted
    widening = policy_widening(paths, sources, project.config)
    if digest is not None and not DIGEST.fullmatch(digest) and digest != "none":
        raise InputError(f"{digest!r} is not a digest `baton policy show` prints (`sha256:` and 64 hex digits); "
                         "nothing was trusted", details={"expected": digest})
    if digest is not None and digest != ("none" if widening.empty else widening.digest):
        raise Conflict(f"the policy's widening settings have digest {widening.digest if not widening.empty else 'none'}"
                       f", not {digest}: mistyped, or they changed since you reviewed them; nothing was trusted "
                       "(`baton policy show` shows them as they are now)",
                       details={"expected": digest, "digest": None if widening.empty else widening.digest,
                                "settings": widening.to_json()})
    if widening.empty:
        kept = KEPT_SIGNERS_NOTE if kept_signing_trust(paths) is not None else ""
        return PolicyTrustResult("trust", PolicyTrust(NONE), False, str(trust_file(paths)), signers_note=kept)
    here = here_place(paths)
    if here is None:
        raise StorageError(f"cannot look at {paths.baton_dir}: nothing was trusted")
    before = judge_policy_trust(paths, sources, project.config)
    warning = ""
    if before.reason == "behind":
        if not roll_back_signers:
            raise Conflict(f"not trusted: {before.behind_note()}. Trusting this older file anyway is the user's "
                           "decision: it re-trusts the revoked keys and stops trusting the newer ones in this "
                           "whole clone (`roll_back_signers`)",
                           details={"revoked_keys_brought_back": list(before.brought_back), "behind": True,
                                    "trusted_on": before.trusted_on or None, "digest": widening.digest})
        warning = (f"rolled the trusted signers back: key{'s' if len(before.brought_back) != 1 else ''} "
                   f"{', '.join(before.brought_back)} revoked by a later allowed-signers file now vouch for "
                   "feeds again, and keys that file added no longer do, in this whole clone (every branch); "
                   f"trust the newer file again on {before.trusted_on or 'the branch that has it'} to undo this")
    record = read_trust_record(paths)
    history = [] if widening.signers is None else signer_history(paths, _signers_label(widening))
    revoked = revoked_keys(widening.signers or (), record, history, roll_back=bool(warning))
    write_trust_record(paths, trust_record(widening, here, now_timestamp(project.clock()), revoked=revoked,
                                           commit=head_commit(paths.root), branch=current_branch(paths.root)))
    return PolicyTrustResult("trust", judge_policy_trust(paths, sources, project.config), True, str(trust_file(paths)),
                             rolled_back=warning)


def _signers_label(widening: Any) -> str:
    return next(label for label, found in widening.settings if SIGNERS_KEY in found)


def untrust_policy(project: "Project") -> PolicyTrustResult:
    """Remove this clone's trust: the widening settings stop applying.

    Raises:
        ConfigError (exit 4): a policy source is malformed (the record is still removed first).
        StorageError (exit 1): the trust file cannot be removed.
    """
    record = read_trust_record(project.paths)
    removed = remove_trust_record(project.paths)
    sources = policy_sources(project.paths, project.config)
    build_policy(sources, root=project.paths.root)
    trust = judge_policy_trust(project.paths, sources, project.config)
    trusted = record.settings if removed and record is not None and record.settings else None
    return PolicyTrustResult("untrust", trust, removed, str(trust_file(project.paths)), trusted)
