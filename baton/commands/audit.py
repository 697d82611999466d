"""``baton audit``: what the project holds about its work, for an operator (spec §16).

Enumerates, never shows: the data fields the records hold (names and how
many records fill each), the redactions made (counts per rule, never a
value), external references (artifacts and evidence, counted by kind), the
policy in force, the payloads already erased by ``baton forget``, and the
records eligible for user-directed deletion (``baton forget ID``). Nothing is
ever deleted by Baton on its own (§16: no automatic destructive retention).

Fields, references and eligible records come from the projections; the
redaction counts and erasures from one pass over the ledger (the events, not
the records, say what was redacted, and ``audit`` is an operator's command,
like ``verify``, not a hook's).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

import attrs

from baton.domain.aggregates.session import OBJECTIVE_INDEX_FIELDS
from baton.domain.forgetting import erased_by
from baton.domain.wording import counted
from baton.model import frozen
from baton.projections import handoffs
from baton.sync.signers import feed_signers

if TYPE_CHECKING:
    from baton.commands.context import Project

AUDITED_PROJECTIONS = ("handoffs", "batons", "sessions", "objectives")
RECORD_NOUNS = {"handoffs": "handoff", "batons": "baton", "sessions": "session", "objectives": "objective"}
"""One record of each audited projection, in the singular (``1 handoff``)."""
ELIGIBLE_STATUSES = ("archived", "superseded")
"""Records no longer resumable: the first candidates for deletion (any handoff may be forgotten)."""


@frozen
class AuditResult:
    fields: dict[str, dict[str, int]]
    redactions: dict[str, int]
    references: dict[str, Any]
    policy: dict[str, Any]
    erased: dict[str, int]
    eligible: list[dict[str, str]]
    records: dict[str, int] = attrs.field(factory=dict)
    signers: list[dict[str, Any]] = attrs.field(factory=list)
    """Signed feeds (docs/sync.md): each writer's signer, as the last ``baton sync`` checked it."""
    baton_records: int = 0
    """Of ``records["handoffs"]``, those of session batons (``handoff list`` counts the others)."""

    def to_json(self) -> dict[str, Any]:
        return {"records": dict(self.records), "baton_records": self.baton_records, "fields": self.fields, "redactions": dict(self.redactions),
                "references": self.references, "policy": self.policy, "erased": dict(self.erased),
                "eligible_for_deletion": list(self.eligible), "signers": list(self.signers)}

    def render(self) -> str:
        batons = self.baton_records
        of_them = {0: "", 1: " (1 of them a session baton)"}.get(batons, f" ({batons} of them session batons)")
        lines = ["Records: " + (", ".join(counted(n, RECORD_NOUNS.get(name, name), name)
                                          + (of_them if name == "handoffs" else "")
                                          for name, n in self.records.items()) or "none")]
        for name, fields in self.fields.items():
            if fields:
                lines.append(f"Fields of {name}: " + ", ".join(f"{f} ({n})" for f, n in fields.items()))
        total = sum(self.redactions.values())
        lines.append(f"Redactions: {total}" + (" — " + ", ".join(f"{rule} {n}" for rule, n in
                                                                self.redactions.items()) if total else ""))
        refs = self.references
        lines.append(f"External references: {counted(refs['artifacts'], 'artifact')}, evidence "
                     + (", ".join(f"{kind} {n}" for kind, n in refs["evidence"].items()) or "none")
                     + (f"; allowed roots outside the project: {', '.join(refs['allowed_roots'])}"
                        if refs["allowed_roots"] else ""))
        lines.append(f"Policy: {counted(len(self.policy.get('rules', [])), 'redaction rule')} from "
                     + (", ".join(self.policy.get("sources") or []) or "the defaults"))
        trust = self.policy.get("trust") or {}
        widening = ", ".join(dict.fromkeys(k for found in (trust.get("settings") or {}).values() for k in found))
        if trust.get("state") == "untrusted":
            lines.append(f"Policy trust: untrusted, not applied: {widening} (ask the user to review "
                         "them, `baton policy show`, and trust them)")
        elif trust.get("state") == "trusted":
            lines.append(f"Policy trust: trusted in this clone: {widening} apply")
        else:
            lines.append("Policy trust: no setting of the policy widens it, nothing to trust")
        lines.append(f"Erased by forget: {counted(self.erased['payloads'], 'payload')} of "
                     f"{counted(self.erased['handoffs'], 'handoff')}")
        for s in self.signers:
            lines.append(f"Signer of feed {s['feed']}: " + (s["signer"] or "-") + f" ({s['status']})")
        if self.eligible:
            lines.append(f"Eligible for deletion ({len(self.eligible)}; `baton forget ID`):")
            lines.extend(f"  {r['id']}  {r['status']:<10}  {r['created_at']}" for r in self.eligible[:SHOWN_ELIGIBLE])
            if len(self.eligible) > SHOWN_ELIGIBLE:
                lines.append(f"  … and {len(self.eligible) - SHOWN_ELIGIBLE} more, newer (`baton --json audit` "
                             "lists every one)")
        else:
            lines.append("Eligible for deletion: none archived or superseded (any handoff may be forgotten)")
        return "\n".join(lines)


