"""`baton resume latest` in callgrind instructions: two versions side by side, the head moved and not.

What it measures (issue 27; docs/performance.md): the instructions one `baton resume latest`
costs, beside the prescribed stack's floor (`python -c "import attrs, orjson, sqlite3, hashlib,
argparse"`), for two versions of Baton in the same run: each a `git archive` of its ref, compiled
with `python -m compileall -q`, run from its own folder on `PYTHONPATH` by this interpreter, on
its own `cp -a` copy of each benchmark project's repository, rebuilt by that version
(`python -m baton rebuild --json`). Each project is measured in two states:

- **moved**: a commit made after the latest handoff's captured commit (so `resume` tells how the
  head moved: the walk of its history and the commits ahead);
- **still**: the branch set back to the captured commit (`git reset --hard`), so the head did
  not move and no history is read;
- **moved, packed**: as moved, after `git gc` (the commits read from a pack, as in a repository
  git has packed: the benchmark projects' objects are otherwise all loose).

Every figure is a median of `--runs` callgrind runs after one warm-up, the versions interleaved
run by run (`BATON_HOOK_SERVER=0`: the command runs in its own process). Before measuring, the
text and `--json` output of the two versions are compared in each state (a `marked_resumed`
stamp aside) and the result says whether they were the same bytes.

Run it (a few minutes a project; valgrind must be installed):

    python benchmarks/resume_callgrind.py --base main --change HEAD \\
        --project /tmp/baton-100k/project-10000-r2/repo --project /tmp/baton-100k/project-100000-r2/repo \\
        --work /tmp/resume-cg --out benchmarks/results/resume-YYYY-MM-DD.txt

The projects are never touched in place: each version works on its own copy under `--work`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FLOOR = "import attrs, orjson, sqlite3, hashlib, argparse"
_COLLECTED = re.compile(r"Collected : (\d+)")


def run(cmd: list[str], *, cwd: Path | None = None, env: dict | None = None, input: str | None = None) -> str:
    done = subprocess.run(cmd, cwd=cwd, env=env, input=input, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return done.stdout


def export(ref: str, where: Path) -> str:
    """``ref`` of this repository as a compiled source tree in ``where``; its commit id."""
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", ref], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(where)], input=archive, check=True)
    run([sys.executable, "-m", "compileall", "-q", str(where / "baton")])
    return run(["git", "rev-parse", "--short=8", ref], cwd=ROOT).strip()


def environment(source: Path) -> dict:
    return {**os.environ, "PYTHONPATH": str(source), "BATON_HOOK_SERVER": "0"}


def git(repo: Path, *args: str) -> str:
    return run(["git", *args], cwd=repo)


def prepare(project: Path, copy: Path, source: Path) -> dict[str, str]:
    """``project`` copied to ``copy`` and rebuilt by the version in ``source``; the captured commit,
    the head the project came with, and a commit made after it (the moved state's head)."""
    shutil.rmtree(copy, ignore_errors=True)
    subprocess.run(["cp", "-a", str(project), str(copy)], check=True)
    env = environment(source)
    run([sys.executable, "-m", "baton", "rebuild", "--json"], cwd=copy, env=env)
    captured = json.loads(run([sys.executable, "-m", "baton", "resume", "latest", "--json"], cwd=copy,
                              env=env))["freshness"]["captured_head"]
    original = git(copy, "rev-parse", "HEAD").strip()
    (copy / "MOVED_ON.md").write_text("a change made after the latest handoff\n")
    git(copy, "add", "MOVED_ON.md")
    dated = {**os.environ, "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
             "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.com",
             "GIT_AUTHOR_DATE": "2026-12-07T12:00:00Z", "GIT_COMMITTER_DATE": "2026-12-07T12:00:00Z"}  # one id in every copy
    run(["git", "commit", "-q", "-m", "moved on after the handoff"], cwd=copy, env=dated)
    return {"captured": captured, "original": original, "moved": git(copy, "rev-parse", "HEAD").strip()}


def set_state(copy: Path, heads: dict[str, str], state: str) -> None:
    git(copy, "reset", "-q", "--hard", heads["captured"] if state == "still" else heads["moved"])
    if state == "moved, packed":
        git(copy, "gc", "-q")


def output(copy: Path, source: Path, *args: str) -> str:
    text = run([sys.executable, "-m", "baton", "resume", "latest", *args], cwd=copy, env=environment(source))
    return re.sub(r'"marked_resumed": [^,\n]*', '"marked_resumed": _', text)


def instructions(cmd: list[str], cwd: Path, env: dict) -> int:
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
                          cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"callgrind of {cmd} failed:\n{done.stderr[-3000:]}")
    return int(_COLLECTED.findall(done.stderr)[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", default="main", help="the version beside which the change is measured")
    parser.add_argument("--change", default="HEAD")
    parser.add_argument("--project", action="append", type=Path, required=True,
                        help="a benchmark project's repository (copied, never used in place)")
    parser.add_argument("--work", type=Path, required=True, help="a scratch folder for the copies")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    lines: list[str] = []

    def say(text: str) -> None:
        print(text, flush=True)
        lines.append(text)

    versions = {"base": args.base, "change": args.change}
    sources = {name: args.work / f"src-{name}" for name in versions}
    commits = {name: export(ref, sources[name]) for name, ref in versions.items()}
    say(f"# resume latest, callgrind instructions; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    say(f"# base {args.base} {commits['base']}, change {args.change} {commits['change']}; "
        f"{sys.executable} (Python {sys.version.split()[0]}); medians of {args.runs} after a warm-up; "
        f"load {os.getloadavg()[0]:.1f}")
    for project in args.project:
        label = project.parent.name
        copies = {name: args.work / f"{label}-{name}" for name in versions}
        heads = {name: prepare(project, copies[name], sources[name]) for name in versions}
        for state in ("moved", "still", "moved, packed"):
            for name in versions:
                set_state(copies[name], heads[name], state)
            same = all(output(copies["base"], sources["base"], *extra) == output(copies["change"], sources["change"], *extra)
                       for extra in ((), ("--json",)))
            fresh = output(copies["change"], sources["change"], "--json")
            ahead = re.search(r'"commits_ahead": ([^,\n]*)', fresh)
            figures: dict[str, list[int]] = {"floor": [], "base": [], "change": []}
            floor = [sys.executable, "-c", FLOOR]
            command = [sys.executable, "-m", "baton", "resume", "latest"]
            for n in range(args.runs + 1):
                counted = {"floor": instructions(floor, copies["base"], dict(os.environ)),
                           **{name: instructions(command, copies[name], environment(sources[name])) for name in versions}}
                if n:  # the first is the warm-up
                    for key, value in counted.items():
                        figures[key].append(value)
            med = {key: statistics.median(values) for key, values in figures.items()}
            say(f"{label} {state} (commits ahead {ahead.group(1) if ahead else '?'}; output the same bytes: "
                f"{'yes' if same else 'NO'}; load {os.getloadavg()[0]:.1f})")
            for key in ("floor", "base", "change"):
                say(f"  {key:6} {med[key] / 1e6:8.1f} M  x floor {med[key] / med['floor']:.3f}   runs "
                    + " ".join(f"{v / 1e6:.1f}" for v in figures[key]))
            say(f"  change - base {(med['change'] - med['base']) / 1e6:+.1f} M "
                f"({(med['change'] / med['base'] - 1) * 100:+.1f}%)")
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
