"""Every "spec §N" in Baton's docs, code and skill names a section of the shipped specification."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "docs" / "spec" / "baton-spec.txt"
# RFC citations (baton/ledger/ids.py cites RFC 9562's sections) are not the spec's.
_RFC_LINE = re.compile(r"RFC ?\d+")
_REFERENCE = re.compile(r"§ ?(\d+(?:\.\d+)*)")
_HEADING = re.compile(r"^(\d+(?:\.\d+)*)\.? \S", re.MULTILINE)


def _spec_sections() -> set[str]:
    return set(_HEADING.findall(SPEC.read_text(encoding="utf-8")))


def _cited() -> dict[str, list[str]]:
    cited: dict[str, list[str]] = {}
    files = [ROOT / "README.md"]
    for folder in ("docs", "baton", "skills"):
        files += [p for p in (ROOT / folder).rglob("*") if p.suffix in {".md", ".py", ".json", ".txt"}]
    for path in files:
        if path.parent.name == "spec" and path.parent.parent.name == "docs":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _RFC_LINE.search(line):
                continue
            for section in _REFERENCE.findall(line):
                cited.setdefault(section, []).append(f"{path.relative_to(ROOT)}:{number}")
    return cited


def test_the_specification_is_shipped_in_docs() -> None:
    assert SPEC.is_file()
    assert (ROOT / "docs" / "spec" / "session-handoff-baton.txt").is_file()


def test_every_section_cited_exists_in_the_shipped_specification() -> None:
    sections = _spec_sections()
    missing = {section: where for section, where in _cited().items() if section not in sections}
    assert not missing, f"spec sections cited but not in docs/spec/baton-spec.txt: {missing}"


def test_the_references_are_found_at_all() -> None:
    # Guards the scan itself: the handoff schema (§7.2) is cited throughout.
    assert "7.2" in _cited()
