"""``config.json`` (shareable project settings) and ``local.json`` (this
machine's writer id and overrides).

Both are plain JSON read with orjson. Sections this version does not know are
kept and written back, so an older Baton never drops a newer one's settings.
"""

from __future__ import annotations

import os
from stat import S_ISREG

import orjson

from baton.canonical import pretty_bytes
from baton.errors import ConfigError, InputError, StorageError
from baton.values import EMPTY_MAPPING, Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook path's modules need none)
if TYPE_CHECKING:
    from typing import Any, Mapping

    from _typeshed import StrPath

CONFIG_SCHEMA = 1

_NO_EXTRA: Mapping[str, Any] = EMPTY_MAPPING


class ProjectConfig(Value):
    project_id: str
    fsync: str = "always"
    extra: Mapping[str, Any] = _NO_EXTRA
    """The config's other settings (read-only: nothing changes a config in place)."""

    def section(self, name: str) -> dict[str, Any]:
        value = self.extra.get(name)
        return value if isinstance(value, dict) else {}

    def to_json(self) -> dict[str, Any]:
        out = dict(self.extra)
        out.update(schema_version=CONFIG_SCHEMA, project_id=self.project_id, fsync=self.fsync)
        return out

    @classmethod
    def from_json(cls, raw: Any, where: StrPath) -> "ProjectConfig":
        """Raises: ConfigError (exit 4), naming the file and every problem: a
        config that does not read as one stops every command that opens the
        project (``handoff list`` included), never silently half-applied."""
        if not isinstance(raw, dict) or raw.get("project_id") is None:
            raise ConfigError(f"{where} is not a Baton config (no project_id)")
        if not isinstance(raw["project_id"], str):
            kind = {bool: "a boolean", int: "a number", float: "a number", list: "an array", dict: "an object"}.get(
                type(raw["project_id"]), "another type")
            raise ConfigError(f"{where}: project_id must be a string, not {kind}",
                             details={"file": str(where), "problems": ["project_id: must be a string"]})
        fsync = raw.get("fsync", "always")
        if fsync not in ("always", "never"):
            raise ConfigError(f"{where}: fsync must be 'always' or 'never', not {fsync!r}")
        problems = config_problems(raw)
        if problems:
            raise ConfigError(f"{where} is not a valid Baton config: " + "; ".join(problems),
                             details={"file": str(where), "problems": problems})
        extra = {k: v for k, v in raw.items() if k not in ("schema_version", "project_id", "fsync")}
        return cls(project_id=raw["project_id"], fsync=fsync, extra=extra)


OBJECT_SECTIONS = ("policy", "detector", "sync", "recheck")
"""The sections Baton reads from ``config.json``: each must be a JSON object when present."""


def config_problems(raw: dict[str, Any]) -> list[str]:
    """Every problem of a ``config.json`` document's known members (unknown
    sections are kept for a newer Baton and not judged)."""
    problems = []
    project_id = raw.get("project_id")
    if isinstance(project_id, str) and project_id_problem(project_id):
        problems.append(f"project_id {project_id_problem(project_id)}")
    version = raw.get("schema_version", CONFIG_SCHEMA)
    if type(version) is not int or version < 1:
        problems.append(f"schema_version must be a positive integer, not {version!r}"[:120])
    elif version > CONFIG_SCHEMA:
        problems.append(f"schema_version {version} is newer than this Baton knows ({CONFIG_SCHEMA}): the project "
                        "was written by a newer Baton; upgrade Baton to open it")
    for name in OBJECT_SECTIONS:
        if name in raw and not isinstance(raw[name], dict):
            problems.append(f"{name} must be a JSON object, not {type(raw[name]).__name__}")
    if isinstance(raw.get("detector"), dict):
        try:
            _detector_settings()(raw["detector"])
        except InputError as exc:
            problems += (exc.details or {}).get("problems") or [exc.message]
    if isinstance(raw.get("sync"), dict):
        problems += sync_problems(raw["sync"])
    if "log" in raw and raw["log"] is not None and not isinstance(raw["log"], str):
        problems.append(f"log must be a level name (info, debug or off), not {type(raw['log']).__name__}")
    return problems


def _detector_settings() -> Any:
    """``baton.domain.detector_config.detector_settings``, loaded only for a config
    with a ``detector`` section (``__import__``, as ``baton.policy``'s trust rules):
    a project that keeps the detector's defaults never loads its settings' checks."""
    return __import__("baton.domain.detector_config", fromlist=["detector_settings"]).detector_settings


def sync_problems(section: dict[str, Any]) -> list[str]:
    """The problems of the ``sync`` section's settings (``docs/sync.md``), found when the project
    opens, so that every command stops on them, not only ``baton sync``."""
    problems = []
    if "require_signatures" in section and not isinstance(section["require_signatures"], bool):
        problems.append(f"sync.require_signatures must be true or false, not {section['require_signatures']!r}"[:160])
    if "allowed_signers" in section and allowed_signers_problem(section["allowed_signers"]):
        problems.append(f"sync.allowed_signers must be a path relative to the project root, inside it, "
                        f"not {section['allowed_signers']!r}"[:200])
    return problems


DEFAULT_ALLOWED_SIGNERS = ".baton/allowed_signers"
"""The allowed-signers file when ``sync.allowed_signers`` names none (docs/sync.md)."""


