"""Redaction (spec §7.2 ``redactions``, §16, §22 item 4): a secret never
reaches the ledger; the record names the field and reason, never the value.

SYNTHETIC SECRETS ONLY. Every credential in this file is fake and assembled at
runtime from pieces, so that no real-looking secret sits in the repository as
one string (and secret scanners have nothing to flag).
"""

from __future__ import annotations

import base64
import hashlib
import string

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from baton.canonical import canonical_bytes
from baton.domain.redaction import (
    DEFAULT_RULE_NAMES,
    RedactionPolicy,
    build_redaction_policy,
    custom_rule,
    redact_payload,
    shannon_entropy,
)
from baton.domain.redaction.summary import summarize_output
from baton.errors import PolicyBlock
from baton.policy import redact_or_block

POLICY = RedactionPolicy()


# -- synthetic secret builders ---------------------------------------------------

def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def fake_aws_key_id() -> str:
    return "AK" + "IA" + "SYNTHETIC" + "0FAKE00"


def fake_aws_secret() -> str:
    return "SYNTH" + "eticFake" + "Secret" + "Value0000" + "abcd" + "EFGH" + "1234"


def fake_github_token(prefix: str = "ghp") -> str:
    return prefix + "_" + "SYNTHETIC" + "fake" + "Token" + "Value" + "0123456789" + "abc"


def fake_github_fine_grained() -> str:
    return "github" + "_pat_" + "11SYNTHETIC00fakeABCDE" + "_" + "SYNTHETICfakeTokenValue" + "0123456789" * 3 + "abcdef"


def fake_slack_token() -> str:
    return "xo" + "xb-" + "000000000000" + "-" + "111111111111" + "-" + "SYNTHETICfakeSlackValue0"


def fake_private_key() -> str:
    body = "\n".join(["MIIEowIBAAKCAQEA" + "SYNTHETIC" + "fake" * 10] * 3)
    return "-----BEGIN " + "RSA PRIVATE" + " KEY-----\n" + body + "\n-----END " + "RSA PRIVATE" + " KEY-----"


def fake_jwt(header: dict | None = None) -> str:
    header = header if header is not None else {"alg": "HS256", "typ": "JWT"}
    return ".".join([_b64url(orjson.dumps(header)), _b64url(b'{"sub":"synthetic-user"}'),
                     "SYNTHETICsignature" + "0000fake"])


def fake_password() -> str:
    return "Zq8" + "Wm3Rt7" + "Yp2Kx5"


FIXTURES = {
    "aws-access-key-id": lambda: (f"key id {fake_aws_key_id()} in use", fake_aws_key_id()),
    "aws-secret-access-key": lambda: (f"aws_secret_access_key = {fake_aws_secret()}", fake_aws_secret()),
    "github-token": lambda: (f"push with {fake_github_token()} failed", fake_github_token()),
    "github-fine-grained-token": lambda: (f"GH={fake_github_fine_grained()}", fake_github_fine_grained()),
    "slack-token": lambda: (f"slack {fake_slack_token()} posted", fake_slack_token()),
    "private-key": lambda: (f"key:\n{fake_private_key()}\ndone", fake_private_key()),
    "jwt": lambda: (f"session {fake_jwt()} expired", fake_jwt()),
    "authorization-header": lambda: ("curl -H 'Authorization: Basic " + "U1lOVEhFVElDOmZha2U=" + "'",
                                     "U1lOVEhFVElDOmZha2U="),
    "url-credentials": lambda: ("git clone https://synthetic:" + "Fake0Pass9" + "@example.invalid/r.git",
                                "Fake0Pass9"),
    "generic-secret-assignment": lambda: (f"export DB_PASSWORD={fake_password()}", fake_password()),
}


def test_every_fixture_names_a_default_rule():
    # The provider rules have their secrets in the corpus (tests/secret_corpus.py).
    assert set(FIXTURES) <= {r.name for r in POLICY.text_rules}


@pytest.mark.parametrize("rule", sorted(FIXTURES))
def test_default_rule_catches_its_synthetic_secret(rule):
    text, secret = FIXTURES[rule]()
    outcome = redact_payload({"summary": {"current_state": text}}, POLICY)
    cleaned = outcome.payload["summary"]["current_state"]
    assert secret not in cleaned
    assert f"[REDACTED:{rule}]" in cleaned
    assert [(r.field, r.rule) for r in outcome.redactions] == [("summary.current_state", rule)]


@pytest.mark.parametrize("prefix", ["ghp", "gho", "ghu", "ghs", "ghr"])
def test_every_classic_github_prefix_is_caught(prefix):
    token = fake_github_token(prefix)
    assert token not in redact_payload(f"token {token}", POLICY).payload


@pytest.mark.parametrize("prefix", ["ASIA", "ABIA", "ACCA"])
def test_temporary_and_other_aws_key_id_prefixes_are_caught(prefix):
    key = prefix + "SYNTHETIC" + "0FAKE00"
    assert redact_payload(key, POLICY).redactions[0].rule == "aws-access-key-id"


def test_a_truncated_private_key_block_is_redacted_to_the_end():
    pem = fake_private_key().split("-----END")[0]
    outcome = redact_payload(f"log:\n{pem}", POLICY)
    assert outcome.payload == "log:\n[REDACTED:private-key]"


def test_a_word_on_the_line_after_a_whole_classic_github_token_is_kept():
    outcome = redact_payload(f"revoke {fake_github_token()}\nthen redeploy", POLICY)
    assert outcome.payload == "revoke [REDACTED:github-token]\nthen redeploy"


def test_a_word_on_the_line_after_a_whole_fine_grained_github_token_is_kept():
    outcome = redact_payload(f"revoke {fake_github_fine_grained()}\nthen redeploy", POLICY)
    assert outcome.payload == "revoke [REDACTED:github-fine-grained-token]\nthen redeploy"


def test_an_ordinary_word_on_the_line_after_a_whole_slack_token_is_kept():
    outcome = redact_payload(f"revoke {fake_slack_token()}\nThen redeploy", POLICY)
    assert outcome.payload == "revoke [REDACTED:slack-token]\nThen redeploy"


def test_a_classic_github_token_short_of_its_36_characters_still_takes_the_next_line():
    token = fake_github_token()
    outcome = redact_payload(f"revoke {token[:30]}\n{token[30:]}\nthen redeploy", POLICY)
    assert outcome.payload == "revoke [REDACTED:line-wrapped-secret]\nthen redeploy"


