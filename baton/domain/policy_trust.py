"""Which settings of a committed policy widen what Baton does, and whether
this clone has trusted them.

The policy lives in files meant to be committed (``.baton/config.json``'s
``policy`` section and ``.baton/policy.json``), so a repository someone
clones carries its policy along. Settings that only add protection (a custom
rule, an extra path field, a lower threshold) apply as they are. Settings
that widen what Baton reads or runs, or weaken what it redacts, apply only
once the user of this clone has trusted exactly their content, as direnv's
``allow`` or git's ``safe.directory`` do:

- ``allowed_roots``: paths may reach outside the project root (Baton reads
  and hashes files there);
- ``recheck_allowlist``: ``validate --recheck`` runs these commands;
- ``disable_rules``: built-in secret rules switched off;
- ``actions``: an entry that sets a rule defined to block to ``redact``;
- ``entropy_threshold`` / ``min_secret_length`` above the defaults: fewer
  values are taken for secrets;
- the allowed-signers file ``baton sync`` checks feeds against
  (``.baton/allowed_signers``, or the path ``config.json``'s ``sync.allowed_signers``
  names): each key line lets a key vouch for a writer's feed, and the file, the
  ``sync`` section that points to it and says whether signatures are required
  arrive with a clone or a checked-out branch (docs/sync.md, "Which signers apply").

An empty list, a number at or below its default, or an action that blocks
widens nothing and needs no trust. Trust is the digest of the canonical JSON
of exactly the widening values, per source file, so any change to them is
untrusted again. The record is kept where a clone cannot bring it: in the
repository's own git directory (``<gitdir>/baton/policy-trust.json``, per
checkout, keyed by the project root's exact path), which git never tracks
nor transfers; a record in ``.baton/`` is never read when a git directory
exists. Only a project outside git keeps it in ``.baton/``, and then only a
record made in exactly this folder counts (same root path, host, device and
inode: no moved or remounted allowance). Either way it is bound to the
project root's path and its ``.baton`` folder (``baton.domain.writer_place``).

Pure: the caller reads the files, stats the folder and writes the record.
"""

from __future__ import annotations

from baton.canonical import canonical_bytes, digest_of
from baton.domain.policy_keys import REQUIRED_BY_SETTING as REQUIRED_BY_SETTING
from baton.domain.policy_keys import WIDENING_KEYS as POLICY_WIDENING_KEYS
from baton.domain.policy_keys import holds_trust_record, lists_command
from baton.domain.policy_keys import signer_lines as signer_lines
from baton.domain.regexes import lazy
from baton.domain.writer_place import Place, check_place
from baton.values import EMPTY_MAPPING, Value, replace

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (baton/values.py)
if TYPE_CHECKING:
    from typing import Any, Sequence

WIDENING_KEYS = POLICY_WIDENING_KEYS
"""The policy keys whose values may widen or weaken the policy (``baton.policy`` checks for
these, ``baton.domain.policy_keys.may_widen``, before it loads this module)."""

SIGNERS_KEY = "allowed_signers"
"""The setting an allowed-signers file with key lines is shown under: its lines."""

SYNC_LABEL = ".baton/config.json"
"""Where the ``sync`` section the trust covers with the signers is shown (``Widening.to_json``)."""

TRUST_FORMAT = 2
"""The version of the digested document (``trust_document``): 2 digests both policy
documents whole and where each allowed root resolves."""

NONE = "none"
"""No setting of the policy widens anything: nothing to trust."""
TRUSTED = "trusted"
"""The widening settings are exactly the ones trusted in this folder: applied."""
UNTRUSTED = "untrusted"
"""Widening settings never trusted here, changed since, or trusted in another folder: not applied."""

SAFE_VALUES = {
    "allowed_roots": "paths stay inside the project root",
    "recheck_allowlist": "a re-check runs none of these commands",
    "disable_rules": "the switched-off secret rules stay on",
    "actions": "rules defined to block keep blocking",
    "entropy_threshold": "the generic rule keeps its default entropy threshold",
    "min_secret_length": "the generic rule keeps its default minimum length",
    SIGNERS_KEY: ("sync checks feeds only against the signers trusted here before (none if never), and "
                  "requires signatures if they were required when trusted"),
}
"""What applies in place of each untrusted setting."""

