"""The ``url-credentials`` rule reads a URL's scheme from the start of its run
of scheme characters (``URL_SCHEME``), in time linear in the text: the pattern
it replaced (``\\b[a-z][a-z0-9+.\\-]*://``) tried every word inside a long run
(``a-a-a-…``) as a scheme's start and read the run to its end from each, so a
text of that shape holding ``://`` took quadratic time (40 KB: seconds). The
rule finds exactly the passwords the old pattern found (docs/security.md,
"Pattern run time").

SYNTHETIC SECRETS ONLY: every credential here is assembled at runtime from
pieces.
"""

from __future__ import annotations

import re
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from baton.domain.redaction.table import URL_SCHEME

REST = r"[^\s/:@]*:(?P<secret>[^\s/@]+|(?![0-9]*/)[^\s/@]*/[^\s@]*)@"
BEFORE = r"(?i)\b[a-z][a-z0-9+.\-]*://" + REST
"""The rule's pattern as it was (quadratic on a long run of scheme characters)."""
NOW = URL_SCHEME + REST
PASSWORD = "Fake0" + "Pass9" + "Zq"

# Every kind of character the scheme and what follows it are read over: letters
# (either case, and the ones IGNORECASE folds into a-z: the Kelvin sign, the long
# s), digits, the scheme's "+", "." and "-", word characters outside it ("_",
# "é"), the URL's ":", "/", "@", blanks.
FRAGMENTS = st.sampled_from([
    "a", "Z", "k", "\u212a", "\u017f", "1", "0", "+", ".", "-", "_", "é", ":", "/", "@", " ", "\n",
    "://", "http", "git+ssh", "h-1.a", "user", ":pw@", PASSWORD, "[REDACTED]", "x@", "443/",
])
TEXTS = st.lists(FRAGMENTS, max_size=24).map("".join)


def secrets(pattern: str, text: str) -> list[tuple[int, int]]:
    return [m.span("secret") for m in re.finditer(pattern, text)]


@settings(max_examples=1500, deadline=None)
@given(TEXTS)
def test_the_rule_finds_exactly_the_passwords_the_old_pattern_found(text: str) -> None:
    assert secrets(NOW, text) == secrets(BEFORE, text), text


@settings(max_examples=300, deadline=None)
@given(TEXTS, TEXTS)
def test_the_rule_finds_exactly_the_passwords_the_old_pattern_found_around_a_url(before: str, after: str) -> None:
    text = f"{before}postgres://app:{PASSWORD}@db.internal:5432/app{after}"
    assert secrets(NOW, text) == secrets(BEFORE, text), text


def test_a_scheme_inside_a_longer_word_run_starts_at_its_word() -> None:
    for text in ("x_http://u:" + PASSWORD + "@h", "1http://u:" + PASSWORD + "@h", "é.git+ssh://:" + PASSWORD + "@h",
                 "9-a://u:" + PASSWORD + "@h", "__://u:" + PASSWORD + "@h"):
        assert secrets(NOW, text) == secrets(BEFORE, text), text


def test_a_long_run_of_scheme_characters_before_a_url_is_screened_and_the_password_redacted() -> None:
    """400 KB of ``a-a-…`` (minutes for the old pattern: 20 KB took 1.3 s), then a URL with a password, through the
    whole screen in a process of its own (a hang fails by the generous timeout, not by a clock)."""
    script = (
        "from baton.domain.redaction import RedactionPolicy, redact_text\n"
        "import sys\n"
        f"text = 'a-' * 200_000 + ' see postgres://app:{PASSWORD}@db.internal/app and ' + 'b.' * 100_000\n"
        "out = redact_text(text, RedactionPolicy())\n"
        f"assert {PASSWORD!r} not in out and '[REDACTED:url-credentials]' in out, out[-300:]\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
