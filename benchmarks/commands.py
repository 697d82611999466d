"""Per-command cost of ``baton handoff ready`` and ``baton bootstrap`` as fresh processes.

    python benchmarks/commands.py [--sizes 1000,10000] [--repeat 11] [--cache DIR] [--out FILE]

Why: hooks and agents run ``baton`` as a new process for every step, so what a
user waits for is interpreter start + imports + opening the project + catching
up the index + the command itself — not the in-process cost that
``benchmarks/ledger.py`` measures. This script measures that whole cost, per
command, on projects of several ledger sizes, with the index already warm (as
it is on every command after the first).

What it does, for each size N (events, i.e. lines in ``.baton/ledger/*.jsonl``):

1. **Build** a project through the application (``benchmarks/build.py``: a
   dulwich-made git repository, ``baton init``, then rounds of capture,
   validate, ready, session end with a baton, bootstrap claiming it), cached
   under ``--cache DIR`` (default: a temporary folder, removed at the end).
2. **Copy** the cached project to a scratch folder (the cache stays pristine,
   so every run measures the same ledger) and warm the index with one read
   command in a subprocess (``baton handoff list --json``), plus one untimed
   pass of every measured command.
3. **Time**, in ``--repeat`` interleaved repetitions (so every command sees the
   same machine weather), each as a fresh process — the venv's ``baton``
   console script, or ``python -m baton`` with ``--launcher module``:

   a. ``python -c pass`` (the same interpreter): the floor every command pays;
   b. ``baton handoff ready ID --json`` — before it, untimed and in-process, a
      fresh handoff is captured and validated;
   c. ``baton bootstrap --json --session-id X`` — before it, untimed, a
      ``session end --handoff-steps`` leaves a pending baton, so it really
      claims (checked: ``claimed`` must be true);
   d. ``baton bootstrap --json`` with nothing pending.

   Each child is reaped with ``os.wait4``, which gives that one child's wall
   time (fork to reap), CPU time and peak RSS. Every result is checked (exit
   code, ``status == "ready"``, ``claimed``), so an error is never timed as
   a success.

Reported per size and command: median wall ms, median CPU ms, median peak RSS,
and the ratio of the median wall time to the median of ``python -c pass`` in
the same run — the ratio is the number to compare across runs, because this
machine's absolute speed drifts. ``--out FILE`` writes everything (every
sample included) as JSON. No test asserts on any of these numbers.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from build import baton_cli as baton  # noqa: E402  (benchmarks/build.py)
from build import cached_project, capture_argv

COMMANDS = ("python -c pass", "handoff ready", "bootstrap (claims)", "bootstrap (nothing pending)")



READ_AND_PARSE = """
import glob, sys, orjson
n = 0
for path in sorted(glob.glob(sys.argv[1] + "/.baton/ledger/*.jsonl")):
    with open(path, "rb") as fh:
        for line in fh:
            orjson.loads(line)
            n += 1
print(n)
"""
"""A fresh process that reads a project's feeds and ``orjson.loads`` every line (the replay baseline)."""


def launcher_for(tree: Path) -> tuple[list[str], dict[str, str]]:
    """``python -P -m baton`` importing the checkout ``tree``, and its environment.
    ``-P``: the current directory is not put first on ``sys.path``, so a run
    started inside another checkout still imports the tree named here."""
    env = {k: v for k, v in os.environ.items() if k not in ("BATON_PROJECT", "BATON_DEBUG")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tree), env.get("PYTHONPATH")]))
    return [sys.executable, "-P", "-m", "baton"], env

def capture(root: Path, i: int, parent: str | None = None) -> dict:
    """``checkpoint create`` (in-process CLI) with the build mix's sections."""
    return baton(root, *capture_argv(i), *(["--from", parent] if parent else []))


def leave_baton(root: Path, session: str) -> dict:
    return baton(root, "session", "end", session, "--handoff-steps", "Write the replay test,Run the full suite",
                 "--handoff-failed", "In-memory token cache", "--handoff-questions", "Which table holds nonces?")


# -- timing fresh processes ---------------------------------------------------------

TIME = shutil.which("time", path="/usr/bin:/bin")
"""GNU time, if present, reports the child's own peak RSS (see ``spawn``)."""


