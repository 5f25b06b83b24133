"""The compiled module's stub (python/shuangkou/_core.pyi) matches the module,
and a typed user script passes mypy --strict against the installed package."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TYPING = ROOT / "tests" / "typing"

pytest.importorskip("mypy")


def _run(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    # From a folder outside the checkout, so `shuangkou` is the installed package.
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False
    )


def test_stub_matches_the_compiled_module(tmp_path):
    r = _run(["mypy.stubtest", "--allowlist", str(TYPING / "stubtest_allowlist.txt"), "shuangkou._core"], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr


def test_stub_and_marker_are_installed():
    import shuangkou

    pkg = Path(shuangkou.__file__).parent
    assert (pkg / "py.typed").is_file()
    assert (pkg / "_core.pyi").read_text(encoding="utf-8") == (ROOT / "python/shuangkou/_core.pyi").read_text(
        encoding="utf-8"
    )


def test_typed_example_passes_mypy_strict(tmp_path):
    r = _run(["mypy", "--strict", "--no-incremental", str(TYPING / "typed_example.py")], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_catches_a_wrong_call(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text('import shuangkou as sk\n\nn: int = sk.Rules("baibian").read("5 5")\n', encoding="utf-8")
    r = _run(["mypy", "--strict", "--no-incremental", str(bad)], tmp_path)
    assert r.returncode == 1 and "Incompatible types in assignment" in r.stdout, r.stdout


def test_typed_example_runs(tmp_path):
    r = subprocess.run(
        [sys.executable, str(TYPING / "typed_example.py")], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert r.returncode == 0, r.stdout + r.stderr
