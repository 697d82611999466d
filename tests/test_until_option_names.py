"""A bad event-id-or-time bound is reported under the option the user gave."""

from __future__ import annotations

import pytest

from baton.errors import InputError
from baton.projections.until import Until
from tests.conftest import run_baton


def test_log_since_with_a_bad_value_names_since(project):
    r = run_baton("log", "--since", "garbage", "--project", str(project))
    assert r.returncode == 2
    assert "--since takes an event id or an RFC 3339 time, not 'garbage'" in r.stderr
    assert "--until" not in r.stderr


def test_log_until_with_a_bad_value_names_until(project):
    r = run_baton("log", "--until", "garbage", "--project", str(project))
    assert r.returncode == 2 and "--until takes an event id" in r.stderr


def test_rebuild_until_with_a_bad_value_names_until(project):
    r = run_baton("rebuild", "--until", "garbage", "--project", str(project))
    assert r.returncode == 2 and "--until takes an event id" in r.stderr


def test_until_parse_names_the_parameter_it_is_given_for_adapters_to_spell():
    with pytest.raises(InputError, match=r"^`since` takes") as caught:
        Until.parse("garbage", option="since")
    assert caught.value.name_parameters({"since": "--since"}).message.startswith("--since takes")
