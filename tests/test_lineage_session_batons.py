"""The whole lineage graph leaves out the records session batons carry when nothing links them to
another handoff (a day of `session end` would fill it with lone roots); asked for by id, one is shown."""

from __future__ import annotations

from tests.cli_support import run_json

SCOPE = ("--owner", "a@example.com", "--branch", "main")


def _capture(capsys, project) -> str:
    return run_json(capsys, project, "checkpoint", "create", "--no-input", "--title", "Parser",
                    "--objective", "parse the config")["id"]


def _leave_baton(capsys, project, session: str) -> str:
    run_json(capsys, project, "session", "begin", session, *SCOPE)
    return run_json(capsys, project, "session", "end", session, "--handoff-steps", "write the test", *SCOPE)["handoffId"]


def _ids(graph) -> set[str]:
    return {node["id"] for node in graph["nodes"]}


def test_the_whole_graph_leaves_out_lone_session_baton_records(capsys, project):
    handoff = _capture(capsys, project)
    baton_record = _leave_baton(capsys, project, "s-1")
    graph = run_json(capsys, project, "lineage", "--format", "json")
    assert handoff in _ids(graph) and baton_record not in _ids(graph)


def test_a_session_baton_record_asked_for_by_id_is_shown(capsys, project):
    baton_record = _leave_baton(capsys, project, "s-2")
    graph = run_json(capsys, project, "lineage", baton_record, "--format", "json")
    assert baton_record in _ids(graph)
