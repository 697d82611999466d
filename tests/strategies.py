"""Hypothesis strategies for handoff records, shared by every test that needs one.

``handoffs()`` builds any structurally valid record (draft through archived,
with unknown fields sprinkled at every level when ``with_extra``);
``handoff_jsons()`` is the same as canonical JSON. All data is synthetic.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone

import attrs
from hypothesis import strategies as st

from baton.domain import handoff as m

# Text that orjson can encode (no lone surrogates) and that stays short.
text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=24)
words = st.text(st.characters(whitelist_categories=("Ll", "Lu", "Nd"), max_codepoint=0x24F), min_size=1, max_size=12)
labels = st.from_regex(r"[A-Z]-[0-9]{3}", fullmatch=True)


def opt(strategy):
    return st.none() | strategy


def seqs(strategy, max_size: int = 3):
    return st.lists(strategy, max_size=max_size).map(tuple)


@st.composite
def uuid7s(draw) -> str:
    """UUIDv7 strings built from drawn bits (deterministic, unlike minting)."""
    ms = draw(st.integers(min_value=0, max_value=(1 << 48) - 1))
    rand_a = draw(st.integers(min_value=0, max_value=0xFFF))
    rand_b = draw(st.integers(min_value=0, max_value=(1 << 62) - 1))
    value = (ms << 80) | (0x7 << 76) | (rand_a << 64) | (0b10 << 62) | rand_b
    return str(uuid.UUID(int=value))


_EPOCH = datetime(2020, 1, 1, tzinfo=timezone.utc)


@st.composite
def timestamps(draw) -> str:
    """RFC 3339 UTC, with or without fractional seconds."""
    seconds = draw(st.integers(min_value=0, max_value=20 * 365 * 86400))
    moment = _EPOCH + timedelta(seconds=seconds)
    base = moment.strftime("%Y-%m-%dT%H:%M:%S")
    frac = draw(st.sampled_from(["", ".000", ".123456"]))
    return base + frac + "Z"


json_scalars = st.none() | st.booleans() | st.integers(-1000, 1000) | text
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(words, children, max_size=3),
    max_leaves=6,
)


def extras(cls, with_extra: bool):
    """Unknown fields for ``cls``: keys that are never one of its own JSON keys."""
    if not with_extra:
        return st.just({})
    return st.dictionaries(st.from_regex(r"x_[a-z]{1,6}", fullmatch=True), json_values, max_size=2)


def _builds(cls, with_extra: bool, **fields):
    return st.builds(cls, **fields, extra=extras(cls, with_extra))


def handoffs(*, with_extra: bool = True, status=None):
    """Any structurally valid handoff (the reader accepts it; it may fail §10 checks)."""
    E = with_extra
    repository = _builds(m.Repository, E, vcs=st.just("git"), remote_hint=opt(text), head=opt(st.from_regex(r"[0-9a-f]{7,40}", fullmatch=True)), dirty=opt(st.booleans()))
    project = _builds(m.Project, E, id=words.map(lambda w: "sha256:" + w), root_hint=opt(text), repository=opt(repository))
    actor = _builds(m.Actor, E, type=st.sampled_from(["agent", "human", "mixed"]), name=opt(text))
    origin = _builds(m.Origin, E, harness=opt(st.sampled_from(["codex", "claude-code", "cursor", "gemini-cli", "generic", "other"])),
                     adapter_version=opt(text), session_id=opt(text), model=opt(text), actor=opt(actor))
    work = _builds(m.Work, E, title=text, objective=text, scope=seqs(text), constraints=seqs(text),
                   definition_of_done=seqs(text), state=opt(st.sampled_from(["in_progress", "completed", "blocked"])))
    summary = _builds(m.Summary, E, completed=seqs(text), in_progress=seqs(text), discoveries=seqs(text),
                      current_state=opt(text), why_it_matters=opt(text))
    decision = _builds(m.Decision, E, id=labels, decision=text, rationale=opt(text), alternatives_considered=seqs(text),
                       evidence_ids=seqs(labels), made_at=opt(timestamps()),
                       kind=opt(st.sampled_from(["decision", "merge_resolution"])), resolves=seqs(labels))
    artifact = _builds(m.Artifact, E, path=text, role=st.sampled_from(["modified", "created", "read", "generated", "deleted"]),
                       description=opt(text), revision=opt(text), content_hash=opt(text), sensitive=st.booleans())
    evidence = _builds(m.Evidence, E, id=labels, type=st.sampled_from(["command", "test", "file", "commit", "url", "human", "observation"]),
                       claim=text, ref=opt(text), captured_at=opt(timestamps()), result=opt(text), digest=opt(text))
    attempt = _builds(m.FailedAttempt, E, id=labels, approach=text, outcome=st.sampled_from(["failed", "regressed", "abandoned"]),
                      reason=opt(text), evidence_ids=seqs(labels), avoid_repeating=st.booleans())
    open_item = _builds(m.OpenItem, E, id=labels, description=text, priority=opt(st.sampled_from(["high", "medium", "low"])),
                        suggested_action=opt(text), blocked_by=seqs(labels), acceptance_check=opt(text))
    risk = _builds(m.Risk, E, description=text, severity=opt(st.sampled_from(["high", "medium", "low"])), mitigation=opt(text))
    check = _builds(m.Check, E, name=st.sampled_from(["schema", "policy", "artifacts", "lineage", "quality"]),
                    status=st.sampled_from(["pass", "warn", "fail"]), detail=text, paths=seqs(text))
    freshness = _builds(m.Freshness, E, git_head_at_capture=opt(text), git_head_now=opt(text), stale=opt(st.booleans()),
                        state=opt(st.sampled_from(["fresh", "partially_stale", "stale", "unknown"])))
    validation = _builds(m.Validation, E, status=st.sampled_from(["pass", "warn", "fail", "not_run"]), validated_at=opt(timestamps()),
                         checks=seqs(check), freshness=opt(freshness), accepted_warnings=opt(text),
                         quality=opt(st.dictionaries(words, json_values, max_size=2)))
    lineage = _builds(m.Lineage, E, parents=seqs(uuid7s()), relation=st.sampled_from(["root", "continue", "fork", "merge", "amend"]),
                      branch_label=opt(text), merge_basis=seqs(uuid7s()))
    automation = _builds(m.Automation, E, trigger=st.sampled_from(["manual", "threshold", "hook", "timeout", "pre_compaction"]),
                         score=opt(st.floats(0, 1, allow_nan=False)), reasons=seqs(text),
                         inputs=opt(st.dictionaries(words, opt(st.floats(0, 1, allow_nan=False)), max_size=3)))
    redaction = _builds(m.Redaction, E, field=text, reason=text, replacement=opt(text))
    statuses = st.sampled_from(m.STATUSES) if status is None else st.just(status)

    @st.composite
    def build(draw):
        created = draw(timestamps())
        h = draw(_builds(
            m.Handoff, E,
            schema_uri=opt(st.just(m.SCHEMA_URI)), schema_version=st.just(m.SCHEMA_VERSION), id=uuid7s(),
            kind=st.sampled_from(["handoff", "checkpoint"]), status=statuses, created_at=st.just(created),
            updated_at=st.just(created), project=project, work=work, summary=summary, lineage=lineage,
            origin=opt(origin), decisions=seqs(decision), artifacts=seqs(artifact), evidence=seqs(evidence),
            failed_attempts=seqs(attempt), open_items=seqs(open_item), risks=seqs(risk), validation=validation,
            automation=opt(automation), redactions=seqs(redaction), flags=st.sampled_from([(), ("invalid",), ("conflicted",)]),
            resumed_at=opt(timestamps()), superseded_by=opt(uuid7s()), archived_reason=opt(text),
        ))
        return h

    return build()


def handoff_jsons(**kwargs):
    return handoffs(**kwargs).map(m.handoff_to_json)


# --------------------------------------------------------------------------- a well-formed baseline

SYNTHETIC_PROJECT = {"id": "sha256:synthetic-project", "root_hint": "."}


def minimal_payload(**overrides) -> dict:
    """A capture payload that passes every §10 check given empty facts (synthetic data)."""
    payload = {
        "work": {"title": "Synthetic task", "objective": "Make the synthetic test suite pass without regressions."},
        "summary": {"current_state": "Synthetic: halfway done."},
        "open_items": [{"id": "O-001", "description": "Synthetic next step", "priority": "high",
                        "suggested_action": "Run the focused suite.", "acceptance_check": "Suite passes."}],
    }
    payload.update(overrides)
    return payload


def draft(payload: dict | None = None, *, id: str = "018f0000-0000-7000-8000-0000000000a1",
          now: str = "2026-09-02T14:30:00Z", project: dict | None = None) -> m.Handoff:
    return m.new_draft(minimal_payload() if payload is None else payload, id=id, now=now,
                       project=SYNTHETIC_PROJECT if project is None else project)


def stored_draft(**changes) -> dict:
    """A draft's JSON as the index stores it, with ``changes`` to its members (to make one not shaped so)."""
    doc = m.handoff_to_json(draft())
    doc.update(changes)
    return doc


def evolve(h, **changes):
    return attrs.evolve(h, **changes)
