"""Edits of one handoff made apart on two clones fold to one record (docs/handoffs.md, "Edits made apart").

Each clone decides on its own record; the events fold in merge order (here: the ``hlc`` each is given).
A validation or promotion applies to the body it read, never to a revision made apart; a revision made
apart that is not the record's body is listed and the record flagged ``conflicted``.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from baton.domain import concurrent_edits as apart
from baton.domain.aggregates import handoff as aggregate
from baton.domain.concurrent_edit_lines import edit_line, edit_lines
from baton.errors import PromotionRefused, TransitionError
from baton.events.base import DomainEvent
from baton.ledger.envelope import Event, seal
from baton.values import replace
from tests.strategies import draft, minimal_payload

REPORT = {"status": "pass", "validated_at": "2026-12-07T06:58:00Z", "checks": []}
ALICE, BOB = "alice-clone", "bob-clone"


def body(state: str):
    return draft(minimal_payload(summary={"current_state": state}))


def sealed(event: DomainEvent, *, writer: str, version: int, hlc: int) -> Event:
    return seal(event.draft(actor=f"{writer}@example.com"), event_id=f"00000000-0000-7000-8000-{hlc:012d}",
                writer=writer, seq=hlc, at=f"2026-12-07T06:58:{hlc:02d}.000000Z", hlc=hlc, stream_version=version,
                prev=None)


class Clone:
    """One clone's view of the record: it decides on what it folded, and its events get its
    writer, the stream version after what it read, and the hybrid logical clock given."""

    def __init__(self, writer: str, events: list[Event]) -> None:
        self.writer, self.events = writer, list(events)

    @property
    def state(self):
        return fold(self.events)

    def do(self, command, *, hlc: int) -> Event:
        version = max((e.stream_version for e in self.events), default=0) + 1
        (event,) = aggregate.decide(self.state, command, now="2026-12-07T06:58:00Z")
        out = sealed(event, writer=self.writer, version=version, hlc=hlc)
        self.events.append(out)
        return out


def fold(events: list[Event]):
    state = None
    for event in sorted(events, key=lambda e: e.merge_key):
        state = aggregate.evolve(state, event)
    return state


def captured() -> Event:
    (event,) = aggregate.decide(None, aggregate.Capture(body("alice original state")), now="2026-12-07T06:58:00Z")
    return sealed(event, writer=ALICE, version=1, hlc=1)


def two_clones() -> tuple[Event, Clone, Clone]:
    """A captured record, and alice's and bob's clones each holding just its capture."""
    capture = captured()
    return capture, Clone(ALICE, [capture]), Clone(BOB, [capture])


def revised_apart_before_validation_and_promotion() -> tuple[Event, Event, Event, Event]:
    """bob's revision, then alice's validation and promotion made without it: the capture and the three."""
    capture, alice, bob = two_clones()
    revised = bob.do(aggregate.Revise(body("BOB REWROTE THIS")), hlc=2)
    validated = alice.do(aggregate.RecordValidation(REPORT), hlc=3)
    promoted = alice.do(aggregate.Promote(), hlc=4)
    return capture, revised, validated, promoted


def current_state(h) -> str:
    return h.summary.current_state


def test_a_validation_and_promotion_keep_the_body_they_read_when_a_revision_was_made_apart_before_them():
    capture, revised, validated, promoted = revised_apart_before_validation_and_promotion()
    record = fold([capture, revised, validated, promoted])
    assert record.status == "ready" and current_state(record) == "alice original state"
    assert "conflicted" in record.flags
    (edit,) = apart.conflicts(record)
    assert (edit["writer"], edit["event"], edit["outcome"]) == (BOB, revised.id, "not_applied")
    assert edit["by"]["writer"] == ALICE and edit["by"]["action"] == "validated"


def test_a_promotion_keeps_the_validated_body_when_a_revision_made_apart_lands_between_validation_and_promotion():
    capture, alice, bob = two_clones()
    validated = alice.do(aggregate.RecordValidation(REPORT), hlc=2)
    revised = bob.do(aggregate.Revise(body("bob v2")), hlc=3)
    promoted = alice.do(aggregate.Promote(), hlc=4)
    record = fold([capture, validated, revised, promoted])
    assert record.status == "ready" and current_state(record) == "alice original state"
    assert record.validation.status == "pass" and "conflicted" in record.flags
    (edit,) = apart.conflicts(record)
    assert (edit["writer"], edit["outcome"], edit["by"]["action"]) == (BOB, "not_applied", "promoted")


def test_a_revision_made_apart_that_reaches_a_ready_record_is_listed_not_applied():
    capture, alice, bob = two_clones()
    validated = alice.do(aggregate.RecordValidation(REPORT), hlc=2)
    promoted = alice.do(aggregate.Promote(), hlc=3)
    revised = bob.do(aggregate.Revise(body("bob late")), hlc=4)
    record = fold([capture, validated, promoted, revised])
    assert record.status == "ready" and current_state(record) == "alice original state"
    (edit,) = apart.conflicts(record)
    assert (edit["writer"], edit["outcome"], edit["status"]) == (BOB, "not_applied", "ready")
    assert "conflicted" in record.flags


def test_two_revisions_made_apart_keep_the_later_and_list_the_other_as_overwritten():
    capture, alice, bob = two_clones()
    by_bob = bob.do(aggregate.Revise(body("bob edited")), hlc=2)
    by_alice = alice.do(aggregate.Revise(body("alice edited")), hlc=3)
    record = fold([capture, by_bob, by_alice])
    assert record.status == "draft" and current_state(record) == "alice edited"
    assert "conflicted" in record.flags
    (edit,) = apart.conflicts(record)
    assert (edit["writer"], edit["event"], edit["outcome"]) == (BOB, by_bob.id, "overwritten")
    assert edit["by"]["writer"] == ALICE and edit["by"]["event"] == by_alice.id


def test_a_revision_that_read_the_record_resolves_the_edits_made_apart():
    capture, alice, bob = two_clones()
    by_bob = bob.do(aggregate.Revise(body("bob edited")), hlc=2)
    by_alice = alice.do(aggregate.Revise(body("alice edited")), hlc=3)
    merged = Clone(ALICE, [capture, by_bob, by_alice])
    again = merged.do(aggregate.Revise(body("both edits")), hlc=4)
    record = fold([capture, by_bob, by_alice, again])
    assert current_state(record) == "both edits" and record.flags == () and apart.conflicts(record) == []


def test_edits_one_after_another_on_two_clones_are_no_conflict():
    capture = captured()
    bob = Clone(BOB, [capture])
    revised = bob.do(aggregate.Revise(body("bob edited")), hlc=2)
    alice = Clone(ALICE, [capture, revised])  # alice synced before validating
    validated = alice.do(aggregate.RecordValidation(REPORT), hlc=3)
    promoted = alice.do(aggregate.Promote(), hlc=4)
    record = fold([capture, revised, validated, promoted])
    assert record.status == "ready" and current_state(record) == "bob edited"
    assert record.flags == () and apart.conflicts(record) == []
    assert apart.REVISION not in record.extra, "a ready record keeps no replaced body"


def test_a_validation_recorded_without_a_body_digest_reads_the_body_its_stream_version_saw():
    capture, revised, validated, promoted = revised_apart_before_validation_and_promotion()
    old = [replace(e, data={k: v for k, v in e.data.items() if k != apart.BODY}) for e in (validated, promoted)]
    record = fold([capture, revised, *old])
    assert record.status == "ready" and current_state(record) == "alice original state"
    assert [e["writer"] for e in apart.conflicts(record)] == [BOB]


def test_validation_and_promotion_record_the_digest_of_the_body_they_read():
    h = body("alice original state")
    (validated,) = aggregate.decide(h, aggregate.RecordValidation(REPORT), now="2026-12-07T06:58:00Z")
    assert validated.data()[apart.BODY] == apart.body_digest(h)
    assert apart.body_digest(h) != apart.body_digest(body("another state"))


def test_a_validation_keeps_the_body_it_read_when_a_teammate_revised_the_draft_twice_apart():
    capture, alice, bob = two_clones()
    first = bob.do(aggregate.Revise(body("bob one")), hlc=2)
    second = bob.do(aggregate.Revise(body("bob two")), hlc=3)
    validated = alice.do(aggregate.RecordValidation(REPORT), hlc=4)
    promoted = alice.do(aggregate.Promote(), hlc=5)
    record = fold([capture, first, second, validated, promoted])
    assert record.status == "ready" and current_state(record) == "alice original state"
    assert "conflicted" in record.flags
    assert [(e["event"], e["outcome"]) for e in apart.conflicts(record)] == [
        (first.id, "not_applied"), (second.id, "not_applied")]


def test_a_promotion_does_not_go_back_to_draft_when_two_revisions_made_apart_land_between_validation_and_it():
    capture, alice, bob = two_clones()
    validated = alice.do(aggregate.RecordValidation(REPORT), hlc=2)
    first = bob.do(aggregate.Revise(body("bob one")), hlc=3)
    second = bob.do(aggregate.Revise(body("bob two")), hlc=4)
    promoted = alice.do(aggregate.Promote(), hlc=5)
    record = fold([capture, validated, first, second, promoted])
    assert record.status == "ready" and current_state(record) == "alice original state"
    assert record.validation.status == "pass" and "conflicted" in record.flags
    assert [e["by"]["action"] for e in apart.conflicts(record)] == ["promoted", "promoted"]


def test_revisions_made_in_turn_by_two_writers_apart_from_a_validation_are_each_listed_not_applied():
    capture, alice, bob = two_clones()
    by_bob = bob.do(aggregate.Revise(body("bob one")), hlc=2)
    carol = Clone("carol-clone", [capture, by_bob])  # carol synced with bob, not with alice
    by_carol = carol.do(aggregate.Revise(body("carol two")), hlc=3)
    validated = alice.do(aggregate.RecordValidation(REPORT), hlc=4)
    promoted = alice.do(aggregate.Promote(), hlc=5)
    record = fold([capture, by_bob, by_carol, validated, promoted])
    assert record.status == "ready" and current_state(record) == "alice original state"
    assert [e["writer"] for e in apart.conflicts(record)] == [BOB, "carol-clone"]


def test_a_promotion_of_a_body_another_clone_made_ready_first_is_listed_not_applied():
    capture, alice, bob = two_clones()
    revised = bob.do(aggregate.Revise(body("bob rewrote")), hlc=2)
    bob_validated = bob.do(aggregate.RecordValidation(REPORT), hlc=3)
    bob_ready = bob.do(aggregate.Promote(), hlc=4)
    alice_validated = alice.do(aggregate.RecordValidation(REPORT), hlc=5)
    alice_ready = alice.do(aggregate.Promote(), hlc=6)
    record = fold([capture, revised, bob_validated, bob_ready, alice_validated, alice_ready])
    assert record.status == "ready" and current_state(record) == "bob rewrote"
    assert "conflicted" in record.flags
    assert [(e["event"], e["action"], e["outcome"]) for e in apart.conflicts(record)] == [
        (alice_validated.id, "validated", "not_applied"), (alice_ready.id, "promoted", "not_applied")]


def test_a_promotion_of_the_body_already_ready_is_no_conflict():
    capture, alice, bob = two_clones()
    events = [capture, bob.do(aggregate.RecordValidation(REPORT), hlc=2), bob.do(aggregate.Promote(), hlc=3),
              alice.do(aggregate.RecordValidation(REPORT), hlc=4), alice.do(aggregate.Promote(), hlc=5)]
    record = fold(events)
    assert record.status == "ready" and record.flags == () and apart.conflicts(record) == []


def test_a_chain_of_revisions_longer_than_the_record_keeps_lists_the_validation_of_the_oldest_as_not_applied():
    capture, alice, bob = two_clones()
    revisions = [bob.do(aggregate.Revise(body(f"bob {n}")), hlc=2 + n) for n in range(apart.KEPT + 1)]
    validated = alice.do(aggregate.RecordValidation(REPORT), hlc=50)
    record = fold([capture, *revisions, validated])
    assert record.status == "draft" and current_state(record) == f"bob {apart.KEPT}"
    (edit,) = apart.conflicts(record)
    assert (edit["event"], edit["action"], edit["outcome"]) == (validated.id, "validated", "not_applied")
    assert "conflicted" in record.flags


def test_a_revision_made_apart_does_not_resolve_an_edit_it_never_saw_listed():
    capture, alice, bob = two_clones()
    by_bob = bob.do(aggregate.Revise(body("bob rewrote")), hlc=2)
    bob.do(aggregate.RecordValidation(REPORT), hlc=3)
    validated = alice.do(aggregate.RecordValidation(REPORT), hlc=4)
    bob_ready = bob.do(aggregate.Promote(), hlc=5)
    by_alice = alice.do(aggregate.Revise(body("alice went on")), hlc=6)
    record = fold([capture, *bob.events[1:], validated, by_alice])
    assert record.status == "draft" and current_state(record) == "alice went on"
    assert "conflicted" in record.flags
    assert [e["event"] for e in apart.conflicts(record)] == [by_bob.id, bob_ready.id]
    assert by_alice.data[apart.RESOLVES] == []


def test_a_conflict_line_names_the_owner_an_event_carries_and_else_another_clone_by_its_writer():
    edit = {"writer": "laptop-bob-1a2b3c", "owner": None, "at": "2026-12-07T06:58:02Z", "event": "e1",
            "outcome": "not_applied", "by": {"writer": ALICE, "owner": "alice@example.com", "action": "validated"}}
    line = edit_line("018f0000-0000-7000-8000-000000000001", edit)
    assert line.startswith("CONFLICT handoff 00000001: another clone (writer laptop-bob-1a2b3c)'s revision")
    assert "alice@example.com (writer alice-clone) validated the body it replaced" in line


def test_a_conflict_line_of_a_ready_not_applied_says_another_body_was_made_ready_first():
    capture, alice, bob = two_clones()
    bob.do(aggregate.Revise(body("bob rewrote")), hlc=2)
    bob.do(aggregate.RecordValidation(REPORT), hlc=3)
    bob.do(aggregate.Promote(), hlc=4)
    alice.do(aggregate.RecordValidation(REPORT), hlc=5)
    promoted = alice.do(aggregate.Promote(), hlc=6)
    record = fold([*bob.events, *alice.events[1:]])
    line = edit_lines(record)[-1]
    assert line.startswith(f"CONFLICT handoff {record.id[-8:]}: alice-clone@example.com (writer alice-clone)'s "
                           f"ready (2026-12-07T06:58:06.000000Z, event {promoted.id}) was not applied: the handoff "
                           "was already ready with another body")


STEP = st.sampled_from(("revise", "validate", "promote"))


@settings(max_examples=300, deadline=None)
@given(alice=st.lists(STEP, max_size=4), bob=st.lists(STEP, max_size=4), turns=st.lists(st.booleans(), max_size=8))
def test_a_ready_record_carries_a_validated_body_and_nothing_reverts_silently_whatever_the_edits_apart(
        alice, bob, turns):
    capture = captured()
    clones = {ALICE: (Clone(ALICE, [capture]), list(alice)), BOB: (Clone(BOB, [capture]), list(bob))}
    made, hlc = [capture], 1
    for turn in [*turns, *[True] * len(alice), *[False] * len(bob)]:
        clone, steps = clones[ALICE if turn else BOB]
        if not steps:
            continue
        step, hlc = steps.pop(0), hlc + 1
        command = {"revise": aggregate.Revise(body(f"{clone.writer} {hlc}")),
                   "validate": aggregate.RecordValidation(REPORT), "promote": aggregate.Promote()}[step]
        try:
            made.append(clone.do(command, hlc=hlc))
        except (TransitionError, PromotionRefused):
            continue  # refused on that clone: nothing recorded
    record = fold(made)
    validated = {e.data[apart.BODY] for e in made if e.type == "handoff.validated"}
    promoted = {e.data[apart.BODY] for e in made if e.type == "handoff.promoted"}
    if record.status == "ready":
        assert apart.body_digest(record) in validated
    elif promoted:
        assert "conflicted" in record.flags, "a promotion went back to draft silently"
    if len(promoted) > 1:
        assert "conflicted" in record.flags, "two bodies were made ready, silently one"
