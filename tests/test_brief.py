"""The resume brief (§11): vendor-neutral, in spec order, bounded, honest about freshness and evidence."""

from __future__ import annotations

import copy
import os
from pathlib import Path

import orjson
import pytest
from handoff_samples import HEAD, OTHER_HEAD, drop_nones, handoff_dicts
from hypothesis import given, settings
from hypothesis import strategies as st

from baton.domain.brief import (
    MIN_MAX_TOKENS,
    TRIM_ORDER,
    estimate_tokens,
    render_markdown_view,
    render_resume_brief,
)
from baton.domain.freshness import ArtifactDrift, derive_freshness
from baton.domain.handoff import handoff_from_json
from baton.domain.quality import score_quality
from baton.errors import InputError

GOLDEN = Path(__file__).parent / "golden"
SECTION_ORDER = ["header", "freshness", "preamble", "quality", "objective", "current_state", "completed",
                 "in_progress", "discoveries", "constraints", "decisions", "do_not_retry", "artifacts", "evidence",
                 "risks", "open_questions", "open_items", "next_action", "redactions", "omitted", "verify"]
NEVER_DROPPED = ["header", "freshness", "objective", "current_state", "do_not_retry", "next_action", "verify"]


def ready_body() -> dict:
    return orjson.loads((GOLDEN / "handoff-ready.json").read_bytes())


def ready():
    return handoff_from_json(ready_body())


FRESH = derive_freshness(HEAD, HEAD, [], True)
STALE = derive_freshness(HEAD, OTHER_HEAD, [ArtifactDrift("src/auth/callback.ts", "modified", "sha256:1", "sha256:9")],
                         True)
PARTIAL = derive_freshness(HEAD, HEAD, [ArtifactDrift("src/auth/state.ts", "modified", "sha256:2", "sha256:8"),
                                        ArtifactDrift("src/auth/callback.ts", "missing", "sha256:1", None)], True)
UNKNOWN = derive_freshness(None, None, None, False)


def check_golden(name: str, got: str) -> None:
    """Byte-for-byte comparison; BATON_UPDATE_GOLDEN=1 rewrites the file instead."""
    path = GOLDEN / name
    data = got.encode("utf-8")
    if os.environ.get("BATON_UPDATE_GOLDEN") == "1":
        path.write_bytes(data)
    assert path.exists(), f"{name} missing: run with BATON_UPDATE_GOLDEN=1 to create it"
    assert path.read_bytes() == data, f"{name} differs: review the change, then BATON_UPDATE_GOLDEN=1 to accept it"


# -- golden files ----------------------------------------------------------------------------------

def test_golden_full_ready_fresh_brief():
    h = ready()
    check_golden("brief-ready-fresh.prompt.txt",
                 render_resume_brief(h, FRESH, score_quality(h, freshness_state="fresh")).text)


def test_golden_stale_brief():
    h = ready()
    check_golden("brief-stale.prompt.txt", render_resume_brief(h, STALE, score_quality(h, freshness_state="stale")).text)


def test_golden_partially_stale_brief_in_markdown():
    h = ready()
    check_golden("brief-partially-stale.md",
                 render_resume_brief(h, PARTIAL, score_quality(h, freshness_state="partially_stale"), format="md").text)


def test_golden_tight_budget_brief():
    h = ready()
    brief = render_resume_brief(h, FRESH, score_quality(h, freshness_state="fresh"), max_tokens=560)
    assert brief.omitted and brief.estimated_tokens <= 560
    check_golden("brief-tight-budget.prompt.txt", brief.text)


def test_golden_markdown_view():
    check_golden("handoff-view.md", render_markdown_view(ready()))


# -- structure ------------------------------------------------------------------------------------

def test_sections_follow_the_spec_order():
    brief = render_resume_brief(ready(), FRESH, score_quality(ready()), max_tokens=None)
    assert list(brief.sections) == [s for s in SECTION_ORDER if s not in ("omitted", "open_questions")]
    headings = ["OBJECTIVE:", "CURRENT STATE:", "COMPLETED", "IN PROGRESS:", "DISCOVERIES:", "CONSTRAINTS",
                "DECISIONS:", "DO NOT RETRY", "RELEVANT ARTIFACTS:", "EVIDENCE", "RISKS:", "FIRST NEXT ACTION:",
                "Before acting, verify freshness"]
    positions = [brief.text.index(h) for h in headings]
    assert positions == sorted(positions)