def test_only_the_value_of_a_secret_assignment_is_replaced():
    outcome = redact_payload(f'{{"password": "{fake_password()}"}}', POLICY)
    assert outcome.payload == '{"password": "[REDACTED:generic-secret-assignment]"}'


def test_a_secret_assignment_right_after_another_assignment_is_found():
    outcome = redact_payload(f"mode: password={fake_password()}", POLICY)
    assert outcome.payload == "mode: password=[REDACTED:generic-secret-assignment]"


def test_a_command_line_password_flag_is_an_assignment():
    assert redact_payload(f"mysqldump --password={fake_password()} db", POLICY).payload == \
        "mysqldump --password=[REDACTED:generic-secret-assignment] db"


def test_an_ampersand_inside_a_bare_password_is_part_of_it():
    assert redact_payload("password = Tr0ub4dor&3", POLICY).payload == \
        "password = [REDACTED:generic-secret-assignment]"


def test_a_url_query_secret_ends_at_the_next_parameter():
    url = f"https://example.invalid/cb?access_token={fake_password()}&state=abc"
    assert redact_payload(url, POLICY).payload == \
        "https://example.invalid/cb?access_token=[REDACTED:generic-secret-assignment]&state=abc"


def test_a_secret_named_dict_key_redacts_a_high_entropy_value():
    outcome = redact_payload({"extra": {"apiKey": fake_password()}}, POLICY)
    assert outcome.payload == {"extra": {"apiKey": "[REDACTED:generic-secret-assignment]"}}
    assert outcome.redactions[0].field == "extra.apiKey"


def test_a_dict_key_named_like_an_aws_secret_redacts_its_value():
    outcome = redact_payload({"aws_secret_access_key": fake_aws_secret()}, POLICY)
    assert outcome.redactions[0].rule == "aws-secret-access-key"


# -- near misses ------------------------------------------------------------------

NEAR_MISSES = {
    "aws-access-key-id": ["AK" + "IA" + "SHORT0123456789",  # 15 characters after the prefix
                          "ak" + "ia" + "synthetic0fake00",  # lower case
                          "AK" + "IB" + "SYNTHETIC0FAKE00"],  # unknown prefix
    "aws-secret-access-key": ["aws_secret_access_key = " + fake_aws_secret()[:39],
                              "aws_secret_access_key_id = " + fake_aws_secret(),
                              "aws_secret_access_key = <your-secret-key>"],
    "github-token": ["gh" + "x_" + fake_github_token()[4:], "gh" + "p_" + "SYNTHETICshort"],
    "github-fine-grained-token": ["github" + "_pat_" + "SYNTHETICshort"],
    "slack-token": ["xo" + "xq-" + "000000000000-111111111111-SYNTHETIC", "xo" + "xb-" + "short"],
    "private-key": ["-----BEGIN " + "PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----",
                    "-----BEGIN " + "CERTIFICATE-----\nMIIDdzCCAl+g\n-----END CERTIFICATE-----"],
    "jwt": [fake_jwt({"typ": "JWT", "kid": "no-algorithm"}),
            "baton.domain.redaction_module.summarize_output_function"],
    "authorization-header": ["Authorization: Bearer $GITHUB_TOKEN", "authorization: bearer <token>"],
    "url-credentials": ["https://example.invalid:8443/path", "postgres://user:${DB_PASS}@db/app"],
    "generic-secret-assignment": ["password = hunter2hunter2", "token = <REDACTED>", "api_key: short1",
                                  "primary_key = user_id_column_x9", "tokenizer = WordPieceTokenizer2",
                                  "token = ${GITHUB_TOKEN}", "secret = process.env.SECRET_VALUE"],
}


def test_every_near_miss_names_a_default_rule():
    assert set(NEAR_MISSES) <= {r.name for r in POLICY.text_rules}


@pytest.mark.parametrize("rule,text", [(r, t) for r, texts in sorted(NEAR_MISSES.items()) for t in texts])
def test_rule_does_not_fire_on_a_near_miss(rule, text):
    outcome = redact_payload(text, POLICY)
    assert rule not in [r.rule for r in outcome.redactions]
    if rule != "aws-secret-access-key":  # a 39-character value is still caught, by the generic rule
        assert outcome.payload == text


def test_low_entropy_placeholder_password_is_kept_at_the_default_threshold():
    assert shannon_entropy("hunter2hunter2") < POLICY.entropy_threshold
    assert redact_payload("password = hunter2hunter2", POLICY).redactions == ()


def test_lowering_the_entropy_threshold_redacts_the_placeholder_password():
    strict = build_redaction_policy(entropy_threshold=2.5)
    assert redact_payload("password = hunter2hunter2", strict).payload == \
        "password = [REDACTED:generic-secret-assignment]"


def test_values_shorter_than_the_minimum_length_are_kept():
    eight = "token = " + "aB3xY9qZ"  # 8 distinct characters: exactly 3 bits per character
    assert redact_payload(eight, POLICY).redactions != ()
    assert redact_payload(eight, build_redaction_policy(min_secret_length=9)).redactions == ()


def test_a_redacted_value_is_not_redacted_again():
    once = redact_payload(f"token = {fake_password()}", POLICY)
    twice = redact_payload(once.payload, POLICY)
    assert twice.payload == once.payload == "token = [REDACTED:generic-secret-assignment]"
    assert twice.redactions == ()


# -- paths ------------------------------------------------------------------------

@pytest.mark.parametrize("path,rule", [
    (".env", "dotenv-file"), ("config/.env.production", "dotenv-file"), ("deploy/prod.env", "dotenv-file"),
    ("~/.ssh/id_rsa", "credential-file"), ("keys/id_ed25519", "credential-file"),
    ("certs/server.pem", "credential-file"), ("tls/server.key", "credential-file"),
    ("gcp/credentials.json", "credential-file"), (".npmrc", "credential-file"), (".pypirc", "credential-file"),
    (".netrc", "credential-file"), ("home/.aws/credentials", "credential-file"), ("ID_RSA", "credential-file"),
])
def test_credential_file_references_in_path_fields_are_redacted(path, rule):
    outcome = redact_payload({"artifacts": [{"path": path, "role": "read"}]}, POLICY)
    assert outcome.payload["artifacts"][0]["path"] == f"[REDACTED:{rule}]"
    assert [(r.field, r.rule) for r in outcome.redactions] == [("artifacts[0].path", rule)]


