"""``baton sync`` of feeds whose batches straddle a segment boundary (docs/sync.md, "Layout of the ref").

The packer cuts a feed into segments at whole lines; a batch (the events of
one append, all-or-nothing) may run across a cut. The importer carries the
batch's first lines to the next segment, so every published feed imports,
whatever the cut.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dulwich import porcelain
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baton.commands.context import Project
from baton.ledger import EventDraft
from tests.app_support import init_project
from tests.cli_support import run_json
from tests.sync_support import make_team, remote_feeds


def _writer(project: Path) -> str:
    return json.loads((project / ".baton" / "local.json").read_text())["writer"]


def _feed(project: Path, writer: str) -> bytes:
    return (project / ".baton" / "ledger" / f"{writer}.jsonl").read_bytes()


def _append(project: Path, *batches: list[dict]) -> None:
    """Append each batch (a list of payloads) as one append: one event is a
    plain line, two or more a batch."""
    opened = Project.open(project)
    try:
        with opened.ledger.locked() as tx:
            for payloads in batches:
                tx.append([EventDraft("test.noted", "test/straddle", payload) for payload in payloads])
    finally:
        opened.close()


def _batch_cuts(raw: bytes) -> list[int]:
    """Every byte offset in ``raw`` that ends a line inside a batch (not its last line)."""
    cuts, pos = [], 0
    for line in raw.splitlines(keepends=True):
        pos += len(line)
        batch = json.loads(line).get("batch")
        if batch and batch["n"] < batch["of"]:
            cuts.append(pos)
    return cuts


def _fresh_clone(remote: Path, where: Path) -> Path:
    porcelain.clone(str(remote), str(where), errstream=__import__("io").BytesIO()).close()
    init_project(where)
    return where


def test_a_batch_straddling_a_segment_boundary_imports_whole_in_a_fresh_clone_and_verifies(
        capsys, tmp_path, monkeypatch):
    from baton.ledger import segments

    remote, a, _b = make_team(tmp_path)
    _append(a, [{"n": 1}], [{"n": 2, "pad": "x" * 300}, {"n": 3}, {"n": 4}], [{"n": 5}])
    raw = _feed(a, _writer(a))
    cut = _batch_cuts(raw)[0]  # the end of the batch's first line
    monkeypatch.setattr(segments, "SEGMENT_BYTES", cut)  # the greedy packer closes the first segment there
    run_json(capsys, a, "sync")
    starts = [start for start, _ in remote_feeds(remote)[_writer(a)].segments]
    assert cut in starts  # the remote's segments really cut the batch
    fresh = _fresh_clone(remote, tmp_path / "fresh")
    result = run_json(capsys, fresh, "sync")
    assert result["refused"] == []
    assert result["imported"][_writer(a)] == len(raw.splitlines())
    assert _feed(fresh, _writer(a)) == raw
    run_json(capsys, fresh, "verify")


def test_an_import_resuming_inside_a_feed_carries_a_straddling_batch_to_the_next_segment(
        capsys, tmp_path, monkeypatch):
    from baton.ledger import segments

    remote, a, b = make_team(tmp_path)
    _append(a, [{"n": 1}])
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")  # b holds a's feed up to here
    synced = len(_feed(a, _writer(a)))
    _append(a, [{"n": 2}, {"n": 3, "pad": "y" * 200}, {"n": 4}], [{"n": 5}])
    raw = _feed(a, _writer(a))
    cut = next(c for c in _batch_cuts(raw) if c > synced)
    monkeypatch.setattr(segments, "SEGMENT_BYTES", cut - synced)  # a new segment begins where b stopped
    run_json(capsys, a, "sync")
    assert cut in [start for start, _ in remote_feeds(remote)[_writer(a)].segments]
    result = run_json(capsys, b, "sync")
    assert result["refused"] == [] and result["imported"][_writer(a)] == 4
    assert _feed(b, _writer(a)) == raw
    run_json(capsys, b, "verify")


_SHAPES = st.lists(st.lists(st.integers(min_value=0, max_value=400), min_size=1, max_size=4), min_size=2, max_size=6)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(shapes=_SHAPES, limit=st.integers(min_value=60, max_value=2000))
def test_feeds_of_any_batch_shape_cut_at_any_segment_size_import_every_event(capsys, tmp_path_factory, shapes,
                                                                              limit):
    from baton.ledger import segments

    tmp = tmp_path_factory.mktemp("shape")
    remote, a, _b = make_team(tmp)
    _append(a, *[[{"pad": "z" * size} for size in batch] for batch in shapes])
    raw = _feed(a, _writer(a))
    saved = segments.SEGMENT_BYTES
    segments.SEGMENT_BYTES = limit
    try:
        run_json(capsys, a, "sync")
    finally:
        segments.SEGMENT_BYTES = saved
    fresh = _fresh_clone(remote, tmp / "fresh")
    result = run_json(capsys, fresh, "sync")
    assert result["refused"] == []
    assert _feed(fresh, _writer(a)) == raw
