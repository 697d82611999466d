"""The default rule table: the generic rules (private keys, AWS and GitHub
credentials, JWTs, registry auth, Authorization headers, URL passwords,
secret-named assignments, credential files) and the keyed providers'
token shapes of ``secret_rules``, as :data:`DEFAULT_RULES`.
"""

from __future__ import annotations

import binascii
import re

import orjson

from baton.domain.redaction.rules import (
    PRECHECKED_LENGTH,
    AssignmentRule,
    KeywordPrefilter,
    PathRule,
    PatternRule,
    Rule,
    Thresholds,
    could_be_asana_token,
    could_be_discord_bot_token,
    could_be_jwt,
    could_be_named_in_prose,
    high_entropy_value,
    is_placeholder,
    names_an_example,
    names_something,
    secret_not_name,
    shannon_entropy,
    token_runs,
    without_qualifiers,
)
from baton.domain.redaction.secret_rules import LEFT_BOUNDARY, PROVIDER_RULES
from baton.domain.regexes import compiled

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the output screen never needs it)
if TYPE_CHECKING:
    from typing import Callable

_SECRET_WORDS = frozenset({
    "secret", "token", "password", "passwd", "pwd", "passphrase", "key", "apikey",
    "secretkey", "accesskey", "privatekey", "authtoken", "accesstoken", "credential", "credentials",
    # The short forms env files use (``DB_PASS``, ``SMTP_PASS``, ``DB_PW``, ``REDIS_AUTH``,
    # ``NPM_AUTH``), as gitleaks' generic rule takes them: the value must still look like a secret.
    "pass", "pw", "auth",
    # A salt under a secret's name in an env file (WordPress's ``AUTH_SALT``, ``NONCE_SALT``, a
    # framework's ``SIGNING_SALT``): the value must still look like a secret.
    "salt",
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


_GLUED_SECRET_ENDINGS = ("password", "passwd", "passphrase", "secret", "pass")
"""A last word that ends so names a secret too, glued to what it is for:
``PGPASSWORD`` (PostgreSQL's own variable), ``DBPASSWORD``, ``CLIENTSECRET``,
``PGPASS``, ``SMTPPASS``."""


def names_generic_secret(words: tuple[str, ...]) -> bool:
    """The last word names a secret (``db_password``, ``apiKey``, ``key``,
    ``PGPASSWORD``), unless the compound is a well-known non-secret
    (``primary_key``, ``max_tokens``-style ``max_token``, ``resume_token``).
    A version or variant after it is looked past (``SECRET_KEY_BASE``,
    ``ENCRYPTION_KEY_V2``, ``auth_token2``: ``without_qualifiers``)."""
    words = without_qualifiers(words)
    if not words:
        return False
    if words[-1] not in _SECRET_WORDS:
        return words[-1].endswith(_GLUED_SECRET_ENDINGS)
    before = words[-2] if len(words) > 1 else ""
    if words[-1] == "key" and before in _NOT_SECRET_BEFORE_KEY:
        return False
    if words[-1] == "token" and before in _NOT_SECRET_BEFORE_TOKEN:
        return False
    if words[-1] == "auth" and not before:
        # ``auth`` alone is a registry's ``user:password`` pair (``registry-auth`` decodes it, and
        # keeps a value that is no pair) or a setting (``auth: basic``); ``REDIS_AUTH`` and
        # ``NPM_AUTH`` name a secret.
        return False
    return True


def _names_aws_secret(words: tuple[str, ...]) -> bool:
    """``aws_secret_access_key``, ``secretAccessKey``, ``AWS_SECRET_KEY``..."""
    if not words or words[-1] not in ("key", "secret"):
        return False
    return "".join(words).endswith("secretaccesskey") or (words[0] == "aws" and "secret" in words)


_AWS_SECRET_VALUE = r"^[A-Za-z0-9/+]{40}$"


def _aws_secret_value(value: str, policy: Thresholds) -> bool:
    return bool(compiled(_AWS_SECRET_VALUE).match(value)) and not is_placeholder(value) and not names_an_example(value)


def _jwt_header_has_alg(token: str) -> bool:
    header = token.split(".", 1)[0]
    padded = header + "=" * (-len(header) % 4)
    try:  # base64's url-safe decoding, by the binascii decoder it calls (base64 would import struct too)
        decoded = orjson.loads(binascii.a2b_base64(padded.replace("-", "+").replace("_", "/")))
    except (binascii.Error, ValueError, orjson.JSONDecodeError):
        return False
    return isinstance(decoded, dict) and "alg" in decoded


def _b64_text(value: str) -> str | None:
    """``value`` decoded as base64 (standard or URL-safe), or None when it is not."""
    padded = value.rstrip("=") + "=" * (-len(value.rstrip("=")) % 4)
    try:  # base64's b64decode(validate=True), by the binascii decoder it calls
        raw = binascii.a2b_base64(padded.replace("-", "+").replace("_", "/"), strict_mode=True)
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


_PEM_PRIVATE_HEADER = r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY"


def _base64_private_key(token: str) -> bool:
    """base64 of a PEM or OpenSSH private key block (``LS0tLS1CRUdJTi`` is
    base64 of ``-----BEGIN ``), as a Kubernetes secret's ``tls.key``, a CI
    variable or ``base64 id_rsa`` holds one; a certificate or public key is
    left alone. Only the head is decoded: the block may be wrapped or cut."""
    head = "".join(token.split())[:64]
    decoded = _b64_text(head[: len(head) - len(head) % 4])
    return decoded is not None and compiled(_PEM_PRIVATE_HEADER).match(decoded) is not None


_OPENSSH_MAGIC = b"openssh-key-v1\0"
_CIPHER_NAME = r"[a-z0-9@.\-]{1,64}"
"""A cipher's name (``none``, ``aes256-ctr``, ``chacha20-poly1305@openssh.com``); the head decoded may cut it."""


def _openssh_key_body(token: str) -> bool:
    """The body of an OpenSSH private key file pasted without its ``-----BEGIN``
    line: its head decodes to ``openssh-key-v1\\0`` and the length-prefixed
    name of a cipher (``none``, ``aes256-ctr``…), not to prose that names the
    magic string. Only the head is decoded: the body may be wrapped or cut."""
    head = "".join(token.split())[:64]
    try:  # base64's b64decode(validate=True), by the binascii decoder it calls
        raw = binascii.a2b_base64(head[: len(head) - len(head) % 4], strict_mode=True)
    except (binascii.Error, ValueError):
        return False
    if not raw.startswith(_OPENSSH_MAGIC) or len(raw) < len(_OPENSSH_MAGIC) + 5:
        return False
    start = len(_OPENSSH_MAGIC) + 4
    size = int.from_bytes(raw[start - 4:start], "big")
    name = raw[start:start + size].decode("ascii", "replace")
    return 0 < size <= 64 and compiled(_CIPHER_NAME).fullmatch(name) is not None


_PGPASS_ESCAPED = r"(?:[^\s:\\]|\\.)"
"""A character of a ``.pgpass`` field: anything but a blank or ``:``, or a ``\\``-escaped one."""
_PGPASS_NAME = rf"(?:\*|(?={_PGPASS_ESCAPED}*[^\s:\\0-9]){_PGPASS_ESCAPED}+)"
"""A database or user field: ``*``, or a name that is not all digits (a MAC address, a clock is)."""
_PGPASS_LINE = (
    r"(?:^[ \t]*(?:(?:echo|printf)[ \t]+(?:-[A-Za-z]+[ \t]+)?)?(?P<quote>[\"']?)(?P<line>)"
    r"(?:\*|[A-Za-z0-9_.\-]+(?:\\:[A-Za-z0-9_.\-]*)*):(?:[0-9]{1,5}|\*)"
    r"|:(?<=[A-Za-z0-9_.\-*]:)(?:5432|5433|6432|\*)):"
    + _PGPASS_NAME + ":" + _PGPASS_NAME + rf":(?P<secret>(?(line)(?:[^\n:\\]|\\.)+?|{_PGPASS_ESCAPED}+))"
    r"(?(line)(?P=quote)(?:[ \t]*>>?[ \t]*(?i:\S*pgpass)[^\n]*|[ \t]*\r?$)|(?![^\s\"'`;,)]))"
)
"""A ``.pgpass`` line, ``host:port:database:user:password`` (``*`` in the
first four, the port digits or ``*``): alone on its line, or the line
``echo`` writes to a pgpass file, with any port (its password runs to the
line's end or the closing quote, blanks and all, as libpq reads it); inside a longer line only
with PostgreSQL's or PgBouncer's usual port (5432, 5433, 6432) or ``*``,
ending apart (a blank, a quote, ``;``, ``,`` after it). So a log's
``a:b:c:d:e``, a clock, an IPv6 or MAC address, a URL are not one.

Inside a line the match starts at the port's ``:`` (a literal: searched for,
not tried at every position; a host matched from a word's start cost ~20 ms
per MB), so only the host's last character is checked there."""


_COOKIE_MIN_LENGTH = 16
_COOKIE_MIN_ENTROPY = 3.0


def _holds_a_secret_cookie(cookies: str) -> bool:
    """One of the ``name=value`` pairs of a cookie list holds a value that
    looks like a session id: 16 characters or more, varied (3 bits a
    character), not a placeholder (``$SESSION``, a marker another rule left)."""
    for pair in cookies.split(";"):
        value = pair.partition("=")[2].strip().strip('"').strip()
        if (len(value) >= _COOKIE_MIN_LENGTH and not is_placeholder(value)
                and shannon_entropy(value) >= _COOKIE_MIN_ENTROPY):
            return True
    return False


def _basic_credentials(value: str) -> bool:
    """A registry ``auth`` value: base64 of ``user:password``, both non-empty."""
    decoded = _b64_text(value)
    if decoded is None or not decoded.isprintable():
        return False
    user, colon, password = decoded.partition(":")
    return bool(colon and user and password) and not is_placeholder(password)


class _DefaultThresholds:
    entropy_threshold = 3.0
    min_secret_length = 8


def _wrapped_secret(token: str) -> bool:
    """``token`` is base64 (standard or URL-safe, whole or wrapped at a fixed width) of a text
    in which another default text rule finds a secret: ``base64 <<< "$GITHUB_TOKEN"``, a CI
    variable, a ``.env`` blob or a Kubernetes secret's ``data`` holding a token, a private key,
    a ``password: …`` line or a JSON object with an ``api_key``; or of a bare ``user:password``
    pair (an ``Authorization: Basic`` value pasted alone)."""
    return wrapped_secret_kind(token) is not None


_LAST_KIND: list[tuple[str, str | None]] = []
"""The last match judged (the record names what ``confirm`` just found: decoded once, not twice)."""


def wrapped_secret_kind(token: str) -> str | None:
    """What a ``base64-wrapped-secret`` match holds once decoded, as its redaction record names
    it: ``base64:<rule>``, the first other default rule that finds a secret in the decoded text
    (``base64:github-token``, ``base64:generic-secret-assignment``), ``base64:basic-credentials``
    for a bare ``user:password`` pair; None when the decoded text holds no secret, or ``token``
    does not decode to text. One level: base64 inside the decoded text is not decoded again."""
    last = _LAST_KIND[-1] if _LAST_KIND else None  # read once: another thread may judge another match
    if last is not None and last[0] == token:
        return last[1]
    kind = _decoded_secret_kind(token)
    _LAST_KIND[:] = [(token, kind)]
    return kind


def _decoded_secret_kind(token: str) -> str | None:
    decoded = _b64_text("".join(token.split()))
    if decoded is None or not decoded.strip():
        return None
    rules = _wrapped_rules()
    for rule in rules.candidates(decoded.lower()):
        if isinstance(rule, (PatternRule, AssignmentRule)) and next(rule.spans(decoded, _DefaultThresholds()), None):
            return "base64:" + rule.name
    return "base64:basic-credentials" if _bare_credentials(decoded) else None


_USER = r"[A-Za-z0-9._@+\-]{1,64}"
_HEX = r"[0-9a-fA-F]+"


def _bare_credentials(decoded: str) -> bool:
    """``decoded`` is a bare ``user:password`` pair, as an ``Authorization: Basic`` value holds
    one: a user name (letters, digits, ``._@+-``, a letter among them), a colon, and a password of
    eight characters or more with a digit in it, no blank, not starting with ``/`` (a URL's
    ``//host``), not a hex digest (``sha256:<hex>``) and no placeholder. So ``Content-Type:text/html``,
    ``version:1.2.3``, a clock or a digest's name and value are kept."""
    pair = decoded.rstrip("\r\n")
    user, colon, password = pair.partition(":")
    if not colon or len(password) < 8 or not pair.isprintable() or any(c.isspace() for c in pair):
        return False
    if compiled(_USER).fullmatch(user) is None or not any(c.isalpha() for c in user):
        return False
    if password.startswith("/") or not any(c.isdigit() for c in password) or compiled(_HEX).fullmatch(password):
        return False
    return not is_placeholder(password) and not names_an_example(password)


_WRAPPED_LINES = (64, 76)
"""The widths the rule's pattern takes a wrapped block at (openssl's and base64(1)'s)."""


def could_be_wrapped_secret(text: str) -> bool:
    """``base64-wrapped-secret``'s pre-check: its ``confirm`` first decodes the match as base64 to
    text, so some run of ``[A-Za-z0-9+/_-]`` twelve or more long decodes to (non-blank) text — the
    match is such a run, the ``=`` after it aside — or a line of one of ``_WRAPPED_LINES`` decodes
    to the start of one (a wrapped block's first line: its last character may be cut). True of every
    text the rule redacts from, whatever else it holds. The rule has no keywords (a blob that decodes
    to ``password: …`` or ``user:password`` holds none a prefilter could look for), so every text comes
    here, and its pattern costs ~2.2 M instructions to compile: only a text holding such a run compiles
    and searches it, and only the runs it matches are decoded. Paths, ids, hashes and words decode to
    no text."""
    if len(text) > PRECHECKED_LENGTH:
        return True
    for run in token_runs(text, 12):
        if _decodes_to_text(run) or len(run) in _WRAPPED_LINES and _starts_text(run):
            return True
    return False


def _decodes_to_text(run: str) -> bool:
    """``_b64_text(run)`` is text that is not blank (``run`` holds no ``=``), without the exception
    most runs raise there (~10,000 instructions each): a length of one more than a multiple of four
    is no base64, and bytes that are not UTF-8 lose some of themselves decoded ``ignore``-ing errors."""
    if len(run) % 4 == 1:
        return False
    try:
        raw = binascii.a2b_base64((run + "=" * (-len(run) % 4)).replace("-", "+").replace("_", "/"), strict_mode=True)
    except (binascii.Error, ValueError):
        return False
    decoded = raw.decode("utf-8", "ignore")
    return len(decoded.encode()) == len(raw) and bool(decoded.strip())


def _starts_text(line: str) -> bool:
    """``line`` (a multiple of four long) is base64 of the start of a UTF-8 text: its bytes are text
    once the last character the line cut (at most three bytes of it) is left off."""
    try:
        raw = binascii.a2b_base64(line, strict_mode=True)
    except (binascii.Error, ValueError):
        return False
    for cut in range(4):
        try:
            raw[:len(raw) - cut].decode("utf-8")
        except ValueError:
            continue
        return True
    return False


_WRAPPED_RULES: list[KeywordPrefilter] = []


def _wrapped_rules() -> KeywordPrefilter:
    """The default text rules but this one, indexed by keyword (built on first use)."""
    if not _WRAPPED_RULES:
        _WRAPPED_RULES.append(KeywordPrefilter(
            [r for r in DEFAULT_RULES
             if r.name != "base64-wrapped-secret" and not isinstance(r, PathRule)]))
    return _WRAPPED_RULES[0]


_WRAP_BREAK = r"\r?\n[ \t]*"


def _wrapped_line_secret(run: str) -> bool:
    """``run`` (a word that ends a line and the word that starts the next: a terminal or an
    editor wrapped a long token) joined back is a secret by the rule of a token prefix on the
    first line, and that secret crosses the break: a secret on one line alone was redacted by
    its own rule already."""
    pieces = compiled(_WRAP_BREAK).split(run)
    if len(pieces) != 2:
        return False
    cut = len(pieces[0])
    joined = pieces[0] + pieces[1]
    head = (pieces[0] + pieces[1][:24]).lower()
    by_prefix = _line_wrapped_rules()
    for keyword in _LINE_WRAPPED_KEYWORDS:
        if keyword in head:
            for rule in by_prefix[keyword]:
                if any(start < cut < end for start, end in rule.spans(joined, _DefaultThresholds())):
                    return not _complete_on_its_line(pieces[0], pieces[1], by_prefix[keyword])
    return False


def _complete_on_its_line(first: str, word: str, rules: tuple[PatternRule, ...]) -> bool:
    """The token ``first`` (a line's last word) is whole already, so ``word`` (the next line's
    first) is text: a token of fixed shape that has all its characters (a classic GitHub token is
    ``ghp_`` and exactly 36), or one its rule takes whole on its line alone followed by an
    ordinary word (``then``, ``Then``)."""
    shape = next((s for prefix, s in _COMPLETE_TOKENS.items() if first.startswith(prefix)), None)
    if shape is not None:
        return compiled(shape).fullmatch(first) is not None
    if not compiled(_ORDINARY_WORD).fullmatch(word):
        return False
    return any(span == (0, len(first)) for rule in rules for span in rule.spans(first, _DefaultThresholds()))


_COMPLETE_TOKENS = {
    "ghp_": r"ghp_[A-Za-z0-9]{36}",
    "gho_": r"gho_[A-Za-z0-9]{36}",
    "github_pat_": r"github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}",
}
"""Token prefixes whose rule takes longer tokens than the published shape, with that shape: a
token that has it is complete, its line's break cuts nothing. The other prefixes of fixed shape
(``npm_``, ``hf_``, ``AKIA``, ``AIza``, ``SG.``, ``dop_v1_``, ``shpat_``) have rules that take
that shape only, so a next line's word never extends their match."""
_ORDINARY_WORD = r"[A-Za-z][a-z]{2,}"
"""A word of prose: three letters or more, lower case after the first. A token's tail is rarely
one (62 signs a character), and if it is, the body before the break is redacted by its own rule."""


_LINE_WRAPPED_RULES: list[dict[str, tuple[PatternRule, ...]]] = []


def _line_wrapped_rules() -> dict[str, tuple[PatternRule, ...]]:
    """For each prefix of ``_LINE_WRAPPED_KEYWORDS``, the default rules whose keywords name it
    (``ghp_``: ``github-token``; ``eyj``: ``jwt``…), built on first use."""
    if not _LINE_WRAPPED_RULES:
        rules = [r for r in DEFAULT_RULES if isinstance(r, PatternRule) and r.name not in _NOT_LINE_WRAPPED]
        _LINE_WRAPPED_RULES.append({
            keyword: tuple(r for r in rules if any(len(k) >= 2 and (k in keyword or keyword in k) for k in r.keywords))
            for keyword in _LINE_WRAPPED_KEYWORDS})
    return _LINE_WRAPPED_RULES[0]


_NOT_LINE_WRAPPED = frozenset({"private-key", "private-key-base64", "openssh-private-key-body", "pgpass-password",
                               "line-wrapped-secret", "base64-wrapped-secret", "jwt-base64"})
"""Rules whose secrets span lines by nature, matched whole by their own patterns."""

_LINE_WRAPPED_KEYWORDS = ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "akia", "asia", "aiza",
                          "xox", "sk_live_", "rk_live_", "sk-proj-", "sk-ant-", "sk-svcacct-", "npm_", "pypi-",
                          "hf_", "sg.", "dop_v1_", "shpat_", "eyj")
"""The prefixes whose wrapped tokens are looked for (lower case, as the prefilter reads them)."""
_LINE_WRAPPED_PREFIXES = "|".join(re.escape(k) for k in _LINE_WRAPPED_KEYWORDS)


URL_SCHEME = r"(?i)(?<![a-z0-9+.\-])(?>(?<!\w)(?=[a-z])|[a-z0-9+.\-]*?[+.\-](?=[a-z]))[a-z0-9+.\-]*+://"
"""A URL's scheme and its ``://``, as ``\\b[a-z][a-z0-9+.\\-]*://`` reads it (a letter
at a word's start, scheme characters to the ``://``), but tried only where a run of
scheme characters starts: the scheme begins at the run's first letter that starts a
word (the run's first character, or one after ``+``, ``.`` or ``-``), and the run
ends at the ``://`` or not at all, so no other start inside it can match. The
pattern it replaces tried every word inside a long run (``a-a-a-…``) and read the
run to its end from each: quadratic (docs/security.md, "Pattern run time"). The
whole match now starts at the run, the ``secret`` group where it did."""


_PROSE_SECRET_NOUN = r"(?:secrets?|passwords?|passwd|passphrase|tokens?|credentials?|(?:api|access|secret)[ _\-]?keys?)"
_PROSE_FILLER = r"(?:is|was|are|were|key|value|now)"
_PROSE_GAP = r"[ \t]+"
"""Blanks only: ``token: <value>`` and ``token = <value>`` are assignments, the assignment rules' to judge."""
_NAMED_IN_PROSE = (
    rf"(?i:(?<![A-Za-z0-9_]){_PROSE_SECRET_NOUN}(?:{_PROSE_GAP}{_PROSE_FILLER}){{0,2}}){_PROSE_GAP}[\"'`]?"
    r"(?P<secret>[A-Za-z0-9+/_\-]{16,}+={0,2})(?![A-Za-z0-9+/=_\-]|\.[A-Za-z0-9])")
"""A word naming a secret (``secret``, ``token``, ``password``, ``api key``, ``secret key``…), up to
two words such as ``is``/``was``/``key``, then a value: ``aws secret <key>``, ``the token is
<value>``, ``because secret <key>``. The value is a secret only by ``_named_in_prose_value``."""
_PROSE_KEYWORDS = ("secret", "password", "passwd", "passphrase", "token", "credential",
                   "api key", "api_key", "api-key", "apikey", "access key", "access_key", "access-key", "accesskey")
_HEX_RUN = r"[0-9a-fA-F\-]+"
_TOKEN_PREFIX = r"[A-Za-z0-9]{1,10}[_\-]"


def _class_changes(value: str) -> int:
    """How often the character class (upper, lower, digit) changes along ``value``'s letters and digits."""
    classes = ["u" if c.isupper() else "l" if c.islower() else "d" for c in value if c.isalnum()]
    return sum(1 for a, b in zip(classes, classes[1:]) if a != b)


def _named_in_prose_value(value: str) -> bool:
    """A random token, not a word, path, identifier or commit id: upper- and lower-case letters and
    digits all in it, mixed as randomness mixes them (a class change every five characters or more
    often: ``RedactionPolicyThresholds2`` has 4 in 26, a random 20-character token about 12), no
    placeholder, and not hex alone (a commit id, a UUID). A value that opens with a prefix
    (``phc_…``, ``pk_live_…``) is the provider rules' to judge: they know which prefixes are public."""
    if not (any(c.isupper() for c in value) and any(c.islower() for c in value) and any(c.isdigit() for c in value)):
        return False
    if compiled(_HEX_RUN).fullmatch(value) or compiled(_TOKEN_PREFIX).match(value):
        return False
    if is_placeholder(value) or names_an_example(value):
        return False
    return _class_changes(value) * 5 >= len(value)


GLUED_PREFIXES: dict[str, tuple[str, ...]] = {
    "github-token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    "github-fine-grained-token": ("github_pat_",),
    "slack-token": ("xoxb-", "xoxp-", "xoxa-", "xoxs-", "xoxr-"),
    "openai-api-key": ("sk-proj-", "sk-svcacct-", "sk-service-", "sk-admin-"),
    "anthropic-api-key": ("sk-ant-",),
    "openrouter-api-key": ("sk-or-",),
    "aws-access-key-id": ("AKIA", "ASIA"),
    "gcp-api-key": ("AIza",),
    "gitlab-token": ("glpat-",),
    "stripe-secret-key": ("sk_live_", "rk_live_"),
    "npm-access-token": ("npm_",),
}
"""The token prefixes distinctive enough to be found glued to what comes before them: a word
(``xghp_…``, ``id=abcAKIA…``, ``keysk-proj-…``) or the letter of a backslash escape
(``\\nghp_…``, ``tok\\u003dghp_…``: JSON- or repr-escaped output pasted in). Only the
prefixes no word ends in (``ghp_``, ``AKIA``, ``sk-proj-``), never a short or common one
(``sk-`` alone: ``task-``, ``disk-``, ``risk-``; ``xoxo-``; ``hf_``); and a glued token is
taken only when its body reads as random (``_random_body``)."""


def _random_body(body: str) -> bool:
    """What follows a glued prefix reads as a random token, not as text: it holds a letter and
    a digit, is no name made of words (``names_something``: ``task-proj-v2-new-dashboard``),
    and varies (3 bits a character)."""
    return (any(c.isdigit() for c in body) and any(c.isalpha() for c in body)
            and shannon_entropy(body) >= 3.0 and not names_something(body))


def _glued_test(prefixes: tuple[str, ...]) -> Callable[[str], bool]:
    def glued(token: str) -> bool:
        prefix = next((p for p in prefixes if token.startswith(p)), None)
        return prefix is not None and _random_body(token[len(prefix):])
    return glued


def _pattern(name: str, reason: str, regex: str, flags: int = 0, *, keywords: tuple[str, ...] = (),
             confirm: Callable[[str], bool] | None = None, min_entropy: float = 0.0,
             examples_allowed: bool = True, could_match: Callable[[str], bool] | None = None,
             names_inside: Callable[[str], str | None] | None = None) -> PatternRule:
    left_boundary = regex.startswith(LEFT_BOUNDARY)
    if left_boundary:
        regex = regex[len(LEFT_BOUNDARY):]
    glued = GLUED_PREFIXES.get(name)
    return PatternRule(name=name, reason=reason, regex=regex, flags=flags, confirm=confirm, keywords=keywords,
                       min_entropy=min_entropy, examples_allowed=examples_allowed, left_boundary=left_boundary,
                       could_match=could_match, names_inside=names_inside,
                       glued=_glued_test(glued) if glued is not None and left_boundary else None)


_COMMAND_LINE_RULES = frozenset({"curl-user-password", "mysql-cli-password", "sshpass-password",
                                  "registry-login-password", "netrc-password", "redis-cli-password",
                                  "htpasswd-password", "openssl-password", "rabbitmqctl-password"})
"""A password typed on a command line: a shell variable there (``-p$MYSQL_PWD``) is no secret,
as it is none in an assignment (``is_placeholder``)."""

_FREE_FORM_RULES = frozenset({"php-define-secret"})
"""Rules whose secret is free-form (a WordPress salt holds ``<``, ``{``, ``$``): no template mark
makes it an example (``PLACEHOLDER_MARKS`` apply to token shapes); a placeholder word
(``put your unique phrase here`` is caught by its entropy only if varied) or value still does."""

_PRECHECKS = {"discord-bot-token": could_be_discord_bot_token, "asana-personal-access-token": could_be_asana_token}
"""Provider rules whose keyword most texts hold (``.``, ``1/``): a string test first (``rules``)."""

_PROVIDER_RULES: tuple[PatternRule, ...] = tuple(
    _pattern(name, reason, regex, keywords=keywords, min_entropy=min_entropy, could_match=_PRECHECKS.get(name),
             confirm=(lambda t: not is_placeholder(t) and not names_an_example(t))
             if name in _FREE_FORM_RULES else (lambda t: not is_placeholder(t)) if name in _COMMAND_LINE_RULES else None,
             examples_allowed=name not in _FREE_FORM_RULES)
    for name, reason, keywords, regex, min_entropy in PROVIDER_RULES
)

DEFAULT_RULES: tuple[Rule, ...] = (
    # First: a token a line break cut must be redacted whole, before a rule that takes
    # any length (Slack, OpenAI, Anthropic) redacts its first line and leaves the rest.
    _pattern("line-wrapped-secret", "a token broken across lines",
             # Tried at each word that starts with a token prefix and ends a line (a lookahead:
             # matches may overlap), over one break.
             # Not when the next line is a name being assigned (``password = …``): a token of
             # any length (GitHub's, Slack's) would take the name in, and the assignment be lost.
             r"(?<![A-Za-z0-9_\-.])(?=(?P<secret>(?i:" + _LINE_WRAPPED_PREFIXES + r")"
             r"[A-Za-z0-9_\-.]*\r?\n[ \t]*[A-Za-z0-9_\-.]+)(?![A-Za-z0-9_\-.]|[ \t]*[=:]))",
             keywords=_LINE_WRAPPED_KEYWORDS, confirm=_wrapped_line_secret, examples_allowed=False),
    _pattern("private-key", "private key block (PEM, OpenSSH, PGP, PuTTY)",
             r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?"
             r"(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)"
             r"|PuTTY-User-Key-File-\d: .*?Private-Lines: \d+.*?(?:Private-MAC: [0-9a-f]+|\Z)",
             re.S, keywords=("private key", "putty-user-key-file"), examples_allowed=False),
    # Unwrapped (a Kubernetes secret's data) or wrapped as base64(1) and
    # openssl write it, 76 or 64 characters a line.
    _pattern("private-key-base64", "base64-encoded private key block",
             LEFT_BOUNDARY + r"LS0tLS1CRUdJTi"
             r"(?:[A-Za-z0-9+/]{62}\r?\n(?:[A-Za-z0-9+/]{76}\r?\n)*|[A-Za-z0-9+/]{50}\r?\n(?:[A-Za-z0-9+/]{64}\r?\n)*)?"
             r"[A-Za-z0-9+/]*={0,2}(?![A-Za-z0-9+/=])",
             keywords=("ls0tls1crudjti",), confirm=_base64_private_key, examples_allowed=False),
    # OpenSSH writes the body 70 characters a line; base64(1) and openssl 76 and 64.
    _pattern("openssh-private-key-body", "OpenSSH private key body without its BEGIN line",
             LEFT_BOUNDARY + r"b3BlbnNzaC1rZXktdjE"
             r"(?:[A-Za-z0-9+/]{51}\r?\n[ \t]*(?:[A-Za-z0-9+/]{70}\r?\n[ \t]*)*"
             r"|[A-Za-z0-9+/]{45}\r?\n[ \t]*(?:[A-Za-z0-9+/]{64}\r?\n[ \t]*)*"
             r"|[A-Za-z0-9+/]{57}\r?\n[ \t]*(?:[A-Za-z0-9+/]{76}\r?\n[ \t]*)*)?"
             r"[A-Za-z0-9+/]*={0,2}(?![A-Za-z0-9+/=])",
             keywords=("b3blbnnzac1rzxktdje",), confirm=_openssh_key_body, examples_allowed=False),
    AssignmentRule("aws-secret-access-key", "AWS secret access key assignment",
                   key_test=_names_aws_secret, value_test=_aws_secret_value, last_words=("key", "secret")),
    # GitHub tokens: an underscore is a boundary too, so a token joined into an
    # identifier such as a baton key (``<owner>__<branch>``) is still caught.
    _pattern("github-token", "GitHub token (classic)",
             LEFT_BOUNDARY + r"gh[pousr]_[A-Za-z0-9]{36,255}(?![A-Za-z0-9])",
             keywords=("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
    _pattern("github-fine-grained-token", "GitHub fine-grained personal access token",
             LEFT_BOUNDARY + r"github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{40,255}(?![A-Za-z0-9])",
             keywords=("github_pat_",)),
    # Slack's shapes (api.slack.com token types; gitleaks' slack rules): after the prefix a number
    # (the team's, six digits or more: ``xoxb-<n>-<n>-…``, ``xoxp-<n>-<n>-<n>-<hex>``, legacy
    # ``xoxo-``/``xoxs-`` alike; or one digit, ``xoxa-2-…``), or for a legacy workspace token
    # (``xoxa-``/``xoxr-``) a run of letters and digits. A hyphenated phrase
    # (``xoxo-love-from-all-of-us-2024``, ``xoxo-2024-from-all-of-us``) is no token.
    _pattern("slack-token", "Slack token",
             LEFT_BOUNDARY + r"xox(?:[abposr]-(?:\d|\d{6,})(?:-[A-Za-z0-9]+)+|[ar]-[A-Za-z0-9]{8,48})(?![A-Za-z0-9-])",
             keywords=("xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-"),
             confirm=lambda t: len(t) >= 20 and (t[5].isdigit() or not (t[5:].isalpha() or t[5:].isdigit()))),
    *_PROVIDER_RULES,
    _pattern("jwt", "JSON Web Token",
             # A JSON header always encodes to "ey…". A "." may follow the
             # token (a file name such as "src/<jwt>.py").
             # A header serialised with newlines encodes to "ewogIC…"/"ewoi…".
             r"(?<![A-Za-z0-9_.\-])(?:ey|ewogIC|ewoi)[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*"
             r"(?![A-Za-z0-9_\-])",
             keywords=("ey", "ewogic", "ewoi"), confirm=_jwt_header_has_alg, could_match=could_be_jwt),
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
    # After the rules that name a base64 value by where it stands (a registry's ``auth``, an
    # ``Authorization: Basic`` header): theirs is the more telling name.
    _pattern("base64-wrapped-secret", "a secret another rule finds, wrapped in base64",
             r"(?<![A-Za-z0-9+/_\-])(?:(?:[A-Za-z0-9+/]{76}\r?\n)+[A-Za-z0-9+/]+={0,2}"
             r"|(?:[A-Za-z0-9+/]{64}\r?\n)+[A-Za-z0-9+/]+={0,2}"
             r"|[A-Za-z0-9+/]{12,}={0,2}|[A-Za-z0-9_\-]{12,}={0,2})(?![A-Za-z0-9+/=_\-])",
             confirm=_wrapped_secret, examples_allowed=False, could_match=could_be_wrapped_secret,
             names_inside=wrapped_secret_kind),
    # A cookie is a login: a session id pasted as evidence (``curl -H "Cookie: sessionid=…"``,
    # ``curl -b "sid=…"``, a ``Set-Cookie:`` line of a response) is redacted with the header's
    # whole list when one of its values looks like a secret; ``theme=dark`` and a cookie file
    # (``curl -b cookies.txt``) are kept.
    _pattern("cookie-header", "cookie values in a Cookie or Set-Cookie header",
             # ``Cookie: a=b; c="d"``, a header in a dict or JSON (``{"Cookie": "sid=…"}``),
             # ``document.cookie = "sid=…"``: a list of pairs, a value quoted or not.
             r"""(?i:\b(?:set-)?cookie["']?[ \t]*[:=][ \t]*["']?)"""
             r"""(?P<secret>[^\s;,="'][^\s;,="']*=(?:"[^"\n]*"|[^\n"';]*)"""
             r"""(?:;[ \t]*[^\s;,="'][^\s;,="']*=(?:"[^"\n]*"|[^\n"';]*))*)""",
             keywords=("cookie",), confirm=_holds_a_secret_cookie, examples_allowed=False),
    _pattern("curl-cookie", "cookie values given to curl on its command line",
             r"""\bcurl\b[^\n]*?\s(?:-b[ \t]*|-{2}cookie(?:[ \t]+|=))(?:(?P<q>["'])|(?!["']))"""
             r"""(?P<secret>(?(q)[^\n"']+|[^\s"']+))""",
             keywords=("curl",), confirm=_holds_a_secret_cookie, examples_allowed=False),
    _pattern("url-credentials", "password embedded in a URL",
             # The user may be empty (``redis://:password@host``). A password pasted unescaped may
             # hold a "/" (an AWS secret key does), but a port and a path (``host:443/users/@me``) are
             # no password. The scheme is read from the start of its run of scheme characters
             # (``URL_SCHEME``), never from each word inside it: linear on a long run.
             URL_SCHEME + r"[^\s/:@]*:(?P<secret>[^\s/@]+|(?![0-9]*/)[^\s/@]*/[^\s@]*)@",
             keywords=("://",), confirm=lambda t: not is_placeholder(t), examples_allowed=False),
    # Keyword-gated like every rule: a text naming a pgpass file, or a line with
    # PostgreSQL's or PgBouncer's usual port, or a wildcard field.
    _pattern("pgpass-password", "password in a PostgreSQL .pgpass line", _PGPASS_LINE, re.M,
             keywords=("pgpass", ":5432:", ":5433:", ":6432:", "*:"), confirm=lambda t: not is_placeholder(t)),
    AssignmentRule("generic-secret-assignment",
                   "high-entropy value assigned to a secret-like name",
                   key_test=names_generic_secret, value_test=high_entropy_value,
                   last_words=tuple(sorted(_SECRET_WORDS)),
                   # a bare ``key`` (``key: customer_email``, ``sort key: created_at``) names an index or
                   # a field as often as a secret: its value must not read as a name (T9)
                   bare_keys=(("key",),), bare_value_test=secret_not_name),
    # Last of the text rules: a value another rule knows (a token's prefix, an assignment) is
    # redacted under that rule's name.
    _pattern("named-secret-in-prose", "a token-like value right after a word naming a secret",
             _NAMED_IN_PROSE, keywords=_PROSE_KEYWORDS, confirm=_named_in_prose_value, min_entropy=3.5,
             could_match=could_be_named_in_prose),
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
