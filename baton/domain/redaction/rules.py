"""The rule engine: the three kinds of rule, the tests a value must pass to be
taken for a secret, the keyword prefilter, and applying one rule to a text.

- :class:`PatternRule`: a regular expression over any string (token prefixes,
  PEM blocks, JWTs, custom policy rules). A named group ``secret``, when
  present, is the part replaced; otherwise the whole match is.
- :class:`AssignmentRule`: ``name = value`` / ``name: value`` text, and a dict
  key with a string value, where the name says "secret" and the value looks
  like one.
- :class:`PathRule`: file-name globs applied to path-like fields only.

Patterns are compiled on first use (``baton.domain.regexes``), not at import.
The rules are named tuples (``baton.values.Value``), not attrs
classes: the output screen every answer passes loads neither attrs nor
``typing`` (``docs/performance.md``). A rule's tests (``confirm``,
``key_test``, ``value_test``) are module-level functions built once with the
rule table, so comparing two rules compares them by identity.
"""

from __future__ import annotations

import bisect
import fnmatch
import functools
import math
import re
from collections import Counter

from baton.domain.redaction.secret_rules import DOCUMENTED_EXAMPLES, PLACEHOLDER_MARKS, PLACEHOLDER_WORDS
from baton.domain.regexes import compiled, lazy
from baton.values import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the output screen never needs it)
if TYPE_CHECKING:
    from typing import Callable, Iterator, Protocol, Sequence, Union
else:
    Protocol = object  # an interface for type checkers; at run time a plain base (~0.07 ms less a class)

REDACT = "redact"
BLOCK = "block"
ACTIONS = (REDACT, BLOCK)

RULE_NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"
MARKER = lazy(r"\[REDACTED(?::[a-z0-9][a-z0-9_-]{0,63})?\]")


def replacement_for(rule_name: str) -> str:
    return f"[REDACTED:{rule_name}]"


def rule_label(rule_name: str, reason: str) -> str:
    """A rule and its reason as a message names them: ``rule — reason``. Never
    ``rule: reason``, which reads as an assignment to the generic rule
    (``anthropic-api-key: Anthropic API or admin key``), so the screen every
    message and event passes would redact the reason of one rule in six."""
    return f"{rule_name} — {reason}"


def shannon_entropy(text: str) -> float:
    """Bits per character of ``text``'s own character distribution."""
    if not text:
        return 0.0
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values())


# -- the three kinds of rule -----------------------------------------------

_ALNUM = lazy(r"[A-Za-z0-9]")


class Thresholds(Protocol):
    """What a rule's value tests read of a policy (``RedactionPolicy`` has both)."""

    @property
    def entropy_threshold(self) -> float: ...

    @property
    def min_secret_length(self) -> int: ...


class PatternRule(Value):
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
    confirm: Callable[[str], bool] | None = None
    keywords: tuple[str, ...] = ()
    min_entropy: float = 0.0
    flags: int = 0
    examples_allowed: bool = False
    left_boundary: bool = False
    """The match must not follow a letter or digit. Checked here rather than
    as a lookbehind in ``regex``: a pattern that opens with a lookbehind is
    tried at every position, one that opens with a literal is not (measured:
    ~20 ms per MB per rule against ~1 ms)."""
    could_match: Callable[[str], bool] | None = None
    """A string test true of every text the pattern can match (one of the
    pre-checks below): a text it is false of is never searched, so its
    pattern is not compiled for a keyword as common as ``.`` or ``ey``."""
    glued: Callable[[str], bool] | None = None
    """With ``left_boundary``: a match that does follow a letter or digit is
    kept when this is true of it (``xghp_…``, ``id=abcAKIA…``: a token glued to
    a word, or to the letter of a backslash escape, ``\\nghp_…``). Set for the
    prefixes distinctive enough that a word ending in them is no token
    (``table.GLUED_PREFIXES``), and true only of a body that reads as random."""
    names_inside: Callable[[str], str | None] | None = None
    """What a match holds, for its redaction record (``base64-wrapped-secret``: the rule that
    finds a secret in the decoded text, ``base64:github-token``): the record's reason ends with it."""

    kind = "pattern"

    @property
    def pattern(self) -> re.Pattern[str]:
        return compiled(self.regex, self.flags)

    def spans(self, text: str, policy: Thresholds) -> Iterator[tuple[int, int]]:
        if self.could_match is not None and not self.could_match(text):
            return
        pattern = self.pattern
        group = "secret" if "secret" in pattern.groupindex else 0
        for m in pattern.finditer(text):
            if self.left_boundary and m.start() and _ALNUM.match(text, m.start() - 1) \
                    and (self.glued is None or not self.glued(m.group())):
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


