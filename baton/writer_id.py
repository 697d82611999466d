"""A new writer id: this machine and user, unique per clone.

Made once, when a clone first writes (``.baton/local.json``). The host name
is the kernel's node name (what ``host_name()`` returns, without
loading ``socket``: every command that opens a project imports this module).
"""

from __future__ import annotations

import getpass
import os

from baton.domain.regexes import lazy

_UNSAFE = lazy(r"[^a-z0-9]+")


def host_name() -> str:
    """The kernel's node name (the computer's name on Windows)."""
    if hasattr(os, "uname"):
        return os.uname().nodename
    return os.environ.get("COMPUTERNAME", "")  # Windows: no uname


def new_writer_id() -> str:
    """A file-name-safe id for this machine and user, unique per clone."""
    host = _UNSAFE.sub("-", host_name().lower()).strip("-")[:24] or "host"
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "user"
    user = _UNSAFE.sub("-", user.lower()).strip("-")[:24] or "user"
    return f"{host}-{user}-{os.urandom(3).hex()}"
