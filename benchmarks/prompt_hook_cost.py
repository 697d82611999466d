"""What Baton's prompt hook costs a person per prompt: in its own process and relayed to a warm hook server.

    python benchmarks/prompt_hook_cost.py VENV PROJECT_COPY REPEAT

VENV is a regular install of Baton (bytecode compiled, see docs/performance.md); PROJECT_COPY a
``cp -a`` copy of a benchmark project, rebuilt by that install. Each repetition runs ``python -c
pass``, the stack floor with and without attrs, then Claude Code's UserPromptSubmit and Gemini CLI's
BeforeAgent hook (an ordinary prompt, which asks for no handoff) as ``install-hooks`` writes them
(``python -P -c 'from baton.launch import run; run()' hook HARNESS EVENT``): once with
``BATON_HOOK_SERVER=0`` (its own process) and once relayed to a hook server kept warm in a private
``XDG_RUNTIME_DIR``. The first repetition is not kept. Prints medians of wall and CPU time (the
caller's, from the kernel's accounting of the child) and, relayed, the server's CPU per hook (its
own and its reaped children's, from /proc, averaged), beside ``python -c pass`` and the floor
without attrs (the prompt hook's target: ≤ 1.15×), and each row's minimum (the closest to a quiet core).
"""

from __future__ import annotations

import glob
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HOOKS = (("claude-code", "UserPromptSubmit"), ("gemini-cli", "BeforeAgent"))
PROMPT = "run the failing parser test again and tell me what it prints"


def main() -> None:
    if len(sys.argv) != 4 or not sys.argv[3].isdigit():
        sys.exit("usage: python benchmarks/prompt_hook_cost.py VENV PROJECT_COPY REPEAT")
    venv, project, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
    python = f"{venv}/bin/python"
    hook = [python, "-P", "-c", "from baton.launch import run; run()", "hook"]
    runtime = tempfile.mkdtemp(prefix="baton-prompt-cost-")
    os.chmod(runtime, 0o700)
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
    own = dict(base, BATON_HOOK_SERVER="0")
    relay = dict(base, BATON_HOOK_SERVER="1", XDG_RUNTIME_DIR=runtime)
    wall: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    server: dict[str, list[float]] = {}

    def server_words() -> list[str]:
        locks = glob.glob(f"{runtime}/baton/hook-*.sock.lock")
        with open(locks[0]) if locks else open(os.devnull) as lock:
            return lock.read().split()

    def server_cpu() -> float | None:
        words = server_words()
        if not words:
            return None
        with open(f"/proc/{words[0]}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")  # utime stime cutime cstime

    def payload(harness: str, event: str, session: str) -> bytes:
        return json.dumps({"session_id": session, "cwd": project, "transcript_path": "/dev/null",
                           "hook_event_name": event, "prompt": PROMPT}).encode()

    def run(key: str, argv: list[str], env: dict[str, str], stdin: bytes | None = None) -> None:
        before_server = server_cpu() if env is relay else None
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(argv, input=stdin, capture_output=True, env=env, cwd=project)
        elapsed = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode or done.stderr:
            raise SystemExit(f"{key} failed ({done.returncode}): {done.stderr[-400:]!r}")
        wall.setdefault(key, []).append(elapsed)
        cpu.setdefault(key, []).append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        if before_server is not None:
            time.sleep(0.05)  # the server reaps the hook's child
            server.setdefault(key, []).append((server_cpu() or 0.0) - before_server)

    warm = hook + list(HOOKS[0])
    for _ in range(100):  # the first relayed hook starts the server; a later one writes its pid
        subprocess.run(warm, input=payload(*HOOKS[0], "warm"), env=relay, cwd=project, capture_output=True)
        if server_cpu() is not None:
            break
        time.sleep(0.2)
    for rep in range(-1, repeat):
        run("python -c pass", [python, "-c", "pass"], base)
        run("stack floor", [python, "-c", "import attrs, orjson, sqlite3, hashlib, argparse"], base)
        run("floor without attrs", [python, "-c", "import orjson, sqlite3, hashlib, argparse"], base)
        for harness, event in HOOKS:
            run(f"{event} own process", hook + [harness, event], own, payload(harness, event, f"cost-{rep}"))
            run(f"{event} relayed", hook + [harness, event], relay, payload(harness, event, f"cost-{rep}"))
        if rep == -1:
            wall.clear()
            cpu.clear()
            server.clear()
    bare_wall = statistics.median(wall["python -c pass"])
    floor_wall, floor_cpu = statistics.median(wall["floor without attrs"]), statistics.median(cpu["floor without attrs"])
    print(f"{'':28} {'wall ms':>8} {'cpu ms':>7} {'server cpu ms':>13} {'wall/pass':>9} {'wall/no-attrs':>13} "
          f"{'cpu/no-attrs':>12} {'min wall':>8} {'min cpu':>7}  (medians of {repeat}; load {os.getloadavg()[0]:.1f})")
    for key in wall:
        w, c = statistics.median(wall[key]), statistics.median(cpu[key])
        s = f"{sum(server[key]) / len(server[key]) * 1000:13.1f}" if key in server else f"{'':13}"
        print(f"{key:28} {w * 1000:8.1f} {c * 1000:7.1f} {s} {w / bare_wall:9.2f} {w / floor_wall:13.2f} "
              f"{c / floor_cpu:12.2f} {min(wall[key]) * 1000:8.1f} {min(cpu[key]) * 1000:7.1f}")
    words = server_words()
    if words:
        print(f"hook server served {words[1] if len(words) > 1 else '?'} commands")
        os.kill(int(words[0]), 15)


if __name__ == "__main__":
    main()