# -- pre-checks: string tests true of every text a pattern can match ---------
#
# Each is exact in one direction only: false means the pattern cannot match
# (held to the patterns by tests/test_redaction_prechecks.py); true means it
# may. A text longer than PRECHECKED_LENGTH is not pre-checked (a loop over
# its dots would cost more than the pattern's search): its pattern is searched.

PRECHECKED_LENGTH = 8192


def token_run(segment: str) -> bool:
    """``segment`` is one or more of ``[A-Za-z0-9_-]``."""
    return segment.isascii() and segment.replace("-", "a").replace("_", "a").isalnum()


def could_be_discord_bot_token(text: str) -> bool:
    """``[MNO][A-Za-z0-9]{23,25}\\.[A-Za-z0-9_-]{6}\\.…``: a dot at 24 or later, six token
    characters and another dot."""
    if len(text) > PRECHECKED_LENGTH:
        return True
    dot = text.find(".", 24)
    while dot >= 0:
        if text.startswith(".", dot + 7) and token_run(text[dot + 1:dot + 7]):
            return True
        dot = text.find(".", dot + 1)
    return False


def could_be_jwt(text: str) -> bool:
    """``(?:ey|ewogIC|ewoi)[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{10,}\\.``: after the first
    ``ey`` or ``ewo``, a dot at least ten on, and ten or more token characters up to the
    next dot."""
    if len(text) > PRECHECKED_LENGTH:
        return True
    starts = [at for at in (text.find("ey"), text.find("ewo")) if at >= 0]
    if not starts:
        return False
    dot = text.find(".", min(starts) + 10)
    while dot >= 0:
        after = text.find(".", dot + 1)
        if after < 0:
            return False
        if after - dot > 10 and token_run(text[dot + 1:after]):
            return True
        dot = after
    return False


def could_be_asana_token(text: str) -> bool:
    """``[12]/\\d{13,19}…``: a ``1/`` or ``2/`` followed by thirteen decimal digits."""
    if len(text) > PRECHECKED_LENGTH:
        return True
    slash = text.find("/", 1)
    while slash >= 0:
        digits = text[slash + 1:slash + 14]
        if text[slash - 1] in "12" and len(digits) == 13 and digits.isdecimal():
            return True
        slash = text.find("/", slash + 1)
    return False


_NOT_IN_A_TOKEN = bytearray(b" " * 256)
"""Each byte, itself when it is one of ``[A-Za-z0-9+/_-]``, else a blank (``bytes.translate``)."""
for _code in b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-":
    _NOT_IN_A_TOKEN[_code] = _code
del _code


def token_runs(text: str, shortest: int) -> list[str]:
    """Each maximal run of ``[A-Za-z0-9+/_-]`` in ``text`` at least ``shortest`` long, in order.
    Read as ASCII bytes, another script's character (``é``, ``٣``, ``—``: none of a token's) one
    ``?``, every character outside a token a blank: a table of bytes, where ``str.translate``
    would look each character of a text that is not all ASCII up in a dict (~1.7 M instructions
    for a 2.7 KB brief, against ~0.3 M)."""
    return [run.decode() for run in text.encode("ascii", "replace").translate(_NOT_IN_A_TOKEN).split()
            if len(run) >= shortest]


def could_be_named_in_prose(text: str) -> bool:
    """``named-secret-in-prose`` redacts ``[A-Za-z0-9+/_-]{16,}`` (and up to two ``=``) only when
    upper- and lower-case letters and digits are all in it (its ``confirm``): a run of sixteen or
    more such characters holding all three. True of every text the rule redacts from (not of every
    text its pattern matches: a commit id or a UUID matches it and is never redacted by it)."""
    if len(text) > PRECHECKED_LENGTH:
        return True
    for run in token_runs(text, 16):
        if any(c.isupper() for c in run) and any(c.islower() for c in run) and any(c.isdigit() for c in run):
            return True
    return False


