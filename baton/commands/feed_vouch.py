"""Whether the baton or handoff a session is handed comes from a feed a trusted key vouches
for (``baton.domain.feed_vouch``): the facts the rule needs, read cheaply.

The writer of a baton is in its key's document (``baton_creators``), a handoff's in its
row; a feed's signature verdict is the one ``baton sync`` recorded at import in
``.baton/sync-signers.json`` — no signature is checked here, and nothing is read at all
for a record this clone's own feed wrote. Whether signatures are required (which loads
the sync settings) is asked only of a record no trusted key vouches for.
"""

from __future__ import annotations

import os

from baton.config import read_local_json
from baton.domain.feed_vouch import GOOD, FeedVouch, copy_rule, judge, signers_record_problem, vouch
from baton.errors import BatonError, Conflict
from baton.policy import signing_required
from baton.projections.batons import baton_creators
from baton.projections.handoffs import authors_of
from baton.values import replace

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any, Iterable, Mapping

    from baton.commands.context import Project

SIGNERS_STATE = "sync-signers.json"
"""Where ``baton sync`` keeps each feed's verdict (``baton.sync.signing.STATE_FILE``)."""


def signer_statuses(project: "Project") -> dict[str, str]:
    """Every feed's verdict the last sync recorded, by writer (one file read; empty when none, or
    when the record is damaged — ``signers_record_problem``, or a link, a file too large — as
    ``baton.sync.signing.read_record`` reads it: no record vouches for any feed then)."""
    try:
        raw = read_local_json(os.path.join(project.paths.baton_folder, SIGNERS_STATE))
    except (FileNotFoundError, BatonError):
        return {}
    if signers_record_problem(raw) is not None:
        return {}
    return {writer: entry["status"] for writer, entry in raw["feeds"].items()}


def verdicts_stamp(project: "Project") -> tuple[int, int] | None:
    """What tells when sync's record of the verdicts changed (its file's mtime and size; None: none)."""
    try:
        st = os.stat(os.path.join(project.paths.baton_folder, SIGNERS_STATE))
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def signer_status(project: "Project", writer: str | None) -> str | None:
    """The verdict the last sync recorded on ``writer``'s feed; None when none was recorded."""
    return signer_statuses(project).get(writer) if writer is not None else None


MALFORMED_SETTING = "sync.require_signatures in .baton/config.json is not true or false"
"""Where the requirement comes from when the setting is malformed (it counts as required)."""


def signatures_required(project: "Project") -> tuple[bool, str]:
    """Whether the trusted policy requires signatures, as ``baton sync`` decides it
    (``baton.policy.signing_required``), and where that comes from as sync's refusals say it
    (``SignersInForce.required_by``); a malformed setting counts as required (a record is
    withheld rather than handed on unverified)."""
    value = project.config.section("sync").get("require_signatures", False)
    if not isinstance(value, bool):
        return True, MALFORMED_SETTING
    return signing_required(project.paths, project.policy, value)


def record_vouch(project: "Project", writer: str | None) -> FeedVouch | None:
    """The rule (``vouch``) for a record written by the feed ``writer`` (None: unknown)."""
    if writer is not None and writer == project.writer:
        return None
    status = signer_status(project, writer)
    if status == GOOD:
        return None
    required, required_by = signatures_required(project)
    return vouch(writer, my_writer=project.writer, status=status, required=required, required_by=required_by)


def judged(project: "Project", writers: Mapping[str, str | None]) -> dict[str, FeedVouch]:
    """The rule (``judge``) for many records at once (record id → the writer of its feed, None:
    unknown): only those no trusted key vouches for. Nothing is read when every record is this
    clone's own; the verdicts file once otherwise, and the sync settings (whether signatures are
    required) only when a record is not vouched for."""
    foreign = {w for w in writers.values() if w != project.writer}
    if not foreign:
        return {}
    statuses = signer_statuses(project)
    if all(w is not None and statuses.get(w) == GOOD for w in foreign):
        return {}
    required, required_by = signatures_required(project)
    return judge(writers, my_writer=project.writer, statuses=statuses, required=required, required_by=required_by)


