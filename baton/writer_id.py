"""A new writer id: this machine and user, unique per clone.

Made once, when a clone first writes (``.baton/local.json``). The host name
is the kernel's node name (what ``host_name()`` returns, without
loading ``socket``: every command that opens a project imports this module),
the user name the OS user's (``user_name``, without loading ``getpass``).
"""

from __future__ import annotations

import os

from baton.domain.regexes import lazy

try:
    import pwd  # built into the interpreter: nothing to load
except ImportError:  # not on Windows
    pwd = None  # type: ignore[assignment]

_UNSAFE = lazy(r"[^a-z0-9]+")


def host_name() -> str:
    """The kernel's node name (the computer's name on Windows)."""
    if hasattr(os, "uname"):
        return os.uname().nodename
    return os.environ.get("COMPUTERNAME", "")  # Windows: no uname


def user_name() -> str:
    """The OS user's login name, found as ``getpass.getuser`` finds it (the
    environment's ``LOGNAME``, ``USER``, ``LNAME``, ``USERNAME``, then the
    password database) without importing ``getpass``, which loads
    ``termios`` for its password prompt (~0.5 ms of every hook).

    Raises:
        OSError: no variable names a user and there is no password entry.
    """
    for name in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        user = os.environ.get(name)
        if user:
            return user
    try:
        return pwd.getpwuid(os.getuid())[0]
    except (KeyError, AttributeError) as exc:
        raise OSError("no user name in the environment or the password database") from exc


def new_writer_id() -> str:
    """A file-name-safe id for this machine and user, unique per clone."""
    host = _UNSAFE.sub("-", host_name().lower()).strip("-")[:24] or "host"
    try:
        user = user_name()
    except OSError:
        user = "user"
    user = _UNSAFE.sub("-", user.lower()).strip("-")[:24] or "user"
    return f"{host}-{user}-{os.urandom(3).hex()}"