if TYPE_CHECKING:
    KeyTest = Callable[[tuple[str, ...]], bool]
    ValueTest = Callable[[str, Thresholds], bool]
else:
    KeyTest = ValueTest = object  # names for type checkers; at run time never evaluated

_ASSIGNMENT = lazy(
    r"""
    (?<![A-Za-z0-9_.\-])
    (?P<key>-{0,2}[A-Za-z_][A-Za-z0-9_.\-]{0,63})
    ["']?
    [ \t]*(?::=|=>|[:=])(?![=>])[ \t]*
    (?:   # a quote not closed on its line (a pasted command cut short) holds the value to the line's end
        "(?P<dq>[^"\\\r\n]*(?:\\.[^"\\\r\n]*)*)(?:"|\\?(?=[\r\n]|\Z))
      | '(?P<sq>[^'\r\n]*)(?:'|(?=[\r\n]|\Z))
      | `(?P<bq>[^`\r\n]*)(?:`|(?=[\r\n]|\Z))
      | (?P<bare>(?:[^\s'"`,;&()\[\]{}<>]|&(?![A-Za-z_][A-Za-z0-9_.\-]*=))+)   # "&name=" ends a URL query value
    )
    """,
    re.X,
)
_ASSIGNMENT_HEAD = lazy(
    r"""
    (?<![A-Za-z0-9_.\-])
    (?P<key>-{0,2}[A-Za-z_][A-Za-z0-9_.\-]{0,63})
    ["']?
    [ \t]*(?::=|=>|[:=])
    """,
    re.X,
)
"""The head of an ``_ASSIGNMENT`` candidate: its key and operator, without the
value (the costly part to match; most keys never pass a rule's key test)."""


@functools.lru_cache(maxsize=2)
def assignment_heads(text: str) -> tuple[tuple[int, str], ...]:
    """Where an ``_ASSIGNMENT`` candidate could start in ``text``, and its key.

    Every candidate starts at one of these (its key, quote, blanks and
    operator are a head; the key is the whole run of key characters, as the
    character after it cannot be one), and no two heads overlap (a head cannot
    start inside another: not after a key character, nor at a quote, blank or
    operator), so one ``finditer`` finds them all. Remembered for the last two
    texts: each assignment rule reads the same heads (a ``baton log --json``
    line has ~45, and two rules)."""
    return tuple((m.start(), m.group("key")) for m in _ASSIGNMENT_HEAD.finditer(text))


_CAMEL = lazy(r"(?<=[a-z0-9])(?=[A-Z])")


@functools.lru_cache(maxsize=4096)
def key_words(key: str) -> tuple[str, ...]:
    """``DB_PASSWORD`` -> (db, password); ``apiKey`` -> (api, key).
    Remembered (a pure function of the key): a JSON text screened as text —
    ``baton log --json``'s lines — has a key for every member, the same few
    keys on every line; splitting them again was a third of the screen."""
    words: list[str] = []
    for chunk in re.split(r"[^A-Za-z0-9]+", key):
        words.extend(w.lower() for w in _CAMEL.split(chunk) if w)
    return tuple(words)


@functools.lru_cache(maxsize=4096)
def key_passes(key_test: KeyTest, key: str) -> bool:
    """``key_test(key_words(key))``, remembered: a key test is a pure function
    of the words, and a JSON line has the same few keys on every line."""
    return key_test(key_words(key))


QUALIFIERS = frozenset({
    "base", "old", "new", "prev", "previous", "current", "prod", "production", "staging", "dev",
    "live", "test", "b64", "base64", "hex", "raw", "value", "val", "str", "string", "enc", "encoded",
})
"""Words a name may carry after the word that says what it is: a variant or
an encoding (``SECRET_KEY_BASE``, ``API_KEY_PROD``, ``TOKEN_B64``). Never a
word that names something else (``KEY_ID``, ``KEY_FILE``, ``TOKEN_URL``)."""

_QUALIFIER = r"(?:v?[0-9]+|" + "|".join(sorted(QUALIFIERS, key=lambda w: (-len(w), w))) + ")"


