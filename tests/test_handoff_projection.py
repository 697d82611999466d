"""The ``handoffs`` projection: a pure fold that replays to the same records, files and index."""

from __future__ import annotations

import json
import os

from baton.cli_input import ContentOptions
from baton.commands.capture import capture_in_scope
from baton.commands.context import Project
from baton.domain.aggregates.handoff import record_time
from baton.events.names import handoff_stream as stream_of
from baton.ledger.envelope import EventDraft, seal
from baton.projections.folds.handoffs import Handoffs
from baton.projections.handoffs import (
    BATON_COUNTS_TABLE,
    COUNTS_TABLE,
    ROWS_TABLE,
    SEARCH_TABLE,
    HandoffsBase,
    count_by_status,
    handoff_counts,
    newest,
)
from baton.projections.runner import ProjectionRunner, snapshot_equal
from baton.values import replace
from tests.app_support import amend_handoff, promote_handoff, resume_handoff, validate_handoff_command
from tests.fold_support import assert_batch_folds_like_one_by_one
from tests.handoff_support import materialized, payload


def _capture(root, body=None) -> str:
    opened = Project.open(root)
    try:
        with opened.writing() as scope:
            return capture_in_scope(scope, body or payload()).handoff_id
    finally:
        opened.close()


def _event(type_: str, handoff_id: str, data: dict | None, at: str = "2026-09-02T14:40:00.123456Z"):
    event = seal(EventDraft(type_, stream_of(handoff_id), data or {}), event_id="0" * 36, writer="w", seq=1,
                 at=at, hlc=1, stream_version=1, prev=None)
    return replace(event, data=data)


def _lived(project) -> tuple[str, str, str]:
    """A handoff validated, promoted, resumed and amended (its child), and a validated draft."""
    first = _capture(project)
    validate_handoff_command(project, first)
    promote_handoff(project, first)
    resume_handoff(project, first, mark_resumed=True)
    child = amend_handoff(project, first, content=ContentOptions(completed=["fixture"])).handoff_id
    draft = _capture(project, payload(open_items=[]))
    validate_handoff_command(project, draft)
    return first, child, draft


def _search_rows(runner) -> list:
    return sorted(runner.db.execute(f"SELECT id, title, objective, summary FROM {SEARCH_TABLE}").fetchall())


def test_rebuild_yields_the_same_records_search_rows_and_files(project):
    first, child, draft = _lived(project)
    amend_handoff(project, draft, content=ContentOptions(title="Renamed draft"))
    opened = Project.open(project)
    runner = opened.reading()
    before, rows, files = runner.snapshot()["handoffs"], _search_rows(runner), materialized(project)
    assert set(before) == {first, child, draft}
    with opened.ledger.locked():
        runner.rebuild()
    assert snapshot_equal({"h": runner.snapshot()["handoffs"]}, {"h": before})
    assert _search_rows(runner) == rows
    assert materialized(project) == files
    opened.close()


def test_each_materialized_file_is_the_record_as_sorted_indented_json(project):
    handoff_id = _capture(project)
    doc = Project.open(project).reading().get("handoffs", handoff_id)
    [(name, raw)] = materialized(project).items()
    assert raw == json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False).encode() + b"\n"
    assert name == Handoffs().materialize(handoff_id, doc).popitem()[0].split("/")[1]


def test_a_promotion_the_state_machine_refuses_is_skipped_on_replay():
    record = _draft_record()
    projection = Handoffs()
    doc = projection.apply(record["id"], None, _event("handoff.captured", record["id"], {"handoff": record}))
    after = projection.apply(record["id"], doc, _event("handoff.promoted", record["id"], {"accepted_warnings": None}))
    assert after == doc and after["status"] == "draft"


def test_an_erased_capture_removes_the_record_and_other_erasures_change_nothing():
    record = _draft_record()
    projection = Handoffs()
    doc = projection.apply(record["id"], None, _event("handoff.captured", record["id"], {"handoff": record}))
    assert projection.apply(record["id"], doc, _event("handoff.revised", record["id"], None)) == doc
    assert projection.apply(record["id"], doc, _event("handoff.captured", record["id"], None)) is None