def baton_writer(runner: Any, record: Any) -> str | None:
    """The writer that created the baton ``record`` (its key's ``recent`` records); None when they
    no longer name it."""
    doc = runner.get("batons", record.key)
    return baton_creators([(record.key, doc)]).get(record.id) if isinstance(doc, dict) else None


def baton_vouch(project: "Project", runner: Any, record: Any) -> FeedVouch | None:
    """The rule for the baton ``record``, which every path that delivers or claims a baton asks
    (the session-start brief, ``session begin``, ``session handoff``): the feed that left it, and
    — when that one is vouched for — the feed that captured the handoff it carries. A handoff
    handed on as a baton (``session handoff --from``) is left by this clone's own feed, but what
    it says is still the other writer's: it carries that handoff's mark, and is withheld with it."""
    found = record_vouch(project, baton_writer(runner, record))
    if found is not None or "handoffs" not in getattr(runner, "by_name", {}):
        return found
    writer, owner = authors_of(runner.db, [record.id]).get(record.id, ("", ""))
    found = record_vouch(project, writer) if writer else None
    return replace(found, author=owner or "") if found is not None else None


def batons_judged(project: "Project", runner: Any, records: Iterable[Any]) -> dict[str, FeedVouch]:
    """``baton_vouch`` for many batons at once (the pending ones a list shows): per baton id, those
    no trusted key vouches for — the verdicts file and the sync settings read at most twice in all."""
    wanted = list(records)
    found = judged(project, {r.id: baton_writer(runner, r) for r in wanted})
    rest = [r.id for r in wanted if r.id not in found]
    if rest and "handoffs" in getattr(runner, "by_name", {}):
        carried = authors_of(runner.db, rest)
        marked = judged(project, {ident: carried[ident][0] for ident in rest if carried.get(ident, ("",))[0]})
        found.update({ident: replace(mark, author=carried[ident][1] or "") for ident, mark in marked.items()})
    return found


def handoff_vouch(project: "Project", runner: Any, handoff_id: str) -> FeedVouch | None:
    """The rule for the handoff ``handoff_id`` (its row names the feed that captured it)."""
    writer, _owner = authors_of(runner.db, [handoff_id]).get(handoff_id, ("", ""))
    return record_vouch(project, writer or None)


def handoffs_judged(project: "Project", runner: Any, ids: Iterable[str]) -> dict[str, FeedVouch]:
    """The rule for the handoffs ``ids`` (one keyed query names each one's feed): those no trusted
    key vouches for."""
    wanted = list(ids)
    authors = authors_of(runner.db, wanted)
    return judged(project, {ident: (authors.get(ident, ("", ""))[0] or None) for ident in wanted})


def withheld_among(project: "Project", runner: Any, ids: Iterable[str]) -> dict[str, FeedVouch]:
    """Of the handoffs ``ids``, those withheld (from a feed no trusted key vouches for while
    signatures are required): what ``latest`` passes over (``latest.resolve_latest``)."""
    return {ident: found for ident, found in handoffs_judged(project, runner, ids).items() if found.withheld}


def check_copy(project: "Project", runner: Any, ids: Iterable[str]) -> tuple[str, ...]:
    """The rule for copying the handoffs ``ids`` into this clone's own feed (``copy_rule``): the
    lines to print for those from a feed no trusted key vouches for.

    Raises:
        Conflict (exit 4): one is withheld (signatures are required), in ``resume``'s words.
    """
    verdict = copy_rule(handoffs_judged(project, runner, ids))
    if verdict.refusal is not None and verdict.refused_feed is not None:
        raise Conflict(verdict.refusal, details={"id": verdict.refused_id, "feed": verdict.refused_feed.to_json()})
    return verdict.warnings
