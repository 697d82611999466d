"""Batons through the commands: isolation, superseding, single-use claims, cancel, dismiss, telemetry.

These are the spec's "Telemetry and isolation invariants" and the issue's scenarios.
"""

from __future__ import annotations

import orjson
import pytest

from baton.commands.baton_claim import claim_in_scope
from baton.commands.batons import Peek, peek_eligible
from baton.commands.context import Project
from baton.commands.identity import SessionContext
from baton.errors import (
    BatonAlreadyClaimed,
    BatonKeyHeld,
    BatonNotPending,
    BatonSuperseded,
    NotFound,
    StreamVersionConflict,
)
from tests.app_support import cancel_baton, dismiss_baton, list_pending_batons, local_metrics, scope_handoff_as_baton
from tests.batons_support import ALICE, BOB, active, capture_handoff, events, leave, start
from tests.fold_support import assert_batch_folds_like_one_by_one
from tests.test_batons_scope import make_ready


def test_handoff_created_carries_session_branch_owner_shared_and_handoff_id(project):
    record = leave(project, "s1", owner=ALICE, branch="main")
    (created,) = events(project, "baton.created")
    assert created.data["operation"] == "handoff_created"
    assert created.data["session"] == "s1"
    assert created.data["branch"] == "main"
    assert created.data["owner"] == ALICE
    assert created.data["shared"] is False
    assert created.data["handoff_id"] == record.id


def test_handoff_claimed_carries_session_branch_owner_shared_and_handoff_id(project):
    record = leave(project, "s1", shared=True)
    start(project, owner=BOB, branch="dev", session="s2")
    (claimed,) = events(project, "baton.claimed")
    assert claimed.data["operation"] == "handoff_claimed"
    assert claimed.data["session"] == "s2"
    assert claimed.data["branch"] == "main"
    assert claimed.data["owner"] == ALICE
    assert claimed.data["shared"] is True
    assert claimed.data["handoff_id"] == record.id


def test_metrics_count_created_and_claimed_locally(project):
    leave(project, "s1")
    leave(project, "s2", branch="other")
    start(project, session="s3")
    metrics = local_metrics(project).to_json()
    assert metrics["local"] is True
    assert metrics["metrics"]["handoff_created"] == 2
    assert metrics["metrics"]["handoff_claimed"] == 1
    assert metrics["metrics"]["batons_pending"] == 1
    ops = [(r["operation"], r["sessionId"]) for r in metrics["recent"]]
    assert ops == [("handoff_created", "s1"), ("handoff_created", "s2"), ("handoff_claimed", "s3")]
    assert set(metrics["recent"][0]) >= {"sessionId", "branch", "owner", "shared", "handoffId"}


def test_metrics_do_not_count_a_baton_created_event_the_index_refused(project):
    from tests.batons_support import append_raw

    append_raw(project, "baton.created", "baton/_shared", {"owner": ALICE, "branch": "main", "shared": True,
                                                          "payload": {"nextSteps": ["no handoff id"]}})
    leave(project, "s1")
    metrics = local_metrics(project).to_json()
    assert metrics["metrics"]["handoff_created"] == 1
    assert [r["sessionId"] for r in metrics["recent"]] == ["s1"]


def test_metrics_do_not_count_a_baton_claimed_event_the_index_refused(project):
    from tests.batons_support import append_raw

    record = leave(project, "s1")
    append_raw(project, "baton.claimed", "baton/_shared", {"session": "ghost"})
    append_raw(project, "baton.claimed", f"baton/{record.key}", {"handoff_id": "not-it"})
    metrics = local_metrics(project).to_json()
    assert metrics["metrics"]["handoff_claimed"] == 0
    assert [r["operation"] for r in metrics["recent"]] == ["handoff_created"]


def test_metrics_count_a_supersede_only_when_a_pending_baton_was_really_replaced(project):
    from tests.batons_support import append_raw

    leave(project, "s1")
    append_raw(project, "baton.created", "baton/_shared", {"supersedes": "bogus", "payload": "nope"})
    assert local_metrics(project).to_json()["metrics"]["handoff_superseded"] == 0
    leave(project, "s2")
    assert local_metrics(project).to_json()["metrics"]["handoff_superseded"] == 1