@pytest.mark.parametrize("path", [".env.example", ".env.sample", "keys/id_rsa.pub", "src/environment.ts",
                                  ".env/bin/python", "src/keys.py", "docs/credentials.md", "src/**/*.pem"])
def test_ordinary_paths_are_not_flagged(path):
    assert redact_payload({"artifacts": [{"path": path}]}, POLICY).redactions == ()


def test_a_file_evidence_ref_is_path_like():
    outcome = redact_payload({"evidence": [{"type": "file", "ref": "app/.env"}]}, POLICY)
    assert outcome.redactions[0].field == "evidence[0].ref"


def test_a_command_evidence_ref_naming_a_dotenv_file_is_not_a_path():
    payload = {"evidence": [{"type": "command", "ref": "source .env && pytest -q"}]}
    assert redact_payload(payload, POLICY).redactions == ()


def test_path_names_in_free_text_are_not_flagged():
    assert redact_payload({"summary": {"current_state": "Edited .env and id_rsa"}}, POLICY).redactions == ()


def test_scope_entries_are_path_like():
    outcome = redact_payload({"work": {"scope": ["src/**", "secrets/.env"]}}, POLICY)
    assert outcome.payload["work"]["scope"] == ["src/**", "[REDACTED:dotenv-file]"]
    assert outcome.redactions[0].field == "work.scope[1]"


# -- records ----------------------------------------------------------------------

def _all_secrets() -> list[str]:
    return [secret for make in FIXTURES.values() for secret in [make()[1]]]


def test_records_carry_field_rule_reason_and_replacement():
    outcome = redact_payload({"evidence": [{"ref": f"deploy {fake_github_token()}"}]}, POLICY)
    (record,) = outcome.redactions
    assert record.to_json() == {"field": "evidence[0].ref", "rule": "github-token",
                                "reason": "GitHub token (classic)", "replacement": "[REDACTED:github-token]"}


def test_records_never_contain_the_value_nor_its_hash():
    payload = {"notes": [make()[0] for make in FIXTURES.values()]}
    serialized = canonical_bytes(redact_payload(payload, POLICY).to_json())
    for secret in _all_secrets():
        assert secret.encode() not in serialized
        assert hashlib.sha256(secret.encode()).hexdigest().encode() not in serialized
    assert len(redact_payload(payload, POLICY).redactions) == len(FIXTURES)


def test_cleaned_payload_contains_none_of_the_secrets():
    payload = {"notes": [make()[0] for make in FIXTURES.values()]}
    cleaned = canonical_bytes(redact_payload(payload, POLICY).payload)
    for secret in _all_secrets():
        assert secret.encode() not in cleaned


def test_nested_lists_and_dicts_get_json_field_paths():
    payload = {"decisions": [{"id": "D-1"}, {"alternatives_considered": ["plain", f"use {fake_slack_token()}"]}],
               "extra": {"odd key": {"deep": [[fake_jwt()]]}}}
    fields = [r.field for r in redact_payload(payload, POLICY).redactions]
    assert fields == ["decisions[1].alternatives_considered[1]", 'extra["odd key"].deep[0][0]']


def test_a_secret_inside_a_dict_key_is_redacted_and_the_path_uses_the_redacted_key():
    outcome = redact_payload({"extra": {fake_github_token(): 1}}, POLICY)
    assert outcome.payload == {"extra": {"[REDACTED:github-token]": 1}}
    assert outcome.redactions[0].field == 'extra["[REDACTED:github-token]"]'


def test_one_record_per_field_and_rule_even_with_repeated_secrets():
    text = f"{fake_aws_key_id()} and again {fake_aws_key_id()}"
    outcome = redact_payload({"note": text}, POLICY)
    assert outcome.payload["note"] == "[REDACTED:aws-access-key-id] and again [REDACTED:aws-access-key-id]"
    assert len(outcome.redactions) == 1


def test_a_top_level_string_is_reported_at_the_given_prefix():
    assert redact_payload(fake_jwt(), POLICY).redactions[0].field == "$"
    assert redact_payload(fake_jwt(), POLICY, at="evidence[3].ref").redactions[0].field == "evidence[3].ref"


def test_non_string_scalars_pass_through_unchanged():
    payload = {"automation": {"score": 0.82, "n": 3, "ok": True, "none": None}}
    assert redact_payload(payload, POLICY).payload == payload


def test_redaction_is_deterministic_and_keeps_key_order():
    payload = {"z": fake_jwt(), "a": [fake_aws_key_id()], "m": "plain"}
    first, second = redact_payload(payload, POLICY), redact_payload(dict(reversed(payload.items())), POLICY)
    assert list(first.payload) == ["z", "a", "m"]
    assert first.redactions == second.redactions


def test_input_payload_is_not_mutated():
    payload = {"notes": [fake_jwt()]}
    redact_payload(payload, POLICY)
    assert payload == {"notes": [fake_jwt()]}


# -- block ------------------------------------------------------------------------

def test_block_action_lists_the_match_under_blocked_not_redactions():
    policy = build_redaction_policy(actions={"github-token": "block"})
    outcome = redact_payload({"note": fake_github_token()}, policy)
    assert [(r.field, r.rule) for r in outcome.blocked] == [("note", "github-token")]
    assert outcome.redactions == ()
    assert outcome.payload == {"note": "[REDACTED:github-token]"}  # still never leaks


def test_redact_or_block_refuses_a_blocked_payload_with_exit_5_and_no_value():
    policy = build_redaction_policy(actions={"private-key": "block"})
    with pytest.raises(PolicyBlock) as caught:
        redact_or_block({"summary": {"current_state": fake_private_key()}}, policy)
    assert caught.value.exit_code == 5
    assert "summary.current_state" in caught.value.message
    assert "MIIEow" not in caught.value.message + orjson.dumps(caught.value.details).decode()


def test_redact_or_block_returns_the_outcome_when_nothing_blocks():
    assert redact_or_block({"note": fake_jwt()}, POLICY).payload == {"note": "[REDACTED:jwt]"}


def test_custom_block_rule_catches_its_pattern():
    rule = custom_rule("ticket-secret", regex=r"TKT-[0-9a-f]{8}", action="block", reason="ticket secret")
    outcome = redact_payload("see TKT-" + "0badf00d", build_redaction_policy(extra_rules=[rule]))
    assert outcome.blocked[0].reason == "ticket secret"


