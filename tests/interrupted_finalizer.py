"""``python interrupted_finalizer.py MARKER ARGS...``: the real ``baton`` process
(``baton.cli.run``) with ARGS, where the first of dulwich's lock-file
finalizers (``_GitFile.__del__``, run when a ref or object write's file is
dropped) to run raises SIGINT in the process, as a Ctrl-C that lands in it
would, and creates the file MARKER, so a test knows the interrupt was sent.
Python ignores an exception raised in a finalizer. Used by
``tests/test_sync_interrupted.py``."""

import signal
import sys

from dulwich import file as dulwich_file


def main() -> None:
    marker = sys.argv[1]
    original = dulwich_file._GitFile.__del__

    def finalizer(self) -> None:
        dulwich_file._GitFile.__del__ = original
        open(marker, "a").close()
        signal.raise_signal(signal.SIGINT)  # KeyboardInterrupt raised here, inside the finalizer
        original(self)

    dulwich_file._GitFile.__del__ = finalizer
    sys.argv = ["baton", *sys.argv[2:]]
    from baton.cli import run

    run()


if __name__ == "__main__":
    main()