def test_a_session_on_a_different_branch_never_sees_or_consumes_a_private_baton(project):
    record = leave(project, branch="main")
    other = start(project, branch="feature/x")
    assert other.record is None and "Active Session Handoff" not in other.brief.text
    assert active(project, branch="feature/x") is None
    assert active(project, branch="main").id == record.id
    assert events(project, "baton.claimed") == []


def test_a_session_of_a_different_owner_never_sees_or_consumes_a_private_baton(project):
    record = leave(project, owner=ALICE)
    other = start(project, owner=BOB)
    assert other.record is None
    assert active(project, owner=BOB) is None
    assert active(project, owner=ALICE).id == record.id
    assert events(project, "baton.claimed") == []


def test_a_shared_baton_reaches_any_owner_on_any_branch(project):
    record = leave(project, owner=ALICE, branch="release", shared=True)
    assert active(project, owner=BOB, branch="main").id == record.id
    assert active(project, owner="carol", branch="feature/y").id == record.id
    got = start(project, owner=BOB, branch="main")
    assert got.record.id == record.id and got.record.shared


def test_only_a_shared_baton_crosses_owner_and_branch(project):
    leave(project, "s1", owner=ALICE, branch="main", shared=False)
    shared = leave(project, "s2", owner=ALICE, branch="main", shared=True)
    assert active(project, owner=BOB, branch="dev").id == shared.id


def test_owner_and_branch_beat_shared(project):
    own = leave(project, "s1", owner=ALICE, branch="main")
    leave(project, "s2", owner=BOB, branch="dev", shared=True)  # newer, shared
    assert active(project, owner=ALICE, branch="main").id == own.id


def test_a_second_baton_for_the_same_key_supersedes_the_first(project):
    first = leave(project, "s1", steps=["old"])
    second = leave(project, "s2", steps=["new"])
    assert active(project).id == second.id
    pending = list_pending_batons(project).records
    assert [r.id for r in pending] == [second.id]
    (_, created2) = events(project, "baton.created")
    assert created2.data["supersedes"] == first.id
    opened = Project.open(project)
    doc = opened.reading().get("batons", second.key)
    assert doc["previous"][0]["id"] == first.id
    assert doc["previous"][0]["status"] == "superseded"
    assert doc["previous"][0]["supersededBy"] == second.id


def test_superseding_leaves_sibling_branches_other_owners_and_shared_untouched(project):
    sibling = leave(project, "s1", branch="feature/a")
    other_owner = leave(project, "s2", owner=BOB, branch="main")
    shared = leave(project, "s3", shared=True)
    leave(project, "s4", branch="main")
    leave(project, "s5", branch="main")
    ids = {r.id for r in list_pending_batons(project).records}
    assert {sibling.id, other_owner.id, shared.id} <= ids
    assert len(ids) == 4


def test_shared_batons_supersede_each_other(project):
    leave(project, "s1", owner=ALICE, shared=True)
    newer = leave(project, "s2", owner=BOB, branch="dev", shared=True)
    shared = [r for r in list_pending_batons(project).records if r.shared]
    assert [r.id for r in shared] == [newer.id]


def test_claiming_is_single_use(project):
    leave(project)
    first = start(project, session="a")
    second = start(project, session="b")
    assert first.record is not None and first.record.claimed_by_session == "a"
    assert second.record is None
    assert len(events(project, "baton.claimed")) == 1


def test_a_second_claim_of_the_same_peek_fails_as_already_claimed(project):
    leave(project)
    opened = Project.open(project)
    peek = peek_eligible(opened.reading(), SessionContext(ALICE, "main"))
    with opened.writing() as scope:
        claimed = claim_in_scope(scope, peek, session="a")
    assert claimed.claimed and claimed.claimed_by_session == "a" and claimed.claimed_at
    with pytest.raises(BatonAlreadyClaimed, match="already claimed by session a"), opened.writing() as scope:
        claim_in_scope(scope, peek, session="b")
    assert len(events(project, "baton.claimed")) == 1


