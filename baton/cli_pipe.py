"""A reader that stops reading ends the output, not the command (``baton log | head -1``).

When the process reading a pipe closes it early (``head``, a pager quit, a
harness that stopped reading), every later write to it fails with EPIPE.
Baton's convention (docs/cli.md, "Exit codes"): that is a normal end of the
*output*. Whatever the command would still print there is dropped without a
word — no traceback, no "Exception ignored … BrokenPipeError" at exit — and
the command runs to its own end and exits with its own status: a checkpoint
or a sync piped into ``head`` still finishes what it started, and a failure
still exits with its code. A streamed listing (``baton log``) asks
``output_gone`` and stops reading once nobody reads it.

``guard_standard_streams`` is called once per process, by ``baton.cli.run``,
before the command: standard output and error, when they are pipes or
sockets (nothing else raises EPIPE), are rebuilt over a writer that turns
EPIPE into the end of that stream (its descriptor then points at
/dev/null, so nothing else written there fails either). A stream replaced
before (a test's capture) is left alone.
"""

from __future__ import annotations

import io
import os
import stat
import sys

_STREAMS = (("stdout", 1), ("stderr", 2))
_guarded: dict[int, "_PipeEnd"] = {}


class _PipeEnd(io.RawIOBase):
    """A standard stream's descriptor, written until its reader has gone, then silently never again."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self.fd = fd
        self.gone = False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd

    def isatty(self) -> bool:
        return False

    def write(self, data) -> int:
        size = memoryview(data).nbytes
        if self.gone:
            return size
        try:
            return os.write(self.fd, data)
        except BrokenPipeError:
            self.gone = True
            try:  # what anything else writes to this descriptor (an inherited one, the interpreter) goes nowhere too
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, self.fd)
                os.close(null)
            except OSError:
                pass
            return size


def guard_standard_streams() -> None:
    """Make EPIPE on standard output or error the quiet end of that stream (see the module's doc)."""
    for name, fd in _STREAMS:
        stream = getattr(sys, name)
        if stream is None or stream is not getattr(sys, f"__{name}__") or fd in _guarded:
            continue
        try:
            if stream.fileno() != fd or not _is_pipe(fd):
                continue
            stream.flush()
        except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
            continue
        end = _PipeEnd(fd)
        guarded = io.TextIOWrapper(io.BufferedWriter(end), encoding=stream.encoding, errors=stream.errors,
                                   line_buffering=stream.line_buffering, write_through=stream.write_through)
        _guarded[fd] = end
        setattr(sys, name, guarded)


def output_gone() -> bool:
    """Whether standard output's reader has gone (only known of a guarded pipe)."""
    end = _guarded.get(1)
    return end is not None and end.gone


def _is_pipe(fd: int) -> bool:
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)
