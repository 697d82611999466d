"""The project's security policy: what to redact or block, which roots a path
may reach, and which commands ``--recheck`` may run.

Read from the ``policy`` section of ``.baton/config.json`` and from
``.baton/policy.json`` (both meant to be committed, so a team shares one
policy). A malformed policy is an input error naming the file and every
problem in it: a security setting that is silently ignored is worse than one
that stops the command.

Because both files arrive with a clone, the settings that widen what Baton
reads or runs, or weaken what it redacts, apply only once this clone has
trusted exactly their values (``baton policy trust``, recorded in the
repository's git directory, ``<gitdir>/baton/policy-trust.json``, or in
``.baton/policy-trust.json`` for a project outside git); until then the policy is built
without them (``baton.domain.policy_trust`` decides which settings those are
and whether they are trusted). That module is loaded by name, and only when
a source holds one of ``TRUST_KEYS``: a project whose policy widens nothing
(``baton init``'s) opens on the hook path with no module more than before.

This module may touch the file system (reading the policy, following
symlinks); the rules themselves live in the pure ``baton.domain.redaction``
and ``baton.domain.paths``.
"""

from __future__ import annotations

import os
import stat

from baton.config import ProjectConfig, allowed_signers_setting, read_json, write_json_atomic
from baton.domain import paths as pathrules
from baton.domain.paths import lexical_problem
from baton.domain.policy_keys import (
    REQUIRED_BY_SETTING,
    WIDENING_KEYS,
    holds_trust_record,
    lists_command,
    may_widen,
    signer_lines,
)
from baton.domain.redaction import (
    DEFAULT_ENTROPY_THRESHOLD,
    DEFAULT_MIN_SECRET_LENGTH,
    DEFAULT_RULES,
    RedactionOutcome,
    RedactionPolicy,
    Rule,
    build_redaction_policy,
    custom_rule,
    redact_payload,
    rule_label,
)
from baton.errors import ConfigError, PolicyBlock, PolicyConfigError, StorageError, UnsafePath
from baton.gitinfo import file_versions, inside, locate
from baton.project import ProjectPaths
from baton.values import Value, replace
from baton.writer_id import host_name

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook path's modules need none)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Sequence

    from _typeshed import StrPath

POLICY_SCHEMA = 1
KNOWN_KEYS = frozenset({
    "schema_version", "rules", "disable_rules", "actions", "entropy_threshold", "min_secret_length",
    "path_fields", "allowed_roots", "recheck_allowlist",
})
RULE_KEYS = frozenset({"name", "regex", "glob", "action", "reason", "applies_to"})
MAX_SYMLINK_HOPS = 40  # as the Linux kernel's MAXSYMLINKS
TRUST_KEYS = WIDENING_KEYS
"""The keys ``baton.domain.policy_trust`` judges: a policy source holding none of them, or only
empty lists and objects (``may_widen``), needs no trust and loads no trust rules."""
TRUST_FILE = "policy-trust.json"
"""The file this checkout records the policy settings it trusted in: in ``<gitdir>/baton/``
(``trust_location``), or in ``.baton/`` for a project outside git."""


