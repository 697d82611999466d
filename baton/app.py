"""The application object: Baton's porcelain, as ``dulwich.porcelain`` is to dulwich.

``Baton`` owns one opened project — its ledger, projections, policy and
clock — and is the only thing the adapters (the CLI, the MCP server, the
status page, the demo, the harness hooks) call. Each use case is one method.
Every writing method runs the same step (``Project.writing``): take the
ledger lock, catch the projections up from the index's cursors (only new
bytes), load the aggregate, ask its decider (``baton.domain.aggregates``),
screen the events for secrets, append them expecting the stream version the
decision was made on, fold the sealed events the append returned, and return
a typed result (``to_json()`` for ``--json``, ``render()`` for a terminal).

Adapters build one ``Baton`` and keep it: a long-lived one (the MCP server,
the status page) catches up per call, reading only what other processes
appended since. None of them opens a project or decides anything itself,
and nothing behind these methods knows an adapter's option names.

Use cases live in ``baton.commands`` (one module per verb of the spec); the
methods here are their one entry point.
"""

from __future__ import annotations

import os
from typing import Any

from baton.commands import (
    amend, batons, bootstrap, capture, doctor, gc, init, listing, log, metrics, prepare, ready, rebuild,
    resume, sessions, show, status, status_page, validate, verify,
)
from baton.commands.context import Project
from baton.ledger.clock import WallClock, system_clock

PathOption = str | os.PathLike | None


class Baton:
    """One project, opened once; every use case as a method."""

    def __init__(self, project: Project) -> None:
        self.project = project

    @classmethod
    def open(cls, root: PathOption = None, *, clock: WallClock = system_clock) -> "Baton":
        """Open an initialised project (``--project``, ``$BATON_PROJECT``, the git top level, or here).

        Raises:
            NotInitialized (exit 4): no ``.baton/config.json`` at the root.
        """
        return cls(Project.open(root, clock=clock))

    def close(self) -> None:
        self.project.close()

    def __enter__(self) -> "Baton":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- before a project exists ---------------------------------------------------
    @staticmethod
    def init(root: PathOption = None, *, project_id: str | None = None) -> init.InitResult:
        """Create ``.baton/`` (idempotent)."""
        return init.init_project(root, project_id=project_id)

    @staticmethod
    def doctor(root: PathOption = None) -> doctor.DoctorResult:
        """Diagnose a project that may not even open."""
        return doctor.diagnose(root)

    # -- the ledger ---------------------------------------------------------------------
    def log(self, **filters: Any) -> log.LogResult:
        return log.ledger_log(self.project, **filters)

    def verify(self) -> verify.VerifyResult:
        return verify.verify_project(self.project)

    def rebuild(self, **options: Any) -> rebuild.RebuildResult:
        return rebuild.rebuild_projections(self.project, **options)

    def gc(self, *, dry_run: bool = False) -> gc.GcResult:
        return gc.collect_garbage(self.project, dry_run=dry_run)

    # -- handoffs -----------------------------------------------------------------------
    def capture(self, payload: dict[str, Any], **options: Any) -> capture.CaptureResult:
        """Capture a draft handoff (``checkpoint create``, MCP ``handoff_capture``)."""
        return capture.capture_handoff(self.project, payload, **options)

    def prepare(self, **options: Any) -> prepare.PrepareResult:
        return prepare.prepare_handoff(self.project, **options)

    def validate(self, token: str, *, recheck: bool = False) -> validate.ValidateResult:
        return validate.validate_handoff_command(self.project, token, recheck=recheck)

    def promote(self, token: str, *, accept_warnings: str | None = None) -> ready.ReadyResult:
        """``handoff ready``: promote a validated handoff."""
        return ready.promote_handoff(self.project, token, accept_warnings=accept_warnings)

    def amend(self, token: str, **options: Any) -> capture.CaptureResult:
        return amend.amend_handoff(self.project, token, **options)

    def archive(self, token: str, *, reason: str | None = None) -> amend.ArchiveResult:
        return amend.archive_handoff(self.project, token, reason=reason)

    def list_handoffs(self, **options: Any) -> listing.ListResult:
        return listing.list_handoffs(self.project, **options)

    def show(self, token: str, **options: Any) -> show.ShowResult:
        return show.show_handoff(self.project, token, **options)

    def resume(self, token: str = "latest", **options: Any) -> resume.ResumeResult:
        return resume.resume_handoff(self.project, token, **options)

    # -- session batons -------------------------------------------------------------------
    def create_baton(self, handoff: Any, **options: Any) -> batons.BatonCreateResult:
        return batons.create_baton(self.project, handoff, **options)

    def active_baton(self, **options: Any) -> batons.ActiveBatonResult:
        return batons.show_active_baton(self.project, **options)

    def pending_batons(self) -> batons.PendingBatonsResult:
        return batons.list_pending_batons(self.project)

    def cancel_baton(self, **options: Any) -> batons.CancelResult:
        return batons.cancel_baton(self.project, **options)

    def dismiss_baton(self, handoff_id: str, **options: Any) -> batons.DismissResult:
        return batons.dismiss_baton(self.project, handoff_id, **options)

    def hand_on(self, handoff_id: str, **options: Any) -> batons.BatonCreateResult:
        """Scope an existing handoff as a baton (``session handoff --from``)."""
        return batons.scope_handoff_as_baton(self.project, handoff_id, **options)

    def begin_session(self, **options: Any) -> sessions.SessionBeginResult:
        return sessions.begin_session(self.project, **options)

    def end_session(self, session_id: str | None, handoff: Any = None, **options: Any) -> sessions.SessionEndResult:
        return sessions.end_session(self.project, session_id, handoff, **options)

    def bootstrap(self, **options: Any) -> bootstrap.BootstrapResult:
        """The session-start brief; claims the eligible baton for the session."""
        return bootstrap.bootstrap(self.project, **options)

    def metrics(self) -> metrics.MetricsResult:
        return metrics.local_metrics(self.project)

    # -- status -------------------------------------------------------------------------
    def status(self) -> status.StatusResult:
        return status.project_status(self.project)

    def status_overview(self, **options: Any) -> status_page.StatusOverview:
        return status_page.status_overview(self.project, **options)

    def dismiss_from_status_page(self, requested_project: str | None, baton_id: str) -> status_page.StatusDismissal:
        return status_page.dismiss_from_status_page(self.project, requested_project, baton_id)

    def listen_target(self, **options: Any) -> status_page.ListenTarget:
        return status_page.listen_target(self.project, **options)

    def sanitize(self, value: Any) -> Any:
        """Redact an answer with the project's policy (error bodies included)."""
        return status_page.sanitize_for_project(self.project, value)
