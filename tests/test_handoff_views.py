"""Reading handoffs: show in four formats, list with status and full-text filters, prepare."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baton.commands.capture import capture_in_scope
from baton.commands.context import Project
from baton.commands.listing import fts_query
from baton.domain.yaml_text import to_yaml
from baton.errors import InputError
from tests.app_support import list_handoffs, prepare_handoff, promote_handoff, show_handoff, validate_handoff_command
from tests.handoff_support import git_commit, git_init, payload


def _capture(root, body=None, **kw) -> str:
    opened = Project.open(root)
    try:
        with opened.writing() as scope:
            return capture_in_scope(scope, body or payload(), **kw).handoff_id
    finally:
        opened.close()


# -- show -----------------------------------------------------------------------------

def test_show_json_is_the_materialized_record(project):
    handoff_id = _capture(project)
    result = show_handoff(project, handoff_id)
    assert json.loads(result.text) == json.loads((project / result.file).read_bytes())


def test_show_yaml_reads_back_as_the_same_record(project):
    yaml = pytest.importorskip("yaml")
    handoff_id = _capture(project, payload(summary={"current_state": "line one\nline two: with colon\n"}))
    result = show_handoff(project, handoff_id, format="yaml")
    assert yaml.safe_load(result.text) == result.record


def test_show_md_and_prompt_render_the_objective_and_the_next_action(project):
    handoff_id = _capture(project)
    md = show_handoff(project, handoff_id, format="md").text
    prompt = show_handoff(project, handoff_id, format="prompt").text
    for text in (md, prompt):
        assert "Invalid state values are rejected" in text
        assert "Add the duplicate-callback fixture" in text


def test_resume_of_a_session_baton_shows_its_open_questions_in_prompt_and_md(project):
    from tests.app_support import resume_handoff
    from tests.batons_support import leave

    record = leave(project, steps=("Run the auth suite",), questions=("Is the staging key rotated?",))
    for fmt, heading in (("prompt", "OPEN QUESTIONS:"), ("md", "## Open questions")):
        text = resume_handoff(project, record.id, format=fmt).brief["text"]
        assert f"{heading}\n- Is the staging key rotated?\n" in text


def test_show_md_of_a_session_baton_shows_its_open_questions(project):
    from tests.batons_support import leave

    record = leave(project, steps=("Run the auth suite",), questions=("Is the staging key rotated?",))
    text = show_handoff(project, record.id, format="md").text
    assert "## Open questions\n- Is the staging key rotated?\n" in text


def test_show_rejects_an_unknown_format(project):
    handoff_id = _capture(project)
    with pytest.raises(InputError):
        show_handoff(project, handoff_id, format="xml")


# -- the YAML emitter ------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**12, 10**12)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=40),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=20,
)


@given(json_values)
def test_yaml_output_parses_back_to_the_same_value(value):
    yaml = pytest.importorskip("yaml")
    assert yaml.safe_load(to_yaml(value)) == value


@pytest.mark.parametrize("text", ["A\n", "plain\n", "yes", "No", "null", "~", "1e3", "0x1F", "- item", "a: b", "#note", " pad",
                                  "2026-09-02", "true", ".inf", "@x", "`x`", "'q'", "{a}", "a #b", ""])
def test_yaml_quotes_every_scalar_a_reader_could_misread(text):
    assert to_yaml({"k": text}) == f"k: {json.dumps(text, ensure_ascii=False)}\n"


def test_yaml_is_deterministic_and_sorts_keys():
    assert to_yaml({"b": [1, {"q": 2.5, "p": "plain text"}], "a": {}}) == (
        "a: {}\nb:\n  - 1\n  - p: plain text\n    q: 2.5\n")


# -- list -------------------------------------------------------------------------------

def test_list_shows_newest_first_and_filters_by_status(project):
    older = _capture(project)
    newer = _capture(project)
    validate_handoff_command(project, older)
    promote_handoff(project, older)
    rows = list_handoffs(project).rows
    assert [r.id for r in rows] == [newer, older]
    assert [r.id for r in list_handoffs(project, status="ready").rows] == [older]
    assert [r.id for r in list_handoffs(project, status="draft").rows] == [newer]


def test_list_rejects_an_unknown_status(project):
    with pytest.raises(InputError, match="`status`"):
        list_handoffs(project, status="done")


def test_list_work_searches_title_objective_and_summary(project):
    oauth = _capture(project)
    other = _capture(project, payload(work={"title": "Billing export", "objective": "CSV export of invoices"},
                                      summary={"current_state": "Pagination of the ledger API is unclear"}))
    assert [r.id for r in list_handoffs(project, work="oauth").rows] == [oauth]  # title, any case
    assert [r.id for r in list_handoffs(project, work="callback").rows] == [oauth]
    assert [r.id for r in list_handoffs(project, work="invoic").rows] == [other]  # prefix match
    assert [r.id for r in list_handoffs(project, work="pagination ledger").rows] == [other]  # summary
    assert [r.id for r in list_handoffs(project, work="fixture").rows] == [oauth]  # in_progress


def test_list_work_finds_a_word_inside_text_written_without_spaces(project):
    """CJK and Thai runs are one token to the tokenizer: only a prefix matched (tester team14 F11)."""
    login = _capture(project, payload(work={"title": "ログイン画面のバグ修正", "objective": "修正する"}))
    thai = _capture(project, payload(work={"title": "Export", "objective": "แก้ไขหน้าเข้าสู่ระบบ"}))
    assert [r.id for r in list_handoffs(project, work="画面").rows] == [login]
    assert [r.id for r in list_handoffs(project, work="バグ 修正").rows] == [login]
    assert [r.id for r in list_handoffs(project, work="เข้าสู่ระบบ").rows] == [thai]
    assert [r.id for r in list_handoffs(project, work="export 画面").rows] == []  # every word is required
    assert list_handoffs(project, work="画面").total in (None, 1)


def test_fts_syntax_in_the_query_is_harmless(project):
    _capture(project)
    assert list_handoffs(project, work='callback"* (').rows
    assert list_handoffs(project, work='callback OR NEAR(x').rows == ()  # every word is a plain term
    assert fts_query("a-b c") == '"a"* "b"* "c"*'
    with pytest.raises(InputError):
        list_handoffs(project, work="  -- ")


def test_list_search_follows_revisions(project):
    from baton.cli_input import ContentOptions
    from tests.app_support import amend_handoff

    handoff_id = _capture(project)
    amend_handoff(project, handoff_id, content=ContentOptions(title="Webhook signature checks"))
    assert [r.id for r in list_handoffs(project, work="webhook").rows] == [handoff_id]
    assert list_handoffs(project, work="resumable").rows == ()


# -- prepare -------------------------------------------------------------------------------

def test_prepare_prefills_git_state_and_changed_files_and_invents_nothing(project):
    head = git_init(project, {"src/app.py": "x = 1\n"})
    (project / "src" / "app.py").write_text("x = 2\n")
    (project / "src" / "new.py").write_text("y = 1\n")
    result = prepare_handoff(project, trigger="hook")
    out = result.to_json()
    assert out["repository"]["head"] == head and out["repository"]["dirty"] is True
    assert out["changed_files"] == ["src/app.py", "src/new.py"]
    template = out["template"]
    assert [a["path"] for a in template["artifacts"]] == ["src/app.py", "src/new.py"]
    assert template["automation"] == {"trigger": "hook"}
    assert template["summary"] == {"current_state": "", "completed": [], "in_progress": [], "discoveries": []}
    assert template["work"]["title"] == "" and template["open_items"] == []
    fields = [item["field"] for item in out["to_complete"]]
    assert "work.title" in fields and "summary.current_state" in fields and "open_items" in fields
    assert out["next"] == "baton checkpoint create --input FILE"


def _roles(result) -> dict[str, str]:
    return {a["path"]: a["role"] for a in result.to_json()["template"]["artifacts"]}


def test_prepare_lists_an_untracked_file_as_created(project):
    git_init(project, {"src/app.py": "x = 1\n"})
    (project / "src" / "new.py").write_text("y = 1\n")
    assert _roles(prepare_handoff(project)) == {"src/new.py": "created"}


def test_prepare_lists_a_staged_new_file_as_created_and_a_modified_one_as_modified(project):
    from dulwich import porcelain

    git_init(project, {"src/app.py": "x = 1\n"})
    (project / "src" / "app.py").write_text("x = 2\n")
    (project / "src" / "added.py").write_text("z = 1\n")
    porcelain.add(str(project), [str(project / "src" / "added.py")])
    assert _roles(prepare_handoff(project)) == {"src/added.py": "created", "src/app.py": "modified"}


def test_prepare_lists_a_deleted_file_with_role_deleted(project):
    git_init(project, {"src/app.py": "x = 1\n", "src/old.py": "y = 1\n"})
    (project / "src" / "old.py").unlink()
    assert _roles(prepare_handoff(project)) == {"src/old.py": "deleted"}


def test_prepare_lists_the_files_of_an_untracked_directory_not_the_directory(project):
    git_init(project, {"README.md": "hello\n"})
    (project / "newdir" / "sub").mkdir(parents=True)
    (project / "newdir" / "a.py").write_text("a = 1\n")
    (project / "newdir" / "sub" / "b.py").write_text("b = 1\n")
    result = prepare_handoff(project)
    assert _roles(result) == {"newdir/a.py": "created", "newdir/sub/b.py": "created"}
    assert result.to_json()["changed_files"] == ["newdir/a.py", "newdir/sub/b.py"]


def test_prepare_leaves_a_symlink_out_of_the_worktree_out_of_the_artifacts_and_names_it(project, tmp_path):
    git_init(project, {"src/app.py": "x = 1\n"})
    (tmp_path / "outside.txt").write_text("not the project's\n")
    (project / "src" / "link_out").symlink_to(tmp_path / "outside.txt")
    (project / "src" / "new.py").write_text("y = 1\n")
    out = prepare_handoff(project).to_json()
    assert [a["path"] for a in out["template"]["artifacts"]] == ["src/new.py"]
    assert out["left_out"] == [{"path": "src/link_out", "reason": "symlink-escape"}]
    assert "src/link_out" in out["changed_files"]


def test_prepare_leaves_a_dotenv_file_and_a_private_key_out_of_the_artifacts(project):
    git_init(project, {"src/app.py": "x = 1\n"})
    (project / ".env").write_text("API_KEY=not-a-real-one\n")
    (project / "id_ed25519").write_text("not a real key\n")
    (project / "src" / "new.py").write_text("y = 1\n")
    result = prepare_handoff(project)
    assert _roles(result) == {"src/new.py": "created"}
    assert result.to_json()["left_out"] == [{"path": ".env", "reason": "dotenv-file"},
                                           {"path": "id_ed25519", "reason": "credential-file"}]
    assert "# not proposed as artifacts: .env (dotenv-file), id_ed25519 (credential-file)" in result.render()


def test_a_prepared_template_beside_a_symlink_out_of_the_worktree_captures(project, tmp_path):
    from tests.app_support import capture_checkpoint

    git_init(project, {"src/app.py": "x = 1\n"})
    (tmp_path / "outside.txt").write_text("not the project's\n")
    (project / "data").symlink_to(tmp_path / "outside.txt")
    (project / "src" / "app.py").write_text("x = 2\n")
    target = tmp_path / "template.json"
    prepare_handoff(project, output=str(target))
    template = json.loads(target.read_text())
    template["work"].update(title="T", objective="O")
    target.write_text(json.dumps(template))
    result = capture_checkpoint(project, input_source=str(target))
    assert [a["path"] for a in result.record["artifacts"]] == ["src/app.py"]


def test_prepare_output_refuses_to_overwrite_an_existing_file(project, tmp_path):
    target = tmp_path / "template.json"
    target.write_text("my notes")
    with pytest.raises(InputError, match="`force`") as err:
        prepare_handoff(project, output=str(target))
    assert err.value.exit_code == 2
    assert target.read_text() == "my notes"


def test_prepare_output_with_force_overwrites_an_existing_file(project, tmp_path):
    target = tmp_path / "template.json"
    target.write_text("my notes")
    prepare_handoff(project, output=str(target), force=True)
    assert json.loads(target.read_text())["automation"] == {"trigger": "manual"}


def test_prepare_on_the_command_line_refuses_an_existing_output_unless_forced(project, tmp_path):
    from tests.handoff_support import baton

    target = tmp_path / "template.json"
    target.write_text("my notes")
    refused = baton(project, "handoff", "prepare", "--output", str(target))
    assert refused.returncode == 2 and "--force" in refused.stderr and target.read_text() == "my notes"
    forced = baton(project, "handoff", "prepare", "--output", str(target), "--force")
    assert forced.returncode == 0, forced.stderr
    assert json.loads(target.read_text())["work"]["title"] == ""


@pytest.mark.parametrize(("where", "forced"), [("missing/dir/template.json", ()), ("a-file/template.json", ()),
                                               (".", ("--force",))])
def test_prepare_on_the_command_line_refuses_an_output_in_no_folder_as_an_input_error(project, tmp_path, where,
                                                                                      forced):
    """A folder that is not there, a file where a folder belongs, or a folder as the file: exit 2, naming
    the path (it was exit 1, as if the machine had failed)."""
    from tests.handoff_support import baton

    (tmp_path / "a-file").write_text("x")
    refused = baton(project, "handoff", "prepare", "--output", str(tmp_path / where), *forced)
    assert refused.returncode == 2, refused.stderr
    assert f"cannot write the template to {tmp_path / where}" in refused.stderr


def test_prepare_output_naming_a_folder_is_refused_as_a_folder_not_offered_force(project, tmp_path):
    """A folder as --output without --force said 'already exists; pass --force', and --force then
    failed with 'Is a directory': it names the folder at once."""
    from tests.handoff_support import baton

    refused = baton(project, "handoff", "prepare", "--output", str(tmp_path))
    assert refused.returncode == 2, refused.stderr
    assert f"cannot write the template to {tmp_path}: " in refused.stderr and "--force" not in refused.stderr


def test_prepare_writes_nothing_to_the_ledger(project):
    from tests.handoff_support import ledger_lines

    before = ledger_lines(project)
    prepare_handoff(project)
    assert ledger_lines(project) == before


def test_prepare_uses_the_current_session_objective(project):
    git_init(project)
    from tests.app_support import begin_session

    begin_session(project, session_id="s-1", objective="Ship the webhook retries")
    out = prepare_handoff(project).to_json()
    assert out["template"]["work"]["objective"] == "Ship the webhook retries"
    assert out["session_objective"]["objective"] == "Ship the webhook retries"


def test_prepare_from_a_draft_starts_from_its_content_and_says_to_amend_it(project):
    handoff_id = _capture(project)
    out = prepare_handoff(project, source=handoff_id[-8:]).to_json()
    assert out["template"]["work"]["title"] == "Resumable OAuth callback validation"
    assert out["next"] == f"baton handoff amend {handoff_id} --input FILE"


def test_prepare_template_completed_and_captured_round_trips(project, tmp_path):
    from tests.app_support import capture_checkpoint

    git_init(project)
    git_commit(project, {"src/app.py": "x = 1\n"})
    (project / "src" / "app.py").write_text("x = 3\n")
    target = tmp_path / "template.json"
    prepare_handoff(project, output=str(target))
    template = json.loads(target.read_text())
    template["work"].update(title="T", objective="O")
    template["open_items"] = [payload()["open_items"][0]]
    target.write_text(json.dumps(template))
    result = capture_checkpoint(project, input_source=str(target))
    assert result.record["artifacts"][0]["path"] == "src/app.py"
    assert result.record["artifacts"][0]["content_hash"].startswith("sha256:")


def test_prepare_rejects_an_unknown_trigger(project):
    with pytest.raises(InputError):
        prepare_handoff(project, trigger="cron")


def test_the_template_prepare_prints_can_be_completed_and_captured_as_printed(project, tmp_path):
    """`baton handoff prepare > draft.json` holds the `#` notes above the JSON; passed back with
    --input as the notes say, it was refused as not valid JSON."""
    from tests.handoff_support import baton

    printed = baton(project, "handoff", "prepare")
    assert printed.returncode == 0 and printed.stdout.startswith("# Handoff template")
    draft = tmp_path / "draft.json"
    draft.write_text(printed.stdout.replace('"title": ""', '"title": "From the printed template"', 1)
                     .replace('"objective": ""', '"objective": "It round-trips"', 1))
    captured = baton(project, "checkpoint", "create", "--no-input", "--input", str(draft), "--json")
    assert captured.returncode == 0, captured.stderr
    assert json.loads(captured.stdout)["handoff"]["work"]["title"] == "From the printed template"
    # a JSON error after the notes still names the line of the file
    draft.write_text("# a note\n# another\n{\"work\": ,}\n")
    refused = baton(project, "checkpoint", "create", "--no-input", "--input", str(draft))
    assert refused.returncode == 2 and "line 3" in refused.stderr


def test_prepare_lists_an_untracked_folder_of_many_files_once_with_its_count(project):
    from baton.domain.limits import PREPARE_FOLDER_FILES

    git_init(project, {"README.md": "hello\n"})
    (project / "build").mkdir()
    for i in range(PREPARE_FOLDER_FILES + 1):
        (project / "build" / f"out{i}.o").write_text("")
    (project / "src").mkdir()
    (project / "src" / "new.py").write_text("y = 1\n")
    result = prepare_handoff(project)
    out = result.to_json()
    assert out["changed_files"] == ["src/new.py"] and _roles(result) == {"src/new.py": "created"}
    assert out["untracked_folders"] == [{"path": "build/", "files": PREPARE_FOLDER_FILES + 1, "at_least": False}]
    assert f"build/ ({PREPARE_FOLDER_FILES + 1} files)" in result.render()


def test_prepare_lists_at_most_its_limit_of_changed_files_tracked_changes_first_and_says_how_many_more(project):
    from baton.domain.limits import PREPARE_CHANGED_FILES

    git_init(project, {"zz/tracked.py": "x = 1\n"})
    (project / "zz" / "tracked.py").write_text("x = 2\n")
    for i in range(PREPARE_CHANGED_FILES + 5):
        (project / f"new{i:04}.py").write_text("")
    result = prepare_handoff(project)
    out = result.to_json()
    assert len(out["changed_files"]) == PREPARE_CHANGED_FILES and out["changed_files_more"] == 6
    assert "zz/tracked.py" in out["changed_files"]
    assert len(out["template"]["artifacts"]) == PREPARE_CHANGED_FILES
    assert "and 6 more" in result.render()


def test_prepare_says_a_folder_count_stopped_at_its_cap_is_a_lower_bound(project, monkeypatch):
    from baton.commands import prepare as prepare_module

    monkeypatch.setattr(prepare_module, "PREPARE_COUNT_CAP", 250)
    git_init(project, {"README.md": "hello\n"})
    (project / "build").mkdir()
    for i in range(300):
        (project / "build" / f"out{i}.o").write_text("")
    result = prepare_handoff(project)
    assert result.to_json()["untracked_folders"] == [{"path": "build/", "files": 250, "at_least": True}]
    assert "build/ (250 or more files)" in result.render()
