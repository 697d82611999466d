"""The status page's refusal to dismiss a teammate's baton (409 ``baton_not_yours``, docs/status-page.md)
names what its user can do: the page has no `not_mine` switch, so the message names the command line
that dismisses it anyway (tester-use17 T7)."""

from __future__ import annotations

import orjson

from baton.commands.context import Project
from tests.app_support import status_server
from tests.cli_support import ledger_size
from tests.test_status_page import dismiss
from tests.test_sync_baton_owners import left_for_bob


def test_the_page_refuses_a_teammates_baton_naming_the_command_line_that_dismisses_it(capsys, tmp_path):
    _a, b, ident = left_for_bob(capsys, tmp_path, "carol@example.com")
    before = ledger_size(b)
    with status_server(b) as server:
        answer = dismiss(server, ident, Project.open(b).config.project_id, X_Baton_Token=server.app.token)
    error = orjson.loads(answer.body)["error"]
    assert answer.status == 409 and error["code"] == "baton_not_yours"
    assert f"baton session handoff --dismiss {ident} --not-mine" in error["message"]
    assert "`not_mine`" not in error["message"]
    assert ledger_size(b) == before