def test_updated_at_is_the_event_time_to_the_second():
    record = _draft_record()
    projection = Handoffs()
    doc = projection.apply(record["id"], None, _event("handoff.captured", record["id"], {"handoff": record}))
    archived = projection.apply(record["id"], doc, _event("handoff.archived", record["id"], {"reason": "dropped"},
                                                          at="2026-09-02T15:00:01.999999Z"))
    assert archived["updated_at"] == "2026-09-02T15:00:01Z" == record_time("2026-09-02T15:00:01.999999Z")
    assert archived["status"] == "archived" and archived["archived_reason"] == "dropped"


def test_events_of_other_streams_touch_no_handoff():
    event = seal(EventDraft("baton.created", "baton/_shared", {}), event_id="0" * 36, writer="w", seq=1,
                 at="2026-09-02T14:40:00.000000Z", hlc=1, stream_version=1, prev=None)
    assert list(Handoffs().keys(event)) == []


def _draft_record() -> dict:
    from baton.commands.capture import assign_item_ids
    from baton.domain.handoff import handoff_to_json, new_draft

    return handoff_to_json(new_draft(assign_item_ids(payload()), id="018f4a2b-7c3d-7e1f-9a2b-3c4d5e6f7a8b",
                                     now="2026-09-02T14:30:00Z", project={"id": "p"}))


def _rows(project):
    from baton.app import Baton

    with Baton.open(project) as app:
        db = app.project.reading().db
        rows = db.execute("SELECT id, short, created_at, updated_at, status, flags, title, validation, relation, "
                          "parents, brief FROM handoff_rows ORDER BY id").fetchall()
        search = db.execute("SELECT h.id, s.title, s.objective, s.summary FROM handoff_search s "
                            "JOIN handoff_rows h ON h.rowid = s.rowid ORDER BY h.id").fetchall()
    return rows, search


def test_the_handoff_rows_and_search_index_equal_a_full_replay(project):
    from baton.app import Baton
    from baton.cli import main
    from baton.cli_input import ContentOptions
    from tests.app_support import archive_handoff, capture_checkpoint, promote_handoff, validate_handoff_command

    ids = [capture_checkpoint(project, content=ContentOptions(title=f"T{n}", objective=f"O{n}",
                                                              current_state="halfway")).handoff_id
           for n in range(3)]
    with Baton.open(project) as app:
        ids.append(app.capture(payload()).handoff_id)
    validate_handoff_command(project, ids[0])  # fails: flagged invalid
    validate_handoff_command(project, ids[3])
    promote_handoff(project, ids[3])
    archive_handoff(project, ids[1], reason="dropped")
    incremental = _rows(project)
    assert len(incremental[0]) == 4 and len(incremental[1]) == 4
    assert main(["rebuild", "--project", str(project)]) == 0
    assert _rows(project) == incremental


def _status_counts(project) -> tuple[dict[str, int], dict[str, int]]:
    """The counts the index keeps, and a ``GROUP BY`` over its rows."""
    opened = Project.open(project)
    try:
        db = opened.reading().db
        kept = dict(db.execute(f"SELECT status, n FROM {COUNTS_TABLE}").fetchall())
        grouped = dict(db.execute(f"SELECT status, COUNT(*) FROM {ROWS_TABLE} GROUP BY status").fetchall())
    finally:
        opened.close()
    return kept, grouped


def test_the_status_counts_follow_a_forgotten_handoff_out(project):
    from baton.app import Baton

    ids = [_capture(project) for _ in range(3)]
    validate_handoff_command(project, ids[0])
    with Baton.open(project) as app:
        app.forget(ids[1], reason="test", yes=True)
    kept, grouped = _status_counts(project)
    assert kept == grouped and sum(kept.values()) == 2


def test_a_handoff_removed_by_the_fold_leaves_the_counts_in_the_same_batch(project):
    ids = [_capture(project) for _ in range(2)]
    opened = Project.open(project)
    try:
        runner = opened.reading()
        with runner.db.conn:
            runner.by_name["handoffs"].loaded.index(runner.db, [(ids[0], None)])
        kept = dict(runner.db.execute(f"SELECT status, n FROM {COUNTS_TABLE}").fetchall())
        assert kept == dict(runner.db.execute(f"SELECT status, COUNT(*) FROM {ROWS_TABLE} GROUP BY status")
                            .fetchall()) == {"draft": 1}
    finally:
        opened.close()



def _drop_index_table(project, table: str) -> None:
    """Drop one of the index's tables, as an index from before it was added lacks it."""
    opened = Project.open(project)
    try:
        runner = opened.reading()
        runner.db.execute(f"DROP TABLE {table}")
        runner.db.conn.commit()
    finally:
        opened.close()

