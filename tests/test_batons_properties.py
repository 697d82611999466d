"""Property: whatever sequence of batons, starts, cancels, dismissals and resumes, the invariants hold.

A tiny model of the spec runs beside the real commands: it says which baton a
start must receive. Every delivery must match it, no baton is claimed twice,
a private baton never crosses owner or branch, a handoff resumed by hand
(``resume --mark-resumed``) settles the pending baton carrying it, and replaying
the ledger gives the same index.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baton.app import Baton
from baton.commands.context import Project
from tests.app_support import (
    cancel_baton,
    dismiss_baton,
    init_project,
    list_pending_batons,
    promote_handoff,
    resume_handoff,
    scope_handoff_as_baton,
    validate_handoff_command,
)
from tests.batons_support import events, leave, start
from tests.handoff_support import payload

OWNERS = ["alice@example.com", "bob@example.com"]
BRANCHES = ["main", "feature/x"]

ops = st.lists(
    st.one_of(
        st.tuples(st.just("leave"), st.sampled_from(OWNERS), st.sampled_from(BRANCHES), st.booleans()),
        st.tuples(st.just("start"), st.sampled_from(OWNERS), st.sampled_from(BRANCHES)),
        st.tuples(st.just("cancel"), st.sampled_from(OWNERS), st.sampled_from(BRANCHES)),
        st.tuples(st.just("dismiss_any")),
        st.tuples(st.just("hand_on"), st.sampled_from(OWNERS), st.sampled_from(BRANCHES), st.booleans()),
        st.tuples(st.just("resume_any")),
    ),
    min_size=1, max_size=10,
)


def _hand_on_a_ready_handoff(project, *, owner: str, branch: str, shared: bool):
    """``session handoff --from`` of a handoff captured, validated and made ready; its baton record."""
    with Baton.open(project) as app:
        handoff_id = app.capture(payload()).handoff_id
    validate_handoff_command(project, handoff_id)
    promote_handoff(project, handoff_id, accept_warnings="property test fixture")
    return scope_handoff_as_baton(project, handoff_id, owner=owner, branch=branch, shared=shared).created.record


@settings(max_examples=15, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(ops=ops)
def test_deliveries_follow_the_spec_model_and_claims_are_single_use(tmp_path_factory, ops):
    project = tmp_path_factory.mktemp("prop")
    init_project(project)
    model: dict[str, dict] = {}  # key -> newest pending baton {id, owner, branch, shared}
    ready: set[str] = set()  # batons carrying a ready handoff (handed on with --from): resumable by hand
    for n, op in enumerate(ops):
        if op[0] == "leave":
            _, owner, branch, shared = op
            record = leave(project, f"s{n}", steps=[f"step {n}"], owner=owner, branch=branch, shared=shared)
            model[record.key] = {"id": record.id, "owner": owner, "branch": branch, "shared": shared}
        elif op[0] == "start":
            _, owner, branch = op
            own = [b for b in model.values() if not b["shared"] and (b["owner"], b["branch"]) == (owner, branch)]
            shared = [b for b in model.values() if b["shared"]]
            expected = (own or shared or [None])[0]
            got = start(project, owner=owner, branch=branch, session=f"s{n}").record
            assert (got.id if got else None) == (expected["id"] if expected else None)
            if got is not None:
                assert got.shared or (got.owner, got.branch) == (owner, branch)
                model = {k: v for k, v in model.items() if v["id"] != got.id}
        elif op[0] == "cancel":
            _, owner, branch = op
            result = cancel_baton(project, owner=owner, branch=branch).to_json()
            own = [k for k, b in model.items() if not b["shared"] and (b["owner"], b["branch"]) == (owner, branch)]
            assert result["cancelled"] is bool(own)
            for k in own:
                del model[k]
        elif op[0] == "hand_on":
            _, owner, branch, shared = op
            record = _hand_on_a_ready_handoff(project, owner=owner, branch=branch, shared=shared)
            model[record.key] = {"id": record.id, "owner": owner, "branch": branch, "shared": shared}
            ready.add(record.id)
        elif op[0] == "resume_any":
            resumable = sorted(b["id"] for b in model.values() if b["id"] in ready)
            if resumable:
                resume_handoff(project, resumable[-1], mark_resumed=True, session=f"m{n}")
                model = {k: v for k, v in model.items() if v["id"] != resumable[-1]}
        else:
            pending = list_pending_batons(project).records
            if pending:
                dismiss_baton(project, pending[-1].id)
                model = {k: v for k, v in model.items() if v["id"] != pending[-1].id}
    assert {r.id for r in list_pending_batons(project).records} == {b["id"] for b in model.values()}
    claims = Counter(e.data["handoff_id"] for e in events(project, "baton.claimed"))
    assert all(count == 1 for count in claims.values())
    opened = Project.open(project)
    try:
        incremental = opened.reading().snapshot()
        opened.runner.rebuild()
        assert opened.runner.snapshot() == incremental
    finally:
        opened.close()
