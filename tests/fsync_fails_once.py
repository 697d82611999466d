"""``python fsync_fails_once.py ARGS...``: the real ``baton`` CLI with ARGS, where
the process's first ``os.fsync`` raises ``OSError(EIO)`` — a disk that failed
once (an I/O error, a full disk later freed) — and every later one works. Used
by ``tests/test_long_lived_after_a_failed_write.py``."""

import errno
import os
import sys


def main() -> int:
    real = os.fsync
    failed = []

    def fsync(fd):
        if not failed:
            failed.append(fd)
            raise OSError(errno.EIO, "Input/output error (injected once)")
        return real(fd)

    os.fsync = fsync
    from baton.cli import main as cli

    return cli(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
