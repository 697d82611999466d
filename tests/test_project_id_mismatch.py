""".baton/config.json's project_id must be the one the ledger's ``project.initialized`` recorded:
``baton verify`` and ``baton doctor`` fail, naming both ids and what to set, when it is not."""

from __future__ import annotations

import json

from baton.config import read_json, write_json_atomic
from tests.cli_support import run, run_json


def _init(capsys, project_dir) -> str:
    return run_json(capsys, project_dir, "init", "--project-id", "proj-a")["project_id"]


def _set_config_id(project_dir, value: str) -> None:
    config = project_dir / ".baton" / "config.json"
    raw = read_json(config)
    raw["project_id"] = value
    write_json_atomic(config, raw)


def test_verify_passes_when_the_config_and_the_ledger_name_the_same_project(project_dir, capsys):
    _init(capsys, project_dir)
    out = run_json(capsys, project_dir, "verify")
    assert out["project"] == {"config_id": "proj-a", "ledger_ids": ["proj-a"], "problem": None,
                              "other_project_feeds": [], "other_project_problem": None}


def test_verify_fails_when_the_config_names_another_project_than_the_ledger(project_dir, capsys):
    _init(capsys, project_dir)
    _set_config_id(project_dir, "proj-b")
    code, out, err = run(capsys, project_dir, "verify")
    assert code == 3
    (line,) = [line for line in out.splitlines() if line.startswith("FAIL project id:")]
    assert "'proj-b'" in line and "'proj-a'" in line and "set project_id in .baton/config.json back to 'proj-a'" in line
    assert out.splitlines()[-1].startswith("ledger has problems: ")


def test_the_json_answer_names_both_ids_and_the_problem(project_dir, capsys):
    _init(capsys, project_dir)
    _set_config_id(project_dir, "proj-b")
    out = run_json(capsys, project_dir, "verify", expect=3)
    assert out["project"]["config_id"] == "proj-b" and out["project"]["ledger_ids"] == ["proj-a"]
    assert "proj-a" in out["project"]["problem"]
    assert out["ok"] is True  # the chains themselves are sound


def test_doctor_fails_its_project_id_check_on_a_mismatch(project_dir, capsys):
    _init(capsys, project_dir)
    _set_config_id(project_dir, "proj-b")
    code, out, err = run(capsys, project_dir, "doctor", "--json")
    checks = {c["name"]: c for c in json.loads(out)["checks"]}
    assert code == 3 and checks["project id"]["status"] == "fail"
    assert "back to 'proj-a'" in checks["project id"]["detail"]


def test_doctor_has_no_project_id_check_when_the_ids_agree(project_dir, capsys):
    _init(capsys, project_dir)
    code, out, err = run(capsys, project_dir, "doctor", "--json")
    assert "project id" not in {c["name"] for c in json.loads(out)["checks"]}


def _two_clones_inited_apart(tmp_path, capsys):
    """docs/sync.md "Setting up a team": two clones each ran `baton init`
    before the config was committed, then synced through one remote (the second
    one's first sync merging the first's project on purpose: "A remote of another
    project")."""
    from dulwich import porcelain
    from dulwich.repo import Repo

    from tests.sync_support import set_remote

    remote = tmp_path / "remote.git"
    Repo.init_bare(str(remote), mkdir=True).close()
    clones = []
    for name in ("a", "b"):
        clone = tmp_path / name
        clone.mkdir()
        porcelain.init(str(clone)).close()
        set_remote(clone, str(remote))
        run_json(capsys, clone, "init", "--project-id", f"proj-{name}")
        clones.append(clone)
    run_json(capsys, clones[0], "sync")
    run_json(capsys, clones[1], "sync", expect=4)  # another project's ledger: refused unless accepted
    run_json(capsys, clones[1], "sync", "--accept-project", "proj-a")
    run_json(capsys, clones[0], "sync")
    return clones


def test_two_clones_that_each_ran_init_before_sharing_the_config_still_verify_after_sync(tmp_path, capsys):
    """Each clone's config names its own init, which the ledger holds: the two
    `project.initialized` are `concurrent`, not a failure (docs/sync.md).
    Before, verify and doctor failed on both clones for good, telling each to
    set its id back to the other's — which would fail the other init."""
    for clone in _two_clones_inited_apart(tmp_path, capsys):
        out = run_json(capsys, clone, "verify")
        assert sorted(out["project"]["ledger_ids"]) == ["proj-a", "proj-b"]
        assert out["project"]["problem"] is None
        assert [c["kind"] for c in out["concurrent"]] == ["concurrent"]
        checks = {c["name"] for c in run_json(capsys, clone, "doctor")["checks"]}
        assert "project id" not in checks


def test_a_config_naming_neither_of_two_inits_fails_and_offers_both(tmp_path, capsys):
    a, _ = _two_clones_inited_apart(tmp_path, capsys)
    _set_config_id(a, "proj-c")
    out = run_json(capsys, a, "verify", expect=3)
    assert "back to one of 'proj-a', 'proj-b'" in out["project"]["problem"] or \
        "back to one of 'proj-b', 'proj-a'" in out["project"]["problem"]
