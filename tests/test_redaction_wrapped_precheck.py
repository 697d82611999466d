"""``base64-wrapped-secret``'s pre-check (``baton.domain.redaction.table.could_be_wrapped_secret``):
the rule's keywords are three or four letters of base64 (``try`` is base64 of SendGrid's ``SG.``),
so prose wakes it (``retry``, ``registry``, ``entry``, a brief's heading "Traps — do not retry"),
and its pattern costs ~2.2 M instructions to compile. The pre-check lets the pattern be compiled
only when a run of base64 in the text decodes to text, which the rule's ``confirm`` requires of
every match. These tests hold the screen with it to the screen without it: on generated texts
(base64 of real-looking secrets, at any alignment, standard or URL-safe, whole or wrapped at 64
or 76 columns, in prose with and without the heading and the words that wake the rule) both
redact exactly the same."""

from __future__ import annotations

import base64
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baton.domain.redaction import DEFAULT_RULES, RedactionPolicy, redact_payload, redact_text
from baton.domain.redaction.rules import PRECHECKED_LENGTH
from baton.domain.redaction.table import could_be_wrapped_secret
from tests.secret_corpus import PARITY_NEAR_MISSES, secrets

RULE = next(rule for rule in DEFAULT_RULES if rule.name == "base64-wrapped-secret")
WITH_PRECHECK = RedactionPolicy()
WITHOUT_PRECHECK = RedactionPolicy(rules=tuple(rule._replace(could_match=None) if rule is RULE else rule
                                               for rule in DEFAULT_RULES))
"""The default screen, and the same screen as it was before the pre-check (its keywords alone)."""

HEADING = "## ⚠️ Traps — do not retry"
URLSAFE = string.ascii_letters + string.digits + "_-"


def _sendgrid(body: str) -> str:
    return "SG." + body[:22] + "." + body[22:65]


SECRET_TEXTS = st.one_of(
    st.sampled_from([s.line for s in secrets()]),
    st.sampled_from([s.value for s in secrets()]),
    st.builds(_sendgrid, st.text(st.sampled_from(URLSAFE), min_size=65, max_size=65)),
    st.builds("SENDGRID_API_KEY={}".format,
              st.builds(_sendgrid, st.text(st.sampled_from(URLSAFE), min_size=65, max_size=65))),
    st.builds("{}: {}".format, st.sampled_from(["password", "db_password", "api_key", "token", "secret"]),
              st.text(st.sampled_from(string.ascii_letters + string.digits), min_size=12, max_size=40)),
    st.text(max_size=60),
)
"""What a blob decodes to: every synthetic secret of the corpus (a whole line and the bare value),
SendGrid keys alone and assigned, a secret after a word that names it (no prefix the rule's
keywords come from), and any text."""


@st.composite
def blobs(draw) -> str:
    """Base64 of a secret text or of random bytes: after 0-2 bytes (each alignment of its keywords),
    standard or URL-safe, padded or not, whole or wrapped at 64 or 76 columns (LF or CRLF)."""
    if draw(st.booleans()):
        raw = draw(st.text(max_size=2)).encode()[:2] + draw(SECRET_TEXTS).encode()
    else:
        raw = draw(st.binary(min_size=1, max_size=200))
    encoded = base64.b64encode(raw).decode()
    if draw(st.booleans()):
        encoded = encoded.rstrip("=")
    width = draw(st.sampled_from([0, 0, 64, 76]))
    if width:
        return draw(st.sampled_from(["\n", "\r\n"])).join(encoded[i:i + width] for i in range(0, len(encoded), width))
    if draw(st.booleans()):
        return encoded.replace("+", "-").replace("/", "_")
    return encoded


PROSE = st.sampled_from([
    HEADING, "\n", " ", "\n\n", "- **Cache seen tokens in process memory** — ", "retry", "registry", "entry",
    "do not retry: ", "registry entry ", "the CI variable holds ", "data:\n  token: ", "`", "=", "==", "é",
    "(handoff `01a24fda-4e16`)", "baton/domain/redaction/table.py", "01a24fda-4e23-7381-a011-c05df00f994b",
    "2026-12-07T09:33:56.647665Z", "secret-derived", "vm-root-ed399d", "[REDACTED:github-token]", "_-+/",
])
"""A brief's prose: the heading, the words that hold the rule's keywords, paths, ids, times, a marker."""