def test_markdown_format_uses_headings():
    text = render_resume_brief(ready(), FRESH, None, format="md").text
    assert text.startswith("# Resume brief: Implement resumable OAuth callback validation\n")
    assert "\n## Do not retry (failed approaches)\n" in text


def test_do_not_retry_section_lists_every_failed_attempt():
    body = ready_body()
    body["failed_attempts"].append({"id": "F-002", "approach": "Cache state in a cookie", "outcome": "abandoned",
                                    "reason": "Cookie is not sent on the cross-site callback", "avoid_repeating": True})
    text = render_resume_brief(handoff_from_json(body), FRESH, None).text
    section = text[text.index("DO NOT RETRY"):text.index("RELEVANT ARTIFACTS")]
    assert "F-001: Use library X for state tracking (failed): Does not support multi-tenant configuration" in section
    assert "F-002: Cache state in a cookie (abandoned)" in section


def test_do_not_retry_section_says_none_when_nothing_failed():
    body = ready_body()
    body["failed_attempts"] = []
    text = render_resume_brief(handoff_from_json(body), FRESH, None).text
    assert "DO NOT RETRY (FAILED APPROACHES):\n(none recorded)" in text


QUESTIONS = ["Does the provider retry a callback after a timeout?", "Who owns the staging OAuth app?"]


def with_questions(questions=QUESTIONS) -> dict:
    body = ready_body()
    body["open_questions"] = list(questions)  # a session baton's extension field (baton.domain.batons)
    return body


def test_open_questions_get_their_own_section_after_risks_and_before_the_next_action():
    brief = render_resume_brief(handoff_from_json(with_questions()), FRESH, None, max_tokens=None)
    text = brief.text
    assert "OPEN QUESTIONS:\n- Does the provider retry a callback after a timeout?\n" \
           "- Who owns the staging OAuth app?\n" in text
    assert text.index("RISKS:") < text.index("OPEN QUESTIONS:") < text.index("OTHER OPEN ITEMS:") \
        < text.index("FIRST NEXT ACTION:")
    keys = list(brief.sections)
    assert keys.index("risks") + 1 == keys.index("open_questions") == keys.index("open_items") - 1


def test_open_questions_appear_in_the_markdown_brief_and_the_markdown_view():
    h = handoff_from_json(with_questions())
    for text in (render_resume_brief(h, FRESH, None, format="md").text, render_markdown_view(h)):
        assert "\n## Open questions\n- Does the provider retry a callback after a timeout?\n" in text


def test_a_brief_without_open_questions_has_no_open_questions_section():
    for body in (ready_body(), with_questions([]), with_questions(["", "   ", 7, None])):
        brief = render_resume_brief(handoff_from_json(body), FRESH, None, max_tokens=None)
        assert "open_questions" not in brief.sections and "OPEN QUESTIONS" not in brief.text


def test_open_questions_are_trimmed_after_in_progress_threads_and_before_cited_evidence():
    h = handoff_from_json(with_questions())
    for budget in range(render_resume_brief(h, FRESH, None, max_tokens=None).estimated_tokens, MIN_MAX_TOKENS, -5):
        brief = render_resume_brief(h, FRESH, None, max_tokens=budget)
        if any(o.startswith("open questions") for o in brief.omitted):
            break
    else:
        pytest.fail("open questions were never trimmed")
    assert any(o.startswith("in-progress threads") for o in brief.omitted)
    assert not any(o.startswith("cited evidence") for o in brief.omitted)
    # the last question goes first
    assert QUESTIONS[0] in brief.text and QUESTIONS[1] not in brief.text


def test_a_redacted_open_question_is_withheld():
    body = with_questions([f"Is {SECRET} still valid?"] + QUESTIONS)
    body["redactions"] = [{"field": "open_questions[0]", "reason": "matched", "replacement": "[REDACTED]"}]
    text = render_resume_brief(handoff_from_json(body), FRESH, None).text
    assert SECRET not in text
    assert "OPEN QUESTIONS:\n- [REDACTED]\n- Does the provider" in text