TRUST_COMMAND = "baton policy trust"
SHOW_COMMAND = "baton policy show"
REVIEW_HINT = (f"ask the user to review them (`{SHOW_COMMAND}`) and trust them (`{TRUST_COMMAND}`, which asks "
               "them to confirm at a terminal or takes the digest they reviewed)")
"""How every message says what would apply the settings: a person's review and decision, never
a step an agent can take alone (``policy trust`` asks y/N or needs the digest ``show`` printed)."""
SIGNERS_TRUST_STEPS = f"{SHOW_COMMAND}, then {TRUST_COMMAND}"
"""How a feed's verdict ends while the signer settings are not applied (``PolicyTrust.signers_note``)."""


class Widening(Value):
    """The widening settings of each policy source: ``(label, {key: value})``,
    sources in the order they are merged, only those with a widening value."""

    settings: tuple[tuple[str, dict[str, Any]], ...] = ()
    documents: tuple[tuple[str, dict[str, Any]], ...] = ()
    """Every policy document whole, ``(label, document)``: the trust covers all of them,
    so a change anywhere in them (a custom rule that replaces a switched-off default,
    a rule a lowered action names) is untrusted again."""
    resolved_roots: tuple[tuple[str, str], ...] = ()
    """Each allowed root as written and the real path it resolves to now: where it
    points is trusted, not the string."""
    sync: dict[str, Any] | None = None
    """``config.json``'s ``sync`` section whole, when the allowed-signers file has key lines:
    the trust covers whether signatures are required and where the file is."""

    @property
    def empty(self) -> bool:
        return not self.settings

    @property
    def files(self) -> tuple[str, ...]:
        return tuple(label for label, _ in self.settings)

    @property
    def signers(self) -> tuple[str, ...] | None:
        """The allowed-signers file's key lines, when they are among the settings."""
        for _, found in self.settings:
            if SIGNERS_KEY in found:
                return tuple(found[SIGNERS_KEY])
        return None

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(key for _, found in self.settings for key in found))

    @property
    def digest(self) -> str:
        return digest_of(trust_document(self))

    @property
    def sync_settings(self) -> dict[str, Any] | None:
        """``config.json``'s ``sync`` section as it applies once trusted (with signers only): whether
        signatures are required and which allowed-signers file (its defaults filled in), and any
        other key it holds: the digest covers it whole, so ``policy show`` shows it."""
        if self.sync is None:
            return None
        label = next(label for label, found in self.settings if SIGNERS_KEY in found)
        return {**self.sync, "require_signatures": self.sync.get("require_signatures", False),
                "allowed_signers": self.sync.get("allowed_signers", label)}

    def to_json(self) -> dict[str, Any]:
        out = {label: dict(found) for label, found in self.settings}
        if self.sync_settings is not None:
            out.setdefault(SYNC_LABEL, {})["sync"] = self.sync_settings
        return out

    @property
    def related_rules(self) -> tuple[dict[str, Any], ...]:
        """The custom rules a widening setting refers to: those that replace a switched-off
        default and those a lowered action names (what the reviewer must read too)."""
        named = {name for _, found in self.settings for name in (*found.get("disable_rules", ()),
                                                                 *found.get("actions", {}))}
        return tuple(spec for _, doc in self.documents for spec in _rules_of(doc)
                     if isinstance(spec, dict) and spec.get("name") in named)

    def describe(self, only: frozenset[tuple[str, str]] | None = None) -> str:
        """``.baton/policy.json: allowed_roots [".."], recheck_allowlist ["make test"]``; key
        lines are counted and digested, not listed (``policy show`` lists them). ``only``:
        just these ``(label, key)``."""
        parts = []
        for label, found in self.settings:
            values = ", ".join(f"{key} {_brief(key, value)}" for key, value in found.items()
                               if only is None or (label, key) in only)
            if values:
                parts.append(f"{label}: {values}")
        return "; ".join(parts)

    def changed_from(self, record: "TrustRecord") -> tuple[list[str], frozenset[tuple[str, str]]]:
        """What differs from the settings ``record`` trusted: the names of the changed settings
        (``.baton/config.json sync``; ``other policy content`` when only a document's other
        content or where a root resolves changed), and the ``(label, key)`` of those unchanged."""
        now = self.to_json()
        names = sorted({f"{label} {key}" for label, found in now.items() for key in found
                        if (record.settings.get(label) or {}).get(key) != found[key]}
                       | {f"{label} {key}" for label, found in record.settings.items()
                          if isinstance(found, dict) for key in found if key not in (now.get(label) or {})})
        unchanged = frozenset((label, key) for label, found in self.settings for key in found
                              if f"{label} {key}" not in names)
        return (names or ["other policy content"]), unchanged


