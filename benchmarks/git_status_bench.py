"""What a git work tree's status costs Baton, beside ``git status`` itself, on real repositories of 1k to 100k files.

    python benchmarks/git_status_bench.py [--sizes 1000,10000,30000] [--repeat 7] [--ignored 5000]
                                          [--cache DIR] [--baseline DIR] [--out FILE] [--clean]

Each size is a real git repository built with the ``git`` binary (cached under
``--cache``, reused while the recipe is the same): that many committed files
in nested folders (``pkgNN/modNN/file_NNNN.py``, at most 20 files a folder),
a ``.gitignore`` naming ``node_modules/``, ``build/`` and ``*.log``, an
ignored ``node_modules/`` of ``--ignored`` files (never committed), and a
little work in progress: three files modified and not staged, one modified
and staged, one new file staged, one committed file deleted with ``git rm``,
two untracked files at the top and an untracked folder ``scratch/`` of three;
then one ``git status`` so the index's stat cache is fresh, as in any working
checkout. A Baton project (``baton init``) with one capture lives in it.
With ``--clean`` the work in progress is left out (the ignored files stay):
a clean tree, where ``is_dirty`` finds no change to stop at and does all of
``changed_files``' work.

Timed side by side in each repetition, every one a fresh process:

- ``git status --porcelain`` (the real binary: the baseline);
- Baton's ``changed_files`` (``baton.git_status``, or ``baton.gitinfo`` in a
  tree before it: the call alone, timed in a fresh process after its imports,
  the ``(call)`` rows) and ``is_dirty`` when the tree has it (what capture
  and validate ask);
- ``baton checkpoint create`` and ``baton handoff validate`` (whole processes).

With ``--baseline DIR`` (another revision's source tree: ``git archive main |
tar -x -C DIR``) the Baton rows are also run with that tree, in the same
repetitions, so before and after come from one run. The answer of
``changed_files`` is checked against ``git status --porcelain
--untracked-files=normal`` (the same set of paths, ``.baton/`` left out) in
every tree at every size, so a wrong answer is never timed as a right one.
Medians; ratios are to ``git status``'s median of the same run. No test
asserts on these numbers.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TREE = HERE.parent

RECIPE = 1
"""Bump when ``build_repo`` changes: cached repositories of another recipe are rebuilt."""

GIT_ENV = {"GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}

CALL = """
import json, sys, time
from pathlib import Path
import baton
from baton import gitinfo
git_status = None
if (Path(baton.__file__).parent / "git_status.py").exists():  # not another tree's, through an editable install
    from baton import git_status
name = sys.argv[2]
fn = getattr(git_status, name, None) or getattr(gitinfo, name, None)
if fn is None:
    print(json.dumps({"missing": name}))
    raise SystemExit(0)
start = time.perf_counter()
answer = fn(Path(sys.argv[1]))
ms = (time.perf_counter() - start) * 1000
print(json.dumps({"ms": ms, "answer": answer if name == "is_dirty" else [answer[0], list(answer[1])]}))
"""
"""A fresh process that imports Baton (``PYTHONPATH``: the tree under test) and times one gitinfo call."""


def git(root: Path, *argv: str, check: bool = True) -> str:
    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(["git", *argv], cwd=root, env=env, capture_output=True, text=True, check=False)
    if check and done.returncode != 0:
        raise SystemExit(f"git {' '.join(argv)} exited {done.returncode}: {done.stderr[-1500:]}")
    return done.stdout


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def tracked_names(files: int) -> list[str]:
    """``files`` paths in nested folders: 20 files a module folder, 20 modules a package."""
    return [f"pkg{i // 400:03d}/mod{(i // 20) % 20:02d}/file_{i:06d}.py" for i in range(files)]


def build_repo(root: Path, files: int, ignored: int, clean: bool = False) -> None:
    """The repository described in the module docstring, at ``root`` (created); without its
    work in progress when ``clean``."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Bench")
    git(root, "config", "user.email", "bench@example.invalid")
    for name in tracked_names(files):
        _write(root / name, f"# {name}\nVALUE = {len(name)}\n")
    _write(root / ".gitignore", "node_modules/\nbuild/\n*.log\n")
    _write(root / "README.md", "A benchmark repository.\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Initial import")
    for i in range(ignored):  # ignored: never committed, never listed, ideally never walked
        _write(root / "node_modules" / f"dep{i // 50:04d}" / "lib" / f"index_{i}.js", "module.exports = 1;\n")
    _write(root / "build" / "out.o", "binary\n")
    _write(root / "server.log", "log line\n")
    if clean:
        git(root, "status", "--porcelain")
        return
    names = tracked_names(files)
    for name in names[1:4]:  # modified, not staged
        (root / name).write_text((root / name).read_text() + "# edited\n")
    (root / names[5]).write_text((root / names[5]).read_text() + "# staged edit\n")
    _write(root / "pkg000" / "new_module.py", "NEW = 1\n")
    git(root, "add", names[5], "pkg000/new_module.py")
    git(root, "rm", "-q", names[7])
    _write(root / "notes.txt", "untracked\n")
    _write(root / "todo.md", "untracked\n")
    for i in range(3):
        _write(root / "scratch" / f"try_{i}.py", "x = 1\n")
    git(root, "status", "--porcelain")  # refresh the index's stat cache, as any checkout has