def test_first_next_action_is_the_highest_priority_item_and_comes_last():
    text = render_resume_brief(ready(), FRESH, None).text
    tail = text[text.index("FIRST NEXT ACTION:"):]
    assert tail.startswith("FIRST NEXT ACTION:\nO-001 [high]: Add integration fixture for a duplicate callback.\n"
                           "- Do: Create the fixture")
    assert "OTHER OPEN ITEMS:\n- O-002 [low]: Tidy the auth README." in text


def test_supported_claims_are_told_apart_from_bare_assertions():
    text = render_resume_brief(ready(), FRESH, None).text
    assert "Use timing-safe comparison for state values." in text
    assert "[supported: E-002 pass]" in text  # D-001 cites passing evidence
    assert "ten minutes. Why: Long enough to cover provider retries. [unsupported]" in text  # D-002 cites nothing
    assert "[evidence: E-014 fail]" in text  # F-001 cites evidence that did not pass


def test_missing_cited_evidence_is_flagged():
    body = ready_body()
    body["decisions"][1]["evidence_ids"] = ["E-404"]
    assert "[evidence: E-404 not found]" in render_resume_brief(handoff_from_json(body), FRESH, None).text


def test_drifted_artifacts_are_marked_in_the_artifact_list():
    text = render_resume_brief(ready(), PARTIAL, None).text
    assert "src/auth/state.ts (created @ git:4f2a9c1): Timing-safe state helper [CHANGED since capture: modified]" in text


# -- freshness banners ----------------------------------------------------------------------------

@pytest.mark.parametrize(("freshness", "banner"), [
    (STALE, "STALE: the repository head moved since capture (4f2a9c1e0b7d -> 9e8d7c6b5a4f)"),
    (PARTIAL, "PARTIALLY STALE: the repository head is unchanged, but 2 referenced artifacts changed"),
    (UNKNOWN, "FRESHNESS UNKNOWN: verify before acting (freshness was never evaluated)."),
    (FRESH, "Freshness: fresh."),
])
def test_freshness_banner_comes_before_anything_actionable(freshness, banner):
    text = render_resume_brief(ready(), freshness, None).text
    assert banner in text
    at = text.index(banner)
    assert at < text.index("OBJECTIVE:") < text.index("FIRST NEXT ACTION:")
    assert text.split("\n\n")[1].startswith(banner.split(":")[0])  # right after the header


def test_unclassifiable_drift_banner_names_it():
    fr = derive_freshness(HEAD, HEAD, [ArtifactDrift("a.py", "unclassified", "sha256:1", None)], True)
    assert "STALE: changes since capture could not be classified; drifted artifact: a.py (unclassified)" in \
        render_resume_brief(ready(), fr, None).text


def test_banner_lists_at_most_three_drifted_paths():
    drift = [ArtifactDrift(f"f{i}.py", "modified", "sha256:1", "sha256:2") for i in range(5)]
    text = render_resume_brief(ready(), derive_freshness(HEAD, HEAD, drift, True), None).text
    assert "f0.py (modified), f1.py (modified), f2.py (modified), and 2 more" in text


def test_closing_instruction_asks_to_verify_freshness():
    text = render_resume_brief(ready(), FRESH, None).text
    assert text.rstrip().splitlines()[-1].startswith("Before acting, verify freshness: check that the repository "
                                                     "head is still 4f2a9c1e0b7d")


# -- budget ---------------------------------------------------------------------------------------

def test_token_estimate_is_utf8_bytes_over_four_rounded_up():
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2
    assert estimate_tokens("é") == 1  # two bytes
    assert estimate_tokens("日本語") == 3  # nine bytes


def test_a_brief_within_budget_is_not_trimmed():
    brief = render_resume_brief(ready(), FRESH, None, max_tokens=5000)
    assert brief.omitted == () and "Omitted" not in brief.text
    assert brief.text == render_resume_brief(ready(), FRESH, None, max_tokens=None).text


