"""Redaction: find secrets in a JSON-like payload before it reaches the ledger.

The ledger is append-only, so a secret that reaches it stays until an audited
``baton forget``. Everything here therefore leans towards redacting: a false
positive costs one word of a handoff, a false negative leaks a credential.

Pure: no file system, clock or environment. Same payload and policy in, same
outcome out. A :class:`Redaction` record names the field, the rule and the
reason; it never carries the removed value, nor a hash of it (a hash of a
short secret can be brute-forced).

Three kinds of rule:

- :class:`PatternRule`: a regular expression over any string (token prefixes,
  PEM blocks, JWTs, custom policy rules). A named group ``secret``, when
  present, is the part replaced; otherwise the whole match is.
- :class:`AssignmentRule`: ``name = value`` / ``name: value`` text, and a dict
  key with a string value, where the name says "secret" and the value looks
  like one (entropy and length for the generic rule, shape for AWS).
- :class:`PathRule`: file-name globs (``.env``, ``id_rsa``, ``*.pem``...)
  applied to path-like fields only.

Idempotence is by construction: existing ``[REDACTED...]`` markers are cut out
of a string before any rule looks at it, and rules run to a fixed point, so
redacting an already-redacted payload changes nothing and records nothing.
"""

from __future__ import annotations

import fnmatch
import math
import re
from collections import Counter
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence, Union

import attrs
import orjson

from baton.model import frozen
from baton.domain.secret_rules import (
    DOCUMENTED_EXAMPLES, LEFT_BOUNDARY, PLACEHOLDER_MARKS, PLACEHOLDER_WORDS, PROVIDER_RULES,
)
from baton.errors import PolicyConfigError
from baton.domain.regexes import compiled, lazy  # noqa: F401  (compiled: the rules' patterns, once, on first use)

REDACT = "redact"
BLOCK = "block"
ACTIONS = (REDACT, BLOCK)

DEFAULT_ENTROPY_THRESHOLD = 3.0
"""Bits per character. Dictionary words and repeated placeholders
(``hunter2hunter2`` 2.81, ``changeme`` 2.75) fall below; random 16+ character
alphanumerics never do (measured minimum 3.02), 12-character ones 99% of the
time. Shannon entropy per character cannot exceed log2(length), so a lower
threshold is what lets short real passwords be caught at all."""

DEFAULT_MIN_SECRET_LENGTH = 8

RULE_NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"
MARKER = lazy(r"\[REDACTED(?::[a-z0-9][a-z0-9_-]{0,63})?\]")

DEFAULT_PATH_FIELDS = frozenset(
    {"path", "paths", "file", "files", "filename", "filepath", "file_path", "scope", "root_hint"}
)
"""Keys whose string values (or lists of strings) are paths. An evidence item
with ``"type": "file"`` also makes its ``ref`` path-like."""


def replacement_for(rule_name: str) -> str:
    return f"[REDACTED:{rule_name}]"


def shannon_entropy(text: str) -> float:
    """Bits per character of ``text``'s own character distribution."""
    if not text:
        return 0.0
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values())


# -- rules -------------------------------------------------------------------

_ALNUM = lazy(r"[A-Za-z0-9]")




@frozen
class PatternRule:
    """A regular expression over any string value (and dict key).

    ``keywords`` (lower case) is the prefilter: a string that contains none
    of them is never searched, so the cost of a string stays flat however
    many rules there are. ``min_entropy`` is the floor a match must reach
    where the shape alone is weak. ``examples_allowed``: a match that is a
    documented example or a placeholder (``AKIAIOSFODNN7EXAMPLE``,
    ``ghp_xxxx…``) is left alone.
    """

    name: str
    reason: str
    regex: str
    action: str = REDACT
    confirm: Callable[[str], bool] | None = attrs.field(default=None, eq=False)
    keywords: tuple[str, ...] = ()
    min_entropy: float = 0.0
    flags: int = 0
    examples_allowed: bool = False
    left_boundary: bool = False
    """The match must not follow a letter or digit. Checked here rather than
    as a lookbehind in ``regex``: a pattern that opens with a lookbehind is
    tried at every position, one that opens with a literal is not (measured:
    ~20 ms per MB per rule against ~1 ms)."""

    kind = "pattern"

    @property
    def pattern(self) -> re.Pattern[str]:
        return compiled(self.regex, self.flags)

    def spans(self, text: str, policy: "RedactionPolicy") -> Iterator[tuple[int, int]]:
        pattern = self.pattern
        group = "secret" if "secret" in pattern.groupindex else 0
        for m in pattern.finditer(text):
            if self.left_boundary and m.start() and _ALNUM.match(text, m.start() - 1):
                continue
            start, end = m.span(group)
            if start < 0 or end <= start:
                continue
            found = text[start:end]
            if self.min_entropy and shannon_entropy(found) < self.min_entropy:
                continue
            if self.examples_allowed and is_documented_example(found):
                continue
            if self.confirm is not None and not self.confirm(found):
                continue
            yield start, end


KeyTest = Callable[[tuple[str, ...]], bool]
ValueTest = Callable[[str, "RedactionPolicy"], bool]

_ASSIGNMENT = lazy(
    r"""
    (?<![A-Za-z0-9_.\-])
    (?P<key>-{0,2}[A-Za-z_][A-Za-z0-9_.\-]{0,63})
    ["']?
    [ \t]*(?::=|=>|[:=])(?![=>])[ \t]*
    (?:
        "(?P<dq>[^"\\\r\n]*(?:\\.[^"\\\r\n]*)*)"
      | '(?P<sq>[^'\r\n]*)'
      | `(?P<bq>[^`\r\n]*)`
      | (?P<bare>(?:[^\s'"`,;&()\[\]{}<>]|&(?![A-Za-z_][A-Za-z0-9_.\-]*=))+)   # "&name=" ends a URL query value
    )
    """,
    re.X,
)
_CAMEL = lazy(r"(?<=[a-z0-9])(?=[A-Z])")


