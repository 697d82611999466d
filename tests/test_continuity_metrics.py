"""``baton metrics --local``: spec §17's figures from the ``continuity_metrics`` projection."""

from __future__ import annotations

import sqlite3

import orjson

from baton.commands.metrics import MetricsResult
from baton.events.catalogue import (
    HandoffCaptured,
    HandoffForgotten,
    HandoffPromoted,
    HandoffResumed,
    HandoffValidated,
)
from baton.projections.continuity_metrics import totals
from baton.projections.folds.continuity_metrics import ContinuityMetrics
from tests.cli_support import run, run_json
from tests.events_support import recorded

H = "01a23400-0000-7000-8000-000000000001"


def fold(*events):
    projection, docs = ContinuityMetrics(), {}
    for event in events:
        for key in projection.keys(event):
            docs[key] = projection.apply(key, docs.get(key), event)
    return {k: v for k, v in docs.items() if v is not None}


def db_of(docs):
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE docs (projection TEXT, key TEXT, doc TEXT)")
    db.executemany("INSERT INTO docs VALUES ('continuity_metrics', ?, ?)",
                   [(k, orjson.dumps(v).decode()) for k, v in docs.items()])
    return db


def captured(key=H, trigger="manual", reasons=(), at="2026-09-02T15:00:00.000000Z"):
    body = {"id": key, "automation": {"trigger": trigger, "reasons": list(reasons)}}
    return recorded(HandoffCaptured(key=key, handoff=body), at=at)


def test_a_threshold_capture_is_a_recommendation_and_a_preparation():
    figures = totals(db_of(fold(captured(trigger="threshold"))))
    assert (figures["recommendations"], figures["preparations"]) == (1, 1)


def test_a_hook_draft_is_a_preparation_and_a_manual_capture_is_neither():
    docs = fold(captured(trigger="hook"), captured(key=H[:-1] + "2"))
    figures = totals(db_of(docs))
    assert (figures["recommendations"], figures["preparations"], figures["handoffs"]) == (0, 1, 2)


def test_a_manual_capture_with_detector_reasons_counts_as_a_recommendation():
    assert totals(db_of(fold(captured(reasons=["context_pressure"]))))["recommendations"] == 1


def test_validation_outcomes_are_counted_by_report_status():
    docs = fold(captured(), recorded(HandoffValidated(key=H, report={"status": "fail"})),
                recorded(HandoffValidated(key=H, report={"status": "pass"})))
    assert totals(db_of(docs))["validation_outcomes"] == {"fail": 1, "pass": 1}


def test_time_to_ready_runs_from_capture_to_promotion():
    other = H[:-1] + "2"
    docs = fold(captured(), recorded(HandoffPromoted(key=H), at="2026-09-02T15:01:00.000000Z"),
                captured(key=other), recorded(HandoffPromoted(key=other), at="2026-09-02T15:03:00.000000Z"))
    ready = totals(db_of(docs))["time_to_ready"]
    assert ready == {"count": 2, "median_seconds": 120.0, "mean_seconds": 120.0, "max_seconds": 180.0}


def test_resumes_and_stale_resumes_are_counted():
    docs = fold(captured(), recorded(HandoffResumed(key=H, freshness_state="stale")),
                recorded(HandoffResumed(key=H, freshness_state="fresh")))
    figures = totals(db_of(docs))
    assert (figures["resumes"], figures["stale_on_resume"]) == (2, 1)


def test_a_forgotten_handoff_leaves_no_metrics_document():
    assert fold(captured(), recorded(HandoffForgotten(key=H, handoff=H, events=[]))) == {}


def test_metrics_local_reports_the_continuity_figures(capsys, project):
    created = run_json(capsys, project, "checkpoint", "create", "--title", "t", "--objective", "o",
                       "--trigger", "threshold")
    run_json(capsys, project, "handoff", "validate", created["id"], expect=3)
    continuity = run_json(capsys, project, "metrics", "--local")["continuity"]
    assert continuity["recommendations"] == continuity["preparations"] == 1
    assert sum(continuity["validation_outcomes"].values()) == 1


def test_metrics_reads_the_projection_not_the_ledger(capsys, project, monkeypatch):
    run_json(capsys, project, "checkpoint", "create", "--title", "t", "--objective", "o")
    run_json(capsys, project, "metrics")  # the index is current

    def refuse(*_a, **_k):
        raise AssertionError("metrics reread the ledger")

    monkeypatch.setattr("baton.ledger.store.Ledger.read_all", refuse)
    monkeypatch.setattr("baton.ledger.store.Ledger.read_feed", refuse)
    assert run_json(capsys, project, "metrics")["continuity"]["handoffs"] == 1


def test_metrics_text_gives_no_median_time_to_ready_before_anything_was_promoted(capsys, project):
    run_json(capsys, project, "checkpoint", "create", "--title", "t", "--objective", "o")
    code, out, _ = run(capsys, project, "metrics")
    [line] = [line for line in out.splitlines() if "time to ready" in line]
    assert code == 0 and line.split() == ["time", "to", "ready", "0", "promoted"]


def test_metrics_text_gives_the_median_time_to_ready_in_seconds():
    continuity = {"recommendations": 0, "preparations": 0, "validation_outcomes": {}, "resumes": 0,
                  "stale_on_resume": 0, "time_to_ready": {"count": 2, "median_seconds": 120.0}}
    text = MetricsResult({"events_total": 3}, {}, [], continuity).render()
    assert "time to ready       2 promoted, median 120 s" in text