def test_an_index_without_the_status_counts_table_gets_them_from_its_rows_without_a_replay(project, monkeypatch):
    ids = [_capture(project) for _ in range(3)]
    validate_handoff_command(project, ids[2])
    _drop_index_table(project, COUNTS_TABLE)
    replays = []
    monkeypatch.setattr(ProjectionRunner, "_rebuild", lambda *a, **k: replays.append(a))  # must not be called
    opened = Project.open(project)
    try:
        counts = count_by_status(opened.reading().db)
    finally:
        opened.close()
    kept, grouped = _status_counts(project)
    assert counts == kept == grouped == {"draft": 2, "validated": 1} and not replays


def test_newest_of_several_statuses_with_a_limit_is_the_head_of_them_all_sorted(project):
    ids = [_capture(project) for _ in range(5)]
    for ident in ids[:4]:
        validate_handoff_command(project, ident)
        promote_handoff(project, ident, accept_warnings="test")
    resume_handoff(project, ids[1], mark_resumed=True)
    resume_handoff(project, ids[3], mark_resumed=True)
    opened = Project.open(project)
    try:
        db = opened.reading().db
        every = newest(db, statuses=("ready", "resumed"))  # one IN query, sorted
        branch = every[0].branch
        on_branch = newest(db, statuses=("ready", "resumed"), branch=branch)
        assert [r.status for r in every] == ["resumed", "ready", "resumed", "ready"]
        for limit in range(1, 6):
            assert newest(db, statuses=("ready", "resumed"), limit=limit) == every[:limit]
            assert newest(db, statuses=("resumed", "ready"), branch=branch, limit=limit) == on_branch[:limit]
    finally:
        opened.close()


CURRENT = f'["handoffs",{HandoffsBase.version}]'
"""The handoffs projection's entry in the index's signature, at this Baton's version."""


def test_an_index_of_the_version_before_the_status_counts_rebuilds_once_with_them(project, monkeypatch):
    ids = [_capture(project) for _ in range(3)]
    validate_handoff_command(project, ids[0])
    opened = Project.open(project)
    try:
        db = opened.reading().db
        signature = db.execute("SELECT value FROM meta WHERE key = 'signature'").fetchone()[0]
        assert CURRENT in signature
        db.execute(f"DROP TABLE {COUNTS_TABLE}")  # as version 4 made it
        db.execute("UPDATE meta SET value = ? WHERE key = 'signature'",
                   [signature.replace(CURRENT, '["handoffs",4]')])
        db.conn.commit()
    finally:
        opened.close()
    replays = []
    monkeypatch.setattr(ProjectionRunner, "_rebuild", _counting(ProjectionRunner._rebuild, replays))
    kept, grouped = _status_counts(project)
    assert kept == grouped == {"draft": 2, "validated": 1} and len(replays) == 1


def test_an_index_built_before_authors_were_kept_is_rebuilt_once_and_then_names_each_writer(project, monkeypatch):
    from baton.app import Baton

    ids = [_capture(project) for _ in range(2)]
    opened = Project.open(project)
    try:
        db = opened.reading().db
        signature = db.execute("SELECT value FROM meta WHERE key = 'signature'").fetchone()[0]
        db.execute("UPDATE handoff_rows SET writer = NULL, owner = NULL")  # what version 5 held: no authors
        db.execute("UPDATE meta SET value = ? WHERE key = 'signature'",
                   [signature.replace(CURRENT, '["handoffs",5]')])
        db.conn.commit()
        writer = opened.writer
    finally:
        opened.close()
    replays = []
    monkeypatch.setattr(ProjectionRunner, "_rebuild", _counting(ProjectionRunner._rebuild, replays))
    for _ in range(2):  # the first command rebuilds; the second reads the index as it stands
        with Baton.open(project) as app:
            rows = app.list_handoffs().to_json()["handoffs"]
    assert len(replays) == 1
    assert sorted(r["id"] for r in rows) == sorted(ids)
    assert all(r["writer"] == writer and r["owner"] and r["mine"] for r in rows)


def _counting(method, calls: list):
    def wrapper(self, *args, **kwargs):
        calls.append(args)
        return method(self, *args, **kwargs)
    return wrapper


