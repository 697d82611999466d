"""Projections: pure folds of the ledger's events into queryable state.

A projection is a set of documents keyed by string. For every event it names
the keys the event touches and a pure reducer ``apply(key, doc, event) ->
doc | None`` (``None`` deletes). The runner (``runner.py``) persists documents
and feed cursors in one SQLite transaction and may materialize documents as
files; reducers never see SQLite or the file system.
"""

from baton.projections.base import Projection

__all__ = ["Projection"]
