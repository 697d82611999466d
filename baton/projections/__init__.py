"""Projections: pure folds of the ledger's events into queryable state.

A projection is a set of documents keyed by string. For every event it names
the keys the event touches and a pure reducer ``apply(key, doc, event) ->
doc | None`` (``None`` deletes). The runner (``runner.py``) persists documents
and feed cursors in one SQLite transaction and may materialize documents as
files; reducers never see SQLite or the file system.

A projection that folds with a decider is two classes: its routing (name,
version, ``keys``, query tables and queries) in ``<name>.py``, and its fold
(``apply``) in ``folds/<name>.py``, loaded by ``registry.py`` when an event
first touches it.
"""

from baton.projections.base import Projection

__all__ = ["Projection"]
