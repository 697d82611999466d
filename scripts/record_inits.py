"""Write ``baton/domain/record_inits.py``: the source attrs writes for each class of the
record model (``baton.domain.handoff``), compiled with that module instead of in every process.

    .venv/bin/python scripts/record_inits.py          # rewrite it
    .venv/bin/python scripts/record_inits.py --check  # exit 1 when it is not what attrs writes now

The module's opening (its docstring and the comments after it) is kept as it stands there,
written by hand; what follows is this script's. Each source becomes a function whose body is
the source itself (the ``def`` statements attrs would ``eval``) and which returns what they
define by name; ``baton.model._compiled`` runs it in attrs' globals, so the defaults are
evaluated and the functions bound where attrs binds them.
``tests/test_record_inits.py`` fails when the module is not what this writes (another attrs,
a field changed): run this again then.
"""

from __future__ import annotations

import pathlib
import re
import sys

TARGET = pathlib.Path(__file__).resolve().parent.parent / "baton" / "domain" / "record_inits.py"
MODEL = "baton.domain.handoff"

OPENING_ENDS = "# mypy: ignore-errors\n"
"""The last line of the module's opening (its docstring and comments, written there by hand)."""


def opening() -> str:
    """The module's opening as it stands: this script writes what follows it."""
    text = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
    if OPENING_ENDS not in text:
        raise SystemExit(f"record_inits: {TARGET} has no opening ending in {OPENING_ENDS.strip()!r}: "
                         "restore it from git (git checkout -- baton/domain/record_inits.py) and run this again")
    return text[:text.index(OPENING_ENDS) + len(OPENING_ENDS)]


def sources() -> dict[str, str]:
    """Each record model class's name -> the source attrs compiles for it, as this attrs writes it."""
    import attr._make

    import baton.model

    baton.model.precompiled = lambda made: None  # what attrs writes, not what the module holds
    written: dict[str, str] = {}
    compile_it = attr._make._linecache_and_compile

    def spy(script, filename, globs, locals=None):  # type: ignore[no-untyped-def]
        prefix = f"<attrs generated methods {MODEL}."
        if filename.startswith(prefix):
            written[filename[len(prefix):].rstrip(">")] = script
        return compile_it(script, filename, globs, locals)

    attr._make._linecache_and_compile = spy
    try:
        __import__(MODEL)
    finally:
        attr._make._linecache_and_compile = compile_it
    return written


def module_text(written: dict[str, str]) -> str:
    parts = [opening()]
    for name, script in written.items():
        defined = re.findall(r"^def (\w+)\(", script, flags=re.M)
        body = "\n".join(("    " + line) if line.strip() else "" for line in script.strip("\n").splitlines())
        returned = ", ".join(f"{d!r}: {d}" for d in defined)
        parts.append(f"\ndef _{name}():\n{body}\n    return {{{returned}}}\n")
    parts.append("\nMADE = {\n" + "".join(f"    {script!r}: _{name},\n" for name, script in written.items())
                 + "}\n\"\"\"Each source attrs writes for a class of the record model -> its compiled form.\"\"\"\n")
    return "\n".join(parts)


def main(argv: list[str]) -> int:
    text = module_text(sources())
    if "--check" in argv:
        same = TARGET.exists() and TARGET.read_text(encoding="utf-8") == text
        print("record_inits: up to date" if same else f"record_inits: {TARGET} is not what attrs writes now")
        return 0 if same else 1
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
