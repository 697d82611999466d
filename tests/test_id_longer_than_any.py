"""A handoff id longer than any id (the full id: 36 characters) is bad input, refused before it
reaches the index: exit 2, `input_error`, the limit named and the token not repeated — it was
"internal error: OperationalError: LIKE or GLOB pattern too complex" past 50,000 hex characters
(tester-use18 T12). One place refuses it (``commands.ids.resolve_handoff_id``), which every
command and the MCP tools go through."""

from __future__ import annotations

import json

import pytest

from baton.app import Baton
from baton.errors import InputError
from tests.conftest import run_baton

LONG_HEX = "a" * 50_001


@pytest.mark.parametrize("command", [["resume"], ["handoff", "show"], ["handoff", "validate"], ["fork"],
                                     ["forget", "--yes"]], ids=" ".join)
def test_an_id_of_50001_hex_characters_exits_2_naming_the_limit(project, command):
    r = run_baton(*command, LONG_HEX, "--project", str(project))
    assert r.returncode == 2, r.stderr[:500]
    assert "a handoff id is at most 36 characters" in r.stderr and "internal error" not in r.stderr


def test_the_refusal_of_a_long_id_in_json_is_an_input_error_without_the_token(project):
    r = run_baton("resume", LONG_HEX, "--json", "--project", str(project))
    error = json.loads(r.stdout)["error"]
    assert (error["code"], error["exit_code"], error["details"]["limit"]) == ("input_error", 2, 36)
    assert LONG_HEX[:100] not in r.stdout


def test_an_unknown_id_of_36_characters_is_still_not_found(project):
    r = run_baton("resume", "a" * 36, "--project", str(project))
    assert r.returncode == 4 and "no handoff matches" in r.stderr


def test_the_application_object_refuses_an_id_one_character_longer_than_a_full_id(project):
    with Baton.open(project) as app, pytest.raises(InputError, match="at most 36 characters"):
        app.show("0" * 37)