def test_custom_rule_with_a_secret_group_replaces_only_that_group():
    rule = custom_rule("internal", regex=r"INTERNAL_KEY\((?P<secret>[^)]+)\)")
    outcome = redact_payload("INTERNAL_KEY(" + "abc" + "123)", build_redaction_policy(extra_rules=[rule]))
    assert outcome.payload == "INTERNAL_KEY([REDACTED:internal])"


def test_disabled_default_rule_no_longer_fires():
    policy = build_redaction_policy(disable=["jwt"])
    assert redact_payload(fake_jwt(), policy).redactions == ()
    assert "jwt" not in policy.rule_names and "jwt" in DEFAULT_RULE_NAMES


# -- command output ---------------------------------------------------------------

def test_output_summary_is_bounded_and_keeps_head_and_tail():
    text = "START\n" + "line of noise\n" * 2000 + "5 passed, 1 failed\n"
    result = summarize_output(text, 300)
    assert len(result.summary) <= 300
    assert result.truncated
    assert result.summary.startswith("START")
    assert result.summary.endswith("5 passed, 1 failed\n")
    assert "characters omitted" in result.summary


def test_short_output_is_kept_whole():
    assert summarize_output("3 passed\n", 2000).summary == "3 passed\n"
    assert not summarize_output("3 passed\n", 2000).truncated


def test_output_summary_digest_is_of_the_redacted_text_not_the_original():
    text = f"export API_TOKEN={fake_password()}\nok\n"
    digest, summary = summarize_output(text, 2000)
    assert fake_password() not in summary
    assert digest == "sha256:" + hashlib.sha256(summary.encode()).hexdigest()
    assert digest != "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def test_output_is_redacted_before_truncation_so_a_cut_key_never_leaks():
    text = "x\n" * 10 + fake_private_key() + "\n" + "y\n" * 500
    result = summarize_output(text, 120)
    assert "MIIEow" not in result.summary
    assert [r.rule for r in result.redactions] == ["private-key"]


def test_output_summary_strips_terminal_colour_codes():
    assert summarize_output("\x1b[32m3 passed\x1b[0m", 100).summary == "3 passed"


def test_truncation_never_cuts_a_redaction_marker_in_half():
    text = ("a " * 30 + fake_jwt() + " ") * 40
    summary = summarize_output(text, 200).summary
    assert summary.count("[REDACTED:") == summary.count("[REDACTED:jwt]")


# -- properties -------------------------------------------------------------------

_ALNUM = string.ascii_letters + string.digits
_B64 = _ALNUM + "/+"


def _chars(alphabet: str, size: int) -> st.SearchStrategy[str]:
    # One character repeated ("0000...") is a documented placeholder, not a secret.
    return st.text(alphabet=alphabet, min_size=size, max_size=size).filter(lambda s: len(set(s)) > 1)


@st.composite
def synthetic_secrets(draw) -> tuple[str, str]:
    """(text containing a secret, the secret). All generated; none real."""
    kind = draw(st.sampled_from(sorted(FIXTURES)))
    if kind == "aws-access-key-id":
        s = draw(st.sampled_from(["AKIA", "ASIA"])) + draw(_chars(string.ascii_uppercase + string.digits, 16))
        return s, s
    if kind == "aws-secret-access-key":
        s = draw(_chars(_B64, 40))
        return f"{draw(st.sampled_from(['aws_secret_access_key', 'AWS_SECRET_ACCESS_KEY']))}={s}", s
    if kind == "github-token":
        s = draw(st.sampled_from(["ghp", "gho", "ghu", "ghs", "ghr"])) + "_" + draw(_chars(_ALNUM, 36))
        return s, s
    if kind == "github-fine-grained-token":
        s = "github" + "_pat_" + draw(_chars(_ALNUM, 22)) + "_" + draw(_chars(_ALNUM, 59))
        return s, s
    if kind == "slack-token":
        s = ("xox" + draw(st.sampled_from("abprs")) + "-" + draw(_chars(string.digits, 12)) + "-"
             + draw(_chars(_ALNUM, 24)))
        return s, s
    if kind == "private-key":
        body = draw(st.lists(_chars(_B64, 64), min_size=1, max_size=4))
        kind_word = draw(st.sampled_from(["RSA ", "EC ", "OPENSSH ", ""]))
        s = f"-----BEGIN {kind_word}PRIVATE KEY-----\n" + "\n".join(body) + f"\n-----END {kind_word}PRIVATE KEY-----"
        return s, s
    if kind == "jwt":
        header = {"alg": draw(st.sampled_from(["HS256", "RS256", "none"])), "typ": "JWT"}
        claims = draw(st.dictionaries(st.sampled_from(["sub", "iat", "exp"]), st.integers(0, 2**40), min_size=1))
        s = ".".join([_b64url(orjson.dumps(header)), _b64url(orjson.dumps(claims)),
                      draw(st.text(alphabet=_ALNUM + "-_", min_size=16, max_size=43))])
        return s, s
    if kind == "authorization-header":
        s = draw(_chars(_ALNUM, 24))
        return f"Authorization: {draw(st.sampled_from(['Bearer', 'Basic', 'token']))} {s}", s
    if kind == "url-credentials":
        s = draw(_chars(_ALNUM, 12))
        return f"https://user:{s}@example.invalid/x", s
    # generic: distinct characters guarantee log2(len) >= 3 bits per character
    s = "".join(draw(st.lists(st.sampled_from(_ALNUM), unique=True, min_size=8, max_size=30)))
    key = draw(st.sampled_from(["password", "api_key", "DB_PASSWORD", "secret", "auth_token", "apiKey"]))
    op = draw(st.sampled_from(["=", " = ", ": ", ":="]))
    quote = draw(st.sampled_from(["", '"', "'"]))
    return f"{key}{op}{quote}{s}{quote}", s


# No ASCII letters or digits in filler, so filler can never spell a generated
# secret by chance (which would be filler, not a secret in context).
_FILLER = st.text(alphabet="αβγδεζ .,:;-_/()[]{}'\"=\n", max_size=20)
# Any text at all, for properties that do not look for the secrets afterwards.
_ANY_FILLER = st.one_of(_FILLER, st.text(max_size=20),
                        st.sampled_from(["password = ", "token: ", "[REDACTED:jwt]", "[REDACTED", "-----BEGIN "]))


