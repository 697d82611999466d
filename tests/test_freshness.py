"""Freshness states (§10b): fresh, partially_stale, stale, unknown — derived from facts passed in."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baton.domain.freshness import (
    FRESHNESS_STATES,
    ArtifactDrift,
    FreshnessReport,
    derive_freshness,
    detect_artifact_drift,
    heads_equal,
)

HEAD = "4f2a9c1e0b7d3a5f6e8c9b0a1d2e3f4a5b6c7d8e"
OTHER = "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d"
MODIFIED = ArtifactDrift("src/a.py", "modified", "sha256:aa", "sha256:bb")
MISSING = ArtifactDrift("src/b.py", "missing", "sha256:cc", None)
UNCLASSIFIED = ArtifactDrift("src/c.py", "unclassified", "sha256:dd", None, "could not be read")

CASES = [
    # (name, captured, now, drift, evaluated, expected state)
    ("nothing moved", HEAD, HEAD, [], True, "fresh"),
    ("nothing moved, drift None", HEAD, HEAD, None, True, "fresh"),
    ("abbreviated head equals full head", HEAD[:7], HEAD, [], True, "fresh"),
    ("artifact modified, head unchanged", HEAD, HEAD, [MODIFIED], True, "partially_stale"),
    ("artifact missing, head unchanged", HEAD, HEAD, [MISSING], True, "partially_stale"),
    ("head moved", HEAD, OTHER, [], True, "stale"),
    ("head moved and artifact drifted", HEAD, OTHER, [MODIFIED], True, "stale"),
    ("unclassifiable drift, head unchanged", HEAD, HEAD, [UNCLASSIFIED], True, "stale"),
    ("unclassifiable plus content drift", HEAD, HEAD, [MODIFIED, UNCLASSIFIED], True, "stale"),
    ("never evaluated", HEAD, HEAD, [], False, "unknown"),
    ("never evaluated even with a moved head", HEAD, OTHER, [MODIFIED], False, "unknown"),
    ("no git at all", None, None, [], True, "unknown"),
    ("no git head at capture", None, HEAD, [], True, "unknown"),
    ("git gone now", HEAD, None, [], True, "unknown"),
    ("blank heads count as no git", "  ", "", [], True, "unknown"),
    ("drift without a comparable head is unclassifiable", None, None, [MODIFIED], True, "stale"),
]


@pytest.mark.parametrize(("captured", "now", "drift", "evaluated", "expected"),
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_freshness_state_table(captured, now, drift, evaluated, expected):
    report = derive_freshness(captured, now, drift, evaluated)
    assert report.state == expected
    assert report.reasons


def test_head_moved_is_reported_only_when_heads_are_comparable():
    assert derive_freshness(HEAD, OTHER, [], True).head_moved is True
    assert derive_freshness(HEAD, HEAD, [], True).head_moved is False
    assert derive_freshness(None, HEAD, [], True).head_moved is None


def test_report_lists_what_drifted():
    report = derive_freshness(HEAD, HEAD, [MISSING, MODIFIED], True)
    assert [d.path for d in report.drift] == ["src/a.py", "src/b.py"]
    assert report.to_json()["drift"][1] == {"path": "src/b.py", "kind": "missing", "captured_hash": "sha256:cc",
                                            "current_hash": None, "detail": ""}


def test_record_freshness_has_the_spec_shape():
    report = derive_freshness(HEAD, OTHER, [], True)
    assert report.to_record_freshness() == {"git_head_at_capture": HEAD, "git_head_now": OTHER,
                                            "stale": True, "state": "stale"}


def test_to_json_shape_is_stable():
    assert list(derive_freshness(HEAD, HEAD, [], True).to_json()) == [
        "state", "evaluated", "captured_head", "head_now", "head_moved", "drift", "reasons",
        "head_relation", "commits_ahead", "captured_branch", "branch_now", "commit_evidence"]


def test_short_prefixes_do_not_count_as_equal_heads():
    assert not heads_equal("4f2a", HEAD)
    assert heads_equal(HEAD.upper(), HEAD)


def test_unknown_state_value_is_rejected():
    with pytest.raises(ValueError):
        FreshnessReport("maybe", True, None, None, None)


class TestDetectArtifactDrift:
    def test_changed_hash_is_modified(self):
        drift = detect_artifact_drift([("a.py", "sha256:1")], {"a.py": "sha256:2"})
        assert [(d.path, d.kind) for d in drift] == [("a.py", "modified")]

    def test_same_hash_is_no_drift(self):
        assert detect_artifact_drift([("a.py", "sha256:1")], {"a.py": "SHA256:1"}) == []

    def test_gone_file_is_missing_unless_marked_deleted(self):
        assert detect_artifact_drift([("a.py", "sha256:1")], {"a.py": None})[0].kind == "missing"
        assert detect_artifact_drift([("a.py", "sha256:1")], {"a.py": None}, deleted_ok=["a.py"]) == []

    def test_artifact_without_recorded_hash_never_drifts(self):
        assert detect_artifact_drift([("a.py", None), ("b.py", "")], {"a.py": "sha256:9", "b.py": None}) == []

    def test_unobserved_artifact_is_not_judged(self):
        assert detect_artifact_drift([("a.py", "sha256:1")], {}) == []

    def test_unreadable_file_is_unclassified(self):
        assert detect_artifact_drift([("a.py", "sha256:1")], {}, unreadable=["a.py"])[0].kind == "unclassified"

    def test_different_hash_algorithms_are_unclassified(self):
        assert detect_artifact_drift([("a.py", "sha256:1")], {"a.py": "blake3:1"})[0].kind == "unclassified"


_heads = st.one_of(st.none(), st.sampled_from([HEAD, OTHER, HEAD[:9], "", " "]))
_drifts = st.lists(st.sampled_from([MODIFIED, MISSING, UNCLASSIFIED]), max_size=3)


@given(_heads, _heads, st.one_of(st.none(), _drifts), st.booleans())
def test_exactly_one_known_state_and_it_is_deterministic(captured, now, drift, evaluated):
    a = derive_freshness(captured, now, drift, evaluated)
    b = derive_freshness(captured, now, list(reversed(drift or [])), evaluated)
    assert a.state in FRESHNESS_STATES
    assert a == b


@given(_heads, _heads, _drifts)
def test_fresh_only_when_heads_match_and_nothing_drifted(captured, now, drift):
    report = derive_freshness(captured, now, drift, True)
    if report.state == "fresh":
        assert not drift and captured and now and heads_equal(captured, now)