def key_words(key: str) -> tuple[str, ...]:
    """``DB_PASSWORD`` -> (db, password); ``apiKey`` -> (api, key)."""
    words: list[str] = []
    for chunk in re.split(r"[^A-Za-z0-9]+", key):
        words.extend(w.lower() for w in _CAMEL.split(chunk) if w)
    return tuple(words)


@frozen
class AssignmentRule:
    """``name = value`` text and ``{"name": "value"}`` pairs whose name says
    "secret" and whose value looks like one. Only the value is replaced."""

    name: str
    reason: str
    key_test: KeyTest = attrs.field(eq=False)
    value_test: ValueTest = attrs.field(eq=False)
    action: str = REDACT

    kind = "assignment"

    def spans(self, text: str, policy: "RedactionPolicy") -> Iterator[tuple[int, int]]:
        # Not finditer: in "x: password=s3cr3t" the first candidate is key "x"
        # with value "password=s3cr3t", which would hide the real assignment.
        # When a candidate is not redacted, look again right after its key.
        pos = 0
        while (m := _ASSIGNMENT.search(text, pos)) is not None:
            group = next(g for g in ("dq", "sq", "bq", "bare") if m.group(g) is not None)
            if self.key_test(key_words(m.group("key"))) and self.value_test(m.group(group), policy):
                yield m.span(group)
                pos = m.end()
            else:
                pos = m.end("key")

    def matches_pair(self, key: str, value: str, policy: "RedactionPolicy") -> bool:
        return self.key_test(key_words(key)) and self.value_test(value, policy)


@frozen
class PathRule:
    """File-name globs for path-like fields. A glob without ``/`` is matched
    against the last component; with ``/``, against the path's tail.
    Matching ignores case (``ID_RSA`` on a case-insensitive disk is ``id_rsa``)."""

    name: str
    reason: str
    globs: tuple[str, ...]
    exempt: tuple[str, ...] = ()
    action: str = REDACT
    pattern: re.Pattern[str] | None = None

    kind = "path"

    def matches(self, value: str) -> bool:
        path = value.strip().replace("\\", "/").rstrip("/")
        if not path or MARKER.fullmatch(path):
            return False
        if self.pattern is not None and self.pattern.search(path):
            return True
        lowered = path.lower()
        base = lowered.rsplit("/", 1)[-1]
        if any(ch in base for ch in "*?["):
            return False  # a glob in a scope list names no particular file
        if any(_glob_hit(lowered, base, g) for g in self.exempt):
            return False
        return any(_glob_hit(lowered, base, g) for g in self.globs)


def _glob_hit(path: str, base: str, glob: str) -> bool:
    glob = glob.lower()
    if "/" in glob:
        return fnmatch.fnmatchcase(path, glob) or fnmatch.fnmatchcase(path, "*/" + glob)
    return fnmatch.fnmatchcase(base, glob)


Rule = Union[PatternRule, AssignmentRule, PathRule]


# -- default rules -----------------------------------------------------------

_PLACEHOLDER = (
    r"""^(?:
        <[^<>]*>                      # <your-token>
      | \$\{[^}]*\}                   # ${TOKEN}
      | \$[A-Za-z_][A-Za-z0-9_]*      # $TOKEN
      | %[A-Za-z_][A-Za-z0-9_]*%      # %TOKEN%
      | \{\{.*\}\}                    # {{ secrets.TOKEN }}
      | (?P<same>.)(?P=same)*         # ******** / xxxxxxxx
      | \[REDACTED[^\]]*\]
      | (?:null|none|nil|true|false|undefined|redacted|todo|tbd)
    )$""",
    re.X | re.I | re.S,
)
"""Compiled on first use (``compiled``), as are the other patterns only a rule's value test reads."""
_DOTTED_NAME = r"^[A-Za-z_$][A-Za-z_$]*(?:\.[A-Za-z_$][A-Za-z_$]*)+$"


def is_placeholder(value: str) -> bool:
    """Values that stand in for a secret rather than being one: markers,
    ``<...>``, ``${VAR}``/``$VAR``/``%VAR%``, ``{{...}}``, one repeated
    character, and letter-only dotted names (``process.env.TOKEN``)."""
    v = value.strip()
    return bool(not v or compiled(*_PLACEHOLDER).match(v) or compiled(_DOTTED_NAME).match(v))


_SECRET_WORDS = frozenset({
    "secret", "token", "password", "passwd", "pwd", "passphrase", "key", "apikey",
    "secretkey", "accesskey", "privatekey", "authtoken", "accesstoken", "credential", "credentials",
})
_NOT_SECRET_BEFORE_KEY = frozenset({
    "public", "primary", "foreign", "sort", "partition", "cache", "idempotency", "unique",
    "lookup", "hash", "dict", "map", "row", "range", "composite", "group", "routing", "translation",
    "i18n", "react", "object", "storage", "s3",
})
_NOT_SECRET_BEFORE_TOKEN = frozenset({
    "max", "min", "num", "total", "count", "next", "page", "pagination", "continuation",
    "cancellation", "resume", "input", "output", "prompt", "completion", "context", "sync", "eos", "bos",
})