class Policy(Value):
    redaction: RedactionPolicy = RedactionPolicy()
    allowed_roots: tuple[Path, ...] = ()
    """Absolute, resolved roots outside the project that paths may reach (§16)."""
    recheck_allowlist: tuple[str, ...] = ()
    """Commands ``validate --recheck`` may re-run, exactly as written."""
    sources: tuple[str, ...] = ()
    """The files this policy was read from, for messages and ``doctor``."""
    trust: Any = None
    """Whether the widening settings of the policy apply here
    (``baton.domain.policy_trust.PolicyTrust``); None when no source holds one."""
    withheld_allowlist: tuple[str, ...] = ()
    """The ``recheck_allowlist`` entries an untrusted policy holds and does not apply."""
    withheld_roots: tuple[Path, ...] = ()
    """The ``allowed_roots`` an untrusted policy holds and does not apply (resolved)."""

    @property
    def untrusted(self) -> bool:
        """The policy holds widening settings this clone has not trusted: they are not applied."""
        return self.trust is not None and not self.trust.trusted

    def withholds_recheck(self, command: str) -> bool:
        """``command`` would be allowed if the untrusted allowlist applied."""
        return bool(self.withheld_allowlist) and bool(_trust_rules().withholds_recheck(self.withheld_allowlist, command))

    def redact(self, payload: Any, *, at: str = "") -> RedactionOutcome:
        return redact_payload(payload, self.redaction, at=at)

    def allows_recheck(self, command: str) -> bool:
        """Exact match after collapsing runs of whitespace: ``pytest -q`` does
        not allow ``pytest -q; rm -rf ~`` (``lists_command``)."""
        return lists_command(self.recheck_allowlist, command)

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": [{"name": r.name, "kind": r.kind, "action": r.action, "reason": r.reason}
                      for r in self.redaction.rules],
            "entropy_threshold": self.redaction.entropy_threshold,
            "min_secret_length": self.redaction.min_secret_length,
            "path_fields": sorted(self.redaction.path_fields),
            "allowed_roots": [str(p) for p in self.allowed_roots],
            "recheck_allowlist": list(self.recheck_allowlist),
            "sources": list(self.sources),
            "trust": self.trust.to_json() if self.trust is not None else {"state": "none", "settings": {},
                                                                          "digest": None},
        }


def load_policy(paths: ProjectPaths, config: ProjectConfig) -> Policy:
    """The project's policy: defaults, then ``config.json``'s ``policy``
    section, then ``.baton/policy.json``. Lists (rules, disabled rules, roots,
    allowlist) add up; numbers and per-rule actions from ``policy.json`` win.
    Settings that widen it apply only when this clone trusts them (module docstring).

    Raises:
        ConfigError: a policy source is not valid JSON or breaks the format;
            the message names the file and lists every problem found.
    """
    sources = policy_sources(paths, config)
    policy = build_policy(sources, root=paths.root_folder)
    signers = read_signers(paths, config)
    if not any(may_widen(doc) for _, doc in sources) and signers is None:
        return policy
    trust = judge_policy_trust(paths, sources, config)
    if trust.trusted:
        return replace(policy, trust=trust)
    rules = _trust_rules()
    labelled = list(zip(source_labels(paths, sources), sources))
    safe = build_policy([(where, rules.safe_document(doc, trust.widening, label)) for label, (where, doc) in labelled],
                        root=paths.root_folder)
    return replace(safe, trust=trust, withheld_allowlist=policy.recheck_allowlist,
                        withheld_roots=policy.allowed_roots)


def trust_rules_hint() -> str:
    """``baton.domain.policy_trust.REVIEW_HINT``: how a message says what would apply the settings."""
    return str(_trust_rules().REVIEW_HINT)


def _trust_rules() -> Any:
    """``baton.domain.policy_trust``, loaded only for a policy that may widen (module docstring)."""
    return __import__("baton.domain.policy_trust", fromlist=["judge_trust"])


def source_labels(paths: ProjectPaths, sources: Sequence[tuple[str, dict[str, Any]]]) -> list[str]:
    """Each source as the trust digest names it: relative to the project root, so the
    digest is the same in every clone (``.baton/config.json`` for its policy section)."""
    return [".baton/config.json" if where.startswith(paths.config_file) else ".baton/policy.json"
            for where, _ in sources]


def read_signers(paths: ProjectPaths, config: ProjectConfig) -> tuple[str, tuple[str, ...]] | None:
    """The allowed-signers file ``baton sync`` checks feeds against, ``(path as configured, key
    lines)``, when it holds a line ``ssh-keygen`` would read as a key line (``signer_lines``:
    parsed exactly as ``ssh-keygen`` parses it); None when it has none or cannot be read (then no
    key vouches for a feed either). Its keys arrive with a clone, so they are trusted as the
    policy's widening settings are (``baton.domain.policy_trust``), and ``ssh-keygen`` is only
    ever handed a file Baton wrote from these very lines (``baton.sync.signing``)."""
    setting = allowed_signers_setting(config)
    if setting is None:
        return None
    try:
        with open(os.path.join(paths.root_folder, setting), "rb") as fh:
            lines = signer_lines(fh.read())
    except OSError:
        return None
    if not lines:
        return None
    return setting, lines


