"""Redaction of secrets written in percent-encoded text (an OAuth callback, a
redirect parameter, a URL pasted into a note): an escaped separator such as
``%3D`` or ``%22`` ends in a hex digit, which hid the boundary a token rule
needs and the ``=`` an assignment rule needs (docs/security.md, "Percent
escapes").

SYNTHETIC SECRETS ONLY: every credential here is assembled at runtime from
pieces.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import run_baton
from tests.redaction_support import gone_for_good, kept_whole, redacted

GITHUB = "ghp" + "_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
OPENAI = "sk" + "-proj-" + "Zx8Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz2Xc4Vb6Nm8"
AWS_ID = "AKIA" + "QWERTYUIOPASDFGH"
GITLAB = "glpat" + "-" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn"


def test_a_token_after_a_percent_encoded_equals_sign_is_redacted():
    text, rules = redacted(f"cb?next=https%3A%2F%2Fapp%2Fx%3Ftoken%3D{GITHUB}")
    assert GITHUB not in text and rules == {"github-token"}
    assert text.startswith("cb?next=https%3A%2F%2Fapp%2Fx%3Ftoken%3D[REDACTED")


def test_a_token_between_percent_encoded_quotes_is_redacted_and_the_quotes_kept():
    text, rules = redacted(f"q=%22{OPENAI}%22")
    assert OPENAI not in text and rules == {"openai-api-key"}
    assert text.startswith("q=%22[REDACTED") and text.endswith("]%22")


def test_a_key_id_after_a_percent_encoded_colon_is_redacted():
    text, _ = redacted(f"k%3A{AWS_ID}")
    assert AWS_ID not in text


def test_a_token_after_a_percent_encoded_ampersand_and_equals_is_redacted():
    text, _ = redacted(f"a=1%26key%3D{GITLAB}")
    assert GITLAB not in text


def test_a_secret_assignment_with_a_percent_encoded_equals_sign_is_redacted():
    text, rules = redacted("password%3DXy7kQ9pLm2vRt8Zw")
    assert "Xy7kQ9pLm2vRt8Zw" not in text and rules == {"generic-secret-assignment"}


def test_an_escape_that_decodes_to_a_letter_is_no_boundary():
    # %41 is "A": the key id is glued to a letter, as "xAKIA…" is, and one with no digit is no key id.
    assert redacted(f"x%41{AWS_ID}") == (f"x%41{AWS_ID}", set())


def test_ordinary_percent_encoded_text_is_kept():
    line = "coverage 100%25 of /a%2Fb?q=%22hello%20world%22"
    assert kept_whole(line)


def test_a_password_with_a_percent_escape_inside_is_redacted_whole():
    text, _ = redacted("postgres://u:p%40ssw0rdXy@db/app")
    assert "p%40ssw0rdXy" not in text and "ssw0rdXy" not in text


_SEPARATORS = st.sampled_from(["%3D", "%3A", "%22", "%27", "%26", "%2F", "%3F", "%20", "%0A", "%2C"])


@given(st.lists(_SEPARATORS, min_size=1, max_size=3), st.sampled_from([GITHUB, OPENAI, AWS_ID, GITLAB]),
       st.lists(_SEPARATORS, max_size=2))
def test_property_a_token_wrapped_in_escapes_is_redacted_and_redaction_is_idempotent(before, token, after):
    text = "x" + "".join(before) + token + "".join(after)
    gone_for_good(text, token)


def test_a_percent_encoded_token_given_to_the_cli_never_reaches_the_ledger(project: Path):
    r = run_baton("checkpoint", "create", "--no-input", "--title", "t", "--project", str(project),
                  "--objective", f"callback https://app/cb?next=%2Fx%3Ftoken%3D{GITHUB}")
    assert r.returncode == 0, r.stderr
    assert GITHUB not in r.stdout + r.stderr
    for path in (project / ".baton").rglob("*"):
        if path.is_file():
            assert GITHUB.encode() not in path.read_bytes(), path


def test_a_token_behind_a_twice_encoded_equals_sign_is_redacted():
    # %253D is %3D encoded again: a redirect parameter inside another one.
    text, rules = redacted(f"https://app.example/login?next=%2Fcb%3Fcode%3D1%2526token%253D{GITHUB}")
    assert GITHUB not in text and "github-token" in rules
    assert text.endswith("%2526token%253D[REDACTED:github-token]")


def test_a_twice_encoded_escape_of_a_letter_is_no_boundary():
    assert redacted(f"x%2541{AWS_ID}") == (f"x%2541{AWS_ID}", set())


def test_a_secret_value_holding_escaped_slashes_and_pluses_is_redacted_whole():
    value = "Zt9qLm3Vx7Rk2Pw" + "%2F" + "Hn5Bc8Jd4Fs6Gy1Tu0Ei" + "%2B" + "Oa7Q"
    text, _ = redacted(f"aws_secret_access_key%3D{value}")
    assert text == "aws_secret_access_key%3D[REDACTED:generic-secret-assignment]"


def test_an_escaped_ampersand_after_a_redacted_value_is_kept():
    text, _ = redacted("password%3Dhunter2secret%26user%3Dbob")
    assert text == "password%3D[REDACTED:generic-secret-assignment]%26user%3Dbob"
