"""The projections a project keeps. Order matters only for readability:
each projection folds every event independently of the others.

A projection whose fold needs a decider (an aggregate, the event classes,
the record model) is registered as a ``Deferred``: its light class in
``baton.projections`` (name, version, order, query tables, ``keys``) is all
a command needs to open the index and route events, and its fold in
``baton.projections.folds`` is imported the first time it is used, so a
command whose feeds gained nothing never defines an event class. This
table is the one place that names those modules (as ``baton.events.names``
does for the event classes).
"""

from __future__ import annotations

from baton.projections.base import Projection
from baton.projections.batons import BatonsBase, BatonScopesBase
from baton.projections.continuity_metrics import ContinuityMetricsBase
from baton.projections.detector import DetectorBase
from baton.projections.event_counts import EventCounts, Streams
from baton.projections.handoffs import HandoffsBase
from baton.projections.lineage import LineageBase
from baton.projections.sessions import ObjectivesBase, SessionsBase

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any

FOLDS = "baton.projections.folds"
_FOLD_MEMBERS = ("apply", "apply_all", "materialize", "setup_index", "reset_index", "index", "fold")
"""What a fold may add to its routing class (``base.Materializing``, ``base.Indexing``, ``Batons.fold``)."""


class Deferred:
    """A projection whose fold is imported on first use.

    ``name``, ``version``, ``order``, ``index_tables``, ``keys`` and
    ``late_bounds`` are the light class's (``base``); any other member (``apply``, ``materialize``,
    ``setup_index``, ``index``...) is the fold's: an instance of the class
    ``fold`` names (``"module:Class"``), a subclass of ``base``'s class.
    The runner binds ``apply`` for every projection before a batch, but only
    a projection that an event touches calls it: only its fold is loaded.
    """

    def __init__(self, base: Any, fold: str) -> None:
        self.name = base.name
        self.version = base.version
        self.order = base.order
        self.index_tables = getattr(base, "index_tables", ())
        self.keys = base.keys
        self.types = getattr(base, "types", None)  # here, not through ``__getattr__`` (which loads the fold)
        self.folds_runs = getattr(base, "folds_runs", False)
        self.late_bounds = getattr(base, "late_bounds", None)  # the runner asks it of a late event
        self.keeps_before_loss = getattr(base, "keeps_before_loss", False)  # the runner asks it of a rebuilt file
        self.fold_path = fold
        self._fold: Any = None

    @property
    def loaded(self) -> Any:
        """The projection that folds (imported and made on first use)."""
        if self._fold is None:
            module, _, cls = self.fold_path.partition(":")
            self._fold = fold = getattr(__import__(module, fromlist=[cls]), cls)()
            for member in _FOLD_MEMBERS:  # found from now on as plain attributes
                if hasattr(fold, member):
                    setattr(self, member, getattr(fold, member))
        return self._fold

    def apply(self, key: str, doc: Any, event: Any) -> Any:
        """The fold's ``apply``; the first call loads the fold, and binds its
        ``apply`` here for the runner's next batch (no call in between)."""
        apply = self.apply = self.loaded.apply  # type: ignore[method-assign]  # the fold's own, from now on
        return apply(key, doc, event)

    def __getattr__(self, member: str) -> Any:
        if member.startswith("_") or self._fold is not None:
            raise AttributeError(member)  # a loaded fold's members are already attributes
        return getattr(self.loaded, member)


def default_projections() -> list[Projection]:
    return [Streams(), EventCounts(),
            Deferred(BatonsBase(), f"{FOLDS}.batons:Batons"),
            Deferred(BatonScopesBase(), f"{FOLDS}.batons:BatonScopes"),
            Deferred(SessionsBase(), f"{FOLDS}.sessions:Sessions"),
            Deferred(ObjectivesBase(), f"{FOLDS}.sessions:Objectives"),
            Deferred(HandoffsBase(), f"{FOLDS}.handoffs:Handoffs"),
            Deferred(LineageBase(), f"{FOLDS}.lineage:Lineage"),
            Deferred(DetectorBase(), f"{FOLDS}.detector:Detector"),
            Deferred(ContinuityMetricsBase(), f"{FOLDS}.continuity_metrics:ContinuityMetrics")]
