"""Every fenced snippet of README.md and docs/*.md runs as written.

- ```python blocks of one file run in order in one namespace (like a notebook);
- ```pycon blocks run as doctests in that namespace: their outputs are checked;
- ```bash blocks run with bash -e from the repository root, the installed
  package's scripts first on PATH;
- a block may be preceded by a marker comment:
    <!-- test: skip (why) -->          not run (the reason is required);
    <!-- test: instead COMMAND -->     a bash block: COMMAND (a shortened
                                       form) runs in its place;
    <!-- test: output of TEXT -->      a ```text block: the output of the last
                                       bash block before it whose code holds
                                       TEXT, checked line by line except lines
                                       with timings.
```text and other languages are not run.
"""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RUNNABLE = {"python", "pycon", "bash"}
MARKER = re.compile(r"<!-- test: (skip \((?P<why>[^)]+)\)|instead (?P<cmd>.+?)|output of (?P<of>.+?)) -->\s*$")
FENCE = re.compile(r"^```(\w*)\s*$")
TIMING = re.compile(r"\d s\b|/s\b")  # "10.52 s on 2 threads", "95,055 deals/s"


@dataclass
class Block:
    path: Path
    line: int  # 1-based line of the opening fence
    lang: str
    code: str
    marker: str | None  # "skip", "instead", "output" or None
    arg: str | None  # the reason or the command

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks_of(path: Path) -> list[Block]:
    lines = path.read_text(encoding="utf-8").splitlines()
    out: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start, lang = i, m.group(1)
        j = i + 1
        while j < len(lines) and lines[j].rstrip() != "```":
            j += 1
        assert j < len(lines), f"{path}:{start + 1}: unclosed code fence"
        marker = arg = None
        k = start - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        mm = MARKER.match(lines[k].strip()) if k >= 0 else None
        if mm:
            if mm.group("why"):
                marker, arg = "skip", mm.group("why")
            elif mm.group("cmd"):
                marker, arg = "instead", mm.group("cmd")
            else:
                marker, arg = "output", mm.group("of")
        out.append(Block(path, start + 1, lang, "\n".join(lines[start + 1 : j]) + "\n", marker, arg))
        i = j + 1
    return out


ALL = {path: blocks_of(path) for path in DOCS}


def bash(command: str, tmp: Path) -> str:
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["SNIPPET_TMP"] = str(tmp)
    r = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", command],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert r.returncode == 0, f"exit {r.returncode}\n--- stdout\n{r.stdout}\n--- stderr\n{r.stderr}"
    return r.stdout


def test_every_fenced_block_has_a_known_language_and_valid_markers():
    for blocks in ALL.values():
        for b in blocks:
            assert b.lang, f"{b.name}: a fence without a language (use text for plain text)"
            if b.marker == "instead":
                assert b.lang == "bash", f"{b.name}: 'instead' is for bash blocks"
            if b.marker == "output":
                assert b.lang == "text", f"{b.name}: 'output' is for text blocks"
    readme = ALL[ROOT / "README.md"]
    assert sum(b.lang in RUNNABLE and b.marker != "skip" for b in readme) >= 10
    assert sum(b.marker == "skip" for b in readme) <= 3, "keep the blocks that cannot run few"


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_snippets_run(path, tmp_path):
    namespace: dict = {"__name__": "__snippets__"}
    outputs: list[tuple[str, str]] = []  # (code as written, its output) of each bash block run
    ran = 0
    for b in ALL[path]:
        if b.marker == "skip" or (b.lang not in RUNNABLE and b.marker != "output"):
            continue
        if b.marker == "output":
            runs = [out for code, out in outputs if b.arg in code]
            assert runs, f"{b.name}: no bash block before it holds '{b.arg}'"
            expected = [ln for ln in b.code.splitlines() if not TIMING.search(ln)]
            actual = [ln for ln in runs[-1].splitlines() if not TIMING.search(ln)]
            assert actual == expected, f"{b.name}: the shown output differs from the command's"
            continue
        ran += 1
        if b.lang == "bash":
            outputs.append((b.code, bash(b.arg if b.marker == "instead" else b.code, tmp_path)))
        elif b.lang == "python":
            exec(compile(b.code, b.name, "exec"), namespace)  # noqa: S102 - the snippet is the test
        else:  # pycon: a doctest over the shared namespace
            test = doctest.DocTestParser().get_doctest(b.code, namespace, b.name, str(path), b.line)
            runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
            runner.run(test, clear_globs=False)
            assert runner.failures == 0, f"{b.name}: {runner.failures} doctest failures (see the output above)"
    if path.name == "README.md":
        assert ran > 0


def test_the_readme_commands_are_the_two_the_scripts_provide():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "bash scripts/setup.sh && .venv/bin/shuangkou selfplay --out runs/demo" in text
    assert "bash scripts/test.sh" in text
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "bash scripts/test.sh" in ci
