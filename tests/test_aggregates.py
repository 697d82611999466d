"""The deciders as tables: given these events, when this command, then these events (or this error)."""

from __future__ import annotations

import pytest

from baton.domain.aggregates import baton as batons
from baton.domain.aggregates import session as sessions
from baton.domain.batons import CANCELLED, CLAIMED, DISMISSED, PENDING, SUPERSEDED, BatonRecord, baton_key
from baton.errors import BatonAlreadyClaimed, BatonKeyHeld, BatonNotPending, BatonSuperseded, InputError
from baton.events.catalogue import (
    BatonCancelled,
    BatonClaimed,
    BatonCreated,
    BatonDismissed,
    ObjectiveCleared,
    ObjectiveSet,
)
from baton.values import replace
from tests.events_support import recorded

KEY = "alice%40example.com__main"
FIRST = "018f0000-0000-7000-8000-000000000001"
SECOND = "018f0000-0000-7000-8000-000000000002"


def baton(handoff_id: str = FIRST) -> BatonRecord:
    return BatonRecord(id=handoff_id, key=KEY, owner="alice@example.com", branch="main", shared=False,
                       next_steps=("write the test",), failed_approaches=("retry in memory",))


def given(*commands) -> batons.BatonKey:
    """The key's state after deciding and recording ``commands`` in order."""
    state = batons.BatonKey(KEY)
    for command in commands:
        for event in batons.decide(state, command):
            state = batons.evolve(state, recorded(event, version=state.version + 1))
    return state


def test_creating_a_baton_records_its_steps_and_makes_it_pending():
    (event,) = batons.decide(batons.BatonKey(KEY), batons.CreateBaton(baton(), session="s1"))
    assert isinstance(event, BatonCreated)
    assert event.stream == f"baton/{KEY}" and event.data()["key"] == KEY
    assert event.payload["nextSteps"] == ["write the test"] and event.supersedes is None
    state = batons.evolve(batons.BatonKey(KEY), recorded(event))
    assert state.current.status == PENDING and state.version == 1


def test_a_newer_baton_supersedes_the_pending_one_of_the_same_key():
    state = given(batons.CreateBaton(baton(FIRST)))
    (event,) = batons.decide(state, batons.CreateBaton(baton(SECOND)))
    assert event.supersedes == FIRST
    folded = batons.fold(state, recorded(event, version=2))
    assert folded.superseded == FIRST and folded.state.current.id == SECOND
    assert folded.state.previous[0]["status"] == SUPERSEDED


def test_a_newer_baton_that_saw_the_pending_one_supersedes_it_seen():
    state = given(batons.CreateBaton(baton(FIRST)))
    (event,) = batons.decide(state, batons.CreateBaton(baton(SECOND)))
    folded = batons.fold(state, recorded(event, version=2))
    assert folded.state.current.replaced_unseen == () and "unseen" not in folded.state.previous[0]


def test_a_baton_decided_apart_that_replaces_a_pending_one_it_never_saw_names_it_unseen():
    # decided on a replica where the key was empty; folded after another replica's pending baton
    (apart,) = batons.decide(batons.BatonKey(KEY), batons.CreateBaton(baton(SECOND), session="bob-s"))
    state = given(batons.CreateBaton(baton(FIRST), session="alice-s"))
    folded = batons.fold(state, recorded(apart, version=1))
    assert folded.superseded == FIRST and folded.state.current.id == SECOND
    [unseen] = folded.state.current.replaced_unseen
    assert (unseen["id"], unseen["sessionId"], unseen["owner"]) == (FIRST, "alice-s", "alice@example.com")
    assert folded.state.previous[0]["unseen"] is True and folded.state.previous[0]["status"] == SUPERSEDED
    assert BatonRecord.from_json(folded.state.current.to_json()) == folded.state.current  # read back alike