def _rules_of(doc: dict[str, Any]) -> list[Any]:
    rules = doc.get("rules")
    return rules if isinstance(rules, list) else []


def _shown(value: Any) -> str:
    return canonical_bytes(value).decode()


_BRIEF_CHARS = 80


def _brief(key: str, value: Any) -> str:
    """A setting's value as a one-line message shows it: key lines as a count and a short
    digest, any other value cut at ``_BRIEF_CHARS``."""
    if key == SIGNERS_KEY and isinstance(value, list):
        count = f"{len(value)} key line{'s' if len(value) != 1 else ''}"
        return f"({count}, {digest_of(value)[:19]})"
    shown = _shown(value)
    return shown if len(shown) <= _BRIEF_CHARS else shown[:_BRIEF_CHARS - 1] + "…"


def trust_document(widening: Widening) -> dict[str, Any]:
    """What is digested: the format, both policy documents whole and where each allowed root
    resolves (any change to any of them is a change)."""
    document: dict[str, Any] = {"format": TRUST_FORMAT, "documents": {label: doc for label, doc in widening.documents},
                                "resolved_roots": [list(pair) for pair in widening.resolved_roots]}
    # Only with signers, so the digest of a policy that widens nothing else stays what it was.
    if widening.signers is not None:
        document["signers"] = {label: found[SIGNERS_KEY] for label, found in widening.settings if SIGNERS_KEY in found}
        document["sync"] = widening.sync or {}
    return document


def blocking_rules(documents: Sequence[tuple[str, dict[str, Any]]], default_blocking: frozenset[str]) -> frozenset[str]:
    """The rules defined to block: default rules whose action is ``block`` and
    custom rules (``rules`` of any source) whose spec says ``"action": "block"``."""
    names = set(default_blocking)
    for _, doc in documents:
        rules = doc.get("rules")
        for spec in rules if isinstance(rules, list) else ():
            if isinstance(spec, dict) and isinstance(spec.get("name"), str) and spec.get("action") == "block":
                names.add(spec["name"])
    return frozenset(names)


def widening_values(doc: dict[str, Any], *, blocking: frozenset[str], entropy_default: float,
                    length_default: int) -> dict[str, Any]:
    """The widening settings of one policy document (a well-formed one: ``baton.policy``
    has checked it), as written; empty when it widens nothing."""
    found: dict[str, Any] = {}
    for key in ("allowed_roots", "recheck_allowlist", "disable_rules"):
        value = doc.get(key)
        if isinstance(value, list) and value:
            found[key] = list(value)
    actions = doc.get("actions")
    if isinstance(actions, dict):
        lowered = {name: action for name, action in actions.items() if action != "block" and name in blocking}
        if lowered:
            found["actions"] = dict(sorted(lowered.items()))
    for key, default in (("entropy_threshold", entropy_default), ("min_secret_length", length_default)):
        value = doc.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > default:
            found[key] = value
    return found


