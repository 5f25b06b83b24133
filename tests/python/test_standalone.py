"""The project stands alone: no tracked file points outside the repository,
rule citations name sections of docs/rules.md that exist, the worked examples
are project data, and the docs carry no internal references."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RULES_DOC = ROOT / "docs" / "rules.md"


def tracked_text_files() -> list[Path]:
    try:
        out = subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):  # pragma: no cover - a source tree without git
        pytest.skip("not a git checkout")
    files = []
    for name in filter(None, out):
        path = ROOT / name
        if not path.is_file() or path.suffix in {".png", ".npz", ".gz", ".whl"}:
            continue
        try:
            path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        files.append(path)
    return files


FILES = tracked_text_files()
THIS = Path(__file__).resolve()

# Files outside the project: the team folder beside it and the documents in it.
OUTSIDE = re.compile(r"\.\./shared|shared/(?:RULES|rules_examples|ARCHITECTURE)|RULES\.md|ARCHITECTURE\.md")
CITATION = re.compile(r"§\s?(\d+)(?:\s?[–-]\s?(\d+))?|\b[Ss]ections? (\d+)")


def rules_sections() -> set[int]:
    return {int(m.group(1)) for m in re.finditer(r"^## (\d+)\. ", RULES_DOC.read_text(encoding="utf-8"), re.M)}


def test_the_rules_document_has_its_seventeen_sections():
    assert rules_sections() == set(range(1, 18))


def test_no_tracked_file_points_outside_the_repository():
    assert len(FILES) > 50
    bad = []
    for path in FILES:
        if path == THIS:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if OUTSIDE.search(line):
                bad.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not bad, "references outside the project:\n" + "\n".join(bad)


def test_section_citations_name_sections_of_docs_rules_md():
    sections = rules_sections()
    bad = []
    for path in FILES:
        if path == THIS:
            continue
        text = path.read_text(encoding="utf-8")
        own = path == RULES_DOC
        for m in CITATION.finditer(text):
            n = text.count("\n", 0, m.start()) + 1
            before = text[max(0, m.start() - 160) : m.start()]
            if not own and "rules.md" not in before:
                bad.append(f"{path.relative_to(ROOT)}:{n}: '{m.group(0)}' does not cite docs/rules.md")
                continue
            for g in (m.group(1), m.group(2), m.group(3)):
                if g is not None and int(g) not in sections:
                    bad.append(f"{path.relative_to(ROOT)}:{n}: '{m.group(0)}' is no section of docs/rules.md")
    assert not bad, "\n".join(bad)


def test_worked_examples_are_project_data_and_in_the_rules_document():
    data = json.loads((ROOT / "tests" / "data" / "rules_examples.json").read_text(encoding="utf-8"))
    doc = RULES_DOC.read_text(encoding="utf-8")
    assert data["readings"] and data["beats"]
    for ex in data["readings"]:
        assert ex["cards"] in doc, ex
    for ex in data["beats"]:
        assert ex["a"] in doc and ex["b"] in doc, ex


def test_readme_links_the_rules_on_its_first_screen():
    first_screen = "\n".join((ROOT / "README.md").read_text(encoding="utf-8").splitlines()[:25])
    assert "(docs/rules.md)" in first_screen


def test_docs_carry_no_internal_references():
    bad = []
    for path in [
        ROOT / "README.md",
        ROOT / "CHANGELOG.md",
        *(ROOT / "docs").glob("*.md"),
        *(ROOT / "experiments").glob("*"),
    ]:
        if not path.is_file() or path.suffix not in {".md", ".py", ".txt"}:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"\b[Ii]ssues? ?#?\d+|python-native|\bsession\b", line):
                bad.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not bad, "\n".join(bad)


def test_license_matches_the_package_metadata():
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    assert 'license = { text = "MIT" }' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def test_one_version_number():
    import shuangkou as sk

    pyproject = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(encoding="utf-8"), re.M)
    cmake = re.search(r"project\(shuangkou VERSION ([\d.]+)", (ROOT / "CMakeLists.txt").read_text(encoding="utf-8"))
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert pyproject and cmake
    assert sk.__version__ == pyproject.group(1) == cmake.group(1)
    assert f"## {sk.__version__}" in changelog


MD_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def test_relative_links_and_images_of_the_docs_exist():
    """Every relative link or image of README.md, docs/ and experiments/ names a file of the
    repository (a renamed doc or a plot not written fails here)."""
    missing = []
    for path in FILES:
        if path.suffix != ".md" or path.name == "CHANGELOG.md":
            continue
        for target in MD_LINK.findall(path.read_text(encoding="utf-8")):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue  # a URL or an anchor
            if not (path.parent / target.split("#")[0]).exists():
                missing.append(f"{path.relative_to(ROOT)}: {target}")
    assert not missing, "links to missing files:\n" + "\n".join(missing)