def test_the_same_handoff_handed_on_as_a_baton_by_two_clones_apart_does_not_list_itself_replaced_unseen():
    (apart,) = batons.decide(batons.BatonKey(KEY), batons.CreateBaton(baton(FIRST), session="bob-s"))
    state = given(batons.CreateBaton(baton(FIRST), session="alice-s"))
    folded = batons.fold(state, recorded(apart, version=1))
    assert folded.state.current.id == FIRST and folded.state.current.replaced_unseen == ()
    assert "unseen" not in folded.state.previous[0]


def test_a_claimed_baton_replaced_apart_is_not_unseen():
    state = given(batons.CreateBaton(baton(FIRST)), batons.ClaimBaton(FIRST, "s2", "2026-09-02T15:00:00.000000Z"))
    (apart,) = batons.decide(batons.BatonKey(KEY), batons.CreateBaton(baton(SECOND)))
    folded = batons.fold(state, recorded(apart, version=1))
    assert folded.state.current.replaced_unseen == ()


def _apart_then_claimed() -> tuple[batons.BatonKey, list]:
    """Bob's replica: his baton (SECOND) left and claimed with the key otherwise empty; Alice's
    pending baton (FIRST), left earlier apart, is folded first in project order."""
    bobs = batons.BatonKey(KEY)
    events = []
    for command in (batons.CreateBaton(baton(SECOND), session="bob-s"),
                    batons.ClaimBaton(SECOND, "bob-1", "2026-09-02T15:00:00.000000Z")):
        for event in batons.decide(bobs, command):
            events.append(event)
            bobs = batons.evolve(bobs, recorded(event, version=bobs.version + 1))
    return given(batons.CreateBaton(baton(FIRST), session="alice-s")), events


def test_a_claim_records_the_batons_its_baton_named_as_superseded_unseen():
    _state, [_created, claim] = _apart_then_claimed()
    assert claim.named_unseen == []  # bob's replica had never seen alice's baton when his session claimed his


def test_a_baton_superseded_unseen_by_one_claimed_before_it_arrived_is_named_missed_by_that_claim():
    state, events = _apart_then_claimed()
    for event in events:
        state = batons.evolve(state, recorded(event, version=state.version + 1))
    assert state.current.status == CLAIMED
    [missed] = state.current.missed_unseen
    assert (missed["id"], missed["sessionId"]) == (FIRST, "alice-s")
    assert BatonRecord.from_json(state.current.to_json()) == state.current  # read back alike


def test_a_claim_whose_baton_named_the_unseen_one_misses_nothing():
    (apart,) = batons.decide(batons.BatonKey(KEY), batons.CreateBaton(baton(SECOND), session="bob-s"))
    state = batons.evolve(given(batons.CreateBaton(baton(FIRST), session="alice-s")), recorded(apart, version=2))
    (claim,) = batons.decide(state, batons.ClaimBaton(SECOND, "bob-1", "2026-09-02T15:00:00.000000Z"))
    assert claim.named_unseen == [FIRST]
    assert batons.evolve(state, recorded(claim, version=3)).current.missed_unseen == ()


def test_a_claim_recorded_before_claims_named_their_unseen_batons_misses_nothing():
    state, [_created, claim] = _apart_then_claimed()
    state = batons.evolve(state, recorded(_created, version=2))
    old = replace(claim, named_unseen=None)
    assert batons.evolve(state, recorded(old, version=3)).current.missed_unseen == ()


def test_a_newer_baton_names_those_its_claimed_predecessor_missed():
    state, events = _apart_then_claimed()
    for event in events:
        state = batons.evolve(state, recorded(event, version=state.version + 1))
    third = "018f0000-0000-7000-8000-000000000003"
    state = given_from(state, batons.CreateBaton(baton(third), session="bob-s2"))
    assert state.current.id == third and [u["id"] for u in state.current.replaced_unseen] == [FIRST]


def given_from(state: batons.BatonKey, *commands) -> batons.BatonKey:
    for command in commands:
        for event in batons.decide(state, command):
            state = batons.evolve(state, recorded(event, version=state.version + 1))
    return state