def policy_widening(paths: ProjectPaths, sources: Sequence[tuple[str, dict[str, Any]]],
                    config: ProjectConfig | None = None) -> Any:
    """The widening settings of the (well-formed) ``sources`` (``baton.domain.policy_trust.Widening``),
    with the allowed-signers file and ``sync`` section ``config`` names."""
    rules = _trust_rules()
    blocking = frozenset(r.name for r in DEFAULT_RULES if r.action == "block")
    signers = read_signers(paths, config) if config is not None else None
    return rules.find_widening(list(zip(source_labels(paths, sources), (doc for _, doc in sources))),
                               default_blocking=blocking, entropy_default=DEFAULT_ENTROPY_THRESHOLD,
                               length_default=DEFAULT_MIN_SECRET_LENGTH,
                               resolved_roots=resolved_allowed_roots(paths, sources),
                               signers=signers,
                               sync=config.section("sync") if config is not None else None)


def resolved_allowed_roots(paths: ProjectPaths, sources: Sequence[tuple[str, dict[str, Any]]]) -> list[tuple[str, str]]:
    """Each ``allowed_roots`` entry of ``sources`` as written and the real path it resolves to
    now (following every symlink), so trust covers where a root points, not its string."""
    found = []
    for _, doc in sources:
        roots = doc.get("allowed_roots")
        for entry in roots if isinstance(roots, list) else ():
            if isinstance(entry, str):
                found.append((entry, str(_allowed_root(paths.root, entry))))
    return found


def trust_location(paths: ProjectPaths) -> tuple[str, bool]:
    """Where this checkout keeps its trust record, and whether that is in a git directory.

    In a git repository: this checkout's own git directory (a linked worktree's
    ``.git/worktrees/NAME``), which git never tracks nor sends, so no clone can bring
    a record; a ``.baton/policy-trust.json`` is then never read. Outside git: ``.baton/``."""
    where = locate(paths.root_folder)
    if where is not None:
        return os.path.join(where.git_dir, "baton", TRUST_FILE), True
    return os.path.join(paths.baton_folder, TRUST_FILE), False


def trust_file(paths: ProjectPaths) -> str:
    return trust_location(paths)[0]


def here_place(paths: ProjectPaths) -> Any:
    """This ``.baton`` folder's place (``baton.domain.writer_place.Place``), or None when it cannot be looked at."""
    rules = _trust_rules()
    try:
        st = os.stat(paths.baton_dir)
    except OSError:
        return None
    return rules.Place(str(paths.root), host_name(), st.st_dev, st.st_ino)


def _read_trust_file(path: str) -> dict[str, Any]:
    try:
        raw = read_json(path, ConfigError)
    except (FileNotFoundError, ConfigError, StorageError):
        return {}
    return raw if isinstance(raw, dict) else {}


def read_trust_record(paths: ProjectPaths) -> Any:
    """The trust this checkout recorded for this project root (``TrustRecord``), or None: no
    file, or one that does not read as a record (which trusts nothing; ``baton policy trust``
    writes a good one)."""
    return _trust_rules().TrustRecord.from_json(_recorded_trust(paths))


def _recorded_trust(paths: ProjectPaths) -> Any:
    """This project root's member of this checkout's trust file, as read (what
    ``TrustRecord.from_json`` reads; anything, or None when there is none)."""
    path, in_git = trust_location(paths)
    raw: Any = _read_trust_file(path)
    if in_git:
        raw = _trusted_projects(path).get(paths.root_folder)
    return raw


def kept_signing_trust(paths: ProjectPaths) -> Any:
    """This checkout's trust record when it counts here and required signatures
    (``baton.domain.policy_trust.kept_record``): what keeps applying while the checked-out
    settings name no signer lines. Read only by the commands that check signatures."""
    rules = _trust_rules()
    return rules.kept_record(read_trust_record(paths), here_place(paths), in_git_dir=trust_location(paths)[1])


