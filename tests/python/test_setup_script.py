"""scripts/setup.sh's options, run with --dry-run (it prints the commands it would run
and runs none, so no network): --envs, --train, --play and --all ask pip for exactly
the packages of those extras, read from pyproject.toml, and rebuild nothing."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[2]
SETUP = ROOT / "scripts" / "setup.sh"
EXTRAS: dict[str, list[str]] = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
    "optional-dependencies"
]


def existing_venv(tmp_path: Path) -> Path:
    """A stand-in for a set-up .venv: its python is this interpreter, which imports the package."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    python = venv / "bin" / "python"
    python.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} "$@"\n')
    python.chmod(0o755)
    return venv


def setup(*args: str, venv: Path) -> subprocess.CompletedProcess:
    # (the stand-in venv's python imports the package as this test process does: from
    # the installed wheel in CI, through PYTHONPATH in a development tree)
    env = dict(os.environ, SHUANGKOU_VENV=str(venv), PYTHON=sys.executable)
    return subprocess.run(
        ["bash", str(SETUP), *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def commands(out: str) -> list[list[str]]:
    """The commands a dry run printed ("+ cmd args"), split as bash would."""
    return [shlex.split(line[2:]) for line in out.splitlines() if line.startswith("+ ")]


def pip_installs(cmds: list[list[str]]) -> list[list[str]]:
    """The arguments after `pip install` of each pip install command."""
    return [c[c.index("install") + 1 :] for c in cmds if c[1:4] == ["-m", "pip", "install"]]


def union(*names: str) -> list[str]:
    out: list[str] = []
    for n in names:
        out += [r for r in EXTRAS[n] if r not in out]
    return out


def test_help_lists_every_option():
    p = subprocess.run(["bash", str(SETUP), "--help"], capture_output=True, text=True, check=True)
    for option in ("--test", "--envs", "--train", "--play", "--all", "--dry-run"):
        assert f"setup.sh {option}" in p.stdout, option
    assert "pyproject.toml" in p.stdout and "rebuild" in p.stdout


def test_envs_asks_pip_for_exactly_the_envs_extra_and_does_not_rebuild(tmp_path):
    venv = existing_venv(tmp_path)
    p = setup("--envs", "--dry-run", venv=venv)
    assert p.returncode == 0, p.stderr
    cmds = commands(p.stdout)
    assert pip_installs(cmds) == [["-q", *EXTRAS["envs"]]], p.stdout
    assert EXTRAS["envs"] == ["gymnasium>=1.0", "pettingzoo>=1.24"]  # (what pyproject.toml says today)
    assert cmds == [[str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *EXTRAS["envs"]]]
    flat = " ".join(" ".join(c) for c in cmds)
    for build_step in ("--no-build-isolation", "scikit-build-core", "apt-get", " venv ", "--upgrade pip"):
        assert build_step not in flat
    assert "dry run: nothing was installed" in p.stdout


@pytest.mark.parametrize(
    "options, extras",
    [
        (["--train"], ["train"]),
        (["--play"], ["play"]),
        (["--envs", "--play"], ["envs", "play"]),
        (["--play", "--envs", "--play"], ["play", "envs"]),
        (["--all"], list(EXTRAS)),
    ],
    ids=lambda x: " ".join(x) if isinstance(x, list) else str(x),
)
def test_each_option_adds_its_extras_packages_only(tmp_path, options, extras):
    p = setup(*options, "--dry-run", venv=existing_venv(tmp_path))
    assert p.returncode == 0, p.stderr
    assert pip_installs(commands(p.stdout)) == [["-q", *union(*extras)]], p.stdout
    assert f"extras {' '.join(extras)} (pyproject.toml)" in p.stdout


def test_all_is_every_extra_of_pyproject(tmp_path):
    p = setup("--all", "--dry-run", venv=existing_venv(tmp_path))
    (args,) = pip_installs(commands(p.stdout))
    assert set(args[1:]) == {r for reqs in EXTRAS.values() for r in reqs}
    assert {"envs", "train", "play", "test"} <= set(EXTRAS)


def test_a_new_environment_is_built_first_then_given_the_extras(tmp_path):
    p = setup("--envs", "--dry-run", venv=tmp_path / "new")
    if p.returncode != 0 and "missing system packages" in p.stderr:
        pytest.skip("this machine lacks the build's system packages")
    assert p.returncode == 0, p.stderr
    installs = pip_installs(commands(p.stdout))
    assert installs[-2] == ["-q", "--no-build-isolation", "."]  # the package, then the extra's packages
    assert installs[-1] == ["-q", *EXTRAS["envs"]]
    assert "creating the virtual environment" in p.stdout


def test_test_with_an_extra_builds_with_the_test_tools_and_adds_the_extra(tmp_path):
    p = setup("--test", "--train", "--dry-run", venv=existing_venv(tmp_path))
    if p.returncode != 0 and "missing system packages" in p.stderr:
        pytest.skip("this machine lacks the test setup's system packages and sudo")
    assert p.returncode == 0, p.stderr
    installs = pip_installs(commands(p.stdout))
    assert installs[-2:] == [["-q", "--no-build-isolation", ".[test]"], ["-q", *EXTRAS["train"]]]


def test_an_unknown_option_is_refused_and_nothing_runs(tmp_path):
    p = setup("--env", venv=tmp_path / "none")
    assert p.returncode == 2
    assert "unknown option '--env'" in p.stderr and "--envs" in p.stderr
    assert not (tmp_path / "none").exists()