def names_generic_secret(words: tuple[str, ...]) -> bool:
    """The last word names a secret (``db_password``, ``apiKey``, ``key``),
    unless the compound is a well-known non-secret (``primary_key``,
    ``max_tokens``-style ``max_token``, ``resume_token``)."""
    if not words or words[-1] not in _SECRET_WORDS:
        return False
    before = words[-2] if len(words) > 1 else ""
    if words[-1] == "key" and before in _NOT_SECRET_BEFORE_KEY:
        return False
    if words[-1] == "token" and before in _NOT_SECRET_BEFORE_TOKEN:
        return False
    return True


def high_entropy_value(value: str, policy: "RedactionPolicy") -> bool:
    return (
        len(value) >= policy.min_secret_length
        and not is_placeholder(value)
        and not names_an_example(value)
        and shannon_entropy(value) >= policy.entropy_threshold
    )


def names_an_example(value: str) -> bool:
    """A value that says it is an example (``wJalr…EXAMPLEKEY``,
    ``sk-ant-api03-your-key-here``), however random the rest of it looks."""
    lowered = value.lower()
    return value in DOCUMENTED_EXAMPLES or any(w in lowered for w in PLACEHOLDER_WORDS)


def _names_aws_secret(words: tuple[str, ...]) -> bool:
    """``aws_secret_access_key``, ``secretAccessKey``, ``AWS_SECRET_KEY``..."""
    if not words or words[-1] not in ("key", "secret"):
        return False
    return "".join(words).endswith("secretaccesskey") or (words[0] == "aws" and "secret" in words)


_AWS_SECRET_VALUE = r"^[A-Za-z0-9/+]{40}$"


def _aws_secret_value(value: str, policy: "RedactionPolicy") -> bool:
    return bool(compiled(_AWS_SECRET_VALUE).match(value)) and not is_placeholder(value) and not names_an_example(value)


def _jwt_header_has_alg(token: str) -> bool:
    import base64
    import binascii

    header = token.split(".", 1)[0]
    try:
        decoded = orjson.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))
    except (binascii.Error, ValueError, orjson.JSONDecodeError):
        return False
    return isinstance(decoded, dict) and "alg" in decoded


def _b64_text(value: str) -> str | None:
    """``value`` decoded as base64 (standard or URL-safe), or None when it is not."""
    import base64
    import binascii

    padded = value.rstrip("=") + "=" * (-len(value.rstrip("=")) % 4)
    try:
        raw = base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
        return raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None


def _base64_jwt(token: str) -> bool:
    """A base64-wrapped JWT (``ZXlK…`` is base64 of ``eyJ``), as a Kubernetes
    secret or a config file holds one."""
    decoded = _b64_text(token)
    return decoded is not None and compiled(_JWT_SHAPE).fullmatch(decoded.strip()) is not None \
        and _jwt_header_has_alg(decoded.strip())


_JWT_SHAPE = r"(?:ey|ewogIC|ewoi)[A-Za-z0-9_-]{8,}={0,2}\.[A-Za-z0-9_-]{10,}={0,2}\.[A-Za-z0-9_-]*"


def _basic_credentials(value: str) -> bool:
    """A registry ``auth`` value: base64 of ``user:password``, both non-empty."""
    decoded = _b64_text(value)
    if decoded is None or not decoded.isprintable():
        return False
    user, colon, password = decoded.partition(":")
    return bool(colon and user and password) and not is_placeholder(password)


def is_documented_example(token: str) -> bool:
    """A published example key (``AKIAIOSFODNN7EXAMPLE``) or a placeholder
    written in a token's shape (``ghp_xxxx…``, ``sk-ant-…<your key>``): the
    word EXAMPLE, a placeholder word, or one character making up more than
    half of the value."""
    if names_an_example(token) or any(mark in token for mark in PLACEHOLDER_MARKS):
        return True
    return len(token) >= 8 and Counter(token.lower()).most_common(1)[0][1] * 2 > len(token)


def _pattern(name: str, reason: str, regex: str, flags: int = 0, *, keywords: tuple[str, ...] = (),
             confirm: Callable[[str], bool] | None = None, min_entropy: float = 0.0,
             examples_allowed: bool = True) -> PatternRule:
    left_boundary = regex.startswith(LEFT_BOUNDARY)
    if left_boundary:
        regex = regex[len(LEFT_BOUNDARY):]
    return PatternRule(name=name, reason=reason, regex=regex, flags=flags, confirm=confirm, keywords=keywords,
                       min_entropy=min_entropy, examples_allowed=examples_allowed, left_boundary=left_boundary)


_PROVIDER_RULES: tuple[PatternRule, ...] = tuple(
    _pattern(name, reason, regex, keywords=keywords, min_entropy=min_entropy)
    for name, reason, keywords, regex, min_entropy in PROVIDER_RULES
)

