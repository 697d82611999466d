"""The project's event: the ledger's first, naming the project."""

from __future__ import annotations

from baton.events import names
from baton.events.base import DomainEvent, register
from baton.events.names import PROJECT

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any

# -- project -----------------------------------------------------------------------

@register
class ProjectInitialized(DomainEvent):
    TYPE = names.PROJECT_INITIALIZED
    STREAM = PROJECT

    project_id: Any = None
    root_hint: Any = "."