@st.composite
def text_with_secrets(draw, found: list[str], filler=_FILLER) -> str:
    parts = [draw(filler)]
    for _ in range(draw(st.integers(0, 2))):
        text, secret = draw(synthetic_secrets())
        found.append(secret)
        parts += [draw(st.sampled_from([" ", "\n", "\t"])), text, draw(st.sampled_from([" ", "\n", "\t"])),
                  draw(filler)]
    return "".join(parts)


@st.composite
def payloads_with_secrets(draw, filler=_FILLER) -> tuple[object, list[str]]:
    found: list[str] = []
    leaves = st.one_of(text_with_secrets(found, filler), st.integers(-(2**53), 2**53), st.booleans(), st.none())
    keys = st.one_of(st.sampled_from(["path", "ref", "type", "token", "notes", "scope", "file"]),
                     text_with_secrets(found, filler))
    value = draw(st.recursive(leaves, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                              st.dictionaries(keys, inner, max_size=3)),
                              max_leaves=8))
    return value, found


@given(payloads_with_secrets(_ANY_FILLER))
def test_property_redaction_is_idempotent(case):
    payload, _ = case
    once = redact_payload(payload, POLICY)
    twice = redact_payload(once.payload, POLICY)
    assert twice.payload == once.payload
    assert twice.redactions == () and twice.blocked == ()


@given(payloads_with_secrets())
def test_property_output_never_contains_a_generated_secret(case):
    payload, secrets = case
    outcome = redact_payload(payload, POLICY)
    stored = canonical_bytes(outcome.payload) + canonical_bytes(outcome.to_json())
    for secret in secrets:
        assert secret.encode() not in stored


@given(st.lists(synthetic_secrets(), min_size=1, max_size=3), st.integers(40, 400))
def test_property_output_summary_never_contains_a_secret_and_stays_bounded(cases, limit):
    text = "\n".join(t for t, _ in cases)
    result = summarize_output(text, limit)
    assert len(result.summary) <= limit
    for _, secret in cases:
        assert secret not in result.summary


def test_a_github_token_joined_by_underscores_is_still_caught():
    token = fake_github_token()
    for text in (f"{token}__main", f"alice__{token}", f"feat_{token}_x"):
        outcome = redact_payload(text, POLICY)
        assert "github-token" in [r.rule for r in outcome.redactions], text
        assert token not in str(outcome.payload)


def test_the_keyword_index_of_a_policy_is_built_once_and_follows_its_rules():
    from baton.domain.redaction import RedactionPolicy, custom_rule
    from baton.domain.redaction.walk import _prefilter

    policy = RedactionPolicy()
    assert _prefilter(policy) is _prefilter(RedactionPolicy(rules=policy.rules))
    other = RedactionPolicy(rules=policy.rules + (custom_rule("ticket", regex=r"TICKET-\d+"),))
    assert _prefilter(other) is not _prefilter(policy)
    assert len(_prefilter(other).rules) == len(_prefilter(policy).rules) + 1


def test_a_string_screened_again_is_redacted_again_and_its_field_named_again():
    from baton.domain.redaction import redact_strings

    token = fake_github_token()
    first = redact_strings({"a": [token, "plain"]}, POLICY)
    again = redact_strings({"b": {"c": token}}, POLICY)
    assert token not in str(first.payload) and token not in str(again.payload)
    assert [(r.field, r.rule) for r in first.redactions] == [("a[0]", "github-token")]
    assert [(r.field, r.rule) for r in again.redactions] == [("b.c", "github-token")]


def test_a_remembered_answer_of_one_rule_set_is_never_given_for_another():
    from baton.domain.redaction import screen_output

    assert screen_output({"note": "TICKET-42"}, POLICY) == {"note": "TICKET-42"}
    ticketed = RedactionPolicy(rules=POLICY.rules + (custom_rule("ticket", regex=r"TICKET-\d+"),))
    assert screen_output({"note": "TICKET-42"}, ticketed) == {"note": "[REDACTED:ticket]"}
    assert screen_output({"note": "TICKET-42"}, POLICY) == {"note": "TICKET-42"}


def test_the_memory_of_screened_strings_is_bounded(monkeypatch):
    from baton.domain import redaction
    from baton.domain.redaction import walk

    monkeypatch.setattr(walk, "SCRUB_MEMO_ENTRIES", 8)
    policy = RedactionPolicy(rules=POLICY.rules + (custom_rule("bounded", regex=r"BOUNDED-\d+"),))
    for i in range(50):
        assert redaction.screen_output(f"BOUNDED-{i} and note {i}", policy) == f"[REDACTED:bounded] and note {i}"
        assert len(walk.scrub_memo(policy)) <= 8


def test_a_value_whose_strings_were_all_screened_clean_is_given_back_as_is():
    from baton.domain.redaction import screen_output

    answer = {"handoffs": [{"title": "plain words", "flags": ["stale"], "count": 2, "score": 0.5}]}
    assert screen_output(answer, POLICY) == answer  # screened: a copy
    assert screen_output(answer, POLICY) is answer  # every string remembered clean: itself


def test_an_encoded_answer_screened_clean_again_is_the_same_value_and_one_changed_by_a_secret_is_redacted():
    from baton.domain.redaction import screen_encoded

    encoded = orjson.dumps({"handoffs": [{"title": "plain words", "flags": ["stale"], "count": 2}]})
    first, clean = screen_encoded(encoded, POLICY)
    assert clean and first == orjson.loads(encoded)
    assert screen_encoded(encoded, POLICY) == (first, True) and screen_encoded(encoded, POLICY)[0] is first
    token = fake_github_token()
    leaking = orjson.dumps({"handoffs": [{"title": f"plain words {token}", "flags": ["stale"], "count": 2}]})
    screened, clean = screen_encoded(leaking, POLICY)
    assert not clean and token not in orjson.dumps(screened).decode()
    assert screen_encoded(leaking, POLICY)[1] is False  # never remembered as clean


def test_an_answer_remembered_clean_under_one_rule_set_is_screened_again_under_another():
    from baton.domain.redaction import screen_encoded

    encoded = orjson.dumps({"note": "TICKET-7 and more"})
    assert screen_encoded(encoded, POLICY) == ({"note": "TICKET-7 and more"}, True)
    ticketed = RedactionPolicy(rules=POLICY.rules + (custom_rule("ticket", regex=r"TICKET-\d+"),))
    assert screen_encoded(encoded, ticketed) == ({"note": "[REDACTED:ticket] and more"}, False)


