"""What ``resume`` accepts is checked before anything is read (``limits.check_resume_options``).

The formats are the bounds' (``baton.domain.limits.RESUME_FORMATS``), which the MCP tool's schema
publishes without loading the command; a session or harness is recorded only with a resume that
is marked, so one given without it is refused, and nothing is written.
"""

from __future__ import annotations

import pytest

from baton.domain.limits import RESUME_FORMATS
from baton.errors import InputError
from baton.mcp_schemas import input_schemas
from tests.app_support import init_project, resume_handoff


def test_resume_refuses_a_format_it_does_not_render_before_reading_anything(tmp_path):
    init_project(tmp_path)  # no handoff at all: the format is refused first
    with pytest.raises(InputError) as refused:
        resume_handoff(tmp_path, "latest", format="html")
    assert str(refused.value) == "`format` must be one of prompt, md, json, not 'html'"


@pytest.mark.parametrize(("given", "said"), [
    ({"session": "s-1"}, "`session` is recorded only with `mark_resumed`"),
    ({"harness": "claude-code"}, "`harness` is recorded only with `mark_resumed`"),
    ({"session": "s-1", "harness": "claude-code"}, "`session` and `harness` are recorded only with `mark_resumed`"),
], ids=["session", "harness", "both"])
def test_resume_refuses_a_session_or_harness_without_marking_the_resume(tmp_path, given, said):
    init_project(tmp_path)
    with pytest.raises(InputError) as refused:
        resume_handoff(tmp_path, "latest", **given)
    assert str(refused.value) == f"{said}; add it, or leave them out (nothing was written)"


def test_the_mcp_resume_tool_offers_the_formats_resume_renders():
    assert input_schemas()["handoff_resume"]["properties"]["format"]["enum"] == list(RESUME_FORMATS)