def find_widening(documents: Sequence[tuple[str, dict[str, Any]]], *, default_blocking: frozenset[str] = frozenset(),
                  entropy_default: float, length_default: int,
                  resolved_roots: Sequence[tuple[str, str]] = (),
                  signers: tuple[str, Sequence[str]] | None = None,
                  sync: dict[str, Any] | None = None) -> Widening:
    """The widening settings of ``documents`` (``(label, policy document)``, in merge order);
    ``resolved_roots``: each allowed root as written and its real path now; ``signers``: the
    allowed-signers file (``(label, key lines)``) and ``sync``, ``config.json``'s ``sync`` section."""
    blocking = blocking_rules(documents, default_blocking)
    settings = []
    for label, doc in documents:
        found = widening_values(doc, blocking=blocking, entropy_default=entropy_default,
                                length_default=length_default)
        if found:
            settings.append((label, found))
    has_signers = signers is not None and bool(signers[1])
    if has_signers:
        assert signers is not None
        settings.append((signers[0], {SIGNERS_KEY: list(signers[1])}))
    if not settings:
        return Widening()
    return Widening(tuple(settings), tuple((label, doc) for label, doc in documents), tuple(resolved_roots),
                    dict(sync or {}) if has_signers else None)


def safe_document(doc: dict[str, Any], widening: Widening, label: str) -> dict[str, Any]:
    """``doc`` (labelled ``label``) without the widening values ``widening`` found in it: what
    applies while they are untrusted (the defaults for the numbers, no roots, no allowlist,
    every default rule on, every rule defined to block still blocking)."""
    found = dict(widening.settings).get(label) or {}
    # A custom rule may replace a default one only where the default is switched off: with
    # ``disable_rules`` withheld the default rule runs, and the rule meant to replace it is left out.
    enabled = {name for _, each in widening.settings for name in each.get("disable_rules", ())}
    rules = doc.get("rules")
    rules = rules if isinstance(rules, list) else []
    replacing = any(isinstance(spec, dict) and spec.get("name") in enabled for spec in rules)
    if not found and not replacing:
        return doc
    safe = {key: value for key, value in doc.items() if key not in found or key == "actions"}
    if "actions" in found:
        safe["actions"] = {name: action for name, action in doc["actions"].items() if name not in found["actions"]}
    if replacing:
        safe["rules"] = [spec for spec in rules if not (isinstance(spec, dict) and spec.get("name") in enabled)]
    return safe


_NO_SETTINGS: Any = EMPTY_MAPPING
"""A ``TrustRecord``'s settings when none are given: one shared, read-only empty mapping."""


class TrustRecord(Value):
    """What ``baton policy trust`` recorded in this clone's ``.baton/policy-trust.json``."""

    digest: str
    place: Place | None
    settings: dict[str, Any] = _NO_SETTINGS
    """``{file: {setting: value}}`` as trusted (read only; ``to_json`` gives a copy)."""
    trusted_at: str | None = None
    sync: dict[str, Any] | None = None
    """``config.json``'s ``sync`` section as trusted (recorded with signers only)."""
    revoked: tuple[str, ...] = ()
    """The keys (base64 blobs) a version of the allowed-signers file held before the one trusted
    and that one dropped: rotated out or removed (``revoked_keys``). Signer lines that bring one
    back are older than what was trusted (``PolicyTrust.behind``)."""
    commit: str | None = None
    """The commit checked out when the settings were trusted (HEAD), when in git."""
    branch: str | None = None
    """The branch checked out then, when on one."""

    @property
    def signers(self) -> tuple[str, ...]:
        """The allowed-signers lines trusted (``settings``), none when no signers were."""
        for found in self.settings.values():
            if isinstance(found, dict) and isinstance(found.get(SIGNERS_KEY), list):
                return tuple(line for line in found[SIGNERS_KEY] if isinstance(line, str))
        return ()

    @property
    def required_signatures(self) -> bool:
        return isinstance(self.sync, dict) and self.sync.get("require_signatures") is True

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"digest": self.digest,
                               "place": self.place.to_json() if self.place is not None else None,
                               "settings": dict(self.settings), "trusted_at": self.trusted_at}
        if self.sync is not None:
            out["sync"] = self.sync
        if self.revoked:
            out["revoked_keys"] = list(self.revoked)
        if self.commit is not None:
            out["commit"] = self.commit
        if self.branch is not None:
            out["branch"] = self.branch
        return out

    @classmethod
    def from_json(cls, raw: Any) -> "TrustRecord | None":
        """The record in a trust file's ``policy`` member; None when there is none or it is not one."""
        if not holds_trust_record(raw):
            return None
        member = raw["policy"]
        digest = member.get("digest")
        if not isinstance(digest, str):
            return None
        settings = member.get("settings")
        at = member.get("trusted_at")
        sync = member.get("sync")
        revoked = member.get("revoked_keys")
        commit, branch = member.get("commit"), member.get("branch")
        return cls(digest, Place.from_json(member.get("place")), settings if isinstance(settings, dict) else {},
                   at if isinstance(at, str) else None, sync if isinstance(sync, dict) else None,
                   tuple(k for k in revoked if isinstance(k, str)) if isinstance(revoked, list) else (),
                   commit if isinstance(commit, str) else None, branch if isinstance(branch, str) else None)