def test_a_string_with_an_escaped_quote_is_screened_with_the_escape_undone_even_when_remembered():
    from baton.domain.redaction import screen_encoded, screen_output

    secret = "api_key=\\'q8Wm2vR7xL4kT9pZ3nB6\\'"  # as repr() quotes a value inside a message
    first = screen_output({"message": secret}, POLICY)
    again, clean = screen_encoded(orjson.dumps({"message": secret}), POLICY)
    assert first == again and not clean and "q8Wm2vR7xL4kT9pZ3nB6" not in again["message"]


@pytest.mark.parametrize("line", ["PGPASSWORD=Xy7kQ9pLm2vRt8Zw psql -h db", "export DBPASSWORD='Xy7kQ9pLm2vRt8Zw'",
                                  'CLIENTSECRET: "Xy7kQ9pLm2vRt8Zw"', "rootpasswd=Xy7kQ9pLm2vRt8Zw"])
def test_a_secret_name_glued_in_one_word_is_a_secret_name(line):
    outcome = redact_payload(line, POLICY)
    assert "Xy7kQ9pLm2vRt8Zw" not in outcome.payload
    assert {r.rule for r in outcome.redactions} == {"generic-secret-assignment"}


@pytest.mark.parametrize("line", ["SHOWPASSWORD=true", "RESETPASSWORD: none", "notsecret = None",
                                  "monkey=Xy7kQ9pLm2vRt8Zw"])
def test_a_glued_name_with_a_plain_value_or_no_secret_ending_is_kept(line):
    assert redact_payload(line, POLICY).payload == line


@pytest.mark.parametrize("line", ["mysql -uroot -pXy7kQ9pLm2vRt8Zw -h db", "mysqldump -u app -p'Xy7kQ9pLm2vRt8Zw' app",
                                  'mariadb -p"Xy7kQ9pLm2vRt8Zw"'])
def test_a_password_glued_to_a_mysql_clients_p_flag_is_redacted(line):
    outcome = redact_payload(line, POLICY)
    assert "Xy7kQ9pLm2vRt8Zw" not in outcome.payload
    assert {r.rule for r in outcome.redactions} == {"mysql-cli-password"}


@pytest.mark.parametrize(("line", "rule"), [("mysql -uroot -p'Xy7kQ9 pLm2vRt8Zw' app", "mysql-cli-password"),
                                            ('mysqldump -p"Xy7kQ9 pLm2vRt8Zw" app', "mysql-cli-password"),
                                            ("curl -u 'alice:Xy7kQ9 pLm2vRt8Zw' https://h", "curl-user-password"),
                                            ('curl --user="alice:Xy7kQ9 pLm2vRt8Zw" h', "curl-user-password")])
def test_a_quoted_command_line_password_with_a_blank_is_redacted_whole(line, rule):
    outcome = redact_payload(line, POLICY)
    assert "Xy7kQ9" not in outcome.payload and "pLm2vRt8Zw" not in outcome.payload
    assert {r.rule for r in outcome.redactions} == {rule}


@pytest.mark.parametrize("line", ["mysql -u root -p -h db -P 3306 app", "mysql -p${MYSQL_PWD} app", "tar -pxf a.tar"])
def test_a_mysql_client_asking_for_its_password_or_another_p_flag_is_kept(line):
    assert redact_payload(line, POLICY).payload == line


@pytest.mark.parametrize("line", ["mysql -p$MYSQL_PWD app", 'mysqldump -p"$MYSQL_PWD" app',
                                  'curl -u "$USER:$TOKEN" https://h', "curl -u alice:$API_TOKEN https://h"])
def test_a_shell_variable_given_as_a_command_line_password_is_kept(line):
    """``-p$MYSQL_PWD`` and curl's ``user:$TOKEN`` name a variable, no secret (as ``password=$PW`` does):
    mysql-cli-password and curl-user-password redacted them."""
    assert redact_payload(line, POLICY).payload == line


def _openssh_key_body(cipher: bytes = b"none") -> str:
    raw = (b"openssh-key-v1\0" + len(cipher).to_bytes(4, "big") + cipher + b"\0\0\0\x04none\0\0\0\0\0\0\0\x01"
           + hashlib.sha512(b"key").digest() * 5)
    return base64.b64encode(raw).decode()


@pytest.mark.parametrize("width", [None, 70, 64, 76])
@pytest.mark.parametrize("cipher", [b"none", b"aes256-ctr"])
def test_an_openssh_private_key_body_pasted_without_its_begin_line_is_redacted(width, cipher):
    body = _openssh_key_body(cipher)
    pasted = body if width is None else "\n".join(body[i:i + width] for i in range(0, len(body), width))
    outcome = redact_payload(f"the deploy key:\n{pasted}\nnext: rotate it", POLICY)
    assert outcome.payload == "the deploy key:\n[REDACTED:openssh-private-key-body]\nnext: rotate it"
    assert {r.rule for r in outcome.redactions} == {"openssh-private-key-body"}


def test_an_indented_openssh_key_body_in_yaml_is_redacted_whole():
    lines = [_openssh_key_body()[i:i + 70] for i in range(0, len(_openssh_key_body()), 70)]
    outcome = redact_payload("ssh_key: |\n  " + "\n  ".join(lines) + "\nhost: db", POLICY)
    assert outcome.payload == "ssh_key: |\n  [REDACTED:openssh-private-key-body]\nhost: db"


@pytest.mark.parametrize("line", [
    "an OpenSSH key body starts with b3BlbnNzaC1rZXktdjE (openssh-key-v1)",
    "grep -l b3BlbnNzaC1rZXktdjEAAAAA ~/.ssh/*",
    base64.b64encode(b"openssh-key-v1 is the magic of the private key format, followed by").decode(),
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl user@host",
])
def test_the_openssh_magic_named_in_prose_or_a_public_key_is_kept(line):
    assert redact_payload(line, POLICY).payload == line


