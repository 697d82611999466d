"""A time given to `--as-of`, `--until` or `--since` is the whole of its last
unit: `…T10:11:09Z` (a handoff's `created_at`, as Baton prints it) is that
second up to its last microsecond, `…T10:11Z` that minute. `--as-of` and
`--until` take in what happened within it; `--since` (exclusive) starts after it.

Without this, `--as-of <a handoff's own created_at>` said the handoff "did not
exist yet": `created_at` is printed to the second and the events are kept to the
microsecond.
"""

from __future__ import annotations

import json

from baton.cli_input import ContentOptions
from baton.projections.until import Until
from tests.app_support import capture_checkpoint
from tests.handoff_support import baton, baton_json


def _captured(project) -> tuple[str, str]:
    """A handoff just captured: its id and its `created_at` as `handoff list --json` prints it."""
    capture_checkpoint(project, content=ContentOptions(title="Root", objective="root objective here"))
    [listed] = baton_json(project, "handoff", "list")["handoffs"]
    assert len(listed["created_at"]) == len("2026-12-06T10:11:09Z")  # to the second
    return listed["id"], listed["created_at"]


def _log(project, *bounds: str) -> list[dict]:
    """`baton log --json` (one event a line) of the handoffs captured within ``bounds``."""
    done = baton(project, "log", *bounds, "--type", "handoff.captured", "--json")
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_handoff_show_as_of_its_own_created_at_shows_it(project):
    handoff_id, created_at = _captured(project)
    shown = baton_json(project, "handoff", "show", handoff_id[-8:], "--as-of", created_at)
    assert shown["id"] == handoff_id


def test_lineage_as_of_a_handoffs_own_created_at_holds_it(project):
    handoff_id, created_at = _captured(project)
    graph = baton_json(project, "lineage", "--as-of", created_at)
    assert [node["id"] for node in graph["nodes"]] == [handoff_id]


def test_log_until_a_second_takes_in_the_events_within_it(project):
    handoff_id, created_at = _captured(project)
    events = _log(project, "--until", created_at)
    assert [event["stream"] for event in events] == [f"handoff/{handoff_id}"]


def test_log_since_a_second_starts_after_the_whole_of_it(project):
    _, created_at = _captured(project)
    events = _log(project, "--since", created_at)
    assert events == []


def test_rebuild_until_a_handoffs_own_created_at_keeps_it_in_the_pinned_index(project):
    handoff_id, created_at = _captured(project)
    baton_json(project, "rebuild", "--until", created_at)
    assert [h["id"] for h in baton_json(project, "handoff", "list")["handoffs"]] == [handoff_id]


def test_a_time_to_the_minute_is_the_end_of_that_minute():
    assert Until.parse("2026-12-06T10:11Z").hlc == Until.parse("2026-12-06T10:11:59.999999Z").hlc


def test_a_time_to_the_tenth_of_a_second_is_the_end_of_that_tenth():
    assert Until.parse("2026-12-06T10:11:09.5Z").hlc == Until.parse("2026-12-06T10:11:09.599999Z").hlc


def test_a_time_to_the_microsecond_is_that_microsecond():
    whole = Until.parse("2026-12-06T10:11:09Z").hlc
    assert whole is not None
    assert Until.parse("2026-12-06T10:11:09.000000Z").hlc == whole - 999_999


def test_an_offset_is_no_part_of_a_times_precision():
    assert Until.parse("2026-12-06T11:11:09+01:00").hlc == Until.parse("2026-12-06T10:11:09.999999Z").hlc
