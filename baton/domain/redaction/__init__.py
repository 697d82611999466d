"""Redaction: find secrets in a JSON-like payload before it reaches the ledger.

The ledger is append-only, so a secret that reaches it stays until an audited
``baton forget``. Everything here therefore leans towards redacting: a false
positive costs one word of a handoff, a false negative leaks a credential.

Pure: no file system, clock or environment. Same payload and policy in, same
outcome out. A :class:`Redaction` record names the field, the rule and the
reason; it never carries the removed value, nor a hash of it (a hash of a
short secret can be brute-forced).

The package, by part:

- ``rules``: the rule engine (the three kinds of rule, the value tests, the
  keyword prefilter, applying a rule to a text between markers);
- ``secret_rules`` and ``table``: the rule table (the keyed providers' token
  shapes, and :data:`DEFAULT_RULES` built from them and the generic rules);
- ``policy``: :class:`RedactionPolicy`, custom rules and their checks;
- ``walk``: the walkers over records (``redact_payload``, ``redact_strings``);
- ``output``: what leaves Baton (``screen_output``/``screen_text``);
- ``summary``: a command's output kept as a digest and a bounded summary
  (``summarize_output``), imported from there, not here: a command that
  runs nothing does not define its class.

Every other public name is importable from here (``from baton.domain.redaction
import RedactionPolicy``); ``printable`` and ``visible_json`` live in
``baton.domain.visible``, which loads none of the rules.

Idempotence is by construction: existing ``[REDACTED...]`` markers are cut out
of a string before any rule looks at it, and rules run to a fixed point, so
redacting an already-redacted payload changes nothing and records nothing.
"""

from __future__ import annotations

from baton.domain.redaction.output import (
    CLEAN_ENCODING_BYTES,
    CLEAN_ENCODINGS,
    screen_encoded,
    screen_output,
    screen_text,
)
from baton.domain.redaction.policy import (
    DEFAULT_ENTROPY_THRESHOLD,
    DEFAULT_MIN_SECRET_LENGTH,
    DEFAULT_PATH_FIELDS,
    REGEX_BUDGET_SECONDS,
    RedactionPolicy,
    build_redaction_policy,
    catastrophic_regex,
    custom_rule,
)
from baton.domain.redaction.rules import (
    ACTIONS,
    BLOCK,
    MARKER,
    REDACT,
    RULE_NAME_PATTERN,
    AssignmentRule,
    KeyTest,
    KeywordPrefilter,
    PathRule,
    PatternRule,
    Rule,
    Thresholds,
    ValueTest,
    apply_rule,
    high_entropy_value,
    is_documented_example,
    is_placeholder,
    key_words,
    marker_spans,
    names_an_example,
    replacement_for,
    rule_label,
    shannon_entropy,
)
from baton.domain.redaction.table import (
    DEFAULT_RULE_NAMES,
    DEFAULT_RULES,
    names_generic_secret,
)
from baton.domain.redaction.walk import (
    SCRUB_MEMO_ENTRIES,
    SCRUB_MEMO_TEXT,
    Redaction,
    RedactionOutcome,
    per_policy,
    redact_payload,
    redact_strings,
    redact_text,
    scrub_memo,
)
from baton.domain.visible import (
    INVISIBLE_FORMAT,
    printable,
    visible_json,
)
from baton.errors import PolicyConfigError  # what a bad policy raises (``baton.policy`` names it from here)

__all__ = [
    "ACTIONS",
    "BLOCK",
    "MARKER",
    "REDACT",
    "RULE_NAME_PATTERN",
    "apply_rule",
    "AssignmentRule",
    "high_entropy_value",
    "is_documented_example",
    "is_placeholder",
    "key_words",
    "KeyTest",
    "KeywordPrefilter",
    "marker_spans",
    "names_an_example",
    "PathRule",
    "PatternRule",
    "replacement_for",
    "rule_label",
    "Rule",
    "shannon_entropy",
    "Thresholds",
    "ValueTest",
    "DEFAULT_RULE_NAMES",
    "DEFAULT_RULES",
    "names_generic_secret",
    "DEFAULT_ENTROPY_THRESHOLD",
    "DEFAULT_MIN_SECRET_LENGTH",
    "DEFAULT_PATH_FIELDS",
    "REGEX_BUDGET_SECONDS",
    "build_redaction_policy",
    "catastrophic_regex",
    "custom_rule",
    "RedactionPolicy",
    "SCRUB_MEMO_ENTRIES",
    "SCRUB_MEMO_TEXT",
    "per_policy",
    "redact_payload",
    "redact_strings",
    "redact_text",
    "Redaction",
    "RedactionOutcome",
    "scrub_memo",
    "CLEAN_ENCODING_BYTES",
    "CLEAN_ENCODINGS",
    "screen_encoded",
    "screen_output",
    "screen_text",
    "INVISIBLE_FORMAT",
    "printable",
    "visible_json",
    "PolicyConfigError",
]