def _qualifies(word: str) -> bool:
    return word in QUALIFIERS or word.isdigit() or (word[:1] == "v" and word[1:].isdigit())


def without_qualifiers(words: tuple[str, ...]) -> tuple[str, ...]:
    """``words`` without the qualifiers after the last word that names
    something (``QUALIFIERS``, a number, ``v2``), and a number glued to it:
    ``(secret, key, base)`` and ``(encryption, key, v2)`` end in ``key``,
    ``(auth, token2)`` in ``token``."""
    end = len(words)
    while end and _qualifies(words[end - 1]):
        end -= 1
    if not end:
        return ()
    last = words[end - 1].rstrip("0123456789") or words[end - 1]
    return (*words[:end - 1], last)


def could_assign(last_words: tuple[str, ...], text: str) -> bool:
    """Whether ``text`` may hold a candidate whose key's last word is one of
    ``last_words``: such a key, lowered, ends with the word and then only
    ``_``, ``.`` or ``-`` (the last word is the last letters and digits of
    the key), and an operator follows, after an optional quote and blanks.
    A necessary condition, searched much faster than the candidates (one
    pattern of literals; a ``baton log --json`` line whose prose says
    "tokens" or "secret-derived" has none). Before the pattern is compiled
    (~2-4 M instructions each: more than a short string's whole screen, and
    a steady session start's brief rarely needs it), what it implies is
    tested with string methods (``_operator_after``)."""
    if ":" not in text and "=" not in text:
        return False
    lowered = text.lower()
    if not _operator_after(last_words, lowered):
        return False
    return compiled(_could_assign_regex(last_words)).search(lowered) is not None


_KEY_TAIL = "abcdefghijklmnopqrstuvwxyz0123456789_.-\"' \t"
"""Every character ``_could_assign_regex`` allows between a word and its operator (qualifiers,
separators, a quote, blanks)."""
_TAIL_WINDOW = 64
_TAIL_TRIES = 16


def _operator_after(last_words: tuple[str, ...], lowered: str) -> bool:
    """A necessary condition of ``_could_assign_regex``: one of the words occurs
    and, after it, the first character outside ``_KEY_TAIL`` is ``:`` or ``=``.
    Undecided (True: the pattern decides) when that character lies beyond
    ``_TAIL_WINDOW`` or a word occurs more than ``_TAIL_TRIES`` times."""
    for word in last_words:
        start, tries = lowered.find(word), 0
        while start >= 0:
            tries += 1
            end = start + len(word)
            rest = lowered[end:end + _TAIL_WINDOW].lstrip(_KEY_TAIL)
            if tries > _TAIL_TRIES or rest[:1] in (":", "=") or not rest and end + _TAIL_WINDOW < len(lowered):
                return True
            start = lowered.find(word, start + 1)
    return False


@functools.lru_cache(maxsize=16)
def _could_assign_regex(last_words: tuple[str, ...]) -> str:
    """A word, then separators and qualifiers in any order, then the operator.

    The run of separators and qualifiers is matched possessively (``*+``):
    whatever may follow it (a quote, a blank, ``:`` or ``=``) is no key
    character, so the only run that can be followed by the operator is the
    whole run of key characters, and the greedy tokenisation reaches its end
    whenever any tokenisation does (a shorter qualifier is never the only
    way on: "prev"+"ious", "str"+"ing", "val"+"ue" end there; "base"+"64" and
    "base64" reach the same place). Without it, the run written as repeated
    separators-then-a-qualifier tried every way of cutting a run of digits
    (``v?[0-9]+`` repeated): "key", 30 digits and ``&`` took minutes
    (docs/security.md, "Pattern run time")."""
    words = "|".join(re.escape(w) for w in sorted(last_words, key=lambda w: (-len(w), w)))
    return rf"""(?:{words})(?:[_.\-]|{_QUALIFIER})*+["']?[ \t]*[:=]"""



