"""The lineage graph's rules (spec §14), as pure functions over nodes."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baton.domain.lineage import (
    Graph,
    Node,
    conflict_candidates,
    conflicts_touching,
    merge_body,
    normalize,
    render_dot,
    render_mermaid,
    render_text,
    subject_and_choice,
    to_json,
)
from baton.errors import MergeUnresolved

P, A, B, C, M = (f"01900000-0000-7000-8000-00000000000{i}" for i in range(1, 6))


def _d(ident, text, subject=None, kind=None):
    s, choice = subject_and_choice({"decision": text, **({"subject": subject} if subject else {})})
    return {"id": ident, "subject": s, "choice": choice, "text": text, "kind": kind}


def _node(ident, parents=(), relation=None, decisions=(), status="ready", at="2026-01-01T00:00:00Z"):
    relation = relation or ("root" if not parents else "continue")
    return Node(ident, relation, tuple(parents), None, f"t-{ident[-1]}", at, tuple(decisions), status)


def test_a_subject_is_the_short_text_before_a_colon_or_an_explicit_subject():
    assert subject_and_choice({"decision": "Token store: Redis"}) == ("token store", "redis")
    assert subject_and_choice({"decision": "Use Redis", "subject": "Token  Store"}) == ("token store", "use redis")
    assert subject_and_choice({"decision": "Use timing-safe comparison."}) == (None, "use timing safe comparison")


def _spelled_out_normalize(text):
    return " ".join(re.sub(r"[^\w]+", " ", unicodedata.normalize("NFKC", text).casefold()).split())


def _spelled_out_subject_and_choice(decision):
    """The rule as the docstring states it, each part normalized wherever it is tested."""
    text = decision["decision"] if isinstance(decision.get("decision"), str) else ""
    subject = decision.get("subject")
    if isinstance(subject, str) and _spelled_out_normalize(subject):
        return _spelled_out_normalize(subject), _spelled_out_normalize(text)
    head, sep, rest = text.partition(":")
    if sep and _spelled_out_normalize(head) and _spelled_out_normalize(rest) and len(head.strip()) <= 80:
        return _spelled_out_normalize(head), _spelled_out_normalize(rest)
    return None, _spelled_out_normalize(text)


_texts = (st.text(st.sampled_from("aZ:. -_\u00c5\u212b\ufb01\u0130\u00df\uff21\t9") | st.characters(), max_size=90)
          | st.text(st.characters(max_codepoint=127), max_size=90))


@given(_texts)
def test_normalize_folds_every_text_as_nfkc_and_case_folding_do(text):
    assert normalize(text) == _spelled_out_normalize(text)


@given(_texts, st.none() | _texts)
def test_a_decision_reads_as_the_rule_reads_it_whatever_its_text(text, subject):
    decision = {"decision": text, **({} if subject is None else {"subject": subject})}
    assert subject_and_choice(decision) == _spelled_out_subject_and_choice(decision)


def test_siblings_with_the_same_decision_id_and_different_choices_are_candidates():
    graph = Graph([_node(P), _node(A, [P], decisions=[_d("D-001", "Use Redis")]),
                   _node(B, [P], decisions=[_d("D-001", "Use Postgres")])])
    [c] = conflict_candidates(graph)
    assert (c.a, c.b, c.basis, c.key) == (A, B, "id", "D-001")


def test_siblings_with_the_same_subject_and_different_choices_are_candidates():
    graph = Graph([_node(P), _node(A, [P], decisions=[_d("D-001", "Token store: Redis")]),
                   _node(B, [P], decisions=[_d("D-007", "token  store: postgres")])])
    [c] = conflict_candidates(graph)
    assert (c.basis, c.key) == ("subject", "token store")


def test_the_same_choice_on_two_branches_is_no_conflict():
    graph = Graph([_node(P), _node(A, [P], decisions=[_d("D-001", "Token store: Redis")]),
                   _node(B, [P], decisions=[_d("D-001", "token store: REDIS.")])])
    assert conflict_candidates(graph) == []


def test_a_descendant_re_deciding_its_ancestor_is_a_change_not_a_conflict():
    graph = Graph([_node(P, decisions=[_d("D-001", "Use Redis")]),
                   _node(A, [P], decisions=[_d("D-001", "Use Postgres")])])
    assert conflict_candidates(graph) == []


def test_unrelated_records_never_conflict():
    graph = Graph([_node(A, decisions=[_d("D-001", "Use Redis")]), _node(B, decisions=[_d("D-001", "Use Postgres")])])
    assert conflict_candidates(graph) == []


def test_descendants_of_siblings_conflict_too():
    graph = Graph([_node(P), _node(A, [P]), _node(B, [P], decisions=[_d("D-002", "Cache: none")]),
                   _node(C, [A], decisions=[_d("D-009", "Cache: LRU")])])
    [c] = conflict_candidates(graph)
    assert {c.a, c.b} == {B, C}


def test_a_merge_of_both_sides_resolves_the_candidate():
    nodes = [_node(P), _node(A, [P], decisions=[_d("D-001", "Use Redis")]),
             _node(B, [P], decisions=[_d("D-001", "Use Postgres")])]
    merge = _node(M, [A, B], relation="merge", decisions=[_d("D-001", "Postgres", kind="merge_resolution")],
                  status="draft")
    assert conflict_candidates(Graph([*nodes, merge])) == []
    archived = _node(M, [A, B], relation="merge", status="archived")
    assert len(conflict_candidates(Graph([*nodes, archived]))) == 1


def test_an_archived_branch_takes_part_in_no_candidate():
    graph = Graph([_node(P), _node(A, [P], decisions=[_d("D-001", "Use Redis")], status="archived"),
                   _node(B, [P], decisions=[_d("D-001", "Use Postgres")])])
    assert conflict_candidates(graph) == []


def test_a_record_carries_the_candidates_of_its_ancestors_until_it_merges_them():
    nodes = [_node(P), _node(A, [P], decisions=[_d("D-001", "Use Redis")]),
             _node(B, [P], decisions=[_d("D-001", "Use Postgres")]), _node(C, [A])]
    graph = Graph(nodes)
    candidates = conflict_candidates(graph)
    assert len(conflicts_touching(candidates, graph, C)) == 1
    assert conflicts_touching(candidates, graph, P) == []


def test_a_second_continue_from_one_parent_is_a_fork_in_the_graph():
    graph = Graph([_node(P), _node(A, [P], at="2026-01-01T00:00:01Z")])
    assert graph.graph_relation(A) == "continue"
    graph = Graph([_node(P), _node(A, [P], at="2026-01-01T00:00:01Z"), _node(B, [P], at="2026-01-01T00:00:02Z")])
    assert graph.graph_relation(A) == graph.graph_relation(B) == "fork"


def test_the_views_name_every_node_edge_and_conflict():
    graph = Graph([_node(P), _node(A, [P], decisions=[_d("D-001", "Use Redis")]),
                   _node(B, [P], decisions=[_d("D-001", "Use Postgres")])])
    view = to_json(graph, set(graph.nodes), conflict_candidates(graph))
    mermaid = render_mermaid(view)
    assert mermaid.startswith("graph TD") and mermaid.count("-->|fork|") == 2 and "classDef conflict" in mermaid
    dot = render_dot(view)
    assert dot.startswith("digraph lineage {") and dot.count("->") == 2 and dot.rstrip().endswith("}")
    text = render_text(view)
    assert text.splitlines()[1].startswith("  ") and "conflict candidate" in text


def test_the_diagrams_show_a_branch_label_beside_the_short_id():
    labelled = Node(A, "fork", (P,), "try-postgres", "t-a", "2026-01-01T00:00:01Z", (), "draft")
    graph = Graph([_node(P), labelled])
    view = to_json(graph, set(graph.nodes), [])
    short = next(n["short_id"] for n in view["nodes"] if n["id"] == A)
    assert f"{short} [try-postgres] draft" in render_mermaid(view)
    assert f"{short} [try-postgres] draft" in render_dot(view)


def test_a_dot_label_holding_slash_n_keeps_it_and_breaks_only_between_head_and_title():
    labelled = Node(A, "fork", (P,), "feat/new", "api/notes", "2026-01-01T00:00:01Z", (), "draft")
    graph = Graph([_node(P), labelled])
    view = to_json(graph, set(graph.nodes), [])
    short = next(n["short_id"] for n in view["nodes"] if n["id"] == A)
    line = next(x for x in render_dot(view).splitlines() if f'label="{short}' in x)
    assert f'label="{short} [feat/new] draft\\napi/notes"' in line


def test_a_dot_label_keeps_a_backslash_and_writes_a_control_character_as_its_visible_escape():
    labelled = Node(A, "fork", (P,), "x", 'a\\b \x1b[31mred "q"', "2026-01-01T00:00:01Z", (), "draft")
    graph = Graph([_node(P), labelled])
    view = to_json(graph, set(graph.nodes), [])
    line = next(x for x in render_dot(view).splitlines() if "red" in x)
    assert line.endswith('\\na\\\\b \\\\x1b[31mred \\"q\\""];')  # DOT: a\\b, \\x1b, \"q\"
    assert "\x1b" not in line


def test_a_mermaid_label_carries_markup_characters_as_entity_codes():
    labelled = Node(A, "fork", (P,), "x", "Use <b>Redis</b> & #1", "2026-01-01T00:00:01Z", (), "draft")
    graph = Graph([_node(P), labelled])
    view = to_json(graph, set(graph.nodes), [])
    line = next(x for x in render_mermaid(view).splitlines() if "Redis" in x)
    assert "Use #lt;b#gt;Redis#lt;/b#gt; #amp; #35;1" in line and "<" not in line and ">" not in line


def test_a_merge_body_without_a_resolution_decision_is_refused():
    parents = [{"id": A, "work": {"title": "a", "objective": "o"}}, {"id": B, "work": {"title": "b", "objective": "o"}}]
    with pytest.raises(MergeUnresolved) as caught:
        merge_body(parents, resolution={}, conflicts=(), basis=(), title=None)
    assert caught.value.exit_code == 3


def test_a_merge_body_records_its_resolution_conflicts_and_the_parents_evidence():
    parents = [{"id": A, "work": {"title": "a", "objective": "o"},
                "evidence": [{"id": "E-001", "type": "test", "claim": "a passes"}]},
               {"id": B, "work": {"title": "b", "objective": "o"},
                "evidence": [{"id": "E-001", "type": "test", "claim": "b passes"}]}]
    body = merge_body(parents, resolution={"decision": "Keep Postgres", "resolves": ["D-001"]}, conflicts=(),
                      basis=(P,), title="Merged")
    assert body["work"]["title"] == "Merged"
    assert body["lineage"] == {"parents": [A, B], "relation": "merge", "conflicts": [], "merge_basis": [P]}
    [decision] = body["decisions"]
    assert decision["kind"] == "merge_resolution" and decision["resolves"] == ["D-001"]
    assert [(e["id"], e["source_handoff"]) for e in body["evidence"]] == [("E-001", A), ("E-002", B)]


def test_a_resolution_file_with_an_unknown_field_is_refused_naming_it():
    from baton.domain.lineage import resolution_from_text
    from baton.errors import InputError

    with pytest.raises(InputError, match="rationle"):
        resolution_from_text('{"decision": "Keep Postgres", "rationle": "typo"}')
    assert resolution_from_text('{"decision": "Keep Postgres", "rationale": "fine"}')["rationale"] == "fine"


def test_a_mermaid_label_writes_a_control_character_as_its_visible_escape():
    labelled = Node(A, "fork", (P,), "x", "a\x1b[31mred", "2026-01-01T00:00:01Z", (), "draft")
    graph = Graph([_node(P), labelled])
    view = to_json(graph, set(graph.nodes), [])
    line = next(x for x in render_mermaid(view).splitlines() if "red" in x)
    assert "a#92;x1b[31mred" in line and "\x1b" not in line