@pytest.mark.parametrize("text, kept", [
    ("localhost:5432:app:app_user:Xy7kQ9pLm2vRt8Zw", "localhost:5432:app:app_user:"),
    ("$ cat ~/.pgpass\ndb.internal:6543:orders:svc:Xy7kQ9pLm2vRt8Zw\n", "db.internal:6543:orders:svc:"),
    ("*:*:*:replicator:Xy7kQ9pLm2vRt8Zw", "*:*:*:replicator:"),
    ("  10.0.0.5:*:app:app:Xy7kQ9pLm2vRt8Zw  ", "10.0.0.5:*:app:app:"),
    ("echo 'db:5439:app:app:Xy7kQ9pLm2vRt8Zw' >> ~/.pgpass", "echo 'db:5439:app:app:"),
    ('echo "db:5439:app:app:Xy7kQ9pLm2vRt8Zw" > "$PGPASSFILE"', 'echo "db:5439:app:app:'),
    ("db:5432:app:app:Xy7k\\:Q9pLm2vRt8Zw", "db:5432:app:app:"),
    ("echo 'db:5439:app:app:Xy7kQ9pLm2vRt8Zw' >> ~/.pgpass && chmod 600 ~/.pgpass", "echo 'db:5439:app:app:"),
    ("connecting with db.internal:5432:app:app:Xy7kQ9pLm2vRt8Zw failed", "with db.internal:5432:app:app:"),
    ("lines: 'replica:6432:app:app:Xy7kQ9pLm2vRt8Zw'; 'x:*:*:ro:y'", "'replica:6432:app:app:"),
])
def test_the_password_of_a_pgpass_line_is_redacted_and_the_rest_of_the_line_kept(text, kept):
    outcome = redact_payload(text, POLICY)
    assert "Xy7k" not in outcome.payload
    assert kept + "[REDACTED:pgpass-password]" in outcome.payload
    assert {r.rule for r in outcome.redactions} == {"pgpass-password"}


@pytest.mark.parametrize("line", [
    "2026-12-05 07:30:49", "07:30:49:118", "INFO:root:worker:job:started", "2001:db8:85a3::8a2e:370:7334",
    "fe80:0:0:0:1", "00:11:22:33:44:55", "00:11:22:33:44", "https://db.example.com:5432/app",
    "root:x:0:0:root:/root:/bin/bash", "src/main.c:12:5: error: expected ';'", "host:port:database:username:password",
    "localhost:5432:app:app:${PGPASSWORD}", "*:*:*:*:*", "see ~/.pgpass; the server logs WARN:8080:pool:conn:closed",
    "~/.pgpass holds cache:42:user:profile:v2 keys? no",
])
def test_colon_separated_text_that_is_no_pgpass_line_is_kept(line):
    assert redact_payload(line, POLICY).payload == line


@pytest.mark.parametrize("text", ["db.internal:5432:app:svc:Xy7kQ9 pLm2vRt8Zw",
                                  "echo 'db.internal:5432:app:svc:Xy7kQ9 pLm2vRt8Zw' >> ~/.pgpass"])
def test_a_pgpass_password_with_a_blank_is_redacted_whole_on_a_line_of_its_own(text):
    """libpq reads a pgpass password to the line's end: the rule took it to the first blank and kept
    the rest (' pLm2vRt8Zw') in the ledger."""
    outcome = redact_payload(text, POLICY)
    assert "Xy7kQ9" not in outcome.payload and "pLm2vRt8Zw" not in outcome.payload
    assert {r.rule for r in outcome.redactions} == {"pgpass-password"}


def test_a_pgpass_look_alike_beside_a_pgpass_line_is_kept_while_the_line_is_redacted():
    text = "~/.pgpass now holds:\n*:5432:app:app:Xy7kQ9pLm2vRt8Zw\nlast log:\nINFO:80:root:job:done at 12:30:45\n2001:db8::1"
    assert redact_payload(text, POLICY).payload == text.replace("Xy7kQ9pLm2vRt8Zw", "[REDACTED:pgpass-password]")


@pytest.mark.parametrize("rule", ["openssh-private-key-body", "pgpass-password"])
def test_the_new_shapes_are_searched_only_in_a_text_holding_one_of_their_keywords(rule):
    from baton.domain.redaction import DEFAULT_RULES
    from baton.domain.redaction.rules import KeywordPrefilter

    prefilter = KeywordPrefilter(DEFAULT_RULES)
    assert next(r for r in DEFAULT_RULES if r.name == rule).keywords
    plain = "12:30:45 INFO:80:worker:job:done 2001:db8::1 https://h:8080/x " * 3
    assert rule not in {r.name for r in prefilter.candidates(plain.lower())}


@pytest.mark.parametrize("name", ["DB_PASS", "MYSQL_PASS", "SMTP_PASS", "pass", "DB_PW", "pw", "PGPASS", "REDIS_AUTH",
                                  "NPM_AUTH", "SECRET_KEY_BASE", "ENCRYPTION_KEY_V2", "auth_token2", "API_KEY_PROD",
                                  "apiKeyV2", "GITHUB_TOKEN_B64", "SIGNING_SALT", "NONCE_SALT", "auth_salt"])
def test_a_high_entropy_value_under_a_short_or_qualified_secret_name_is_redacted(name):
    """env files say PASS, PW and AUTH, and put a variant after the word (SECRET_KEY_BASE,
    ENCRYPTION_KEY_V2): the generic rule missed them all (tester team14 F18); WordPress's
    or a framework's *_SALT too (tester team15 G2)."""
    outcome = redact_payload(f"{name}=Xy7kQ9pLm2vRt8Zw", POLICY)
    assert "Xy7kQ9pLm2vRt8Zw" not in outcome.payload
    assert {r.rule for r in outcome.redactions} == {"generic-secret-assignment"}


@pytest.mark.parametrize("name", ["KEY_ID", "SECRET_KEY_FILE", "TOKEN_URL", "primary_key_v2", "max_token_2",
                                  "HMAC", "bypass_mode", "PASS_COUNT", "auth_mode", "AUTH", "SALT_ROUNDS"])
def test_a_name_that_does_not_say_secret_keeps_its_value_even_when_qualified(name):
    """HMAC alone names a digest (a signature, public); AUTH alone is a registry's
    ``user:password`` pair, ``registry-auth``'s to decode (it keeps a value that is none)."""
    line = f"{name}=Xy7kQ9pLm2vRt8Zw"
    assert redact_payload(line, POLICY).payload == line