def test_an_erased_baton_created_still_supersedes_the_pending_baton():
    state = given(batons.CreateBaton(baton(FIRST), session="s1"))
    (newer,) = batons.decide(state, batons.CreateBaton(baton(SECOND), session="s2"))
    erased = replace(recorded(newer, version=2), data=None)  # what `baton forget` leaves of it
    folded = batons.fold(state, erased)
    assert folded.state.current.id == FIRST and folded.state.current.status == SUPERSEDED
    assert folded.superseded == FIRST and folded.state.version == 2


def test_an_erased_baton_created_with_nothing_pending_changes_only_the_version():
    state = given(batons.CreateBaton(baton(FIRST)), batons.ClaimBaton(FIRST, "s2", "2026-09-02T15:00:00.000000Z"))
    (newer,) = batons.decide(state, batons.CreateBaton(baton(SECOND)))
    folded = batons.fold(state, replace(recorded(newer, version=3), data=None))
    assert folded.accepted is False and folded.state.current == state.current


def test_a_claim_names_the_session_and_the_version_moves():
    state = given(batons.CreateBaton(baton()), batons.ClaimBaton(FIRST, "s2", "2026-09-02T15:00:00.000000Z"))
    assert state.current.status == CLAIMED and state.current.claimed_by_session == "s2"
    assert state.version == 2


def test_a_claim_without_a_session_is_refused():
    with pytest.raises(InputError):
        batons.decide(given(batons.CreateBaton(baton())), batons.ClaimBaton(FIRST, " ", "t"))


def test_a_second_claim_is_refused_as_already_claimed():
    state = given(batons.CreateBaton(baton()), batons.ClaimBaton(FIRST, "s2", "t"))
    with pytest.raises(BatonAlreadyClaimed):
        batons.decide(state, batons.ClaimBaton(FIRST, "s3", "t"))


def test_claiming_a_baton_a_newer_one_replaced_is_refused_as_superseded():
    state = given(batons.CreateBaton(baton(FIRST)), batons.CreateBaton(baton(SECOND)))
    with pytest.raises(BatonSuperseded):
        batons.decide(state, batons.ClaimBaton(FIRST, "s2", "t"))


# -- names that share a key (``feature/x`` and ``feature_x``: a ``/`` is stored as ``_``) ----------

SLASH_KEY = "alice%40example.com__feature_x"


def on(branch: str, handoff_id: str, *, owner: str = "alice@example.com", shared: bool = False) -> BatonRecord:
    return BatonRecord(id=handoff_id, key=SLASH_KEY, owner=owner, branch=branch, shared=shared,
                       next_steps=(f"step on {branch}",))


def given_on(*commands) -> batons.BatonKey:
    state = batons.BatonKey(SLASH_KEY)
    for command in commands:
        for event in batons.decide(state, command):
            state = batons.evolve(state, recorded(event, version=state.version + 1))
    return state


def test_a_baton_for_another_branch_of_the_key_is_refused_while_the_pending_one_waits():
    state = given_on(batons.CreateBaton(on("feature_x", FIRST)))
    with pytest.raises(BatonKeyHeld) as refused:
        batons.decide(state, batons.CreateBaton(on("feature/x", SECOND)))
    assert "'feature/x'" in refused.value.message and "'feature_x'" in refused.value.message
    assert f"`dismiss` {FIRST} in `baton session handoff`" in refused.value.message
    assert refused.value.details["pending"]["branch"] == "feature_x" and refused.value.exit_code == 4


def test_a_baton_for_another_owner_of_the_key_is_refused_naming_both_owners():
    key_state = given_on(batons.CreateBaton(on("feature_x", FIRST, owner="a/b")))
    with pytest.raises(BatonKeyHeld, match="for a_b on 'feature_x': baton .* is pending for a/b on 'feature_x'"):
        batons.decide(key_state, batons.CreateBaton(on("feature_x", SECOND, owner="a_b")))


