"""An opened project: paths, config, the ledger and the projection runner.

``Project.writing()`` is the read–decide–append step: it holds the ledger
lock, catches the projections up, and hands the command a ``WriteScope`` whose
``append`` checks stream versions and folds the new events at once, so the
command can read its own writes.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator, Mapping

import attrs

from baton.config import WRITER_ID, ProjectConfig, new_writer_id, read_json, write_json_atomic
from baton.errors import InputError, NotInitialized
from baton.ledger.clock import WallClock, system_clock
from baton.ledger.envelope import Event, EventDraft
from baton.ledger.store import Ledger, LedgerTransaction
from baton.project import ProjectPaths, resolve_root, resolve_worktree
from baton.projections.runner import Progress, ProjectionRunner


@attrs.define
class WriteScope:
    project: "Project"
    txn: LedgerTransaction

    @property
    def runner(self) -> ProjectionRunner:
        return self.project.runner

    def append(
        self,
        drafts: Iterable[EventDraft],
        *,
        expected: Mapping[str, int] | None = None,
        durable: bool = False,
    ) -> list[Event]:
        events = self.txn.append(drafts, expected=expected, durable=durable)
        if events:
            self.project.runner.catch_up()
        return events


class Project:
    def __init__(self, paths: ProjectPaths, config: ProjectConfig, writer: str, clock: WallClock = system_clock) -> None:
        self.paths = paths
        self.config = config
        self.writer = writer
        self.clock = clock
        self._ledger: Ledger | None = None
        self._runner: ProjectionRunner | None = None

    @property
    def root(self) -> Path:
        return self.paths.root

    @classmethod
    def open(cls, project: str | os.PathLike | None = None, *, clock: WallClock = system_clock) -> "Project":
        """Open an initialised project.

        Raises:
            NotInitialized: there is no ``.baton/config.json`` at the root.
        """
        root = resolve_root(project)
        paths = ProjectPaths(root, resolve_worktree(root, project))
        if not paths.config.is_file():
            raise NotInitialized(
                f"{paths.root} is not a Baton project (no .baton/config.json); run `baton init` first",
                details={"root": str(paths.root)},
            )
        config = ProjectConfig.from_json(read_json(paths.config), paths.config)
        return cls(paths, config, ensure_writer(paths), clock)

    @property
    def ledger(self) -> Ledger:
        if self._ledger is None:
            self._ledger = Ledger(self.paths.baton_dir, self.writer, fsync=self.config.fsync, clock=self.clock)
        return self._ledger

    @property
    def runner(self) -> ProjectionRunner:
        if self._runner is None:
            from baton.projections.registry import default_projections

            self._runner = ProjectionRunner(self.paths.baton_dir, self.ledger, default_projections())
        return self._runner

    @contextmanager
    def writing(self) -> Iterator[WriteScope]:
        with self.ledger.locked() as txn:
            self.runner.catch_up()
            yield WriteScope(self, txn)

    def reading(self, *, progress: Progress | None = None) -> ProjectionRunner:
        """Bring projections up to date (briefly under the lock) and return them."""
        with self.ledger.locked():
            self.runner.catch_up(progress=progress, allow_pinned=True)
        return self.runner

    def close(self) -> None:
        if self._runner is not None:
            self._runner.close()
        if self._ledger is not None:
            self._ledger.close()


def ensure_writer(paths: ProjectPaths) -> str:
    """This machine's writer id, minted once and kept in ``local.json``."""
    try:
        local = read_json(paths.local)
    except FileNotFoundError:
        local = {}
    if not isinstance(local, dict):
        raise InputError(f"{paths.local} must hold a JSON object")
    writer = local.get("writer")
    if isinstance(writer, str) and WRITER_ID.match(writer):
        return writer
    if writer is not None:
        raise InputError(f"{paths.local}: writer {writer!r} is not a valid writer id ([a-z0-9-], ≤ 64)")
    local["writer"] = new_writer_id()
    if not paths.local.exists():
        # Two first commands at once must agree on one id: publish with an
        # exclusive link and let the loser read the winner's file.
        from baton.canonical import pretty_bytes

        tmp = paths.local.with_name(f".local.{os.getpid()}.tmp")
        try:
            tmp.write_bytes(pretty_bytes(local))
            os.link(tmp, paths.local)
        except FileExistsError:
            return ensure_writer(paths)
        except OSError as exc:
            from baton.errors import StorageError

            raise StorageError(f"cannot write {paths.local}: {exc}") from exc
        finally:
            try:
                tmp.unlink()
            except OSError:
                pass
        return local["writer"]
    write_json_atomic(paths.local, local)
    return local["writer"]