def trust_record(widening: Widening, here: Place, now: str, *, revoked: Sequence[str] = (),
                 commit: str | None = None, branch: str | None = None) -> TrustRecord:
    """The record that trusts exactly ``widening`` in the folder ``here`` (``revoked``: ``revoked_keys``;
    ``commit``/``branch``: what was checked out)."""
    return TrustRecord(widening.digest, here, widening.to_json(), now, widening.sync, tuple(revoked), commit, branch)


_KEY_BLOB = lazy(r"AAAA[A-Za-z0-9+/]{16,}={0,2}")
"""Compiled when a trusted widening names signers (``line_keys``), not by every start that reads a policy."""


def line_keys(lines: Sequence[str]) -> tuple[str, ...]:
    """The public keys (their base64 blobs, which every ssh key's starts with ``AAAA``) that the
    allowed-signers ``lines`` bind, in order, each once."""
    found: dict[str, None] = {}
    for line in lines:
        for token in line.split():
            if _KEY_BLOB.fullmatch(token):
                found[token] = None
                break
    return tuple(found)


def revoked_keys(now: Sequence[str], record: TrustRecord | None, earlier: Sequence[Sequence[str]] = (),
                 *, roll_back: bool = False) -> tuple[str, ...]:
    """The keys a new trust in the signer lines ``now`` records as revoked: those the previous
    ``record`` had revoked or trusted, and those of ``earlier`` versions of the file (its git
    history up to the commit checked out), less the keys ``now`` binds. ``roll_back``: the user
    chose to trust lines that bring revoked keys back (``policy trust --roll-back-signers``): only
    what was revoked before and stays out is kept, so the newer file is not taken for a rollback."""
    current = set(line_keys(now))
    before: dict[str, None] = dict.fromkeys(record.revoked if record is not None else ())
    if not roll_back:
        before.update(dict.fromkeys(line_keys(record.signers) if record is not None else ()))
        for version in earlier:
            before.update(dict.fromkeys(line_keys(version)))
    return tuple(key for key in before if key not in current)


