"""``baton log --stream S`` with a stream no event is on (a typo) says there
is no such stream and offers the closest ones (exit 4, ``--json``: the
error's details); a glob no stream matches says so in place of ``(no
events)`` (exit 0, as a ``--type`` no event has)."""

from __future__ import annotations

import json

from baton.domain.close_names import closest
from tests.conftest import run_baton


def _handoff_stream(project) -> str:
    made = run_baton("checkpoint", "create", "--title", "T", "--objective", "O", "--no-input", "--json",
                     "--project", str(project))
    return f"handoff/{json.loads(made.stdout)['handoff']['id']}"


def test_a_mistyped_stream_says_there_is_no_such_stream_and_the_closest_ones(project):
    stream = _handoff_stream(project)
    typo = stream.replace("handoff/", "handof/")
    shown = run_baton("log", "--stream", typo, "--project", str(project))
    assert shown.returncode == 4 and shown.stdout == ""
    assert f"no stream named {typo!r} in this ledger; the closest: {stream}" in shown.stderr
    assert "--stream takes a stream" in shown.stderr


def test_a_mistyped_streams_json_error_names_the_closest_streams_in_its_details(project):
    stream = _handoff_stream(project)
    shown = run_baton("log", "--stream", stream[:-1], "--json", "--project", str(project))
    error = json.loads(shown.stdout)["error"]
    assert shown.returncode == 4 and error["code"] == "not_found"
    assert error["details"] == {"stream": stream[:-1], "closest": [stream]}


def test_a_stream_like_none_there_is_refused_offering_none(project):
    shown = run_baton("log", "--stream", "zzzzzzzz", "--json", "--project", str(project))
    error = json.loads(shown.stdout)["error"]
    assert shown.returncode == 4 and error["details"] == {"stream": "zzzzzzzz", "closest": []}
    assert "the closest" not in error["message"]


def test_an_existing_stream_is_shown_as_before(project):
    stream = _handoff_stream(project)
    shown = run_baton("log", "--stream", stream, "--project", str(project))
    assert shown.returncode == 0 and "handoff.captured" in shown.stdout and stream in shown.stdout


def test_a_glob_no_stream_matches_says_so_and_reads_nothing(project):
    _handoff_stream(project)
    shown = run_baton("log", "--stream", "handof/*", "--project", str(project))
    assert shown.returncode == 0 and shown.stdout.strip() == "(no events: no stream of this ledger matches 'handof/*')"
    as_json = run_baton("log", "--stream", "handof/*", "--json", "--project", str(project))
    assert as_json.returncode == 0 and as_json.stdout == ""


def test_an_index_pinned_in_the_past_refuses_no_stream_begun_since(project):
    pinned_at = json.loads(run_baton("log", "--json", "--project", str(project)).stdout.splitlines()[-1])["id"]
    stream = _handoff_stream(project)
    assert run_baton("rebuild", "--until", pinned_at, "--project", str(project)).returncode == 0
    shown = run_baton("log", "--stream", stream, "--project", str(project))
    assert shown.returncode == 0 and "handoff.captured" in shown.stdout


def test_the_closest_names_come_closest_first_and_none_when_nothing_is_close():
    known = ["handoff/abc", "handoff/abd", "session/abc", "project"]
    assert closest("handof/abc", known)[:2] == ["handoff/abc", "handoff/abd"]
    assert closest("zzzz", known) == []
