"""Secret detection: Baton's rules beside detect-secrets on the same lines,
and what redacting a 1 MB capture costs.

    .venv/bin/pip install detect-secrets     # for this benchmark only; not a dependency
    .venv/bin/python -m benchmarks.secrets [--json FILE]

Recall: the share of the corpus secrets (tests/secret_corpus.py) a tool
finds. Baton finds a secret when the redacted line no longer holds it;
detect-secrets when it reports anything on that line (scanned as a file, with
its default plugins and filters). False positives: look-alike lines a tool
changes or reports.

Cost: redacting one 1 MB string of build output (as ``summarize_output``
does with a command's output), best of five, with every rule; with the rules
Baton had before the provider rules (the same engine); and with every rule
but the keyword prefilter switched off (what the prefilter saves).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from baton.values import replace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from baton.domain.redaction import DEFAULT_RULES, PatternRule, RedactionPolicy, redact_payload  # noqa: E402
from tests.secret_corpus import LOOK_ALIKES, secrets  # noqa: E402

RULES_BEFORE = ("private-key", "aws-access-key-id", "aws-secret-access-key", "github-token",
                "github-fine-grained-token", "slack-token", "jwt", "authorization-header", "url-credentials",
                "generic-secret-assignment", "dotenv-file", "credential-file")
"""The 12 hand-written rules Baton had before issue 10."""


def baton_finds(line: str, secret: str | None, policy: RedactionPolicy) -> bool:
    out = redact_payload(line, policy)
    if secret is None:
        return out.payload != line
    return secret not in out.payload


def detect_secrets_findings(lines: list[str]) -> set[int] | None:
    """Indexes of the lines detect-secrets reports, or None when it is not installed."""
    try:
        from detect_secrets import SecretsCollection
        from detect_secrets.settings import default_settings
    except ImportError:
        return None
    found: set[int] = set()
    with tempfile.TemporaryDirectory() as tmp, default_settings():
        paths = []
        for i, line in enumerate(lines):
            path = os.path.join(tmp, f"line{i:04d}.txt")
            Path(path).write_text(line + "\n")
            paths.append(path)
        collection = SecretsCollection()
        for path in paths:
            collection.scan_file(path)
        for filename, _secret in collection:
            found.add(int(Path(filename).stem[4:]))
    return found


def detect_secrets_version() -> str | None:
    try:
        from detect_secrets.__version__ import VERSION
    except ImportError:
        return None
    return VERSION


def accuracy() -> dict[str, Any]:
    corpus = secrets()
    policy = RedactionPolicy()
    lines = [s.line for s in corpus] + [a.line for a in LOOK_ALIKES]
    baton_hits = [baton_finds(s.line, s.value, policy) for s in corpus]
    baton_fp = [baton_finds(a.line, None, policy) for a in LOOK_ALIKES]
    ds = detect_secrets_findings(lines)
    result: dict[str, Any] = {
        "secrets": len(corpus),
        "providers": len({s.provider for s in corpus}),
        "look_alikes": len(LOOK_ALIKES),
        "baton": {"found": sum(baton_hits), "false_positives": sum(baton_fp),
                  "missed": [s.rule for s, hit in zip(corpus, baton_hits) if not hit],
                  "flagged": [a.line for a, hit in zip(LOOK_ALIKES, baton_fp) if hit]},
    }
    if ds is not None:
        n = len(corpus)
        result["detect_secrets"] = {
            "version": detect_secrets_version(),
            "found": sum(1 for i in range(n) if i in ds),
            "false_positives": sum(1 for i in range(n, len(lines)) if i in ds),
            "missed_providers": sorted({s.provider for i, s in enumerate(corpus) if i not in ds}),
        }
    return result


def build_output(size: int = 1_000_000, seed: int = 7) -> str:
    """About ``size`` characters of build and test output with a few secrets in it."""
    rng = random.Random(seed)
    corpus = secrets()
    pieces: list[str] = []
    total = 0
    n = 0
    while total < size:
        n += 1
        kind = n % 9
        if kind == 0:
            line = f"tests/test_module_{n % 97}.py::test_case_{n} PASSED [{n % 100:3d}%]"
        elif kind == 1:
            line = orjson.dumps({"level": "info", "msg": "request served", "path": f"/api/v1/items/{n}",
                                 "ms": rng.randint(1, 900), "trace": f"{rng.getrandbits(128):032x}"}).decode()
        elif kind == 2:
            line = f"  File \"/usr/lib/python3.11/site-packages/pkg/mod_{n % 31}.py\", line {n % 400}, in handler"
        elif kind == 3:
            line = f"commit {rng.getrandbits(160):040x} Merge branch 'feature/x-{n}'"
        elif kind == 4:
            line = f"Downloading https://files.example.org/pkg-{n % 50}.{n % 9}.0-py3-none-any.whl (1.{n % 9} MB)"
        elif kind == 5:
            line = f"WARNING: deprecated option --foo-{n % 13} used in config/app-{n % 7}.yaml"
        elif kind == 6 and n % 450 == 6:
            line = corpus[(n // 450) % len(corpus)].line  # a secret now and then
        else:
            line = f"[{n:07d}] compiling src/module_{n % 211}.c -> build/module_{n % 211}.o ok"
        pieces.append(line)
        total += len(line) + 1
    return "\n".join(pieces)[:size]


def _without_prefilter(policy: RedactionPolicy) -> RedactionPolicy:
    rules = tuple(replace(r, keywords=()) if isinstance(r, PatternRule) else r for r in policy.rules)
    return replace(policy, rules=rules)


def _best_of(text: str, policy: RedactionPolicy, runs: int = 5) -> float:
    redact_payload("warm up the compiled patterns", policy)
    redact_payload(text[:20000], policy)
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        redact_payload(text, policy)
        best = min(best, time.perf_counter() - start)
    return best


def _older_engine(path: str) -> tuple[Any, Any]:
    """An older ``baton/domain/redaction.py`` (e.g. ``git show 1b101b7:baton/domain/redaction.py``),
    loaded beside this one: its ``redact_payload`` and default policy."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("baton_redaction_before", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.redact_payload, module.RedactionPolicy()


def cost(before_module: str | None = None) -> dict[str, Any]:
    text = build_output()
    every = RedactionPolicy()
    before = replace(every, rules=tuple(r for r in DEFAULT_RULES if r.name in RULES_BEFORE))
    figures: dict[str, Any] = {}
    if before_module:
        redact, policy = _older_engine(before_module)
        redact(text[:20000], policy)
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            redact(text, policy)
            best = min(best, time.perf_counter() - start)
        figures = {"seconds_older_engine": round(best, 4), "older_engine_rules": len(policy.rules)}
    return figures | {
        "capture_bytes": len(text.encode()),
        "rules": len(every.rules),
        "rules_before": len(before.rules),
        "seconds_every_rule": round(_best_of(text, every), 4),
        "seconds_rules_before": round(_best_of(text, before), 4),
        "seconds_every_rule_without_prefilter": round(_best_of(text, _without_prefilter(every), runs=2), 4),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="FILE", help="also write the figures to FILE")
    parser.add_argument("--before-module", metavar="PY",
                        help="an older baton/domain/redaction.py to time on the same capture")
    args = parser.parse_args(argv)
    figures = {"accuracy": accuracy(), "cost": cost(args.before_module), "python": sys.version.split()[0]}
    text = orjson.dumps(figures, option=orjson.OPT_INDENT_2).decode()
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