def spawn(argv: list[str], env: dict[str, str], stdin: bytes | None = None) -> dict:
    """Run ``argv`` as a fresh process; its wall time, CPU time, peak RSS, exit code and stdout.

    Wall and CPU time come from ``os.wait4`` on the child (CPU includes its
    reaped children). Peak RSS does not: a child forked from this (large)
    process keeps this process's high-water mark across ``exec``, so every
    child would report at least our own RSS. When ``/usr/bin/time`` exists the
    child is started through it (a small C program, the same ~1 ms for every
    command, the ``python -c pass`` floor included) and its ``%M`` is used;
    otherwise RSS is not reported. ``stdin``: bytes the child reads (a hook's
    payload); otherwise it reads nothing.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile(mode="r") as rss, tempfile.TemporaryFile() as feed:
        feed.write(stdin or b"")
        feed.seek(0)
        full = [TIME, "-q", "-f", "%M", "-o", rss.name, *argv] if TIME else argv
        start = time.perf_counter()
        child = subprocess.Popen(full, stdin=feed if stdin is not None else subprocess.DEVNULL, stdout=out,
                                 stderr=err, env=env)
        _pid, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        peak = rss.read().strip().splitlines()
        return {"wall_ms": wall * 1000, "cpu_ms": (usage.ru_utime + usage.ru_stime) * 1000,
                "rss_mb": int(peak[-1]) / 1024 if peak and peak[-1].isdigit() else None,
                "exit_code": child.returncode,
                "stdout": out.read().decode("utf-8", "replace"), "stderr": err.read().decode("utf-8", "replace")}


def checked(sample: dict, what: str, check=None) -> dict:
    if sample["exit_code"] != 0:
        raise SystemExit(f"{what} exited {sample['exit_code']}:\n"
                         f"{sample['stdout'][-1500:]}\n{sample['stderr'][-1500:]}")
    if check is not None:
        problem = check(json.loads(sample["stdout"]))
        if problem:
            raise SystemExit(f"{what}: {problem}")
    return {k: sample[k] for k in ("wall_ms", "cpu_ms", "rss_mb")}


def measure(root: Path, repeat: int, launcher: list[str], env: dict[str, str]) -> dict[str, list[dict]]:
    """One untimed pass, then ``repeat`` interleaved timed passes of the four commands."""
    project = ["--project", str(root)]
    samples: dict[str, list[dict]] = {name: [] for name in COMMANDS}
    checked(spawn([*launcher, "handoff", "list", "--json", *project], env), "warm-up: handoff list")
    for rep in range(-1, repeat):  # rep -1 warms the page cache and the index; it is not kept
        runs = []
        runs.append(checked(spawn([sys.executable, "-c", "pass"], env), "python -c pass"))

        captured = capture(root, 100_000 + rep)
        validated = baton(root, "handoff", "validate", captured["id"])
        ready_argv = [*launcher, "handoff", "ready", captured["id"], "--json", *project]
        if validated["report"]["status"] == "warn":
            ready_argv[-2:-2] = ["--accept-warnings", "bench"]
        runs.append(checked(spawn(ready_argv, env), "handoff ready",
                            lambda r: None if r.get("status") == "ready" else f"status {r.get('status')!r}"))

        leave_baton(root, f"timed-{rep}-a")
        runs.append(checked(spawn([*launcher, "bootstrap", "--json", "--session-id", f"timed-{rep}-b", *project],
                                  env), "bootstrap (claims)",
                            lambda r: None if r.get("claimed") else "did not claim the pending baton"))

        runs.append(checked(spawn([*launcher, "bootstrap", "--json", *project], env), "bootstrap (nothing pending)",
                            lambda r: "claimed a baton, but none was pending" if r.get("claimed") else None))
        if rep >= 0:
            for name, sample in zip(COMMANDS, runs):
                samples[name].append(sample)
    return samples


def summarize(samples: dict[str, list[dict]]) -> dict[str, dict]:
    floor = statistics.median(s["wall_ms"] for s in samples["python -c pass"])
    cpu_floor = statistics.median(s["cpu_ms"] for s in samples["python -c pass"])
    out = {}
    for name, runs in samples.items():
        wall = statistics.median(s["wall_ms"] for s in runs)
        out[name] = {
            "wall_ms_median": round(wall, 1),
            "wall_ms_min": round(min(s["wall_ms"] for s in runs), 1),
            "cpu_ms_median": round(statistics.median(s["cpu_ms"] for s in runs), 1),
            "rss_mb_median": (round(statistics.median(s["rss_mb"] for s in runs), 1)
                              if all(s["rss_mb"] is not None for s in runs) else None),
            "ratio_to_python": round(wall / floor, 2),
            "cpu_ratio_to_python": round(statistics.median(s["cpu_ms"] for s in runs) / cpu_floor, 2),
        }
    return out


# -- report ---------------------------------------------------------------------

def machine_note() -> dict:
    cpu = platform.processor() or "unknown CPU"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    commit_id = None
    with contextlib.suppress(Exception):
        from dulwich.repo import Repo

        with contextlib.closing(Repo(str(Path(__file__).resolve().parents[1]))) as repo:
            commit_id = repo.head().decode()
    return {"cpu": cpu, "cpus": os.cpu_count(), "load_average_at_start": round(os.getloadavg()[0], 2),
            "python": platform.python_version(), "baton_commit": commit_id}


def table(results: list[dict]) -> str:
    head = (f"| {'events':>6} | {'command':<27} | {'wall ms':>7} | {'min ms':>7} | {'cpu ms':>7} "
            f"| {'RSS MB':>6} | {'× python':>8} | {'cpu × py':>8} |")
    rule = f"|{'-' * 8}|{'-' * 29}|{'-' * 9}|{'-' * 9}|{'-' * 9}|{'-' * 8}|{'-' * 10}|{'-' * 10}|"
    lines = [head, rule]
    for result in results:
        for name in COMMANDS:
            row = result["summary"][name]
            lines.append(f"| {result['events']:>6} | {name:<27} | {row['wall_ms_median']:>7.1f} "
                         f"| {row['wall_ms_min']:>7.1f} | {row['cpu_ms_median']:>7.1f} "
                         f"| {'n/a' if row['rss_mb_median'] is None else format(row['rss_mb_median'], '.1f'):>6} "
                         f"| {row['ratio_to_python']:>8.2f} | {row['cpu_ratio_to_python']:>8.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000",
                        help="comma-separated ledger sizes in events (default: 1000,10000)")
    parser.add_argument("--repeat", type=int, default=11, help="timed repetitions per command (default: 11)")
    parser.add_argument("--cache", type=Path, default=None,
                        help="keep built projects here and reuse them (default: a temporary folder, removed)")
    parser.add_argument("--launcher", choices=("script", "module"), default="script",
                        help="run the venv's `baton` console script (default) or `python -m baton`")
    parser.add_argument("--out", type=Path, default=None, help="also write the results as JSON to FILE")
    args = parser.parse_args(argv)
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]

    script = Path(sys.executable).parent / "baton"
    launcher = [str(script)] if args.launcher == "script" and script.exists() else [sys.executable, "-m", "baton"]
    env = {k: v for k, v in os.environ.items() if k not in ("BATON_PROJECT", "BATON_DEBUG")}
    if launcher[0] == sys.executable:  # `python -m baton` must import this checkout's baton
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).resolve().parents[1]),
                                                          env.get("PYTHONPATH")]))
    machine = machine_note()
    cache = args.cache or Path(tempfile.mkdtemp(prefix="baton-bench-cache-"))
    cache.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="baton-bench-run-"))
    print(f"# machine: {machine['cpu']}, {machine['cpus']} CPUs, load {machine['load_average_at_start']}, "
          f"Python {machine['python']}, baton at {machine['baton_commit']}")
    print(f"# command: {' '.join([Path(sys.executable).name, *sys.argv])}")
    print(f"# launcher: {' '.join(launcher)}; {args.repeat} repetitions; warm index", flush=True)
    results = []
    try:
        for size in sizes:
            cached, meta = cached_project(cache, size)
            root = scratch / f"project-{size}"
            shutil.copytree(cached, root, symlinks=True)
            started = time.perf_counter()
            samples = measure(root, args.repeat, launcher, env)
            results.append({"size": size, "events": meta["events"], "build": meta,
                            "measure_seconds": round(time.perf_counter() - started, 1),
                            "summary": summarize(samples), "samples": samples})
            shutil.rmtree(root, ignore_errors=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if args.cache is None:
            shutil.rmtree(cache, ignore_errors=True)
    print()
    print(table(results))
    print("\nwall = fork to reap, median; min = fastest run; cpu = user+sys of the child; "
          "RSS = the child's peak (GNU time %M); × python = median wall / median `python -c pass` wall\n"
          "in the same run; cpu × py = the same ratio for CPU time, steadier when other work shares the machine.")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"machine": machine, "command": [Path(sys.executable).name, *sys.argv],
                                        "launcher": launcher, "repeat": args.repeat, "results": results},
                                       indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