def baton_env(tree: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("BATON_PROJECT", "BATON_DEBUG")}
    env.update(GIT_ENV)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tree), env.get("PYTHONPATH")]))
    env["BATON_HOOK_SERVER"] = "0"
    return env


def run(argv: list[str], env: dict[str, str], cwd: Path, ok: tuple[int, ...] = (0,)) -> dict:
    """``argv``'s wall time and stdout; an exit code not in ``ok`` stops the run."""
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    wall = (time.perf_counter() - start) * 1000
    if done.returncode not in ok:
        raise SystemExit(f"{' '.join(argv[:6])} exited {done.returncode}:\n{done.stdout[-1500:]}\n"
                         f"{done.stderr[-1500:]}")
    return {"ms": wall, "stdout": done.stdout}


def cached_repo(cache: Path, files: int, ignored: int, env: dict[str, str], clean: bool = False) -> tuple[Path, str]:
    """The repository for ``files`` (built on first use) and its capture's id."""
    home = cache / f"git-{files}-i{ignored}-r{RECIPE}{'-clean' if clean else ''}"
    meta = home / "meta.json"
    if meta.exists():
        return home / "repo", json.loads(meta.read_text())["handoff"]
    shutil.rmtree(home, ignore_errors=True)
    print(f"# building a {files}-file repository in {home} ...", file=sys.stderr, flush=True)
    build_repo(home / "repo", files, ignored, clean)
    root = home / "repo"
    baton = [sys.executable, "-P", "-m", "baton"]
    run([*baton, "init", "--json", "--project", str(root)], env, root)
    out = run([*baton, *capture_argv("setup"), "--json", "--project", str(root)], env, root)
    handoff = json.loads(out["stdout"])["id"]
    git(root, "status", "--porcelain")
    meta.write_text(json.dumps({"handoff": handoff, "files": files, "ignored": ignored}))
    return root, handoff


def capture_argv(label: str) -> list[str]:
    return ["checkpoint", "create", "--no-input", "--title", f"Bench capture {label}",
            "--objective", "Time the git status a capture reads", "--current-state", "benchmarking",
            "--artifact", "README.md:read"]


def git_answer(root: Path) -> set[str]:
    """``git status --porcelain --untracked-files=normal``'s paths (both sides of a rename), ``.baton/`` left out."""
    out = subprocess.run(["git", "-c", "core.quotePath=false", "status", "--porcelain=v1", "-z",
                          "--untracked-files=normal"], cwd=root, capture_output=True, check=True).stdout
    items = out.decode("utf-8", "surrogateescape").split("\0")
    paths, i = set(), 0
    while i < len(items):
        item = items[i]
        i += 1
        if not item:
            continue
        paths.add(item[3:])
        if item[0] in "RC":
            paths.add(items[i])
            i += 1
    return {p for p in paths if not p.startswith(".baton/")}


def call(tree: Path, root: Path, name: str) -> dict | None:
    out = run([sys.executable, "-P", "-c", CALL, str(root), name], baton_env(tree), root)
    found = json.loads(out["stdout"])
    return None if "missing" in found else found