@st.composite
def texts(draw) -> str:
    pieces = draw(st.lists(st.one_of(PROSE, blobs()), max_size=8))
    return "".join(pieces)


def test_the_wrapped_secret_rule_carries_its_precheck():
    assert RULE.could_match is could_be_wrapped_secret


@settings(max_examples=400, deadline=None)
@given(texts())
def test_the_screen_redacts_the_same_with_and_without_the_precheck(text):
    assert redact_text(text, WITH_PRECHECK) == redact_text(text, WITHOUT_PRECHECK)


@settings(max_examples=200, deadline=None)
@given(st.lists(texts(), min_size=1, max_size=4))
def test_a_payload_is_screened_the_same_with_and_without_the_precheck(values):
    payload = {"summary": {"current_state": values[0]}, "risks": [{"description": v} for v in values[1:]]}
    with_it, without_it = redact_payload(payload, WITH_PRECHECK), redact_payload(payload, WITHOUT_PRECHECK)
    assert with_it == without_it


@settings(max_examples=300, deadline=None)
@given(st.one_of(texts(), st.text()))
def test_the_precheck_says_no_only_to_texts_the_rule_redacts_nothing_from(text):
    assert could_be_wrapped_secret(text) or not list(RULE.spans(text, WITH_PRECHECK))


@pytest.mark.parametrize("width", [64, 76])
@pytest.mark.parametrize("context", ["{}", HEADING + "\n\n- retry the {}", "registry entry: {}\n" + HEADING])
def test_a_wrapped_sendgrid_key_is_redacted_beside_the_heading_and_without_it(width, context):
    key = _sendgrid("Zq7Lm2Xv9Rt4Wb8Nc1Kd6Hs3Jf5Gp0YaQ2e4Mx4hh2FDEEtfjgVvVqE1SkHbc7Tvo")
    encoded = base64.b64encode(f"SENDGRID_API_KEY={key}\n".encode()).decode()
    blob = "\n".join(encoded[i:i + width] for i in range(0, len(encoded), width))
    text = context.format(blob)
    screened = redact_text(text, WITH_PRECHECK)
    assert "[REDACTED:base64-wrapped-secret]" in screened and encoded[:width] not in screened
    assert screened == redact_text(text, WITHOUT_PRECHECK)


@pytest.mark.parametrize("context", ["{}", HEADING + "\n\n- {}"])
def test_base64_of_a_named_secret_is_redacted_with_no_keyword_anywhere(context):
    """A blob whose base64 holds no token prefix (``password:`` is none) is decoded and redacted for
    the secret it decodes to, whether or not the text holds a word like "retry" elsewhere (before,
    only such a word woke the rule: alone the blob was stored as given)."""
    blob = base64.b64encode(b"password: Zq8Wm3Rt7Yp2Kx5Lb4Nc6Vd").decode()
    text = context.format(blob)
    assert redact_text(text, WITH_PRECHECK) == context.format("[REDACTED:base64-wrapped-secret]")


@pytest.mark.parametrize("text", [
    HEADING + "\n\n- **In-memory token cache** (handoff `01a24fda-4e23`)",
    "do not retry the registry entry in baton/domain/redaction/table.py (baton 01a24fda-4e23-7381-a011-c05df00f994b)",
    "do not retry; the digest is " + "0123456789abcdef" * 4 + "\nand " + "a1b2c3d4" * 8,
])
def test_a_briefs_prose_passes_no_precheck(text):
    assert not could_be_wrapped_secret(text)


def test_a_text_too_long_to_precheck_is_searched():
    assert could_be_wrapped_secret("retry " * (PRECHECKED_LENGTH // 6 + 1))


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.text(st.sampled_from(string.ascii_letters + string.digits + "+/_-"), min_size=1, max_size=40),
                 st.builds(lambda raw, safe: (base64.urlsafe_b64encode if safe else base64.b64encode)(raw).decode()
                           .rstrip("="), st.one_of(st.binary(max_size=30), st.text(max_size=20).map(str.encode)),
                           st.booleans())).filter(bool))
def test_a_run_decodes_to_text_exactly_when_the_rules_decoder_says_so(run):
    """The pre-check's decoder (no exception raised for a run that is not text) is the rule's own."""
    from baton.domain.redaction.table import _b64_text, _decodes_to_text

    decoded = _b64_text(run)
    assert _decodes_to_text(run) == bool(decoded is not None and decoded.strip())


