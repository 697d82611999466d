"""The real-harness suite runs only when asked for: ``pytest -m e2e tests/e2e``."""

from __future__ import annotations

import pytest

from tests.e2e.common import stop_hook_servers


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        if "tests/e2e/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session", autouse=True)
def hook_servers_stopped():
    """The hook server the harnesses' first hook starts serves the whole run, and is stopped at its end
    (a CI runner may wait for every process it started)."""
    yield
    stop_hook_servers()
