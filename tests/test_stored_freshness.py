"""A baton's freshness reads the stored record without the record model.

A session start that receives a baton judges the carried handoff's freshness
from the handoff index's document (``baton.domain.freshness.stored_record``):
what it reads of it — the repository's head and branch, the artifacts, the
commit evidence, the baton's scope — is what the record model reads, so the
freshness, its line, the start's brief and what it appends are the same, byte
for byte; a document not shaped as a fold writes one is read by the model, as
before (``stored_handoff``), which says what is wrong with it.
"""

from __future__ import annotations

import shutil

import attrs
import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from baton.commands import handoff_facts
from baton.commands.handoff_facts import history_facts
from baton.domain import freshness
from baton.domain.freshness import (
    HASH_SKIPPED,
    ArtifactFact,
    commit_evidence_refs,
    freshness_from_facts,
    stored_record,
)
from baton.domain.handoff import Handoff, _stored_plan, handoff_to_json, stored_handoff
from tests.app_support import bootstrap, promote_handoff, validate_handoff_command
from tests.batons_support import events
from tests.cli_support import run_json
from tests.handoff_support import git_commit, git_init, payload
from tests.strategies import handoffs, stored_draft

_TEXT = st.text(max_size=8)


def _as_freshness_reads_it(h) -> tuple:
    """Every member of a record a freshness reads (``freshness_from_facts``, ``history_facts``,
    ``artifact_facts``, ``commit_evidence_refs``), as it reads them."""
    repo = h.project.repository
    return (None if repo is None else (repo.head, (repo.extra or {}).get("branch")),
            [(a.path, a.role, a.content_hash, (a.extra or {}).get(HASH_SKIPPED)) for a in h.artifacts],
            [(e.id, e.type, e.ref) for e in h.evidence], commit_evidence_refs(h), (h.extra or {}).get("baton"))


@st.composite
def stored_documents(draw) -> dict:
    """A record as the index stores it, some with the unknown members a freshness reads: the
    repository's ``branch``, an artifact's ``content_hash_skipped``, the record's ``baton`` scope."""
    doc = orjson.loads(orjson.dumps(handoff_to_json(draw(handoffs()))))
    repo = doc["project"].get("repository")
    if repo is not None and draw(st.booleans()):
        repo["branch"] = draw(_TEXT)
    for artifact in doc["artifacts"]:
        if draw(st.booleans()):
            artifact[HASH_SKIPPED] = draw(_TEXT)
    if draw(st.booleans()):
        doc["baton"] = draw(st.one_of(st.just({}), st.fixed_dictionaries({"branch": _TEXT}), _TEXT))
    return doc


@given(stored_documents())
def test_a_stored_record_reads_for_its_freshness_what_the_record_model_reads(doc):
    assert _as_freshness_reads_it(stored_record(doc)) == _as_freshness_reads_it(stored_handoff(doc))


@given(stored_documents(), st.data())
def test_a_stored_records_freshness_is_the_record_models_for_the_same_facts(doc, data):
    paths = [a["path"] for a in doc["artifacts"]]
    facts = {path: ArtifactFact(exists=data.draw(st.booleans()), inside_root=data.draw(st.booleans()),
                                sha256=data.draw(st.one_of(st.none(), _TEXT)), readable=data.draw(st.booleans()),
                                withhold_hash=data.draw(st.booleans()), note=data.draw(_TEXT))
             for path in paths if data.draw(st.booleans())}
    repo = doc["project"].get("repository") or {}
    head_now = data.draw(st.one_of(st.none(), st.just(repo.get("head") or "0" * 40), st.just("f" * 40)))
    assert freshness_from_facts(stored_record(doc), facts, head_now) == \
        freshness_from_facts(stored_handoff(doc), facts, head_now)


def test_the_members_the_stored_reader_checks_are_the_record_models():
    """The top level's required members, its models and its arrays of models, as the model reads
    them (``handoff._stored_plan``): a member added to the model is checked here too."""
    plan, _ = _stored_plan(Handoff)
    required = {f.name for f in attrs.fields(Handoff) if f.default is attrs.NOTHING}
    assert set(freshness._RECORD_REQUIRED) == required
    assert set(freshness._RECORD_MODELS) == {key for key, _, how, _ in plan if how == "model"} - {"project"}
    assert set(freshness._RECORD_ARRAYS) == {key for key, _, how, _ in plan if how == "models"} \
        - {"artifacts", "evidence"}