def test_a_batch_of_one_handoffs_events_folds_to_what_folding_them_one_by_one_gives(project):
    """``Handoffs.apply_all``: the events of one handoff in a batch fold through
    ``evolve`` in turn and the record is written once — the same bytes as
    writing it after every event, whether the batch starts from nothing, from
    the record the projection itself wrote (its model kept), or from a record
    read back from the index (a later batch, another process)."""

    first, child, draft = _lived(project)
    opened = Project.open(project)
    streams: dict[str, list] = {}
    for event in opened.ledger.read_all():
        if event.stream.startswith("handoff/"):
            streams.setdefault(event.stream.split("/", 1)[1], []).append(event)
    opened.close()
    assert {first, child, draft} <= set(streams) and max(len(run) for run in streams.values()) >= 4
    for key, run in streams.items():
        assert_batch_folds_like_one_by_one(Handoffs, key, run, range(1, len(run)))


def test_a_batch_that_erases_a_capture_then_captures_again_folds_as_one_by_one():
    record = _draft_record()
    key = record["id"]
    run = [_event("handoff.captured", key, {"handoff": record}),
           _event("handoff.archived", key, {"reason": "dropped"}, at="2026-09-02T15:00:01.5Z"),
           _event("handoff.captured", key, None),
           _event("handoff.captured", key, {"handoff": {**record, "updated_at": "2026-09-02T16:00:00Z"}})]
    one_by_one, doc = Handoffs(), None
    for event in run:
        doc = one_by_one.apply(key, doc, event)
    assert Handoffs().apply_all(key, None, run) == doc
    assert Handoffs().apply_all(key, None, run[:3]) is None


def test_a_rebuild_decodes_each_event_once_for_all_the_folds_that_read_it(project, monkeypatch):
    """The handoff, metrics, baton and scope folds all read an event's typed
    form; a batch keeps what was decoded (``baton.events.names.DECODED``),
    so the folds that take a document's events at once, after the others,
    do not decode them again."""
    from baton.events import base

    first = _capture(project)
    validate_handoff_command(project, first)
    promote_handoff(project, first)
    _capture(project)
    decoded: list[str] = []
    real = base._decode

    def counting(event):
        decoded.append(event.id)
        return real(event)

    monkeypatch.setattr(base, "_decode", counting)
    opened = Project.open(project)
    with opened.ledger.locked():
        opened.runner.rebuild()
    handoff_events = [e.id for e in opened.ledger.read_all() if e.stream.startswith("handoff/")]
    opened.close()
    assert len(handoff_events) >= 4 and set(handoff_events) <= set(decoded)
    assert len(decoded) == len(set(decoded))


def _rebuild_writing(project, monkeypatch, *, batch: int, held_bytes: int) -> tuple[dict, list, list[str]]:
    """A rebuild in batches of ``batch`` events after every file was removed:
    the files, the ``materialized`` rows, and each write (a path per write)."""
    from baton.config import write_bytes_atomic as real
    from baton.projections import runner as runner_module

    for folder in ("handoffs", "batons"):
        for path in (project / ".baton" / folder).glob("*.json"):
            path.unlink()
    writes: list[str] = []
    monkeypatch.setattr(runner_module, "REPLAY_BATCH", batch)
    monkeypatch.setattr(runner_module._HeldFiles, "HELD_BYTES", held_bytes)
    monkeypatch.setattr(runner_module, "write_bytes_atomic", lambda target, data: (writes.append(os.path.basename(target)),
                                                                                   real(target, data)))
    opened = Project.open(project)
    with opened.ledger.locked():
        opened.runner.rebuild()
    rows = sorted(opened.runner.db.execute("SELECT path, projection, key FROM materialized").fetchall())
    opened.close()
    return materialized(project), rows, writes


def test_a_rebuild_holds_a_file_while_its_document_changes_batch_after_batch(project, monkeypatch):
    """Batches of one event: a record changes in several batches in a row
    (captured, validated, promoted). Its file is held until a batch leaves
    it alone: fewer writes, the same files and rows as writing every
    batch's version (nothing held)."""
    _lived(project)
    files, rows, writes = _rebuild_writing(project, monkeypatch, batch=1, held_bytes=2 << 20)
    every_batch = _rebuild_writing(project, monkeypatch, batch=1, held_bytes=0)
    assert (files, rows) == every_batch[:2] and len(files) == 3
    assert set(writes) == set(files) and len(writes) < len(every_batch[2])