class PolicyTrust(Value):
    """Whether the policy's widening settings apply in this clone, and why."""

    state: str
    widening: Widening = Widening()
    reason: str = ""
    """Why untrusted: ``never`` (no trust recorded), ``changed`` (other values were
    trusted), ``elsewhere`` (trusted in another folder: a copy, or a committed record)."""
    trusted_signers: tuple[str, ...] = ()
    """Untrusted but ``changed``: the allowed-signers lines this clone trusted before (they still apply)."""
    trusted_required: bool = False
    """Untrusted but ``changed``: signatures were required when this clone trusted its settings."""
    changed: tuple[str, ...] = ()
    """Untrusted but ``changed``: the settings that differ from those trusted (``Widening.changed_from``)."""
    unchanged: frozenset[tuple[str, str]] = frozenset()
    """Untrusted but ``changed``: the ``(label, key)`` of the settings trusted as they are now."""
    brought_back: tuple[str, ...] = ()
    """Reason ``behind``: the revoked keys these signer lines bring back (``TrustRecord.revoked``)."""
    trusted_on: str = ""
    """Reason ``behind``: where the trusted signers were trusted (``branch main at 1a2b3c4d``), when known."""

    @property
    def trusted(self) -> bool:
        return self.state != UNTRUSTED

    @property
    def digest(self) -> str | None:
        return None if self.widening.empty else self.widening.digest

    @property
    def reason_note(self) -> str:
        """How ``policy show`` qualifies the state: ``, changed since trusted``, or nothing."""
        if self.state != UNTRUSTED:
            return ""
        return {"changed": ", changed since trusted", "elsewhere": ", trusted in another folder",
                "behind": ", older than the signers trusted here"}.get(self.reason, "")

    def withholds_root_reason(self) -> str:
        """Why a path that leaves the project root is refused when untrusted ``allowed_roots``
        are not applied (a note for the refusal), or nothing when they are not why."""
        if self.state != UNTRUSTED or "allowed_roots" not in self.widening.keys:
            return ""
        files = " and ".join(file for file, found in self.widening.settings if "allowed_roots" in found)
        return (f"the allowed_roots of {files} are not trusted on this machine, so they are not applied; "
                f"to apply them, {REVIEW_HINT}")

    def allowed_once_trusted(self) -> str:
        """What a report adds to a path refused as outside the project root that the untrusted
        ``allowed_roots`` would allow: which file's roots, and that trusting them is the user's step."""
        files = " and ".join(file for file, found in self.widening.settings if "allowed_roots" in found)
        return (f"allowed by {files}'s allowed_roots once the user trusts them: {SHOW_COMMAND}, "
                f"then {TRUST_COMMAND}")

    def behind_note(self) -> str:
        """Reason ``behind``: why these signer lines are older than the trusted ones and what to do
        instead of trusting them (never an invitation to trust them)."""
        keys = ", ".join(f"…{key[-12:]}" for key in self.brought_back)
        where = f" (trusted on {self.trusted_on})" if self.trusted_on else ""
        return (f"this checkout's allowed-signers file is older than the one trusted in this clone{where}: it "
                f"brings back key{'s' if len(self.brought_back) != 1 else ''} {keys} that a later version "
                "dropped and drops a key trusted now, so this branch is behind the trusted signers. Merge or "
                "rebase it onto the branch the signers were trusted on; the trusted signers keep applying "
                "here meanwhile (do not trust these: that would revoke the newer keys for this whole clone)")

    def message(self) -> str:
        """What a command says, once, when the settings are not applied."""
        if self.state != UNTRUSTED:
            return ""
        if self.reason == "behind":
            return f"policy settings not applied: {self.behind_note()}"
        why = {"changed": "changed since they were trusted in this clone",
               "elsewhere": "trusted in another folder, not in this clone"}.get(self.reason,
                                                                             "not trusted on this machine")
        instead = "; ".join(SAFE_VALUES[key] for key in (*WIDENING_KEYS, SIGNERS_KEY) if key in self.widening.keys)
        if self.reason == "changed":  # names what changed; the rest was reviewed when it was trusted
            withheld = self.widening.describe(frozenset(set(self._pairs()) - self.unchanged))
            with_them = self.widening.describe(self.unchanged)
            what = f"changed: {', '.join(self.changed)}" + (f" ({withheld})" if withheld else "")
            if with_them:
                what += f"; withheld with them, unchanged: {with_them}"
            return (f"policy settings {why} are not applied: {what}; digest now {self.widening.digest[:19]}. "
                    f"To apply them, {REVIEW_HINT}")
        return (f"policy settings {why} are not applied: {self.widening.describe()} (instead: {instead}). "
                f"To apply them, {REVIEW_HINT}")

    def signers_note(self) -> str:
        """What a feed's verdict adds while the allowed-signers lines are not applied here: why
        (never trusted, trusted elsewhere, or which settings changed) and the two commands."""
        if self.state != UNTRUSTED or self.widening.signers is None:
            return ""
        if self.reason == "behind":
            return f"the signers trusted in this clone apply: {self.behind_note()}"
        if self.reason == "changed":
            why = f"the signer settings changed since this clone trusted them ({', '.join(self.changed)})"
        elif self.reason == "elsewhere":
            why = "the allowed-signers file was trusted in another folder, not in this clone"
        else:
            why = "the allowed-signers file is not trusted in this clone yet"
        return f"{why}: {SIGNERS_TRUST_STEPS}"

    def _pairs(self) -> tuple[tuple[str, str], ...]:
        return tuple((label, key) for label, found in self.widening.settings for key in found)

    def summary(self) -> str:
        """One line for ``baton doctor`` and ``baton audit``."""
        if self.state == NONE:
            return "no setting of the policy widens it: nothing to trust"
        keys = ", ".join(self.widening.keys)
        if self.state == TRUSTED:
            return f"trusted here: {keys} of {' and '.join(self.widening.files)} apply"
        if self.reason == "behind":
            return f"untrusted, not applied: {self.behind_note()}"
        changed = f" (changed: {', '.join(self.changed)})" if self.changed else ""
        return f"untrusted, not applied: {self.widening.describe()}{changed}; to apply them, {REVIEW_HINT}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"state": self.state, "settings": self.widening.to_json(), "digest": self.digest}
        if self.widening.resolved_roots:
            out["resolved_roots"] = {written: real for written, real in self.widening.resolved_roots}
        if self.widening.related_rules:
            out["related_rules"] = list(self.widening.related_rules)
        if self.state == UNTRUSTED:
            out.update(reason=self.reason, message=self.message(), review=SHOW_COMMAND)
        if self.reason == "behind":
            out.update(revoked_keys_brought_back=list(self.brought_back), trusted_on=self.trusted_on or None)
        return out


