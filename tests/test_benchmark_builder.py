"""The benchmarks build their projects through the application (benchmarks/build.py): a moved or renamed
module must break this test, not a 45-minute benchmark run."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

from tests.conftest import run_baton

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _build_module():
    """benchmarks/build.py by its path (``build`` is also the name of a PyPI package)."""
    spec = importlib.util.spec_from_file_location("baton_bench_build", BENCHMARKS / "build.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_benchmark_builder_makes_a_project_of_the_size_asked_that_verifies(tmp_path):
    meta = _build_module().build_project(tmp_path / "repo", 40)
    assert meta["events"] >= 40 and meta["rounds"] >= 1
    verified = run_baton("verify", "--json", cwd=tmp_path / "repo")
    assert verified.returncode == 0, verified.stderr
    assert json.loads(verified.stdout)["ok"] is True
