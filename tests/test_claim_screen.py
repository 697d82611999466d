"""The last screen before the ledger (``Project.screen``) of a baton's claim: every value a person, an
agent or a harness could have written is screened; the members' names (the event class's fields) and
the values Baton mints itself in their shape (the handoff's id, the claim's time, the ids of the
batons it named, the event's own ``operation`` word: ``DomainEvent.MINTED``) are passed over.

A secret planted in any member of a ``baton.claimed`` payload is refused (an identifier: the owner,
the branch, the session, the baton key) or redacted (any other member, a minted one holding anything
but its shape included), exactly as a screen of the whole payload records it."""

from __future__ import annotations

import pytest

from baton.domain.redaction import redact_strings
from baton.errors import SecretInIdentifier
from baton.events.base import ID, IDS, PROCESS, TIME, minted, told_values
from baton.events.baton import BatonClaimed
from baton.ledger.envelope import EventDraft
from tests.secret_corpus import secrets

TOKEN = next(s.value for s in secrets() if s.rule == "anthropic-api-key")
HANDOFF = "01a252f7-98e7-7540-be5c-a4c3da2ac31f"
CLAIMED_AT = "2026-12-08T00:04:48.433532Z"
UNSEEN = "01a252f7-0000-7540-be5c-a4c3da2ac31f"


def _claim(**changes) -> EventDraft:
    members = {"key": "dev%40example.com__main", "operation": "handoff_claimed", "handoff_id": HANDOFF,
               "owner": "dev@example.com", "branch": "main", "shared": False, "session": "s-receives",
               "claimed_at": CLAIMED_AT, "named_unseen": [UNSEEN]}
    members.update(changes)
    event = BatonClaimed(**members)
    return event.draft(actor="dev@example.com", session="s-receives")


def _whole_screen(opened, draft: EventDraft) -> list[dict]:
    """What a screen of the whole payload (names and minted values included) records redacted."""
    return [r.to_json() for r in redact_strings(draft.data, opened.policy.redaction).redactions]


@pytest.fixture
def opened(project):
    from baton.commands.context import Project

    return Project.open(project)


def test_a_claim_of_minted_values_and_clean_identifiers_is_recorded_as_decided(opened):
    draft = _claim()
    assert opened.screen(draft) == draft


@pytest.mark.parametrize("member", ["owner", "branch", "session", "key"])
def test_a_secret_in_a_claims_identifier_is_refused_and_never_echoed(opened, member):
    value = f"ci-{TOKEN}" if member != "key" else f"dev%40example.com__{TOKEN}"
    with pytest.raises(SecretInIdentifier) as refused:
        opened.screen(_claim(**{member: value}))
    assert TOKEN not in str(refused.value.message) and TOKEN not in str(refused.value.details)


@pytest.mark.parametrize("member,planted", [
    ("handoff_id", TOKEN),
    ("handoff_id", f"{HANDOFF} {TOKEN}"),
    ("claimed_at", f"{CLAIMED_AT} {TOKEN}"),
    ("named_unseen", [UNSEEN, TOKEN]),
    ("operation", f"handoff_claimed {TOKEN}"),
    ("shared", TOKEN),
])
def test_a_secret_in_any_other_member_of_a_claim_is_redacted_as_the_whole_payloads_screen_records_it(
        opened, member, planted):
    draft = _claim(**{member: planted})
    screened = opened.screen(draft)
    assert TOKEN not in repr(screened.data)
    assert screened.data["_redacted"] == _whole_screen(opened, draft)
    assert [r["field"] for r in screened.data["_redacted"]][0].startswith(member)


def test_a_secret_in_a_member_its_class_does_not_name_is_redacted_with_its_name(opened):
    draft = _claim()
    for data in ({**draft.data, "note": TOKEN}, {**draft.data, TOKEN: "x"}):
        screened = opened.screen(draft._replace(data=data))
        assert TOKEN not in repr(screened.data)
        assert screened.data["_redacted"] == _whole_screen(opened, draft._replace(data=data))


def test_the_screen_never_reads_a_claims_member_names_or_minted_values(opened, monkeypatch):
    """The ids, the time and the operation word Baton minted are not screened text; the identifiers are."""
    from baton.domain.redaction import walk

    read: list[str] = []
    scrub = walk._Walk._scrub
    monkeypatch.setattr(walk._Walk, "_scrub", lambda self, text, depth=0: (read.append(text), scrub(self, text, depth))[1])
    walk._SCRUBBED.clear()  # screened afresh: nothing found clean earlier in the process
    opened.screen(_claim())
    assert not {HANDOFF, CLAIMED_AT, UNSEEN, "handoff_claimed", "claimed_at", "named_unseen", "operation"} & set(read)
    assert {"dev@example.com", "main", "s-receives"} <= set(read)


def test_told_values_leave_out_only_minted_shapes_and_screen_an_unknown_type_whole():
    assert told_values("baton.claimed", _claim().data) == ["dev%40example.com__main", "dev@example.com", "main",
                                                            False, "s-receives"]
    assert told_values("baton.claimed", _claim(handoff_id="h-1").data)[1] == "h-1"
    assert told_values("test.noted", {"n": 1}) is None
    assert told_values("baton.claimed", {**_claim().data, "note": "x"}) is None


@pytest.mark.parametrize("shape,value,expected", [
    (ID, HANDOFF, True), (ID, HANDOFF.upper(), False), (ID, HANDOFF[:-1] + "g", False),
    (ID, HANDOFF.replace("-", "", 1) + "0", False), (ID, None, False),
    (IDS, [HANDOFF, UNSEEN], True), (IDS, [], True), (IDS, [HANDOFF, "x"], False), (IDS, (HANDOFF,), False),
    (TIME, CLAIMED_AT, True), (TIME, CLAIMED_AT.replace("Z", "+"), False), (TIME, CLAIMED_AT[:-2] + "xZ", False),
    (PROCESS, {"pid": 5384, "start": 5424992, "boot": UNSEEN, "pidns": 4026531836}, True),
    (PROCESS, {"pid": 5384, "start": 5424992, "boot": TOKEN, "pidns": 4026531836}, False),
    (PROCESS, {"pid": "5384", "start": 5424992, "boot": UNSEEN, "pidns": 4026531836}, False),
    (PROCESS, {"pid": 5384, "start": 5424992, "boot": UNSEEN, "pidns": 1, "note": "x"}, False),
    (frozenset({"handoff_claimed"}), "handoff_claimed", True), (frozenset({"handoff_claimed"}), "handoff", False),
])
def test_a_minted_shape_is_exactly_the_shape_baton_writes(shape, value, expected):
    assert minted(shape, value) is expected


def test_a_session_starts_harness_process_is_passed_over_only_in_the_shape_baton_reads_it(opened):
    from baton.events.session import SessionBegun

    process = {"pid": 5384, "start": 5424992, "boot": UNSEEN, "pidns": 4026531836}
    begun = SessionBegun(key="s-1", session="s-1", harness="claude-code", owner="dev@example.com",
                         branch="main", received_baton=HANDOFF, harness_process=process)
    assert opened.screen(begun.draft(actor="dev@example.com", session="s-1")).data == begun.data()
    planted = dict(process, boot=f"{UNSEEN} {TOKEN}")
    leaked = opened.screen(begun._replace(harness_process=planted).draft(actor="dev@example.com", session="s-1"))
    assert TOKEN not in repr(leaked.data)
    assert [r["field"] for r in leaked.data["_redacted"]] == ["harness_process.boot"]
