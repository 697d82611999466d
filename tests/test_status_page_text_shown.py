"""The status page shows text as the command line prints it (docs/status-page.md,
"What the page shows"): control and invisible format characters as escapes (a
bidirectional control must not reorder a step a person reads before Dismiss),
titles clipped in the tables as ``handoff list`` clips them, and a project whose
``config.json`` is gone explained as ``baton status`` explains it, never a 500.
"""

from __future__ import annotations

from baton.app import Baton
from baton.domain.wording import TITLE_WIDTH
from tests.app_support import project_id_of, status_server
from tests.batons_support import leave
from tests.handoff_support import payload
from tests.test_status_page import get_handoffs, request

RLO, PDF = "\u202e", "\u202c"


def test_a_bidirectional_control_in_a_next_step_is_served_escaped(project):
    leave(project, "s-a", [f"Run {RLO}mr- fr- /{PDF} cleanup"])
    with status_server(project) as server:
        body = get_handoffs(server, project_id_of(project)).json
    assert body["items"][0]["nextSteps"] == ["Run \\u202emr- fr- /\\u202c cleanup"]


def test_an_escape_character_in_a_title_is_served_escaped(project):
    with Baton.open(project) as app:
        app.capture(payload(work={"title": "a\x1b[31mred", "objective": "O"}))
    with status_server(project) as server:
        body = get_handoffs(server, project_id_of(project)).json
    assert body["latestHandoffs"][0]["title"] == "a\\x1b[31mred"


def test_a_bidirectional_control_in_a_handoffs_view_is_served_escaped(project):
    with Baton.open(project) as app:
        captured = app.capture(payload(work={"title": f"Rotate keys {RLO}yalp{PDF} then deploy", "objective": "O"}))
    with status_server(project) as server:
        view = request(server, "GET", f"/api/handoffs/{captured.handoff_id}?project={project_id_of(project)}").json
    assert view["title"] == "Rotate keys \\u202eyalp\\u202c then deploy"
    assert RLO not in view["markdown"] and "\\u202e" in view["markdown"]


def test_baton_status_json_keeps_the_characters_themselves(project):
    leave(project, "s-a", [f"Run {RLO}x{PDF}"])
    with Baton.open(project) as app:
        assert app.status_overview().to_json()["items"][0]["nextSteps"] == [f"Run {RLO}x{PDF}"]


def test_a_long_title_is_clipped_in_the_handoffs_table_as_handoff_list_clips_it(project):
    with Baton.open(project) as app:
        captured = app.capture(payload(work={"title": "x" * 120_000, "objective": "O"}))
    with status_server(project) as server:
        row = get_handoffs(server, project_id_of(project)).json["latestHandoffs"][0]
        view = request(server, "GET", f"/api/handoffs/{captured.handoff_id}?project={project_id_of(project)}").json
    assert row["title"] == "x" * (TITLE_WIDTH - 1) + "\u2026"
    assert view["title"] == "x" * 120_000  # the handoff's own view has it whole


def test_a_long_title_stays_whole_in_baton_status_json(project):
    with Baton.open(project) as app:
        app.capture(payload(work={"title": "y" * 5000, "objective": "O"}))
        assert app.status_overview().to_json()["latestHandoffs"][0]["title"] == "y" * 5000


def test_a_config_json_gone_under_the_running_server_is_explained_as_the_cli_explains_it(project):
    with Baton.open(project) as app:
        app.capture(payload())
    project_id = project_id_of(project)
    with status_server(project) as server:
        assert get_handoffs(server, project_id).status == 200
        config = (project / ".baton" / "config.json").read_bytes()
        (project / ".baton" / "config.json").unlink()  # `git checkout` of a branch that does not track it
        gone = get_handoffs(server, project_id)
        (project / ".baton" / "config.json").write_bytes(config)
        back = get_handoffs(server, project_id)
    assert gone.status == 404 and gone.json["error"]["code"] == "not_initialized"
    assert "has a Baton ledger (.baton/ledger/) but no .baton/config.json" in gone.json["error"]["message"]
    assert "git checkout <branch> -- .baton/config.json" in gone.json["error"]["message"]
    assert back.status == 200


def test_the_page_of_a_project_whose_config_json_is_gone_is_served(project):
    project_id = project_id_of(project)
    with status_server(project) as server:
        assert get_handoffs(server, project_id).status == 200
        (project / ".baton" / "config.json").unlink()
        page = request(server, "GET", "/")
    assert page.status == 200 and b"Baton status" in page.body
