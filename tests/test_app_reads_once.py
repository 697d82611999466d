"""A use case reads the feeds once: ``handoff ready`` and ``bootstrap`` in a new
process with a warm index read the line at each cursor and nothing else —
never the events they append, never the history."""

from __future__ import annotations

import pytest

from baton.app import Baton
from baton.cli import main
from baton.errors import Conflict
from tests.app_support import end_session, validate_handoff_command
from tests.handoff_support import payload
from tests.test_ledger_catch_up_cost import counting_project


def _history(project, rounds: int = 12) -> None:
    for n in range(rounds):
        with Baton.open(project) as app:
            app.capture(payload(work={"title": f"T{n}", "objective": f"O{n}"}))
        end_session(project, f"s{n}", {"nextSteps": [f"step {n}"]})


def _fresh_app(project) -> Baton:
    """A new process's application object, its ledger counting the bytes it reads."""
    return Baton(counting_project(project))


def test_handoff_ready_reads_only_the_line_at_each_cursor_per_lock_hold(project):
    """Ready holds the lock twice, as validate does — to read the record (its hashing is done outside the
    lock), then to append — and checks each cursor's line each time."""
    _history(project)
    with Baton.open(project) as app:
        handoff_id = app.capture(payload()).handoff_id
    validate_handoff_command(project, handoff_id)
    app = _fresh_app(project)
    cursor_lines = sum(c.line for c in app.project.runner.cursors().values())
    result = app.promote(handoff_id)
    assert result.record["status"] == "ready"
    assert app.project.ledger.bytes_read == 2 * cursor_lines
    app.close()


def test_bootstrap_claiming_a_baton_reads_only_the_line_at_each_cursor_per_lock_hold(project):
    """Bootstrap holds the lock twice — to read what it would deliver, then
    (once the brief fits, outside the lock) to claim it — and checks each
    cursor's line each time, since another process may write in between."""
    _history(project)
    end_session(project, "s-last", {"nextSteps": ["the one to claim"]})
    app = _fresh_app(project)
    cursor_lines = sum(c.line for c in app.project.runner.cursors().values())
    result = app.bootstrap(session_id="s-next")
    assert result.to_json()["claimed"] is True
    assert app.project.ledger.bytes_read == 2 * cursor_lines
    app.close()


def test_a_long_lived_application_sees_the_index_gc_removed_and_a_pin_set_meanwhile(project):
    app = Baton.open(project)
    first = app.capture(payload()).handoff_id
    assert main(["gc", "--project", str(project)]) == 0
    assert [r.id for r in app.list_handoffs().rows] == [first]  # rebuilt from the ledger, not the removed file
    assert main(["gc", "--project", str(project)]) == 0
    assert main(["rebuild", "--until", app.project.ledger.read_all()[0].id, "--project", str(project)]) == 0
    with pytest.raises(Conflict, match="rebuild"):
        app.capture(payload())
    app.close()