def test_a_baton_for_another_owner_never_suggests_dismissing_their_pending_baton():
    key_state = given_on(batons.CreateBaton(on("feature_x", FIRST, owner="a/b")))
    with pytest.raises(BatonKeyHeld) as refused:
        batons.decide(key_state, batons.CreateBaton(on("feature_x", SECOND, owner="a_b")))
    assert "dismiss" not in refused.value.message.lower()
    assert "make this baton `shared`, or wait until a session of a/b on 'feature_x' claims theirs" in \
        refused.value.message
    assert "a `/` is stored as `_`" in refused.value.message


def test_names_that_share_a_key_through_the_separator_are_refused_with_that_reason():
    key = baton_key("erin", "_x", False)
    assert key == baton_key("erin_", "x", False)
    state = batons.BatonKey(key)
    for event in batons.decide(state, batons.CreateBaton(BatonRecord(id=FIRST, key=key, owner="erin", branch="_x", shared=False,
                                                                      next_steps=("step",)))):
        state = batons.evolve(state, recorded(event, version=state.version + 1))
    with pytest.raises(BatonKeyHeld) as refused:
        batons.decide(state, batons.CreateBaton(BatonRecord(id=SECOND, key=key, owner="erin_", branch="x", shared=False,
                                                            next_steps=("step",))))
    message = refused.value.message
    assert "owner and branch are joined by `__`, so owner 'erin' with branch '_x' and owner 'erin_' with " \
           "branch 'x' give the same key" in message
    assert "is stored as" not in message and "dismiss" not in message.lower()


def test_a_baton_of_the_same_owner_and_branch_still_supersedes_the_pending_one():
    state = given_on(batons.CreateBaton(on("feature/x", FIRST)))
    (event,) = batons.decide(state, batons.CreateBaton(on("feature/x", SECOND)))
    assert event.supersedes == FIRST


@pytest.mark.parametrize("ended", [batons.ClaimBaton(FIRST, "s2", "t"), batons.DismissBaton(FIRST),
                                   batons.CancelBaton()])
def test_a_baton_for_another_branch_of_the_key_is_left_once_the_pending_one_is_no_longer_pending(ended):
    state = given_on(batons.CreateBaton(on("feature_x", FIRST)), ended)
    (event,) = batons.decide(state, batons.CreateBaton(on("feature/x", SECOND)))
    assert event.supersedes is None and event.branch == "feature/x"


@pytest.mark.parametrize(("command", "status"), [
    (batons.CancelBaton(session="s1"), CANCELLED),
    (batons.DismissBaton(FIRST, via="cli"), DISMISSED),
])
def test_cancel_and_dismiss_end_a_pending_baton(command, status):
    assert given(batons.CreateBaton(baton()), command).current.status == status


def test_cancelling_with_nothing_pending_records_nothing():
    assert batons.decide(batons.BatonKey(KEY), batons.CancelBaton()) == []


def test_a_claimed_baton_cannot_be_dismissed():
    state = given(batons.CreateBaton(baton()), batons.ClaimBaton(FIRST, "s2", "t"))
    with pytest.raises(BatonAlreadyClaimed):
        batons.decide(state, batons.DismissBaton(FIRST))


def test_dismissing_a_superseded_baton_says_it_is_not_pending():
    state = given(batons.CreateBaton(baton(FIRST)), batons.CreateBaton(baton(SECOND)))
    with pytest.raises(BatonNotPending, match="superseded"):
        batons.decide(state, batons.DismissBaton(FIRST))


@pytest.mark.parametrize("event", [
    BatonClaimed(key=KEY, handoff_id="someone-else", session="s"),
    BatonCancelled(key=KEY, handoff_id=None),
    BatonDismissed(key=KEY, handoff_id=SECOND),
    BatonCreated(key=KEY, handoff_id=SECOND, payload="not an object"),
])
def test_a_malformed_or_out_of_turn_event_moves_only_the_version(event):
    state = given(batons.CreateBaton(baton()))
    folded = batons.fold(state, recorded(event, version=2))
    assert not folded.accepted
    assert folded.state.current == state.current and folded.state.version == 2


