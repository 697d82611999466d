"""The redaction policy: which rules run, with which actions and thresholds,
built from the defaults and a project's policy file (custom rules are
checked at load, catastrophic regular expressions refused).
"""

from __future__ import annotations

import re
import time
from re import _parser as sre_parse  # type: ignore[attr-defined]

from baton.domain.redaction.rules import ACTIONS, REDACT, RULE_NAME_PATTERN, PathRule, PatternRule, Rule
from baton.domain.redaction.table import DEFAULT_RULE_NAMES, DEFAULT_RULES
from baton.domain.regexes import compiled
from baton.errors import PolicyConfigError
from baton.values import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the output screen never needs it)
if TYPE_CHECKING:
    from typing import Any, Iterable, Mapping, Sequence

DEFAULT_ENTROPY_THRESHOLD = 3.0
"""Bits per character. Dictionary words and repeated placeholders
(``hunter2hunter2`` 2.81, ``changeme`` 2.75) fall below; random 16+ character
alphanumerics never do (measured minimum 3.02), 12-character ones 99% of the
time. Shannon entropy per character cannot exceed log2(length), so a lower
threshold is what lets short real passwords be caught at all."""

DEFAULT_MIN_SECRET_LENGTH = 8

DEFAULT_PATH_FIELDS = frozenset(
    {"path", "paths", "file", "files", "filename", "filepath", "file_path", "scope", "root_hint"}
)
"""Keys whose string values (or lists of strings) are paths. An evidence item
with ``"type": "file"`` also makes its ``ref`` path-like."""


class RedactionPolicy(Value):
    """Which rules run and the two numbers a value test reads: a named tuple
    (``baton.values.Value``), compared and hashed by value, changed with ``_replace``."""

    rules: tuple[Rule, ...] = DEFAULT_RULES
    entropy_threshold: float = DEFAULT_ENTROPY_THRESHOLD
    min_secret_length: int = DEFAULT_MIN_SECRET_LENGTH
    path_fields: frozenset[str] = DEFAULT_PATH_FIELDS

    @property
    def text_rules(self) -> tuple[Rule, ...]:
        return tuple(r for r in self.rules if not isinstance(r, PathRule))

    @property
    def path_rules(self) -> tuple[PathRule, ...]:
        return tuple(r for r in self.rules if isinstance(r, PathRule))

    @property
    def rule_names(self) -> tuple[str, ...]:
        return tuple(r.name for r in self.rules)


def custom_rule(name: str, *, regex: str | None = None, glob: str | Sequence[str] | None = None,
                action: str = REDACT, reason: str | None = None, applies_to: str = "text") -> Rule:
    """A rule from a policy file. ``regex`` with ``applies_to="text"`` runs
    over every string; ``applies_to="path"`` or ``glob`` run on path-like
    fields only. Compiled here so every problem surfaces at load time.

    Raises:
        PolicyConfigError: bad name, action, regex, glob or target.
    """
    problems: list[str] = []
    if not isinstance(name, str) or not compiled(RULE_NAME_PATTERN).match(name):
        problems.append(f"name {name!r} must match {RULE_NAME_PATTERN} (it appears in [REDACTED:<name>])")
    if action not in ACTIONS:
        problems.append(f"unknown action {action!r} (expected 'redact' or 'block')")
    if reason is not None and (not isinstance(reason, str) or not reason.strip()):
        problems.append("reason must be a non-empty string")
    if applies_to not in ("text", "path"):
        problems.append(f"applies_to must be 'text' or 'path', not {applies_to!r}")
    if (regex is None) == (glob is None):
        problems.append("give exactly one of 'regex' or 'glob'")
    pattern: re.Pattern[str] | None = None
    if regex is not None:
        if not isinstance(regex, str) or not regex:
            problems.append("regex must be a non-empty string")
        else:
            try:
                pattern = compiled(regex)
            except re.error as exc:
                problems.append(f"bad regex {regex!r}: {exc}")
            else:
                slow = catastrophic_regex(regex, pattern)
                if slow is not None:
                    problems.append(f"regex {regex!r} is refused: {slow} (a text of a few dozen characters "
                                    "could stall every command)")
                elif pattern.search("") is not None:
                    problems.append(f"regex {regex!r} matches the empty string")
    globs: tuple[str, ...] = ()
    if glob is not None:
        globs = (glob,) if isinstance(glob, str) else tuple(glob) if isinstance(glob, (list, tuple)) else ()
        if not globs or not all(isinstance(g, str) and g.strip() for g in globs):
            problems.append("glob must be a non-empty string or a list of them")
    if problems:
        raise PolicyConfigError("; ".join(problems))
    text_reason = reason or f"matched policy rule {name}"
    if glob is not None:
        return PathRule(name=name, reason=text_reason, globs=globs, action=action)
    assert pattern is not None and regex is not None
    if applies_to == "path":
        return PathRule(name=name, reason=text_reason, globs=(), action=action, pattern=pattern)
    return PatternRule(name=name, reason=text_reason, regex=regex, action=action)


REGEX_BUDGET_SECONDS = 0.05
"""What one custom pattern may spend on one probe at load (a safe pattern
takes microseconds)."""


