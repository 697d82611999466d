"""The use cases, called as an adapter calls them: through one ``Baton``
application object, opened on the project's root for the call and closed.

Tests keep the spec's verbs (``promote_handoff(root, id)``) and so exercise
exactly the path the CLI, the MCP server and the status page take.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from baton.app import Baton
from baton.commands.context import Project
from tests.handoff_support import git_init, payload


def _call(root: Path | str | Baton | Project | None, method: str, *args: Any, **kwargs: Any) -> Any:
    """``root`` may also be an application object or an opened project the caller keeps (a
    long-lived process, or one writer of several in a test): then it is used and not closed."""
    if isinstance(root, Baton):
        return getattr(root, method)(*args, **kwargs)
    if isinstance(root, Project):
        return getattr(Baton(root), method)(*args, **kwargs)
    with Baton.open(root) as app:
        return getattr(app, method)(*args, **kwargs)


def init_project(root: Any = None, **kw: Any) -> Any:
    return Baton.init(root, **kw)


def baton_repo(root: Path, files: dict[str, str]) -> Path:
    """A new git repository at ``root`` with ``files`` committed, and Baton initialised in it."""
    root.mkdir()
    git_init(root, files)
    init_project(root)
    return root


def capture_checkpoint(root: Any = None, *, content: Any = None, input_source: str | None = None, prompter: Any = None,
                       stdin: Any = None, **kw: Any) -> Any:
    """``checkpoint create`` as the CLI runs it: the payload from ``--input`` and the flags, then the app."""
    from baton.cli_input import ContentOptions, capture_payload

    payload = capture_payload(content or ContentOptions(), input_source=input_source, prompter=prompter, stdin=stdin)
    return _call(root, "capture", payload, **kw)


def prepare_handoff(root: Any = None, **kw: Any) -> Any:
    return _call(root, "prepare", **kw)


def validate_handoff_command(root: Any = None, token: str = "", **kw: Any) -> Any:
    return _call(root, "validate", token, **kw)


def promote_handoff(root: Any = None, token: str = "", **kw: Any) -> Any:
    return _call(root, "promote", token, **kw)


def amend_handoff(root: Any = None, token: str = "", *, content: Any = None, input_source: str | None = None,
                  stdin: Any = None, **kw: Any) -> Any:
    """``handoff amend`` as the CLI runs it."""
    from baton.cli_input import ContentOptions, amend_inputs

    replacement, changes = amend_inputs(content or ContentOptions(), input_source=input_source, stdin=stdin)
    return _call(root, "amend", token, replacement=replacement, changes=changes, **kw)


def archive_handoff(root: Any = None, token: str = "", **kw: Any) -> Any:
    return _call(root, "archive", token, **kw)


def list_handoffs(root: Any = None, **kw: Any) -> Any:
    return _call(root, "list_handoffs", **kw)


def show_handoff(root: Any = None, token: str = "", **kw: Any) -> Any:
    return _call(root, "show", token, **kw)


def resume_handoff(root: Any = None, token: str = "latest", **kw: Any) -> Any:
    return _call(root, "resume", token, **kw)


def create_baton(root: Any = None, handoff: Any = None, **kw: Any) -> Any:
    return _call(root, "create_baton", handoff, **kw)


def show_active_baton(root: Any = None, **kw: Any) -> Any:
    return _call(root, "active_baton", **kw)


def list_pending_batons(root: Any = None) -> Any:
    return _call(root, "pending_batons")


def cancel_baton(root: Any = None, **kw: Any) -> Any:
    return _call(root, "cancel_baton", **kw)


def dismiss_baton(root: Any = None, handoff_id: str = "", **kw: Any) -> Any:
    return _call(root, "dismiss_baton", handoff_id, **kw)


def scope_handoff_as_baton(root: Any = None, handoff_id: str = "", **kw: Any) -> Any:
    return _call(root, "hand_on", handoff_id, **kw)


def begin_session(root: Any = None, **kw: Any) -> Any:
    return _call(root, "begin_session", **kw)


def end_session(root: Any = None, session_id: str | None = None, handoff: Any = None, **kw: Any) -> Any:
    return _call(root, "end_session", session_id, handoff, **kw)


def bootstrap(root: Any = None, **kw: Any) -> Any:
    return _call(root, "bootstrap", **kw)


def local_metrics(root: Any = None) -> Any:
    return _call(root, "metrics")


def project_status(root: Any = None) -> Any:
    return _call(root, "status")


def status_overview(root: Any = None, **kw: Any) -> Any:
    return _call(root, "status_overview", **kw)


def listen_target(root: Any = None, **kw: Any) -> Any:
    return _call(root, "listen_target", **kw)


@contextlib.contextmanager
def status_server(root: Any) -> Iterator[Any]:
    """The status page's server for ``root`` on a free loopback port, serving in a
    thread until the block ends."""
    from baton.web.server import bind_status_server

    server = bind_status_server(listen_target(root, host="127.0.0.1", port=0))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        thread.join(timeout=10)


def project_id_of(root: Any) -> str:
    """The project's id (``.baton/config.json``'s), as the status page's API takes it in ``?project=``."""
    opened = Project.open(root)
    try:
        return opened.config.project_id
    finally:
        opened.close()


def fork_handoff(root: Any = None, token: str = "", **kw: Any) -> Any:
    return _call(root, "fork", token, **kw)


def merge_handoffs(root: Any = None, tokens: Any = (), **kw: Any) -> Any:
    return _call(root, "merge", list(tokens), **kw)


def lineage_view(root: Any = None, token: str | None = None, **kw: Any) -> Any:
    return _call(root, "lineage", token, **kw)


def detect(root: Any = None, signals: Any = None, **kw: Any) -> Any:
    return _call(root, "detect", signals, **kw)


def control_detector(root: Any = None, action: str = "", **kw: Any) -> Any:
    return _call(root, "control_detector", action, **kw)


def ready_handoff(repo: Path, session: str | None = None, clock: Any = None) -> str:
    """A ready handoff captured in ``repo`` (naming ``session`` when given): validated and promoted
    by the commands, or, with ``clock``, every step on that clock."""
    with Baton.open(repo, **({"clock": clock} if clock else {})) as app:
        handoff_id = app.capture(payload(), session=session).handoff_id
        if clock is None:
            validate_handoff_command(repo, handoff_id)
            promote_handoff(repo, handoff_id, accept_warnings="tests")
        else:
            app.validate(handoff_id)
            app.promote(handoff_id, accept_warnings="tests")
    return handoff_id


def ready_artifacts(root: Any, *artifacts: dict[str, Any], accept_warnings: str) -> str:
    """A handoff whose artifacts are ``artifacts`` captured, validated and made ready (its warnings
    accepted, ``accept_warnings`` saying why): its id."""
    with Baton.open(root) as app:
        handoff_id: str = app.capture(payload(artifacts=list(artifacts))).handoff_id
    validate_handoff_command(root, handoff_id)
    promote_handoff(root, handoff_id, accept_warnings=accept_warnings)
    return handoff_id


def resumed_drift(root: Any, handoff_id: str) -> tuple[str, list[tuple[str, str, str]]]:
    """What resuming ``handoff_id`` says of its work's freshness: the state, and each drift's
    path, kind and detail."""
    freshness = resume_handoff(root, handoff_id).freshness
    return freshness["state"], [(d["path"], d["kind"], d["detail"]) for d in freshness["drift"]]