@pytest.mark.parametrize(("line", "rule"), [
    ("sshpass -p Xy7kQ9pLm2vRt8Zw ssh deploy@host", "sshpass-password"),
    ("sshpass -pXy7kQ9pLm2vRt8Zw ssh host", "sshpass-password"),
    ("sshpass -p 'Xy7kQ9 pLm2vRt8Zw' scp a host:", "sshpass-password"),
    ("docker login -u me -p Xy7kQ9pLm2vRt8Zw ghcr.io", "registry-login-password"),
    ("podman login --password=Xy7kQ9pLm2vRt8Zw quay.io", "registry-login-password"),
    ("helm registry login reg.example --password Xy7kQ9pLm2vRt8Zw", "registry-login-password"),
    ("machine api.example.com login alice password Xy7kQ9pLm2vRt8Zw", "netrc-password"),
    ("default login anonymous password Xy7kQ9pLm2vRt8Zw", "netrc-password"),
])
def test_a_password_given_as_the_argument_of_a_login_flag_or_a_netrc_line_is_redacted(line, rule):
    outcome = redact_payload(line, POLICY)
    assert "Xy7kQ9" not in outcome.payload and "pLm2vRt8Zw" not in outcome.payload
    assert {r.rule for r in outcome.redactions} == {rule}


@pytest.mark.parametrize("line", ["sshpass -p $SSHPASS ssh host", 'docker login -p "$CR_PAT" ghcr.io',
                                  "docker login --password-stdin ghcr.io", "sshpass -e ssh host",
                                  "machine h login u password $NETRC_PW"])
def test_a_login_flag_given_a_shell_variable_or_no_password_is_kept(line):
    assert redact_payload(line, POLICY).payload == line


@pytest.mark.parametrize(("line", "rule"), [
    ("redis-cli -h db -a Xy7kQ9pLm2vRt8Zw ping", "redis-cli-password"),
    ("redis-cli --pass=Xy7kQ9pLm2vRt8Zw", "redis-cli-password"),
    ("htpasswd -b users.htpasswd alice Xy7kQ9pLm2vRt8Zw", "htpasswd-password"),
    ("htpasswd -nb alice Xy7kQ9pLm2vRt8Zw", "htpasswd-password"),
    ("htpasswd -b -B -C 10 .htpasswd alice Xy7kQ9pLm2vRt8Zw", "htpasswd-password"),
    ("openssl enc -aes-256-cbc -k Xy7kQ9pLm2vRt8Zw -in a -out b", "openssl-password"),
    ("openssl enc -aes-128-cbc -K Xy7kQ9pLm2vRt8Zw -iv 00", "openssl-password"),
    ("openssl pkcs12 -export -passout pass:Xy7kQ9pLm2vRt8Zw -out c.p12", "openssl-password"),
    ('openssl rsa -in k.pem -passin "pass:Xy7kQ9pLm2vRt8Zw"', "openssl-password"),
    ("rabbitmqctl add_user deploy Xy7kQ9pLm2vRt8Zw", "rabbitmqctl-password"),
    ("rabbitmqctl change_password deploy 'Xy7kQ9 pLm2vRt8Zw'", "rabbitmqctl-password"),
    ("rabbitmqctl authenticate_user deploy Xy7kQ9pLm2vRt8Zw", "rabbitmqctl-password"),
    ("openssl passwd -6 -salt s4lt Xy7kQ9pLm2vRt8Zw", "openssl-password"),
    ("define('DB_PASSWORD', 'Xy7kQ9pLm2vRt8Zw');", "php-define-secret"),
    ("define( \"AUTH_SALT\", 'Xy7kQ9<pL{m2$vRt8Zw' );", "php-define-secret"),
])
def test_a_password_given_to_redis_cli_htpasswd_openssl_or_rabbitmqctl_is_redacted(line, rule):
    """The Redis, Apache, OpenSSL and RabbitMQ twins of ``mysql -pPASSWORD`` (tester team15 G2)."""
    outcome = redact_payload(line, POLICY)
    assert "Xy7kQ9" not in outcome.payload and "pLm2vRt8Zw" not in outcome.payload
    assert {r.rule for r in outcome.redactions} == {rule}


@pytest.mark.parametrize(("line", "rule"), [
    ('curl -H "Cookie: sessionid=q8Zr3LmX7pW2kT9vB4nY" https://app/x', "cookie-header"),
    ("Cookie: theme=dark; connect.sid=s%3Aq8Zr3LmX7pW2kT9vB4nY.abc", "cookie-header"),
    ("Set-Cookie: sid=q8Zr3LmX7pW2kT9vB4nY; Path=/; HttpOnly", "cookie-header"),
    ('curl -b "connect.sid=s%3Aq8Zr3LmX7pW2kT9vB4nY.abc" https://app', "curl-cookie"),
    ("curl --cookie sid=q8Zr3LmX7pW2kT9vB4nY https://app", "curl-cookie"),
    ("curl -bsid=q8Zr3LmX7pW2kT9vB4nY https://app", "curl-cookie"),
    ('headers = {"Cookie": "sessionid=q8Zr3LmX7pW2kT9vB4nY"}', "cookie-header"),
    ('Cookie: sid="q8Zr3LmX7pW2kT9vB4nY"', "cookie-header"),
    ('document.cookie = "sessionid=q8Zr3LmX7pW2kT9vB4nY; path=/"', "cookie-header"),
])
def test_a_session_cookie_in_a_header_or_given_to_curl_is_redacted(line, rule):
    """A session cookie is a login: any service's, not only GitLab's (tester team15 G2)."""
    outcome = redact_payload(line, POLICY)
    assert "q8Zr3LmX7pW2kT9vB4nY" not in outcome.payload
    assert {r.rule for r in outcome.redactions} == {rule}


@pytest.mark.parametrize("line", ["curl -b cookies.txt https://x", "Cookie: theme=dark; lang=en",
                                  'curl -H "Cookie: sessionid=$SESSION_ID" https://x', "the cookie: it was stale",
                                  "redis-cli -a $REDIS_PASSWORD ping", "htpasswd -c .htpasswd alice",
                                  "openssl req -passout env:PASS", "openssl enc -kfile key.txt",
                                  "rabbitmqctl add_user alice", "openssl passwd -stdin",
                                  "define('DB_PASSWORD', getenv('DB_PASSWORD'));", "define('WP_DEBUG', true);",
                                  "define('DB_PASSWORD', '${DB_PASSWORD}');", "the cookie = stale"])
def test_a_cookie_that_is_a_setting_or_a_password_the_command_asks_for_is_kept(line):
    assert redact_payload(line, POLICY).payload == line
