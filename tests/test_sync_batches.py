"""``baton sync`` of feeds whose batches straddle a segment boundary (docs/sync.md, "Layout of the ref").

The packer cuts a feed into segments at the ends of batches (the events of
one append, all-or-nothing), unless a batch is longer than a segment; an
older packer cut at any line. The importer carries a batch's first lines to
the next segment, so every published feed imports, whatever its cuts.
"""

from __future__ import annotations

import json
from pathlib import Path

from dulwich import porcelain
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baton.commands.context import Project
from baton.ledger import EventDraft
from tests.app_support import init_project
from tests.cli_support import run_json
from tests.sync_support import make_team, remote_feeds
from tests.sync_support import writer_of as _writer


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


def _publish_as_before(remote: Path, project: Path, limit: int) -> None:
    """Put ``project``'s own feed on the remote's ref cut at any line into
    segments of ``limit`` bytes, as Baton did before it cut at batch ends
    (the remote a team already has)."""
    from dulwich.repo import Repo

    from baton.ledger import segments
    from baton.ledger.feed import FeedHead, scan_bytes
    from baton.sync.ledger_ref import FeedTreeWriter, read_feeds, write_commit
    from tests.sync_support import REF

    writer = _writer(project)
    data = _feed(project, writer)
    saved = segments.SEGMENT_BYTES
    segments.SEGMENT_BYTES = limit
    try:
        with Repo(str(remote)) as repo:
            sha = repo.refs.as_dict().get(REF)
            feeds = read_feeds(repo, sha)
            base = feeds.get(writer)
            packer = FeedTreeWriter(repo, writer, base)
            packer.add(data[base.head.offset if base else 0:])  # no batch ends: any line
            feeds[writer] = packer.finish(scan_bytes(writer, data, FeedHead()).head)
            repo.refs[REF] = write_commit(repo, feeds, [sha] if sha else [], "an older packer\n", b"o <o@x>", 0)
    finally:
        segments.SEGMENT_BYTES = saved


def _fresh_clone(remote: Path, where: Path) -> Path:
    porcelain.clone(str(remote), str(where), errstream=__import__("io").BytesIO()).close()
    init_project(where)
    return where


def test_sync_never_cuts_a_segment_inside_a_batch_shorter_than_a_segment(capsys, tmp_path, monkeypatch):
    from baton.ledger import segments

    remote, a, _b = make_team(tmp_path)
    _append(a, [{"n": 1}], [{"n": 2, "pad": "x" * 300}, {"n": 3}, {"n": 4}], [{"n": 5}])
    raw = _feed(a, _writer(a))
    inside = _batch_cuts(raw)
    batch_end = raw.index(b"\n", inside[-1]) + 1
    # the batch fits in a segment, but the last line end within one is inside it
    monkeypatch.setattr(segments, "SEGMENT_BYTES", batch_end - 1)
    run_json(capsys, a, "sync")
    starts = [start for start, _ in remote_feeds(remote)[_writer(a)].segments]
    assert len(starts) >= 2 and not set(starts) & set(inside)


def test_a_batch_straddling_a_segment_boundary_imports_whole_in_a_fresh_clone_and_verifies(capsys, tmp_path):
    remote, a, _b = make_team(tmp_path)
    _append(a, [{"n": 1}], [{"n": 2, "pad": "x" * 300}, {"n": 3}, {"n": 4}], [{"n": 5}])
    raw = _feed(a, _writer(a))
    cut = _batch_cuts(raw)[0]  # the end of the batch's first line
    _publish_as_before(remote, a, cut)  # the greedy line packer closes the first segment there
    assert cut in [start for start, _ in remote_feeds(remote)[_writer(a)].segments]
    fresh = _fresh_clone(remote, tmp_path / "fresh")
    result = run_json(capsys, fresh, "sync")
    assert result["refused"] == []
    assert result["imported"][_writer(a)] == len(raw.splitlines())
    assert _feed(fresh, _writer(a)) == raw
    run_json(capsys, fresh, "verify")


def test_an_import_resuming_inside_a_feed_carries_a_straddling_batch_to_the_next_segment(capsys, tmp_path):
    remote, a, b = make_team(tmp_path)
    _append(a, [{"n": 1}])
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")  # b holds a's feed up to here
    synced = len(_feed(a, _writer(a)))
    _append(a, [{"n": 2}, {"n": 3, "pad": "y" * 200}, {"n": 4}], [{"n": 5}])
    raw = _feed(a, _writer(a))
    cut = next(c for c in _batch_cuts(raw) if c > synced)
    _publish_as_before(remote, a, cut - synced)  # a new segment begins where b stopped, and one inside the batch
    assert cut in [start for start, _ in remote_feeds(remote)[_writer(a)].segments]
    result = run_json(capsys, b, "sync")
    assert result["refused"] == [] and result["imported"][_writer(a)] == 4
    assert _feed(b, _writer(a)) == raw
    run_json(capsys, b, "verify")


_SHAPES = st.lists(st.lists(st.integers(min_value=0, max_value=400), min_size=1, max_size=4), min_size=2, max_size=6)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(shapes=_SHAPES, limit=st.integers(min_value=60, max_value=2000), as_before=st.booleans())
def test_feeds_of_any_batch_shape_cut_at_any_segment_size_import_every_event(capsys, tmp_path_factory, shapes,
                                                                              limit, as_before):
    from baton.ledger import segments

    tmp = tmp_path_factory.mktemp("shape")
    remote, a, _b = make_team(tmp)
    _append(a, *[[{"pad": "z" * size} for size in batch] for batch in shapes])
    raw = _feed(a, _writer(a))
    if as_before:  # cut at any line, as an older Baton published
        _publish_as_before(remote, a, limit)
    else:  # cut at batch ends, unless a batch is longer than a segment
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