def signing_in_force(paths: ProjectPaths, policy: Policy, required: bool) -> Any:
    """Which signers and requirement apply here (``baton.domain.policy_trust.SignersInForce``):
    ``required`` is ``sync.require_signatures`` as the checkout says it; the trust record is read
    again only when the checkout names no signer lines (``kept_signing_trust``)."""
    trust = policy.trust
    kept = kept_signing_trust(paths) if trust is None or trust.widening.signers is None else None
    return _trust_rules().signers_in_force(trust, required, kept)


def signing_required(paths: ProjectPaths, policy: Policy, required: bool) -> tuple[bool, str]:
    """``signing_in_force``'s requirement and where it comes from (``SignersInForce.required``
    and ``required_by``). A policy with no widening to judge (``policy.trust`` None) and a
    checkout with no trust record for this root leave the checked-out setting alone to decide
    (``policy_trust.signers_in_force``'s last case): the trust rules are not loaded for it (a
    brief listing another writer's handoff asks this at each start, issue 27)."""
    if policy.trust is None and not holds_trust_record(_recorded_trust(paths)):
        return required, REQUIRED_BY_SETTING if required else ""
    in_force = signing_in_force(paths, policy, required)
    return bool(in_force.required), str(in_force.required_by)


def _trusted_projects(path: str) -> dict[str, Any]:
    """The records of a git directory's trust file, by project root."""
    projects = _read_trust_file(path).get("projects")
    return projects if isinstance(projects, dict) else {}


def judge_policy_trust(paths: ProjectPaths, sources: Sequence[tuple[str, dict[str, Any]]],
                       config: ProjectConfig | None = None) -> Any:
    """Whether the widening settings of ``sources`` (and the signers ``config`` names) apply here
    (``PolicyTrust``)."""
    rules = _trust_rules()
    widening = policy_widening(paths, sources, config)
    if widening.empty:
        return rules.NOTHING_TO_TRUST
    return rules.judge_trust(widening, read_trust_record(paths), here_place(paths),
                             in_git_dir=trust_location(paths)[1])


def write_trust_record(paths: ProjectPaths, record: Any) -> None:
    """Record ``record`` (``TrustRecord``) as this checkout's trust, replacing any before it.

    Raises:
        StorageError: the file cannot be written.
    """
    path, in_git = trust_location(paths)
    if not in_git:
        write_json_atomic(path, {"schema_version": 1, "policy": record.to_json()})
        return
    projects = {**_trusted_projects(path), str(paths.root): {"policy": record.to_json()}}
    write_json_atomic(path, {"schema_version": 1, "projects": projects})


