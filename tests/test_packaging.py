"""What an install by name needs: a free distribution name, the schema and man
page shipped, an SPDX license, and an sdist that carries its tests."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_distribution_is_not_named_baton_but_the_command_is():
    project = PYPROJECT["project"]
    assert project["name"] == "baton-continuity"
    assert project["scripts"] == {"baton": "baton.launch:run"}  # the hook server's relay, else baton.cli.run


def test_the_license_is_an_spdx_expression_with_its_file():
    assert PYPROJECT["project"]["license"] == "MIT"
    assert (ROOT / "LICENSE").is_file() and PYPROJECT["project"]["license-files"] == ["LICENSE"]


def test_the_schema_ships_in_the_package_and_loads_with_importlib_resources():
    from baton.mcp_schemas import handoff_schema

    assert "schemas/*.json" in PYPROJECT["tool"]["setuptools"]["package-data"]["baton"]
    assert handoff_schema() == json.loads((ROOT / "schemas" / "handoff-v0.1.json").read_text())


def test_the_man_page_is_installed_as_man_baton():
    assert PYPROJECT["tool"]["setuptools"]["data-files"] == {"share/man/man1": ["docs/baton.1"]}


def test_the_sdist_carries_what_the_tests_read():
    manifest = (ROOT / "MANIFEST.in").read_text().split()
    for folder in ("tests", "docs", "examples", "skills", "schemas"):
        assert folder in manifest


def test_the_agent_skill_ships_in_the_package_and_is_the_one_in_the_source_tree():
    from baton.harnesses.protocol import SKILL_PATH, skill_text

    assert SKILL_PATH in PYPROJECT["tool"]["setuptools"]["package-data"]["baton"]
    assert skill_text() == (ROOT / "skills" / "baton" / "SKILL.md").read_text(encoding="utf-8")
    assert skill_text().startswith("---\nname: baton\n")


def test_the_package_is_marked_typed_for_its_python_api():
    assert (ROOT / "baton" / "py.typed").is_file()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["baton"]


def test_the_sdist_carries_the_ci_script_its_readme_test_reads():
    assert ".ci/run" in (ROOT / "MANIFEST.in").read_text().split()