class AssignmentRule(Value):
    """``name = value`` text and ``{"name": "value"}`` pairs whose name says
    "secret" and whose value looks like one. Only the value is replaced."""

    name: str
    reason: str
    key_test: KeyTest
    value_test: ValueTest
    action: str = REDACT
    last_words: tuple[str, ...] = ()
    """When given (lower case): ``key_test`` passes only keys whose last word
    (``key_words``) is one of these. A text with no such word followed by
    an operator (``could_assign``) is then not searched for candidates."""
    bare_keys: tuple[tuple[str, ...], ...] = ()
    """Keys (their ``key_words``) that say little on their own — a bare ``key`` is a database's
    ``key: primary``, an index's ``sort key: name`` as often as a secret — whose value must
    also pass ``bare_value_test`` (a secret's shape, not a name's)."""
    bare_value_test: ValueTest | None = None

    kind = "assignment"

    def spans(self, text: str, policy: Thresholds) -> Iterator[tuple[int, int]]:
        if self.last_words and not could_assign(self.last_words, text):
            return
        # Not finditer: in "x: password=s3cr3t" the first candidate is key "x"
        # with value "password=s3cr3t", which would hide the real assignment.
        # The definition: search from 0; a candidate not redacted, search again
        # right after its key; one redacted, right after its value. No
        # candidate starts inside a key (its start must not follow a key's
        # character), so a candidate not redacted hides none: every candidate
        # head is visited in order, skipping only those inside a redacted value,
        # and only a head whose key passes is matched whole.
        pos = 0
        for start, key in assignment_heads(text):
            if start < pos or not key_passes(self.key_test, key):
                continue
            m = _ASSIGNMENT.match(text, start)
            if m is None:
                continue
            group = next(g for g in ("dq", "sq", "bq", "bare") if m.group(g) is not None)
            if self._value_passes(key, m.group(group), policy):
                yield m.span(group)
                pos = m.end()

    def matches_pair(self, key: str, value: str, policy: Thresholds) -> bool:
        return self.key_test(key_words(key)) and self._value_passes(key, value, policy)

    def _value_passes(self, key: str, value: str, policy: Thresholds) -> bool:
        """``value_test``, and for a key of ``bare_keys``, ``bare_value_test`` too."""
        if not self.value_test(value, policy):
            return False
        if self.bare_value_test is not None and key_words(key) in self.bare_keys:
            return self.bare_value_test(value, policy)
        return True


class PathRule(Value):
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


if TYPE_CHECKING:
    Rule = Union[PatternRule, AssignmentRule, PathRule]
else:
    Rule = object  # a name for type checkers (any of the three rules); at run time never evaluated


# -- value tests: placeholders, examples, entropy --------------------------

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


def high_entropy_value(value: str, policy: Thresholds) -> bool:
    return (
        len(value) >= policy.min_secret_length
        and not is_placeholder(value)
        and not names_an_example(value)
        and shannon_entropy(value) >= policy.entropy_threshold
    )


_NAME_PART = lazy(r"[A-Z]?[a-z]+[0-9]{0,3}|[A-Z]+[0-9]{0,3}(?![a-z])|[0-9]{1,4}")
_NAME_SEPARATORS = lazy(r"[_\-. /:,]+")
_CONSONANT_RUN = lazy(r"[b-df-hj-np-tv-xz]{5}")


def names_something(value: str) -> bool:
    """Whether ``value`` reads as a name made of words, as a non-secret under a bare ``key`` does
    (``customer_email``, ``order_number_v2``, ``shippingAddressLine``, ``tenant_id, created_at``):
    parts split at separators and case humps, each letters with at most a short number after
    them, or a short number; and at least two thirds of its letters in words — parts of three
    letters or more with a vowel in every four and no five consonants in a row (``id``, ``v2``
    are too short to judge). A random token is no such thing: digits inside its parts, parts of
    one or two letters, few vowels, long consonant runs."""
    letters = in_words = 0
    for chunk in _NAME_SEPARATORS.split(value.strip()):
        end = 0
        for m in _NAME_PART.finditer(chunk):
            if m.start() != end:
                return False
            end = m.end()
            if m.group()[-1].isdigit() and end < len(chunk) and not chunk[end].isupper():
                return False  # ``hunter2hunter``: a number inside a word, no name's hump after it
            part = m.group().rstrip("0123456789").lower()
            letters += len(part)
            if len(part) > 2:
                vowels = sum(c in "aeiouy" for c in part)
                if vowels * 4 < len(part) or _CONSONANT_RUN.search(part):
                    return False
                in_words += len(part)
        if end != len(chunk):
            return False
    return in_words > 0 and in_words * 3 >= letters * 2