def remove_trust_record(paths: ProjectPaths) -> bool:
    """Forget this checkout's trust in this project; whether there was a record to remove.

    Raises:
        StorageError: the file is there and cannot be removed or rewritten.
    """
    path, in_git = trust_location(paths)
    try:
        if in_git:
            projects = _trusted_projects(path)
            if str(paths.root) not in projects:
                return False
            rest = {root: kept for root, kept in projects.items() if root != str(paths.root)}
            if rest:
                write_json_atomic(path, {"schema_version": 1, "projects": rest})
                return True
        os.unlink(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise StorageError(f"cannot remove {path}: {exc}") from exc
    return True


def policy_sources(paths: ProjectPaths, config: ProjectConfig) -> list[tuple[str, dict[str, Any]]]:
    """The policy documents, in merge order: ``(where, document)``.

    Raises:
        ConfigError: a source is not a JSON object or not valid JSON.
    """
    sources: list[tuple[str, dict[str, Any]]] = []
    if "policy" in config.extra:
        section = config.extra["policy"]
        where = f"{paths.config_file} (policy section)"
        if not isinstance(section, dict):
            raise ConfigError(f"{where}: must be a JSON object, not {type(section).__name__}",
                             details={"file": paths.config_file, "problems": ["not an object"]})
        sources.append((where, section))
    try:
        raw = read_json(paths.policy_file, ConfigError)
    except FileNotFoundError:
        raw = None
    if raw is not None:
        if not isinstance(raw, dict):
            raise ConfigError(f"{paths.policy_file}: must be a JSON object, not {type(raw).__name__}",
                             details={"file": paths.policy_file, "problems": ["not an object"]})
        sources.append((paths.policy_file, raw))
    return sources


def build_policy(sources: Sequence[tuple[str, dict[str, Any]]], *, root: StrPath) -> Policy:
    """Merge policy documents, in order, into one :class:`Policy`.

    Raises:
        ConfigError: naming the first source with problems and all of them.
    """
    rules: list[Rule] = []
    disable: list[str] = []
    actions: dict[str, str] = {}
    numbers: dict[str, Any] = {}
    path_fields: list[str] = []
    allowed: list[Path] = []
    allowlist: list[str] = []
    seen_rule_names: dict[str, str] = {}
    for where, doc in sources:
        problems: list[str] = []
        unknown = sorted(set(doc) - KNOWN_KEYS)
        if unknown:
            problems.append(f"unknown {'key' if len(unknown) == 1 else 'keys'} {unknown}; known: {sorted(KNOWN_KEYS)}")
        version = doc.get("schema_version", POLICY_SCHEMA)
        if version != POLICY_SCHEMA:
            problems.append(f"schema_version {version!r} is not supported (this Baton reads {POLICY_SCHEMA})")
        refused: set[Any] = set()  # names of this file's rules already reported as malformed
        for i, spec in enumerate(_list(doc, "rules", problems)):
            rule = _parse_rule(i, spec, problems)
            if rule is None:
                if isinstance(spec, dict) and isinstance(spec.get("name"), str):
                    refused.add(spec["name"])
                continue
            if rule.name in seen_rule_names:
                problems.append(f"rules[{i}]: name {rule.name!r} is already defined in {seen_rule_names[rule.name]}")
                continue
            seen_rule_names[rule.name] = where
            rules.append(rule)
        disable.extend(_strings(doc, "disable_rules", problems))
        raw_actions = doc.get("actions", {})
        if not isinstance(raw_actions, dict):
            problems.append("actions must be an object mapping rule names to 'redact' or 'block'")
        else:
            actions.update(raw_actions)
        for key in ("entropy_threshold", "min_secret_length"):
            if key in doc:
                numbers[key] = doc[key]
        path_fields.extend(_strings(doc, "path_fields", problems))
        for text in _strings(doc, "allowed_roots", problems):
            allowed.append(_allowed_root(root, text))
        allowlist.extend(_strings(doc, "recheck_allowlist", problems))
        try:  # every problem of the file at once: the rules' own, then what the policy as a whole finds
            build_redaction_policy(extra_rules=rules, disable=[d for d in disable if d not in refused],
                                   actions={k: v for k, v in actions.items() if k not in refused},
                                   extra_path_fields=path_fields, **numbers)
        except PolicyConfigError as exc:
            problems.append(str(exc))
        if problems:
            raise ConfigError(f"{where}: invalid policy: " + "; ".join(problems),
                             details={"file": where, "problems": problems})
    redaction = build_redaction_policy(extra_rules=rules, disable=disable, actions=actions,
                                       extra_path_fields=path_fields, **numbers)
    return Policy(redaction=redaction, allowed_roots=tuple(dict.fromkeys(allowed)),
                  recheck_allowlist=tuple(dict.fromkeys(allowlist)),
                  sources=tuple(where for where, _ in sources))


def _list(doc: dict[str, Any], key: str, problems: list[str]) -> list[Any]:
    value = doc.get(key, [])
    if not isinstance(value, list):
        problems.append(f"{key} must be a list, not {type(value).__name__}")
        return []
    return value


def _strings(doc: dict[str, Any], key: str, problems: list[str]) -> list[str]:
    values = _list(doc, key, problems)
    bad = [i for i, v in enumerate(values) if not isinstance(v, str) or not v.strip()]
    if bad:
        problems.append(f"{key}{bad} must be non-empty strings")
        return [v for v in values if isinstance(v, str) and v.strip()]
    return values


def _parse_rule(i: int, spec: Any, problems: list[str]) -> Rule | None:
    if not isinstance(spec, dict):
        problems.append(f"rules[{i}] must be an object with name, regex (or glob), action, reason")
        return None
    unknown = sorted(set(spec) - RULE_KEYS)
    if unknown:
        problems.append(f"rules[{i}]: unknown {'key' if len(unknown) == 1 else 'keys'} {unknown}; known: {sorted(RULE_KEYS)}")
        return None
    if "name" not in spec:
        problems.append(f"rules[{i}]: 'name' is required")
        return None
    try:
        return custom_rule(spec["name"], regex=spec.get("regex"), glob=spec.get("glob"),
                           action=spec.get("action", "redact"), reason=spec.get("reason"),
                           applies_to=spec.get("applies_to", "text"))
    except PolicyConfigError as exc:
        problems.append(f"rules[{i}] ({spec.get('name')!r}): {exc}")
        return None


def _allowed_root(root: StrPath, text: str) -> Path:
    # An explicit user setting in the user's own policy file, so "~" is
    # expanded here (it is refused in handoff paths).
    from pathlib import Path  # lazy: a policy that names allowed roots only

    path = Path(text).expanduser()
    if not path.is_absolute():
        path = root / path
    return Path(os.path.realpath(path))


_LEAVES_THE_ROOT = (pathrules.PARENT_REFERENCE, pathrules.ABSOLUTE, pathrules.OUTSIDE_ROOT, pathrules.SYMLINK_ESCAPE)
"""Refusals an allowed root could have let through."""


def with_untrusted_roots(exc: UnsafePath, policy: Policy) -> UnsafePath:
    """``exc``, saying, when the policy's ``allowed_roots`` are untrusted and not applied, that
    this is why a path that leaves the root is refused (and how to trust them)."""
    if not policy.untrusted or exc.reason not in _LEAVES_THE_ROOT or "untrusted_policy" in exc.details:
        return exc
    note = policy.trust.withholds_root_reason()
    if not note:
        return exc
    exc.message += f" ({note})"
    exc.args = (exc.message,)
    exc.details = {**exc.details, "untrusted_policy": policy.trust.to_json()}
    return exc


def allowed_once_trusted(policy: Policy, root: StrPath, rel: str) -> str:
    """When ``rel`` is refused as leaving ``root`` but the untrusted ``allowed_roots`` would allow
    it: the note a report adds (``PolicyTrust.allowed_once_trusted``); else empty."""
    if not policy.withheld_roots or not policy.untrusted:
        return ""
    try:
        check_path_inside_root(root, rel, policy.withheld_roots)
    except UnsafePath:
        return ""
    return str(policy.trust.allowed_once_trusted())


def redact_or_block(payload: Any, policy: Policy | RedactionPolicy, *, at: str = "") -> RedactionOutcome:
    """Redact ``payload``; refuse it if any "block" rule matched.

    Raises:
        PolicyBlock: a block rule matched. The message and details name the
            fields and rules, never the values.
    """
    redaction = policy.redaction if isinstance(policy, Policy) else policy
    outcome = redact_payload(payload, redaction, at=at)
    if outcome.blocked:
        listed = ", ".join(f"{r.field} ({rule_label(r.rule, r.reason)})" for r in outcome.blocked)
        raise PolicyBlock(f"refused by secret policy: {listed}",
                          details={"blocked": [r.to_json() for r in outcome.blocked]})
    return outcome


# -- paths on the file system ------------------------------------------------

def check_path_inside_root(root: StrPath, rel: str, allowed_roots: Sequence[StrPath] = ()) -> Path:
    """The real location of ``rel`` (relative to ``root``), refused unless it
    stays inside ``root`` or one of ``allowed_roots`` once every symlink is
    followed. The path need not exist (a deleted artifact is judged by where
    it would be).

    Without allowed roots, ``rel`` must be a plain project path (no ``..``,
    not absolute); with them, it may be absolute or climb with ``..`` as long
    as it lands inside an allowed root.

    The answer holds at the moment of the check: Baton only reads these paths
    (to hash them), and should read the returned path, not ``rel`` again.

    Raises:
        UnsafePath: (a PolicyBlock, exit 5) naming the path and why:
            a textual hazard, outside the root, a symlink escape or loop.
    """
    from pathlib import Path  # lazy: the answer of a command that reads the path, off the hook path

    return Path(real_location_inside_root(root, rel, allowed_roots))


def real_location_inside_root(root: StrPath, rel: str, allowed_roots: Sequence[StrPath] = ()) -> str:
    """``check_path_inside_root``'s answer as a string (``os.path``): what the hook path checks
    (``.baton/`` inside the project, at every start) holds no ``pathlib``.

    Raises:
        UnsafePath: as ``check_path_inside_root``.
    """
    allowed = tuple(os.path.realpath(p) for p in allowed_roots)
    problem = lexical_problem(rel, allow_outside=bool(allowed))
    if problem is not None:
        raise UnsafePath(rel, *problem)
    real_root = os.path.realpath(root)
    resolved, followed = _resolve(real_root, rel)
    for base in (real_root, *allowed):
        if inside(resolved, base):
            return resolved
    lexical = os.path.normpath(os.path.join(real_root, rel))
    if followed and inside(lexical, real_root):
        link, target = followed[0]
        raise UnsafePath(rel, pathrules.SYMLINK_ESCAPE,
                         f"it resolves to {resolved}, outside the project root {real_root}, "
                         f"through the symlink {link} -> {target}",
                         resolved=resolved, symlink=link, target=target)
    raise UnsafePath(rel, pathrules.OUTSIDE_ROOT,
                     f"it resolves to {resolved}, outside the project root {real_root}"
                     + (" and every allowed root" if allowed else " (no allowed_roots are configured)"),
                     resolved=resolved)


def _resolve(root: str, rel: str) -> tuple[str, list[tuple[str, str]]]:
    """Follow ``rel`` from ``root`` one component at a time, like the kernel:
    ``..`` after a symlink climbs from the link's *target*. Components that do
    not exist are taken as written. Returns the path and the symlinks followed.

    Raises:
        UnsafePath: more than MAX_SYMLINK_HOPS symlinks (a loop).
    """
    current = "/" if rel.startswith("/") else root
    pending = [p for p in rel.split("/") if p not in ("", ".")]
    pending.reverse()
    followed: list[tuple[str, str]] = []
    hops = 0
    while pending:
        part = pending.pop()
        if part == "..":
            current = os.path.dirname(current)
            continue
        candidate = os.path.join(current, part)
        try:
            info = os.lstat(candidate)
        except FileNotFoundError:
            current = candidate
            continue
        except NotADirectoryError:
            current = candidate
            continue
        except OSError as exc:
            raise UnsafePath(rel, pathrules.OUTSIDE_ROOT, f"cannot inspect {candidate}: {exc.strerror}") from exc
        if not stat.S_ISLNK(info.st_mode):
            current = candidate
            continue
        hops += 1
        if hops > MAX_SYMLINK_HOPS:
            raise UnsafePath(rel, pathrules.SYMLINK_LOOP,
                             f"following it meets more than {MAX_SYMLINK_HOPS} symlinks (a symlink loop at {candidate})",
                             symlink=candidate)
        target = os.readlink(candidate)
        followed.append((candidate, target))
        if target.startswith("/"):
            current = "/"
        pending.extend(reversed([p for p in target.split("/") if p not in ("", ".")]))
    return current, followed


def signer_history(paths: ProjectPaths, label: str) -> list[tuple[str, ...]]:
    """The signer lines of every version the allowed-signers file ``label`` (relative to the project
    root) had in the commits HEAD reaches (``baton.gitinfo.file_versions``); none outside git or when
    the file lies outside the work tree."""
    from pathlib import Path  # lazy: ``sync``'s, off the hook path

    where = locate(paths.root)
    if where is None or where.worktree is None:
        return []
    try:
        rel = (paths.root / label).resolve().relative_to(Path(where.worktree).resolve())
    except (OSError, ValueError):
        return []
    return [signer_lines(data) for data in file_versions(paths.root, rel.as_posix())]
