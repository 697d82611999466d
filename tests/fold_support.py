"""What the batch-fold tests share: a projection's ``apply_all`` over one key's events against
folding them one by one (``apply``)."""

from __future__ import annotations

from typing import Any, Iterable

import orjson


def assert_batch_folds_like_one_by_one(projection: Any, key: str, run: list, cuts: Iterable[int]) -> None:
    """``projection().apply_all`` over ``run`` gives the bytes folding its events one by one gives:
    from nothing, from the document the projection kept after a first batch (``run[:cut]`` for each
    of ``cuts``), and from that document read back from the index (a later batch, another process)."""
    one_by_one, doc = projection(), None
    for event in run:
        doc = one_by_one.apply(key, doc, event)
    expected = orjson.dumps(doc)
    assert orjson.dumps(projection().apply_all(key, None, run)) == expected
    for cut in cuts:
        same = projection()  # the second batch starts from the model this projection kept
        assert orjson.dumps(same.apply_all(key, same.apply_all(key, None, run[:cut]), run[cut:])) == expected
        read_back = orjson.loads(orjson.dumps(projection().apply_all(key, None, run[:cut])))
        assert orjson.dumps(projection().apply_all(key, read_back, run[cut:])) == expected