NOTHING_TO_TRUST = PolicyTrust(NONE)


def place_trusts(recorded: Place | None, here: Place | None, *, in_git_dir: bool) -> bool:
    """Whether a trust record made at ``recorded`` counts ``here``: always the same project
    root path; in a git directory (which no clone brings) the same ``.baton`` folder as the
    writer id judges one (``check_place``); outside git (where the record sits in ``.baton/``,
    which a copy or an archive may bring) exactly the same root, host, device and inode."""
    if recorded is None or here is None or recorded.root != here.root:
        return False
    if not in_git_dir:
        return recorded == here
    return check_place(recorded, here).keeps_writer


def judge_trust(widening: Widening, record: TrustRecord | None, here: Place | None, *,
                in_git_dir: bool = True) -> PolicyTrust:
    """Whether ``widening`` applies: it widens nothing, or ``record`` trusts exactly its
    digest and was made for this project root (``place_trusts``)."""
    if widening.empty:
        return NOTHING_TO_TRUST
    if record is None:
        return PolicyTrust(UNTRUSTED, widening, "never")
    if not place_trusts(record.place, here, in_git_dir=in_git_dir):
        return PolicyTrust(UNTRUSTED, widening, "elsewhere")
    if record.digest != widening.digest and not only_requires_signatures(widening, record):
        changed, unchanged = widening.changed_from(record)
        back = rolled_back_keys(widening, record)
        return PolicyTrust(UNTRUSTED, widening, "behind" if back else "changed", record.signers,
                           record.required_signatures, tuple(changed), unchanged, back, _trusted_on(record))
    return PolicyTrust(TRUSTED, widening)


def rolled_back_keys(widening: Widening, record: TrustRecord) -> tuple[str, ...]:
    """The keys ``record`` holds as revoked that ``widening``'s signer lines bring back, when those
    lines also drop a key ``record`` trusts: an older allowed-signers file than the trusted one (a
    branch cut before a key rotation). Empty otherwise (a branch that only adds a key is not older)."""
    if widening.signers is None or not record.revoked:
        return ()
    now = set(line_keys(widening.signers))
    if not set(line_keys(record.signers)) - now:
        return ()
    return tuple(key for key in record.revoked if key in now)


def _trusted_on(record: TrustRecord) -> str:
    parts = [f"branch {record.branch}" if record.branch else "", f"at {record.commit[:12]}" if record.commit else ""]
    return " ".join(part for part in parts if part)