def measure(root: Path, handoff: str, trees: dict[str, Path], repeat: int) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {}
    expected = git_answer(root)
    for label, tree in trees.items():
        got = call(tree, root, "changed_files")
        if got is None or set(got["answer"][1]) != expected or got["answer"][0] is not bool(expected):
            raise SystemExit(f"{label}: changed_files answered {got and got['answer']}, git status says "
                             f"{sorted(expected)}")
    for _ in range(repeat):
        samples.setdefault("git status --porcelain", []).append(
            run(["git", "status", "--porcelain"], {**os.environ, **GIT_ENV}, root)["ms"])
        for label, tree in trees.items():
            env = baton_env(tree)
            baton = [sys.executable, "-P", "-m", "baton"]
            for name in ("changed_files", "is_dirty"):
                got = call(tree, root, name)
                if got is not None:
                    if name == "is_dirty" and got["answer"] is not bool(expected):
                        raise SystemExit(f"{label}: is_dirty answered {got['answer']}; git status says "
                                         f"{sorted(expected)}")
                    samples.setdefault(f"{label}: {name} (call)", []).append(got["ms"])
            samples.setdefault(f"{label}: checkpoint create", []).append(
                run([*baton, *capture_argv(label), "--json", "--project", str(root)], env, root)["ms"])
            # exit 3: the capture's quality score fails the policy; the report is whole (checked)
            done = run([*baton, "handoff", "validate", handoff, "--json", "--project", str(root)], env, root, (0, 3))
            checks = {c["name"]: c["status"] for c in json.loads(done["stdout"])["report"]["checks"]}
            if checks.get("repository") != "pass":
                raise SystemExit(f"{label}: handoff validate's repository check: {done['stdout'][-800:]}")
            samples.setdefault(f"{label}: handoff validate", []).append(done["ms"])
            samples.setdefault(f"{label}: python -c import baton.cli", []).append(
                run([sys.executable, "-P", "-c", "import baton.cli"], env, root)["ms"])
    return samples


def machine_note() -> dict:
    """benchmarks/commands.py's note (CPU, load, Python, Baton's commit), with git's version."""
    spec = importlib.util.spec_from_file_location("baton_bench_commands", Path(__file__).with_name("commands.py"))
    assert spec is not None and spec.loader is not None
    commands = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(commands)
    version = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip()
    return {**commands.machine_note(), "git": version}


def table(results: list[dict]) -> str:
    lines = [f"| {'files':>6} | {'what':<44} | {'median ms':>9} | {'min ms':>8} | {'× git status':>12} |",
             f"|{'-' * 8}|{'-' * 46}|{'-' * 11}|{'-' * 10}|{'-' * 14}|"]
    for result in results:
        base = statistics.median(result["samples"]["git status --porcelain"])
        for what, values in result["samples"].items():
            median = statistics.median(values)
            lines.append(f"| {result['files']:>6} | {what:<44} | {median:>9.1f} | {min(values):>8.1f} "
                         f"| {median / base:>12.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,30000", help="committed files per repository")
    parser.add_argument("--repeat", type=int, default=7, help="timed repetitions (default: 7)")
    parser.add_argument("--ignored", type=int, default=5000, help="files in the ignored node_modules/")
    parser.add_argument("--cache", type=Path, default=None,
                        help="keep built repositories here and reuse them (default: a temporary folder)")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="another revision's source tree, timed beside this one in the same run")
    parser.add_argument("--out", type=Path, default=None, help="also write the samples here as JSON")
    parser.add_argument("--clean", action="store_true", help="a clean work tree: no work in progress")
    args = parser.parse_args(argv)
    if shutil.which("git") is None:
        raise SystemExit("git_status_bench needs the git binary (the baseline)")
    trees = {"this": TREE}
    if args.baseline is not None:
        trees = {"baseline": args.baseline.resolve(), "this": TREE}
    machine = machine_note()
    print(f"# {machine}")
    print(f"# command: {' '.join([Path(sys.executable).name, *sys.argv])}")
    print(f"# trees: {', '.join(f'{k}={v}' for k, v in trees.items())}; {args.repeat} repetitions", flush=True)
    cache = args.cache or Path(tempfile.mkdtemp(prefix="baton-git-status-"))
    results = []
    try:
        for files in (int(s) for s in args.sizes.split(",")):
            root, handoff = cached_repo(cache, files, args.ignored, baton_env(TREE), args.clean)
            samples = measure(root, handoff, trees, args.repeat)
            results.append({"files": files, "ignored": args.ignored, "clean": args.clean, "samples": samples})
            print(table(results[-1:]), flush=True)
    finally:
        if args.cache is None:
            shutil.rmtree(cache, ignore_errors=True)
    print(f"# load average at end: {round(os.getloadavg()[0], 2)}")
    print(table(results))
    if args.out is not None:
        args.out.write_text(json.dumps({"machine": machine, "command": [Path(sys.executable).name, *sys.argv],
                                        "repeat": args.repeat, "results": results}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