def secret_not_name(value: str, policy: Thresholds) -> bool:
    """A value under a bare ``key`` taken for a secret: not a name made of words (``names_something``)."""
    return not names_something(value)


def names_an_example(value: str) -> bool:
    """A value that says it is an example (``wJalr…EXAMPLEKEY``,
    ``sk-ant-api03-your-key-here``), however random the rest of it looks."""
    lowered = value.lower()
    return value in DOCUMENTED_EXAMPLES or any(w in lowered for w in PLACEHOLDER_WORDS)


def is_documented_example(token: str) -> bool:
    """A published example key (``AKIAIOSFODNN7EXAMPLE``) or a placeholder
    written in a token's shape (``ghp_xxxx…``, ``sk-ant-…<your key>``): the
    word EXAMPLE, a placeholder word, or one character making up more than
    half of the value."""
    if names_an_example(token) or any(mark in token for mark in PLACEHOLDER_MARKS):
        return True
    return len(token) >= 8 and Counter(token.lower()).most_common(1)[0][1] * 2 > len(token)


# -- the keyword prefilter -------------------------------------------------

class KeywordPrefilter:
    """Which rules a string could match, judged by their keywords alone.

    Asking every rule in turn costs ~190 substring searches per string, which
    dominates when a payload holds thousands of short strings. Instead the
    keywords are indexed by their first two characters: a short string is cut
    into its character pairs and only the keywords starting with one of them
    are searched for; a long one is searched for each indexed pair.

    Once a process has screened ``SCANNER_AFTER`` characters that way, the
    keywords are compiled into one pattern (a trie: at each position the
    longest keyword starting there), which finds every keyword of a text in
    one pass over it: ~4 times less than either way above on a 1.7 KB
    ``baton log --json`` line. Compiling it costs ~7 ms, so a process that
    screens little (the hook path) never pays for it. All three ways find
    the same keywords."""

    SCANNER_AFTER = 1 << 16
    SCANNED_LENGTH = 64
    """Strings shorter than this are cut into pairs even once the scanner is built (as fast, no search)."""
    DENSE = 64
    PAIR_COST = 10
    """Measured: cutting a string into pairs costs about as much as searching
    it for ~10 indexed pairs per character — so a string is searched for each
    pair when it is longer than ``PAIR_COST`` times their number (~1,700
    characters for the default rules)."""

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
        self.long = self.PAIR_COST * len(self.by_pair)
        self.cut = 0
        self.scanner: tuple[re.Pattern[str], dict[str, frozenset[int]]] | None = None

    def candidates(self, lowered: str) -> list[Rule]:
        return [self.rules[i] for i in sorted(self._found(lowered))]

    def _found(self, lowered: str) -> set[int]:
        found = set(self.always)
        for keyword, i in self.single:
            if keyword in lowered:
                found.add(i)
        if len(lowered) >= self.SCANNED_LENGTH and self.by_pair and self._scanned(lowered, found):
            return found
        if len(lowered) > self.long:
            pairs = [pair for pair in self.by_pair if pair in lowered]
        else:
            pairs = [pair for pair in {lowered[j:j + 2] for j in range(len(lowered) - 1)} if pair in self.by_pair]
        for pair in pairs:
            for keyword, i in self.by_pair[pair]:
                if i not in found and keyword in lowered:
                    found.add(i)
        return found


    def _scanned(self, lowered: str, found: set[int]) -> bool:
        """Add the rules of every keyword in ``lowered`` to ``found`` with the
        scanner, once it is built; False when it is not (yet), or when the
        text holds a keyword at more than one position in ``DENSE`` (a run
        of ``aaaa…`` is a keyword at every position: one step each would
        cost more than the pairs)."""
        scanner = self.scanner
        if scanner is None:
            self.cut += len(lowered)
            if self.cut <= self.SCANNER_AFTER:
                return False
            scanner = self.scanner = keyword_scanner([k for keys in self.by_pair.values() for k in keys])
        pattern, rules_at = scanner
        budget = len(lowered) // self.DENSE + 8
        pos = 0
        while (m := pattern.search(lowered, pos)) is not None:
            found.update(rules_at[m.group()])
            pos = m.start() + 1
            budget -= 1
            if not budget:
                return False
        return True


