"""Sessions and objectives folded by the session aggregate (``baton.projections.sessions``)."""

from __future__ import annotations

from baton.domain.aggregates.session import evolve_objective, evolve_session
from baton.events.names import split_stream
from baton.ledger.envelope import Event
from baton.projections.base import Doc
from baton.projections.sessions import ObjectivesBase, SessionsBase


class Sessions(SessionsBase):
    def apply(self, key: str, doc: Doc | None, event: Event) -> Doc | None:
        return evolve_session(doc, event, split_stream(event.stream)[1])  # ``key``: ``<writer>/<id>``


class Objectives(ObjectivesBase):
    def apply(self, key: str, doc: Doc | None, event: Event) -> Doc | None:
        return evolve_objective(doc, event, split_stream(event.stream)[1])
