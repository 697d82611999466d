"""``python killed_at_rename.py FOLDER ARGS...``: the real ``baton`` CLI with
ARGS, killed with SIGKILL at its first ``os.replace`` into ``.baton/FOLDER/``
— after the temporary file is written, before it is renamed into place — as
a ``kill -9`` (or a crash) landing there would. Used by
``tests/test_killed_leftovers.py``."""

import os
import signal
import sys


def main() -> int:
    folder = f"{os.sep}.baton{os.sep}{sys.argv[1]}{os.sep}"
    real = os.replace

    def replace(src, dst, *args, **kwargs):
        if folder in os.fspath(dst):
            os.kill(os.getpid(), signal.SIGKILL)
        return real(src, dst, *args, **kwargs)

    os.replace = replace
    from baton.cli import main as cli

    return cli(sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
