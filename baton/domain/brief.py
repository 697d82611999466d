"""The resume brief (§11): a compact, vendor-neutral rendering of one handoff.

The brief is what a fresh session reads instead of the old transcript, so it
is built for a stranger: the freshness banner comes first (before anything a
reader could act on), then objective, current state, threads, discoveries,
constraints, decisions, an explicit **Do not retry** section, artifacts,
evidence, risks, open questions (a session baton's), the first next action,
and a closing instruction to verify freshness. Every claim that cites evidence
is marked ``[supported: …]`` (all cited evidence passed), ``[evidence: …]``
(cited, not all passing) or ``[unsupported]`` (a bare assertion).

Budget: the text is measured with ``estimate_tokens`` and, when over
``max_tokens``, trimmed in ``TRIM_ORDER`` (least important first). Objective,
current state, Do not retry, the first next action and the freshness banner are
never dropped; as a last resort they are shortened, and Do not retry entries
beyond what fits are collapsed into a count that points at the full record.
Whatever was left out is named in an "Omitted to fit the budget" line.

Redaction: values are rendered from the record's known fields only (never
``extra`` — except the documented ``open_questions`` extension field, a list of
strings — and never the contents of ``redactions`` records). ``[REDACTED…]``
placeholders pass through as they are; a field whose path a redaction names but
which shows no placeholder (redaction did not happen as recorded) is shown as
``[REDACTED]`` as a whole, never as its value.

See docs/resume-brief.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

from baton.domain.batons import OPEN_QUESTIONS_FIELD, open_blockers
from baton.domain.concurrent_edit_lines import edit_lines
from baton.domain.freshness import (
    ADVANCED,
    FRESH,
    OTHER_BRANCH,
    PARTIALLY_STALE,
    REWRITTEN,
    STALE,
    UNTOLD,
    FreshnessReport,
    drift_listed,
    flagged_evidence,
    head_change,
    heads_equal,
)
from baton.domain.freshness_states import not_checked_words
from baton.domain.limits import MIN_MAX_TOKENS
from baton.domain.quality import QualityScore, cited_ids, order_open_items
from baton.domain.regexes import lazy
from baton.domain.short_ids import short_id
from baton.domain.wording import counted
from baton.errors import InputError
from baton.values import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (resume loads this)
if TYPE_CHECKING:
    from typing import Any

PROMPT = "prompt"
MD = "md"
FORMATS = (PROMPT, MD)

DEFAULT_MAX_TOKENS = 1200

REDACTED = "[REDACTED]"
_MARKER = lazy(r"\[REDACTED[^\]]*\]")  # compiled only for a field a redaction names (0.4 M instructions)
_PASS_RESULTS = {"pass", "passed", "ok", "success", "succeeded"}
_TITLE_CLIP = 80
_OMITTED_CLIP = 200
# Upper bound on how many bytes the omitted line and the Do-not-retry collapse line can add.
_GROWTH_SLACK = 800


def estimate_tokens(text: str) -> int:
    """Deterministic token estimate: one token per 4 bytes of UTF-8, rounded up.

    Four bytes a token is the usual rule of thumb for English text and code with
    BPE tokenizers; counting bytes rather than characters keeps the estimate
    conservative for non-Latin scripts, where a character is often a token.
    """
    return math.ceil(len(text.encode("utf-8")) / 4)


class Brief(Value):
    text: str
    format: str
    estimated_tokens: int
    max_tokens: int | None
    omitted: tuple[str, ...]
    sections: tuple[str, ...]

    @property
    def trimmed(self) -> bool:
        return bool(self.omitted)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "text": self.text,
            "estimated_tokens": self.estimated_tokens,
            "max_tokens": self.max_tokens,
            "omitted": list(self.omitted),
            "sections": list(self.sections),
        }


# --------------------------------------------------------------------------- trimming plan

# (group, label) from least to most important. A group's lines are dropped (or, for
# "*_detail" groups, shortened) one at a time, in the order the builder queued them.
TRIM_ORDER: tuple[tuple[str, str], ...] = (
    ("quality", "continuity score"),
    ("risks_low", "low risks"),
    ("evidence_detail", "evidence refs"),
    ("artifacts_read", "read artifacts"),
    ("discoveries", "discoveries"),
    ("why_it_matters", "why it matters"),
    ("scope", "scope"),
    ("completed", "completed threads"),
    ("evidence_uncited", "uncited evidence"),
    ("open_items_other", "other open items"),
    ("risks_medium", "medium risks"),
    ("decision_detail", "decision rationales"),
    ("artifacts_changed", "changed artifacts"),
    ("in_progress", "in-progress threads"),
    ("open_questions", "open questions"),
    ("evidence_cited", "cited evidence"),
    ("decisions", "decisions"),
    ("risks_high", "high risks"),
    ("artifacts_drifted", "drifted artifacts"),
    ("definition_of_done", "done criteria"),
    ("preamble", "reading guide"),
    ("constraints", "constraints"),
    # Past this point only the never-dropped core remains: it is shortened, not dropped.
    ("do_not_retry_detail", "do-not-retry evidence marks"),
    ("core_clip_400", "core text shortened"),
    ("core_clip_160", "core text shortened further"),
    ("do_not_retry_collapse", "do-not-retry entries collapsed"),
    ("core_clip_80", "core text cut to a line"),
)
# Groups whose lines are shortened (next variant) rather than dropped.
_SHORTEN = {"evidence_detail", "decision_detail", "do_not_retry_detail", "core_clip_400", "core_clip_160",
            "core_clip_80"}
_CORE_CLIPS = {"core_clip_400": 400, "core_clip_160": 160, "core_clip_80": 80}


class _Line:
    """A line of the brief, which trimming drops or shortens in place (a plain class, not an
    attrs one: ``resume`` defines no attrs class besides the record model; nothing compares lines)."""

    __slots__ = ("text", "group", "short", "clip", "dropped", "section")

    def __init__(self, text: str, group: str | None = None, short: str | None = None, clip: bool = False,
                 dropped: bool = False, section: Any = None) -> None:
        self.text = text
        self.group = group  # the group that drops it; None = never dropped
        self.short = short  # the shortened form for a *_detail group
        self.clip = clip  # core text that the last-resort clips may shorten
        self.dropped = dropped
        self.section = section  # the _Section holding it


class _Section:
    """A section of the brief: its heading and lines (plain, as ``_Line``)."""

    __slots__ = ("key", "heading", "lines", "dynamic")

    def __init__(self, key: str, heading: str | None, lines: list[_Line],
                 dynamic: Callable[[], list[str]] | None = None) -> None:
        self.key = key
        self.heading = heading
        self.lines = lines
        self.dynamic = dynamic  # extra lines computed at render time


class _Layout:
    def __init__(self, fmt: str) -> None:
        self.fmt = fmt
        self.sections: list[_Section] = []
        self.queues: dict[str, list[_Line]] = {g: [] for g, _ in TRIM_ORDER}
        self.counts: dict[str, int] = {}
        self.collapsed_dnr = 0
        self.dnr_lines: list[_Line] = []
        self.handoff_ref = ""

    def section(self, key: str, heading: str | None) -> _Section:
        s = _Section(key, heading, [])
        self.sections.append(s)
        return s

    def add(self, section: _Section, text: str, group: str | None = None, *, short: str | None = None,
            clip: bool = False, queue: bool = True) -> _Line:
        line = _Line(text, group, short, clip, section=section)
        section.lines.append(line)
        if group is not None and queue:
            self.queues[group].append(line)
        return line

    # -- rendering ----------------------------------------------------------------------------

    def render(self) -> tuple[str, tuple[str, ...]]:
        blocks: list[str] = []
        keys: list[str] = []
        for s in self.sections:
            body = [ln.text for ln in s.lines if not ln.dropped]
            if s.dynamic is not None:
                body += s.dynamic()
            if not body:
                continue
            keys.append(s.key)
            if s.heading:
                body = [f"## {s.heading}" if self.fmt == MD else f"{s.heading.upper()}:"] + body
            blocks.append("\n".join(body))
        return "\n\n".join(blocks) + "\n", tuple(keys)

    def omitted(self) -> tuple[str, ...]:
        out = []
        for group, label in TRIM_ORDER:
            n = self.counts.get(group, 0)
            if n and group.startswith("core_clip"):
                out.append(label)
            elif n:
                out.append(f"{label} ({n})")
        return tuple(out)

    def omitted_line(self) -> list[str]:
        items = self.omitted()
        if not items:
            return []
        shown: list[str] = []
        for item in items:
            if sum(len(s) + 2 for s in shown) + len(item) > _OMITTED_CLIP:
                break
            shown.append(item)
        rest = len(items) - len(shown)
        tail = f"; +{rest} more" if rest else ""
        return [f"Omitted to fit the budget: {'; '.join(shown)}{tail}. Full record: `baton handoff show "
                f"{self.handoff_ref}`."]

    def dnr_collapse_line(self) -> list[str]:
        if not self.collapsed_dnr:
            return []
        more = "…and " if any(not ln.dropped for ln in self.dnr_lines) else ""
        return [f"- {more}{self.collapsed_dnr} {'more ' if more else ''}failed approach(es) not shown: read them with "
                f"`baton handoff show {self.handoff_ref}` before trying anything new."]

    # -- trimming -----------------------------------------------------------------------------

    def steps(self) -> Iterator[int]:
        """Apply one trimming step at a time, least important content first. Each yield is an
        upper bound on the bytes that step removed (the line, its newline, and its section's
        heading and separator when the section empties)."""
        for group, _ in TRIM_ORDER:
            if group in _CORE_CLIPS:
                limit = _CORE_CLIPS[group]
                for line in self._core_lines():
                    if not line.dropped and len(line.text.encode("utf-8")) > limit:
                        yield self._shorten(line, _clip(line.text, limit))
                        self.counts[group] = 1
                continue
            if group == "do_not_retry_collapse":
                for line in reversed(self.dnr_lines):
                    if not line.dropped:
                        self.collapsed_dnr += 1
                        self.counts[group] = self.counts.get(group, 0) + 1
                        yield self._drop(line)
                continue
            for line in self.queues[group]:
                if line.dropped:
                    continue
                if group in _SHORTEN:
                    if line.short is None or line.short == line.text:
                        continue
                    self.counts[group] = self.counts.get(group, 0) + 1
                    yield self._shorten(line, line.short)
                else:
                    self.counts[group] = self.counts.get(group, 0) + 1
                    yield self._drop(line)

    @staticmethod
    def _shorten(line: _Line, text: str) -> int:
        removed = len(line.text.encode("utf-8")) - len(text.encode("utf-8"))
        line.text = text
        return removed

    @staticmethod
    def _drop(line: _Line) -> int:
        line.dropped = True
        removed = len(line.text.encode("utf-8")) + 1
        sec = line.section
        if sec is not None and all(ln.dropped for ln in sec.lines):
            removed += len((sec.heading or "").encode("utf-8")) + 8
        return removed

    def _core_lines(self) -> list[_Line]:
        return [ln for s in self.sections for ln in s.lines if ln.clip]


# --------------------------------------------------------------------------- reading helpers


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if obj is None:
        return default
    value = obj.get(name, default) if isinstance(obj, dict) else getattr(obj, name, default)
    return default if value is None else value


def _one_line(value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        value = str(value)
    return " ".join(value.split())


def _clip(text: str, limit: int) -> str:
    """At most ``limit`` UTF-8 bytes (the budget counts bytes), ending in "…" when cut."""
    raw = text.encode("utf-8")
    if len(raw) <= limit:
        return text
    return raw[: max(0, limit - 3)].decode("utf-8", "ignore").rstrip() + "…"


class _Redactor:
    """Renders a field by its §7.2 path, withholding any path a redaction names."""

    def __init__(self, handoff: Any) -> None:
        self.paths = tuple(p for p in (_one_line(_get(r, "field")) for r in _get(handoff, "redactions", ())) if p)

    def hidden(self, path: str) -> bool:
        for p in self.paths:
            p = p[2:] if p.startswith("$.") else p
            if path == p or path.startswith(p + ".") or path.startswith(p + "["):
                return True
        return False

    def text(self, path: str, value: Any) -> str:
        text = _one_line(value)
        # A redacted field keeps its non-secret text around a [REDACTED…] marker; one that
        # shows no marker was not redacted as recorded, so nothing of it is shown.
        if text and self.hidden(path) and not _MARKER.search(text):
            return REDACTED
        return text


def _is_pass(result: Any) -> bool:
    return _one_line(result).lower() in _PASS_RESULTS


def _support_mark(item: Any, known: dict[str, tuple[int, Any]], red: _Redactor) -> str:
    ids = cited_ids(item)
    if not ids:
        return "[unsupported]"
    parts = []
    all_pass = True
    for i in ids:
        if i not in known:
            parts.append(f"{i} not found")
            all_pass = False
            continue
        pos, ev = known[i]
        result = red.text(f"evidence[{pos}].result", _get(ev, "result")) or "no result"
        all_pass = all_pass and _is_pass(result)
        parts.append(f"{i} {result}")
    return f"[{'supported' if all_pass else 'evidence'}: {', '.join(parts)}]"


def _short_head(head: str | None) -> str:
    short = (head or "")[:12]
    return short if len(short.encode("utf-8")) <= 12 else _clip(short, 12)


def _short_id(handoff_id: str) -> str:
    return short_id(handoff_id) if handoff_id else "<id>"


# --------------------------------------------------------------------------- the banner


def freshness_banner(freshness: FreshnessReport, fmt: str = PROMPT, handoff_id: str = "") -> str:
    """The one-paragraph freshness warning that opens every brief (§10b); ``handoff_id`` names the record in
    the words on artifacts a bounded check did not hash (``not_checked_words``)."""
    drift = freshness.drift
    listed = drift_listed(drift)
    if freshness.state == FRESH:
        text = (f"Freshness: fresh. Repository head {_short_head(freshness.head_now)} is unchanged since capture "
                f"and no hashed artifact drifted.")
        return text
    if freshness.state == PARTIALLY_STALE:
        word = "PARTIALLY STALE"
        text = (f"the repository head is unchanged, but {counted(len(drift), 'referenced artifact')} changed since capture: "
                f"{listed}. Re-check them before relying on anything below that depends on them.")
    elif freshness.state == STALE:
        word = "STALE"
        if freshness.head_moved and freshness.head_relation is not None:
            why = head_change(freshness, arrow="->")
        elif freshness.head_moved:
            why = (f"the repository head moved since capture ({_short_head(freshness.captured_head)} -> "
                   f"{_short_head(freshness.head_now)})")
        else:
            why = "changes since capture could not be classified"
        if drift:
            why += f"; drifted artifact{'s' if len(drift) != 1 else ''}: {listed}"
        why += not_checked_words(drift, _short_id(handoff_id), "", validate=True)
        text = f"{why}. Re-check every assumption below against the current code before acting on it."
    else:
        word = "FRESHNESS UNKNOWN"
        reason = freshness.reasons[0] if freshness.reasons else "freshness was never evaluated"
        text = f"verify before acting ({reason})."
    flagged = flagged_evidence(freshness)
    if flagged:
        text += " Commit evidence to re-check: " + "; ".join(f"{_clip(eid, 40)}: {why}" for eid, why in flagged.items()) + "."
    return f"> **{word}:** {text}" if fmt == MD else f"{word}: {text}"


# --------------------------------------------------------------------------- building


class _Record:
    """What every section of the brief reads: the record's parts, its layout, its redactor, and
    the evidence by id (a claim's support mark looks its citations up there)."""

    def __init__(self, handoff: Any, freshness: FreshnessReport, quality: QualityScore | None, fmt: str) -> None:
        self.handoff = handoff
        self.freshness = freshness
        self.quality = quality
        self.fmt = fmt
        self.lay = _Layout(fmt)
        self.red = _Redactor(handoff)
        self.known: dict[str, tuple[int, Any]] = {}
        for pos, ev in enumerate(_get(handoff, "evidence", ())):
            self.known.setdefault(_one_line(_get(ev, "id")), (pos, ev))
        self.hid = _one_line(_get(handoff, "id"))
        self.lay.handoff_ref = _short_id(self.hid)
        self.work = _get(handoff, "work")
        self.summary = _get(handoff, "summary")
        self.head = _get(_get(_get(handoff, "project"), "repository"), "head")

    def mark(self, item: Any) -> str:
        return _support_mark(item, self.known, self.red)


def _build(handoff: Any, freshness: FreshnessReport, quality: QualityScore | None, fmt: str) -> _Layout:
    """The brief's sections, in reading order: each step below adds its own."""
    record = _Record(handoff, freshness, quality, fmt)
    for add_sections in _SECTIONS:
        add_sections(record)
    return record.lay


def _add_header(r: _Record) -> None:
    """Header, freshness banner, reading instructions (a prompt's) and the continuity score."""
    lay, red = r.lay, r.red
    header = lay.section("header", None)
    title = _clip(red.text("work.title", _get(r.work, "title")), _TITLE_CLIP) or "(untitled)"
    status = _one_line(_get(r.handoff, "status"))
    created = _one_line(_get(r.handoff, "created_at"))
    meta = f"Baton handoff {r.hid or '(no id)'} · status {status or '?'} · captured {created}"
    if r.head:
        meta += f" · head {_short_head(r.head)}"
    if r.fmt == MD:
        lay.add(header, f"# Resume brief: {title}")
        lay.add(header, f"_{meta}_")
    else:
        lay.add(header, f"RESUME BRIEF: {title}")
        lay.add(header, meta)
    banner = lay.section("freshness", None)
    lay.add(banner, freshness_banner(r.freshness, r.fmt, r.handoff.id or ""))
    for line in edit_lines(r.handoff):  # edits made apart on other clones that are not this body
        lay.add(banner, line)
    if r.fmt == PROMPT:
        lay.add(lay.section("preamble", None),
                "You are continuing work from an earlier session. Treat this brief as working context, not "
                "unquestionable truth. [supported: …] marks a claim whose cited evidence passed; [evidence: …] "
                "cites evidence that did not all pass; [unsupported] is a bare assertion.", "preamble")
    if r.quality is not None:
        weakest = r.quality.weakest()
        lay.add(lay.section("quality", None),
                f"Continuity score: {r.quality.overall:.1f}/100 (advisory; weakest: {weakest.name} {weakest.score}).",
                "quality")


def _add_objective(r: _Record) -> None:
    """Objective and current state: the never-dropped core."""
    lay, red, work, summary = r.lay, r.red, r.work, r.summary
    sec = lay.section("objective", "Objective")
    lay.add(sec, red.text("work.objective", _get(work, "objective")) or "(no objective recorded)", clip=True)
    for i, item in reversed(list(enumerate(_get(work, "definition_of_done", ())))):
        _insert_after_first(sec, lay, f"- Done when: {red.text(f'work.definition_of_done[{i}]', item)}",
                            "definition_of_done")
    scope = [red.text(f"work.scope[{i}]", s) for i, s in enumerate(_get(work, "scope", ()))]
    if scope:
        lay.add(sec, "- Scope: " + ", ".join(scope), "scope")

    sec = lay.section("current_state", "Current state")
    lay.add(sec, red.text("summary.current_state", _get(summary, "current_state")) or "(no current state recorded)",
            clip=True)
    why = red.text("summary.why_it_matters", _get(summary, "why_it_matters"))
    if why:
        lay.add(sec, f"- Why it matters: {why}", "why_it_matters")


def _add_threads(r: _Record) -> None:
    """Threads: completed ones are dropped oldest first, in-progress ones (and discoveries,
    constraints) last first."""
    lay, red = r.lay, r.red
    sec = lay.section("completed", "Completed (as reported)")
    for i, item in enumerate(_get(r.summary, "completed", ())):
        lay.add(sec, f"- {red.text(f'summary.completed[{i}]', item)}", "completed")
    for key, heading, part, field in (("in_progress", "In progress", r.summary, "summary.in_progress"),
                                      ("discoveries", "Discoveries", r.summary, "summary.discoveries"),
                                      ("constraints", "Constraints (non-negotiable)", r.work, "work.constraints")):
        sec = lay.section(key, heading)
        items = _get(part, field.split(".")[1], ())
        for line in [lay.add(sec, f"- {red.text(f'{field}[{i}]', item)}", key, queue=False)
                     for i, item in enumerate(items)][::-1]:
            lay.queues[key].append(line)


def _add_decisions(r: _Record) -> None:
    """Decisions: rationale is shortened before whole decisions go, last decisions first."""
    lay, red = r.lay, r.red
    sec = lay.section("decisions", "Decisions")
    decision_lines = []
    for i, d in enumerate(_get(r.handoff, "decisions", ())):
        base = f"- {_one_line(_get(d, 'id'))}: {red.text(f'decisions[{i}].decision', _get(d, 'decision'))}"
        mark = r.mark(d)
        detail = ""
        rationale = red.text(f"decisions[{i}].rationale", _get(d, "rationale"))
        if rationale:
            detail += f" Why: {rationale}"
        alts = [red.text(f"decisions[{i}].alternatives_considered[{j}]", a)
                for j, a in enumerate(_get(d, "alternatives_considered", ()))]
        if alts:
            detail += f" Rejected: {'; '.join(alts)}."
        line = lay.add(sec, f"{base}{detail} {mark}", "decisions", short=f"{base} {mark}", queue=False)
        decision_lines.append(line)
    for line in reversed(decision_lines):
        lay.queues["decision_detail"].append(line)
        lay.queues["decisions"].append(line)


def _add_do_not_retry(r: _Record) -> None:
    """Do not retry: never dropped; shortened, then collapsed into a count, only as a last resort."""
    lay, red = r.lay, r.red
    sec = lay.section("do_not_retry", "Do not retry (failed approaches)")
    attempts = list(_get(r.handoff, "failed_attempts", ()))
    if not attempts:
        lay.add(sec, "(none recorded)")
    for i, f in enumerate(attempts):
        fid = _one_line(_get(f, "id"))
        approach = red.text(f"failed_attempts[{i}].approach", _get(f, "approach"))
        outcome = _one_line(_get(f, "outcome")) or "failed"
        reason = red.text(f"failed_attempts[{i}].reason", _get(f, "reason"))
        retry = "" if _get(f, "avoid_repeating", True) is not False else " (may be retried if circumstances change)"
        full = f"- {fid}: {approach} ({outcome}){': ' + reason if reason else ''}{retry} {r.mark(f)}"
        short = _clip(f"- {fid}: {approach} ({outcome}){': ' + reason if reason else ''}{retry}", 160)
        line = lay.add(sec, full, "do_not_retry_detail", short=short, queue=False)
        lay.dnr_lines.append(line)
    for line in reversed(lay.dnr_lines):
        lay.queues["do_not_retry_detail"].append(line)
    sec.dynamic = lay.dnr_collapse_line


def _add_artifacts(r: _Record) -> None:
    """Artifacts: drifted ones matter most, read/generated ones least."""
    lay, red = r.lay, r.red
    sec = lay.section("artifacts", "Relevant artifacts")
    drifted = {d.path: d.kind for d in r.freshness.drift}
    by_group: dict[str, list[_Line]] = {"artifacts_read": [], "artifacts_changed": [], "artifacts_drifted": []}
    for i, a in enumerate(_get(r.handoff, "artifacts", ())):
        path = red.text(f"artifacts[{i}].path", _get(a, "path"))
        role = _one_line(_get(a, "role"))
        text = f"- {path} ({role}"
        revision = red.text(f"artifacts[{i}].revision", _get(a, "revision"))
        if revision:
            text += f" @ {revision}"
        text += ")"
        if _get(a, "sensitive", False) is True:
            text += " [sensitive: description withheld]"
        else:
            desc = red.text(f"artifacts[{i}].description", _get(a, "description"))
            if desc:
                text += f": {desc}"
        raw_path = _one_line(_get(a, "path"))
        if raw_path in drifted and not red.hidden(f"artifacts[{i}].path"):
            text += f" [CHANGED since capture: {drifted[raw_path]}]"
            group = "artifacts_drifted"
        elif role in ("read", "generated"):
            group = "artifacts_read"
        else:
            group = "artifacts_changed"
        by_group[group].append(lay.add(sec, text, group, queue=False))
    for group, lines in by_group.items():
        lay.queues[group].extend(reversed(lines))


def _add_evidence(r: _Record) -> None:
    """Evidence: uncited records go before cited ones; older records first in each."""
    lay, red = r.lay, r.red
    sec = lay.section("evidence", "Evidence (recorded at capture, not re-run)")
    cited = {i for item in [*_get(r.handoff, "decisions", ()), *_get(r.handoff, "failed_attempts", ())]
             for i in cited_ids(item)}
    ev_lines: list[tuple[str, int, bool, _Line]] = []
    flagged = flagged_evidence(r.freshness)
    for i, ev in enumerate(_get(r.handoff, "evidence", ())):
        eid = _one_line(_get(ev, "id"))
        kind = _one_line(_get(ev, "type"))
        result = red.text(f"evidence[{i}].result", _get(ev, "result")) or "no result"
        claim = red.text(f"evidence[{i}].claim", _get(ev, "claim"))
        base = f"- {eid} [{kind}, {result}] {claim}"
        detail = ""
        ref = red.text(f"evidence[{i}].ref", _get(ev, "ref"))
        if ref:
            detail += f" Ref: `{ref}`"
        at = _one_line(_get(ev, "captured_at"))
        if at:
            detail += f" ({at})"
        if eid in flagged:
            base += f" (WARNING: {flagged[eid]})"
        line = lay.add(sec, base + detail, queue=False, short=base)
        ev_lines.append((at, i, eid in cited, line))
    oldest_first = sorted(ev_lines, key=lambda t: (t[0], t[1]))
    lay.queues["evidence_detail"].extend(ln for _, _, _, ln in oldest_first)
    lay.queues["evidence_uncited"].extend(ln for _, _, c, ln in oldest_first if not c)
    lay.queues["evidence_cited"].extend(ln for _, _, c, ln in oldest_first if c)
    for _, _, c, ln in ev_lines:
        ln.group = "evidence_cited" if c else "evidence_uncited"


def _add_risks(r: _Record) -> None:
    """Risks by severity: low ones drop first."""
    lay, red = r.lay, r.red
    sec = lay.section("risks", "Risks")
    risk_lines: dict[str, list[_Line]] = {"risks_low": [], "risks_medium": [], "risks_high": []}
    for i, risk in enumerate(_get(r.handoff, "risks", ())):
        severity = _one_line(_get(risk, "severity")) or "unrated"
        text = f"- [{severity}] {red.text(f'risks[{i}].description', _get(risk, 'description'))}"
        mitigation = red.text(f"risks[{i}].mitigation", _get(risk, "mitigation"))
        if mitigation:
            text += f" Mitigation: {mitigation}"
        group = {"high": "risks_high", "medium": "risks_medium"}.get(severity, "risks_low")
        risk_lines[group].append(lay.add(sec, text, group, queue=False))
    for group, lines in risk_lines.items():
        lay.queues[group].extend(reversed(lines))


def _add_open_questions(r: _Record) -> None:
    """Open questions (a session baton's ``open_questions`` extension field): nothing answers them
    yet, so a successor must not assume they are settled. The last ones drop first."""
    lay = r.lay
    sec = lay.section("open_questions", "Open questions")
    for line in [lay.add(sec, f"- {r.red.text(f'{OPEN_QUESTIONS_FIELD}[{i}]', q)}", "open_questions", queue=False)
                 for i, q in _open_questions(r.handoff)][::-1]:
        lay.queues["open_questions"].append(line)


def _add_open_items(r: _Record) -> None:
    """Open items: the others (lowest in the order drops first), then the first next action last,
    right before the closing instruction."""
    lay, red = r.lay, r.red
    items = order_open_items(r.handoff)
    index_of = {id(item): i for i, item in enumerate(_get(r.handoff, "open_items", ()))}
    sec = lay.section("open_items", "Other open items")
    for item in reversed(items[1:]):  # lowest in the order drops first
        i = index_of[id(item)]
        text = f"- {_item_summary(item, i, red)}"
        action = red.text(f"open_items[{i}].suggested_action", _get(item, "suggested_action"))
        if action:
            text += f" Do: {action}"
        line = _Line(text, "open_items_other", section=sec)
        sec.lines.insert(0, line)
        lay.queues["open_items_other"].append(line)

    sec = lay.section("next_action", "First next action")
    if items:
        first = items[0]
        i = index_of[id(first)]
        lay.add(sec, _item_summary(first, i, red), clip=True)
        action = red.text(f"open_items[{i}].suggested_action", _get(first, "suggested_action"))
        if action:
            lay.add(sec, f"- Do: {action}", clip=True)
        check = red.text(f"open_items[{i}].acceptance_check", _get(first, "acceptance_check"))
        if check:
            lay.add(sec, f"- Done when: {check}", clip=True)
        blocked = [_one_line(b) for b in open_blockers(_get(first, "blocked_by", ()), _get(r.handoff, "retired_ids", ()))]
        if blocked:
            lay.add(sec, f"- Blocked by: {', '.join(blocked)}", clip=True)
    elif _one_line(_get(r.work, "state")) == "completed":
        lay.add(sec, "No open items: the work is reported complete. Verify the definition of done before closing.")
    else:
        lay.add(sec, "No open items recorded: decide the next step from the objective and current state.")


def _add_footer(r: _Record) -> None:
    """Footer: redaction notice, what was omitted, and the closing instruction."""
    lay = r.lay
    redactions = len(_get(r.handoff, "redactions", ()))
    if redactions:
        lay.add(lay.section("redactions", None),
                f"Redacted at capture: {counted(redactions, 'field')}; their values are withheld and never shown here.")
    lay.section("omitted", None).dynamic = lay.omitted_line
    relation, fresh = r.freshness.head_relation, r.freshness
    if relation in (REWRITTEN, OTHER_BRANCH):
        anchor = (f"find out whether the work of {_short_head(fresh.captured_head)} survives in HEAD "
                  f"{_short_head(fresh.head_now)} (it is not in that history), then check")
    elif relation in (ADVANCED, UNTOLD):
        anchor = (f"review what changed from {_short_head(fresh.captured_head)} to HEAD "
                  f"{_short_head(fresh.head_now)}, then check")
    elif r.head:
        anchor = f"check that the repository head is still {_short_head(r.head)} and"
    else:
        anchor = "check that the working tree matches (no git head was recorded) and"
    lay.add(lay.section("verify", None),
            f"Before acting, verify freshness: {anchor} that the artifacts you rely on are unchanged "
            f"(`baton resume {lay.handoff_ref}` re-derives this), and re-run cited evidence before trusting it.")


_SECTIONS: tuple[Callable[[_Record], None], ...] = (
    _add_header, _add_objective, _add_threads, _add_decisions, _add_do_not_retry, _add_artifacts,
    _add_evidence, _add_risks, _add_open_questions, _add_open_items, _add_footer,
)
"""The brief's steps in reading order (each adds its sections to the layout)."""


def _insert_after_first(sec: _Section, lay: _Layout, text: str, group: str) -> None:
    # Called in reverse order so items end up in record order right after the objective line,
    # and queued so the last item drops first.
    line = _Line(text, group, section=sec)
    sec.lines.insert(1, line)
    lay.queues[group].append(line)


def _open_questions(handoff: Any) -> list[tuple[int, str]]:
    """(index, text) of each non-blank string in the ``open_questions`` extension field
    (a record's top-level key, kept in ``extra`` by the model); anything else is ignored."""
    extra = handoff if isinstance(handoff, dict) else (getattr(handoff, "extra", None) or {})
    raw = extra.get(OPEN_QUESTIONS_FIELD) if isinstance(extra, dict) else None
    if not isinstance(raw, (list, tuple)):
        return []
    return [(i, q) for i, q in enumerate(raw) if isinstance(q, str) and q.strip()]


def _item_summary(item: Any, i: int, red: _Redactor) -> str:
    iid = _one_line(_get(item, "id"))
    priority = _one_line(_get(item, "priority"))
    tag = f" [{priority}]" if priority else ""
    return f"{iid}{tag}: {red.text(f'open_items[{i}].description', _get(item, 'description'))}"


# --------------------------------------------------------------------------- public API


def render_resume_brief(handoff: Any, freshness: FreshnessReport, quality: QualityScore | None = None, *,
                        max_tokens: int | None = DEFAULT_MAX_TOKENS, format: str = PROMPT) -> Brief:
    """Render the bounded resume brief of a handoff.

    ``max_tokens=None`` renders everything (no budget). Otherwise the result's
    ``estimated_tokens`` is at most ``max_tokens``, and ``omitted`` names what
    was left out.

    Raises:
        InputError: unknown format, or ``max_tokens`` below ``MIN_MAX_TOKENS``.
    """
    if format not in FORMATS:
        raise InputError(f"format must be one of {', '.join(FORMATS)}, not {format!r}")
    if max_tokens is not None and max_tokens < MIN_MAX_TOKENS:
        raise InputError(f"max_tokens must be at least {MIN_MAX_TOKENS}, not {max_tokens}")
    lay = _build(handoff, freshness, quality, format)
    text, keys = lay.render()
    if max_tokens is not None and estimate_tokens(text) > max_tokens:
        # Greedy: stop at the first step after which the brief fits. Rendering after every
        # step is quadratic, so steps are applied without rendering while the bytes they
        # removed (an upper bound) cannot yet have closed the gap, less what the omitted
        # and collapse lines may have grown by. The result is the same as rendering each time.
        budget_bytes = 4 * max_tokens
        excess = len(text.encode("utf-8")) - budget_bytes
        removed = 0
        for step in lay.steps():
            removed += step
            if removed < excess - _GROWTH_SLACK:
                continue
            text, keys = lay.render()
            size = len(text.encode("utf-8"))
            if size <= budget_bytes:
                break
            excess, removed = size - budget_bytes, 0
    return Brief(text=text, format=format, estimated_tokens=estimate_tokens(text), max_tokens=max_tokens,
                 omitted=lay.omitted(), sections=keys)


def render_markdown_view(handoff: Any, freshness: FreshnessReport | None = None,
                         quality: QualityScore | None = None, captured_by: str | None = None) -> str:
    """The full Markdown view of a handoff (``handoff show --format md``): every section, no budget,
    plus the record's metadata (with ``captured_by``, who captured it, as a line of its own).
    Without a freshness report, the freshness recorded at validation is shown."""
    if freshness is None:
        freshness = recorded_freshness(handoff)
    text, _ = _build(handoff, freshness, quality, MD).render()
    return text + "\n" + _record_section(handoff, captured_by)


def recorded_freshness(handoff: Any) -> FreshnessReport:
    """The freshness a record carries from its last validation (no new facts gathered)."""
    fr = _get(_get(handoff, "validation"), "freshness")
    if fr is None:
        return FreshnessReport("unknown", False, _get(_get(_get(handoff, "project"), "repository"), "head"), None, None,
                               (), ("freshness was never evaluated",))
    captured = _get(fr, "git_head_at_capture")
    now = _get(fr, "git_head_now")
    state = _one_line(_get(fr, "state"))
    if state not in ("fresh", "partially_stale", "stale", "unknown"):
        stale = _get(fr, "stale")
        state = "stale" if stale is True else ("fresh" if stale is False and captured and now else "unknown")
    moved = None if not (captured and now) else not heads_equal(captured, now)
    return FreshnessReport(state, True, captured, now, moved, (), ("as recorded at the last validation",))


def _ran_on_text(ran_on: Any) -> str:
    if not isinstance(ran_on, dict):
        return ""
    branch = _one_line(ran_on.get("branch")) or "(no branch)"
    head = _one_line(ran_on.get("head"))
    where = f"{branch}@{head[:12]}" if head else f"{branch} (no commit)"
    worktree = _one_line(ran_on.get("worktree"))
    return where + (f" in worktree {worktree}" if worktree and worktree != "." else "")


def _extension(validation: Any) -> Any:
    """Where a validation's extension members live: ``extra`` on the model, the object itself in JSON."""
    return validation if isinstance(validation, dict) else _get(validation, "extra", {})


def validated_on(validation: Any) -> str:
    """``<branch>@<sha>`` (and the worktree, when not the main one) the record's validation ran on."""
    return _ran_on_text(_get(_extension(validation), "ran_on"))


def elsewhere_lines(validation: Any) -> list[str]:
    """Validations run from other worktrees: recorded for them, never the record's own."""
    out = []
    for run in _get(_extension(validation), "elsewhere", ()) or ():
        if isinstance(run, dict):
            out.append(f"{_one_line(run.get('status'))} on {_ran_on_text(run.get('ran_on'))}"
                       + (f" at {_one_line(run.get('validated_at'))}" if run.get("validated_at") else ""))
    return out


def _record_section(handoff: Any, captured_by: str | None = None) -> str:
    red = _Redactor(handoff)
    lines = ["## Record"]
    repo = _get(_get(handoff, "project"), "repository")
    origin = _get(handoff, "origin")
    lineage = _get(handoff, "lineage")
    validation = _get(handoff, "validation")
    automation = _get(handoff, "automation")
    rows = [
        ("id", _one_line(_get(handoff, "id"))),
        ("kind / status", f"{_one_line(_get(handoff, 'kind'))} / {_one_line(_get(handoff, 'status'))}"
         + (f" (flags: {', '.join(_get(handoff, 'flags', ()))})" if _get(handoff, "flags") else "")),
        ("created / updated", f"{_one_line(_get(handoff, 'created_at'))} / {_one_line(_get(handoff, 'updated_at'))}"),
        *([("captured by", _one_line(captured_by))] if captured_by else []),
        ("repository", ", ".join(x for x in (
            red.text("project.repository.remote_hint", _get(repo, "remote_hint")),
            f"head {_one_line(_get(repo, 'head'))}" if _get(repo, "head") else "",
            "dirty" if _get(repo, "dirty") is True else ("clean" if _get(repo, "dirty") is False else ""),
        ) if x) or "(none recorded)"),
        ("origin", ", ".join(x for x in (red.text("origin.harness", _get(origin, "harness")),
                                         red.text("origin.model", _get(origin, "model")),
                                         _one_line(_get(_get(origin, "actor"), "type"))) if x) or "(none recorded)"),
        ("lineage", _one_line(_get(lineage, "relation")) + (
            f" of {', '.join(_get(lineage, 'parents', ()))}" if _get(lineage, "parents") else "")
         + (f" ({red.text('lineage.branch_label', _get(lineage, 'branch_label'))})"
            if _get(lineage, "branch_label") else "")),
        ("validation", _one_line(_get(validation, "status")) + "".join(
            f"; {_one_line(_get(c, 'name'))} {_one_line(_get(c, 'status'))}" for c in _get(validation, "checks", ()))),
    ]
    ran_on = validated_on(validation)
    if ran_on:
        rows[-1] = ("validation", f"{rows[-1][1]} (validated on {ran_on})")
    for other in elsewhere_lines(validation):
        rows.append(("validated elsewhere", other))
    if automation is not None:
        score = _get(automation, "score")
        rows.append(("automation", _one_line(_get(automation, "trigger")) + (f", score {score}" if score is not None else "")
                     + "".join(f"; {red.text(f'automation.reasons[{i}]', r)}"
                               for i, r in enumerate(_get(automation, "reasons", ())))))
    rows += [("edit made apart", line) for line in edit_lines(handoff)]
    lines += [f"- {k}: {v}" for k, v in rows]
    return "\n".join(lines) + "\n"
