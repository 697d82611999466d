"""``config.json`` (shareable project settings) and ``local.json`` (this
machine's writer id and overrides).

Both are plain JSON read with orjson. Sections this version does not know are
kept and written back, so an older Baton never drops a newer one's settings.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import attrs
import orjson

from baton.model import frozen
from baton.canonical import pretty_bytes
from baton.errors import InputError, StorageError

CONFIG_SCHEMA = 1


@frozen
class ProjectConfig:
    project_id: str
    fsync: str = "always"
    extra: dict[str, Any] = attrs.field(factory=dict)

    def section(self, name: str) -> dict[str, Any]:
        value = self.extra.get(name)
        return value if isinstance(value, dict) else {}

    def to_json(self) -> dict[str, Any]:
        out = dict(self.extra)
        out.update(schema_version=CONFIG_SCHEMA, project_id=self.project_id, fsync=self.fsync)
        return out

    @classmethod
    def from_json(cls, raw: Any, where: Path) -> "ProjectConfig":
        if not isinstance(raw, dict) or not isinstance(raw.get("project_id"), str):
            raise InputError(f"{where} is not a Baton config (no project_id)")
        fsync = raw.get("fsync", "always")
        if fsync not in ("always", "never"):
            raise InputError(f"{where}: fsync must be 'always' or 'never', not {fsync!r}")
        extra = {k: v for k, v in raw.items() if k not in ("schema_version", "project_id", "fsync")}
        return cls(project_id=raw["project_id"], fsync=fsync, extra=extra)


def read_json(path: Path) -> Any:
    try:
        return orjson.loads(path.read_bytes())
    except FileNotFoundError:
        raise
    except orjson.JSONDecodeError as exc:
        raise InputError(f"{path} is not valid JSON: {exc}") from exc
    except OSError as exc:
        raise StorageError(f"cannot read {path}: {exc}") from exc


def write_json_atomic(path: Path, value: Any) -> None:
    write_bytes_atomic(path, pretty_bytes(value))


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write via a temporary file and rename, so readers never see half a file.

    The temporary name is short and fixed in length (never derived from the
    target's name), so a target whose name is near the file system's limit
    does not fail on its temporary file alone."""
    tmp = path.with_name(f".tmp.{os.getpid()}.{os.urandom(4).hex()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except OSError as exc:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise StorageError(f"cannot write {path}: {exc}") from exc


_UNSAFE = re.compile(r"[^a-z0-9]+")


def new_writer_id() -> str:
    """A file-name-safe id for this machine and user, unique per clone."""
    import getpass
    import socket  # only when a writer id is made (once per machine): not on every command's path

    host = _UNSAFE.sub("-", socket.gethostname().lower()).strip("-")[:24] or "host"
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "user"
    user = _UNSAFE.sub("-", user.lower()).strip("-")[:24] or "user"
    return f"{host}-{user}-{os.urandom(3).hex()}"


WRITER_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
