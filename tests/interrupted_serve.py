"""``python interrupted_serve.py ARGS...``: the real ``baton`` process
(``baton.cli.run``) with ARGS (``status serve …``), where a Ctrl-C lands in a
finalizer once the server is bound, as one could while a request is served
(Python ignores it there: the server goes on serving). Used by
``tests/test_serve_interrupted.py``."""

import signal
import sys

from baton.web import server


class _Dropped:
    def __del__(self) -> None:
        signal.raise_signal(signal.SIGINT)  # KeyboardInterrupt raised here, inside the finalizer


def main() -> None:
    bind = server.bind_status_server

    def bound(*args, **kwargs):
        served = bind(*args, **kwargs)
        _Dropped()  # dropped at once: its finalizer runs, and swallows the interrupt
        return served

    server.bind_status_server = bound
    sys.argv = ["baton", *sys.argv[1:]]
    from baton.cli import run

    run()


if __name__ == "__main__":
    main()