def test_trimming_drops_least_important_content_first_and_says_so():
    brief = render_resume_brief(ready(), FRESH, score_quality(ready()), max_tokens=700)
    assert brief.estimated_tokens <= 700
    assert brief.omitted[0] == "continuity score (1)"
    assert "Continuity score" not in brief.text
    assert f"Omitted to fit the budget: {brief.omitted[0]}" in brief.text
    assert "DO NOT RETRY" in brief.text and "FIRST NEXT ACTION:" in brief.text


def test_trim_order_is_the_documented_priority():
    doc = (Path(__file__).parent.parent / "docs" / "resume-brief.md").read_text()
    for group, label in TRIM_ORDER:
        assert f"`{group}`" in doc, f"{group} is not documented in docs/resume-brief.md"


def test_budget_below_the_minimum_is_refused():
    with pytest.raises(InputError):
        render_resume_brief(ready(), FRESH, None, max_tokens=MIN_MAX_TOKENS - 1)


def test_unknown_format_is_refused():
    with pytest.raises(InputError):
        render_resume_brief(ready(), FRESH, None, format="html")


_freshness = st.sampled_from([FRESH, STALE, PARTIAL, UNKNOWN])


@settings(max_examples=min(60, settings.default.max_examples))
@given(handoff_dicts(max_items=30, max_text=300), _freshness, st.integers(MIN_MAX_TOKENS, 2500),
       st.sampled_from(["prompt", "md"]))
def test_budget_is_respected_for_large_handoffs(body, freshness, max_tokens, fmt):
    h = handoff_from_json(drop_nones(body))
    full = render_resume_brief(h, freshness, score_quality(h), max_tokens=None, format=fmt)
    brief = render_resume_brief(h, freshness, score_quality(h), max_tokens=max_tokens, format=fmt)
    assert brief.estimated_tokens == estimate_tokens(brief.text) <= max_tokens
    if full.estimated_tokens > max_tokens:
        assert brief.omitted and "Omitted to fit the budget:" in brief.text
    else:
        assert not brief.omitted and brief.text == full.text
    for key in NEVER_DROPPED:
        assert key in brief.sections
    assert [s for s in SECTION_ORDER if s in brief.sections] == list(brief.sections)
    if h.failed_attempts:
        assert ("DO NOT RETRY" if fmt == "prompt" else "## Do not retry") in brief.text


@settings(max_examples=min(30, settings.default.max_examples))
@given(handoff_dicts(max_items=40, max_text=600), _freshness, st.sampled_from(["prompt", "md"]))
def test_the_minimum_budget_always_holds_the_never_dropped_core(body, freshness, fmt):
    body["work"]["objective"] = "o" * 5000
    body["summary"]["current_state"] = "s" * 5000
    brief = render_resume_brief(handoff_from_json(drop_nones(body)), freshness, None, max_tokens=MIN_MAX_TOKENS,
                                format=fmt)
    assert brief.estimated_tokens <= MIN_MAX_TOKENS
    assert "ooo" in brief.text and "sss" in brief.text


@pytest.mark.parametrize("fmt", ["prompt", "md"])
@pytest.mark.parametrize("kind", ["unclassified", "missing", None])
def test_the_minimum_budget_holds_even_for_huge_multibyte_core_fields(fmt, kind):
    e = "\N{GRINNING FACE}"  # four UTF-8 bytes
    body = ready_body()
    body["status"] = "superseded"
    body["created_at"] = "2026-09-02T14:30:00.123456789+05:30"
    body["work"]["title"] = e * 500
    body["work"]["objective"] = e * 3000
    body["summary"]["current_state"] = e * 3000
    body["project"]["repository"]["head"] = e * 40
    body["open_items"] = [{"id": e * 100, "priority": "high", "description": e * 500, "suggested_action": e * 500,
                           "acceptance_check": e * 500, "blocked_by": [e * 200, e * 200]}]
    body["failed_attempts"] = [{"id": f"F{i}{e * 50}", "approach": e * 300, "outcome": "regressed",
                                "reason": e * 300} for i in range(50)]
    drift = [ArtifactDrift(e * 100 + str(i), kind) for i in range(5)] if kind else []
    freshness = derive_freshness(e * 40, OTHER_HEAD if kind == "unclassified" else e * 40, drift, kind is not None)
    h = handoff_from_json(body)
    brief = render_resume_brief(h, freshness, score_quality(h), max_tokens=MIN_MAX_TOKENS, format=fmt)
    assert brief.estimated_tokens <= MIN_MAX_TOKENS
    assert "50 failed approach(es) not shown" in brief.text


