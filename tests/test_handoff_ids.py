"""Naming handoffs: full id, short id, prefix, ``latest``, and ambiguity."""

from __future__ import annotations

import pytest

from baton.commands.capture import capture_in_scope
from baton.commands.context import Project
from baton.commands.ids import resolve_handoff_id
from baton.domain.handoff import short_id
from baton.errors import AmbiguousId, InputError, NotFound
from tests.app_support import promote_handoff, validate_handoff_command
from tests.handoff_support import baton, payload

FIXED_NS = 1_788_000_000_000_000_000


def _capture(root, n: int = 1, *, same_millisecond: bool = False) -> list[str]:
    """``same_millisecond`` mints every id from one clock reading, so the ids
    share their 48-bit time prefix whatever the machine's speed."""
    opened = Project.open(root, clock=lambda: FIXED_NS) if same_millisecond else Project.open(root)
    try:
        with opened.writing() as scope:
            return [capture_in_scope(scope, payload()).handoff_id for _ in range(n)]
    finally:
        opened.close()


def _resolve(root, token: str) -> str:
    return resolve_handoff_id(Project.open(root).reading(), token)


def test_the_full_id_resolves(project):
    [handoff_id] = _capture(project)
    assert _resolve(project, handoff_id) == handoff_id
    assert _resolve(project, handoff_id.upper()) == handoff_id


def test_the_short_id_resolves(project):
    [handoff_id] = _capture(project)
    assert _resolve(project, short_id(handoff_id)) == handoff_id


def test_a_unique_prefix_resolves(project):
    first, second = _capture(project, 2, same_millisecond=True)
    # UUIDv7s minted together share their time prefix and differ in the tail.
    common = next(i for i, (a, b) in enumerate(zip(first, second)) if a != b)
    assert _resolve(project, second[: max(common + 1, 8)]) == second


def test_an_ambiguous_prefix_is_a_conflict_listing_the_candidates(project):
    ids = _capture(project, 3, same_millisecond=True)
    prefix = ids[0][:8]
    with pytest.raises(AmbiguousId) as err:
        _resolve(project, prefix)
    assert err.value.exit_code == 4
    assert sorted(err.value.details["candidates"]) == sorted(ids)
    for handoff_id in ids:
        assert handoff_id in err.value.message


def test_an_ambiguous_prefix_on_the_command_line_exits_4_and_lists_them(project):
    ids = _capture(project, 2, same_millisecond=True)
    r = baton(project, "handoff", "show", ids[0][:8])
    assert r.returncode == 4
    assert ids[0] in r.stderr and ids[1] in r.stderr
    assert "Traceback" not in r.stderr


def test_latest_is_the_newest_ready_handoff_not_the_newest_draft(project):
    older, newer, draft = _capture(project, 3)
    for handoff_id in (older, newer):
        validate_handoff_command(project, handoff_id)
        promote_handoff(project, handoff_id)
    assert _resolve(project, "latest") == newer
    assert draft != newer


def test_latest_without_any_ready_handoff_is_not_found(project):
    _capture(project)
    with pytest.raises(NotFound, match="ready"):
        _resolve(project, "latest")


def test_an_unknown_id_is_not_found_and_a_short_prefix_gets_a_hint(project):
    _capture(project)
    with pytest.raises(NotFound, match="at least 4"):
        _resolve(project, "abc")
    with pytest.raises(NotFound):
        _resolve(project, "ffffffff-ffff")


def test_an_empty_id_is_an_input_error(project):
    with pytest.raises(InputError):
        _resolve(project, "  ")


def test_a_prefix_of_the_short_id_resolves(project):
    [handoff_id] = _capture(project)
    assert _resolve(project, short_id(handoff_id)[:4]) == handoff_id


def test_a_three_character_prefix_is_too_short(project):
    [handoff_id] = _capture(project)
    with pytest.raises(NotFound):
        _resolve(project, short_id(handoff_id)[:3])


def test_an_ambiguous_prefix_lists_each_long_title_clipped_to_one_line(project):
    # A title has no length limit (a pasted document); the list of candidates
    # shows each as the handoff list does, not the whole document.
    long_title = "t" * 5000
    opened = Project.open(project, clock=lambda: FIXED_NS)
    try:
        with opened.writing() as scope:
            ids = [capture_in_scope(scope, payload(work={"title": long_title, "objective": "Rejected twice"})).handoff_id
                   for _ in range(2)]
    finally:
        opened.close()
    with pytest.raises(AmbiguousId) as err:
        _resolve(project, ids[0][:8])
    assert all(handoff_id in err.value.message for handoff_id in ids)
    assert long_title not in err.value.message
    assert max(len(line) for line in err.value.message.splitlines()) < 250


def test_an_ambiguous_prefix_lists_a_title_of_several_lines_on_one_line(project):
    opened = Project.open(project, clock=lambda: FIXED_NS)
    try:
        with opened.writing() as scope:
            ids = [capture_in_scope(scope, payload(work={"title": "Fix the callback\n\n  and its test",
                                                         "objective": "Rejected twice"})).handoff_id
                   for _ in range(2)]
    finally:
        opened.close()
    with pytest.raises(AmbiguousId) as err:
        _resolve(project, ids[0][:8])
    for handoff_id in ids:
        line = next(text for text in err.value.message.splitlines() if handoff_id in text)
        assert line.endswith("Fix the callback and its test")
