"""The hook path's commands counted in instructions (callgrind), versions side by side.

    BATON_HOOK_SERVER=0 BATON_HOOK_DEADLINE=600 \\
        python benchmarks/hook_callgrind.py [--repeat 3] [--rows NAME,NAME] NAME=PYTHONPATH@PROJECT [...]

Each version is a tree of Baton's source on ``PYTHONPATH`` (a ``git archive`` of a commit, its
bytecode compiled with ``python -m compileall -q baton``: otherwise every import compiles from
source) and its own ``cp -a`` copy of a project built by ``benchmarks/build.py``, rebuilt by that
version first (``PYTHONPATH=SRC python -m baton rebuild --json`` in the copy): versions that leave
different files behind would otherwise pay for each other's. The interpreter is this one
(``sys.executable``: the venv with the stack installed). Never point it at a project in use: every
start, end and prompt here is recorded in the copy's ledger.

Each repetition runs every row under every version, interleaved, as ``valgrind --tool=callgrind``
of a fresh process with the copy as its working directory, and reads the instructions it
counted (``Collected``); the first repetition is a warm-up and is not kept. Prints the median
per row (millions of instructions) and each beside the stack's floor (``import attrs, orjson,
sqlite3, hashlib, argparse``, issue 27's hook-path target: at most 1.15x) and the floor without
attrs (the prompt hook's and the turn's end's target: at most 1.15x). Instruction counts barely
move with the machine's load, unlike wall or CPU time: on a shared machine they are the figure to compare.

Rows (``ROWS``): the two floors; ``bootstrap --json``; ``session handoff --json``; the
SessionStart hook of a new session with no baton waiting (steady); the SessionStart hook of a
new session receiving a baton, left for it by an unmeasured ``baton session end prep-N
--handoff-steps ...`` just before (its brief must show the baton); UserPromptSubmit, Stop and
SessionEnd of the session the steady start began (an ordinary prompt that asks for no
handoff, a turn's end that finds no mark, an end that hands nothing on). Set
``BATON_HOOK_SERVER=0`` (the hook in its own process, not relayed to a hook server) and a long
``BATON_HOOK_DEADLINE`` (under callgrind a hook runs ~50x slower than its deadline expects).
"""

from __future__ import annotations

import itertools
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

FLOORS = {"stack floor": "import attrs, orjson, sqlite3, hashlib, argparse",
          "stack floor without attrs": "import orjson, sqlite3, hashlib, argparse"}
ROWS = ("stack floor", "stack floor without attrs", "bootstrap --json", "session handoff",
        "hook SessionStart steady", "hook SessionStart receiving a baton", "hook UserPromptSubmit",
        "hook Stop", "hook SessionEnd")
COMMANDS = {
    "bootstrap --json": ["bootstrap", "--json"],
    "session handoff": ["session", "handoff", "--json"],
    "hook SessionStart steady": ["hook", "claude-code", "SessionStart"],
    "hook SessionStart receiving a baton": ["hook", "claude-code", "SessionStart"],
    "hook SessionEnd": ["hook", "claude-code", "SessionEnd"],
    "hook UserPromptSubmit": ["hook", "claude-code", "UserPromptSubmit"],
    "hook Stop": ["hook", "claude-code", "Stop"],
}
_COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")


def _callgrind(argv: list[str], env: dict[str, str], cwd: str, stdin: bytes | None) -> tuple[int, bytes]:
    """The instructions ``argv`` ran (callgrind's ``Collected``) and its standard output."""
    with tempfile.NamedTemporaryFile(suffix=".log") as log:
        done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                               f"--log-file={log.name}", *argv], input=stdin, capture_output=True, env=env, cwd=cwd)
        if done.returncode != 0:
            raise SystemExit(f"{argv[2:]} failed ({done.returncode}): {done.stderr[-800:]!r}")
        found = _COLLECTED.findall(open(log.name, encoding="utf-8", errors="replace").read())
    if not found:
        raise SystemExit(f"callgrind counted nothing for {argv[2:]}")
    return int(found[-1]), done.stdout