# -- redaction ------------------------------------------------------------------------------------

SECRET = "sk_live_SENTINEL_9f8e7d"
_PATHS = ["work.title", "work.objective", "work.constraints[0]", "work.definition_of_done[0]", "work.scope[0]",
          "summary.current_state", "summary.completed[0]", "summary.in_progress[0]", "summary.discoveries[0]",
          "summary.why_it_matters", "decisions[0].decision", "decisions[0].rationale",
          "decisions[0].alternatives_considered[0]", "failed_attempts[0].approach", "failed_attempts[0].reason",
          "artifacts[0].description", "artifacts[0].revision", "evidence[0].claim", "evidence[0].ref",
          "evidence[0].result", "open_items[0].description", "open_items[0].suggested_action",
          "open_items[0].acceptance_check", "risks[0].description", "risks[0].mitigation"]


def _set_path(body: dict, path: str, value: str) -> bool:
    parts = path.replace("]", "").replace("[", ".").split(".")
    node = body
    for p in parts[:-1]:
        try:
            node = node[int(p)] if p.isdigit() else node[p]
        except (KeyError, IndexError):
            return False
    last = parts[-1]
    if last.isdigit():
        if int(last) >= len(node):
            return False
        node[int(last)] = value
    else:
        node[last] = value
    return True


@settings(max_examples=min(60, settings.default.max_examples))
@given(handoff_dicts(max_items=3, max_text=40), st.lists(st.sampled_from(_PATHS), min_size=1, max_size=6, unique=True),
       _freshness, st.sampled_from([None, MIN_MAX_TOKENS, 800]), st.booleans())
def test_no_redacted_value_ever_appears(body, paths, freshness, max_tokens, parent_path):
    body = copy.deepcopy(body)
    for path in paths:
        if _set_path(body, path, f"{SECRET} leaked at {path}"):
            # A redaction names the path (or its parent object) but the value is still there.
            field = path.rsplit(".", 1)[0] if parent_path and "." in path else path
            body["redactions"].append({"field": field, "reason": f"matched {SECRET}", "replacement": SECRET})
    body["notes_from_agent"] = SECRET  # unknown fields are kept in the record but never rendered
    h = handoff_from_json(drop_nones(body))
    for fmt in ("prompt", "md"):
        assert SECRET not in render_resume_brief(h, freshness, score_quality(h), max_tokens=max_tokens, format=fmt).text
    assert SECRET not in render_markdown_view(h)


def test_redaction_placeholders_are_rendered_as_they_are():
    body = ready_body()
    body["evidence"][1]["ref"] = "curl -H 'Authorization: Bearer [REDACTED:bearer-token]' https://example.test/cb"
    body["redactions"] = [{"field": "evidence[1].ref", "reason": "matched bearer-token", "replacement": "[REDACTED]"}]
    text = render_resume_brief(handoff_from_json(body), FRESH, None).text
    assert "Ref: `curl -H 'Authorization: Bearer [REDACTED:bearer-token]' https://example.test/cb`" in text
    assert "Redacted at capture: 1 field;" in text
    assert "matched bearer-token" not in text


def test_sensitive_artifact_description_is_withheld():
    body = ready_body()
    body["artifacts"][0]["sensitive"] = True
    text = render_resume_brief(handoff_from_json(body), FRESH, None).text
    assert "src/auth/callback.ts (modified @ git:4f2a9c1) [sensitive: description withheld]" in text
    assert "Validation entry point" not in text


def test_brief_json_shape_is_stable():
    out = render_resume_brief(ready(), FRESH, None, max_tokens=MIN_MAX_TOKENS).to_json()
    assert list(out) == ["format", "text", "estimated_tokens", "max_tokens", "omitted", "sections"]
    assert out["max_tokens"] == MIN_MAX_TOKENS and out["estimated_tokens"] <= MIN_MAX_TOKENS and out["omitted"]
