"""The event classes of session batons (stream ``baton/<key>``), defined apart
from the rest of the catalogue (``baton.events.base``)."""

from __future__ import annotations

from baton.events import names
from baton.events.base import ID, IDS, TIME, DomainEvent, register
from baton.events.names import BATON

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any, ClassVar, Mapping

# -- session batons -----------------------------------------------------------------

OPERATIONS = frozenset({"handoff_created", "handoff_claimed", "handoff_cancelled", "handoff_dismissed"})
"""The spec's ``operation`` of each baton event (``domain.aggregates.baton.decide`` writes them)."""


class BatonEvent(DomainEvent):
    """The telemetry every baton event carries (the spec's sessionId, branch,
    owner, shared, handoffId), named as the spec's ``operation``."""

    STREAM = BATON
    ERASABLE: ClassVar[tuple[str, ...]] = ("owner", "branch")
    KEY_IN_DATA = True
    MINTED: ClassVar[Mapping[str, Any]] = {"operation": OPERATIONS, "handoff_id": ID}

    operation: Any = None
    handoff_id: Any = None
    owner: Any = None
    branch: Any = None
    shared: Any = False
    session: Any = None


@register
class BatonCreated(BatonEvent):
    TYPE = names.BATON_CREATED
    ERASABLE = ("owner", "branch", "payload")

    harness: Any = None
    supersedes: Any = None
    payload: Any = None
    """``{"nextSteps", "failedApproaches", "openQuestions"}`` as the baton carries them."""
    reason: Any = None
    """Why a baton already claimed is handed on again: ``unprompted`` (the session that claimed it
    ended before any request, so its brief reached no model: docs/batons.md, "A baton spent
    without reaching a model"); None for every other baton."""


@register
class BatonClaimed(BatonEvent):
    TYPE = names.BATON_CLAIMED
    MINTED = {**BatonEvent.MINTED, "claimed_at": TIME, "named_unseen": IDS}

    claimed_at: Any = None
    named_unseen: Any = None
    """The ids of the batons the claimed one named as superseded unseen or unread when it was
    claimed (the claiming session's brief named them); absent on claims recorded before it was
    kept (``domain.batons.missed_by_claim``)."""


@register
class BatonCancelled(BatonEvent):
    TYPE = names.BATON_CANCELLED


@register
class BatonDismissed(BatonEvent):
    TYPE = names.BATON_DISMISSED

    via: Any = None
    with_resume: Any = None
    """True: recorded in the batch of the ``handoff.resumed`` it follows (a resume on the writer's own
    clone settled it); absent: a session start met it after a resume made apart (or not a resume)."""