SPLIT_TOKENS = ["ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8", "AKIAZ3MQ7XV4KD2PLW6N",
                "sk-ant-api03-Zq7Lm2Xv9Rt4Wb8Nc1Kd6Hs3Jf5Gp0YaQ2e4Mx4hh2FDEEtfjgVvVqE1SkHbc7Tvo"]


@pytest.mark.parametrize("width", [64, 76])
@pytest.mark.parametrize("token", SPLIT_TOKENS)
def test_a_wrapped_blob_is_redacted_wherever_its_line_breaks_fall(token, width):
    """Base64 of a line holding ``token``, wrapped at ``width``, with the token at every offset
    against the line breaks (a break can fall inside its encoded prefix): always redacted, in a
    text holding nothing else a rule could wake on."""
    for filler in range(0, 2 * width, 7):
        encoded = base64.b64encode(f"export NOTE={'x' * filler} TOKEN {token}\n".encode()).decode()
        blob = "\n".join(encoded[i:i + width] for i in range(0, len(encoded), width))
        text = f"The CI variable was:\n{blob}\n(end)"
        assert redact_text(text, WITH_PRECHECK) == "The CI variable was:\n[REDACTED:base64-wrapped-secret]\n(end)"


def test_prose_cut_across_lines_passes_no_precheck():
    """Prose broken across lines ("ret" at one line's end, "ry" at the next's start) holds no run of
    base64 that decodes to text: nothing is decoded, the rule's pattern is not compiled."""
    assert not could_be_wrapped_secret("we will ret\nry it later\nwith a fresh cache")


# -- base64 of what the screen finds, and of what it keeps ---------------------

ENCODED_RULES = frozenset({"registry-auth", "base64-wrapped-secret", "jwt-base64", "private-key-base64",
                           "openssh-private-key-body"})
"""Rules whose secret is itself base64: encoded again it is base64 twice, decoded one level only."""

FOUND = [text for s in secrets() for text in (s.line, s.value)
         if not ENCODED_RULES & {r["rule"] for r in redact_payload(text, WITH_PRECHECK).records()}
         and redact_text(text, WITH_PRECHECK) != text]
KEPT_LINES = [line for lines in PARITY_NEAR_MISSES.values() for line in lines
              if redact_text(line, WITH_PRECHECK) == line]


def _encoded(raw: bytes, form: str) -> str:
    encoded = base64.b64encode(raw).decode()
    if form == "url-safe":
        return base64.urlsafe_b64encode(raw).decode()
    if form == "unpadded":
        return encoded.rstrip("=")
    if form.startswith("wrapped"):
        width, newline = (64 if "64" in form else 76), ("\r\n" if "crlf" in form else "\n")
        return newline.join(encoded[i:i + width] for i in range(0, len(encoded), width))
    return encoded


ENCODED_FORMS = ["one line", "url-safe", "unpadded", "wrapped 64", "wrapped 76", "wrapped 76 crlf"]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(FOUND), st.sampled_from(ENCODED_FORMS), st.sampled_from(["", " ", "\n"]),
       st.sampled_from(["{}", "data:\n  token: {}\n", "the CI variable holds {} (rotated)", HEADING + "\n\n- {}"]))
def test_base64_of_any_secret_the_screen_finds_is_redacted_whole(secret, form, before, context):
    """Every secret of the corpus the screen finds as written (a token, a key block, an assignment, a
    line a terminal wrapped), base64-encoded in any form, standard or URL-safe, padded or not, whole or
    wrapped, is redacted whole wherever it stands, with or without a word that woke the rule before."""
    blob = _encoded((before + secret).encode(), form)
    screened = redact_text(context.format(blob), WITH_PRECHECK)
    assert all(line.strip() not in screened for line in blob.splitlines() if len(line.strip()) >= 12)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(KEPT_LINES), st.sampled_from(ENCODED_FORMS))
def test_base64_of_a_near_miss_the_screen_keeps_is_kept(line, form):
    """A line the screen keeps as written (prose naming a prefix, a documented example, a placeholder,
    a hash) is kept base64-encoded too: decoding finds no secret in it."""
    blob = _encoded(line.encode(), form)
    assert redact_text(f"blob: {blob}", WITH_PRECHECK) == f"blob: {blob}"