def catastrophic_regex(regex: str, pattern: re.Pattern[str]) -> str | None:
    """Why ``regex`` could take exponential time on Python's backtracking
    engine, or None. Two checks, at load time (``re`` has no time limit once
    a search has begun):

    - its shape: a repeat without an upper bound nested in another one
      (``(a+)+``, ``(\\w+\\s?)*``), the classic catastrophic form;
    - a time budget: the pattern is run on short near-misses built from its
      own characters (``xxxx…!``), longer and longer, and refused as soon as
      one search takes more than :data:`REGEX_BUDGET_SECONDS`.
    """
    try:
        tree = sre_parse.parse(regex)
    except Exception:  # noqa: BLE001 - compiled already; the shape check is best effort
        tree = None
    if tree is not None and _nested_unbounded(tree, sre_parse, inside=False):
        return "a repeat without an upper bound inside another (as in (a+)+)"
    chars = {c for c in regex if c.isprintable()} | set("a0 A-_.")
    prefix = "".join(chr(v) for op, v in (tree.data if tree is not None else [])
                     if op is sre_parse.LITERAL) if tree is not None else ""
    for n in (8, 12, 16, 20, 24, 28):
        for c in sorted(chars):
            probe = prefix + c * n + "\x00!"
            start = time.perf_counter()
            pattern.search(probe)
            if time.perf_counter() - start > REGEX_BUDGET_SECONDS:
                return f"it took over {REGEX_BUDGET_SECONDS * 1000:.0f} ms on a {len(probe)}-character text"
    return None


def _nested_unbounded(items: Any, sre_parse: Any, *, inside: bool) -> bool:
    repeats = (sre_parse.MAX_REPEAT, sre_parse.MIN_REPEAT)
    for op, value in items:
        if op in repeats:
            low, high, body = value
            unbounded = high == sre_parse.MAXREPEAT
            if unbounded and inside and _can_repeat_text(body, sre_parse):
                return True
            if _nested_unbounded(body, sre_parse, inside=inside or unbounded):
                return True
        elif op is sre_parse.SUBPATTERN:
            if _nested_unbounded(value[-1], sre_parse, inside=inside):
                return True
        elif op is sre_parse.BRANCH:
            if any(_nested_unbounded(branch, sre_parse, inside=inside) for branch in value[1]):
                return True
        elif op in (sre_parse.ASSERT, sre_parse.ASSERT_NOT):
            if _nested_unbounded(value[1], sre_parse, inside=inside):
                return True
    return False


def _can_repeat_text(body: Any, sre_parse: Any) -> bool:
    """A repeat's body that matches at least one character (``(?:x)*`` of an empty group is harmless)."""
    return any(op not in (sre_parse.AT, sre_parse.ASSERT, sre_parse.ASSERT_NOT) for op, _ in body)


def build_redaction_policy(
    *,
    extra_rules: Iterable[Rule] = (),
    disable: Iterable[str] = (),
    actions: Mapping[str, str] | None = None,
    entropy_threshold: float = DEFAULT_ENTROPY_THRESHOLD,
    min_secret_length: int = DEFAULT_MIN_SECRET_LENGTH,
    extra_path_fields: Iterable[str] = (),
) -> RedactionPolicy:
    """The default rules, minus ``disable``, plus ``extra_rules`` (after the
    defaults), with ``actions`` overriding any rule's action by name.

    Raises:
        PolicyConfigError: every problem found, joined: unknown rule names in
            ``disable``/``actions``, duplicate names, bad actions or numbers.
    """
    problems: list[str] = []
    disabled = set(disable)
    unknown = sorted(disabled - set(DEFAULT_RULE_NAMES))
    if unknown:
        problems.append(f"disable_rules names unknown default {'rule' if len(unknown) == 1 else 'rules'} {unknown}; "
                        f"known: {list(DEFAULT_RULE_NAMES)}")
    rules = [r for r in DEFAULT_RULES if r.name not in disabled]
    for rule in extra_rules:
        if rule.name in {r.name for r in rules}:
            hint = " (disable the default rule first to replace it)" if rule.name in DEFAULT_RULE_NAMES else ""
            problems.append(f"rule name {rule.name!r} is used twice{hint}")
            continue
        rules.append(rule)
    for rule_name, action in (actions or {}).items():
        if action not in ACTIONS:
            problems.append(f"actions[{rule_name!r}]: unknown action {action!r} (expected 'redact' or 'block')")
            continue
        index = next((i for i, r in enumerate(rules) if r.name == rule_name), None)
        if index is None:
            problems.append(f"actions names unknown rule {rule_name!r}")
            continue
        rules[index] = rules[index]._replace(action=action)  # type: ignore[union-attr]  # a named tuple's (a value class)
    if isinstance(entropy_threshold, bool) or not isinstance(entropy_threshold, (int, float)) \
            or not 0 <= entropy_threshold <= 16:
        problems.append(f"entropy_threshold must be a number of bits per character from 0 to 16, not {entropy_threshold!r}")
    if isinstance(min_secret_length, bool) or not isinstance(min_secret_length, int) or min_secret_length < 1:
        problems.append(f"min_secret_length must be a positive integer, not {min_secret_length!r}")
    fields = list(extra_path_fields)
    if not all(isinstance(f, str) and f for f in fields):
        problems.append("path_fields must be a list of non-empty strings")
    if problems:
        raise PolicyConfigError("; ".join(problems))
    unchanged = len(rules) == len(DEFAULT_RULES) and all(a is b for a, b in zip(rules, DEFAULT_RULES))
    return RedactionPolicy(
        # The default rules keep their identity: what is built once per rule set (the keyword
        # prefilter, the scrub memo) is then shared by every policy that uses them as they are.
        rules=DEFAULT_RULES if unchanged else tuple(rules),
        entropy_threshold=float(entropy_threshold),
        min_secret_length=min_secret_length,
        path_fields=DEFAULT_PATH_FIELDS | {f.lower() for f in fields},
    )