DEFAULT_RULES: tuple[Rule, ...] = (
    _pattern("private-key", "private key block (PEM, OpenSSH, PGP, PuTTY)",
             r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?"
             r"(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)"
             r"|PuTTY-User-Key-File-\d: .*?Private-Lines: \d+.*?(?:Private-MAC: [0-9a-f]+|\Z)",
             re.S, keywords=("private key", "putty-user-key-file"), examples_allowed=False),
    AssignmentRule("aws-secret-access-key", "AWS secret access key assignment",
                   key_test=_names_aws_secret, value_test=_aws_secret_value),
    # GitHub tokens: an underscore is a boundary too, so a token joined into an
    # identifier such as a baton key (``<owner>__<branch>``) is still caught.
    _pattern("github-token", "GitHub token (classic)",
             r"(?<![A-Za-z0-9])gh[pousr]_[A-Za-z0-9]{36,255}(?![A-Za-z0-9])",
             keywords=("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
    _pattern("github-fine-grained-token", "GitHub fine-grained personal access token",
             r"(?<![A-Za-z0-9])github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{40,255}(?![A-Za-z0-9])",
             keywords=("github_pat_",)),
    _pattern("slack-token", "Slack token",
             r"(?<![A-Za-z0-9])xox[abposr]-[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+(?![A-Za-z0-9-])",
             keywords=("xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-"), confirm=lambda t: len(t) >= 20),
    *_PROVIDER_RULES,
    _pattern("jwt", "JSON Web Token",
             # A JSON header always encodes to "ey…". A "." may follow the
             # token (a file name such as "src/<jwt>.py").
             # A header serialised with newlines encodes to "ewogIC…"/"ewoi…".
             r"(?<![A-Za-z0-9_.\-])(?:ey|ewogIC|ewoi)[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*"
             r"(?![A-Za-z0-9_\-])",
             keywords=("ey", "ewogic", "ewoi"), confirm=_jwt_header_has_alg),
    _pattern("jwt-base64", "base64-encoded JSON Web Token",
             r"(?<![A-Za-z0-9+/])ZXlK[A-Za-z0-9+/_\-]{40,}={0,2}(?![A-Za-z0-9+/=])",
             keywords=("zxlk",), confirm=_base64_jwt),
    _pattern("registry-auth", "base64 user:password in a Docker or npm registry config",
             r"""(?i:["']auth["']\s*:\s*["']|(?<![A-Za-z0-9])_auth\s*=\s*["']?)(?P<secret>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])""",
             keywords=('"auth"', "'auth'", "_auth"), confirm=_basic_credentials),
    _pattern("authorization-header", "credentials in an Authorization header",
             r"(?i)\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?(?:bearer|basic|token|digest)\s+"
             r"(?P<secret>[A-Za-z0-9._~+/=\-]{8,})",
             keywords=("authorization",), confirm=lambda t: not is_placeholder(t), examples_allowed=False),
    _pattern("url-credentials", "password embedded in a URL",
             # The user may be empty (``redis://:password@host``).
             r"(?i)\b[a-z][a-z0-9+.\-]*://[^\s/:@]*:(?P<secret>[^\s/@]+)@",
             keywords=("://",), confirm=lambda t: not is_placeholder(t), examples_allowed=False),
    AssignmentRule("generic-secret-assignment",
                   "high-entropy value assigned to a secret-like name",
                   key_test=names_generic_secret, value_test=high_entropy_value),
    PathRule("dotenv-file", "reference to a .env file",
             globs=(".env", ".env.*", "*.env", ".envrc"),
             exempt=(".env.example", ".env.sample", ".env.template", ".env.dist", "*.env.example")),
    PathRule("credential-file", "reference to a credential or private-key file",
             globs=("id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk",
                    "*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore", "*.kdbx", "*.ppk",
                    "credentials.json", "client_secret*.json", ".npmrc", ".pypirc", ".netrc", "_netrc",
                    ".git-credentials", ".htpasswd", ".pgpass", ".dockercfg",
                    ".aws/credentials", ".docker/config.json", ".kube/config")),
)
DEFAULT_RULE_NAMES: tuple[str, ...] = tuple(r.name for r in DEFAULT_RULES)


# -- policy ------------------------------------------------------------------

@frozen
class RedactionPolicy:
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
    import time

    try:
        from re import _parser as sre_parse  # type: ignore[attr-defined]
    except ImportError:  # pragma: no cover - Python < 3.11
        import sre_parse
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
        problems.append(f"disable_rules names unknown default rule(s) {unknown}; known: {list(DEFAULT_RULE_NAMES)}")
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
        rules[index] = attrs.evolve(rules[index], action=action)
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
    return RedactionPolicy(
        rules=tuple(rules),
        entropy_threshold=float(entropy_threshold),
        min_secret_length=min_secret_length,
        path_fields=DEFAULT_PATH_FIELDS | {f.lower() for f in fields},
    )


# -- outcome -----------------------------------------------------------------

@frozen
class Redaction:
    """One field changed by one rule. Never holds the removed value."""

    field: str
    rule: str
    reason: str
    replacement: str

    def to_json(self) -> dict[str, str]:
        return {"field": self.field, "rule": self.rule, "reason": self.reason, "replacement": self.replacement}


@frozen
class RedactionOutcome:
    """The cleaned payload and what was done to it.

    ``blocked`` lists matches of rules whose action is "block": their values
    are replaced in ``payload`` too, so nothing leaks even by mistake, but the
    caller must refuse the operation (``baton.policy.redact_or_block`` does).
    """

    payload: Any
    redactions: tuple[Redaction, ...] = ()
    blocked: tuple[Redaction, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.redactions or self.blocked)

    @property
    def is_blocked(self) -> bool:
        return bool(self.blocked)

    def records(self) -> list[dict[str, str]]:
        """The ``redactions`` array of a handoff (§7.2): redacted fields only."""
        return [r.to_json() for r in self.redactions]

    def to_json(self) -> dict[str, Any]:
        return {"redactions": self.records(), "blocked": [r.to_json() for r in self.blocked]}


# -- the walk ----------------------------------------------------------------

_IDENT = r"^[A-Za-z_][A-Za-z0-9_]*$"
_MAX_PASSES = 64


def _child(path: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    text = key if isinstance(key, str) else repr(key)
    if compiled(_IDENT).match(text):
        return f"{path}.{text}" if path else text
    return f"{path}[{orjson.dumps(text).decode('utf-8')}]"


class KeywordPrefilter:
    """Which rules a string could match, judged by their keywords alone.

    Asking every rule in turn costs ~190 substring searches per string, which
    dominates when a payload holds thousands of short strings. Instead the
    keywords are indexed by their first two characters: a short string is cut
    into its character pairs and only the keywords starting with one of them
    are searched for; a long one is searched for each indexed pair."""

    LONG = 4096

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules = tuple(rules)
        self.path_rules: tuple[PathRule, ...] = ()
        self.pair_rules: tuple[AssignmentRule, ...] = ()
        self.always: frozenset[int] = frozenset(
            i for i, rule in enumerate(self.rules) if not getattr(rule, "keywords", ()))
        self.single: list[tuple[str, int]] = []
        self.by_pair: dict[str, list[tuple[str, int]]] = {}
        for i, rule in enumerate(self.rules):
            for keyword in getattr(rule, "keywords", ()):
                if len(keyword) < 2:
                    self.single.append((keyword, i))
                else:
                    self.by_pair.setdefault(keyword[:2], []).append((keyword, i))

    def candidates(self, lowered: str) -> list[Rule]:
        found = set(self.always)
        for keyword, i in self.single:
            if keyword in lowered:
                found.add(i)
        if len(lowered) > self.LONG:
            pairs = [pair for pair in self.by_pair if pair in lowered]
        else:
            pairs = [pair for pair in {lowered[j:j + 2] for j in range(len(lowered) - 1)} if pair in self.by_pair]
        for pair in pairs:
            for keyword, i in self.by_pair[pair]:
                if i not in found and keyword in lowered:
                    found.add(i)
        return [self.rules[i] for i in sorted(found)]


_PREFILTERS: dict[int, tuple[tuple[Rule, ...], KeywordPrefilter]] = {}


def _prefilter(policy: "RedactionPolicy") -> KeywordPrefilter:
    """The index of a policy's text rules' keywords, built once per rule set
    (a policy's rules are an immutable tuple; a command screens many payloads
    against it, and a long-lived process — the MCP server, the status page —
    thousands)."""
    rules = policy.rules
    known = _PREFILTERS.get(id(rules))
    if known is not None and known[0] is rules:
        return known[1]
    if len(_PREFILTERS) >= 16:
        _PREFILTERS.clear()
    built = KeywordPrefilter(policy.text_rules)
    # The rule sets a walk reads, derived once per rule set too.
    built.path_rules = policy.path_rules
    built.pair_rules = tuple(r for r in built.rules if isinstance(r, AssignmentRule))
    _PREFILTERS[id(rules)] = (rules, built)
    return built


SCRUB_MEMO_ENTRIES = 4096
"""Screened strings remembered per policy (at most ``SCRUB_MEMO_TEXT`` characters each)."""
SCRUB_MEMO_TEXT = 1024
_SCRUBBED: dict[tuple[int, float, int], tuple[tuple[Rule, ...], dict[str, tuple[str, tuple[Rule, ...]]]]] = {}


def _scrub_memo(policy: "RedactionPolicy") -> dict[str, tuple[str, tuple[Rule, ...]]]:
    """What ``_Walk.scrub`` answered for short strings under this policy's rules.

    Scrubbing is a pure function of the text, the rules and the two numbers a
    value test reads (entropy threshold, minimum length). An answer repeats the
    same short strings (keys, statuses, dates, ids: a list of 20 handoffs is 410
    strings, 95 distinct), and a long-lived process (the MCP server, the status
    page) lists the same handoffs call after call, so each distinct string is
    screened once. Bounded: the memo is emptied when full."""
    return _per_policy(_SCRUBBED, policy)


def _per_policy(store: dict[Any, Any], policy: "RedactionPolicy") -> dict[Any, Any]:
    """``store``'s memo for this policy's rules and the two numbers a value
    test reads, made empty the first time; at most 16 policies are kept."""
    rules = policy.rules
    key = (id(rules), policy.entropy_threshold, policy.min_secret_length)
    known = store.get(key)
    if known is not None and known[0] is rules:
        kept: dict[Any, Any] = known[1]
        return kept
    if len(store) >= 16:
        store.clear()
    memo: dict[Any, Any] = {}
    store[key] = (rules, memo)
    return memo


class _Walk:
    def __init__(self, policy: RedactionPolicy) -> None:
        self.policy = policy
        self.prefilter = _prefilter(policy)
        self.text_rules = self.prefilter.rules
        self.path_rules: tuple[PathRule, ...] = self.prefilter.path_rules
        self.pair_rules: tuple[AssignmentRule, ...] = self.prefilter.pair_rules
        self.memo = _scrub_memo(policy)
        self.hits: dict[tuple[str, str], Rule] = {}

    def note(self, field: str, rule: Rule) -> None:
        self.hits.setdefault((field, rule.name), rule)

    def value(self, value: Any, field: str, path_like: bool = False) -> Any:
        if isinstance(value, str):
            return self.string(value, field, path_like)
        if isinstance(value, Mapping):
            return self.mapping(value, field)
        if isinstance(value, (list, tuple)):
            return [self.value(item, _child(field, i), path_like) for i, item in enumerate(value)]
        return value

    def string(self, text: str, field: str, path_like: bool) -> str:
        text = self.text(text, field)
        if path_like:
            for rule in self.path_rules:
                if rule.matches(text):
                    self.note(field, rule)
                    return replacement_for(rule.name)
        return text

    def text(self, text: str, field: str) -> str:
        text, fired = self.scrub(text)
        for rule in fired:
            self.note(field, rule)
        return text

    def scrub(self, text: str) -> tuple[str, list[Rule]]:
        if len(text) > SCRUB_MEMO_TEXT:
            return self._scrub(text)
        known = self.memo.get(text)
        if known is None:
            screened, fired = self._scrub(text)
            if len(self.memo) >= SCRUB_MEMO_ENTRIES:
                self.memo.clear()
            known = self.memo[text] = (screened, tuple(fired))
        return known[0], list(known[1])

    def _scrub(self, text: str) -> tuple[str, list[Rule]]:
        # Run every rule until none fires: a replacement can split a string so
        # that an earlier rule now matches a piece, and a fixed point is what
        # makes redaction idempotent. Each pass turns unredacted characters
        # into markers, so the loop ends; the cap is only a guard.
        fired: list[Rule] = []
        # The keyword prefilter, once: a replacement only removes text (its
        # marker is never searched), so a rule whose keywords are absent now
        # stays without a match in every later pass.
        candidates = self.prefilter.candidates(text.lower())
        for _ in range(_MAX_PASSES):
            any_hit = False
            markers = marker_spans(text)
            for rule in candidates:
                text, hit = _apply(text, rule, self.policy, markers)
                if hit:
                    markers = marker_spans(text)
                    any_hit = True
                    if rule not in fired:
                        fired.append(rule)
            if not any_hit:
                break
        return text, fired

    def mapping(self, value: Mapping[Any, Any], field: str) -> dict[Any, Any]:
        path_keys = {k for k in value if isinstance(k, str) and k.lower() in self.policy.path_fields}
        if value.get("type") == "file" and "ref" in value:
            path_keys.add("ref")
        cleaned: dict[Any, tuple[Any, Any]] = {}
        taken: set[Any] = set(value)
        for key in sorted(value, key=_sort_key):
            item = value[key]
            new_key = key
            if isinstance(key, str):
                # A secret in a key: the record's field path must use the
                # redacted key, or the path itself would leak the value.
                new_key, fired = self.scrub(key)
                if new_key != key:
                    new_key = _unique(new_key, taken)
                    taken.add(new_key)
                for rule in fired:
                    self.note(_child(field, new_key), rule)
            child = _child(field, new_key)
            if isinstance(item, str) and isinstance(key, str) and self.pair_rules:
                text = self.text(item, child)
                rest = MARKER.sub("", text)
                # Judge the name as it will be stored (markers removed), so a
                # second pass over the output decides exactly as this one did.
                name = MARKER.sub(" ", new_key)
                pair = next((r for r in self.pair_rules if r.matches_pair(name, rest, self.policy)), None)
                if pair is not None:
                    self.note(child, pair)
                    text = replacement_for(pair.name)
                elif key in path_keys:
                    text = self.string(text, child, True)
                cleaned[key] = (new_key, text)
                continue
            cleaned[key] = (new_key, self.value(item, child, key in path_keys))
        return {new_key: item for new_key, item in (cleaned[k] for k in value)}


def _sort_key(key: Any) -> tuple[str, str]:
    return (type(key).__name__, key if isinstance(key, str) else repr(key))


def _unique(key: str, taken: set[Any]) -> str:
    if key not in taken:
        return key
    n = 2
    while f"{key}#{n}" in taken:
        n += 1
    return f"{key}#{n}"


_ANCHOR = r"(?<!\[)\^|(?<!\\)\$|\\[AZ]"


def _apply(text: str, rule: Rule, policy: RedactionPolicy,
           markers: list[tuple[int, int]] | None = None) -> tuple[str, bool]:
    """Replace ``rule``'s matches in the parts of ``text`` between markers.

    The rule runs over the whole text once; only when a match would overlap
    a marker (or the pattern is anchored, so a marker's edge could count as
    the text's) does it run again on each part between markers, as the
    definition says. The result is the same; the cost is one search instead
    of one per part (a field full of earlier redactions has hundreds)."""
    if isinstance(rule, PathRule):
        return text, False
    if markers is None:
        markers = marker_spans(text)
    if not markers:
        return _replaced(text, sorted(set(rule.spans(text, policy))), rule.name)
    if not (isinstance(rule, PatternRule) and compiled(_ANCHOR).search(rule.regex)):
        spans = sorted(set(rule.spans(text, policy)))
        if not _overlaps_a_marker(spans, markers):
            return _replaced(text, spans, rule.name)
    pieces: list[str] = []
    hit = False
    pos = 0
    for start, end in [*markers, (len(text), len(text))]:
        segment = text[pos:start]
        if segment:
            replaced, segment_hit = _replaced(segment, sorted(set(rule.spans(segment, policy))), rule.name)
            pieces.append(replaced)
            hit = hit or segment_hit
        pieces.append(text[start:end])
        pos = end
    return "".join(pieces), hit


def marker_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in MARKER.finditer(text)]


def _replaced(text: str, spans: list[tuple[int, int]], rule_name: str) -> tuple[str, bool]:
    out, last = [], 0
    for start, stop in spans:
        if start < last:
            continue
        out.append(text[last:start])
        out.append(replacement_for(rule_name))
        last = stop
    if not out:
        return text, False
    out.append(text[last:])
    return "".join(out), True


def _overlaps_a_marker(spans: list[tuple[int, int]], markers: list[tuple[int, int]]) -> bool:
    import bisect

    starts = [start for start, _ in markers]
    for start, stop in spans:
        i = bisect.bisect_left(starts, stop) - 1  # the last marker beginning before the span ends
        if i >= 0 and markers[i][1] > start:
            return True
    return False


def _outcome(walk: "_Walk", cleaned: Any) -> RedactionOutcome:
    redactions: list[Redaction] = []
    blocked: list[Redaction] = []
    for (field, rule_name), rule in walk.hits.items():
        record = Redaction(field=field or "$", rule=rule_name, reason=rule.reason,
                           replacement=replacement_for(rule_name))
        (blocked if rule.action == BLOCK else redactions).append(record)
    return RedactionOutcome(payload=cleaned, redactions=tuple(redactions), blocked=tuple(blocked))


def redact_payload(payload: Any, policy: RedactionPolicy, *, at: str = "") -> RedactionOutcome:
    """Walk a JSON-like value (dicts, lists, strings; other scalars pass
    through) and replace every secret the policy finds.

    ``at`` prefixes every field path (``at="evidence[2]"`` when redacting one
    item); a bare string at the top is reported as ``at`` or ``"$"``.
    Records come in a deterministic order: dict keys sorted, list order kept.
    """
    walk = _Walk(policy)
    cleaned = walk.value(payload, at)
    return _outcome(walk, cleaned)


def redact_text(text: str, policy: RedactionPolicy) -> str:
    """Just the cleaned string (for logs and rendering)."""
    cleaned: str = redact_payload(text, policy).payload
    return cleaned


# -- command output ----------------------------------------------------------

_ANSI = r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"

DEFAULT_SUMMARY_LIMIT = 2000


@frozen
class OutputSummary:
    """What Baton keeps of a command's output: a digest and a bounded summary.

    ``digest`` is ``sha256:`` of the *redacted* (and ANSI-stripped) full
    output, never of the raw bytes: a digest of raw output that held a short
    secret would let anyone with the ledger confirm a guess of it offline.
    """

    digest: str
    summary: str
    truncated: bool
    original_chars: int
    redactions: tuple[Redaction, ...] = ()
    blocked: tuple[Redaction, ...] = ()

    def __iter__(self) -> Iterator[str]:  # ``digest, summary = summarize_output(...)``
        return iter((self.digest, self.summary))


def summarize_output(text: str, limit: int = DEFAULT_SUMMARY_LIMIT,
                     policy: RedactionPolicy | None = None, *, field: str = "$") -> OutputSummary:
    """Redact the whole output first (so a PEM block cut by truncation is still
    caught), then keep its head and its tail (test runners print their verdict
    last) within ``limit`` characters, marking what was left out."""
    import hashlib

    policy = policy or RedactionPolicy()
    plain = compiled(_ANSI).sub("", text)
    outcome = redact_payload(plain, policy, at=field)
    redacted: str = outcome.payload
    digest = "sha256:" + hashlib.sha256(redacted.encode("utf-8", "surrogatepass")).hexdigest()
    summary, truncated = _bounded(redacted, max(limit, 0))
    return OutputSummary(digest=digest, summary=summary, truncated=truncated, original_chars=len(text),
                         redactions=outcome.redactions, blocked=outcome.blocked)


def _bounded(text: str, limit: int) -> tuple[str, bool]:
    if len(text) <= limit:
        return text, False
    omitted = len(text)  # upper bound for the width of the count
    note = f"\n[... {omitted} characters omitted ...]\n"
    room = limit - len(note)
    if room < 8:
        return _clip_markers(text, 0, limit), True
    head_len = room // 4
    tail_len = room - head_len
    head = _clip_markers(text, 0, head_len)
    tail_start = len(text) - tail_len
    tail = _clip_markers(text, tail_start, len(text))
    note = f"\n[... {len(text) - len(head) - len(tail)} characters omitted ...]\n"
    return head + note + tail, True


def _clip_markers(text: str, start: int, stop: int) -> str:
    """``text[start:stop]``, shrunk so that no redaction marker is cut in half."""
    for m in MARKER.finditer(text):
        if m.start() < start < m.end():
            start = m.end()
        if m.start() < stop < m.end():
            stop = m.start()
    return text[start:max(start, stop)]


_ESCAPED_QUOTE = lazy(r"""\\(['"])""")


def redact_strings(payload: Any, policy: RedactionPolicy, *, at: str = "", unescape: bool = False) -> RedactionOutcome:
    """The last line of defence before any event is appended: every string
    (dict keys included) goes through the text rules — token shapes, PEM
    blocks, JWTs and ``name = secret`` assignments written inside a string.

    Unlike ``redact_payload`` it does not judge a value by its key's name nor
    treat fields as paths: event payloads are Baton's own structures, whose
    ``key`` or ``session`` fields hold ids, not secrets. Inputs from people
    and agents are cleaned with ``redact_payload`` first, where the full
    rules apply; this pass catches whatever reached an event another way.
    """
    walk = _Walk(policy)
    scrub = walk.scrub

    def text(value: str, parent: str, key: Any) -> str:
        # The field's path is spelled only when a rule fires (most strings are clean).
        if unescape and "\\" in value:
            field = _child(parent, key) if key is not None else parent
            plain = _ESCAPED_QUOTE.sub(r"\1", value)
            screened = walk.text(plain, field)
            return screened if screened != plain else walk.text(value, field)
        screened, fired = scrub(value)
        if fired:
            field = _child(parent, key) if key is not None else parent
            for rule in fired:
                walk.note(field, rule)
        return screened

    memo = walk.memo

    def clean(value: Any, parent: str, key: Any = None) -> Any:
        kind = type(value)
        if kind is str:
            known = memo.get(value)  # a string already screened and found clean: the common case
            if known is not None and not known[1] and not (unescape and "\\" in value):
                return value
            return text(value, parent, key)
        if isinstance(value, str):
            return text(value, parent, key)
        if kind is dict or kind is list or kind is tuple or isinstance(value, (Mapping, list, tuple)):
            field = _child(parent, key) if key is not None else parent
            if kind is list or kind is tuple or (kind is not dict and not isinstance(value, Mapping)):
                return [clean(item, field, i) for i, item in enumerate(value)]
            out: dict[Any, Any] = {}
            for name, item in value.items():
                if type(name) is str and (known := memo.get(name)) is not None and not known[1]:
                    out[name] = clean(item, field, name)
                    continue
                if isinstance(name, str):
                    new_name, fired = scrub(name)
                    if new_name != name:
                        new_name = _unique(new_name, set(value) | set(out))
                    for rule in fired:
                        walk.note(_child(field, new_name), rule)
                    name = new_name
                out[name] = clean(item, field, name)
            return out
        return value

    cleaned = clean(payload, at)
    return _outcome(walk, cleaned)


# -- what goes out -----------------------------------------------------------

INVISIBLE_FORMAT = ("\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b\u200e\u200f"
                    "\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
                    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
                    "\U000e0020-\U000e007f")
"""A regex class of the invisible format characters (Unicode's ``Cf``, as
of Unicode 15, and the line and paragraph separators): bidirectional
controls (U+202E shows the text after it reversed, "Trojan Source"),
zero-width spaces, the byte order mark, and the tag characters that can
smuggle ASCII past a reader. The two joiners (U+200C, U+200D) are left: they
shape Persian, Indic and emoji text and reorder nothing."""

_CONTROL = lazy(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{INVISIBLE_FORMAT}]")
_INVISIBLE = lazy(f"[{INVISIBLE_FORMAT}]")


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(text: str) -> str:
    """``text`` safe for a terminal or a log line: every control character
    but newline and tab (ESC, NUL, carriage return, C1 codes) and every
    invisible format character (bidirectional controls, zero-width spaces,
    tags: ``INVISIBLE_FORMAT``) is shown as an escape such as ``\\x1b`` or
    ``\\u202e``, so a value in a handoff cannot recolour the terminal, move
    its cursor, hide a line or show itself as other text."""
    return _CONTROL.sub(lambda m: _escape(m.group()), text)


def _json_escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def visible_json(text: str) -> str:
    """JSON text with every invisible format character written as its
    ``\\uXXXX`` escape (a surrogate pair past U+FFFF): the same document to
    any JSON reader, but U+202E and its kind are visible to a person reading
    ``--json`` output. Such characters only ever stand inside JSON strings,
    so the replacement cannot touch the structure."""
    return _INVISIBLE.sub(lambda m: _json_escape(m.group()), text) if _INVISIBLE.search(text) else text


CLEAN_ENCODINGS = 32
"""Whole answers remembered clean per policy (``screen_encoded``), each at most ``CLEAN_ENCODING_BYTES``."""
CLEAN_ENCODING_BYTES = 1 << 20
_CLEAN: dict[tuple[int, float, int], tuple[tuple[Rule, ...], dict[bytes, Any]]] = {}


def _clean_encodings(policy: RedactionPolicy) -> dict[bytes, Any]:
    """The JSON encodings of answers ``screen_output`` found clean under this
    policy's rules (keyed as ``_scrub_memo``; emptied when full)."""
    return _per_policy(_CLEAN, policy)


def screen_encoded(encoded: bytes, policy: RedactionPolicy) -> tuple[Any, bool]:
    """``screen_output`` of the JSON ``encoded`` holds, and whether it was
    clean (the screen changed nothing: ``encoded`` is then its encoding too).

    An encoding found clean before under this policy's rules, byte for byte,
    gives back the value it was read as then — neither read nor walked again
    (screening is a pure function of the text and the rules). That value is
    shared: callers must not change it."""
    import orjson

    seen = _clean_encodings(policy) if len(encoded) <= CLEAN_ENCODING_BYTES else None
    if seen is not None:
        known = seen.get(encoded)
        if known is not None:
            return known, True
    value = orjson.loads(encoded)
    screened = screen_output(value, policy)
    clean = screened is value or screened == value
    if clean and seen is not None:
        if len(seen) >= CLEAN_ENCODINGS:
            seen.clear()
        seen[encoded] = value
    return screened, clean


def screen_output(value: Any, policy: RedactionPolicy) -> Any:
    """Every string of an answer (dict keys included) through the text rules,
    the same screen as the ledger's: what Baton prints never holds more than
    what it stores, even when it echoes an argument it was given.

    A message quoting a value with ``repr`` escapes its quotes
    (``api_key=\\'…\\'``), which hides an assignment from the rules; such
    a string is screened with the escapes undone.

    When every string of ``value`` was screened before under this policy and
    found clean (the common case in a long-lived server answering about the
    same handoffs), ``value`` itself is returned, unchanged and not copied
    (``screen_encoded`` also remembers whole answers)."""
    if _known_clean(value, _scrub_memo(policy)):
        return value
    return redact_strings(value, policy, unescape=True).payload


def _known_clean(value: Any, memo: Mapping[str, tuple[str, tuple[Rule, ...]]]) -> bool:
    """Every string in ``value`` (keys included) is in ``memo`` as clean and
    holds no backslash (those are screened with escapes undone), and ``value``
    holds nothing but plain JSON types. One pass, no copy, no path spelled."""
    stack = [value]
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        item = pop()
        kind = type(item)
        if kind is str:
            known = memo.get(item)
            if known is None or known[1] or "\\" in item:
                return False
        elif kind is dict:
            for key, child in item.items():
                if type(key) is not str:
                    return False
                known = memo.get(key)
                if known is None or known[1] or "\\" in key:
                    return False
                push(child)
        elif kind is list:
            extend(item)
        elif item is None or kind is int or kind is float or kind is bool:
            continue
        else:
            return False
    return True


def screen_text(text: str, policy: RedactionPolicy) -> str:
    """A text rendering, screened and made printable."""
    return printable(screen_output(text, policy))