def allowed_signers_setting(config: "ProjectConfig") -> str | None:
    """The allowed-signers file as ``config.json`` names it (relative to the project root), or
    None when the setting is malformed (``sync_problems`` stops every command on it)."""
    raw = config.section("sync").get("allowed_signers", DEFAULT_ALLOWED_SIGNERS)
    return None if allowed_signers_problem(raw) else str(raw)


def allowed_signers_problem(value: Any) -> bool:
    """Whether ``sync.allowed_signers`` is not a relative path that stays inside the project."""
    return not isinstance(value, str) or not value or os.path.isabs(value) or ".." in value.split("/")


def project_id_problem(value: str) -> str | None:
    """What is wrong with a project id (``baton init --project-id``, ``config.json``), as the end
    of a sentence starting with its name; None when it is fine: not empty, no control character."""
    if not value.strip() or any(ord(c) < 0x20 or ord(c) == 0x7F for c in value):
        return "must be a non-empty id without control characters"
    return None


CONFIG_HINT = ("; it holds the project's id and shared settings and is committed with the project: fix it, "
               "or put back the committed one (git checkout -- .baton/config.json)")
"""What a ``config.json`` that does not read as one is said with: how to get a good one back."""


def read_config(path: StrPath) -> ProjectConfig:
    """``config.json`` at ``path``, read and checked.

    Raises:
        ConfigError: it does not parse or is no Baton config at all (said with
            ``CONFIG_HINT``), or a setting of it is wrong (naming it: fixed in place).
        FileNotFoundError; StorageError: it cannot be read.
    """
    try:
        raw = read_json(path, ConfigError)
    except ConfigError as exc:
        raise ConfigError(exc.message + CONFIG_HINT) from None
    if not isinstance(raw, dict) or raw.get("project_id") is None:
        raise ConfigError(f"{path} is not a Baton config (no project_id){CONFIG_HINT}")
    return ProjectConfig.from_json(raw, path)


def read_json(path: StrPath, invalid: type[InputError] = InputError) -> Any:
    """``path``'s JSON. Raises: ``invalid`` (``ConfigError`` for a configuration file) when it
    does not parse; FileNotFoundError; StorageError when it cannot be read."""
    try:
        with open(path, "rb") as fh:
            return orjson.loads(fh.read())
    except FileNotFoundError:
        raise
    except orjson.JSONDecodeError as exc:
        raise invalid(f"{path} is not valid JSON: {exc}") from exc
    except OSError as exc:
        raise StorageError(f"cannot read {path}: {exc}") from exc


LOCAL_JSON_LIMIT = 64 << 20
"""The most bytes ``read_local_json`` reads: far more than the bookkeeping files it reads hold
(``sync-state.json``: a few hundred bytes a feed; ``sync-signers.json``: a verdict and a
signature of at most 16 KiB a feed)."""


def read_local_json(path: StrPath, limit: int = LOCAL_JSON_LIMIT) -> Any:
    """The JSON of a file Baton writes for itself under ``.baton/`` (always a regular file,
    replaced by a rename): a symbolic link is not followed (it may point out of the project),
    and neither a file other than a regular one (a FIFO would block) nor one over ``limit``
    bytes is read.

    Raises: FileNotFoundError; InputError when it is a link, not a regular file, over ``limit``
    bytes or not JSON; StorageError when it cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise
    except OSError as exc:
        if os.path.islink(path):
            raise InputError(f"{path} is a symbolic link (Baton writes it as a file of its own): "
                             "not followed") from exc
        raise StorageError(f"cannot read {path}: {exc}") from exc
    try:
        regular = S_ISREG(os.fstat(fd).st_mode)
    except OSError as exc:
        os.close(fd)
        raise StorageError(f"cannot read {path}: {exc}") from exc
    if not regular:  # a folder or a FIFO: ``open`` of a folder's descriptor raises IsADirectoryError
        os.close(fd)
        raise InputError(f"{path} is not a regular file: not read")
    with open(fd, "rb", closefd=True) as fh:
        try:
            st = os.fstat(fd)
            if st.st_size > limit:
                raise InputError(f"{path} is {st.st_size} bytes, over the {limit} it can hold: not read")
            data = fh.read(limit + 1)
        except OSError as exc:
            raise StorageError(f"cannot read {path}: {exc}") from exc
    if len(data) > limit:
        raise InputError(f"{path} is over the {limit} bytes it can hold: not read")
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise InputError(f"{path} is not valid JSON: {exc}") from exc


def write_json_atomic(path: StrPath, value: Any) -> None:
    write_bytes_atomic(path, pretty_bytes(value))


TEMPORARY_PREFIX = ".tmp."
"""How ``write_bytes_atomic``'s temporary files are named. A process killed
between writing one and renaming it leaves it behind, holding the whole file
(``baton forget`` looks for such copies of the text it erases)."""


def write_bytes_atomic(path: StrPath, data: bytes) -> None:
    """Write via a temporary file and rename, so readers never see half a file.

    The temporary name is short and fixed in length (never derived from the
    target's name), so a target whose name is near the file system's limit
    does not fail on its temporary file alone."""
    folder = os.path.dirname(path)
    tmp = os.path.join(folder, f"{TEMPORARY_PREFIX}{os.getpid()}.{os.urandom(4).hex()}")
    try:
        os.makedirs(folder or ".", exist_ok=True)
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise StorageError(f"cannot write {path}: {exc}") from exc