def test_setting_an_objective_and_clearing_it_by_its_owner_only():
    key = "alice__main"
    (set_event,) = sessions.decide_objective(None, sessions.SetObjective("alice", "main", "ship it", "s1"), key=key)
    assert isinstance(set_event, ObjectiveSet)
    state = sessions.evolve_objective(None, recorded(set_event), key)
    assert state["objective"] == "ship it"
    assert sessions.decide_objective(state, sessions.ClearObjective("bob", "main", "s2", "x"), key=key) == []
    (cleared,) = sessions.decide_objective(state, sessions.ClearObjective("alice", "main", "s2", "end"), key=key)
    assert isinstance(cleared, ObjectiveCleared) and cleared.previous_session == "s1"
    assert sessions.evolve_objective(state, recorded(cleared), key) is None


def test_a_session_begins_open_and_ends_with_the_baton_it_left():
    (begun,) = sessions.decide_session(None, sessions.BeginSession("s1", "alice", "main", harness="codex"))
    state = sessions.evolve_session(None, recorded(begun), "s1")
    assert state["status"] == "open" and state["harness"] == "codex"
    (ended,) = sessions.decide_session(state, sessions.EndSession("s1", "alice", "main", left_baton=FIRST))
    state = sessions.evolve_session(state, recorded(ended), "s1")
    assert state["status"] == "ended" and state["leftBaton"] == FIRST


def test_a_batch_builds_a_created_batons_record_once_for_the_index_and_the_scopes(monkeypatch):
    """The baton index and the baton scopes both read a ``baton.created`` as a
    record: while the runner folds a batch (``DECODED`` set), it is built once
    and both folds get what each gets from it alone."""
    from baton.events.names import DECODED
    from baton.projections.folds.batons import Batons, BatonScopes

    (event,) = batons.decide(batons.BatonKey(KEY), batons.CreateBaton(baton(), session="s1"))
    created = recorded(event)
    alone_index = Batons().apply(KEY, None, created)
    alone_scopes = BatonScopes().apply(FIRST, None, created)
    built: list[str] = []
    real = batons._record_of_created

    def counting(key, typed, at, actor):
        built.append(key)
        return real(key, typed, at, actor)

    monkeypatch.setattr(batons, "_record_of_created", counting)
    token = DECODED.set({})
    try:
        in_batch_scopes = BatonScopes().apply(FIRST, None, created)
        in_batch_index = Batons().apply(KEY, None, created)
    finally:
        DECODED.reset(token)
    assert built == [KEY]
    assert (in_batch_index, in_batch_scopes) == (alone_index, alone_scopes)
    assert in_batch_scopes["scopes"] == [{"owner": "alice@example.com", "branch": "main", "shared": False}]


def test_a_newer_baton_of_another_session_that_replaces_an_unread_one_names_it_unread():
    state = given(batons.CreateBaton(baton(FIRST), session="t1"))
    (event,) = batons.decide(state, batons.CreateBaton(baton(SECOND), session="t2"))
    folded = batons.fold(state, recorded(event, version=2))
    [unread] = folded.state.current.replaced_unseen
    assert (unread["id"], unread["sessionId"], unread["unread"], unread["firstStep"]) == \
        (FIRST, "t1", True, "write the test")
    assert folded.state.previous[0]["unread"] is True and "unseen" not in folded.state.previous[0]


def test_a_newer_baton_of_the_same_session_names_nothing_unread():
    state = given(batons.CreateBaton(baton(FIRST), session="t1"))
    (event,) = batons.decide(state, batons.CreateBaton(baton(SECOND), session="t1"))
    assert batons.fold(state, recorded(event, version=2)).state.current.replaced_unseen == ()


def test_a_baton_replacing_one_that_named_an_unread_baton_keeps_naming_it():
    state = given(batons.CreateBaton(baton(FIRST), session="t1"), batons.CreateBaton(baton(SECOND), session="t2"))
    third = "018f0000-0000-7000-8000-000000000003"
    (event,) = batons.decide(state, batons.CreateBaton(baton(third), session="t2"))
    folded = batons.fold(state, recorded(event, version=3))
    assert [u["id"] for u in folded.state.current.replaced_unseen] == [FIRST]