@pytest.mark.parametrize("change", [
    {"decisions": "not an array"}, {"work": ["not", "an", "object"]}, {"project": None}, {"artifacts": None},
    {"evidence": [{"id": "E-1", "type": "commit"}]}, {"artifacts": [{"path": "a.py"}]}, {"artifacts": ["a.py"]},
    {"project": {"id": "p", "repository": "git"}}, {"project": {"repository": None}},
], ids=str)
def test_a_document_not_shaped_as_a_stored_record_is_left_to_the_record_model(change):
    assert stored_record(stored_draft(**change)) is None


def test_a_document_without_a_required_member_is_left_to_the_record_model():
    doc = stored_draft()
    del doc["lineage"]
    assert stored_record(doc) is None


def test_a_baton_whose_record_is_not_shaped_as_one_is_judged_by_the_record_model(monkeypatch):
    """The freshness of a document the stored reader declines is the record model's: here it
    fails as it did, with the model's reason (the start shows it as a notice)."""
    from baton.errors import HandoffInputError

    doc = stored_draft(decisions="not an array")

    class Runner:
        by_name = {"handoffs": None}

        def get(self, name, key):
            return doc

    record = type("Record", (), {"id": doc["id"]})()
    with pytest.raises(HandoffInputError) as raised:
        handoff_facts.baton_freshness(None, Runner(), record)
    assert "decisions" in str(raised.value)


# -- a session start that receives a baton, end to end --------------------------------


def _handed_on(project, capsys) -> str:
    """A ready handoff naming an artifact and a commit, handed on as a baton; then the
    artifact drifted and the head moved, so its freshness has something to say."""
    from baton.app import Baton

    head = git_init(project, {"src/app.py": "x = 1\n", "src/other.py": "y = 1\n"})
    record = payload(artifacts=[{"path": "src/app.py", "role": "modified"},
                                {"path": "src/gone.py", "role": "deleted"}],
                     evidence=[{"id": "E-001", "type": "commit", "claim": "the fix is committed", "ref": head}])
    with Baton.open(project) as app:
        handoff_id = app.capture(record).handoff_id
    validate_handoff_command(project, handoff_id)
    promote_handoff(project, handoff_id, accept_warnings="test fixture")
    run_json(capsys, project, "session", "handoff", "--from", handoff_id)
    git_commit(project, {"src/app.py": "x = 2\n"})
    (project / "src" / "gone.py").write_text("back\n")
    return handoff_id


def _start(project) -> tuple[tuple, list[tuple]]:
    """A session start that claims the waiting baton: its brief, notices and baton section, and
    the events it appended (type, stream, session, payload), the moments they were written left out."""
    before = len(events(project))
    brief = bootstrap(project, session_id="s-receives").to_json()
    appended = [(e.type, e.stream, e.session, {k: v for k, v in (e.data or {}).items() if k != "claimed_at"})
                for e in events(project)[before:]]
    return (brief["brief"], brief["notices"], brief["handoffMarkdown"]), appended


def test_a_start_receiving_a_baton_tells_and_appends_what_it_did_when_the_record_model_read_it(
        project, capsys, monkeypatch, tmp_path):
    _handed_on(project, capsys)
    modelled = tmp_path / "modelled"
    shutil.copytree(project, modelled, symlinks=True)

    brief, appended = _start(project)
    monkeypatch.setattr(handoff_facts, "stored_record", lambda doc: None)  # the model reads it, as before
    brief_by_model, appended_by_model = _start(modelled)

    assert "Freshness: STALE" in brief[0] and "src/app.py" in brief[0]  # the freshness line had something to say
    assert brief == brief_by_model
    assert sorted(e[0] for e in appended) == ["baton.claimed", "handoff.resumed", "session.begun"]
    assert appended == appended_by_model


def test_the_freshness_line_judges_the_head_and_branch_as_the_record_model_does(project, capsys):
    from baton.commands.context import Project

    handoff_id = _handed_on(project, capsys)
    opened = Project.open(project)
    try:
        doc = opened.runner.get("handoffs", handoff_id)
        head_now = git_commit(project, {"src/third.py": "z = 1\n"})
        assert history_facts(project, stored_record(doc), head_now) == history_facts(project, stored_handoff(doc), head_now)
    finally:
        opened.close()