def test_a_new_baton_between_peek_and_claim_fails_the_claim_and_stays_pending(project):
    old = leave(project, "s1", steps=["old"])
    peeker = Project.open(project)
    peek = peek_eligible(peeker.reading(), SessionContext(ALICE, "main"))
    assert peek.record.id == old.id
    new = leave(project, "s2", steps=["new"])  # another terminal, between peek and claim
    with pytest.raises(BatonSuperseded, match="superseded"), peeker.writing() as scope:
        claim_in_scope(scope, peek, session="late")
    now = active(project)
    assert now.id == new.id and now.pending and now.next_steps == ("new",)
    assert events(project, "baton.claimed") == []
    file = project / ".baton" / "batons" / f"{new.key}.json"
    assert orjson.loads(file.read_bytes())["id"] == new.id
    assert orjson.loads(file.read_bytes())["claimed"] is False


def test_a_claim_naming_an_old_stream_version_is_refused_even_for_the_same_baton(project):
    leave(project)
    opened = Project.open(project)
    peek = peek_eligible(opened.reading(), SessionContext(ALICE, "main"))
    stale = Peek(peek.record, peek.version - 1)
    with pytest.raises(StreamVersionConflict), opened.writing() as scope:
        claim_in_scope(scope, stale, session="x")
    assert events(project, "baton.claimed") == []
    assert active(project).pending


def test_claim_records_claimed_claimed_at_and_claimed_by_session(project):
    record = leave(project)
    start(project, session="s9")
    file = project / ".baton" / "batons" / f"{record.key}.json"
    on_disk = orjson.loads(file.read_bytes())
    assert on_disk["claimed"] is True
    assert on_disk["claimedBySession"] == "s9"
    assert on_disk["claimedAt"]


def test_cancel_with_nothing_to_cancel_is_not_an_error(project):
    result = cancel_baton(project, owner=ALICE, branch="main")
    assert result.exit_code == 0
    assert result.to_json()["cancelled"] is False


def test_cancel_removes_only_the_current_owner_branch_baton(project):
    own = leave(project, "s1")
    shared = leave(project, "s2", shared=True)
    sibling = leave(project, "s3", branch="dev")
    result = cancel_baton(project, owner=ALICE, branch="main")
    assert result.to_json() == {"cancelled": True, "owner": ALICE, "branch": "main",
                                "handoffId": own.id, "key": own.key}
    ids = {r.id for r in list_pending_batons(project).records}
    assert ids == {shared.id, sibling.id}
    assert not (project / ".baton" / "batons" / f"{own.key}.json").exists()
    assert (project / ".baton" / "batons" / "_shared.json").exists()
    assert len(events(project, "baton.created")) == 3  # history stays
    assert cancel_baton(project, owner=ALICE, branch="main").to_json()["cancelled"] is False


def test_cancel_never_touches_a_shared_baton(project):
    leave(project, shared=True)
    assert cancel_baton(project, owner=ALICE, branch="main").to_json()["cancelled"] is False


def test_dismiss_removes_one_pending_baton_of_any_owner(project):
    bobs = leave(project, owner=BOB, branch="x")
    result = dismiss_baton(project, bobs.id)
    assert result.to_json()["dismissed"] is True
    assert list_pending_batons(project).records == []
    assert [e.data["handoff_id"] for e in events(project, "baton.dismissed")] == [bobs.id]


def test_dismiss_a_claimed_baton_exits_4(project):
    record = leave(project)
    start(project, session="s2")
    with pytest.raises(BatonAlreadyClaimed) as caught:
        dismiss_baton(project, record.id)
    assert caught.value.exit_code == 4


def test_dismiss_an_unknown_baton_exits_4(project):
    with pytest.raises(NotFound) as caught:
        dismiss_baton(project, "01234567-89ab-7def-8123-456789abcdef")
    assert caught.value.exit_code == 4


def test_dismiss_a_superseded_baton_exits_4(project):
    first = leave(project, "s1")
    leave(project, "s2")
    with pytest.raises(BatonNotPending) as caught:
        dismiss_baton(project, first.id)
    assert caught.value.exit_code == 4


def test_materialized_files_follow_the_spec_naming(project):
    leave(project, owner="alice@example.com", branch="feature/login")
    leave(project, shared=True)
    names = sorted(p.name for p in (project / ".baton" / "batons").iterdir())
    assert names == ["_shared.json", "alice%40example.com__feature_login.json"]