def only_requires_signatures(widening: Widening, record: TrustRecord) -> bool:
    """Whether ``widening`` is what ``record`` trusted but for ``sync.require_signatures`` set to
    true: that only refuses more (docs/sync.md, "Which signers apply"), so it needs no new trust."""
    if widening.sync is None or record.sync is None:
        return False
    if widening.sync != {**record.sync, "require_signatures": True}:
        return False
    return digest_of(trust_document(replace(widening, sync=record.sync))) == record.digest


def withholds_recheck(withheld: Sequence[str], command: str) -> bool:
    """Whether ``command`` would be allowed if the untrusted ``recheck_allowlist`` (``withheld``)
    applied: a refusal then says the trust is what is missing, not the listing."""
    return lists_command(withheld, command)


KEPT_SIGNERS_NOTE = ("this checkout names no allowed signers, so the signers and requirement this clone trusted "
                     f"before still apply ({SHOW_COMMAND}; `baton policy untrust` drops them)")
"""Why a verdict is checked against the signers trusted before while the checked-out settings name
none (``SignersInForce.kept``): the absence widens as ``require_signatures: false`` does."""


REQUIRED_BY_TRUST = (f"signatures are required by the settings this clone trusted; the checked-out ones, which do "
                     f"not require them, are not trusted here (`{SHOW_COMMAND}`)")
"""A requirement an untrusted change would drop: what this clone trusted still applies."""
REQUIRED_BY_KEPT_TRUST = (f"signatures are required by the settings this clone trusted; this checkout names no "
                          f"allowed signers (`{SHOW_COMMAND}`; `baton policy untrust` drops them)")
"""A requirement kept while the checkout names no signers (``KEPT_SIGNERS_NOTE``)."""


class SignersInForce(Value):
    """Which signers and requirement ``baton sync`` and ``baton verify`` apply here."""

    signers: tuple[str, ...] | None
    """None: the allowed-signers file as it is; else only these lines (those trusted before)."""
    required: bool
    """Whether a feed whose signature is not good is refused."""
    kept: bool = False
    """The checked-out settings name no signer lines, and this clone's trust required signatures:
    what it trusted still applies (``KEPT_SIGNERS_NOTE``)."""
    by_trust: bool = False
    """Signatures are required only because this clone's trust required them: the checked-out
    ``sync.require_signatures`` is not true (``required_by``)."""

    @property
    def required_by(self) -> str:
        """Where the requirement comes from, as a refusal names it (empty when none): the
        checked-out setting, or what this clone trusted before (a checkout naming no signers,
        or an untrusted change that turned it off)."""
        if not self.required:
            return ""
        if not self.by_trust:
            return REQUIRED_BY_SETTING
        return REQUIRED_BY_KEPT_TRUST if self.kept else REQUIRED_BY_TRUST


def kept_record(record: TrustRecord | None, here: Place | None, *, in_git_dir: bool = True) -> TrustRecord | None:
    """``record`` when it counts in this folder (``place_trusts``) and required signatures: what
    keeps applying while the checked-out settings name no signer lines (``signers_in_force``)."""
    if record is None or not record.required_signatures:
        return None
    return record if place_trusts(record.place, here, in_git_dir=in_git_dir) else None


def signers_in_force(trust: PolicyTrust | None, required: bool, kept: TrustRecord | None = None) -> SignersInForce:
    """While the allowed-signers file is untrusted, only the signers trusted here before vouch
    for a feed (none when never trusted), and signatures stay required if they were required when
    trusted, whatever the ``sync`` section says now (``required``); otherwise the file and section apply.

    A checkout whose settings name no signer lines at all (no file, or one without key lines: a
    branch cut before the team signed) widens exactly as turning ``require_signatures`` off does,
    yet leaves nothing to trust: so when this clone's trust record ``kept`` (``kept_record``)
    required signatures, its signer lines and the requirement still apply."""
    if trust is not None and not trust.trusted and trust.widening.signers is not None:
        return SignersInForce(trust.trusted_signers, required or trust.trusted_required,
                              by_trust=not required and trust.trusted_required)
    if kept is not None and kept.required_signatures and (trust is None or trust.widening.signers is None):
        return SignersInForce(kept.signers, True, kept=True, by_trust=not required)
    return SignersInForce(None, required)