SHOWN_ELIGIBLE = 20
"""The text lists this many of the records eligible for deletion, the oldest
(``--json`` all): a year of a team's use has thousands (6,667 lines at
13,000 handoffs, the rest of the report lost above them)."""


PROGRESS_EVERY = 2000
"""How often ``audit_project`` tells its ``progress``: a ledger this small says nothing."""


def audit_project(project: "Project", progress: Callable[[int, int], None] | None = None) -> AuditResult:
    """``progress(done, about)``: events read so far, of about how many (the
    index's count of them), every ``PROGRESS_EVERY`` and once at the end.

    Raises: StorageError, LedgerCorrupt."""
    runner = project.reading()
    fields = {name: _field_counts(_records(name, (doc for _key, doc in runner.docs(name))))
              for name in AUDITED_PROJECTIONS}
    counts = runner.counts()
    records = {name: counts.get(name, 0) for name in AUDITED_PROJECTIONS}
    records["objectives"] = sum(1 for _ in _records("objectives", (doc for _key, doc in runner.docs("objectives"))))
    references = _references(doc for _key, doc in runner.docs("handoffs"))
    policy = project.policy
    references["allowed_roots"] = [str(p) for p in policy.allowed_roots]
    eligible = [{"id": doc.get("id", key), "status": doc.get("status"), "created_at": doc.get("created_at")}
                for key, doc in runner.docs("handoffs") if doc.get("status") in ELIGIBLE_STATUSES]
    redactions: dict[str, int] = {}
    erased, forgotten = 0, 0
    about = sum(doc.get("count", 0) for _key, doc in runner.docs("event_counts")
                if isinstance(doc.get("count"), int)) if progress is not None else 0
    count = 0
    for count, event in enumerate(project.ledger.iter_all(), 1):  # a chunk of each feed at a time
        if progress is not None and not count % PROGRESS_EVERY:
            progress(count, max(count + 1, about))  # never "done" here: the last call says so
        if event.erased:
            erased += 1
            continue
        if erased_by(event):
            forgotten += 1
        for rule in _redaction_rules(event.data):
            redactions[rule] = redactions.get(rule, 0) + 1
    if progress is not None and count >= PROGRESS_EVERY:
        progress(count, count)
    signers = [s.to_json() for s in feed_signers(project, project.ledger.feed_names())]
    return AuditResult(fields=fields, redactions=dict(sorted(redactions.items())), references=references,
                       policy=policy.to_json(), erased={"payloads": erased, "handoffs": forgotten},
                       eligible=sorted(eligible, key=lambda r: (r["created_at"] or "", r["id"])), records=records,
                       signers=signers, baton_records=handoffs.count_baton_records(runner.db))


def _filled(value: Any) -> bool:
    return value not in (None, "", [], {}, ())


def _records(name: str, docs: Iterable[Any]) -> Iterator[Any]:
    """The records a projection's documents hold: an objective document that only remembers
    when a session ended is none, and the merge keys an objective keeps are the index's own
    (``OBJECTIVE_INDEX_FIELDS``), not fields of the record."""
    if name != "objectives":
        yield from docs
        return
    for doc in docs:
        if isinstance(doc, dict) and isinstance(doc.get("objective"), str):
            yield {k: v for k, v in doc.items() if k not in OBJECTIVE_INDEX_FIELDS}


def _field_counts(docs: Any) -> dict[str, int]:
    """Field name (one level into objects: ``work.objective``) → records that fill it."""
    counts: dict[str, int] = {}
    for doc in docs:
        if not isinstance(doc, dict):
            continue
        for name, value in doc.items():
            if isinstance(value, dict) and value:
                for inner, nested in value.items():
                    if _filled(nested):
                        counts[f"{name}.{inner}"] = counts.get(f"{name}.{inner}", 0) + 1
            elif _filled(value):
                counts[name] = counts.get(name, 0) + 1
    return dict(sorted(counts.items()))


def _references(docs: Any) -> dict[str, Any]:
    artifacts = 0
    evidence: dict[str, int] = {}
    for doc in docs:
        artifacts += len(doc.get("artifacts") or [])
        for item in doc.get("evidence") or []:
            kind = item.get("type") if isinstance(item, dict) else None
            kind = kind if isinstance(kind, str) else "unknown"
            evidence[kind] = evidence.get(kind, 0) + 1
    return {"artifacts": artifacts, "evidence": dict(sorted(evidence.items()))}


def _redaction_rules(data: Any) -> list[str]:
    """The rule of each redaction one event records (the last screen's
    ``_redacted``, a command's ``redactions``, a handoff body's own list),
    each field path and rule counted once per event."""
    if not isinstance(data, dict):
        return []
    lists = [data.get("_redacted"), data.get("redactions")]
    body = data.get("handoff")
    if isinstance(body, dict):
        lists.append(body.get("redactions"))
    seen: set[tuple[Any, str]] = set()
    for records in lists:
        for r in records if isinstance(records, list) else []:
            if isinstance(r, dict) and isinstance(r.get("rule"), str):
                seen.add((str(r.get("field")), r["rule"]))
    return [rule for _field, rule in sorted(seen)]
