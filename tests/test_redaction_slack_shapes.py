"""Slack tokens are redacted by their published shapes; a hyphenated phrase starting ``xoxo-`` is not one.

Slack's tokens (api.slack.com, token types; the public gitleaks and detect-secrets rules): a bot
token ``xoxb-<team number>-<number>-<random>`` (a legacy one ``xoxb-<number>-<random>``), a user
token ``xoxp-<n>-<n>-<n>-<hex>``, legacy ``xoxo-``/``xoxs-<n>-<n>-<n>-<hex>``, legacy workspace
``xoxa-2-…`` or ``xoxr-<random>``, configuration ``xoxe.xoxp-1-…``/``xoxe-1-…``, app-level
``xapp-1-…``. Every one starts its body with a number (one digit, or the team's six and more) or is
a random run of letters and digits. ``xoxo`` is also "hugs and kisses": ``xoxo-love-from-all-of-us-2024``
signing off a note was redacted as a token (fix27a's report); it is kept now."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_baton
from tests.redaction_support import gone_for_good, kept_whole

RUN = "Q7rT2yU9iO4pA1sD6fG3hJ8k"
HEX = "9d5ffc5d4df4f3c1b9e2a7d6c8b0a1e2"
LONG = (RUN * 8)[:164]

TOKENS = [
    "xo" + "xb-2318476512-4819273645182-" + RUN,                      # bot
    "xo" + "xb-47834520726-" + RUN,                                  # legacy bot
    "xo" + "xp-416843729158-132171513524-4183428483652-" + HEX,      # user
    "xo" + "xo-523423829-234243114-234233901-" + HEX,               # legacy
    "xo" + "xs-416843729158-132171513524-632133284592-" + HEX,       # legacy
    "xo" + "xa-2-511111111-31111111111-3111111111111-" + HEX,        # legacy workspace
    "xo" + "xr-" + RUN,                                              # legacy workspace refresh
    "xo" + "xe.xoxp-1-" + LONG,                                      # configuration access
    "xo" + "xe-1-" + LONG[:146],                                     # configuration refresh
    "xa" + "pp-1-A01BCDEFGHI-1234567890123-" + HEX + HEX,            # app-level
]


@pytest.mark.parametrize("token", TOKENS, ids=lambda t: t[:9])
def test_every_published_slack_token_shape_is_redacted(token: str):
    gone_for_good(f"the bot posts with {token} today", token)


@pytest.mark.parametrize("token", TOKENS, ids=lambda t: t[:9])
def test_a_slack_token_assigned_or_quoted_is_redacted(token: str):
    gone_for_good(f'SLACK_TOKEN="{token}"', token)


@pytest.mark.parametrize("phrase", [
    "xoxo-love-from-all-of-us-2024",
    "signed xoxo-love-from-all-of-us-2024 by the team",
    "xoxo-hugs-and-kisses-from-grandma-and-grandpa",
    "xoxo-2024-from-all-of-us-with-love",
    "xoxa-congratulations-to-the-whole-team",
    "xoxb-is-how-slack-bot-tokens-start",
])
def test_a_hyphenated_phrase_starting_like_a_slack_prefix_is_kept(phrase: str):
    assert kept_whole(phrase)


def test_a_capture_keeps_the_phrase_and_redacts_the_token_beside_it(project):
    token = TOKENS[0]
    r = run_baton("checkpoint", "create", "--no-input", "--title", "farewell card",
                  "--objective", f"sign it xoxo-love-from-all-of-us-2024 and post with {token}",
                  "--json", "--project", str(project))
    assert r.returncode == 0, r.stderr

    stored = (project / json.loads(r.stdout)["file"]).read_text()
    assert "xoxo-love-from-all-of-us-2024" in stored
    assert token not in stored and "[REDACTED:slack-token]" in stored
