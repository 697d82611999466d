"""A baton's claim is its handoff's resume, decided from the stored record without the model.

The claim reads the record's status and flags from the handoff index and asks
the lifecycle's table (``baton.domain.lifecycle_table.resume_of_stored``), the one the handoff
aggregate asks through ``lifecycle.allowed_actions``: the events it records
are the aggregate's decision for a ``Resume``, byte for byte.
"""

from __future__ import annotations

import orjson
import pytest

from baton.commands.context import Project
from baton.domain.aggregates import handoff as handoff_aggregate
from baton.domain.handoff import handoff_to_json, stored_handoff
from baton.domain.lifecycle_table import ALLOWED, resume_of_stored
from baton.model import evolve
from tests.batons_support import events
from tests.cli_support import run_json
from tests.strategies import draft
from tests.test_batons_supersede_handoff import HERE, ready_handoff


def _record(status: str, flags: tuple[str, ...]) -> dict:
    """A record as the handoff index stores it, in ``status`` with ``flags``."""
    return handoff_to_json(evolve(draft(), status=status, flags=flags))


def _lines(decided) -> list[tuple]:
    """The decided events as the ledger receives them: type, stream, session and the payload's bytes."""
    return [(d.type, d.stream, d.actor, d.session, d.schema, orjson.dumps(d.data))
            for d in (e.draft(actor="a@example.com", session="s2") for e in decided)]


@pytest.mark.parametrize("status", sorted(ALLOWED))
@pytest.mark.parametrize("flags", [(), ("invalid",), ("conflicted",)], ids=repr)
def test_a_claims_resume_is_what_the_handoff_aggregate_decides_for_the_stored_record(status, flags):
    doc = _record(status, flags)
    record = stored_handoff(doc)
    command = handoff_aggregate.Resume(session="s2", harness="claude-code")
    expected = handoff_aggregate.decide(record, command, now="") if handoff_aggregate.allows(record, command) else []
    decided = resume_of_stored(doc, session="s2", harness="claude-code")
    assert _lines(decided) == _lines(expected)
    assert bool(decided) == (status in ("ready", "resumed"))


def test_claiming_a_handed_on_ready_handoff_records_its_resume_and_a_rebuild_folds_it_alike(project, capsys):
    handoff_id = ready_handoff(capsys, project)
    run_json(capsys, project, "session", "handoff", "--from", handoff_id, *HERE)

    brief = run_json(capsys, project, "bootstrap", "--session-id", "s-next", *HERE)

    assert brief["claimed"] is True
    (resumed,) = events(project, "handoff.resumed")
    assert resumed.stream == f"handoff/{handoff_id}" and resumed.session == "s-next"
    assert resumed.data == {"session": "s-next", "harness": None, "freshness_state": None}
    opened = Project.open(project)
    try:
        incremental = opened.reading().snapshot()
        assert incremental["handoffs"][handoff_id]["status"] == "resumed"
        opened.runner.rebuild()
        assert opened.runner.snapshot() == incremental
    finally:
        opened.close()