def _payload(event: str, session: str, cwd: str) -> bytes:
    return json.dumps({"session_id": session, "source": "startup", "reason": "other", "cwd": cwd,
                       "transcript_path": "/dev/null", "hook_event_name": event,
                       "prompt": "run the failing parser test again and tell me what it prints"}).encode()


def _check(row: str, out: bytes) -> None:
    """A start delivers a brief; a start that was left a baton shows it (it was claimed)."""
    if "SessionStart" in row and b"additionalContext" not in out:
        raise SystemExit(f"{row} delivered no brief: {out[:300]!r}")
    if row == "hook SessionStart receiving a baton" and "Active Session Handoff".encode() not in out:
        raise SystemExit(f"{row} was shown no baton: {out[:300]!r}")
    if row == "hook SessionStart steady" and "Active Session Handoff".encode() in out:
        raise SystemExit(f"{row} found a baton waiting: {out[:300]!r}")


def main() -> None:
    args = sys.argv[1:]
    repeat, rows = 3, list(ROWS)
    if args[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return
    while args and args[0].startswith("--"):
        if len(args) < 2:
            raise SystemExit(f"{args[0]} needs a value")
        flag, value = args[0], args[1]
        args = args[2:]
        if flag == "--repeat":
            repeat = int(value)
        elif flag == "--rows":
            rows = [r for r in ROWS if r in value.split(",")]
        else:
            raise SystemExit(f"unknown option {flag}")
    if not args or not all("=" in v and "@" in v for v in args):
        raise SystemExit(__doc__.strip().splitlines()[2].strip().join(["usage: ", ""]))
    versions = [(label, *spec.split("@", 1)) for label, spec in (v.split("=", 1) for v in args)]
    python, ids = sys.executable, itertools.count()
    began: dict[str, str] = {}  # per version, the session its steady start began: its prompt and end name it
    counts: dict[str, list[int]] = {}
    for rep in range(-1, repeat):
        for row in rows:
            for label, path, project in versions:
                env = dict(os.environ, PYTHONPATH=path)
                key = row if row in FLOORS else f"{row} [{label}]"
                if row in FLOORS:
                    if label != versions[0][0]:
                        continue
                    ir, _ = _callgrind([python, "-c", FLOORS[row]], env, project, None)
                    counts.setdefault(key, []).append(ir)
                    continue
                n = next(ids)
                session = f"cg-{os.getpid()}-{n}"
                if row == "hook SessionStart steady":
                    began[label] = session
                elif row in ("hook SessionEnd", "hook UserPromptSubmit", "hook Stop"):
                    session = began.get(label, session)
                elif row == "hook SessionStart receiving a baton":
                    subprocess.run([python, "-m", "baton", "session", "end", f"prep-{os.getpid()}-{n}",
                                    "--handoff-steps", "carry on with the parser fix"], env=env, cwd=project,
                                   capture_output=True, check=True)
                stdin = _payload(COMMANDS[row][-1], session, project) if row.startswith("hook") else None
                ir, out = _callgrind([python, "-m", "baton", *COMMANDS[row]], env, project, stdin)
                _check(row, out)
                counts.setdefault(key, []).append(ir)
                print(f"# repetition {rep + 1}: {key} {ir / 1e6:.1f} M", file=sys.stderr, flush=True)
        if rep == -1:
            counts.clear()
    floors = [statistics.median(counts[floor]) if floor in counts else None for floor in FLOORS]  # a floor --rows left out: no ratio
    print(f"{'':48} {'Ir (M)':>8} {'/stack':>7} {'/no-attrs':>9}   "
          f"(callgrind, medians of {repeat} after a warm-up; load {os.getloadavg()[0]:.1f})")
    for key, values in counts.items():
        ir = statistics.median(values)
        print(f"{key:48} {ir / 1e6:8.1f}", *(f"{ir / floor:7.3f}" if floor else f"{'-':>7}" for floor in floors))


if __name__ == "__main__":
    main()