def test_rebuild_restores_the_index_and_files_byte_for_byte(project):
    leave(project, "s1")
    leave(project, "s2", shared=True)
    leave(project, "s3", owner=BOB)
    start(project, session="s4")
    cancel_baton(project, owner=BOB, branch="main")
    folder = project / ".baton" / "batons"
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    opened = Project.open(project)
    incremental = opened.reading().snapshot()
    for p in folder.iterdir():
        p.unlink()
    opened.runner.rebuild()
    assert opened.runner.snapshot() == incremental
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


def test_an_unknown_event_on_a_baton_stream_does_not_block_the_claim(project):
    from tests.batons_support import append_raw

    record = leave(project)
    append_raw(project, "baton.annotated", f"baton/{record.key}", {"note": "from a newer Baton"})
    append_raw(project, "note.added", f"baton/{record.key}", {})
    assert start(project, session="s2").record.id == record.id


def test_a_baton_left_on_one_of_two_branches_that_encode_alike_is_not_delivered_on_the_other(project):
    underscore = leave(project, "s1", branch="feature_x")
    assert active(project, branch="feature/x") is None
    assert start(project, branch="feature/x", session="s2").record is None
    assert start(project, branch="feature_x", session="s3").record.id == underscore.id  # still pending for it


def test_leaving_a_baton_on_a_branch_whose_key_holds_another_branchs_pending_baton_is_refused(project):
    underscore = leave(project, "s1", branch="feature_x")
    before = len(events(project))
    with pytest.raises(BatonKeyHeld, match="'feature/x'.*'feature_x'"):
        leave(project, "s2", branch="feature/x")
    assert len(events(project)) == before  # no handoff captured, no session ended: all or nothing
    assert active(project, branch="feature_x").id == underscore.id  # not superseded


def test_a_baton_is_left_on_the_other_branch_once_the_pending_one_was_claimed(project):
    leave(project, "s1", branch="feature_x")
    start(project, branch="feature_x", session="s2")
    slash = leave(project, "s3", branch="feature/x")
    assert start(project, branch="feature/x", session="s4").record.id == slash.id


def test_a_shared_baton_is_left_while_a_key_holds_another_branchs_pending_baton(project):
    underscore = leave(project, "s1", branch="feature_x")
    shared = leave(project, "s2", branch="feature/x", shared=True)
    assert start(project, branch="feature/x", session="s3").record.id == shared.id
    assert start(project, branch="feature_x", session="s4").record.id == underscore.id


def test_handing_on_a_handoff_to_a_branch_whose_key_holds_another_branchs_baton_is_refused(project):
    underscore = leave(project, "s1", branch="feature_x")
    rich = capture_handoff(project, {"work": {"title": "t", "objective": "o"},
                                     "open_items": [{"description": "Add the fixture", "priority": "high",
                                                     "suggested_action": "Write it", "acceptance_check": "It runs"}]})
    make_ready(project, rich)
    with pytest.raises(BatonKeyHeld):
        scope_handoff_as_baton(project, rich, owner=ALICE, branch="feature/x")
    assert active(project, branch="feature_x").id == underscore.id


def test_a_batch_of_one_keys_events_folds_to_what_folding_them_one_by_one_gives(project):
    """``Batons.apply_all``: a batch's events of one key fold in turn and the
    document (index, telemetry, recent records) is built once — the same as
    building it after every event, whether the run starts from nothing, from
    the document the projection kept, or from one read back from the index."""
    from baton.projections.folds.batons import TELEMETRY_RECENT, Batons

    for i in range(TELEMETRY_RECENT // 2 + 2):  # enough to push records out of ``recent``
        leave(project, session=f"s-{i}", steps=(f"step {i}",))
        start(project, session=f"s-next-{i}")
    leave(project, session="s-shared", shared=True)
    runs: dict[str, list] = {}
    for event in events(project, "baton."):
        for key in Batons().keys(event):
            runs.setdefault(key, []).append(event)
    assert max(len(run) for run in runs.values()) > TELEMETRY_RECENT
    for key, run in runs.items():
        assert_batch_folds_like_one_by_one(Batons, key, run, (1, len(run) // 2, len(run) - 1))