_Trie = dict[str, "_Trie"]


def keyword_scanner(keywords: Sequence[tuple[str, int]]) -> tuple[re.Pattern[str], dict[str, frozenset[int]]]:
    """A pattern matching, at any position, the longest of ``keywords`` that
    starts there, and for each keyword the rules of every keyword that is a
    prefix of it — exactly the keywords that also start there.

    A trie written as a pattern: one branch per next character (so at most
    one branch goes on), and a keyword's end an optional group (greedy: the
    longer keyword is tried first)."""
    root: _Trie = {}
    rules_of: dict[str, set[int]] = {}
    for keyword, i in keywords:
        rules_of.setdefault(keyword, set()).add(i)
        node = root
        for ch in keyword:
            node = node.setdefault(ch, {})
        node[""] = {}

    def branches(node: _Trie) -> str:
        alternatives = [re.escape(ch) + branches(child) for ch, child in sorted(node.items()) if ch]
        if not alternatives:
            return ""
        body = alternatives[0] if len(alternatives) == 1 and "" not in node else "(?:" + "|".join(alternatives) + ")"
        return body + "?" if "" in node else body

    rules_at = {keyword: frozenset(i for n in range(2, len(keyword) + 1) for i in rules_of.get(keyword[:n], ()))
                for keyword in rules_of}
    return re.compile(branches(root)), rules_at


# -- one rule applied to a text, between the markers already in it ---------

_ANCHOR = r"(?<!\[)\^|(?<!\\)\$|\\[AZ]"


def apply_rule(text: str, rule: Rule, policy: Thresholds,
               markers: list[tuple[int, int]] | None = None,
               replaced: list[tuple[int, int]] | None = None) -> tuple[str, bool]:
    """Replace ``rule``'s matches in the parts of ``text`` between markers.

    The rule runs over the whole text once; only when a match would overlap
    a marker (or the pattern is anchored, so a marker's edge could count as
    the text's) does it run again on each part between markers, as the
    definition says. The result is the same; the cost is one search instead
    of one per part (a field full of earlier redactions has hundreds).
    ``replaced``, when given, receives each replaced span (in ``text``)."""
    if isinstance(rule, PathRule):
        return text, False
    if markers is None:
        markers = marker_spans(text)
    if not markers:
        return _replaced(text, sorted(set(rule.spans(text, policy))), rule.name, replaced)
    if not (isinstance(rule, PatternRule) and compiled(_ANCHOR).search(rule.regex)):
        spans = sorted(set(rule.spans(text, policy)))
        if not _overlaps_a_marker(spans, markers):
            return _replaced(text, spans, rule.name, replaced)
    pieces: list[str] = []
    hit = False
    pos = 0
    for start, end in [*markers, (len(text), len(text))]:
        segment = text[pos:start]
        if segment:
            cleaned, segment_hit = _replaced(segment, sorted(set(rule.spans(segment, policy))), rule.name,
                                              replaced, pos)
            pieces.append(cleaned)
            hit = hit or segment_hit
        pieces.append(text[start:end])
        pos = end
    return "".join(pieces), hit


def marker_spans(text: str) -> list[tuple[int, int]]:
    """The markers' spans; a text without the marker's literal start compiles no pattern."""
    return [m.span() for m in MARKER.finditer(text)] if "[REDACTED" in text else []


def _replaced(text: str, spans: list[tuple[int, int]], rule_name: str,
              replaced: list[tuple[int, int]] | None = None, offset: int = 0) -> tuple[str, bool]:
    out, last = [], 0
    for start, stop in spans:
        if start < last:
            continue
        if replaced is not None:
            replaced.append((offset + start, offset + stop))
        out.append(text[last:start])
        out.append(replacement_for(rule_name))
        last = stop
    if not out:
        return text, False
    out.append(text[last:])
    return "".join(out), True


def _overlaps_a_marker(spans: list[tuple[int, int]], markers: list[tuple[int, int]]) -> bool:
    starts = [start for start, _ in markers]
    for start, stop in spans:
        i = bisect.bisect_left(starts, stop) - 1  # the last marker beginning before the span ends
        if i >= 0 and markers[i][1] > start:
            return True
    return False