def test_a_rebuild_holds_no_file_past_its_bound_and_writes_it_at_once(project, monkeypatch):
    _lived(project)
    bounded = _rebuild_writing(project, monkeypatch, batch=1, held_bytes=100)  # less than any record's file
    assert bounded == _rebuild_writing(project, monkeypatch, batch=1, held_bytes=0)
    assert len(bounded[2]) > len(bounded[0])


def _baton_status_counts(project) -> tuple[dict[str, int], dict[str, int]]:
    """The session batons' records' counts the index keeps, and a ``GROUP BY`` over those rows."""
    opened = Project.open(project)
    try:
        db = opened.reading().db
        kept = dict(db.execute(f"SELECT status, n FROM {BATON_COUNTS_TABLE}").fetchall())
        grouped = dict(db.execute(f"SELECT status, COUNT(*) FROM {ROWS_TABLE} WHERE baton = 1 "
                                  "GROUP BY status").fetchall())
    finally:
        opened.close()
    return kept, grouped


def _leave_baton(capsys, project, session: str) -> None:
    from tests.cli_support import run_json

    run_json(capsys, project, "session", "end", session, "--handoff-steps", "Run the suite",
             "--owner", "alice@example.com", "--branch", "main")


def test_the_session_batons_status_counts_follow_their_records_and_a_replay(capsys, project):
    from baton.cli import main
    from tests.cli_support import run_json

    _capture(project)
    _leave_baton(capsys, project, "s-1")
    _leave_baton(capsys, project, "s-2")  # supersedes the first
    kept, grouped = _baton_status_counts(project)
    assert kept == grouped and sum(kept.values()) == 2
    newest = run_json(capsys, project, "handoff", "list", "--kind", "baton")["handoffs"][0]["id"]
    run_json(capsys, project, "handoff", "archive", newest)  # a baton's record changes status
    kept, grouped = _baton_status_counts(project)
    assert kept == grouped and sum(kept.values()) == 2 and kept.get("archived") == 1
    older = run_json(capsys, project, "handoff", "list", "--kind", "baton")["handoffs"][-1]["id"]
    run_json(capsys, project, "forget", older, "--yes", "--reason", "test")  # its row leaves the index
    kept, grouped = _baton_status_counts(project)
    assert kept == grouped and sum(kept.values()) == 1
    assert main(["rebuild", "--project", str(project)]) == 0
    assert _baton_status_counts(project) == (kept, grouped)
    opened = Project.open(project)
    try:
        counted = handoff_counts(opened.reading().db)
    finally:
        opened.close()
    assert counted == {"draft": 1} and run_json(capsys, project, "handoff", "list")["total"] == 1


def test_an_index_without_the_batons_status_counts_gets_them_from_its_rows_without_a_replay(capsys, project,
                                                                                         monkeypatch):
    _leave_baton(capsys, project, "s-1")
    _drop_index_table(project, BATON_COUNTS_TABLE)
    replays = []
    monkeypatch.setattr(ProjectionRunner, "_rebuild", lambda *a, **k: replays.append(a))  # must not be called
    kept, grouped = _baton_status_counts(project)
    assert kept == grouped and sum(kept.values()) == 1 and not replays


def test_an_index_built_before_rows_kept_the_capture_hlc_is_rebuilt_once_and_orders_by_it(project, monkeypatch):
    from baton.app import Baton

    ids = [_capture(project) for _ in range(2)]
    opened = Project.open(project)
    try:
        db = opened.reading().db
        signature = db.execute("SELECT value FROM meta WHERE key = 'signature'").fetchone()[0]
        db.execute("UPDATE handoff_rows SET hlc = NULL")  # what version 6 held: no hlc
        db.execute("UPDATE meta SET value = ? WHERE key = 'signature'",
                   [signature.replace(CURRENT, '["handoffs",6]')])
        db.conn.commit()
    finally:
        opened.close()
    replays = []
    monkeypatch.setattr(ProjectionRunner, "_rebuild", _counting(ProjectionRunner._rebuild, replays))
    with Baton.open(project) as app:
        rows = app.list_handoffs().to_json()["handoffs"]
    assert len(replays) == 1
    assert [row["id"] for row in rows] == ids[::-1]
    with Baton.open(project) as app:
        held = app.project.reading().db.execute("SELECT COUNT(*) FROM handoff_rows WHERE hlc > 0").fetchone()[0]
    assert held == 2
